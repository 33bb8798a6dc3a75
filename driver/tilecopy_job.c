// SPDX-License-Identifier: GPL-2.0-only
/*
 * Jobs on the engine: the rings, the scheduler backend, completions and the
 * freeing of jobs. Resets and their recovery are in tilecopy_reset.c.
 *
 * Locking: &tc_queue.lock covers a queue's ring and active list; run_job(),
 * the queue's interrupt thread and the resets take it. None of these paths
 * allocates memory or takes a lock that is held across an allocation: they
 * signal fences, and memory reclaim may wait for fences. Jobs are freed by
 * a worker (tc_reap_work()) because drm_sched_stop() calls free_job() from
 * inside a reset.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/dma-mapping.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

static unsigned int tc_job_timeout_ms = 5000;
module_param_named(job_timeout_ms, tc_job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms,
		 "Engine time a job may use before it counts as hung and the engine is reset, in ms (default 5000, 0 = never)");

/**
 * tc_job_timeout_ns() - engine time a job may use
 *
 * Return: nanoseconds, 0 for no limit.
 */
u64 tc_job_timeout_ns(void)
{
	return (u64)tc_job_timeout_ms * NSEC_PER_MSEC;
}

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
	e->desc_addr = (__force u64)cpu_to_le64(job->descs->node.start);
	e->desc_count = (__force u32)cpu_to_le32(job->desc_count);
	e->ctx = (__force u32)cpu_to_le32(job->ctx->slot);
	e->seqno = (__force u64)cpu_to_le64(job->seqno);
	e->flags = (__force u32)cpu_to_le32(TC_RING_F_DESC_VA |
					     (job->descs->wide ? TC_RING_F_DESC_256 : 0));
	q->tail++;
}

static void tc_queue_ring_kick(struct tc_queue *q)
{
	/* Ring entries and descriptors must be visible before the doorbell. */
	wmb();
	tc_q_writel(q, TC_Q_TAIL, q->tail % TC_RING_ENTRIES);
	tc_q_writel(q, TC_Q_DOORBELL, 1);
}

/**
 * tc_queue_resubmit() - write every job the engine still owns again
 * @q: queue, locked, with an empty ring (after a queue or engine reset)
 *
 * Only jobs the engine never started are left on @q: running them again
 * runs each of their descriptors once.
 */
void tc_queue_resubmit(struct tc_queue *q)
{
	struct tc_job *job;

	lockdep_assert_held(&q->lock);
	list_for_each_entry(job, &q->active, link)
		tc_queue_ring_write(q, job);
	if (!list_empty(&q->active))
		tc_queue_ring_kick(q);
}

/* ---- completions -------------------------------------------------------- */

/*
 * The job is finished: it no longer counts against its file's
 * MAX_FILE_JOBS, before its fence signals, so that a SUBMIT right after a
 * successful WAIT finds room (its descriptor memory stays charged until
 * the job is freed, shortly after). Called once, by whoever finishes it.
 */
static void tc_job_uncount(struct tc_job *job)
{
	if (job->counted) {
		atomic_dec(&job->ctx->jobs);
		job->counted = false;
	}
}

/**
 * tc_job_finish() - the engine is done with a job, one way or another
 * @q: the job's queue, locked
 * @job: job on @q's active list (or a list of the caller's)
 * @status: &enum drm_tilecopy_status
 * @err_desc: failing descriptor, or DRM_TILECOPY_ERR_DESC_NONE
 * @err_addr: faulting VA
 * @error: fence error, 0 for success
 */
