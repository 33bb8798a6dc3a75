// SPDX-License-Identifier: MIT
/*
 * pattern_typed.c - typed descriptors (ABI 1.2: element conversion, 4-bit
 * elements) in the SIMD executors.
 *
 * A typed COPY is normalised like an untyped one (unit dims dropped, dims
 * whose source, destination and scale strides all chain merged; strides
 * in elements), then run one of two ways:
 *
 *   transpose   dim 0 is contiguous in the destination and another dim in
 *               the source (NCHW f32 -> NHWC bf16, NCHW -> NCHW64 i4):
 *               tiles of up to TC_TT_COLS x (TC_TT_ELEMS / cols) elements;
 *               the source rows are decoded to binary32 with the contiguous
 *               kernels, the tile transposed by the executor's 4-byte
 *               register transpose, and the destination rows encoded (zero
 *               points and scales applied there). Decoding is exact, so
 *               decode + (affine, encode) is the conversion itself.
 *   runs        anything else: tc_cvt_run() per run of dim 0, in the
 *               descriptor's order (strided runs are gathered per chunk).
 *
 * The executor's conversion kernel set (tc_cvt_for_executor) does the
 * element work; every set gives the reference's bits (tests/cvt), so the
 * result is the scalar executor's whatever the path.
 *
 * Threads: a COPY writing TC_TYPED_THREAD_MIN bytes or more is cut along
 * its outermost destination dim, each part a range of it. For a 4-bit
 * destination a cut is placed only where the two parts' nibbles share no
 * byte (two threads must never write the two nibbles of one byte).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tilecopy/tilecopy.h"
#include "cpu/cpu_exec.h"
#include "cpu/cvt_desc.h"
#include "cpu/pattern.h"
#include "cpu/pool.h"

#define TC_MAXD DRM_TILECOPY_MAX_DIMS

/*
 * A transpose tile: at most TC_TT_COLS destination elements per row, and
 * TC_TT_ELEMS binary32 per stage (8 KiB; two stages stay in L1 with the
 * source and destination lines). Measured on NCHW f32 -> NHWC bf16, C = 64:
 * see docs/performance.md.
 */
#define TC_TT_COLS	64
#define TC_TT_ELEMS	2048
/* Ops writing less than this stay on one thread (as pattern.c's). */
#define TC_TYPED_THREAD_MIN	(256u << 10)

struct tc_tdim {
	int64_t ext, ss, ds, cs;
};

/*
 * struct tc_top - a typed COPY, analysed; or a part of one (a range of its
 * split dim). Element (i0, ...) is source element @so + sum(i_k * ss_k) of
 * @src (a 4-bit index counting nibbles from @src's low one), likewise the
 * destination, and takes scale @co + sum(i_k * cs_k) of @scales.
 */
struct tc_top {
	const struct tc_kernels *k;
	const struct tc_cvt *cv, *dec, *enc;
	const char *src;
	char *dst;
	const float *scales;
	int64_t so, dso, co;
	int nd;
	struct tc_tdim d[TC_MAXD];
	int a, b;		/* transpose: a contiguous in src, b in dst; else -1 */
	unsigned int dbits;
};

/* ---- the kernel set of each executor ----------------------------------------- */

static const struct {
	const char *exec;
	const char *sets[3];
} tc_cvt_map[] = {
	{ "avx512", { "avx512bf16", "avx512", NULL } },
	{ "avx2", { "avx2", NULL } },
	{ "sse2", { "scalar", NULL } },
	{ "neon", { "neonbf16", "neon", NULL } },
};

#define TC_NMAP (sizeof(tc_cvt_map) / sizeof(tc_cvt_map[0]))

const struct tc_cvt_kernels *tc_cvt_for_executor(const char *exec)
{
	static const struct tc_cvt_kernels *_Atomic cache[TC_NMAP];
	const struct tc_cvt_kernels *k = NULL;
	size_t i;

	for (i = 0; i < TC_NMAP && strcmp(tc_cvt_map[i].exec, exec); i++)
		;
	if (i == TC_NMAP)
		return &tc_cvt_scalar;
	k = atomic_load_explicit(&cache[i], memory_order_acquire);
	for (int j = 0; !k && tc_cvt_map[i].sets[j]; j++)
		k = tc_cvt_kernels_get(tc_cvt_map[i].sets[j], NULL);
	if (!k)
		k = &tc_cvt_scalar;	/* an executor runs on a CPU with less */
	atomic_store_explicit(&cache[i], k, memory_order_release);
	return k;
}

