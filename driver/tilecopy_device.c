// SPDX-License-Identifier: GPL-2.0-only
/* Copyright (c) 2026 The tilecopy authors */

#include <linux/crc32.h>
#include <linux/firmware.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "tilecopy_accel.h"
#include "tilecopy_device.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

static unsigned int tc_fw_timeout_ms = 2000;
module_param_named(fw_timeout_ms, tc_fw_timeout_ms, uint, 0644);
MODULE_PARM_DESC(fw_timeout_ms, "Firmware boot handshake timeout in ms (default 2000)");

/*
 * The engine resets its queues and tile buffer, and stops at its next tile
 * or row. A tile is bounded by the tile buffer and SUBMIT bounds a row
 * (DRM_TILECOPY_MAX_ROW_ELEMS, _BYTES: tens of milliseconds in the QEMU
 * model, on a loaded host): either ends well within this.
 */
#define TC_RESET_TIMEOUT_US	(500 * 1000)

static const char *const tc_fw_status_names[] = {
	[TC_FW_STATUS_NONE] = "not booted",
	[TC_FW_STATUS_OK] = "ok",
	[TC_FW_STATUS_BAD_MAGIC] = "bad magic",
	[TC_FW_STATUS_BAD_FORMAT] = "bad format version or header size",
	[TC_FW_STATUS_TRUNCATED] = "truncated image",
	[TC_FW_STATUS_BAD_CRC] = "bad checksum",
	[TC_FW_STATUS_BAD_HW] = "built for another hardware version",
	[TC_FW_STATUS_BAD_PAYLOAD] = "malformed payload",
};

static const char *tc_fw_status_name(u32 status)
{
	if (status < ARRAY_SIZE(tc_fw_status_names))
		return tc_fw_status_names[status];
	return "unknown status";
}

/* The shared header types its little-endian fields as plain __u16/__u32. */
static u32 tc_le32(u32 v)
{
	return le32_to_cpu((__force __le32)v);
}

static u16 tc_le16(u16 v)
{
	return le16_to_cpu((__force __le16)v);
}

/* CRC-32 as zlib computes it (pre- and post-inverted, reflected). */
static u32 tc_crc32(const void *data, size_t len)
{
	return ~crc32_le(~0u, data, len);
}

/**
 * tc_fw_check() - check a firmware image before it goes to the engine
 * @tdev: device
 * @data: image
 * @size: bytes of @data
 *
 * Refuses anything the engine would refuse, and more (the ABI range), with
 * one precise message naming what is wrong.
 *
 * Return: 0 or -EINVAL.
 */
