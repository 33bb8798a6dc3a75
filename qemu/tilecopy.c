/*
 * tilecopy: a DMA tile-copy engine (PCI), the device the tilecopy driver
 * drives. It converts tensors between memory layouts: it executes N-D
 * strided copy, fill and 64-bit write descriptors (include/uapi/drm/
 * tilecopy_accel.h) from per-queue rings, translating device virtual
 * addresses through its own MMU, and moves transposed data through an
 * on-chip tile buffer. Typed descriptors (engine 1.2) convert elements
 * between types on the way, 4-bit ones included (tilecopy-cvt.h). Register
 * map: include/hw/tilecopy_hw.h; the specification: docs/hardware.md of the
 * tilecopy project.
 *
 * Shape of hw/misc/edu.c: MMIO on the vCPU thread, the work on a worker
 * thread (the vCPU never waits for a job), MSI-X per queue.
 *
 * Locking: s->lock protects every register and queue field. The worker
 * drops it while it executes a job and never takes the BQL: it touches
 * guest RAM only through host pointers and RAM-only bus reads, and it hands
 * interrupts to a bottom half that runs in the main loop. So a reset
 * written by a vCPU (BQL held) can wait for the worker to leave the job it
 * cancels, and unrealize can join the worker. Lock order: BQL, s->lock.
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qemu/main-loop.h"
#include "qemu/atomic.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "exec/memory.h"
#include "sysemu/dma.h"
#include "qom/object.h"
#include "trace.h"
#include <zlib.h>

#include "tilecopy-include/tilecopy_hw.h"
#include "tilecopy-include/tilecopy_accel.h"
#include "tilecopy-transpose.h"
#include "tilecopy-cvt.h"

#define TYPE_TILECOPY "tilecopy"
OBJECT_DECLARE_SIMPLE_TYPE(TilecopyState, TILECOPY)

/*
 * TLB: 128 fully associative entries. One entry maps a run of pages that
 * are contiguous in both VA and bus address with equal permissions, up to
 * the end of the L3 table (2 MiB), so a physically contiguous buffer costs
 * one walk per 2 MiB and scattered pages one per 4 KiB. A hashed hint
 * table (page -> entry) avoids scanning the entries on most lookups.
 */
#define TC_TLB_BITS             7
#define TC_TLB_ENTRIES          (1 << TC_TLB_BITS)      /* 128 */
#define TC_TLB_HINTS            1024
#define TC_PTE_CHUNK            32      /* PTEs read per bus read in a walk */
#define TC_TILE_ROWS_MAX        1024    /* source rows of a tile */
#define TC_SHORT_ROW            512     /* bytes: rows copied in batches */
/*
 * Tiles of rows far apart on both sides: 64-byte lines written to each
 * destination row, destination rows (the source rows' length in
 * elements), and the shortest run of a source row in bytes (for 1-byte
 * elements: 256 columns).
 */
#define TC_FAR_LINES            4
#define TC_FAR_COLS             128
#define TC_FAR_RUN              256
/*
 * The engine looks at STOP and resets before each descriptor, each tile
 * and each row, and within a row at least every TC_POLL_ELEMS elements
 * and every TC_POLL_BYTES bytes: a stop lands within that much work
 * whatever the descriptor's shape (docs/hardware.md, 7.1).
 */
#define TC_POLL_ELEMS           (64 * KiB)
#define TC_POLL_BYTES           (1 * MiB)

#define TC_RING_ENTRY_SIZE      sizeof(struct tc_ring_entry)
#define TC_RING_MAX             4096
#define TC_OPS_ALL              ((1u << DRM_TILECOPY_OP_COPY) | \
                                 (1u << DRM_TILECOPY_OP_FILL) | \
                                 (1u << DRM_TILECOPY_OP_WRITE64))

typedef struct TilecopyTlbEntry {
    uint64_t va;            /* first VA of the run, page aligned */
    uint64_t len;           /* bytes; 0 = empty */
    uint8_t *host;
    uint64_t perm;          /* TC_PTE_READ | TC_PTE_WRITE */
    bool written;           /* the run was written: mark it dirty */
} TilecopyTlbEntry;

typedef struct TilecopyQueue {
    uint64_t ring_base;
    uint32_t ring_size;
    uint32_t head;
    uint32_t tail;
    uint32_t ctrl;
    uint32_t status;
    uint32_t int_status;
    uint32_t int_mask;
    uint32_t err_code;
    uint32_t err_desc;
    uint64_t err_addr;
    uint64_t done_seqno;
    uint64_t err_seqno;
    uint64_t started_seqno; /* last ring entry started */
    int64_t job_t0;         /* start of the started, unfinished job; 0: none */
    uint64_t job_ns_latch;  /* JOB_NS_HI, latched by reading JOB_NS_LO */
    bool hung;              /* hang-on-job: never completes until reset */
    bool running;           /* the worker executes a job of this queue */
    uint32_t gen;           /* bumped by reset: cancels the running job */
} TilecopyQueue;

/* Worker-private state of the job being executed. */
typedef struct TilecopyJob {
    unsigned qi;
    uint32_t gen;
    uint64_t root;
    uint32_t ops;
    TilecopyTlbEntry tlb[TC_TLB_ENTRIES];
    /*
     * When each entry was last looked up (tilecopy_stamp() | its index;
     * its index alone: empty), apart from the entries: the victim scan
     * reads them alone.
     */
    uint64_t used[TC_TLB_ENTRIES];
    uint8_t hint[TC_TLB_HINTS];
    /*
     * walk caches, flushed with the TLB: the last L3 table (by VA >> 21)
     * and the last chunk of PTEs read from an L3 table
     */
    uint64_t wc_tag, wc_table;
    uint64_t pc_table;
    unsigned pc_first, pc_count;
    uint64_t pc[TC_PTE_CHUNK];
    /* RAM window: bus [win_pa, +win_len) is host memory at win_host */
    MemoryRegion *win_mr;
    uint64_t win_pa, win_len;
    uint8_t *win_host;
    bool win_writable;
    int last[2];            /* last entry hit: [0] reads, [1] writes */
    unsigned tlb_gen;
    /*
     * Host pointers taken from the TLB stay valid while their entries
     * stay. A fill evicts the least recently used entry (clock: advanced
     * by each lookup and each tilecopy_hold(), so no two entries tie);
     * entries looked up since the last tilecopy_hold() (used >= hold, a
     * stamp) are held: lost is set when one of them is evicted. With keep
     * set, a fill that would evict a held entry is not done: the lookup
     * fails without a fault and sets full. An MMU_INVALIDATE (tlb_gen)
     * flushes the TLB at the next tilecopy_hold() only, never under held
     * pointers. fills counts the fills.
     */
    uint64_t clock, hold, fills;
    bool lost, keep, full;
    uint64_t moved;         /* bytes written by the job */
    uint64_t elems;         /* elements of the descriptors so far */
    /* outcome */
    uint32_t status;
    uint32_t err_desc;
    uint64_t err_addr;
    bool cancelled;
    /* dma-error-on-job */
    bool inject;
    uint64_t inject_budget; /* bytes of the current descriptor to write */
} TilecopyJob;

struct TilecopyState {
    PCIDevice pdev;
    MemoryRegion mmio;
    MemoryRegion boot;

    /* properties */
    uint32_t num_queues;
    uint32_t tilebuf_size;
    uint32_t hang_on_job;
    uint32_t hang_queue_mask;
    uint32_t dma_error_on_job;
    uint32_t delay_ns_per_kb;
    uint32_t reset_hang_on;
    uint64_t max_job_elems;
    bool convert;           /* typed descriptors: engine 1.2, TC_CAP_CONVERT */

    QemuThread thread;
    QEMUBH *irq_bh;         /* delivers the worker's interrupts */
    QemuMutex lock;
    QemuCond work_cond;     /* worker: something to do */
    QemuCond idle_cond;     /* resets: a job left the worker */
    bool stopping;

    /* global registers */
    uint32_t status;
    uint32_t fw_version;
    uint32_t fw_status;
    uint32_t int_status;
    uint32_t int_mask;
    uint32_t boot_size;
    uint64_t ctx_root[TC_NUM_CONTEXTS];
    uint64_t jobs_done;
    uint64_t jobs_failed;
    uint64_t bytes_moved;
    uint64_t busy_ns;

    /* what the firmware configured */
    uint32_t fw_queues;
    uint32_t fw_ops;
    uint32_t fw_tile_rows, fw_tile_cols;

    uint64_t jobs_started;  /* since creation, for the fault injection */
    uint32_t resets;        /* CTRL.RESET writes since creation */
    bool stop;              /* CTRL.STOP */
    bool reset_stuck;       /* reset-hang-on: the last reset never finished */
    unsigned tlb_gen;       /* bumped by MMU_INVALIDATE*, read by the worker */
    unsigned rr;            /* next queue the worker looks at */
    uint32_t notify;        /* MSI-X vectors to signal, set under lock */

    uint8_t *boot_mem;
    uint8_t *tilebuf;
    const uint8_t **tile_rows;      /* worker: source rows of a tile */
    uint8_t **tile_drows;           /* worker: destination rows of a tile */
    void *cvt;                      /* worker: a typed descriptor's cvt */
    TilecopyQueue q[TC_MAX_QUEUES];
    TilecopyJob job;
};

/* ---- helpers: interrupts ------------------------------------------------ */

/* Record an event; called with s->lock held. */
static void tilecopy_queue_event(TilecopyState *s, unsigned qi, uint32_t bits)
{
    TilecopyQueue *q = &s->q[qi];

    q->int_status |= bits;
    if (bits & q->int_mask) {
        s->notify |= 1u << qi;
    }
}

static void tilecopy_global_event(TilecopyState *s, uint32_t bits)
{
    s->int_status |= bits;
    if (bits & s->int_mask) {
        s->notify |= 1u << s->num_queues;
    }
}

/*
 * Deliver recorded events: MSI-X messages for new events, else the INTx
 * level. Called with the BQL held and s->lock NOT held.
 */
static void tilecopy_irq_flush(TilecopyState *s)
{
    PCIDevice *pdev = &s->pdev;
    uint32_t notify;
    bool level = false;
    unsigned i;

    qemu_mutex_lock(&s->lock);
    notify = s->notify;
    s->notify = 0;
    level = (s->int_status & s->int_mask) != 0;
    for (i = 0; i < s->num_queues; i++) {
        level |= (s->q[i].int_status & s->q[i].int_mask) != 0;
    }
    qemu_mutex_unlock(&s->lock);

    if (msix_enabled(pdev)) {
        for (i = 0; i <= s->num_queues; i++) {
            if (notify & (1u << i)) {
                trace_tilecopy_irq(i);
                msix_notify(pdev, i);
            }
        }
        pci_set_irq(pdev, 0);
    } else {
        pci_set_irq(pdev, level);
    }
}

static void tilecopy_irq_bh(void *opaque)
{
    tilecopy_irq_flush(opaque);
}

/* ---- helpers: bus access (RAM only) ------------------------------------- */

/*
 * The engine's bus reaches memory only: an access that is not to RAM
 * (MMIO of a peer, unassigned space, bus mastering off) is a DMA error.
 * This also keeps the worker from ever needing the BQL.
 */
static bool tilecopy_bus_is_ram(TilecopyState *s, uint64_t pa, uint64_t len,
                                bool is_write)
{
    AddressSpace *as = pci_get_address_space(&s->pdev);

    RCU_READ_LOCK_GUARD();
    while (len) {
        hwaddr xlat, l = len;
        MemoryRegion *mr = address_space_translate(as, pa, &xlat, &l, is_write,
                                                   MEMTXATTRS_UNSPECIFIED);
        if (!memory_access_is_direct(mr, is_write) || !l) {
            return false;
        }
        pa += l;
        len -= l;
    }
    return true;
}

static bool tilecopy_bus_read(TilecopyState *s, uint64_t pa, void *buf,
                              uint64_t len)
{
    if (pa + len < pa || !tilecopy_bus_is_ram(s, pa, len, false)) {
        return false;
    }
    return pci_dma_read(&s->pdev, pa, buf, len) == MEMTX_OK;
}

/* ---- helpers: MMU ------------------------------------------------------- */

static void tilecopy_tlb_flush(TilecopyState *s, TilecopyJob *j)
{
    AddressSpace *as = pci_get_address_space(&s->pdev);
    unsigned i;

    for (i = 0; i < TC_TLB_ENTRIES; i++) {
        TilecopyTlbEntry *e = &j->tlb[i];

        if (e->len) {
            bool w = e->written;
            /* A written run is marked dirty as a whole. */
            address_space_unmap(as, e->host, e->len, w, w ? e->len : 0);
            e->len = 0;
        }
        j->used[i] = i;
    }
    j->last[0] = j->last[1] = -1;
    j->lost = true;
    j->wc_tag = ~0ull;
    j->pc_count = 0;
    if (j->win_mr) {
        memory_region_unref(j->win_mr);
        j->win_mr = NULL;
    }
    j->win_len = 0;
}

static void tilecopy_fault(TilecopyJob *j, uint32_t code, uint64_t va)
{
    if (j->status == DRM_TILECOPY_STATUS_OK) {
        j->status = code;
        j->err_addr = va;
    }
}

/* PTE @idx of the L3 table at @table, through the chunk cache. */
static bool tilecopy_l3_pte(TilecopyState *s, TilecopyJob *j, uint64_t table,
                            unsigned idx, uint64_t *pte)
{
    if (j->pc_table != table || idx - j->pc_first >= j->pc_count) {
        unsigned first = idx & ~(TC_PTE_CHUNK - 1);

        j->pc_count = 0;
        if (!tilecopy_bus_read(s, table + first * 8, j->pc, sizeof(j->pc))) {
            return false;
        }
        j->pc_table = table;
        j->pc_first = first;
        j->pc_count = TC_PTE_CHUNK;
    }
    *pte = le64_to_cpu(j->pc[idx - j->pc_first]);
    return true;
}

/*
 * Host pointer for bus address @pa (RAM only), *len clamped to the RAM
 * behind it. Takes a reference on the memory region for the caller, which
 * address_space_unmap() drops (and marks written memory dirty).
 */
static uint8_t *tilecopy_ram(TilecopyState *s, TilecopyJob *j, uint64_t pa,
                             uint64_t *len, bool is_write)
{
    if (!j->win_len || pa - j->win_pa >= j->win_len ||
        (is_write && !j->win_writable)) {
        AddressSpace *as = pci_get_address_space(&s->pdev);
        hwaddr xlat, l = 1ull << 62;
        MemoryRegion *mr;

        RCU_READ_LOCK_GUARD();
        mr = address_space_translate(as, pa, &xlat, &l, is_write,
                                     MEMTXATTRS_UNSPECIFIED);
        if (!memory_access_is_direct(mr, is_write) || !l) {
            return NULL;
        }
        if (j->win_mr) {
            memory_region_unref(j->win_mr);
        }
        memory_region_ref(mr);
        j->win_mr = mr;
        j->win_pa = pa;
        j->win_len = l;
        j->win_host = (uint8_t *)memory_region_get_ram_ptr(mr) + xlat;
        j->win_writable = memory_access_is_direct(mr, true);
    }
    *len = MIN(*len, j->win_pa + j->win_len - pa);
    memory_region_ref(j->win_mr);
    return j->win_host + (pa - j->win_pa);
}

