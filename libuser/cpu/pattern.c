// SPDX-License-Identifier: MIT
/*
 * pattern.c - shape analysis and loops shared by the SIMD executors.
 *
 * A descriptor is normalised (unit dims dropped, dims whose strides chain
 * merged, strides in bytes) and analysed into an op by the first rule that
 * fits (descriptors writing 4 MB or more use non-temporal stores, see
 * TC_BLOCK_BAND):
 *
 *   contiguous      one run on both sides          -> k->copy (wide, NT)
 *   tiny runs       runs of 2..8 bytes, transposed -> a transpose of
 *                   wider elements
 *   short runs      runs under 256 bytes, transposed (RowMajor <-> zN
 *                   moves 32-byte runs) -> k->runs over bands of rows
 *                   swept across the columns; not transposed -> k->runs
 *                   along the destination-sequential dim
 *   long runs       a dim contiguous on both sides -> k->copy per run
 *                   (outer dims of runs and tiles in blocks, source order)
 *   transpose       a dim with dst stride es and one with src stride es:
 *                   few rows (rows x es < 64: C = 1..15 images) -> a
 *                   permute program (k->fr_*); whole fractals (zN <-> nZ)
 *                   -> k->fractal; otherwise cache blocks of register
 *                   tiles (k->transpose)
 *   anything else   the descriptor's own loop order, innermost dim
 *                   specialised.
 *
 * Every rule that changes the order of the writes requires a destination
 * that provably does not overlap itself; otherwise the descriptor runs in
 * the scalar reference's order, so results are always bit-identical.
 *
 * Padding: a FILL that writes the tail of every destination row of a
 * transposing COPY (NCHW -> nChw16c with C = 20: 4 channels copied, 12
 * zeros) is fused into that COPY when no descriptor between them touches
 * those rows: the rows are then written whole, data and zeros by the same
 * stores (non-temporal when large) instead of twice.
 *
 * Threads (pool.c): an op writing TC_THREAD_MIN bytes or more is cut into
 * parts of equal size, each up to three boxes of the iteration space,
 * along the dims outside the kernel first and its own dims last.
 *
 * Small plans: a plan that is one descriptor these rules run as a single
 * kernel call (one transpose block or one run, under TC_THREAD_MIN) is
 * analysed once, when it is made (tc_direct_analyse), and each call then
 * makes that kernel call alone (tc_direct_run).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/pattern.h"
#include "cpu/pool.h"

#define TC_MAXD DRM_TILECOPY_MAX_DIMS

/*
 * Blocks of a transpose: up to 4 KB contiguous per destination row and
 * 1 KB per source row (at most 1 MB, the L2 of Zen 4). Measured on f32
 * NCHW <-> NHWC: 1 KB beats 256 B by ~20%, and 4 KB destination rows beat
 * 1 KB by ~10% on NHWC -> NCHW; smaller blocks cut rows into pieces the
 * prefetchers do not follow.
 */
#define TC_BLOCK_ROW_BYTES	4096u
#define TC_BLOCK_COL_BYTES	1024u
/*
 * Blocks of short transposed runs (RowMajor <-> zN): 512 bytes written
 * contiguously per k->runs call, 1 KB read contiguously per source row.
 * Measured: ~2x faster than 1 KB x 512 B blocks walked the other way.
 */
#define TC_RUNS_ROW_BYTES	512u
#define TC_RUNS_COL_BYTES	1024u
/*
 * Outer dims around whole tiles or runs (zN -> nZ, zN -> zZ: 512-byte
 * fractals 128 KB apart) go in blocks of 64 along the source-sequential dim
 * times 4 along the other: 32 KB read in sequence, 64 destination streams.
 * Measured on zN -> nZ f16 4096x4096: 64x4 ~0.85x memcpy, 16x16 ~0.55x,
 * descriptor order ~0.3x.
 */
#define TC_OUTER_BP	64u
#define TC_OUTER_BQ	4u
/*
 * Destination bursts where the points continue one another (below), from
 * at most 8 source streams: 16 fractals 128 KB apart share an L1 set.
 */
#define TC_OUTER_RUN		4096u
#define TC_OUTER_STREAMS	8u
/* Ops writing less than this stay on one thread. */
#define TC_THREAD_MIN	(256u << 10)
/* How far after a FILL to look for the COPY it pads. */
#define TC_FUSE_WINDOW	8
/*
 * Staged columns and rows (tc_cols_point, tc_rows_point): the stack
 * buffer, and the longest line of it (elements of one row or column).
 */
#define TC_COLS_BUF	16384u
#define TC_COLS_LINE	256u
/* Staged only: a short dim under this many bytes, the other's lines at least */
#define TC_COLS_SHORT	64u
#define TC_COLS_MIN_LINE 16u
/* a pass holds at least one index of the continuing dim (m2 >= 1) */
_Static_assert((TC_COLS_SHORT - 1) * TC_COLS_LINE <= TC_COLS_BUF,
	       "a staged block must fit the buffer");

struct tc_shape {
	int nd;
	unsigned es;
	size_t ext[TC_MAXD];
	size_t ss[TC_MAXD];	/* bytes */
	size_t ds[TC_MAXD];	/* bytes */
};

enum tc_kind {
	TC_OP_CONTIG,		/* one contiguous run */
	TC_OP_TRANSPOSE,	/* dims a (rows) x b (cols), elements of tes */
	TC_OP_RUNS2D,		/* runs of dim c, transposed over a x b */
	TC_OP_RUNS,		/* runs of dim c, counted along dim in */
	TC_OP_RUN,		/* runs of dim c of 256 bytes or more */
	TC_OP_GENERIC,		/* reference order */
	TC_OP_FILL,
};

/*
 * struct tc_op - one descriptor, analysed; or a box of one (a sub-range of
 * some dims, with the same roles), when split over threads.
 */
struct tc_op {
	const struct tc_kernels *k;
	struct tc_shape s;
	const char *src;
	char *dst;
	enum tc_kind kind;
	int a, b, c, in;	/* the dims of the rule, -1 if none */
	unsigned tes;		/* TRANSPOSE: bytes moved as one element */
	int nt;
	int disjoint;		/* the destination provably does not overlap itself */
	size_t pad;		/* TRANSPOSE: fused FILL bytes after each dst row */
	const void *fr;		/* TRANSPOSE: few-rows program, or NULL */
	int a2, b2;		/* TRANSPOSE, staged: the dim that continues
				 * a's rows at the destination, or b's
				 * columns at the source; -1 if none */
	unsigned char pat[64];	/* FILL pattern; the fused FILL's */
};

/* ---- element loops ------------------------------------------------------- */

void tc_transpose_scalar(char *dst, size_t dld, const char *src, size_t sld,
			 size_t rows, size_t cols, unsigned es)
{
	switch (es) {
	case 1: tc_edge1(dst, dld, src, sld, rows, cols); break;
	case 2: tc_edge2(dst, dld, src, sld, rows, cols); break;
	case 4: tc_edge4(dst, dld, src, sld, rows, cols); break;
	default: tc_edge8(dst, dld, src, sld, rows, cols); break;
	}
}

void tc_fr_tail(char *dst, size_t dld, const char *src, size_t sld,
		size_t rows, size_t cols, unsigned es, size_t pad,
		const unsigned char pat[64])
{
	tc_transpose_scalar(dst, dld, src, sld, rows, cols, es);
	for (size_t c = 0; pad && c < cols; c++) {
		char *p = dst + c * dld + rows * es;

		for (size_t i = 0; i < pad; i++)
			p[i] = (char)pat[i & 63];
	}
}

