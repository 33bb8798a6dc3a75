/* SPDX-License-Identifier: MIT */
/*
 * tilecopy_hw.h - register map and in-memory formats of the tile-copy engine.
 *
 * The single description of the hardware, shared by the QEMU device model,
 * the kernel driver, the device tests and the firmware builder.
 * docs/hardware.md explains every entry; keep the two in step.
 *
 * Plain constants only (no GENMASK), so that QEMU, the kernel and user space
 * can all include it. Registers are 32 bits wide and little endian; 64-bit
 * values are two registers, low word first. Every in-memory structure below
 * is little endian.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_HW_H
#define TILECOPY_HW_H

#include <linux/types.h>

/* ---- PCI identity ------------------------------------------------------ */

/* 0x1234 is the vendor ID QEMU uses for its own experimental devices (edu). */
#define TC_PCI_VENDOR_ID		0x1234
#define TC_PCI_DEVICE_ID		0x7c01
#define TC_PCI_CLASS			0x1200	/* processing accelerator */

/* BAR0: registers (64 KiB). BAR1: MSI-X table and PBA. BAR2: boot window. */
#define TC_BAR_REGS			0
#define TC_BAR_MSIX			1
#define TC_BAR_BOOT			2
#define TC_REGS_SIZE			0x10000
#define TC_BOOT_WINDOW_SIZE		0x40000	/* 256 KiB firmware SRAM */

/* ---- global registers (BAR0) ------------------------------------------ */

#define TC_REG_ID			0x000	/* RO: TC_ID_VALUE */
#define  TC_ID_VALUE			0x54494c45	/* "TILE" */
#define TC_REG_VERSION			0x004	/* RO: major << 16 | minor */
#define  TC_HW_VERSION			0x00010002
#define TC_REG_NUM_QUEUES		0x008	/* RO: 1..TC_MAX_QUEUES */
#define TC_REG_TILEBUF_SIZE		0x00c	/* RO: bytes of tile buffer */
#define TC_REG_MAX_DIMS			0x010	/* RO: DRM_TILECOPY_MAX_DIMS */
#define TC_REG_VA_BITS			0x014	/* RO: TC_VA_BITS */
#define TC_REG_NUM_CONTEXTS		0x018	/* RO: TC_NUM_CONTEXTS */

#define TC_REG_CTRL			0x020	/* RW */
#define  TC_CTRL_RESET			(1u << 0)	/* W1: reset engine */
#define TC_REG_STATUS			0x024	/* RO */
#define  TC_STATUS_FW_READY		(1u << 0)	/* firmware running */
#define  TC_STATUS_FW_ERROR		(1u << 1)	/* boot refused */
#define  TC_STATUS_BUSY			(1u << 2)	/* a queue is working */
#define TC_REG_FW_VERSION		0x028	/* RO: running firmware */
#define TC_REG_FW_STATUS		0x02c	/* RO: enum tc_fw_status */

#define TC_REG_INT_STATUS		0x030	/* RW1C: global events */
#define TC_REG_INT_MASK			0x034	/* RW: 1 = enabled */
#define  TC_INT_FW_READY		(1u << 0)
#define  TC_INT_FW_ERROR		(1u << 1)
#define  TC_INT_RESET_DONE		(1u << 2)

/* Boot: copy the image into BAR2, write its size, then TC_BOOT_START. */
#define TC_REG_BOOT_SIZE		0x040	/* RW: image bytes in BAR2 */
#define TC_REG_BOOT_CTRL		0x044	/* WO */
#define  TC_BOOT_START			(1u << 0)

/* MMU */
#define TC_REG_MMU_INVALIDATE		0x050	/* WO: context id; flush TLB */
#define TC_REG_MMU_INVALIDATE_ALL	0x054	/* WO: any value */

