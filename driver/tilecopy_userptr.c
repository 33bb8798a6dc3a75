// SPDX-License-Identifier: GPL-2.0-only
/*
 * BO_USERPTR: buffer objects over the caller's own memory, so that the
 * engine converts host buffers in place instead of through staging copies.
 *
 * The pages are pinned long-term (FOLL_PIN | FOLL_LONGTERM, as RDMA memory
 * regions are: migrated out of movable zones first, never reclaimed, never
 * moved while pinned), read-only when the BO is, and mapped for DMA once.
 * The BO holds the pages, not the addresses: whatever happens to the user's
 * mapping afterwards (munmap, mremap, fork, a file truncated), the engine
 * reads and writes the same pages, which stay allocated until the BO is
 * freed, so a job never touches memory that went back to the kernel. No
 * MMU notifier: the pin is the contract, as with RDMA's non-ODP memory.
 *
 * Accounting follows io_uring and iommufd: the pages count against the
 * caller's RLIMIT_MEMLOCK in its user's locked_vm unless it has
 * CAP_IPC_LOCK, and in its mm's pinned_vm (VmPin, as RDMA's ib_umem; not
 * locked_vm: they are not mlocked); both are uncharged, from that same user
 * and mm, when the BO is freed, whichever process or worker frees it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/capability.h>
#include <linux/dma-map-ops.h>	/* dev_is_dma_coherent(), see tc_userptr_supported() */
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"

/* Pages pinned per call: one page of page pointers. */
#define TC_USERPTR_CHUNK	(PAGE_SIZE / sizeof(struct page *))

/**
 * tc_userptr_supported() - can the device have userptr BOs
 * @tdev: device
 *
 * The user reads and writes its pages through its own cached mapping
 * while the engine does by DMA: an engine that does not snoop the CPU's
 * caches would need cache maintenance around every job, which this driver
 * does not do (its own BOs get write-combined mappings instead, see
 * tc_gem_create_object()). Such a device has no userptr BOs.
 *
 * Return: true if BO_USERPTR is offered.
 */
bool tc_userptr_supported(struct tc_device *tdev)
{
	return dev_is_dma_coherent(tdev->base.dev);
}

static enum dma_data_direction tc_userptr_dir(const struct tc_userptr *up)
{
	return up->writable ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/*
 * The device snoops the CPU caches (tc_userptr_supported()) and a mapping
 * that bounces is refused (tc_userptr_sgt()): mapping and unmapping have
 * no CPU sync to do, and say so. It also tells CONFIG_DMA_API_DEBUG that
 * overlapping mappings are fine: two BOs over one buffer, buffers sharing
 * a page, the same memory pinned by two files are all legitimate here.
 * (dma-debug still warns once, as a suspected leak, past 7 writable
 * mappings of one cacheline at a time: a debug kernel's heuristic that
 * RDMA memory regions trip alike; docs/uapi.md.)
 */
#define TC_USERPTR_DMA_ATTRS	DMA_ATTR_SKIP_CPU_SYNC

/* The fields; then the range, which must be user memory. */
static int tc_userptr_check(struct drm_device *dev,
			    const struct drm_tilecopy_bo_userptr *args)
{
	const u64 max = TC_VA_END - TC_VA_START - PAGE_SIZE;
	u64 end;

	if (args->flags & ~DRM_TILECOPY_BO_READ_ONLY) {
		drm_dbg(dev, "BO_USERPTR: unknown flags 0x%x\n", args->flags);
		return -EINVAL;
	}
	/* a 32-bit kernel: no bit dropped before access_ok() */
	if (!args->size || check_add_overflow(args->addr, args->size, &end) ||
	    args->size > max || (unsigned long)end != end) {
		drm_dbg(dev, "BO_USERPTR: bad range 0x%llx + %llu\n", args->addr,
			args->size);
		return -EINVAL;
	}
	if (!access_ok(u64_to_user_ptr(args->addr), args->size)) {
		drm_dbg(dev, "BO_USERPTR: 0x%llx + %llu is not user memory\n",
			args->addr, args->size);
		return -EFAULT;
	}
	/* whole pages, with the guard page after them, within the VA space */
	if (PAGE_ALIGN(end) - (args->addr & PAGE_MASK) > max) {
		drm_dbg(dev, "BO_USERPTR: %llu bytes at offset %lu exceed the address space\n",
			args->size, offset_in_page(args->addr));
		return -EINVAL;
	}
	return 0;
}

#if !(defined(CONFIG_NET) || defined(CONFIG_IO_URING) || IS_ENABLED(CONFIG_IOMMUFD))
#error "BO_USERPTR charges user_struct.locked_vm, which this kernel configuration lacks"
#endif

/*
 * Charge the pages to the caller's user against RLIMIT_MEMLOCK, and to
 * its mm's pinned_vm; the user and the mm are kept for the uncharge.
 * Refused at once, before any page is touched, rather than after pinning
 * RAM the limit does not allow.
 *
 * The limit is the user's, not the mm's: the BO belongs to the DRM file,
 * which outlives the process that made it (fork and exit, execve, a file
 * passed over a socket). A charge to a dead or replaced mm is seen by no
 * later check, so children that pin and exit would pin all of RAM under
 * one small limit.
 */
static int tc_userptr_charge(struct drm_device *dev, struct tc_userptr *up)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	long cur;