static int tc_fw_check(struct tc_device *tdev, const u8 *data, size_t size)
{
	struct device *dev = &tdev->pdev->dev;
	const char *name = tdev->fw_name;
	struct tc_fw_header hdr;
	u32 crc, want;

	if (size < sizeof(hdr))
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: truncated, %zu bytes is smaller than the %zu-byte header\n",
				     name, size, sizeof(hdr));
	memcpy(&hdr, data, sizeof(hdr));
	if (tc_le32(hdr.magic) != TC_FW_MAGIC)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: bad magic 0x%08x, expected 0x%08x\n",
				     name, tc_le32(hdr.magic), TC_FW_MAGIC);
	if (tc_le16(hdr.format_version) != TC_FW_FORMAT_VERSION ||
	    tc_le16(hdr.header_size) != sizeof(hdr))
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: unsupported format %u (header %u bytes), expected format %u (header %zu bytes)\n",
				     name, tc_le16(hdr.format_version),
				     tc_le16(hdr.header_size),
				     TC_FW_FORMAT_VERSION, sizeof(hdr));
	want = tc_le32(hdr.header_crc32);
	hdr.header_crc32 = 0;
	crc = tc_crc32(&hdr, sizeof(hdr));
	if (crc != want)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: bad header checksum 0x%08x, header says 0x%08x\n",
				     name, crc, want);
	if (size - sizeof(hdr) < tc_le32(hdr.payload_size))
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: truncated, %zu payload bytes of %u\n",
				     name, size - sizeof(hdr),
				     tc_le32(hdr.payload_size));
	if (size > TC_BOOT_WINDOW_SIZE)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: %zu bytes do not fit the %u-byte boot window\n",
				     name, size, TC_BOOT_WINDOW_SIZE);
	want = tc_le32(hdr.payload_crc32);
	crc = tc_crc32(data + sizeof(hdr), tc_le32(hdr.payload_size));
	if (crc != want)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: bad payload checksum 0x%08x, header says 0x%08x\n",
				     name, crc, want);
	if (tc_le32(hdr.iface_min) > TC_FW_IFACE_VERSION ||
	    tc_le32(hdr.iface_max) < TC_FW_IFACE_VERSION)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: speaks interface 0x%08x..0x%08x, driver speaks 0x%08x\n",
				     name, tc_le32(hdr.iface_min),
				     tc_le32(hdr.iface_max), TC_FW_IFACE_VERSION);
	if (tc_le32(hdr.hw_version) >> 16 != tdev->hw_version >> 16)
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: built for hardware 0x%08x, engine is 0x%08x\n",
				     name, tc_le32(hdr.hw_version), tdev->hw_version);
	if (!tc_le32(hdr.max_queues))
		return dev_err_probe(dev, -EINVAL,
				     "firmware %s: runs no queue\n", name);

	tdev->num_queues = min(tdev->num_queues, tc_le32(hdr.max_queues));
	return 0;
}

/**
 * tc_device_fw_load() - request, check and keep the firmware image
 * @tdev: device
 *
 * The image stays in memory for the life of the device: an engine reset
 * loses the running firmware and it is booted again from this copy.
 *
 * Return: 0 or a negative error code, after one message saying why.
 */
int tc_device_fw_load(struct tc_device *tdev)
{
	struct device *dev = &tdev->pdev->dev;
	const struct firmware *fw;
	int ret;

	/* _nowarn: the message below is the one line about a missing file. */
	ret = firmware_request_nowarn(&fw, tdev->fw_name, dev);
	if (ret)
		return dev_err_probe(dev, ret, "firmware %s: cannot load it\n",
				     tdev->fw_name);

	ret = tc_fw_check(tdev, fw->data, fw->size);
	if (!ret) {
		tdev->fw_data = devm_kmemdup(dev, fw->data, fw->size, GFP_KERNEL);
		tdev->fw_size = fw->size;
		if (!tdev->fw_data)
			ret = -ENOMEM;
	}
	release_firmware(fw);
	return ret;
}

/**
 * tc_device_fw_boot() - upload the firmware and wait for the handshake
 * @tdev: device, just reset
 *
 * Return: 0 when the firmware runs, -EIO if the engine refused it,
 * -ETIMEDOUT if it did not answer within fw_timeout_ms.
 */
int tc_device_fw_boot(struct tc_device *tdev)
{
	struct device *dev = &tdev->pdev->dev;
	/* 0 would make readl_poll_timeout() wait forever. */
	unsigned int timeout_ms = max(READ_ONCE(tc_fw_timeout_ms), 1u);
	u32 status, fw_status;
	int ret;

	tdev->fw_ok = false;
	memcpy_toio(tdev->boot, tdev->fw_data, tdev->fw_size);
	tc_writel(tdev, TC_REG_BOOT_SIZE, tdev->fw_size);
	tc_writel(tdev, TC_REG_BOOT_CTRL, TC_BOOT_START);

	ret = readl_poll_timeout(tdev->regs + TC_REG_STATUS, status,
				 status & (TC_STATUS_FW_READY | TC_STATUS_FW_ERROR),
				 1000, timeout_ms * 1000ul);
	/* Also after resets, which a user's hung job can cause: ratelimited. */
	if (ret) {
		dev_err_ratelimited(dev, "firmware %s: no answer from the engine within %u ms\n",
				    tdev->fw_name, timeout_ms);
		return -ETIMEDOUT;
	}
	if (status & TC_STATUS_FW_ERROR) {
		fw_status = tc_readl(tdev, TC_REG_FW_STATUS);
		dev_err_ratelimited(dev, "firmware %s: refused by the engine: %s (status %u)\n",
				    tdev->fw_name, tc_fw_status_name(fw_status),
				    fw_status);
		return -EIO;
	}
	tdev->fw_version = tc_readl(tdev, TC_REG_FW_VERSION);
	tdev->fw_ok = true;
	return 0;
}

