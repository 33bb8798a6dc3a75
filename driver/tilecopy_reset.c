// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recovery: jobs that hang, queues the engine halted, forced resets, resets
 * that fail, and the device's removal.
 *
 * The rule: no job is reported OK unless every one of its descriptors ran
 * exactly once. So an engine reset never runs a job again. It stops the
 * engine, reads from the stopped engine which jobs it completed (they
 * complete), which it started and did not complete (they fail: RESET, or
 * TIMEOUT for the one that hung) and which it never started (they go to the
 * rings again after the reset). See docs/uapi.md, "Resets and hangs".
 *
 * A job hangs when the engine has spent job_timeout_ms on it: the engine
 * counts that time per queue (JOB_NS), so a job waiting in its ring behind
 * other queues' jobs is not charged. The scheduler's timeout only tells us
 * when to look.
 *
 * Every reset (a timeout handler, tc_fault_work(), tc_reset_work()) runs
 * on the device's ordered reset workqueue, one at a time. The scheduler is
 * driven through drm_sched_stop() and drm_sched_start(). drm_sched_stop()
 * detaches every pending job from its hardware fence and drm_sched_start()
 * cancels a job left without one; the jobs we keep get their fence back
 * first (tc_sched_restore_parents(), as panthor's queue_start() does).
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/pci.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

static struct tc_job *to_tc_job(struct drm_sched_job *job)
{
	return container_of(job, struct tc_job, base);
}

/*
 * The scheduler is stopped: give its pending jobs their hardware fences
 * back, so that drm_sched_start() waits for them instead of cancelling
 * them. Only jobs run_job() gave a fence are still pending.
 */
static void tc_sched_restore_parents(struct tc_queue *q)
{
	struct drm_sched_job *s_job;

	list_for_each_entry(s_job, &q->sched->pending_list, list) {
		struct tc_job *job = to_tc_job(s_job);

		if (!s_job->s_fence->parent && job->hw_fence)
			s_job->s_fence->parent = dma_fence_get(job->hw_fence);
	}
}

/*
 * A timeout that resets nothing: drm_sched_stop() puts @job back on its
 * scheduler's pending list (or frees it, if it finished meanwhile), and
 * the scheduler goes on, its timer armed again.
 */
static void tc_sched_give_back(struct tc_queue *q, struct tc_job *job)
{
	drm_sched_stop(q->sched, &job->base);
	tc_sched_restore_parents(q);
	drm_sched_start(q->sched);
}

static int tc_status_error(u32 status)
{
	switch (status) {
	case DRM_TILECOPY_STATUS_OK:
		return 0;
	case DRM_TILECOPY_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case DRM_TILECOPY_STATUS_CANCELLED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

static void tc_job_set_outcome(struct tc_job *job, u32 status, u32 err_desc,
			       u64 err_addr)
{
	job->outcome.known = true;
	job->outcome.status = status;
	job->outcome.err_desc = err_desc;
	job->outcome.err_addr = err_addr;
	job->outcome.error = tc_status_error(status);
}

/*
 * The engine is stopped: its progress registers no longer move. Record for
 * each of the queue's jobs what became of it; never-started jobs stay
 * unknown. @stopped false: the engine did not stop and its registers say
 * nothing reliable: every job may have run.
 */
static void tc_queue_sort(struct tc_queue *q, struct tc_job *guilty,
			  bool stopped)
{
	u64 done = 0, started = U64_MAX, err_seqno = 0;
	u32 code = 0, err_desc = 0;
	u64 err_addr = 0;
	bool halted = false;
	struct tc_job *job;

	lockdep_assert_held(&q->lock);
	if (stopped) {
		done = tc_q_readq(q, TC_Q_DONE_SEQNO_LO);
		started = tc_q_readq(q, TC_Q_STARTED_SEQNO_LO);
		halted = tc_q_readl(q, TC_Q_STATUS) & TC_Q_STATUS_HALTED;
		if (halted) {
			code = tc_q_readl(q, TC_Q_ERR_CODE);
			err_desc = tc_q_readl(q, TC_Q_ERR_DESC);
			err_addr = tc_q_readq(q, TC_Q_ERR_ADDR_LO);
			err_seqno = tc_q_readq(q, TC_Q_ERR_SEQNO_LO);
			if (code == DRM_TILECOPY_STATUS_OK ||
			    code > DRM_TILECOPY_STATUS_RESET)
				code = DRM_TILECOPY_STATUS_BAD_DESC;
		}
	}
	list_for_each_entry(job, &q->active, link) {
		job->outcome.known = false;
		if (job->seqno <= done)
			tc_job_set_outcome(job, DRM_TILECOPY_STATUS_OK,
					   DRM_TILECOPY_ERR_DESC_NONE, 0);
		else if (halted && job->seqno == err_seqno)
			tc_job_set_outcome(job, code, err_desc, err_addr);
		else if (job->seqno <= started)
			tc_job_set_outcome(job, job == guilty ?
					   DRM_TILECOPY_STATUS_TIMEOUT :
					   DRM_TILECOPY_STATUS_RESET,
					   DRM_TILECOPY_ERR_DESC_NONE, 0);
	}
}

/*
 * What becomes of the jobs a reset found never started (tc_queue_settle()).
 * @TC_SETTLE_REQUEUE: the engine is back: they go to the ring again (but
 *	those of a banned file, and those whose producer failed, which are
 *	cancelled).
 * @TC_SETTLE_CANCEL: the engine is stopped and reset, and stays off: they
 *	did not run, they are CANCELLED.
 * @TC_SETTLE_MAY_HAVE_RUN: the reset failed: a stuck reset drops STOP and
 *	the engine may have gone on with its rings until bus mastering went
 *	off: they may have run, they fail with RESET, never CANCELLED.
 */
enum tc_settle {
	TC_SETTLE_REQUEUE,
	TC_SETTLE_CANCEL,
	TC_SETTLE_MAY_HAVE_RUN,
};

/* The failed jobs of one settling, as the jobs after them see them. */
#define TC_SETTLE_FAILED_MAX	16

struct tc_settle_failed {
	const struct dma_fence *finished[TC_SETTLE_FAILED_MAX];
	unsigned int count;
	bool overflow;
};

/*
 * Would @job run on what a failed producer left? Its in-syncobj's fence
 * that ended with an error, or that is the finished fence of a job that
 * failed before it on this queue in this settling: the scheduler is
 * stopped, so those fences signal only at drm_sched_start(). (A producer
 * on another queue was waited for before @job reached the ring.) Past
 * TC_SETTLE_FAILED_MAX failures, any unsignalled in-fence of this queue's
 * scheduler counts as failed: the job is cancelled rather than risked.
 */
static bool tc_settle_deps_failed(struct tc_queue *q, const struct tc_job *job,
				  const struct tc_settle_failed *failed)
{
	u32 i, k;

	if (tc_job_deps_failed(job))
		return true;
	for (i = 0; i < job->in_count; i++) {
		struct dma_fence *f = job->in_fences[i];
		struct drm_sched_fence *sf;

		for (k = 0; k < failed->count; k++)
			if (f == failed->finished[k])
				return true;
		sf = to_drm_sched_fence(f);
		if (failed->overflow && sf && sf->sched == q->sched &&
		    !dma_fence_is_signaled(f))
			return true;
	}
	return false;
}

/* Finish the jobs whose outcome the reset found; the others as @how says. */
static void tc_queue_settle(struct tc_queue *q, enum tc_settle how)
{
	struct tc_stats *stats = &q->tdev->stats;
	struct tc_settle_failed failed = { };
	struct tc_job *job, *tmp;

	lockdep_assert_held(&q->lock);
	list_for_each_entry_safe(job, tmp, &q->active, link) {
		struct tc_job_outcome *o = &job->outcome;

		if (!o->known) {
			if (how == TC_SETTLE_REQUEUE && !tc_mmu_ctx_banned(job->ctx) &&
			    !tc_settle_deps_failed(q, job, &failed)) {
				atomic64_inc(&stats->reset_requeued);
				continue;
			}
			tc_job_set_outcome(job, how == TC_SETTLE_MAY_HAVE_RUN ?
					   DRM_TILECOPY_STATUS_RESET :
					   DRM_TILECOPY_STATUS_CANCELLED,
					   DRM_TILECOPY_ERR_DESC_NONE, 0);
		}
		if (o->status == DRM_TILECOPY_STATUS_RESET)
			atomic64_inc(&stats->reset_hits);
		if (o->status != DRM_TILECOPY_STATUS_OK) {
			if (failed.count < TC_SETTLE_FAILED_MAX)
				failed.finished[failed.count++] = &job->base.s_fence->finished;
			else
				failed.overflow = true;
		}
		tc_job_finish(q, job, o->status, o->err_desc, o->err_addr,
			      o->error);
	}
	if (how == TC_SETTLE_REQUEUE)
		tc_queue_resubmit(q);
}

/*
 * The reset failed: nothing says the engine stopped. Bus mastering goes off
 * before any job is reported finished, so that no buffer changes after its
 * job's fence signalled. The device stays wedged until it is bound again.
 */
static void tc_device_wedge(struct tc_device *tdev)
{
	pci_clear_master(tdev->pdev);
	tdev->fw_ok = false;
	WRITE_ONCE(tdev->wedged, true);
	drm_err(&tdev->base,
		"engine reset failed: device wedged, bus mastering off; unbind and bind the driver to recover\n");
}

/*
 * Count a hang against the file whose job it was, and say so; before the
 * jobs are settled, so that a file banned now gets no more jobs run.
 */
static void tc_job_hung(struct tc_job *job)
{
	struct tc_device *tdev = job->tdev;
	int hangs;

	/* it completed before the engine stopped (outcome OK) or is gone */
	if (!job->outcome.known || job->outcome.status != DRM_TILECOPY_STATUS_TIMEOUT)
		return;
	atomic64_inc(&tdev->stats.hangs);
	hangs = atomic_inc_return(&job->ctx->hangs);
	dev_warn_ratelimited(&tdev->pdev->dev,
			     "queue %u: job %llu hung the engine (hang %d of its file%s)\n",
			     job->queue->idx, job->seqno, hangs,
			     hangs >= TC_BAN_HANGS ? ", which is now banned" : "");
}

/**
 * tc_device_reset() - stop and reset the engine, settle every job
 * @tdev: device
 * @guilty: job that hung, handed to us by its scheduler's timeout, or NULL
 *
 * Runs on the reset workqueue. Jobs the engine completed complete, jobs it
 * started and did not complete fail with RESET (@guilty with TIMEOUT), jobs
 * it never started go to the rings again. If the engine does not stop, the
 * reset stops it (every job it had fails with RESET: its progress
 * registers said nothing reliable). If the reset fails, or the firmware
 * does not come back, the device is wedged.
 *
 * Return: 0, -ENODEV (device gone: nothing done, @guilty not given back),
 * -EIO (wedged before or by this reset).
 */
static int tc_device_reset(struct tc_device *tdev, struct tc_job *guilty)
{
	bool stopped, quiet, cookie;
	enum tc_settle how;
	unsigned int i;
	int ret, idx;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	mutex_lock(&tdev->reset_lock);
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		drm_sched_stop(q->sched, guilty && guilty->queue == q ?
			       &guilty->base : NULL);
	}
	/* From here on nothing may wait for memory: fences depend on us. */
	cookie = dma_fence_begin_signalling();
	tc_device_irq_enable(tdev, false);
	atomic64_inc(&tdev->stats.resets);

	stopped = !READ_ONCE(tdev->wedged) && !tc_device_hw_stop(tdev);
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_sort(q, guilty, stopped);
		mutex_unlock(&q->lock);
	}
	if (guilty)
		tc_job_hung(guilty);
	/* Also when STOP timed out: the reset stops the engine too. */
	ret = READ_ONCE(tdev->wedged) ? -EIO : tc_device_hw_reset(tdev);
	quiet = !ret;
	if (!ret)
		ret = tc_device_fw_boot(tdev);
	if (!ret)
		tc_device_hw_setup(tdev);
	else if (!READ_ONCE(tdev->wedged))
		tc_device_wedge(tdev);

	how = !ret ? TC_SETTLE_REQUEUE :
	      quiet ? TC_SETTLE_CANCEL : TC_SETTLE_MAY_HAVE_RUN;
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_settle(q, how);
		mutex_unlock(&q->lock);
	}
	for (i = 0; i < tdev->num_queues; i++) {
		tc_sched_restore_parents(&tdev->queues[i]);
		drm_sched_start(tdev->queues[i].sched);
	}
	tc_device_irq_enable(tdev, true);
	dma_fence_end_signalling(cookie);
	mutex_unlock(&tdev->reset_lock);
	drm_dev_exit(idx);
	return ret ? -EIO : 0;
}

