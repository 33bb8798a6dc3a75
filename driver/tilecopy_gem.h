/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_GEM_H__
#define __TILECOPY_GEM_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>

struct tc_device;
struct tc_mmu_ctx;

/**
 * struct tc_bo - a buffer object.
 * @base: shmem GEM object.
 * @flags: DRM_TILECOPY_BO_* flags given at creation.
 * @maps_lock: protects @maps and @counted.
 * @maps: struct tc_bo_map, one per address space holding a handle.
 * @counted: in the device's live-BO statistics and on its
 *	&tc_device.dma_bos list (from its first mapping on).
 * @dma_link: entry in &tc_device.dma_bos.
 */
struct tc_bo {
	struct drm_gem_shmem_object base;
	u32 flags;
	struct mutex maps_lock;	/* @maps, @counted */
	struct list_head maps;
	bool counted;
	struct list_head dma_link;
};

/**
 * struct tc_bo_map - a buffer object mapped into one file's address space.
 * @ref: one reference per handle of the file, one per lookup (a job
 *	holds one for each BO it lists).
 * @bo: the buffer object.
 * @ctx: the address space.
 * @node: VA range (the last page of it is an unmapped guard page).
 * @size: bytes mapped.
 * @writable: the engine may write through this mapping.
 * @link: entry in &tc_bo.maps.
 */
struct tc_bo_map {
	struct kref ref;
	struct tc_bo *bo;
	struct tc_mmu_ctx *ctx;
	struct drm_mm_node node;
	u64 size;
	bool writable;
	struct list_head link;
};

static inline struct tc_bo *to_tc_bo(struct drm_gem_object *obj)
{
	return container_of(to_drm_gem_shmem_obj(obj), struct tc_bo, base);
}

struct drm_gem_object *tc_gem_create_object(struct drm_device *dev,
					    size_t size);
struct tc_bo_map *tc_bo_map_lookup(struct drm_file *file, u32 handle);
void tc_bo_map_release(struct tc_bo_map *map);
void tc_gem_dma_release(struct tc_device *tdev);

int tc_ioctl_bo_create(struct drm_device *dev, void *data,
		       struct drm_file *file);
int tc_ioctl_bo_info(struct drm_device *dev, void *data,
		     struct drm_file *file);

#endif /* __TILECOPY_GEM_H__ */
