// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/mm.h>
#include <linux/slab.h>
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

/**
 * tc_bo_map_put() - drop a reference to a mapping
 * @map: mapping; unmapped (TLB invalidated) with the last reference
 */
void tc_bo_map_put(struct tc_bo_map *map)
{
	struct tc_bo *bo = map->bo;
	bool last;

	mutex_lock(&bo->maps_lock);
	last = kref_put(&map->ref, tc_bo_map_unlink);
	mutex_unlock(&bo->maps_lock);
	if (!last)
		return;

	tc_mmu_unmap(map->ctx, &map->node);
	tc_mmu_ctx_put(map->ctx);
	kfree(map);
}

/**
 * tc_bo_map_get() - find the mapping of a BO in an address space
 * @bo: buffer object
 * @ctx: address space
 *
 * Return: the mapping with a reference taken, or NULL if the BO has no
 * handle in the file owning @ctx.
 */
struct tc_bo_map *tc_bo_map_get(struct tc_bo *bo, struct tc_mmu_ctx *ctx)
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

/*
 * A handle is created: created, imported through PRIME (from this or
 * another device) or opened again. Map the BO into the file's address
 * space, once per file.
 */
static int tc_gem_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tc_mmu_ctx *ctx = to_tc_file(file)->ctx;
	struct tc_bo *bo = to_tc_bo(obj);
	struct tc_bo_map *map;
	struct sg_table *sgt;
	int ret = 0;

	sgt = drm_gem_shmem_get_pages_sgt(&bo->base);
	if (IS_ERR(sgt))
		return PTR_ERR(sgt);

	mutex_lock(&bo->maps_lock);
	list_for_each_entry(map, &bo->maps, link) {
		if (map->ctx == ctx) {
			kref_get(&map->ref);	/* the new handle's */
			goto out_unlock;
		}
	}
	map = kzalloc(sizeof(*map), GFP_KERNEL);
	if (!map) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	kref_init(&map->ref);
	map->bo = bo;
	map->size = obj->size;
	map->writable = !(bo->flags & DRM_TILECOPY_BO_READ_ONLY);
	ret = tc_mmu_map(ctx, &map->node, sgt, map->size, map->writable);
	if (ret) {
		/* -EINVAL: an imported buffer not made of whole pages */
		drm_dbg(obj->dev, "cannot map a %zu-byte BO: %d\n", obj->size, ret);
		kfree(map);
		goto out_unlock;
	}
	map->ctx = tc_mmu_ctx_get(ctx);
	list_add_tail(&map->link, &bo->maps);
	if (!bo->counted) {
		struct tc_stats *stats = &to_tc_device(obj->dev)->stats;

		/* Live BOs are counted from their first handle to their free. */
		bo->counted = true;
		atomic64_inc(&stats->bos);
		atomic64_add(obj->size, &stats->bo_bytes);
	}
out_unlock:
	mutex_unlock(&bo->maps_lock);
	return ret;
}

/* The file's last handle to the BO is gone: drop the handle's mapping. */
static void tc_gem_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct tc_mmu_ctx *ctx = to_tc_file(file)->ctx;
	struct tc_bo *bo = to_tc_bo(obj);
	struct tc_bo_map *map = tc_bo_map_get(bo, ctx);

	if (WARN_ON(!map))
		return;
	tc_bo_map_put(map);	/* the reference just taken */
	tc_bo_map_put(map);	/* the handle's reference */
}

static void tc_gem_free(struct drm_gem_object *obj)
{
	struct tc_bo *bo = to_tc_bo(obj);

	if (bo->counted) {
		struct tc_stats *stats = &to_tc_device(obj->dev)->stats;

		atomic64_dec(&stats->bos);
		atomic64_sub(obj->size, &stats->bo_bytes);
	}
	WARN_ON(!list_empty(&bo->maps));
	mutex_destroy(&bo->maps_lock);
	drm_gem_shmem_free(&bo->base);
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

/**
 * tc_gem_create_object() - allocate a BO for the shmem helpers
 * @dev: DRM device
 * @size: bytes
 *
 * Used for created and for imported BOs alike.
 *
 * Return: the GEM object or ERR_PTR(-ENOMEM).
 */
struct drm_gem_object *tc_gem_create_object(struct drm_device *dev,
					    size_t size)
{
	struct tc_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	mutex_init(&bo->maps_lock);
	INIT_LIST_HEAD(&bo->maps);
	bo->base.base.funcs = &tc_gem_funcs;
	return &bo->base.base;
}

static int tc_bo_describe(struct drm_gem_object *obj, struct drm_file *file,
			  u64 *va, u64 *mmap_offset)
{
	struct tc_bo_map *map = tc_bo_map_get(to_tc_bo(obj), to_tc_file(file)->ctx);
	int ret;

	if (WARN_ON(!map))
		return -EINVAL;
	*va = map->node.start;
	tc_bo_map_put(map);

	ret = drm_gem_create_mmap_offset(obj);
	if (ret)
		return ret;
	*mmap_offset = drm_vma_node_offset_addr(&obj->vma_node);
	return 0;
}

/**
 * tc_ioctl_bo_create() - DRM_IOCTL_TILECOPY_BO_CREATE
 * @dev: DRM device
 * @data: struct drm_tilecopy_bo_create
 * @file: caller
 *
 * Return: 0 or a negative error code.
 */
int tc_ioctl_bo_create(struct drm_device *dev, void *data,
		       struct drm_file *file)
{
	struct drm_tilecopy_bo_create *args = data;
	struct drm_gem_shmem_object *shmem;
	int ret;

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

	/* Maps the BO into the file's address space, see tc_gem_open(). */
	ret = drm_gem_handle_create(file, &shmem->base, &args->handle);
	if (!ret) {
		ret = tc_bo_describe(&shmem->base, file, &args->va,
				     &args->mmap_offset);
		if (ret)
			drm_gem_handle_delete(file, args->handle);
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
 * Return: 0, -EINVAL for flags or -ENOENT for a handle the file lacks.
 */
int tc_ioctl_bo_info(struct drm_device *dev, void *data,
		     struct drm_file *file)
{
	struct drm_tilecopy_bo_info *args = data;
	struct drm_gem_object *obj;
	int ret;

	if (args->flags) {
		drm_dbg(dev, "BO_INFO flags 0x%x must be zero\n", args->flags);
		return -EINVAL;
	}
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj) {
		drm_dbg(dev, "BO_INFO: no handle %u\n", args->handle);
		return -ENOENT;
	}
	args->size = obj->size;
	ret = tc_bo_describe(obj, file, &args->va, &args->mmap_offset);
	drm_gem_object_put(obj);
	return ret;
}
