/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_MMU_H__
#define __TILECOPY_MMU_H__

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/scatterlist.h>
#include <drm/drm_mm.h>

#include "tilecopy_device.h"

/**
 * struct tc_pt - one 4 KiB page table and, above the last level, its
 * children.
 * @cpu: CPU address of the 512 entries.
 * @dma: bus address the engine walks.
 * @child: next-level tables by index (levels 1 and 2 only).
 */
struct tc_pt {
	__le64 *cpu;
	dma_addr_t dma;
	struct tc_pt **child;
};

/**
 * struct tc_mmu_ctx - a device address space: one per open file, with the
 * file's accounting (jobs outlive their file and hold the context).
 * @ref: references (the file, each mapping, each job).
 * @tdev: device.
 * @slot: engine MMU context the address space runs in, or -1: given when
 *	a job goes to the engine, taken back when another address space needs
 *	it and none of this one's jobs is on the engine (tc_mmu_slot_get()).
 *	Under &tc_device.slot_lock; read locklessly only for TLB flushes.
 * @slot_jobs: jobs on the engine that run in @slot.
 * @slot_stamp: when @slot was last given, for least-recently-used reuse.
 * @jobs: jobs submitted and not yet freed (TC_FILE_MAX_JOBS).
 * @desc_bytes: descriptor memory of those jobs (TC_FILE_MAX_DESC_BYTES).
 * @hangs: jobs of this file that hung the engine (TC_BAN_HANGS).
 * @lock: protects @mm, the tables and @gone.
 * @mm: allocator of the VA range [TC_VA_START, TC_VA_END).
 * @root: level-1 table.
 * @gone: the device was removed and the tables freed with it
 *	(tc_mmu_dma_release()): @mm still holds the ranges of live mappings.
 * @link: entry in &tc_device.dma_ctxs.
 * @pool_lock: protects @pool_free and @pool_slots.
 * @pool_free: descriptor slots of small jobs (struct tc_job_descs, one
 *	page each, TC_DESC_POOL_SLOTS at most) that no job uses: DMA- and
 *	MMU-mapped once, when first needed, and kept until the context goes.
 *	A job gives its slot back when it is freed, once the engine is done
 *	with it, as it would free descriptors of its own.
 * @pool_slots: slots allocated, free or used by a job.
 */
struct tc_mmu_ctx {
	struct kref ref;
	struct tc_device *tdev;
	int slot;
	atomic_t slot_jobs;
	u64 slot_stamp;
	atomic_t jobs;
	atomic64_t desc_bytes;
	atomic_t hangs;
	struct mutex lock;	/* @mm and tables */
	struct drm_mm mm;
	struct tc_pt root;
	bool gone;
	struct list_head link;
	spinlock_t pool_lock;	/* @pool_free, @pool_slots */
	struct list_head pool_free;
	unsigned int pool_slots;
};

struct tc_mmu_ctx *tc_mmu_ctx_create(struct tc_device *tdev);
void tc_mmu_ctx_release(struct kref *ref);

static inline struct tc_mmu_ctx *tc_mmu_ctx_get(struct tc_mmu_ctx *ctx)
{
	kref_get(&ctx->ref);
	return ctx;
}

static inline void tc_mmu_ctx_put(struct tc_mmu_ctx *ctx)
{
	kref_put(&ctx->ref, tc_mmu_ctx_release);
}

int tc_mmu_slot_get(struct tc_device *tdev, struct tc_mmu_ctx *ctx);
void tc_mmu_slot_release(struct tc_device *tdev, struct tc_mmu_ctx *ctx);
void tc_mmu_slots_restore(struct tc_device *tdev);
unsigned int tc_mmu_slots_used(struct tc_device *tdev);

int tc_mmu_map(struct tc_mmu_ctx *ctx, struct drm_mm_node *node,
	       struct sg_table *sgt, u64 size, bool writable);
void tc_mmu_unmap(struct tc_mmu_ctx *ctx, struct drm_mm_node *node);
void tc_mmu_dma_release(struct tc_device *tdev);

static inline bool tc_mmu_ctx_banned(struct tc_mmu_ctx *ctx)
{
	return atomic_read(&ctx->hangs) >= TC_BAN_HANGS;
}

#endif /* __TILECOPY_MMU_H__ */
