// SPDX-License-Identifier: MIT
/*
 * convert.c - the synchronous convenience call on plain user memory, and
 * the device/CPU policy.
 *
 * The engine sees only buffer objects. Where the driver has userptr BOs
 * (FEATURES bit 4), the caller's buffers become BOs for the time of the
 * call: the source pinned read-only, the destination writable, the engine
 * converting in place. Elsewhere, or when the driver cannot pin them
 * (RLIMIT_MEMLOCK, memory it cannot pin), user memory is staged: copied
 * into a source BO, converted by the engine into a destination BO, copied
 * out. Small plans run on the CPU: the fixed cost of a submission (ioctl,
 * scheduling, interrupt) is larger than the whole conversion on the CPU.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "device_internal.h"
#include "plan_internal.h"

/*
 * Default threshold: plans moving fewer bytes run on the CPU. The guest
 * benchmark (make bench-guest, docs/performance.md "Engine vs CPU path in
 * the guest") sweeps staged conversions from 32 KiB to 64 MiB moved: with
 * two staging copies per call the CPU path stays faster over the whole
 * range in the emulated board (64 MiB: 68 ms CPU, 91 ms engine), while the
 * engine alone runs 66x the CPU path on data already in buffer objects.
 * So below 64 MiB the CPU converts; above it the engine takes the work off
 * the CPU at a cost within 1.4x. tilecopy_job_submit (data in BOs) has no
 * threshold; $TILECOPY_DEVICE_THRESHOLD sets it (0 = always the engine).
 */
#define TC_DEFAULT_THRESHOLD (64ull << 20)
/*
 * With userptr BOs (no staging copies) the same sweep's crossover: from
 * 4 MiB moved on the engine on the caller's pinned pages beats the guest's
 * CPU path at every size measured (8 MiB in a noisier run; at 2 MiB it is
 * 1.15-1.35x slower; docs/performance.md): a job's fixed cost (0.5-0.8 ms
 * in the emulated board) plus the pins (0.2-1 us a page) against the CPU
 * path's 0.5-0.6 ms per MiB moved.
 */
#define TC_USERPTR_THRESHOLD (4ull << 20)

/*
 * tilecopy_convert runs its plan on one queue: the engine serves its queues
 * with one worker, so slicing a synchronous call across them only adds
 * the fixed cost of three more jobs (the guest, data in BOs, NCHW->NHWC
 * f32: 1 MiB moved 1.36 ms sliced, 0.44 ms on one queue; 32 MiB 8.5 ms
 * and 3.3 ms). tilecopy_job_submit keeps its own policy.
 */
#define TC_CONVERT_FLAGS TILECOPY_SUBMIT_ONE_QUEUE

/* include/tilecopy/device.h freezes struct tilecopy_buffer_ref: a BO, an offset. */
_Static_assert(sizeof(struct tilecopy_buffer_ref) == sizeof(struct { void *p; uint64_t o; }) &&
	       offsetof(struct tilecopy_buffer_ref, offset) ==
	       offsetof(struct { void *p; uint64_t o; }, o),
	       "struct tilecopy_buffer_ref is frozen (device.h): a new struct and a _v2 call instead");

/*
 * $TILECOPY_USERPTR: "1" (the default) pins the caller's buffers where the
 * driver can, "0" always stages; anything else is refused by name. Set but
 * empty is unset, as for every TILECOPY_* variable.
 */
static tilecopy_status_t tc_userptr_wanted(const tilecopy_device_t *dev, int *want)
{
	const char *e = getenv("TILECOPY_USERPTR");

	*want = dev && (dev->features & DRM_TILECOPY_FEATURE_USERPTR);
	if (!e || !*e || !strcmp(e, "1"))
		return TILECOPY_SUCCESS;
	if (strcmp(e, "0"))
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "TILECOPY_USERPTR: '%.32s' is neither 0 (stage) nor 1 (pin the caller's buffers)",
			       e);
	*want = 0;
	return TILECOPY_SUCCESS;
}