/* Counters, 64 bit, RO, reset only by engine reset. */
#define TC_REG_JOBS_DONE_LO		0x080
#define TC_REG_JOBS_DONE_HI		0x084
#define TC_REG_JOBS_FAILED_LO		0x088
#define TC_REG_JOBS_FAILED_HI		0x08c
#define TC_REG_BYTES_MOVED_LO		0x090
#define TC_REG_BYTES_MOVED_HI		0x094
#define TC_REG_BUSY_NS_LO		0x098	/* time with a job running */
#define TC_REG_BUSY_NS_HI		0x09c

/* MMU root (bus address of the level-1 table) per context, 64 bit, RW. */
#define TC_NUM_CONTEXTS			64
#define TC_REG_CTX_ROOT_LO(c)		(0x400 + (c) * 8)
#define TC_REG_CTX_ROOT_HI(c)		(0x404 + (c) * 8)

/* ---- per-queue registers (BAR0) ---------------------------------------- */

#define TC_MAX_QUEUES			8
#define TC_Q_BASE(q)			(0x1000 + (q) * 0x100)

#define TC_Q_RING_BASE_LO		0x00	/* RW: bus address, 64 B aligned */
#define TC_Q_RING_BASE_HI		0x04
#define TC_Q_RING_SIZE			0x08	/* RW: entries, power of 2, <= 4096 */
#define TC_Q_HEAD			0x0c	/* RO: next entry the engine reads */
#define TC_Q_TAIL			0x10	/* RW: next entry the driver writes */
#define TC_Q_DOORBELL			0x14	/* WO: any value wakes the queue */
#define TC_Q_CTRL			0x18	/* RW */
#define  TC_Q_CTRL_ENABLE		(1u << 0)
#define  TC_Q_CTRL_RESET		(1u << 1)	/* W1: stop, clear, HEAD=TAIL=0 */
#define TC_Q_STATUS			0x1c	/* RO */
#define  TC_Q_STATUS_BUSY		(1u << 0)	/* running a job */
#define  TC_Q_STATUS_HALTED		(1u << 1)	/* stopped on an error */
#define TC_Q_INT_STATUS			0x20	/* RW1C */
#define TC_Q_INT_MASK			0x24	/* RW: 1 = enabled */
#define  TC_Q_INT_DONE			(1u << 0)	/* a job completed */
#define  TC_Q_INT_ERROR			(1u << 1)	/* queue halted */
#define TC_Q_ERR_CODE			0x28	/* RO: enum drm_tilecopy_status */
#define TC_Q_ERR_DESC			0x2c	/* RO: descriptor index in job */
#define TC_Q_ERR_ADDR_LO		0x30	/* RO: faulting device VA */
#define TC_Q_ERR_ADDR_HI		0x34
#define TC_Q_DONE_SEQNO_LO		0x38	/* RO: seqno of last good job */
#define TC_Q_DONE_SEQNO_HI		0x3c
#define TC_Q_ERR_SEQNO_LO		0x40	/* RO: seqno of the failed job */
#define TC_Q_ERR_SEQNO_HI		0x44

/*
 * MSI-X: vector q signals queue q (TC_Q_INT_*), vector NUM_QUEUES signals
 * the global events (TC_INT_*). NUM_QUEUES + 1 vectors in all.
 */

/**
 * struct tc_ring_entry - one job in a queue's ring (64 bytes).
 * @desc_addr: bus address of the descriptor array (not translated).
 * @desc_count: descriptors in the array, >= 1.
 * @ctx: MMU context whose tables translate the descriptors' addresses.
 * @seqno: written to TC_Q_DONE_SEQNO when the job completes.
 * @flags: TC_RING_F_* (below); other bits must be zero.
 */
struct tc_ring_entry {
	__u64 desc_addr;
	__u32 desc_count;
	__u32 ctx;
	__u64 seqno;
	__u32 flags;
	__u32 reserved0;
	__u64 reserved[4];
};

/* ---- MMU ---------------------------------------------------------------- */

/*
 * 39-bit device VA, 4 KiB pages, three levels of 512 eight-byte entries:
 * L1 index VA[38:30], L2 index VA[29:21], L3 index VA[20:12].
 * L1 and L2 entries point to the next table (VALID + address); L3 entries
 * map a page (VALID + permissions + address).
 */
