/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_JOB_H__
#define __TILECOPY_JOB_H__

#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <drm/gpu_scheduler.h>

struct tc_bo_map;
/**
 * struct tc_fence - fence of a job on the engine.
 * @base: the fence.
 * @lock: its lock.
 */
struct tc_fence {
	struct dma_fence base;
	spinlock_t lock;	/* of @base */
};

struct tc_device;
struct tc_file;
struct tc_mmu_ctx;
struct tc_queue;

/**
 * struct tc_job_result - what WAIT reports about a job.
 * @ref: the file's job table and the job each hold one.
 * @done: the job's scheduler "finished" fence.
 * @status: &enum drm_tilecopy_status, final once @done signalled.
 * @err_desc: failing descriptor index.
 * @err_addr: faulting device VA.
 */
struct tc_job_result {
	struct kref ref;
	struct dma_fence *done;
	u32 status;
	u32 err_desc;
	u64 err_addr;
};

/**
 * struct tc_job - one submitted job.
 * @base: scheduler job.
 * @tdev: device.
 * @queue: hardware queue.
 * @ctx: address space the descriptors' VAs belong to.
 * @maps: mappings of the job's BOs, held until the job is freed.
 * @map_count: entries of @maps.
 * @descs: validated descriptors, in memory the engine reads.
 * @descs_dma: bus address of @descs.
 * @desc_count: descriptors.
 * @bytes: bytes the job writes (for the bytes-moved counter).
 * @written: bit i set if a descriptor writes through @maps[i].
 * @result: status for WAIT.
 * @fence: the hardware fence, allocated at submission, initialised by
 *	run_job (then NULL here: @hw_fence holds it).
 * @hw_fence: signalled when the engine finished the job (or it failed).
 * @seqno: ring sequence number, the seqno of @hw_fence.
 * @link: entry in &tc_queue.active while the engine owns the job.
 */
struct tc_job {
	struct drm_sched_job base;
	struct tc_device *tdev;
	struct tc_queue *queue;
	struct tc_mmu_ctx *ctx;
	struct tc_bo_map **maps;
	u32 map_count;
	struct drm_tilecopy_desc *descs;
	dma_addr_t descs_dma;
	u32 desc_count;
	u64 bytes;
	u64 written;
	struct tc_job_result *result;
	struct tc_fence *fence;
	struct dma_fence *hw_fence;
	u64 seqno;
	struct list_head link;
};

int tc_queue_sched_init(struct tc_queue *q);
void tc_queue_sched_fini(struct tc_queue *q);
irqreturn_t tc_queue_irq(int irq, void *data);
int tc_device_reset(struct tc_device *tdev, struct tc_job *guilty);
void tc_device_cancel_all(struct tc_device *tdev);

void tc_job_free(struct tc_job *job);
void tc_job_result_put(struct tc_job_result *res);

int tc_file_jobs_init(struct tc_file *tfile);
void tc_file_jobs_fini(struct tc_file *tfile);

int tc_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file);
int tc_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* __TILECOPY_JOB_H__ */
