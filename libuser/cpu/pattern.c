// SPDX-License-Identifier: MIT
/*
 * pattern.c - shape analysis and loops shared by the SIMD executors.
 *
 * A descriptor is normalised (unit dims dropped, dims whose strides chain
 * merged, strides in bytes) and then run by the first rule that fits
 * (descriptors writing 4 MB or more use non-temporal stores, see
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
 *   transpose       a dim with dst stride es and one with src stride es
 *                   -> cache blocks of register tiles (k->transpose)
 *   anything else   the descriptor's own loop order, innermost dim
 *                   specialised.
 *
 * Every rule that changes the order of the writes requires a destination
 * that provably does not overlap itself; otherwise the descriptor runs in
 * the scalar reference's order, so results are always bit-identical.
 *
 * TILECOPY_THREADS=N splits the outermost dimension of large descriptors
 * over N threads (default 1).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/pattern.h"

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
/* Descriptors smaller than this stay on one thread. */
#define TC_THREAD_MIN	(1u << 20)
#define TC_MAX_THREADS	64

struct tc_shape {
	int nd;
	unsigned es;
	size_t ext[TC_MAXD];
	size_t ss[TC_MAXD];	/* bytes */
	size_t ds[TC_MAXD];	/* bytes */
};

void tc_transpose_scalar(char *dst, size_t dld, const char *src, size_t sld,
			 size_t rows, size_t cols, unsigned es)
{
	size_t r, c;

	for (c = 0; c < cols; c++)
		for (r = 0; r < rows; r++)
			memcpy(dst + c * dld + r * es, src + r * sld + c * es, es);
}

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
	int used[TC_MAXD] = { 0 };
	size_t span = s->es;
	int i, k;

	for (i = 0; i < s->nd; i++) {
		int best = -1;

		for (k = 0; k < s->nd; k++)
			if (!used[k] && (best < 0 || s->ds[k] < s->ds[best]))
				best = k;
		used[best] = 1;
		if (s->ds[best] < span)
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
 */
struct tc_blk_ctx {
	tc_point_fn fn;
	void *ctx;
	size_t np, nq, bp, bq, ssp, ssq, dsp, dsq;
};

static void tc_blk_point(void *ctx, const char *src, char *dst)
{
	const struct tc_blk_ctx *b = ctx;
	size_t p0, q0, p, q;

	for (q0 = 0; q0 < b->nq; q0 += b->bq) {
		size_t qe = q0 + b->bq < b->nq ? q0 + b->bq : b->nq;

		for (p0 = 0; p0 < b->np; p0 += b->bp) {
			size_t pe = p0 + b->bp < b->np ? p0 + b->bp : b->np;

			for (q = q0; q < qe; q++)
				for (p = p0; p < pe; p++)
					b->fn(b->ctx, src ? src + p * b->ssp + q * b->ssq : NULL,
					      dst + p * b->dsp + q * b->dsq);
		}
	}
}

static void tc_foreach_blocked(const struct tc_shape *s, unsigned skip,
			       size_t bp, size_t bq, const char *src, char *dst,
			       tc_point_fn fn, void *ctx)
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
	tc_foreach(s, skip | (1u << p) | (1u << q), src, dst, tc_blk_point, &b);
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

static void tc_runs2d_point(void *ctx, const char *src, char *dst)
{
	const struct tc_runs2d_ctx *c = ctx;
	size_t r0, c0, cc;

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
	void (*fn)(char *dst, size_t dld, const char *src, size_t sld,
		   size_t rows, size_t cols, int nt);
	unsigned es;
	int nt;
	size_t rows, cols, sld, dld, rb, cb;
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
		}
	}
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
 * Transpose over dims @a (dst-contiguous: rows) and @b (src-contiguous:
 * cols) with elements of @es bytes (1, 2, 4, 8; possibly a run of smaller
 * elements moved as one).
 */