/*
 * Start holding host pointers: the entries looked up from now on are the
 * last ones a fill evicts, and tilecopy_held() says whether they all
 * stayed. A hit on an entry filled before counts as a lookup: its pointer
 * is held as long as those of the entries filled since. Called where no
 * host pointer of an earlier lookup is in use, so this is where an
 * MMU_INVALIDATE issued while the job runs takes effect (the TLB is
 * flushed): before the next tile, slice, batch of rows or run of pages.
 */
/*
 * A new time for the TLB's stamps: j->clock above TC_TLB_BITS bits for the
 * index of the entry stamped, so that the least recently used entry is
 * the minimum of j->used and the minimum names it; an empty entry's stamp
 * is its index alone, below every time.
 */
static inline uint64_t tilecopy_stamp(TilecopyJob *j)
{
    return ++j->clock << TC_TLB_BITS;
}

static void tilecopy_hold(TilecopyState *s, TilecopyJob *j)
{
    unsigned gen = qatomic_read(&s->tlb_gen);

    if (gen != j->tlb_gen) {
        tilecopy_tlb_flush(s, j);
        j->tlb_gen = gen;
    }
    j->hold = tilecopy_stamp(j);
    j->lost = false;
    j->full = false;
}

/* Every entry looked up since tilecopy_hold() is still in the TLB. */
static bool tilecopy_held(TilecopyJob *j)
{
    return !j->lost;
}

/*
 * The entry a fill replaces: the first empty one, else the least recently
 * used; the minimum stamp, which names it (tilecopy_stamp()). Four minima
 * without branches, not one chain of 128 dependent compares.
 */
static unsigned tilecopy_tlb_victim(TilecopyJob *j)
{
    uint64_t m0 = j->used[0], m1 = j->used[1];
    uint64_t m2 = j->used[2], m3 = j->used[3];
    unsigned i;

    for (i = 4; i < TC_TLB_ENTRIES; i += 4) {
        m0 = MIN(m0, j->used[i]);
        m1 = MIN(m1, j->used[i + 1]);
        m2 = MIN(m2, j->used[i + 2]);
        m3 = MIN(m3, j->used[i + 3]);
    }
    return MIN(MIN(m0, m1), MIN(m2, m3)) & (TC_TLB_ENTRIES - 1);
}

/*
 * Walk the page tables for @va and fill a TLB entry; NULL on a fault, or
 * (no fault) when j->keep and the entry to replace is held.
 */
static TilecopyTlbEntry *tilecopy_tlb_fill(TilecopyState *s, TilecopyJob *j,
                                           uint64_t va, bool is_write)
{
    AddressSpace *as = pci_get_address_space(&s->pdev);
    uint64_t table = j->root & TC_PTE_ADDR_MASK;
    uint64_t pte, pa, want, perm, len;
    unsigned level, idx, run, v = tilecopy_tlb_victim(j);
    TilecopyTlbEntry *e = &j->tlb[v];
    uint8_t *host;

    if (j->keep && e->len && j->used[v] >= j->hold) {
        j->full = true;
        return NULL;
    }
    /* beyond the VA width, or a context disabled (root 0): unmapped */
    if ((va >> TC_VA_BITS) || !table) {
        tilecopy_fault(j, DRM_TILECOPY_STATUS_FAULT_UNMAPPED, va);
        return NULL;
    }
    if ((va >> 21) == j->wc_tag) {
        table = j->wc_table;
    } else {
        for (level = 0; level < 2; level++) {
            idx = (va >> (30 - 9 * level)) & (TC_PT_ENTRIES - 1);
            if (!tilecopy_bus_read(s, table + idx * 8, &pte, 8)) {
                tilecopy_fault(j, DRM_TILECOPY_STATUS_DMA_ERROR, va);
                return NULL;
            }
            pte = le64_to_cpu(pte);
            if (!(pte & TC_PTE_VALID)) {
                tilecopy_fault(j, DRM_TILECOPY_STATUS_FAULT_UNMAPPED, va);
                trace_tilecopy_walk_fault(va, level + 1, pte);
                return NULL;
            }
            table = pte & TC_PTE_ADDR_MASK;
        }
        j->wc_tag = va >> 21;
        j->wc_table = table;
    }
    idx = (va >> TC_PAGE_SHIFT) & (TC_PT_ENTRIES - 1);
    if (!tilecopy_l3_pte(s, j, table, idx, &pte)) {
        tilecopy_fault(j, DRM_TILECOPY_STATUS_DMA_ERROR, va);
        return NULL;
    }
    if (!(pte & TC_PTE_VALID)) {
        tilecopy_fault(j, DRM_TILECOPY_STATUS_FAULT_UNMAPPED, va);
        trace_tilecopy_walk_fault(va, 3, pte);
        return NULL;
    }
    perm = pte & (TC_PTE_READ | TC_PTE_WRITE);
    want = is_write ? TC_PTE_WRITE : TC_PTE_READ;
    if (!(perm & want)) {
        tilecopy_fault(j, DRM_TILECOPY_STATUS_FAULT_PERM, va);
        return NULL;
    }
    pa = pte & TC_PTE_ADDR_MASK;
    /* Extend the run while the pages stay contiguous, to the table's end. */
    for (run = 1; idx + run < TC_PT_ENTRIES; run++) {
        uint64_t p;

        if (!tilecopy_l3_pte(s, j, table, idx + run, &p) ||
            !(p & TC_PTE_VALID) ||
            (p & (TC_PTE_READ | TC_PTE_WRITE)) != perm ||
            (p & TC_PTE_ADDR_MASK) != pa + run * TC_PAGE_SIZE) {
            break;
        }
    }
    len = (uint64_t)run * TC_PAGE_SIZE;
    host = tilecopy_ram(s, j, pa, &len, perm & TC_PTE_WRITE);
    if (!host || len < TC_PAGE_SIZE) {
        if (host) {
            address_space_unmap(as, host, len, false, 0);
        }
        tilecopy_fault(j, DRM_TILECOPY_STATUS_DMA_ERROR, va);
        return NULL;
    }
    len &= ~(TC_PAGE_SIZE - 1);

    if (e->len) {
        bool w = e->written;

        j->lost |= j->used[v] >= j->hold;
        address_space_unmap(as, e->host, e->len, w, w ? e->len : 0);
        if (j->last[0] == v) {
            j->last[0] = -1;
        }
        if (j->last[1] == v) {
            j->last[1] = -1;
        }
    }
    e->va = va & ~(TC_PAGE_SIZE - 1);
    e->len = len;
    e->host = host;
    e->perm = perm;
    e->written = false;
    j->used[v] = tilecopy_stamp(j) | v;
    j->fills++;
    trace_tilecopy_tlb_fill(va, pa, len, perm);
    return e;
}

static inline unsigned tilecopy_hint(uint64_t va)
{
    return ((va >> TC_PAGE_SHIFT) * 0x9e3779b97f4a7c15ull) >> 54;
}

/*
 * Host pointer for @va; *avail = bytes usable from there in the same run.
 * NULL on a fault (recorded in the job). The pointer stays valid while its
 * entry stays (tilecopy_hold()).
 */
static uint8_t *tilecopy_translate(TilecopyState *s, TilecopyJob *j,
                                   uint64_t va, bool is_write,
                                   uint64_t *avail)
{
    TilecopyTlbEntry *e = NULL;
    unsigned h = tilecopy_hint(va);
    int i, l = j->last[is_write];

    if (l >= 0 && va - j->tlb[l].va < j->tlb[l].len) {
        e = &j->tlb[l];
    } else if (va - j->tlb[j->hint[h]].va < j->tlb[j->hint[h]].len) {
        e = &j->tlb[j->hint[h]];
    } else {
        for (i = 0; i < TC_TLB_ENTRIES; i++) {
            if (va - j->tlb[i].va < j->tlb[i].len) {
                e = &j->tlb[i];
                break;
            }
        }
    }
    if (e && !(e->perm & (is_write ? TC_PTE_WRITE : TC_PTE_READ))) {
        tilecopy_fault(j, DRM_TILECOPY_STATUS_FAULT_PERM, va);
        return NULL;
    }
    if (!e) {
        e = tilecopy_tlb_fill(s, j, va, is_write);
        if (!e) {
            return NULL;
        }
    } else {
        j->used[e - j->tlb] = tilecopy_stamp(j) | (e - j->tlb);
    }
    e->written |= is_write;
    j->last[is_write] = e - j->tlb;
    j->hint[h] = e - j->tlb;
    *avail = e->va + e->len - va;
    return e->host + (va - e->va);
}

/* ---- helpers: data movement --------------------------------------------- */

static bool tilecopy_cancelled(TilecopyState *s, TilecopyJob *j)
{
    if (qatomic_read(&s->q[j->qi].gen) != j->gen ||
        qatomic_read(&s->stopping) || qatomic_read(&s->stop)) {
        j->cancelled = true;
    }
    return j->cancelled;
}

/*
 * Account a write of @len bytes at @va: returns the bytes that may be
 * written. Less than @len when the injected DMA error hits: the engine
 * writes that much and reports the error at the first byte it did not.
 */
static uint64_t tilecopy_write_budget(TilecopyJob *j, uint64_t va,
                                      uint64_t len)
{
    if (j->inject) {
        if (len > j->inject_budget) {
            len = j->inject_budget;
            tilecopy_fault(j, DRM_TILECOPY_STATUS_DMA_ERROR, va + len);
        }
        j->inject_budget -= len;
    }
    j->moved += len;
    return len;
}

/*
 * @len bytes at @va into @buf, a run of pages at a time. @hold: each run
 * is a hold point (tilecopy_hold()); false where the caller holds host
 * pointers (a row spilled by a gather).
 */
static bool tilecopy_read_runs(TilecopyState *s, TilecopyJob *j, uint64_t va,
                               void *buf, uint64_t len, bool hold)
{
    uint8_t *d = buf;

    while (len) {
        uint64_t avail;
        uint8_t *p;

        if (hold) {
            tilecopy_hold(s, j);
        }
        p = tilecopy_translate(s, j, va, false, &avail);
        if (!p) {
            return false;
        }
        avail = MIN(avail, len);
        memcpy(d, p, avail);
        d += avail;
        va += avail;
        len -= avail;
    }
    return true;
}

static bool tilecopy_read_va(TilecopyState *s, TilecopyJob *j, uint64_t va,
                             void *buf, uint64_t len)
{
    return tilecopy_read_runs(s, j, va, buf, len, true);
}

static bool tilecopy_write_va(TilecopyState *s, TilecopyJob *j, uint64_t va,
                              const void *buf, uint64_t len)
{
    const uint8_t *b = buf;

    while (len) {
        uint64_t avail, n;
        uint8_t *p;

        tilecopy_hold(s, j);            /* a run of pages at a time */
        p = tilecopy_translate(s, j, va, true, &avail);
        if (!p) {
            return false;
        }
        n = tilecopy_write_budget(j, va, MIN(avail, len));
        tilecopy_store(p, b, n);
        if (n < MIN(avail, len)) {
            return false;
        }
        avail = n;
        b += avail;
        va += avail;
        len -= avail;
    }
    return true;
}

/*
 * Contiguous run, memory to memory (both sides through the MMU); a long
 * one looks at STOP every TC_POLL_BYTES. Each step (the bytes both sides
 * have in one run of pages) is a hold point (tilecopy_hold()).
 */
static bool tilecopy_copy_va(TilecopyState *s, TilecopyJob *j, uint64_t dst,
                             uint64_t src, uint64_t len)
{
    uint64_t polled = 0;

    while (len) {
        uint64_t sa, da, n, w;
        uint8_t *sp, *dp;

        tilecopy_hold(s, j);
        sp = tilecopy_translate(s, j, src, false, &sa);
        if (!sp) {
            return false;
        }
        dp = tilecopy_translate(s, j, dst, true, &da);
        if (!dp) {
            return false;
        }
        if (!tilecopy_held(j)) {
            /*
             * The destination's fill evicted the source's entry: redone.
             * (Not expected: the fill replaces the least recently used of
             * 128 entries and the source's was just looked up, and a
             * flush waits for the hold; so the step makes progress.)
             */
            continue;
        }
        n = MIN(MIN(MIN(sa, da), len), TC_POLL_BYTES - polled);
        w = tilecopy_write_budget(j, dst, n);
        memmove(dp, sp, w);
        if (w < n) {
            return false;
        }
        src += n;
        dst += n;
        len -= n;
        polled += n;
        if (polled == TC_POLL_BYTES) {
            if (len && tilecopy_cancelled(s, j)) {
                return false;
            }
            polled = 0;
        }
    }
    return true;
}

/* ---- descriptors -------------------------------------------------------- */

/* A descriptor reduced to the dimensions that matter, strides in elements. */
typedef struct TilecopyShape {
    unsigned nd;
    uint64_t e[DRM_TILECOPY_MAX_DIMS];
    uint64_t ss[DRM_TILECOPY_MAX_DIMS];
    uint64_t ds[DRM_TILECOPY_MAX_DIMS];
} TilecopyShape;

/*
 * Highest byte offset touched, +1, for elements of @bits bits: the element
 * sum((extent - 1) * stride) is the last; a 4-bit side counts nibbles from
 * @nibble. False on overflow.
 */
static bool tilecopy_footprint(const struct drm_tilecopy_desc *d,
                               const __u64 *stride, unsigned bits,
                               unsigned nibble, uint64_t base, uint64_t *end)
{
    uint64_t off = 0, t, es = bits / 8;
    unsigned k;

    for (k = 0; k < d->ndims; k++) {
        if (__builtin_mul_overflow((uint64_t)d->extent[k] - 1, stride[k], &t) ||
            __builtin_add_overflow(off, t, &off)) {
            return false;
        }
    }
    if (bits == 4) {
        if (__builtin_add_overflow(off, (uint64_t)nibble, &off)) {
            return false;
        }
        return !__builtin_add_overflow(off / 2 + 1, base, end);
    }
    if (__builtin_mul_overflow(off, es, &off) ||
        __builtin_add_overflow(off, es, &off) ||
        __builtin_add_overflow(off, base, end)) {
        return false;
    }
    return true;
}

/* Bits of one element of a side: its type's, or elem_size bytes. */
static unsigned tilecopy_side_bits(const struct drm_tilecopy_desc *d,
                                   bool src)
{
    unsigned type = src ? d->src_type : d->dst_type;

    return type ? tilecopy_cvt_type_bits(type) : 8 * d->elem_size;
}

