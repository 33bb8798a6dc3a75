/* SPDX-License-Identifier: MIT */
/*
 * test_device.c - the tilecopy engine (QEMU device model) driven through its
 * registers: identification, firmware boot, rings, every descriptor kind,
 * transposing copies checked against a reference, MMU translation and
 * faults, injected faults, resets, several queues, two instances, counters,
 * MSI-X. Each case starts its own QEMU (-accel qtest).
 *
 * Exit 77 (skip) when the QEMU binary is absent.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <errno.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qtest.h"
#include "cpu/cpu_exec.h"
#include "cpu/cvt_desc.h"
#include "../desc_cases.h"
#include "../typed_ref.h"

#define SLOT		4
#define VA_BASE		0x1000000000ull	/* 64 GiB: inside the 39-bit space */
#define WAIT_MS		20000
#define OPS_ALL		((1u << DRM_TILECOPY_OP_COPY) | (1u << DRM_TILECOPY_OP_FILL) | \
			 (1u << DRM_TILECOPY_OP_WRITE64))

/* One VM with one engine, booted or not; one MMU context (0). */
struct env {
	struct qts *q;
	struct tcdev d;
	struct mmu mmu;
	uint64_t va_next;
};

/* @props: device properties; @extra: more QEMU arguments (-trace ...) */
static void env_up_args(struct env *e, const char *props, const char *extra, int boot)
{
	char dev[256];

	snprintf(dev, sizeof(dev), "-device tilecopy,addr=%02x.0%s%s %s", SLOT,
		 props && *props ? "," : "", props ? props : "", extra ? extra : "");
	e->q = qts_start(0, dev);
	tcdev_init(&e->d, e->q, SLOT, QT_BAR_BASE);
	mmu_init(&e->mmu, e->q);
	tc_wr(&e->d, TC_REG_CTX_ROOT_LO(0), (uint32_t)e->mmu.root);
	tc_wr(&e->d, TC_REG_CTX_ROOT_HI(0), e->mmu.root >> 32);
	e->va_next = VA_BASE;
	if (boot)
		tc_boot_good(&e->d);
}

static void env_up(struct env *e, const char *props, int boot)
{
	env_up_args(e, props, NULL, boot);
}

static void env_down(struct env *e)
{
	qts_quit(e->q);
}

/* A buffer in guest RAM mapped at a fresh VA, followed by an unmapped
 * guard page. Returns the VA; *gpa gets the physical address. */
static uint64_t env_buf(struct env *e, uint64_t size, uint64_t perm, uint64_t *gpa)
{
	uint64_t pages = (size + TC_PAGE_SIZE - 1) / TC_PAGE_SIZE;
	uint64_t pa = qts_alloc(e->q, pages * TC_PAGE_SIZE, TC_PAGE_SIZE);
	uint64_t va = e->va_next;

	mmu_map(&e->mmu, va, pa, pages * TC_PAGE_SIZE, perm);
	e->va_next += (pages + 1) * TC_PAGE_SIZE;
	if (gpa)
		*gpa = pa;
	return va;
}

/* Host pointer behind a device VA of context 0 (walks the test's tables). */
static uint8_t *va_host(struct env *e, uint64_t va)
{
	static uint64_t c_root, c_page = ~0ull;
	static unsigned c_gen;
	static uint8_t *c_host;
	uint64_t table = e->mmu.root, pte;
	int level;

	if (c_root == table && c_gen == mmu_generation && c_page == (va >> 12))
		return c_host + (va & (TC_PAGE_SIZE - 1));
	for (level = 0; level < 3; level++) {
		pte = ((uint64_t *)qts_ptr(e->q, table))[(va >> (30 - 9 * level)) & 511];
		ck_assert_msg(pte & TC_PTE_VALID, "test VA 0x%llx unmapped", (unsigned long long)va);
		table = pte & TC_PTE_ADDR_MASK;
	}
	c_root = e->mmu.root;
	c_gen = mmu_generation;
	c_page = va >> 12;
	c_host = qts_ptr(e->q, table);
	return c_host + (va & (TC_PAGE_SIZE - 1));
}

static void va_fill_random(struct env *e, uint64_t va, uint64_t len, uint64_t seed)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		*va_host(e, va + i) = seed >> 56;
	}
}

/* A malloc'd copy of @len bytes at device VA @va of context 0. */
static uint8_t *va_copy_out(struct env *e, uint64_t va, uint64_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	uint64_t i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < len; i++)
		p[i] = *va_host(e, va + i);
	return p;
}

/* The next element index of @d, dimension 0 fastest; false after the last. */
static int desc_next(const struct drm_tilecopy_desc *d, uint64_t *idx)
{
	int k;

	for (k = 0; k < d->ndims; k++) {
		if (++idx[k] < d->extent[k])
			return 1;
		idx[k] = 0;
	}
	return 0;
}

/* Iteration of a descriptor in its order, calling @fn per element. */
static void desc_for_each(const struct drm_tilecopy_desc *d,
			  void (*fn)(void *ctx, uint64_t soff, uint64_t doff), void *ctx)
{
	uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 }, soff, doff;
	int k;

	do {
		soff = doff = 0;
		for (k = 0; k < d->ndims; k++) {
			soff += idx[k] * d->src_stride[k] * d->elem_size;
			doff += idx[k] * d->dst_stride[k] * d->elem_size;
		}
		fn(ctx, soff, doff);
	} while (desc_next(d, idx));
}

struct ref_ctx {
	struct env *e;
	const struct drm_tilecopy_desc *d;
	uint8_t *exp;		/* expected image of [dst_base, dst_base + len) */
	uint64_t dst_base;
};

static void ref_elem(void *c, uint64_t soff, uint64_t doff)
{
	struct ref_ctx *r = c;
	uint64_t v = r->d->value;
	unsigned b;

	for (b = 0; b < r->d->elem_size; b++) {
		uint8_t byte = r->d->op == DRM_TILECOPY_OP_COPY ?
			*va_host(r->e, r->d->src + soff + b) : (uint8_t)(v >> (8 * b));

		r->exp[r->d->dst + doff + b - r->dst_base] = byte;
	}
}

/* Snapshot [dst_base, +len), apply @d on the snapshot with the reference
 * semantics; the caller runs the job and compares with expect_equal(). */
static uint8_t *ref_expect(struct env *e, const struct drm_tilecopy_desc *d,
			   uint64_t dst_base, uint64_t len)
{
	struct ref_ctx r = { e, d, malloc(len), dst_base };
	uint64_t i;

	for (i = 0; i < len; i++)
		r.exp[i] = *va_host(e, dst_base + i);
	desc_for_each(d, ref_elem, &r);
	return r.exp;
}

static void expect_equal(struct env *e, const uint8_t *exp, uint64_t dst_base,
			 uint64_t len, const char *what)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		uint8_t got = *va_host(e, dst_base + i);

		ck_assert_msg(got == exp[i], "%s: byte %llu: got 0x%02x want 0x%02x", what,
			      (unsigned long long)i, got, exp[i]);
	}
}

static void desc_copy(struct drm_tilecopy_desc *d, unsigned es, uint64_t src,
		      uint64_t dst, unsigned nd, const uint32_t *ext,
		      const uint64_t *ss, const uint64_t *ds)
{
	unsigned k;

	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->elem_size = es;
	d->ndims = nd;
	d->src = src;
	d->dst = dst;
	for (k = 0; k < nd; k++) {
		d->extent[k] = ext[k];
		d->src_stride[k] = ss[k];
		d->dst_stride[k] = ds[k];
	}
}

/* Run one job of @n descriptors on queue 0 and wait; returns Q_STATUS. */
static uint32_t run_job(struct env *e, struct ring *r, const struct drm_tilecopy_desc *descs,
			unsigned n, uint64_t seqno)
{
	uint64_t gpa;
	struct drm_tilecopy_desc *d = desc_alloc(e->q, n, &gpa);
	uint32_t st;

	memcpy(d, descs, n * sizeof(*d));
	ring_submit(&e->d, 0, r, gpa, n, 0, seqno);
	st = tc_wait(&e->d, 0, WAIT_MS);
	ck_assert_msg(!(st & 0x80000000u), "job %llu timed out", (unsigned long long)seqno);
	return st;
}

static void assert_ok(struct env *e, uint32_t st, uint64_t seqno)
{
	ck_assert_msg(!(st & TC_Q_STATUS_HALTED), "queue halted: code %u desc %u addr 0x%llx",
		      tc_qrd(&e->d, 0, TC_Q_ERR_CODE), tc_qrd(&e->d, 0, TC_Q_ERR_DESC),
		      (unsigned long long)tc_rd64(&e->d, TC_Q_BASE(0) + TC_Q_ERR_ADDR_LO));
	ck_assert_uint_eq(tc_rd64(&e->d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), seqno);
}

static void assert_fault(struct env *e, uint32_t st, uint32_t code, uint32_t desc,
			 uint64_t addr, uint64_t seqno)
{
	ck_assert_msg(st & TC_Q_STATUS_HALTED, "queue not halted");
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_ERR_CODE), code);
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_ERR_DESC), desc);
	if (addr != ~0ull)
		ck_assert_uint_eq(tc_rd64(&e->d, TC_Q_BASE(0) + TC_Q_ERR_ADDR_LO), addr);
	ck_assert_uint_eq(tc_rd64(&e->d, TC_Q_BASE(0) + TC_Q_ERR_SEQNO_LO), seqno);
	ck_assert(tc_qrd(&e->d, 0, TC_Q_INT_STATUS) & TC_Q_INT_ERROR);
}

/* Queue reset, then a fresh ring. */
static void queue_renew(struct env *e, struct ring *r)
{
	tc_qwr(&e->d, 0, TC_Q_CTRL, TC_Q_CTRL_RESET);
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_STATUS), 0);
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_HEAD), 0);
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_TAIL), 0);
	ck_assert_uint_eq(tc_qrd(&e->d, 0, TC_Q_ERR_CODE), 0);
	ring_setup(&e->d, 0, r, 16);
}

/* ---- identification --------------------------------------------------------- */

START_TEST(test_id)
{
	struct env e;

	env_up(&e, NULL, 0);
	ck_assert_uint_eq(pci_cfg_read(e.q, SLOT, 0), TC_PCI_DEVICE_ID << 16 | TC_PCI_VENDOR_ID);
	ck_assert_uint_eq(pci_cfg_read(e.q, SLOT, 8) >> 16, TC_PCI_CLASS);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_ID), TC_ID_VALUE);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_VERSION), TC_HW_VERSION);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_NUM_QUEUES), 4);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_TILEBUF_SIZE), 262144);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_MAX_DIMS), DRM_TILECOPY_MAX_DIMS);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_VA_BITS), TC_VA_BITS);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_NUM_CONTEXTS), TC_NUM_CONTEXTS);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_MAX_JOB_ELEMS_LO), TC_MAX_JOB_ELEMS);
	ck_assert_uint_eq(TC_MAX_JOB_ELEMS, DRM_TILECOPY_MAX_JOB_ELEMS);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CTRL), 0);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_FW_STATUS), TC_FW_STATUS_NONE);
	/* context roots are read/write */
	tc_wr(&e.d, TC_REG_CTX_ROOT_HI(63), 0x12);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_CTX_ROOT_LO(63)), 0x12ull << 32);
	/* an unknown register reads 0 and is logged as a guest error */
	ck_assert_uint_eq(tc_rd(&e.d, 0x0ffc), 0);
	{
		char *log = qts_log(e.q);

		ck_assert_msg(strstr(log, "tilecopy: read of unknown register"), "log: %s", log);
		free(log);
	}
	env_down(&e);
}
END_TEST

START_TEST(test_id_properties)
{
	struct env e;

	env_up(&e, "queues=2,tilebuf-size=65536,max-job-elems=1000", 0);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_NUM_QUEUES), 2);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_MAX_JOB_ELEMS_LO), 1000);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_TILEBUF_SIZE), 65536);
	/* queue 2 does not exist: reads 0 */
	ck_assert_uint_eq(tc_qrd(&e.d, 2, TC_Q_RING_SIZE), 0);
	env_down(&e);
}
END_TEST

/* Invalid properties: QEMU refuses to create the device, with a message. */
START_TEST(test_id_bad_properties)
{
	static const struct { const char *props, *msg; } bad[] = {
		{ "queues=0", "queues must be 1..8" },
		{ "queues=9", "queues must be 1..8" },
		{ "tilebuf-size=100", "tilebuf-size must be" },
		{ "tilebuf-size=1073741824", "tilebuf-size must be" },
		{ "max-job-elems=0", "max-job-elems must be" },
	};
	const char *fw = getenv("TC_QEMU_ARGS");
	unsigned i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		static char out[65536];
		char cmd[1024];
		size_t n;
		FILE *p;
		int st;

		snprintf(cmd, sizeof(cmd), "timeout 60 %s %s -machine q35 -accel qtest "
			 "-display none -nodefaults -device tilecopy,%s 2>&1 </dev/null",
			 qts_binary(), fw && *fw ? fw : "-L /usr/share/seabios", bad[i].props);
		p = popen(cmd, "r");
		ck_assert(p != NULL);
		n = fread(out, 1, sizeof(out) - 1, p);
		out[n] = 0;
		st = pclose(p);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != 124,
			      "%s: QEMU status 0x%x", bad[i].props, st);
		ck_assert_msg(strstr(out, bad[i].msg), "%s: output '%s'", bad[i].props, out);
		ck_assert_msg(!qts_sanitizer_report(out), "%s: %s", bad[i].props,
			      qts_sanitizer_report(out));
	}
}
END_TEST

/* ---- firmware ------------------------------------------------------------------ */

START_TEST(test_fw_good)
{
	struct env e;

	env_up(&e, NULL, 0);
	tc_wr(&e.d, TC_REG_INT_MASK, TC_INT_FW_READY | TC_INT_FW_ERROR);
	tc_boot_good(&e.d);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_FW_VERSION), 0x010203);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS) & (TC_STATUS_FW_READY | TC_STATUS_FW_ERROR),
			  TC_STATUS_FW_READY);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_INT_STATUS), TC_INT_FW_READY);
	tc_wr(&e.d, TC_REG_INT_STATUS, TC_INT_FW_READY);	/* RW1C */
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_INT_STATUS), 0);
	env_down(&e);
}
END_TEST

static const struct {
	enum fw_break how;
	uint32_t status;
	const char *name;
} fw_bad[] = {
	{ FW_BAD_MAGIC, TC_FW_STATUS_BAD_MAGIC, "bad magic" },
	{ FW_BAD_FORMAT, TC_FW_STATUS_BAD_FORMAT, "bad format" },
	{ FW_BAD_HEADER_CRC, TC_FW_STATUS_BAD_CRC, "bad crc" },
	{ FW_BAD_PAYLOAD_CRC, TC_FW_STATUS_BAD_CRC, "bad crc" },
	{ FW_TRUNCATED, TC_FW_STATUS_TRUNCATED, "truncated" },
	{ FW_TRUNCATED_HEADER, TC_FW_STATUS_TRUNCATED, "truncated" },
	{ FW_BAD_HW, TC_FW_STATUS_BAD_HW, "wrong hw version" },
	{ FW_NO_QUEUES, TC_FW_STATUS_BAD_PAYLOAD, "bad payload" },
	{ FW_NO_OPS, TC_FW_STATUS_BAD_PAYLOAD, "bad payload" },
	{ FW_NO_END, TC_FW_STATUS_BAD_PAYLOAD, "bad payload" },
};

/* One VM, every broken image in turn, then a good one still boots. */
START_TEST(test_fw_bad)
{
	struct env e;
	uint8_t img[512];
	unsigned i;
	char *log;

	env_up(&e, NULL, 0);
	tc_wr(&e.d, TC_REG_INT_MASK, TC_INT_FW_READY | TC_INT_FW_ERROR);
	for (i = 0; i < sizeof(fw_bad) / sizeof(fw_bad[0]); i++) {
		size_t n = fw_image(img, sizeof(img), fw_bad[i].how);

		ck_assert_uint_eq(tc_boot(&e.d, img, n), fw_bad[i].status);
		ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS) & (TC_STATUS_FW_READY | TC_STATUS_FW_ERROR),
				  TC_STATUS_FW_ERROR);
		ck_assert_uint_eq(tc_rd(&e.d, TC_REG_FW_VERSION), 0);
		ck_assert(tc_rd(&e.d, TC_REG_INT_STATUS) & TC_INT_FW_ERROR);
		tc_wr(&e.d, TC_REG_INT_STATUS, ~0u);
	}
	log = qts_log(e.q);
	for (i = 0; i < sizeof(fw_bad) / sizeof(fw_bad[0]); i++)
		ck_assert_msg(strstr(log, fw_bad[i].name), "no '%s' in log", fw_bad[i].name);
	free(log);
	/* boot size beyond the window */
	tc_wr(&e.d, TC_REG_BOOT_SIZE, TC_BOOT_WINDOW_SIZE + 4);
	tc_wr(&e.d, TC_REG_BOOT_CTRL, TC_BOOT_START);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_FW_STATUS), TC_FW_STATUS_BAD_FORMAT);
	tc_boot_good(&e.d);
	env_down(&e);
}
END_TEST

/* The images the project's firmware builder makes (if built). */
START_TEST(test_fw_project_images)
{
	static const struct { const char *file; uint32_t status; } imgs[] = {
		{ "engine.bin", TC_FW_STATUS_OK },
		{ "test/bad_magic.bin", TC_FW_STATUS_BAD_MAGIC },
		{ "test/bad_format.bin", TC_FW_STATUS_BAD_FORMAT },
		{ "test/bad_payload_crc.bin", TC_FW_STATUS_BAD_CRC },
		{ "test/bad_header_crc.bin", TC_FW_STATUS_BAD_CRC },
		{ "test/bad_iface.bin", TC_FW_STATUS_OK },	/* the driver refuses it */
		{ "test/bad_hw.bin", TC_FW_STATUS_BAD_HW },
		{ "test/truncated.bin", TC_FW_STATUS_TRUNCATED },
		{ "test/truncated_header.bin", TC_FW_STATUS_TRUNCATED },
		{ "test/no_queues.bin", TC_FW_STATUS_BAD_PAYLOAD },
	};
	const char *dir = getenv("TC_FW_DIR");
	struct env e;
	unsigned i;

	if (!dir || access(dir, R_OK) != 0) {
		printf("SKIP /fw/project-images: TC_FW_DIR unset (no firmware/ build)\n");
		return;
	}
	env_up(&e, NULL, 0);
	for (i = 0; i < sizeof(imgs) / sizeof(imgs[0]); i++) {
		char path[512];
		uint8_t buf[TC_BOOT_WINDOW_SIZE];
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "%s/%s", dir, imgs[i].file);
		f = fopen(path, "rb");
		ck_assert_msg(f != NULL, "missing %s", path);
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		ck_assert_msg(tc_boot(&e.d, buf, n) == imgs[i].status, "%s: status %u want %u",
			      imgs[i].file, tc_rd(&e.d, TC_REG_FW_STATUS), imgs[i].status);
	}
	env_down(&e);
}
END_TEST

/* The firmware's QUEUES record: queues beyond it refuse jobs. */
START_TEST(test_fw_queue_count)
{
	struct env e;
	struct ring r2, r1;
	struct drm_tilecopy_desc *d;
	uint8_t img[512];
	uint64_t dst, gpa;
	size_t n;

	env_up(&e, NULL, 0);
	n = fw_image(img, sizeof(img), FW_TWO_QUEUES);
	ck_assert_uint_eq(tc_boot(&e.d, img, n), TC_FW_STATUS_OK);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	d = desc_alloc(e.q, 1, &gpa);
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_WRITE64;
	d->elem_size = 8;
	d->ndims = 1;
	d->extent[0] = 1;
	d->dst = dst;
	d->value = 42;
	ring_setup(&e.d, 1, &r1, 4);
	ring_setup(&e.d, 2, &r2, 4);
	ring_submit(&e.d, 2, &r2, gpa, 1, 0, 7);
	ck_assert(tc_wait(&e.d, 2, WAIT_MS) & TC_Q_STATUS_HALTED);
	ck_assert_uint_eq(tc_qrd(&e.d, 2, TC_Q_ERR_CODE), DRM_TILECOPY_STATUS_NO_FIRMWARE);
	ring_submit(&e.d, 1, &r1, gpa, 1, 0, 8);
	ck_assert_uint_eq(tc_wait(&e.d, 1, WAIT_MS), 0);
	ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst), 42);
	env_down(&e);
}
END_TEST

/* ---- jobs --------------------------------------------------------------------------- */

START_TEST(test_job_no_firmware)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src = 0, dst;
	uint32_t st, ext = 16;
	uint64_t one = 1;

	env_up(&e, NULL, 0);
	src = env_buf(&e, 64, TC_PTE_READ, NULL);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	ring_setup(&e.d, 0, &r, 8);
	desc_copy(&d, 4, src, dst, 1, &ext, &one, &one);
	st = run_job(&e, &r, &d, 1, 77);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_NO_FIRMWARE, TC_Q_ERR_DESC_NONE, ~0ull, 77);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_HEAD), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO), 1);
	/* boot, reset the queue, the same job runs */
	tc_boot_good(&e.d);
	queue_renew(&e, &r);
	va_fill_random(&e, src, 64, 1);
	st = run_job(&e, &r, &d, 1, 78);
	assert_ok(&e, st, 78);
	ck_assert(memcmp(va_host(&e, src), va_host(&e, dst), 64) == 0);
	env_down(&e);
}
END_TEST

/* Ten jobs through a ring of 4 (wrapping), submitted in batches. */
START_TEST(test_ring_several_jobs)
{
	struct env e;
	struct ring r;
	uint64_t src, dst, gpa;
	unsigned i;
	uint32_t st;

	env_up(&e, NULL, 1);
	src = env_buf(&e, 10 * 256, TC_PTE_READ, NULL);
	dst = env_buf(&e, 10 * 256, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 10 * 256, 2);
	ring_setup(&e.d, 0, &r, 4);
	for (i = 0; i < 10; i++) {
		struct drm_tilecopy_desc *d = desc_alloc(e.q, 1, &gpa);
		uint32_t ext = 256;
		uint64_t one = 1;

		desc_copy(d, 1, src + i * 256, dst + i * 256, 1, &ext, &one, &one);
		ring_submit(&e.d, 0, &r, gpa, 1, 0, 100 + i);
		if (i % 3 == 2 || i == 9) {
			st = tc_wait(&e.d, 0, WAIT_MS);
			assert_ok(&e, st, 100 + i);
		}
	}
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_HEAD), 10 % 4);
	ck_assert(memcmp(va_host(&e, src), va_host(&e, dst), 10 * 256) == 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 10);
	ck_assert(tc_qrd(&e.d, 0, TC_Q_INT_STATUS) & TC_Q_INT_DONE);
	env_down(&e);
}
END_TEST

/* A copy of a sub-block of a 3-D tensor for each element size. */
START_TEST(test_copy_elem_sizes)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct env e;
	struct ring r;
	unsigned i;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (i = 0; i < 4; i++) {
		unsigned es = sizes[i];
		/* src 7x9x11 packed; copy a 5x6x7 block at (1,2,3) into a padded dst */
		uint64_t src = env_buf(&e, 7 * 9 * 11 * es, TC_PTE_READ, NULL);
		uint64_t dlen = 5 * 8 * 10 * es;
		uint64_t dst = env_buf(&e, dlen, TC_PTE_READ | TC_PTE_WRITE, NULL);
		uint32_t ext[3] = { 7, 6, 5 };
		uint64_t ss[3] = { 1, 11, 99 }, ds[3] = { 1, 10, 80 };
		struct drm_tilecopy_desc d;
		uint8_t *exp;

		va_fill_random(&e, src, 7 * 9 * 11 * es, 10 + i);
		va_fill_random(&e, dst, dlen, 20 + i);
		desc_copy(&d, es, src + (1 * 99 + 2 * 11 + 3) * es, dst, 3, ext, ss, ds);
		exp = ref_expect(&e, &d, dst, dlen);
		assert_ok(&e, run_job(&e, &r, &d, 1, i + 1), i + 1);
		expect_equal(&e, exp, dst, dlen, "sub-block copy");
		free(exp);
	}
	env_down(&e);
}
END_TEST

