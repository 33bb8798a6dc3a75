// SPDX-License-Identifier: MIT
/*
 * test_simd.c - every SIMD executor against the scalar reference.
 *
 * Each available executor (sse2, avx2, avx512 on x86-64; neon on aarch64)
 * must produce the very bytes tc_exec_scalar produces, for hand-made shapes
 * (transposes of every tile size with odd edges, runs, fills, broadcasts,
 * overlapping destinations), for random descriptor sets, and for the plans
 * of every format pair through the public API. Buffers are deliberately
 * misaligned and the destination is pre-filled with noise, so stray writes
 * show up as well as missing ones.
 *
 * An executor this CPU cannot run is reported as skipped, by name; the run
 * fails if no SIMD executor at all could be tested on x86-64 or aarch64.
 *
 * TC_TEST_QUICK=1 shrinks the large cases (used under qemu-user).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tilecopy/tilecopy.h"
#include "cpu/cpu_exec.h"
#include "cpu/cvt.h"
#include "cpu/pattern.h"
#include "plan_internal.h"

/* x86 in ascending order of width; the default is the widest available. */
static const char *const simd_names[] = { "neon", "sse2", "avx2", "avx512" };
#define NNAMES (int)(sizeof(simd_names) / sizeof(simd_names[0]))

static int quick(void)
{
	const char *q = getenv("TC_TEST_QUICK");

	return q && *q && *q != '0';
}

/* ---- a small deterministic generator (xorshift64*) ---------------------- */

/* Tests seed it; never 0 (xorshift stays at 0: every draw would be 0). */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static void fill_noise(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t s = seed | 1;

	for (size_t i = 0; i < n; i++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		p[i] = (unsigned char)s;
	}
}

/* ---- running one descriptor list both ways ---------------------------- */

/*
 * binary32 values in [-300, 300) in steps of 1/4 (ties, saturation and
 * every scale matter), instead of noise (mostly NaN, infinities, huge and
 * tiny values).
 */
static void fill_values(unsigned char *p, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i += 4) {
		float v = (float)((int)((i / 4 * 2654435761u) % 2400) - 1200) / 4;

		memcpy(p + i, &v, 4);
	}
}

static size_t need_bytes(const struct drm_tilecopy_desc *d, int src_side)
{
	__u64 bytes = 0;

	if (src_side && d->op != DRM_TILECOPY_OP_COPY)
		return 0;
	ck_assert_int_eq(tc_desc_footprint(d, src_side ? d->src_stride : d->dst_stride,
					   &bytes), 0);
	return (size_t)((src_side ? d->src : d->dst) + bytes);
}

/*
 * Run @descs with the scalar reference and with @be on buffers misaligned
 * by @mis bytes; every byte of the destination must agree. @scales:
 * @nscales floats the typed descriptors with per-channel scales read.
 */
static void check_descs_src(const struct tc_cpu_backend *be,
			    const struct drm_tilecopy_desc *descs, size_t n,
			    const float *scales, size_t nscales,
			    unsigned mis, int values, const char *what)
{
	size_t ssz = 1, dsz = 1, i;
	unsigned char *sbuf, *ref, *out;
	const char *field = NULL;

	for (i = 0; i < n; i++) {
		size_t s = need_bytes(&descs[i], 1), d = need_bytes(&descs[i], 0);

		ssz = s > ssz ? s : ssz;
		dsz = d > dsz ? d : dsz;
	}
	for (i = 0; i < n; i++)
		ck_assert_msg(!tc_desc_check_v2(&descs[i], ssz, dsz, nscales * sizeof(float),
						&field),
			      "%s: test built a bad descriptor %zu (%s)", what, i, field);
	/* 64-byte aligned: @mis 0 takes the kernels' aligned (streaming) paths */
	sbuf = aligned_alloc(64, (ssz + 127) & ~(size_t)63);
	ref = aligned_alloc(64, (dsz + 127) & ~(size_t)63);
	out = aligned_alloc(64, (dsz + 127) & ~(size_t)63);
	ck_assert(sbuf && ref && out);
	fill_noise(sbuf + mis, ssz, 0x1234 + ssz);
	if (values)
		fill_values(sbuf + mis, ssz);
	fill_noise(ref + mis, dsz, 0x9876 + dsz);
	memcpy(out + mis, ref + mis, dsz);

	ck_assert_int_eq(tc_exec_scalar_scales(descs, n, sbuf + mis, ref + mis, scales), 0);
	ck_assert_int_eq(be->exec_scales(descs, n, sbuf + mis, out + mis, scales), 0);
	if (memcmp(ref + mis, out + mis, dsz)) {
		for (i = 0; i < dsz && ref[mis + i] == out[mis + i]; i++)
			;
		ck_abort_msg("%s on %s (misaligned by %u): first difference at byte %zu of %zu: scalar %02x, %s %02x",
			     be->name, what, mis, i, dsz, ref[mis + i], be->name,
			     out[mis + i]);
	}
	free(sbuf);
	free(ref);
	free(out);
}

/* check_descs_src() on a noise source. */
static void check_descs_scales(const struct tc_cpu_backend *be,
			       const struct drm_tilecopy_desc *descs, size_t n,
			       const float *scales, size_t nscales,
			       unsigned mis, const char *what)
{
	check_descs_src(be, descs, n, scales, nscales, mis, 0, what);
}

static void check_descs(const struct tc_cpu_backend *be,
			const struct drm_tilecopy_desc *descs, size_t n,
			unsigned mis, const char *what)
{
	check_descs_scales(be, descs, n, NULL, 0, mis, what);
}

static const struct tc_cpu_backend *backend_or_skip(int i)
{
	int err = 0;
	const struct tc_cpu_backend *be = tc_cpu_backend_get(simd_names[i], &err);

	if (!be) {
		ck_assert_int_eq(err, -ENODEV);
		printf("SKIP %s: executor not available on this CPU/architecture\n",
		       simd_names[i]);
	}
	return be;
}

/* Dense strides for @ext in the order @perm (innermost first), plus @pad. */
static void dense_strides(__u64 *stride, const __u32 *ext, const int *perm,
			  int nd, unsigned pad)
{
	__u64 s = 1;

	for (int j = 0; j < nd; j++) {
		stride[perm[j]] = s;
		s = s * ext[perm[j]] + (pad ? rnd_below(pad + 1) : 0);
	}
}

static void identity(int *perm, int nd)
{
	for (int j = 0; j < nd; j++)
		perm[j] = j;
}

static void shuffle(int *perm, int nd)
{
	for (int j = nd - 1; j > 0; j--) {
		int k = (int)rnd_below((unsigned)j + 1), t = perm[j];

		perm[j] = perm[k];
		perm[k] = t;
	}
}

static struct drm_tilecopy_desc copy_desc(unsigned es, int nd, const __u32 *ext)
{
	struct drm_tilecopy_desc d;

	memset(&d, 0, sizeof(d));
	d.op = DRM_TILECOPY_OP_COPY;
	d.elem_size = (__u8)es;
	d.ndims = (__u8)nd;
	memcpy(d.extent, ext, sizeof(ext[0]) * (size_t)nd);
	return d;
}

/* ---- hand-made shapes -------------------------------------------------- */

static const __u32 odd[] = { 1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100 };
#define NODD (sizeof(odd) / sizeof(odd[0]))

/* 2-D transposes (both directions) with a batch dim, every size pair. */
START_TEST(test_transpose_2d)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t a = 0; a < NODD; a++)
			for (size_t b = 0; b < NODD; b++) {
				__u32 ext[3] = { odd[a], odd[b], 2 };
				struct drm_tilecopy_desc d = copy_desc(es_list[e], 3, ext);
				char what[64];

				/* dst row-major [b][a], src row-major [a][b] */
				d.dst_stride[0] = 1;
				d.dst_stride[1] = odd[a];
				d.dst_stride[2] = (__u64)odd[a] * odd[b];
				d.src_stride[0] = odd[b];
				d.src_stride[1] = 1;
				d.src_stride[2] = (__u64)odd[a] * odd[b] + 3;
				d.src = es_list[e] * (a & 3);
				snprintf(what, sizeof(what), "transpose es=%u %ux%u",
					 es_list[e], odd[a], odd[b]);
				check_descs(be, &d, 1, (unsigned)(a + b) & 7, what);
			}
}
END_TEST

/* RowMajor <-> zN-like: contiguous runs of 1..64 bytes moved as tiles. */
START_TEST(test_runs)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (unsigned run = 1; run <= 64; run = run * 2 + (run == 4)) {
			for (size_t a = 0; a < NODD; a += 2) {
				__u32 ext[3] = { run, odd[a], 37 };
				struct drm_tilecopy_desc d = copy_desc(es_list[e], 3, ext);
				char what[64];

				/* dst: runs consecutive along dim 1 */
				d.dst_stride[0] = 1;
				d.dst_stride[1] = run;
				d.dst_stride[2] = (__u64)run * odd[a];
				/* src: runs consecutive along dim 2 */
				d.src_stride[0] = 1;
				d.src_stride[1] = (__u64)run * 37 + (a & 1);
				d.src_stride[2] = run;
				d.dst = 5;
				snprintf(what, sizeof(what), "runs es=%u run=%u rows=%u",
					 es_list[e], run, odd[a]);
				check_descs(be, &d, 1, 1, what);
			}
		}
}
END_TEST

/*
 * 32-byte runs transposed (RowMajor <-> zN of 32-byte fractal rows), which
 * kernels with @runs_pairs take two by two: both directions, even and odd
 * counts of rows and columns (the last row and column go as plain runs),
 * rows 64 KB apart as zN's blocks of 2048 rows are, one and two threads, on
 * and off the 64-byte lines, outputs under and over the size from which
 * stores are streamed.
 */
static const struct pairs_case {
	__u32 rows, cols;	/* runs: rows along the source's outer dim */
	__u32 gap;		/* bytes added to the source's row pitch */
} pairs_cases[] = {
	{ 2, 2, 0 }, { 3, 2, 0 }, { 2, 3, 0 }, { 3, 3, 32 }, { 16, 33, 0 },
	{ 17, 32, 64 }, { 33, 5, 0 }, { 64, 64, 0 }, { 2048, 6, 0 },
	{ 1023, 33, 0 }, { 6, 2048, 0 },
	/* outputs of 4 MiB or more: streamed (TC_NT_THRESHOLD) */
	{ 2048, 64, 0 }, { 4096, 33, 0 }, { 1025, 130, 32 },
};

static struct drm_tilecopy_desc pairs_desc(unsigned es,
					   const struct pairs_case *q,
					   int to_rows)
{
	unsigned run = 32 / es;
	__u32 ext[3] = { run, q->rows, q->cols };
	struct drm_tilecopy_desc d = copy_desc(es, 3, ext);
	__u64 pitch = (__u64)run * q->cols + q->gap / es;

	d.src_stride[0] = d.dst_stride[0] = 1;
	if (!to_rows) {		/* RowMajor -> zN: rows' runs to column blocks */
		d.src_stride[1] = pitch;
		d.src_stride[2] = run;
		d.dst_stride[1] = run;
		d.dst_stride[2] = (__u64)run * q->rows;
	} else {		/* zN -> RowMajor: column blocks to rows */
		d.src_stride[1] = run;
		d.src_stride[2] = (__u64)run * q->rows;
		d.dst_stride[1] = pitch;
		d.dst_stride[2] = run;
	}
	return d;
}

START_TEST(test_runs_pairs)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	size_t n = sizeof(pairs_cases) / sizeof(pairs_cases[0]);

	if (!be)
		return;
	for (int t = 1; t <= 2; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++)
			for (unsigned v = 0; v < 4; v++) {
				const struct pairs_case *q = &pairs_cases[i];
				unsigned es = es_list[(i + v) % 4];
				struct drm_tilecopy_desc d = pairs_desc(es, q, v & 1);
				char what[112];

				snprintf(what, sizeof(what),
					 "runs pairs es=%u %ux%u gap %u, %s, %s, %d threads",
					 es, q->rows, q->cols, q->gap,
					 v & 1 ? "to rows" : "to blocks",
					 v & 2 ? "off the lines" : "on the lines", t);
				/* v 2, 3: both sides a byte off (no streaming) */
				check_descs(be, &d, 1, v >> 1, what);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* Source stride 0 (broadcast), strided gathers, and FILL of every size. */
START_TEST(test_broadcast_and_fill)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t a = 0; a < NODD; a++) {
			unsigned es = es_list[e];
			__u32 ext[2] = { odd[a], 19 };
			struct drm_tilecopy_desc d[4];
			char what[64];

			d[0] = copy_desc(es, 2, ext);	/* broadcast along dim 0 */
			d[0].src_stride[1] = 3;
			d[0].dst_stride[0] = 1;
			d[0].dst_stride[1] = odd[a] + 2;
			d[1] = copy_desc(es, 2, ext);	/* broadcast along dim 1 */
			d[1].src_stride[0] = 1;
			d[1].dst_stride[0] = 1;
			d[1].dst_stride[1] = odd[a];
			d[1].dst = 7;
			d[2] = copy_desc(es, 2, ext);	/* gather, stride 3 */
			d[2].src_stride[0] = 3;
			d[2].src_stride[1] = 3 * (__u64)odd[a] + 1;
			d[2].dst_stride[0] = 1;
			d[2].dst_stride[1] = odd[a];
			d[3] = copy_desc(es, 2, ext);	/* FILL, strided rows */
			d[3].op = DRM_TILECOPY_OP_FILL;
			d[3].value = (0x8877665544332211ULL ^ (a * 0x0101010101010101ULL)) &
				     (~0ULL >> (64 - 8 * es));
			d[3].dst_stride[0] = 1;
			d[3].dst_stride[1] = odd[a] + 5;
			d[3].dst = 3;
			for (int j = 0; j < 4; j++) {
				snprintf(what, sizeof(what), "case %d es=%u n=%u", j, es, odd[a]);
				check_descs(be, &d[j], 1, (unsigned)a & 3, what);
			}
		}
}
END_TEST

/* A destination that overlaps itself must keep the reference's order. */
START_TEST(test_overlapping_dst)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	__u32 ext[3] = { 17, 9, 5 };
	struct drm_tilecopy_desc d = copy_desc(4, 3, ext);

	if (!be)
		return;
	d.src_stride[0] = 9;	/* looks like a transpose ... */
	d.src_stride[1] = 1;
	d.src_stride[2] = 200;
	d.dst_stride[0] = 1;	/* ... but rows overlap in the destination */
	d.dst_stride[1] = 8;
	d.dst_stride[2] = 0;
	check_descs(be, &d, 1, 1, "overlapping transpose");
	d.src_stride[0] = 1;
	d.src_stride[1] = 17;
	d.dst_stride[1] = 16;	/* overlapping runs */
	check_descs(be, &d, 1, 2, "overlapping runs");
}
END_TEST

/* Outputs above the non-temporal threshold, misaligned, and threads. */
START_TEST(test_large)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	unsigned n = quick() ? 300 : 1100;
	__u32 ext1[1] = { 5u << 20 };
	__u32 ext2[2] = { n, n + 3 };
	__u32 ext3[3] = { 16, 4096, quick() ? 2 : 20 };
	struct drm_tilecopy_desc d[4];

	if (!be)
		return;
	if (quick())
		ext1[0] = 1u << 20;
	d[0] = copy_desc(1, 1, ext1);
	d[0].src_stride[0] = d[0].dst_stride[0] = 1;
	d[0].src = 1;
	d[0].dst = 3;
	d[1] = d[0];
	d[1].op = DRM_TILECOPY_OP_FILL;
	d[1].elem_size = 4;
	d[1].extent[0] = ext1[0] / 4;
	d[1].src = 0;
	d[1].src_stride[0] = 0;
	d[1].dst = 5;
	d[1].value = 0xdeadbeef;
	d[2] = copy_desc(4, 2, ext2);		/* f32 transpose */
	d[2].src_stride[0] = ext2[1];
	d[2].src_stride[1] = 1;
	d[2].dst_stride[0] = 1;
	d[2].dst_stride[1] = ext2[0];
	d[3] = copy_desc(4, 3, ext3);		/* nChw16c -> NCHW-like */
	d[3].src_stride[0] = 1;
	d[3].src_stride[1] = 16;
	d[3].src_stride[2] = 16 * 4096;
	d[3].dst_stride[0] = 4096;
	d[3].dst_stride[1] = 1;
	d[3].dst_stride[2] = 16 * 4096;
	for (int t = 0; t < 2; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t ? 2 : 1));
		check_descs(be, &d[0], 1, 0, "large copy");
		check_descs(be, &d[1], 1, 1, "large fill");
		check_descs(be, &d[2], 1, 1, "large transpose");
		check_descs(be, &d[3], 1, 0, "large blocked transpose");
		check_descs(be, d, 4, 1, "all four in one list");
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* ---- few rows, whole fractals, L1 staging, fused padding -------------- */

/*
 * Transposes of few rows (C = 1..15 images to NHWC; rows * es < 64 runs a
 * permute program on AVX-512 VBMI, a pshufb program on AVX2, structure
 * stores or a tbl program on NEON): every row
 * count up to one past the limit, column counts around the program's
 * period, destination rows dense and with a gap that must stay untouched.
 */