/*
 * Has @job hung: is it the job the engine runs on its queue, for longer
 * than a job may? Jobs waiting in the ring, and jobs the engine started
 * late, are not charged for the time the engine spent on others.
 */
static bool tc_job_is_hung(struct tc_job *job)
{
	struct tc_queue *q = job->queue;
	u64 timeout = tc_job_timeout_ns(), started, done, ns;
	struct dma_fence *hw_fence = READ_ONCE(job->hw_fence);

	/*
	 * No hardware fence: run_job() has not given the job to the engine
	 * yet (the scheduler arms its timer first) or refused it (a banned
	 * file, a wedged device): not on the engine, so not hung.
	 */
	if (!timeout || !hw_fence || dma_fence_is_signaled(hw_fence))
		return false;
	mutex_lock(&q->lock);
	done = tc_q_readq(q, TC_Q_DONE_SEQNO_LO);
	started = tc_q_readq(q, TC_Q_STARTED_SEQNO_LO);
	ns = tc_q_readq(q, TC_Q_JOB_NS_LO);
	mutex_unlock(&q->lock);
	return job->seqno > done && job->seqno == started && ns >= timeout;
}

/**
 * tc_sched_timedout_job() - a queue's oldest job has been on the engine
 *	for a quarter of job_timeout_ms of wall time
 * @sched_job: the job
 *
 * Reset the engine if the job hung (tc_job_is_hung()); else give the job
 * back to its scheduler, whose timer looks again a quarter later.
 *
 * Return: DRM_GPU_SCHED_STAT_NOMINAL, or DRM_GPU_SCHED_STAT_ENODEV when
 * the device is gone.
 */
