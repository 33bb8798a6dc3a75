// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffer objects: GEM shmem objects, or pinned user pages (BO_USERPTR,
 * tilecopy_userptr.c), each mapped into the address space of every file
 * holding a handle to it.
 *
 * A file sees a BO through one struct tc_bo_map per (BO, address space):
 * each handle holds a reference, and so does every lookup
 * (tc_bo_map_lookup()), which also holds the GEM object: a handle closed by
 * another thread in the middle of an ioctl is then simply not found, and a
 * mapping in use is never torn down under its user.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/dma-buf.h>
#include <linux/dma-map-ops.h>	/* dev_is_dma_coherent(), see tc_gem_create_object() */
#include <linux/mm.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_mmu.h"

static void tc_bo_map_unlink(struct kref *ref)
{
	struct tc_bo_map *map = container_of(ref, struct tc_bo_map, ref);

	list_del(&map->link);
}

static void tc_bo_map_destroy(struct tc_bo_map *map)
{
	tc_mmu_unmap(map->ctx, &map->node);
	tc_mmu_ctx_put(map->ctx);
	kfree(map);
}

/* Drop a reference; the last one unmaps (TLB invalidated) and frees. */
static void tc_bo_map_put(struct tc_bo_map *map)
{
	struct tc_bo *bo = map->bo;
	bool last;

	mutex_lock(&bo->maps_lock);
	last = kref_put(&map->ref, tc_bo_map_unlink);
	mutex_unlock(&bo->maps_lock);
	if (last)
		tc_bo_map_destroy(map);
}

/* The mapping of @bo in @ctx with a reference taken, or NULL. */
static struct tc_bo_map *tc_bo_map_find(struct tc_bo *bo, struct tc_mmu_ctx *ctx)
{
	struct tc_bo_map *map, *found = NULL;

	mutex_lock(&bo->maps_lock);
	list_for_each_entry(map, &bo->maps, link) {
		if (map->ctx == ctx) {
			kref_get(&map->ref);
			found = map;
			break;
		}
	}
	mutex_unlock(&bo->maps_lock);
	return found;
}

/**
 * tc_bo_map_lookup() - a file's BO and its mapping, from a handle
 * @file: the file
 * @handle: GEM handle of @file
 *
 * One lookup for both: a handle that another thread closes meanwhile is not
 * found, never half found.
 *
 * Return: the mapping, holding a reference to itself and to its GEM object
 * (drop both with tc_bo_map_release()), or NULL.
 */
struct tc_bo_map *tc_bo_map_lookup(struct drm_file *file, u32 handle)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);
	struct tc_bo_map *map;

	if (!obj)
		return NULL;
	map = tc_bo_map_find(to_tc_bo(obj), to_tc_file(file)->ctx);
	if (!map)
		drm_gem_object_put(obj);	/* the handle was just closed */
	return map;
}

/**
 * tc_bo_map_release() - drop what tc_bo_map_lookup() took
 * @map: mapping
 */
void tc_bo_map_release(struct tc_bo_map *map)
{
	struct drm_gem_object *obj = &map->bo->base.base;

	tc_bo_map_put(map);
	drm_gem_object_put(obj);
}

/*
 * Live BOs are counted, and listed for the removal's unmapping, from the
 * moment their pages are DMA-mapped to their free: also when the first
 * address-space mapping then fails (out of memory, the VA space full),
 * since the pages stay DMA-mapped until the free, which may come after
 * the removal.
 */
static void tc_bo_count(struct tc_device *tdev, struct tc_bo *bo)
{
	mutex_lock(&bo->maps_lock);
	if (!bo->counted) {
		bo->counted = true;
		atomic64_inc(&tdev->stats.bos);
		atomic64_add(bo->base.base.size, &tdev->stats.bo_bytes);
		mutex_lock(&tdev->dma_lock);
		list_add_tail(&bo->dma_link, &tdev->dma_bos);
		mutex_unlock(&tdev->dma_lock);
	}
	mutex_unlock(&bo->maps_lock);
}

/*
 * The mapping of @bo in @ctx, made if there is none; with a reference.
 * The allocations happen outside @bo's lock.
 */
static struct tc_bo_map *tc_bo_map_add(struct tc_bo *bo, struct tc_mmu_ctx *ctx)
{
	struct drm_gem_object *obj = &bo->base.base;
	struct tc_device *tdev = to_tc_device(obj->dev);
	struct tc_bo_map *map, *other;
	struct sg_table *sgt;
	int ret, idx;

	map = tc_bo_map_find(bo, ctx);
	if (map)
		return map;

