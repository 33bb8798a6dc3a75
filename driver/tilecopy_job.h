/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_JOB_H__
#define __TILECOPY_JOB_H__

#include <linux/dma-fence.h>
#include <linux/interrupt.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/scatterlist.h>
#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>

struct tc_bo_map;
struct tc_device;
struct tc_file;
struct tc_mmu_ctx;
struct tc_queue;

/**
 * struct tc_fence - fence of a job on the engine.
 * @base: the fence.
 * @lock: its lock.
 */
struct tc_fence {
	struct dma_fence base;
	spinlock_t lock;	/* of @base */
};

/**
 * struct tc_job_result - what WAIT reports about a job.
 * @ref: the file's job table and the job each hold one.
 * @lock: protects @done.
 * @done: the job's scheduler "finished" fence, until the job is freed
 *	(tc_job_result_finished()): then NULL, and @status is final. A status
 *	nobody waited for pins no fence.
 * @status: &enum drm_tilecopy_status, final once @done signalled.
 * @err_desc: failing descriptor index, or DRM_TILECOPY_ERR_DESC_NONE.
 * @err_addr: faulting device VA.
 */
struct tc_job_result {
	struct kref ref;
	spinlock_t lock;	/* @done */
	struct dma_fence *done;
	u32 status;
	u32 err_desc;
	u64 err_addr;
};

/**
 * struct tc_job_descs - a job's descriptors, where the engine reads them.
 * @cpu: the validated copy (vmalloc, charged to the submitter's memcg):
 *	the submitter cannot change it after the checks. With @wide false,
 *	packed 192 bytes apart once checked (no longer an array of structs).
 * @bytes: bytes allocated, whole pages.
 * @pooled: a slot of the address space's descriptor pool
 *	(&tc_mmu_ctx.pool_free), allocated and mapped once and used by one
 *	job at a time; else the job's own, mapped for it and freed with it.
 * @pool_link: entry in &tc_mmu_ctx.pool_free while no job uses the slot.
 * @wide: the engine reads struct drm_tilecopy_desc of 256 bytes
 *	(TC_RING_F_DESC_256, an engine with TC_CAP_CONVERT); else the first
 *	192 bytes of each, 192 apart (an engine of version 1.1).
 * @sgt: its pages, DMA-mapped.
 * @node: their VA range in the job's address space, mapped read-only: the
 *	engine fetches them through its MMU (TC_RING_F_DESC_VA), so no
 *	physically contiguous memory is needed for a large job.
 * @dma_mapped: @sgt is mapped, and on &tc_device.dma_jobs through @link;
 *	cleared by whichever of the job's free and the device's removal
 *	unmaps it (under &tc_device.dma_lock).
 * @va_mapped: @node is allocated and mapped.
 * @link: entry in &tc_device.dma_jobs.
 */
struct tc_job_descs {
	struct drm_tilecopy_desc *cpu;
	size_t bytes;
	bool pooled;
	struct list_head pool_link;
	bool wide;
	struct sg_table sgt;
	struct drm_mm_node node;
	bool dma_mapped;
	bool va_mapped;
	struct list_head link;
};

/**
 * struct tc_job_outcome - what a reset found out about a job.
 * @known: the engine is done with the job; the fields below say how.
 * @status: &enum drm_tilecopy_status.
 * @err_desc: failing descriptor, or DRM_TILECOPY_ERR_DESC_NONE.
 * @err_addr: faulting VA.
 * @error: fence error.
 */
struct tc_job_outcome {
	bool known;
	u32 status;
	u32 err_desc;
	u64 err_addr;
	int error;
};

