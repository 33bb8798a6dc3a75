/* SPDX-License-Identifier: MIT */
/*
 * qtest.h - drive the tilecopy engine in a QEMU started with -accel qtest.
 *
 * QEMU runs with the qtest accelerator (no guest CPU) and speaks QEMU's
 * qtest text protocol on its stdin/stdout (readl/writel/outl/inl...). Guest
 * RAM is a shared memory-backend-file that this process maps too, so rings,
 * descriptors, page tables and tensors are written and checked at memory
 * speed. PCI configuration goes through ports 0xcf8/0xcfc; BARs are placed
 * by the test (no firmware runs under qtest).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_QTEST_H
#define TC_QTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "hw/tilecopy_hw.h"
#include "tilecopy_accel.h"

#define QT_RAM_SIZE	(512ull << 20)
/* Test allocations start above the legacy PC holes (VGA, BIOS). */
#define QT_ALLOC_BASE	(16ull << 20)
/* PCI memory window used for the BARs (q35 hole, below the IOAPIC). */
#define QT_BAR_BASE	0xe0000000ull

struct qts {
	pid_t pid;
	FILE *to;
	FILE *from;
	uint8_t *ram;
	uint64_t ram_size;
	uint64_t brk;		/* bump allocator in guest RAM */
	char ram_path[128];
	char log_path[128];
	/* interrupt lines seen through irq_intercept_in (1 = raised) */
	int irq[64];
	unsigned irq_events;
};

/* The QEMU binary: $TC_QEMU, else build/qemu/qemu-system-x86_64. */
const char *qts_binary(void);
/* Exit 77 (skip) with a reason when the binary is absent. */
void qts_require_binary(void);

/*
 * Start QEMU with @ram bytes of RAM (0: QT_RAM_SIZE) and @devices (e.g.
 * "-device tilecopy,addr=04.0"). Aborts the test on failure.
 */
struct qts *qts_start(uint64_t ram, const char *devices);
void qts_quit(struct qts *q);

uint32_t qts_readl(struct qts *q, uint64_t addr);
void qts_writel(struct qts *q, uint64_t addr, uint32_t val);
uint32_t qts_inl(struct qts *q, uint16_t port);
void qts_outl(struct qts *q, uint16_t port, uint32_t val);
/* Report the interrupt controller's inputs ("IRQ raise/lower N") in
 * q->irq[]; @path is a QOM path such as "ioapic". */
void qts_irq_intercept(struct qts *q, const char *path);
/* Copy @len bytes into guest memory through the protocol (for MMIO). */
void qts_memwrite(struct qts *q, uint64_t addr, const void *buf, size_t len);

/* Guest RAM: allocate (zeroed, aligned) and get the host pointer. */
uint64_t qts_alloc(struct qts *q, uint64_t size, uint64_t align);
void *qts_ptr(struct qts *q, uint64_t gpa);

/* Contents of QEMU's stderr/-D log so far (malloc'd, NUL terminated). */
char *qts_log(struct qts *q);
/* The start of a sanitizer's report in a QEMU log, or NULL. */
const char *qts_sanitizer_report(const char *log);

/* PCI configuration space of bus 0, device @slot, function 0. */
uint32_t pci_cfg_read(struct qts *q, unsigned slot, unsigned off);
void pci_cfg_write(struct qts *q, unsigned slot, unsigned off, uint32_t val);

/* ---- the engine ---------------------------------------------------------- */

struct tcdev {
	struct qts *q;
	unsigned slot;
	uint64_t bar0, bar1, bar2;
};

/* Place the BARs at @bar_base (BAR0 64K, BAR1 4K, BAR2 256K), enable memory
 * decoding and bus mastering. */
void tcdev_init(struct tcdev *d, struct qts *q, unsigned slot, uint64_t bar_base);
uint32_t tc_rd(struct tcdev *d, uint32_t reg);
void tc_wr(struct tcdev *d, uint32_t reg, uint32_t val);
uint64_t tc_rd64(struct tcdev *d, uint32_t reg_lo);
uint32_t tc_qrd(struct tcdev *d, unsigned qi, uint32_t reg);
void tc_qwr(struct tcdev *d, unsigned qi, uint32_t reg, uint32_t val);

/* Firmware images. */
enum fw_break {
	FW_OK, FW_BAD_MAGIC, FW_BAD_FORMAT, FW_BAD_HEADER_CRC, FW_BAD_PAYLOAD_CRC,
	FW_TRUNCATED, FW_TRUNCATED_HEADER, FW_BAD_HW, FW_NO_QUEUES, FW_NO_OPS,
	FW_NO_END, FW_ONLY_COPY, FW_TWO_QUEUES,
};
uint32_t fw_crc32(uint32_t crc, const void *buf, size_t len);
/* Build an image into @buf; returns its size. */
size_t fw_image(uint8_t *buf, size_t cap, enum fw_break how);
/* Load @img into BAR2 and boot; returns TC_REG_FW_STATUS after the boot. */
uint32_t tc_boot(struct tcdev *d, const void *img, size_t len);
/* Boot a good image; fails the test if it does not start. */
void tc_boot_good(struct tcdev *d);

/* Page tables in guest RAM. */
struct mmu {
	struct qts *q;
	uint64_t root;
};
void mmu_init(struct mmu *m, struct qts *q);
/* Map [va, va + len) to [pa, ...) with @perm (TC_PTE_READ | TC_PTE_WRITE). */
void mmu_map(struct mmu *m, uint64_t va, uint64_t pa, uint64_t len, uint64_t perm);
/* Map one page: for scattered mappings. */
void mmu_map_page(struct mmu *m, uint64_t va, uint64_t pa, uint64_t perm);
void mmu_unmap_page(struct mmu *m, uint64_t va);
/* Bumped by every mapping change (for callers caching translations). */
extern unsigned mmu_generation;

/* A ring. */
struct ring {
	uint64_t base;
	uint32_t size;
	uint32_t tail;
};
/* Allocate a ring of @size entries for queue @qi, program and enable it
 * with both interrupts unmasked. */
void ring_setup(struct tcdev *d, unsigned qi, struct ring *r, uint32_t size);
/*
 * Write an entry, advance TAIL, ring the doorbell. The descriptors are
 * struct drm_tilecopy_desc of ABI 1.2, 256 bytes (TC_RING_F_DESC_256).
 */
void ring_submit(struct tcdev *d, unsigned qi, struct ring *r, uint64_t descs,
		 uint32_t count, uint32_t ctx, uint64_t seqno);
/* ring_submit() with the entry's @flags (TC_RING_F_*) as given. */
void ring_submit_flags(struct tcdev *d, unsigned qi, struct ring *r, uint64_t descs,
		       uint32_t count, uint32_t ctx, uint64_t seqno, uint32_t flags);
/* Write an entry without submitting it (for malformed-entry tests). */
struct tc_ring_entry *ring_entry(struct tcdev *d, struct ring *r);
/*
 * Wait until the queue is idle (HEAD == TAIL, not busy) or halted; returns
 * TC_Q_STATUS. Fails the test after @timeout_ms.
 */
uint32_t tc_wait(struct tcdev *d, unsigned qi, unsigned timeout_ms);

/* A descriptor array in guest RAM. */
struct drm_tilecopy_desc *desc_alloc(struct qts *q, unsigned count, uint64_t *gpa);

double now_sec(void);

#endif
