// SPDX-License-Identifier: GPL-2.0-only
/*
 * tilecopy - DRM accel driver of the tilecopy tile-copy engine.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/bits.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

#define TC_FW_DEFAULT	"tilecopy/engine.bin"

/*
 * The engine's page tables hold bus addresses in bits 51:12 (PTEs and
 * table pointers alike, docs/hardware.md), so it reaches 52 bits. A wider
 * mask would let a system with more physical address bits (arm64 with
 * 52-bit PA) or an IOMMU hand out addresses the PTEs silently truncate.
 */
#define TC_DMA_BITS	52
static_assert(GENMASK_ULL(TC_DMA_BITS - 1, TC_PAGE_SHIFT) == TC_PTE_ADDR_MASK);

static char *tc_fw_name = TC_FW_DEFAULT;
module_param_named(firmware, tc_fw_name, charp, 0444);
MODULE_PARM_DESC(firmware, "Firmware file under /lib/firmware (default " TC_FW_DEFAULT ")");

static int tc_open(struct drm_device *dev, struct drm_file *file)
{
	struct tc_device *tdev = to_tc_device(dev);
	struct tc_file *tfile;
	unsigned int i;
	int ret;

	if (READ_ONCE(tdev->wedged))
		return -EIO;
	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL_ACCOUNT);
	if (!tfile)
		return -ENOMEM;
	tfile->tdev = tdev;
	mutex_init(&tfile->submit_lock);
	tc_file_jobs_init(tfile);

	tfile->ctx = tc_mmu_ctx_create(tdev);
	if (IS_ERR(tfile->ctx)) {
		ret = PTR_ERR(tfile->ctx);
		goto err_free;
	}
	for (i = 0; i < tdev->num_queues; i++) {
		struct drm_gpu_scheduler *sched = tdev->queues[i].sched;

		ret = drm_sched_entity_init(&tfile->entities[i],
					    DRM_SCHED_PRIORITY_NORMAL, &sched, 1,
					    NULL);
		if (ret)
			goto err_destroy_entities;
	}
	file->driver_priv = tfile;
	return 0;

err_destroy_entities:
	while (i--)
		drm_sched_entity_destroy(&tfile->entities[i]);
	tc_mmu_ctx_put(tfile->ctx);
err_free:
	mutex_destroy(&tfile->submit_lock);
	kfree(tfile);
	return ret;
}

/*
 * Called after the file's GEM handles are gone (so their mappings are
 * dropped); jobs still running keep the address space alive.
 */
static void tc_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct tc_file *tfile = to_tc_file(file);
	unsigned int i;

	for (i = 0; i < tfile->tdev->num_queues; i++)
		drm_sched_entity_destroy(&tfile->entities[i]);
	tc_file_jobs_fini(tfile);
	tc_mmu_ctx_put(tfile->ctx);
	mutex_destroy(&tfile->submit_lock);
	kfree(tfile);
}

static int tc_ioctl_get_param(struct drm_device *dev, void *data,
			      struct drm_file *file)
{
	struct tc_device *tdev = to_tc_device(dev);
	struct drm_tilecopy_get_param *args = data;