/**
 * struct tc_job - one submitted job.
 * @base: scheduler job.
 * @tdev: device.
 * @queue: hardware queue.
 * @ctx: address space the descriptors' VAs belong to (and the file's
 *	accounting: @charged).
 * @maps: mappings of the job's BOs, held until the job is freed; each
 *	holds a reference to its GEM object too.
 * @map_count: entries of @maps.
 * @descs: the descriptors: a pool slot or the job's own (NULL before
 *	SUBMIT copied them).
 * @desc_bytes: descriptor memory charged to the context (whole pages).
 * @desc_count: descriptors.
 * @bytes: bytes the job writes (for the bytes-moved counter).
 * @elems: elements the job writes (the work bound).
 * @written: bit i set if a descriptor writes through @maps[i].
 * @charged: counted in the context's descriptor-memory total, until freed.
 * @counted: counted in the context's job total, until finished.
 * @slot_held: run_job() took a reference on the context's engine slot.
 * @in_fences: the fences of the job's in-syncobjs, as they were at SUBMIT
 *	(references held until the job is freed): one that ended with an
 *	error cancels the job (run_job).
 * @in_count: entries of @in_fences.
 * @result: status for WAIT.
 * @fence: the hardware fence, allocated at submission, initialised by
 *	run_job (then NULL here: @hw_fence holds it).
 * @hw_fence: signalled when the engine finished the job (or it failed).
 * @seqno: ring sequence number, the seqno of @hw_fence.
 * @link: entry in &tc_queue.active while the engine owns the job.
 * @outcome: set by a reset that stopped the engine, applied once the
 *	reset's own outcome is known (tilecopy_reset.c).
 * @reap: entry in &tc_device.reap_list once the scheduler let it go.
 */
struct tc_job {
	struct drm_sched_job base;
	struct tc_device *tdev;
	struct tc_queue *queue;
	struct tc_mmu_ctx *ctx;
	struct tc_bo_map **maps;
	u32 map_count;
	struct tc_job_descs *descs;
	u64 desc_bytes;
	u32 desc_count;
	u64 bytes;
	u64 elems;
	u64 written;
	bool charged;
	bool counted;
	bool slot_held;
	struct dma_fence **in_fences;
	u32 in_count;
	struct tc_job_result *result;
	struct tc_fence *fence;
	struct dma_fence *hw_fence;
	u64 seqno;
	struct list_head link;
	struct tc_job_outcome outcome;
	struct llist_node reap;
};

/* tilecopy_job.c: the ring, the scheduler backend, completions */
/* bytes of a queue's scheduler and IRQ name */
#define TC_SCHED_NAME_LEN	32

int tc_sched_store_alloc(struct tc_device *tdev);
void tc_sched_stores_free(void);
int tc_queue_sched_init(struct tc_queue *q);
void tc_queue_sched_fini(struct tc_queue *q);
irqreturn_t tc_queue_irq(int irq, void *data);
void tc_queue_done(struct tc_queue *q);
void tc_queue_resubmit(struct tc_queue *q);
void tc_job_finish(struct tc_queue *q, struct tc_job *job, u32 status,
		   u32 err_desc, u64 err_addr, int error);
void tc_job_free(struct tc_job *job);
bool tc_job_deps_failed(const struct tc_job *job);
void tc_job_result_put(struct tc_job_result *res);
void tc_job_result_finished(struct tc_job_result *res);
void tc_device_jobs_init(struct tc_device *tdev);
void tc_device_jobs_drain(struct tc_device *tdev);
void tc_jobs_dma_release(struct tc_device *tdev);
void tc_job_descs_free(struct tc_device *tdev, struct tc_mmu_ctx *ctx,
		       struct tc_job_descs *d);
void tc_desc_pool_fini(struct tc_mmu_ctx *ctx);
u64 tc_job_timeout_ns(void);

/* tilecopy_reset.c: hangs, faults, forced resets, wedging, removal */
enum drm_gpu_sched_stat tc_sched_timedout_job(struct drm_sched_job *sched_job);
void tc_device_reset_init(struct tc_device *tdev);
void tc_queue_fault(struct tc_queue *q);
int tc_device_reset_forced(struct tc_device *tdev);
void tc_device_cancel_all(struct tc_device *tdev);

/* tilecopy_submit.c */
void tc_file_jobs_init(struct tc_file *tfile);
void tc_file_jobs_fini(struct tc_file *tfile);
int tc_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file);
int tc_ioctl_wait(struct drm_device *dev, void *data, struct drm_file *file);

#endif /* __TILECOPY_JOB_H__ */