/* Source stride 0: one row broadcast to every row; and a scalar broadcast. */
START_TEST(test_copy_broadcast)
{
	struct env e;
	struct ring r;
	uint64_t src, dst, dlen = 33 * 17 * 4;
	uint32_t ext[2] = { 17, 33 };
	uint64_t ss[2] = { 1, 0 }, ds[2] = { 1, 17 }, s0[2] = { 0, 0 };
	struct drm_tilecopy_desc d;
	uint8_t *exp;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 17 * 4, TC_PTE_READ, NULL);
	dst = env_buf(&e, dlen, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 17 * 4, 3);
	desc_copy(&d, 4, src, dst, 2, ext, ss, ds);
	exp = ref_expect(&e, &d, dst, dlen);
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	expect_equal(&e, exp, dst, dlen, "row broadcast");
	free(exp);
	desc_copy(&d, 4, src + 8, dst, 2, ext, s0, ds);
	exp = ref_expect(&e, &d, dst, dlen);
	assert_ok(&e, run_job(&e, &r, &d, 1, 2), 2);
	expect_equal(&e, exp, dst, dlen, "scalar broadcast");
	free(exp);
	env_down(&e);
}
END_TEST

/* NCHW -> NHWC (odd sizes) for every element size, with a small tile buffer
 * so that a plane needs many tiles and partial edge tiles. */
static void transpose_case(const char *props)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct env e;
	struct ring r;
	unsigned i;

	env_up(&e, props, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (i = 0; i < 4; i++) {
		unsigned es = sizes[i], N = 2, C = 37, H = 9, W = 23;
		uint64_t len = (uint64_t)N * C * H * W * es;
		uint64_t src = env_buf(&e, len, TC_PTE_READ | TC_PTE_WRITE, NULL);
		uint64_t dst = env_buf(&e, len, TC_PTE_READ | TC_PTE_WRITE, NULL);
		uint32_t ext[3] = { C, H * W, N };
		uint64_t ss[3] = { H * W, 1, (uint64_t)C * H * W };
		uint64_t ds[3] = { 1, C, (uint64_t)C * H * W };
		struct drm_tilecopy_desc d;
		uint8_t *exp;

		va_fill_random(&e, src, len, 30 + i);
		desc_copy(&d, es, src, dst, 3, ext, ss, ds);
		exp = ref_expect(&e, &d, dst, len);
		assert_ok(&e, run_job(&e, &r, &d, 1, i + 1), i + 1);
		expect_equal(&e, exp, dst, len, "NCHW->NHWC");
		free(exp);
		/* and back: NHWC -> NCHW */
		desc_copy(&d, es, dst, src, 3, ext, ds, ss);
		memset(va_host(&e, src), 0, 1);
		exp = ref_expect(&e, &d, src, len);
		assert_ok(&e, run_job(&e, &r, &d, 1, 10 + i), 10 + i);
		expect_equal(&e, exp, src, len, "NHWC->NCHW");
		free(exp);
	}
	env_down(&e);
}

START_TEST(test_copy_transpose)
{
	transpose_case(NULL);
}
END_TEST

START_TEST(test_copy_transpose_small_tilebuf)
{
	transpose_case("tilebuf-size=4096");
}
END_TEST

/* NHWC -> NCHW with few channels: tall tiles whose transposed rows are a
 * multiple of 512 bytes (the engine pads them), for every element size. */
START_TEST(test_copy_transpose_tall)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct env e;
	struct ring r;
	unsigned i;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (i = 0; i < 4; i++) {
		unsigned es = sizes[i], N = 2, C = 8, HW = 2048 + 64;
		uint64_t len = (uint64_t)N * C * HW * es;
		uint64_t src = env_buf(&e, len, TC_PTE_READ, NULL);
		uint64_t dst = env_buf(&e, len, TC_PTE_READ | TC_PTE_WRITE, NULL);
		uint32_t ext[3] = { HW, C, N };
		uint64_t ss[3] = { C, 1, (uint64_t)C * HW };
		uint64_t ds[3] = { 1, HW, (uint64_t)C * HW };
		struct drm_tilecopy_desc d;
		uint8_t *exp;

		va_fill_random(&e, src, len, 80 + i);
		desc_copy(&d, es, src, dst, 3, ext, ss, ds);
		exp = ref_expect(&e, &d, dst, len);
		assert_ok(&e, run_job(&e, &r, &d, 1, i + 1), i + 1);
		expect_equal(&e, exp, dst, len, "NHWC->NCHW tall tiles");
		free(exp);
	}
	env_down(&e);
}
END_TEST

/* Random permutations of a packed 4-D tensor, random sub-extents, checked
 * against the reference: exercises every execution path of the engine. */
START_TEST(test_copy_random_permutations)
{
	struct env e;
	struct ring r;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned t;

	env_up(&e, "tilebuf-size=8192", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (t = 0; t < 24; t++) {
		unsigned es = 1u << (t % 4), k, perm[4] = { 0, 1, 2, 3 };
		uint32_t dims[4], ext[4];
		uint64_t sstr[4], dstr[4], ss[4], ds[4], total = 1, len, src, dst, acc;
		struct drm_tilecopy_desc d;
		uint8_t *exp;

		for (k = 0; k < 4; k++) {
			seed = seed * 6364136223846793005ull + 1;
			dims[k] = 1 + (seed >> 33) % 13;
			total *= dims[k];
		}
		for (k = 3; k > 0; k--) {	/* Fisher-Yates */
			unsigned j, tmp;

			seed = seed * 6364136223846793005ull + 1;
			j = (seed >> 33) % (k + 1);
			tmp = perm[k]; perm[k] = perm[j]; perm[j] = tmp;
		}
		/* source packed in order 0..3, destination packed in perm order */
		for (acc = 1, k = 0; k < 4; k++) {
			sstr[k] = acc;
			acc *= dims[k];
		}
		for (acc = 1, k = 0; k < 4; k++) {
			dstr[perm[k]] = acc;
			acc *= dims[perm[k]];
		}
		for (k = 0; k < 4; k++) {
			ext[k] = dims[k];
			ss[k] = sstr[k];
			ds[k] = dstr[k];
		}
		len = total * es;
		src = env_buf(&e, len, TC_PTE_READ, NULL);
		dst = env_buf(&e, len, TC_PTE_READ | TC_PTE_WRITE, NULL);
		va_fill_random(&e, src, len, 40 + t);
		desc_copy(&d, es, src, dst, 4, ext, ss, ds);
		exp = ref_expect(&e, &d, dst, len);
		assert_ok(&e, run_job(&e, &r, &d, 1, t + 1), t + 1);
		expect_equal(&e, exp, dst, len, "random permutation");
		free(exp);
	}
	env_down(&e);
}
END_TEST

START_TEST(test_fill)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct env e;
	struct ring r;
	unsigned i;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (i = 0; i < 4; i++) {
		unsigned es = sizes[i];
		uint64_t dlen = 40 * 13 * es, dst = env_buf(&e, dlen, TC_PTE_READ | TC_PTE_WRITE, NULL);
		struct drm_tilecopy_desc d[2];
		uint8_t *exp, *exp2;

		va_fill_random(&e, dst, dlen, 50 + i);
		memset(d, 0, sizeof(d));
		/* a 13 x 30 block of a 13 x 40 matrix, then every 3rd element */
		d[0].op = DRM_TILECOPY_OP_FILL;
		d[0].elem_size = es;
		d[0].ndims = 2;
		d[0].dst = dst + 5 * es;
		d[0].value = 0x8877665544332211ull & (~0ull >> (64 - 8 * es));
		d[0].extent[0] = 30;
		d[0].extent[1] = 13;
		d[0].dst_stride[0] = 1;
		d[0].dst_stride[1] = 40;
		d[1] = d[0];
		d[1].dst = dst;
		d[1].value = 0xa5a5a5a5deadbeefull & (~0ull >> (64 - 8 * es));
		d[1].extent[0] = 13;
		d[1].extent[1] = 0;
		d[1].ndims = 1;
		d[1].dst_stride[0] = 3;
		d[1].dst_stride[1] = 0;
		exp = ref_expect(&e, &d[0], dst, dlen);
		memcpy(va_host(&e, dst), exp, 0);	/* reference applies both in order: */
		{
			/* apply d[1] on top of the expected image of d[0] */
			uint8_t *saved = malloc(dlen);
			uint64_t b;

			for (b = 0; b < dlen; b++) {
				saved[b] = *va_host(&e, dst + b);
				*va_host(&e, dst + b) = exp[b];
			}
			exp2 = ref_expect(&e, &d[1], dst, dlen);
			for (b = 0; b < dlen; b++)
				*va_host(&e, dst + b) = saved[b];
			free(saved);
		}
		assert_ok(&e, run_job(&e, &r, d, 2, i + 1), i + 1);
		expect_equal(&e, exp2, dst, dlen, "fill");
		free(exp);
		free(exp2);
	}
	env_down(&e);
}
END_TEST

START_TEST(test_write64)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t dst, v;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	memset(&d, 0, sizeof(d));
	d.op = DRM_TILECOPY_OP_WRITE64;
	d.elem_size = 8;
	d.ndims = 1;
	d.extent[0] = 1;
	d.dst = dst + 13;	/* no alignment needed */
	d.value = 0x0123456789abcdefull;
	assert_ok(&e, run_job(&e, &r, &d, 1, 5), 5);
	memcpy(&v, va_host(&e, dst + 13), 8);
	ck_assert_uint_eq(v, 0x0123456789abcdefull);
	ck_assert_uint_eq(*va_host(&e, dst + 12), 0);
	ck_assert_uint_eq(*va_host(&e, dst + 21), 0);
	env_down(&e);
}
END_TEST

/* ---- MMU ---------------------------------------------------------------------------- */

/* Buffers whose pages are scattered in physical memory (reverse order). */
START_TEST(test_mmu_scattered_pages)
{
	struct env e;
	struct ring r;
	unsigned pages = 24, p, C = 64, HW = 96;	/* 24 KiB of f32 */
	uint64_t src_va = VA_BASE + 0x100000, dst_va = VA_BASE + 0x200000;
	uint64_t len = (uint64_t)C * HW * 4;
	uint32_t ext[2] = { C, HW };
	uint64_t ss[2] = { HW, 1 }, ds[2] = { 1, C };
	struct drm_tilecopy_desc d;
	uint8_t *exp;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (p = 0; p < pages; p++) {
		uint64_t a = qts_alloc(e.q, TC_PAGE_SIZE, TC_PAGE_SIZE);
		uint64_t b = qts_alloc(e.q, TC_PAGE_SIZE, TC_PAGE_SIZE);

		mmu_map_page(&e.mmu, src_va + (pages - 1 - p) * TC_PAGE_SIZE, a, TC_PTE_READ);
		mmu_map_page(&e.mmu, dst_va + ((p * 7) % pages) * TC_PAGE_SIZE, b,
			     TC_PTE_READ | TC_PTE_WRITE);
	}
	va_fill_random(&e, src_va, len, 60);
	desc_copy(&d, 4, src_va + 0, dst_va, 2, ext, ss, ds);
	exp = ref_expect(&e, &d, dst_va, len);
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	expect_equal(&e, exp, dst_va, len, "scattered pages transpose");
	free(exp);
	env_down(&e);
}
END_TEST

START_TEST(test_mmu_fault_unmapped)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d[2];
	uint64_t src, dst, one = 1;
	uint32_t ext = 8192, st;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 8192, TC_PTE_READ, NULL);
	dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);	/* guard page after */
	va_fill_random(&e, src, 8192, 70);
	ext = 64;
	desc_copy(&d[0], 1, src, dst, 1, &ext, &one, &one);
	ext = 8192;
	desc_copy(&d[1], 1, src, dst, 1, &ext, &one, &one);	/* runs into the guard page */
	st = run_job(&e, &r, d, 2, 9);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 1, dst + 4096, 9);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_HEAD), 0);	/* stays on the entry */
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_TAIL), 1);
	ck_assert(memcmp(va_host(&e, src), va_host(&e, dst), 4096) == 0);
	/* a fault in the source, with a VA outside the 39-bit space */
	queue_renew(&e, &r);
	desc_copy(&d[0], 1, 1ull << 39, dst, 1, &ext, &one, &one);
	ext = 16;
	d[0].extent[0] = 16;
	st = run_job(&e, &r, d, 1, 10);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0, 1ull << 39, 10);
	/* after a queue reset the queue works again */
	queue_renew(&e, &r);
	desc_copy(&d[0], 1, src, dst, 1, &ext, &one, &one);
	assert_ok(&e, run_job(&e, &r, d, 1, 11), 11);
	env_down(&e);
}
END_TEST

START_TEST(test_mmu_fault_perm)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, ro, wo, one = 1;
	uint32_t ext = 100, st;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 4096, TC_PTE_READ, NULL);
	ro = env_buf(&e, 4096, TC_PTE_READ, NULL);
	wo = env_buf(&e, 4096, TC_PTE_WRITE, NULL);
	/* write to a read-only page */
	desc_copy(&d, 1, src, ro + 40, 1, &ext, &one, &one);
	st = run_job(&e, &r, &d, 1, 1);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_FAULT_PERM, 0, ro + 40, 1);
	/* read from a write-only page */
	queue_renew(&e, &r);
	desc_copy(&d, 1, wo + 8, src, 1, &ext, &one, &one);
	st = run_job(&e, &r, &d, 1, 2);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_FAULT_PERM, 0, wo + 8, 2);
	/* permissions are per page: a writable page, then a read-only one */
	queue_renew(&e, &r);
	{
		uint64_t big = env_buf(&e, 8192, TC_PTE_READ, NULL);
		uint64_t va = e.va_next, pa = qts_alloc(e.q, 2 * TC_PAGE_SIZE, TC_PAGE_SIZE);
		uint32_t ext2 = 8192;

		e.va_next += 3 * TC_PAGE_SIZE;
		mmu_map_page(&e.mmu, va, pa, TC_PTE_READ | TC_PTE_WRITE);
		mmu_map_page(&e.mmu, va + TC_PAGE_SIZE, pa + TC_PAGE_SIZE, TC_PTE_READ);
		va_fill_random(&e, big, 8192, 7);
		desc_copy(&d, 1, big, va, 1, &ext2, &one, &one);
		st = run_job(&e, &r, &d, 1, 3);
		assert_fault(&e, st, DRM_TILECOPY_STATUS_FAULT_PERM, 0, va + TC_PAGE_SIZE, 3);
		ck_assert(memcmp(qts_ptr(e.q, pa), va_host(&e, big), 4096) == 0);
		ck_assert_uint_eq(*(uint8_t *)qts_ptr(e.q, pa + TC_PAGE_SIZE), 0);
	}
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO), 3);
	env_down(&e);
}
END_TEST

/* Remap a VA to another page: after MMU_INVALIDATE the engine follows. */
START_TEST(test_mmu_invalidate)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, pa1, pa2, dst_va = VA_BASE + 0x800000, one = 1;
	uint32_t ext = 128;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 4096, TC_PTE_READ, NULL);
	va_fill_random(&e, src, 4096, 80);
	pa1 = qts_alloc(e.q, TC_PAGE_SIZE, TC_PAGE_SIZE);
	pa2 = qts_alloc(e.q, TC_PAGE_SIZE, TC_PAGE_SIZE);
	mmu_map_page(&e.mmu, dst_va, pa1, TC_PTE_READ | TC_PTE_WRITE);
	desc_copy(&d, 1, src, dst_va, 1, &ext, &one, &one);
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	ck_assert(memcmp(qts_ptr(e.q, pa1), va_host(&e, src), 128) == 0);
	mmu_map_page(&e.mmu, dst_va, pa2, TC_PTE_READ | TC_PTE_WRITE);
	tc_wr(&e.d, TC_REG_MMU_INVALIDATE, 0);
	d.src = src + 1000;
	assert_ok(&e, run_job(&e, &r, &d, 1, 2), 2);
	ck_assert(memcmp(qts_ptr(e.q, pa2), va_host(&e, src + 1000), 128) == 0);
	ck_assert(memcmp(qts_ptr(e.q, pa1), va_host(&e, src), 128) == 0);
	mmu_unmap_page(&e.mmu, dst_va);
	tc_wr(&e.d, TC_REG_MMU_INVALIDATE_ALL, 1);
	assert_fault(&e, run_job(&e, &r, &d, 1, 3), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     dst_va, 3);
	/* a context whose root is 0 is disabled: nothing translates */
	queue_renew(&e, &r);
	tc_wr(&e.d, TC_REG_CTX_ROOT_LO(0), 0);
	tc_wr(&e.d, TC_REG_MMU_INVALIDATE, 0);
	assert_fault(&e, run_job(&e, &r, &d, 1, 4), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     src + 1000, 4);
	env_down(&e);
}
END_TEST

/* ---- descriptor validation -------------------------------------------------------- */

START_TEST(test_desc_bad)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc good, d[2];
	uint64_t src, dst, one = 1;
	uint32_t ext = 16;
	unsigned c;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 4096, TC_PTE_READ, NULL);
	dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	desc_copy(&good, 4, src, dst, 1, &ext, &one, &one);
	for (c = 0; c < 16; c++) {
		d[0] = good;
		d[1] = good;
		switch (c) {
		case 0: d[1].op = 0; break;
		case 1: d[1].op = 9; break;
		case 2: d[1].elem_size = 3; break;
		case 3: d[1].ndims = 0; break;
		case 4: d[1].ndims = 9; break;
		case 5: d[1].extent[0] = 0; break;
		case 6: d[1].extent[3] = 1; break;
		case 7: d[1].src_stride[5] = 1; break;
		case 8: d[1].flags = 1; break;
		case 9: d[1].op = DRM_TILECOPY_OP_FILL; break;	/* src not zero */
		case 10: d[1].op = DRM_TILECOPY_OP_WRITE64; d[1].src = 0; break; /* elem 4 */
		case 11: d[1].src_stride[0] = 1ull << 62; break;	/* footprint overflow */
		case 12: d[1].dst = ~0ull - 8; break;			/* end overflows */
		case 13: d[1].dst_stride[7] = 2; break;
		case 14: d[1].value = 1; break;			/* COPY with a value */
		case 15:					/* FILL with a src stride */
			d[1].op = DRM_TILECOPY_OP_FILL;
			d[1].src = 0;
			break;
		}
		ck_assert_msg(run_job(&e, &r, d, 2, 100 + c) & TC_Q_STATUS_HALTED, "case %u", c);
		assert_fault(&e, TC_Q_STATUS_HALTED, DRM_TILECOPY_STATUS_BAD_DESC, 1, ~0ull, 100 + c);
		queue_renew(&e, &r);
	}
	{
		char *log = qts_log(e.q);

		ck_assert(strstr(log, "bad descriptor: elem_size"));
		ck_assert(strstr(log, "bad descriptor: source footprint overflows"));
		free(log);
	}
	/* a malformed ring entry: flags, then a context out of range */
	for (c = 0; c < 3; c++) {
		uint64_t gpa;
		struct drm_tilecopy_desc *dd = desc_alloc(e.q, 1, &gpa);
		struct tc_ring_entry *re;

		*dd = good;
		re = ring_entry(&e.d, &r);
		re->desc_addr = gpa;
		re->desc_count = c == 2 ? 0 : 1;
		re->ctx = c == 1 ? TC_NUM_CONTEXTS : 0;
		re->flags = c == 0 ? 4 : 0;	/* bits 0, 1 are TC_RING_F_DESC_VA, _256 */
		re->seqno = 200 + c;
		r.tail = 1;
		tc_qwr(&e.d, 0, TC_Q_TAIL, 1);
		tc_qwr(&e.d, 0, TC_Q_DOORBELL, 1);
		assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_BAD_DESC,
			     TC_Q_ERR_DESC_NONE, ~0ull, 200 + c);
		queue_renew(&e, &r);
	}
	env_down(&e);
}
END_TEST

static uint64_t fz_rnd(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return *seed >> 33;
}

/*
 * Typed fields (engine 1.2) on a fuzzed descriptor: mostly plausible types
 * and conversions, now and then a hostile value (a type or nibble out of
 * range, unknown flags, NaN or random scales, scales anywhere, 2^20-sized
 * scale strides, zero points on anything).
 */
static void fz_typed(struct drm_tilecopy_desc *d, uint64_t *seed, uint64_t buf, uint64_t ro)
{
	static const uint32_t scales[] = { 0x3f800000u, 0x3ebd70a4u, 0xc0200000u, 0x00000001u,
					   0x80000000u, 0x7fc00000u, 0xff800000u };
	unsigned dim, bits;

	d->dst_type = fz_rnd(seed) % 16 ? 1 + fz_rnd(seed) % 8 : fz_rnd(seed) % 256;
	d->src_type = d->op == DRM_TILECOPY_OP_COPY ? (fz_rnd(seed) % 16 ? 1 + fz_rnd(seed) % 8 : 0) :
		(fz_rnd(seed) % 16 ? 0 : 1 + fz_rnd(seed) % 9);
	if (fz_rnd(seed) % 8)
		d->elem_size = 0;
	d->src_nibble = fz_rnd(seed) % 8 ? tc_desc_type_bits(d->src_type) == 4 && fz_rnd(seed) % 2 :
		fz_rnd(seed) % 4;
	d->dst_nibble = fz_rnd(seed) % 8 ? tc_desc_type_bits(d->dst_type) == 4 && fz_rnd(seed) % 2 :
		fz_rnd(seed) % 4;
	d->cvt_flags = fz_rnd(seed) % 16 ? fz_rnd(seed) % 3 : 1u << (fz_rnd(seed) % 32);
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE || fz_rnd(seed) % 16 == 0)
		d->scale = fz_rnd(seed) % 8 ? scales[fz_rnd(seed) % (fz_rnd(seed) % 4 ? 5 : 7)] :
			(uint32_t)fz_rnd(seed);
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES || fz_rnd(seed) % 16 == 0) {
		d->scales = fz_rnd(seed) % 8 ? buf + fz_rnd(seed) % 0x8000 :
			fz_rnd(seed) % 2 ? ro + 4 * (fz_rnd(seed) % 0x400) : fz_rnd(seed) << 30;
		for (dim = 0; dim < d->ndims && dim < DRM_TILECOPY_MAX_DIMS; dim++)
			d->scale_stride[dim] = fz_rnd(seed) % 16 ? fz_rnd(seed) % 4 :
				(uint32_t)(fz_rnd(seed) << 20);
	}
	if (fz_rnd(seed) % (d->op == DRM_TILECOPY_OP_COPY ? 4 : 32) == 0) {
		d->src_zp = (int32_t)(fz_rnd(seed) % 64) - 32;
		d->dst_zp = fz_rnd(seed) % 8 ? 0 : (int32_t)fz_rnd(seed);
	}
	d->pad = fz_rnd(seed) % 64 == 0;
	bits = tc_desc_type_bits(d->dst_type);
	if (d->op == DRM_TILECOPY_OP_FILL && bits && fz_rnd(seed) % 8)
		d->value &= bits == 64 ? ~0ull : (1ull << bits) - 1;
}

/*
 * One hostile value on a fuzzed descriptor, typed or not (the sanitizer run
 * of tests/device/README.md is where these pay off): strides of 2^63, ~0
 * and odd ones on 4-bit sides, addresses at 2^63, at the end of the VA
 * space or straddling the end of a mapping, scales running off a mapping
 * (into the guard page after @buf or @ro), beyond the VA width or at
 * 2^63, scale strides whose footprint overflows 64 bits, extents of up to
 * 2^32 - 1 (on a destination stride of at least a page of elements, so
 * that a job that runs reaches unmapped memory within 16 elements and
 * ends), elem_size and type mixes, non-finite per-tensor scales, extreme
 * zero points.
 */