/**
 * tc_device_hw_stop() - stop the engine and wait until no job executes
 * @tdev: device
 *
 * The running job is abandoned (it counts as started, not done); progress
 * registers no longer move. Only an engine reset starts the engine again.
 *
 * Return: 0 or -ETIMEDOUT.
 */
int tc_device_hw_stop(struct tc_device *tdev)
{
	u32 status;
	int ret;

	tc_writel(tdev, TC_REG_CTRL, TC_CTRL_STOP);
	ret = readl_poll_timeout(tdev->regs + TC_REG_STATUS, status,
				 status & TC_STATUS_STOPPED, 100,
				 TC_RESET_TIMEOUT_US);
	if (ret)
		dev_err_ratelimited(&tdev->pdev->dev,
				    "engine did not stop (status 0x%08x)\n", status);
	return ret;
}

/**
 * tc_device_hw_reset() - reset the whole engine
 * @tdev: device
 *
 * Stops every queue and loses the firmware; the caller boots it again and
 * sets the registers up with tc_device_hw_setup().
 *
 * Return: 0 or -ETIMEDOUT.
 */
int tc_device_hw_reset(struct tc_device *tdev)
{
	u32 status;
	int ret;

	tdev->fw_ok = false;
	tc_writel(tdev, TC_REG_CTRL, TC_CTRL_RESET);
	ret = readl_poll_timeout(tdev->regs + TC_REG_STATUS, status,
				 !(status & (TC_STATUS_BUSY | TC_STATUS_FW_READY)),
				 100, TC_RESET_TIMEOUT_US);
	if (ret)
		dev_err_ratelimited(&tdev->pdev->dev,
				    "engine reset timed out (status 0x%08x)\n", status);
	return ret;
}

/**
 * tc_queue_hw_setup() - program and enable one queue's ring
 * @q: queue, with an empty ring (after a queue or engine reset)
 */
void tc_queue_hw_setup(struct tc_queue *q)
{
	tc_q_writel(q, TC_Q_RING_BASE_LO, lower_32_bits(q->ring_dma));
	tc_q_writel(q, TC_Q_RING_BASE_HI, upper_32_bits(q->ring_dma));
	tc_q_writel(q, TC_Q_RING_SIZE, TC_RING_ENTRIES);
	tc_q_writel(q, TC_Q_INT_STATUS, TC_Q_INT_DONE | TC_Q_INT_ERROR);
	tc_q_writel(q, TC_Q_INT_MASK, TC_Q_INT_DONE | TC_Q_INT_ERROR);
	tc_q_writel(q, TC_Q_CTRL, TC_Q_CTRL_ENABLE);
	q->tail = 0;
}

/**
 * tc_device_hw_setup() - program the engine after a reset and a boot
 * @tdev: device
 *
 * Context roots of open files and queue rings are written again; the rings
 * start empty.
 */
void tc_device_hw_setup(struct tc_device *tdev)
{
	unsigned int i;

	tc_writel(tdev, TC_REG_INT_STATUS, ~0u);
	tc_writel(tdev, TC_REG_INT_MASK,
		  TC_INT_FW_READY | TC_INT_FW_ERROR | TC_INT_RESET_DONE);

	tc_mmu_slots_restore(tdev);
	tc_writel(tdev, TC_REG_MMU_INVALIDATE_ALL, 1);

	for (i = 0; i < tdev->num_queues; i++)
		tc_queue_hw_setup(&tdev->queues[i]);
}