/*
 * $TILECOPY_DEVICE_THRESHOLD: a byte count in decimal digits, nothing else
 * ("-1", "1e9", "0x10", "64M" are refused by name rather than read as
 * something else: strtoull took -1 for 2^64-1 and "abc" for the default).
 * The default depends on the path: TC_USERPTR_THRESHOLD when the caller's
 * buffers are pinned (@userptr), TC_DEFAULT_THRESHOLD when staged.
 * Set but empty is unset, as for every TILECOPY_* variable.
 */
static tilecopy_status_t tc_threshold(int userptr, uint64_t *bytes)
{
	const char *e = getenv("TILECOPY_DEVICE_THRESHOLD");
	char *end;
	unsigned long long v;

	*bytes = userptr ? TC_USERPTR_THRESHOLD : TC_DEFAULT_THRESHOLD;
	if (!e || !*e)
		return TILECOPY_SUCCESS;
	errno = 0;
	v = strtoull(e, &end, 10);
	if (!*e || *end || !(*e >= '0' && *e <= '9') || errno == ERANGE)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "TILECOPY_DEVICE_THRESHOLD: '%.32s' is not a byte count (decimal digits, up to 2^64-1)",
			       e);
	*bytes = v;
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_device_threshold(uint64_t *bytes)
{
	if (!bytes)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bytes: NULL");
	return tc_threshold(0, bytes) ?: tc_ok();
}

void tc_stage_free(tilecopy_device_t *dev)
{
	tilecopy_bo_free(dev->stage_src);
	tilecopy_bo_free(dev->stage_dst);
	dev->stage_src = dev->stage_dst = NULL;
}

/* Grow *bo to at least @need bytes (rounded up to 1 MiB), mapped. */
static tilecopy_status_t tc_stage_get(tilecopy_device_t *dev, tilecopy_bo_t **bo,
				      uint64_t need, void **map)
{
	tilecopy_status_t st;

	if (!need)
		need = 1;
	if (!*bo || (*bo)->size < need) {
		tilecopy_bo_free(*bo);
		*bo = NULL;
		st = tilecopy_bo_create(bo, dev, (size_t)((need + (1u << 20) - 1) &
							  ~(uint64_t)((1u << 20) - 1)), 0);
		if (st)
			return st;
	}
	return tilecopy_bo_map(*bo, map);
}

/*
 * The conversion on the caller's own pages. Pins are not cached between
 * calls: a cache keyed by address would hand the engine pages the caller
 * has since freed and reused for something else (free + malloc returns the
 * same address over new pages; munmap + mmap too), and the pin is a small
 * part of the call (docs/sdk.md).
 *
 * Returns 0, with nothing done, when staging should be tried instead: a
 * pin refused for a reason staging avoids (ENOMEM: the
 * RLIMIT_MEMLOCK; EFAULT: memory the driver cannot pin, such as another
 * BO's mmap; EOPNOTSUPP), or buffers that overlap (in place: the engine
 * would read what it already wrote; staging reads a copy). Else 1, the
 * outcome in *@st (a pin refused otherwise: the device removed or wedged).
 */
static int tc_convert_userptr(tilecopy_device_t *dev, const tilecopy_plan_t *plan,
			      const void *src, void *dst, tilecopy_status_t *st)
{
	const uint8_t *s = (const uint8_t *)src + plan->src_base;
	uint8_t *d = (uint8_t *)dst + plan->dst_base;
	uint64_t sn = plan->src_bytes - plan->src_base, dn = plan->dst_bytes - plan->dst_base;
	tilecopy_bo_t *sbo = NULL, *dbo = NULL;
	tilecopy_job_t *job = NULL;
	int err = 0;

	if (!dn || (sn && (uintptr_t)s < (uintptr_t)d + dn && (uintptr_t)d < (uintptr_t)s + sn))
		return 0;
	*st = tc_bo_userptr(&dbo, dev, d, dn, 0, &err);
	if (!*st && sn)
		*st = tc_bo_userptr(&sbo, dev, s, sn, TILECOPY_BO_READ_ONLY, &err);
	if (*st) {
		tilecopy_bo_free(dbo);
		/* what staging avoids: the pin limit, memory that cannot be pinned */
		return !(err == -ENOMEM || err == -EFAULT || err == -EOPNOTSUPP);
	}
	/* descriptors hold offsets from src and dst: the BOs start at their bases */
	*st = tc_job_submit_slice(&job, dev, plan, sbo ? sbo : dbo,
				  sbo ? sbo->va - plan->src_base : 0, dbo,
				  dbo->va - plan->dst_base, 0, 1, TC_CONVERT_FLAGS);
	if (!*st)
		*st = tilecopy_job_wait(job, -1);
	tilecopy_job_destroy(job);
	tilecopy_bo_free(sbo);
	tilecopy_bo_free(dbo);
	return 1;
}

