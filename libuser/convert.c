// SPDX-License-Identifier: MIT
/*
 * convert.c - the synchronous convenience call on plain user memory, and
 * the device/CPU policy.
 *
 * The engine sees only buffer objects, so user memory is staged: copied
 * into a source BO, converted by the engine into a destination BO, copied
 * out. Small plans run on the CPU: the fixed cost of a submission (ioctl,
 * scheduling, interrupt) is larger than the whole conversion on the CPU.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "device_internal.h"
#include "plan_internal.h"

/*
 * Default threshold: plans moving fewer bytes run on the CPU. 256 KiB is
 * where the guest benchmark (docs/performance.md, "Device vs CPU") saw the
 * engine's job overhead stop dominating; $TILECOPY_DEVICE_THRESHOLD sets it.
 */
#define TC_DEFAULT_THRESHOLD (256u << 10)

TILECOPY_API uint64_t tilecopy_device_threshold(void)
{
	const char *e = getenv("TILECOPY_DEVICE_THRESHOLD");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return TC_DEFAULT_THRESHOLD;
	v = strtoull(e, &end, 10);
	return *end ? TC_DEFAULT_THRESHOLD : v;
}

static tilecopy_status_t tc_convert_device(tilecopy_device_t *dev,
					   const tilecopy_plan_t *plan,
					   const void *src, void *dst)
{
	tilecopy_bo_t *sbo = NULL, *dbo = NULL;
	struct tilecopy_buffer_ref sr, dr;
	tilecopy_job_t *job = NULL;
	void *sp, *dp;
	tilecopy_status_t st;

	st = tilecopy_bo_create(&sbo, dev, plan->src_bytes ? plan->src_bytes : 1,
				TILECOPY_BO_READ_ONLY);
	if (st)
		return st;
	st = tilecopy_bo_create(&dbo, dev, plan->dst_bytes ? plan->dst_bytes : 1, 0);
	if (st)
		goto err_src;
	st = tilecopy_bo_map(sbo, &sp);
	if (!st)
		st = tilecopy_bo_map(dbo, &dp);
	if (st)
		goto err_dst;
	memcpy(sp, src, plan->src_bytes);
	sr.bo = sbo, sr.offset = 0;
	dr.bo = dbo, dr.offset = 0;
	st = tilecopy_job_submit(&job, dev, plan, &sr, &dr, 0);
	if (st)
		goto err_dst;
	st = tilecopy_job_wait(job, -1);
	if (!st)
		memcpy(dst, dp, plan->dst_bytes);
	tilecopy_job_destroy(job);
err_dst:
	tilecopy_bo_free(dbo);
err_src:
	tilecopy_bo_free(sbo);
	return st;
}

TILECOPY_API tilecopy_status_t tilecopy_convert(tilecopy_device_t *dev,
						const tilecopy_plan_t *plan,
						const void *src, size_t src_size,
						void *dst, size_t dst_size,
						int *used_device)
{
	tilecopy_status_t st;

	if (used_device)
		*used_device = 0;
	if (!plan || !dst || (!src && plan->src_bytes))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "convert: NULL argument");
	if (src_size < plan->src_bytes)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "src_size: %zu bytes, the source needs %llu", src_size,
			       (unsigned long long)plan->src_bytes);
	if (dst_size < plan->dst_bytes)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "dst_size: %zu bytes, the destination needs %llu", dst_size,
			       (unsigned long long)plan->dst_bytes);
	if (!dev || plan->moved_bytes < tilecopy_device_threshold())
		return tilecopy_plan_execute_cpu(plan, src, src_size, dst, dst_size, NULL);
	st = tc_convert_device(dev, plan, src, dst);
	if (!st && used_device)
		*used_device = 1;
	return st ? st : tc_ok();
}
