// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tilecopy_device.h"
#include "tilecopy_mmu.h"

/* Level shifts of the 39-bit VA: L1 VA[38:30], L2 VA[29:21], L3 VA[20:12]. */
#define TC_L1_SHIFT	30
#define TC_L2_SHIFT	21
#define TC_L3_SHIFT	12
#define TC_PT_INDEX(va, shift)	(((va) >> (shift)) & (TC_PT_ENTRIES - 1))

/*
 * One unmapped page after every buffer: an engine that runs past the end
 * of a buffer faults instead of touching the next one.
 */
#define TC_GUARD_SIZE	TC_PAGE_SIZE

/*
 * The engine's pages are 4 KiB whatever the CPU's: a 16 KiB or 64 KiB
 * kernel page (arm64) is mapped as 4 or 16 consecutive PTEs, and BOs,
 * being whole CPU pages, are whole engine pages.
 */
static_assert(PAGE_SIZE % TC_PAGE_SIZE == 0);

static int tc_pt_alloc(struct tc_device *tdev, struct tc_pt *pt, bool parent)
{
	pt->cpu = dma_alloc_coherent(&tdev->pdev->dev, TC_PAGE_SIZE, &pt->dma,
				     GFP_KERNEL);
	if (!pt->cpu)
		return -ENOMEM;
	if (parent) {
		pt->child = kcalloc(TC_PT_ENTRIES, sizeof(*pt->child), GFP_KERNEL);
		if (!pt->child) {
			dma_free_coherent(&tdev->pdev->dev, TC_PAGE_SIZE, pt->cpu,
					  pt->dma);
			return -ENOMEM;
		}
	}
	return 0;
}

static void tc_pt_free(struct tc_device *tdev, struct tc_pt *pt)
{
	unsigned int i;

	if (pt->child) {
		for (i = 0; i < TC_PT_ENTRIES; i++) {
			if (pt->child[i]) {
				tc_pt_free(tdev, pt->child[i]);
				kfree(pt->child[i]);
			}
		}
		kfree(pt->child);
	}
	dma_free_coherent(&tdev->pdev->dev, TC_PAGE_SIZE, pt->cpu, pt->dma);
}

static struct tc_pt *tc_pt_child(struct tc_mmu_ctx *ctx, struct tc_pt *pt,
				 unsigned int idx, bool parent)
{
	struct tc_pt *child = pt->child[idx];
	int ret;

	if (child)
		return child;
	child = kzalloc(sizeof(*child), GFP_KERNEL);
	if (!child)
		return NULL;
	ret = tc_pt_alloc(ctx->tdev, child, parent);
	if (ret) {
		kfree(child);
		return NULL;
	}
	pt->child[idx] = child;
	pt->cpu[idx] = cpu_to_le64((child->dma & TC_PTE_ADDR_MASK) | TC_PTE_VALID);
	return child;
}

/* Level-3 entry of @va; tables on the way are allocated if @alloc. */
static __le64 *tc_mmu_pte(struct tc_mmu_ctx *ctx, u64 va, bool alloc)
{
	struct tc_pt *l2, *l3;
	unsigned int i1 = TC_PT_INDEX(va, TC_L1_SHIFT);
	unsigned int i2 = TC_PT_INDEX(va, TC_L2_SHIFT);

	l2 = alloc ? tc_pt_child(ctx, &ctx->root, i1, true) : ctx->root.child[i1];
	if (!l2)
		return NULL;
	l3 = alloc ? tc_pt_child(ctx, l2, i2, false) : l2->child[i2];
	if (!l3)
		return NULL;
	return &l3->cpu[TC_PT_INDEX(va, TC_L3_SHIFT)];
}

static void tc_mmu_clear(struct tc_mmu_ctx *ctx, u64 va, u64 size)
{
	u64 end = va + size;
	__le64 *pte;

	for (; va < end; va += TC_PAGE_SIZE) {
		pte = tc_mmu_pte(ctx, va, false);
		if (pte)
			*pte = 0;
	}
}

static void tc_mmu_invalidate(struct tc_mmu_ctx *ctx)
{
	struct tc_device *tdev = ctx->tdev;
	int idx;

	/* Table writes must be visible before the engine walks again. */
	wmb();
	if (drm_dev_enter(&tdev->base, &idx)) {
		tc_writel(tdev, TC_REG_MMU_INVALIDATE, ctx->slot);
		drm_dev_exit(idx);
	}
}

/**
 * tc_mmu_map() - give a buffer a device VA range and map it
 * @ctx: address space
 * @node: Output, the VA range
 * @sgt: DMA-mapped pages of the buffer
 * @size: bytes to map, a multiple of the page size
 * @writable: whether the engine may write the buffer
 *
 * Return: 0 or a negative error code.
 */
int tc_mmu_map(struct tc_mmu_ctx *ctx, struct drm_mm_node *node,
	       struct sg_table *sgt, u64 size, bool writable)
{
	u64 flags = TC_PTE_VALID | TC_PTE_READ | (writable ? TC_PTE_WRITE : 0);
	struct scatterlist *sg;
	u64 va, mapped = 0;
	unsigned int i;
	int ret;