/* ---- few-rows programs ------------------------------------------------------ */

_Static_assert(sizeof(struct tc_fr_plan) <= TC_FR_PROG_BYTES,
	       "few-rows program storage");

/* Output @t of a span: stream bytes [vb t, vb t + vb). */
static void tc_fr_output(struct tc_fr_plan *p, size_t t, unsigned vb, int pair,
			 const unsigned char pat[64])
{
	size_t data = p->rows * p->es, line = data + p->pad;

	for (unsigned u = 0; u < vb; u++) {
		size_t x = vb * t + u, col = x / p->dld, pos = x % p->dld;
		size_t r = pos / p->es;

		if (pos < data) {
			uint8_t i = (uint8_t)(col * p->es + pos % p->es);

			if (pair && r == 1)	/* the second source of row 0's permute */
				p->idx[t][0][u] = (uint8_t)(vb + i), p->k[t][0] |= 1ull << u;
			else
				p->idx[t][r][u] = i, p->k[t][r] |= 1ull << u;
			p->storek[t] |= 1ull << u;
		} else if (pos < line) {
			p->patv[t][u] = pat[(pos - data) & 63];
			p->patk[t] |= 1ull << u;
			p->storek[t] |= 1ull << u;
		}
	}
}

int tc_fr_build(struct tc_fr_plan *p, unsigned vb, int pair, size_t rows,
		unsigned es, size_t dld, size_t pad, const unsigned char pat[64])
{
	size_t T = dld / es;

	if (rows > TC_FR_MAXROWS || !rows || T > TC_FR_MAXT || es > vb || dld % es)
		return -1;
	memset(p, 0, sizeof(*p));
	p->rows = rows, p->dld = dld, p->pad = pad, p->es = es, p->T = T;
	p->per = vb / es;
	p->gaps = rows * es + pad < dld;
	memcpy(p->pat, pat, 64);
	for (size_t t = 0; t < T; t++)
		tc_fr_output(p, t, vb, pair, pat);
	return 0;
}

/* ---- shapes --------------------------------------------------------------- */

/* Drop unit dims, merge dims whose strides chain on both sides. */
static void tc_shape_init(struct tc_shape *s, const struct drm_tilecopy_desc *d)
{
	int k, m = 0;

	s->es = d->elem_size;
	for (k = 0; k < d->ndims && k < TC_MAXD; k++) {
		size_t ss = d->op == DRM_TILECOPY_OP_COPY ? d->src_stride[k] * s->es : 0;
		size_t ds = d->dst_stride[k] * s->es;

		if (d->extent[k] == 1)
			continue;
		if (m && ss == s->ss[m - 1] * s->ext[m - 1] &&
		    ds == s->ds[m - 1] * s->ext[m - 1]) {
			s->ext[m - 1] *= d->extent[k];
			continue;
		}
		s->ext[m] = d->extent[k];
		s->ss[m] = ss;
		s->ds[m] = ds;
		m++;
	}
	if (!m) {
		s->ext[0] = 1;
		s->ss[0] = s->es;
		s->ds[0] = s->es;
		m = 1;
	}
	s->nd = m;
}

static size_t tc_shape_elems(const struct tc_shape *s)
{
	size_t n = 1;
	int k;

	for (k = 0; k < s->nd; k++)
		n *= s->ext[k];
	return n;
}

/*
 * No two elements share a destination address: sorted by stride, every
 * stride clears the span of all smaller ones. Sufficient, not necessary;
 * shapes it rejects run in the reference order.
 */
static int tc_shape_dst_disjoint(const struct tc_shape *s)
{
	int used[TC_MAXD + 2] = { 0 };
	size_t span = s->es;
	int i, k;

	for (i = 0; i < s->nd; i++) {
		int best = -1;

		for (k = 0; k < s->nd; k++)
			if (!used[k] && (best < 0 || s->ds[k] < s->ds[best]))
				best = k;
		used[best] = 1;
		if (s->ext[best] > 1 && s->ds[best] < span)
			return 0;
		span = s->ds[best] * (s->ext[best] - 1) + span;
	}
	return 1;
}

static int tc_find_dim(const struct tc_shape *s, int want_src, size_t stride,
		       int not)
{
	int k;

	for (k = 0; k < s->nd; k++) {
		if (k == not)
			continue;
		if (want_src && s->ss[k] == stride && s->ds[k] != stride)
			return k;
		if (!want_src && s->ds[k] == stride && s->ss[k] != stride)
			return k;
	}
	return -1;
}

/*
 * Odometer over every dim not in @skip, in the descriptor's order (dim 0
 * fastest); @fn gets the byte offsets of each point.
 */
typedef void (*tc_point_fn)(void *ctx, const char *src, char *dst);

static void tc_foreach(const struct tc_shape *s, unsigned skip,
		       const char *src, char *dst, tc_point_fn fn, void *ctx)
{
	size_t idx[TC_MAXD] = { 0 };
	int dims[TC_MAXD], m = 0, j, k;

	for (k = 0; k < s->nd; k++)
		if (!(skip & (1u << k)))
			dims[m++] = k;
	for (;;) {
		fn(ctx, src, dst);
		for (j = 0; j < m; j++) {
			k = dims[j];
			/* FILL walks have no source: never offset a NULL
			 * pointer (undefined even by 0). */
			if (++idx[k] < s->ext[k]) {
				if (src)
					src += s->ss[k];
				dst += s->ds[k];
				break;
			}
			if (src)
				src -= s->ss[k] * (s->ext[k] - 1);
			dst -= s->ds[k] * (s->ext[k] - 1);
			idx[k] = 0;
		}
		if (j == m)
			return;
	}
}

/*
 * tc_foreach_blocked - as tc_foreach, but the two innermost iterated dims
 * go in blocks of @bp x @bq points, the dim with the smaller source stride
 * fastest: neighbours in memory stay in the caches and the TLB (fractals
 * of 512 bytes 128 KB apart, say), and the source is read as sequential
 * streams the prefetchers follow; the destination, written with
 * non-temporal stores when large, minds the order less. Measured on zN ->
 * nZ: ~3x faster than destination order. Only for destinations that do
 * not overlap themselves: the order differs from the descriptor's.
 *
 * Where each point writes @run contiguous bytes (0: it does not) and the
 * other dim's points continue one another at the destination (zN -> nZ:
 * the fractals of a row of nZ; any packed transpose whose outer dim
 * continues at the destination), that dim goes fastest instead, in
 * groups of at most TC_OUTER_RUN bytes (TC_OUTER_RUN / @run points, at
 * most TC_OUTER_STREAMS): the destination is written in bursts of up to
 * 4 KB, from as many source streams, each advancing along the sequential
 * dim group after group. Streamed out 512 bytes at a time,
 * 128 KB apart, zN -> nZ f16 ran at 0.45-0.6x the streaming limit (AMD
 * EPYC Zen 3): the scattered non-temporal bursts, not the reads, cost.
 * 8 KB bursts (16 streams of fractals 128 KB apart, one L1 set) were
 * slower again.
 */
struct tc_blk_ctx {
	tc_point_fn fn;
	void *ctx;
	size_t np, nq, bp, bq, ssp, ssq, dsp, dsq;
	int runs;	/* q fastest: bursts of bq points along the destination */
};

