/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_MMU_H__
#define __TILECOPY_MMU_H__

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <drm/drm_mm.h>

struct tc_device;

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
 * struct tc_mmu_ctx - a device address space: one per open file.
 * @ref: references (the file, each mapping, each job).
 * @tdev: device.
 * @slot: engine MMU context index, written into every ring entry.
 * @lock: protects @mm and the tables.
 * @mm: allocator of the VA range [TC_VA_START, TC_VA_END).
 * @root: level-1 table.
 */
struct tc_mmu_ctx {
	struct kref ref;
	struct tc_device *tdev;
	unsigned int slot;
	struct mutex lock;	/* @mm and tables */
	struct drm_mm mm;
	struct tc_pt root;
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

int tc_mmu_map(struct tc_mmu_ctx *ctx, struct drm_mm_node *node,
	       struct sg_table *sgt, u64 size, bool writable);
void tc_mmu_unmap(struct tc_mmu_ctx *ctx, struct drm_mm_node *node);

#endif /* __TILECOPY_MMU_H__ */