	if (READ_ONCE(tdev->wedged))
		return -EIO;
	if (args->pad) {
		drm_dbg(dev, "GET_PARAM pad must be zero\n");
		return -EINVAL;
	}
	switch (args->param) {
	case DRM_TILECOPY_PARAM_ABI_VERSION:
		args->value = DRM_TILECOPY_ABI_VERSION;
		break;
	case DRM_TILECOPY_PARAM_HW_VERSION:
		args->value = tdev->hw_version;
		break;
	case DRM_TILECOPY_PARAM_FW_VERSION:
		args->value = tdev->fw_version;
		break;
	case DRM_TILECOPY_PARAM_NUM_QUEUES:
		args->value = tdev->num_queues;
		break;
	case DRM_TILECOPY_PARAM_MAX_DIMS:
		args->value = DRM_TILECOPY_MAX_DIMS;
		break;
	case DRM_TILECOPY_PARAM_MAX_DESCS:
		args->value = TC_MAX_DESCS;
		break;
	case DRM_TILECOPY_PARAM_MAX_BOS:
		args->value = TC_MAX_BOS;
		break;
	case DRM_TILECOPY_PARAM_VA_START:
		args->value = TC_VA_START;
		break;
	case DRM_TILECOPY_PARAM_VA_SIZE:
		args->value = TC_VA_END - TC_VA_START;
		break;
	case DRM_TILECOPY_PARAM_TILEBUF_SIZE:
		args->value = tdev->tilebuf_size;
		break;
	case DRM_TILECOPY_PARAM_PCI_ID:
		args->value = (u32)tdev->pdev->vendor << 16 | tdev->pdev->device;
		break;
	case DRM_TILECOPY_PARAM_FEATURES:
		args->value = DRM_TILECOPY_FEATURE_DESC_STRIDE |
			      DRM_TILECOPY_FEATURE_STATUS_RESET |
			      DRM_TILECOPY_FEATURE_LIMITS;
		if (tdev->caps & TC_CAP_CONVERT)
			args->value |= DRM_TILECOPY_FEATURE_CONVERT;
		if (tc_userptr_supported(tdev))
			args->value |= DRM_TILECOPY_FEATURE_USERPTR;
		break;
	case DRM_TILECOPY_PARAM_DESC_SIZE:
		args->value = sizeof(struct drm_tilecopy_desc);
		break;
	case DRM_TILECOPY_PARAM_MAX_JOB_ELEMS:
		args->value = tdev->max_job_elems;
		break;
	case DRM_TILECOPY_PARAM_MAX_FILE_JOBS:
		args->value = TC_FILE_MAX_JOBS;
		break;
	case DRM_TILECOPY_PARAM_MAX_FILE_DESC_BYTES:
		args->value = TC_FILE_MAX_DESC_BYTES;
		break;
	case DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS:
		args->value = tc_job_timeout_ns();
		break;
	case DRM_TILECOPY_PARAM_BAN_HANGS:
		args->value = TC_BAN_HANGS;
		break;
	case DRM_TILECOPY_PARAM_CONVERT_TYPES:
		args->value = tdev->cvt_types;
		break;
	case DRM_TILECOPY_PARAM_FILE_HANGS:
		args->value = atomic_read(&to_tc_file(file)->ctx->hangs);
		break;
	default:
		drm_dbg(dev, "GET_PARAM: unknown param %u\n", args->param);
		return -EINVAL;
	}
	return 0;
}

/*
 * The accel core (CONFIG_DRM_ACCEL) is not in every distribution kernel:
 * Debian's arm64 6.12 leaves it out. Built against such a kernel, the
 * driver registers a DRM render node (/dev/dri/renderD*) instead of
 * /dev/accel/accel*: the same ioctls, buffer objects, syncobjs and sysfs
 * files; libtilecopy finds either. DRM_RENDER_ALLOW is what a render node
 * asks of every ioctl; the accel node ignores it.
 */
#if IS_ENABLED(CONFIG_DRM_ACCEL)
#define TC_DRIVER_NODE	DRIVER_COMPUTE_ACCEL
#define TC_NODE_FOPS	DRM_ACCEL_FOPS
#else
#define TC_DRIVER_NODE	DRIVER_RENDER
#define TC_NODE_FOPS	DRM_GEM_FOPS
#endif

static const struct drm_ioctl_desc tc_ioctls[] = {
#define TC_IOCTL(n, func) \
	DRM_IOCTL_DEF_DRV(TILECOPY_##n, tc_ioctl_##func, DRM_RENDER_ALLOW)
	TC_IOCTL(GET_PARAM, get_param),
	TC_IOCTL(BO_CREATE, bo_create),
	TC_IOCTL(BO_INFO, bo_info),
	TC_IOCTL(SUBMIT, submit),
	TC_IOCTL(WAIT, wait),
	TC_IOCTL(BO_USERPTR, bo_userptr),
#undef TC_IOCTL
};

/* The node's file operations plus fdinfo (drm-memory-* keys, as DRM drivers). */
static const struct file_operations tc_fops = {
	.owner = THIS_MODULE,
	TC_NODE_FOPS,
	.show_fdinfo = drm_show_fdinfo,
};

static void tc_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	drm_show_memory_stats(p, file);
}