START_TEST(test_few_rows)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 cols_q[] = { 1, 17, 48, 49, 333 };
	static const __u32 cols_f[] = { 1, 2, 15, 16, 17, 31, 47, 48, 49, 64, 100, 333, 1027 };
	const __u32 *cols = quick() ? cols_q : cols_f;
	size_t ncols = quick() ? sizeof(cols_q) / sizeof(cols_q[0]) :
				 sizeof(cols_f) / sizeof(cols_f[0]);

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++) {
		unsigned es = es_list[e];

		for (unsigned rows = 1; rows <= 64 / es + 1; rows++)
			for (size_t c = 0; c < ncols; c++)
				for (unsigned gap = 0; gap <= 3; gap += 3) {
					__u32 ext[3] = { rows, cols[c], 2 };
					struct drm_tilecopy_desc d = copy_desc(es, 3, ext);
					__u64 line = rows + gap;
					char what[80];

					if (quick() && rows > 9 && rows % 4)
						continue;
					d.src_stride[0] = cols[c] + 1;
					d.src_stride[1] = 1;
					d.src_stride[2] = (__u64)rows * (cols[c] + 1);
					d.dst_stride[0] = 1;
					d.dst_stride[1] = line;
					d.dst_stride[2] = line * cols[c] + 1;
					d.src = es * (rows & 1);
					d.dst = es * (cols[c] & 3);
					snprintf(what, sizeof(what), "few rows es=%u %ux%u gap=%u",
						 es, rows, cols[c], gap);
					check_descs(be, &d, 1, (rows + (unsigned)c) & 7, what);
				}
	}
	/*
	 * Outputs of 4 MiB and more are streamed (TC_NT_THRESHOLD): dense
	 * rows of R <= 4 (the kernels with their tables in registers) and
	 * of 5, an odd column count so the last span and the tail run too,
	 * the destination aligned (streaming stores) and not.
	 */
	for (size_t e = 0; e < 4; e += 3) {
		unsigned es = es_list[e];

		for (unsigned rows = 3; rows <= 5; rows += 2)
			for (unsigned mis = 0; mis < 2; mis++) {
				__u32 n = (__u32)((4u << 20) / (rows * es) + 37);
				__u32 ext[2] = { rows, n };
				struct drm_tilecopy_desc d = copy_desc(es, 2, ext);
				char what[80];

				d.src_stride[0] = n, d.src_stride[1] = 1;
				d.dst_stride[0] = 1, d.dst_stride[1] = rows;
				d.dst = mis * es;
				snprintf(what, sizeof(what), "few rows, streamed, es=%u %ux%u dst+%u",
					 es, rows, n, mis * es);
				check_descs(be, &d, 1, 0, what);
			}
	}
}
END_TEST

/*
 * zN <-> nZ: fractals of B x B elements (B = 32 / es) contiguous on both
 * sides, the fractal grid transposed as well (the planner's descriptor);
 * 8- and 16-bit run the whole-fractal kernels, 32/64-bit the tiles. The
 * last grid is streamed (4 MiB and more for 8- and 16-bit) and goes in
 * 4 KB destination bursts (pattern.c, TC_OUTER_RUN): blocks of 64 x 4-8
 * fractals with partial ones along both dims.
 */
START_TEST(test_fractal)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 grid[][2] = { { 1, 1 }, { 3, 5 }, { 7, 2 }, { 67, 131 } };

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t g = 0; g < 4; g++)
			for (int dir = 0; dir < 2; dir++) {
				unsigned es = es_list[e], B = 32 / es;
				__u32 f1 = grid[g][0], f2 = grid[g][1];
				__u32 ext[4] = { B, B, f1, f2 };
				struct drm_tilecopy_desc d = copy_desc(es, 4, ext);
				char what[64];

				/* zN -> nZ, or its inverse with the roles swapped */
				__u64 *in = dir ? d.dst_stride : d.src_stride;
				__u64 *out = dir ? d.src_stride : d.dst_stride;

				in[0] = B, in[1] = 1, in[2] = (__u64)B * B * f2, in[3] = (__u64)B * B;
				out[0] = 1, out[1] = B, out[2] = (__u64)B * B, out[3] = (__u64)B * B * f1;
				for (unsigned mis = 0; mis < 64; mis += 21) {
					d.src = mis & 1 ? es : 0;
					snprintf(what, sizeof(what), "fractal es=%u grid %ux%u dir %d",
						 es, f1, f2, dir);
					check_descs(be, &d, 1, mis, what);
				}
			}
	/* B x B blocks with 32-byte rows on one side only: not fractals */
	for (unsigned es = 1; es <= 2; es++)
		for (unsigned p = 2; p <= 4; p++)
			for (int dir = 0; dir < 2; dir++) {
				unsigned B = 32 / es, P = p * B;
				__u32 ext[3] = { B, B, 5 };
				struct drm_tilecopy_desc d = copy_desc(es, 3, ext);
				__u64 *in = dir ? d.dst_stride : d.src_stride;
				__u64 *out = dir ? d.src_stride : d.dst_stride;
				char what[64];

				in[0] = 1, in[1] = B, in[2] = (__u64)B * B;
				out[0] = P, out[1] = 1, out[2] = (__u64)P * B;
				snprintf(what, sizeof(what), "one-sided es=%u pitch %u dir %d",
					 es, P, dir);
				check_descs(be, &d, 1, 0, what);
			}
}
END_TEST

/*
 * Source rows 4 KB x k apart (8192^2 u8, 4096^2 f32: every row on one L1
 * set): rows and columns that are and are not multiples of the tiles.
 */
START_TEST(test_staged)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 rows_list[] = { 16, 64, 130 };
	static const __u32 cols_list[] = { 7, 32, 100, 300 };

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t r = 0; r < 3; r++)
			for (size_t c = 0; c < 4; c++) {
				unsigned es = es_list[e];
				__u32 ext[2] = { rows_list[r], cols_list[c] };
				struct drm_tilecopy_desc d = copy_desc(es, 2, ext);
				char what[64];

				if (quick() && r == 2 && c > 1)
					continue;
				d.src_stride[0] = (4096u << (c & 1)) / es;
				d.src_stride[1] = 1;
				d.dst_stride[0] = 1;
				d.dst_stride[1] = rows_list[r] + (c == 3);
				snprintf(what, sizeof(what), "staged es=%u %ux%u",
					 es, rows_list[r], cols_list[c]);
				check_descs(be, &d, 1, (unsigned)(r + c) & 7, what);
			}
	/*
	 * Outputs of 4 MiB and more, destination rows whole lines apart:
	 * 8- and 16-bit tiles fill each line in a staging buffer and stream
	 * it (a line written in parts by streaming stores is a partial
	 * write); rows and columns past the bands, the destination aligned
	 * and not.
	 */
	for (size_t e = 0; e < 2; e++)
		for (unsigned mis = 0; mis < 2; mis++) {
			unsigned es = es_list[e];
			__u32 ext[2] = { 2048 + 40, (4u << 20) / (2048 * es) + 5 };
			struct drm_tilecopy_desc d = copy_desc(es, 2, ext);
			char what[64];

			d.src_stride[0] = ext[1] + 3;
			d.src_stride[1] = 1;
			d.dst_stride[0] = 1;
			d.dst_stride[1] = 2112;
			snprintf(what, sizeof(what), "staged lines es=%u %ux%u",
				 es, ext[0], ext[1]);
			check_descs(be, &d, 1, mis, what);
		}
}
END_TEST

/*
 * Macro tiles (TC_DEFINE_MACRO_TILES, streamed outputs of 4 MiB and more
 * into 32 or more destination rows 1 KiB or more apart), and the line
 * groups where they do not apply.
 *
 * NHWC -> NCHW: channels (the destination rows) at, below and past the
 * threshold (31, 32, 33, 64, 100: column edges past the last tile),
 * pixels past the last macro tile, planes whole lines apart (macro
 * tiles) and not, the destination aligned and not, a broadcast source
 * (one pixel's channels, stride 0; the runs this replaced once divided by
 * it); one thread and two; every element size.
 */
START_TEST(test_macro_nhwc_nchw)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 c_list[] = { 32, 64, 33, 31, 100 };
	size_t nc = quick() ? 2 : 5;

	if (!be)
		return;
	for (int t = 0; t < (quick() ? 1 : 2); t++) {
		ck_assert(!tilecopy_cpu_set_threads(t + 1));
		for (size_t e = 0; e < 4; e++)
			for (size_t c = 0; c < nc; c++)
				for (unsigned v = 0; v < 4; v++) {
					unsigned es = es_list[e];
					__u32 ch = c_list[c];
					__u32 hw = (__u32)((4u << 20) / ((size_t)ch * es)) + 37;
					__u32 ext[2] = { hw, ch };
					struct drm_tilecopy_desc d = copy_desc(es, 2, ext);
					unsigned mis = v == 2 ? es / 2 + 1 : 0;
					char what[64];

					/* v 3: one pixel's channels broadcast (stride 0) */
					d.src_stride[0] = v == 3 ? 0 : ch;
					d.src_stride[1] = 1;
					d.dst_stride[0] = 1;
					/* v 0, 3: planes whole lines apart; 1, 2: not */
					d.dst_stride[1] = v == 1 || v == 2 ? hw : (hw + 64) / 64 * 64;
					snprintf(what, sizeof(what), "nhwc-nchw es=%u C=%u HW=%u v%u, %d thr",
						 es, ch, hw, v, t + 1);
					check_descs(be, &d, 1, mis, what);
				}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * NCHW -> NHWC of many channels (256x1024x7x7): destination rows of C
 * elements, 1 KiB and more apart. Channels a multiple of a macro tile's
 * rows (1024) and not (1000, 600: rows left to the line groups), pixels
 * under one macro tile's columns with an edge (49), past one by 2 (130:
 * an edge, or for 8-byte elements one register tile) and by a partial
 * one (300); destination rows packed, padded to whole lines (v 1: with
 * the source an element off its lines; v 3: the destination, so no macro
 * tiles), and padded off the lines (v 2, no macro tiles); one thread and
 * two.
 */
START_TEST(test_macro_nchw_nhwc)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 c_list[] = { 1024, 1000, 600 };
	static const __u32 p_list[] = { 49, 130, 300 };

	if (!be)
		return;
	for (int t = 0; t < (quick() ? 1 : 2); t++) {
		ck_assert(!tilecopy_cpu_set_threads(t + 1));
		for (size_t e = 0; e < 4; e++)
			for (size_t c = 0; c < 3; c++)
				for (size_t p = 0; p < 3; p++)
					for (unsigned v = 0; v < 4; v++) {
						unsigned es = es_list[e];
						__u32 ch = c_list[c], px = p_list[p];
						__u32 pitch = v == 0 ? ch : v == 2 ? ch + 1 :
							(ch + 64 / es) / (64 / es) * (64 / es);
						__u32 n = (__u32)((4u << 20) / ((size_t)ch * px * es)) + 1;
						__u32 ext[3] = { ch, px, n };
						struct drm_tilecopy_desc d = copy_desc(es, 3, ext);
						unsigned mis = v == 2 ? 3 : 0;
						char what[80];

						if (quick() && (p == 1 || c == 2 || v == 3))
							continue;
						d.src = v == 1 ? es : 0;	/* source off its lines */
						d.dst = v == 3 ? es : 0;	/* destination off them */
						d.src_stride[0] = px;
						d.src_stride[1] = 1;
						d.src_stride[2] = (__u64)ch * px;
						d.dst_stride[0] = 1;
						d.dst_stride[1] = pitch;
						d.dst_stride[2] = (__u64)pitch * px;
						snprintf(what, sizeof(what),
							 "nchw-nhwc es=%u %ux%ux%u pitch %u, %d thr",
							 es, n, ch, px, pitch, t + 1);
						check_descs(be, &d, 1, mis, what);
					}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * NCHW -> NHWC of few channels, streamed: destination rows of 64-256
 * bytes. Where a row is 128 or 256 bytes, packed and on its lines,
 * the staged line groups (8- and 16-bit, 128 or 256 bytes) write it whole
 * (TC_GROUPS); padded rows (v 1) and rows off their lines (v 2) keep
 * 64-byte groups or plain tiles.
 * Pixels with an edge (3141 = 64 x 49 + 5 for 16-bit) and without.
 */
START_TEST(test_group_rows)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4 };
	static const __u32 row_bytes[] = { 64, 128, 192, 256 };
	static const __u32 p_list[] = { 3141, 3136 };

	if (!be)
		return;
	for (int t = 0; t < (quick() ? 1 : 2); t++) {
		ck_assert(!tilecopy_cpu_set_threads(t + 1));
		for (size_t e = 0; e < 3; e++)
			for (size_t b = 0; b < 4; b++)
				for (size_t p = 0; p < 2; p++)
					for (unsigned v = 0; v < 3; v++) {
						unsigned es = es_list[e];
						__u32 ch = row_bytes[b] / es - (v == 1), px = p_list[p];
						__u32 pitch = row_bytes[b] / es;
						__u32 n = (__u32)((4u << 20) / ((size_t)pitch * px * es)) + 1;
						__u32 ext[3] = { px, ch, n };
						struct drm_tilecopy_desc d = copy_desc(es, 3, ext);
						char what[80];

						if (quick() && (p == 1 || v == 2))
							continue;
						d.src_stride[0] = 1;
						d.src_stride[1] = px;
						d.src_stride[2] = (__u64)ch * px;
						d.dst_stride[0] = pitch;
						d.dst_stride[1] = 1;
						d.dst_stride[2] = (__u64)pitch * px;
						snprintf(what, sizeof(what),
							 "group rows es=%u %ux%ux%u pitch %u v%u, %d thr",
							 es, n, ch, px, pitch, v, t + 1);
						check_descs(be, &d, 1, v == 2 ? es : 0, what);
					}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * Short columns that continue at the source in another dim, as OIhw ->
 * OIhw16i16o (rows o0, columns hw continuing in i0, the batch i1 x o1):
 * staged through a buffer (tc_cols_point). Destinations [K][M][R] (runs
 * along M) and [M][K + 1][R] (runs along K, a gap so that M and K do not
 * merge); rows past one staged block (TC_COLS_LINE / es); M past one pass
 * of the buffer; outputs large enough to be split over threads and to be
 * streamed. Each also mirrored (source and destination strides swapped:
 * OIhw16i16o -> OIhw, short rows continuing at the destination,
 * tc_rows_point).
 */
static void check_both_ways(const struct tc_cpu_backend *be,
			    struct drm_tilecopy_desc d, unsigned mis,
			    const char *what)
{
	char mirrored[96];
	__u64 t[DRM_TILECOPY_MAX_DIMS];

	check_descs(be, &d, 1, mis, what);
	memcpy(t, d.src_stride, sizeof(t));
	memcpy(d.src_stride, d.dst_stride, sizeof(t));
	memcpy(d.dst_stride, t, sizeof(t));
	snprintf(mirrored, sizeof(mirrored), "%s, mirrored", what);
	check_descs(be, &d, 1, mis, mirrored);
}

static struct drm_tilecopy_desc cols_desc(unsigned es, __u32 r, __u32 m, __u32 k,
					  __u32 outer, int runs_along_k)
{
	__u32 ext[4] = { r, m, k, outer };
	struct drm_tilecopy_desc d = copy_desc(es, 4, ext);

	d.src_stride[0] = (__u64)m * k + 3;	/* o0: rows, a gap after each */
	d.src_stride[1] = k;			/* i0: continues hw */
	d.src_stride[2] = 1;			/* hw: the columns */
	d.src_stride[3] = (__u64)r * d.src_stride[0];
	d.dst_stride[0] = 1;
	if (runs_along_k) {
		d.dst_stride[2] = r;
		d.dst_stride[1] = (__u64)(k + 1) * r;
		d.dst_stride[3] = (__u64)m * d.dst_stride[1];
	} else {
		d.dst_stride[1] = r;
		d.dst_stride[2] = (__u64)m * r;
		d.dst_stride[3] = (__u64)k * m * r;
	}
	return d;
}

START_TEST(test_staged_cols)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const __u32 rows_list[] = { 16, 17, 300 };
	static const __u32 m_list[] = { 2, 16, 33 };
	static const __u32 k_list[] = { 3, 7, 9, 15 };
	char what[80];

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t r = 0; r < 3; r++)
			for (size_t m = 0; m < 3; m++)
				for (size_t k = 0; k < 4; k++) {
					unsigned es = es_list[e];
					int along = (int)((r + m + k) & 1);
					struct drm_tilecopy_desc d;

					if (k_list[k] * es >= 64 || rows_list[r] * es < 16)
						continue;
					d = cols_desc(es, rows_list[r], m_list[m], k_list[k], 3, along);
					snprintf(what, sizeof(what), "staged cols es=%u %ux%ux%u%s",
						 es, rows_list[r], m_list[m], k_list[k],
						 along ? " runs along k" : "");
					check_both_ways(be, d, (unsigned)(r + m + k) & 7, what);
				}
	/*
	 * Runs of u elements moved as one wider element (u x es <= 8): every
	 * stride times u, a contiguous dim of u in front.
	 */
	for (unsigned u = 2; u <= 4; u += 2)
		for (size_t k = 0; k < 4; k++) {
			struct drm_tilecopy_desc d = cols_desc(2, 16, 16, k_list[k], 2,
							       (int)(k & 1));

			for (int j = d.ndims; j > 0; j--) {
				d.extent[j] = d.extent[j - 1];
				d.src_stride[j] = d.src_stride[j - 1] * u;
				d.dst_stride[j] = d.dst_stride[j - 1] * u;
			}
			d.extent[0] = u;
			d.src_stride[0] = d.dst_stride[0] = 1;
			d.ndims++;
			snprintf(what, sizeof(what), "staged cols runs of %u x 2 bytes 16x16x%u",
				 u, k_list[k]);
			check_both_ways(be, d, (unsigned)k, what);
		}
	/*
	 * The planner's OIhw -> OIhw16i16o f32, 256^2 x 3 x 3 (split over
	 * threads) and 512^2 x 3 x 3 (streamed): o0, i0, hw, i1, o1.
	 */
	for (unsigned big = 0; big < 2; big++)
		for (unsigned mis = 0; mis < 2; mis++) {
			__u32 oi = 256u << big, ext[5] = { 16, 16, 9, oi / 16, oi / 16 };
			struct drm_tilecopy_desc d = copy_desc(4, 5, ext);
			const __u64 ss[5] = { oi * 9ull, 9, 1, 144, 144ull * oi };
			const __u64 ds[5] = { 1, 16, 256, 2304, 144ull * oi };

			memcpy(d.src_stride, ss, sizeof(ss));
			memcpy(d.dst_stride, ds, sizeof(ds));
			snprintf(what, sizeof(what), "OIhw -> OIhw16i16o %ux%ux3x3", oi, oi);
			check_both_ways(be, d, mis * 4, what);
		}
}
END_TEST

