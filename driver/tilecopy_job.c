// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

static unsigned int tc_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, tc_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Time a job may run before the engine is reset, in ms (default 5000, 0 = never)");

static struct tc_job *to_tc_job(struct drm_sched_job *job)
{
	return container_of(job, struct tc_job, base);
}

/* ---- hardware fences ---------------------------------------------------- */

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
	/* Allocated at SUBMIT: no allocation on the fence signalling path. */
	struct tc_fence *fence = job->fence;
	int idx;

	if (unlikely(sched_job->s_fence->finished.error))
		return ERR_PTR(sched_job->s_fence->finished.error);
	if (!drm_dev_enter(&tdev->base, &idx))
		return ERR_PTR(-ENODEV);
	mutex_lock(&q->lock);
	if (!tdev->fw_ok) {
		mutex_unlock(&q->lock);
		drm_dev_exit(idx);
		job->result->status = DRM_TILECOPY_STATUS_NO_FIRMWARE;
		return ERR_PTR(-ENODEV);
	}
	job->fence = NULL;	/* now owned by its references */
	spin_lock_init(&fence->lock);
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

/**
 * tc_job_free() - free a job and drop what it holds
 * @job: job, after drm_sched_job_cleanup() if it was initialised
 */
void tc_job_free(struct tc_job *job)
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
	kfree(job->fence);	/* never initialised: the job did not run */
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
		.timeout = tc_job_timeout_ms ? msecs_to_jiffies(tc_job_timeout_ms) :
			   MAX_SCHEDULE_TIMEOUT,
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
		if (sched->timeout != MAX_SCHEDULE_TIMEOUT)
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

	/* What the engine finished before the reset completes normally. */
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_done(q);
		mutex_unlock(&q->lock);
	}

	atomic64_inc(&tdev->stats.resets);
	ret = tc_device_hw_reset(tdev);
	if (!ret)
		ret = tc_device_fw_boot(tdev);
	if (!ret)
		tc_device_hw_setup(tdev);

	/* The engine is stopped: nothing writes the jobs' buffers any more. */
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		if (guilty && guilty->queue == q && !list_empty(&guilty->link))
			tc_job_finish(q, guilty, DRM_TILECOPY_STATUS_TIMEOUT,
				      0, 0, -ETIMEDOUT);
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