static void fz_hostile(struct drm_tilecopy_desc *d, uint64_t *seed, uint64_t buf, uint64_t ro)
{
	static const uint64_t strides[] = { 1ull << 63, ~0ull, (1ull << 62) | 1, 1ull << 40,
					    0xffffffffull, (1ull << 63) + 1, 3 };
	static const uint32_t extents[] = { 0x80000000u, 0xffffffffu, 1u << 24, 0x10001u };
	static const uint32_t bad_scales[] = { 0x7f800000u, 0xff800000u, 0x7fc00000u,
					       0x7f800001u, 0xffffffffu };
	static const uint32_t zps[] = { 0x80000000u, 0x7fffffffu, 0xffffffffu, 0x80000001u };
	unsigned dim = d->ndims && d->ndims <= DRM_TILECOPY_MAX_DIMS ?
		fz_rnd(seed) % d->ndims : 0;
	uint64_t a;

	switch (fz_rnd(seed) % 10) {
	case 0:
		d->dst_stride[dim] = strides[fz_rnd(seed) % 7];
		break;
	case 1:
		if (d->op == DRM_TILECOPY_OP_COPY)
			d->src_stride[dim] = strides[fz_rnd(seed) % 7];
		break;
	case 2:
		switch (fz_rnd(seed) % 5) {
		case 0: a = 1ull << 63; break;
		case 1: a = (1ull << 63) + buf + fz_rnd(seed) % 0x100; break;
		case 2: a = ~0ull - fz_rnd(seed) % 64; break;
		case 3: a = buf + 0x10000 - fz_rnd(seed) % 16; break;	/* into the guard page */
		default: a = (1ull << 39) - fz_rnd(seed) % 16; break;	/* the VA width */
		}
		if (d->op == DRM_TILECOPY_OP_COPY && fz_rnd(seed) % 2)
			d->src = a;
		else
			d->dst = a;
		break;
	case 3:
		/* scales partly mapped, read-only, beyond the VA width, at 2^63 */
		switch (fz_rnd(seed) % 6) {
		case 0: a = buf + 0x10000 - 4 * (1 + fz_rnd(seed) % 4); break;
		case 1: a = ro + 0x4000 - 4 * (1 + fz_rnd(seed) % 4); break;
		case 2: a = ro + 4 * (fz_rnd(seed) % 0x1000); break;
		case 3: a = (1ull << 39) - 4 * (1 + fz_rnd(seed) % 4); break;
		case 4: a = 1ull << 63; break;
		default: a = ~0ull - 3 - fz_rnd(seed) % 8; break;
		}
		d->scales = a;
		if (fz_rnd(seed) % 4)
			d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		d->scale_stride[dim] = fz_rnd(seed) % 3;
		break;
	case 4:
		/* a scales footprint beyond 64 bits, or just far */
		d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		d->scales = buf + fz_rnd(seed) % 0x8000;
		d->scale_stride[dim] = fz_rnd(seed) % 2 ? 0xffffffffu : 0x80000000u;
		if (fz_rnd(seed) % 2) {
			d->extent[dim] = extents[fz_rnd(seed) % 2];
			d->dst_stride[dim] = 4096 + fz_rnd(seed) % 4096;
		}
		break;
	case 5:
		/* a huge extent that runs off the destination's mapping at once */
		d->extent[dim] = extents[fz_rnd(seed) % 4];
		d->dst_stride[dim] = fz_rnd(seed) % 2 ? 4096 + fz_rnd(seed) % 8192 :
			strides[fz_rnd(seed) % 3];
		break;
	case 6:
		/* 4-bit sides from the odd nibble, odd strides */
		d->dst_type = DRM_TILECOPY_TYPE_I4 + fz_rnd(seed) % 2;
		d->dst_nibble = 1;
		if (d->op == DRM_TILECOPY_OP_COPY) {
			d->src_type = fz_rnd(seed) % 2 ? DRM_TILECOPY_TYPE_I4 + fz_rnd(seed) % 2 :
				1 + fz_rnd(seed) % 8;
			d->src_nibble = tc_desc_type_bits(d->src_type) == 4;
			d->src_stride[dim] = 1 + 2 * (fz_rnd(seed) % 4);
		}
		d->dst_stride[dim] = 1 + 2 * (fz_rnd(seed) % 4);
		d->elem_size = 0;
		break;
	case 7:
		/* elem_size and types mixed */
		d->elem_size = (uint8_t[]){ 0, 1, 2, 4, 8, 3, 16 }[fz_rnd(seed) % 7];
		d->dst_type = fz_rnd(seed) % 10;
		if (d->op == DRM_TILECOPY_OP_COPY)
			d->src_type = fz_rnd(seed) % 10;
		break;
	case 8:
		/* a per-tensor scale that is not finite */
		d->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		d->scale = bad_scales[fz_rnd(seed) % 5];
		break;
	default:
		/* zero points at the ends of int32, i32 -> i32 included */
		if (d->op == DRM_TILECOPY_OP_COPY && fz_rnd(seed) % 2) {
			d->src_type = d->dst_type = DRM_TILECOPY_TYPE_I32;
			d->src_nibble = d->dst_nibble = 0;
			d->elem_size = 0;
		}
		d->src_zp = zps[fz_rnd(seed) % 4];
		d->dst_zp = zps[fz_rnd(seed) % 4];
		break;
	}
}

/*
 * A well-formed typed COPY or FILL in @buf (its footprint may still run off
 * the end): every type pair, nibbles, strides 0-23 and rows long enough to
 * take several chunks of a 4 KiB tile buffer, scales (per tensor, or read
 * from @buf where NaNs and infinities lie), zero points.
 */
static void fz_typed_valid(struct drm_tilecopy_desc *d, uint64_t *seed, uint64_t buf)
{
	static const uint32_t scales[] = { 0x3f800000u, 0x3ebd70a4u, 0xc0200000u, 0x00000001u,
					   0x80000000u, 0x7f7fffffu };
	unsigned dim, bits;

	memset(d, 0, sizeof(*d));
	d->op = fz_rnd(seed) % 4 ? DRM_TILECOPY_OP_COPY : DRM_TILECOPY_OP_FILL;
	d->dst_type = 1 + fz_rnd(seed) % 8;
	d->dst_nibble = tc_desc_type_bits(d->dst_type) == 4 && fz_rnd(seed) % 2;
	d->dst = buf + fz_rnd(seed) % 0x8000;
	d->ndims = 1 + fz_rnd(seed) % 4;
	for (dim = 0; dim < d->ndims; dim++) {
		d->extent[dim] = dim == 0 && fz_rnd(seed) % 4 == 0 ? 1 + fz_rnd(seed) % 800 :
			1 + fz_rnd(seed) % 6;
		d->dst_stride[dim] = fz_rnd(seed) % 24;
	}
	if (d->op == DRM_TILECOPY_OP_FILL) {
		bits = tc_desc_type_bits(d->dst_type);
		d->value = fz_rnd(seed) & (bits == 32 ? 0xffffffffull : (1ull << bits) - 1);
		return;
	}
	d->src_type = 1 + fz_rnd(seed) % 8;
	d->src_nibble = tc_desc_type_bits(d->src_type) == 4 && fz_rnd(seed) % 2;
	d->src = buf + fz_rnd(seed) % 0x8000;
	for (dim = 0; dim < d->ndims; dim++)
		d->src_stride[dim] = fz_rnd(seed) % 24;
	switch (fz_rnd(seed) % 3) {
	case 1:
		d->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		d->scale = scales[fz_rnd(seed) % 6];
		break;
	case 2:
		d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		d->scales = buf + fz_rnd(seed) % 0x8000;
		for (dim = 0; dim < d->ndims; dim++)
			d->scale_stride[dim] = fz_rnd(seed) % 4;
		break;
	}
	if (fz_rnd(seed) % 3 == 0) {
		d->src_zp = (int32_t)(fz_rnd(seed) % 64) - 32;
		d->dst_zp = (int32_t)(fz_rnd(seed) % 64) - 32;
	}
}

/* Floats a scale or a source may be read as: NaNs, infinities, extremes. */
static void fz_fill_floats(struct env *e, uint64_t va, uint64_t len, uint64_t seed)
{
	static const uint32_t f[] = { 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u,
				      0xff800000u, 0x00000001u, 0x80000000u, 0x7f7fffffu,
				      0x4f000000u, 0xcf000001u, 0x3f800000u, 0x477fe000u };
	uint64_t i;

	for (i = 0; i + 4 <= len; i += 4) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		memcpy(va_host(e, va + i), (seed >> 60) < 12 ? &f[seed >> 60] : (void *)&seed, 4);
	}
}

/* Random, mostly malformed descriptors and ring entries: every job must end
 * (done or halted with a known code) and QEMU must stay up. */
START_TEST(test_desc_fuzz)
{
	struct env e;
	struct ring r;
	uint64_t seed = 0x243f6a8885a308d3ull, buf, ro, gpa;
	unsigned t, k, done = 0, halted = 0, codes[16] = { 0 };
	unsigned typed = 0, nib = 0, hostile = 0, typed_done = 0, nib_done = 0, via_va = 0;
	/* TC_FUZZ_ITERS: more jobs for a longer run by hand; TC_FUZZ_SEED: another sequence */
	unsigned iters = getenv("TC_FUZZ_ITERS") ? strtoul(getenv("TC_FUZZ_ITERS"), NULL, 0) : 300;

	if (getenv("TC_FUZZ_SEED"))
		seed ^= strtoull(getenv("TC_FUZZ_SEED"), NULL, 0) * 0x9e3779b97f4a7c15ull;

	env_up(&e, "tilebuf-size=4096", 1);
	ring_setup(&e.d, 0, &r, 16);
	buf = env_buf(&e, 64 * 1024, TC_PTE_READ | TC_PTE_WRITE, NULL);
	ro = env_buf(&e, 16 * 1024, TC_PTE_READ, NULL);
	fz_fill_floats(&e, buf, 64 * 1024, 1);
	fz_fill_floats(&e, ro, 16 * 1024, 2);
	for (t = 0; t < iters; t++) {
		struct drm_tilecopy_desc *d = desc_alloc(e.q, 2, &gpa);
		uint32_t st, code, n, ctx;
		int has_typed = 0, has_nib = 0;

		for (k = 0; k < 2; k++) {
			unsigned dim;

			/* mostly plausible, one field in a few broken */
			d[k].op = fz_rnd(&seed) % 8 ? 1 + fz_rnd(&seed) % 2 : fz_rnd(&seed) % 5;
			if (fz_rnd(&seed) % 16 == 0)
				d[k].op = DRM_TILECOPY_OP_WRITE64;
			d[k].elem_size = 1u << (fz_rnd(&seed) % (fz_rnd(&seed) % 8 ? 4 : 5));
			d[k].ndims = fz_rnd(&seed) % 8 ? 1 + fz_rnd(&seed) % 4 : fz_rnd(&seed) % 10;
			d[k].flags = fz_rnd(&seed) % 32 == 0;
			d[k].src = d[k].op != DRM_TILECOPY_OP_COPY && fz_rnd(&seed) % 8 ? 0 :
				fz_rnd(&seed) % 8 ? buf + fz_rnd(&seed) % 0x8000 : fz_rnd(&seed) << 20;
			d[k].dst = fz_rnd(&seed) % 8 ? buf + fz_rnd(&seed) % 0x8000 :
				fz_rnd(&seed) % 2 ? ro + fz_rnd(&seed) % 0x1000 : fz_rnd(&seed) << 20;
			d[k].value = d[k].op == DRM_TILECOPY_OP_COPY && fz_rnd(&seed) % 8 ? 0 :
				fz_rnd(&seed);
			if (d[k].op == DRM_TILECOPY_OP_WRITE64 && fz_rnd(&seed) % 2) {
				d[k].elem_size = 8;
				d[k].ndims = 1;
			}
			for (dim = 0; dim < DRM_TILECOPY_MAX_DIMS; dim++) {
				int in = dim < d[k].ndims || fz_rnd(&seed) % 40 == 0;

				d[k].extent[dim] = in ? (fz_rnd(&seed) % 16 ? 1 + fz_rnd(&seed) % 6 : 0) : 0;
				d[k].src_stride[dim] = in ? (fz_rnd(&seed) % 16 ? fz_rnd(&seed) % 24 :
							  fz_rnd(&seed) << 24) : 0;
				d[k].dst_stride[dim] = in ? fz_rnd(&seed) % 24 : 0;
				if (d[k].op != DRM_TILECOPY_OP_COPY && fz_rnd(&seed) % 8)
					d[k].src_stride[dim] = 0;
			}
			if (d[k].op == DRM_TILECOPY_OP_WRITE64 && d[k].ndims == 1 && fz_rnd(&seed) % 2)
				d[k].extent[0] = 1;
			if (fz_rnd(&seed) % 4 == 0)
				fz_typed(&d[k], &seed, buf, ro);
			else if (fz_rnd(&seed) % 4 == 0)
				fz_typed_valid(&d[k], &seed, buf);
			if (fz_rnd(&seed) % 6 == 0) {
				fz_hostile(&d[k], &seed, buf, ro);
				hostile++;
			}
		}
		n = 1 + fz_rnd(&seed) % 2;
		for (k = 0; k < n; k++) {
			has_typed |= d[k].dst_type != 0;
			has_nib |= tc_desc_type_bits(d[k].dst_type) == 4 ||
				   tc_desc_type_bits(d[k].src_type) == 4;
		}
		typed += has_typed;
		nib += has_nib;
		ctx = fz_rnd(&seed) % 70 == 0 ? 99 : 0;
		/*
		 * Mostly 256-byte descriptors from bus addresses; now and then
		 * 192-byte ones (typed fields cut off, the second read from the
		 * middle of the first), an unknown flag, or descriptors read
		 * through the MMU from the buffer the jobs write, straddling
		 * the end of its mapping at times.
		 */
		switch (fz_rnd(&seed) % 16) {
		case 0: {
			uint64_t va = buf + fz_rnd(&seed) % 0x10000, b;

			for (b = 0; b < n * sizeof(*d) && va + b < buf + 0x10000; b++)
				*va_host(&e, va + b) = ((uint8_t *)d)[b];
			ring_submit_flags(&e.d, 0, &r, va, n, ctx, t,
					  TC_RING_F_DESC_VA | TC_RING_F_DESC_256);
			via_va++;
			break;
		}
		case 1:
			ring_submit_flags(&e.d, 0, &r, gpa, n, ctx, t, 0);
			break;
		case 2:
			ring_submit_flags(&e.d, 0, &r, gpa, n, ctx, t,
					  TC_RING_F_DESC_256 | 1u << (2 + fz_rnd(&seed) % 30));
			break;
		default:
			ring_submit(&e.d, 0, &r, gpa, n, ctx, t);
			break;
		}
		st = tc_wait(&e.d, 0, WAIT_MS);
		ck_assert_msg(!(st & 0x80000000u), "fuzz job %u did not end", t);
		if (st & TC_Q_STATUS_HALTED) {
			code = tc_qrd(&e.d, 0, TC_Q_ERR_CODE);
			ck_assert_msg(code == DRM_TILECOPY_STATUS_BAD_DESC ||
				      code == DRM_TILECOPY_STATUS_FAULT_UNMAPPED ||
				      code == DRM_TILECOPY_STATUS_FAULT_PERM ||
				      code == DRM_TILECOPY_STATUS_DMA_ERROR, "code %u", code);
			halted++;
			codes[code & 15]++;
			queue_renew(&e, &r);
		} else {
			done++;
			typed_done += has_typed;
			nib_done += has_nib;
		}
	}
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_ID), TC_ID_VALUE);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO) + tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO),
			  iters);
	printf("/desc/fuzz: %u done, %u halted (bad desc %u, unmapped %u, perm %u, dma %u); "
	       "jobs with typed descriptors %u (%u done), with 4-bit sides %u (%u done); "
	       "%u hostile descriptors; %u jobs' descriptors read through the MMU\n",
	       done, halted, codes[DRM_TILECOPY_STATUS_BAD_DESC],
	       codes[DRM_TILECOPY_STATUS_FAULT_UNMAPPED], codes[DRM_TILECOPY_STATUS_FAULT_PERM],
	       codes[DRM_TILECOPY_STATUS_DMA_ERROR], typed, typed_done, nib, nib_done, hostile,
	       via_va);
	fflush(stdout);
	ck_assert_msg(done > iters / 10 && halted > iters / 10, "done %u halted %u", done, halted);
	/* the typed paths are exercised, not only refused */
	ck_assert_msg(iters < 300 || (typed_done > iters / 50 && nib_done > iters / 100 &&
				      hostile > iters / 10),
		      "typed %u done, 4-bit %u done, hostile %u", typed_done, nib_done, hostile);
	env_down(&e);
}
END_TEST

/* The firmware's OPS record gates the ops. */
START_TEST(test_desc_op_disabled)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint8_t img[512];
	size_t n;
	uint64_t dst;

	env_up(&e, NULL, 0);
	n = fw_image(img, sizeof(img), FW_ONLY_COPY);
	ck_assert_uint_eq(tc_boot(&e.d, img, n), TC_FW_STATUS_OK);
	ring_setup(&e.d, 0, &r, 16);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	memset(&d, 0, sizeof(d));
	d.op = DRM_TILECOPY_OP_WRITE64;
	d.elem_size = 8;
	d.ndims = 1;
	d.extent[0] = 1;
	d.dst = dst;
	assert_fault(&e, run_job(&e, &r, &d, 1, 1), DRM_TILECOPY_STATUS_BAD_DESC, 0, ~0ull, 1);
	env_down(&e);
}
END_TEST

/* Descriptors or page tables outside RAM (an MMIO BAR): DMA_ERROR, and
 * QEMU keeps running. */
START_TEST(test_dma_not_ram)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1, va = VA_BASE + 0x4000000;
	uint32_t ext = 16;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 64, TC_PTE_READ, NULL);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	ring_submit(&e.d, 0, &r, e.d.bar0, 1, 0, 1);	/* descriptors "in" BAR0 */
	assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_DMA_ERROR, 0,
		     e.d.bar0, 1);
	queue_renew(&e, &r);
	mmu_map_page(&e.mmu, va, e.d.bar2, TC_PTE_READ | TC_PTE_WRITE);
	desc_copy(&d, 1, src, va, 1, &ext, &one, &one);
	assert_fault(&e, run_job(&e, &r, &d, 1, 2), DRM_TILECOPY_STATUS_DMA_ERROR, 0, va, 2);
	queue_renew(&e, &r);
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	assert_ok(&e, run_job(&e, &r, &d, 1, 3), 3);
	env_down(&e);
}
END_TEST

/* ---- injected faults and resets ---------------------------------------------------- */

START_TEST(test_hang_then_queue_reset)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1, gpa;
	uint32_t ext = 256, st;
	struct drm_tilecopy_desc *dd;

	env_up(&e, "hang-on-job=2", 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 256, TC_PTE_READ, NULL);
	dst = env_buf(&e, 256, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 256, 90);
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	dd = desc_alloc(e.q, 1, &gpa);
	*dd = d;
	ring_submit(&e.d, 0, &r, gpa, 1, 0, 2);
	st = tc_wait(&e.d, 0, 500);
	ck_assert_msg(st & 0x80000000u, "hung job finished (status 0x%x)", st);
	ck_assert(tc_qrd(&e.d, 0, TC_Q_STATUS) & TC_Q_STATUS_BUSY);
	ck_assert(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_HEAD), 1);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 1);
	queue_renew(&e, &r);
	ck_assert(!(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY));
	assert_ok(&e, run_job(&e, &r, &d, 1, 3), 3);
	ck_assert(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_FW_READY);	/* queue reset keeps fw */
	env_down(&e);
}
END_TEST

START_TEST(test_hang_then_engine_reset)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1, gpa;
	uint32_t ext = 256, st;
	struct drm_tilecopy_desc *dd;

	env_up(&e, "hang-on-job=1", 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 256, TC_PTE_READ, NULL);
	dst = env_buf(&e, 256, TC_PTE_READ | TC_PTE_WRITE, NULL);
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	dd = desc_alloc(e.q, 1, &gpa);
	*dd = d;
	ring_submit(&e.d, 0, &r, gpa, 1, 0, 1);
	st = tc_wait(&e.d, 0, 300);
	ck_assert(st & 0x80000000u);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);	/* firmware lost */
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_FW_STATUS), TC_FW_STATUS_NONE);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_INT_STATUS), TC_INT_RESET_DONE);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_CTX_ROOT_LO(0)), 0);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_RING_SIZE), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 0);
	/* reprogram without firmware: refused */
	tc_wr(&e.d, TC_REG_CTX_ROOT_LO(0), (uint32_t)e.mmu.root);
	ring_setup(&e.d, 0, &r, 16);
	assert_fault(&e, run_job(&e, &r, &d, 1, 2), DRM_TILECOPY_STATUS_NO_FIRMWARE,
		     TC_Q_ERR_DESC_NONE, ~0ull, 2);
	tc_boot_good(&e.d);
	queue_renew(&e, &r);
	assert_ok(&e, run_job(&e, &r, &d, 1, 3), 3);
	env_down(&e);
}
END_TEST

/* DMA error in the middle of job 1: the first descriptor is complete, the
 * middle one half written, the last untouched. */
START_TEST(test_dma_error_injected)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d[3];
	uint64_t src, dst, one = 1, len = 65536, err;
	uint32_t ext = 65536, st;
	unsigned i;

	env_up(&e, "dma-error-on-job=2", 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 3 * len, TC_PTE_READ, NULL);
	dst = env_buf(&e, 3 * len, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 3 * len, 91);
	for (i = 0; i < 3; i++)
		desc_copy(&d[i], 1, src + i * len, dst + i * len, 1, &ext, &one, &one);
	assert_ok(&e, run_job(&e, &r, d, 3, 1), 1);	/* job 1: fine */
	memset(va_host(&e, dst), 0, 1);
	for (i = 0; i < 3 * len; i += 4096)
		memset(va_host(&e, dst + i), 0, 4096);
	st = run_job(&e, &r, d, 3, 2);
	assert_fault(&e, st, DRM_TILECOPY_STATUS_DMA_ERROR, 1, ~0ull, 2);
	err = tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_ERR_ADDR_LO);
	/* the error hits after half of the middle descriptor's bytes */
	ck_assert_msg(err == dst + len + len / 2, "err addr 0x%llx",
		      (unsigned long long)err);
	ck_assert(memcmp(va_host(&e, dst), va_host(&e, src), 4096) == 0);
	ck_assert(memcmp(va_host(&e, dst + len), va_host(&e, src + len), 4096) == 0);
	ck_assert_uint_eq(*va_host(&e, err - 1), *va_host(&e, src + len + len / 2 - 1));
	ck_assert_uint_eq(*va_host(&e, err), 0);
	ck_assert_uint_eq(*va_host(&e, dst + 2 * len - 1), 0);
	ck_assert_uint_eq(*va_host(&e, dst + 2 * len + 5), 0);
	queue_renew(&e, &r);
	assert_ok(&e, run_job(&e, &r, d, 3, 3), 3);	/* job 3: fine */
	env_down(&e);
}
END_TEST

/* delay-ns-per-kb slows jobs (BUSY_NS grows) and a queue reset cancels a
 * delayed job at once. */
START_TEST(test_delay_and_reset_busy_queue)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1, gpa, busy;
	uint32_t ext = 65536;
	struct drm_tilecopy_desc *dd;
	double t0;

	env_up(&e, "delay-ns-per-kb=100000000", 1);	/* 100 ms per KiB */
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 65536, TC_PTE_READ, NULL);
	dst = env_buf(&e, 65536, TC_PTE_READ | TC_PTE_WRITE, NULL);
	ext = 1024;			/* 1 KiB: 100 ms */
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	t0 = now_sec();
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	ck_assert_msg(now_sec() - t0 >= 0.1, "job took %.3f s", now_sec() - t0);
	busy = tc_rd64(&e.d, TC_REG_BUSY_NS_LO);
	ck_assert_msg(busy >= 100000000ull, "busy %llu ns", (unsigned long long)busy);
	d.extent[0] = 65536;		/* 6.4 s of delay: cancelled by the reset */
	dd = desc_alloc(e.q, 1, &gpa);
	*dd = d;
	ring_submit(&e.d, 0, &r, gpa, 1, 0, 2);
	usleep(100000);
	ck_assert(tc_qrd(&e.d, 0, TC_Q_STATUS) & TC_Q_STATUS_BUSY);
	t0 = now_sec();
	queue_renew(&e, &r);
	ck_assert_msg(now_sec() - t0 < 2.0, "reset took %.2f s", now_sec() - t0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 1);
	/* the same with an engine reset */
	ring_submit(&e.d, 0, &r, gpa, 1, 0, 3);
	usleep(100000);
	ck_assert(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY);
	t0 = now_sec();
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	ck_assert_msg(now_sec() - t0 < 2.0, "engine reset took %.2f s", now_sec() - t0);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_STATUS), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 0);
	env_down(&e);
}
END_TEST