static void tc_blk_call(const struct tc_blk_ctx *b, const char *src, char *dst,
			size_t p, size_t q)
{
	b->fn(b->ctx, src ? src + p * b->ssp + q * b->ssq : NULL,
	      dst + p * b->dsp + q * b->dsq);
}

static void tc_blk_point(void *ctx, const char *src, char *dst)
{
	const struct tc_blk_ctx *b = ctx;
	size_t p0, q0, p, q;

	for (q0 = 0; q0 < b->nq; q0 += b->bq) {
		size_t qe = q0 + b->bq < b->nq ? q0 + b->bq : b->nq;

		for (p0 = 0; p0 < b->np; p0 += b->bp) {
			size_t pe = p0 + b->bp < b->np ? p0 + b->bp : b->np;

			if (b->runs) {
				for (p = p0; p < pe; p++)
					for (q = q0; q < qe; q++)
						tc_blk_call(b, src, dst, p, q);
				continue;
			}
			for (q = q0; q < qe; q++)
				for (p = p0; p < pe; p++)
					tc_blk_call(b, src, dst, p, q);
		}
	}
}

static void tc_foreach_blocked(const struct tc_shape *s, unsigned skip,
			       size_t bp, size_t bq, size_t run, const char *src,
			       char *dst, tc_point_fn fn, void *ctx)
{
	struct tc_blk_ctx b = { .fn = fn, .ctx = ctx, .bp = bp, .bq = bq };
	int dims[TC_MAXD], m = 0, k, p, q;

	for (k = 0; k < s->nd; k++)
		if (!(skip & (1u << k)))
			dims[m++] = k;
	if (m < 2) {
		tc_foreach(s, skip, src, dst, fn, ctx);
		return;
	}
	p = dims[0];
	q = dims[1];
	if (s->ss[q] < s->ss[p])
		p = dims[1], q = dims[0];
	b.np = s->ext[p], b.ssp = s->ss[p], b.dsp = s->ds[p];
	b.nq = s->ext[q], b.ssq = s->ss[q], b.dsq = s->ds[q];
	if (run && b.dsq == run && run <= TC_OUTER_RUN / 2) {
		b.runs = 1;
		b.bq = TC_OUTER_RUN / run;
		if (b.bq > TC_OUTER_STREAMS)
			b.bq = TC_OUTER_STREAMS;
	}
	tc_foreach(s, skip | (1u << p) | (1u << q), src, dst, tc_blk_point, &b);
}

static unsigned tc_dimbit(int d)
{
	return d >= 0 ? 1u << d : 0;
}

/* ---- runs ------------------------------------------------------------ */

struct tc_run_ctx {
	const struct tc_kernels *k;
	size_t bytes;
	int nt;
};

static void tc_run_point(void *ctx, const char *src, char *dst)
{
	const struct tc_run_ctx *c = ctx;

	c->k->copy(dst, src, c->bytes, c->nt);
}

struct tc_runs_ctx {
	const struct tc_kernels *k;
	size_t run, count, sld, dld;
	int nt;
};

static void tc_runs_point(void *ctx, const char *src, char *dst)
{
	const struct tc_runs_ctx *c = ctx;

	c->k->runs(dst, c->dld, src, c->sld, c->run, c->count, c->nt);
}

/*
 * Runs transposed: run (r, c) is read at src + r * sld + c * run and
 * written at dst + c * dld + r * run (RowMajor <-> zN). Blocks of
 * rb x cb runs, a band of rb rows swept across all columns: each k->runs
 * call writes rb * run contiguous bytes, the band reads its rows as
 * sequential streams.
 */
struct tc_runs2d_ctx {
	const struct tc_kernels *k;
	size_t run, rows, cols, sld, dld, rb, cb;
	int nt;
};

/*
 * 32-byte runs with the kernel's @runs_pairs: bands of TC_RUNS_PAIR_BAND
 * rows (even) across every column pair, the last row and column (when
 * odd) as plain runs. Each source line is then read whole, once (the runs
 * one at a time read half of it, and its other half a column later, from
 * rows a multiple of 4 KB apart that had left L1 by then), and each
 * destination line written whole (zN -> RowMajor had written 32-byte
 * halves of lines 8 KB apart in turn, at most 8 rows at once against L2
 * set conflicts). AMD EPYC Zen 5, 4096 x 4096 f16 with AVX-512, one
 * thread: docs/performance.md, "Runs in pairs".
 */
#define TC_RUNS_PAIR_BAND	16u

static void tc_runs2d_pairs(const struct tc_runs2d_ctx *c, const char *src,
			    char *dst)
{
	size_t re = c->rows & ~(size_t)1, ce = c->cols & ~(size_t)1, r0;

	for (r0 = 0; r0 < re; r0 += TC_RUNS_PAIR_BAND) {
		size_t nr = re - r0 < TC_RUNS_PAIR_BAND ? re - r0
							: TC_RUNS_PAIR_BAND;

		c->k->runs_pairs(dst + r0 * 32, c->dld, src + r0 * c->sld, c->sld,
				 nr, ce, c->nt);
	}
	if (ce < c->cols)	/* the last column's runs, down the even rows */
		c->k->runs(dst + ce * c->dld, 32, src + ce * 32, c->sld, 32, re,
			   c->nt);
	if (re < c->rows)	/* the last row's runs, across every column */
		c->k->runs(dst + re * 32, c->dld, src + re * c->sld, 32, 32,
			   c->cols, c->nt);
}

static void tc_runs2d_point(void *ctx, const char *src, char *dst)
{
	const struct tc_runs2d_ctx *c = ctx;
	size_t r0, c0, cc;

	if (c->run == 32 && c->k->runs_pairs && c->rows >= 2 && c->cols >= 2) {
		tc_runs2d_pairs(c, src, dst);
		return;
	}
	for (r0 = 0; r0 < c->rows; r0 += c->rb) {
		size_t nr = c->rows - r0 < c->rb ? c->rows - r0 : c->rb;

		for (c0 = 0; c0 < c->cols; c0 += c->cb) {
			size_t ce = c0 + c->cb < c->cols ? c0 + c->cb : c->cols;

			for (cc = c0; cc < ce; cc++)
				c->k->runs(dst + cc * c->dld + r0 * c->run, c->run,
					   src + r0 * c->sld + cc * c->run, c->sld,
					   c->run, nr, c->nt);
		}
	}
}

/* ---- transposes --------------------------------------------------------- */

struct tc_tr_ctx {
	const struct tc_kernels *k;
	void (*fn)(char *dst, size_t dld, const char *src, size_t sld,
		   size_t rows, size_t cols, int nt);
	unsigned es;
	int nt;
	size_t rows, cols, sld, dld, rb, cb, pad;
	size_t n2, m2, ss2, ds2; /* staged: a2's or b2's extent, per pass, strides */
	const void *fr;
	const unsigned char *pat;
};

static void tc_tr_point(void *ctx, const char *src, char *dst)
{
	const struct tc_tr_ctx *c = ctx;
	size_t r0, c0;


	for (r0 = 0; r0 < c->rows; r0 += c->rb) {
		size_t nr = c->rows - r0 < c->rb ? c->rows - r0 : c->rb;

		for (c0 = 0; c0 < c->cols; c0 += c->cb) {
			size_t nc = c->cols - c0 < c->cb ? c->cols - c0 : c->cb;
			const char *s = src + r0 * c->sld + c0 * c->es;
			char *d = dst + c0 * c->dld + r0 * c->es;

			c->fn(d, c->dld, s, c->sld, nr, nc, c->nt);
			/* a fused FILL: the rows' tails, while they are in L1 */
			if (c->pad && r0 + nr == c->rows)
				for (size_t j = 0; j < nc; j++)
					c->k->fill(d + j * c->dld + nr * c->es, c->pat,
						   c->pad, 0);
		}
	}
}