static irqreturn_t tc_device_irq(int irq, void *data)
{
	struct tc_device *tdev = data;
	u32 status = tc_readl(tdev, TC_REG_INT_STATUS);

	if (!status)
		return IRQ_NONE;
	tc_writel(tdev, TC_REG_INT_STATUS, status);
	drm_dbg_driver(&tdev->base, "global interrupt 0x%x\n", status);
	return IRQ_HANDLED;
}

/* The engine's interrupt enables, all on (as tc_device_hw_setup()) or off. */
static void tc_device_int_mask(struct tc_device *tdev, bool on)
{
	unsigned int i;

	tc_writel(tdev, TC_REG_INT_MASK,
		  on ? TC_INT_FW_READY | TC_INT_FW_ERROR | TC_INT_RESET_DONE : 0);
	for (i = 0; i < tdev->num_queues; i++)
		tc_q_writel(&tdev->queues[i], TC_Q_INT_MASK,
			    on ? TC_Q_INT_DONE | TC_Q_INT_ERROR : 0);
}

/*
 * INTx, hard part: is the (maybe shared) line ours? Then mask the engine,
 * which drops the level, until the thread has handled everything: a shared
 * line cannot be IRQF_ONESHOT when its other users are not.
 */
static irqreturn_t tc_device_intx(int irq, void *data)
{
	struct tc_device *tdev = data;
	u32 pending = tc_readl(tdev, TC_REG_INT_STATUS) & tc_readl(tdev, TC_REG_INT_MASK);
	unsigned int i;

	for (i = 0; i < tdev->num_queues && !pending; i++)
		pending = tc_q_readl(&tdev->queues[i], TC_Q_INT_STATUS) &
			  tc_q_readl(&tdev->queues[i], TC_Q_INT_MASK);
	if (!pending)
		return IRQ_NONE;
	tc_device_int_mask(tdev, false);
	return IRQ_WAKE_THREAD;
}

/* INTx, thread: what the MSI-X vectors do one by one, then unmask. */
static irqreturn_t tc_device_intx_thread(int irq, void *data)
{
	struct tc_device *tdev = data;
	unsigned int i;

	tc_device_irq(irq, tdev);
	for (i = 0; i < tdev->num_queues; i++)
		tc_queue_irq(irq, &tdev->queues[i]);
	/* an event that came meanwhile raises the line again */
	tc_device_int_mask(tdev, true);
	return IRQ_HANDLED;
}

/*
 * No MSI-X (a platform without an MSI controller, such as a GICv3 without
 * ITS, or pci=nomsi): the engine also drives the legacy INTx line, level
 * triggered, while any enabled status bit is set.
 */
static int tc_device_intx_init(struct tc_device *tdev, int msix_err)
{
	struct pci_dev *pdev = tdev->pdev;
	int ret;

	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_INTX);
	if (ret < 0)
		return dev_err_probe(&pdev->dev, ret, "no MSI-X and no INTx interrupt\n");
	tdev->intx = true;
	tdev->irqs[0] = pci_irq_vector(pdev, 0);
	ret = devm_request_threaded_irq(&pdev->dev, tdev->irqs[0],
					tc_device_intx, tc_device_intx_thread,
					IRQF_SHARED, KBUILD_MODNAME, tdev);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot request the INTx interrupt\n");
	dev_info(&pdev->dev, "no MSI-X (%pe): using the INTx interrupt\n",
		 ERR_PTR(msix_err));
	return 0;
}

/**
 * tc_device_irq_init() - allocate MSI-X vectors and request them
 * @tdev: device
 *
 * Vector q serves queue q; vector NUM_QUEUES the global events. Queue
 * events are handled in a thread: an error resets the queue, which may
 * wait for the engine. Without MSI-X, one INTx line serves them all.
 *
 * Return: 0 or a negative error code.
 */