/* ---- the table of descriptor cases (tests/desc_cases.h) ------------------------ */

/*
 * Every case of the table as a job on the engine: the status and the
 * descriptor at fault must be the table's. The buffers are mapped with a
 * guard page on both sides; the work bound is small (max-job-elems), so
 * that the bound's cases run in no time.
 */
START_TEST(test_desc_table)
{
	struct env e;
	struct ring r;
	struct tc_desc_env te = { .max = TC_CASE_MIN_MAX };
	unsigned c, ran = 0;

	env_up(&e, "max-job-elems=65536", 1);
	ring_setup(&e.d, 0, &r, 16);
	/* nothing is mapped below VA_BASE: src has a guard before it too */
	te.src = env_buf(&e, TC_CASE_BUF, TC_PTE_READ | TC_PTE_WRITE, NULL);
	te.dst = env_buf(&e, TC_CASE_BUF, TC_PTE_READ | TC_PTE_WRITE, NULL);
	te.ro = env_buf(&e, TC_CASE_SMALL, TC_PTE_READ, NULL);
	te.other = env_buf(&e, TC_CASE_SMALL, TC_PTE_READ | TC_PTE_WRITE, NULL);
	te.scales = te.src;
	for (c = 0; c < TC_CASE_COUNT; c++) {
		const struct tc_desc_case *tc = &tc_desc_cases[c];
		struct drm_tilecopy_desc d[TC_CASE_MAX_DESCS];
		unsigned n;
		uint32_t st;

		if (tc->eng == TC_NA)
			continue;
		n = tc_desc_case_build(c, &te, d);
		st = run_job(&e, &r, d, n, 100 + c);
		if (tc->eng == DRM_TILECOPY_STATUS_OK) {
			ck_assert_msg(!(st & TC_Q_STATUS_HALTED), "%s: engine refused it: code %u desc %u",
				      tc->name, tc_qrd(&e.d, 0, TC_Q_ERR_CODE),
				      tc_qrd(&e.d, 0, TC_Q_ERR_DESC));
			ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 100 + c);
		} else {
			ck_assert_msg(st & TC_Q_STATUS_HALTED, "%s: engine ran it", tc->name);
			ck_assert_msg(tc_qrd(&e.d, 0, TC_Q_ERR_CODE) == (uint32_t)tc->eng &&
				      tc_qrd(&e.d, 0, TC_Q_ERR_DESC) == tc->bad,
				      "%s: code %u desc %u, want code %d desc %u", tc->name,
				      tc_qrd(&e.d, 0, TC_Q_ERR_CODE), tc_qrd(&e.d, 0, TC_Q_ERR_DESC),
				      tc->eng, tc->bad);
			queue_renew(&e, &r);
		}
		ran++;
	}
	ck_assert_uint_gt(ran, TC_CASE_COUNT * 3 / 4);
	env_down(&e);
}
END_TEST

/* ---- typed descriptors (engine 1.2) ------------------------------------------------ */

/* Buffers of the typed tests: contiguous guest RAM, host pointers. */
struct typed_env {
	struct env e;
	struct ring r;
	uint64_t src, dst, scl;		/* VAs */
	uint8_t *hsrc, *hdst;
	float *hscl;
	uint64_t dst_len;
};

static void typed_up(struct typed_env *t, const char *props, uint64_t src_len,
		     uint64_t dst_len)
{
	static const float scales[] = { 0.37f, 1.0f, -2.5f, 0.0f, -0.0f, 3e-39f, 65504.0f, 1e-3f };
	uint64_t spa, dpa, cpa;
	unsigned i;

	env_up(&t->e, props, 1);
	ring_setup(&t->e.d, 0, &t->r, 16);
	t->src = env_buf(&t->e, src_len, TC_PTE_READ | TC_PTE_WRITE, &spa);
	t->dst = env_buf(&t->e, dst_len, TC_PTE_READ | TC_PTE_WRITE, &dpa);
	t->scl = env_buf(&t->e, 4096, TC_PTE_READ, &cpa);
	t->hsrc = qts_ptr(t->e.q, spa);
	t->hdst = qts_ptr(t->e.q, dpa);
	t->hscl = qts_ptr(t->e.q, cpa);
	t->dst_len = dst_len;
	va_fill_random(&t->e, t->src, src_len, 1234);
	for (i = 0; i < 1024; i++)
		t->hscl[i] = scales[i % 8] * (float)(1 + i / 8);
}

/*
 * Run @n typed descriptors whose src/dst/scales are offsets into the test's
 * buffers; the destination starts as noise and must equal the reference.
 */
static void typed_run(struct typed_env *t, struct drm_tilecopy_desc *d, unsigned n,
		      uint64_t seqno, const char *what)
{
	uint8_t *exp = malloc(t->dst_len);
	unsigned i;

	va_fill_random(&t->e, t->dst, t->dst_len, seqno);
	memcpy(exp, t->hdst, t->dst_len);
	for (i = 0; i < n; i++) {
		ck_assert_int_eq(tc_typed_ref(&d[i], t->hsrc + d[i].src, exp + d[i].dst,
					      (const float *)((const uint8_t *)t->hscl +
							      d[i].scales)), 0);
		d[i].src += d[i].op == DRM_TILECOPY_OP_COPY ? t->src : 0;
		d[i].dst += t->dst;
		d[i].scales += d[i].cvt_flags & DRM_TILECOPY_CVT_SCALES ? t->scl : 0;
	}
	assert_ok(&t->e, run_job(&t->e, &t->r, d, n, seqno), seqno);
	for (i = 0; i < t->dst_len; i++)
		ck_assert_msg(t->hdst[i] == exp[i], "%s: byte %u: got 0x%02x want 0x%02x", what,
			      i, t->hdst[i], exp[i]);
	free(exp);
}

/* A typed COPY of @e0 x @e1 elements, strides in elements, offsets in bytes. */
static void typed_desc(struct drm_tilecopy_desc *d, unsigned dt, uint64_t dst, unsigned st,
		       uint64_t src, uint32_t e0, uint32_t e1, const uint64_t *ss,
		       const uint64_t *ds)
{
	uint32_t ext[2] = { e0, e1 };

	desc_copy(d, 0, src, dst, 2, ext, ss, ds);
	d->src_type = (uint8_t)st;
	d->dst_type = (uint8_t)dt;
}

/*
 * Every pair of types, each with five conversions (none; scale and zero
 * points; per-channel scales along dimension 1, and per element along
 * dimension 0, with zero points; a scale of 1.0, which still multiplies)
 * and two shapes (rows on both sides, odd nibbles where 4-bit; the
 * destination transposed, element by element), byte for byte against the
 * CPU reference, with the destination's noise around every element.
 */
START_TEST(test_typed_pairs)
{
	static const uint64_t ss[2] = { 1, 35 }, ds_rows[2] = { 1, 37 }, ds_tr[2] = { 5, 1 };
	struct typed_env t;
	struct drm_tilecopy_desc d[10];
	unsigned st, dt, c, h;
	char what[64];

	typed_up(&t, "tilebuf-size=4096", 4096, 10 * 1024);
	for (st = DRM_TILECOPY_TYPE_F32; st <= DRM_TILECOPY_TYPE_U4; st++) {
		for (dt = DRM_TILECOPY_TYPE_F32; dt <= DRM_TILECOPY_TYPE_U4; dt++) {
			for (c = 0; c < 5; c++) {
				for (h = 0; h < 2; h++) {
					struct drm_tilecopy_desc *x = &d[2 * c + h];

					typed_desc(x, dt, (2 * c + h) * 1024, st, 3, 33, 5, ss,
						   h ? ds_tr : ds_rows);
					x->src_nibble = tc_desc_type_bits(st) == 4;
					x->dst_nibble = tc_desc_type_bits(dt) == 4 && !h;
					if (c == 1 || c == 3) {
						x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
						x->scale = c == 1 ? 0x3ebd70a4u : 0x3f800000u;
					}
					if (c == 1 || c == 2 || c == 4) {
						x->src_zp = c == 4 ? 100000 : -3;
						x->dst_zp = c == 2 ? -1 : 5;
					}
					if (c == 2 || c == 4) {
						x->cvt_flags = DRM_TILECOPY_CVT_SCALES;
						x->scales = 4 * c;
						x->scale_stride[c == 2 ? 1 : 0] = 1;
					}
				}
			}
			snprintf(what, sizeof(what), "%s -> %s", tc_cvt_kind_name(tc_cvt_desc_kind(st)),
				 tc_cvt_kind_name(tc_cvt_desc_kind(dt)));
			typed_run(&t, d, 10, 100 + 16 * st + dt, what);
		}
	}
	env_down(&t.e);
}
END_TEST

/*
 * 4-bit elements: copies (bit copies and conversions) from either nibble
 * to either nibble, rows longer than a chunk of the small tile buffer,
 * source strides 0 to 3, destination strides 1 to 3; every other nibble of
 * the destination stays as it was.
 */
START_TEST(test_typed_nibbles)
{
	static const unsigned types[][2] = {
		{ DRM_TILECOPY_TYPE_U4, DRM_TILECOPY_TYPE_U4 }, { DRM_TILECOPY_TYPE_I4, DRM_TILECOPY_TYPE_I4 },
		{ DRM_TILECOPY_TYPE_U4, DRM_TILECOPY_TYPE_I4 }, { DRM_TILECOPY_TYPE_I8, DRM_TILECOPY_TYPE_I4 },
		{ DRM_TILECOPY_TYPE_I4, DRM_TILECOPY_TYPE_F16 },
	};
	struct typed_env t;
	struct drm_tilecopy_desc d[8];
	unsigned p, v, n = 0;
	char what[64];

	typed_up(&t, "tilebuf-size=4096", 8192, 8 * 16384);
	for (p = 0; p < sizeof(types) / sizeof(types[0]); p++) {
		for (v = 0; v < 8; v++) {
			uint32_t len = 1001 - v;
			uint64_t ss[2] = { v % 4, 1001 }, ds[2] = { 1 + v % 3, (1 + v % 3) * len };

			typed_desc(&d[v], types[p][1], v * 16384 + (v & 2), types[p][0], v,
				   len, 1 + v % 2, ss, ds);
			if (d[v].extent[1] == 1)
				d[v].src_stride[1] = d[v].dst_stride[1] = 0;
			d[v].src_nibble = tc_desc_type_bits(types[p][0]) == 4 && (v & 1);
			d[v].dst_nibble = tc_desc_type_bits(types[p][1]) == 4 && (v & 4);
		}
		snprintf(what, sizeof(what), "nibbles, pair %u", p);
		typed_run(&t, d, 8, 10 + n++, what);
	}
	env_down(&t.e);
}
END_TEST

/*
 * Typed FILL: nibbles from either one, odd and even lengths, strided and
 * stride 0 (the other nibble of every byte kept), and each wider type.
 */
START_TEST(test_typed_fill)
{
	struct typed_env t;
	struct drm_tilecopy_desc d[10];
	unsigned i;

	typed_up(&t, NULL, 4096, 10 * 2048);
	for (i = 0; i < 10; i++) {
		static const uint64_t zero[2] = { 0, 0 };
		uint64_t ds[2] = { i < 6 ? 1 + i / 2 : 1, 40 * (1 + i / 2) };
		unsigned type = i < 6 ? (i & 1 ? DRM_TILECOPY_TYPE_I4 : DRM_TILECOPY_TYPE_U4) :
			DRM_TILECOPY_TYPE_F32 + (i - 6) * 2;	/* f32, bf16, u8, i4 */

		typed_desc(&d[i], type, i * 2048, 0, 0, 37 + i, 3, zero, ds);
		d[i].op = DRM_TILECOPY_OP_FILL;
		d[i].src_type = 0;
		d[i].dst_nibble = tc_desc_type_bits(type) == 4 && (i % 3 != 0);
		d[i].value = (0x9e3779b97f4a7c15ull >> i) &
			     ((1ull << tc_desc_type_bits(type)) - 1);
		if (i == 9) {
			d[i].dst_stride[0] = 0;		/* stride 0: the last one stays */
			d[i].dst_stride[1] = 1;
		}
	}
	typed_run(&t, d, 10, 1, "typed FILL");
	env_down(&t.e);
}
END_TEST

/*
 * A typed job's faults: scales that run into an unmapped page, scales in a
 * page without read permission, a 4-bit destination sharing a byte in a
 * page without read permission (a nibble is a read-modify-write), a 4-bit
 * source beyond its mapping. Each fault names its descriptor and address;
 * scales overlapping the destination run (the result is the engine's
 * order's, undefined to the uAPI) and the engine stays up.
 */
START_TEST(test_typed_faults)
{
	struct typed_env t;
	struct drm_tilecopy_desc d[2], job[2];
	static const uint64_t one[2] = { 1, 4 }, zero[2] = { 0, 0 };
	uint64_t wo, seq = 1;

	typed_up(&t, NULL, 4096, 4096);
	wo = env_buf(&t.e, 4096, TC_PTE_WRITE, NULL);

	typed_desc(&d[0], DRM_TILECOPY_TYPE_U8, t.dst, DRM_TILECOPY_TYPE_F32, t.src, 4, 1, one, one);
	d[0].cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d[0].scales = t.scl + 4096 - 8;		/* scales 2 and 3 unmapped */
	d[0].scale_stride[0] = 1;
	d[1] = d[0];
	assert_fault(&t.e, run_job(&t.e, &t.r, d, 1, seq), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     t.scl + 4096, seq);
	queue_renew(&t.e, &t.r);
	/* after a good one, scales 12 bytes apart: at 4080, 4092, 4104 (unmapped) */
	job[0] = d[1];
	job[0].scales = t.scl;
	job[1] = d[0];
	job[1].scale_stride[0] = 3;
	job[1].scales = t.scl + 4096 - 16;
	seq++;
	assert_fault(&t.e, run_job(&t.e, &t.r, job, 2, seq),
		     DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 1, t.scl + 4096 + 8, seq);
	queue_renew(&t.e, &t.r);
	d[0].scales = wo;
	seq++;
	assert_fault(&t.e, run_job(&t.e, &t.r, d, 1, seq), DRM_TILECOPY_STATUS_FAULT_PERM, 0,
		     wo, seq);
	queue_renew(&t.e, &t.r);

	/* a 4-bit destination from its high nibble in a write-only page */
	typed_desc(&d[0], DRM_TILECOPY_TYPE_U4, wo + 8, DRM_TILECOPY_TYPE_U8, t.src, 4, 1, one, one);
	d[0].dst_nibble = 1;
	seq++;
	assert_fault(&t.e, run_job(&t.e, &t.r, d, 1, seq), DRM_TILECOPY_STATUS_FAULT_PERM, 0,
		     wo + 8, seq);
	queue_renew(&t.e, &t.r);
	/* whole bytes only: no read needed */
	d[0].dst_nibble = 0;
	seq++;
	assert_ok(&t.e, run_job(&t.e, &t.r, d, 1, seq), seq);

	/* a 4-bit source whose last nibble is in the guard page */
	typed_desc(&d[0], DRM_TILECOPY_TYPE_U8, t.dst, DRM_TILECOPY_TYPE_U4, t.src + 4096 - 2,
		   5, 1, one, one);
	d[0].src_nibble = 1;	/* nibbles 1..5: bytes 0..2 */
	seq++;
	assert_fault(&t.e, run_job(&t.e, &t.r, d, 1, seq), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     t.src + 4096, seq);
	queue_renew(&t.e, &t.r);

	/* scales that are the destination, rewritten as they are read */
	typed_desc(&d[0], DRM_TILECOPY_TYPE_F32, t.dst, DRM_TILECOPY_TYPE_F32, t.src, 512, 1, one,
		   one);
	d[0].cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d[0].scales = t.dst + 4;
	d[0].scale_stride[0] = 1;
	seq++;
	assert_ok(&t.e, run_job(&t.e, &t.r, d, 1, seq), seq);
	/* and a broadcast of one scale over a stride-0 destination */
	typed_desc(&d[0], DRM_TILECOPY_TYPE_BF16, t.dst, DRM_TILECOPY_TYPE_F32, t.src, 3000, 1000,
		   zero, zero);
	d[0].cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d[0].scales = t.scl;
	seq++;
	assert_ok(&t.e, run_job(&t.e, &t.r, d, 1, seq), seq);
	ck_assert_uint_eq(tc_rd(&t.e.d, TC_REG_ID), TC_ID_VALUE);
	env_down(&t.e);
}
END_TEST

/*
 * The descriptor size: ring entries without TC_RING_F_DESC_256 read
 * 192-byte descriptors (a 1.1 driver's), whose typed fields are zero; an
 * engine without conversion (convert=off) is a 1.1 engine: VERSION 1.1,
 * no CAPS, and refuses the flag.
 */
START_TEST(test_typed_desc_size)
{
	struct env e;
	struct ring r;
	uint64_t dst, gpa;
	uint8_t *arr;
	struct drm_tilecopy_desc w, typed;
	static const uint64_t one = 1;
	const uint32_t n4 = 4;
	unsigned conv, i;

	for (conv = 0; conv < 2; conv++) {
		env_up(&e, conv ? NULL : "convert=off", 1);
		ring_setup(&e.d, 0, &r, 16);
		dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
		if (conv) {
			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_VERSION), TC_HW_VERSION_1_2);
			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CAPS), TC_CAP_CONVERT);
			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CVT_TYPES), 0x1feu);
		} else {
			char *log;

			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_VERSION), TC_HW_VERSION_1_1);
			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CAPS), 0);
			log = qts_log(e.q);
			ck_assert_msg(strstr(log, "of engine 1.2 on a 1.1 engine"), "log: %s", log);
			free(log);
		}
		/* three WRITE64 192 bytes apart: the 1.1 layout */
		arr = (uint8_t *)desc_alloc(e.q, 3, &gpa);
		for (i = 0; i < 3; i++) {
			memset(&w, 0, sizeof(w));
			w.op = DRM_TILECOPY_OP_WRITE64;
			w.elem_size = 8;
			w.ndims = 1;
			w.extent[0] = 1;
			w.dst = dst + 8 * i;
			w.value = 0xc0de0000 + i;
			memcpy(arr + i * DRM_TILECOPY_DESC_SIZE_1_0, &w, DRM_TILECOPY_DESC_SIZE_1_0);
		}
		ring_submit_flags(&e.d, 0, &r, gpa, 3, 0, 1, 0);
		assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), 1);
		for (i = 0; i < 3; i++)
			ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst + 8 * i), 0xc0de0000 + i);
		/* a typed descriptor cut to 192 bytes is an untyped one of elem_size 0 */
		desc_copy(&typed, 0, dst, dst + 64, 1, &n4, &one, &one);
		typed.src_type = typed.dst_type = DRM_TILECOPY_TYPE_U8;
		memcpy(arr, &typed, sizeof(typed));
		ring_submit_flags(&e.d, 0, &r, gpa, 1, 0, 2, 0);
		assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_BAD_DESC, 0, ~0ull, 2);
		queue_renew(&e, &r);
		/* the whole of it: converted on 1.2, the flag refused on 1.1 */
		ring_submit_flags(&e.d, 0, &r, gpa, 1, 0, 3, TC_RING_F_DESC_256);
		if (conv) {
			assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), 3);
			ck_assert_uint_eq(*(uint32_t *)va_host(&e, dst + 64), 0xc0de0000);
		} else {
			assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_BAD_DESC,
				     TC_Q_ERR_DESC_NONE, ~0ull, 3);
		}
		env_down(&e);
	}
}
END_TEST

/*
 * dma-error-on-job with a typed descriptor: the error lands after half of
 * its destination bytes, at the first byte not written.
 */
START_TEST(test_typed_dma_error)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst;
	static const uint64_t one[2] = { 1, 0 };

	env_up(&e, "dma-error-on-job=1", 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 16384, TC_PTE_READ, NULL);
	dst = env_buf(&e, 8192, TC_PTE_READ | TC_PTE_WRITE, NULL);
	typed_desc(&d, DRM_TILECOPY_TYPE_F16, dst, DRM_TILECOPY_TYPE_F32, src, 4096, 1, one, one);
	assert_fault(&e, run_job(&e, &r, &d, 1, 1), DRM_TILECOPY_STATUS_DMA_ERROR, 0, dst + 4096, 1);
	env_down(&e);
}
END_TEST

/* ---- stopping, progress, engine time (docs/hardware.md) -------------------------- */

/* Wait until @cond holds (polled), for at most 20 s. */
#define POLL(cond) do {							\
	double _end = now_sec() + 20;					\
	while (!(cond)) {						\
		ck_assert_msg(now_sec() < _end, "timed out: %s", #cond); \
		usleep(1000);						\
	}								\
} while (0)

/*
 * STOP while a three-descriptor job of queue 0 runs (slowed: 100 ms per
 * descriptor) and a job of queue 1 waits: the engine stops at once, the
 * running job counts as started and not done, the waiting one as never
 * started, HEAD stays. Then the two ways out: clearing STOP runs the
 * abandoned job again from its first descriptor; CTRL.RESET clears the
 * progress registers.
 */
START_TEST(test_stop_progress)
{
	struct env e;
	struct ring r0, r1;
	struct drm_tilecopy_desc *d;
	uint64_t src, dst, gpa, one = 1;
	uint32_t ext = 4096;
	unsigned i;

	env_up(&e, "delay-ns-per-kb=25000000", 1);	/* 4 KiB: 100 ms */
	ring_setup(&e.d, 0, &r0, 16);
	ring_setup(&e.d, 1, &r1, 16);
	src = env_buf(&e, 3 * 4096, TC_PTE_READ, NULL);
	dst = env_buf(&e, 4 * 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 3 * 4096, 7);
	d = desc_alloc(e.q, 4, &gpa);
	for (i = 0; i < 3; i++)
		desc_copy(&d[i], 1, src + i * 4096, dst + i * 4096, 1, &ext, &one, &one);
	desc_copy(&d[3], 1, src, dst + 3 * 4096, 1, &ext, &one, &one);
	ring_submit(&e.d, 0, &r0, gpa, 3, 0, 7);
	POLL(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO) == 7);
	ring_submit(&e.d, 1, &r1, gpa + 3 * sizeof(*d), 1, 0, 9);
	ck_assert_uint_gt(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_JOB_NS_LO), 0);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CTRL), TC_CTRL_STOP);
	POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
	ck_assert(!(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY));
	/* queue 0: started, not done, not halted, HEAD on it */
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO), 7);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 0);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_STATUS), 0);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_HEAD), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_JOB_NS_LO), 0);
	/* queue 1: never started, its destination untouched */
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_STARTED_SEQNO_LO), 0);
	ck_assert_uint_eq(*va_host(&e, dst + 3 * 4096), 0);
	/* the third descriptor of queue 0 never ran: 100 ms each, stopped in the first */
	ck_assert_uint_eq(*va_host(&e, dst + 2 * 4096 + 4095), 0);
	/* stopped means stopped */
	usleep(300 * 1000);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_STARTED_SEQNO_LO), 0);

	/* clearing STOP: both queues go on, queue 0 from its first descriptor */
	tc_wr(&e.d, TC_REG_CTRL, 0);
	ck_assert(!(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED));
	ck_assert_uint_eq(tc_wait(&e.d, 0, WAIT_MS), 0);
	ck_assert_uint_eq(tc_wait(&e.d, 1, WAIT_MS), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 7);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_DONE_SEQNO_LO), 9);
	ck_assert(memcmp(va_host(&e, dst), va_host(&e, src), 4096) == 0);
	ck_assert(memcmp(va_host(&e, dst + 2 * 4096), va_host(&e, src + 2 * 4096), 4096) == 0);

	/* stop again with a job running, then reset: progress cleared */
	ring_submit(&e.d, 0, &r0, gpa, 3, 0, 8);
	POLL(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO) == 8);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
	POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_CTRL), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 0);
	env_down(&e);
}
END_TEST

/*
 * STOP and a queue reset during one enormous row: 2^32 - 1 elements of 8
 * bytes, all to one address (stride 0), some 60 s of work for the model at
 * a row a check. A FILL and a broadcast COPY (element by element) each.
 * The engine looks at STOP within a row too (docs/hardware.md, 7.1), so
 * the job is abandoned, started and not done: were it only looked at
 * between rows, STOPPED would come when the job had completed (or not
 * within POLL's bound), and DONE_SEQNO would say so. Then the queue is
 * reset during the same row, and runs a job afterwards.
 */