/*
 * NCHW -> nChw16c-like with C = 16 + k: FILL (the tail of block 1), COPY
 * (block 0), COPY (the k channels of block 1), as the planner lists them:
 * the FILL runs fused with the last COPY. @x, if set, is inserted after
 * the FILL.
 */
static size_t padded_list(struct drm_tilecopy_desc *d, unsigned es, unsigned k,
			  __u32 hw, __u32 n, __u64 value,
			  const struct drm_tilecopy_desc *x)
{
	const unsigned w = 16, c = 16 + k;
	__u32 e_fill[3] = { w - k, hw, n }, e_full[3] = { w, hw, n };
	size_t m = 0;

	d[m] = copy_desc(es, 3, e_fill);
	d[m].op = DRM_TILECOPY_OP_FILL;
	d[m].value = value;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = w, d[m].dst_stride[2] = 2ull * hw * w;
	d[m].dst = ((__u64)hw * w + k) * es;
	m++;
	if (x)
		d[m++] = *x;
	d[m] = copy_desc(es, 3, e_full);
	d[m].src_stride[0] = hw, d[m].src_stride[1] = 1, d[m].src_stride[2] = (__u64)c * hw;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = w, d[m].dst_stride[2] = 2ull * hw * w;
	m++;
	d[m] = d[m - 1];
	d[m].extent[0] = k;
	d[m].src = 16ull * hw * es;
	d[m].dst = (__u64)hw * w * es;
	return m + 1;
}

START_TEST(test_fused_padding)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const unsigned k_list[] = { 1, 3, 4, 15 };
	struct drm_tilecopy_desc d[5], x;

	if (!be)
		return;
	for (size_t e = 0; e < 4; e++)
		for (size_t kk = 0; kk < 4; kk++) {
			unsigned es = es_list[e], k = k_list[kk];
			/* a FILL value has no bits above its element (the uAPI rule) */
			__u64 v = kk & 1 ? 0 : 0x8877665544332211ULL & (~0ull >> (64 - 8 * es));
			__u32 hw = kk == 3 ? 3136 : 25;
			char what[80];
			size_t n = padded_list(d, es, k, hw, 2, v, NULL);

			snprintf(what, sizeof(what), "padded es=%u k=%u hw=%u", es, k, hw);
			check_descs(be, d, n, (unsigned)(e + kk) & 7, what);

			/* a COPY between them that writes into the padded rows
			 * (three rows into block 1): no fusion, reference order */
			x = d[1];
			x.dst = ((__u64)hw * 16 + 3 * 16) * es;
			x.extent[1] = hw - 3;
			n = padded_list(d, es, k, hw, 2, v, &x);
			snprintf(what, sizeof(what), "padded, overlapped es=%u k=%u", es, k);
			check_descs(be, d, n, 3, what);

			/* one that writes other rows only (block 0 again) */
			x = d[2];
			n = padded_list(d, es, k, hw, 2, v, &x);
			snprintf(what, sizeof(what), "padded, disjoint es=%u k=%u", es, k);
			check_descs(be, d, n, 5, what);

			/* a WRITE64 between them */
			memset(&x, 0, sizeof(x));
			x.op = DRM_TILECOPY_OP_WRITE64;
			x.elem_size = 8;
			x.ndims = 1;
			x.extent[0] = 1;
			x.dst = (__u64)hw * 16 * es + 8;
			x.value = 0x0123456789abcdefULL;
			n = padded_list(d, es, k, hw, 2, v, &x);
			snprintf(what, sizeof(what), "padded, write64 es=%u k=%u", es, k);
			check_descs(be, d, n, 6, what);
		}
	/* large: the fused rows streamed (NT) */
	for (size_t e = 0; e < 4; e += quick() ? 2 : 1) {
		size_t n = padded_list(d, es_list[e], 4, quick() ? 20000 : 66000, 2, 0, NULL);

		/* aligned (streamed: AVX2 needs 16, AVX-512 64) and not */
		check_descs(be, d, n, 0, "padded, large");
		check_descs(be, d, n, 1, "padded, large");
	}
}
END_TEST

/*
 * NCHW -> NC1HWC0 / nChw16c with C = 3 as the planner lists it, from byte
 * @base of the destination: a FILL of the 13 padding elements of every
 * 16-element row, its N x HW rows one merged dim, then the COPY of the 3
 * channels, its rows two dims (HW, N: the source does not chain), fused
 * all the same. A WRITE64 two row blocks on, so that the bytes past the
 * last row (and past a FILL or @x that reaches further) are compared.
 * @x, if set, goes between the FILL and the COPY.
 */
#define PL_HW	25u
#define PL_NB	3u
#define PL_C	3u
#define PL_W	16u
#define PL_ROWS	(PL_NB * PL_HW)

static size_t planner_padded(struct drm_tilecopy_desc *p, unsigned es, __u64 base,
			     const struct drm_tilecopy_desc *x)
{
	size_t m = 0;

	memset(&p[m], 0, sizeof(p[m]));
	p[m].op = DRM_TILECOPY_OP_FILL;
	p[m].elem_size = (__u8)es;
	p[m].ndims = 2;
	p[m].dst = base + (__u64)PL_C * es;
	/* a FILL value has no bits above its element (the uAPI rule) */
	p[m].value = 0x5a5a5a5a5a5a5a5aULL & (~0ULL >> (64 - 8 * es));
	p[m].extent[0] = PL_W - PL_C;
	p[m].extent[1] = PL_ROWS;
	p[m].dst_stride[0] = 1;
	p[m].dst_stride[1] = PL_W;
	m++;
	if (x)
		p[m++] = *x;
	p[m] = copy_desc(es, 3, (__u32[3]){ PL_C, PL_HW, PL_NB });
	p[m].src_stride[0] = PL_HW, p[m].src_stride[1] = 1;
	p[m].src_stride[2] = (__u64)PL_C * PL_HW;
	p[m].dst_stride[0] = 1, p[m].dst_stride[1] = PL_W;
	p[m].dst_stride[2] = (__u64)PL_W * PL_HW;
	p[m].dst = base;
	m++;
	memset(&p[m], 0, sizeof(p[m]));
	p[m].op = DRM_TILECOPY_OP_WRITE64;
	p[m].elem_size = 8;
	p[m].ndims = 1;
	p[m].extent[0] = 1;
	p[m].dst = base + 2ull * PL_ROWS * PL_W * es + 64;
	p[m].value = 0x0123456789abcdefULL;
	return m + 1;
}

/*
 * The planner's C = 3 pair, every element size (1: the 16-output program;
 * 8: rows of 128 bytes, the tiles with the pattern after them) at four
 * misalignments. FILLs that are not the COPY's rows are not fused and the
 * bytes must still match: one row fewer; rows 2w apart, half as many; as
 * many rows, w + 1 apart.
 */
START_TEST(test_fused_planner)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned mis_list[] = { 0, 1, 5, 8 };
	struct drm_tilecopy_desc p[4];
	char what[80];

	if (!be)
		return;
	for (unsigned es = 1; es <= 8; es *= 2)
		for (int variant = 0; variant < 4; variant++)
			for (size_t mi = 0; mi < 4; mi++) {
				size_t n = planner_padded(p, es, 0, NULL);

				if (variant == 1)
					p[0].extent[1] = PL_ROWS - 1;
				if (variant == 2)
					p[0].extent[1] = PL_ROWS / 2, p[0].dst_stride[1] = 2 * PL_W;
				if (variant == 3)
					p[0].dst_stride[1] = PL_W + 1;
				snprintf(what, sizeof(what), "padded, planner's dims es=%u variant %d",
					 es, variant);
				check_descs(be, p, n, mis_list[mi], what);
			}
}
END_TEST

/*
 * A descriptor between the FILL and the COPY (tc_fuse_find): the pair
 * runs fused, at the FILL's place, only if it writes rows of the COPY's
 * shape, none of the pair's. Its raw dims unlike both (4 dims, or 2)
 * where its rows, merged, are the COPY's: in the next row block (fused),
 * or two rows on, over the COPY's elements (not fused: the COPY must
 * overwrite it). Rows 2w apart from one row block before the pair: the
 * COPY's rows shifted by a block would be disjoint, but they are not its
 * rows and half of them fall on the pair's (not fused).
 */
START_TEST(test_fused_between)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	struct drm_tilecopy_desc p[4], x;
	char what[80];

	if (!be)
		return;
	for (unsigned es = 1; es <= 8; es *= 2)
		for (int variant = 0; variant < 3; variant++) {
			__u64 block = (__u64)PL_ROWS * PL_W * es, base = 0;
			size_t n;

			if (variant < 2) {
				x = copy_desc(es, 4, (__u32[4]){ PL_C, 5, 5, PL_NB });
				x.src_stride[0] = 1, x.src_stride[1] = PL_C;
				x.src_stride[2] = 5 * PL_C, x.src_stride[3] = 25 * PL_C;
				x.dst_stride[0] = 1, x.dst_stride[1] = PL_W;
				x.dst_stride[2] = 5 * PL_W, x.dst_stride[3] = 25 * PL_W;
				x.dst = variant == 0 ? block : 2 * PL_W * es;
			} else {
				x = copy_desc(es, 2, (__u32[2]){ PL_C, PL_ROWS });
				x.src_stride[0] = 1, x.src_stride[1] = PL_C;
				x.dst_stride[0] = 1, x.dst_stride[1] = 2 * PL_W;
				base = block;
			}
			/* other source bytes than the COPY's */
			x.src = 256ull * es;
			n = planner_padded(p, es, base, &x);
			snprintf(what, sizeof(what), "padded, between es=%u variant %d",
				 es, variant);
			check_descs(be, p, n, (unsigned)variant * 3, what);
		}
}
END_TEST

/* ---- threads -------------------------------------------------------------- */

/* Descriptors of 256 KB and more of every kind the split knows. */
static size_t thread_descs(struct drm_tilecopy_desc *d)
{
	__u32 e1[2] = { 3, 50176 }, e2[3] = { 64, 1000, 3 }, e3[2] = { 700, 601 };
	__u32 e4[3] = { 16, 512, 32 }, e5[1] = { 300001 }, e6[1] = { 1u << 19 };
	__u32 e7[2] = { 1024, 640 };
	size_t m = 0;

	d[m] = copy_desc(4, 2, e1);		/* few rows: C = 3 image */
	d[m].src_stride[0] = 50176, d[m].src_stride[1] = 1;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = 3;
	m++;
	d[m] = copy_desc(4, 3, e2);		/* transpose, outer dim of 3 */
	d[m].src_stride[0] = 1000, d[m].src_stride[1] = 1, d[m].src_stride[2] = 64000;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = 64, d[m].dst_stride[2] = 64000;
	m++;
	d[m] = copy_desc(1, 2, e3);		/* 2-D u8 transpose, odd sizes */
	d[m].src_stride[0] = 601, d[m].src_stride[1] = 1;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = 700;
	m++;
	d[m] = copy_desc(2, 3, e4);		/* RowMajor -> zN runs */
	d[m].src_stride[0] = 1, d[m].src_stride[1] = 512, d[m].src_stride[2] = 16;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = 16, d[m].dst_stride[2] = 8192;
	m++;
	d[m] = copy_desc(1, 1, e5);		/* contiguous */
	d[m].src_stride[0] = d[m].dst_stride[0] = 1;
	d[m].src = 3, d[m].dst = 5;
	m++;
	d[m] = copy_desc(2, 1, e6);		/* fill */
	d[m].op = DRM_TILECOPY_OP_FILL;
	d[m].dst_stride[0] = 1;
	d[m].value = 0xbeef;
	m++;
	d[m] = copy_desc(4, 2, e7);		/* 2.6 MB: wakes sleeping workers */
	d[m].src_stride[0] = 640, d[m].src_stride[1] = 1;
	d[m].dst_stride[0] = 1, d[m].dst_stride[1] = 1024;
	m++;
	return m;
}

START_TEST(test_threads)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned nthr[] = { 2, 3, 7 };
	static const int list[] = { 0, 1, 0, 1, 5 };
	struct drm_tilecopy_desc d[12];
	size_t n = thread_descs(d);

	if (!be)
		return;
	for (int aff = 0; aff < 3; aff++) {
		if (aff == 0)
			ck_assert(!tilecopy_cpu_set_affinity(NULL, -1));
		else if (aff == 1)
			ck_assert(!tilecopy_cpu_set_affinity(NULL, 0));
		else	/* CPU 5 may not exist: that worker runs unpinned */
			ck_assert(!tilecopy_cpu_set_affinity(list, 5));
		for (size_t t = 0; t < 3; t++) {
			char what[64];

			if (quick() && t == 1)
				continue;
			ck_assert(!tilecopy_cpu_set_threads((int)nthr[t]));
			for (size_t j = 0; j < n; j++) {
				snprintf(what, sizeof(what), "%u threads, aff %d, desc %zu",
					 nthr[t], aff, j);
				check_descs(be, &d[j], 1, (unsigned)j & 7, what);
			}
			n = padded_list(d, 4, 4, 3136, 4, 0, NULL);
			check_descs(be, d, n, 1, "threads, fused padding");
			n = thread_descs(d);
		}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
	ck_assert(!tilecopy_cpu_set_affinity(NULL, -1));
}
END_TEST

/*
 * The pool under irregular calls: pauses of 0..300 us between jobs leave
 * workers spinning, asleep, or waking while their caller takes their part
 * back; every result must still be exact.
 */
START_TEST(test_pool_stress)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	struct drm_tilecopy_desc d[12];
	size_t n = thread_descs(d), ssz = 4u << 20, dsz = 4u << 20;
	unsigned char *s = malloc(ssz), *r = malloc(dsz), *o = malloc(dsz);
	int rounds = quick() ? 40 : 300;

	if (!be) {
		free(s), free(r), free(o);
		return;
	}
	ck_assert(s && r && o);
	rng_state = 0xfeedULL + (uint64_t)_i;
	fill_noise(s, ssz, 3);
	for (int i = 0; i < rounds; i++) {
		size_t j = rnd_below((unsigned)n);

		ck_assert(!tilecopy_cpu_set_threads(2 + (int)rnd_below(2)));
		if (i % 50 == 25)
			ck_assert(!tilecopy_cpu_set_affinity(NULL, i % 100 == 25 ? 0 : -1));
		memset(r, 0x5a, dsz);
		memset(o, 0x5a, dsz);
		tc_exec_scalar(&d[j], 1, s, r);
		usleep(rnd_below(300));
		ck_assert_int_eq(be->exec(&d[j], 1, s, o), 0);
		ck_assert_msg(!memcmp(r, o, dsz), "%s: round %d, desc %zu differs", be->name, i, j);
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
	ck_assert(!tilecopy_cpu_set_affinity(NULL, -1));
	free(s);
	free(r);
	free(o);
}
END_TEST

/* Several application threads at once: one holds the pool, the others
 * run on their own; all results exact. */
struct conc_arg {
	const struct tc_cpu_backend *be;
	int bad;
};

static void *conc_thread(void *p)
{
	struct conc_arg *a = p;
	struct drm_tilecopy_desc d[12];
	size_t n = thread_descs(d);
	size_t ssz = 4u << 20, dsz = 4u << 20;
	unsigned char *s = malloc(ssz), *r = malloc(dsz), *o = malloc(dsz);

	if (!s || !r || !o) {
		a->bad = 1;
		goto out;
	}
	fill_noise(s, ssz, 7);
	for (int rep = 0; rep < (quick() ? 2 : 6); rep++)
		for (size_t j = 0; j < n; j++) {
			memset(r, 0x5a, dsz);
			memset(o, 0x5a, dsz);
			tc_exec_scalar(&d[j], 1, s, r);
			a->be->exec(&d[j], 1, s, o);
			a->bad |= memcmp(r, o, dsz) != 0;
		}
out:
	free(s);
	free(r);
	free(o);
	return NULL;
}