	/*
	 * The BO's pages get mapped to the device here: on its list before
	 * the removal's drm_dev_unplug() returns, or not at all.
	 */
	if (!drm_dev_enter(obj->dev, &idx))
		return ERR_PTR(-ENODEV);
	sgt = bo->userptr ? tc_userptr_sgt(bo) : drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt)) {
		map = ERR_CAST(sgt);
		goto out_exit;
	}
	tc_bo_count(tdev, bo);
	map = kzalloc(sizeof(*map), GFP_KERNEL_ACCOUNT);
	if (!map) {
		map = ERR_PTR(-ENOMEM);
		goto out_exit;
	}
	kref_init(&map->ref);
	map->bo = bo;
	map->writable = !(bo->flags & DRM_TILECOPY_BO_READ_ONLY);
	/* whole pages are mapped; a userptr BO is used from its first byte */
	ret = tc_mmu_map(ctx, &map->node, sgt, obj->size, map->writable);
	if (ret) {
		/* -EINVAL: an imported buffer not made of whole pages */
		drm_dbg(obj->dev, "cannot map a %zu-byte BO: %d\n", obj->size, ret);
		kfree(map);
		map = ERR_PTR(ret);
		goto out_exit;
	}
	map->va = map->node.start + (bo->userptr ? bo->userptr->offset : 0);
	map->size = bo->userptr ? bo->userptr->size : obj->size;
	map->ctx = tc_mmu_ctx_get(ctx);

	mutex_lock(&bo->maps_lock);
	list_for_each_entry(other, &bo->maps, link) {
		if (other->ctx == ctx) {
			/* made by another thread meanwhile: use that one */
			kref_get(&other->ref);
			mutex_unlock(&bo->maps_lock);
			tc_bo_map_destroy(map);
			map = other;
			goto out_exit;
		}
	}
	list_add_tail(&map->link, &bo->maps);
	mutex_unlock(&bo->maps_lock);
out_exit:
	drm_dev_exit(idx);
	return map;
}

/*
 * A handle is created: created (the mapping exists already, see
 * tc_ioctl_bo_create()), imported through PRIME (from this or another
 * device) or opened again. Each handle holds a reference to the BO's
 * mapping in the file's address space.
 *
 * A userptr BO stays with the file that made it, as it is never exported:
 * a GEM_OPEN of its flink name by another file (the primary node of a
 * kernel without the accel core has GEM_FLINK) is refused.
 */
static int tc_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tc_bo *bo = to_tc_bo(obj);
	struct tc_bo_map *map;

	if (bo->userptr && bo->userptr->owner != to_tc_file(file)->ctx) {
		drm_dbg(obj->dev, "a userptr BO is opened by its own file only\n");
		return -EOPNOTSUPP;
	}
	map = tc_bo_map_add(bo, to_tc_file(file)->ctx);
	return PTR_ERR_OR_ZERO(map);
}

/* A handle is gone: drop its reference to the mapping. */
static void tc_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tc_bo_map *map = tc_bo_map_find(to_tc_bo(obj), to_tc_file(file)->ctx);

	/*
	 * The handle's own reference keeps the mapping until here. Kernels
	 * before the GEM core published a handle only after ->open (6.12.y
	 * has the fix) let a racing GEM_CLOSE get here first: no mapping yet,
	 * nothing to drop, and nothing to WARN about from userspace.
	 */
	if (!map)
		return;
	tc_bo_map_put(map);	/* the reference just taken */
	tc_bo_map_put(map);	/* the handle's reference */
}

static void tc_gem_free(struct drm_gem_object *obj)
{
	struct tc_device *tdev = to_tc_device(obj->dev);
	struct tc_bo *bo = to_tc_bo(obj);

	if (bo->counted) {
		atomic64_dec(&tdev->stats.bos);
		atomic64_sub(obj->size, &tdev->stats.bo_bytes);
		mutex_lock(&tdev->dma_lock);
		list_del(&bo->dma_link);
		mutex_unlock(&tdev->dma_lock);
	}
	WARN_ON(!list_empty(&bo->maps));
	mutex_destroy(&bo->maps_lock);
	if (bo->userptr) {
		/* off the device's list: the removal no longer unmaps it */
		tc_userptr_free(bo);
		drm_gem_object_release(obj);
		kfree(bo);
		return;
	}
	drm_gem_shmem_free(&bo->base);
}