/* Every footprint (destination, source, scales) fits in 64 bits. */
static const char *tilecopy_footprints_check(const struct drm_tilecopy_desc *d)
{
    uint64_t end;
    __u64 cs[DRM_TILECOPY_MAX_DIMS];
    unsigned k;

    if (!tilecopy_footprint(d, d->dst_stride, tilecopy_side_bits(d, false),
                            d->dst_nibble, d->dst, &end)) {
        return "destination footprint overflows";
    }
    if (d->op == DRM_TILECOPY_OP_COPY &&
        !tilecopy_footprint(d, d->src_stride, tilecopy_side_bits(d, true),
                            d->src_nibble, d->src, &end)) {
        return "source footprint overflows";
    }
    if (!(d->cvt_flags & DRM_TILECOPY_CVT_SCALES)) {
        return NULL;
    }
    for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
        cs[k] = d->scale_stride[k];
    }
    return tilecopy_footprint(d, cs, 32, 0, d->scales, &end) ? NULL :
           "scales footprint overflows";
}

/*
 * The fields of engine 1.2 (typed descriptors): zero unless the descriptor
 * uses them, each within its range. NULL when they are good.
 */
static const char *tilecopy_typed_check(const struct drm_tilecopy_desc *d)
{
    const uint32_t known = DRM_TILECOPY_CVT_SCALE | DRM_TILECOPY_CVT_SCALES;
    bool copy = d->op == DRM_TILECOPY_OP_COPY, converts = copy && d->src_type;
    unsigned k;

    if (d->src_type > DRM_TILECOPY_TYPE_U4 ||
        d->dst_type > DRM_TILECOPY_TYPE_U4) {
        return "unknown element type";
    }
    if (copy ? !d->src_type != !d->dst_type : d->src_type != 0) {
        return "src_type without dst_type, or the reverse, or on FILL";
    }
    if (d->op == DRM_TILECOPY_OP_WRITE64 && d->dst_type) {
        return "dst_type on WRITE64";
    }
    if (d->src_nibble > 1 || d->dst_nibble > 1 ||
        (d->src_nibble && tilecopy_cvt_type_bits(d->src_type) != 4) ||
        (d->dst_nibble && tilecopy_cvt_type_bits(d->dst_type) != 4)) {
        return "nibble field not 0 or 1, or not on a 4-bit side";
    }
    if ((d->cvt_flags & ~known) || d->cvt_flags == known ||
        (d->cvt_flags && !converts)) {
        return "cvt_flags unknown, both scales, or without a conversion";
    }
    if ((d->src_zp || d->dst_zp) && !converts) {
        return "zero point without a conversion";
    }
    if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE ?
        (d->scale & 0x7f800000u) == 0x7f800000u : d->scale != 0) {
        return "scale not finite, or without CVT_SCALE";
    }
    if (d->pad) {
        return "pad not zero";
    }
    for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
        if (d->scale_stride[k] &&
            (k >= d->ndims || !(d->cvt_flags & DRM_TILECOPY_CVT_SCALES))) {
            return "scale_stride beyond ndims or without CVT_SCALES";
        }
    }
    if (d->scales && !(d->cvt_flags & DRM_TILECOPY_CVT_SCALES)) {
        return "scales without CVT_SCALES";
    }
    return NULL;
}

/* Elements the descriptor writes (product of its extents), saturated. */
static uint64_t tilecopy_desc_elems(const struct drm_tilecopy_desc *d)
{
    uint64_t n = 1;
    unsigned k;

    for (k = 0; k < d->ndims && k < DRM_TILECOPY_MAX_DIMS; k++) {
        if (__builtin_mul_overflow(n, (uint64_t)d->extent[k], &n)) {
            return UINT64_MAX;
        }
    }
    return n;
}

/* Every field checked; a guest mistake is logged and refused. */
static bool tilecopy_desc_check(TilecopyState *s, TilecopyJob *j,
                                const struct drm_tilecopy_desc *d)
{
    const char *why = NULL;
    uint64_t elems, bits = tilecopy_side_bits(d, false);
    unsigned k;

    if (d->op < DRM_TILECOPY_OP_COPY || d->op > DRM_TILECOPY_OP_WRITE64) {
        why = "unknown op";
    } else if (!(j->ops & (1u << d->op))) {
        why = "op not enabled by the firmware";
    } else if (d->dst_type ? d->elem_size != 0 :
               d->elem_size != 1 && d->elem_size != 2 && d->elem_size != 4 &&
               d->elem_size != 8) {
        why = "elem_size not 1, 2, 4 or 8 (0 with element types)";
    } else if (d->ndims < 1 || d->ndims > DRM_TILECOPY_MAX_DIMS) {
        why = "ndims out of 1..8";
    } else if (d->flags) {
        why = "flags not zero";
    } else if (d->op != DRM_TILECOPY_OP_COPY && d->src) {
        why = "src not zero for FILL/WRITE64";
    } else if (d->op == DRM_TILECOPY_OP_COPY && d->value) {
        why = "value not zero for COPY";
    } else if (d->op == DRM_TILECOPY_OP_FILL && bits && bits < 64 &&
               d->value >> bits) {
        why = "FILL value has bits above its element";
    } else {
        why = tilecopy_typed_check(d);
    }
    for (k = 0; !why && k < DRM_TILECOPY_MAX_DIMS; k++) {
        if (k < d->ndims && !d->extent[k]) {
            why = "zero extent";
        } else if (k >= d->ndims &&
                   (d->extent[k] || d->src_stride[k] || d->dst_stride[k])) {
            why = "extent or stride beyond ndims not zero";
        } else if (d->op != DRM_TILECOPY_OP_COPY && d->src_stride[k]) {
            why = "src_stride not zero for FILL/WRITE64";
        }
    }
    if (!why && d->op == DRM_TILECOPY_OP_WRITE64 &&
        (d->elem_size != 8 || d->ndims != 1 || d->extent[0] != 1)) {
        why = "WRITE64 needs elem_size 8, ndims 1, extent 1";
    }
    if (!why) {
        why = tilecopy_footprints_check(d);
    }
    /* Stride-0 destinations count: the work is every element written. */
    elems = why ? 0 : tilecopy_desc_elems(d);
    if (!why && (elems > s->max_job_elems ||
                 j->elems > s->max_job_elems - elems)) {
        why = "job writes more elements than MAX_JOB_ELEMS";
    }
    j->elems += elems;
    if (why) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tilecopy: queue %u: bad descriptor: %s\n", j->qi, why);
        j->status = DRM_TILECOPY_STATUS_BAD_DESC;
        return false;
    }
    return true;
}

/* Drop extent-1 dimensions and merge dimensions that are one run. */
static void tilecopy_shape(const struct drm_tilecopy_desc *d, bool copy,
                           TilecopyShape *sh)
{
    unsigned k, n = 0;

    for (k = 0; k < d->ndims; k++) {
        uint64_t ss = copy ? d->src_stride[k] : 0;

        if (d->extent[k] == 1) {
            continue;
        }
        if (n && sh->ds[n - 1] * sh->e[n - 1] == d->dst_stride[k] &&
            sh->ss[n - 1] * sh->e[n - 1] == ss) {
            sh->e[n - 1] *= d->extent[k];
            continue;
        }
        sh->e[n] = d->extent[k];
        sh->ss[n] = ss;
        sh->ds[n] = d->dst_stride[k];
        n++;
    }
    if (!n) {
        sh->e[0] = 1;
        sh->ss[0] = sh->ds[0] = 1;
        n = 1;
    }
    sh->nd = n;
}

/*
 * Odometer over the dimensions in @mask (innermost first): advances
 * idx[] and the byte offsets; false when done.
 */
static bool tilecopy_next(const TilecopyShape *sh, uint32_t mask,
                          uint64_t *idx, uint64_t *soff, uint64_t *doff,
                          unsigned es)
{
    unsigned k;

    for (k = 0; k < sh->nd; k++) {
        if (!(mask & (1u << k))) {
            continue;
        }
        if (++idx[k] < sh->e[k]) {
            *soff += sh->ss[k] * es;
            *doff += sh->ds[k] * es;
            return true;
        }
        *soff -= (idx[k] - 1) * sh->ss[k] * es;
        *doff -= (idx[k] - 1) * sh->ds[k] * es;
        idx[k] = 0;
    }
    return false;
}

/*
 * Host pointers of @count source rows of @len bytes, @stride bytes apart
 * from @va: one translation per run of pages, not one per row. A row split
 * between two runs is copied into @spill (slot i at @spill + i * @len).
 * False on a fault, recorded at the first byte of the row (or of its part)
 * that faulted, as a row-by-row read would.
 */
static bool tilecopy_gather(TilecopyState *s, TilecopyJob *j, uint64_t va,
                            uint64_t stride, uint64_t len, uint64_t count,
                            const uint8_t **rows, uint8_t *spill)
{
    uint64_t base = 0, avail = 0, i;
    const uint8_t *hp = NULL;

    for (i = 0; i < count; i++, va += stride) {
        if (!hp || va - base > avail || len > avail - (va - base)) {
            hp = tilecopy_translate(s, j, va, false, &avail);
            if (!hp) {
                return false;
            }
            base = va;
            if (avail < len) {
                if (!tilecopy_read_runs(s, j, va, spill + i * len, len,
                                        false)) {
                    return false;
                }
                rows[i] = spill + i * len;
                hp = NULL;
                continue;
            }
        }
        rows[i] = hp + (va - base);
    }
    return true;
}

/*
 * Host pointers of up to @count rows (as tilecopy_gather()), each mapped
 * in one piece, writable if @is_write. Stops at the first row that is not,
 * without recording a fault: the row-by-row path that takes over from
 * there meets it in the same order. Returns the rows found.
 */
static uint64_t tilecopy_probe_rows(TilecopyState *s, TilecopyJob *j,
                                    uint64_t va, uint64_t stride, uint64_t len,
                                    uint64_t count, bool is_write,
                                    uint8_t **ptrs)
{
    uint64_t base = 0, avail = 0, i;
    uint8_t *hp = NULL;

    for (i = 0; i < count; i++, va += stride) {
        if (!hp || va - base > avail || len > avail - (va - base)) {
            hp = tilecopy_translate(s, j, va, is_write, &avail);
            if (!hp || avail < len) {
                /* not a fault yet: nothing was written */
                j->status = DRM_TILECOPY_STATUS_OK;
                j->err_addr = 0;
                return i;
            }
            base = va;
        }
        ptrs[i] = hp + (va - base);
    }
    return count;
}

/*
 * A gathered tile of @m source rows by @n columns written straight to its
 * destination rows (@dstride bytes apart from @dst), 1024 rows at a time.
 * Returns the columns (destination rows) done; the caller does the rest
 * through the tile buffer. @rows advance past the columns done. @staged
 * (rows far apart on both sides): through the second half of the tile
 * buffer (a copy of the source, or macro tiles: 4- and 8-byte elements
 * with AVX2, 1- and 2-byte ones with AVX-512;
 * tilecopy_transpose_direct()), which the tile needs only once
 * the direct path has given up; *@nstaged counts the columns done so.
 * The source rows' entries are held (tilecopy_hold() before their
 * gather) and stay: the destination is looked up with j->keep, and stops
 * where a fill would evict one of them (j->full).
 */
static uint64_t tilecopy_tile_direct(TilecopyState *s, TilecopyJob *j,
                                     const uint8_t **rows, uint64_t m,
                                     uint64_t n, unsigned es, uint64_t dst,
                                     uint64_t dstride, bool staged,
                                     uint64_t *nstaged)
{
    uint8_t *stage = staged ? s->tilebuf + s->tilebuf_size / 2 : NULL;
    uint64_t done = 0, chunk, got, i;
    bool st;

    while (done < n) {
        chunk = MIN(n - done, TC_TILE_ROWS_MAX);
        j->keep = true;
        got = tilecopy_probe_rows(s, j, dst + done * dstride, dstride,
                                  m * es, chunk, true, s->tile_drows);
        j->keep = false;
        /* (held: with keep, no fill evicts the source's entries) */
        if (got < chunk || !tilecopy_held(j) ||
            !tilecopy_transpose_direct(s->tile_drows, rows, m, chunk, es,
                                       stage, s->tilebuf_size / 2, &st)) {
            break;
        }
        *nstaged += st ? chunk : 0;
        j->moved += chunk * m * es;
        for (i = 0; i < m; i++) {
            rows[i] += chunk * es;
        }
        done += chunk;
    }
    return done;
}

/*
 * A tile of few rows whose destination rows are one run, or of few
 * columns whose source rows are: interleaved or de-interleaved in one go
 * when both sides are mapped (else false: the caller takes it row by row).
 */
static bool tilecopy_tile_few(TilecopyState *s, TilecopyJob *j,
                              const TilecopyShape *sh, unsigned p, unsigned q,
                              uint64_t src, uint64_t dst, uint64_t m,
                              uint64_t n, unsigned es)
{
    uint8_t *sp[TILECOPY_FEW_MAX], *dp[TILECOPY_FEW_MAX];
    bool ok;

    tilecopy_hold(s, j);

    if (m <= TILECOPY_FEW_MAX && sh->ds[p] == m) {
        ok = tilecopy_probe_rows(s, j, src, sh->ss[q] * es, n * es, m, false,
                                 sp) == m &&
             tilecopy_probe_rows(s, j, dst, 0, m * n * es, 1, true, dp) &&
             tilecopy_held(j) &&
             tilecopy_interleave(dp[0], (const uint8_t *const *)sp, m, n, es);
    } else if (n <= TILECOPY_FEW_MAX && sh->ss[q] == n) {
        ok = tilecopy_probe_rows(s, j, src, 0, m * n * es, 1, false, sp) &&
             tilecopy_probe_rows(s, j, dst, sh->ds[p] * es, m * es, n, true,
                                 dp) == n &&
             tilecopy_held(j) &&
             tilecopy_deinterleave(dp, sp[0], m, n, es);
    } else {
        return false;
    }
    if (ok) {
        j->moved += m * n * es;
        trace_tilecopy_tile(es, m, n, n, 0);
    }
    return ok;
}

/*
 * A row split between two mappings needs two lookups (and the spill's
 * reads, one a run): a slice of this many rows of up to a few pages stays
 * within the TLB.
 */
#define TC_SLICE_ROWS (TC_TLB_ENTRIES / 4)

/*
 * @m source rows of @n elements, @stride bytes apart from @src, gathered
 * and transposed into @out (rows @ostride elements apart) TC_SLICE_ROWS
 * rows at a time, each slice under a hold (tilecopy_hold()); a slice
 * whose entries were not held (longer rows in more runs) is gathered
 * again in halves, down to a row, which needs none held (its pointer is
 * its only lookup's, or the spill's). Rows are read in the same order as
 * one gather, so a fault names the same first byte.
 */