void tc_job_finish(struct tc_queue *q, struct tc_job *job, u32 status,
		   u32 err_desc, u64 err_addr, int error)
{
	struct tc_stats *stats = &q->tdev->stats;

	lockdep_assert_held(&q->lock);
	list_del_init(&job->link);
	if (list_empty(&q->active))
		atomic64_add(ktime_to_ns(ktime_sub(ktime_get(), q->busy_since)),
			     &stats->busy_ns);
	if (job->slot_held) {
		atomic_dec(&job->ctx->slot_jobs);
		job->slot_held = false;
	}

	job->result->status = status;
	job->result->err_desc = err_desc;
	job->result->err_addr = err_addr;
	tc_job_uncount(job);
	if (status == DRM_TILECOPY_STATUS_OK) {
		atomic64_inc(&stats->jobs_done);
		atomic64_add(job->bytes, &stats->bytes_moved);
	} else {
		atomic64_inc(&stats->jobs_failed);
		dma_fence_set_error(job->hw_fence, error);
	}
	dma_fence_signal(job->hw_fence);
}

/**
 * tc_queue_done() - complete every job up to the engine's DONE_SEQNO
 * @q: queue, locked
 */
void tc_queue_done(struct tc_queue *q)
{
	u64 done = tc_q_readq(q, TC_Q_DONE_SEQNO_LO);
	struct tc_job *job, *tmp;

	lockdep_assert_held(&q->lock);
	list_for_each_entry_safe(job, tmp, &q->active, link) {
		if (job->seqno > done)
			break;
		tc_job_finish(q, job, DRM_TILECOPY_STATUS_OK,
			      DRM_TILECOPY_ERR_DESC_NONE, 0, 0);
	}
}

/**
 * tc_queue_irq() - threaded handler of a queue's MSI-X vector
 * @irq: interrupt
 * @data: struct tc_queue
 *
 * Completions are handled here; a halted queue is recovered on the reset
 * workqueue (tc_queue_fault()), serialised with engine resets.
 *
 * Return: IRQ_HANDLED, or IRQ_NONE if the queue raised nothing.
 */
irqreturn_t tc_queue_irq(int irq, void *data)
{
	struct tc_queue *q = data;
	u32 status = tc_q_readl(q, TC_Q_INT_STATUS);
	bool cookie;

	if (!status)
		return IRQ_NONE;
	tc_q_writel(q, TC_Q_INT_STATUS, status);

	cookie = dma_fence_begin_signalling();
	mutex_lock(&q->lock);
	tc_queue_done(q);
	mutex_unlock(&q->lock);
	if ((status & TC_Q_INT_ERROR) ||
	    (tc_q_readl(q, TC_Q_STATUS) & TC_Q_STATUS_HALTED))
		tc_queue_fault(q);
	dma_fence_end_signalling(cookie);
	return IRQ_HANDLED;
}

/* ---- scheduler backend -------------------------------------------------- */

/**
 * tc_job_deps_failed() - did an in-syncobj's fence of @job end with an error
 * @job: job
 *
 * A producer that faulted, hung, was reset or cancelled: the job would run
 * on bytes the producer did not make, and report OK. It is cancelled
 * instead, and its own fence carries the error on to the jobs that wait
 * for it. Asked by run_job() (a producer on another queue: the scheduler
 * waited for its fence) and again when a reset or a fault would requeue
 * the job (a producer on the same queue: the scheduler only ordered the
 * two, and the producer may have failed after the job reached the ring).
 *
 * Return: true if one of them signalled with an error.
 */
bool tc_job_deps_failed(const struct tc_job *job)
{
	u32 i;

	for (i = 0; i < job->in_count; i++)
		if (dma_fence_get_status(job->in_fences[i]) < 0)
			return true;
	return false;
}