/* Undo the device mapping of a BO's pages; they stay pinned until its free. */
static void tc_bo_dma_release(struct tc_bo *bo)
{
	struct drm_gem_shmem_object *shmem = &bo->base;
	struct drm_gem_object *obj = &shmem->base;

	if (bo->userptr) {
		tc_userptr_dma_release(bo);
		return;
	}
	if (obj->import_attach) {
		struct dma_buf_attachment *attach = obj->import_attach;
		struct dma_buf *dmabuf = attach->dmabuf;

		/*
		 * Mapped by the exporter for this device's attachment. A
		 * dynamic exporter's mapping is pinned and moved by rules of
		 * its own: it stays until the BO's free detaches it.
		 */
		if (!shmem->sgt || dma_buf_is_dynamic(dmabuf))
			return;
		dma_resv_lock(dmabuf->resv, NULL);
		/*
		 * The dma-buf core keeps the mapping cached in the attachment
		 * (cache_sgt_mapping) and unmaps it only at dma_buf_detach(),
		 * when the BO is freed: forget it there so that it is unmapped
		 * now, and not again at the detach.
		 */
		if (attach->sgt == shmem->sgt)
			attach->sgt = NULL;
		dma_buf_unmap_attachment(attach, shmem->sgt, DMA_BIDIRECTIONAL);
		dma_resv_unlock(dmabuf->resv);
		/* drm_prime_gem_destroy() now only detaches */
		shmem->sgt = NULL;
		return;
	}
	dma_resv_lock(obj->resv, NULL);
	if (shmem->sgt) {
		dma_unmap_sgtable(obj->dev->dev, shmem->sgt, DMA_BIDIRECTIONAL, 0);
		sg_free_table(shmem->sgt);
		kfree(shmem->sgt);
		/* drm_gem_shmem_free() now only unpins the pages */
		shmem->sgt = NULL;
	}
	dma_resv_unlock(obj->resv);
}

/**
 * tc_gem_dma_release() - undo the device mapping of every BO
 * @tdev: device being removed, with &tc_device.dma_lock held
 *
 * The engine is stopped and no longer masters the bus. No BO gets a new
 * mapping afterwards: tc_bo_map_add() fails with -ENODEV. The pages stay
 * for the CPU mappings of files still open.
 */
void tc_gem_dma_release(struct tc_device *tdev)
{
	struct tc_bo *bo;

	lockdep_assert_held(&tdev->dma_lock);
	list_for_each_entry(bo, &tdev->dma_bos, dma_link)
		tc_bo_dma_release(bo);
}