int tc_device_irq_init(struct tc_device *tdev)
{
	struct pci_dev *pdev = tdev->pdev;
	unsigned int hw_queues = tc_readl(tdev, TC_REG_NUM_QUEUES);
	unsigned int i;
	int ret, irq;

	ret = pci_alloc_irq_vectors(pdev, hw_queues + 1, hw_queues + 1,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return tc_device_intx_init(tdev, ret);

	for (i = 0; i < tdev->num_queues; i++) {
		struct tc_queue *q = &tdev->queues[i];

		irq = pci_irq_vector(pdev, i);
		tdev->irqs[i] = irq;
		ret = devm_request_threaded_irq(&pdev->dev, irq, NULL,
						tc_queue_irq, IRQF_ONESHOT,
						q->name, q);
		if (ret)
			return dev_err_probe(&pdev->dev, ret,
					     "cannot request IRQ of queue %u\n", i);
	}
	irq = pci_irq_vector(pdev, hw_queues);
	ret = devm_request_irq(&pdev->dev, irq, tc_device_irq, 0,
			       dev_name(&pdev->dev), tdev);
	if (ret)
		return dev_err_probe(&pdev->dev, ret, "cannot request global IRQ\n");
	return 0;
}

/**
 * tc_device_irq_enable() - stop or restart interrupt handling
 * @tdev: device, inside drm_dev_enter() or its removal (the vectors go
 *	with the driver)
 * @enable: false waits for running handlers and holds new ones back
 */
void tc_device_irq_enable(struct tc_device *tdev, bool enable)
{
	unsigned int i, n = tdev->intx ? 1 : tdev->num_queues;

	/*
	 * The vectors cached at probe: pci_irq_vector() takes the MSI
	 * domain's mutex, which is held across allocations, and we run
	 * where fences are signalled.
	 */
	for (i = 0; i < n; i++) {
		if (enable)
			enable_irq(tdev->irqs[i]);
		else
			disable_irq(tdev->irqs[i]);
	}
}

static int tc_queue_init(struct tc_device *tdev, unsigned int idx)
{
	struct tc_queue *q = &tdev->queues[idx];

	q->tdev = tdev;
	q->idx = idx;
	snprintf(q->name, TC_SCHED_NAME_LEN, "tilecopy-%s-q%u",
		 pci_name(tdev->pdev), idx);
	INIT_LIST_HEAD(&q->active);
	q->fence_ctx = dma_fence_context_alloc(1);
	q->ring = dmam_alloc_coherent(&tdev->pdev->dev,
				      TC_RING_ENTRIES * sizeof(*q->ring),
				      &q->ring_dma, GFP_KERNEL);
	if (!q->ring)
		return -ENOMEM;
	return drmm_mutex_init(&tdev->base, &q->lock);
}

/**
 * tc_device_init() - read the engine's identity and set up the queues
 * @tdev: device with mapped BARs
 *
 * Return: 0 or a negative error code.
 */
int tc_device_init(struct tc_device *tdev)
{
	struct device *dev = &tdev->pdev->dev;
	u32 id = tc_readl(tdev, TC_REG_ID);
	unsigned int i;
	int ret;

	if (id != TC_ID_VALUE)
		return dev_err_probe(dev, -ENODEV, "bad ID register 0x%08x\n", id);
	tdev->hw_version = tc_readl(tdev, TC_REG_VERSION);
	tdev->tilebuf_size = tc_readl(tdev, TC_REG_TILEBUF_SIZE);
	tdev->num_queues = tc_readl(tdev, TC_REG_NUM_QUEUES);
	if (tdev->num_queues < 1 || tdev->num_queues > TC_MAX_QUEUES ||
	    tc_readl(tdev, TC_REG_NUM_CONTEXTS) < TC_NUM_CONTEXTS ||
	    tc_readl(tdev, TC_REG_VA_BITS) != TC_VA_BITS ||
	    tc_readl(tdev, TC_REG_MAX_DIMS) != DRM_TILECOPY_MAX_DIMS)
		return dev_err_probe(dev, -ENODEV,
				     "unsupported engine: %u queues, %u contexts, %u VA bits, %u dims\n",
				     tdev->num_queues,
				     tc_readl(tdev, TC_REG_NUM_CONTEXTS),
				     tc_readl(tdev, TC_REG_VA_BITS),
				     tc_readl(tdev, TC_REG_MAX_DIMS));
	/* 1.1 has the stop control and progress registers resets need. */
	if (tdev->hw_version >> 16 != TC_HW_VERSION >> 16 ||
	    tdev->hw_version < TC_HW_VERSION_1_1)
		return dev_err_probe(dev, -ENODEV, "unsupported engine version 0x%08x, need 1.1\n",
				     tdev->hw_version);
	tdev->max_job_elems = tc_readq(tdev, TC_REG_MAX_JOB_ELEMS_LO);
	/* CAPS is no register of a 1.1 engine: reading it there is an error */
	if (tdev->hw_version >= TC_HW_VERSION_1_2)
		tdev->caps = tc_readl(tdev, TC_REG_CAPS);
	/* the types the driver knows; NONE (bit 0) is no conversion */
	if (tdev->caps & TC_CAP_CONVERT)
		tdev->cvt_types = tc_readl(tdev, TC_REG_CVT_TYPES) &
				  GENMASK(DRM_TILECOPY_TYPE_U4, DRM_TILECOPY_TYPE_F32);

	ret = drmm_mutex_init(&tdev->base, &tdev->reset_lock);
	if (ret)
		return ret;
	ret = drmm_mutex_init(&tdev->base, &tdev->slot_lock);
	if (ret)
		return ret;
	ret = drmm_mutex_init(&tdev->base, &tdev->debugfs_lock);
	if (ret)
		return ret;
	ret = drmm_mutex_init(&tdev->base, &tdev->dma_lock);
	if (ret)
		return ret;
	INIT_LIST_HEAD(&tdev->dma_ctxs);
	INIT_LIST_HEAD(&tdev->dma_bos);
	INIT_LIST_HEAD(&tdev->dma_jobs);
	tc_device_jobs_init(tdev);
	tc_device_reset_init(tdev);
	ret = tc_sched_store_alloc(tdev);
	if (ret)
		return ret;
	for (i = 0; i < TC_MAX_QUEUES; i++) {
		ret = tc_queue_init(tdev, i);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * tc_device_fini() - stop the engine before the driver lets go of it
 * @tdev: device
 *
 * Bus mastering goes off whatever the reset did: the engine writes nothing
 * after this, not into the rings devres frees next either.
 *
 * Return: 0, or -ETIMEDOUT if the reset did not complete (the engine may
 * have run until bus mastering went off).
 */
int tc_device_fini(struct tc_device *tdev)
{
	int ret = tc_device_hw_reset(tdev);

	tc_writel(tdev, TC_REG_INT_MASK, 0);
	pci_clear_master(tdev->pdev);
	return ret;
}

/**
 * tc_device_dma_release() - undo every DMA mapping of the device
 * @tdev: device being removed: unplugged, the engine stopped and bus
 *	mastering off (tc_device_cancel_all())
 *
 * Open files, their BOs and jobs still queued behind fences outlive the
 * driver's binding to the device; their DMA mappings must not (the DMA
 * API frees them against a device the driver no longer owns, and
 * CONFIG_DMA_API_DEBUG reports them as pending at unbind). Each object
 * keeps its CPU-side state and records that its mapping is gone, so that
 * its later free does not undo it again.
 */
void tc_device_dma_release(struct tc_device *tdev)
{
	mutex_lock(&tdev->dma_lock);
	tc_jobs_dma_release(tdev);
	tc_gem_dma_release(tdev);
	tc_mmu_dma_release(tdev);
	mutex_unlock(&tdev->dma_lock);
}