	if (up->npages > totalram_pages()) {
		drm_dbg(dev, "BO_USERPTR: %lu pages exceed RAM\n", up->npages);
		return -ENOMEM;
	}
	if (!capable(CAP_IPC_LOCK)) {
		user = get_uid(current_user());
		cur = atomic_long_read(&user->locked_vm);
		do {
			if (up->npages > limit || cur > limit - up->npages) {
				free_uid(user);
				drm_dbg(dev, "BO_USERPTR: %lu more pages exceed RLIMIT_MEMLOCK (%lu pages, %ld charged to the user)\n",
					up->npages, limit, cur);
				return -ENOMEM;
			}
		} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + up->npages));
		up->user = user;
	}
	atomic64_add(up->npages, &current->mm->pinned_vm);
	mmgrab(current->mm);
	up->mm = current->mm;
	return 0;
}

static void tc_userptr_uncharge(struct tc_userptr *up)
{
	if (up->user) {
		atomic_long_sub(up->npages, &up->user->locked_vm);
		free_uid(up->user);
	}
	atomic64_sub(up->npages, &up->mm->pinned_vm);
	mmdrop(up->mm);
}

/* Unpin every page in @up->sgt, marked dirty if the engine may have written. */
static void tc_userptr_unpin(struct tc_userptr *up, bool dirty)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(&up->sgt.sgt, sg, i) {
		unpin_user_page_range_dirty_lock(sg_page(sg), sg->length >> PAGE_SHIFT,
						 dirty);
		/* a BO of many GiB is unpinned in one work item */
		cond_resched();
	}
	sg_free_append_table(&up->sgt);
}

/*
 * Pin the pages from @start a chunk at a time into @up->sgt, merging
 * contiguous ones up to the device's maximum segment. On failure nothing
 * stays pinned.
 */
static int tc_userptr_pin_errno(int n)
{
	switch (n) {
	case -ENOMEM:		/* out of memory */
	case -EINTR:		/* a fatal signal */
	case -EOPNOTSUPP:	/* filesystem DAX */
		return n;
	case -EAGAIN:
	case -EBUSY:
		/* a page could not be migrated out of ZONE_MOVABLE/CMA for a
		 * long-term pin: transient
		 */
		return -EAGAIN;
	default:
		/*
		 * 0 or -EFAULT: unmapped, no permission, PFN/IO memory, a file
		 * that tracks dirt; -EHWPOISON: a poisoned page; anything else
		 * the mm may add: the range cannot be pinned
		 */
		return -EFAULT;
	}
}