/*
 * Short columns that continue at the source in another dim whose
 * destination stride is not theirs (OIhw -> OIhw16i16o: the 9 pixels of a
 * 3x3 kernel continue in the 16 input channels, i0 * 9 + hw at the source,
 * hw * 256 + i0 * 16 at the destination). Tiles of 9 columns end in an
 * edge, so rows x (n2 x cols) are transposed as one long block into a
 * stack buffer of lines of nr elements, and the lines go out as runs along
 * the smaller destination stride. The L1 pass costs less than the edges
 * (docs/performance.md, "Staged short rows and columns").
 */
static void tc_cols_out(const struct tc_tr_ctx *c, char *dst, const char *buf,
			size_t lb, size_t m)
{
	size_t i;

	if (c->ds2 < c->dld) {
		for (i = 0; i < c->cols; i++)
			c->k->runs(dst + i * c->dld, c->ds2, buf + i * lb,
				   c->cols * lb, lb, m, c->nt);
		return;
	}
	for (i = 0; i < m; i++)
		c->k->runs(dst + i * c->ds2, c->dld, buf + i * c->cols * lb, lb,
			   lb, c->cols, c->nt);
}

static void tc_cols_point(void *ctx, const char *src, char *dst)
{
	const struct tc_tr_ctx *c = ctx;
	_Alignas(64) char buf[TC_COLS_BUF];
	size_t r0, i0;

	for (r0 = 0; r0 < c->rows; r0 += c->rb) {
		size_t nr = c->rows - r0 < c->rb ? c->rows - r0 : c->rb;
		size_t lb = nr * c->es;

		for (i0 = 0; i0 < c->n2; i0 += c->m2) {
			size_t m = c->n2 - i0 < c->m2 ? c->n2 - i0 : c->m2;

			c->fn(buf, lb, src + r0 * c->sld + i0 * c->cols * c->es,
			      c->sld, nr, m * c->cols, 0);
			tc_cols_out(c, dst + i0 * c->ds2 + r0 * c->es, buf, lb, m);
		}
	}
}

/*
 * The mirror (OIhw16i16o -> OIhw): short rows that continue at the
 * destination in another dim whose source stride is not theirs. Lines of
 * cb columns are gathered from the n2 x rows source rows into the buffer,
 * then transposed as one tall block.
 */
static void tc_rows_point(void *ctx, const char *src, char *dst)
{
	const struct tc_tr_ctx *c = ctx;
	_Alignas(64) char buf[TC_COLS_BUF];
	size_t c0, i0, i;

	for (c0 = 0; c0 < c->cols; c0 += c->cb) {
		size_t nc = c->cols - c0 < c->cb ? c->cols - c0 : c->cb;
		size_t lb = nc * c->es;

		for (i0 = 0; i0 < c->n2; i0 += c->m2) {
			size_t m = c->n2 - i0 < c->m2 ? c->n2 - i0 : c->m2;
			const char *s = src + i0 * c->ss2 + c0 * c->es;

			for (i = 0; i < m; i++)
				c->k->runs(buf + i * c->rows * lb, lb, s + i * c->ss2,
					   c->sld, lb, c->rows, 0);
			c->fn(dst + c0 * c->dld + i0 * c->rows * c->es, c->dld,
			      buf, lb, m * c->rows, nc, c->nt);
		}
	}
}

static void tc_fr_point(void *ctx, const char *src, char *dst)
{
	const struct tc_tr_ctx *c = ctx;

	c->k->fr_run(c->fr, dst, src, c->sld, c->cols, c->nt);
}

static unsigned tc_log2es(unsigned es)
{
	return es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
}

static void tc_fractal_point(void *ctx, const char *src, char *dst)
{
	const struct tc_tr_ctx *c = ctx;

	c->k->fractal[tc_log2es(c->es)](dst, src, c->nt);
}

/* A transpose that is one fractal of 32-byte lines (unpadded): one call. */
static int tc_fractal_wanted(const struct tc_kernels *k, size_t rows, size_t cols,
			     size_t sld, size_t dld, unsigned es)
{
	return rows == 32 / es && cols == rows && sld == 32 && dld == 32 &&
	       k->fractal[tc_log2es(es)];
}

static size_t tc_block_of(size_t n, unsigned es, size_t bytes)
{
	size_t b = bytes / es;

	if (b < 8)
		b = 8;
	/* a remainder block smaller than half a block is merged */
	if (n <= b + b / 2)
		return n;
	return b;
}

/*
 * The staged pass of @c (tc_cols_point when @cols, else tc_rows_point)
 * over the continuing dim @d2: lines of the short side's elements, at
 * most TC_COLS_LINE bytes of the other, and m2 indices of d2 per pass.
 */
static void tc_staged_init(struct tc_tr_ctx *c, const struct tc_shape *s,
			   int d2, int cols)
{
	size_t line = cols ? c->rows : c->cols, max = TC_COLS_LINE / c->es;
	size_t *blk = cols ? &c->rb : &c->cb;

	*blk = line < max ? line : max;
	c->n2 = s->ext[d2];
	c->ds2 = s->ds[d2];
	c->ss2 = s->ss[d2];
	c->m2 = TC_COLS_BUF / ((cols ? c->cols : c->rows) * *blk * c->es);
}

/*
 * Transpose over dims @a (dst-contiguous: rows) and @b (src-contiguous:
 * cols) with elements of @tes bytes (1, 2, 4, 8; possibly a run of smaller
 * elements moved as one).
 */
static int tc_op_transpose(const struct tc_op *op)
{
	const struct tc_shape *s = &op->s;
	const struct tc_kernels *k = op->k;
	unsigned skip = tc_dimbit(op->a) | tc_dimbit(op->b) | tc_dimbit(op->c);
	struct tc_tr_ctx c = {
		.k = k, .es = op->tes, .rows = s->ext[op->a], .cols = s->ext[op->b],
		.sld = s->ss[op->a], .dld = s->ds[op->b], .nt = op->nt,
		.pad = op->pad, .pat = op->pat, .fr = op->fr,
	};
	tc_point_fn point = tc_tr_point;
	size_t run;

	c.fn = k->transpose[tc_log2es(c.es)];
	if (c.fr) {
		point = tc_fr_point;
	} else if (!c.pad && tc_fractal_wanted(k, c.rows, c.cols, c.sld, c.dld, c.es)) {
		point = tc_fractal_point;
	} else if (op->b2 >= 0 || op->a2 >= 0) {
		int d2 = op->b2 >= 0 ? op->b2 : op->a2;

		point = op->b2 >= 0 ? tc_cols_point : tc_rows_point;
		skip |= tc_dimbit(d2);
		tc_staged_init(&c, s, d2, op->b2 >= 0);
	} else {
		c.rb = tc_block_of(c.rows, c.es, TC_BLOCK_ROW_BYTES);
		c.cb = tc_block_of(c.cols, c.es, TC_BLOCK_COL_BYTES);
		if (c.pad)	/* data and tails by different stores */
			c.nt = 0;
	}
	/* a block's destination rows packed: one run of cols x dld bytes */
	run = c.dld == c.rows * c.es ? c.cols * c.dld : 0;
	tc_foreach_blocked(s, skip, TC_OUTER_BP, TC_OUTER_BQ, run, op->src,
			   op->dst, point, &c);
	return c.nt;
}

