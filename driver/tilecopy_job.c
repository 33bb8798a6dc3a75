// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

static unsigned int tc_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, tc_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Time a job may run before the engine is reset, in ms (default 5000)");

static struct tc_job *to_tc_job(struct drm_sched_job *job)
{
	return container_of(job, struct tc_job, base);
}

/* ---- hardware fences ---------------------------------------------------- */

/**
 * struct tc_fence - fence of a job on the engine.
 * @base: the fence.
 * @lock: its lock.
 */
struct tc_fence {
	struct dma_fence base;
	spinlock_t lock;	/* of @base */
};

static const char *tc_fence_get_driver_name(struct dma_fence *fence)
{
	return "tilecopy";
}

static const char *tc_fence_get_timeline_name(struct dma_fence *fence)
{
	/* Not the queue's name: a fence may outlive its device. */
	return "tilecopy-queue";
}

static const struct dma_fence_ops tc_fence_ops = {
	.get_driver_name = tc_fence_get_driver_name,
	.get_timeline_name = tc_fence_get_timeline_name,
};

/* ---- job results (WAIT) ------------------------------------------------- */

static void tc_job_result_release(struct kref *ref)
{
	struct tc_job_result *res = container_of(ref, struct tc_job_result, ref);

	if (res->done)
		dma_fence_put(res->done);
	kfree(res);
}

static void tc_job_result_put(struct tc_job_result *res)
{
	kref_put(&res->ref, tc_job_result_release);
}

/* ---- the ring ----------------------------------------------------------- */

static void tc_queue_ring_write(struct tc_queue *q, struct tc_job *job)
{
	struct tc_ring_entry *e = &q->ring[q->tail % TC_RING_ENTRIES];

	memset(e, 0, sizeof(*e));
	/* Little endian in memory; the shared header types them __u32/__u64. */
	e->desc_addr = (__force u64)cpu_to_le64(job->descs_dma);
	e->desc_count = (__force u32)cpu_to_le32(job->desc_count);
	e->ctx = (__force u32)cpu_to_le32(job->ctx->slot);
	e->seqno = (__force u64)cpu_to_le64(job->seqno);
	q->tail++;
}

static void tc_queue_ring_kick(struct tc_queue *q)
{
	/* Ring entries and descriptors must be visible before the doorbell. */
	wmb();
	tc_q_writel(q, TC_Q_TAIL, q->tail % TC_RING_ENTRIES);
	tc_q_writel(q, TC_Q_DOORBELL, 1);
}

/* Write every job the engine still owns again, oldest first. */
static void tc_queue_resubmit(struct tc_queue *q)
{
	struct tc_job *job;

	lockdep_assert_held(&q->lock);
	list_for_each_entry(job, &q->active, link)
		tc_queue_ring_write(q, job);
	if (!list_empty(&q->active))
		tc_queue_ring_kick(q);
}

/**
 * tc_job_finish() - the engine is done with a job, one way or another
 * @q: the job's queue, locked
 * @job: job on @q's active list
 * @status: &enum drm_tilecopy_status
 * @err_desc: failing descriptor
 * @err_addr: faulting VA
 * @error: fence error, 0 for success
 */
static void tc_job_finish(struct tc_queue *q, struct tc_job *job, u32 status,
			  u32 err_desc, u64 err_addr, int error)
{
	struct tc_stats *stats = &q->tdev->stats;

	lockdep_assert_held(&q->lock);
	list_del_init(&job->link);
	if (list_empty(&q->active))
		atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), q->busy_since)),
			     &stats->busy_ns);

	job->result->status = status;
	job->result->err_desc = err_desc;
	job->result->err_addr = err_addr;
	if (status == DRM_TILECOPY_STATUS_OK) {
		atomic64_inc(&stats->jobs_done);
		atomic64_add(job->bytes, &stats->bytes_moved);
	} else {
		atomic64_inc(&stats->jobs_failed);
		dma_fence_set_error(job->hw_fence, error);
	}
	dma_fence_signal(job->hw_fence);
}

static void tc_queue_fail_all(struct tc_queue *q, u32 status, int error)
{
	struct tc_job *job, *tmp;

	list_for_each_entry_safe(job, tmp, &q->active, link)
		tc_job_finish(q, job, status, 0, 0, error);
}