static bool tilecopy_transpose_slices(TilecopyState *s, TilecopyJob *j,
                                      uint64_t src, uint64_t stride,
                                      uint64_t m, uint64_t n, unsigned es,
                                      uint64_t ostride, uint8_t *out)
{
    const uint8_t **rows = s->tile_rows;
    uint64_t r0, mr, slice = TC_SLICE_ROWS;

    for (r0 = 0; r0 < m; r0 += mr) {
        mr = MIN(m - r0, slice);
        tilecopy_hold(s, j);
        if (!tilecopy_gather(s, j, src + r0 * stride, stride, n * es, mr,
                             rows, s->tilebuf)) {
            return false;
        }
        if (mr > 1 && !tilecopy_held(j)) {
            slice = mr / 2;
            mr = 0;
            continue;
        }
        tilecopy_transpose(out + r0 * es, rows, mr, n, ostride, es);
    }
    return true;
}

#define TC_OVER_SRC     1u
#define TC_OVER_DST     2u

/*
 * One tile of @m source rows (at most TC_TILE_ROWS_MAX) by @n columns:
 * gathered, then written straight to the destination rows where they are
 * all mapped (@direct; @staged: through the second half of the tile
 * buffer, see tilecopy_tile_direct()), else transposed in the buffer
 * (rows @ostride elements apart) and written row after row, where a
 * fault, if any, stops it. Where the TLB could not hold the tile's
 * entries, *@over gets the side that took more of it: TC_OVER_SRC when
 * the source rows alone overflowed it, or took more than half and the
 * destination rows did not fit beside them; TC_OVER_DST when the
 * destination rows did not fit.
 */
static bool tilecopy_tile(TilecopyState *s, TilecopyJob *j,
                          const TilecopyShape *sh, unsigned p, unsigned q,
                          uint64_t src, uint64_t dst, uint64_t m, uint64_t n,
                          unsigned es, uint64_t ostride, bool direct,
                          bool staged, unsigned *over)
{
    uint8_t *in = s->tilebuf, *out = s->tilebuf + s->tilebuf_size / 2;
    const uint8_t **rows = s->tile_rows;
    uint64_t c0 = 0, nstaged = 0, src_fills, i;
    bool src_held;

    /*
     * Gather: rows are read where they lie (a row split between two
     * mappings is first copied into the buffer).
     */
    tilecopy_hold(s, j);
    src_fills = j->fills;
    if (!tilecopy_gather(s, j, src, sh->ss[q] * es, n * es, m, rows, in)) {
        return false;
    }
    src_held = tilecopy_held(j);
    src_fills = j->fills - src_fills;
    *over |= src_held ? 0 : TC_OVER_SRC;
    if (direct && src_held) {
        c0 = tilecopy_tile_direct(s, j, rows, m, n, es, dst, sh->ds[p] * es,
                                  staged, &nstaged);
        if (j->full) {
            *over |= src_fills > TC_TLB_ENTRIES / 2 ? TC_OVER_SRC
                                                    : TC_OVER_DST;
        }
    }
    trace_tilecopy_tile(es, m, n, c0, nstaged);
    if (c0 == n) {
        return true;
    }
    if (!tilecopy_held(j)) {
        /*
         * The source rows took more lookups than the TLB holds (rows far
         * apart in scattered pages): the first rows' pointers may have
         * gone with their entries. Gathered again and
         * transposed a slice of rows at a time, each slice's lookups
         * within the TLB. (The destination's lookups evict none of the
         * source's: tilecopy_tile_direct().)
         */
        trace_tilecopy_tile_slices(es, m, n - c0);
        if (!tilecopy_transpose_slices(s, j, src + c0 * es, sh->ss[q] * es,
                                       m, n - c0, es, ostride, out)) {
            return false;
        }
    } else {
        tilecopy_transpose(out, rows, m, n - c0, ostride, es);
    }
    dst += c0 * sh->ds[p] * es;
    if (sh->ds[p] == m && ostride == m) {
        /* rows adjacent in the destination: one run */
        return tilecopy_write_va(s, j, dst, out, m * (n - c0) * es);
    }
    for (i = 0; i < n - c0; i++) {
        if (!tilecopy_write_va(s, j, dst + i * sh->ds[p] * es,
                               out + i * ostride * es, m * es)) {
            return false;
        }
    }
    return true;
}

/*
 * Transposing copy through the tile buffer: dimension p is contiguous in
 * the source, dimension q in the destination. A tile of bq rows of bp
 * elements is gathered with contiguous row reads, transposed and written
 * as bp contiguous rows of bq elements.
 */
static bool tilecopy_exec_tiled(TilecopyState *s, TilecopyJob *j,
                                const struct drm_tilecopy_desc *d,
                                const TilecopyShape *sh, unsigned p,
                                unsigned q)
{
    unsigned es = d->elem_size;
    uint64_t cap = s->tilebuf_size / 2 / es;
    uint64_t bq, bp, bh, bw, p0, q0, r0, n, m, ostride;
    uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
    uint64_t soff = 0, doff = 0;
    uint32_t outer = ((1u << sh->nd) - 1) & ~(1u << p) & ~(1u << q);
    /*
     * Rows a page or more apart each hold a TLB entry while a tile is
     * done: up to 256 of them on a side (the TLB has 128) where the pages
     * are not one run. The direct path then gives up, the buffered one
     * gathers the source again in slices where the source rows alone
     * overflowed (tilecopy_transpose_slices()), and the side that
     * overflowed shrinks (below).
     */
    bool src_far = sh->ss[q] * es >= TC_PAGE_SIZE;
    bool dst_far = sh->ds[p] * es >= TC_PAGE_SIZE;
    /*
     * Straight to the destination only where its rows do not overlap
     * (else the order of the writes would show) and no DMA error is to
     * be injected at an exact byte.
     */
    bool direct = !j->inject && tilecopy_direct_min_cols(es) &&
                  sh->ds[p] >= sh->e[q];
    /*
     * Few columns of source rows that are one run (NHWC with C = 3 into
     * planes) are read as one block: tiles as tall as the buffer allows.
     */
    bool few_cols = direct && sh->e[p] <= TILECOPY_FEW_MAX &&
                    sh->ss[q] == sh->e[p];
    bool far_both;

    if (sh->e[p] >= sh->e[q]) {
        /* wide tiles: long source rows */
        bq = MIN(sh->e[q], src_far ? 64 : 256);
        bp = MIN(sh->e[p], cap / bq);
        if (dst_far) {
            bp = MIN(bp, 64);
        }
    } else {
        /* tall tiles: long destination rows */
        bp = MIN(sh->e[p], dst_far ? 64 : 256);
        bq = MIN(sh->e[q], cap / bp);
        if (src_far) {
            bq = MIN(bq, 64);
        }
    }
    /*
     * Both sides a page or more apart (a large 2-D transpose): tiles of
     * four direct blocks' source rows (four consecutive 64-byte lines of
     * each destination row) by up to 128 destination rows (256 for
     * bytes: source runs of 256 bytes at least), through the second half
     * of the tile buffer (tilecopy_tile_direct, staged): with AVX2, 4-
     * and 8-byte elements are macro tiles transposed there and streamed
     * out a destination row at a time, with AVX-512 1- and 2-byte ones
     * too; 1- and 2-byte ones without AVX-512 (and 4-byte ones without
     * AVX2) copy the source there row after row before the blocks read
     * it; 8-byte ones without AVX2 are read where they lie
     * (tilecopy_transpose_direct()).
     * docs/performance.md has the shapes measured. Rows far apart share
     * TLB runs only where the mapping is contiguous: fewer destination
     * rows, then fewer source rows from the next band on, while a tile's
     * lookups overflow the TLB (below).
     */
    far_both = direct && src_far && dst_far && !few_cols;
    if (far_both) {
        bq = MIN(sh->e[q], TC_FAR_LINES * 64 / es);
        bp = MIN(sh->e[p], MAX(TC_FAR_COLS, TC_FAR_RUN / es));
    }
    bq = MAX(1, bq);
    /*
     * Rows of the transposed tile a multiple of 512 bytes apart would all
     * fall in the same few L1 sets: pad them by a cache line.
     */
    ostride = MIN(bq, TC_TILE_ROWS_MAX);
    if ((ostride * es) % 512 == 0 && ostride > 64 / es &&
        bp * (ostride + 64 / es) > cap && bp * ostride <= cap) {
        /*
         * A tall tile that fills the buffer (NHWC -> NCHW: 512 pixels by
         * 64 channels): the padding would cost destination rows (62 of
         * 64, and the other 2 a second tile that reads the same source
         * rows again). One line fewer source rows instead: not a
         * multiple of 512 bytes, no padding. A taller few-column tile
         * (bq above TC_TILE_ROWS_MAX, a smaller tile buffer) gets the
         * same: its rows are done TC_TILE_ROWS_MAX at a time anyway.
         */
        bq = ostride - 64 / es;
        ostride = bq;
    }
    ostride = (ostride * es) % 512 ? ostride : ostride + 64 / es;
    bp = MAX(1, MIN(bp, cap / ostride));
    /* Long rows: whole lines, so that the next tile starts aligned too. */
    if (bp > 128) {
        bp &= ~(uint64_t)63;
    }
    if (!few_cols) {
        bq = MIN(bq, TC_TILE_ROWS_MAX);
    }
    do {
        for (q0 = 0; q0 < sh->e[q]; q0 += bh) {
            bh = bq;                            /* this band's rows */
            for (p0 = 0; p0 < sh->e[p]; p0 += bw) {
                uint64_t src = d->src + soff + (q0 * sh->ss[q] + p0) * es;
                uint64_t dst = d->dst + doff + (p0 * sh->ds[p] + q0) * es;

                unsigned over = 0;

                bw = bp;                        /* this tile's columns */
                if (tilecopy_cancelled(s, j)) {
                    return false;
                }
                n = MIN(bw, sh->e[p] - p0);     /* elements per source row */
                m = MIN(bh, sh->e[q] - q0);     /* source rows */
                if (direct &&
                    tilecopy_tile_few(s, j, sh, p, q, src, dst, m, n, es)) {
                    continue;
                }
                /*
                 * A tall few-column tile whose source is not one run (it
                 * crosses the end of a mapping) goes in parts.
                 */
                for (r0 = 0; r0 < m; r0 += TC_TILE_ROWS_MAX) {
                    uint64_t sa = src + r0 * sh->ss[q] * es;
                    uint64_t da = dst + r0 * es;
                    uint64_t mr = MIN(m - r0, TC_TILE_ROWS_MAX);
                    bool part = few_cols && m > TC_TILE_ROWS_MAX;

                    if ((part && tilecopy_tile_few(s, j, sh, p, q, sa, da, mr,
                                                   n, es)) ||
                        tilecopy_tile(s, j, sh, p, q, sa, da, mr, n, es,
                                      ostride, direct, far_both, &over)) {
                        continue;
                    }
                    return false;
                }
                /*
                 * Halve the side that overflowed the TLB: the source
                 * rows (half this band's, from the next band on; at
                 * their floor the destination keeps its rows, and the
                 * buffered path, in slices where they alone overflow,
                 * takes the source), else the destination rows (from
                 * the next tile on), then the source rows to make room
                 * for them. The floors (64 / es source rows, 64
                 * destination rows) do not make a tile's lookups fit:
                 * with 1-byte elements 64 + 64 rows take all 128
                 * entries, and a row split between two pages takes two.
                 */
                if (far_both && (over & TC_OVER_SRC)) {
                    if (bh > 64 / es) {
                        bq = MIN(bq, MAX(64 / es, bh / 2));
                    }
                } else if (far_both && over) {
                    if (bp > 64) {
                        bp = MAX(64, bp / 2);
                    } else {
                        bq = MIN(bq, MAX(64 / es, bh / 2));
                    }
                }
            }
        }
    } while (tilecopy_next(sh, outer, idx, &soff, &doff, es));
    return true;
}

/*
 * @count rows of @len bytes (short ones), @sstride and @dstride bytes
 * apart: up to TC_TILE_ROWS_MAX rows at a time are looked up with one
 * translation per run of pages and copied where they lie. A row that is
 * not mapped in one piece on both sides (or faults) goes alone through
 * tilecopy_copy_va(), which records the fault where a row-by-row copy
 * would; the rows before it are written.
 */
static bool tilecopy_copy_rows(TilecopyState *s, TilecopyJob *j, uint64_t dst,
                               uint64_t dstride, uint64_t src,
                               uint64_t sstride, uint64_t len, uint64_t count)
{
    uint8_t **sp = (uint8_t **)s->tile_rows, **dp = s->tile_drows;
    uint64_t n, got, i, batch = TC_TILE_ROWS_MAX;

    while (count) {
        if (tilecopy_cancelled(s, j)) {
            return false;
        }
        n = MIN(count, batch);
        tilecopy_hold(s, j);
        got = tilecopy_probe_rows(s, j, src, sstride, len, n, false, sp);
        got = tilecopy_probe_rows(s, j, dst, dstride, len, got, true, dp);
        if (!tilecopy_held(j)) {
            /*
             * The first pointers may have left the TLB (rows in pages
             * of their own): smaller batches from now on.
             */
            got = 0;
            batch = MAX(1, batch / 2);
        }
        for (i = 0; i < got; i++) {
            memmove(dp[i], sp[i], len);
        }
        j->moved += got * len;
        if (got < n) {
            if (!tilecopy_copy_va(s, j, dst + got * dstride,
                                  src + got * sstride, len)) {
                return false;
            }
            got++;
        }
        src += got * sstride;
        dst += got * dstride;
        count -= got;
    }
    return true;
}

/*
 * A transpose of blocks: rows of dimension 0 (@bs bytes, contiguous on
 * both sides) continue each other along dimension @p in the source and
 * along @q in the destination, as the 16-element rows of a matrix copied
 * into 16 x 16 fractals (ND -> zN). Tiles of source rows along q by blocks
 * along p are looked up (one translation per run of pages) and written
 * straight to their destination rows; a tile not mapped in one piece on
 * both sides goes block by block in the descriptor's order, where a fault
 * stops it at its first byte.
 */
