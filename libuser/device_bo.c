// SPDX-License-Identifier: MIT
/*
 * device_bo.c - buffer objects: GEM shmem memory the engine reaches through
 * its MMU at bo->va, mapped into this process on demand, shareable as
 * dma-buf; or the caller's own memory, pinned by the driver (userptr: no
 * mmap, no dma-buf).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

#include "internal.h"
#include "device_internal.h"

static void tc_gem_close(tilecopy_device_t *dev, uint32_t handle)
{
	struct drm_gem_close gc = { .handle = handle };

	tc_drm_ioctl(dev->fd, DRM_IOCTL_GEM_CLOSE, &gc);
}

TILECOPY_API tilecopy_status_t tilecopy_bo_create(tilecopy_bo_t **out,
						  tilecopy_device_t *dev,
						  size_t size, uint32_t flags)
{
	struct drm_tilecopy_bo_create c = { 0 };
	tilecopy_bo_t *bo;
	int ret;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bo: NULL");
	*out = NULL;
	if (tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!size)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "size: 0 bytes");
	if (flags & ~TILECOPY_BO_READ_ONLY)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~TILECOPY_BO_READ_ONLY);
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return tc_fail(TILECOPY_ERR_NOMEM, "bo: out of memory");
	c.size = size;
	c.flags = flags & TILECOPY_BO_READ_ONLY ? DRM_TILECOPY_BO_READ_ONLY : 0;
	ret = tc_drm_ioctl(dev->fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);
	if (ret) {
		free(bo);
		return tc_fail(ret == -ENOMEM || ret == -ENOSPC ? TILECOPY_ERR_NOMEM :
			       TILECOPY_ERR_DEVICE,
			       "bo: %s: BO_CREATE of %zu bytes: %s", dev->info.path,
			       size, strerror(-ret));
	}
	bo->magic = TC_MAGIC_BO;
	bo->dev = dev;
	bo->handle = c.handle;
	bo->size = size;
	bo->va = c.va;
	bo->mmap_offset = c.mmap_offset;
	*out = bo;
	return tc_ok();
}

tilecopy_status_t tc_bo_userptr(tilecopy_bo_t **out, tilecopy_device_t *dev, const void *ptr,
				size_t size, uint32_t flags, int *err)
{
	struct drm_tilecopy_bo_userptr u = { 0 };
	tilecopy_bo_t *bo;
	int ret;

	*out = NULL;
	*err = 0;
	if (!(dev->features & DRM_TILECOPY_FEATURE_USERPTR))
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "bo: %s: the driver has no userptr buffer objects (FEATURES bit 4)",
			       dev->info.path);
	bo = calloc(1, sizeof(*bo));
	if (!bo)
		return tc_fail(TILECOPY_ERR_NOMEM, "bo: out of memory");
	u.addr = (uintptr_t)ptr;
	u.size = size;
	u.flags = flags & TILECOPY_BO_READ_ONLY ? DRM_TILECOPY_BO_READ_ONLY : 0;
	ret = tc_drm_ioctl(dev->fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);
	if (ret) {
		free(bo);
		*err = ret;
		return tc_fail(ret == -ENOMEM ? TILECOPY_ERR_NOMEM : TILECOPY_ERR_DEVICE,
			       "bo: %s: BO_USERPTR of %zu bytes at %p%s: %s%s", dev->info.path,
			       size, ptr, u.flags ? " (read-only)" : "", strerror(-ret),
			       ret == -ENOMEM ? " (RLIMIT_MEMLOCK, ulimit -l, bounds pinned memory)" :
			       ret == -EFAULT ? " (not memory the driver can pin)" : "");
	}
	bo->magic = TC_MAGIC_BO;
	bo->dev = dev;
	bo->handle = u.handle;
	bo->size = size;
	bo->va = u.va;
	bo->map = (void *)ptr;
	bo->userptr = 1;
	*out = bo;
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_bo_map(tilecopy_bo_t *bo, void **ptr)
{
	void *p;

	if (tc_handle_arg(bo, TC_MAGIC_BO, "bo"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!ptr)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "ptr: NULL");
	if (!bo->map) {
		p = mmap(NULL, bo->size, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bo->dev->fd, (off_t)bo->mmap_offset);
		if (p == MAP_FAILED)
			return tc_fail(TILECOPY_ERR_DEVICE, "bo: mmap of %llu bytes: %s",
				       (unsigned long long)bo->size, strerror(errno));
		bo->map = p;
	}
	*ptr = bo->map;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_bo_size(const tilecopy_bo_t *bo, size_t *size)
{
	if (tc_handle_arg(bo, TC_MAGIC_BO, "bo"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!size)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "size: NULL");
	*size = (size_t)bo->size;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_bo_va(const tilecopy_bo_t *bo, uint64_t *va)
{
	if (tc_handle_arg(bo, TC_MAGIC_BO, "bo"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!va)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "va: NULL");
	*va = bo->va;
	return tc_ok();
}

TILECOPY_API void tilecopy_bo_free(tilecopy_bo_t *bo)
{
	if (!bo || tc_handle_arg(bo, TC_MAGIC_BO, "bo"))
		return;
	bo->magic = 0;
	if (bo->map && !bo->userptr)
		munmap(bo->map, bo->size);
	tc_gem_close(bo->dev, bo->handle);
	free(bo);
}

TILECOPY_API tilecopy_status_t tilecopy_bo_export(tilecopy_bo_t *bo, int *fd)
{
	int ret;

	if (tc_handle_arg(bo, TC_MAGIC_BO, "bo"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!fd)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "fd: NULL");
	ret = drmPrimeHandleToFD(bo->dev->fd, bo->handle, DRM_CLOEXEC | DRM_RDWR, fd);
	if (ret)
		return tc_fail(TILECOPY_ERR_DEVICE, "bo: PRIME export: %s", strerror(errno));
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_bo_import(tilecopy_bo_t **out,
						  tilecopy_device_t *dev, int fd)
{
	struct drm_tilecopy_bo_info info = { 0 };
	tilecopy_bo_t *bo;
	uint32_t handle;
	int ret;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bo: NULL");
	*out = NULL;
	if (tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev"))
		return TILECOPY_ERR_INVALID_ARG;
	if (drmPrimeFDToHandle(dev->fd, fd, &handle))
		return tc_fail(TILECOPY_ERR_DEVICE, "bo: PRIME import of fd %d: %s", fd,
			       strerror(errno));
	info.handle = handle;
	ret = tc_drm_ioctl(dev->fd, DRM_IOCTL_TILECOPY_BO_INFO, &info);
	if (ret) {
		tc_gem_close(dev, handle);
		return tc_fail(TILECOPY_ERR_DEVICE, "bo: BO_INFO of imported fd %d: %s",
			       fd, strerror(-ret));
	}
	bo = calloc(1, sizeof(*bo));
	if (!bo) {
		tc_gem_close(dev, handle);
		return tc_fail(TILECOPY_ERR_NOMEM, "bo: out of memory");
	}
	bo->magic = TC_MAGIC_BO;
	bo->dev = dev;
	bo->handle = handle;
	bo->size = info.size;
	bo->va = info.va;
	bo->mmap_offset = info.mmap_offset;
	*out = bo;
	return tc_ok();
}