START_TEST(test_concurrent_callers)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	struct conc_arg a[4];
	pthread_t tid[4];

	if (!be)
		return;
	ck_assert(!tilecopy_cpu_set_threads(2));
	for (int i = 0; i < 4; i++) {
		a[i] = (struct conc_arg){ .be = be };
		ck_assert_int_eq(pthread_create(&tid[i], NULL, conc_thread, &a[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(tid[i], NULL);
		ck_assert_msg(!a[i].bad, "%s: caller %d got a wrong result", be->name, i);
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* After fork() the child has no workers: its first call makes new ones. */
START_TEST(test_fork)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	struct drm_tilecopy_desc d[12];
	int status = 0;
	pid_t pid;

	if (!be)
		return;
	thread_descs(d);
	ck_assert(!tilecopy_cpu_set_threads(2));
	check_descs(be, &d[1], 1, 0, "before fork");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct conc_arg a = { .be = be };

		alarm(60);	/* a child stuck waiting for a lost worker fails */
		conc_thread(&a);
		_exit(a.bad ? 1 : 0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s: child after fork: status %#x", be->name, status);
	check_descs(be, &d[1], 1, 0, "after fork");
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* The public thread calls refuse what they cannot do, naming the field. */
START_TEST(test_thread_api)
{
	static const int neg[] = { 0, -1 }, big[] = { 5000 };
	int nthr = 0;

	ck_assert_int_eq(tilecopy_cpu_set_threads(-1), TILECOPY_ERR_INVALID_ARG);
	ck_assert_ptr_nonnull(strstr(tilecopy_last_error(), "n:"));
	ck_assert_int_eq(tilecopy_cpu_set_threads(TILECOPY_MAX_THREADS + 1),
			 TILECOPY_ERR_INVALID_ARG);
	ck_assert_int_eq(tilecopy_cpu_set_threads(3), TILECOPY_SUCCESS);
	ck_assert_int_eq(tilecopy_cpu_threads(&nthr), TILECOPY_SUCCESS);
	ck_assert_int_eq(nthr, 3);
	ck_assert_int_eq(tilecopy_cpu_set_threads(0), TILECOPY_SUCCESS);
	ck_assert_int_eq(tilecopy_cpu_threads(&nthr), TILECOPY_SUCCESS);
	ck_assert_int_ge(nthr, 1);
	ck_assert_int_eq(tilecopy_cpu_threads(NULL), TILECOPY_ERR_INVALID_ARG);
	ck_assert_int_eq(tilecopy_cpu_set_affinity(NULL, 2), TILECOPY_ERR_INVALID_ARG);
	ck_assert_ptr_nonnull(strstr(tilecopy_last_error(), "cpus:"));
	ck_assert_int_eq(tilecopy_cpu_set_affinity(neg, 2), TILECOPY_ERR_INVALID_ARG);
	ck_assert_ptr_nonnull(strstr(tilecopy_last_error(), "cpus[1]"));
	ck_assert_int_eq(tilecopy_cpu_set_affinity(big, 1), TILECOPY_ERR_INVALID_ARG);
	ck_assert_int_eq(tilecopy_cpu_set_affinity(neg, 100000), TILECOPY_ERR_INVALID_ARG);
	ck_assert_int_eq(tilecopy_cpu_set_affinity(neg, 1), TILECOPY_SUCCESS);
	ck_assert_int_eq(tilecopy_cpu_set_affinity(NULL, 0), TILECOPY_SUCCESS);
	ck_assert_int_eq(tilecopy_cpu_set_affinity(NULL, -1), TILECOPY_SUCCESS);
}
END_TEST

/* ---- random descriptor sets ------------------------------------------- */

/*
 * Random extents (up to ~20000 elements) and strides of one of the kinds
 * below into @d (a COPY of @es-byte elements); @return the kind, 5 being
 * "make it a FILL" (strides not set beyond the destination's).
 */
static int random_shape(struct drm_tilecopy_desc *d, unsigned es)
{
	int nd = 1 + (int)rnd_below(rnd_below(4) ? 4 : 8), perm[8], kind = (int)rnd_below(6);
	__u32 ext[8];
	size_t total = 1;

	for (int k = 0; k < nd; k++) {
		ext[k] = total > 20000 ? 1 + rnd_below(2) : odd[rnd_below(NODD)];
		total *= ext[k];
	}
	*d = copy_desc(es, nd, ext);
	d->src = rnd_below(70);
	d->dst = rnd_below(70);
	identity(perm, nd);
	shuffle(perm, nd);
	dense_strides(d->dst_stride, d->extent, perm, nd, kind == 1 ? 3 : 0);
	switch (kind) {
	case 0:		/* permutation: transposes */
	case 1:		/* with padding between dims */
		shuffle(perm, nd);
		dense_strides(d->src_stride, d->extent, perm, nd, kind);
		break;
	case 2:		/* random source strides, some broadcast */
		for (int k = 0; k < nd; k++)
			d->src_stride[k] = rnd_below(4) ? rnd_below(300) : 0;
		break;
	case 3:		/* same order both sides: runs */
		dense_strides(d->src_stride, d->extent, perm, nd, 2);
		break;
	case 4:		/* destination overlapping itself */
		for (int k = 0; k < nd; k++) {
			d->dst_stride[k] = rnd_below(40);
			d->src_stride[k] = rnd_below(100);
		}
		break;
	default:	/* FILL */
		d->op = DRM_TILECOPY_OP_FILL;
		d->src = 0;
		break;
	}
	return kind;
}

static void random_desc(struct drm_tilecopy_desc *d)
{
	static const unsigned es_list[] = { 1, 2, 4, 8 };

	if (random_shape(d, es_list[rnd_below(4)]) == 5)	/* no bits above elem_size */
		d->value = rnd() & (~0ull >> (64 - 8 * d->elem_size));
}

START_TEST(test_random)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	int rounds = quick() ? 150 : 600;

	if (!be)
		return;
	rng_state = 0x5eed0000ULL + (uint64_t)_i;
	for (int r = 0; r < rounds; r++) {
		struct drm_tilecopy_desc d[3];
		size_t n = 1 + rnd_below(3);
		char what[48];

		for (size_t j = 0; j < n; j++)
			random_desc(&d[j]);
		snprintf(what, sizeof(what), "random set %d", r);
		check_descs(be, d, n, rnd_below(8), what);
	}
}
END_TEST

/* ---- plans of every format pair through the public API --------------- */

struct fmt_group {
	const char *const *names;
	int n, rank;
	int64_t shape[4];
};

static const char *const fmt4[] = {
	"NCHW", "NHWC", "CHWN", "HWCN", "nChw8c", "nChw16c", "NCHW4", "NCHW32",
	"NC1HWC0", "CHWN4",
};
static const char *const fmt2[] = {
	"RowMajor", "ColumnMajor", "zN", "zZ", "nZ", "nN",
};

/*
 * @plan on @cpu against the scalar executor, buffers misaligned by @mis,
 * the destination full of noise; frees the plan.
 */
static void check_plan_vs_scalar(tilecopy_plan_t *plan, const char *cpu, unsigned mis,
				 const char *what)
{
	unsigned char *sbuf, *ref, *out;
	uint64_t ssz, dsz;

	tilecopy_plan_src_bytes(plan, &ssz);
	tilecopy_plan_dst_bytes(plan, &dsz);
	/* 64-byte aligned: @mis 0 takes the kernels' aligned (streaming) paths */
	sbuf = aligned_alloc(64, (ssz + mis + 63) & ~(uint64_t)63);
	ref = aligned_alloc(64, (dsz + mis + 63) & ~(uint64_t)63);
	out = aligned_alloc(64, (dsz + mis + 63) & ~(uint64_t)63);
	ck_assert(sbuf && ref && out);
	fill_noise(sbuf + mis, ssz, ssz);
	fill_noise(ref + mis, dsz, 77);
	memcpy(out + mis, ref + mis, dsz);
	ck_assert(!tilecopy_plan_execute_cpu(plan, sbuf + mis, ssz, ref + mis, dsz, "scalar"));
	ck_assert_msg(!tilecopy_plan_execute_cpu(plan, sbuf + mis, ssz, out + mis, dsz, cpu),
		      "%s: %s", cpu, tilecopy_last_error());
	ck_assert_msg(!memcmp(ref + mis, out + mis, dsz), "%s: %s differs from scalar", cpu, what);
	free(sbuf);
	free(ref);
	free(out);
	tilecopy_plan_destroy(plan);
}

static void check_plan_pair(const char *cpu, const char *sf, const char *df,
			    const int64_t *shape, int rank, tilecopy_dtype_t dt)
{
	tilecopy_tensor_t *st, *dtn;
	tilecopy_plan_t *plan = NULL;
	const char *dtname = "?";
	char what[96];

	ck_assert_msg(!tilecopy_tensor_create(&st, sf, shape, rank, dt, NULL, 0),
		      "%s: %s", sf, tilecopy_last_error());
	ck_assert_msg(!tilecopy_tensor_create(&dtn, df, shape, rank, dt, NULL, 0),
		      "%s: %s", df, tilecopy_last_error());
	ck_assert_msg(!tilecopy_plan_create(&plan, st, dtn, 0), "%s->%s: %s",
		      sf, df, tilecopy_last_error());
	tilecopy_tensor_destroy(st);
	tilecopy_tensor_destroy(dtn);
	tilecopy_dtype_name(dt, &dtname);
	snprintf(what, sizeof(what), "%s -> %s (%s)", sf, df, dtname);
	check_plan_vs_scalar(plan, cpu, 1, what);
}

START_TEST(test_format_pairs)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const tilecopy_dtype_t dts[] = {
		TILECOPY_DT_I8, TILECOPY_DT_F16, TILECOPY_DT_F32, TILECOPY_DT_F64,
	};
	static const int64_t s4[][4] = { { 2, 37, 5, 7 }, { 1, 64, 3, 17 } };
	static const int64_t s2[][3] = { { 33, 47 }, { 64, 96 }, { 2, 17, 40 } };

	if (!be)
		return;
	for (size_t t = 0; t < 4; t++) {
		for (size_t a = 0; a < sizeof(fmt4) / sizeof(fmt4[0]); a++)
			for (size_t b = 0; b < sizeof(fmt4) / sizeof(fmt4[0]); b++)
				for (size_t s = 0; s < 2; s++)
					check_plan_pair(be->name, fmt4[a], fmt4[b], s4[s], 4, dts[t]);
		for (size_t a = 0; a < sizeof(fmt2) / sizeof(fmt2[0]); a++)
			for (size_t b = 0; b < sizeof(fmt2) / sizeof(fmt2[0]); b++)
				for (size_t s = 0; s < 3; s++)
					check_plan_pair(be->name, fmt2[a], fmt2[b], s2[s],
							s == 2 ? 3 : 2, dts[t]);
	}
}
END_TEST

/* ---- u8 squares: streamed transposes of whole lines ------------------- */

/*
 * A batch of 2-D transposes: @rows contiguous in the destination (row
 * pitch @dld), @cols contiguous in the source (row pitch @sld); elements.
 */
static struct drm_tilecopy_desc transpose_desc(unsigned es, __u32 rows, __u32 cols,
					       __u32 batch, __u64 sld, __u64 dld)
{
	__u32 ext[3] = { rows, cols, batch };
	struct drm_tilecopy_desc d = copy_desc(es, 3, ext);

	d.dst_stride[0] = 1;
	d.dst_stride[1] = dld;
	d.dst_stride[2] = dld * cols;
	d.src_stride[0] = sld;
	d.src_stride[1] = 1;
	d.src_stride[2] = sld * rows;
	return d;
}

/*
 * 2-D u8 transposes large enough to stream (TC_NT_THRESHOLD): on AVX2 a
 * 64-byte aligned destination whose rows are whole lines, from source rows
 * a multiple of 1 KiB apart, runs 64 x 64 squares (the 2048 and 4096
 * strides here; the odd ones take the tiles), on AVX-512 the same strides
 * (and the broadcast source) take the wide macro tiles, and the tiles take
 * the rows and columns left over and the misaligned buffers. Row strides
 * powers of two and not, destination rows with a gap that must stay
 * untouched, a batch dim.
 */
static const struct sq_case {
	__u32 rows, cols, batch;	/* rows: contiguous in the destination */
	__u64 sld, dld;			/* row and column strides, elements */
} sq_cases[] = {
	{ 2048, 2048, 1, 2048, 2048 },	/* power-of-two strides, whole squares */
	{ 2049, 2051, 1, 2051, 2112 },	/* a row and 3 columns left, a gap */
	{ 2111, 2100, 1, 4096, 2176 },	/* 63 rows and 52 columns left */
	{ 1472, 1536, 2, 1536, 1472 },	/* a batch of two */
	{ 2048, 2048, 1, 0, 2048 },	/* a broadcast source (stride 0) */
	{ 2048, 2048, 1, 3, 2048 },	/* source rows 3 bytes apart */
};

/*
 * Offsets of the source and the destination (bytes) apart from check_descs'
 * common misalignment: a misaligned source into aligned destination lines
 * (squares), destinations 16 and 32 bytes into a line (no squares: their
 * 32-byte streaming stores need whole lines).
 */
static const struct { __u64 src, dst; } sq_offsets[] = { { 5, 0 }, { 0, 16 }, { 0, 32 } };

START_TEST(test_u8_squares)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	size_t n = quick() ? 1 : sizeof(sq_cases) / sizeof(sq_cases[0]);

	if (!be)
		return;
	for (int t = 1; t <= 2; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++) {
			const struct sq_case *q = &sq_cases[i];
			struct drm_tilecopy_desc d = transpose_desc(1, q->rows, q->cols,
								    q->batch, q->sld, q->dld);
			char what[96];

			for (unsigned mis = 0; mis < 2; mis++) {
				snprintf(what, sizeof(what),
					 "u8 squares %ux%ux%u, strides %llu/%llu, %d threads",
					 q->rows, q->cols, q->batch, (unsigned long long)q->sld,
					 (unsigned long long)q->dld, t);
				check_descs(be, &d, 1, mis, what);
			}
			for (size_t o = 0; i == 0 && o < sizeof(sq_offsets) / sizeof(sq_offsets[0]); o++) {
				struct drm_tilecopy_desc od = d;

				od.src = sq_offsets[o].src;
				od.dst = sq_offsets[o].dst;
				snprintf(what, sizeof(what), "u8 squares, source at %llu, destination at %llu, %d threads",
					 (unsigned long long)od.src, (unsigned long long)od.dst, t);
				check_descs(be, &od, 1, 0, what);
			}
		}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * Streamed 2-D transposes whose source rows crowd a few L1 sets (a
 * multiple of 1 KiB apart for u8, 4 KiB for 16-bit: AVX-512 macro tiles
 * of wide register tiles, whole source lines; the other element sizes
 * and strides keep the narrow tiles): whole macro tiles, rows and columns
 * left over (127 rows; columns past the last wide tile, down to a masked
 * edge of a few), a destination with a gap, a source off its lines, a
 * batch; one thread and two. Element counts; dld is the destination's row
 * pitch.
 */
static const struct crowd_case {
	unsigned es;
	__u32 rows, cols, batch;	/* rows: contiguous in the destination */
	__u64 sld, dld;
} crowd_cases[] = {
	{ 2, 2048, 1024, 1, 2048, 2048 },	/* f16, 4 KiB rows: whole tiles */
	{ 2, 2047, 1100, 1, 4096, 2112 },	/* 127 rows, 76 columns left */
	{ 2, 1280, 1030, 2, 6144, 1280 },	/* 12 KiB rows, a batch (the last 6 columns: a block of their own, no macro tiles) */
	{ 2, 2048, 1100, 1, 1536, 2048 },	/* 3 KiB rows: the narrow tiles */
	{ 1, 4100, 1030, 1, 1024, 4160 },	/* u8, 1 KiB rows: 6 columns left */
	{ 1, 2048, 2111, 1, 16384, 2048 },	/* 16 KiB rows: 63 columns left */
	{ 1, 2100, 1100, 2, 2048, 2112 },	/* 2 KiB rows: a 64-column macro tile, 12 left, 52 rows, a batch */
	{ 2, 1280, 1100, 2, 6144, 1280 },	/* 12 KiB rows, a batch: 76 columns into the edge */
	{ 4, 1024, 1100, 1, 4096, 1024 },	/* f32 and f64: narrow tiles */
	{ 8, 512, 1030, 1, 2048, 512 },
};

START_TEST(test_crowded_rows)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	size_t n = sizeof(crowd_cases) / sizeof(crowd_cases[0]);

	if (!be)
		return;
	for (int t = 1; t <= (quick() ? 1 : 2); t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++)
			for (unsigned v = 0; v < 3; v++) {
				const struct crowd_case *q = &crowd_cases[i];
				struct drm_tilecopy_desc d =
					transpose_desc(q->es, q->rows, q->cols, q->batch,
						       q->sld, q->dld);
				char what[112];

				if (quick() && v)
					continue;
				/* v 1: the source 3 elements off its lines */
				d.src = v == 1 ? 3 * q->es : 0;
				snprintf(what, sizeof(what),
					 "crowded rows es=%u %ux%ux%u, strides %llu/%llu, v%u, %d threads",
					 q->es, q->rows, q->cols, q->batch,
					 (unsigned long long)q->sld,
					 (unsigned long long)q->dld, v, t);
				/* v 2: both misaligned by a byte (no macro tiles) */
				check_descs(be, &d, 1, v == 2, what);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * The crowded-rows transposes (wide tiles and their masked edges, and a
 * narrow control) with the source's last byte, or its first, against a
 * PROT_NONE page, and the destination on its lines, its last byte within
 * a line of one: a read or write outside the tensors faults here,
 * where check_descs' buffers have 64-127 bytes of slack. Outputs of 4 MiB
 * or more (streamed: the macro tiles); rows left over as listed.
 */
static const struct guard_case {
	unsigned es;
	__u32 rows, cols;	/* rows: grown by 4096 to 4 MiB of output */
	__u64 sld, off;		/* elements */
} guard_cases[] = {
	{ 1, 256, 64, 1024, 0 },	/* one wide tile a row band (2 threads: 32) */
	{ 1, 300, 127, 1024, 3 },	/* 64 and an edge of 63, 44 rows left */
	{ 1, 256, 63, 1024, 0 },	/* the edge only */
	{ 1, 256, 1024, 1024, 0 },	/* rows end to end */
	{ 1, 320, 1000, 1024, 5 },	/* 896 + 64 + an edge of 40 */
	{ 1, 256, 2111, 4096, 0 },	/* blocks of 1024, 1024 and 63 columns */
	{ 1, 256, 200, 0, 0 },		/* broadcast rows */
	{ 2, 128, 32, 2048, 0 },	/* one wide tile */
	{ 2, 200, 76, 2048, 3 },	/* 64 and an edge of 12, 72 rows left */
	{ 2, 128, 2048, 2048, 0 },	/* rows end to end */
	{ 2, 128, 100, 0, 0 },		/* broadcast rows */
	{ 4, 64, 100, 1024, 0 },	/* narrow tiles */
};

/*
 * @bytes whose last byte is the last before an inaccessible page (with
 * @lead: whose first byte is the first after one): a load past the end
 * (an edge's mask dropped) faults. Free with guard_free().
 */
struct guarded {
	char *map;
	size_t len;
};

static void *guard_alloc_at(struct guarded *g, size_t bytes, int lead)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), data = (bytes + pg - 1) / pg * pg;

	g->len = data + pg;
	g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(g->map != MAP_FAILED);
	ck_assert(!mprotect(lead ? g->map : g->map + data, pg, PROT_NONE));
	return lead ? g->map + pg : g->map + data - bytes;
}

static void *guard_alloc(struct guarded *g, size_t bytes)
{
	return guard_alloc_at(g, bytes, 0);
}

static void guard_free(struct guarded *g)
{
	munmap(g->map, g->len);
}

/*
 * @d on @be from @src into @dst (@dsz bytes, noise), against the scalar
 * reference on a copy of @dst: the guarded tests' check.
 */
static void check_guarded(const struct tc_cpu_backend *be,
			  const struct drm_tilecopy_desc *d,
			  const unsigned char *src, unsigned char *dst,
			  size_t dsz, const char *what)
{
	unsigned char *ref = malloc(dsz);

	ck_assert(ref);
	memcpy(ref, dst, dsz);
	ck_assert_int_eq(tc_exec_scalar(d, 1, src, ref), 0);
	ck_assert_int_eq(be->exec_scales(d, 1, src, dst, NULL), 0);
	if (memcmp(ref, dst, dsz)) {
		size_t j = 0;

		while (ref[j] == dst[j])
			j++;
		ck_abort_msg("%s on %s: first difference at byte %zu of %zu",
			     be->name, what, j, dsz);
	}
	free(ref);
}

/*
 * check_guarded() on both tensors of @d in buffers of their own, exactly
 * as long as the footprint, against a PROT_NONE page after their last
 * byte (or, with @lead, before their first), filled with noise.
 */
static void check_guarded_tight(const struct tc_cpu_backend *be,
				const struct drm_tilecopy_desc *d, int lead,
				const char *what)
{
	size_t ssz = need_bytes(d, 1), dsz = need_bytes(d, 0);
	struct guarded gs, gd;
	unsigned char *src = guard_alloc_at(&gs, ssz, lead);
	unsigned char *dst = guard_alloc_at(&gd, dsz, lead);

	fill_noise(src, ssz, 0x1234 + ssz);
	fill_noise(dst, dsz, 0x9876 + dsz);
	check_guarded(be, d, src, dst, dsz, what);
	guard_free(&gs);
	guard_free(&gd);
}

START_TEST(test_crowded_rows_guard)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	size_t n = sizeof(guard_cases) / sizeof(guard_cases[0]);

	if (!be)
		return;
	for (int t = 1; t <= (quick() ? 1 : 2); t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++)
			for (int lead = 0; lead < 2; lead++) {
				const struct guard_case *q = &guard_cases[i];
				__u32 rows = q->rows;
				struct drm_tilecopy_desc d;
				size_t ssz, dsz;
				unsigned char *src, *dst;
				struct guarded gs, gd;
				char what[112];

				while ((size_t)rows * q->cols * q->es < (4u << 20))
					rows += 4096;
				d = transpose_desc(q->es, rows, q->cols, 1, q->sld,
						   (rows * q->es + 63) / 64 * 64 / q->es);
				d.src = q->off * q->es;
				ssz = need_bytes(&d, 1);
				dsz = need_bytes(&d, 0);
				src = guard_alloc_at(&gs, ssz, lead);
				/* whole lines: on them, its last byte within one of the guard */
				dst = guard_alloc(&gd, (dsz + 63) / 64 * 64);
				for (__u32 r = 0; r < rows; r++)	/* the rows read */
					fill_noise(src + d.src + r * q->sld * q->es,
						   (size_t)q->cols * q->es, 0x1234 + r);
				fill_noise(dst, dsz, 0x9876 + dsz);
				snprintf(what, sizeof(what),
					 "guarded es=%u %ux%u, sld %llu, %s guard, %d threads",
					 q->es, rows, q->cols, (unsigned long long)q->sld,
					 lead ? "leading" : "trailing", t);
				check_guarded(be, &d, src, dst, dsz, what);
				guard_free(&gs);
				guard_free(&gd);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * /simd/runs-pairs with each tensor's last byte (or first) against a
 * PROT_NONE page: a kernel that reads a row or a pair ahead (software
 * pipelining, a rounded-up count) faults here; /simd/runs-pairs' buffers
 * leave it room. 4 MiB of 64-byte lines ending at the page: streamed.
 */
START_TEST(test_runs_pairs_guard)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned es_list[] = { 1, 2, 4, 8 };
	static const struct pairs_case gc[] = {
		{ 2, 2, 0 }, { 3, 3, 0 }, { 17, 5, 32 }, { 16, 34, 0 },
		{ 2048, 64, 0 },
	};

	if (!be)
		return;
	for (size_t i = 0; i < sizeof(gc) / sizeof(gc[0]); i++)
		for (unsigned v = 0; v < 4; v++) {
			unsigned es = es_list[(i + v) % 4];
			struct drm_tilecopy_desc d = pairs_desc(es, &gc[i], v & 1);
			char what[96];

			snprintf(what, sizeof(what),
				 "guarded runs pairs es=%u %ux%u, %s, %s", es,
				 gc[i].rows, gc[i].cols,
				 v & 1 ? "to rows" : "to blocks",
				 v >> 1 ? "guard before" : "guard after");
			check_guarded_tight(be, &d, (int)(v >> 1), what);
		}
}
END_TEST

/*
 * /simd/runs-pairs with a batch dim on 2 and 3 threads: the split hands
 * the pairs boxes that start part-way along the columns.
 */
START_TEST(test_runs_pairs_batch)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const __u32 shp[][3] = {	/* rows, cols, batch */
		{ 1001, 35, 3 }, { 1024, 35, 4 }, { 7, 2049, 9 },
	};

	if (!be)
		return;
	for (int t = 2; t <= 3; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (unsigned i = 0; i < 3; i++)
			for (unsigned v = 0; v < 4; v++) {
				struct pairs_case q = { shp[i][0], shp[i][1],
							0 };
				struct drm_tilecopy_desc d =
					pairs_desc(2, &q, v & 1);
				__u64 one = (__u64)16 * q.rows * q.cols;
				char what[96];

				d.ndims = 4;
				d.extent[3] = shp[i][2];
				d.src_stride[3] = d.dst_stride[3] = one;
				snprintf(what, sizeof(what),
					 "runs pairs f16 %ux%ux%u, %s, %d threads",
					 q.rows, q.cols, shp[i][2],
					 v & 1 ? "to rows" : "to blocks", t);
				check_descs(be, &d, 1, v >> 1, what);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* The same path in plans the planner builds: RowMajor <-> ColumnMajor u8. */
START_TEST(test_u8_squares_planner)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const int64_t shapes[][2] = { { 2048, 2048 }, { 2112, 2051 }, { 4096, 1030 } };
	size_t n = quick() ? 1 : sizeof(shapes) / sizeof(shapes[0]);

	if (!be)
		return;
	for (int t = 1; t <= 2; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++)
			for (unsigned m = 0; m < 4; m++) {
				int back = (int)m >> 1;	/* ColumnMajor -> RowMajor */
				unsigned mis = m & 1;
				int64_t shape[2] = { shapes[i][back], shapes[i][!back] };
				tilecopy_tensor_t *st, *dtn;
				tilecopy_plan_t *plan = NULL;
				char what[96];

				ck_assert(!tilecopy_tensor_create(&st, back ? "ColumnMajor" : "RowMajor",
								  shape, 2, TILECOPY_DT_U8, NULL, 0));
				ck_assert(!tilecopy_tensor_create(&dtn, back ? "RowMajor" : "ColumnMajor",
								  shape, 2, TILECOPY_DT_U8, NULL, 0));
				ck_assert_msg(!tilecopy_plan_create(&plan, st, dtn, 0), "%s",
					      tilecopy_last_error());
				tilecopy_tensor_destroy(st);
				tilecopy_tensor_destroy(dtn);
				snprintf(what, sizeof(what), "u8 %lldx%lld %s, %d threads, misaligned by %u",
					 (long long)shape[0], (long long)shape[1],
					 back ? "ColumnMajor -> RowMajor" : "RowMajor -> ColumnMajor",
					 t, mis);
				check_plan_vs_scalar(plan, be->name, mis, what);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* ---- typed descriptors (ABI 1.2): conversions, 4-bit elements ---------- */

#define NSCALES	4096

static unsigned type_bits(unsigned t)
{
	return tc_desc_type_bits(t);
}

/* Scales that matter: ordinary, negative, 1.0, 0, tiny, huge, a denormal. */
static void fill_scales(float *s, size_t n)
{
	static const float pick[] = { 0.37f, -1.5f, 1.0f, 0.0f, 1.0f / 3, 3e30f,
				      0x1p-130f, 7.0f, 0.0625f };

	for (size_t i = 0; i < n; i++)
		s[i] = pick[rnd_below(sizeof(pick) / sizeof(pick[0]))];
}

/* The conversion fields of a typed COPY: none, a scale, scales, zero points. */
static void random_quant(struct drm_tilecopy_desc *d)
{
	static const float one = 1.0f, odd_scale = -0.3f;
	int q = (int)rnd_below(6);

	if (q == 1 || q == 5) {
		d->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		memcpy(&d->scale, rnd_below(4) ? &odd_scale : &one, 4);
	} else if (q == 2 || q == 4) {
		__u64 span = 0;

		d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		for (int k = 0; k < d->ndims; k++) {
			d->scale_stride[k] = rnd_below(3) ? 0 : rnd_below(3);
			span += (__u64)(d->extent[k] - 1) * d->scale_stride[k];
		}
		if (span + 64 >= NSCALES)
			memset(d->scale_stride, 0, sizeof(d->scale_stride));
		d->scales = 4 * rnd_below(64);
	}
	if (q >= 3) {
		static const __s32 zps[] = { 0, 1, -3, 7, 128, -100000, 1 << 25 };

		d->src_zp = zps[rnd_below(7)];
		d->dst_zp = zps[rnd_below(7)];
	}
}

/*
 * A random typed descriptor: any pair of types, nibble offsets on 4-bit
 * sides, transposes, padded, broadcast and same-order strides, a
 * destination overlapping itself; or a FILL of a 4-bit type.
 */
static void random_typed(struct drm_tilecopy_desc *d)
{
	if (random_shape(d, 0) == 5) {	/* a FILL of a 4-bit type */
		d->dst_type = (__u8)(DRM_TILECOPY_TYPE_I4 + rnd_below(2));
		d->value = rnd() & 0xf;
		d->dst_nibble = (__u8)rnd_below(2);
		return;
	}
	d->src_type = (__u8)(1 + rnd_below(8));
	d->dst_type = (__u8)(1 + rnd_below(8));
	if (type_bits(d->src_type) == 4)
		d->src_nibble = (__u8)rnd_below(2);
	if (type_bits(d->dst_type) == 4)
		d->dst_nibble = (__u8)rnd_below(2);
	random_quant(d);
}

START_TEST(test_typed_random)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	int rounds = quick() ? 300 : 1500;
	float *scales = malloc(NSCALES * sizeof(float));

	ck_assert(scales);
	if (!be) {
		free(scales);
		return;
	}
	rng_state = 0x7e9ed000ULL + (uint64_t)_i;
	for (int r = 0; r < rounds; r++) {
		struct drm_tilecopy_desc d[3];
		size_t n = 1 + rnd_below(3);
		char what[64];

		fill_scales(scales, NSCALES);
		for (size_t j = 0; j < n; j++)
			random_typed(&d[j]);
		snprintf(what, sizeof(what), "typed set %d (%u>%u)", r, d[0].src_type,
			 d[0].dst_type);
		check_descs_scales(be, d, n, scales, NSCALES, rnd_below(8), what);
	}
	free(scales);
}
END_TEST

/* A typed COPY of @es-like shape: transpose @rows x @cols (+ @outer copies). */
static struct drm_tilecopy_desc typed_transpose(unsigned st, unsigned dt, __u32 rows,
						__u32 cols, __u32 outer, __u64 dld)
{
	__u32 ext[3] = { rows, cols, outer };
	struct drm_tilecopy_desc d = copy_desc(1, 3, ext);

	d.elem_size = 0;
	d.src_type = (__u8)st;
	d.dst_type = (__u8)dt;
	d.src_stride[0] = cols, d.src_stride[1] = 1, d.src_stride[2] = (__u64)rows * cols;
	d.dst_stride[0] = 1, d.dst_stride[1] = dld, d.dst_stride[2] = (__u64)cols * dld;
	return d;
}

/*
 * f32 transposed into i8 and u8 (the fused kernels: 16-row bands encoded
 * before the transpose, 8-row bands, element edges): row counts around 8
 * and 16, columns around 16, no scale, one scale, a scale per row (the
 * channel), zero points; noise sources (NaN, infinities, out of range)
 * and ordinary values.
 */
START_TEST(test_typed_tr_bytes)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const __u32 rows_list[] = { 8, 15, 16, 17, 24, 31, 32, 33, 48 };
	static const __u32 cols_list[] = { 15, 16, 17, 24, 47, 100 };
	static const unsigned dts[] = { DRM_TILECOPY_TYPE_I8, DRM_TILECOPY_TYPE_U8 };
	static const float half = 0.5f, odd_scale = -0.3f;
	float *scales = malloc(NSCALES * sizeof(float));
	char what[96];

	ck_assert(scales);
	if (!be) {
		free(scales);
		return;
	}
	rng_state = 0x7e5b7e00ULL + (uint64_t)_i;
	fill_scales(scales, NSCALES);
	for (size_t t = 0; t < 2; t++)
		for (size_t r = 0; r < sizeof(rows_list) / sizeof(rows_list[0]); r++)
			for (size_t c = 0; c < sizeof(cols_list) / sizeof(cols_list[0]); c++)
				for (int q = 0; q < 4; q++) {
					__u32 rows = rows_list[r];
					struct drm_tilecopy_desc d =
						typed_transpose(DRM_TILECOPY_TYPE_F32, dts[t], rows,
								cols_list[c], 2, rows + (q & 1) * 3);

					if (q == 1) {
						d.cvt_flags = DRM_TILECOPY_CVT_SCALE;
						memcpy(&d.scale, &odd_scale, 4);
					}
					if (q == 2) {
						d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
						d.scale_stride[0] = 1;
						d.scales = 4 * (r + c);
					}
					if (q == 3) {
						d.cvt_flags = DRM_TILECOPY_CVT_SCALE;
						memcpy(&d.scale, &half, 4);
						d.src_zp = 3;
						d.dst_zp = t ? 100 : -7;
					}
					for (int v = 0; v < 2; v++) {
						snprintf(what, sizeof(what), "f32 > %s %ux%u quant %d%s",
							 t ? "u8" : "i8", rows, cols_list[c], q,
							 v ? " values" : "");
						check_descs_src(be, &d, 1, scales, NSCALES,
								(unsigned)(r + c + q) & 7, v, what);
					}
				}
	free(scales);
}
END_TEST

/* ---- the converting transposes themselves (tc_cvt_kernels.tr_encode) ---- */

/*
 * binary32 bit patterns whose encodings are edge cases: NaNs (quiet,
 * signalling, negative), infinities, -0, f32 denormals, ties of every
 * kind (integers at .5, f16 and bf16 halfway between neighbours), the
 * saturation bounds and just past them, the f16 overflow tie.
 */
static const uint32_t tr_special[] = {
	0x7fc00000, 0x7f800001, 0xffc12345, 0x7fa00000, 0x7f800000, 0xff800000,
	0x80000000, 0x00000000, 0x00000001, 0x80400000, 0x3f000000, 0x3fc00000,
	0x40200000, 0xc0200000, 0xbf000000, 0x42ff0000, 0x43000000, 0xc3008000,
	0xc3010000, 0x437f8000, 0x43800000, 0x477fe000, 0x477ff000, 0x477fefff,
	0x3f808000, 0x3f818000, 0xbf808000, 0x33000000, 0x387fc000, 0x00800000,
	0x4f000000, 0xcf000000, 0x7f7fffff,
};

/* @n binary32: noise (0), quarter steps (1), quarter steps and a third specials (2). */
static void tr_fill_src(unsigned char *s, size_t n, int how)
{
	fill_noise(s, n * 4, rnd());
	if (how)
		fill_values(s, n * 4);
	for (size_t i = 0; how == 2 && i < n; i++)
		if (rnd_below(3) == 0)
			memcpy(s + 4 * i, &tr_special[rnd_below(sizeof(tr_special) / 4)], 4);
}

/*
 * One converting transpose of @rows x @cols by @k against the reference,
 * element by element (tc_cvt_ref_run on the scalar set's conversion) into
 * a copy of the same noise: every byte of the destination, around the
 * written elements too, must agree. @q: none, one scale, one a row, one
 * scale and zero points, one a row and zero points.
 */
static void check_tr_encode(const struct tc_cvt_kernels *k, enum tc_cvt_kind kind,
			    size_t rows, size_t cols, int q, int how, unsigned mis)
{
	static const int32_t zps[] = { 0, 1, -3, 7, 128, -100000, 1 << 25 };
	size_t sld = cols + rnd_below(6), dld = rows + (rnd_below(2) ? 3 : 0);
	size_t es = tc_cvt_kind_bits(kind) / 8, dsz = ((cols - 1) * dld + rows) * es + 64;
	/* the source's last row and the scales end at a guard page */
	size_t sbytes = ((rows - 1) * sld + cols) * 4 + (mis & 3);
	struct guarded gs, gc;
	char *sbuf = guard_alloc(&gs, sbytes);
	float *scales = guard_alloc(&gc, rows * 4), *src;
	unsigned char *ref = malloc(dsz + 8), *out = malloc(dsz + 8);
	struct tc_cvt_quant qu = { .scales = scales, .nscales = q == 2 || q == 4 ? rows : 1 };
	const char *why = NULL;
	struct tc_cvt cv;

	ck_assert(ref && out);
	/* misaligned by @mis & 3 bytes: tr_encode takes a source of any alignment */
	src = (float *)(void *)(sbuf + (mis & 3));
	tr_fill_src((unsigned char *)sbuf + (mis & 3), (rows - 1) * sld + cols, how);
	fill_scales(scales, rows);
	if (q >= 3) {
		qu.src_zp = zps[rnd_below(7)];
		qu.dst_zp = zps[rnd_below(7)];
	}
	if (!q)
		qu.nscales = 0, qu.scales = NULL;
	ck_assert_msg(!tc_cvt_init(&cv, kind, TC_CVT_F32, &qu, &tc_cvt_scalar, &why), "%s", why);
	fill_noise(ref, dsz + 8, rnd());
	memcpy(out, ref, dsz + 8);
	for (size_t r = 0; r < rows; r++)
		for (size_t c = 0; c < cols; c++)
			tc_cvt_ref_run(&cv, ref + mis, (int64_t)(c * dld + r), 1, src,
				       (int64_t)(r * sld + c), 1, 1, scales + r, 0);
	k->tr_encode[kind](out + mis, dld, src, sld, rows, cols, &cv.affine,
			   cv.per_channel ? scales : &cv.scale, cv.per_channel);
	if (memcmp(ref, out, dsz + 8)) {
		size_t i = 0;

		while (ref[i] == out[i])
			i++;
		ck_abort_msg("%s tr_encode f32 > %s %zux%zu (dld %zu, sld %zu) quant %d src %d misaligned %u: byte %zu (element %zd) is %02x, not %02x",
			     k->name, tc_cvt_kind_name(kind), rows, cols, dld, sld, q, how, mis,
			     i, ((ptrdiff_t)i - (ptrdiff_t)mis) / (ptrdiff_t)es, out[i], ref[i]);
	}
	guard_free(&gs);
	guard_free(&gc);
	free(ref);
	free(out);
}

/*
 * Every kernel set's tr_encode this CPU runs (AVX2, AVX-512, NEON, NEON
 * BF16) against the reference: 1..48 rows (every count to 17, then
 * around 24, 32 and 48) by 1..100 columns (around 8, 16, 32, 48 and
 * 64), each with a random quantization, source and misalignment (the
 * source by 0..3 floats, the destination by 0..7 bytes) and row strides
 * with and without a gap. The log says which sets and kinds ran and which
 * sets cannot run here; none at all on x86-64 or aarch64 fails.
 */
START_TEST(test_cvt_tr_encode)
{
	static const size_t rows_list[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
					    16, 17, 23, 24, 25, 31, 32, 33, 47, 48 };
	static const size_t cols_list[] = { 1, 2, 3, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25,
					    31, 32, 33, 40, 47, 48, 49, 63, 64, 65, 99, 100 };
	static const enum tc_cvt_kind kinds[] = { TC_CVT_F16, TC_CVT_BF16, TC_CVT_I8, TC_CVT_U8 };
	int tested = 0;

	for (int s = 0; tc_cvt_kernel_names[s]; s++) {
		int err;
		const struct tc_cvt_kernels *k = tc_cvt_kernels_get(tc_cvt_kernel_names[s], &err);

		if (!k) {
			fprintf(stderr, "cvt-tr-encode: %s not here (%d)\n",
				tc_cvt_kernel_names[s], err);
			continue;
		}
		rng_state = 0x7e3c0de0ULL + (uint64_t)s;
		for (size_t t = 0; t < 4; t++) {
			if (!k->tr_encode[kinds[t]])
				continue;
			fprintf(stderr, "cvt-tr-encode: %s into %s\n", k->name,
				tc_cvt_kind_name(kinds[t]));
			tested++;
			for (size_t r = 0; r < sizeof(rows_list) / sizeof(rows_list[0]); r++)
				for (size_t c = 0; c < sizeof(cols_list) / sizeof(cols_list[0]); c++)
					check_tr_encode(k, kinds[t], rows_list[r], cols_list[c],
							(int)rnd_below(5), (int)rnd_below(3),
							rnd_below(8));
		}
	}
#if defined(__aarch64__)
	/* NEON is baseline on arm64: its sets always run */
	ck_assert_msg(tested > 0, "no kernel set with a tr_encode runs here: nothing was tested");
#else
	if (!tested)	/* an x86-64 without AVX2 (a TCG guest's qemu64) */
		fprintf(stderr, "SKIP cvt-tr-encode: no kernel set with a tr_encode runs on this CPU\n");
#endif
}
END_TEST

/*
 * Large typed descriptors on 2, 3 and 7 threads: transposes (the tiled
 * path), runs, 4-bit destinations whose outermost stride is odd (a cut
 * must fall where a byte starts) or tight (no byte between the parts).
 */
START_TEST(test_typed_threads)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const unsigned nthr[] = { 2, 3, 7 };
	float *scales = malloc(NSCALES * sizeof(float));
	struct drm_tilecopy_desc d[12];
	__u32 e[2] = { 7, 60001 };
	size_t n = 0;

	ck_assert(scales);
	if (!be) {
		free(scales);
		return;
	}
	rng_state = 0x7417ULL;
	fill_scales(scales, NSCALES);
	d[n++] = typed_transpose(DRM_TILECOPY_TYPE_F32, DRM_TILECOPY_TYPE_BF16, 64, 3136, 3, 64);
	/* fused transpose + encoding, streamed (4 MiB and more out), odd edges */
	d[n++] = typed_transpose(DRM_TILECOPY_TYPE_F32, DRM_TILECOPY_TYPE_F16, 61, 3137, 12, 61);
	d[n++] = typed_transpose(DRM_TILECOPY_TYPE_F32, DRM_TILECOPY_TYPE_BF16, 37, 50003, 1, 40);
	d[n] = typed_transpose(DRM_TILECOPY_TYPE_F32, DRM_TILECOPY_TYPE_I8, 64, 3136, 2, 64);
	d[n].cvt_flags = DRM_TILECOPY_CVT_SCALES;	/* per channel along dim 0 */
	d[n].scale_stride[0] = 1;
	d[n++].dst_zp = 3;
	d[n++] = typed_transpose(DRM_TILECOPY_TYPE_I4, DRM_TILECOPY_TYPE_I4, 3, 50001, 3, 3);
	/* 4-bit, every row and pixel pair on a byte: bytes transposed, nibbles split */
	d[n++] = typed_transpose(DRM_TILECOPY_TYPE_U4, DRM_TILECOPY_TYPE_U4, 64, 3136, 3, 64);
	d[n] = typed_transpose(DRM_TILECOPY_TYPE_U8, DRM_TILECOPY_TYPE_U4, 5, 40000, 1, 5);
	d[n++].dst_nibble = 1;
	d[n] = copy_desc(1, 2, e);		/* runs, tight odd rows of nibbles */
	d[n].elem_size = 0;
	d[n].src_type = DRM_TILECOPY_TYPE_F16, d[n].dst_type = DRM_TILECOPY_TYPE_U4;
	d[n].src_stride[0] = 1, d[n].src_stride[1] = 7;
	d[n].dst_stride[0] = 1, d[n].dst_stride[1] = 7;
	d[n++].dst_nibble = 1;
	d[n] = typed_transpose(DRM_TILECOPY_TYPE_I32, DRM_TILECOPY_TYPE_I32, 16, 20000, 2, 16);
	d[n].src_zp = -5, d[n++].dst_zp = 1 << 30;	/* integer arithmetic: runs */
	for (size_t t = 0; t < 3; t++) {
		ck_assert(!tilecopy_cpu_set_threads((int)nthr[t]));
		for (size_t j = 0; j < n; j++) {
			char what[64];

			snprintf(what, sizeof(what), "typed, %u threads, desc %zu", nthr[t], j);
			check_descs_scales(be, &d[j], 1, scales, NSCALES, (unsigned)j & 7, what);
		}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
	free(scales);
}
END_TEST

/*
 * int4 NCHW -> NCHW64 (4-bit copies whose rows and pixel pairs are bytes:
 * the bytes transposed, each stage row split by nibble; struct
 * tc_kernels' @tr_split4 does both in the registers). Channels 2-64 (24
 * and 40 among them: no whole tile of 16 or 32; 32 into NCHW32's 16-byte
 * pixels, AVX-512's two-lane tiles, and into NCHW64's 32-byte ones, which
 * those tiles must not take) and past one tile's 64, pixel pairs around
 * the 16-column tiles, destination pixels back to back, with a gap (the
 * channels of a padded block: its noise kept) and wider; i4 and u4; on
 * and off the lines; outputs of 4 MiB and more streamed; 1-3 threads.
 */
static const struct split4_case {
	__u32 ch, pix, outer;	/* channels (source rows), pixels, batch */
	__u64 dld;		/* destination pixel stride, in elements */
} split4_cases[] = {
	{ 64, 2, 1, 64 }, { 64, 32, 1, 64 }, { 64, 34, 2, 64 }, { 64, 62, 1, 64 },
	{ 64, 94, 3, 64 }, { 64, 3136, 2, 64 }, { 2, 40, 1, 2 }, { 2, 30, 1, 64 },
	{ 16, 66, 2, 64 }, { 30, 100, 1, 30 }, { 48, 34, 1, 64 }, { 62, 130, 2, 62 },
	{ 24, 34, 1, 64 }, { 40, 48, 2, 40 }, { 32, 34, 2, 32 }, { 32, 3136, 1, 32 },
	{ 24, 40, 1, 32 }, { 32, 34, 1, 64 },
	{ 64, 36, 1, 66 }, { 64, 40, 1, 128 }, { 128, 98, 2, 128 }, { 200, 4, 1, 200 },
	{ 64, 12544, 1, 64 },	/* 3 threads: cuts moved onto even pixels */
	{ 64, 131076, 1, 64 },	/* 4 MiB out: streamed on the lines */
};

/*
 * Tiles the byte transposes must not take (tc_tile_pairs' parity check):
 * the destination from its high nibble, odd pixel strides at the
 * destination, odd channel strides at the source (pixels in pairs no
 * more), the source from its high nibble.
 */
static void split4_odd(struct drm_tilecopy_desc *d, const struct split4_case *q,
		       unsigned how)
{
	if (how == 0) {
		d->dst_nibble = 1;
	} else if (how == 1) {
		d->dst_stride[1] = q->dld + 1;
		d->dst_stride[2] = (__u64)q->pix * (q->dld + 1);
	} else if (how == 2) {
		d->src_stride[0] = q->pix + 1;
		d->src_stride[2] = (__u64)q->ch * (q->pix + 1);
	} else {
		d->src_nibble = 1;
	}
}

static struct drm_tilecopy_desc split4_desc(const struct split4_case *q, unsigned v)
{
	unsigned st = v & 1 ? DRM_TILECOPY_TYPE_I4 : DRM_TILECOPY_TYPE_U4;
	struct drm_tilecopy_desc d = typed_transpose(st, st, q->ch, q->pix, q->outer,
						     q->dld);

	d.dst_stride[2] = (__u64)q->pix * q->dld;
	return d;
}

START_TEST(test_split4)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	size_t n = sizeof(split4_cases) / sizeof(split4_cases[0]);

	if (!be)
		return;
	for (int t = 1; t <= 3; t++) {
		ck_assert(!tilecopy_cpu_set_threads(t));
		for (size_t i = 0; i < n; i++)
			for (unsigned v = 0; v < 4; v++) {
				const struct split4_case *q = &split4_cases[i];
				struct drm_tilecopy_desc d = split4_desc(q, v + (unsigned)t);
				char what[112];

				if (q->pix > 65536 && v == 3)
					continue;	/* the large one: on the lines and 1 off */
				snprintf(what, sizeof(what),
					 "int4 split %u ch x %u px x %u, dld %llu, %s, %d threads",
					 q->ch, q->pix, q->outer, (unsigned long long)q->dld,
					 (v + t) & 1 ? "i4" : "u4", t);
				/* v 1, 3: both sides 1 or 3 bytes off the lines */
				check_descs(be, &d, 1, v & 1 ? v : 0, what);
			}
		for (unsigned i = 0; i < 2; i++)
			for (unsigned how = 0; how < 4; how++) {
				static const struct split4_case oc[] = {
					{ 64, 34, 2, 64 }, { 48, 3136, 1, 64 },
				};
				struct drm_tilecopy_desc d = split4_desc(&oc[i], how);
				char what[112];

				split4_odd(&d, &oc[i], how);
				snprintf(what, sizeof(what), "int4 split %u ch x %u px, odd case %u, %d threads",
					 oc[i].ch, oc[i].pix, how, t);
				check_descs(be, &d, 1, 0, what);
			}
	}
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/*
 * /simd/int4-split with the source's last byte (or first) and the
 * destination's against a PROT_NONE page: a tile that reads a column or a
 * channel past the tensor faults here.
 */
START_TEST(test_split4_guard)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const struct split4_case gc[] = {
		{ 64, 32, 1, 64 }, { 64, 34, 1, 64 }, { 64, 94, 1, 64 }, { 30, 100, 1, 30 },
		{ 16, 66, 1, 64 }, { 128, 98, 1, 128 }, { 24, 34, 1, 24 }, { 32, 50, 1, 32 },
		{ 24, 40, 1, 32 }, { 32, 64, 1, 32 },
	};

	if (!be)
		return;
	for (size_t i = 0; i < sizeof(gc) / sizeof(gc[0]); i++)
		for (int lead = 0; lead < 2; lead++) {
			struct drm_tilecopy_desc d = split4_desc(&gc[i], (unsigned)lead);
			char what[96];

			snprintf(what, sizeof(what), "guarded int4 split %u ch x %u px, dld %llu, %s",
				 gc[i].ch, gc[i].pix, (unsigned long long)gc[i].dld,
				 lead ? "guard before" : "guard after");
			check_guarded_tight(be, &d, lead, what);
		}
}
END_TEST

/* Where 4-bit parts are cut: never two parts in one byte (brute force). */
START_TEST(test_typed_cuts)
{
	static unsigned char owner[4096];

	rng_state = 0xc075ULL;
	for (int r = 0; r < 20000; r++) {
		int64_t first = rnd_below(4), stride = 1 + rnd_below(9);
		int64_t ext = 1 + rnd_below(60), inner = rnd_below((unsigned)stride);
		unsigned n = 2 + rnd_below(7), m;
		int64_t cut[16];

		m = tc_typed_cuts(first, stride, ext, inner, 4, n, cut);
		ck_assert(m >= 1 && m <= n);
		ck_assert(cut[0] == 0 && cut[m] == ext);
		memset(owner, 0xff, sizeof(owner));
		for (unsigned p = 0; p < m; p++) {
			ck_assert(cut[p] < cut[p + 1]);
			for (int64_t i = cut[p]; i < cut[p + 1]; i++)
				for (int64_t x = 0; x <= inner; x++) {
					int64_t byte = (first + i * stride + x) >> 1;

					ck_assert_msg(owner[byte] == 0xff || owner[byte] == p,
						      "first %lld stride %lld inner %lld: byte %lld in parts %u and %u",
						      (long long)first, (long long)stride,
						      (long long)inner, (long long)byte, owner[byte], p);
					owner[byte] = (unsigned char)p;
				}
		}
		/* bytes never share a nibble: any cut is fine, all are taken */
		ck_assert_uint_eq(tc_typed_cuts(first, stride, ext, inner, 8, n, cut),
				  (unsigned)(ext < n ? ext : n));
	}
}
END_TEST

/* Plans converting between formats, through the public API. */
struct typed_pair {
	const char *sf, *df;
	tilecopy_dtype_t st, dt;
	int q;		/* 0 none, 1 scale, 2 per channel (dim 1) + zero points, 3 zero points */
};

static void check_typed_plan(const char *cpu, const struct typed_pair *tp,
			     const int64_t *shape)
{
	tilecopy_tensor_t *st, *dtn;
	tilecopy_plan_t *plan = NULL;
	tilecopy_convert_params_t pr;
	float sc[256];	/* one per channel (shape[1]): the library reads them all */
	char what[96];

	ck_assert(shape[1] <= 256);
	ck_assert(!tilecopy_convert_params_init(&pr));
	for (int i = 0; i < 256; i++)
		sc[i] = i % 3 ? 0.25f * (float)(i + 1) : -0.75f;
	if (tp->q == 1)
		pr.scales = sc, pr.nscales = 1;
	if (tp->q == 2)
		pr.scales = sc, pr.nscales = (size_t)shape[1], pr.scale_dim = 1;
	if (tp->q >= 2)
		pr.src_zero_point = 3, pr.dst_zero_point = -2;
	ck_assert(!tilecopy_tensor_create(&st, tp->sf, shape, 4, tp->st, NULL, 0));
	ck_assert(!tilecopy_tensor_create(&dtn, tp->df, shape, 4, tp->dt, NULL, 0));
	ck_assert_msg(!tilecopy_plan_create_v2(&plan, st, dtn, &pr, 0), "%s->%s: %s",
		      tp->sf, tp->df, tilecopy_last_error());
	tilecopy_tensor_destroy(st);
	tilecopy_tensor_destroy(dtn);
	snprintf(what, sizeof(what), "%s -> %s (dtypes %d -> %d, q %d)", tp->sf, tp->df,
		 tp->st, tp->dt, tp->q);
	check_plan_vs_scalar(plan, cpu, 3, what);
}

START_TEST(test_typed_plans)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const struct typed_pair pairs[] = {
		{ "NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_BF16, 0 },
		{ "NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_F16, 1 },
		{ "NHWC", "NCHW", TILECOPY_DT_BF16, TILECOPY_DT_F32, 0 },
		{ "NCHW", "nChw16c", TILECOPY_DT_F32, TILECOPY_DT_I8, 2 },
		{ "nChw16c", "NCHW", TILECOPY_DT_I8, TILECOPY_DT_F32, 2 },
		{ "NCHW", "NCHW64", TILECOPY_DT_F32, TILECOPY_DT_I4, 2 },
		{ "NCHW64", "NHWC", TILECOPY_DT_I4, TILECOPY_DT_F16, 2 },
		{ "NCHW", "NCHW64", TILECOPY_DT_I4, TILECOPY_DT_I4, 0 },
		{ "NCHW", "NCHW32", TILECOPY_DT_I4, TILECOPY_DT_I4, 0 },
		{ "NHWC", "NCHW64", TILECOPY_DT_U4, TILECOPY_DT_U4, 0 },
		{ "NCHW64", "NCHW", TILECOPY_DT_I4, TILECOPY_DT_I4, 0 },
		{ "NCHW4", "NHWC", TILECOPY_DT_U8, TILECOPY_DT_U4, 1 },
		{ "NHWC", "NCHW32", TILECOPY_DT_I32, TILECOPY_DT_I32, 3 },
		{ "NC1HWC0", "NCHW", TILECOPY_DT_F16, TILECOPY_DT_I8, 3 },
		{ "CHWN", "nChw8c", TILECOPY_DT_BF16, TILECOPY_DT_U8, 2 },
	};
	/* the last: 4-bit pixel pairs split 32 bytes a step (tc_pack_split), and a tail */
	static const int64_t shapes[][4] = {
		{ 2, 37, 5, 7 }, { 1, 3, 4, 5 }, { 3, 64, 3, 17 }, { 2, 16, 4, 6 },
		{ 2, 104, 4, 6 },
	};

	if (!be)
		return;
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++)
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			check_typed_plan(be->name, &pairs[p], shapes[s]);
}
END_TEST

/*
 * The CPU path on a thread with a small stack (docs/sdk.md, "CPU threads"):
 * the paths with the largest stack buffers, run on a thread of
 * TC_SMALL_STACK bytes, whose guard page turns an overflow into a crash:
 * macro tiles (a 32 KiB stage) under the u8 squares (8 KiB) and under
 * staged short rows (16 KiB), staged short columns (16 KiB), a few-rows
 * program (16 KiB) and a typed converting plan. On AVX2 the deepest
 * (staged rows + macro tiles, u8 or f32) peaks at about 59 KiB.
 */
#define TC_SMALL_STACK	(80u << 10)

struct small_stack_job {
	const struct tc_cpu_backend *be;
};

static void *small_stack_run(void *arg)
{
	const struct small_stack_job *j = arg;
	static const struct typed_pair tp = {
		"NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_BF16, 0
	};
	static const int64_t tshape[4] = { 2, 64, 33, 35 };
	/* streamed, 1 KiB source rows: squares, then 40 columns of macro tiles */
	__u32 ext[2] = { 4224, 1000 };
	struct drm_tilecopy_desc d = copy_desc(1, 2, ext);
	__u32 fext[2] = { 3, (4u << 20) / 12 + 5 };
	struct drm_tilecopy_desc f = copy_desc(4, 2, fext);
	struct drm_tilecopy_desc c = cols_desc(4, 300, 16, 9, 8, 0);
	/* staged rows (16 KiB) streamed through macro tiles (32 KiB) */
	__u32 rext[4] = { 8, 64, 64, 33 };
	struct drm_tilecopy_desc r = copy_desc(4, 4, rext);
	static const __u64 rss[4] = { 64 * 64, 64, 1, 8 * 64 * 64 };
	static const __u64 rds[4] = { 1, 8, 512, 512 * 64 };

	/* the same in u8 (rows of 256), the line groups' frame after it */
	__u32 r8ext[4] = { 8, 256, 64, 33 };
	struct drm_tilecopy_desc r8 = copy_desc(1, 4, r8ext);
	static const __u64 r8ss[4] = { 256 * 64, 64, 1, 8 * 256 * 64 };
	static const __u64 r8ds[4] = { 1, 8, 2048, 2048 * 64 };

	memcpy(r.src_stride, rss, sizeof(rss));
	memcpy(r.dst_stride, rds, sizeof(rds));
	memcpy(r8.src_stride, r8ss, sizeof(r8ss));
	memcpy(r8.dst_stride, r8ds, sizeof(r8ds));

	d.src_stride[0] = 1024;
	d.src_stride[1] = 1;
	d.dst_stride[0] = 1;
	d.dst_stride[1] = 4224;
	check_descs(j->be, &d, 1, 0, "small stack: u8 squares + macro tiles");
	f.src_stride[0] = fext[1];
	f.src_stride[1] = 1;
	f.dst_stride[0] = 1;
	f.dst_stride[1] = 3;
	check_descs(j->be, &f, 1, 0, "small stack: C = 3 image");
	check_descs(j->be, &c, 1, 0, "small stack: staged columns");
	check_descs(j->be, &r, 1, 0, "small stack: staged rows + macro tiles");
	check_descs(j->be, &r8, 1, 0, "small stack: u8 staged rows + macro tiles");
	check_typed_plan(j->be->name, &tp, tshape);
	return NULL;
}

START_TEST(test_small_stack)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	struct small_stack_job j = { .be = be };
	long min_stack = sysconf(_SC_THREAD_STACK_MIN);
	pthread_attr_t attr;
	pthread_t th;

	if (!be)
		return;
	ck_assert(!tilecopy_cpu_set_threads(1));
	ck_assert(!pthread_attr_init(&attr));
	/* arm64 glibc refuses stacks under 128 KiB (PTHREAD_STACK_MIN) */
	ck_assert(!pthread_attr_setstacksize(&attr, min_stack > TC_SMALL_STACK ?
						       (size_t)min_stack : TC_SMALL_STACK));
	ck_assert(!pthread_create(&th, &attr, small_stack_run, &j));
	ck_assert(!pthread_join(th, NULL));
	pthread_attr_destroy(&attr);
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

/* ---- dispatch --------------------------------------------------------- */

START_TEST(test_dispatch)
{
	const struct tc_cpu_backend *be;
	int err = 0, tested = 0;

	be = tc_cpu_backend_get("no-such-cpu", &err);
	ck_assert_ptr_null(be);
	ck_assert_int_eq(err, -EINVAL);

	be = tc_cpu_backend_get("scalar", &err);
	ck_assert_ptr_nonnull(be);
	ck_assert_str_eq(be->name, "scalar");

#if defined(__x86_64__)
	be = tc_cpu_backend_get("neon", &err);	/* known, but not here */
	ck_assert_ptr_null(be);
	ck_assert_int_eq(err, -ENODEV);
	{
		const char *name;

		ck_assert_int_eq(tilecopy_cpu_name("neon", &name), TILECOPY_ERR_UNSUPPORTED);
	}
#elif defined(__aarch64__)
	be = tc_cpu_backend_get("avx2", &err);
	ck_assert_ptr_null(be);
	ck_assert_int_eq(err, -ENODEV);
#endif
	/* The environment decides when no name is given; bad values are errors. */
	setenv("TILECOPY_CPU", "bogus", 1);
	tc_cpu_backend_env_reload();
	ck_assert_ptr_null(tc_cpu_backend_get(NULL, &err));
	ck_assert_int_eq(err, -EINVAL);
	{
		const char *name;

		ck_assert_int_ne(tilecopy_cpu_name(NULL, &name), TILECOPY_SUCCESS);
	}
	setenv("TILECOPY_CPU", "scalar", 1);
	ck_assert_ptr_null(tc_cpu_backend_get(NULL, &err));	/* read once */
	tc_cpu_backend_env_reload();
	be = tc_cpu_backend_get(NULL, &err);
	ck_assert_ptr_nonnull(be);
	ck_assert_str_eq(be->name, "scalar");
	unsetenv("TILECOPY_CPU");
	tc_cpu_backend_env_reload();

	/* Default: the best available is the first available SIMD one. */
	be = tc_cpu_backend_get(NULL, &err);
	ck_assert_ptr_nonnull(be);
	/* simd_names is in ascending order of width: the last available wins */
	for (int i = NNAMES - 1; i >= 0; i--) {
		if (!tc_cpu_backend_get(simd_names[i], &err))
			continue;
		if (!tested)
			ck_assert_str_eq(be->name, simd_names[i]);
		tested++;
	}
#if defined(__x86_64__) || defined(__aarch64__)
	ck_assert_msg(tested > 0, "no SIMD executor can run here: nothing was tested");
#endif
}
END_TEST

/* ---- small plans: one kernel call (tc_direct_analyse) ------------------ */

/*
 * @d's one-call form (if it has one) on @be against the scalar reference
 * running @d, buffers misaligned by @mis, the destination full of noise.
 * @return the form's kind, or -1 if @be declined it (then it must have
 * written nothing).
 */
static int check_direct(const struct tc_cpu_backend *be,
			const struct drm_tilecopy_desc *d, unsigned mis,
			const char *what)
{
	size_t ssz = need_bytes(d, 1), dsz = need_bytes(d, 0), i;
	unsigned char *sbuf, *ref, *out;
	struct tc_direct dc;
	int ret;

	tc_direct_analyse(d, 1, &dc);
	if (dc.kind == TC_DIRECT_NONE)
		return TC_DIRECT_NONE;
	sbuf = aligned_alloc(64, (ssz + 127) & ~(size_t)63);
	ref = aligned_alloc(64, (dsz + 127) & ~(size_t)63);
	out = aligned_alloc(64, (dsz + 127) & ~(size_t)63);
	ck_assert(sbuf && ref && out);
	fill_noise(sbuf + mis, ssz, 0x51 + ssz);
	fill_noise(ref + mis, dsz, 0x77 + dsz);
	memcpy(out + mis, ref + mis, dsz);
	ret = be->direct(&dc, sbuf + mis, out + mis);
	if (ret) {
		ck_assert_msg(!memcmp(ref + mis, out + mis, dsz),
			      "%s: %s declined but wrote", be->name, what);
	} else {
		ck_assert_int_eq(tc_exec_scalar(d, 1, sbuf + mis, ref + mis), 0);
		for (i = 0; i < dsz && ref[mis + i] == out[mis + i]; i++)
			;
		ck_assert_msg(i == dsz,
			      "%s on %s (one call, misaligned by %u): first difference at byte %zu of %zu",
			      be->name, what, mis, i, dsz);
	}
	free(sbuf);
	free(ref);
	free(out);
	return ret ? -1 : (int)dc.kind;
}

/* A 2-D transpose of @rows x @cols (rows dst-contiguous), @lead elements more a line. */
static struct drm_tilecopy_desc direct_tr(unsigned es, __u32 rows, __u32 cols,
					  __u32 slead, __u32 dlead)
{
	struct drm_tilecopy_desc d = transpose_desc(es, rows, cols, 1, cols + slead,
						    rows + dlead);

	d.ndims = 2;
	return d;
}

/* @src and @dst as offsets into the buffers. */
static struct drm_tilecopy_desc direct_at(struct drm_tilecopy_desc d, __u64 src, __u64 dst)
{
	d.src = src;
	d.dst = dst;
	return d;
}

/* A contiguous run of @n elements of @es bytes. */
static struct drm_tilecopy_desc direct_run(unsigned es, __u32 n)
{
	struct drm_tilecopy_desc d = copy_desc(es, 1, &n);

	d.src_stride[0] = 1;
	d.dst_stride[0] = 1;
	return d;
}

/*
 * Runs of 4 elements of @es bytes (dim 0, contiguous both sides),
 * transposed over 40 rows (dim 1: 4 apart at the destination) by 24
 * columns (dim 2: 4 apart at the source).
 */
static struct drm_tilecopy_desc direct_runs4(unsigned es)
{
	__u32 ext[3] = { 4, 40, 24 };
	struct drm_tilecopy_desc d = copy_desc(es, 3, ext);

	d.src_stride[0] = 1, d.dst_stride[0] = 1;
	d.src_stride[1] = 4 * 24, d.dst_stride[1] = 4;
	d.src_stride[2] = 4, d.dst_stride[2] = 4 * 40;
	return d;
}

struct direct_case {
	struct drm_tilecopy_desc d;
	int kind;	/* expected of tc_direct_analyse */
	const char *what;
};

START_TEST(test_direct)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	const struct direct_case c[] = {
		/* the bench's small-4k-f32: NCHW -> NHWC 1x16x8x8 f32 */
		{ direct_tr(4, 16, 64, 0, 0), TC_DIRECT_TRANSPOSE, "4 KB f32 NCHW -> NHWC" },
		{ direct_tr(4, 64, 16, 0, 0), TC_DIRECT_TRANSPOSE, "4 KB f32 NHWC -> NCHW" },
		{ direct_run(4, 1024), TC_DIRECT_COPY, "4 KB copy" },
		/* one block at most: f32 1536 x 384 merge into one, one more does not */
		{ direct_at(direct_tr(4, 16, 384, 3, 1), 3, 8), TC_DIRECT_TRANSPOSE,
		  "f32 cols at the block" },
		{ direct_tr(4, 16, 385, 0, 0), TC_DIRECT_NONE, "f32 cols past the block" },
		{ direct_tr(4, 1536, 8, 0, 5), TC_DIRECT_TRANSPOSE, "f32 rows at the block" },
		{ direct_tr(4, 1537, 8, 0, 0), TC_DIRECT_NONE, "f32 rows past the block" },
		{ direct_tr(1, 6144, 9, 1, 0), TC_DIRECT_TRANSPOSE, "u8 rows at the block" },
		{ direct_tr(1, 6145, 9, 0, 0), TC_DIRECT_NONE, "u8 rows past the block" },
		/* under the threads' minimum (256 KiB) only */
		{ direct_tr(1, 256, 1023, 0, 0), TC_DIRECT_TRANSPOSE, "u8 under 256 KiB" },
		{ direct_tr(1, 256, 1024, 0, 0), TC_DIRECT_NONE, "u8 at 256 KiB" },
		/* one fractal (the fractal kernels), f16 and u8 */
		{ direct_tr(1, 32, 32, 0, 0), TC_DIRECT_TRANSPOSE, "u8 32 x 32 fractal" },
		{ direct_tr(2, 16, 16, 0, 0), TC_DIRECT_TRANSPOSE, "f16 16 x 16 fractal" },
		{ direct_tr(2, 16, 16, 1, 0), TC_DIRECT_TRANSPOSE, "f16 16 x 16, not a fractal" },
		/* few rows (C = 3): the executors with programs decline */
		{ direct_tr(4, 3, 100, 0, 0), TC_DIRECT_TRANSPOSE, "f32 C = 3" },
		{ direct_tr(8, 2, 17, 0, 0), TC_DIRECT_TRANSPOSE, "f64 C = 2" },
		{ direct_tr(4, 4, 33, 0, 0), TC_DIRECT_TRANSPOSE, "f32 C = 4" },
		/* runs of 4 u8 transposed as u32 (a third dim, the run) */
		{ direct_runs4(1), TC_DIRECT_TRANSPOSE, "u8 runs of 4" },
		/* runs of 16 bytes: not a transpose kernel's */
		{ direct_runs4(4), TC_DIRECT_NONE, "f32 runs of 16 bytes" },
		/* a batch of two transposes: more than one point */
		{ transpose_desc(4, 16, 64, 2, 64, 16), TC_DIRECT_NONE, "batch of 2" },
	};
	struct drm_tilecopy_desc two[2], f;
	struct tc_direct dc;
	int n = 0, ok = 0;

	if (!be)
		return;
	ck_assert_ptr_nonnull(be->direct);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		tc_direct_analyse(&c[i].d, 1, &dc);
		ck_assert_msg((int)dc.kind == c[i].kind, "%s: kind %d, expected %d",
			      c[i].what, (int)dc.kind, c[i].kind);
		for (unsigned mis = 0; mis < 8; mis += 3) {
			int r = check_direct(be, &c[i].d, mis, c[i].what);

			/* only a few-rows program may take a one-call form elsewhere */
			ck_assert_msg(r == c[i].kind || (r == -1 && strstr(c[i].what, "C = ")),
				      "%s: %s gave %d", be->name, c[i].what, r);
			/* every executor but SSE2 has one, and C = 3 f32 is its shape */
			if (!strcmp(c[i].what, "f32 C = 3"))
				ck_assert_int_eq(r, strcmp(be->name, "sse2") ? -1 : c[i].kind);
		}
	}
	/* never: two descriptors, a FILL, a typed copy */
	two[0] = c[0].d;
	two[1] = c[2].d;
	tc_direct_analyse(two, 2, &dc);
	ck_assert_int_eq(dc.kind, TC_DIRECT_NONE);
	tc_direct_analyse(two, 0, &dc);
	ck_assert_int_eq(dc.kind, TC_DIRECT_NONE);
	f = c[2].d;
	f.op = DRM_TILECOPY_OP_FILL;
	tc_direct_analyse(&f, 1, &dc);
	ck_assert_int_eq(dc.kind, TC_DIRECT_NONE);
	f = c[0].d;
	f.src_type = DRM_TILECOPY_TYPE_F32;
	f.dst_type = DRM_TILECOPY_TYPE_F32;
	tc_direct_analyse(&f, 1, &dc);
	ck_assert_int_eq(dc.kind, TC_DIRECT_NONE);
	/* random single descriptors: the one-call forms among them agree */
	rng_state = 0xd12ec7ULL + (uint64_t)_i;
	for (int r = 0; r < (quick() ? 300 : 1500); r++) {
		struct drm_tilecopy_desc d;
		char what[48];

		random_desc(&d);
		snprintf(what, sizeof(what), "random descriptor %d", r);
		n++;
		ok += check_direct(be, &d, rnd_below(8), what) > 0;
	}
	/* the generator makes some of every kind: a few percent at least */
	ck_assert_msg(ok * 50 > n, "%d of %d random descriptors in one call", ok, n);
}
END_TEST