static bool tilecopy_exec_blocks(TilecopyState *s, TilecopyJob *j,
                                 const struct drm_tilecopy_desc *d,
                                 const TilecopyShape *sh, unsigned p,
                                 unsigned q)
{
    unsigned es = d->elem_size;
    uint64_t bs = sh->e[0] * es, sstr = sh->ss[q] * es;
    uint64_t dstr = sh->ds[p] * es;
    uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
    uint64_t soff = 0, doff = 0, bq, bp, p0, q0, m, n, r, c;
    uint32_t outer = ((1u << sh->nd) - 1) & ~1u & ~(1u << p) & ~(1u << q);
    uint8_t **sp = (uint8_t **)s->tile_rows, **dp = s->tile_drows;

    /*
     * 64 KiB tiles at most, 64 rows a side where they lie a page or more
     * apart (each holds a TLB entry), rows of at least a few lines.
     */
    bp = MAX(1, MIN(sh->e[p], MAX(256 / bs, 64 * KiB / bs /
                                  MIN(sh->e[q], 64))));
    bq = MAX(1, MIN(sh->e[q], 64 * KiB / bs / bp));
    if (sstr >= TC_PAGE_SIZE) {
        bq = MIN(bq, 64);
    }
    if (dstr >= TC_PAGE_SIZE) {
        bp = MIN(bp, 64);
    }
    do {
        for (q0 = 0; q0 < sh->e[q]; q0 += bq) {
            for (p0 = 0; p0 < sh->e[p]; p0 += bp) {
                uint64_t src = d->src + soff + q0 * sstr + p0 * bs;
                uint64_t dst = d->dst + doff + p0 * dstr + q0 * bs;

                if (tilecopy_cancelled(s, j)) {
                    return false;
                }
                m = MIN(bq, sh->e[q] - q0);
                n = MIN(bp, sh->e[p] - p0);
                tilecopy_hold(s, j);
                if (tilecopy_probe_rows(s, j, src, sstr, n * bs, m, false,
                                        sp) == m &&
                    tilecopy_probe_rows(s, j, dst, dstr, m * bs, n, true,
                                        dp) == n &&
                    tilecopy_held(j)) {
                    tilecopy_transpose_blocks(dp, (const uint8_t **)sp, m, n,
                                              bs);
                    j->moved += m * n * bs;
                    trace_tilecopy_blocks(m, n, bs, 1);
                    continue;
                }
                trace_tilecopy_blocks(m, n, bs, 0);
                for (c = 0; c < n; c++) {
                    for (r = 0; r < m; r++) {
                        if (!tilecopy_copy_va(s, j, dst + c * dstr + r * bs,
                                              src + r * sstr + c * bs, bs)) {
                            return false;
                        }
                    }
                }
            }
        }
    } while (tilecopy_next(sh, outer, idx, &soff, &doff, es));
    return true;
}

static bool tilecopy_exec_copy(TilecopyState *s, TilecopyJob *j,
                               const struct drm_tilecopy_desc *d)
{
    unsigned es = d->elem_size, k, p = UINT_MAX, q = UINT_MAX;
    uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
    uint64_t soff = 0, doff = 0, i;
    TilecopyShape sh;
    uint8_t *buf = s->tilebuf;

    tilecopy_shape(d, true, &sh);

    /*
     * Both innermost strides 1: contiguous runs; short ones a batch of
     * dimension 1 at a time (a copy into 16 x 16 fractals: rows of 16).
     */
    if (sh.ss[0] == 1 && sh.ds[0] == 1 && sh.nd > 1 && !j->inject &&
        sh.e[0] * es <= TC_SHORT_ROW) {
        for (k = 1; k < sh.nd; k++) {
            if (sh.ss[k] == sh.e[0] && p == UINT_MAX) {
                p = k;
            }
            if (sh.ds[k] == sh.e[0] && q == UINT_MAX) {
                q = k;
            }
        }
        if (p != UINT_MAX && q != UINT_MAX && p != q &&
            sh.ds[p] >= sh.e[q] * sh.e[0]) {
            return tilecopy_exec_blocks(s, j, d, &sh, p, q);
        }
        p = q = UINT_MAX;
        do {
            if (!tilecopy_copy_rows(s, j, d->dst + doff, sh.ds[1] * es,
                                    d->src + soff, sh.ss[1] * es,
                                    sh.e[0] * es, sh.e[1])) {
                return false;
            }
        } while (tilecopy_next(&sh, ((1u << sh.nd) - 1) & ~3u, idx, &soff,
                               &doff, es));
        return true;
    }
    if (sh.ss[0] == 1 && sh.ds[0] == 1) {
        do {
            if (tilecopy_cancelled(s, j) ||
                !tilecopy_copy_va(s, j, d->dst + doff, d->src + soff,
                                  sh.e[0] * es)) {
                return false;
            }
        } while (tilecopy_next(&sh, ((1u << sh.nd) - 1) & ~1u, idx, &soff,
                               &doff, es));
        return true;
    }

    /* A dimension contiguous on each side: transpose tiles. */
    for (k = 0; k < sh.nd; k++) {
        if (sh.ss[k] == 1 && sh.e[k] > 1 && p == UINT_MAX) {
            p = k;
        }
        if (sh.ds[k] == 1 && sh.e[k] > 1 && q == UINT_MAX) {
            q = k;
        }
    }
    if (p != UINT_MAX && q != UINT_MAX && p != q) {
        return tilecopy_exec_tiled(s, j, d, &sh, p, q);
    }

    /*
     * Anything else (broadcast, strided both sides): element by element,
     * a row of dimension 0 at a time through the tile buffer.
     */
    do {
        uint64_t row = sh.e[0], done, chunk;
        uint64_t cap = MIN(s->tilebuf_size / es, TC_POLL_ELEMS);

        for (done = 0; done < row; done += chunk) {
            if (tilecopy_cancelled(s, j)) {
                return false;
            }
            chunk = MIN(cap, row - done);
            if (sh.ss[0] == 1) {
                if (!tilecopy_read_va(s, j, d->src + soff + done * es, buf,
                                      chunk * es)) {
                    return false;
                }
            }
            for (i = 0; sh.ss[0] != 1 && i < chunk; i++) {
                if (!tilecopy_read_va(s, j, d->src + soff +
                                      (done + i) * sh.ss[0] * es,
                                      buf + i * es, es)) {
                    return false;
                }
            }
            if (sh.ds[0] == 1) {
                if (!tilecopy_write_va(s, j, d->dst + doff + done * es, buf,
                                       chunk * es)) {
                    return false;
                }
                continue;
            }
            for (i = 0; i < chunk; i++) {
                if (!tilecopy_write_va(s, j, d->dst + doff +
                                       (done + i) * sh.ds[0] * es,
                                       buf + i * es, es)) {
                    return false;
                }
            }
        }
    } while (tilecopy_next(&sh, ((1u << sh.nd) - 1) & ~1u, idx, &soff, &doff,
                           es));
    return true;
}

static bool tilecopy_exec_fill(TilecopyState *s, TilecopyJob *j,
                               const struct drm_tilecopy_desc *d)
{
    unsigned es = d->elem_size;
    uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
    uint64_t soff = 0, doff = 0, value = cpu_to_le64(d->value), i, done, n;
    uint64_t cap = MIN(s->tilebuf_size / es, TC_POLL_ELEMS);
    TilecopyShape sh;
    uint8_t *buf = s->tilebuf;

    tilecopy_shape(d, false, &sh);
    /* A row of the pattern in the tile buffer, written run by run. */
    for (i = 0; i < MIN(cap, sh.e[0]); i++) {
        memcpy(buf + i * es, &value, es);
    }
    do {
        for (done = 0; done < sh.e[0]; done += n) {
            if (tilecopy_cancelled(s, j)) {
                return false;
            }
            n = MIN(cap, sh.e[0] - done);
            if (sh.ds[0] == 1) {
                if (!tilecopy_write_va(s, j, d->dst + doff + done * es, buf,
                                       n * es)) {
                    return false;
                }
                continue;
            }
            for (i = 0; i < n; i++) {
                if (!tilecopy_write_va(s, j, d->dst + doff +
                                       (done + i) * sh.ds[0] * es, buf, es)) {
                    return false;
                }
            }
        }
    } while (tilecopy_next(&sh, ((1u << sh.nd) - 1) & ~1u, idx, &soff, &doff,
                           es));
    return true;
}

/* ---- typed descriptors (engine 1.2) -------------------------------------- */

/*
 * A typed descriptor reduced as tilecopy_shape() reduces an untyped one,
 * with the scales as a third operand: two dimensions merge only when they
 * continue each other on the source, the destination and the scales.
 * Strides are in elements (nibbles of a 4-bit side).
 */
typedef struct TilecopyCvtShape {
    unsigned nd;
    uint64_t e[DRM_TILECOPY_MAX_DIMS];
    uint64_t st[3][DRM_TILECOPY_MAX_DIMS];  /* source, destination, scales */
} TilecopyCvtShape;

enum { TC_CVT_SRC, TC_CVT_DST, TC_CVT_SCL };

/*
 * One operand of a typed descriptor: element x of it (counted from the
 * first nibble of a 4-bit side's byte) lives at base + x * bits / 8.
 */
typedef struct TilecopyCvtSide {
    uint64_t base;
    uint64_t first;         /* the nibble field of a 4-bit side, else 0 */
    unsigned bits;
} TilecopyCvtSide;

static void tilecopy_cvt_shape(const struct drm_tilecopy_desc *d, bool copy,
                               TilecopyCvtShape *sh)
{
    unsigned k, n = 0, o;

    for (k = 0; k < d->ndims; k++) {
        uint64_t st[3] = { copy ? d->src_stride[k] : 0, d->dst_stride[k],
                           d->scale_stride[k] };

        if (d->extent[k] == 1) {
            continue;
        }
        if (n && sh->st[0][n - 1] * sh->e[n - 1] == st[0] &&
            sh->st[1][n - 1] * sh->e[n - 1] == st[1] &&
            sh->st[2][n - 1] * sh->e[n - 1] == st[2]) {
            sh->e[n - 1] *= d->extent[k];
            continue;
        }
        sh->e[n] = d->extent[k];
        for (o = 0; o < 3; o++) {
            sh->st[o][n] = st[o];
        }
        n++;
    }
    if (!n) {
        sh->e[0] = 1;
        sh->st[0][0] = sh->st[1][0] = sh->st[2][0] = 0;
        n = 1;
    }
    sh->nd = n;
}

/* Odometer over dimensions 1.. (the rows): advances the element offsets. */
static bool tilecopy_cvt_next(const TilecopyCvtShape *sh, uint64_t *idx,
                              uint64_t *off)
{
    unsigned k, o;

    for (k = 1; k < sh->nd; k++) {
        if (++idx[k] < sh->e[k]) {
            for (o = 0; o < 3; o++) {
                off[o] += sh->st[o][k];
            }
            return true;
        }
        for (o = 0; o < 3; o++) {
            off[o] -= (idx[k] - 1) * sh->st[o][k];
        }
        idx[k] = 0;
    }
    return false;
}

static uint64_t tilecopy_cvt_addr(const TilecopyCvtSide *sd, uint64_t x)
{
    return sd->base + (sd->bits == 4 ? x >> 1 : x * (sd->bits / 8));
}

/* Bytes of @m elements from element @x, contiguous. */
static uint64_t tilecopy_cvt_len(const TilecopyCvtSide *sd, uint64_t x,
                                 uint64_t m)
{
    return sd->bits == 4 ? ((x + m - 1) >> 1) - (x >> 1) + 1 :
                           m * (sd->bits / 8);
}

/*
 * Read @m elements of @sd, from element @x, @stride apart, into @buf:
 * element i of the run is element *@start + i * *@step of @buf.
 */
static bool tilecopy_cvt_gather(TilecopyState *s, TilecopyJob *j,
                                const TilecopyCvtSide *sd, uint64_t x,
                                uint64_t stride, uint64_t m, uint8_t *buf,
                                int64_t *start, int64_t *step)
{
    unsigned es = sd->bits / 8;
    uint8_t b;
    uint64_t i;

    *start = sd->bits == 4 ? x & 1 : 0;
    *step = stride ? 1 : 0;
    if (stride <= 1) {
        return tilecopy_read_va(s, j, tilecopy_cvt_addr(sd, x), buf,
                                tilecopy_cvt_len(sd, x, stride ? m : 1));
    }
    *start = 0;
    for (i = 0; i < m; i++, x += stride) {
        if (sd->bits != 4) {
            if (!tilecopy_read_va(s, j, tilecopy_cvt_addr(sd, x),
                                  buf + i * es, es)) {
                return false;
            }
            continue;
        }
        if (!tilecopy_read_va(s, j, tilecopy_cvt_addr(sd, x), &b, 1)) {
            return false;
        }
        tilecopy_cvt_nibble_set(buf, i, tilecopy_cvt_nibble_get(&b, x & 1));
    }
    return true;
}

/*
 * Write elements 0..@m-1 of @buf (4-bit: nibbles) to @sd, from element @x,
 * @stride apart: a 4-bit element is a read-modify-write of its byte. A
 * stride of 0 writes the last element only (each overwrites the one before).
 */
static bool tilecopy_cvt_scatter(TilecopyState *s, TilecopyJob *j,
                                 const TilecopyCvtSide *sd, uint64_t x,
                                 uint64_t stride, uint64_t m,
                                 const uint8_t *buf)
{
    unsigned es = sd->bits / 8;
    uint64_t i = stride ? 0 : m - 1;
    uint8_t b;

    for (x += i * stride; i < m; i++, x += stride) {
        uint64_t va = tilecopy_cvt_addr(sd, x);

        if (sd->bits != 4) {
            if (!tilecopy_write_va(s, j, va, buf + i * es, es)) {
                return false;
            }
            continue;
        }
        if (!tilecopy_read_va(s, j, va, &b, 1)) {
            return false;
        }
        tilecopy_cvt_nibble_set(&b, x & 1, tilecopy_cvt_nibble_get(buf, i));
        if (!tilecopy_write_va(s, j, va, &b, 1)) {
            return false;
        }
    }
    return true;
}

/* The scales of @m elements from scale @c, @stride apart, as host floats. */
static bool tilecopy_cvt_scales(TilecopyState *s, TilecopyJob *j,
                                uint64_t scales, uint64_t c, uint64_t stride,
                                uint64_t m, float *buf)
{
    uint64_t i, n = stride ? m : 1;
    uint32_t v;

    if (stride <= 1) {
        if (!tilecopy_read_va(s, j, scales + 4 * c, buf, 4 * n)) {
            return false;
        }
    }
    for (i = 0; i < n; i++) {
        uint64_t va = scales + 4 * (c + i * stride);

        if (stride > 1 && !tilecopy_read_va(s, j, va, &buf[i], 4)) {
            return false;
        }
        memcpy(&v, &buf[i], 4);
        v = le32_to_cpu(v);
        memcpy(&buf[i], &v, 4);
    }
    return true;
}

/*
 * @m elements of a row, from element @done of it: the source gathered into
 * the tile buffer (a FILL's value is already there), converted into a
 * destination stage and written. A contiguous 4-bit destination reads its
 * first and last byte when the run covers only one nibble of them.
 */