START_TEST(test_stop_long_row)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc *d, small;
	uint64_t src, dst, gpa, zero = 0, one = 1;
	uint32_t ext = 0xffffffffu, ext1 = 1;
	unsigned op;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 4096, TC_PTE_READ, NULL);
	dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	d = desc_alloc(e.q, 4, &gpa);
	desc_copy(&d[0], 8, 0, dst, 1, &ext, &zero, &zero);
	d[0].op = DRM_TILECOPY_OP_FILL;
	d[0].value = 0x0123456789abcdefull;
	desc_copy(&d[1], 8, src, dst + 8, 1, &ext, &zero, &zero);
	/* typed (engine 1.2): a FILL of nibbles, a converting COPY */
	desc_copy(&d[2], 0, 0, dst, 1, &ext, &zero, &zero);
	d[2].op = DRM_TILECOPY_OP_FILL;
	d[2].dst_type = DRM_TILECOPY_TYPE_U4;
	d[2].dst_nibble = 1;
	d[2].value = 0xa;
	desc_copy(&d[3], 0, src, dst + 8, 1, &ext, &zero, &zero);
	d[3].src_type = DRM_TILECOPY_TYPE_F32;
	d[3].dst_type = DRM_TILECOPY_TYPE_BF16;
	d[3].cvt_flags = DRM_TILECOPY_CVT_SCALE;
	d[3].scale = 0x40000000u;
	for (op = 0; op < 4; op++) {
		uint64_t seq = 10 + op;

		ring_submit(&e.d, 0, &r, gpa + op * sizeof(*d), 1, 0, seq);
		POLL(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO) == seq);
		tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
		POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
		ck_assert(!(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY));
		ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO), seq);
		ck_assert_uint_lt(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), seq);
		ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_STATUS), 0);
		/* the job again from its start; this time a queue reset ends it */
		tc_wr(&e.d, TC_REG_CTRL, 0);
		POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY);
		queue_renew(&e, &r);
		ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO), 0);
		ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO), 0);
		/* the queue works: a small job completes */
		desc_copy(&small, 8, 0, dst + 16, 1, &ext1, &zero, &one);
		small.op = DRM_TILECOPY_OP_FILL;
		small.value = 42;
		assert_ok(&e, run_job(&e, &r, &small, 1, 1), 1);
		ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst + 16), 42);
	}
	env_down(&e);
}
END_TEST

/*
 * A hung queue (hang-queue-mask): its job is started, never done, and its
 * engine time grows; the other queues go on. STOP does not wait for it.
 */
START_TEST(test_hang_queue_job_ns)
{
	struct env e;
	struct ring r0, r1;
	struct drm_tilecopy_desc *d;
	uint64_t dst, gpa, ns1, ns2;

	env_up(&e, "hang-queue-mask=0x2", 1);
	ring_setup(&e.d, 0, &r0, 16);
	ring_setup(&e.d, 1, &r1, 16);
	dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	d = desc_alloc(e.q, 2, &gpa);
	d[0].op = d[1].op = DRM_TILECOPY_OP_WRITE64;
	d[0].elem_size = d[1].elem_size = 8;
	d[0].ndims = d[1].ndims = 1;
	d[0].extent[0] = d[1].extent[0] = 1;
	d[0].dst = dst;
	d[1].dst = dst + 8;
	d[0].value = 0x11;
	d[1].value = 0x22;
	ring_submit(&e.d, 1, &r1, gpa + sizeof(*d), 1, 0, 5);
	POLL(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_STARTED_SEQNO_LO) == 5);
	ns1 = tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_JOB_NS_LO);
	ring_submit(&e.d, 0, &r0, gpa, 1, 0, 3);
	ck_assert_uint_eq(tc_wait(&e.d, 0, WAIT_MS), 0);
	ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst), 0x11);
	usleep(50 * 1000);
	ns2 = tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_JOB_NS_LO);
	ck_assert_msg(ns1 > 0 && ns2 > ns1, "engine time %llu then %llu",
		      (unsigned long long)ns1, (unsigned long long)ns2);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_DONE_SEQNO_LO), 0);
	ck_assert(tc_qrd(&e.d, 1, TC_Q_STATUS) & TC_Q_STATUS_BUSY);
	ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst + 8), 0);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
	POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
	tc_qwr(&e.d, 1, TC_Q_CTRL, TC_Q_CTRL_RESET);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_JOB_NS_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(1) + TC_Q_STARTED_SEQNO_LO), 0);
	env_down(&e);
}
END_TEST

/*
 * TC_RING_F_DESC_VA: descriptors read through the context's MMU. Readable
 * pages run; an unmapped descriptor (the second one crossing into the guard
 * page) faults with its index and address; a page without read permission
 * faults with FAULT_PERM.
 */
START_TEST(test_desc_via_mmu)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc *d;
	struct tc_ring_entry *re;
	uint64_t dst, dva, dpa, wva, wpa;
	const uint64_t off = 4096 - sizeof(*d) - 100;	/* desc 1 crosses the page end */
	int c;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	dst = env_buf(&e, 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	dva = env_buf(&e, 4096, TC_PTE_READ, &dpa);
	wva = env_buf(&e, 4096, TC_PTE_WRITE, &wpa);
	d = qts_ptr(e.q, dpa + off);
	memset(d, 0, 2 * sizeof(*d) - 100);
	d[0].op = DRM_TILECOPY_OP_WRITE64;
	d[0].elem_size = 8;
	d[0].ndims = 1;
	d[0].extent[0] = 1;
	d[0].dst = dst;
	d[0].value = 0xfeed;
	memcpy(qts_ptr(e.q, wpa), &d[0], sizeof(*d));
	for (c = 0; c < 3; c++) {
		re = ring_entry(&e.d, &r);
		re->desc_addr = c == 2 ? wva : dva + off;
		re->desc_count = c == 1 ? 2 : 1;
		re->flags = TC_RING_F_DESC_VA | TC_RING_F_DESC_256;
		re->seqno = 30 + c;
		r.tail = (r.tail + 1) % r.size;
		tc_qwr(&e.d, 0, TC_Q_TAIL, r.tail);
		tc_qwr(&e.d, 0, TC_Q_DOORBELL, 1);
		if (c == 0) {
			assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), 30);
			ck_assert_uint_eq(*(uint64_t *)va_host(&e, dst), 0xfeed);
		} else if (c == 1) {
			assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_FAULT_UNMAPPED,
				     1, dva + 4096, 31);
			queue_renew(&e, &r);
		} else {
			assert_fault(&e, tc_wait(&e.d, 0, WAIT_MS), DRM_TILECOPY_STATUS_FAULT_PERM,
				     0, wva, 32);
		}
	}
	env_down(&e);
}
END_TEST

/*
 * reset-hang-on=1: the first reset never completes (BUSY and FW_READY stay)
 * and the engine goes on with its rings, the stopped job again. Only bus
 * mastering stops it: with it off, jobs fail with DMA errors and write
 * nothing. The next reset works.
 */
START_TEST(test_reset_hang)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc *d;
	uint64_t src, dst, gpa, one = 1;
	uint32_t ext = 4096, cmd;
	unsigned i;

	env_up(&e, "reset-hang-on=1,delay-ns-per-kb=25000000", 1);	/* 100 ms per desc */
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 4096, TC_PTE_READ, NULL);
	dst = env_buf(&e, 3 * 4096, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, 4096, 3);
	d = desc_alloc(e.q, 3, &gpa);
	for (i = 0; i < 3; i++)
		desc_copy(&d[i], 1, src, dst + i * 4096, 1, &ext, &one, &one);
	ring_submit(&e.d, 0, &r, gpa, 3, 0, 1);
	POLL(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO) == 1);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
	POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	/* stuck: still busy with firmware, and the job runs again */
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS) & (TC_STATUS_BUSY | TC_STATUS_FW_READY),
			  TC_STATUS_BUSY | TC_STATUS_FW_READY);
	{
		char *log = qts_log(e.q);

		ck_assert(strstr(log, "reset 1 hangs (reset-hang-on)"));
		free(log);
	}
	POLL(*va_host(&e, dst + 4095) != 0);	/* descriptor 0 ran (again) */
	/* bus mastering off: the rest of the job fails, nothing more is written */
	cmd = pci_cfg_read(e.q, SLOT, 4);
	pci_cfg_write(e.q, SLOT, 4, cmd & ~4u);
	POLL(tc_qrd(&e.d, 0, TC_Q_STATUS) & TC_Q_STATUS_HALTED);
	ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_ERR_CODE), DRM_TILECOPY_STATUS_DMA_ERROR);
	ck_assert_uint_eq(*va_host(&e, dst + 2 * 4096 + 4095), 0);
	ck_assert(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_BUSY);
	/* the second reset works (and bus mastering back on, jobs run) */
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);
	pci_cfg_write(e.q, SLOT, 4, cmd);
	tc_wr(&e.d, TC_REG_CTX_ROOT_LO(0), (uint32_t)e.mmu.root);
	tc_boot_good(&e.d);
	ring_setup(&e.d, 0, &r, 16);
	d[0].extent[0] = 16;
	assert_ok(&e, run_job(&e, &r, d, 1, 2), 2);
	env_down(&e);
}
END_TEST

/* ---- queues, instances, counters, interrupts ------------------------------------------- */

/* Four queues, each with its own context and page tables, all at once;
 * a fault in one context leaves the others running. */
START_TEST(test_queues_contexts)
{
	struct env e;
	struct ring r[4];
	struct mmu m[4];
	uint64_t pa_src[4], pa_dst[4], gpa, va = VA_BASE, len = 256 * 1024;
	unsigned qi, j;

	env_up(&e, NULL, 1);
	for (qi = 0; qi < 4; qi++) {
		mmu_init(&m[qi], e.q);
		pa_src[qi] = qts_alloc(e.q, len, TC_PAGE_SIZE);
		pa_dst[qi] = qts_alloc(e.q, len, TC_PAGE_SIZE);
		/* same VAs in every context, different memory */
		mmu_map(&m[qi], va, pa_src[qi], len, TC_PTE_READ);
		if (qi != 3)
			mmu_map(&m[qi], va + len, pa_dst[qi], len, TC_PTE_READ | TC_PTE_WRITE);
		memset(qts_ptr(e.q, pa_src[qi]), 0x11 * (qi + 1), len);
		tc_wr(&e.d, TC_REG_CTX_ROOT_LO(10 + qi), (uint32_t)m[qi].root);
		ring_setup(&e.d, qi, &r[qi], 8);
	}
	for (j = 0; j < 3; j++) {
		for (qi = 0; qi < 4; qi++) {
			struct drm_tilecopy_desc *d = desc_alloc(e.q, 1, &gpa);
			uint32_t ext[2] = { 512, 512 };
			uint64_t ss[2] = { 512, 1 }, ds[2] = { 1, 512 };

			desc_copy(d, 1, va, va + len, 2, ext, ss, ds);
			ring_submit(&e.d, qi, &r[qi], gpa, 1, 10 + qi, 1000 * qi + j);
		}
	}
	for (qi = 0; qi < 4; qi++) {
		uint32_t st = tc_wait(&e.d, qi, WAIT_MS);

		ck_assert(!(st & 0x80000000u));
		if (qi == 3) {
			ck_assert(st & TC_Q_STATUS_HALTED);
			ck_assert_uint_eq(tc_qrd(&e.d, 3, TC_Q_ERR_CODE),
					  DRM_TILECOPY_STATUS_FAULT_UNMAPPED);
			ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(3) + TC_Q_ERR_SEQNO_LO), 3000);
			continue;
		}
		ck_assert_msg(!(st & TC_Q_STATUS_HALTED), "queue %u halted", qi);
		ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(qi) + TC_Q_DONE_SEQNO_LO), 1000 * qi + 2);
		ck_assert_uint_eq(((uint8_t *)qts_ptr(e.q, pa_dst[qi]))[len - 1], 0x11 * (qi + 1));
	}
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 9);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO), 1);
	env_down(&e);
}
END_TEST

/* Two engines in one VM: independent registers, firmware, faults, counters. */
START_TEST(test_two_instances)
{
	struct qts *q = qts_start(0, "-device tilecopy,addr=04.0 "
				  "-device tilecopy,addr=05.0,queues=2,hang-on-job=1");
	struct tcdev a, b;
	struct mmu m;
	struct ring ra, rb;
	uint64_t pa_src, pa_dst, gpa, va = VA_BASE, one = 1;
	uint32_t ext = 4096;
	struct drm_tilecopy_desc *d;

	tcdev_init(&a, q, 4, QT_BAR_BASE);
	tcdev_init(&b, q, 5, QT_BAR_BASE + 0x100000);
	ck_assert_uint_eq(tc_rd(&a, TC_REG_NUM_QUEUES), 4);
	ck_assert_uint_eq(tc_rd(&b, TC_REG_NUM_QUEUES), 2);
	tc_boot_good(&a);
	ck_assert_uint_eq(tc_rd(&b, TC_REG_FW_STATUS), TC_FW_STATUS_NONE);
	tc_boot_good(&b);
	mmu_init(&m, q);
	pa_src = qts_alloc(q, 4096, 4096);
	pa_dst = qts_alloc(q, 8192, 4096);
	memset(qts_ptr(q, pa_src), 0x5a, 4096);
	mmu_map(&m, va, pa_src, 4096, TC_PTE_READ);
	mmu_map(&m, va + 8192, pa_dst, 8192, TC_PTE_READ | TC_PTE_WRITE);
	tc_wr(&a, TC_REG_CTX_ROOT_LO(0), (uint32_t)m.root);
	tc_wr(&b, TC_REG_CTX_ROOT_LO(0), (uint32_t)m.root);
	d = desc_alloc(q, 2, &gpa);
	desc_copy(&d[0], 1, va, va + 8192, 1, &ext, &one, &one);
	desc_copy(&d[1], 1, va, va + 8192 + 4096, 1, &ext, &one, &one);
	ring_setup(&a, 1, &ra, 4);
	ring_setup(&b, 1, &rb, 4);
	ring_submit(&b, 1, &rb, gpa + sizeof(*d), 1, 0, 7);	/* hangs on b */
	ring_submit(&a, 1, &ra, gpa, 1, 0, 5);
	ck_assert_uint_eq(tc_wait(&a, 1, WAIT_MS), 0);
	ck_assert_uint_eq(tc_rd64(&a, TC_Q_BASE(1) + TC_Q_DONE_SEQNO_LO), 5);
	ck_assert(tc_wait(&b, 1, 300) & 0x80000000u);
	ck_assert_uint_eq(((uint8_t *)qts_ptr(q, pa_dst))[4095], 0x5a);
	ck_assert_uint_eq(((uint8_t *)qts_ptr(q, pa_dst))[4096], 0);
	ck_assert_uint_eq(tc_rd64(&a, TC_REG_JOBS_DONE_LO), 1);
	ck_assert_uint_eq(tc_rd64(&b, TC_REG_JOBS_DONE_LO), 0);
	tc_wr(&b, TC_Q_BASE(1) + TC_Q_CTRL, TC_Q_CTRL_RESET);
	ring_setup(&b, 1, &rb, 4);
	ring_submit(&b, 1, &rb, gpa + sizeof(*d), 1, 0, 8);
	ck_assert_uint_eq(tc_wait(&b, 1, WAIT_MS), 0);
	ck_assert_uint_eq(((uint8_t *)qts_ptr(q, pa_dst))[8191], 0x5a);
	qts_quit(q);
}
END_TEST

START_TEST(test_counters)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1;
	uint32_t ext = 3000;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, 8192, TC_PTE_READ, NULL);
	dst = env_buf(&e, 8192, TC_PTE_READ | TC_PTE_WRITE, NULL);
	desc_copy(&d, 2, src, dst, 1, &ext, &one, &one);	/* 6000 bytes */
	assert_ok(&e, run_job(&e, &r, &d, 1, 1), 1);
	assert_ok(&e, run_job(&e, &r, &d, 1, 2), 2);
	d.dst = dst + 4096;		/* 6000 bytes from dst + 4096: 4096 fit */
	assert_fault(&e, run_job(&e, &r, &d, 1, 3), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     dst + 8192, 3);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 2);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO), 1);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_BYTES_MOVED_LO), 2 * 6000 + 4096);
	ck_assert(tc_rd64(&e.d, TC_REG_BUSY_NS_LO) > 0);
	tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_DONE_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_JOBS_FAILED_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_BYTES_MOVED_LO), 0);
	ck_assert_uint_eq(tc_rd64(&e.d, TC_REG_BUSY_NS_LO), 0);
	env_down(&e);
}
END_TEST

/* Wait up to 5 s for an MSI-X message to land in the mailbox. */
static uint32_t mbox_wait(volatile uint32_t *slot, uint32_t want)
{
	double end = now_sec() + 5;

	while (*slot != want && now_sec() < end)
		usleep(100);
	return *slot;
}

/* MSI-X: vector q for queue q, vector NUM_QUEUES for global events. The
 * message addresses point at RAM so the test sees each message. */
START_TEST(test_msix)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1, mbox;
	uint32_t ext = 64, cap;
	volatile uint32_t *box;
	unsigned v;

	env_up(&e, NULL, 0);
	mbox = qts_alloc(e.q, 4096, 4096);
	box = qts_ptr(e.q, mbox);
	for (v = 0; v < 5; v++) {
		qts_writel(e.q, e.d.bar1 + v * 16 + 0, (uint32_t)(mbox + 4 * v));
		qts_writel(e.q, e.d.bar1 + v * 16 + 4, 0);
		qts_writel(e.q, e.d.bar1 + v * 16 + 8, 0xabc0 + v);
		qts_writel(e.q, e.d.bar1 + v * 16 + 12, 0);	/* unmasked */
	}
	/* find the MSI-X capability and enable it */
	for (cap = pci_cfg_read(e.q, SLOT, 0x34) & 0xfc; cap; ) {
		uint32_t w = pci_cfg_read(e.q, SLOT, cap);

		if ((w & 0xff) == 0x11) {
			pci_cfg_write(e.q, SLOT, cap, w | (1u << 31));
			break;
		}
		cap = (w >> 8) & 0xfc;
	}
	ck_assert_msg(cap, "no MSI-X capability");
	tc_wr(&e.d, TC_REG_INT_MASK, TC_INT_FW_READY);
	tc_boot_good(&e.d);
	ck_assert_uint_eq(box[4], 0xabc4);			/* global vector */
	ring_setup(&e.d, 2, &r, 8);
	tc_wr(&e.d, TC_REG_CTX_ROOT_LO(0), (uint32_t)e.mmu.root);
	src = env_buf(&e, 64, TC_PTE_READ, NULL);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	{
		uint64_t gpa;
		struct drm_tilecopy_desc *dd = desc_alloc(e.q, 1, &gpa);

		*dd = d;
		ring_submit(&e.d, 2, &r, gpa, 1, 0, 1);
		ck_assert_uint_eq(tc_wait(&e.d, 2, WAIT_MS), 0);
		ck_assert_uint_eq(mbox_wait(&box[2], 0xabc2), 0xabc2);	/* queue 2 */
		ck_assert_uint_eq(box[0], 0);
		/* masked event: no message */
		box[2] = 0;
		tc_qwr(&e.d, 2, TC_Q_INT_MASK, 0);
		ring_submit(&e.d, 2, &r, gpa, 1, 0, 2);
		ck_assert_uint_eq(tc_wait(&e.d, 2, WAIT_MS), 0);
		usleep(50000);
		ck_assert_uint_eq(box[2], 0);
		ck_assert(tc_qrd(&e.d, 2, TC_Q_INT_STATUS) & TC_Q_INT_DONE);
		/* unmasking a pending event delivers it */
		tc_qwr(&e.d, 2, TC_Q_INT_MASK, TC_Q_INT_DONE);
		ck_assert_uint_eq(mbox_wait(&box[2], 0xabc2), 0xabc2);
	}
	env_down(&e);
}
END_TEST

/* ---- the engine against the library's CPU executors ------------------------------ */

/*
 * Random descriptors that tc_desc_check() accepts (COPY with transposes,
 * broadcasts, padding; FILL; WRITE64) run on the engine and on the CPU
 * executors (scalar and the best one of this host): the destinations must
 * be bit-identical, as DESIGN.md promises. Destinations never alias.
 */
