// SPDX-License-Identifier: GPL-2.0-only
/*
 * WAIT: a job's status, kept for the file until a successful WAIT reaps it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/ktime.h>
#include <linux/slab.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_job.h"

/* ---- job results (WAIT) ------------------------------------------------- */

static void tc_job_result_release(struct kref *ref)
{
	struct tc_job_result *res = container_of(ref, struct tc_job_result, ref);

	if (res->done)
		dma_fence_put(res->done);
	kfree(res);
}

/**
 * tc_job_result_finished() - the job is freed: keep only its status
 * @res: status of a job whose scheduler fence has signalled (or that was
 *	never pushed), put here
 *
 * A status nobody reaped then holds no fence (nor the fence's memory,
 * which is not charged to the submitter), only itself.
 */
void tc_job_result_finished(struct tc_job_result *res)
{
	struct dma_fence *done;

	spin_lock(&res->lock);
	done = res->done;
	res->done = NULL;
	spin_unlock(&res->lock);
	if (done)
		dma_fence_put(done);
	tc_job_result_put(res);
}

/* A reference to the job's fence, or NULL once the job is freed. */
static struct dma_fence *tc_job_result_fence(struct tc_job_result *res)
{
	struct dma_fence *done;

	spin_lock(&res->lock);
	done = res->done ? dma_fence_get(res->done) : NULL;
	spin_unlock(&res->lock);
	return done;
}

/**
 * tc_job_result_put() - drop a reference to a job's status
 * @res: status
 */
void tc_job_result_put(struct tc_job_result *res)
{
	kref_put(&res->ref, tc_job_result_release);
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

/*
 * Jiffies until @deadline_ns (absolute CLOCK_MONOTONIC, signed: a
 * deadline in the past, negative ones too, is 0: one check, no wait).
 */
static long tc_wait_jiffies(s64 deadline_ns, s64 now)
{
	if (deadline_ns <= now)
		return 0;
	/* no overflow: both are signed 64-bit and now >= 0 */
	return min_t(u64, nsecs_to_jiffies64(deadline_ns - now) + 1,
		     MAX_SCHEDULE_TIMEOUT);
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
	struct dma_fence *done;
	long ret = 1;

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
	done = tc_job_result_fence(res);	/* NULL: finished and freed */
	while (done) {
		s64 now = ktime_get_ns();

		ret = dma_fence_wait_timeout(done, true,
					     tc_wait_jiffies(args->timeout_ns, now));
		if (ret || dma_fence_is_signaled(done) ||
		    (s64)ktime_get_ns() >= args->timeout_ns)
			break;
	}
	if (done && ret == 0 && !dma_fence_is_signaled(done)) {
		args->status = DRM_TILECOPY_STATUS_PENDING;
		args->err_desc = DRM_TILECOPY_ERR_DESC_NONE;
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
	if (done)
		dma_fence_put(done);
	tc_job_result_put(res);
	return ret;
}

/**
 * tc_file_jobs_init() - set up a file's job table
 * @tfile: file
 */
void tc_file_jobs_init(struct tc_file *tfile)
{
	xa_init_flags(&tfile->jobs, XA_FLAGS_ALLOC1);
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