enum drm_gpu_sched_stat tc_sched_timedout_job(struct drm_sched_job *sched_job)
{
	struct tc_job *job = to_tc_job(sched_job);
	struct tc_device *tdev = job->tdev;
	enum drm_gpu_sched_stat stat = DRM_GPU_SCHED_STAT_NOMINAL;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx)) {
		/* The removal settles every job on the engine. */
		tc_sched_give_back(job->queue, job);
		return DRM_GPU_SCHED_STAT_ENODEV;
	}
	if (READ_ONCE(tdev->wedged) || !tc_job_is_hung(job)) {
		struct dma_fence *hw_fence = READ_ONCE(job->hw_fence);

		if (hw_fence && !dma_fence_is_signaled(hw_fence))
			atomic64_inc(&tdev->stats.tdr_skips);
		tc_sched_give_back(job->queue, job);
	} else if (tc_device_reset(tdev, job) == -ENODEV) {
		/* Unplugged while we reset: the removal settles the jobs. */
		tc_sched_give_back(job->queue, job);
		stat = DRM_GPU_SCHED_STAT_ENODEV;
	}
	drm_dev_exit(idx);
	return stat;
}

/*
 * The engine halted a queue on a failed job: fail that job with the
 * engine's status, reset the queue and give it the jobs behind the failed
 * one (the engine never started them).
 */