START_TEST(test_cross_cpu)
{
	const struct tc_cpu_backend *best;
	struct env e;
	struct ring r;
	uint64_t seed = 0x5851f42d4c957f2dull;
	unsigned t, k;
	int err = 0;

	best = tc_cpu_backend_get(NULL, &err);
	ck_assert_msg(best != NULL, "no CPU backend (%d)", err);
	env_up(&e, "tilebuf-size=8192", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (t = 0; t < 60; t++) {
		struct drm_tilecopy_desc d;
		unsigned nd = 1 + fz_rnd(&seed) % 4, es = 1u << (fz_rnd(&seed) % 4);
		unsigned perm[4] = { 0, 1, 2, 3 }, op = fz_rnd(&seed) % 10;
		uint64_t acc, soff = fz_rnd(&seed) % 64, doff = fz_rnd(&seed) % 64;
		__u64 sbytes, dbytes;
		uint64_t src, dst, b;
		uint8_t *cpu_src, *cpu_dst, *cpu_dst2;
		const char *field = "";

		memset(&d, 0, sizeof(d));
		d.op = op < 8 ? DRM_TILECOPY_OP_COPY : op < 9 ? DRM_TILECOPY_OP_FILL :
			DRM_TILECOPY_OP_WRITE64;
		d.elem_size = es;
		d.ndims = nd;
		for (k = 0; k < nd; k++)
			d.extent[k] = 1 + fz_rnd(&seed) % (k == 0 ? 40 : 7);
		for (k = nd - 1; k > 0; k--) {
			unsigned j = fz_rnd(&seed) % (k + 1), tmp = perm[k];

			perm[k] = perm[j];
			perm[j] = tmp;
		}
		/* destination: packed in a random order, some dims padded */
		for (acc = 1, k = 0; k < nd; k++) {
			d.dst_stride[perm[k]] = acc;
			acc *= d.extent[perm[k]] + (fz_rnd(&seed) % 3 == 0);
		}
		/* source: packed in order, or broadcast / strided dims */
		for (acc = 1, k = 0; d.op == DRM_TILECOPY_OP_COPY && k < nd; k++) {
			unsigned kind = fz_rnd(&seed) % 6;

			d.src_stride[k] = kind == 0 ? 0 : kind == 1 ? 1 + fz_rnd(&seed) % 9 : acc;
			acc *= d.extent[k];
		}
		if (d.op == DRM_TILECOPY_OP_FILL)	/* no bits above elem_size */
			d.value = (((uint64_t)fz_rnd(&seed) << 32) | fz_rnd(&seed)) &
				  (~0ull >> (64 - 8 * es));
		if (d.op == DRM_TILECOPY_OP_WRITE64) {
			memset(&d, 0, sizeof(d));
			d.op = DRM_TILECOPY_OP_WRITE64;
			d.elem_size = 8;
			d.ndims = 1;
			d.extent[0] = 1;
			d.value = ((uint64_t)fz_rnd(&seed) << 32) | fz_rnd(&seed);
		}
		d.src = d.op == DRM_TILECOPY_OP_COPY ? soff : 0;
		d.dst = doff;
		ck_assert_int_eq(tc_desc_footprint(&d, d.src_stride, &sbytes), 0);
		ck_assert_int_eq(tc_desc_footprint(&d, d.dst_stride, &dbytes), 0);
		sbytes += soff + 16;
		dbytes += doff + 16;
		ck_assert_msg(tc_desc_check(&d, sbytes, dbytes, &field) == 0,
			      "case %u: generator made a bad descriptor (%s)", t, field);

		/* the CPU on host copies */
		src = env_buf(&e, sbytes, TC_PTE_READ, NULL);
		dst = env_buf(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
		va_fill_random(&e, src, sbytes, 1000 + t);
		va_fill_random(&e, dst, dbytes, 2000 + t);
		cpu_src = va_copy_out(&e, src, sbytes);
		cpu_dst = va_copy_out(&e, dst, dbytes);
		cpu_dst2 = va_copy_out(&e, dst, dbytes);
		ck_assert_int_eq(tc_exec_scalar(&d, 1, cpu_src, cpu_dst), 0);
		ck_assert_int_eq(best->exec(&d, 1, cpu_src, cpu_dst2), 0);

		/* the engine on device VAs */
		if (d.op == DRM_TILECOPY_OP_COPY)
			d.src += src;
		d.dst += dst;
		assert_ok(&e, run_job(&e, &r, &d, 1, t + 1), t + 1);
		for (b = 0; b < dbytes; b++) {
			uint8_t got = *va_host(&e, dst + b);

			ck_assert_msg(got == cpu_dst[b] && got == cpu_dst2[b],
				      "case %u (op %u es %u nd %u): byte %llu engine 0x%02x "
				      "scalar 0x%02x %s 0x%02x", t, d.op, es, nd,
				      (unsigned long long)b, got, cpu_dst[b], best->name,
				      cpu_dst2[b]);
		}
		free(cpu_src);
		free(cpu_dst);
		free(cpu_dst2);
	}
	env_down(&e);
}
END_TEST

/*
 * A buffer of whole pages whose bus pages are reversed in each group of 8:
 * every page is its own run in the engine's TLB, so rows cross runs.
 */
static uint64_t env_buf_scattered(struct env *e, uint64_t size, uint64_t perm)
{
	uint64_t pages = (size + TC_PAGE_SIZE - 1) / TC_PAGE_SIZE, i;
	uint64_t n = (pages + 7) / 8 * 8;
	uint64_t pa = qts_alloc(e->q, n * TC_PAGE_SIZE, TC_PAGE_SIZE);
	uint64_t va = e->va_next;

	for (i = 0; i < pages; i++)
		mmu_map_page(&e->mmu, va + i * TC_PAGE_SIZE,
			     pa + (i / 8 * 8 + 7 - i % 8) * TC_PAGE_SIZE, perm);
	e->va_next += (pages + 1) * TC_PAGE_SIZE;
	return va;
}

/*
 * What the engine model's direct path can take on this host (the tests run
 * the model here): SIMD blocks of 4- and 8-byte elements with SSE2, of
 * every size with AVX2, none but on x86-64; the stage (rows far apart on
 * both sides) for 1- to 4-byte elements, and for 8-byte ones with AVX2;
 * with AVX-512 F and BW (and AVX2) 1- and 2-byte elements there are macro
 * tiles, whose tiles of fewer than a stage tile's columns (64 bytes) go
 * to the blocks instead.
 */
static int host_has_avx2(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("avx2");
#else
	return 0;
#endif
}

static int host_has_avx512bw(void)
{
#if defined(__x86_64__)
	return host_has_avx2() && __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw");
#else
	return 0;
#endif
}

static int host_direct(unsigned es)
{
#if defined(__x86_64__)
	return es >= 4 || host_has_avx2();
#else
	(void)es;
	return 0;
#endif
}

static int host_staged(unsigned es)
{
	return host_direct(es) && (es < 8 || host_has_avx2());
}

/*
 * Transposes large enough for the engine's SIMD blocks (straight to the
 * destination rows) and their edges: each element size; rows and columns
 * at, below and above a block's size; destinations aligned, misaligned by
 * whole elements (the head done element by element) and by part of an
 * element (no block at all); destination rows adjacent and padded apart;
 * contiguous and scattered pages (rows split between runs: the gather
 * copies them, the destination side falls back to the buffered path);
 * 2 to 7 rows or columns, the interleaves and de-interleaves of images.
 * Each destination must equal the scalar executor's, byte for byte.
 */
START_TEST(test_cross_transposes)
{
	static const struct {
		uint32_t m, n;		/* source rows, columns (destination rows) */
		uint32_t dpad, spad;	/* extra elements between rows */
		uint32_t doff;		/* destination offset, bytes */
		uint32_t outer;		/* extent of an outer dimension */
	} shapes[] = {
		{ 64, 16, 0, 0, 0, 1 }, { 67, 19, 0, 0, 0, 1 }, { 63, 15, 0, 0, 0, 1 },
		{ 130, 35, 5, 3, 8, 2 }, { 300, 70, 0, 0, 24, 1 }, { 40, 300, 0, 0, 0, 2 },
		{ 200, 41, 0, 0, 3, 1 }, { 1500, 9, 0, 0, 0, 1 }, { 17, 1100, 1, 0, 16, 1 },
		/* fewer rows or columns than a block: (de-)interleaves */
		{ 3, 2000, 0, 0, 0, 1 }, { 3, 2001, 0, 0, 4, 2 }, { 2000, 3, 0, 0, 0, 1 },
		{ 2001, 5, 0, 0, 8, 2 }, { 7, 999, 0, 0, 24, 1 }, { 999, 2, 0, 0, 40, 1 },
		/*
		 * rows a page or more apart on both sides for 4- and 8-byte
		 * elements, destination rows not equally aligned (the buffered
		 * path)
		 */
		{ 100, 1100, 1000, 0, 0, 1 }, { 70, 1030, 1000, 3, 8, 1 },
		/*
		 * the same for every element size, destination rows whole
		 * lines apart: straight through the stage (a copy of the
		 * source, or macro tiles: 4- and 8-byte elements with AVX2,
		 * 1- and 2-byte ones with AVX-512 on the host; tiles of four
		 * blocks' rows by 128 columns, 256 for bytes, fewer when
		 * scattered pages overflow the TLB); source rows starting
		 * anywhere in a line, a head, rows past the last band, tail
		 * columns, rows ending within a line; an outer dimension
		 */
		{ 333, 300, 3827, 3903, 8, 1 }, { 130, 70, 3966, 4096, 0, 2 },
	};
	struct env e;
	struct ring r;
	unsigned es, sh, scat, t = 0;
	char *log, *p;
	unsigned direct[9] = { 0 }, buffered[9] = { 0 };

	/* the tilecopy_tile trace tells which path each tile took */
	env_up_args(&e, NULL, "-trace tilecopy_tile", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (es = 1; es <= 8; es *= 2) {
		for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
			for (scat = 0; scat < 2; scat++) {
				const uint32_t m = shapes[sh].m, n = shapes[sh].n;
				uint64_t sr = n + shapes[sh].spad, dr = m + shapes[sh].dpad;
				uint64_t sbytes = (sr * m * shapes[sh].outer) * es + 64;
				uint64_t dbytes = (dr * n * shapes[sh].outer) * es + 64;
				uint32_t ext[3] = { m, n, shapes[sh].outer };
				uint64_t ss[3] = { sr, 1, sr * m }, ds[3] = { 1, dr, dr * n };
				uint64_t src, dst, b, doff = shapes[sh].doff;
				struct drm_tilecopy_desc d;
				uint8_t *cs, *cd;

				src = scat ? env_buf_scattered(&e, sbytes, TC_PTE_READ) :
				      env_buf(&e, sbytes, TC_PTE_READ, NULL);
				dst = scat ? env_buf_scattered(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE) :
				      env_buf(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
				va_fill_random(&e, src, sbytes, 100 + t);
				va_fill_random(&e, dst, dbytes, 200 + t);
				cs = va_copy_out(&e, src, sbytes);
				cd = va_copy_out(&e, dst, dbytes);
				desc_copy(&d, es, 8, doff, 3, ext, ss, ds);
				ck_assert_int_eq(tc_exec_scalar(&d, 1, cs, cd), 0);
				d.src += src;
				d.dst += dst;
				t++;
				assert_ok(&e, run_job(&e, &r, &d, 1, t), t);
				/* one assertion per case (Check records each one) */
				for (b = 0; b < dbytes && *va_host(&e, dst + b) == cd[b]; b++)
					;
				ck_assert_msg(b == dbytes, "es %u shape %u scattered %u: byte %llu differs",
					      es, sh, scat, (unsigned long long)b);
				free(cs);
				free(cd);
			}
		}
	}
	log = qts_log(e.q);
	for (p = log; (p = strstr(p, "tilecopy_tile ")); p++) {
		unsigned long long rows, cols, done;
		unsigned el;

		if (sscanf(p, "tilecopy_tile elem %u rows %llu cols %llu direct %llu",
			   &el, &rows, &cols, &done) == 4 && el <= 8) {
			direct[el] += done > 0;
			buffered[el] += done < cols;
		}
	}
	free(log);
	for (es = 1; es <= 8; es *= 2)
		ck_assert_msg((direct[es] || !host_direct(es)) && buffered[es],
			      "es %u: %u tiles straight, %u buffered", es, direct[es], buffered[es]);
	env_down(&e);
}
END_TEST

/*
 * Buffers for one COPY descriptor (@d, addresses relative to them), of
 * whole pages in order or scattered (env_buf_scattered: rows split between
 * runs): @scat 0 neither, 1 both, 2 the source only, 3 the destination
 * only; filled at random (seeds from @seq), at *@src and *@dst. Returns
 * the destination the library's scalar executor makes of them (to free).
 */
static uint8_t *cross_bufs(struct env *e, const struct drm_tilecopy_desc *d,
			   uint64_t sbytes, uint64_t dbytes, unsigned scat, uint64_t seq,
			   uint64_t *src, uint64_t *dst)
{
	uint8_t *cs = malloc(sbytes), *cd = malloc(dbytes);
	uint64_t b;

	*src = scat == 1 || scat == 2 ? env_buf_scattered(e, sbytes, TC_PTE_READ) :
	       env_buf(e, sbytes, TC_PTE_READ, NULL);
	*dst = scat == 1 || scat == 3 ?
	       env_buf_scattered(e, dbytes, TC_PTE_READ | TC_PTE_WRITE) :
	       env_buf(e, dbytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(e, *src, sbytes, 300 + seq);
	va_fill_random(e, *dst, dbytes, 400 + seq);
	for (b = 0; b < sbytes; b++)
		cs[b] = *va_host(e, *src + b);
	for (b = 0; b < dbytes; b++)
		cd[b] = *va_host(e, *dst + b);
	ck_assert_int_eq(tc_exec_scalar(d, 1, cs, cd), 0);
	free(cs);
	return cd;
}

/* The first byte of @dbytes at @dst that differs from @want (@dbytes: none). */
static uint64_t cross_diff(struct env *e, uint64_t dst, const uint8_t *want,
			   uint64_t dbytes)
{
	uint64_t b;

	for (b = 0; b < dbytes && *va_host(e, dst + b) == want[b]; b++)
		;
	return b;
}

/*
 * One COPY descriptor (@d, addresses relative to its buffers, cross_bufs())
 * on the engine and on the library's scalar executor, byte for byte.
 */
static void cross_one(struct env *e, struct ring *r, struct drm_tilecopy_desc d,
		      uint64_t sbytes, uint64_t dbytes, unsigned scat, uint64_t seq,
		      const char *what)
{
	uint64_t src, dst, b;
	uint8_t *cd = cross_bufs(e, &d, sbytes, dbytes, scat, seq, &src, &dst);

	d.src += src;
	d.dst += dst;
	assert_ok(e, run_job(e, r, &d, 1, seq), seq);
	b = cross_diff(e, dst, cd, dbytes);
	ck_assert_msg(b == dbytes, "%s, scattered %u: byte %llu differs", what, scat,
		      (unsigned long long)b);
	free(cd);
}

/*
 * NHWC -> NCHW at full tiles: 64 channels (the destination rows, planes a
 * page or more apart) by pixels enough for several tiles that fill the
 * buffer (512 rows of 4-byte elements in the default 256 KiB). Such a
 * tile's transposed rows would be 2 KiB, padded by a line against L1
 * set conflicts, and the padding cut the tile to 62 destination rows:
 * the other 2 came as a second tile reading the same source rows again.
 * The tile takes a line fewer source rows instead, so every tile of the
 * trace has all 64 columns and writes them all straight. Byte for byte
 * the scalar executor, for every element size, with 64 and 63 channels
 * (the column edge) and destinations misaligned by whole elements.
 */
START_TEST(test_cross_tall_tiles)
{
	static const struct { uint32_t m, n, doff; } shapes[] = {
		{ 4352, 64, 0 }, { 4352, 63, 8 }, { 4416, 64, 24 },
	};
	struct env e;
	struct ring r;
	unsigned es, sh, t = 0, cut = 0, straight[9] = { 0 };
	char *log, *p;

	env_up_args(&e, NULL, "-trace tilecopy_tile", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (es = 1; es <= 8; es *= 2) {
		for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
			const uint32_t m = shapes[sh].m, n = shapes[sh].n;
			uint64_t sbytes = (uint64_t)m * n * es + 64;
			uint64_t dbytes = (uint64_t)m * n * es + 64;
			uint32_t ext[2] = { m, n };
			uint64_t ss[2] = { n, 1 }, ds[2] = { 1, m };
			struct drm_tilecopy_desc d;
			char what[64];

			desc_copy(&d, es, 8, shapes[sh].doff, 2, ext, ss, ds);
			snprintf(what, sizeof(what), "es %u, %u x %u", es, m, n);
			cross_one(&e, &r, d, sbytes, dbytes, 0, ++t, what);
		}
	}
	log = qts_log(e.q);
	for (p = log; (p = strstr(p, "tilecopy_tile ")); p++) {
		unsigned long long rows, cols, done;
		unsigned el;

		if (sscanf(p, "tilecopy_tile elem %u rows %llu cols %llu direct %llu",
			   &el, &rows, &cols, &done) != 4 || el > 8 || rows < 128)
			continue;
		/*
		 * A full tile has all the channels (a few straddle a page
		 * more than the TLB holds beside the source: buffered).
		 */
		cut += cols < 63;
		straight[el] += done == cols;
	}
	free(log);
	ck_assert_msg(!cut, "%u full tiles cut short of the channels", cut);
	for (es = 1; es <= 8; es *= 2)
		ck_assert_msg(straight[es] >= 3 || !host_direct(es), "es %u: %u tiles straight",
			      es, straight[es]);
	env_down(&e);
}
END_TEST

/*
 * Transposes whose source rows are not aligned to their elements (2-, 4-
 * and 8-byte elements at odd addresses, and at half an element), into
 * destinations aligned (written straight from the source rows) and not
 * (through the tile buffer), with rows and columns that leave edges to
 * the scalar parts of both paths: byte for byte the scalar executor. A
 * regression case of the sanitizer run (tests/device/README.md): the
 * scalar parts loaded elements through plain uint32_t pointers, which
 * UBSan reports ("load of misaligned address") and a compiler may assume
 * aligned. The tilecopy_tile trace shows both paths taken.
 */
START_TEST(test_cross_misaligned)
{
	/* destination rows of dr elements: whole lines apart, as the straight path needs */
	static const struct { uint32_t m, n, dr; } shapes[] = { { 67, 19, 96 }, { 133, 37, 160 } };
	struct env e;
	struct ring r;
	unsigned es, sh, so, dof, t = 0, direct = 0, buffered = 0;
	char *log, *p, what[96];

	env_up_args(&e, NULL, "-trace tilecopy_tile", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (es = 2; es <= 8; es *= 2) {
		for (sh = 0; sh < 2; sh++) {
			for (so = 0; so < 2; so++) {
				for (dof = 0; dof < 3; dof++) {
					const uint32_t m = shapes[sh].m, n = shapes[sh].n;
					uint32_t ext[2] = { n, m };
					uint64_t ss[2] = { 1, n }, ds[2] = { shapes[sh].dr, 1 };
					uint64_t soff = so ? 1 : es / 2 + es;	/* odd; half an element */
					/* a line, an element past one (a head), misaligned */
					uint64_t doff = (uint64_t[]){ 64, 64 + es, 3 }[dof];
					struct drm_tilecopy_desc d;

					desc_copy(&d, es, soff, doff, 2, ext, ss, ds);
					snprintf(what, sizeof(what), "es %u, %ux%u, src + %llu, dst + %llu",
						 es, m, n, (unsigned long long)soff,
						 (unsigned long long)doff);
					cross_one(&e, &r, d, (uint64_t)m * n * es + 64,
						  (uint64_t)shapes[sh].dr * n * es + 128, 0, 500 + t++,
						  what);
				}
			}
		}
	}
	log = qts_log(e.q);
	for (p = log; (p = strstr(p, "tilecopy_tile ")); p++) {
		unsigned long long rows, cols, done;
		unsigned el;

		if (sscanf(p, "tilecopy_tile elem %u rows %llu cols %llu direct %llu",
			   &el, &rows, &cols, &done) == 4) {
			direct += done > 0;
			buffered += done < cols;
		}
	}
	free(log);
	ck_assert_msg(direct && buffered, "%u tiles straight, %u buffered", direct, buffered);
	env_down(&e);
}
END_TEST

/*
 * Transposes whose rows lie a page or more apart on both sides (a large
 * 2-D transpose, smaller): which path the engine took, from the
 * tilecopy_tile trace (columns done straight, columns through the staged
 * copy of the source) and tilecopy_tile_slices (the source gathered again
 * in slices), each job's lines after its tilecopy_job_start. Every
 * element size goes through the stage (1- and 2-byte elements a copy of
 * the source, or with AVX-512 on the host macro tiles, 4- and 8-byte ones
 * macro tiles), a destination misaligned
 * by whole elements too (its head element by element), by part of an
 * element not (no block at all). Scattered pages: where the source rows alone
 * overflow the TLB, the source is gathered again in slices and the tiles
 * keep their columns (fewer source rows, from the next band on), also
 * where the source overflows at its floor (64 rows two pages apart, each
 * split between two pages: all 128 entries); where only the destination
 * rows do not fit beside them, no slices (the first gather's pointers
 * stay valid) and the tiles keep their rows.
 */
START_TEST(test_cross_staged)
{
	enum { STAGED = 1, NOT_STAGED = 2, SLICES = 4, NO_SLICES = 8, KEEP_COLS = 16,
	       KEEP_ROWS = 32 };
	static const struct {
		unsigned es;
		uint32_t m, n;		/* source rows, columns */
		uint32_t doff;		/* destination offset, bytes */
		unsigned scat;		/* cross_one() */
		unsigned spages;	/* source rows this many pages apart */
		uint32_t soff;		/* source offset, bytes */
		unsigned expect;
	} cases[] = {
		{ 1, 512, 512, 0, 0, 1, 0, STAGED | NO_SLICES },
		{ 1, 512, 512, 8, 0, 1, 0, STAGED | NO_SLICES },
		{ 2, 256, 512, 64, 0, 1, 0, STAGED },
		{ 2, 256, 512, 1, 0, 1, 0, NOT_STAGED },
		{ 4, 128, 256, 0, 0, 1, 0, STAGED },
		{ 8, 64, 256, 0, 0, 1, 0, STAGED | NO_SLICES },
		{ 8, 64, 256, 8, 0, 1, 0, STAGED },
		{ 8, 64, 256, 0, 3, 1, 0, STAGED | NO_SLICES | KEEP_ROWS },
		{ 1, 512, 512, 0, 2, 1, 0, STAGED | SLICES | KEEP_COLS },
		{ 1, 512, 512, 0, 3, 1, 0, STAGED | NO_SLICES | KEEP_ROWS },
		{ 1, 512, 512, 0, 1, 1, 0, STAGED | SLICES },
		{ 1, 512, 512, 0, 2, 2, 4096 - 128, STAGED | SLICES | KEEP_COLS },
	};
	enum { NC = sizeof(cases) / sizeof(cases[0]) };
	unsigned long long staged[NC] = { 0 }, slices[NC] = { 0 }, tiles[NC] = { 0 };
	unsigned long long mincols[NC], minrows[NC];
	struct env e;
	struct ring r;
	unsigned c, cur = NC;
	char *log, *p, what[96];

	env_up_args(&e, NULL, "-trace tilecopy_tile -trace tilecopy_tile_slices "
		    "-trace tilecopy_job_start", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (c = 0; c < NC; c++) {
		const unsigned es = cases[c].es;
		const uint64_t sr = cases[c].spages * 4096 / es;
		const uint64_t dr = 4096 / es;			/* a page apart */
		uint32_t ext[2] = { cases[c].n, cases[c].m };
		uint64_t ss[2] = { 1, sr }, ds[2] = { dr, 1 };
		struct drm_tilecopy_desc d;

		desc_copy(&d, es, cases[c].soff, cases[c].doff, 2, ext, ss, ds);
		snprintf(what, sizeof(what), "es %u, %ux%u, src + %u, dst + %u, scattered %u",
			 es, cases[c].m, cases[c].n, cases[c].soff, cases[c].doff,
			 cases[c].scat);
		cross_one(&e, &r, d, sr * cases[c].m * es + cases[c].soff,
			  dr * cases[c].n * es + 64, cases[c].scat, c + 1, what);
		mincols[c] = minrows[c] = ~0ull;
	}
	log = qts_log(e.q);
	for (p = log; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long seq, rows, cols, done, st;
		unsigned q, el;
		char *t;

		if ((t = strstr(p, "tilecopy_job_start ")) && t < strchrnul(p, '\n') &&
		    sscanf(t, "tilecopy_job_start queue %u seqno %llu", &q, &seq) == 2)
			cur = seq >= 1 && seq <= NC ? seq - 1 : NC;
		if (cur == NC)
			continue;
		if ((t = strstr(p, "tilecopy_tile ")) && t < strchrnul(p, '\n') &&
		    sscanf(t, "tilecopy_tile elem %u rows %llu cols %llu direct %llu staged %llu",
			   &el, &rows, &cols, &done, &st) == 5) {
			staged[cur] += st;
			tiles[cur]++;
			mincols[cur] = cols < mincols[cur] ? cols : mincols[cur];
			minrows[cur] = rows < minrows[cur] ? rows : minrows[cur];
		}
		if ((t = strstr(p, "tilecopy_tile_slices ")) && t < strchrnul(p, '\n'))
			slices[cur]++;
	}
	free(log);
	for (c = 0; c < NC; c++) {
		const unsigned x = cases[c].expect;
		const unsigned long long full = 4 * 64 / cases[c].es;

		ck_assert_msg(tiles[c], "case %u: no tilecopy_tile trace", c);
		ck_assert_msg(!(x & STAGED) || staged[c] || !host_staged(cases[c].es),
			      "case %u: no column through the stage", c);
		ck_assert_msg(!(x & NOT_STAGED) || !staged[c],
			      "case %u: %llu columns staged", c, staged[c]);
		ck_assert_msg(!(x & SLICES) || slices[c], "case %u: no slices", c);
		ck_assert_msg(!(x & NO_SLICES) || !slices[c], "case %u: %llu tiles in slices",
			      c, slices[c]);
		ck_assert_msg(!(x & KEEP_COLS) || mincols[c] == full,
			      "case %u: tiles of %llu columns (source overflow)", c, mincols[c]);
		ck_assert_msg(!(x & KEEP_ROWS) || minrows[c] == full,
			      "case %u: tiles of %llu rows (destination overflow)", c, minrows[c]);
	}
	env_down(&e);
}
END_TEST

/*
 * Per element size (1..8), from the tilecopy_tile trace of @e's QEMU:
 * tiles, columns done straight, columns through the stage.
 */
static void tile_trace_sums(struct env *e, unsigned long long tiles[9],
			    unsigned long long straight[9], unsigned long long staged[9])
{
	char *log = qts_log(e->q), *p;

	for (p = log; (p = strstr(p, "tilecopy_tile ")); p++) {
		unsigned long long rows, cols, done, st;
		unsigned el;

		if (sscanf(p, "tilecopy_tile elem %u rows %llu cols %llu direct %llu staged %llu",
			   &el, &rows, &cols, &done, &st) == 5 && el <= 8) {
			tiles[el]++;
			straight[el] += done;
			staged[el] += st;
		}
	}
	free(log);
}

/*
 * Macro tiles (4- and 8-byte elements; review of 6390aee): transposes whose
 * rows lie a page or more apart on both sides, every element size (the
 * macro tiles; for 1 and 2 bytes the staged copy, or with AVX-512 on the
 * host macro tiles too), in tile buffers of
 * the default size and of a few KiB (the tile shrinks with the buffer),
 * with the edges of the new path: destination heads of 1 to 7 elements,
 * rows that leave a tail after the head (tiles of 9 to 33 rows), tail
 * columns (not a multiple of 4, a last tile of 1 to 5 columns), an outer
 * dimension, the last destination and source rows ending exactly at the
 * end of their mappings (an unmapped guard page follows), source rows
 * split between two scattered pages (the spill; the TLB floors), rows
 * misaligned by part of an element and rows of unequal alignment (the
 * buffered path). Byte for byte the scalar executor.
 */
START_TEST(test_cross_far_edges)
{
	static const char *const props[] = {
		NULL, "tilebuf-size=4096", "tilebuf-size=8192", "tilebuf-size=4160",
		"tilebuf-size=12352",
	};
	/* pitches in bytes, as the f64 case: every element size keeps them */
	static const struct {
		uint32_t m, n;		/* source rows, columns (destination rows) */
		uint32_t dpitch, spitch;	/* bytes between rows */
		uint32_t doff, soff;	/* bytes */
		uint32_t outer;
	} shapes[] = {
		{ 32, 128, 4096, 4096, 0, 0, 1 },
		{ 33, 131, 4160, 4136, 8, 40, 1 },	/* head 7, tail rows, 3 columns */
		{ 40, 133, 4160, 4136, 56, 0, 1 },	/* head 1, 7 tail rows, 5 columns */
		{ 9, 70, 4096, 4800, 8, 0, 2 },		/* head 7, too few rows for a block */
		{ 15, 70, 4096, 4800, 8, 0, 1 },	/* head 7, one band of 8 */
		{ 16, 7, 4096, 4096, 0, 0, 1 },		/* 7 columns */
		{ 71, 259, 4224, 8248, 24, 24, 2 },	/* head 5, outer 2 */
		/* the last rows end exactly at the end of their mappings */
		{ 37, 100, 4096, 4096, 4096 - 296, 4096 - 800, 1 },
		{ 32, 128, 4096, 4096, 3, 0, 1 },	/* part of an f64: no blocks */
		{ 32, 64, 4104, 4096, 0, 0, 1 },	/* rows not equally aligned */
		{ 100, 300, 4096, 4160, 0, 0, 1 },
		/* source rows split between two pages (scattered: the spill) */
		{ 64, 256, 4096, 8192, 0, 4096 - 128, 1 },
	};
	struct env e;
	struct ring r;
	unsigned pr, es, sh, scat, t = 0;
	char what[128];
	bool narrow;

	for (pr = 0; pr < sizeof(props) / sizeof(props[0]); pr++) {
		unsigned long long staged[9] = { 0 }, straight[9] = { 0 }, tiles[9] = { 0 };

		env_up_args(&e, props[pr], "-trace tilecopy_tile", 1);
		ring_setup(&e.d, 0, &r, 16);
		for (es = 1; es <= 8; es *= 2) {
			for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
				for (scat = 0; scat < 4; scat++) {
					const uint32_t m = shapes[sh].m, n = shapes[sh].n;
					const uint64_t dr = shapes[sh].dpitch / es;
					const uint64_t sr = shapes[sh].spitch / es;
					const uint32_t o = shapes[sh].outer;
					uint32_t ext[3] = { n, m, o };
					uint64_t ss[3] = { 1, sr, sr * m }, ds[3] = { dr, 1, dr * n };
					uint64_t sbytes = shapes[sh].soff +
						((o - 1) * sr * m + (m - 1) * sr + n) * es;
					uint64_t dbytes = shapes[sh].doff +
						((o - 1) * dr * n + (n - 1) * dr + m) * es;
					struct drm_tilecopy_desc d;

					if (scat == 2 && !shapes[sh].soff)
						continue;
					desc_copy(&d, es, shapes[sh].soff, shapes[sh].doff, 3, ext,
						  ss, ds);
					snprintf(what, sizeof(what),
						 "%s, es %u, shape %u (%ux%u, dst + %u, src + %u)",
						 props[pr] ? props[pr] : "default", es, sh, m, n,
						 shapes[sh].doff, shapes[sh].soff);
					cross_one(&e, &r, d, sbytes, dbytes, scat, ++t, what);
				}
			}
		}
		tile_trace_sums(&e, tiles, straight, staged);
		fprintf(stderr, "/cross/far-edges %s:", props[pr] ? props[pr] : "default");
		for (es = 1; es <= 8; es *= 2)
			fprintf(stderr, " es %u: %llu tiles, %llu columns straight, %llu staged;",
				es, tiles[es], straight[es], staged[es]);
		fprintf(stderr, "\n");
		/*
		 * With AVX-512, u8 tiles of fewer than 64 columns take the
		 * blocks, not the stage: in buffers under 8 KiB every u8 tile
		 * of these shapes has 20-32 columns.
		 */
		narrow = props[pr] && strtoul(strchr(props[pr], '=') + 1, NULL, 0) < 8192 &&
			 host_has_avx512bw();
		for (es = 1; es <= 8; es *= 2)
			ck_assert_msg(staged[es] || !host_staged(es) || (es == 1 && narrow),
				      "%s, es %u: nothing staged",
				      props[pr] ? props[pr] : "default", es);
		env_down(&e);
	}
}
END_TEST

/*
 * Macro tiles of 1- and 2-byte elements (with AVX-512 on the host; review
 * of 4a3561e): one far/far tile whose rows and columns reach every part
 * of tilecopy_transpose_direct()'s macro branch at once: a destination
 * head (1 to 63 bytes), two or more bands of blocks and tail rows after
 * them, stage tiles, whole blocks short of a stage tile after them, and
 * scalar columns after those; the last source row ends exactly at the
 * end of its page (guest RAM is one host allocation, so an over-read
 * cannot fault here, but a shape off by a column shows). Source rows 4
 * KiB apart (one L1 set), 8 KiB and 4160 bytes; destination rows whole
 * lines apart. Byte for byte the scalar executor; 4- and 8-byte elements
 * take the same shapes.
 */
START_TEST(test_cross_far_macro)
{
	static const struct {
		unsigned es;
		uint32_t m, n;		/* source rows (<= 256 / es), columns */
		uint32_t dmis;		/* destination offset in its line, bytes */
		uint32_t spitch, dpitch;
	} shapes[] = {
		/*
		 * u8: head 8, rend 136, 20 tail rows; stage 64, blocks to
		 * 112, 7 scalar (a tile has at most 128 columns here)
		 */
		{ 1, 156, 119, 56, 4096, 4160 },
		/* head 63, rend 127, 3 tail rows; stage 64, blocks to 112, 15 scalar */
		{ 1, 130, 127, 1, 8192, 4096 },
		/* head 40, one band, no tail; stage 64, one block, 2 scalar */
		{ 1, 104, 82, 24, 4160, 4224 },
		/* f16: head 4, rend 68, 24 tail rows; stage 96, blocks to 112, 5 scalar */
		{ 2, 92, 117, 56, 4096, 4160 },
		/* head 31, rend 63, 7 tail rows; stage 32, blocks to 56, 7 scalar */
		{ 2, 70, 63, 2, 8192, 4096 },
		/* head 20, rend 84, 1 tail row; stage 64, one block, 1 scalar */
		{ 2, 85, 73, 24, 4160, 4224 },
	};
	struct env e;
	struct ring r;
	unsigned sh, scat, es, t = 0;
	unsigned long long staged[9] = { 0 }, straight[9] = { 0 }, tiles[9] = { 0 };
	char what[128];

	env_up_args(&e, NULL, "-trace tilecopy_tile", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); sh++) {
		unsigned k;

		for (es = shapes[sh].es, k = 0; k < 2; k++, es *= 4) {	/* and 4 or 8 bytes */
			const uint32_t m = shapes[sh].m, n = shapes[sh].n;
			const uint64_t sr = shapes[sh].spitch / es, dr = shapes[sh].dpitch / es;
			/* the last source row ends at a page's end */
			const uint64_t send = (uint64_t)(m - 1) * shapes[sh].spitch + n * es;
			const uint64_t soff = (TC_PAGE_SIZE - send % TC_PAGE_SIZE) % TC_PAGE_SIZE;
			const uint64_t doff = 64 + shapes[sh].dmis;
			uint32_t ext[2] = { n, m };
			uint64_t ss[2] = { 1, sr }, ds[2] = { dr, 1 };
			struct drm_tilecopy_desc d;

			for (scat = 0; scat < 4; scat++) {
				desc_copy(&d, es, soff, doff, 2, ext, ss, ds);
				snprintf(what, sizeof(what), "es %u, %ux%u, dst + %llu, src + %llu",
					 es, m, n, (unsigned long long)doff,
					 (unsigned long long)soff);
				cross_one(&e, &r, d, soff + send,
					  doff + (uint64_t)(n - 1) * shapes[sh].dpitch + m * es,
					  scat, 700 + ++t, what);
			}
		}
	}
	tile_trace_sums(&e, tiles, straight, staged);
	for (es = 1; es <= 8; es *= 2)
		ck_assert_msg(staged[es] || !host_staged(es), "es %u: nothing staged", es);
	env_down(&e);
}
END_TEST

/*
 * An f64 transpose of rows a page or more apart on both sides (macro
 * tiles) whose destination has a page unmapped, or read-only, among its
 * rows, as the second descriptor of a job: it faults with that descriptor
 * at the page's first byte, the bytes of every row at and after that page
 * untouched and every other byte either the original or the scalar
 * executor's. Destination rows a page apart (one page each), and rows of
 * 4160 bytes (page 63 holds row 62 from its byte 128 and row 63's first
 * 64 bytes: the tile's height decides which of them faults first; a
 * row-by-row engine faults in row 62, at the page's first byte).
 */
START_TEST(test_mmu_far64_fault)
{
	static const struct {
		uint32_t m, n, dpitch;	/* source rows, columns; destination pitch, bytes */
		uint32_t page;		/* the destination page taken away */
		int ro;			/* read-only instead of unmapped */
		uint64_t want;		/* the fault's offset from dst */
	} cases[] = {
		{ 64, 512, 4096, 300, 0, 300 * 4096 },
		{ 64, 512, 4096, 300, 1, 300 * 4096 },
		{ 64, 512, 4096, 128, 0, 128 * 4096 },
		{ 520, 64, 4160, 63, 0, 63 * 4096 },
		{ 520, 64, 4160, 63, 1, 63 * 4096 },
	};
	unsigned c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const unsigned es = 8;
		const uint32_t m = cases[c].m, n = cases[c].n;
		const uint64_t dr = cases[c].dpitch / es, sr = 4096 / es;
		uint32_t ext[2] = { n, m };
		uint64_t ss[2] = { 1, sr }, ds[2] = { dr, 1 };
		uint64_t sbytes = sr * m * es, dbytes = dr * n * es, src, dst, gpa, b;
		uint64_t pva;
		struct drm_tilecopy_desc d[2];
		struct env e;
		struct ring r;
		uint8_t *cs, *cd, *orig;

		env_up(&e, NULL, 1);
		ring_setup(&e.d, 0, &r, 16);
		src = env_buf(&e, sbytes, TC_PTE_READ, NULL);
		dst = env_buf(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE, &gpa);
		va_fill_random(&e, src, sbytes, 70 + c);
		va_fill_random(&e, dst, dbytes, 80 + c);
		cs = va_copy_out(&e, src, sbytes);
		cd = va_copy_out(&e, dst, dbytes);
		orig = va_copy_out(&e, dst, dbytes);
		desc_copy(&d[1], es, 0, 0, 2, ext, ss, ds);
		ck_assert_int_eq(tc_exec_scalar(&d[1], 1, cs, cd), 0);
		d[1].src = src;
		d[1].dst = dst;
		d[0] = d[1];
		d[0].dst = env_buf(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
		pva = dst + cases[c].page * TC_PAGE_SIZE;
		if (cases[c].ro)
			mmu_map_page(&e.mmu, pva, gpa + cases[c].page * TC_PAGE_SIZE, TC_PTE_READ);
		else
			mmu_unmap_page(&e.mmu, pva);
		tc_wr(&e.d, TC_REG_MMU_INVALIDATE_ALL, 1);
		assert_fault(&e, run_job(&e, &r, d, 2, 1),
			     cases[c].ro ? DRM_TILECOPY_STATUS_FAULT_PERM :
			     DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 1, dst + cases[c].want, 1);
		for (b = 0; b < dbytes; b++) {
			uint8_t v;

			if (b / TC_PAGE_SIZE == cases[c].page && !cases[c].ro)
				continue;
			v = *va_host(&e, dst + b);
			ck_assert_msg(v == orig[b] || v == cd[b], "case %u: byte %llu garbage", c,
				      (unsigned long long)b);
			/* rows a page each: the faulting row and the rows after it untouched */
			ck_assert_msg(cases[c].dpitch != TC_PAGE_SIZE ||
				      b / TC_PAGE_SIZE < cases[c].page || v == orig[b],
				      "case %u: byte %llu written at or past the fault", c,
				      (unsigned long long)b);
		}
		free(cs);
		free(cd);
		free(orig);
		env_down(&e);
	}
}
END_TEST

/*
 * STOP, then a queue reset, in the middle of a job of f64 transposes whose
 * rows lie a page apart on both sides (macro tiles): four descriptors of
 * 64 x 256 (128 KiB written each, 128 ms of delay after each). Stopped,
 * nothing completes; STOP cleared, the job runs again from its first
 * descriptor and every destination equals the scalar executor's. Run
 * again over fresh destinations and reset the queue in its middle: the
 * next job (the same descriptors) still gives the scalar result.
 */
START_TEST(test_stop_far64)
{
	const unsigned es = 8, nd = 4;
	const uint32_t m = 64, n = 256;
	uint32_t ext[2] = { n, m };
	uint64_t ss[2] = { 1, 4096 / es }, ds[2] = { 4096 / es, 1 };
	uint64_t sbytes = 4096ull * m, dbytes = 4096ull * n, src, dst[4], gpa, b;
	struct drm_tilecopy_desc *d;
	struct env e;
	struct ring r;
	uint8_t *cs, *cd[4];
	unsigned i, round;

	env_up(&e, "delay-ns-per-kb=1000000", 1);	/* 128 KiB: 128 ms */
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, sbytes, TC_PTE_READ, NULL);
	va_fill_random(&e, src, sbytes, 91);
	cs = va_copy_out(&e, src, sbytes);
	d = desc_alloc(e.q, nd, &gpa);
	for (i = 0; i < nd; i++) {
		dst[i] = env_buf(&e, dbytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
		desc_copy(&d[i], es, 0, 0, 2, ext, ss, ds);
		cd[i] = calloc(1, dbytes);
		ck_assert_int_eq(tc_exec_scalar(&d[i], 1, cs, cd[i]), 0);
		d[i].src = src;
		d[i].dst = dst[i];
	}
	for (round = 0; round < 2; round++) {
		for (i = 0; i < nd; i++)
			va_fill_random(&e, dst[i], dbytes, 92 + round * nd + i);
		ring_submit(&e.d, 0, &r, gpa, nd, 0, 1 + round);
		POLL(tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_STARTED_SEQNO_LO) == 1 + round);
		usleep(150 * 1000);
		if (round == 0) {
			tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_STOP);
			POLL(tc_rd(&e.d, TC_REG_STATUS) & TC_STATUS_STOPPED);
			/*
			 * Stopped mid-job unless this process stalled past the
			 * whole job (512 ms) on a loaded host: then there is
			 * nothing to check here, the results still are.
			 */
			if (tc_rd64(&e.d, TC_Q_BASE(0) + TC_Q_DONE_SEQNO_LO) != 0)
				fprintf(stderr, "/engine/stop-far64: the job ended before STOP\n");
			tc_wr(&e.d, TC_REG_CTRL, 0);
			assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), 1);
		} else {
			queue_renew(&e, &r);
			ring_submit(&e.d, 0, &r, gpa, nd, 0, 3);
			assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), 3);
		}
		/* (the gaps between the rows keep their random bytes) */
		for (i = 0; i < nd; i++)
			for (b = 0; b < dbytes; b += 4096)
				ck_assert_msg(!memcmp(va_host(&e, dst[i] + b), cd[i] + b, m * es),
					      "round %u, descriptor %u: row %llu differs",
					      round, i, (unsigned long long)(b / 4096));
	}
	for (i = 0; i < nd; i++)
		free(cd[i]);
	free(cs);
	env_down(&e);
}
END_TEST