	mutex_lock(&ctx->lock);
	ret = drm_mm_insert_node_generic(&ctx->mm, node, size + TC_GUARD_SIZE,
					 TC_PAGE_SIZE, 0, DRM_MM_INSERT_BEST);
	if (ret)
		goto out_unlock;

	va = node->start;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		dma_addr_t addr = sg_dma_address(sg);
		u64 len = sg_dma_len(sg);

		/* An imported buffer may come in pieces the MMU cannot map. */
		if ((addr | len) & (TC_PAGE_SIZE - 1)) {
			ret = -EINVAL;
			goto err_clear;
		}
		for (; len && mapped < size; len -= TC_PAGE_SIZE) {
			__le64 *pte = tc_mmu_pte(ctx, va + mapped, true);

			if (!pte) {
				ret = -ENOMEM;
				goto err_clear;
			}
			*pte = cpu_to_le64((addr & TC_PTE_ADDR_MASK) | flags);
			addr += TC_PAGE_SIZE;
			mapped += TC_PAGE_SIZE;
		}
	}
	if (mapped != size) {
		ret = -EINVAL;
		goto err_clear;
	}
	/* The VA range may have been used before: drop stale TLB entries. */
	tc_mmu_invalidate(ctx);
	mutex_unlock(&ctx->lock);
	return 0;

err_clear:
	tc_mmu_clear(ctx, va, mapped);
	drm_mm_remove_node(node);
out_unlock:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * tc_mmu_unmap() - unmap a buffer and free its VA range
 * @ctx: address space
 * @node: the VA range from tc_mmu_map()
 *
 * The engine's TLB is invalidated before the range can be used again, and
 * before the caller lets the pages go.
 */
void tc_mmu_unmap(struct tc_mmu_ctx *ctx, struct drm_mm_node *node)
{
	mutex_lock(&ctx->lock);
	tc_mmu_clear(ctx, node->start, node->size - TC_GUARD_SIZE);
	tc_mmu_invalidate(ctx);
	drm_mm_remove_node(node);
	mutex_unlock(&ctx->lock);
}

/**
 * tc_mmu_ctx_create() - create an address space and take an engine context
 * @tdev: device
 *
 * Return: the context, ERR_PTR(-EBUSY) when every engine context is taken,
 * or another ERR_PTR.
 */
struct tc_mmu_ctx *tc_mmu_ctx_create(struct tc_device *tdev)
{
	struct tc_mmu_ctx *ctx;
	int ret, idx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	kref_init(&ctx->ref);
	ctx->tdev = tdev;
	mutex_init(&ctx->lock);
	ret = tc_pt_alloc(tdev, &ctx->root, true);
	if (ret)
		goto err_free;

	mutex_lock(&tdev->ctx_lock);
	ctx->slot = find_first_zero_bit(tdev->ctx_slots, TC_NUM_CONTEXTS);
	if (ctx->slot >= TC_NUM_CONTEXTS) {
		mutex_unlock(&tdev->ctx_lock);
		drm_dbg(&tdev->base, "all %u MMU contexts in use\n", TC_NUM_CONTEXTS);
		ret = -EBUSY;
		goto err_free_root;
	}
	__set_bit(ctx->slot, tdev->ctx_slots);
	tdev->ctx_roots[ctx->slot] = ctx->root.dma;
	if (drm_dev_enter(&tdev->base, &idx)) {
		tc_device_ctx_root_write(tdev, ctx->slot, ctx->root.dma);
		drm_dev_exit(idx);
	}
	mutex_unlock(&tdev->ctx_lock);

	drm_mm_init(&ctx->mm, TC_VA_START, TC_VA_END - TC_VA_START);
	return ctx;

err_free_root:
	tc_pt_free(tdev, &ctx->root);
err_free:
	mutex_destroy(&ctx->lock);
	kfree(ctx);
	return ERR_PTR(ret);
}

/**
 * tc_mmu_ctx_release() - free an address space once nothing uses it
 * @ref: its reference count
 *
 * Every mapping and job holds a reference, so the engine no longer uses
 * the tables: the context slot is disabled and the tables freed.
 */
void tc_mmu_ctx_release(struct kref *ref)
{
	struct tc_mmu_ctx *ctx = container_of(ref, struct tc_mmu_ctx, ref);
	struct tc_device *tdev = ctx->tdev;
	int idx;

	mutex_lock(&tdev->ctx_lock);
	if (drm_dev_enter(&tdev->base, &idx)) {
		tc_device_ctx_root_write(tdev, ctx->slot, 0);
		drm_dev_exit(idx);
	}
	tdev->ctx_roots[ctx->slot] = 0;
	__clear_bit(ctx->slot, tdev->ctx_slots);
	mutex_unlock(&tdev->ctx_lock);

	WARN_ON(!drm_mm_clean(&ctx->mm));
	drm_mm_takedown(&ctx->mm);
	tc_pt_free(tdev, &ctx->root);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}