static const struct drm_gem_object_funcs tc_gem_funcs = {
	.free = tc_gem_free,
	.open = tc_gem_open,
	.close = tc_gem_close,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/*
 * A dma-buf of pinned user pages would let another device or process keep
 * them, and write into a read-only pin through an importer that knows no
 * read-only buffers: refused (docs/uapi.md).
 */
static struct dma_buf *tc_gem_userptr_export(struct drm_gem_object *obj, int flags)
{
	drm_dbg(obj->dev, "PRIME export of a userptr BO refused\n");
	return ERR_PTR(-EOPNOTSUPP);
}

/*
 * No .mmap, .vm_ops nor mmap offset: the user has the pages mapped
 * already, and the DRM core refuses an mmap of the object (-EINVAL).
 */
static const struct drm_gem_object_funcs tc_gem_userptr_funcs = {
	.free = tc_gem_free,
	.open = tc_gem_open,
	.close = tc_gem_close,
	.export = tc_gem_userptr_export,
};

static void tc_bo_init(struct tc_bo *bo)
{
	mutex_init(&bo->maps_lock);
	INIT_LIST_HEAD(&bo->maps);
	INIT_LIST_HEAD(&bo->dma_link);
}

/**
 * tc_gem_create_object() - allocate a BO for the shmem helpers
 * @dev: DRM device
 * @size: bytes
 *
 * Used for created and for imported BOs alike.
 *
 * An engine whose DMA does not snoop the CPU caches (an arm64 SoC whose
 * PCIe host is not "dma-coherent") would read stale data a user wrote
 * through a cached mapping, and the user would read stale lines after the
 * engine wrote: such a device gets write-combined CPU mappings, as panfrost
 * and panthor do; the engine's own memory (rings, descriptors, page tables)
 * is dma_alloc_coherent() already. dev_is_dma_coherent() is what the DMA
 * core itself decided for this PCI device (from the host bridge's firmware
 * description); no driver-level API gives that answer for a PCI function.
 *
 * Return: the GEM object or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *tc_gem_create_object(struct drm_device *dev,
					    size_t size)
{
	struct tc_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.map_wc = !dev_is_dma_coherent(dev->dev);
	tc_bo_init(bo);
	bo->base.base.funcs = &tc_gem_funcs;
	return &bo->base.base;
}

/**
 * tc_gem_userptr_init() - make a GEM object of pinned user pages
 * @dev: DRM device
 * @bo: zeroed BO
 * @up: the pinned pages, owned by @bo from here on: its free unpins them
 * @size: bytes of whole pages
 */
void tc_gem_userptr_init(struct drm_device *dev, struct tc_bo *bo,
			 struct tc_userptr *up, size_t size)
{
	tc_bo_init(bo);
	bo->userptr = up;
	drm_gem_private_object_init(dev, &bo->base.base, size);
	bo->base.base.funcs = &tc_gem_userptr_funcs;
}

/**
 * tc_bo_handle_create() - map a new BO into the file's space, then give
 *	the file a handle to it
 * @file: the creating file
 * @bo: the BO, with the caller's reference (kept)
 * @handle: Output, the GEM handle
 * @va: Output, device VA of the BO's first byte
 *
 * Everything that can fail happens before the handle is published: once
 * another thread can see (and close) the handle, nothing undoes it.
 *
 * Return: 0, -ENOMEM, -ENOSPC (the address space is full), -ENODEV, or an
 * error of the BO's DMA mapping.
 */
int tc_bo_handle_create(struct drm_file *file, struct tc_bo *bo, u32 *handle,
			u64 *va)
{
	struct tc_bo_map *map = tc_bo_map_add(bo, to_tc_file(file)->ctx);
	int ret;

	if (IS_ERR(map))
		return PTR_ERR(map);
	*va = map->va;
	/* tc_gem_open() finds the mapping and takes the handle's reference. */
	ret = drm_gem_handle_create(file, &bo->base.base, handle);
	tc_bo_map_put(map);
	return ret;
}

/**
 * tc_ioctl_bo_create() - DRM_IOCTL_TILECOPY_BO_CREATE
 * @dev: DRM device
 * @data: struct drm_tilecopy_bo_create
 * @file: caller
 *
 * The handle is published last (tc_bo_handle_create()).
 *
 * Return: 0, -EINVAL, -ENOMEM, -ENOSPC (the address space is full), -EIO
 * (device wedged).
 */
int tc_ioctl_bo_create(struct drm_device *dev, void *data,
		       struct drm_file *file)
{
	struct drm_tilecopy_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	int ret;

	if (READ_ONCE(to_tc_device(dev)->wedged))
		return -EIO;
	if (args->flags & ~DRM_TILECOPY_BO_READ_ONLY) {
		drm_dbg(dev, "unknown BO flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	if (!args->size || args->size > TC_VA_END - TC_VA_START - PAGE_SIZE) {
		drm_dbg(dev, "bad BO size %llu\n", args->size);
		return -EINVAL;
	}

	/*
	 * Pages are allocated and pinned when the BO is mapped, right here:
	 * refuse at once what RAM can never hold rather than push the system
	 * into reclaim and the OOM killer.
	 */
	if (PAGE_ALIGN(args->size) >> PAGE_SHIFT > totalram_pages()) {
		drm_dbg(dev, "BO of %llu bytes exceeds RAM\n", args->size);
		return -ENOMEM;
	}

	shmem = drm_gem_shmem_create(dev, PAGE_ALIGN(args->size));
	if (IS_ERR(shmem)) {
		ret = PTR_ERR(shmem);
		/* shmem says -ENOSPC when it cannot allocate the file's inode */
		return ret == -ENOSPC ? -ENOMEM : ret;
	}
	to_tc_bo(&shmem->base)->flags = args->flags;
	ret = drm_gem_create_mmap_offset(&shmem->base);
	if (!ret) {
		args->mmap_offset = drm_vma_node_offset_addr(&shmem->base.vma_node);
		ret = tc_bo_handle_create(file, to_tc_bo(&shmem->base), &args->handle,
					  &args->va);
	}
	drm_gem_object_put(&shmem->base);
	return ret;
}

/**
 * tc_ioctl_bo_info() - DRM_IOCTL_TILECOPY_BO_INFO
 * @dev: DRM device
 * @data: struct drm_tilecopy_bo_info
 * @file: caller
 *
 * A userptr BO reports the size and first byte the user gave, and mmap
 * offset 0: it has none.
 *
 * Return: 0, -EINVAL for flags, -ENOENT for a handle the file lacks, -EIO
 * (device wedged), -ENOMEM.
 */
int tc_ioctl_bo_info(struct drm_device *dev, void *data,
		     struct drm_file *file)
{
	struct drm_tilecopy_bo_info *args = data;
	struct drm_gem_object *obj;
	struct tc_bo_map *map;
	int ret;

	if (READ_ONCE(to_tc_device(dev)->wedged))
		return -EIO;
	if (args->flags) {
		drm_dbg(dev, "BO_INFO flags 0x%x must be zero\n", args->flags);
		return -EINVAL;
	}
	map = tc_bo_map_lookup(file, args->handle);
	if (!map) {
		drm_dbg(dev, "BO_INFO: no handle %u\n", args->handle);
		return -ENOENT;
	}
	obj = &map->bo->base.base;
	/* an imported BO gets its mmap offset on first use; a userptr BO none */
	ret = map->bo->userptr ? 0 : drm_gem_create_mmap_offset(obj);
	if (!ret) {
		args->size = map->size;
		args->va = map->va;
		args->mmap_offset = map->bo->userptr ? 0 :
				    drm_vma_node_offset_addr(&obj->vma_node);
	}
	tc_bo_map_release(map);
	return ret;
}