/*
 * MMU_INVALIDATE_ALL written over and over while jobs run, the mappings
 * unchanged: a transpose of rows a page apart on both sides in scattered
 * pages (its source overflows the TLB: slices), a copy of scattered pages
 * (run after run) and short rows in batches, each job the same
 * descriptor 16 times (long enough to be running while the test writes).
 * Each job completes and equals the scalar executor's result. Where the engine takes the
 * invalidates depends on the timing, the assertions do not: no lookup
 * may be redone forever, and no pointer the flush unmapped is read (the
 * sanitizer run would see a pointer into a region gone; here the RAM
 * stays, so the data check alone cannot).
 */
START_TEST(test_mmu_invalidate_storm)
{
	static const struct {
		unsigned es, nd;
		uint32_t ext[2];
		uint64_t ss[2], ds[2];
	} cases[] = {
		{ 1, 2, { 512, 512 }, { 1, 4096 }, { 4096, 1 } },
		{ 4, 1, { 1 << 18 }, { 1 }, { 1 } },
		{ 4, 2, { 12, 4096 }, { 1, 16 }, { 1, 20 } },
	};
	struct env e;
	struct ring r;
	unsigned c, k, writes = 0;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const unsigned es = cases[c].es;
		uint64_t sbytes = es, dbytes = es, src, dst, gpa, b, i;
		struct drm_tilecopy_desc d, *dd;
		uint8_t *cd;

		for (k = 0; k < cases[c].nd; k++) {
			sbytes += (cases[c].ext[k] - 1) * cases[c].ss[k] * es;
			dbytes += (cases[c].ext[k] - 1) * cases[c].ds[k] * es;
		}
		desc_copy(&d, es, 0, 0, cases[c].nd, cases[c].ext, cases[c].ss, cases[c].ds);
		cd = cross_bufs(&e, &d, sbytes, dbytes, 1, c + 1, &src, &dst);
		d.src = src;
		d.dst = dst;
		dd = desc_alloc(e.q, 16, &gpa);
		for (k = 0; k < 16; k++)
			dd[k] = d;
		ring_submit(&e.d, 0, &r, gpa, 16, 0, c + 1);
		/* (bounded: a job that never ends fails in tc_wait()) */
		for (i = 0; i < 200000 && tc_rd64(&e.d, TC_Q_BASE(0) +
						  TC_Q_DONE_SEQNO_LO) != c + 1; i++)
			tc_wr(&e.d, TC_REG_MMU_INVALIDATE_ALL, 1);
		writes += i;
		assert_ok(&e, tc_wait(&e.d, 0, WAIT_MS), c + 1);
		b = cross_diff(&e, dst, cd, dbytes);
		ck_assert_msg(b == dbytes, "case %u: byte %llu differs", c,
			      (unsigned long long)b);
		free(cd);
	}
	fprintf(stderr, "/mmu/invalidate-storm: %u invalidates written while jobs ran\n",
		writes);
	env_down(&e);
}
END_TEST

/*
 * Copies whose innermost rows are short and contiguous on both sides: the
 * engine takes them in batches of rows, and where the rows continue each
 * other along one dimension in the source and another in the destination
 * (a matrix into 16 x 16 fractals, ND -> zN, and back), as a transpose of
 * blocks. Block sizes of 3 to 128 bytes (streamed when whole 16-byte
 * units), destinations aligned and not, padded rows, an outer dimension,
 * contiguous and scattered pages; each against the scalar executor.
 */
START_TEST(test_cross_blocks)
{
	static const struct {
		const char *what;
		unsigned es, nd;
		uint32_t e[4];
		uint64_t ss[4], ds[4];
		uint64_t doff;
	} cases[] = {
		/* ND (M = 96, N = 80) -> zN: n0, m0 m1 (merged), n1 */
		{ "ND->zN f16 96x80", 2, 4, { 16, 16, 6, 5 }, { 1, 80, 16 * 80, 16 },
		  { 1, 16, 256, 16 * 96 }, 0 },
		{ "zN->ND f16 96x80", 2, 4, { 16, 16, 6, 5 }, { 1, 16, 256, 16 * 96 },
		  { 1, 80, 16 * 80, 16 }, 0 },
		{ "ND->zN u8 16x32 fractals", 1, 4, { 32, 16, 7, 3 }, { 1, 96, 16 * 96, 32 },
		  { 1, 32, 512, 32 * 112 }, 0 },
		{ "ND->zN f32", 4, 4, { 16, 16, 3, 9 }, { 1, 144, 16 * 144, 16 },
		  { 1, 16, 256, 16 * 48 }, 0 },
		{ "ND->zN f64, dst + 8", 8, 4, { 16, 16, 2, 4 }, { 1, 64, 16 * 64, 16 },
		  { 1, 16, 256, 16 * 32 }, 8 },
		{ "blocks of 3 bytes", 1, 3, { 3, 500, 40 }, { 1, 120, 3 }, { 1, 3, 1500 }, 0 },
		{ "blocks of 8 bytes, dst + 4", 2, 3, { 4, 300, 70 }, { 1, 280, 4 },
		  { 1, 4, 1200 }, 4 },
		{ "blocks of 48, outer dim", 4, 4, { 12, 90, 33, 2 }, { 1, 396, 12, 90 * 396 },
		  { 1, 12, 1080, 33 * 1080 }, 0 },
		/* short rows without a block structure: batches of rows */
		{ "rows of 32 padded", 2, 2, { 16, 3000 }, { 1, 20 }, { 1, 24 }, 0 },
		{ "rows of 7, dst + 1", 1, 3, { 7, 1100, 3 }, { 1, 9, 9 * 1100 },
		  { 1, 8, 8 * 1100 }, 1 },
		/* scattered: each row in a run of its own, more than the TLB holds */
		{ "rows of 32 a page apart", 1, 2, { 32, 700 }, { 1, 4100 }, { 1, 4096 }, 0 },
	};
	struct env e;
	struct ring r;
	unsigned c, k, scat, seq = 0, direct = 0, bybyte = 0;
	char *log, *p;

	/* the tilecopy_blocks trace tells which way each tile went */
	env_up_args(&e, NULL, "-trace tilecopy_blocks", 1);
	ring_setup(&e.d, 0, &r, 16);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct drm_tilecopy_desc d;
		uint64_t se = 0, de = 0;

		for (k = 0; k < cases[c].nd; k++) {
			se += (cases[c].e[k] - 1) * cases[c].ss[k];
			de += (cases[c].e[k] - 1) * cases[c].ds[k];
		}
		desc_copy(&d, cases[c].es, 0, cases[c].doff, cases[c].nd, cases[c].e,
			  cases[c].ss, cases[c].ds);
		for (scat = 0; scat < 2; scat++)
			cross_one(&e, &r, d, (se + 1) * cases[c].es,
				  (de + 1) * cases[c].es + cases[c].doff, scat, ++seq,
				  cases[c].what);
	}
	log = qts_log(e.q);
	for (p = log; (p = strstr(p, "tilecopy_blocks ")); p++) {
		unsigned long long rows, cols, bs, straight;

		if (sscanf(p, "tilecopy_blocks rows %llu cols %llu bsize %llu direct %llu",
			   &rows, &cols, &bs, &straight) == 4) {
			direct += straight != 0;
			bybyte += straight == 0;
		}
	}
	free(log);
	ck_assert_msg(direct && bybyte, "%u tiles straight, %u block by block", direct, bybyte);
	env_down(&e);
}
END_TEST

/*
 * ND -> zN with an unmapped destination page: the engine goes by tiles of
 * 64 rows (m) by the 32 column blocks, each written straight or, when a
 * destination row of it is not mapped, block by block in the descriptor's
 * order. It stops at the page's first byte: the tiles before (m < 128) are
 * written, and so is the part of the faulting tile before the page.
 */