/* Complete every job up to the engine's DONE_SEQNO. */
static void tc_queue_done(struct tc_queue *q)
{
	u64 done = tc_q_readq(q, TC_Q_DONE_SEQNO_LO);
	struct tc_job *job, *tmp;

	lockdep_assert_held(&q->lock);
	list_for_each_entry_safe(job, tmp, &q->active, link) {
		if (job->seqno > done)
			break;
		tc_job_finish(q, job, DRM_TILECOPY_STATUS_OK, 0, 0, 0);
	}
}

/*
 * The queue halted on a job: fail that job with the engine's status, reset
 * the queue and give it the jobs that were behind the failed one.
 */
static void tc_queue_error(struct tc_queue *q)
{
	u32 code = tc_q_readl(q, TC_Q_ERR_CODE);
	u32 err_desc = tc_q_readl(q, TC_Q_ERR_DESC);
	u64 err_addr = tc_q_readq(q, TC_Q_ERR_ADDR_LO);
	u64 seqno = tc_q_readq(q, TC_Q_ERR_SEQNO_LO);
	struct tc_job *job;
	bool found = false;

	tc_queue_done(q);
	if (code == DRM_TILECOPY_STATUS_OK || code > DRM_TILECOPY_STATUS_PENDING)
		code = DRM_TILECOPY_STATUS_BAD_DESC;

	list_for_each_entry(job, &q->active, link) {
		if (job->seqno == seqno) {
			/* User input can cause this: no dev_err. */
			drm_dbg_driver(&q->tdev->base,
				       "queue %u: job %llu failed: status %u, desc %u, addr 0x%llx\n",
				       q->idx, seqno, code, err_desc, err_addr);
			tc_job_finish(q, job, code, err_desc, err_addr, -EIO);
			found = true;
			break;
		}
	}
	if (!found)
		dev_warn_ratelimited(&q->tdev->pdev->dev,
				     "queue %u halted on unknown seqno %llu (status %u)\n",
				     q->idx, seqno, code);

	tc_q_writel(q, TC_Q_CTRL, TC_Q_CTRL_RESET);
	tc_queue_hw_setup(q);
	tc_queue_resubmit(q);
}

/**
 * tc_queue_irq() - threaded handler of a queue's MSI-X vector
 * @irq: interrupt
 * @data: struct tc_queue
 *
 * Return: IRQ_HANDLED, or IRQ_NONE if the queue raised nothing.
 */
irqreturn_t tc_queue_irq(int irq, void *data)
{
	struct tc_queue *q = data;
	u32 status = tc_q_readl(q, TC_Q_INT_STATUS);

	if (!status)
		return IRQ_NONE;
	tc_q_writel(q, TC_Q_INT_STATUS, status);

	mutex_lock(&q->lock);
	if ((status & TC_Q_INT_ERROR) ||
	    (tc_q_readl(q, TC_Q_STATUS) & TC_Q_STATUS_HALTED))
		tc_queue_error(q);
	else
		tc_queue_done(q);
	mutex_unlock(&q->lock);
	return IRQ_HANDLED;
}

/* ---- scheduler backend -------------------------------------------------- */

static struct dma_fence *tc_sched_run_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);
	struct tc_queue *q = job->queue;
	struct tc_device *tdev = q->tdev;
	struct tc_fence *fence;
	int idx;

	if (unlikely(sched_job->s_fence->finished.error))
		return ERR_PTR(sched_job->s_fence->finished.error);

	fence = kzalloc(sizeof(*fence), GFP_KERNEL);
	if (!fence)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&fence->lock);

	if (!drm_dev_enter(&tdev->base, &idx)) {
		kfree(fence);
		return ERR_PTR(-ENODEV);
	}
	mutex_lock(&q->lock);
	if (!tdev->fw_ok) {
		mutex_unlock(&q->lock);
		drm_dev_exit(idx);
		kfree(fence);
		job->result->status = DRM_TILECOPY_STATUS_NO_FIRMWARE;
		return ERR_PTR(-ENODEV);
	}
	job->seqno = ++q->seqno;
	dma_fence_init(&fence->base, &tc_fence_ops, &fence->lock, q->fence_ctx,
		       job->seqno);
	job->hw_fence = dma_fence_get(&fence->base);
	if (list_empty(&q->active))
		q->busy_since = ktime_get();
	list_add_tail(&job->link, &q->active);
	tc_queue_ring_write(q, job);
	tc_queue_ring_kick(q);
	mutex_unlock(&q->lock);
	drm_dev_exit(idx);
	return &fence->base;
}