static struct dma_fence *tc_sched_run_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);
	struct tc_queue *q = job->queue;
	struct tc_device *tdev = q->tdev;
	/* Allocated at SUBMIT: no allocation on the fence signalling path. */
	struct tc_fence *fence = job->fence;
	int ret, idx;

	/* Every error return finishes the job. */
	if (unlikely(sched_job->s_fence->finished.error)) {
		tc_job_uncount(job);
		return ERR_PTR(sched_job->s_fence->finished.error);
	}
	if (!drm_dev_enter(&tdev->base, &idx)) {
		tc_job_uncount(job);
		return ERR_PTR(-ENODEV);
	}
	/* A wedged device, a banned file, a failed producer: cancelled. */
	ret = -ECANCELED;
	if (READ_ONCE(tdev->wedged) || tc_mmu_ctx_banned(job->ctx) ||
	    tc_job_deps_failed(job))
		goto out_exit;
	ret = tc_mmu_slot_get(tdev, job->ctx);
	if (ret)
		goto out_exit;
	job->slot_held = true;

	mutex_lock(&q->lock);
	if (!tdev->fw_ok) {
		mutex_unlock(&q->lock);
		atomic_dec(&job->ctx->slot_jobs);
		job->slot_held = false;
		job->result->status = DRM_TILECOPY_STATUS_NO_FIRMWARE;
		ret = -ENODEV;
		goto out_exit;
	}
	job->fence = NULL;	/* now owned by its references */
	spin_lock_init(&fence->lock);
	job->seqno = ++q->seqno;
	dma_fence_init(&fence->base, &tc_fence_ops, &fence->lock, q->fence_ctx,
		       job->seqno);
	WRITE_ONCE(job->hw_fence, dma_fence_get(&fence->base));
	if (list_empty(&q->active))
		q->busy_since = ktime_get();
	list_add_tail(&job->link, &q->active);
	tc_queue_ring_write(q, job);
	tc_queue_ring_kick(q);
	mutex_unlock(&q->lock);
	drm_dev_exit(idx);
	return &fence->base;

out_exit:
	drm_dev_exit(idx);
	tc_job_uncount(job);
	return ERR_PTR(ret);
}

/**
 * tc_job_descs_free() - unmap and free descriptors
 * @tdev: device
 * @ctx: address space they are mapped in
 * @d: a job's own descriptors, or a pool slot (tc_desc_pool_fini())
 */
void tc_job_descs_free(struct tc_device *tdev, struct tc_mmu_ctx *ctx,
		       struct tc_job_descs *d)
{
	if (d->va_mapped)
		tc_mmu_unmap(ctx, &d->node);
	mutex_lock(&tdev->dma_lock);
	if (d->dma_mapped) {
		dma_unmap_sgtable(tdev->base.dev, &d->sgt, DMA_TO_DEVICE, 0);
		d->dma_mapped = false;
		list_del(&d->link);
	}
	mutex_unlock(&tdev->dma_lock);
	sg_free_table(&d->sgt);
	vfree(d->cpu);
	kfree(d);
}

/*
 * The job is freed: the engine no longer reads its descriptors (it
 * finished the job, a reset stopped it, or the job never reached it), so
 * a pool slot may serve the next job, still mapped.
 */
static void tc_job_descs_put(struct tc_job *job)
{
	struct tc_job_descs *d = job->descs;
	struct tc_mmu_ctx *ctx = job->ctx;

	if (!d)
		return;
	if (!d->pooled) {
		tc_job_descs_free(job->tdev, ctx, d);
		return;
	}
	spin_lock(&ctx->pool_lock);
	list_add(&d->pool_link, &ctx->pool_free);
	spin_unlock(&ctx->pool_lock);
}

/**
 * tc_desc_pool_fini() - free an address space's descriptor slots
 * @ctx: address space being released: no job holds a slot any more
 */
void tc_desc_pool_fini(struct tc_mmu_ctx *ctx)
{
	struct tc_job_descs *d, *tmp;

	list_for_each_entry_safe(d, tmp, &ctx->pool_free, pool_link) {
		list_del(&d->pool_link);
		tc_job_descs_free(ctx->tdev, ctx, d);
		ctx->pool_slots--;
	}
	WARN_ON(ctx->pool_slots);
}

/**
 * tc_job_free() - free a job and drop what it holds
 * @job: job, after drm_sched_job_cleanup() if it was initialised
 *
 * Takes the address space's and the BOs' locks, which are held across
 * memory allocations: never call it where fences are signalled (a reset).
 */
