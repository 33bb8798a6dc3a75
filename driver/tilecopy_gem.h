/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_GEM_H__
#define __TILECOPY_GEM_H__

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_mm.h>

struct mm_struct;
struct tc_device;
struct tc_mmu_ctx;

/**
 * struct tc_userptr - the user pages behind a BO_USERPTR buffer object.
 * @sgt: the pinned pages, whole pages from the one holding the first byte
 *	on; physically contiguous runs share an entry, up to the device's
 *	maximum DMA segment.
 * @mm: the address space the pin is charged to (&mm_struct.pinned_vm),
 *	held by mmgrab() until the pages are unpinned.
 * @user: the user charged against RLIMIT_MEMLOCK (&user_struct.locked_vm),
 *	held until the pages are unpinned; NULL with CAP_IPC_LOCK.
 * @owner: the device address space of the file that made the BO, the only
 *	one that may have a handle (compared, never dereferenced).
 * @npages: pages pinned and charged.
 * @offset: offset of the first byte in the first page.
 * @size: bytes the user asked for.
 * @writable: pinned for writing (FOLL_WRITE), mapped writable.
 * @dma_mapped: @sgt is mapped for DMA (under the BO's reservation lock);
 *	cleared by whichever of the BO's free and the device's removal
 *	unmaps it.
 */
struct tc_userptr {
	struct sg_append_table sgt;
	struct mm_struct *mm;
	struct user_struct *user;
	const struct tc_mmu_ctx *owner;
	unsigned long npages;
	unsigned int offset;
	u64 size;
	bool writable;
	bool dma_mapped;
};

/**
 * struct tc_bo - a buffer object.
 * @base: shmem GEM object. A userptr BO (@userptr set) uses only the GEM
 *	object inside it: it has no shmem file, and no shmem helper sees it.
 * @userptr: the pinned user pages of a BO_USERPTR buffer object, or NULL.
 * @flags: DRM_TILECOPY_BO_* flags given at creation.
 * @maps_lock: protects @maps and @counted.
 * @maps: struct tc_bo_map, one per address space holding a handle.
 * @counted: in the device's live-BO statistics and on its
 *	&tc_device.dma_bos list (from the DMA mapping of its pages on).
 * @dma_link: entry in &tc_device.dma_bos.
 */
struct tc_bo {
	struct drm_gem_shmem_object base;
	struct tc_userptr *userptr;
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
 * @va: device VA of the BO's first byte: @node's start, plus the offset in
 *	its first page of a userptr BO's first byte.
 * @size: bytes of the BO from @va on, all the engine may be told to use.
 * @writable: the engine may write through this mapping.
 * @link: entry in &tc_bo.maps.
 */
struct tc_bo_map {
	struct kref ref;
	struct tc_bo *bo;
	struct tc_mmu_ctx *ctx;
	struct drm_mm_node node;
	u64 va;
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
void tc_gem_userptr_init(struct drm_device *dev, struct tc_bo *bo,
			 struct tc_userptr *up, size_t size);
int tc_bo_handle_create(struct drm_file *file, struct tc_bo *bo, u32 *handle,
			u64 *va);
struct tc_bo_map *tc_bo_map_lookup(struct drm_file *file, u32 handle);
void tc_bo_map_release(struct tc_bo_map *map);
void tc_gem_dma_release(struct tc_device *tdev);

int tc_ioctl_bo_create(struct drm_device *dev, void *data,
		       struct drm_file *file);
int tc_ioctl_bo_info(struct drm_device *dev, void *data,
		     struct drm_file *file);

/* tilecopy_userptr.c: BO_USERPTR, buffer objects over pinned user pages */
bool tc_userptr_supported(struct tc_device *tdev);
struct sg_table *tc_userptr_sgt(struct tc_bo *bo);
void tc_userptr_dma_release(struct tc_bo *bo);
void tc_userptr_free(struct tc_bo *bo);
int tc_ioctl_bo_userptr(struct drm_device *dev, void *data,
			struct drm_file *file);

#endif /* __TILECOPY_GEM_H__ */