/* ---- shape ----------------------------------------------------------------- */

static void tc_top_shape(struct tc_top *t, const struct drm_tilecopy_desc *d)
{
	int m = 0;

	for (int k = 0; k < d->ndims && k < TC_MAXD; k++) {
		struct tc_tdim x = {
			(int64_t)d->extent[k], (int64_t)d->src_stride[k],
			(int64_t)d->dst_stride[k], t->scales ? (int64_t)d->scale_stride[k] : 0,
		};

		if (x.ext == 1)
			continue;
		if (m && x.ss == t->d[m - 1].ss * t->d[m - 1].ext &&
		    x.ds == t->d[m - 1].ds * t->d[m - 1].ext &&
		    x.cs == t->d[m - 1].cs * t->d[m - 1].ext) {
			t->d[m - 1].ext *= x.ext;
			continue;
		}
		t->d[m++] = x;
	}
	if (!m) {
		t->d[0] = (struct tc_tdim){ 1, 1, 1, 0 };
		m = 1;
	}
	t->nd = m;
}

/* No two elements share a destination element (sorted, each stride clears the smaller ones). */
static int tc_top_disjoint(const struct tc_top *t)
{
	unsigned used = 0;
	int64_t span = 1;

	for (int i = 0; i < t->nd; i++) {
		int best = -1;

		for (int k = 0; k < t->nd; k++)
			if (!(used & (1u << k)) && (best < 0 || t->d[k].ds < t->d[best].ds))
				best = k;
		used |= 1u << best;
		if (t->d[best].ds < span)
			return 0;
		span += t->d[best].ds * (t->d[best].ext - 1);
	}
	return 1;
}

static void tc_top_analyse(struct tc_top *t)
{
	t->a = t->b = -1;
	if (t->nd < 2 || t->d[0].ds != 1 || t->d[0].ss == 1 || !t->dec ||
	    !tc_top_disjoint(t))
		return;
	for (int k = 1; k < t->nd; k++) {
		if (t->d[k].ss == 1 && t->d[k].ds != 1) {
			t->a = k;
			t->b = 0;
			return;
		}
	}
}

/* ---- iteration ------------------------------------------------------------- */

typedef void (*tc_tpoint_fn)(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			     void *ctx);

/* Every point of the dims not in @skip, dim 0 fastest. */
static void tc_top_foreach(const struct tc_top *t, unsigned skip, tc_tpoint_fn fn, void *ctx)
{
	int64_t idx[TC_MAXD] = { 0 }, so = t->so, dso = t->dso, co = t->co;
	int k;

	for (;;) {
		fn(t, so, dso, co, ctx);
		for (k = 0; k < t->nd; k++) {
			if (skip & (1u << k))
				continue;
			if (++idx[k] < t->d[k].ext) {
				so += t->d[k].ss, dso += t->d[k].ds, co += t->d[k].cs;
				break;
			}
			so -= t->d[k].ss * (t->d[k].ext - 1);
			dso -= t->d[k].ds * (t->d[k].ext - 1);
			co -= t->d[k].cs * (t->d[k].ext - 1);
			idx[k] = 0;
		}
		if (k == t->nd)
			return;
	}
}

static const float *tc_top_scale(const struct tc_top *t, int64_t co)
{
	return t->scales ? t->scales + co : NULL;
}

/* ---- runs ------------------------------------------------------------------ */

static void tc_run_point(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			 void *ctx)
{
	const struct tc_tdim *x = &t->d[0];

	tc_cvt_run(t->cv, t->dst, dso, x->ds, t->src, so, x->ss, (size_t)x->ext,
		   tc_top_scale(t, co), (ptrdiff_t)x->cs);
}