static bool tilecopy_cvt_chunk(TilecopyState *s, TilecopyJob *j,
                               const struct drm_tilecopy_desc *d,
                               const TilecopyCvtSide *side,
                               const TilecopyCvtShape *sh, const uint64_t *off,
                               uint64_t done, uint64_t m, uint64_t cap)
{
    uint8_t *sbuf = s->tilebuf, *dbuf = s->tilebuf + 4 * cap + 8;
    float *cbuf = (float *)(s->tilebuf + 8 * cap + 16);
    const TilecopyCvtSide *ds = &side[TC_CVT_DST];
    uint64_t x = ds->first + off[TC_CVT_DST] + done * sh->st[TC_CVT_DST][0];
    int64_t sstart = 0, sstep = 0, dstart = ds->bits == 4 ? x & 1 : 0;
    ptrdiff_t cstep = sh->st[TC_CVT_SCL][0] ? 1 : 0;
    uint64_t len = tilecopy_cvt_len(ds, x, m);
    bool contig = sh->st[TC_CVT_DST][0] == 1;

    if (d->op == DRM_TILECOPY_OP_COPY &&
        !tilecopy_cvt_gather(s, j, &side[TC_CVT_SRC],
                             side[TC_CVT_SRC].first + off[TC_CVT_SRC] +
                             done * sh->st[TC_CVT_SRC][0],
                             sh->st[TC_CVT_SRC][0], m, sbuf, &sstart, &sstep)) {
        return false;
    }
    if ((d->cvt_flags & DRM_TILECOPY_CVT_SCALES) &&
        !tilecopy_cvt_scales(s, j, d->scales, off[TC_CVT_SCL] +
                             done * sh->st[TC_CVT_SCL][0],
                             sh->st[TC_CVT_SCL][0], m, cbuf)) {
        return false;
    }
    if (!contig) {
        dstart = 0;
    } else if (ds->bits == 4 &&
               (((x & 1) && !tilecopy_read_va(s, j, tilecopy_cvt_addr(ds, x),
                                              dbuf, 1)) ||
                (((x + m) & 1) &&
                 !tilecopy_read_va(s, j, tilecopy_cvt_addr(ds, x + m - 1),
                                   dbuf + len - 1, 1)))) {
        return false;
    }
    tilecopy_cvt_run(s->cvt, dbuf, dstart, sbuf, sstart, sstep, m, cbuf, cstep);
    if (contig) {
        return tilecopy_write_va(s, j, tilecopy_cvt_addr(ds, x), dbuf, len);
    }
    return tilecopy_cvt_scatter(s, j, ds, x, sh->st[TC_CVT_DST][0], m, dbuf);
}

/*
 * A typed COPY or FILL, a row (dimension 0) at a time in chunks that fit
 * the tile buffer three times (source, destination, scales: 4 bytes an
 * element at most), looking at STOP between chunks. The conversion is the
 * library's reference (tilecopy-cvt.h); a FILL is a bit copy of its value.
 */
static bool tilecopy_exec_typed(TilecopyState *s, TilecopyJob *j,
                                const struct drm_tilecopy_desc *d)
{
    bool copy = d->op == DRM_TILECOPY_OP_COPY;
    uint64_t cap = MIN((s->tilebuf_size - 64) / 12, TC_POLL_ELEMS);
    uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 }, off[3] = { 0 }, done, m;
    TilecopyCvtSide side[2] = {
        [TC_CVT_SRC] = { d->src, d->src_nibble, tilecopy_side_bits(d, true) },
        [TC_CVT_DST] = { d->dst, d->dst_nibble, tilecopy_side_bits(d, false) },
    };
    struct drm_tilecopy_desc fill;
    TilecopyCvtShape sh;

    if (!copy) {
        /* the value, as one element of the destination type, copied */
        memset(&fill, 0, sizeof(fill));
        fill.op = DRM_TILECOPY_OP_COPY;
        fill.src_type = fill.dst_type = d->dst_type;
        stq_le_p(s->tilebuf, d->value);
    }
    if (!tilecopy_cvt_prepare(s->cvt, copy ? d : &fill)) {
        /* tilecopy_typed_check() let through what it should not have */
        qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: bad typed "
                      "descriptor\n", j->qi);
        j->status = DRM_TILECOPY_STATUS_BAD_DESC;
        return false;
    }
    tilecopy_cvt_shape(d, copy, &sh);
    do {
        for (done = 0; done < sh.e[0]; done += m) {
            if (tilecopy_cancelled(s, j)) {
                return false;
            }
            m = MIN(cap, sh.e[0] - done);
            if (!tilecopy_cvt_chunk(s, j, d, side, &sh, off, done, m, cap)) {
                return false;
            }
        }
    } while (tilecopy_cvt_next(&sh, idx, off));
    return true;
}

static bool tilecopy_exec_desc(TilecopyState *s, TilecopyJob *j,
                               const struct drm_tilecopy_desc *d)
{
    uint64_t value;
    bool ok;

    switch (d->dst_type ? 0 : d->op) {
    case 0:
        ok = tilecopy_exec_typed(s, j, d);
        break;
    case DRM_TILECOPY_OP_COPY:
        ok = tilecopy_exec_copy(s, j, d);
        break;
    case DRM_TILECOPY_OP_FILL:
        ok = tilecopy_exec_fill(s, j, d);
        break;
    default:
        value = cpu_to_le64(d->value);
        ok = tilecopy_write_va(s, j, d->dst, &value, 8);
        break;
    }
    /*
     * Streaming stores are weakly ordered: they are done before anything
     * that tells the guest the job went on (the next descriptor's
     * WRITE64, DONE_SEQNO, the interrupt).
     */
    tilecopy_store_fence();
    return ok;
}

static void tilecopy_desc_le(struct drm_tilecopy_desc *d)
{
    unsigned k;

    d->op = le16_to_cpu(d->op);
    d->flags = le32_to_cpu(d->flags);
    d->src = le64_to_cpu(d->src);
    d->dst = le64_to_cpu(d->dst);
    d->value = le64_to_cpu(d->value);
    for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
        d->extent[k] = le32_to_cpu(d->extent[k]);
        d->src_stride[k] = le64_to_cpu(d->src_stride[k]);
        d->dst_stride[k] = le64_to_cpu(d->dst_stride[k]);
        d->scale_stride[k] = le32_to_cpu(d->scale_stride[k]);
    }
    d->cvt_flags = le32_to_cpu(d->cvt_flags);
    d->src_zp = le32_to_cpu(d->src_zp);
    d->dst_zp = le32_to_cpu(d->dst_zp);
    d->scale = le32_to_cpu(d->scale);
    d->pad = le32_to_cpu(d->pad);
    d->scales = le64_to_cpu(d->scales);
}

/* Bytes the descriptor writes (for the injected DMA error). */
static uint64_t tilecopy_desc_bytes(const struct drm_tilecopy_desc *d)
{
    uint64_t n = tilecopy_side_bits(d, false);
    unsigned k;

    for (k = 0; k < d->ndims; k++) {
        n *= d->extent[k];
    }
    return (n + 7) / 8;
}

/* ---- the worker --------------------------------------------------------- */

/* Sleep for @ns; returns early on cancel. Called with lock. */
static void tilecopy_delay(TilecopyState *s, TilecopyJob *j, uint64_t ns)
{
    int64_t end = get_clock() + (int64_t)ns;
    int64_t left;

    while ((left = end - get_clock()) > 0 && s->q[j->qi].gen == j->gen &&
           !s->stopping && !s->stop) {
        qemu_cond_timedwait(&s->work_cond, &s->lock,
                            MAX(1, (int)MIN(left / 1000000, 1000)));
    }
}

/*
 * Fetch descriptor @i of @size bytes (TC_DESC_SIZE_1_2, or the 192 of 1.0
 * whose missing fields are zero): through the MMU (TC_RING_F_DESC_VA) or
 * the bus.
 */
static bool tilecopy_fetch_desc(TilecopyState *s, TilecopyJob *j,
                                uint64_t addr, bool via_mmu, uint32_t size,
                                uint32_t i, struct drm_tilecopy_desc *d)
{
    uint64_t da = addr + (uint64_t)i * size;

    QEMU_BUILD_BUG_ON(sizeof(*d) != TC_DESC_SIZE_1_2);
    memset(d, 0, sizeof(*d));
    if (via_mmu) {
        /* a fault is recorded with its address and kind, like any access */
        if (!tilecopy_read_va(s, j, da, d, size)) {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: descriptor %u "
                          "at VA 0x%" PRIx64 " unreadable\n", j->qi, i, da);
            return false;
        }
    } else if (!tilecopy_bus_read(s, da, d, size)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "tilecopy: queue %u: descriptor %u at 0x%" PRIx64
                      " unreadable\n", j->qi, i, da);
        j->status = DRM_TILECOPY_STATUS_DMA_ERROR;
        j->err_addr = da;
        return false;
    }
    tilecopy_desc_le(d);
    return true;
}

/*
 * Execute one ring entry; the outcome is left in @j. Runs without s->lock.
 * With delay-ns-per-kb, each descriptor takes its time after it ran, so a
 * stop or reset can land between two descriptors of one job.
 */
static void tilecopy_run_job(TilecopyState *s, TilecopyJob *j,
                             const struct tc_ring_entry *re, bool inject)
{
    struct drm_tilecopy_desc d;
    uint32_t i, count = le32_to_cpu(re->desc_count);
    uint64_t addr = le64_to_cpu(re->desc_addr), moved, debt = 0;
    uint32_t flags = le32_to_cpu(re->flags);
    bool via_mmu = flags & TC_RING_F_DESC_VA;
    uint32_t size = flags & TC_RING_F_DESC_256 ? TC_DESC_SIZE_1_2 :
                    DRM_TILECOPY_DESC_SIZE_1_0;

    for (i = 0; i < count; i++) {
        j->err_desc = i;
        if (tilecopy_cancelled(s, j) ||
            !tilecopy_fetch_desc(s, j, addr, via_mmu, size, i, &d) ||
            !tilecopy_desc_check(s, j, &d)) {
            return;
        }
        j->inject = inject && i == count / 2;
        j->inject_budget = tilecopy_desc_bytes(&d) / 2;
        trace_tilecopy_desc(j->qi, i, d.op, d.elem_size, d.ndims, d.src, d.dst);
        if (d.dst_type) {
            trace_tilecopy_desc_typed(j->qi, i, d.src_type, d.dst_type,
                                      d.cvt_flags, d.scales);
        }
        moved = j->moved;
        if (!tilecopy_exec_desc(s, j, &d)) {
            return;
        }
        if (j->inject) {
            /* never reached the budget (a tiny descriptor): fail at its end */
            tilecopy_fault(j, DRM_TILECOPY_STATUS_DMA_ERROR, d.dst);
            return;
        }
        /*
         * The delay is owed per descriptor and slept in pieces of at least
         * a millisecond (the granularity of the wait), or at the job's end.
         */
        debt += (j->moved - moved) * s->delay_ns_per_kb / 1024;
        if (debt >= 1000000 || (debt && i == count - 1)) {
            qemu_mutex_lock(&s->lock);
            tilecopy_delay(s, j, debt);
            qemu_mutex_unlock(&s->lock);
            debt = 0;
        }
    }
}

/* Pick a queue with work, round robin; called with s->lock held. */
static int tilecopy_pick(TilecopyState *s)
{
    unsigned n;

    if (s->stop) {
        return -1;
    }
    for (n = 0; n < s->num_queues; n++) {
        unsigned qi = (s->rr + n) % s->num_queues;
        TilecopyQueue *q = &s->q[qi];

        if ((q->ctrl & TC_Q_CTRL_ENABLE) && !(q->status & TC_Q_STATUS_HALTED) &&
            !q->hung && q->ring_size && q->head != q->tail) {
            s->rr = (qi + 1) % s->num_queues;
            return qi;
        }
    }
    return -1;
}

static void tilecopy_update_busy(TilecopyState *s)
{
    unsigned i;

    s->status &= ~TC_STATUS_BUSY;
    for (i = 0; i < s->num_queues; i++) {
        if (s->q[i].status & TC_Q_STATUS_BUSY) {
            s->status |= TC_STATUS_BUSY;
        }
    }
}

/*
 * The ring entry of the job is read: record it as started and, for the
 * fault injection, maybe hang it. Returns true when the job hangs: it stays
 * BUSY and started, writes nothing and never completes until a reset.
 */
static bool tilecopy_job_begin(TilecopyState *s, TilecopyJob *j,
                               uint64_t seqno, int64_t t0, uint64_t jobno)
{
    TilecopyQueue *q = &s->q[j->qi];
    bool hang;

    qemu_mutex_lock(&s->lock);
    if (q->gen != j->gen) {
        qemu_mutex_unlock(&s->lock);
        return false;   /* reset meanwhile: the job is cancelled anyway */
    }
    q->started_seqno = seqno;
    q->job_t0 = t0 ? t0 : 1;
    hang = (s->hang_on_job && jobno == s->hang_on_job) ||
           (s->hang_queue_mask & (1u << j->qi));
    if (!hang) {
        qemu_mutex_unlock(&s->lock);
        return false;
    }
    qemu_log_mask(LOG_UNIMP, "tilecopy: queue %u: job %" PRIu64 " (seqno %"
                  PRIu64 ") hangs (fault injection)\n", j->qi, jobno, seqno);
    trace_tilecopy_hang(j->qi, jobno);
    q->hung = true;
    q->running = false;
    qemu_cond_broadcast(&s->idle_cond);
    qemu_mutex_unlock(&s->lock);
    return true;
}

static void tilecopy_job_step(TilecopyState *s, unsigned qi)
{
    TilecopyQueue *q = &s->q[qi];
    TilecopyJob *j = &s->job;
    struct tc_ring_entry re;
    uint64_t ea = q->ring_base + (uint64_t)q->head * TC_RING_ENTRY_SIZE;
    uint64_t seqno = 0, jobno;
    int64_t t0;
    bool fw_ok, inject, ok_entry;
    uint32_t ctx, k;
    /* 256-byte descriptors only where the engine has them (1.2) */
    uint32_t flags_ok = TC_RING_F_DESC_VA |
                        (s->convert ? TC_RING_F_DESC_256 : 0);

    jobno = ++s->jobs_started;
    q->status |= TC_Q_STATUS_BUSY;
    tilecopy_update_busy(s);

    j->qi = qi;
    j->root = 0;
    j->moved = 0;
    j->elems = 0;
    j->status = DRM_TILECOPY_STATUS_OK;
    j->err_addr = 0;
    j->cancelled = false;
    j->inject = false;
    j->gen = q->gen;
    j->ops = s->fw_ops;
    j->tlb_gen = qatomic_read(&s->tlb_gen);
    j->last[0] = j->last[1] = -1;
    j->err_desc = TC_Q_ERR_DESC_NONE;
    fw_ok = (s->status & TC_STATUS_FW_READY) && qi < s->fw_queues;
    inject = s->dma_error_on_job && jobno == s->dma_error_on_job;
    q->running = true;
    qemu_mutex_unlock(&s->lock);

    t0 = get_clock();
    ok_entry = tilecopy_bus_read(s, ea, &re, sizeof(re));
    if (ok_entry &&
        tilecopy_job_begin(s, j, le64_to_cpu(re.seqno), t0, jobno)) {
        qemu_mutex_lock(&s->lock);
        return;     /* hung (fault injection) */
    }
    if (!ok_entry) {
        qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: ring entry at 0x%"
                      PRIx64 " unreadable\n", qi, ea);
        j->status = DRM_TILECOPY_STATUS_DMA_ERROR;
        j->err_addr = ea;
    } else {
        seqno = le64_to_cpu(re.seqno);
        ctx = le32_to_cpu(re.ctx);
        trace_tilecopy_job_start(qi, seqno, le32_to_cpu(re.desc_count), ctx);
        for (k = 0; k < ARRAY_SIZE(re.reserved); k++) {
            ok_entry &= !re.reserved[k];
        }
        if (!fw_ok) {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: job without "
                          "running firmware\n", qi);
            j->status = DRM_TILECOPY_STATUS_NO_FIRMWARE;
        } else if (!ok_entry || (le32_to_cpu(re.flags) & ~flags_ok) ||
                   re.reserved0 || !re.desc_count ||
                   ctx >= TC_NUM_CONTEXTS) {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: malformed ring "
                          "entry %u\n", qi, q->head);
            j->status = DRM_TILECOPY_STATUS_BAD_DESC;
        } else {
            qemu_mutex_lock(&s->lock);
            j->root = s->ctx_root[ctx];
            qemu_mutex_unlock(&s->lock);
            tilecopy_run_job(s, j, &re, inject);
            if (j->status == DRM_TILECOPY_STATUS_OK) {
                j->err_desc = TC_Q_ERR_DESC_NONE;
            }
        }
    }
    tilecopy_tlb_flush(s, j);
    if (j->status != DRM_TILECOPY_STATUS_OK && !j->cancelled) {
        trace_tilecopy_fault(qi, j->status, j->err_desc, j->err_addr);
    }

    qemu_mutex_lock(&s->lock);
    q->running = false;
    qemu_cond_broadcast(&s->idle_cond);
    if (q->gen != j->gen) {
        return;     /* reset: the queue was cleared behind our back */
    }
    q->status &= ~TC_Q_STATUS_BUSY;
    q->job_t0 = 0;
    if (j->cancelled) {
        /* CTRL.STOP: abandoned; started, not done, HEAD stays */
        tilecopy_update_busy(s);
        return;
    }
    s->busy_ns += get_clock() - t0;
    s->bytes_moved += j->moved;
    if (j->status == DRM_TILECOPY_STATUS_OK) {
        s->jobs_done++;
        q->done_seqno = seqno;
        q->head = (q->head + 1) & (q->ring_size - 1);
        tilecopy_queue_event(s, qi, TC_Q_INT_DONE);
    } else {
        s->jobs_failed++;
        q->status |= TC_Q_STATUS_HALTED;
        q->err_code = j->status;
        q->err_desc = j->err_desc;
        q->err_addr = j->err_addr;
        q->err_seqno = seqno;
        tilecopy_queue_event(s, qi, TC_Q_INT_ERROR);
    }
    tilecopy_update_busy(s);
    trace_tilecopy_job_done(qi, seqno, j->status, j->moved);
}