static const struct drm_driver tc_drm_driver = {
	.driver_features = TC_DRIVER_NODE | DRIVER_GEM | DRIVER_SYNCOBJ,
	.open = tc_open,
	.postclose = tc_postclose,
	.show_fdinfo = tc_show_fdinfo,
	.gem_create_object = tc_gem_create_object,
	.gem_prime_import_sg_table = drm_gem_shmem_prime_import_sg_table,
	.ioctls = tc_ioctls,
	.num_ioctls = ARRAY_SIZE(tc_ioctls),
	.fops = &tc_fops,
	.name = "tilecopy",
	.desc = "tilecopy tile-copy engine",
	/* DRM_IOCTL_VERSION tells the uAPI's version, as GET_PARAM does */
	.major = DRM_TILECOPY_ABI_VERSION >> 16,
	.minor = DRM_TILECOPY_ABI_VERSION & 0xffff,
};

static void tc_reset_wq_destroy(struct drm_device *dev, void *wq)
{
	destroy_workqueue(wq);
}

/* Before the schedulers go: every job freed (drm_sched_fini() frees none). */
static void tc_jobs_drain(struct drm_device *dev, void *data)
{
	tc_device_jobs_drain(to_tc_device(dev));
}

static void tc_sched_fini_all(struct drm_device *dev, void *data)
{
	struct tc_device *tdev = to_tc_device(dev);
	unsigned int i;

	for (i = 0; i < tdev->num_queues; i++)
		tc_queue_sched_fini(&tdev->queues[i]);
}

static int tc_pci_setup(struct tc_device *tdev)
{
	struct pci_dev *pdev = tdev->pdev;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot enable the PCI device\n");
	pci_set_master(pdev);
	/*
	 * Page-table entries hold bus address bits 51:12 (TC_PTE_ADDR_MASK):
	 * the engine reaches no more than that. It walks scatterlists page
	 * by page, so a segment may be as long as the DMA API likes.
	 */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(TC_DMA_BITS));
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "no %u-bit DMA\n", TC_DMA_BITS);
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);

	tdev->regs = pcim_iomap_region(pdev, TC_BAR_REGS, "tilecopy-regs");
	if (IS_ERR(tdev->regs))
		return dev_err_probe(&pdev->dev, PTR_ERR(tdev->regs),
				     "cannot map the register BAR\n");
	tdev->boot = pcim_iomap_region(pdev, TC_BAR_BOOT, "tilecopy-boot");
	if (IS_ERR(tdev->boot))
		return dev_err_probe(&pdev->dev, PTR_ERR(tdev->boot),
				     "cannot map the boot window\n");
	if (pci_resource_len(pdev, TC_BAR_BOOT) < TC_BOOT_WINDOW_SIZE)
		return dev_err_probe(&pdev->dev, -ENODEV, "boot window too small\n");
	return 0;
}