void tc_job_free(struct tc_job *job)
{
	struct tc_device *tdev = job->tdev;
	struct tc_mmu_ctx *ctx = job->ctx;
	u32 i;

	tc_job_descs_put(job);
	for (i = 0; i < job->map_count; i++) {
		if (job->maps[i])
			tc_bo_map_release(job->maps[i]);
	}
	kvfree(job->maps);
	if (job->hw_fence)
		dma_fence_put(job->hw_fence);
	kfree(job->fence);	/* never initialised: the job did not run */
	for (i = 0; i < job->in_count; i++)
		dma_fence_put(job->in_fences[i]);
	kfree(job->in_fences);
	if (job->result)
		tc_job_result_finished(job->result);
	tc_job_uncount(job);
	if (job->charged)
		atomic64_sub(job->desc_bytes, &ctx->desc_bytes);
	tc_mmu_ctx_put(ctx);
	kfree(job);
	if (atomic_dec_and_test(&tdev->jobs_alive))
		wake_up_all(&tdev->jobs_wq);
}

/**
 * tc_jobs_dma_release() - undo the descriptor mappings of every job
 * @tdev: device being removed, with &tc_device.dma_lock held
 *
 * Jobs still queued (behind fences that may never signal) or not yet
 * reaped are freed later, without unmapping again.
 */
void tc_jobs_dma_release(struct tc_device *tdev)
{
	struct tc_job_descs *d, *tmp;

	lockdep_assert_held(&tdev->dma_lock);
	list_for_each_entry_safe(d, tmp, &tdev->dma_jobs, link) {
		dma_unmap_sgtable(tdev->base.dev, &d->sgt, DMA_TO_DEVICE, 0);
		d->dma_mapped = false;
		list_del(&d->link);
	}
}

static void tc_reap_work(struct work_struct *work)
{
	struct tc_device *tdev = container_of(work, struct tc_device, reap_work);
	struct llist_node *list = llist_del_all(&tdev->reap_list);
	struct tc_job *job, *tmp;

	llist_for_each_entry_safe(job, tmp, list, reap) {
		drm_sched_job_cleanup(&job->base);
		tc_job_free(job);
	}
}

static void tc_sched_free_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);
	struct tc_device *tdev = job->tdev;

	/*
	 * drm_sched_stop() calls this inside a reset, which signals fences:
	 * the job's references go in a worker, whose locks may be held
	 * across allocations.
	 */
	if (llist_add(&job->reap, &tdev->reap_list))
		queue_work(system_unbound_wq, &tdev->reap_work);
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
 * workqueue: a reset involves the whole engine, handlers must not race.
 * The timer only says when to look at the engine (tc_sched_timedout_job()):
 * every quarter of job_timeout_ms, so that a job is found hung between one
 * and one and a quarter timeouts of engine time, unless new jobs keep
 * starting on the queue: each starts the timer again (docs/uapi.md).
 *
 * Each job on the engine holds one of the engine's 64 MMU contexts for its
 * address space (tc_mmu_slot_get()): the queues' credits together stay
 * within 64, so a context can always be found.
 *
 * Return: 0 or a negative error code.
 */
int tc_queue_sched_init(struct tc_queue *q)
{
	struct tc_device *tdev = q->tdev;
	const struct drm_sched_init_args args = {
		.ops = &tc_sched_ops,
		.timeout_wq = tdev->reset_wq,
		.num_rqs = DRM_SCHED_PRIORITY_COUNT,
		.credit_limit = min(TC_RING_ENTRIES / 2,
				    TC_NUM_CONTEXTS / tdev->num_queues),
		.timeout = tc_job_timeout_ms ?
			   max(msecs_to_jiffies(tc_job_timeout_ms) / 4, 1ul) :
			   MAX_SCHEDULE_TIMEOUT,
		.name = q->name,
		.dev = &tdev->pdev->dev,
	};

	return drm_sched_init(q->sched, &args);
}