static enum drm_gpu_sched_stat tc_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);
	struct drm_gpu_scheduler *sched = sched_job->sched;
	int idx;

	if (!job->hw_fence || dma_fence_is_signaled(job->hw_fence) ||
	    !drm_dev_enter(&job->tdev->base, &idx)) {
		/*
		 * Finished while the timeout fired (or the device is gone and
		 * the job is being cancelled): nothing hangs. Put the job back
		 * where the scheduler took it from, as etnaviv does.
		 */
		spin_lock(&sched->job_list_lock);
		list_add(&sched_job->list, &sched->pending_list);
		spin_unlock(&sched->job_list_lock);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	dev_warn(&job->tdev->pdev->dev, "queue %u: job %llu timed out, resetting the engine\n",
		 job->queue->idx, job->seqno);
	tc_device_reset(job->tdev, job);
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}

static void tc_job_free(struct tc_job *job)
{
	struct device *dev = &job->tdev->pdev->dev;
	u32 i;

	if (job->descs)
		dma_free_coherent(dev, job->desc_count * sizeof(*job->descs),
				  job->descs, job->descs_dma);
	for (i = 0; i < job->map_count; i++) {
		if (job->maps[i]) {
			struct drm_gem_object *obj = &job->maps[i]->bo->base.base;

			tc_bo_map_put(job->maps[i]);
			drm_gem_object_put(obj);
		}
	}
	kvfree(job->maps);
	if (job->hw_fence)
		dma_fence_put(job->hw_fence);
	if (job->result)
		tc_job_result_put(job->result);
	tc_mmu_ctx_put(job->ctx);
	kfree(job);
}

static void tc_sched_free_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);

	drm_sched_job_cleanup(sched_job);
	tc_job_free(job);
}

static const struct drm_sched_backend_ops tc_sched_ops = {
	.run_job = tc_sched_run_job,
	.timedout_job = tc_sched_timedout_job,
	.free_job = tc_sched_free_job,
};

/**
 * tc_queue_sched_init() - create the scheduler of a hardware queue
 * @q: queue
 *
 * Every queue's timeout handler runs on the device's ordered reset
 * workqueue: a timeout resets the whole engine, so handlers must not race.
 *
 * Return: 0 or a negative error code.
 */
int tc_queue_sched_init(struct tc_queue *q)
{
	const struct drm_sched_init_args args = {
		.ops = &tc_sched_ops,
		.timeout_wq = q->tdev->reset_wq,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = TC_QUEUE_CREDITS,
		.timeout = msecs_to_jiffies(tc_job_timeout_ms),
		.name = q->name,
		.dev = &q->tdev->pdev->dev,
	};

	return drm_sched_init(&q->sched, &args);
}

/**
 * tc_queue_sched_fini() - tear a queue's scheduler down
 * @q: queue
 */
void tc_queue_sched_fini(struct tc_queue *q)
{
	drm_sched_fini(&q->sched);
}

/* ---- engine reset ------------------------------------------------------- */

static void tc_device_sched_stop(struct tc_device *tdev)
{
	unsigned int i;

	for (i = 0; i < tdev->num_queues; i++)
		drm_sched_wqueue_stop(&tdev->queues[i].sched);
	tc_device_irq_enable(tdev, false);
}

static void tc_device_sched_start(struct tc_device *tdev)
{
	unsigned int i;

	tc_device_irq_enable(tdev, true);
	for (i = 0; i < tdev->num_queues; i++) {
		struct drm_gpu_scheduler *sched = &tdev->queues[i].sched;

		/* Resubmitted jobs get a full timeout again. */
		drm_sched_resume_timeout(sched, sched->timeout);
		drm_sched_wqueue_start(sched);
	}
}