START_TEST(test_mmu_blocks_fault)
{
	/* M = 256, N = 512 f16: column blocks of 256 x 16 (8 KiB, 2 pages) */
	uint32_t ext[4] = { 16, 16, 16, 32 };
	uint64_t ss[4] = { 1, 512, 16 * 512, 16 }, ds[4] = { 1, 16, 256, 16 * 256 };
	uint64_t src, dst, b, bytes = 256ull * 512 * 2;
	struct drm_tilecopy_desc d;
	struct env e;
	struct ring r;
	uint8_t *cs, *cd;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, bytes, TC_PTE_READ, NULL);
	dst = env_buf(&e, bytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, bytes, 17);
	va_fill_random(&e, dst, bytes, 18);
	cs = malloc(bytes);
	cd = malloc(bytes);
	for (b = 0; b < bytes; b++) {
		cs[b] = *va_host(&e, src + b);
		cd[b] = *va_host(&e, dst + b);
	}
	desc_copy(&d, 2, 0, 0, 4, ext, ss, ds);
	ck_assert_int_eq(tc_exec_scalar(&d, 1, cs, cd), 0);
	d.src = src;
	d.dst = dst;
	mmu_unmap_page(&e.mmu, dst + 5 * TC_PAGE_SIZE);
	tc_wr(&e.d, TC_REG_MMU_INVALIDATE_ALL, 1);
	assert_fault(&e, run_job(&e, &r, &d, 1, 1), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 0,
		     dst + 5 * TC_PAGE_SIZE, 1);
	for (b = 0; b < 5 * TC_PAGE_SIZE; b++)
		if (b % 8192 < 6144 || b >= 4 * TC_PAGE_SIZE)
			ck_assert_msg(*va_host(&e, dst + b) == cd[b], "byte %llu not written",
				      (unsigned long long)b);
	free(cs);
	free(cd);
	env_down(&e);
}
END_TEST

/*
 * A transposing copy whose destination has an unmapped page among its
 * rows: the engine checks the tile's rows before writing it straight, so
 * it writes the rows before that page row by row, then faults at the
 * page's first byte (the first byte it could not write), as a row-by-row
 * engine would. The rows after it are untouched.
 */
START_TEST(test_mmu_transpose_fault)
{
	const uint32_t m = 256, n = 64;		/* dst rows of 1 KiB, 4 a page */
	uint32_t ext[2] = { m, n };
	uint64_t ss[2] = { n, 1 }, ds[2] = { 1, m };
	uint64_t src, dst, b, bytes = (uint64_t)m * n * 4;
	struct drm_tilecopy_desc d[2];
	struct env e;
	struct ring r;
	uint8_t *cs, *cd, *orig;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	src = env_buf(&e, bytes, TC_PTE_READ, NULL);
	dst = env_buf(&e, bytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
	va_fill_random(&e, src, bytes, 7);
	va_fill_random(&e, dst, bytes, 8);
	cs = va_copy_out(&e, src, bytes);
	cd = va_copy_out(&e, dst, bytes);
	orig = va_copy_out(&e, dst, bytes);
	desc_copy(&d[1], 4, 0, 0, 2, ext, ss, ds);
	ck_assert_int_eq(tc_exec_scalar(&d[1], 1, cs, cd), 0);
	d[1].src = src;
	d[1].dst = dst;
	d[0] = d[1];
	d[0].dst = env_buf(&e, bytes, TC_PTE_READ | TC_PTE_WRITE, NULL);
	mmu_unmap_page(&e.mmu, dst + 5 * TC_PAGE_SIZE);
	tc_wr(&e.d, TC_REG_MMU_INVALIDATE_ALL, 1);
	assert_fault(&e, run_job(&e, &r, d, 2, 1), DRM_TILECOPY_STATUS_FAULT_UNMAPPED, 1,
		     dst + 5 * TC_PAGE_SIZE, 1);
	for (b = 0; b < 5 * TC_PAGE_SIZE; b++)
		ck_assert_msg(*va_host(&e, dst + b) == cd[b], "byte %llu not written",
			      (unsigned long long)b);
	for (b = 6 * TC_PAGE_SIZE; b < bytes; b++)
		ck_assert_msg(*va_host(&e, dst + b) == orig[b], "byte %llu written",
			      (unsigned long long)b);
	free(cs);
	free(cd);
	free(orig);
	env_down(&e);
}
END_TEST

/*
 * Malformed descriptors: the engine refuses (BAD_DESC) exactly what
 * tc_desc_check() refuses as malformed (-EINVAL / -EOVERFLOW), and faults
 * (FAULT_UNMAPPED) exactly where a footprint leaves the 1 MiB buffer (the
 * check again, on offsets into it) or lies beyond 2^63. Half the cases are
 * typed; a typed case may carry a hostile value: an offset at 2^63, a
 * 4-bit side with a nibble stride of 2^63, a non-finite per-tensor scale, a
 * scales footprint beyond 64 bits, scales running off the buffer or at an
 * odd address among NaNs and infinities.
 */
START_TEST(test_cross_validation)
{
	struct env e;
	struct ring r;
	uint64_t seed = 0x2545f4914f6cdd1dull, buf;
	unsigned t, refused = 0, faulted = 0, typed = 0, nib = 0, hostile = 0;

	env_up(&e, NULL, 1);
	ring_setup(&e.d, 0, &r, 16);
	buf = env_buf(&e, 1 << 20, TC_PTE_READ | TC_PTE_WRITE, NULL);
	fz_fill_floats(&e, buf + 8192, 4096, 3);	/* the scales */
	for (t = 0; t < 200; t++) {
		struct drm_tilecopy_desc d, rd;
		const char *field = "", *rfield = "";
		unsigned k, dim, far = 0, hostile_now = 0;
		int cpu, rel;
		uint32_t st;

		memset(&d, 0, sizeof(d));
		d.op = 1 + fz_rnd(&seed) % 3;
		d.elem_size = 1u << (fz_rnd(&seed) % 4);
		d.ndims = 1 + fz_rnd(&seed) % 3;
		for (dim = 0; dim < d.ndims; dim++) {
			d.extent[dim] = 1 + fz_rnd(&seed) % 4;
			d.dst_stride[dim] = fz_rnd(&seed) % 8;
			if (d.op == DRM_TILECOPY_OP_COPY)
				d.src_stride[dim] = fz_rnd(&seed) % 8;
		}
		if (d.op == DRM_TILECOPY_OP_WRITE64) {
			d.elem_size = 8;
			d.ndims = 1;
			d.extent[0] = 1;
			for (dim = 1; dim < 3; dim++)
				d.extent[dim] = d.dst_stride[dim] = d.src_stride[dim] = 0;
		}
		if (t % 2 && d.op != DRM_TILECOPY_OP_WRITE64) {
			/* typed (engine 1.2), valid, with a conversion or not */
			d.dst_type = 1 + fz_rnd(&seed) % 8;
			d.src_type = d.op == DRM_TILECOPY_OP_COPY ? 1 + fz_rnd(&seed) % 8 : 0;
			d.elem_size = 0;
			d.dst_nibble = tc_desc_type_bits(d.dst_type) == 4 && fz_rnd(&seed) % 2;
			d.src_nibble = tc_desc_type_bits(d.src_type) == 4 && fz_rnd(&seed) % 2;
			if (d.op == DRM_TILECOPY_OP_FILL)
				d.value = fz_rnd(&seed) & ((1ull << tc_desc_type_bits(d.dst_type)) - 1);
			if (d.op == DRM_TILECOPY_OP_COPY && fz_rnd(&seed) % 2) {
				d.cvt_flags = 1u << (fz_rnd(&seed) % 2);
				d.scale = d.cvt_flags == DRM_TILECOPY_CVT_SCALE ? 0x3e000000u : 0;
				d.scales = d.cvt_flags == DRM_TILECOPY_CVT_SCALES ? 8192 : 0;
				for (dim = 0; d.scales && dim < d.ndims; dim++)
					d.scale_stride[dim] = fz_rnd(&seed) % 3;
				d.src_zp = (int32_t)(fz_rnd(&seed) % 5) - 2;
			}
			/* break one typed field, give one a hostile value, or none */
			k = fz_rnd(&seed) % 18;
			hostile_now = k >= 9 && k < 16;
			hostile += hostile_now;
			switch (k) {
			case 0: d.dst_type = 9 + fz_rnd(&seed) % 200; break;
			case 1: d.elem_size = 4; break;
			case 2: d.src_nibble = 2; break;
			case 3: d.dst_nibble = tc_desc_type_bits(d.dst_type) == 4 ? 3 : 1; break;
			case 4: d.cvt_flags |= 4; break;
			case 5: d.pad = 1; break;
			case 6: d.scale_stride[7] = 1; break;
			case 7: d.scale = d.cvt_flags == DRM_TILECOPY_CVT_SCALE ? 0x7f800001u : 1; break;
			case 8: d.dst_zp = d.op == DRM_TILECOPY_OP_COPY && d.src_type ? 0 : 7; break;
			case 9: far = 1 + fz_rnd(&seed) % 3; break;	/* below */
			case 10:	/* an infinite per-tensor scale */
				d.scale = 0x7f800000u | (uint32_t)(fz_rnd(&seed) % 2) << 31;
				break;
			case 11:	/* scales footprint beyond 64 bits */
				d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
				d.scale = 0;
				d.scales = 8192;
				d.scale_stride[0] = 0x80000000u;
				d.extent[0] = 0x80000001u;
				break;
			case 12:	/* scales running off the end of the buffer */
				if (d.op == DRM_TILECOPY_OP_COPY) {
					d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
					d.scale = 0;
					d.scales = (1 << 20) - 4 * (1 + fz_rnd(&seed) % 3);
					d.extent[0] = 2 + fz_rnd(&seed) % 3;
					d.scale_stride[0] = 1 + fz_rnd(&seed) % 2;
				}
				break;
			case 13:	/* a nibble (or element) stride of 2^63 */
				if (fz_rnd(&seed) % 2) {
					d.dst_type = DRM_TILECOPY_TYPE_I4 + fz_rnd(&seed) % 2;
					d.dst_nibble = fz_rnd(&seed) % 2;
					d.value &= 15;
				}
				d.dst_stride[0] = 1ull << 63 | fz_rnd(&seed) % 2;
				d.extent[0] = 2;
				break;
			case 14:	/* a 4-bit destination from its odd nibble, odd strides */
				d.dst_type = DRM_TILECOPY_TYPE_I4 + fz_rnd(&seed) % 2;
				d.dst_nibble = 1;
				d.dst_stride[0] = 1 + 2 * (fz_rnd(&seed) % 3);
				d.value &= 15;
				break;
			case 15:	/* scales at an odd address, among NaNs and infinities */
				if (d.scales)
					d.scales += 1 + fz_rnd(&seed) % 3;
				break;
			default: break;
			}
			d.scales += d.scales ? buf : 0;
			typed++;
			nib += tc_desc_type_bits(d.dst_type) == 4 || tc_desc_type_bits(d.src_type) == 4;
		}
		/* break one field, or none (none after a hostile value, which must reach the engine) */
		k = fz_rnd(&seed) % 12;
		switch (hostile_now ? 11 : k) {
		case 0: d.op = fz_rnd(&seed) % 2 ? 0 : 4 + fz_rnd(&seed) % 100; break;
		case 1: d.elem_size = (uint8_t[]){ 0, 3, 5, 16 }[fz_rnd(&seed) % 4]; break;
		case 2: d.ndims = fz_rnd(&seed) % 2 ? 0 : 9; break;
		case 3: d.flags = 1u << (fz_rnd(&seed) % 32); break;
		case 4: d.extent[fz_rnd(&seed) % d.ndims] = 0; break;
		case 5: d.extent[7] = 1; break;
		case 6: d.src_stride[6] = 1; break;
		case 7: d.src = 8; break;			/* harmless for COPY */
		case 8: d.value = 1; break;			/* harmless unless COPY */
		case 9: d.src_stride[0] = d.op == DRM_TILECOPY_OP_COPY ? 1ull << 63 : 1; break;
		default: break;
		}
		/* (a FILL's or WRITE64's src stays 0, or one broken field above) */
		d.src += d.op == DRM_TILECOPY_OP_COPY ? buf : 0;
		d.dst = buf + 4096;
		/* an offset at 2^63, or at the end of the address space */
		if (far == 1 || (far == 2 && d.op != DRM_TILECOPY_OP_COPY))
			d.dst += 1ull << 63;
		else if (far == 2)
			d.src += 1ull << 63;
		else if (far == 3)
			d.dst = ~0ull - fz_rnd(&seed) % 16;
		cpu = tc_desc_check_v2(&d, ~(size_t)0 >> 1, ~(size_t)0 >> 1, ~(size_t)0 >> 1, &field);
		/* the same, as offsets into the buffer (unmapped around it) */
		rd = d;
		rd.src -= rd.op == DRM_TILECOPY_OP_COPY ? buf : 0;
		rd.dst -= buf;
		rd.scales -= rd.scales ? buf : 0;
		rel = tc_desc_check_v2(&rd, 1 << 20, 1 << 20, 1 << 20, &rfield);
		st = run_job(&e, &r, &d, 1, t + 1);
		if (cpu == -EINVAL || cpu == -EOVERFLOW) {
			ck_assert_msg(st & TC_Q_STATUS_HALTED, "case %u: CPU refuses (%s), engine ran it",
				      t, field);
			ck_assert_uint_eq(tc_qrd(&e.d, 0, TC_Q_ERR_CODE), DRM_TILECOPY_STATUS_BAD_DESC);
			refused++;
			queue_renew(&e, &r);
		} else if (cpu == -ERANGE || rel) {
			/*
			 * A footprint in 64 bits, beyond 2^63 or the buffer: no
			 * field is wrong, the VA is.
			 */
			ck_assert_msg(st & TC_Q_STATUS_HALTED, "case %u: %s beyond its mapping ran", t,
				      cpu ? field : rfield);
			ck_assert_msg(tc_qrd(&e.d, 0, TC_Q_ERR_CODE) == DRM_TILECOPY_STATUS_FAULT_UNMAPPED,
				      "case %u: %s beyond its mapping: code %u", t, cpu ? field : rfield,
				      tc_qrd(&e.d, 0, TC_Q_ERR_CODE));
			faulted++;
			queue_renew(&e, &r);
		} else {
			ck_assert_msg(cpu == 0, "case %u: tc_desc_check %d", t, cpu);
			ck_assert_msg(!(st & TC_Q_STATUS_HALTED), "case %u: engine refuses (code %u), "
				      "CPU accepts", t, tc_qrd(&e.d, 0, TC_Q_ERR_CODE));
		}
	}
	printf("/cross/validation: 200 descriptors, %u refused, %u faulted; %u typed (%u with "
	       "4-bit sides), %u with a hostile value\n", refused, faulted, typed, nib, hostile);
	fflush(stdout);
	ck_assert_msg(refused > 50 && refused < 200, "refused %u", refused);
	ck_assert_msg(faulted >= 3 && hostile > 20 && nib > 10, "faulted %u, hostile %u, 4-bit %u",
		      faulted, hostile, nib);
	env_down(&e);
}
END_TEST

/*
 * Jobs on four queues while queue and engine resets land at random moments
 * (jobs slowed by delay-ns-per-kb so that resets hit running jobs): every
 * reset returns promptly, the engine never wedges, and afterwards a job runs.
 */
START_TEST(test_stress_resets)
{
	struct env e;
	struct ring r[4];
	uint64_t seed = 0x9e3779b97f4a7c15ull, src, dst, gpa;
	struct drm_tilecopy_desc *d;
	unsigned t, qi, hits = 0;
	uint32_t ext = 8192;
	uint64_t one = 1;
	double worst = 0;

	env_up(&e, "delay-ns-per-kb=200000", 1);	/* 8 KiB: 1.6 ms */
	src = env_buf(&e, 8192, TC_PTE_READ, NULL);
	dst = env_buf(&e, 4 * 8192, TC_PTE_READ | TC_PTE_WRITE, NULL);
	d = desc_alloc(e.q, 4, &gpa);
	for (qi = 0; qi < 4; qi++) {
		desc_copy(&d[qi], 1, src, dst + qi * 8192, 1, &ext, &one, &one);
		ring_setup(&e.d, qi, &r[qi], 16);
	}
	for (t = 0; t < 400; t++) {
		unsigned what = fz_rnd(&seed) % 16;
		double t0;

		qi = fz_rnd(&seed) % 4;
		if (what < 12) {
			if ((r[qi].tail + 1) % r[qi].size != tc_qrd(&e.d, qi, TC_Q_HEAD))
				ring_submit(&e.d, qi, &r[qi], gpa + qi * sizeof(*d), 1, 0, t);
			continue;
		}
		if ((tc_qrd(&e.d, qi, TC_Q_STATUS) & TC_Q_STATUS_BUSY) ||
		    tc_qrd(&e.d, qi, TC_Q_HEAD) != tc_qrd(&e.d, qi, TC_Q_TAIL))
			hits++;
		t0 = now_sec();
		if (what < 15) {
			tc_qwr(&e.d, qi, TC_Q_CTRL, TC_Q_CTRL_RESET);
			ring_setup(&e.d, qi, &r[qi], 16);
		} else {
			tc_wr(&e.d, TC_REG_CTRL, TC_CTRL_RESET);
			ck_assert_uint_eq(tc_rd(&e.d, TC_REG_STATUS), 0);
			tc_wr(&e.d, TC_REG_CTX_ROOT_LO(0), (uint32_t)e.mmu.root);
			tc_boot_good(&e.d);
			for (qi = 0; qi < 4; qi++)
				ring_setup(&e.d, qi, &r[qi], 16);
		}
		if (now_sec() - t0 > worst)
			worst = now_sec() - t0;
	}
	ck_assert_msg(worst < 2.0, "a reset took %.3f s", worst);
	ck_assert_msg(hits > 10, "only %u resets met work in flight", hits);
	for (qi = 0; qi < 4; qi++) {
		uint32_t st = tc_wait(&e.d, qi, WAIT_MS);

		ck_assert_msg(!(st & (0x80000000u | TC_Q_STATUS_HALTED)), "queue %u: 0x%x", qi, st);
	}
	/* still a working engine: one more job per queue */
	for (qi = 0; qi < 4; qi++) {
		ring_submit(&e.d, qi, &r[qi], gpa + qi * sizeof(*d), 1, 0, 9000 + qi);
		ck_assert_uint_eq(tc_wait(&e.d, qi, WAIT_MS), 0);
		ck_assert_uint_eq(tc_rd64(&e.d, TC_Q_BASE(qi) + TC_Q_DONE_SEQNO_LO), 9000 + qi);
		ck_assert(memcmp(va_host(&e, dst + qi * 8192), va_host(&e, src), 4096) == 0);
	}
	env_down(&e);
}
END_TEST

static int irq_raised_count(struct qts *q)
{
	int i, n = 0;

	for (i = 0; i < 64; i++)
		n += q->irq[i];
	return n;
}

/* Without MSI-X the engine drives INTA while an unmasked event is pending. */
START_TEST(test_intx)
{
	struct env e;
	struct ring r;
	struct drm_tilecopy_desc d;
	uint64_t src, dst, one = 1;
	uint32_t ext = 64;

	env_up(&e, NULL, 0);
	qts_irq_intercept(e.q, "ioapic");
	tc_boot_good(&e.d);			/* FW_READY masked: no interrupt */
	tc_rd(&e.d, TC_REG_ID);
	ck_assert_int_eq(irq_raised_count(e.q), 0);
	tc_wr(&e.d, TC_REG_INT_MASK, TC_INT_FW_READY);	/* pending -> raised */
	ck_assert_int_eq(irq_raised_count(e.q), 1);
	tc_wr(&e.d, TC_REG_INT_STATUS, TC_INT_FW_READY);
	ck_assert_int_eq(irq_raised_count(e.q), 0);
	ring_setup(&e.d, 1, &r, 8);
	src = env_buf(&e, 64, TC_PTE_READ, NULL);
	dst = env_buf(&e, 64, TC_PTE_READ | TC_PTE_WRITE, NULL);
	desc_copy(&d, 1, src, dst, 1, &ext, &one, &one);
	{
		uint64_t gpa;
		struct drm_tilecopy_desc *dd = desc_alloc(e.q, 1, &gpa);
		double end = now_sec() + 5;

		*dd = d;
		ring_submit(&e.d, 1, &r, gpa, 1, 0, 1);
		ck_assert_uint_eq(tc_wait(&e.d, 1, WAIT_MS), 0);
		while (!irq_raised_count(e.q) && now_sec() < end)
			tc_rd(&e.d, TC_REG_ID);		/* lets the reply carry the IRQ */
		ck_assert_int_eq(irq_raised_count(e.q), 1);
		tc_qwr(&e.d, 1, TC_Q_INT_STATUS, TC_Q_INT_DONE);
		ck_assert_int_eq(irq_raised_count(e.q), 0);
	}
	env_down(&e);
}
END_TEST

static Suite *device_suite(void)
{
	Suite *s = suite_create("device");
	TCase *tc;

#define ADD(name, fn) do { \
	tc = tcase_create(name); \
	tcase_set_timeout(tc, 120); \
	tcase_add_test(tc, fn); \
	suite_add_tcase(s, tc); \
} while (0)
	ADD("/id/registers", test_id);
	ADD("/id/properties", test_id_properties);
	ADD("/id/bad-properties", test_id_bad_properties);
	ADD("/fw/good", test_fw_good);
	ADD("/fw/bad-images", test_fw_bad);
	ADD("/fw/project-images", test_fw_project_images);
	ADD("/fw/queue-count", test_fw_queue_count);
	ADD("/job/no-firmware", test_job_no_firmware);
	ADD("/ring/several-jobs", test_ring_several_jobs);
	ADD("/copy/elem-sizes", test_copy_elem_sizes);
	ADD("/copy/broadcast", test_copy_broadcast);
	ADD("/copy/transpose", test_copy_transpose);
	ADD("/copy/transpose-small-tilebuf", test_copy_transpose_small_tilebuf);
	ADD("/copy/transpose-tall", test_copy_transpose_tall);
	ADD("/copy/random-permutations", test_copy_random_permutations);
	ADD("/fill", test_fill);
	ADD("/write64", test_write64);
	ADD("/mmu/scattered-pages", test_mmu_scattered_pages);
	ADD("/mmu/fault-unmapped", test_mmu_fault_unmapped);
	ADD("/mmu/fault-perm", test_mmu_fault_perm);
	ADD("/mmu/invalidate", test_mmu_invalidate);
	ADD("/mmu/invalidate-storm", test_mmu_invalidate_storm);
	ADD("/mmu/transpose-fault", test_mmu_transpose_fault);
	ADD("/mmu/blocks-fault", test_mmu_blocks_fault);
	ADD("/desc/bad", test_desc_bad);
	ADD("/desc/op-disabled", test_desc_op_disabled);
	ADD("/desc/fuzz", test_desc_fuzz);
	ADD("/desc/table", test_desc_table);
	ADD("/desc/via-mmu", test_desc_via_mmu);
	ADD("/typed/pairs", test_typed_pairs);
	ADD("/typed/nibbles", test_typed_nibbles);
	ADD("/typed/fill", test_typed_fill);
	ADD("/typed/faults", test_typed_faults);
	ADD("/typed/desc-size", test_typed_desc_size);
	ADD("/typed/dma-error", test_typed_dma_error);
	ADD("/engine/stop-progress", test_stop_progress);
	ADD("/engine/stop-long-row", test_stop_long_row);
	ADD("/engine/reset-hang", test_reset_hang);
	ADD("/inject/hang-queue-job-ns", test_hang_queue_job_ns);
	ADD("/dma/not-ram", test_dma_not_ram);
	ADD("/inject/hang-queue-reset", test_hang_then_queue_reset);
	ADD("/inject/hang-engine-reset", test_hang_then_engine_reset);
	ADD("/inject/dma-error", test_dma_error_injected);
	ADD("/inject/delay-and-reset", test_delay_and_reset_busy_queue);
	ADD("/queues/contexts", test_queues_contexts);
	ADD("/instances/two", test_two_instances);
	ADD("/counters", test_counters);
	ADD("/irq/msix", test_msix);
	ADD("/irq/intx", test_intx);
	ADD("/cross/cpu-executors", test_cross_cpu);
	ADD("/cross/validation", test_cross_validation);
	ADD("/cross/transposes", test_cross_transposes);
	ADD("/cross/misaligned", test_cross_misaligned);
	ADD("/cross/tall-tiles", test_cross_tall_tiles);
	ADD("/cross/staged", test_cross_staged);
	ADD("/cross/far-edges", test_cross_far_edges);
	ADD("/cross/far-macro", test_cross_far_macro);
	ADD("/mmu/far64-fault", test_mmu_far64_fault);
	ADD("/engine/stop-far64", test_stop_far64);
	ADD("/cross/blocks", test_cross_blocks);
	ADD("/stress/resets", test_stress_resets);
#undef ADD
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	qts_require_binary();
	sr = srunner_create(device_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
