/* SPDX-License-Identifier: GPL-2.0-only */
/* Copyright (c) 2026 The tilecopy authors */

#ifndef __TILECOPY_DEVICE_H__
#define __TILECOPY_DEVICE_H__

#include <linux/io.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <drm/drm_device.h>
#include <drm/gpu_scheduler.h>

#include "hw/tilecopy_hw.h"

/*
 * Ring entries per queue. Jobs in flight on a queue are bounded by the
 * scheduler's credit limit (tc_queue_sched_init()), which stays below the
 * ring size so that every in-flight job can be written again after an
 * engine reset.
 */
#define TC_RING_ENTRIES		64

/* Driver limits reported by GET_PARAM. */
#define TC_MAX_DESCS		16384
#define TC_MAX_BOS		64
#define TC_MAX_IN_SYNCOBJS	64
/* desc_size may grow with the uAPI; a page per descriptor is plenty. */
#define TC_MAX_DESC_SIZE	4096
#define TC_VA_START		0x100000000ull
#define TC_VA_END		BIT_ULL(TC_VA_BITS)

/*
 * Per open file: jobs submitted and not yet finished, and the kernel memory
 * their descriptors hold. SUBMIT fails with -EBUSY beyond either (the
 * caller waits for one of its jobs, as with ivpu's full job queue), so one
 * file can neither fill the kernel's memory nor the scheduler's queues.
 * 256 jobs keep four queues fed many times over; 20 MiB hold five jobs of
 * the largest size (TC_MAX_DESCS descriptors of 256 bytes, 4 MiB).
 */
#define TC_FILE_MAX_JOBS	256
#define TC_FILE_MAX_DESC_BYTES	(20ull << 20)

/*
 * Descriptor slots per open file for jobs of one page of descriptors (16):
 * allocated and mapped once, they spare such a job a vmalloc, an sg table,
 * a DMA mapping and an engine MMU mapping and unmapping (docs/performance.md).
 * 16 cover a few jobs in flight on each queue; more small jobs at once take
 * the large jobs' path. 64 KiB per file at most, allocated as used.
 */
#define TC_DESC_POOL_SLOTS	16

/* Hangs (TIMEOUT) after which a file is banned, as i915 and xe do. */
#define TC_BAN_HANGS		3

struct tc_device;
struct tc_mmu_ctx;
struct tc_sched_store;

/**
 * struct tc_queue - one hardware queue and its scheduler.
 * @tdev: owning device.
 * @idx: queue index.
 * @sched: scheduler feeding this queue, in the device's &tc_sched_store.
 * @name: scheduler and IRQ name, in the same store.
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
	struct drm_gpu_scheduler *sched;
	char *name;
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
 * @resets: engine resets since probe (hangs, forced, failed ones too).
 * @hangs: jobs that hung the engine (TIMEOUT).
 * @reset_hits: jobs a reset found started and not finished (RESET).
 * @reset_requeued: jobs a reset found not yet started, given to the ring
 *	again.
 * @tdr_skips: scheduler timeouts of jobs that had not hung: waiting behind
 *	other queues, or not yet as long on the engine as a job may be.
 * @bos: buffer objects alive (created, imported or over user memory,
 *	with a handle once).
 * @bo_bytes: bytes of those buffer objects (whole pages).
 * @pinned_bytes: bytes of user pages pinned by BO_USERPTR (whole pages),
 *	from the pin to the unpin, handle or not.
 */
struct tc_stats {
	atomic64_t jobs_done;
	atomic64_t jobs_failed;
	atomic64_t bytes_moved;
	atomic64_t busy_ns;
	atomic64_t resets;
	atomic64_t hangs;
	atomic64_t reset_hits;
	atomic64_t reset_requeued;
	atomic64_t tdr_skips;
	atomic64_t bos;
	atomic64_t bo_bytes;
	atomic64_t pinned_bytes;
};

