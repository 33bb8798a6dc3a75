// SPDX-License-Identifier: MIT
/*
 * device_job.c - running a plan on the engine.
 *
 * The plan's descriptors hold byte offsets; here they become device virtual
 * addresses (BO va + offset), are sliced across the hardware queues when the
 * plan is large and its order does not matter, cut into jobs of at most
 * MAX_DESCS descriptors, and submitted. Each job descriptor remembers which
 * plan descriptor it came from, so a fault names the plan's descriptor.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xf86drm.h>

#include "internal.h"
#include "device_internal.h"
#include "plan_internal.h"

/* Below this many bytes moved a plan stays on one queue: the split costs
 * more submissions than it saves. */
#define TC_SPLIT_MIN_BYTES (1ull << 20)

struct tc_dlist {
	struct drm_tilecopy_desc *d;
	uint32_t *idx;
	size_t n, cap;
};

static int tc_dlist_push(struct tc_dlist *l, const struct drm_tilecopy_desc *d,
			 uint32_t idx)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void *nd = realloc(l->d, cap * sizeof(*l->d));
		void *ni;

		if (!nd)
			return -ENOMEM;
		l->d = nd;
		ni = realloc(l->idx, cap * sizeof(*l->idx));
		if (!ni)
			return -ENOMEM;
		l->idx = ni;
		l->cap = cap;
	}
	l->d[l->n] = *d;
	l->idx[l->n] = idx;
	l->n++;
	return 0;
}

/*
 * Piece @part of @nparts of @d, cut along its outermost dim of extent > 1.
 * A descriptor too small to cut goes whole to piece (@seq % @nparts).
 * Returns 0 when the piece is empty.
 */
static int tc_piece(const struct drm_tilecopy_desc *d, unsigned int part,
		    unsigned int nparts, size_t seq, struct drm_tilecopy_desc *out)
{
	int k = d->ndims - 1;
	uint64_t lo, hi;

	while (k > 0 && d->extent[k] == 1)
		k--;
	if (nparts == 1 || d->op == DRM_TILECOPY_OP_WRITE64 || d->extent[k] < nparts) {
		if (seq % nparts != part)
			return 0;
		*out = *d;
		return 1;
	}
	lo = (uint64_t)d->extent[k] * part / nparts;
	hi = (uint64_t)d->extent[k] * (part + 1) / nparts;
	*out = *d;
	out->extent[k] = (uint32_t)(hi - lo);
	out->src += lo * d->src_stride[k] * d->elem_size;
	out->dst += lo * d->dst_stride[k] * d->elem_size;
	return 1;
}

static tilecopy_status_t tc_check_ref(const char *what,
				      const struct tilecopy_buffer_ref *r,
				      uint64_t need, tilecopy_device_t *dev)
{
	uint64_t end;

	if (!r)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", what);
	if (tc_handle_arg(r->bo, TC_MAGIC_BO, what))
		return TILECOPY_ERR_INVALID_ARG;
	if (r->bo->dev != dev)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: buffer object belongs to another device", what);
	if (__builtin_add_overflow(r->offset, need, &end) || end > r->bo->size)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "%s: offset %llu + %llu bytes exceeds the buffer object's %llu",
			       what, (unsigned long long)r->offset,
			       (unsigned long long)need, (unsigned long long)r->bo->size);
	return TILECOPY_SUCCESS;
}

static int tc_submit_part(tilecopy_job_t *job, const struct tc_dlist *l,
			  size_t from, size_t n, uint32_t queue,
			  const uint32_t *bos, uint32_t nbos)
{
	struct drm_tilecopy_submit s = { 0 };
	struct tc_job_part *p = &job->part[job->nparts];
	int ret;

	s.descs = (uintptr_t)(l->d + from);
	s.desc_count = (uint32_t)n;
	s.desc_size = sizeof(struct drm_tilecopy_desc);
	s.bo_handles = (uintptr_t)bos;
	s.bo_count = nbos;
	s.queue = queue;
	s.out_syncobj = job->syncobj;
	ret = tc_drm_ioctl(job->dev->fd, DRM_IOCTL_TILECOPY_SUBMIT, &s);
	if (ret)
		return ret;
	p->id = s.job_id;
	p->queue = queue;
	p->ndescs = (uint32_t)n;
	p->plan_index = malloc(n * sizeof(uint32_t));
	if (p->plan_index)
		memcpy(p->plan_index, l->idx + from, n * sizeof(uint32_t));
	job->nparts++;
	return 0;
}

static size_t tc_count_parts(const struct tc_dlist *lists, unsigned int q,
			     uint32_t max)
{
	size_t n = 0;

	for (unsigned int i = 0; i < q; i++)
		n += (lists[i].n + max - 1) / max;
	return n;
}

static void tc_lists_free(struct tc_dlist *lists, unsigned int q)
{
	for (unsigned int i = 0; i < q; i++) {
		free(lists[i].d);
		free(lists[i].idx);
	}
	free(lists);
}