static void *tilecopy_worker(void *opaque)
{
    TilecopyState *s = opaque;

    qemu_mutex_lock(&s->lock);
    while (!s->stopping) {
        int qi = tilecopy_pick(s);

        if (qi < 0) {
            qemu_cond_wait(&s->work_cond, &s->lock);
            continue;
        }
        tilecopy_job_step(s, qi);
        if (s->notify) {
            qemu_bh_schedule(s->irq_bh);    /* thread safe */
        }
    }
    qemu_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- resets ------------------------------------------------------------- */

/* Stop queue @qi (cancelling its job) and clear it; called with lock held. */
static void tilecopy_queue_reset(TilecopyState *s, unsigned qi, bool all)
{
    TilecopyQueue *q = &s->q[qi];

    qatomic_set(&q->gen, q->gen + 1);
    /*
     * Stopped first, so that the worker cannot pick the queue again while
     * this waits for it to leave the cancelled job.
     */
    q->ctrl = 0;
    q->head = q->tail = 0;
    qemu_cond_broadcast(&s->work_cond);     /* interrupt a delay */
    while (q->running) {
        qemu_cond_wait(&s->idle_cond, &s->lock);
    }
    q->status = 0;
    q->int_status = 0;
    q->err_code = q->err_desc = 0;
    q->err_addr = q->done_seqno = q->err_seqno = 0;
    q->started_seqno = 0;
    q->job_t0 = 0;
    q->hung = false;
    tilecopy_update_busy(s);
    if (all) {
        q->ring_base = 0;
        q->ring_size = 0;
        q->int_mask = 0;
    }
    trace_tilecopy_reset(qi);
}

static void tilecopy_engine_reset(TilecopyState *s)
{
    unsigned i;

    for (i = 0; i < TC_MAX_QUEUES; i++) {
        tilecopy_queue_reset(s, i, true);
    }
    s->status = 0;
    s->stop = false;
    s->reset_stuck = false;
    s->fw_version = 0;
    s->fw_status = TC_FW_STATUS_NONE;
    s->fw_queues = s->fw_ops = 0;
    s->fw_tile_rows = s->fw_tile_cols = 0;
    s->int_status = 0;
    s->int_mask = 0;
    s->boot_size = 0;
    memset(s->ctx_root, 0, sizeof(s->ctx_root));
    s->jobs_done = s->jobs_failed = s->bytes_moved = s->busy_ns = 0;
    memset(s->boot_mem, 0, TC_BOOT_WINDOW_SIZE);
    qatomic_inc(&s->tlb_gen);
    trace_tilecopy_reset(-1);
}

/* ---- firmware ----------------------------------------------------------- */

static uint32_t tilecopy_fw_records(TilecopyState *s, const uint8_t *p,
                                    uint32_t size)
{
    uint32_t off = 0, queues = 0, ops = 0, rows = 0, cols = 0;
    bool have_q = false, have_ops = false;

    while (off + 4 <= size) {
        uint16_t type = lduw_le_p(p + off), len = lduw_le_p(p + off + 2);
        const uint8_t *data = p + off + 4;

        if (type == TC_FW_REC_END) {
            if (!have_q || !have_ops || !queues || (ops & ~TC_OPS_ALL)) {
                return TC_FW_STATUS_BAD_PAYLOAD;
            }
            s->fw_queues = MIN(queues, s->num_queues);
            s->fw_ops = ops;
            s->fw_tile_rows = rows;
            s->fw_tile_cols = cols;
            return TC_FW_STATUS_OK;
        }
        if (off + 4 + len > size) {
            return TC_FW_STATUS_BAD_PAYLOAD;
        }
        switch (type) {
        case TC_FW_REC_QUEUES:
            if (len != 4) {
                return TC_FW_STATUS_BAD_PAYLOAD;
            }
            queues = ldl_le_p(data);
            have_q = true;
            break;
        case TC_FW_REC_OPS:
            if (len != 4) {
                return TC_FW_STATUS_BAD_PAYLOAD;
            }
            ops = ldl_le_p(data);
            have_ops = true;
            break;
        case TC_FW_REC_TILE:
            if (len != 8) {
                return TC_FW_STATUS_BAD_PAYLOAD;
            }
            rows = ldl_le_p(data);
            cols = ldl_le_p(data + 4);
            if (!rows || !cols) {
                return TC_FW_STATUS_BAD_PAYLOAD;
            }
            break;
        default:        /* NAME and records of later formats: skipped */
            break;
        }
        off += 4 + ROUND_UP(len, 4);
    }
    return TC_FW_STATUS_BAD_PAYLOAD;    /* no END record */
}

static uint32_t tilecopy_fw_check(TilecopyState *s, uint32_t size)
{
    struct tc_fw_header h;
    uint32_t crc, want;

    if (size > TC_BOOT_WINDOW_SIZE) {
        return TC_FW_STATUS_BAD_FORMAT;
    }
    if (size < sizeof(h)) {
        return TC_FW_STATUS_TRUNCATED;
    }
    memcpy(&h, s->boot_mem, sizeof(h));
    if (le32_to_cpu(h.magic) != TC_FW_MAGIC) {
        return TC_FW_STATUS_BAD_MAGIC;
    }
    if (le16_to_cpu(h.format_version) != TC_FW_FORMAT_VERSION ||
        le16_to_cpu(h.header_size) != sizeof(h)) {
        return TC_FW_STATUS_BAD_FORMAT;
    }
    want = le32_to_cpu(h.header_crc32);
    h.header_crc32 = 0;
    crc = crc32(0, (const Bytef *)&h, sizeof(h));
    if (crc != want) {
        return TC_FW_STATUS_BAD_CRC;
    }
    if ((le32_to_cpu(h.hw_version) >> 16) != (TC_HW_VERSION >> 16) ||
        le32_to_cpu(h.tilebuf_size) > s->tilebuf_size) {
        return TC_FW_STATUS_BAD_HW;
    }
    if (le32_to_cpu(h.payload_size) > size - sizeof(h)) {
        return TC_FW_STATUS_TRUNCATED;
    }
    crc = crc32(0, s->boot_mem + sizeof(h), le32_to_cpu(h.payload_size));
    if (crc != le32_to_cpu(h.payload_crc32)) {
        return TC_FW_STATUS_BAD_CRC;
    }
    s->fw_version = le32_to_cpu(h.fw_version);
    return tilecopy_fw_records(s, s->boot_mem + sizeof(h),
                               le32_to_cpu(h.payload_size));
}

/* BOOT_START: validate the image in the boot window; called with lock. */
static void tilecopy_fw_boot(TilecopyState *s)
{
    static const char *const names[] = {
        "none", "ok", "bad magic", "bad format", "truncated", "bad crc",
        "wrong hw version", "bad payload",
    };
    uint32_t st;

    s->status &= ~(TC_STATUS_FW_READY | TC_STATUS_FW_ERROR);
    s->fw_version = 0;
    s->fw_queues = s->fw_ops = 0;
    st = tilecopy_fw_check(s, s->boot_size);
    s->fw_status = st;
    if (st == TC_FW_STATUS_OK) {
        s->status |= TC_STATUS_FW_READY;
        tilecopy_global_event(s, TC_INT_FW_READY);
    } else {
        s->fw_version = 0;
        s->fw_queues = s->fw_ops = 0;
        s->status |= TC_STATUS_FW_ERROR;
        qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: firmware refused: %s\n",
                      names[st]);
        tilecopy_global_event(s, TC_INT_FW_ERROR);
    }
    trace_tilecopy_fw_boot(s->boot_size, st, s->fw_version);
    qemu_cond_broadcast(&s->work_cond);
}

/* ---- MMIO --------------------------------------------------------------- */

/* STATUS: the stored bits, STOPPED, and a stuck reset's BUSY. */
static uint32_t tilecopy_status(TilecopyState *s)
{
    uint32_t val = s->status;
    unsigned i;

    if (s->stop) {
        val |= TC_STATUS_STOPPED;
        for (i = 0; i < s->num_queues; i++) {
            if (s->q[i].running) {
                val &= ~TC_STATUS_STOPPED;
            }
        }
    }
    if (s->reset_stuck) {
        val |= TC_STATUS_BUSY;
    }
    return val;
}

static void tilecopy_ctrl_write(TilecopyState *s, uint32_t val)
{
    if (val & TC_CTRL_RESET) {
        s->resets++;
        if (s->reset_hang_on && s->resets == s->reset_hang_on) {
            /*
             * Fault injection: this reset never completes. The engine
             * forgets the stop and goes on with what its rings hold (the
             * abandoned job again), as a broken reset might: only the
             * bus master enable stops its DMA now.
             */
            qemu_log_mask(LOG_UNIMP, "tilecopy: reset %u hangs "
                          "(reset-hang-on)\n", s->resets);
            s->reset_stuck = true;
            s->stop = false;
            qemu_cond_broadcast(&s->work_cond);
            return;
        }
        tilecopy_engine_reset(s);
        tilecopy_global_event(s, TC_INT_RESET_DONE);
        return;
    }
    s->stop = val & TC_CTRL_STOP;
    /* wakes the worker (resume) or interrupts its delay (stop) */
    qemu_cond_broadcast(&s->work_cond);
}

static uint64_t tilecopy_queue_read(TilecopyState *s, unsigned qi,
                                    unsigned reg)
{
    TilecopyQueue *q = &s->q[qi];

    switch (reg) {
    case TC_Q_RING_BASE_LO:
        return (uint32_t)q->ring_base;
    case TC_Q_RING_BASE_HI:
        return q->ring_base >> 32;
    case TC_Q_RING_SIZE:
        return q->ring_size;
    case TC_Q_HEAD:
        return q->head;
    case TC_Q_TAIL:
        return q->tail;
    case TC_Q_CTRL:
        return q->ctrl;
    case TC_Q_STATUS:
        return q->status;
    case TC_Q_INT_STATUS:
        return q->int_status;
    case TC_Q_INT_MASK:
        return q->int_mask;
    case TC_Q_ERR_CODE:
        return q->err_code;
    case TC_Q_ERR_DESC:
        return q->err_desc;
    case TC_Q_ERR_ADDR_LO:
        return (uint32_t)q->err_addr;
    case TC_Q_ERR_ADDR_HI:
        return q->err_addr >> 32;
    case TC_Q_DONE_SEQNO_LO:
        return (uint32_t)q->done_seqno;
    case TC_Q_DONE_SEQNO_HI:
        return q->done_seqno >> 32;
    case TC_Q_ERR_SEQNO_LO:
        return (uint32_t)q->err_seqno;
    case TC_Q_ERR_SEQNO_HI:
        return q->err_seqno >> 32;
    case TC_Q_STARTED_SEQNO_LO:
        return (uint32_t)q->started_seqno;
    case TC_Q_STARTED_SEQNO_HI:
        return q->started_seqno >> 32;
    case TC_Q_JOB_NS_LO:
        q->job_ns_latch = q->job_t0 ? MAX(get_clock() - q->job_t0, 1) : 0;
        return (uint32_t)q->job_ns_latch;
    case TC_Q_JOB_NS_HI:
        return q->job_ns_latch >> 32;
    case TC_Q_DOORBELL:
        return 0;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: read of unknown queue register "
                  "0x%x\n", reg);
    return 0;
}

