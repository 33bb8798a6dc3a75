/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_DRV_H__
#define __TILECOPY_DRV_H__

#include <linux/mutex.h>
#include <linux/xarray.h>
#include <drm/drm_file.h>
#include <drm/gpu_scheduler.h>

#include "tilecopy_device.h"

struct tc_mmu_ctx;

/**
 * struct tc_file - state of one open file.
 * @tdev: device.
 * @ctx: the file's device address space and MMU context.
 * @submit_lock: serialises job arming and pushing to the entities.
 * @entities: one scheduler entity per hardware queue.
 * @jobs: job id -> struct tc_job_result, until WAIT reaps it.
 * @next_job_id: cursor for cyclic job id allocation.
 * @num_results: entries in @jobs, at most TC_MAX_RESULTS.
 */
struct tc_file {
	struct tc_device *tdev;
	struct tc_mmu_ctx *ctx;
	struct mutex submit_lock;	/* arm + push order */
	struct drm_sched_entity entities[TC_MAX_QUEUES];
	struct xarray jobs;
	u32 next_job_id;
	atomic_t num_results;
};

/*
 * Statuses a file may leave unreaped (about 300 bytes each with the
 * scheduler fence they keep): SUBMIT fails with -EBUSY beyond this.
 */
#define TC_MAX_RESULTS		65536

static inline struct tc_file *to_tc_file(struct drm_file *file)
{
	return file->driver_priv;
}

#endif /* __TILECOPY_DRV_H__ */