static void tc_queue_recover(struct tc_queue *q)
{
	struct tc_job *job;

	lockdep_assert_held(&q->lock);
	tc_queue_sort(q, NULL, true);
	list_for_each_entry(job, &q->active, link) {
		struct tc_job_outcome *o = &job->outcome;

		/* a halted queue stopped at the failed job: nothing ran after */
		if (o->known && o->status != DRM_TILECOPY_STATUS_OK)
			/* user input can cause this: no dev_err */
			drm_dbg_driver(&q->tdev->base,
				       "queue %u: job %llu failed: status %u, desc %u, addr 0x%llx\n",
				       q->idx, job->seqno, o->status, o->err_desc,
				       o->err_addr);
	}
	tc_q_writel(q, TC_Q_CTRL, TC_Q_CTRL_RESET);
	tc_queue_hw_setup(q);
	tc_queue_settle(q, TC_SETTLE_REQUEUE);
}

static void tc_fault_work(struct work_struct *work)
{
	struct tc_device *tdev = container_of(work, struct tc_device, fault_work);
	unsigned int i;
	bool cookie;
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx))
		return;
	mutex_lock(&tdev->reset_lock);
	cookie = dma_fence_begin_signalling();
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		if (!test_and_clear_bit(i, &tdev->fault_queues) ||
		    READ_ONCE(tdev->wedged))
			continue;
		mutex_lock(&q->lock);
		/* an engine reset since the interrupt has settled it */
		if (tc_q_readl(q, TC_Q_STATUS) & TC_Q_STATUS_HALTED)
			tc_queue_recover(q);
		mutex_unlock(&q->lock);
	}
	dma_fence_end_signalling(cookie);
	mutex_unlock(&tdev->reset_lock);
	drm_dev_exit(idx);
}