static void tc_run_transpose(const struct tc_kernels *k, const struct tc_shape *s,
			     int a, int b, unsigned es, unsigned skip,
			     const char *src, char *dst, int nt)
{
	struct tc_tr_ctx c = {
		.es = es, .rows = s->ext[a], .cols = s->ext[b],
		.sld = s->ss[a], .dld = s->ds[b], .nt = nt,
	};

	c.fn = k->transpose[es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3];
	c.rb = tc_block_of(c.rows, es, TC_BLOCK_ROW_BYTES);
	c.cb = tc_block_of(c.cols, es, TC_BLOCK_COL_BYTES);
	tc_foreach_blocked(s, skip | (1u << a) | (1u << b), TC_OUTER_BP,
			   TC_OUTER_BQ, src, dst, tc_tr_point, &c);
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

/* ---- COPY ---------------------------------------------------------------- */

/* Runs one (sub-)shape; returns non-zero if it used non-temporal stores. */
static int tc_copy_shape(const struct tc_kernels *k, const struct tc_shape *s,
			 const char *src, char *dst, int nt)
{
	int disjoint = tc_shape_dst_disjoint(s);
	int c, a, b;

	c = -1;
	for (a = 0; a < s->nd; a++)
		if (s->ss[a] == s->es && s->ds[a] == s->es)
			c = a;
	if (c >= 0 && s->nd == 1) {
		k->copy(dst, src, s->ext[0] * s->es, nt);
		return nt;
	}
	if (!disjoint) {
		tc_run_generic(s, src, dst);
		return 0;
	}
	if (c >= 0) {
		size_t run = s->ext[c] * s->es;

		/* runs of 2..8 bytes, transposed: a transpose of wider elements */
		if (run <= 8 && !(run & (run - 1))) {
			a = tc_find_dim(s, 0, run, c);
			b = tc_find_dim(s, 1, run, a);
			if (a >= 0 && b >= 0 && a != c && b != c) {
				tc_run_transpose(k, s, a, b, (unsigned)run, 1u << c,
						 src, dst, nt);
				return nt;
			}
		}
		a = tc_find_dim(s, 0, run, c);
		b = tc_find_dim(s, 1, run, a);
		if (run < 256 && a >= 0 && b >= 0 && a != c && b != c) {
			struct tc_runs2d_ctx rc = {
				.k = k, .run = run, .nt = nt,
				.rows = s->ext[a], .cols = s->ext[b],
				.sld = s->ss[a], .dld = s->ds[b],
				.rb = TC_RUNS_ROW_BYTES / run ? TC_RUNS_ROW_BYTES / run : 1,
				.cb = TC_RUNS_COL_BYTES / run ? TC_RUNS_COL_BYTES / run : 1,
			};

			/*
			 * Rows whose stride is a multiple of 64 KB (zN columns of
			 * 4096 rows) share L2 sets: at most 8 of them at once,
			 * the L2 is 8-way. Measured zN -> RowMajor: 16 streams
			 * 0.55x memcpy, 8 streams 0.9x.
			 */
			if (!(rc.sld & 0xffff) && rc.rb > 8)
				rc.rb = 8;
			tc_foreach(s, (1u << a) | (1u << b) | (1u << c), src, dst,
				   tc_runs2d_point, &rc);
			return nt;
		}
		if (run < 256) {
			/* short runs (fractals): in destination order */
			struct tc_runs_ctx rc = { .k = k, .run = run, .nt = nt };
			int in = -1;

			for (a = 0; a < s->nd; a++)
				if (a != c && (in < 0 || s->ds[a] < s->ds[in]))
					in = a;
			rc.count = s->ext[in];
			rc.sld = s->ss[in];
			rc.dld = s->ds[in];
			tc_foreach_blocked(s, (1u << c) | (1u << in), TC_OUTER_BP,
					   TC_OUTER_BQ, src, dst, tc_runs_point, &rc);
			return nt;
		}
		{
			struct tc_run_ctx rc = { .k = k, .bytes = run, .nt = nt };

			tc_foreach_blocked(s, 1u << c, TC_OUTER_BP, TC_OUTER_BQ,
					   src, dst, tc_run_point, &rc);
			return nt;
		}
	}
	a = tc_find_dim(s, 0, s->es, -1);
	b = tc_find_dim(s, 1, s->es, a);
	if (a >= 0 && b >= 0) {
		tc_run_transpose(k, s, a, b, s->es, 0, src, dst, nt);
		return nt;
	}
	tc_run_generic(s, src, dst);
	return 0;
}

/* ---- FILL ---------------------------------------------------------------- */

struct tc_fill_ctx {
	const struct tc_kernels *k;
	unsigned char pat[64];
	size_t bytes;
	int nt;
};

static void tc_fill_point(void *ctx, const char *src, char *dst)
{
	const struct tc_fill_ctx *c = ctx;

	c->k->fill(dst, c->pat, c->bytes, c->nt);
}

static int tc_fill_shape(const struct tc_kernels *k, const struct tc_shape *s,
			 uint64_t value, char *dst, int nt)
{
	struct tc_fill_ctx c = { .k = k };
	unsigned i;
	int run = -1, j;

	for (i = 0; i < 64; i++)
		c.pat[i] = (unsigned char)(value >> (8 * (i % s->es)));
	/* Every element gets the same bytes, so any order gives the same result. */
	for (j = 0; j < s->nd; j++)
		if (s->ds[j] == s->es)
			run = j;
	if (run < 0) {
		c.bytes = s->es;
		c.nt = 0;
		tc_foreach(s, 0, NULL, dst, tc_fill_point, &c);
		return 0;
	}
	c.bytes = s->ext[run] * s->es;
	c.nt = nt && c.bytes >= 256;
	tc_foreach(s, 1u << run, NULL, dst, tc_fill_point, &c);
	return c.nt;
}

/* ---- threads ------------------------------------------------------------- */

struct tc_job {
	const struct tc_kernels *k;
	struct tc_shape s;
	const char *src;
	char *dst;
	int fill, nt, used_nt;
	uint64_t value;
};

static void tc_job_run(struct tc_job *j)
{
	if (j->fill)
		j->used_nt = tc_fill_shape(j->k, &j->s, j->value, j->dst, j->nt);
	else
		j->used_nt = tc_copy_shape(j->k, &j->s, j->src, j->dst, j->nt);
	if (j->used_nt && j->k->sfence)
		j->k->sfence();
}

static void *tc_job_thread(void *arg)
{
	tc_job_run(arg);
	return NULL;
}

static unsigned tc_threads(void)
{
	const char *e = getenv("TILECOPY_THREADS");
	long n;

	if (!e || !*e)
		return 1;
	n = strtol(e, NULL, 10);
	if (n < 1)
		return 1;
	return n > TC_MAX_THREADS ? TC_MAX_THREADS : (unsigned)n;
}

/*
 * Split the outermost dim over @nthr threads; the parts write disjoint
 * destinations (checked by the caller), so their order does not matter.
 */
static void tc_job_run_threads(struct tc_job *j, unsigned nthr)
{
	struct tc_job parts[TC_MAX_THREADS];
	pthread_t tid[TC_MAX_THREADS];
	int started[TC_MAX_THREADS] = { 0 };
	int o = j->s.nd - 1;
	size_t ext = j->s.ext[o], at = 0;
	unsigned t;

	if (ext < nthr)
		nthr = (unsigned)ext;
	for (t = 0; t < nthr; t++) {
		size_t len = ext / nthr + (t < ext % nthr);

		parts[t] = *j;
		parts[t].s.ext[o] = len;
		parts[t].src = j->src ? j->src + at * j->s.ss[o] : NULL;
		parts[t].dst = j->dst + at * j->s.ds[o];
		at += len;
	}
	for (t = 1; t < nthr; t++)
		started[t] = !pthread_create(&tid[t], NULL, tc_job_thread, &parts[t]);
	tc_job_run(&parts[0]);
	for (t = 1; t < nthr; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			tc_job_run(&parts[t]);	/* no thread: do it here */
	}
}

int tc_exec_kernels(const struct tc_kernels *k,
		    const struct drm_tilecopy_desc *descs, size_t n,
		    const void *src, void *dst)
{
	unsigned nthr = tc_threads();
	size_t i;

	for (i = 0; i < n; i++) {
		const struct drm_tilecopy_desc *d = &descs[i];
		struct tc_job j = { .k = k };
		size_t out;

		switch (d->op) {
		case DRM_TILECOPY_OP_WRITE64:
			memcpy((char *)dst + d->dst, &d->value, 8);
			continue;
		case DRM_TILECOPY_OP_COPY:
			j.src = (const char *)src + d->src;
			break;
		case DRM_TILECOPY_OP_FILL:
			j.fill = 1;
			j.value = d->value;
			break;
		default:
			return -EINVAL;
		}
		j.dst = (char *)dst + d->dst;
		tc_shape_init(&j.s, d);
		out = tc_shape_elems(&j.s) * j.s.es;
		j.nt = out >= TC_NT_THRESHOLD;
		if (nthr > 1 && out >= TC_THREAD_MIN && j.s.nd >= 1 &&
		    tc_shape_dst_disjoint(&j.s))
			tc_job_run_threads(&j, nthr);
		else
			tc_job_run(&j);
	}
	return 0;
}