/**
 * tc_device_reset() - reset the engine, fail the guilty job, resubmit the rest
 * @tdev: device
 * @guilty: job that timed out (taken off its pending list by the
 *	scheduler's timeout handler), or NULL for a forced reset
 *
 * Jobs the engine completed before the reset complete normally; the guilty
 * job fails with DRM_TILECOPY_STATUS_TIMEOUT; every other job on every
 * queue is written to its ring again once the firmware runs again. If the
 * firmware does not come back, they fail with NO_FIRMWARE.
 *
 * Return: 0, or the error of the reset or the firmware boot.
 */
int tc_device_reset(struct tc_device *tdev, struct tc_job *guilty)
{
	unsigned int i;
	int ret;

	mutex_lock(&tdev->reset_lock);
	tc_device_sched_stop(tdev);
	if (guilty) {
		struct drm_gpu_scheduler *sched = guilty->base.sched;

		spin_lock(&sched->job_list_lock);
		list_add(&guilty->base.list, &sched->pending_list);
		spin_unlock(&sched->job_list_lock);
	}

	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_done(q);
		if (guilty && guilty->queue == q && !list_empty(&guilty->link))
			tc_job_finish(q, guilty, DRM_TILECOPY_STATUS_TIMEOUT,
				      0, 0, -ETIMEDOUT);
		mutex_unlock(&q->lock);
	}

	atomic64_inc(&tdev->stats.resets);
	ret = tc_device_hw_reset(tdev);
	if (!ret)
		ret = tc_device_fw_boot(tdev);
	if (!ret)
		tc_device_hw_setup(tdev);

	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		if (ret)
			tc_queue_fail_all(q, DRM_TILECOPY_STATUS_NO_FIRMWARE, -ENODEV);
		else
			tc_queue_resubmit(q);
		mutex_unlock(&q->lock);
	}
	tc_device_sched_start(tdev);
	mutex_unlock(&tdev->reset_lock);
	return ret;
}

/**
 * tc_device_cancel_all() - stop the engine and fail every job on it
 * @tdev: device being removed
 *
 * Jobs not yet on the engine fail when the scheduler runs them, since the
 * device is unplugged by then.
 */
void tc_device_cancel_all(struct tc_device *tdev)
{
	unsigned int i;

	mutex_lock(&tdev->reset_lock);
	tc_device_sched_stop(tdev);
	tc_device_fini(tdev);
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_fail_all(q, DRM_TILECOPY_STATUS_CANCELLED, -ECANCELED);
		mutex_unlock(&q->lock);
	}
	tc_device_sched_start(tdev);
	mutex_unlock(&tdev->reset_lock);
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
		    span <= m->size - (addr - start) && (!write || m->writable))
			return true;
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
	job->bytes += bytes;
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

static void tc_submit_push(struct tc_file *tfile, struct tc_job *job, u32 id,
			   struct drm_syncobj *out)
{
	struct dma_fence *finished;

	mutex_lock(&tfile->submit_lock);
	drm_sched_job_arm(&job->base);
	finished = &job->base.s_fence->finished;
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
	struct tc_job *job;
	u32 id;
	int ret;

	ret = tc_submit_check(dev, tdev, args);
	if (ret)
		return ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	job->tdev = tdev;
	job->queue = &tdev->queues[args->queue];
	job->ctx = tc_mmu_ctx_get(tfile->ctx);
	INIT_LIST_HEAD(&job->link);
	job->result = kzalloc(sizeof(*job->result), GFP_KERNEL);
	if (!job->result) {
		ret = -ENOMEM;
		goto err_free_job;
	}
	kref_init(&job->result->ref);
	job->result->status = DRM_TILECOPY_STATUS_CANCELLED;

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
	ret = xa_alloc_cyclic(&tfile->jobs, &id, NULL, XA_LIMIT(1, U32_MAX),
			      &tfile->next_job_id, GFP_KERNEL);
	if (ret < 0)
		goto err_put_syncobj;

	tc_submit_push(tfile, job, id, out);
	if (out)
		drm_syncobj_put(out);
	args->job_id = id;
	return 0;

err_put_syncobj:
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

	ret = dma_fence_wait_timeout(res->done, true,
				     tc_wait_jiffies(args->timeout_ns));
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