static int tc_userptr_pin(struct drm_device *dev, struct tc_userptr *up,
			  unsigned long start)
{
	unsigned int gup = FOLL_LONGTERM | (up->writable ? FOLL_WRITE : 0);
	unsigned int max_seg = dma_get_max_seg_size(dev->dev);
	unsigned long done = 0;
	struct page **chunk;
	int ret = 0;

	chunk = kmalloc_array(TC_USERPTR_CHUNK, sizeof(*chunk), GFP_KERNEL);
	if (!chunk)
		return -ENOMEM;
	while (done < up->npages) {
		int want = min_t(unsigned long, up->npages - done, TC_USERPTR_CHUNK);
		int n = pin_user_pages_fast(start + done * PAGE_SIZE, want, gup, chunk);

		if (n <= 0) {
			ret = tc_userptr_pin_errno(n);
			drm_dbg(dev, "BO_USERPTR: cannot pin page %lu of %lu: %d\n",
				done, up->npages, ret);
			break;
		}
		ret = sg_alloc_append_table_from_pages(&up->sgt, chunk, n, 0,
						       (unsigned long)n << PAGE_SHIFT,
						       max_seg, up->npages - done - n,
						       GFP_KERNEL_ACCOUNT);
		if (ret) {
			unpin_user_pages(chunk, n);
			break;
		}
		done += n;
		cond_resched();
	}
	kfree(chunk);
	if (ret)
		tc_userptr_unpin(up, false);
	return ret;
}

/*
 * Would the engine's view of the page at @addr differ from the CPU's
 * without sync calls (a bounced mapping)? dma_need_sync() answers that
 * per address for dma-direct only: for a device in an IOMMU DMA-API
 * domain it is true for every address. dma-iommu bounces only pieces of a
 * page smaller than the IOMMU's granule (untrusted devices) and small
 * buffers of non-coherent devices; the pages pinned here are whole pages
 * of a coherent device (tc_userptr_supported()), never bounced while a
 * page spans whole granules.
 */
static bool tc_userptr_bounced(struct device *dev, dma_addr_t addr)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);

	if (dom && iommu_is_dma_domain(dom))
		return !dom->pgsize_bitmap || BIT(__ffs(dom->pgsize_bitmap)) > PAGE_SIZE;
	return dma_need_sync(dev, addr);
}

/**
 * tc_userptr_sgt() - the DMA-mapped pages of a userptr BO
 * @bo: userptr BO, inside drm_dev_enter() (the removal finds the mapping
 *	on the device's list before it is undone)
 *
 * Mapped on first use, as the shmem helpers map theirs. A mapping that
 * would need sync calls to be seen by the engine (bounced through swiotlb)
 * is refused: the driver does no cache maintenance around jobs.
 *
 * Return: the sg table, or ERR_PTR(-EOPNOTSUPP) or a DMA mapping error.
 */
struct sg_table *tc_userptr_sgt(struct tc_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	struct tc_userptr *up = bo->userptr;
	struct sg_table *sgt = &up->sgt.sgt;
	struct device *dev = obj->dev->dev;
	struct scatterlist *sg;
	unsigned int i;
	int ret = 0;

	dma_resv_lock(obj->resv, NULL);
	if (up->dma_mapped)
		goto out_unlock;
	ret = dma_map_sgtable(dev, sgt, tc_userptr_dir(up), TC_USERPTR_DMA_ATTRS);
	if (ret)
		goto out_unlock;
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (tc_userptr_bounced(dev, sg_dma_address(sg))) {
			dma_unmap_sgtable(dev, sgt, tc_userptr_dir(up), TC_USERPTR_DMA_ATTRS);
			drm_dbg(obj->dev, "BO_USERPTR: the DMA mapping needs syncs (bounced)\n");
			ret = -EOPNOTSUPP;
			goto out_unlock;
		}
	}
	up->dma_mapped = true;
out_unlock:
	dma_resv_unlock(obj->resv);
	return ret ? ERR_PTR(ret) : sgt;
}

/**
 * tc_userptr_dma_release() - undo the DMA mapping of a userptr BO
 * @bo: userptr BO of a device being removed
 *
 * The pages stay pinned until the BO's free.
 */
void tc_userptr_dma_release(struct tc_bo *bo)
{
	struct drm_gem_object *obj = &bo->base.base;
	struct tc_userptr *up = bo->userptr;

	dma_resv_lock(obj->resv, NULL);
	if (up->dma_mapped) {
		dma_unmap_sgtable(obj->dev->dev, &up->sgt.sgt, tc_userptr_dir(up),
				  TC_USERPTR_DMA_ATTRS);
		up->dma_mapped = false;
	}
	dma_resv_unlock(obj->resv);
}