#define TC_VA_BITS			39
#define TC_PAGE_SHIFT			12
#define TC_PAGE_SIZE			(1ull << TC_PAGE_SHIFT)
#define TC_PT_ENTRIES			512
#define TC_PTE_VALID			(1ull << 0)
#define TC_PTE_READ			(1ull << 1)
#define TC_PTE_WRITE			(1ull << 2)
#define TC_PTE_ADDR_MASK		0x000ffffffffff000ull

/* ---- firmware image ----------------------------------------------------- */

#define TC_FW_MAGIC			0x57464354	/* "TCFW" */
#define TC_FW_FORMAT_VERSION		1

/*
 * TC_FW_IFACE_VERSION - the driver/firmware interface this header
 * describes, major << 16 | minor: the ring entries, the registers the
 * firmware serves. It is not the uAPI's DRM_TILECOPY_ABI_VERSION: the uAPI
 * grows (ioctls, parameters) without touching the firmware, and shipped
 * firmware keeps working. Images name the range they speak.
 */
#define TC_FW_IFACE_VERSION		0x00010000

/**
 * struct tc_fw_header - start of a firmware image (64 bytes, little endian).
 * @magic: TC_FW_MAGIC.
 * @format_version: TC_FW_FORMAT_VERSION.
 * @header_size: sizeof(struct tc_fw_header).
 * @fw_version: major << 16 | minor << 8 | patch.
 * @iface_min: lowest firmware interface version (TC_FW_IFACE_VERSION)
 *	the firmware speaks.
 * @iface_max: highest firmware interface version the firmware speaks.
 * @hw_version: TC_HW_VERSION the image is built for (major must match).
 * @features: TC_FW_FEAT_* bits.
 * @max_queues: queues the firmware can run.
 * @tilebuf_size: tile-buffer bytes the firmware expects at least.
 * @payload_size: bytes of payload after the header.
 * @payload_crc32: CRC-32 (IEEE 802.3, as zlib's crc32) of the payload.
 * @header_crc32: CRC-32 of this header with this field set to zero.
 * @reserved: zero.
 */
struct tc_fw_header {
	__u32 magic;
	__u16 format_version;
	__u16 header_size;
	__u32 fw_version;
	__u32 iface_min;
	__u32 iface_max;
	__u32 hw_version;
	__u32 features;
	__u32 max_queues;
	__u32 tilebuf_size;
	__u32 payload_size;
	__u32 payload_crc32;
	__u32 header_crc32;
	__u32 reserved[4];
};

#define TC_FW_FEAT_COPY			(1u << 0)
#define TC_FW_FEAT_FILL			(1u << 1)
#define TC_FW_FEAT_WRITE64		(1u << 2)

/*
 * Payload: records { __u16 type; __u16 len; __u8 data[len]; } padded to 4
 * bytes, ending with TC_FW_REC_END. The engine needs QUEUES and OPS to
 * start its queues.
 */
#define TC_FW_REC_END			0
#define TC_FW_REC_QUEUES		1	/* __u32: queues to start */
#define TC_FW_REC_OPS			2	/* __u32: bitmap of 1 << op enabled */
#define TC_FW_REC_TILE			3	/* __u32 rows, __u32 cols of a tile */
#define TC_FW_REC_NAME			4	/* build string, not NUL terminated */

/**
 * enum tc_fw_status - TC_REG_FW_STATUS after a boot attempt.
 */
enum tc_fw_status {
	TC_FW_STATUS_NONE = 0,		/* never booted since reset */
	TC_FW_STATUS_OK = 1,
	TC_FW_STATUS_BAD_MAGIC = 2,
	TC_FW_STATUS_BAD_FORMAT = 3,	/* format version or header size */
	TC_FW_STATUS_TRUNCATED = 4,	/* size smaller than header + payload */
	TC_FW_STATUS_BAD_CRC = 5,
	TC_FW_STATUS_BAD_HW = 6,	/* built for another hw major version */
	TC_FW_STATUS_BAD_PAYLOAD = 7,	/* malformed or missing records */
};