/* ---- fills --------------------------------------------------------------- */

struct tc_fill_ctx {
	const struct tc_kernels *k;
	const unsigned char *pat;
	size_t bytes;
	int nt;
};

static void tc_fill_point(void *ctx, const char *src, char *dst)
{
	const struct tc_fill_ctx *c = ctx;

	c->k->fill(dst, c->pat, c->bytes, c->nt);
}

/* ---- the reference-order loop -------------------------------------------- */

struct tc_gen_ctx {
	size_t n, ss, ds;
	unsigned es;
};

#define TC_GEN_LOOP(type)						\
	do {								\
		type v_;						\
		for (i = 0; i < c->n; i++) {				\
			memcpy(&v_, src + i * c->ss, sizeof(type));	\
			memcpy(dst + i * c->ds, &v_, sizeof(type));	\
		}							\
	} while (0)

static void tc_gen_point(void *ctx, const char *src, char *dst)
{
	const struct tc_gen_ctx *c = ctx;
	size_t i;

	if (c->ss == c->es && c->ds == c->es) {
		memmove(dst, src, c->n * c->es);
		return;
	}
	switch (c->es) {
	case 1: TC_GEN_LOOP(uint8_t); break;
	case 2: TC_GEN_LOOP(uint16_t); break;
	case 4: TC_GEN_LOOP(uint32_t); break;
	default: TC_GEN_LOOP(uint64_t); break;
	}
}

static void tc_run_generic(const struct tc_shape *s, const char *src, char *dst)
{
	struct tc_gen_ctx c = {
		.n = s->ext[0], .ss = s->ss[0], .ds = s->ds[0], .es = s->es,
	};

	tc_foreach(s, 1u, src, dst, tc_gen_point, &c);
}

/* ---- analysis ------------------------------------------------------------ */

/* Sets the rule of a COPY op: kind and role dims (tc_copy_shape's rules). */
static void tc_op_analyse_copy(struct tc_op *op)
{
	const struct tc_shape *s = &op->s;
	int c = -1, a, b;

	op->a = op->b = op->c = op->in = op->a2 = op->b2 = -1;
	op->tes = s->es;
	for (a = 0; a < s->nd; a++)
		if (s->ss[a] == s->es && s->ds[a] == s->es)
			c = a;
	if (c >= 0 && s->nd == 1) {
		op->kind = TC_OP_CONTIG;
		op->c = c;
		return;
	}
	op->kind = TC_OP_GENERIC;
	op->disjoint = tc_shape_dst_disjoint(s);
	if (!op->disjoint)
		return;
	if (c >= 0) {
		size_t run = s->ext[c] * s->es;

		op->c = c;
		a = tc_find_dim(s, 0, run, c);
		b = tc_find_dim(s, 1, run, a);
		if (run <= 8 && !(run & (run - 1)) && a >= 0 && b >= 0 &&
		    a != c && b != c) {
			/* runs of 2..8 bytes, transposed: wider elements */
			op->kind = TC_OP_TRANSPOSE;
			op->a = a, op->b = b, op->tes = (unsigned)run;
		} else if (run < 256 && a >= 0 && b >= 0 && a != c && b != c) {
			op->kind = TC_OP_RUNS2D;
			op->a = a, op->b = b;
		} else if (run < 256) {
			op->kind = TC_OP_RUNS;
			for (a = 0; a < s->nd; a++)
				if (a != c && (op->in < 0 || s->ds[a] < s->ds[op->in]))
					op->in = a;
		} else {
			op->kind = TC_OP_RUN;
		}
		return;
	}
	a = tc_find_dim(s, 0, s->es, -1);
	b = tc_find_dim(s, 1, s->es, a);
	if (a >= 0 && b >= 0) {
		op->kind = TC_OP_TRANSPOSE;
		op->a = a, op->b = b;
	}
}

/*
 * Only the fields every op uses are set here (this runs once per call);
 * not the buffers (tc_op_init).
 */
static void tc_op_analyse(struct tc_op *op, const struct tc_kernels *k,
			  const struct drm_tilecopy_desc *d)
{
	op->k = k;
	tc_shape_init(&op->s, d);
	op->tes = op->s.es;
	op->src = NULL;
	op->dst = NULL;
	op->nt = tc_shape_elems(&op->s) * op->s.es >= TC_NT_THRESHOLD;
	op->pad = 0;
	op->fr = NULL;
	op->disjoint = 1;
	if (d->op == DRM_TILECOPY_OP_FILL) {
		op->kind = TC_OP_FILL;
		op->disjoint = tc_shape_dst_disjoint(&op->s);
		op->a = op->b = op->in = op->c = op->a2 = op->b2 = -1;
		for (unsigned i = 0; i < 64; i++)
			op->pat[i] = (unsigned char)(d->value >> (8 * (i % op->s.es)));
		/* every element gets the same bytes: any order is the same */
		for (int j = 0; j < op->s.nd; j++)
			if (op->s.ds[j] == op->s.es)
				op->c = j;
		return;
	}
	tc_op_analyse_copy(op);
}

static void tc_op_init(struct tc_op *op, const struct tc_kernels *k,
		       const struct drm_tilecopy_desc *d, const void *src, void *dst)
{
	tc_op_analyse(op, k, d);
	op->dst = (char *)dst + d->dst;
	if (d->op == DRM_TILECOPY_OP_COPY)
		op->src = (const char *)src + d->src;
}

/* ---- running an op (or a box of one) --------------------------------------- */

/* Returns non-zero if it used non-temporal stores. */
static int tc_op_run(const struct tc_op *op)
{
	const struct tc_shape *s = &op->s;
	const struct tc_kernels *k = op->k;
	int nt = op->nt;

	switch (op->kind) {
	case TC_OP_CONTIG:
		k->copy(op->dst, op->src, s->ext[0] * s->es, nt);
		return nt;
	case TC_OP_TRANSPOSE:
		return tc_op_transpose(op);
	case TC_OP_RUNS2D: {
		size_t run = s->ext[op->c] * s->es;
		struct tc_runs2d_ctx rc = {
			.k = k, .run = run, .nt = nt,
			.rows = s->ext[op->a], .cols = s->ext[op->b],
			.sld = s->ss[op->a], .dld = s->ds[op->b],
			.rb = TC_RUNS_ROW_BYTES / run ? TC_RUNS_ROW_BYTES / run : 1,
			.cb = TC_RUNS_COL_BYTES / run ? TC_RUNS_COL_BYTES / run : 1,
		};

		/*
		 * Rows whose stride is a multiple of 64 KB (zN columns of
		 * 4096 rows) share L2 sets: at most 8 of them at once,
		 * the L2 is 8-way. Measured zN -> RowMajor: 16 streams
		 * 0.55x memcpy, 8 streams 0.9x. (Runs taken in pairs,
		 * tc_runs2d_pairs(), keep their 16-row bands: each line
		 * is read whole at once, and on AMD Zen 5 8-row bands
		 * gave zN -> RowMajor f16 0.63-0.74x the limit against
		 * 0.63-0.69x, i8 0.59-0.61x against 0.69-0.73x.)
		 */
		if (!(rc.sld & 0xffff) && rc.rb > 8)
			rc.rb = 8;
		tc_foreach(s, tc_dimbit(op->a) | tc_dimbit(op->b) | tc_dimbit(op->c),
			   op->src, op->dst, tc_runs2d_point, &rc);
		return nt;
	}
	case TC_OP_RUNS: {
		struct tc_runs_ctx rc = {
			.k = k, .run = s->ext[op->c] * s->es, .nt = nt,
			.count = s->ext[op->in], .sld = s->ss[op->in],
			.dld = s->ds[op->in],
		};

		tc_foreach_blocked(s, tc_dimbit(op->c) | tc_dimbit(op->in),
				   TC_OUTER_BP, TC_OUTER_BQ, 0, op->src, op->dst,
				   tc_runs_point, &rc);
		return nt;
	}
	case TC_OP_RUN: {
		struct tc_run_ctx rc = {
			.k = k, .bytes = s->ext[op->c] * s->es, .nt = nt,
		};

		tc_foreach_blocked(s, tc_dimbit(op->c), TC_OUTER_BP, TC_OUTER_BQ,
				   0, op->src, op->dst, tc_run_point, &rc);
		return nt;
	}
	case TC_OP_FILL: {
		struct tc_fill_ctx fc = { .k = k, .pat = op->pat };

		fc.bytes = op->c >= 0 ? s->ext[op->c] * s->es : s->es;
		fc.nt = op->c >= 0 && nt && fc.bytes >= 256;
		tc_foreach(s, tc_dimbit(op->c), NULL, op->dst, tc_fill_point, &fc);
		return fc.nt;
	}
	default:
		tc_run_generic(s, op->src, op->dst);
		return 0;
	}
}

