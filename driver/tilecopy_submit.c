// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

/* ---- job results (WAIT) ------------------------------------------------- */

static void tc_job_result_release(struct kref *ref)
{
	struct tc_job_result *res = container_of(ref, struct tc_job_result, ref);

	if (res->done)
		dma_fence_put(res->done);
	kfree(res);
}

/**
 * tc_job_result_put() - drop a reference to a job's status
 * @res: status
 */
void tc_job_result_put(struct tc_job_result *res)
{
	kref_put(&res->ref, tc_job_result_release);
}

/* ---- SUBMIT ------------------------------------------------------------- */

/*
 * Bytes from the first to one past the last element of an N-D access:
 * elem_size * (1 + sum((extent[k] - 1) * stride[k])).
 */
static bool tc_desc_span(const struct drm_tilecopy_desc *d, const u64 *stride,
			 u64 *span)
{
	u64 last = 0, t;
	unsigned int k;

	for (k = 0; k < d->ndims; k++) {
		if (check_mul_overflow((u64)d->extent[k] - 1, stride[k], &t) ||
		    check_add_overflow(last, t, &last))
			return false;
	}
	return !check_add_overflow(last, 1ull, &last) &&
	       !check_mul_overflow(last, (u64)d->elem_size, span);
}

/* Is [addr, addr + span) inside one mapping (a writable one if @write)? */
static bool tc_desc_in_bos(struct tc_job *job, u64 addr, u64 span, bool write)
{
	u32 i;

	for (i = 0; i < job->map_count; i++) {
		const struct tc_bo_map *m = job->maps[i];
		u64 start = m->node.start;

		if (addr >= start && addr - start <= m->size &&
		    span <= m->size - (addr - start) && (!write || m->writable)) {
			if (write)
				job->written |= BIT_ULL(i);
			return true;
		}
	}
	return false;
}

static int tc_desc_check_fields(struct drm_device *dev,
				const struct drm_tilecopy_desc *d, u32 i)
{
	unsigned int k;

	if (d->op < DRM_TILECOPY_OP_COPY || d->op > DRM_TILECOPY_OP_WRITE64) {
		drm_dbg(dev, "desc %u: unknown op %u\n", i, d->op);
		return -EINVAL;
	}
	if (d->flags) {
		drm_dbg(dev, "desc %u: flags 0x%x must be zero\n", i, d->flags);
		return -EINVAL;
	}
	if (!is_power_of_2(d->elem_size) || d->elem_size > 8) {
		drm_dbg(dev, "desc %u: bad element size %u\n", i, d->elem_size);
		return -EINVAL;
	}
	if (d->ndims < 1 || d->ndims > DRM_TILECOPY_MAX_DIMS) {
		drm_dbg(dev, "desc %u: bad ndims %u\n", i, d->ndims);
		return -EINVAL;
	}
	for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
		bool used = k < d->ndims;

		if (used ? !d->extent[k] :
		    d->extent[k] || d->src_stride[k] || d->dst_stride[k]) {
			drm_dbg(dev, "desc %u: bad extent/strides of dim %u\n", i, k);
			return -EINVAL;
		}
		if (d->op != DRM_TILECOPY_OP_COPY && d->src_stride[k]) {
			drm_dbg(dev, "desc %u: source stride without a source\n", i);
			return -EINVAL;
		}
	}
	if (d->op == DRM_TILECOPY_OP_COPY ? d->value != 0 : d->src != 0) {
		drm_dbg(dev, "desc %u: %s must be zero for op %u\n", i,
			d->op == DRM_TILECOPY_OP_COPY ? "value" : "src", d->op);
		return -EINVAL;
	}
	if (d->op == DRM_TILECOPY_OP_WRITE64 &&
	    (d->elem_size != 8 || d->ndims != 1 || d->extent[0] != 1)) {
		drm_dbg(dev, "desc %u: WRITE64 needs elem_size 8, one element\n", i);
		return -EINVAL;
	}
	return 0;
}

