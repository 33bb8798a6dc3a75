// SPDX-License-Identifier: MIT
/*
 * test_transpose_host.c - the engine model's straight-to-destination
 * transposes (tilecopy_transpose_direct(), qemu/tilecopy-transpose.c),
 * built on their own against the stand-in headers of tests/device/host/,
 * where the device tests cannot look: every source row ends at a
 * PROT_NONE page (or 3 bytes before one), the stage is exactly as large as
 * the caller's check allows and ends at one too, and the bytes around each
 * destination row must stay as they were. Guest RAM under QEMU is one host
 * allocation, so an engine kernel reading past a row's end would go
 * unnoticed by the cross tests; here it faults. Every element size, row counts
 * around the blocks' and stage tiles' multiples, every column count up to
 * 140 and a spread to 300, destination heads of one element to a line
 * less one; with the host's SIMD features as they are, without AVX-512,
 * and without AVX2 too (each case forks: the model caches what it finds).
 * The reference is the plain definition drow[c][r] = row[r][c].
 * (Review of 4a3561e: its harness, made a test.)
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qemu/osdep.h"
#include "tilecopy-transpose.h"

#undef __builtin_cpu_supports

#define TH_ROWS_MAX	300
#define TH_COLS_MAX	300
#define TH_DPITCH	4160	/* destination rows: 65 lines apart */
#define TH_SLACK	64	/* checked bytes after each destination row */

static int th_mask_avx512, th_mask_avx2;

int tc_host_cpu_supports(const char *f)
{
#if defined(__x86_64__)
	if (!strncmp(f, "avx512", 6))
		return !th_mask_avx512 && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512bw");
	if (!strcmp(f, "avx2"))
		return !th_mask_avx2 && __builtin_cpu_supports("avx2");
	if (!strcmp(f, "ssse3"))
		return __builtin_cpu_supports("ssse3");
#endif
	(void)f;
	return 0;
}

/* @bytes of which the last one is followed by a PROT_NONE page: its end. */
static uint8_t *th_guarded_end(size_t bytes)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (bytes + pg - 1) / pg + 1;
	uint8_t *p = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	ck_assert(!mprotect(p + (pages - 1) * pg, pg, PROT_NONE));
	return p + (pages - 1) * pg;
}

struct th_bufs {
	uint8_t *src_end[TH_ROWS_MAX];	/* each row's guard */
	uint8_t *stage_end, *dst;
	const uint8_t *row[TH_ROWS_MAX];
	uint8_t *drow[TH_COLS_MAX];
};

static struct th_bufs *th_setup(void)
{
	struct th_bufs *b = calloc(1, sizeof(*b));
	size_t dbytes = TH_COLS_MAX * TH_DPITCH + 128;

	ck_assert(b);
	for (size_t r = 0; r < TH_ROWS_MAX; r++)
		b->src_end[r] = th_guarded_end(TH_COLS_MAX * 8 + 64);
	b->stage_end = th_guarded_end(TH_ROWS_MAX * TH_COLS_MAX * 8);
	b->dst = th_guarded_end(dbytes) - dbytes;	/* page-aligned start */
	return b;
}

/*
 * One call: @rows x @cols elements of @es bytes, destination rows @mis
 * bytes into their lines, source rows ending @soff bytes before their
 * guard. Returns the number of mismatches (0 when the model declined).
 */
static unsigned th_one(struct th_bufs *b, unsigned es, size_t rows, size_t cols,
		       size_t mis, size_t soff, unsigned *taken)
{
	size_t head = ((64 - mis) & 63) / es;
	size_t need = rows > head ? (rows - head) * cols * es : 0;
	size_t r, c, i;
	bool staged;

	for (r = 0; r < rows; r++) {
		uint8_t *p = b->src_end[r] - cols * es - soff;

		for (i = 0; i < cols * es; i++)
			p[i] = (uint8_t)(r * 131 + i * 7 + rows + cols + 1);
		b->row[r] = p;
	}
	for (c = 0; c < cols; c++) {
		memset(b->dst + c * TH_DPITCH, 0xee, mis + rows * es + TH_SLACK);
		b->drow[c] = b->dst + c * TH_DPITCH + mis;
	}
	if (!tilecopy_transpose_direct(b->drow, b->row, rows, cols, es,
				       b->stage_end - need, need, &staged))
		return 0;
	++*taken;
	for (c = 0; c < cols; c++) {
		const uint8_t *d = b->dst + c * TH_DPITCH;

		for (i = 0; i < mis; i++)
			if (d[i] != 0xee)
				return 1;
		for (i = 0; i < rows * es; i++)
			if (d[mis + i] != b->row[i / es][c * es + i % es])
				return 1;
		for (i = mis + rows * es; i < mis + rows * es + TH_SLACK; i++)
			if (d[i] != 0xee)
				return 1;
	}
	return 0;
}

static void th_sweep(int mask512, int mask2)
{
	static const size_t rows_of[9][6] = {
		[1] = { 64, 65, 100, 128, 200, 256 },
		[2] = { 32, 33, 64, 100, 128, 130 },
		[4] = { 16, 17, 40, 64, 65, 100 },
		[8] = { 8, 9, 20, 32, 33, 50 },
	};
	struct th_bufs *b;
	unsigned es, fails = 0, taken = 0, calls = 0;

	th_mask_avx512 = mask512;
	th_mask_avx2 = mask2;
	b = th_setup();
	for (es = 1; es <= 8; es *= 2) {
		const size_t mis_of[] = { 0, es, 24, 64 - es };

		for (size_t ri = 0; ri < 6; ri++)
			for (size_t cols = 1; cols <= TH_COLS_MAX; cols += cols < 140 ? 1 : 7)
				for (size_t mi = 0; mi < 4; mi++)
					for (size_t soff = 0; soff < 4; soff += 3) {
						size_t rows = rows_of[es][ri];
						unsigned f = th_one(b, es, rows, cols, mis_of[mi],
								    soff, &taken);

						calls++;
						if (f && fails++ < 5)
							fprintf(stderr, "es %u rows %zu cols %zu head at %zu, source %zu before its guard: wrong\n",
								es, rows, cols, mis_of[mi], soff);
					}
	}
	printf("transpose-host (avx512 %s, avx2 %s): %u calls, %u taken by the direct path, %u wrong\n",
	       mask512 ? "off" : "as the host", mask2 ? "off" : "as the host",
	       calls, taken, fails);
	ck_assert_uint_eq(fails, 0);
	/* x86-64 always has SSE2 blocks for 4- and 8-byte elements */
#if defined(__x86_64__)
	ck_assert_uint_gt(taken, 0);
#endif
}

START_TEST(test_host_features)
{
	th_sweep(0, 0);
}
END_TEST

START_TEST(test_no_avx512)
{
	th_sweep(1, 0);
}
END_TEST

START_TEST(test_no_avx2)
{
	th_sweep(1, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("transpose-host");
	TCase *tc = tcase_create("direct");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_host_features);
	tcase_add_test(tc, test_no_avx512);
	tcase_add_test(tc, test_no_avx2);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