/*
 * Piece @part of @nparts of the plan, rebased onto the buffers' device VAs,
 * spread over @q queue lists.
 */
static int tc_distribute(struct tc_dlist *lists, unsigned int q,
			 const struct tilecopy_plan *plan, uint64_t src_va,
			 uint64_t dst_va, unsigned int part, unsigned int nparts)
{
	size_t seq = 0;

	for (size_t i = 0; i < plan->n; i++) {
		struct drm_tilecopy_desc d = plan->descs[i], piece;

		if (d.op == DRM_TILECOPY_OP_COPY)
			d.src += src_va;
		d.dst += dst_va;
		if (!tc_piece(&d, part, nparts, i, &piece))
			continue;
		for (unsigned int p = 0; p < q; p++) {
			struct drm_tilecopy_desc qd;

			if (tc_piece(&piece, p, q, seq, &qd) &&
			    tc_dlist_push(&lists[p], &qd, (uint32_t)i))
				return -ENOMEM;
		}
		seq++;
	}
	return 0;
}

tilecopy_status_t tc_job_submit_slice(tilecopy_job_t **out, tilecopy_device_t *dev,
				      const struct tilecopy_plan *plan,
				      tilecopy_bo_t *sbo, uint64_t src_va,
				      tilecopy_bo_t *dbo, uint64_t dst_va,
				      unsigned int part, unsigned int nparts,
				      uint32_t flags)
{
	struct tc_dlist *lists;
	tilecopy_job_t *job;
	tilecopy_status_t st;
	uint32_t bos[2], nbos = 1, max;
	unsigned int q = 1, first;
	size_t nparts_hw;
	int ret = 0;

	*out = NULL;
	if (!plan->ordered && !(flags & TILECOPY_SUBMIT_ONE_QUEUE) &&
	    plan->moved_bytes / nparts >= TC_SPLIT_MIN_BYTES)
		q = dev->info.num_queues;
	lists = calloc(q, sizeof(*lists));
	if (!lists)
		return tc_fail(TILECOPY_ERR_NOMEM, "job: out of memory");
	if (tc_distribute(lists, q, plan, src_va, dst_va, part, nparts)) {
		tc_lists_free(lists, q);
		return tc_fail(TILECOPY_ERR_NOMEM, "job: out of memory");
	}
	max = dev->info.max_descs;
	nparts_hw = tc_count_parts(lists, q, max);
	job = calloc(1, sizeof(*job) + nparts_hw * sizeof(job->part[0]));
	if (!job) {
		tc_lists_free(lists, q);
		return tc_fail(TILECOPY_ERR_NOMEM, "job: out of memory");
	}
	job->magic = TC_MAGIC_JOB;
	job->dev = dev;
	if (drmSyncobjCreate(dev->fd, 0, &job->syncobj)) {
		st = tc_fail(TILECOPY_ERR_DEVICE, "job: syncobj: %s", strerror(errno));
		goto err_free;
	}
	bos[0] = sbo->handle;
	if (dbo->handle != bos[0])
		bos[nbos++] = dbo->handle;
	/* one-queue jobs rotate over the queues so several users share them */
	first = q == 1 ? dev->next_queue++ % dev->info.num_queues : 0;
	for (unsigned int i = 0; i < q && !ret; i++)
		for (size_t from = 0; from < lists[i].n && !ret; from += max) {
			size_t n = lists[i].n - from < max ? lists[i].n - from : max;

			ret = tc_submit_part(job, &lists[i], from, n,
					     q == 1 ? first : i, bos, nbos);
		}
	if (ret) {
		st = tc_fail(ret == -ENOMEM ? TILECOPY_ERR_NOMEM : TILECOPY_ERR_DEVICE,
			     "job: %s: SUBMIT refused part %d: %s", dev->info.path,
			     job->nparts, strerror(-ret));
		goto err_destroy;
	}
	tc_lists_free(lists, q);
	*out = job;
	return tc_ok();
err_destroy:
	tilecopy_job_destroy(job);	/* waits for the parts already queued */
	tc_lists_free(lists, q);
	return st;
err_free:
	free(job);
	tc_lists_free(lists, q);
	return st;
}