/*
 * Small plans through the public API, in place and overlapping (dst =
 * src + shift in one buffer): the overlap check must run before the
 * one-call form, which would read what it has written. Against the scalar
 * executor on a copy of the source; and the plans the bench's 4 KB cases
 * make must have a one-call form (plan->direct, white box).
 */
static const char *const inplace_fmt4[] = { "NCHW", "NHWC", "CHWN", "HWCN", "NWHC", "NHCW" };
static const char *const inplace_fmt2[] = { "RowMajor", "ColumnMajor" };

static tilecopy_plan_t *inplace_plan(const char *sf, const char *df, const int64_t *shape,
				     int rank, tilecopy_dtype_t dt)
{
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *p = NULL;

	if (tilecopy_tensor_create(&s, sf, shape, rank, dt, NULL, 0))
		return NULL;
	if (!tilecopy_tensor_create(&d, df, shape, rank, dt, NULL, 0)) {
		if (tilecopy_plan_create(&p, s, d, 0))
			p = NULL;
		tilecopy_tensor_destroy(d);
	}
	tilecopy_tensor_destroy(s);
	return p;
}

static void check_inplace(tilecopy_plan_t *p, const char *cpu, size_t shift)
{
	uint64_t sb = 0, db = 0;
	size_t big;
	unsigned char *buf, *ref, *orig, *copy;

	tilecopy_plan_src_bytes(p, &sb);
	tilecopy_plan_dst_bytes(p, &db);
	big = (size_t)(sb + db) + 64;
	buf = malloc(big);
	ref = malloc(big);
	orig = malloc(big);
	copy = malloc(sb + 1);
	ck_assert(buf && ref && orig && copy);
	fill_noise(orig, big, big + shift);
	memcpy(ref, orig, big);
	memcpy(copy, orig, sb);
	ck_assert(!tilecopy_plan_execute_cpu(p, copy, sb, ref + shift, db, "scalar"));
	memcpy(buf, orig, big);
	ck_assert_msg(!tilecopy_plan_execute_cpu(p, buf, sb, buf + shift, db, cpu),
		      "%s: %s", cpu, tilecopy_last_error());
	ck_assert_msg(!memcmp(buf, ref, big),
		      "%s: dst = src + %zu differs from disjoint buffers (one-call form %d)",
		      cpu, shift, (int)((const struct tilecopy_plan *)p)->direct.kind);
	free(buf);
	free(ref);
	free(orig);
	free(copy);
}