/**
 * tc_userptr_free() - unmap, unpin and uncharge the pages of a userptr BO
 * @bo: userptr BO being freed: unmapped from every address space, off the
 *	device's list of mapped BOs
 */
void tc_userptr_free(struct tc_bo *bo)
{
	struct tc_device *tdev = to_tc_device(bo->base.base.dev);
	struct tc_userptr *up = bo->userptr;

	if (up->dma_mapped)
		dma_unmap_sgtable(tdev->base.dev, &up->sgt.sgt, tc_userptr_dir(up),
				  TC_USERPTR_DMA_ATTRS);
	tc_userptr_unpin(up, up->writable);
	atomic64_sub((u64)up->npages << PAGE_SHIFT, &tdev->stats.pinned_bytes);
	tc_userptr_uncharge(up);
	kfree(up);
}

/* Pin and charge the pages of the range @args checked. */
static struct tc_userptr *tc_userptr_create(struct drm_device *dev,
					    const struct drm_tilecopy_bo_userptr *args)
{
	struct tc_device *tdev = to_tc_device(dev);
	struct tc_userptr *up;
	int ret;

	up = kzalloc(sizeof(*up), GFP_KERNEL_ACCOUNT);
	if (!up)
		return ERR_PTR(-ENOMEM);
	up->offset = offset_in_page(args->addr);
	up->size = args->size;
	up->npages = (PAGE_ALIGN(args->addr + args->size) - (args->addr & PAGE_MASK)) >>
		     PAGE_SHIFT;
	up->writable = !(args->flags & DRM_TILECOPY_BO_READ_ONLY);
	ret = tc_userptr_charge(dev, up);
	if (ret)
		goto err_free;
	ret = tc_userptr_pin(dev, up, args->addr & PAGE_MASK);
	if (ret)
		goto err_uncharge;
	atomic64_add((u64)up->npages << PAGE_SHIFT, &tdev->stats.pinned_bytes);
	return up;

err_uncharge:
	tc_userptr_uncharge(up);
err_free:
	kfree(up);
	return ERR_PTR(ret);
}

/**
 * tc_ioctl_bo_userptr() - DRM_IOCTL_TILECOPY_BO_USERPTR
 * @dev: DRM device
 * @data: struct drm_tilecopy_bo_userptr
 * @file: caller
 *
 * The pages are pinned and charged first; from the GEM object's creation
 * on, its free releases them. The handle is published last
 * (tc_bo_handle_create()).
 *
 * Return: 0, -EINVAL (fields, a range that wraps or exceeds the address
 * space), -EFAULT (not user memory, or a page that cannot be pinned),
 * -ENOMEM (RLIMIT_MEMLOCK, RAM, out of memory), -ENOSPC (the address space
 * is full), -EOPNOTSUPP (no userptr BOs on this device, a DAX mapping, a
 * bounced DMA mapping), -EIO (wedged), -EINTR (a fatal signal while
 * pinning), -EAGAIN (a page could not be migrated for the pin).
 */
int tc_ioctl_bo_userptr(struct drm_device *dev, void *data,
			struct drm_file *file)
{
	struct drm_tilecopy_bo_userptr *args = data;
	struct tc_device *tdev = to_tc_device(dev);
	struct tc_userptr *up;
	struct tc_bo *bo;
	int ret;

	if (READ_ONCE(tdev->wedged))
		return -EIO;
	if (!tc_userptr_supported(tdev)) {
		drm_dbg(dev, "BO_USERPTR: the engine does not snoop the CPU caches\n");
		return -EOPNOTSUPP;
	}
	ret = tc_userptr_check(dev, args);
	if (ret)
		return ret;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL_ACCOUNT);
	if (!bo)
		return -ENOMEM;
	up = tc_userptr_create(dev, args);
	if (IS_ERR(up)) {
		kfree(bo);
		return PTR_ERR(up);
	}
	up->owner = to_tc_file(file)->ctx;
	tc_gem_userptr_init(dev, bo, up, up->npages << PAGE_SHIFT);
	bo->flags = args->flags;
	ret = tc_bo_handle_create(file, bo, &args->handle, &args->va);
	drm_gem_object_put(&bo->base.base);
	return ret;
}
