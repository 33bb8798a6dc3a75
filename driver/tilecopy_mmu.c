// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tilecopy_device.h"
#include "tilecopy_job.h"
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

/*
 * Tables are charged to the memory cgroup of the task that maps, as the
 * file's other memory is, where the DMA layer takes them from the page
 * allocator (dma-direct and dma-iommu pass __GFP_ACCOUNT on; a device's
 * own coherent pool or CMA area does not). Nothing else bounds them for
 * userptr BOs under CAP_IPC_LOCK or an unlimited RLIMIT_MEMLOCK: any
 * number of BOs may map the same pinned pages, each at its own device VA,
 * one table per 2 MiB of it.
 */
static int tc_pt_alloc(struct tc_device *tdev, struct tc_pt *pt, bool parent)
{
	pt->cpu = dma_alloc_coherent(&tdev->pdev->dev, TC_PAGE_SIZE, &pt->dma,
				     GFP_KERNEL_ACCOUNT);
	if (!pt->cpu)
		return -ENOMEM;
	if (parent) {
		pt->child = kcalloc(TC_PT_ENTRIES, sizeof(*pt->child), GFP_KERNEL_ACCOUNT);
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
	child = kzalloc(sizeof(*child), GFP_KERNEL_ACCOUNT);
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
	int slot = READ_ONCE(ctx->slot);
	int idx;

	/* Table writes must be visible before the engine walks again. */
	wmb();
	/*
	 * Without a slot the engine holds no translation of this space. A
	 * slot taken away meanwhile makes this flush another context's TLB
	 * entries: harmless.
	 */
	if (slot >= 0 && drm_dev_enter(&tdev->base, &idx)) {
		tc_writel(tdev, TC_REG_MMU_INVALIDATE, slot);
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
 * Return: 0, -ENODEV (the device is gone) or a negative error code.
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
	if (ctx->gone) {
		ret = -ENODEV;
		goto out_unlock;
	}
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
	if (!ctx->gone) {
		tc_mmu_clear(ctx, node->start, node->size - TC_GUARD_SIZE);
		tc_mmu_invalidate(ctx);
	}
	drm_mm_remove_node(node);
	mutex_unlock(&ctx->lock);
}

/* ---- engine MMU contexts ------------------------------------------------ */

static void tc_mmu_root_write(struct tc_device *tdev, unsigned int slot,
			      dma_addr_t root)
{
	tc_writel(tdev, TC_REG_CTX_ROOT_LO(slot), lower_32_bits(root));
	tc_writel(tdev, TC_REG_CTX_ROOT_HI(slot), upper_32_bits(root));
	tc_writel(tdev, TC_REG_MMU_INVALIDATE, slot);
}

/* A slot to take: a free one, else the least recently used idle one. */
static int tc_mmu_slot_pick(struct tc_device *tdev)
{
	int slot, best = -1;

	lockdep_assert_held(&tdev->slot_lock);
	for (slot = 0; slot < TC_NUM_CONTEXTS; slot++) {
		struct tc_mmu_ctx *owner = tdev->slot_owner[slot];

		if (!owner)
			return slot;
		if (atomic_read(&owner->slot_jobs))
			continue;
		if (best < 0 ||
		    owner->slot_stamp < tdev->slot_owner[best]->slot_stamp)
			best = slot;
	}
	return best;
}

/**
 * tc_mmu_slot_get() - give an address space an engine MMU context for
 *	one more job on the engine
 * @tdev: device, inside drm_dev_enter()
 * @ctx: address space of the job
 *
 * The engine has TC_NUM_CONTEXTS contexts and any number of files may be
 * open: a context belongs to an address space only while it has jobs on
 * the engine, then may go to another one (least recently used first). The
 * schedulers' credits keep the jobs on the engine below TC_NUM_CONTEXTS,
 * so one is always free or idle. Balanced by the job's completion, which
 * decrements &tc_mmu_ctx.slot_jobs.
 *
 * Return: 0, or -EBUSY if every context has jobs on the engine (a broken
 * invariant).
 */
int tc_mmu_slot_get(struct tc_device *tdev, struct tc_mmu_ctx *ctx)
{
	int slot;

	mutex_lock(&tdev->slot_lock);
	if (ctx->slot < 0) {
		slot = tc_mmu_slot_pick(tdev);
		if (drm_WARN_ON_ONCE(&tdev->base, slot < 0)) {
			mutex_unlock(&tdev->slot_lock);
			return -EBUSY;
		}
		if (tdev->slot_owner[slot])
			WRITE_ONCE(tdev->slot_owner[slot]->slot, -1);
		tdev->slot_owner[slot] = ctx;
		WRITE_ONCE(ctx->slot, slot);
		tc_mmu_root_write(tdev, slot, ctx->root.dma);
	}
	atomic_inc(&ctx->slot_jobs);
	ctx->slot_stamp = ++tdev->slot_clock;
	mutex_unlock(&tdev->slot_lock);
	return 0;
}

/**
 * tc_mmu_slot_release() - an address space goes away: free its context
 * @tdev: device
 * @ctx: address space without jobs
 */
void tc_mmu_slot_release(struct tc_device *tdev, struct tc_mmu_ctx *ctx)
{
	int idx;

	mutex_lock(&tdev->slot_lock);
	if (ctx->slot >= 0) {
		tdev->slot_owner[ctx->slot] = NULL;
		if (drm_dev_enter(&tdev->base, &idx)) {
			tc_mmu_root_write(tdev, ctx->slot, 0);
			drm_dev_exit(idx);
		}
		WRITE_ONCE(ctx->slot, -1);
	}
	mutex_unlock(&tdev->slot_lock);
}

/**
 * tc_mmu_slots_restore() - point every given engine context at its tables
 * again
 * @tdev: device, after an engine reset cleared the roots
 */
void tc_mmu_slots_restore(struct tc_device *tdev)
{
	unsigned int slot;

	mutex_lock(&tdev->slot_lock);
	for (slot = 0; slot < TC_NUM_CONTEXTS; slot++) {
		if (tdev->slot_owner[slot])
			tc_mmu_root_write(tdev, slot, tdev->slot_owner[slot]->root.dma);
	}
	mutex_unlock(&tdev->slot_lock);
}

/**
 * tc_mmu_slots_used() - engine MMU contexts given to address spaces
 * @tdev: device
 *
 * Return: the count.
 */
unsigned int tc_mmu_slots_used(struct tc_device *tdev)
{
	unsigned int slot, n = 0;

	mutex_lock(&tdev->slot_lock);
	for (slot = 0; slot < TC_NUM_CONTEXTS; slot++)
		n += !!tdev->slot_owner[slot];
	mutex_unlock(&tdev->slot_lock);
	return n;
}

/* ---- address spaces ---------------------------------------------------- */

/**
 * tc_mmu_ctx_create() - create an address space
 * @tdev: device
 *
 * The space gets one of the engine's MMU contexts only while its jobs are
 * on the engine (tc_device_slot_get()): any number of files can be open.
 *
 * Return: the context, ERR_PTR(-ENODEV) if the device is gone or
 * ERR_PTR(-ENOMEM).
 */
struct tc_mmu_ctx *tc_mmu_ctx_create(struct tc_device *tdev)
{
	struct tc_mmu_ctx *ctx;
	int ret, idx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return ERR_PTR(-ENOMEM);
	kref_init(&ctx->ref);
	ctx->tdev = tdev;
	ctx->slot = -1;
	mutex_init(&ctx->lock);
	spin_lock_init(&ctx->pool_lock);
	INIT_LIST_HEAD(&ctx->pool_free);
	/* listed before the removal's drm_dev_unplug() returns, or never made */
	if (!drm_dev_enter(&tdev->base, &idx)) {
		ret = -ENODEV;
		goto err_free;
	}
	ret = tc_pt_alloc(tdev, &ctx->root, true);
	if (ret) {
		drm_dev_exit(idx);
		goto err_free;
	}
	drm_mm_init(&ctx->mm, TC_VA_START, TC_VA_END - TC_VA_START);
	mutex_lock(&tdev->dma_lock);
	list_add_tail(&ctx->link, &tdev->dma_ctxs);
	mutex_unlock(&tdev->dma_lock);
	drm_dev_exit(idx);
	return ctx;

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
 * the tables: the engine context is disabled and the tables freed.
 */
void tc_mmu_ctx_release(struct kref *ref)
{
	struct tc_mmu_ctx *ctx = container_of(ref, struct tc_mmu_ctx, ref);
	struct tc_device *tdev = ctx->tdev;

	tc_mmu_slot_release(tdev, ctx);
	tc_desc_pool_fini(ctx);
	WARN_ON(!drm_mm_clean(&ctx->mm));
	drm_mm_takedown(&ctx->mm);
	mutex_lock(&tdev->dma_lock);
	list_del(&ctx->link);
	mutex_unlock(&tdev->dma_lock);
	/* unlisted, the removal no longer frees them: it did if @gone */
	if (!ctx->gone)
		tc_pt_free(tdev, &ctx->root);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}

/**
 * tc_mmu_dma_release() - free the page tables of every address space
 * @tdev: device being removed, with &tc_device.dma_lock held
 *
 * The engine is stopped and no longer masters the bus. Mappings made
 * later fail (-ENODEV); unmapping only gives the VA range back.
 */
void tc_mmu_dma_release(struct tc_device *tdev)
{
	struct tc_mmu_ctx *ctx;

	lockdep_assert_held(&tdev->dma_lock);
	list_for_each_entry(ctx, &tdev->dma_ctxs, link) {
		mutex_lock(&ctx->lock);
		if (!ctx->gone) {
			tc_pt_free(tdev, &ctx->root);
			ctx->gone = true;
		}
		mutex_unlock(&ctx->lock);
	}
}