START_TEST(test_direct_inplace)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	static const int64_t small[4] = { 1, 16, 8, 8 };
	tilecopy_plan_t *p;
	int n = 0, direct = 0;

	if (!be)
		return;
	/* the bench's small-4k-f32 and small-4k-copy-f32 */
	for (int k = 0; k < 2; k++) {
		p = inplace_plan("NCHW", k ? "NCHW" : "NHWC", small, 4, TILECOPY_DT_F32);
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(((const struct tilecopy_plan *)p)->direct.kind,
				 k ? TC_DIRECT_COPY : TC_DIRECT_TRANSPOSE);
		check_inplace(p, be->name, 0);
		check_inplace(p, be->name, k ? 4 : 100);
		tilecopy_plan_destroy(p);
	}

	rng_state = 0x1a91aceULL + (uint64_t)_i;
	for (int it = 0; it < (quick() ? 150 : 500); it++) {
		int two = (int)rnd_below(2), rank = two ? 2 : 4;
		tilecopy_dtype_t dt = (tilecopy_dtype_t)rnd_below(9);	/* U8 .. I64 */
		int64_t sh[4];
		uint64_t sb = 0;

		for (int k = 0; k < rank; k++)
			sh[k] = 1 + rnd_below(two ? 60 : 12);
		p = two ? inplace_plan(inplace_fmt2[rnd_below(2)], inplace_fmt2[rnd_below(2)],
				       sh, rank, dt) :
			  inplace_plan(inplace_fmt4[rnd_below(6)], inplace_fmt4[rnd_below(6)],
				       sh, rank, dt);
		ck_assert_msg(p, "plan: %s", tilecopy_last_error());
		tilecopy_plan_src_bytes(p, &sb);
		n++;
		direct += ((const struct tilecopy_plan *)p)->direct.kind != TC_DIRECT_NONE;
		check_inplace(p, be->name, 0);
		check_inplace(p, be->name, rnd_below((unsigned)sb + 1));
		tilecopy_plan_destroy(p);
	}
	/* most of these small plans have a one-call form */
	ck_assert_msg(direct * 2 > n, "%d of %d plans in one call", direct, n);
}
END_TEST