/* Reset the engine, boot the firmware, start the queues' schedulers. */
static int tc_engine_start(struct tc_device *tdev)
{
	struct device *dev = &tdev->pdev->dev;
	unsigned int i;
	int ret;

	/*
	 * Ordered: one reset at a time. WQ_MEM_RECLAIM: resets signal fences,
	 * which memory reclaim may be waiting for.
	 */
	tdev->reset_wq = alloc_ordered_workqueue("tilecopy-reset-%s", WQ_MEM_RECLAIM,
						 pci_name(tdev->pdev));
	if (!tdev->reset_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&tdev->base, tc_reset_wq_destroy,
				       tdev->reset_wq);
	if (ret)
		return ret;

	ret = tc_device_fw_load(tdev);
	if (ret)
		return ret;
	ret = tc_device_hw_reset(tdev);
	if (ret)
		return dev_err_probe(dev, ret, "engine does not come out of reset\n");
	ret = tc_device_fw_boot(tdev);
	if (ret)
		return ret;

	for (i = 0; i < tdev->num_queues; i++) {
		ret = tc_queue_sched_init(&tdev->queues[i]);
		if (ret) {
			while (i--)
				tc_queue_sched_fini(&tdev->queues[i]);
			return dev_err_probe(dev, ret, "cannot create schedulers\n");
		}
	}
	/* At drm_device release: open files may use them until then. */
	ret = drmm_add_action_or_reset(&tdev->base, tc_sched_fini_all, NULL);
	if (ret)
		return ret;
	/* drmm actions run in reverse: this one before tc_sched_fini_all() */
	return drmm_add_action_or_reset(&tdev->base, tc_jobs_drain, NULL);
}

static int tc_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct tc_device *tdev;
	int ret;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tc_drm_driver, struct tc_device,
				  base);
	if (IS_ERR(tdev))
		return PTR_ERR(tdev);
	tdev->pdev = pdev;
	tdev->fw_name = tc_fw_name;
	pci_set_drvdata(pdev, tdev);

	ret = tc_pci_setup(tdev);
	if (ret)
		return ret;
	ret = tc_device_init(tdev);
	if (ret)
		return ret;
	ret = tc_engine_start(tdev);
	if (ret)
		goto err_stop;
	ret = tc_device_irq_init(tdev);
	if (ret)
		goto err_stop;
	tc_device_hw_setup(tdev);

	ret = drm_dev_register(&tdev->base, 0);
	if (ret) {
		dev_err_probe(&pdev->dev, ret, "cannot register the DRM device\n");
		goto err_stop;
	}
	tc_debugfs_init(tdev);
	drm_info(&tdev->base, "engine %u.%u, firmware %u.%u.%u, %u queues, %u KiB tile buffer\n",
		 tdev->hw_version >> 16, tdev->hw_version & 0xffff,
		 tdev->fw_version >> 16, (tdev->fw_version >> 8) & 0xff,
		 tdev->fw_version & 0xff, tdev->num_queues,
		 tdev->tilebuf_size / 1024);
	return 0;

err_stop:
	tc_device_fini(tdev);
	return ret;
}

/*
 * Unbind, hot-unplug or rmmod: files, mmaps and dma-bufs may stay open.
 * drm_dev_unplug() makes every later ioctl fail with -ENODEV and waits for
 * the ones inside a drm_dev_enter() section (resets included); then the
 * engine is stopped and every job on it settled, and every DMA mapping of
 * open files, their BOs and jobs still queued is undone: the device is
 * no longer the driver's to map for. The rest goes when the last file
 * does (drm_device release).
 */
static void tc_remove(struct pci_dev *pdev)
{
	struct tc_device *tdev = pci_get_drvdata(pdev);

	drm_dev_unplug(&tdev->base);
	tc_device_cancel_all(tdev);
	tc_device_dma_release(tdev);
}

static const struct pci_device_id tc_pci_ids[] = {
	{ PCI_DEVICE(TC_PCI_VENDOR_ID, TC_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, tc_pci_ids);

static struct pci_driver tc_pci_driver = {
	.name = "tilecopy",
	.id_table = tc_pci_ids,
	.probe = tc_probe,
	.remove = tc_remove,
	.dev_groups = tc_sysfs_groups,
};

static int __init tc_init(void)
{
	return pci_register_driver(&tc_pci_driver);
}
module_init(tc_init);

static void __exit tc_exit(void)
{
	pci_unregister_driver(&tc_pci_driver);
	tc_sched_stores_free();
}
module_exit(tc_exit);

MODULE_DESCRIPTION("DRM accel driver of the tilecopy tile-copy engine");
MODULE_AUTHOR("The tilecopy authors");
MODULE_LICENSE("GPL");
MODULE_FIRMWARE(TC_FW_DEFAULT);
MODULE_IMPORT_NS(DMA_BUF);