/* ---- transposes ------------------------------------------------------------ */

/*
 * One tile: @nc destination columns (dim b) x @nr rows (dim a) from
 * element offsets @so, @dso, @co. Stage 1 is [nc][nr] (one source row per
 * column), stage 2 [nr][nc] (one destination row per row).
 */
static void tc_tile(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
		    size_t nc, size_t nr, float *s1, float *s2)
{
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
	size_t i;

	for (i = 0; i < nc; i++)
		tc_cvt_run(t->dec, s1, (int64_t)(i * nr), 1, t->src,
			   so + (int64_t)i * b->ss, 1, nr, NULL, 0);
	t->k->transpose[2]((char *)s2, nc * sizeof(float), (const char *)s1,
			   nr * sizeof(float), nc, nr, 0);
	/* whole destination rows back to back, the scales chained: one run */
	if (a->ds == (int64_t)nc && (!t->scales || a->cs == b->cs * (int64_t)nc)) {
		tc_cvt_run(t->enc, t->dst, dso, 1, s2, 0, 1, nc * nr,
			   tc_top_scale(t, co), (ptrdiff_t)b->cs);
		return;
	}
	for (i = 0; i < nr; i++)
		tc_cvt_run(t->enc, t->dst, dso + (int64_t)i * a->ds, 1, s2,
			   (int64_t)(i * nc), 1, nc, tc_top_scale(t, co + (int64_t)i * a->cs),
			   (ptrdiff_t)b->cs);
}

static void tc_tr_point(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			void *ctx)
{
	float *s1 = ctx, *s2 = s1 + TC_TT_ELEMS;
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
	size_t cb = b->ext < TC_TT_COLS ? (size_t)b->ext : TC_TT_COLS;
	size_t rb = TC_TT_ELEMS / cb;

	for (int64_t b0 = 0; b0 < b->ext; b0 += (int64_t)cb) {
		size_t nc = b->ext - b0 < (int64_t)cb ? (size_t)(b->ext - b0) : cb;

		for (int64_t a0 = 0; a0 < a->ext; a0 += (int64_t)rb) {
			size_t nr = a->ext - a0 < (int64_t)rb ? (size_t)(a->ext - a0) : rb;

			tc_tile(t, so + a0 * a->ss + b0 * b->ss, dso + a0 * a->ds + b0 * b->ds,
				co + a0 * a->cs + b0 * b->cs, nc, nr, s1, s2);
		}
	}
}

static void tc_top_run(const struct tc_top *t)
{
	if (t->a >= 0) {
		float stage[2 * TC_TT_ELEMS] __attribute__((aligned(64)));

		tc_top_foreach(t, (1u << t->a) | (1u << t->b), tc_tr_point, stage);
		return;
	}
	tc_top_foreach(t, 1u, tc_run_point, NULL);
}

/* ---- threads ----------------------------------------------------------------- */

/*
 * A cut before index @i of a dim of stride @stride (the outermost of a
 * disjoint destination; the other dims span @inner elements) from element
 * @first on: the last element before it and the first after it lie in
 * different bytes of @bits-bit elements. Elements further apart are at
 * least two nibbles apart, so no other pair can share a byte.
 */
static int tc_cut_ok(int64_t first, int64_t stride, int64_t inner, unsigned int bits,
		     int64_t i)
{
	int64_t after = first + i * stride, last = first + (i - 1) * stride + inner;

	return bits != 4 || (last >> 1) < (after >> 1);
}

unsigned tc_typed_cuts(int64_t first, int64_t stride, int64_t ext, int64_t inner,
		       unsigned int bits, unsigned n, int64_t *cut)
{
	int64_t prev = 0;
	unsigned m = 0;

	cut[0] = 0;
	for (unsigned p = 1; p < n; p++) {
		int64_t i = (int64_t)((unsigned __int128)ext * p / n);

		/* an odd stride alternates the parity: one of two neighbours is safe */
		if (i > prev && !tc_cut_ok(first, stride, inner, bits, i))
			i++;
		if (i <= prev || i >= ext || !tc_cut_ok(first, stride, inner, bits, i))
			continue;
		cut[++m] = prev = i;
	}
	cut[++m] = ext;
	return m;
}