/* Check one descriptor; add the bytes it writes to job->bytes. */
static int tc_desc_check(struct drm_device *dev, struct tc_job *job, u32 i)
{
	const struct drm_tilecopy_desc *d = &job->descs[i];
	u64 span, elems = 1, bytes;
	unsigned int k;
	int ret;

	ret = tc_desc_check_fields(dev, d, i);
	if (ret)
		return ret;

	/* A job that cannot ever finish is refused rather than timed out. */
	for (k = 0; k < d->ndims; k++) {
		if (check_mul_overflow(elems, (u64)d->extent[k], &elems))
			break;
	}
	if (k < d->ndims || check_mul_overflow(elems, (u64)d->elem_size, &bytes)) {
		drm_dbg(dev, "desc %u: element count overflows\n", i);
		return -EINVAL;
	}

	if (!tc_desc_span(d, d->dst_stride, &span) ||
	    !tc_desc_in_bos(job, d->dst, span, true)) {
		drm_dbg(dev, "desc %u: destination 0x%llx is not inside one writable BO of the job\n",
			i, d->dst);
		return -EINVAL;
	}
	if (d->op == DRM_TILECOPY_OP_COPY &&
	    (!tc_desc_span(d, d->src_stride, &span) ||
	     !tc_desc_in_bos(job, d->src, span, false))) {
		drm_dbg(dev, "desc %u: source 0x%llx is not inside one BO of the job\n",
			i, d->src);
		return -EINVAL;
	}
	/* Only a counter: saturate rather than refuse. */
	if (check_add_overflow(job->bytes, bytes, &job->bytes))
		job->bytes = U64_MAX;
	return 0;
}

static int tc_submit_check(struct drm_device *dev, struct tc_device *tdev,
			   const struct drm_tilecopy_submit *args)
{
	if (args->flags || args->pad) {
		drm_dbg(dev, "SUBMIT flags 0x%x and pad must be zero\n", args->flags);
		return -EINVAL;
	}
	if (args->desc_size != sizeof(struct drm_tilecopy_desc)) {
		drm_dbg(dev, "SUBMIT desc_size %u, expected %zu\n", args->desc_size,
			sizeof(struct drm_tilecopy_desc));
		return -EINVAL;
	}
	if (!args->desc_count || args->desc_count > TC_MAX_DESCS ||
	    !args->bo_count || args->bo_count > TC_MAX_BOS ||
	    args->in_syncobj_count > TC_MAX_IN_SYNCOBJS) {
		drm_dbg(dev, "SUBMIT counts out of range: %u descs, %u BOs, %u syncobjs\n",
			args->desc_count, args->bo_count, args->in_syncobj_count);
		return -EINVAL;
	}
	if (args->queue >= tdev->num_queues) {
		drm_dbg(dev, "SUBMIT queue %u, device has %u\n", args->queue,
			tdev->num_queues);
		return -EINVAL;
	}
	return 0;
}

static int tc_submit_bos(struct drm_device *dev, struct drm_file *file,
			 struct tc_job *job, const struct drm_tilecopy_submit *args)
{
	struct drm_gem_object **objs = NULL;
	u32 i;
	int ret;

	ret = drm_gem_objects_lookup(file, u64_to_user_ptr(args->bo_handles),
				     args->bo_count, &objs);
	if (ret) {
		drm_dbg(dev, "SUBMIT: bad BO handle list: %d\n", ret);
		/* On failure the array holds the objects found so far. */
		for (i = 0; objs && i < args->bo_count; i++) {
			if (objs[i])
				drm_gem_object_put(objs[i]);
		}
		kvfree(objs);
		return ret;
	}
	/* The job keeps the object references, with the mappings. */
	job->maps = (struct tc_bo_map **)objs;
	job->map_count = args->bo_count;
	for (i = 0; i < args->bo_count; i++) {
		struct tc_bo_map *map = tc_bo_map_get(to_tc_bo(objs[i]), job->ctx);

		if (!map) {
			/* Handles of this file are always mapped. */
			WARN_ON(1);
			job->map_count = i;
			for (; i < args->bo_count; i++)
				drm_gem_object_put(objs[i]);
			return -ENOENT;
		}
		job->maps[i] = map;
	}
	return 0;
}