/* ---- appended (device model) -------------------------------------------- */

/* TC_Q_ERR_DESC when the failure is not in a descriptor (ring entry, firmware). */
#define TC_Q_ERR_DESC_NONE		0xffffffffu

/*
 * ---- appended in engine version 1.1 ----------------------------------------
 *
 * Everything a driver needs to reset the engine without losing track of
 * which job ran: a stop control, per-queue progress, the time the engine has
 * spent on each queue's current job, descriptors read through the MMU, and
 * a bound on the work of one job. docs/hardware.md, "Stopping and progress".
 */

/*
 * CTRL.STOP (RW): 1 = take no new job and abandon the running one at its
 * next tile or row (its writes so far stay, HEAD does not advance: that job
 * counts as started, not done). STATUS.STOPPED reads 1 once no job executes.
 * Clearing STOP resumes every queue from HEAD, the abandoned job from its
 * first descriptor: a driver that stopped the engine resets it instead.
 */
#define  TC_CTRL_STOP			(1u << 1)
#define  TC_STATUS_STOPPED		(1u << 3)	/* STOP set, nothing runs */

/* RO: elements (product of the extents, summed over descriptors) one job
 * may write; a descriptor that takes the sum beyond it is BAD_DESC. */
#define TC_REG_MAX_JOB_ELEMS_LO		0x0a0
#define TC_REG_MAX_JOB_ELEMS_HI		0x0a4
#define  TC_MAX_JOB_ELEMS		(1ull << 32)

/* RO: seqno of the last ring entry the queue started (read, before its
 * first descriptor). A job is done if seqno <= DONE_SEQNO, started and
 * unfinished if DONE_SEQNO < seqno <= STARTED_SEQNO, else never started. */
#define TC_Q_STARTED_SEQNO_LO		0x48
#define TC_Q_STARTED_SEQNO_HI		0x4c
/* RO: ns the engine has spent on the queue's started, unfinished job (0 if
 * none). Reading LO latches the value HI returns. */
#define TC_Q_JOB_NS_LO			0x50
#define TC_Q_JOB_NS_HI			0x54

/* tc_ring_entry.flags: desc_addr is a device VA of the entry's context,
 * read through the MMU (read permission needed), not a bus address. */
#define TC_RING_F_DESC_VA		(1u << 0)

/* Engine version 1.1: the entries above. */
#define TC_HW_VERSION_1_1		0x00010001

/*
 * ---- appended in engine version 1.2 ----------------------------------------
 *
 * Typed descriptors (ABI 1.2 of the uAPI: element conversion, 4-bit
 * elements). An engine that converts says so in CAPS; a job tells the
 * engine that its descriptors are the 256-byte struct with a ring-entry
 * flag, so that entries without it (every 1.1 driver's) keep reading
 * 192-byte descriptors. docs/hardware.md, 5.1 and 5.4.
 */

/* RO (1.2): TC_CAP_* bits. Absent (an unknown register) before 1.2. */
#define TC_REG_CAPS			0x0a8
#define  TC_CAP_CONVERT			(1u << 0)	/* typed descriptors */
/* RO (1.2): bit (1 << type) per enum drm_tilecopy_type converted. */
#define TC_REG_CVT_TYPES		0x0ac

/*
 * tc_ring_entry.flags (1.2, TC_CAP_CONVERT): the descriptors are
 * struct drm_tilecopy_desc of 256 bytes, DRM_TILECOPY_DESC_SIZE_1_2 apart,
 * typed fields included. Without it they are the first 192 bytes
 * (DRM_TILECOPY_DESC_SIZE_1_0) of it, 192 bytes apart, the rest taken as
 * zero. An engine without TC_CAP_CONVERT refuses the flag (BAD_DESC).
 */
#define TC_RING_F_DESC_256		(1u << 1)
#define TC_DESC_SIZE_1_2		256

/* Engine version 1.2: the entries above. */
#define TC_HW_VERSION_1_2		0x00010002

#endif /* TILECOPY_HW_H */