/*
 * Which kernels a plan reaches. The test is linked with --wrap for the
 * executors' two ways into the kernels (tc_exec_kernels, tc_direct_run):
 * while @on, each call's kernel table is swapped for a copy whose
 * transposes and fractals count their calls, then call the real ones.
 * Skipping the one call, or running fractals as plain transposes, gives
 * the same bytes: only these counts tell.
 */
int __real_tc_exec_kernels(const struct tc_kernels *k, const struct drm_tilecopy_desc *descs,
			   size_t n, const void *src, void *dst, const float *scales);
int __real_tc_direct_run(const struct tc_kernels *k, const struct tc_direct *dc,
			 const void *src, void *dst);

static struct {
	int on;
	const struct tc_kernels *orig;
	struct tc_kernels k;
	_Atomic int exec, direct, direct_done, tr[4], fractal[4];
} paths;

#define PATH_TR(l)							\
static void path_tr##l(char *d, size_t dld, const char *s, size_t sld,	\
		       size_t rows, size_t cols, int nt)		\
{									\
	paths.tr[l]++;							\
	paths.orig->transpose[l](d, dld, s, sld, rows, cols, nt);	\
}
#define PATH_FR(l)							\
static void path_fr##l(char *d, const char *s, int nt)			\
{									\
	paths.fractal[l]++;						\
	paths.orig->fractal[l](d, s, nt);				\
}
PATH_TR(0) PATH_TR(1) PATH_TR(2) PATH_TR(3)
PATH_FR(0) PATH_FR(1) PATH_FR(2) PATH_FR(3)