/* ---- splitting over threads ------------------------------------------------ */

#define TC_MAX_BOXES	3

struct tc_part {
	struct tc_op box[TC_MAX_BOXES];
	int nbox;
};

/*
 * The dims to cut, best first, and the granule of each (in elements): dims
 * outside the rule's kernel (largest stride first: the parts then read and
 * write separate regions), then the kernel's own dims, cut at whole lines.
 * Never the rows of a few-rows transpose (its program needs them all).
 */
static int tc_split_dims(const struct tc_op *op, int *dims, size_t *gran)
{
	const struct tc_shape *s = &op->s;
	unsigned used = tc_dimbit(op->a) | tc_dimbit(op->b) | tc_dimbit(op->c) |
			tc_dimbit(op->in);
	size_t line = 64 / op->tes ? 64 / op->tes : 1;
	int n = 0, k, j;

	if (op->kind == TC_OP_GENERIC)
		used = 1u;	/* its innermost dim is the specialised loop */
	for (k = 0; k < s->nd; k++) {
		size_t sk = s->ss[k] > s->ds[k] ? s->ss[k] : s->ds[k];

		if ((used & (1u << k)) || s->ext[k] < 2)
			continue;
		for (j = n; j > 0; j--) {
			size_t sj = s->ss[dims[j - 1]] > s->ds[dims[j - 1]] ?
				    s->ss[dims[j - 1]] : s->ds[dims[j - 1]];

			if (sj >= sk)
				break;
			dims[j] = dims[j - 1];
			gran[j] = gran[j - 1];
		}
		dims[j] = k;
		gran[j] = 1;
		n++;
	}
	switch (op->kind) {
	case TC_OP_TRANSPOSE:
		/* staged columns (rows) go as one block with b2's (a2's) */
		if (op->b2 < 0)
			dims[n] = op->b, gran[n++] = line;
		/* the rows of a few-rows program, or of padded rows, stay whole */
		if (!op->fr && !op->pad && op->a2 < 0)
			dims[n] = op->a, gran[n++] = line;
		break;
	case TC_OP_RUNS2D:
		dims[n] = op->b, gran[n++] = 1;
		dims[n] = op->a, gran[n++] = 1;
		break;
	case TC_OP_RUNS:
		dims[n] = op->in, gran[n++] = 1;
		break;
	case TC_OP_CONTIG:
	case TC_OP_RUN:
	case TC_OP_FILL:
		if (op->c >= 0)
			dims[n] = op->c, gran[n++] = 4096 / s->es;
		break;
	default:
		break;
	}
	return n;
}

static void tc_box_add(struct tc_part *p, const struct tc_op *op, int d1,
		       size_t o1, size_t n1, int d2, size_t o2, size_t n2)
{
	struct tc_op *b = &p->box[p->nbox];

	if (!n1 || !n2)
		return;
	*b = *op;
	b->s.ext[d1] = n1;
	b->dst += o1 * op->s.ds[d1];
	if (b->src)
		b->src += o1 * op->s.ss[d1];
	if (d2 >= 0) {
		b->s.ext[d2] = n2;
		b->dst += o2 * op->s.ds[d2];
		if (b->src)
			b->src += o2 * op->s.ss[d2];
	}
	p->nbox++;
}

/*
 * Cut @op into @n parts of (nearly) equal size: the two best dims d1, d2
 * are seen as one linear range of ext[d1] x ext[d2] points, cut at n equal
 * points (rounded to the granule of d2); a part is then at most a partial
 * d2 row, whole d2 rows, and a partial row. Returns the parts made.
 */
static unsigned tc_op_split(const struct tc_op *op, unsigned n, struct tc_part *parts)
{
	int dims[TC_MAXD + 4], d1, d2;
	size_t gran[TC_MAXD + 4], e1, e2, g;
	unsigned t, m = 0;
	int nd = tc_split_dims(op, dims, gran);

	if (!nd)
		return 0;
	d1 = dims[0];
	d2 = nd > 1 ? dims[1] : -1;
	e1 = op->s.ext[d1];
	e2 = d2 >= 0 ? op->s.ext[d2] : 1;
	g = d2 >= 0 ? gran[1] : gran[0];
	if (d2 < 0) {		/* one dim: cut it at its granule */
		e2 = e1;
		e1 = 1;
	}
	for (t = 0; t < n; t++) {
		unsigned __int128 total = (unsigned __int128)e1 * e2;
		unsigned __int128 lo = total * t / n, hi = total * (t + 1) / n;
		size_t l1 = (size_t)(lo / e2), l2 = (size_t)(lo % e2);
		size_t h1 = (size_t)(hi / e2), h2 = (size_t)(hi % e2);
		struct tc_part *p = &parts[m];

		/* cut points at whole granules of d2 */
		l2 = t ? l2 / g * g : 0;
		h2 = t + 1 < n ? h2 / g * g : 0;
		if (t + 1 == n)
			h1 = e1;
		p->nbox = 0;
		if (d2 < 0) {
			tc_box_add(p, op, d1, l2, (h1 ? e2 : h2) - l2, -1, 0, 1);
		} else if (l1 == h1) {
			tc_box_add(p, op, d1, l1, 1, d2, l2, h2 - l2);
		} else {
			if (l2) {
				tc_box_add(p, op, d1, l1, 1, d2, l2, e2 - l2);
				l1++;
			}
			tc_box_add(p, op, d1, l1, h1 - l1, d2, 0, e2);
			if (h2 && h1 < e1)
				tc_box_add(p, op, d1, h1, 1, d2, 0, h2);
		}
		if (p->nbox)
			m++;
	}
	return m;
}

static void tc_part_run(void *arg)
{
	const struct tc_part *p = arg;
	int nt = 0;

	for (int i = 0; i < p->nbox; i++)
		nt |= tc_op_run(&p->box[i]);
	if (nt && p->box[0].k->sfence)
		p->box[0].k->sfence();
}