static int tc_submit_descs(struct drm_device *dev, struct tc_job *job,
			   const struct drm_tilecopy_submit *args)
{
	size_t size = (size_t)args->desc_count * sizeof(*job->descs);
	u32 i;
	int ret;

	/*
	 * Copy straight into the memory the engine reads: once copied, the
	 * user can no longer change what was checked.
	 */
	job->descs = dma_alloc_coherent(dev->dev, size, &job->descs_dma,
					GFP_KERNEL | __GFP_NOWARN);
	if (!job->descs)
		return -ENOMEM;
	job->desc_count = args->desc_count;
	if (copy_from_user(job->descs, u64_to_user_ptr(args->descs), size))
		return -EFAULT;
	for (i = 0; i < job->desc_count; i++) {
		ret = tc_desc_check(dev, job, i);
		if (ret)
			return ret;
	}
	return 0;
}

static int tc_submit_deps(struct drm_file *file, struct tc_job *job,
			  const struct drm_tilecopy_submit *args)
{
	u32 __user *handles = u64_to_user_ptr(args->in_syncobjs);
	u32 i, handle;
	int ret;

	for (i = 0; i < args->in_syncobj_count; i++) {
		if (get_user(handle, handles + i))
			return -EFAULT;
		ret = drm_sched_job_add_syncobj_dependency(&job->base, file,
							   handle, 0);
		if (ret) {
			drm_dbg(file->minor->dev, "SUBMIT: bad in-syncobj %u: %d\n",
				handle, ret);
			return ret;
		}
	}
	return 0;
}

/**
 * struct tc_resv - the job's BOs, locked for implicit synchronisation.
 * @objs: each BO once.
 * @count: entries of @objs.
 * @write_mask: bit j set if the job writes @objs[j].
 * @ticket: ww acquire context of the reservation locks.
 */
struct tc_resv {
	struct drm_gem_object **objs;
	u32 count;
	u64 write_mask;
	struct ww_acquire_ctx ticket;
};

/*
 * Implicit synchronisation, as rocket does: the job waits for the fences
 * already on its BOs (earlier jobs, or another device sharing a BO through
 * PRIME), and publishes its own fence there (tc_resv_publish()). The
 * reservations stay locked from here until the fence is published.
 */
static int tc_resv_lock(struct tc_job *job, struct tc_resv *r)
{
	u32 i, j;
	int ret;

	r->objs = kmalloc_array(job->map_count, sizeof(*r->objs), GFP_KERNEL);
	if (!r->objs)
		return -ENOMEM;
	r->count = 0;
	r->write_mask = 0;
	for (i = 0; i < job->map_count; i++) {
		struct drm_gem_object *obj = &job->maps[i]->bo->base.base;

		for (j = 0; j < r->count && r->objs[j] != obj; j++)
			;
		if (j == r->count)
			r->objs[r->count++] = obj;	/* a BO may be listed twice */
		if (job->written & BIT_ULL(i))
			r->write_mask |= BIT_ULL(j);
	}

	ret = drm_gem_lock_reservations(r->objs, r->count, &r->ticket);
	if (ret)
		goto err_free;
	for (j = 0; j < r->count; j++) {
		ret = dma_resv_reserve_fences(r->objs[j]->resv, 1);
		if (!ret)
			ret = drm_sched_job_add_implicit_dependencies(&job->base, r->objs[j],
								      r->write_mask & BIT_ULL(j));
		if (ret)
			goto err_unlock;
	}
	return 0;

err_unlock:
	drm_gem_unlock_reservations(r->objs, r->count, &r->ticket);
err_free:
	kfree(r->objs);
	return ret;
}

static void tc_resv_unlock(struct tc_resv *r)
{
	drm_gem_unlock_reservations(r->objs, r->count, &r->ticket);
	kfree(r->objs);
}