static const struct tc_kernels *paths_kernels(const struct tc_kernels *k)
{
	static void (*const tr[4])(char *, size_t, const char *, size_t, size_t, size_t,
				   int) = { path_tr0, path_tr1, path_tr2, path_tr3 };
	static void (*const fr[4])(char *, const char *, int) = {
		path_fr0, path_fr1, path_fr2, path_fr3,
	};

	if (!paths.on || k == &paths.k)	/* (a nested call: already counted) */
		return k;
	paths.orig = k;
	paths.k = *k;
	for (int l = 0; l < 4; l++) {
		paths.k.transpose[l] = tr[l];
		if (k->fractal[l])
			paths.k.fractal[l] = fr[l];
	}
	return &paths.k;
}

int __wrap_tc_exec_kernels(const struct tc_kernels *k, const struct drm_tilecopy_desc *descs,
			   size_t n, const void *src, void *dst, const float *scales);
int __wrap_tc_exec_kernels(const struct tc_kernels *k, const struct drm_tilecopy_desc *descs,
			   size_t n, const void *src, void *dst, const float *scales)
{
	if (paths.on)
		paths.exec++;
	return __real_tc_exec_kernels(paths_kernels(k), descs, n, src, dst, scales);
}

int __wrap_tc_direct_run(const struct tc_kernels *k, const struct tc_direct *dc,
			 const void *src, void *dst);
int __wrap_tc_direct_run(const struct tc_kernels *k, const struct tc_direct *dc,
			 const void *src, void *dst)
{
	int ret;

	if (paths.on)
		paths.direct++;
	ret = __real_tc_direct_run(paths_kernels(k), dc, src, dst);
	if (paths.on && !ret)
		paths.direct_done++;
	return ret;
}

/* counts of one run of @p on @cpu (one thread), after its output is checked */
struct path_counts {
	int exec, direct, direct_done, tr, fractal;
};

static struct path_counts run_counted(tilecopy_plan_t *p, const char *cpu, unsigned lg)
{
	uint64_t sb = 0, db = 0;
	unsigned char *src, *dst, *ref;
	struct path_counts c;

	tilecopy_plan_src_bytes(p, &sb);
	tilecopy_plan_dst_bytes(p, &db);
	src = malloc(sb);
	dst = malloc(db);
	ref = malloc(db);
	ck_assert(src && dst && ref);
	fill_noise(src, sb, sb);
	fill_noise(dst, db, 7);
	memcpy(ref, dst, db);
	ck_assert(!tilecopy_plan_execute_cpu(p, src, sb, ref, db, "scalar"));
	memset(&paths, 0, sizeof(paths));
	paths.on = 1;
	ck_assert_msg(!tilecopy_plan_execute_cpu(p, src, sb, dst, db, cpu), "%s: %s", cpu,
		      tilecopy_last_error());
	paths.on = 0;
	ck_assert_msg(!memcmp(dst, ref, db), "%s: differs from the scalar executor", cpu);
	c = (struct path_counts){ paths.exec, paths.direct, paths.direct_done, paths.tr[lg],
				  paths.fractal[lg] };
	free(src);
	free(dst);
	free(ref);
	return c;
}

/* C = 3 f32: every executor but SSE2 declines the one call (a few-rows program). */
static const struct tc_kernels *paths_c3(const struct tc_cpu_backend *be)
{
	static const int64_t c3[4] = { 1, 3, 8, 8 };
	int sse2 = !strcmp(be->name, "sse2");
	tilecopy_plan_t *p = inplace_plan("NCHW", "NHWC", c3, 4, TILECOPY_DT_F32);
	struct path_counts c;

	ck_assert_ptr_nonnull(p);
	c = run_counted(p, be->name, 2);
	tilecopy_plan_destroy(p);
	ck_assert_msg(c.direct == 1 && c.direct_done == sse2 && c.exec == !sse2,
		      "%s: C = 3 f32: %d direct calls (%d done), %d analysed", be->name,
		      c.direct, c.direct_done, c.exec);
	ck_assert_ptr_nonnull(paths.orig);
	return paths.orig;	/* this executor's kernel table */
}

/* The bench's 4 KB plans: one kernel call, no analysis. */
static void paths_4k(const struct tc_cpu_backend *be)
{
	static const int64_t small[4] = { 1, 16, 8, 8 };

	for (int copy = 0; copy < 2; copy++) {
		tilecopy_plan_t *p = inplace_plan("NCHW", copy ? "NCHW" : "NHWC", small, 4,
						  TILECOPY_DT_F32);
		struct path_counts c;

		ck_assert_ptr_nonnull(p);
		c = run_counted(p, be->name, 2);
		tilecopy_plan_destroy(p);
		ck_assert_msg(c.direct == 1 && c.direct_done == 1 && c.exec == 0,
			      "%s: 4 KB %s: %d direct calls (%d done), %d analysed", be->name,
			      copy ? "copy" : "transpose", c.direct, c.direct_done, c.exec);
		ck_assert_int_eq(c.tr, copy ? 0 : 1);
	}
}

/*
 * zN -> nZ of element size 1 << @lg: one fractal is one call to the
 * fractal kernel where @k has one, and 256 x 256 elements are that many
 * fractal calls through the analysis, no transpose.
 */
static void paths_fractals(const struct tc_cpu_backend *be, const struct tc_kernels *k,
			   unsigned lg)
{
	tilecopy_dtype_t dt = lg ? TILECOPY_DT_F16 : TILECOPY_DT_I8;
	int64_t B = 32 >> lg, one[2] = { B, B }, big[2] = { 256, 256 };
	int fractals = (int)((256 / B) * (256 / B)), has = k->fractal[lg] != NULL;
	tilecopy_plan_t *p = inplace_plan("zN", "nZ", one, 2, dt);
	struct path_counts c;

	ck_assert_ptr_nonnull(p);
	c = run_counted(p, be->name, lg);
	tilecopy_plan_destroy(p);
	ck_assert_msg(c.direct_done == 1 && c.exec == 0, "%s: one fractal (es %u): %d/%d",
		      be->name, 1u << lg, c.direct_done, c.exec);
	ck_assert_msg(c.fractal == has && c.tr == !has,
		      "%s: one fractal (es %u): %d fractal, %d transpose calls", be->name,
		      1u << lg, c.fractal, c.tr);

	p = inplace_plan("zN", "nZ", big, 2, dt);
	ck_assert_ptr_nonnull(p);
	c = run_counted(p, be->name, lg);
	tilecopy_plan_destroy(p);
	ck_assert_msg(c.exec == 1 && c.direct == 0, "%s: 256 x 256: %d / %d", be->name,
		      c.exec, c.direct);
	ck_assert_msg(has ? c.fractal == fractals && c.tr == 0 : c.tr > 0,
		      "%s: 256 x 256 (es %u): %d fractal, %d transpose calls", be->name,
		      1u << lg, c.fractal, c.tr);
}

START_TEST(test_paths)
{
	const struct tc_cpu_backend *be = backend_or_skip(_i);
	const struct tc_kernels *k;

	if (!be)
		return;
	ck_assert(!tilecopy_cpu_set_threads(1));
	k = paths_c3(be);
	paths_4k(be);
	for (unsigned lg = 0; lg < 2; lg++)
		paths_fractals(be, k, lg);
	ck_assert(!tilecopy_cpu_set_threads(0));
}
END_TEST

static Suite *simd_suite(void)
{
	Suite *s = suite_create("simd");
	TCase *tc;

#define ADD(name, fn, loop)						\
	do {								\
		tc = tcase_create(name);				\
		tcase_set_timeout(tc, 120);				\
		if (loop)						\
			tcase_add_loop_test(tc, fn, 0, NNAMES);		\
		else							\
			tcase_add_test(tc, fn);				\
		suite_add_tcase(s, tc);					\
	} while (0)
	ADD("/simd/dispatch", test_dispatch, 0);
	ADD("/simd/transpose-2d", test_transpose_2d, 1);
	ADD("/simd/runs", test_runs, 1);
	ADD("/simd/runs-pairs", test_runs_pairs, 1);
	ADD("/simd/runs-pairs/guard", test_runs_pairs_guard, 1);
	ADD("/simd/runs-pairs/batch", test_runs_pairs_batch, 1);
	ADD("/simd/broadcast-fill", test_broadcast_and_fill, 1);
	ADD("/simd/overlapping-dst", test_overlapping_dst, 1);
	ADD("/simd/large", test_large, 1);
	ADD("/simd/few-rows", test_few_rows, 1);
	ADD("/simd/fractal", test_fractal, 1);
	ADD("/simd/staged-cols", test_staged_cols, 1);
	ADD("/simd/typed-tr-bytes", test_typed_tr_bytes, 1);
	ADD("/simd/cvt-tr-encode", test_cvt_tr_encode, 0);
	ADD("/simd/staged", test_staged, 1);
	ADD("/simd/macro-tiles/nhwc-nchw", test_macro_nhwc_nchw, 1);
	ADD("/simd/macro-tiles/nchw-nhwc", test_macro_nchw_nhwc, 1);
	ADD("/simd/group-rows", test_group_rows, 1);
	ADD("/simd/small-stack", test_small_stack, 1);
	ADD("/simd/fused-padding", test_fused_padding, 1);
	ADD("/simd/fused-padding/planner", test_fused_planner, 1);
	ADD("/simd/fused-padding/between", test_fused_between, 1);
	ADD("/simd/threads", test_threads, 1);
	ADD("/simd/pool-stress", test_pool_stress, 1);
	ADD("/simd/concurrent-callers", test_concurrent_callers, 1);
	ADD("/simd/fork", test_fork, 1);
	ADD("/simd/thread-api", test_thread_api, 0);
	ADD("/simd/random", test_random, 1);
	ADD("/simd/format-pairs", test_format_pairs, 1);
	ADD("/simd/u8-squares", test_u8_squares, 1);
	ADD("/simd/u8-squares/planner", test_u8_squares_planner, 1);
	ADD("/simd/crowded-rows", test_crowded_rows, 1);
	ADD("/simd/crowded-rows/guard", test_crowded_rows_guard, 1);
	ADD("/simd/typed-random", test_typed_random, 1);
	ADD("/simd/typed-threads", test_typed_threads, 1);
	ADD("/simd/int4-split", test_split4, 1);
	ADD("/simd/int4-split/guard", test_split4_guard, 1);
	ADD("/simd/typed-cuts", test_typed_cuts, 0);
	ADD("/simd/typed-plans", test_typed_plans, 1);
	ADD("/simd/direct", test_direct, 1);
	ADD("/simd/direct/in-place", test_direct_inplace, 1);
	ADD("/simd/paths", test_paths, 1);
#undef ADD
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(simd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