static tilecopy_status_t tc_convert_device(tilecopy_device_t *dev,
					   const tilecopy_plan_t *plan,
					   const void *src, void *dst)
{
	struct tilecopy_buffer_ref sr, dr;
	tilecopy_job_t *job = NULL;
	void *sp, *dp;
	tilecopy_status_t st;

	pthread_mutex_lock(&dev->stage_lock);
	st = tc_stage_get(dev, &dev->stage_src, plan->src_bytes, &sp);
	if (!st)
		st = tc_stage_get(dev, &dev->stage_dst, plan->dst_bytes, &dp);
	if (st)
		goto out;
	memcpy(sp, src, plan->src_bytes);
	sr.bo = dev->stage_src, sr.offset = 0;
	dr.bo = dev->stage_dst, dr.offset = 0;
	st = tilecopy_job_submit(&job, dev, plan, &sr, &dr, TC_CONVERT_FLAGS);
	if (st)
		goto out;
	st = tilecopy_job_wait(job, -1);
	if (!st)
		memcpy(dst, dp, plan->dst_bytes);
	tilecopy_job_destroy(job);
out:
	pthread_mutex_unlock(&dev->stage_lock);
	return st;
}

TILECOPY_API tilecopy_status_t tilecopy_convert(tilecopy_device_t *dev,
						const tilecopy_plan_t *plan,
						const void *src, size_t src_size,
						void *dst, size_t dst_size,
						int *used_device)
{
	tilecopy_status_t st;
	uint64_t thr;
	int userptr = 0;

	if (used_device)
		*used_device = 0;
	if (dev && tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev"))
		return TILECOPY_ERR_INVALID_ARG;
	st = tc_plan_check_buffers(plan, src, src_size, dst, dst_size);
	if (!st)
		st = tc_userptr_wanted(dev, &userptr);
	if (!st)
		st = tc_threshold(userptr, &thr);
	if (st)
		return st;
	if (!dev || plan->moved_bytes < thr)
		return tilecopy_plan_execute_cpu(plan, src, src_size, dst, dst_size, NULL);
	if (!userptr || !tc_convert_userptr(dev, plan, src, dst, &st))
		st = tc_convert_device(dev, plan, src, dst);
	if (!st && used_device)
		*used_device = 1;
	return st ? st : tc_ok();
}

/* The staging BOs of devs[0] as seen by one device (imported if another). */
struct tc_share {
	tilecopy_bo_t *src, *dst;
	int imported;
};

static tilecopy_status_t tc_share_import(struct tc_share *sh, tilecopy_device_t *dev,
					 tilecopy_bo_t *sbo, tilecopy_bo_t *dbo)
{
	tilecopy_status_t st;
	int fd;

	sh->imported = 1;
	st = tilecopy_bo_export(sbo, &fd);
	if (st)
		return st;
	st = tilecopy_bo_import(&sh->src, dev, fd);
	close(fd);
	if (st)
		return st;
	st = tilecopy_bo_export(dbo, &fd);
	if (st)
		return st;
	st = tilecopy_bo_import(&sh->dst, dev, fd);
	close(fd);
	return st;
}

static void tc_share_release(struct tc_share *sh)
{
	if (!sh->imported)
		return;
	tilecopy_bo_free(sh->dst);
	tilecopy_bo_free(sh->src);
}

static tilecopy_status_t tc_multi_run(tilecopy_device_t *const *devs, int ndev,
				      const tilecopy_plan_t *plan, struct tc_share *sh,
				      tilecopy_job_t **jobs)
{
	tilecopy_status_t st = TILECOPY_SUCCESS, first = TILECOPY_SUCCESS;
	char msg[512] = "";
	int i;

	for (i = 0; i < ndev && !st; i++)
		st = tc_job_submit_slice(&jobs[i], devs[i], plan, sh[i].src, sh[i].src->va,
					 sh[i].dst, sh[i].dst->va, (unsigned int)i,
					 (unsigned int)ndev, 0);
	if (st)
		snprintf(msg, sizeof(msg), "%s", tilecopy_last_error()), first = st;
	/* wait for every submitted slice, even after a failure */
	for (int k = 0; k < ndev; k++) {
		if (!jobs[k])
			continue;
		st = tilecopy_job_wait(jobs[k], -1);
		if (st && !first)
			snprintf(msg, sizeof(msg), "%s", tilecopy_last_error()), first = st;
	}
	return first ? tc_fail(first, "%s", msg) : TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_convert_multi(tilecopy_device_t *const *devs,
						      int ndev,
						      const tilecopy_plan_t *plan,
						      const void *src, size_t src_size,
						      void *dst, size_t dst_size,
						      int *used_devices)
{
	struct tc_share sh[16] = { 0 };
	tilecopy_job_t *jobs[16] = { 0 };
	tilecopy_bo_t *sbo, *dbo;
	tilecopy_status_t st;
	void *sp, *dp;
	int i;

	if (used_devices)
		*used_devices = 0;
	if (!devs)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "devs: NULL");
	if (ndev < 1 || ndev > 16)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "ndev: %d outside 1..16", ndev);
	if (!devs[0] && ndev > 1)	/* its staging BOs are the shared ones */
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "devs[0]: NULL (the CPU path) with %d other devices", ndev - 1);
	if (devs[0] && tc_handle_arg(devs[0], TC_MAGIC_DEVICE, "devs[0]"))
		return TILECOPY_ERR_INVALID_ARG;
	for (i = 1; i < ndev; i++) {	/* devs[0] NULL is the CPU path */
		char what[16];

		snprintf(what, sizeof(what), "devs[%d]", i);
		if (tc_handle_arg(devs[i], TC_MAGIC_DEVICE, what))
			return TILECOPY_ERR_INVALID_ARG;
		if (devs[i] == devs[0])
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "devs[%d]: the same device as devs[0]", i);
	}
	if (ndev == 1 || (plan && plan->ordered)) {
		/* one device: an ordered plan cannot be cut across engines */
		st = tilecopy_convert(devs[0], plan, src, src_size, dst, dst_size, used_devices);
		return st;
	}
	st = tc_plan_check_buffers(plan, src, src_size, dst, dst_size);
	if (st)
		return st;
	/* devs[0]'s staging BOs, shared with the others as dma-bufs */
	pthread_mutex_lock(&devs[0]->stage_lock);
	st = tc_stage_get(devs[0], &devs[0]->stage_src, plan->src_bytes, &sp);
	if (!st)
		st = tc_stage_get(devs[0], &devs[0]->stage_dst, plan->dst_bytes, &dp);
	if (st)
		goto out;
	sbo = devs[0]->stage_src;
	dbo = devs[0]->stage_dst;
	memcpy(sp, src, plan->src_bytes);
	sh[0].src = sbo;
	sh[0].dst = dbo;
	for (i = 1; i < ndev && !st; i++)
		st = tc_share_import(&sh[i], devs[i], sbo, dbo);
	if (!st)
		st = tc_multi_run(devs, ndev, plan, sh, jobs);
	if (!st) {
		memcpy(dst, dp, plan->dst_bytes);
		if (used_devices)
			*used_devices = ndev;
	}
out:
	for (i = 0; i < ndev; i++) {
		tilecopy_job_destroy(jobs[i]);
		tc_share_release(&sh[i]);
	}
	pthread_mutex_unlock(&devs[0]->stage_lock);
	return st ? st : tc_ok();
}