static void tc_resv_publish(struct tc_resv *r, struct dma_fence *fence)
{
	u32 j;

	for (j = 0; j < r->count; j++)
		dma_resv_add_fence(r->objs[j]->resv, fence,
				   r->write_mask & BIT_ULL(j) ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
}

static void tc_submit_push(struct tc_file *tfile, struct tc_job *job, u32 id,
			   struct drm_syncobj *out, struct tc_resv *resv)
{
	struct dma_fence *finished;

	mutex_lock(&tfile->submit_lock);
	drm_sched_job_arm(&job->base);
	finished = &job->base.s_fence->finished;
	tc_resv_publish(resv, finished);
	job->result->done = dma_fence_get(finished);
	kref_get(&job->result->ref);
	/* Replaces the entry reserved by xa_alloc: no allocation, no error. */
	WARN_ON(xa_err(xa_store(&tfile->jobs, id, job->result, GFP_KERNEL)));
	if (out)
		drm_syncobj_replace_fence(out, finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&tfile->submit_lock);
}

/**
 * tc_ioctl_submit() - DRM_IOCTL_TILECOPY_SUBMIT
 * @dev: DRM device
 * @data: struct drm_tilecopy_submit
 * @file: caller
 *
 * Return: 0, -EINVAL for a bad argument or descriptor, -ENOENT for a bad
 * handle, -EFAULT, -ENOMEM.
 */
int tc_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tilecopy_submit *args = data;
	struct tc_device *tdev = to_tc_device(dev);
	struct tc_file *tfile = to_tc_file(file);
	struct drm_syncobj *out = NULL;
	struct tc_resv resv;
	struct tc_job *job;
	u32 id;
	int ret;

	ret = tc_submit_check(dev, tdev, args);
	if (ret)
		return ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->tdev = tdev;
	job->queue = &tdev->queues[args->queue];
	job->ctx = tc_mmu_ctx_get(tfile->ctx);
	INIT_LIST_HEAD(&job->link);
	job->result = kzalloc(sizeof(*job->result), GFP_KERNEL_ACCOUNT);
	if (!job->result) {
		ret = -ENOMEM;
		goto err_free_job;
	}
	/* tc_job_free() puts the result: its reference must exist first. */
	kref_init(&job->result->ref);
	job->result->status = DRM_TILECOPY_STATUS_CANCELLED;
	job->fence = kzalloc(sizeof(*job->fence), GFP_KERNEL_ACCOUNT);
	if (!job->fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}

	ret = tc_submit_bos(dev, file, job, args);
	if (ret)
		goto err_free_job;
	ret = tc_submit_descs(dev, job, args);
	if (ret)
		goto err_free_job;

	ret = drm_sched_job_init(&job->base, &tfile->entities[args->queue], 1,
				 tfile, file->client_id);
	if (ret)
		goto err_free_job;
	ret = tc_submit_deps(file, job, args);
	if (ret)
		goto err_cleanup_job;
	if (args->out_syncobj) {
		out = drm_syncobj_find(file, args->out_syncobj);
		if (!out) {
			drm_dbg(dev, "SUBMIT: bad out-syncobj %u\n", args->out_syncobj);
			ret = -ENOENT;
			goto err_cleanup_job;
		}
	}
	if (atomic_inc_return(&tfile->num_results) > TC_MAX_RESULTS) {
		drm_dbg(dev, "SUBMIT: %u job statuses not reaped by WAIT\n",
			TC_MAX_RESULTS);
		ret = -EBUSY;
		goto err_dec_results;
	}
	ret = xa_alloc_cyclic(&tfile->jobs, &id, NULL, XA_LIMIT(1, U32_MAX),
			      &tfile->next_job_id, GFP_KERNEL);
	if (ret < 0)
		goto err_dec_results;
	ret = tc_resv_lock(job, &resv);
	if (ret)
		goto err_erase_id;

	tc_submit_push(tfile, job, id, out, &resv);
	tc_resv_unlock(&resv);
	if (out)
		drm_syncobj_put(out);
	args->job_id = id;
	return 0;

err_erase_id:
	xa_erase(&tfile->jobs, id);
err_dec_results:
	atomic_dec(&tfile->num_results);
	if (out)
		drm_syncobj_put(out);
err_cleanup_job:
	drm_sched_job_cleanup(&job->base);
err_free_job:
	tc_job_free(job);
	return ret;
}