/**
 * struct tc_device - one tile-copy engine.
 * @base: DRM device.
 * @pdev: PCI device.
 * @regs: BAR0, registers.
 * @boot: BAR2, firmware boot window.
 * @hw_version: TC_REG_VERSION.
 * @caps: TC_REG_CAPS (engine 1.2 and later; 0 before): TC_CAP_CONVERT says
 *	typed descriptors run, and jobs go to the engine with 256-byte
 *	descriptors (TC_RING_F_DESC_256); without it, 192-byte ones.
 * @cvt_types: TC_REG_CVT_TYPES with TC_CAP_CONVERT, else 0.
 * @tilebuf_size: TC_REG_TILEBUF_SIZE.
 * @max_job_elems: TC_REG_MAX_JOB_ELEMS, the work bound of a job.
 * @num_queues: queues in use (engine and firmware limit).
 * @intx: no MSI-X: one legacy INTx line serves every queue and event.
 * @irqs: Linux IRQ of each queue's vector (@irqs[0] the INTx line), read
 *	once at probe: resets enable and disable them where fences are
 *	signalled, and pci_irq_vector() may not be called there.
 * @fw_name: firmware file requested at probe.
 * @fw_data: copy of the firmware image, booted again after every reset.
 * @fw_size: bytes of @fw_data.
 * @fw_version: version reported by the running firmware.
 * @fw_ok: firmware running; jobs fail with NO_FIRMWARE otherwise.
 * @wedged: a reset failed: the engine is off the bus until the driver is
 *	bound again; ioctls fail with -EIO.
 * @reset_lock: serialises engine resets with the device's removal.
 * @reset_wq: ordered, WQ_MEM_RECLAIM workqueue running every reset: the
 *	queues' timeout handlers, @fault_work and @reset_work.
 * @fault_work: recovers queues the engine halted on a failed job.
 * @fault_queues: bit q: queue q has an error to recover from.
 * @reset_work: a forced reset (debugfs), its result in @reset_ret.
 * @reset_ret: result of the last forced reset.
 * @debugfs_lock: one forced reset at a time, with its result.
 * @reap_list: jobs the scheduler is done with, freed by @reap_work.
 * @reap_work: frees jobs outside the fence signalling path.
 * @jobs_alive: jobs allocated and not yet freed.
 * @jobs_wq: woken when @jobs_alive drops to 0.
 * @slot_lock: protects @slot_owner, @slot_clock and the contexts' slots.
 * @slot_owner: address space using each engine MMU context, or NULL.
 * @slot_clock: stamp for choosing the least recently used slot.
 * @dma_lock: protects @dma_ctxs, @dma_bos and @dma_jobs.
 * @dma_ctxs: address spaces (their page tables), struct tc_mmu_ctx.
 * @dma_bos: buffer objects with a device mapping, struct tc_bo.
 * @dma_jobs: DMA-mapped descriptors of jobs and of the files' descriptor
 *	pools (&tc_mmu_ctx.pool_free), struct tc_job_descs.
 *	The three lists are what tc_device_dma_release() undoes at removal:
 *	files may stay open, and nothing may stay mapped to a device the
 *	driver no longer owns. Entries are added inside drm_dev_enter(), so
 *	none is added after the removal's drm_dev_unplug().
 * @stats: counters.
 * @sched_store: the queues' schedulers and names, which outlive the device
 *	(tc_sched_store_alloc()).
 * @queues: hardware queues.
 */
struct tc_device {
	struct drm_device base;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *boot;
	u32 hw_version;
	u32 caps;
	u32 cvt_types;
	u32 tilebuf_size;
	u64 max_job_elems;
	unsigned int num_queues;
	bool intx;
	int irqs[TC_MAX_QUEUES];
	const char *fw_name;
	void *fw_data;
	size_t fw_size;
	u32 fw_version;
	bool fw_ok;
	bool wedged;
	struct mutex reset_lock;	/* reset vs removal */
	struct workqueue_struct *reset_wq;
	struct work_struct fault_work;
	unsigned long fault_queues;
	struct work_struct reset_work;
	int reset_ret;
	struct mutex debugfs_lock;	/* forced resets */
	struct llist_head reap_list;
	struct work_struct reap_work;
	atomic_t jobs_alive;
	wait_queue_head_t jobs_wq;
	struct mutex slot_lock;	/* engine MMU context slots */
	struct tc_mmu_ctx *slot_owner[TC_NUM_CONTEXTS];
	u64 slot_clock;
	struct mutex dma_lock;	/* the dma_* lists */
	struct list_head dma_ctxs;
	struct list_head dma_bos;
	struct list_head dma_jobs;
	struct tc_stats stats;
	struct tc_sched_store *sched_store;
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

/*
 * A 64-bit register as 32-bit reads: HI, LO, HI again until HI holds
 * still, so that a counter (DONE_SEQNO, STARTED_SEQNO) carrying into its
 * high word between the reads is not torn. JOB_NS latches HI when LO is
 * read: the HI read after LO is the one that pairs with it, as here.
 */
static inline u64 tc_readq(struct tc_device *tdev, u32 reg_lo)
{
	u32 hi = readl(tdev->regs + reg_lo + 4), prev, lo;

	do {
		prev = hi;
		lo = readl(tdev->regs + reg_lo);
		hi = readl(tdev->regs + reg_lo + 4);
	} while (hi != prev);
	return (u64)hi << 32 | lo;
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
int tc_device_fini(struct tc_device *tdev);
void tc_device_dma_release(struct tc_device *tdev);
int tc_device_fw_load(struct tc_device *tdev);
int tc_device_fw_boot(struct tc_device *tdev);
int tc_device_hw_stop(struct tc_device *tdev);
int tc_device_hw_reset(struct tc_device *tdev);
void tc_device_hw_setup(struct tc_device *tdev);
void tc_queue_hw_setup(struct tc_queue *q);
int tc_device_irq_init(struct tc_device *tdev);
void tc_device_irq_enable(struct tc_device *tdev, bool enable);

extern const struct attribute_group *tc_sysfs_groups[];
void tc_debugfs_init(struct tc_device *tdev);

#endif /* __TILECOPY_DEVICE_H__ */