/**
 * tc_queue_sched_fini() - tear a queue's scheduler down
 * @q: queue
 */
void tc_queue_sched_fini(struct tc_queue *q)
{
	drm_sched_fini(q->sched);
}

/*
 * The schedulers and their names outlive the device. A scheduler's fences
 * (the jobs' "finished" fences, in syncobjs, sync_files, dma-bufs'
 * reservations) point at their scheduler and ask it for its name
 * (drm_sched_fence_get_timeline_name() in 6.12 reads fence->sched->name,
 * signalled or not) for as long as they live, which nothing bounds: a
 * sync_file kept after the device is unbound and its last file closed.
 * So the store is not freed with the device but retired, and freed when
 * the module goes (a few KiB per device bound and unbound meanwhile).
 */
struct tc_sched_store {
	struct list_head link;
	struct drm_gpu_scheduler sched[TC_MAX_QUEUES];
	char name[TC_MAX_QUEUES][TC_SCHED_NAME_LEN];
};

static LIST_HEAD(tc_sched_retired);
static DEFINE_MUTEX(tc_sched_retired_lock);

static void tc_sched_store_retire(struct drm_device *dev, void *data)
{
	struct tc_sched_store *store = data;

	mutex_lock(&tc_sched_retired_lock);
	list_add(&store->link, &tc_sched_retired);
	mutex_unlock(&tc_sched_retired_lock);
}

/**
 * tc_sched_store_alloc() - allocate the queues' schedulers and names
 * @tdev: device; the store is retired when its drm_device is released,
 *	after the schedulers' drm_sched_fini()
 *
 * Return: 0 or -ENOMEM.
 */
int tc_sched_store_alloc(struct tc_device *tdev)
{
	struct tc_sched_store *store = kzalloc(sizeof(*store), GFP_KERNEL);
	unsigned int i;

	if (!store)
		return -ENOMEM;
	for (i = 0; i < TC_MAX_QUEUES; i++) {
		tdev->queues[i].sched = &store->sched[i];
		tdev->queues[i].name = store->name[i];
	}
	tdev->sched_store = store;
	/* registered before the schedulers' fini: runs after it */
	return drmm_add_action_or_reset(&tdev->base, tc_sched_store_retire, store);
}

/**
 * tc_sched_stores_free() - free the retired schedulers at module unload
 *
 * A fence of a removed device still alive now (a sync_file kept open
 * across rmmod) would read freed memory for its name: 6.12's drm_sched
 * gives a driver no way to know when the last fence of a scheduler goes.
 */
void tc_sched_stores_free(void)
{
	struct tc_sched_store *store, *tmp;

	/* fences are freed after an RCU grace period */
	rcu_barrier();
	list_for_each_entry_safe(store, tmp, &tc_sched_retired, link) {
		list_del(&store->link);
		kfree(store);
	}
}

/**
 * tc_device_jobs_init() - set up the freeing of jobs
 * @tdev: device
 */
void tc_device_jobs_init(struct tc_device *tdev)
{
	init_llist_head(&tdev->reap_list);
	INIT_WORK(&tdev->reap_work, tc_reap_work);
	atomic_set(&tdev->jobs_alive, 0);
	init_waitqueue_head(&tdev->jobs_wq);
}

/**
 * tc_device_jobs_drain() - wait until every job is freed
 * @tdev: device being released: removed, every file closed
 *
 * Every job's fence has signalled by then (the removal cancelled what was
 * on the engine), so the schedulers and the reaper finish in bounded time;
 * they must, before the schedulers go.
 */
void tc_device_jobs_drain(struct tc_device *tdev)
{
	wait_event(tdev->jobs_wq, !atomic_read(&tdev->jobs_alive));
	flush_work(&tdev->reap_work);
}