/* Parts on the stack up to this many threads, else on the heap. */
#define TC_STACK_PARTS	4

static void tc_op_exec(const struct tc_op *op, unsigned nthr)
{
	struct tc_part stack_parts[TC_STACK_PARTS], *parts = stack_parts;
	unsigned n = 0;

	if (nthr > 1 && op->disjoint &&
	    tc_shape_elems(&op->s) * op->s.es >= TC_THREAD_MIN) {
		if (nthr > TC_STACK_PARTS)
			parts = malloc(sizeof(*parts) * nthr);
		if (!parts) {
			parts = stack_parts;
			nthr = TC_STACK_PARTS;
		}
		n = tc_op_split(op, nthr, parts);
		if (n > 1)
			tc_pool_run(tc_part_run, parts, sizeof(parts[0]), n,
				    tc_shape_elems(&op->s) * op->s.es);
		if (parts != stack_parts)
			free(parts);
	}
	if (n <= 1 && tc_op_run(op) && op->k->sfence)
		op->k->sfence();
}

/* The few-rows program lives on this frame, made only when one applies. */
static __attribute__((noinline)) int tc_op_exec_fr(struct tc_op *op, unsigned nthr)
{
	unsigned char prog[TC_FR_PROG_BYTES] __attribute__((aligned(64)));

	if (op->k->fr_prepare(prog, op->s.ext[op->a], op->tes, op->s.ds[op->b],
			      op->pad, op->pat))
		return -1;
	op->fr = prog;
	tc_op_exec(op, nthr);
	op->fr = NULL;
	return 0;
}

/*
 * The dim that continues @x (a or b) on the side where it is contiguous
 * (tc_cols_point, tc_rows_point), for an @x under TC_COLS_SHORT bytes
 * while the other's lines are at least TC_COLS_MIN_LINE; -1 if none. A
 * staged block is at most TC_COLS_LINE bytes x (TC_COLS_SHORT - 1)
 * elements: it fits TC_COLS_BUF (the _Static_assert above).
 */
static int tc_chain(const struct tc_op *op, int x, int y, const size_t *stride)
{
	const struct tc_shape *s = &op->s;
	size_t next = stride[x] * s->ext[x];

	if (s->ext[x] * op->tes >= TC_COLS_SHORT ||
	    s->ext[y] * op->tes < TC_COLS_MIN_LINE)
		return -1;
	for (int k = 0; k < s->nd; k++)
		if (k != x && k != y && stride[k] == next && s->ext[k] > 1)
			return k;
	return -1;
}

/*
 * Rows of @data bytes (elements of @tes) that a few-rows program takes,
 * with @pad bytes of padding after each, @dld bytes apart. Rows of whole
 * 16-byte lanes (C = 4 f32, 8 f16) are register tiles already, and faster
 * (in L2: 50-69 vs 36 GB/s for C = 4 f32); with padding the program
 * writes whole rows.
 */
static int tc_fr_wanted(const struct tc_kernels *k, size_t data, unsigned tes,
			size_t dld, size_t pad)
{
	return k->fr_prepare && data < 64 && (data % 16 || pad) && dld <= 64 &&
	       dld >= data + pad && data + pad >= 2 * tes;
}

static void tc_op_exec_transpose(struct tc_op *op, unsigned nthr)
{
	size_t rows = op->s.ext[op->a], dld = op->s.ds[op->b];

	if (tc_fr_wanted(op->k, rows * op->tes, op->tes, dld, op->pad) &&
	    !tc_op_exec_fr(op, nthr))
		return;
	if (!op->pad) {
		/*
		 * Both may continue (OIhw <-> OIhw16i16o: i0 continues hw at
		 * one side and o0 at the other): the staged lines are rows
		 * of a (b2) or of b (a2); the longer ones win (f16: 32-byte
		 * lines, not 18).
		 */
		op->b2 = tc_chain(op, op->b, op->a, op->s.ss);
		op->a2 = tc_chain(op, op->a, op->b, op->s.ds);
		if (op->b2 >= 0 && op->a2 >= 0) {
			if (op->s.ext[op->a] >= op->s.ext[op->b])
				op->a2 = -1;
			else
				op->b2 = -1;
		}
	}
	tc_op_exec(op, nthr);
}

/* ---- fused padding ----------------------------------------------------------- */

/*
 * The rows of @d (its dims >= 1) as destination extents and strides, unit
 * dims dropped and dims whose strides chain merged: the planner merges a
 * FILL's dims wherever the destination allows, a COPY's only where the
 * source does too (NCHW -> NC1HWC0 with C = 3: the FILL's N x HW rows are
 * one dim, the COPY's two). Returns the number of dims, or -1 if a
 * merged extent overflows. The products are checked here rather than
 * trusted to the descriptor checks: a wrapped product could match rows
 * that differ, and fusing those writes the wrong bytes.
 */
static int tc_dst_rows(const struct drm_tilecopy_desc *d, uint64_t ext[TC_MAXD],
		       uint64_t str[TC_MAXD])
{
	int m = 0;

	for (int k = 1; k < d->ndims && k < TC_MAXD; k++) {
		uint64_t span;

		if (d->extent[k] == 1)
			continue;
		/* a span that overflows chains to nothing: the dims stay apart */
		if (m && !__builtin_mul_overflow(str[m - 1], ext[m - 1], &span) &&
		    span == d->dst_stride[k]) {
			if (__builtin_mul_overflow(ext[m - 1], d->extent[k], &ext[m - 1]))
				return -1;
			continue;
		}
		ext[m] = d->extent[k];
		str[m++] = d->dst_stride[k];
	}
	return m;
}

/* The same destination rows (tc_dst_rows), dim 0 dst-contiguous. */
static int tc_same_rows(const struct drm_tilecopy_desc *x,
			const struct drm_tilecopy_desc *y)
{
	uint64_t xe[TC_MAXD], xs[TC_MAXD], ye[TC_MAXD], ys[TC_MAXD];
	int n;

	/* below TC_MAXD: tc_rows_disjoint() adds a dim */
	if (x->elem_size != y->elem_size || x->ndims >= TC_MAXD || y->ndims >= TC_MAXD ||
	    x->dst_stride[0] != 1 || y->dst_stride[0] != 1)
		return 0;
	n = tc_dst_rows(x, xe, xs);
	if (n < 0 || n != tc_dst_rows(y, ye, ys))
		return 0;
	for (int k = 0; k < n; k++)
		if (xe[k] != ye[k] || xs[k] != ys[k])
			return 0;
	return 1;
}

/*
 * The destination rows of @x, taken as @w elements each, and those of @y
 * (NULL: @x alone): provably disjoint? The rows of both are one shape with
 * an extra dim of 2 whose stride is the distance between them.
 */
static int tc_rows_disjoint(const struct drm_tilecopy_desc *x,
			    const struct drm_tilecopy_desc *y, size_t w)
{
	struct tc_shape s = { .nd = x->ndims, .es = x->elem_size };

	s.ext[0] = w;
	s.ds[0] = s.es;
	for (int k = 1; k < x->ndims; k++) {
		s.ext[k] = x->extent[k];
		s.ds[k] = x->dst_stride[k] * s.es;
	}
	if (y) {
		if (y->extent[0] > w || y->dst == x->dst)
			return 0;
		s.ext[s.nd] = 2;
		s.ds[s.nd++] = y->dst > x->dst ? y->dst - x->dst : x->dst - y->dst;
	}
	return tc_shape_dst_disjoint(&s);
}