TILECOPY_API tilecopy_status_t tilecopy_job_submit(tilecopy_job_t **out,
						   tilecopy_device_t *dev,
						   const tilecopy_plan_t *plan,
						   const struct tilecopy_buffer_ref *src,
						   const struct tilecopy_buffer_ref *dst,
						   uint32_t flags)
{
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "job: NULL");
	*out = NULL;
	st = tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev") ?: tc_plan_arg(plan);
	if (st)
		return st;
	if (flags & ~TILECOPY_SUBMIT_ONE_QUEUE)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~TILECOPY_SUBMIT_ONE_QUEUE);
	st = tc_check_ref("src", src, plan->src_bytes, dev);
	if (!st)
		st = tc_check_ref("dst", dst, plan->dst_bytes, dev);
	if (!st && src->bo == dst->bo && plan->src_bytes && plan->dst_bytes &&
	    src->offset < dst->offset + plan->dst_bytes &&
	    dst->offset < src->offset + plan->src_bytes)
		st = tc_fail(TILECOPY_ERR_OVERLAP,
			     "dst: bytes %llu..%llu of the buffer object overlap the source's %llu..%llu; the engine reads and writes at once",
			     (unsigned long long)dst->offset,
			     (unsigned long long)(dst->offset + plan->dst_bytes),
			     (unsigned long long)src->offset,
			     (unsigned long long)(src->offset + plan->src_bytes));
	if (st)
		return st;
	return tc_job_submit_slice(out, dev, plan, src->bo, src->bo->va + src->offset,
				   dst->bo, dst->bo->va + dst->offset, 0, 1, flags);
}

static const char *tc_job_status_name(uint32_t s)
{
	static const char *const names[] = {
		[DRM_TILECOPY_STATUS_OK] = "ok",
		[DRM_TILECOPY_STATUS_FAULT_UNMAPPED] = "page fault (address not mapped)",
		[DRM_TILECOPY_STATUS_FAULT_PERM] = "page fault (permission)",
		[DRM_TILECOPY_STATUS_DMA_ERROR] = "DMA error",
		[DRM_TILECOPY_STATUS_BAD_DESC] = "malformed descriptor",
		[DRM_TILECOPY_STATUS_TIMEOUT] = "timeout (engine reset)",
		[DRM_TILECOPY_STATUS_CANCELLED] = "cancelled",
		[DRM_TILECOPY_STATUS_NO_FIRMWARE] = "no firmware running",
		[DRM_TILECOPY_STATUS_PENDING] = "pending",
	};

	return s < TC_ARRAY_SIZE(names) && names[s] ? names[s] : "unknown status";
}

static int64_t tc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static tilecopy_status_t tc_wait_part(tilecopy_job_t *job, struct tc_job_part *p,
				      int64_t deadline)
{
	struct drm_tilecopy_wait w = { .job_id = p->id, .timeout_ns = deadline };
	int ret = tc_drm_ioctl(job->dev->fd, DRM_IOCTL_TILECOPY_WAIT, &w);

	if (ret == -ETIMEDOUT)
		return tc_fail(TILECOPY_ERR_TIMEOUT,
			       "job: %s queue %u: not finished by the deadline",
			       job->dev->info.path, p->queue);
	if (ret)
		return tc_fail(TILECOPY_ERR_DEVICE, "job: %s: WAIT: %s",
			       job->dev->info.path, strerror(-ret));
	p->done = 1;
	if (w.status == DRM_TILECOPY_STATUS_OK)
		return TILECOPY_SUCCESS;
	if (w.status == DRM_TILECOPY_STATUS_TIMEOUT)
		return tc_fail(TILECOPY_ERR_TIMEOUT,
			       "job: %s queue %u: the engine hung on the job and was reset",
			       job->dev->info.path, p->queue);
	return tc_fail(TILECOPY_ERR_FAULT,
		       "job: %s queue %u: %s in plan descriptor %u at device address 0x%llx",
		       job->dev->info.path, p->queue, tc_job_status_name(w.status),
		       p->plan_index && w.err_desc < p->ndescs ?
		       p->plan_index[w.err_desc] : w.err_desc,
		       (unsigned long long)w.err_addr);
}

TILECOPY_API tilecopy_status_t tilecopy_job_wait(tilecopy_job_t *job,
						 int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : tc_now_ns() + timeout_ns;
	tilecopy_status_t first = TILECOPY_SUCCESS;
	char msg[512] = "";

	if (tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return TILECOPY_ERR_INVALID_ARG;
	/* Wait for every part, so no part is left running; report the first
	 * failure. */
	for (int i = 0; i < job->nparts; i++) {
		tilecopy_status_t st;

		if (job->part[i].done)
			continue;
		st = tc_wait_part(job, &job->part[i], deadline);
		if (st && !first) {
			first = st;
			snprintf(msg, sizeof(msg), "%s", tilecopy_last_error());
		}
		if (st == TILECOPY_ERR_TIMEOUT && !job->part[i].done)
			break;
	}
	if (first)
		return tc_fail(first, "%s", msg);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_job_syncobj(const tilecopy_job_t *job,
						    uint32_t *syncobj)
{
	if (tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!syncobj)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "syncobj: NULL");
	*syncobj = job->syncobj;
	return tc_ok();
}

TILECOPY_API void tilecopy_job_destroy(tilecopy_job_t *job)
{
	if (!job || tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return;
	job->magic = 0;
	for (int i = 0; i < job->nparts; i++) {
		if (!job->part[i].done)
			tc_wait_part(job, &job->part[i], INT64_MAX);
		free(job->part[i].plan_index);
	}
	if (job->syncobj)
		drmSyncobjDestroy(job->dev->fd, job->syncobj);
	free(job);
}