/* Cuts of dim @k into up to @n parts at safe indices; returns the count. */
static unsigned tc_top_cuts(const struct tc_top *t, int k, unsigned n, int64_t *cut)
{
	int64_t inner = 0;

	for (int j = 0; j < t->nd; j++)
		if (j != k)
			inner += t->d[j].ds * (t->d[j].ext - 1);
	return tc_typed_cuts(t->dso, t->d[k].ds, t->d[k].ext, inner, t->dbits, n, cut);
}

static void tc_top_part(void *arg)
{
	tc_top_run(arg);
}

/* Parts on the stack up to this many threads, else on the heap. */
#define TC_STACK_PARTS	4

static void tc_top_exec(const struct tc_top *t, unsigned nthr, uint64_t bytes)
{
	struct tc_top stack_parts[TC_STACK_PARTS], *parts = stack_parts;
	int64_t cut[TILECOPY_MAX_THREADS + 1];
	unsigned n = 0;
	int k = 0;

	if (nthr > TILECOPY_MAX_THREADS)
		nthr = TILECOPY_MAX_THREADS;
	if (nthr > 1 && bytes >= TC_TYPED_THREAD_MIN && tc_top_disjoint(t)) {
		for (int j = 1; j < t->nd; j++)
			if (t->d[j].ds > t->d[k].ds)
				k = j;
		n = tc_top_cuts(t, k, nthr, cut);
	}
	if (n > TC_STACK_PARTS)
		parts = malloc(sizeof(*parts) * n);
	if (n < 2 || !parts) {
		tc_top_run(t);
		return;
	}
	for (unsigned p = 0; p < n; p++) {
		parts[p] = *t;
		parts[p].d[k].ext = cut[p + 1] - cut[p];
		parts[p].so += cut[p] * t->d[k].ss;
		parts[p].dso += cut[p] * t->d[k].ds;
		parts[p].co += cut[p] * t->d[k].cs;
	}
	tc_pool_run(tc_top_part, parts, sizeof(parts[0]), n, bytes);
	if (parts != stack_parts)
		free(parts);
}

/* ---- entry --------------------------------------------------------------------- */

static uint64_t tc_top_bytes(const struct tc_top *t)
{
	uint64_t n = 1;

	for (int k = 0; k < t->nd; k++)
		n *= (uint64_t)t->d[k].ext;
	return t->dbits == 4 ? n / 2 : n * (t->dbits / 8);
}

int tc_typed_exec(const struct tc_kernels *k, const struct drm_tilecopy_desc *d,
		  const void *src, void *dst, const float *scales, unsigned nthr)
{
	struct tc_cvt cv, dec, enc;
	const struct tc_cvt_kernels *set = tc_cvt_for_executor(k->name);
	struct tc_top t;

	if (d->op == DRM_TILECOPY_OP_FILL) {
		tc_typed_fill4(d, dst);
		return 0;
	}
	if (d->op != DRM_TILECOPY_OP_COPY || tc_cvt_desc_init(&cv, d, set))
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.k = k;
	t.cv = &cv;
	t.src = (const char *)src + d->src;
	t.dst = (char *)dst + d->dst;
	t.so = d->src_nibble;
	t.dso = d->dst_nibble;
	t.dbits = tc_desc_type_bits(d->dst_type);
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES)
		t.scales = (const float *)((const char *)scales + d->scales);
	/*
	 * The two halves of a transpose: an exact decode, then the rest (not
	 * for i32 -> i32 with zero points only: integer arithmetic).
	 */
	if (!cv.int_zp && !tc_cvt_init(&dec, TC_CVT_F32, cv.src_kind, NULL, set, NULL) &&
	    !tc_typed_cvt_init_from(&enc, d, set, DRM_TILECOPY_TYPE_F32)) {
		t.dec = &dec;
		t.enc = &enc;
	}
	tc_top_shape(&t, d);
	tc_top_analyse(&t);
	tc_top_exec(&t, nthr, tc_top_bytes(&t));
	return 0;
}