/*
 * The FILL descs[@i] writes the tail of every destination row of a later
 * transposing COPY descs[j]: rows of w = copy + fill elements, the fill
 * starting where the copy ends. Every descriptor between them must write
 * only other rows, so that running the pair at i gives the same bytes.
 * Returns j and @op (the COPY, with the FILL as its pad), or 0.
 */
static size_t tc_fuse_find(const struct tc_kernels *k,
			   const struct drm_tilecopy_desc *descs, size_t n,
			   size_t i, const void *src, void *dst, struct tc_op *op)
{
	const struct drm_tilecopy_desc *f = &descs[i], *c;
	size_t j, m, w, es = f->elem_size;

	for (j = i + 1; j < n && j <= i + TC_FUSE_WINDOW; j++) {
		c = &descs[j];
		if (c->op == DRM_TILECOPY_OP_WRITE64)
			return 0;
		if (c->op != DRM_TILECOPY_OP_COPY || !tc_same_rows(f, c) ||
		    f->dst != c->dst + (uint64_t)c->extent[0] * es)
			continue;
		w = (size_t)c->extent[0] + f->extent[0];
		if (!tc_rows_disjoint(c, NULL, w))
			return 0;
		for (m = i + 1; m < j; m++)
			if (!tc_same_rows(c, &descs[m]) ||
			    !tc_rows_disjoint(c, &descs[m], w))
				return 0;
		tc_op_init(op, k, c, src, dst);
		if (op->kind != TC_OP_TRANSPOSE || op->tes != es ||
		    op->s.ds[op->a] != es || op->s.ext[op->a] != c->extent[0])
			return 0;
		op->pad = f->extent[0] * es;
		for (unsigned b = 0; b < 64; b++)
			op->pat[b] = (unsigned char)(f->value >> (8 * (b % es)));
		/* the whole rows are written now: stream them if large */
		op->nt = (tc_shape_elems(&op->s) * es / c->extent[0]) * w >= TC_NT_THRESHOLD;
		return j;
	}
	return 0;
}

/*
 * A typed descriptor: a byte copy as its untyped twin (every fast path of
 * this file), anything else converted (pattern_typed.c).
 */
static int tc_exec_typed(const struct tc_kernels *k, const struct drm_tilecopy_desc *d,
			 const void *src, void *dst, const float *scales, unsigned nthr)
{
	struct drm_tilecopy_desc u;

	if (tc_typed_as_untyped(d, &u))
		return tc_exec_kernels(k, &u, 1, src, dst, NULL);
	return tc_typed_exec(k, d, src, dst, scales, nthr);
}

int tc_exec_kernels(const struct tc_kernels *k,
		    const struct drm_tilecopy_desc *descs, size_t n,
		    const void *src, void *dst, const float *scales)
{
	unsigned nthr = tc_pool_threads();
	uint64_t fused = 0;	/* bit b: descs[i + b] ran fused with a FILL */
	size_t i, j;

	for (i = 0; i < n; i++)
		if (!tc_typed_scales_ok(&descs[i], scales))
			return -EINVAL;
	for (i = 0; i < n; i++, fused >>= 1) {
		const struct drm_tilecopy_desc *d = &descs[i];
		struct tc_op op;

		if (fused & 1)
			continue;
		if (d->src_type || d->dst_type) {
			if (tc_exec_typed(k, d, src, dst, scales, nthr))
				return -EINVAL;
			continue;
		}
		switch (d->op) {
		case DRM_TILECOPY_OP_WRITE64:
			memcpy((char *)dst + d->dst, &d->value, 8);
			continue;
		case DRM_TILECOPY_OP_FILL:
			j = tc_fuse_find(k, descs, n, i, src, dst, &op);
			if (j) {
				fused |= 1ull << (j - i);
				break;
			}
			/* fall through */
		case DRM_TILECOPY_OP_COPY:
			tc_op_init(&op, k, d, src, dst);
			break;
		default:
			return -EINVAL;
		}
		if (op.kind == TC_OP_TRANSPOSE)
			tc_op_exec_transpose(&op, nthr);
		else
			tc_op_exec(&op, nthr);
	}
	return 0;
}

/* ---- small plans: one kernel call ------------------------------------------ */

/*
 * What tc_exec_kernels() does with @descs when that is one kernel call
 * whatever the kernels: a single untyped COPY with no dim outside its
 * rule's (tc_foreach_blocked makes one point), under TC_THREAD_MIN (one
 * thread, and no streaming stores: TC_NT_THRESHOLD is larger), a
 * transpose within one block (tc_tr_point makes one call). What depends on
 * the kernels, tc_direct_run() decides with the loops' own tests: a
 * fractal kernel where tc_op_transpose() takes one (tc_fractal_wanted), a
 * decline wherever tc_op_exec_transpose() would try a few-rows program
 * (tc_fr_wanted), whether or not its program then takes the shape.
 */
void tc_direct_analyse(const struct drm_tilecopy_desc *descs, size_t n,
		       struct tc_direct *dc)
{
	const struct drm_tilecopy_desc *d = descs;
	struct tc_op op;
	unsigned rule;
	size_t bytes;

	memset(dc, 0, sizeof(*dc));
	if (n != 1 || d->op != DRM_TILECOPY_OP_COPY || d->src_type || d->dst_type)
		return;
	tc_op_analyse(&op, NULL, d);
	bytes = tc_shape_elems(&op.s) * op.s.es;
	rule = tc_dimbit(op.a) | tc_dimbit(op.b) | tc_dimbit(op.c);
	if (bytes >= TC_THREAD_MIN || op.nt || rule != (1u << op.s.nd) - 1)
		return;
	dc->src = d->src;
	dc->dst = d->dst;
	if (op.kind == TC_OP_CONTIG) {
		dc->kind = TC_DIRECT_COPY;
		dc->bytes = bytes;
		return;
	}
	/* no staged chain (tc_chain): there is no dim but a, b and the run's */
	if (op.kind != TC_OP_TRANSPOSE)
		return;
	dc->tes = op.tes;
	dc->rows = op.s.ext[op.a];
	dc->cols = op.s.ext[op.b];
	dc->sld = op.s.ss[op.a];
	dc->dld = op.s.ds[op.b];
	if (tc_block_of(dc->rows, dc->tes, TC_BLOCK_ROW_BYTES) == dc->rows &&
	    tc_block_of(dc->cols, dc->tes, TC_BLOCK_COL_BYTES) == dc->cols)
		dc->kind = TC_DIRECT_TRANSPOSE;
}

int tc_direct_run(const struct tc_kernels *k, const struct tc_direct *dc,
		  const void *src, void *dst)
{
	const char *s = (const char *)src + dc->src;
	char *d = (char *)dst + dc->dst;
	unsigned l = tc_log2es(dc->tes);

	switch (dc->kind) {
	case TC_DIRECT_COPY:
		k->copy(d, s, dc->bytes, 0);
		return 0;
	case TC_DIRECT_TRANSPOSE:
		if (tc_fr_wanted(k, dc->rows * dc->tes, dc->tes, dc->dld, 0))
			return -1;
		if (tc_fractal_wanted(k, dc->rows, dc->cols, dc->sld, dc->dld, dc->tes))
			k->fractal[l](d, s, 0);
		else
			k->transpose[l](d, dc->dld, s, dc->sld, dc->rows, dc->cols, 0);
		return 0;
	default:
		return -1;
	}
}
