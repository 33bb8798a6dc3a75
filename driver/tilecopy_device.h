/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_DEVICE_H__
#define __TILECOPY_DEVICE_H__

#include <linux/io.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/gpu_scheduler.h>

#include "hw/tilecopy_hw.h"

/*
 * Ring entries per queue. Jobs in flight on a queue are bounded by the
 * scheduler's credit limit, which stays below the ring size so that every
 * in-flight job can be written again after a queue or engine reset.
 */
#define TC_RING_ENTRIES		64
#define TC_QUEUE_CREDITS	(TC_RING_ENTRIES / 2)

/* Driver limits reported by GET_PARAM. */
#define TC_MAX_DESCS		16384
#define TC_MAX_BOS		64
#define TC_MAX_IN_SYNCOBJS	64
#define TC_VA_START		0x100000000ull
#define TC_VA_END		BIT_ULL(TC_VA_BITS)
/* Bus address bits a page-table entry holds (TC_PTE_ADDR_MASK). */
#define TC_DMA_BITS		52

struct tc_device;

/**
 * struct tc_queue - one hardware queue and its scheduler.
 * @tdev: owning device.
 * @idx: queue index.
 * @sched: scheduler feeding this queue.
 * @name: scheduler and IRQ name.
 * @lock: protects @active, @seqno, the ring and the queue registers.
 * @active: jobs written to the ring and not finished, oldest first.
 * @ring: CPU address of the ring.
 * @ring_dma: bus address of the ring.
 * @tail: next ring slot the driver writes (free running).
 * @seqno: last sequence number handed out (also the hw fence seqno).
 * @fence_ctx: dma_fence context of the hardware fences.
 * @busy_since: when @active last became non-empty.
 */
struct tc_queue {
	struct tc_device *tdev;
	unsigned int idx;
	struct drm_gpu_scheduler sched;
	char name[32];
	struct mutex lock;	/* jobs on the engine, ring */
	struct list_head active;
	struct tc_ring_entry *ring;
	dma_addr_t ring_dma;
	u32 tail;
	u64 seqno;
	u64 fence_ctx;
	ktime_t busy_since;
};

/**
 * struct tc_stats - counters shown in sysfs.
 * @jobs_done: jobs that finished with DRM_TILECOPY_STATUS_OK.
 * @jobs_failed: jobs that finished with any other status.
 * @bytes_moved: bytes written by successful jobs.
 * @busy_ns: time with at least one job on a hardware queue, summed over
 *	queues.
 * @resets: engine resets since probe.
 * @bos: buffer objects alive (created or imported, with a handle once).
 * @bo_bytes: bytes of those buffer objects.
 */
struct tc_stats {
	atomic64_t jobs_done;
	atomic64_t jobs_failed;
	atomic64_t bytes_moved;
	atomic64_t busy_ns;
	atomic64_t resets;
	atomic64_t bos;
	atomic64_t bo_bytes;
};

/**
 * struct tc_device - one tile-copy engine.
 * @base: DRM device.
 * @pdev: PCI device.
 * @regs: BAR0, registers.
 * @boot: BAR2, firmware boot window.
 * @hw_version: TC_REG_VERSION.
 * @tilebuf_size: TC_REG_TILEBUF_SIZE.
 * @num_queues: queues in use (engine and firmware limit).
 * @fw_name: firmware file requested at probe.
 * @fw_data: copy of the firmware image, booted again after every reset.
 * @fw_size: bytes of @fw_data.
 * @fw_version: version reported by the running firmware.
 * @fw_ok: firmware running; jobs fail with NO_FIRMWARE otherwise.
 * @reset_lock: serialises engine resets (timeouts, debugfs).
 * @reset_wq: ordered workqueue running every queue's timeout handler, so
 *	that one engine reset never races another.
 * @ctx_lock: protects @ctx_slots and @ctx_roots.
 * @ctx_slots: MMU context slots in use.
 * @ctx_roots: level-1 table of each context in use, written again after
 *	an engine reset.
 * @stats: counters.
 * @queues: hardware queues.
 */
struct tc_device {
	struct drm_device base;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *boot;
	u32 hw_version;
	u32 tilebuf_size;
	unsigned int num_queues;
	const char *fw_name;
	void *fw_data;
	size_t fw_size;
	u32 fw_version;
	bool fw_ok;
	struct mutex reset_lock;	/* one reset at a time */
	struct workqueue_struct *reset_wq;
	struct mutex ctx_lock;	/* context slots */
	DECLARE_BITMAP(ctx_slots, TC_NUM_CONTEXTS);
	dma_addr_t ctx_roots[TC_NUM_CONTEXTS];
	struct tc_stats stats;
	struct tc_queue queues[TC_MAX_QUEUES];
};

#define to_tc_device(drm) container_of_const(drm, struct tc_device, base)

static inline u32 tc_readl(struct tc_device *tdev, u32 reg)
{
	return readl(tdev->regs + reg);
}

static inline void tc_writel(struct tc_device *tdev, u32 reg, u32 val)
{
	writel(val, tdev->regs + reg);
}

static inline u64 tc_readq(struct tc_device *tdev, u32 reg_lo)
{
	u32 lo = readl(tdev->regs + reg_lo);

	return lo | (u64)readl(tdev->regs + reg_lo + 4) << 32;
}

static inline u32 tc_q_readl(struct tc_queue *q, u32 reg)
{
	return readl(q->tdev->regs + TC_Q_BASE(q->idx) + reg);
}

static inline void tc_q_writel(struct tc_queue *q, u32 reg, u32 val)
{
	writel(val, q->tdev->regs + TC_Q_BASE(q->idx) + reg);
}

static inline u64 tc_q_readq(struct tc_queue *q, u32 reg_lo)
{
	return tc_readq(q->tdev, TC_Q_BASE(q->idx) + reg_lo);
}

int tc_device_init(struct tc_device *tdev);
void tc_device_fini(struct tc_device *tdev);
int tc_device_fw_load(struct tc_device *tdev);
int tc_device_fw_boot(struct tc_device *tdev);
int tc_device_hw_reset(struct tc_device *tdev);
void tc_device_hw_setup(struct tc_device *tdev);
void tc_queue_hw_setup(struct tc_queue *q);
int tc_device_irq_init(struct tc_device *tdev);
void tc_device_irq_enable(struct tc_device *tdev, bool enable);
void tc_device_ctx_root_write(struct tc_device *tdev, unsigned int slot,
			      dma_addr_t root);

extern const struct attribute_group *tc_sysfs_groups[];
void tc_debugfs_init(struct tc_device *tdev);

#endif /* __TILECOPY_DEVICE_H__ */