static uint64_t tilecopy_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    TilecopyState *s = opaque;
    uint64_t val = 0;

    qemu_mutex_lock(&s->lock);
    if (addr >= TC_Q_BASE(0) && addr < TC_Q_BASE(TC_MAX_QUEUES)) {
        unsigned qi = (addr - TC_Q_BASE(0)) / 0x100;

        if (qi < s->num_queues) {
            val = tilecopy_queue_read(s, qi, addr & 0xff);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: read of absent queue "
                          "%u\n", qi);
        }
    } else if (addr >= TC_REG_CTX_ROOT_LO(0) &&
               addr < TC_REG_CTX_ROOT_LO(TC_NUM_CONTEXTS)) {
        uint64_t root = s->ctx_root[(addr - TC_REG_CTX_ROOT_LO(0)) / 8];

        val = (addr & 4) ? root >> 32 : (uint32_t)root;
    } else {
        switch (addr) {
        case TC_REG_ID:
            val = TC_ID_VALUE;
            break;
        case TC_REG_VERSION:
            /* without conversion, the engine is the 1.1 one */
            val = s->convert ? TC_HW_VERSION : TC_HW_VERSION_1_1;
            break;
        case TC_REG_NUM_QUEUES:
            val = s->num_queues;
            break;
        case TC_REG_TILEBUF_SIZE:
            val = s->tilebuf_size;
            break;
        case TC_REG_MAX_DIMS:
            val = DRM_TILECOPY_MAX_DIMS;
            break;
        case TC_REG_VA_BITS:
            val = TC_VA_BITS;
            break;
        case TC_REG_NUM_CONTEXTS:
            val = TC_NUM_CONTEXTS;
            break;
        case TC_REG_CTRL:
            val = s->stop ? TC_CTRL_STOP : 0;
            break;
        case TC_REG_BOOT_CTRL:
        case TC_REG_MMU_INVALIDATE:
        case TC_REG_MMU_INVALIDATE_ALL:
            val = 0;
            break;
        case TC_REG_STATUS:
            val = tilecopy_status(s);
            break;
        case TC_REG_MAX_JOB_ELEMS_LO:
            val = (uint32_t)s->max_job_elems;
            break;
        case TC_REG_MAX_JOB_ELEMS_HI:
            val = s->max_job_elems >> 32;
            break;
        case TC_REG_CAPS:
        case TC_REG_CVT_TYPES:
            if (!s->convert) {
                qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: read of register "
                              "0x%" HWADDR_PRIx " of engine 1.2 on a 1.1 "
                              "engine\n", addr);
            } else if (addr == TC_REG_CAPS) {
                val = TC_CAP_CONVERT;
            } else {
                /* every type, as source and as destination */
                val = ((1u << (DRM_TILECOPY_TYPE_U4 + 1)) - 1) &
                      ~(1u << DRM_TILECOPY_TYPE_NONE);
            }
            break;
        case TC_REG_FW_VERSION:
            val = s->fw_version;
            break;
        case TC_REG_FW_STATUS:
            val = s->fw_status;
            break;
        case TC_REG_INT_STATUS:
            val = s->int_status;
            break;
        case TC_REG_INT_MASK:
            val = s->int_mask;
            break;
        case TC_REG_BOOT_SIZE:
            val = s->boot_size;
            break;
        case TC_REG_JOBS_DONE_LO:
        case TC_REG_JOBS_DONE_HI:
            val = s->jobs_done >> (addr & 4 ? 32 : 0);
            break;
        case TC_REG_JOBS_FAILED_LO:
        case TC_REG_JOBS_FAILED_HI:
            val = s->jobs_failed >> (addr & 4 ? 32 : 0);
            break;
        case TC_REG_BYTES_MOVED_LO:
        case TC_REG_BYTES_MOVED_HI:
            val = s->bytes_moved >> (addr & 4 ? 32 : 0);
            break;
        case TC_REG_BUSY_NS_LO:
        case TC_REG_BUSY_NS_HI:
            val = s->busy_ns >> (addr & 4 ? 32 : 0);
            break;
        default:
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: read of unknown register "
                          "0x%" HWADDR_PRIx "\n", addr);
            break;
        }
    }
    qemu_mutex_unlock(&s->lock);
    val = (uint32_t)val;
    trace_tilecopy_mmio_read(addr, val);
    return val;
}

static void tilecopy_queue_write(TilecopyState *s, unsigned qi, unsigned reg,
                                 uint32_t val)
{
    TilecopyQueue *q = &s->q[qi];

    switch (reg) {
    case TC_Q_RING_BASE_LO:
        if (val & 63) {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: ring base not "
                          "64-byte aligned\n", qi);
        }
        q->ring_base = deposit64(q->ring_base, 0, 32, val & ~63u);
        break;
    case TC_Q_RING_BASE_HI:
        q->ring_base = deposit64(q->ring_base, 32, 32, val);
        break;
    case TC_Q_RING_SIZE:
        if (!val || (val & (val - 1)) || val > TC_RING_MAX) {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: queue %u: ring size %u "
                          "is not a power of 2 <= %u\n", qi, val, TC_RING_MAX);
            break;
        }
        q->ring_size = val;
        q->head &= val - 1;
        q->tail &= val - 1;
        break;
    case TC_Q_TAIL:
        if (!q->ring_size || val >= q->ring_size) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "tilecopy: queue %u: tail %u outside the ring\n",
                          qi, val);
            break;
        }
        q->tail = val;
        break;
    case TC_Q_DOORBELL:
        qemu_cond_broadcast(&s->work_cond);
        break;
    case TC_Q_CTRL:
        if (val & TC_Q_CTRL_RESET) {
            tilecopy_queue_reset(s, qi, false);
            break;
        }
        q->ctrl = val & TC_Q_CTRL_ENABLE;
        qemu_cond_broadcast(&s->work_cond);
        break;
    case TC_Q_INT_STATUS:
        q->int_status &= ~val;
        break;
    case TC_Q_INT_MASK:
        if (val & ~q->int_mask & q->int_status) {
            s->notify |= 1u << qi;      /* unmasked a pending event */
        }
        q->int_mask = val & (TC_Q_INT_DONE | TC_Q_INT_ERROR);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: write to read-only or "
                      "unknown queue register 0x%x\n", reg);
        break;
    }
}

static void tilecopy_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    TilecopyState *s = opaque;

    trace_tilecopy_mmio_write(addr, val);
    qemu_mutex_lock(&s->lock);
    if (addr >= TC_Q_BASE(0) && addr < TC_Q_BASE(TC_MAX_QUEUES)) {
        unsigned qi = (addr - TC_Q_BASE(0)) / 0x100;

        if (qi < s->num_queues) {
            tilecopy_queue_write(s, qi, addr & 0xff, val);
        } else {
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: write to absent queue "
                          "%u\n", qi);
        }
    } else if (addr >= TC_REG_CTX_ROOT_LO(0) &&
               addr < TC_REG_CTX_ROOT_LO(TC_NUM_CONTEXTS)) {
        uint64_t *root = &s->ctx_root[(addr - TC_REG_CTX_ROOT_LO(0)) / 8];

        *root = deposit64(*root, addr & 4 ? 32 : 0, 32, val);
    } else {
        switch (addr) {
        case TC_REG_CTRL:
            tilecopy_ctrl_write(s, val);
            break;
        case TC_REG_INT_STATUS:
            s->int_status &= ~val;
            break;
        case TC_REG_INT_MASK:
            if (val & ~s->int_mask & s->int_status) {
                s->notify |= 1u << s->num_queues;
            }
            s->int_mask = val & (TC_INT_FW_READY | TC_INT_FW_ERROR |
                                 TC_INT_RESET_DONE);
            break;
        case TC_REG_BOOT_SIZE:
            s->boot_size = val;
            break;
        case TC_REG_BOOT_CTRL:
            if (val & TC_BOOT_START) {
                tilecopy_fw_boot(s);
            }
            break;
        case TC_REG_MMU_INVALIDATE:
            if (val >= TC_NUM_CONTEXTS) {
                qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: invalidate of "
                              "context %u\n", (unsigned)val);
            }
            /* The TLB holds one job's (so one context's) entries. */
            qatomic_inc(&s->tlb_gen);
            break;
        case TC_REG_MMU_INVALIDATE_ALL:
            qatomic_inc(&s->tlb_gen);
            break;
        default:
            qemu_log_mask(LOG_GUEST_ERROR, "tilecopy: write to read-only or "
                          "unknown register 0x%" HWADDR_PRIx "\n", addr);
            break;
        }
    }
    qemu_mutex_unlock(&s->lock);
    tilecopy_irq_flush(s);
}

static const MemoryRegionOps tilecopy_mmio_ops = {
    .read = tilecopy_mmio_read,
    .write = tilecopy_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* BAR2: plain SRAM holding the firmware image. */
static uint64_t tilecopy_boot_read(void *opaque, hwaddr addr, unsigned size)
{
    TilecopyState *s = opaque;

    return ldn_le_p(s->boot_mem + addr, size);
}

static void tilecopy_boot_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    TilecopyState *s = opaque;

    stn_le_p(s->boot_mem + addr, size, val);
}

static const MemoryRegionOps tilecopy_boot_ops = {
    .read = tilecopy_boot_read,
    .write = tilecopy_boot_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* ---- realize / unrealize ------------------------------------------------ */

static void tilecopy_realize(PCIDevice *pdev, Error **errp)
{
    TilecopyState *s = TILECOPY(pdev);
    Error *err = NULL;
    unsigned v, i;
    int ret;

    if (s->num_queues < 1 || s->num_queues > TC_MAX_QUEUES) {
        error_setg(errp, "tilecopy: queues must be 1..%d", TC_MAX_QUEUES);
        return;
    }
    if (!s->max_job_elems) {
        error_setg(errp, "tilecopy: max-job-elems must be at least 1");
        return;
    }
    if (s->tilebuf_size < 4 * KiB || s->tilebuf_size > 64 * MiB ||
        s->tilebuf_size % 64) {
        error_setg(errp, "tilecopy: tilebuf-size must be a multiple of 64 "
                   "in 4 KiB..64 MiB");
        return;
    }
    if (HOST_BIG_ENDIAN && s->convert) {
        /* the conversion code reads elements in host order */
        error_setg(errp, "tilecopy: convert=on needs a little-endian host");
        return;
    }
    pci_config_set_interrupt_pin(pdev->config, 1);

    memory_region_init_io(&s->mmio, OBJECT(s), &tilecopy_mmio_ops, s,
                          "tilecopy-regs", TC_REGS_SIZE);
    pci_register_bar(pdev, TC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);
    ret = msix_init_exclusive_bar(pdev, s->num_queues + 1, TC_BAR_MSIX, &err);
    if (ret == -ENOTSUP) {
        /*
         * A machine without an MSI controller (virt with its=off): the
         * engine works on INTx alone, as tilecopy_irq_flush() does whenever
         * MSI-X is off, and the guest driver falls back to it.
         */
        error_prepend(&err, "tilecopy: INTx only: ");
        warn_report_err(err);
    } else if (ret < 0) {
        error_propagate(errp, err);
        return;
    } else {
        for (v = 0; v <= s->num_queues; v++) {
            msix_vector_use(pdev, v);
        }
    }
    s->boot_mem = g_malloc0(TC_BOOT_WINDOW_SIZE);
    memory_region_init_io(&s->boot, OBJECT(s), &tilecopy_boot_ops, s,
                          "tilecopy-boot", TC_BOOT_WINDOW_SIZE);
    pci_register_bar(pdev, TC_BAR_BOOT, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->boot);
    s->tilebuf = g_malloc(s->tilebuf_size);
    s->tile_rows = g_new(const uint8_t *, TC_TILE_ROWS_MAX);
    s->tile_drows = g_new(uint8_t *, TC_TILE_ROWS_MAX);
    s->cvt = g_malloc0(tilecopy_cvt_size());

    s->irq_bh = qemu_bh_new(tilecopy_irq_bh, s);
    qemu_mutex_init(&s->lock);
    qemu_cond_init(&s->work_cond);
    qemu_cond_init(&s->idle_cond);
    s->job.last[0] = s->job.last[1] = -1;
    s->job.wc_tag = ~0ull;
    for (i = 0; i < TC_TLB_ENTRIES; i++) {
        s->job.used[i] = i;                     /* empty */
    }
    s->stopping = false;
    qemu_thread_create(&s->thread, "tilecopy", tilecopy_worker, s,
                       QEMU_THREAD_JOINABLE);
}

static void tilecopy_exit(PCIDevice *pdev)
{
    TilecopyState *s = TILECOPY(pdev);

    qemu_mutex_lock(&s->lock);
    qatomic_set(&s->stopping, true);
    qemu_cond_broadcast(&s->work_cond);
    qemu_mutex_unlock(&s->lock);
    qemu_thread_join(&s->thread);
    qemu_bh_delete(s->irq_bh);

    qemu_cond_destroy(&s->idle_cond);
    qemu_cond_destroy(&s->work_cond);
    qemu_mutex_destroy(&s->lock);
    msix_uninit_exclusive_bar(pdev);
    g_free(s->tile_rows);
    g_free(s->tile_drows);
    g_free(s->cvt);
    g_free(s->tilebuf);
    g_free(s->boot_mem);
}

/*
 * Bus mastering switched: what the worker mapped was reached through the
 * bus master space. It translates again (and finds nothing while mastering
 * is off: its accesses become DMA errors).
 */
static void tilecopy_config_write(PCIDevice *pdev, uint32_t addr, uint32_t val,
                                  int len)
{
    TilecopyState *s = TILECOPY(pdev);
    uint16_t cmd = pci_get_word(pdev->config + PCI_COMMAND);

    pci_default_write_config(pdev, addr, val, len);
    if ((cmd ^ pci_get_word(pdev->config + PCI_COMMAND)) & PCI_COMMAND_MASTER) {
        qatomic_inc(&s->tlb_gen);
    }
}

static void tilecopy_qdev_reset(DeviceState *dev)
{
    TilecopyState *s = TILECOPY(dev);

    qemu_mutex_lock(&s->lock);
    tilecopy_engine_reset(s);
    qemu_mutex_unlock(&s->lock);
    pci_set_irq(&s->pdev, 0);
}

/* ---- properties, class, type -------------------------------------------- */

static Property tilecopy_properties[] = {
    DEFINE_PROP_UINT32("queues", TilecopyState, num_queues, 4),
    DEFINE_PROP_UINT32("tilebuf-size", TilecopyState, tilebuf_size, 256 * KiB),
    DEFINE_PROP_UINT32("hang-on-job", TilecopyState, hang_on_job, 0),
    DEFINE_PROP_UINT32("hang-queue-mask", TilecopyState, hang_queue_mask, 0),
    DEFINE_PROP_UINT32("reset-hang-on", TilecopyState, reset_hang_on, 0),
    DEFINE_PROP_UINT64("max-job-elems", TilecopyState, max_job_elems,
                       TC_MAX_JOB_ELEMS),
    DEFINE_PROP_UINT32("dma-error-on-job", TilecopyState, dma_error_on_job, 0),
    DEFINE_PROP_UINT32("delay-ns-per-kb", TilecopyState, delay_ns_per_kb, 0),
    DEFINE_PROP_BOOL("convert", TilecopyState, convert, true),
    DEFINE_PROP_END_OF_LIST(),
};

/* Jobs run on a host thread against live guest memory: not migratable. */
static const VMStateDescription tilecopy_vmstate = {
    .name = "tilecopy",
    .unmigratable = 1,
};

static void tilecopy_class_init(ObjectClass *class, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(class);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(class);

    k->realize = tilecopy_realize;
    k->exit = tilecopy_exit;
    k->config_write = tilecopy_config_write;
    k->vendor_id = TC_PCI_VENDOR_ID;
    k->device_id = TC_PCI_DEVICE_ID;
    k->revision = 1;
    k->class_id = TC_PCI_CLASS;
    dc->desc = "tilecopy DMA tile-copy engine";
    dc->reset = tilecopy_qdev_reset;
    dc->vmsd = &tilecopy_vmstate;
    device_class_set_props(dc, tilecopy_properties);
    set_bit(DEVICE_CATEGORY_MISC, dc->categories);
}

static const TypeInfo tilecopy_info = {
    .name          = TYPE_TILECOPY,
    .parent        = TYPE_PCI_DEVICE,
    .instance_size = sizeof(TilecopyState),
    .class_init    = tilecopy_class_init,
    .interfaces    = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void tilecopy_register_types(void)
{
    type_register_static(&tilecopy_info);
}

type_init(tilecopy_register_types)