/* ---- WAIT --------------------------------------------------------------- */

static struct tc_job_result *tc_job_result_lookup(struct tc_file *tfile, u64 id)
{
	struct tc_job_result *res;

	if (!id || id > U32_MAX)
		return NULL;
	xa_lock(&tfile->jobs);
	res = xa_load(&tfile->jobs, id);
	if (res)
		kref_get(&res->ref);
	xa_unlock(&tfile->jobs);
	return res;
}

static long tc_wait_jiffies(s64 deadline_ns)
{
	s64 left = deadline_ns - ktime_get_ns();

	if (left <= 0)
		return 0;
	return min_t(u64, nsecs_to_jiffies64(left) + 1, MAX_SCHEDULE_TIMEOUT);
}

/**
 * tc_ioctl_wait() - DRM_IOCTL_TILECOPY_WAIT
 * @dev: DRM device
 * @data: struct drm_tilecopy_wait
 * @file: caller
 *
 * Return: 0 when the job finished (its status is reaped), -ETIMEDOUT,
 * -ENOENT, -EINVAL, or -ERESTARTSYS on a signal.
 */
int tc_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tilecopy_wait *args = data;
	struct tc_file *tfile = to_tc_file(file);
	struct tc_job_result *res;
	long ret;

	if (args->flags || args->pad) {
		drm_dbg(dev, "WAIT flags 0x%x and pad must be zero\n", args->flags);
		return -EINVAL;
	}
	res = tc_job_result_lookup(tfile, args->job_id);
	if (!res) {
		drm_dbg(dev, "WAIT: no job %llu\n", args->job_id);
		return -ENOENT;
	}

	/*
	 * Jiffies can lag the clock (a starved, emulated CPU) and a wait may
	 * end before the deadline: only the deadline itself means -ETIMEDOUT.
	 */
	do {
		ret = dma_fence_wait_timeout(res->done, true,
					     tc_wait_jiffies(args->timeout_ns));
	} while (ret == 0 && !dma_fence_is_signaled(res->done) &&
		 ktime_get_ns() < args->timeout_ns);
	if (ret == 0 && !dma_fence_is_signaled(res->done)) {
		args->status = DRM_TILECOPY_STATUS_PENDING;
		args->err_desc = 0;
		args->err_addr = 0;
		ret = -ETIMEDOUT;
	} else if (ret >= 0) {
		args->status = res->status;
		args->err_desc = res->err_desc;
		args->err_addr = res->err_addr;
		/* Reap: the first successful waiter drops the table's reference. */
		xa_lock(&tfile->jobs);
		if (xa_load(&tfile->jobs, args->job_id) == res) {
			__xa_erase(&tfile->jobs, args->job_id);
			atomic_dec(&tfile->num_results);
			tc_job_result_put(res);	/* ours keeps it alive */
		}
		xa_unlock(&tfile->jobs);
		ret = 0;
	}
	tc_job_result_put(res);
	return ret;
}

/**
 * tc_file_jobs_init() - set up a file's job table
 * @tfile: file
 *
 * Return: 0.
 */
int tc_file_jobs_init(struct tc_file *tfile)
{
	xa_init_flags(&tfile->jobs, XA_FLAGS_ALLOC1);
	return 0;
}

/**
 * tc_file_jobs_fini() - drop the statuses nobody waited for
 * @tfile: file being closed
 */
void tc_file_jobs_fini(struct tc_file *tfile)
{
	struct tc_job_result *res;
	unsigned long id;

	xa_for_each(&tfile->jobs, id, res)
		tc_job_result_put(res);
	xa_destroy(&tfile->jobs);
}