/**
 * tc_queue_fault() - the engine halted a queue: recover it on the reset
 *	workqueue
 * @q: queue
 */
void tc_queue_fault(struct tc_queue *q)
{
	struct tc_device *tdev = q->tdev;

	set_bit(q->idx, &tdev->fault_queues);
	queue_work(tdev->reset_wq, &tdev->fault_work);
}

static void tc_reset_work(struct work_struct *work)
{
	struct tc_device *tdev = container_of(work, struct tc_device, reset_work);

	tdev->reset_ret = tc_device_reset(tdev, NULL);
}

/**
 * tc_device_reset_forced() - reset the engine now (debugfs), on the reset
 *	workqueue like every reset
 * @tdev: device
 *
 * Return: 0, -EIO if the device is or became wedged, -ENODEV.
 */
int tc_device_reset_forced(struct tc_device *tdev)
{
	int ret;

	mutex_lock(&tdev->debugfs_lock);
	queue_work(tdev->reset_wq, &tdev->reset_work);
	flush_work(&tdev->reset_work);
	ret = tdev->reset_ret;
	mutex_unlock(&tdev->debugfs_lock);
	return ret;
}

/**
 * tc_device_reset_init() - set up the reset work items
 * @tdev: device
 */
void tc_device_reset_init(struct tc_device *tdev)
{
	INIT_WORK(&tdev->fault_work, tc_fault_work);
	INIT_WORK(&tdev->reset_work, tc_reset_work);
}

/**
 * tc_device_cancel_all() - stop the engine and settle every job on it
 * @tdev: device being removed, after drm_dev_unplug()
 *
 * No reset runs any more: drm_dev_unplug() waited for those inside their
 * drm_dev_enter() section, later ones find the device gone. Jobs the
 * engine completed complete, started ones fail with RESET, the others are
 * cancelled if the engine stopped and reset, else they fail with RESET
 * too (they may have run). Bus mastering is off before any fence signals
 * (tc_device_fini()), and before devres frees the rings. Jobs not yet on
 * the engine fail when the scheduler runs them.
 */
void tc_device_cancel_all(struct tc_device *tdev)
{
	bool stopped, quiet, cookie;
	unsigned int i;

	mutex_lock(&tdev->reset_lock);
	cookie = dma_fence_begin_signalling();
	tc_device_irq_enable(tdev, false);
	stopped = !READ_ONCE(tdev->wedged) && !tc_device_hw_stop(tdev);
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_sort(q, NULL, stopped);
		mutex_unlock(&q->lock);
	}
	/* a STOP that timed out left no job unknown (all RESET): see sort */
	quiet = !tc_device_fini(tdev);
	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		mutex_lock(&q->lock);
		tc_queue_settle(q, quiet ? TC_SETTLE_CANCEL : TC_SETTLE_MAY_HAVE_RUN);
		mutex_unlock(&q->lock);
	}
	tc_device_irq_enable(tdev, true);
	dma_fence_end_signalling(cookie);
	mutex_unlock(&tdev->reset_lock);
}
