// SPDX-License-Identifier: MIT
/*
 * bench.c - tilecopy's CPU path against the streaming-copy limit, memcpy,
 * oneDNN and a naive loop.
 *
 * Every case is one layout conversion. In the same run, each contender is
 * warmed up, its result checked against the scalar reference, and then
 * all are timed in N interleaved rounds (--reps), each keeping its best:
 *
 *   tilecopy   the plan, run by tilecopy_plan_execute_cpu on the best
 *              executor (or --cpu NAME; --all-cpus adds every executor)
 *   limit      a streaming copy of the same bytes: AVX-512 (or AVX2, or
 *              NEON) loads and non-temporal stores, the practical
 *              bandwidth limit of any conversion
 *   memcpy     glibc memcpy of the source bytes
 *   oneDNN     dnnl reorder: by format tag where oneDNN has the format, or
 *              else by the plan's own strided view (one descriptor, up to
 *              8 dims); its output is compared with tilecopy's
 *   naive      a typed element loop over the plan's descriptors (not
 *              for converting and int4 plans: a loop per type pair is no
 *              baseline anyone writes first)
 *
 * A case whose destination dtype differs converts while it changes the
 * layout (tilecopy_plan_create_v2, default parameters; oneDNN's reorder
 * with the two data types); int4 has no oneDNN contender (oneDNN 2.6
 * has no 4-bit type).
 *
 * GB/s count bytes read + bytes written. Threads: --threads 1,2 times
 * every contender at each count in the same interleaved rounds (tilecopy
 * through tilecopy_cpu_set_threads, limit and memcpy as OpenMP loops,
 * oneDNN with its OpenMP threads); the naive loop runs on one. OpenMP
 * workers spin for ~5 ms after a parallel region, so a threaded contender
 * is followed by a 10 ms pause before the next one is timed.
 *
 * GB/s are each contender's best round; the factors (x limit, x oneDNN,
 * vs 1 thread) are medians over the rounds of the ratio within a round.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

#include <oneapi/dnnl/dnnl.h>

#include "tilecopy/tilecopy.h"
#include "tilecopy_accel.h"
#include "bench.h"

#define BENCH_MAX_THR	4	/* thread counts in one run (--threads 1,2) */
#define BENCH_MAX_REPS	200
#define BENCH_STR_(x)	#x
#define BENCH_STR(x)	BENCH_STR_(x)
/*
 * A round repeats a job for at least this long: the first call after the
 * pause between contenders wakes sleeping workers (tilecopy's and
 * OpenMP's alike), which on a loaded VM can take milliseconds; over 20 ms
 * that costs a few percent, and the figures are steady-state throughput.
 */
#define BENCH_ROUND_S	20e-3

struct bench_case {
	const char *name;
	const char *from, *to;
	tilecopy_dtype_t dt;
	int rank;
	int64_t shape[4];
	dnnl_format_tag_t dnnl_from, dnnl_to;	/* dnnl_format_tag_undef: view */
	int convert;		/* the destination is of dtype dt_to */
	tilecopy_dtype_t dt_to;
};

static const struct bench_case bench_cases[] = {
	{ "nchw-nhwc-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nhwc, 0, 0 },
	{ "nhwc-nchw-f32", "NHWC", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nhwc, dnnl_nchw, 0, 0 },
	{ "nchw-nChw16c-f32", "NCHW", "nChw16c", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c, 0, 0 },
	{ "nChw16c-nchw-f32", "nChw16c", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nChw16c, dnnl_nchw, 0, 0 },
	{ "nchw-nChw16c-c20-f32", "NCHW", "nChw16c", TILECOPY_DT_F32, 4, { 32, 20, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c, 0, 0 },	/* padded: 12 of every 32 channels zero */
	{ "image-c3-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 1, 3, 224, 224 },
	  dnnl_nchw, dnnl_nhwc, 0, 0 },
	{ "nchw-nhwc-7x7-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 256, 1024, 7, 7 },
	  dnnl_nchw, dnnl_nhwc, 0, 0 },
	{ "transpose-4096-f32", "RowMajor", "ColumnMajor", TILECOPY_DT_F32, 2, { 4096, 4096 },
	  dnnl_ab, dnnl_ba, 0, 0 },
	{ "transpose-8192-u8", "RowMajor", "ColumnMajor", TILECOPY_DT_U8, 2, { 8192, 8192 },
	  dnnl_ab, dnnl_ba, 0, 0 },
	{ "transpose-8000-u8", "RowMajor", "ColumnMajor", TILECOPY_DT_U8, 2, { 8000, 8000 },
	  dnnl_ab, dnnl_ba, 0, 0 },
	{ "oihw-OIhw16i16o-f32", "oihw", "OIhw16i16o", TILECOPY_DT_F32, 4, { 256, 256, 3, 3 },
	  dnnl_oihw, dnnl_OIhw16i16o, 0, 0 },
	{ "nchw-nchw64-i4", "NCHW", "NCHW64", TILECOPY_DT_I4, 4, { 32, 64, 56, 56 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "nchw-nchw64-c3-i4", "NCHW", "NCHW64", TILECOPY_DT_I4, 4, { 32, 3, 56, 56 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },	/* 61 of 64 nibbles padding */
	{ "nchw-nhwc-f32-bf16", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nhwc, 1, TILECOPY_DT_BF16 },
	{ "nchw-nhwc-f32-f16", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nhwc, 1, TILECOPY_DT_F16 },
	{ "nchw-nChw16c-f32-s8", "NCHW", "nChw16c", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c, 1, TILECOPY_DT_I8 },
	{ "nchw-nc1hwc0-f16", "NCHW", "NC1HWC0", TILECOPY_DT_F16, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c, 0, 0 },	/* C0 = 16 for f16: nChw16c */
	{ "rowmajor-zN-f16", "RowMajor", "zN", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "zN-rowmajor-f16", "zN", "RowMajor", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "zN-nZ-f16", "zN", "nZ", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "rowmajor-zN-i8", "RowMajor", "zN", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "zN-rowmajor-i8", "zN", "RowMajor", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "zN-nZ-i8", "zN", "nZ", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef, 0, 0 },
	{ "nchw-nchw-f32", "NCHW", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nchw, 0, 0 },
	{ "small-4k-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 1, 16, 8, 8 },
	  dnnl_nchw, dnnl_nhwc, 0, 0 },
	{ "small-4k-copy-f32", "NCHW", "NCHW", TILECOPY_DT_F32, 4, { 1, 16, 8, 8 },
	  dnnl_nchw, dnnl_nchw, 0, 0 },	/* the per-call cost alone */
};
#define NCASES (sizeof(bench_cases) / sizeof(bench_cases[0]))

struct bench_opts {
	int json, markdown, reps, all_cpus;
	int huge;	/* --huge-pages: buffers madvise(MADV_HUGEPAGE)d */
	int nthr, thr[BENCH_MAX_THR];
	const char *only, *cpu;
	const char *from, *to, *shape, *dtype;	/* a custom case */
};

/* ---- timing -------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef int (*bench_fn)(void *ctx);

/*
 * One contender of a case. All contenders of a case are timed in
 * interleaved rounds (round r times each of them once), so that on a busy
 * machine they see the same conditions; each keeps its best round, and
 * every round's time for ratios within a round (see ratio_median). A job
 * repeats inside a round until it lasts BENCH_ROUND_S.
 */
struct contender {
	const char *name;
	bench_fn fn;
	void *ctx;
	int verify;		/* its output must equal the reference */
	int threads;
	long inner;
	double best;		/* seconds per call; < 0: failed */
	double *out;		/* where its seconds per call go */
	double *rounds;		/* where its time in each round goes */
	double t[BENCH_MAX_REPS];
};

static int contender_prepare(struct contender *c, unsigned char *dst,
			     size_t dst_bytes, const unsigned char *check)
{
	double t0, t;

	c->best = -1;
	memset(dst, 0, dst_bytes);
	if (c->fn(c->ctx))
		return -1;
	if (c->verify && memcmp(check, dst, dst_bytes))
		return -1;
	t0 = now();
	if (c->fn(c->ctx))
		return -1;
	t = now() - t0;
	c->inner = t < BENCH_ROUND_S ? (long)(BENCH_ROUND_S / (t > 1e-8 ? t : 1e-8)) + 1 : 1;
	c->best = 1e30;
	return 0;
}

static void contenders_time(struct contender *c, int n, int reps)
{
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++) {
			double t0, t;

			if (c[i].best < 0)
				continue;
			t0 = now();
			for (long k = 0; k < c[i].inner; k++)
				if (c[i].fn(c[i].ctx)) {
					c[i].best = -1;
					break;
				}
			t = (now() - t0) / (double)c[i].inner;
			c[i].t[r] = t;
			if (c[i].best >= 0 && t < c[i].best)
				c[i].best = t;
			/* let spinning OpenMP (or tilecopy) workers settle */
			if (c[i].threads > 1)
				usleep(10000);
		}
	}
}

/* ---- contenders ---------------------------------------------------------- */

struct bench_run {
	const tilecopy_plan_t *plan;
	const char *cpu;
	unsigned char *src, *dst;
	size_t src_bytes, dst_bytes;
	int threads;
	/* oneDNN */
	dnnl_primitive_t reorder;
	dnnl_stream_t stream;
	dnnl_memory_t msrc, mdst;
};

/* The 1.0 API's getters, for expressions. */
static const struct drm_tilecopy_desc *plan_descs(const tilecopy_plan_t *p, size_t *n)
{
	const struct drm_tilecopy_desc *d = NULL;

	*n = 0;
	tilecopy_plan_descs(p, &d, n);
	return d;
}

static uint64_t plan_bytes(tilecopy_status_t (*get)(const tilecopy_plan_t *, uint64_t *),
			   const tilecopy_plan_t *p)
{
	uint64_t b = 0;

	get(p, &b);
	return b;
}

/* The destination's dtype. */
static tilecopy_dtype_t case_dt_to(const struct bench_case *c)
{
	return c->convert ? c->dt_to : c->dt;
}

static const char *dtype_name(tilecopy_dtype_t dt)
{
	const char *name = "?";

	tilecopy_dtype_name(dt, &name);
	return name;
}

static const char *cpu_name(const char *cpu)
{
	const char *name = NULL;

	return tilecopy_cpu_name(cpu, &name) ? NULL : name;
}

static int run_tilecopy(void *ctx)
{
	struct bench_run *r = ctx;

	if (tilecopy_cpu_set_threads(r->threads))
		return -1;
	return tilecopy_plan_execute_cpu(r->plan, r->src, r->src_bytes, r->dst,
					 r->dst_bytes, r->cpu) ? -1 : 0;
}

/*
 * The limit: loads and non-temporal stores of whole vectors, the fastest
 * way to move bytes from one buffer to another (no conversion moves fewer).
 */
#if defined(__x86_64__)
__attribute__((target("avx512f")))
static void stream_avx512(char *d, const char *s, size_t n)
{
	for (; n >= 256; n -= 256, d += 256, s += 256) {
		__m512i a = _mm512_loadu_si512(s), b = _mm512_loadu_si512(s + 64);
		__m512i c = _mm512_loadu_si512(s + 128), e = _mm512_loadu_si512(s + 192);

		_mm512_stream_si512((void *)d, a);
		_mm512_stream_si512((void *)(d + 64), b);
		_mm512_stream_si512((void *)(d + 128), c);
		_mm512_stream_si512((void *)(d + 192), e);
	}
	memcpy(d, s, n);
}

__attribute__((target("avx2")))
static void stream_avx2(char *d, const char *s, size_t n)
{
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_stream_si256((__m256i *)d, a);
		_mm256_stream_si256((__m256i *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(d + 96), e);
	}
	memcpy(d, s, n);
}

static const char *stream_isa(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return "AVX-512";
	return __builtin_cpu_supports("avx2") ? "AVX2" : "SSE2";
}

static void stream_copy(char *d, const char *s, size_t n)
{
	size_t head = (64 - ((uintptr_t)d & 63)) & 63;

	if (head > n)
		head = n;
	memcpy(d, s, head);
	d += head, s += head, n -= head;
	if (__builtin_cpu_supports("avx512f"))
		stream_avx512(d, s, n);
	else if (__builtin_cpu_supports("avx2"))
		stream_avx2(d, s, n);
	else
		memcpy(d, s, n);
	_mm_sfence();
}
#elif defined(__aarch64__)
static const char *stream_isa(void)
{
	return "NEON";
}

/* STNP: a store pair with a non-temporal hint. */
static void stream_copy(char *d, const char *s, size_t n)
{
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		uint8x16_t a = vld1q_u8((const uint8_t *)s), b = vld1q_u8((const uint8_t *)s + 16);
		uint8x16_t c = vld1q_u8((const uint8_t *)s + 32), e = vld1q_u8((const uint8_t *)s + 48);

		__asm__ volatile("stnp %q0, %q1, [%2]\n\tstnp %q3, %q4, [%2, #32]"
				 : : "w"(a), "w"(b), "r"(d), "w"(c), "w"(e) : "memory");
	}
	memcpy(d, s, n);
}
#else
static const char *stream_isa(void)
{
	return "memcpy";
}

static void stream_copy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
}
#endif

/* @fn over @t threads (OpenMP), each a contiguous share, 4 KB aligned. */
static void split_copy(void (*fn)(char *, const char *, size_t), char *d,
		       const char *s, size_t n, int t)
{
	if (t <= 1 || n < (256u << 10)) {
		fn(d, s, n);
		return;
	}
#pragma omp parallel for num_threads(t) schedule(static, 1)
	for (int i = 0; i < t; i++) {
		size_t lo = n / t * i & ~(size_t)4095;
		size_t hi = i == t - 1 ? n : (n / t * (i + 1) & ~(size_t)4095);

		fn(d + lo, s + lo, hi - lo);
	}
}

static void plain_memcpy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
}

static size_t copy_bytes(const struct bench_run *r)
{
	return r->src_bytes < r->dst_bytes ? r->src_bytes : r->dst_bytes;
}

static int run_limit(void *ctx)
{
	struct bench_run *r = ctx;

	split_copy(stream_copy, (char *)r->dst, (const char *)r->src, copy_bytes(r),
		   r->threads);
	return 0;
}

static int run_memcpy(void *ctx)
{
	struct bench_run *r = ctx;

	split_copy(plain_memcpy, (char *)r->dst, (const char *)r->src, copy_bytes(r),
		   r->threads);
	return 0;
}

static int run_onednn(void *ctx)
{
	struct bench_run *r = ctx;
	dnnl_exec_arg_t args[2] = {
		{ DNNL_ARG_FROM, r->msrc }, { DNNL_ARG_TO, r->mdst },
	};

	omp_set_num_threads(r->threads);
	if (dnnl_primitive_execute(r->reorder, r->stream, 2, args) != dnnl_success)
		return -1;
	return dnnl_stream_wait(r->stream) == dnnl_success ? 0 : -1;
}

/* The loop a programmer writes first: typed elements, nested dims. */
#define NAIVE_COPY(type)						\
	do {								\
		const type *s_ = (const type *)(src + d->src);		\
		type *d_ = (type *)(dst + d->dst);			\
		for (size_t o = 0; o < outer; o++) {			\
			size_t so = 0, dof = 0, rest = o;		\
			for (int k = 1; k < d->ndims; k++) {		\
				size_t i_ = rest % d->extent[k];	\
				rest /= d->extent[k];			\
				so += i_ * d->src_stride[k];		\
				dof += i_ * d->dst_stride[k];		\
			}						\
			for (size_t i = 0; i < d->extent[0]; i++)	\
				d_[dof + i * d->dst_stride[0]] =	\
					s_[so + i * d->src_stride[0]];	\
		}							\
	} while (0)

#define NAIVE_FILL(type)						\
	do {								\
		type *d_ = (type *)(dst + d->dst);			\
		for (size_t o = 0; o < outer; o++) {			\
			size_t dof = 0, rest = o;			\
			for (int k = 1; k < d->ndims; k++) {		\
				dof += rest % d->extent[k] * d->dst_stride[k]; \
				rest /= d->extent[k];			\
			}						\
			for (size_t i = 0; i < d->extent[0]; i++)	\
				d_[dof + i * d->dst_stride[0]] = (type)d->value; \
		}							\
	} while (0)

static int run_naive(void *ctx)
{
	struct bench_run *r = ctx;
	size_t n, j;
	const struct drm_tilecopy_desc *descs = plan_descs(r->plan, &n);
	const unsigned char *src = r->src;
	unsigned char *dst = r->dst;

	for (j = 0; j < n; j++) {
		const struct drm_tilecopy_desc *d = &descs[j];
		size_t outer = 1;

		for (int k = 1; k < d->ndims; k++)
			outer *= d->extent[k];
		if (d->op == DRM_TILECOPY_OP_COPY) {
			switch (d->elem_size) {
			case 1: NAIVE_COPY(uint8_t); break;
			case 2: NAIVE_COPY(uint16_t); break;
			case 4: NAIVE_COPY(uint32_t); break;
			default: NAIVE_COPY(uint64_t); break;
			}
		} else if (d->op == DRM_TILECOPY_OP_FILL) {
			switch (d->elem_size) {
			case 1: NAIVE_FILL(uint8_t); break;
			case 2: NAIVE_FILL(uint16_t); break;
			case 4: NAIVE_FILL(uint32_t); break;
			default: NAIVE_FILL(uint64_t); break;
			}
		} else {
			memcpy(dst + d->dst, &d->value, 8);
		}
	}
	return 0;
}

/* Its descriptors move bytes (elem_size), as the naive loop does. */
static int plan_untyped(const tilecopy_plan_t *p)
{
	size_t n;
	const struct drm_tilecopy_desc *d = plan_descs(p, &n);

	for (size_t i = 0; i < n; i++)
		if (!d[i].elem_size)
			return 0;
	return 1;
}

/* ---- oneDNN setup -------------------------------------------------------- */

static dnnl_data_type_t dnnl_type_of(tilecopy_dtype_t dt)
{
	switch (dt) {
	case TILECOPY_DT_U8: return dnnl_u8;
	case TILECOPY_DT_I8: return dnnl_s8;
	case TILECOPY_DT_F16: return dnnl_f16;
	case TILECOPY_DT_BF16: return dnnl_bf16;
	case TILECOPY_DT_I32: return dnnl_s32;
	case TILECOPY_DT_F32: return dnnl_f32;
	default: return dnnl_data_type_undef;
	}
}

/*
 * The reorder for @c with r->threads OpenMP threads (oneDNN sizes its
 * split when the primitive is made): by tags, or by the plan's one
 * descriptor as a strided view (dims outermost first). Sets @how.
 */
static int onednn_setup(struct bench_run *r, const struct bench_case *c,
			dnnl_engine_t eng, const char **how)
{
	dnnl_memory_desc_t ms, md;
	dnnl_primitive_desc_t pd;
	dnnl_dims_t dims, ss, ds;
	dnnl_data_type_t ty = dnnl_type_of(c->dt), ty_to = dnnl_type_of(case_dt_to(c));
	size_t n;
	const struct drm_tilecopy_desc *d = plan_descs(r->plan, &n);
	int nd;

	*how = NULL;
	if (ty == dnnl_data_type_undef || ty_to == dnnl_data_type_undef)
		return -1;
	omp_set_num_threads(r->threads);
	if (c->dnnl_from != dnnl_format_tag_undef) {
		for (nd = 0; nd < c->rank; nd++)
			dims[nd] = c->shape[nd];
		if (dnnl_memory_desc_init_by_tag(&ms, nd, dims, ty, c->dnnl_from) ||
		    dnnl_memory_desc_init_by_tag(&md, nd, dims, ty_to, c->dnnl_to))
			return -1;
		*how = "format tags";
	} else {
		if (n != 1 || d->op != DRM_TILECOPY_OP_COPY || d->src || d->dst)
			return -1;
		nd = d->ndims;
		for (int k = 0; k < nd; k++) {
			dims[nd - 1 - k] = d->extent[k];
			ss[nd - 1 - k] = (dnnl_dim_t)d->src_stride[k];
			ds[nd - 1 - k] = (dnnl_dim_t)d->dst_stride[k];
		}
		if (dnnl_memory_desc_init_by_strides(&ms, nd, dims, ty, ss) ||
		    dnnl_memory_desc_init_by_strides(&md, nd, dims, ty_to, ds))
			return -1;
		*how = "strided view of the plan";
	}
	if (dnnl_reorder_primitive_desc_create(&pd, &ms, eng, &md, eng, NULL))
		return *how = NULL, -1;
	if (dnnl_primitive_create(&r->reorder, pd)) {
		dnnl_primitive_desc_destroy(pd);
		return *how = NULL, -1;
	}
	dnnl_primitive_desc_destroy(pd);
	if (dnnl_memory_create(&r->msrc, &ms, eng, r->src) ||
	    dnnl_memory_create(&r->mdst, &md, eng, r->dst))
		return *how = NULL, -1;
	return 0;
}

static void onednn_teardown(struct bench_run *r)
{
	if (r->reorder)
		dnnl_primitive_destroy(r->reorder);
	if (r->msrc)
		dnnl_memory_destroy(r->msrc);
	if (r->mdst)
		dnnl_memory_destroy(r->mdst);
	r->reorder = NULL;
	r->msrc = r->mdst = NULL;
}

/* ---- one case ------------------------------------------------------------ */

/*
 * What one thread count of a case measured: seconds per call, best round
 * (< 0: none); and each round's seconds of tilecopy, limit, memcpy and
 * oneDNN, for ratios within a round.
 */
struct bench_times {
	double tc, lim, mc, dn, nv;
	double per_cpu[8];
	double rtc[BENCH_MAX_REPS], rlim[BENCH_MAX_REPS];
	double rmc[BENCH_MAX_REPS], rdn[BENCH_MAX_REPS];
};

struct bench_result {
	uint64_t bytes, moved, copied;
	size_t descs;
	const char *cpu, *dnnl_how;
	const char *cpu_names[8];
	int ncpus;
	struct bench_times t[BENCH_MAX_THR];
};

/* Values that are finite numbers in every float format (no NaN payloads). */
static void bench_fill_src(unsigned char *p, size_t n)
{
	uint32_t s = 12345;

	for (size_t i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		p[i] = (unsigned char)((s >> 16) & 0x3f);
	}
}

static int bench_plan(const struct bench_case *c, tilecopy_plan_t **plan)
{
	tilecopy_tensor_t *ts = NULL, *td = NULL;
	tilecopy_convert_params_t pr;
	int ret = 0;

	tilecopy_convert_params_init(&pr);
	if (tilecopy_tensor_create(&ts, c->from, c->shape, c->rank, c->dt, NULL, 0) ||
	    tilecopy_tensor_create(&td, c->to, c->shape, c->rank, case_dt_to(c), NULL, 0) ||
	    tilecopy_plan_create_v2(plan, ts, td, c->convert ? &pr : NULL, 0)) {
		fprintf(stderr, "bench: %s: %s\n", c->name, tilecopy_last_error());
		ret = -1;
	}
	tilecopy_tensor_destroy(ts);
	tilecopy_tensor_destroy(td);
	return ret;
}

static void bench_times_clear(struct bench_times *t)
{
	t->tc = t->lim = t->mc = t->dn = t->nv = -1;
	for (int i = 0; i < 8; i++)
		t->per_cpu[i] = -1;
}

/*
 * The contenders of every thread count of one case, in one list: they are
 * timed in the same interleaved rounds. Returns their number.
 */
static int bench_contenders(struct contender *con, struct bench_run *runs,
			    const struct bench_case *c, const struct bench_opts *o,
			    dnnl_engine_t eng, struct bench_result *res,
			    const struct bench_run *proto)
{
	static const char *const cpus[] = { "scalar", "sse2", "avx2", "avx512", "neon" };
	int n = 0, nr = 0;

	for (int t = 0; t < o->nthr; t++) {
		struct bench_times *bt = &res->t[t];
		struct bench_run *r = &runs[nr++];
		const char *how = NULL;

		*r = *proto;
		r->threads = o->thr[t];
		con[n++] = (struct contender){ .name = "tilecopy", .fn = run_tilecopy, .ctx = r,
					       .verify = 1, .threads = r->threads, .out = &bt->tc,
					       .rounds = bt->rtc };
		for (size_t i = 0; o->all_cpus && i < sizeof(cpus) / sizeof(cpus[0]); i++) {
			struct bench_run *rc;
			int k;

			if (!cpu_name(cpus[i]))
				continue;
			for (k = 0; k < res->ncpus && strcmp(res->cpu_names[k], cpus[i]); k++)
				;
			res->cpu_names[k] = cpus[i];
			res->ncpus = k + 1 > res->ncpus ? k + 1 : res->ncpus;
			rc = &runs[nr++];
			*rc = *r;
			rc->cpu = cpus[i];
			con[n++] = (struct contender){ .name = cpus[i], .fn = run_tilecopy,
						       .ctx = rc, .verify = 1, .threads = r->threads,
						       .out = &bt->per_cpu[k] };
		}
		con[n++] = (struct contender){ .name = "limit", .fn = run_limit, .ctx = r,
					       .threads = r->threads, .out = &bt->lim,
					       .rounds = bt->rlim };
		con[n++] = (struct contender){ .name = "memcpy", .fn = run_memcpy, .ctx = r,
					       .threads = r->threads, .out = &bt->mc,
					       .rounds = bt->rmc };
		if (!onednn_setup(r, c, eng, &how)) {
			res->dnnl_how = how;
			con[n++] = (struct contender){ .name = "oneDNN", .fn = run_onednn,
						       .ctx = r, .verify = 1,
						       .threads = r->threads, .out = &bt->dn,
						       .rounds = bt->rdn };
		}
		if (t == 0 && plan_untyped(r->plan))
			con[n++] = (struct contender){ .name = "naive", .fn = run_naive, .ctx = r,
						       .verify = 1, .threads = 1, .out = &bt->nv };
	}
	return n;
}

/*
 * The source and destination of a case, 64-byte aligned; with @huge on
 * 2 MiB boundaries and asked for transparent huge pages before they are
 * touched (THP is often "madvise" only). Transposes whose rows lie far
 * apart on both sides touch a 4 KiB page per row and line: this shows
 * what of their gap to the limit is the TLB's. Every contender runs on
 * the same buffers.
 */
#define BENCH_HUGE	(2u << 20)

static int bench_alloc(void **p, size_t bytes, int huge)
{
	size_t len = huge ? (bytes + BENCH_HUGE - 1) / BENCH_HUGE * BENCH_HUGE : bytes;

	if (posix_memalign(p, huge ? BENCH_HUGE : 64, len ? len : 1))
		return -1;
	if (huge && madvise(*p, len, MADV_HUGEPAGE)) {
		fprintf(stderr, "bench: --huge-pages: madvise(MADV_HUGEPAGE): %s\n",
			strerror(errno));
		free(*p);
		*p = NULL;
		return -1;
	}
	return 0;
}

static int bench_one(const struct bench_case *c, const struct bench_opts *o,
		     dnnl_engine_t eng, dnnl_stream_t stream,
		     struct bench_result *res)
{
	tilecopy_plan_t *plan = NULL;
	struct bench_run r = { .cpu = o->cpu, .threads = 1, .stream = stream };
	struct bench_run runs[BENCH_MAX_THR * 6];
	static struct contender con[BENCH_MAX_THR * 10];
	unsigned char *check = NULL;
	int ret = -1, n = 0;

	memset(res, 0, sizeof(*res));
	memset(runs, 0, sizeof(runs));
	for (int t = 0; t < BENCH_MAX_THR; t++)
		bench_times_clear(&res->t[t]);
	if (bench_plan(c, &plan))
		return -1;
	r.plan = plan;
	r.src_bytes = plan_bytes(tilecopy_plan_src_bytes, plan);
	r.dst_bytes = plan_bytes(tilecopy_plan_dst_bytes, plan);
	res->bytes = r.src_bytes;
	res->moved = plan_bytes(tilecopy_plan_moved_bytes, plan);
	res->copied = 2 * copy_bytes(&r);
	plan_descs(plan, &res->descs);
	res->cpu = cpu_name(o->cpu);
	if (!res->cpu) {
		fprintf(stderr, "bench: %s\n", tilecopy_last_error());
		goto out;
	}
	if (bench_alloc((void **)&r.src, r.src_bytes, o->huge) ||
	    bench_alloc((void **)&r.dst, r.dst_bytes, o->huge) ||
	    !(check = malloc(r.dst_bytes)))
		goto out;
	bench_fill_src(r.src, r.src_bytes);
	memset(r.dst, 0, r.dst_bytes);		/* fault the pages in */

	/* Reference result: the scalar executor. */
	if (tilecopy_plan_execute_cpu(plan, r.src, r.src_bytes, r.dst, r.dst_bytes,
				      "scalar"))
		goto out;
	memcpy(check, r.dst, r.dst_bytes);
	memset(r.dst, 0, r.dst_bytes);

	n = bench_contenders(con, runs, c, o, eng, res, &r);
	for (int i = 0; i < n; i++) {
		if (!contender_prepare(&con[i], r.dst, r.dst_bytes, check))
			continue;
		if (con[i].fn == run_onednn) {
			fprintf(stderr, "bench: %s: oneDNN's result differs; not reported\n",
				c->name);
			res->dnnl_how = NULL;
			continue;
		}
		if (con[i].fn == run_limit || con[i].fn == run_memcpy)
			continue;	/* (they fail only on a bad setup) */
		fprintf(stderr, "bench: %s: %s gave a wrong result\n", c->name,
			con[i].name);
		goto out;
	}
	contenders_time(con, n, o->reps);
	for (int i = 0; i < n; i++) {
		*con[i].out = con[i].best > 0 ? con[i].best : -1;
		if (con[i].rounds)
			memcpy(con[i].rounds, con[i].t, sizeof(double) * (size_t)o->reps);
	}
	if (res->t[0].tc < 0) {
		fprintf(stderr, "bench: %s: tilecopy failed\n", c->name);
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < (int)(sizeof(runs) / sizeof(runs[0])); i++)
		onednn_teardown(&runs[i]);
	tilecopy_cpu_set_threads(0);
	free(r.src);
	free(r.dst);
	free(check);
	tilecopy_plan_destroy(plan);
	return ret;
}

/* ---- output -------------------------------------------------------------- */

/* GB/s of a job of @bytes taking @sec seconds; < 0 if not measured. */
static double gbps(uint64_t bytes, double sec)
{
	return sec > 0 ? bytes / sec * 1e-9 : -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The median over the rounds of (@bu / @ta) / (@au / @tb): how many times
 * faster contender a ran than b *in the same round* (each in its own
 * bytes, @au and @bu). On a shared machine this is steadier than a ratio
 * of two bests, each of which may have met its own quiet moment.
 */
static double ratio_median(const double *ta, uint64_t au, const double *tb,
			   uint64_t bu, int reps)
{
	double v[BENCH_MAX_REPS];
	int n = 0;

	for (int r = 0; r < reps; r++)
		if (ta[r] > 0 && tb[r] > 0)
			v[n++] = (au / ta[r]) / (bu / tb[r]);
	if (!n)
		return -1;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void print_num(double v)
{
	if (v < 0)
		printf("null");
	else
		printf("%.2f", v);
}

static void print_json(const struct bench_case *c, const struct bench_result *r,
		       const struct bench_opts *o, int t)
{
	const struct bench_times *bt = &r->t[t];

	printf("{\"case\": \"%s\", \"from\": \"%s\", \"to\": \"%s\", \"dtype\": \"%s\", "
	       "\"dtype_to\": \"%s\", "
	       "\"bytes\": %llu, \"moved_bytes\": %llu, \"threads\": %d, \"cpu\": \"%s\", "
	       "\"huge_pages\": %s, \"tilecopy_gbps\": ",
	       c->name, c->from, c->to, dtype_name(c->dt), dtype_name(case_dt_to(c)),
	       (unsigned long long)r->bytes, (unsigned long long)r->moved,
	       o->thr[t], r->cpu, o->huge ? "true" : "false");
	print_num(gbps(r->moved, bt->tc));
	printf(", \"limit_gbps\": ");
	print_num(gbps(r->copied, bt->lim));
	printf(", \"memcpy_gbps\": ");
	print_num(gbps(r->copied, bt->mc));
	printf(", \"onednn_gbps\": ");
	print_num(gbps(r->moved, bt->dn));
	printf(", \"onednn_how\": ");
	if (r->dnnl_how)
		printf("\"%s\"", r->dnnl_how);
	else
		printf("null");
	printf(", \"naive_gbps\": ");
	print_num(gbps(r->moved, r->t[0].nv));
	printf(", \"descriptors\": %zu, \"tilecopy_us_per_call\": %.2f",
	       r->descs, bt->tc * 1e6);
	printf(", \"tilecopy_per_limit_median\": ");
	print_num(ratio_median(bt->rtc, r->moved, bt->rlim, r->copied, o->reps));
	for (int i = 0; i < r->ncpus; i++) {
		printf(", \"tilecopy_%s_gbps\": ", r->cpu_names[i]);
		print_num(gbps(r->moved, bt->per_cpu[i]));
	}
	printf("}\n");
}

static void print_val(double v, int md)
{
	if (v < 0)
		printf(md ? " - |" : " %8s", "-");
	else
		printf(md ? " %.1f |" : " %8.2f", v);
}

static void print_factor(double v, int md)
{
	if (v < 0)
		printf(md ? " - |" : "  %6s", "-");
	else
		printf(md ? " %.2fx |" : "  %5.2fx", v);
}

/*
 * One row: the figures of thread count @t. GB/s are best rounds; the
 * factors are medians of ratios within a round (ratio_median), and the
 * scaling is against the first thread count.
 */
static void print_row(const struct bench_case *c, const struct bench_result *r,
		      const struct bench_opts *o, int t, int md)
{
	const struct bench_times *bt = &r->t[t], *b0 = &r->t[0];
	double tc = gbps(r->moved, bt->tc), lim = gbps(r->copied, bt->lim);
	double mc = gbps(r->copied, bt->mc), dn = gbps(r->moved, bt->dn);
	int n = o->reps;

	if (md)
		printf("| %s | %.2f |", c->name, r->bytes / 1048576.0);
	else
		printf("%-21s %2d %8.2f", c->name, o->thr[t], r->bytes / 1048576.0);
	print_val(lim, md);
	if (md)
		printf(" **%.1f** |", tc);
	else
		printf(" %8.2f", tc);
	print_factor(ratio_median(bt->rtc, r->moved, bt->rlim, r->copied, n), md);
	print_val(dn, md);
	print_factor(dn < 0 ? -1 : ratio_median(bt->rtc, r->moved, bt->rdn, r->moved, n), md);
	print_val(mc, md);
	print_factor(ratio_median(bt->rtc, r->moved, bt->rmc, r->copied, n), md);
	if (t == 0) {
		print_val(gbps(r->moved, b0->nv), md);
	} else {
		print_factor(ratio_median(bt->rtc, 1, b0->rtc, 1, n), md);
		print_factor(ratio_median(bt->rlim, 1, b0->rlim, 1, n), md);
		print_factor(dn < 0 ? -1 : ratio_median(bt->rdn, 1, b0->rdn, 1, n), md);
	}
	for (int i = 0; i < r->ncpus; i++) {
		double v = gbps(r->moved, bt->per_cpu[i]);

		if (md)
			print_val(v, md);
		else
			printf(" %s=%.2f", r->cpu_names[i], v);
	}
	printf("\n");
}

static void print_header(const struct bench_opts *o, const struct bench_result *r,
			 int t, int md)
{
	static const char *const cols0[] = { "naive" };
	static const char *const colsn[] = { "tilecopy vs 1T", "limit vs 1T", "oneDNN vs 1T" };
	const char *const *extra = t ? colsn : cols0;
	int nextra = t ? 3 : 1;

	if (!md) {
		printf("%-21s %2s %8s %8s %8s %7s %8s %7s %8s %7s", "case", "T", "MB",
		       "limit", "tilecopy", "x lim", "oneDNN", "x dnnl", "memcpy", "x mcpy");
		for (int i = 0; i < nextra; i++)
			printf(" %s", extra[i]);
		printf("\n");
		return;
	}
	printf("\n#### %d thread%s\n\n| case | MB | limit | tilecopy | x limit | oneDNN "
	       "| x oneDNN | memcpy | x memcpy |", o->thr[t], o->thr[t] > 1 ? "s" : "");
	for (int i = 0; i < nextra; i++)
		printf(" %s |", extra[i]);
	for (int i = 0; r && i < r->ncpus; i++)
		printf(" %s |", r->cpu_names[i]);
	printf("\n|---|---|---|---|---|---|---|---|---|");
	for (int i = 0; i < nextra + (r ? r->ncpus : 0); i++)
		printf("---|");
	printf("\n");
}

/* "AMD EPYC ..." from /proc/cpuinfo, for the table's header. */
static void cpu_model(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, size, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !p)
			continue;
		p += 1 + (p[1] == ' ');
		p[strcspn(p, "\n")] = 0;
		snprintf(buf, size, "%s", p);
		break;
	}
	fclose(f);
}

/* The 1-minute load average, or -1. */
static double loadavg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static void print_machine(const struct bench_opts *o, double load0, int md)
{
	char model[128], date[64];
	time_t now_t = time(NULL);

	cpu_model(model, sizeof(model));
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&now_t));
	const char *bind = getenv("OMP_PROC_BIND");

	printf("%s%s, %ld online CPUs; executor %s; limit = %s loads + non-temporal stores; "
	       "GB/s: best of %d interleaved rounds, factors: median of the ratios within "
	       "a round; OpenMP threads %s; buffers on %s; %s; load average %.2f at the start\n",
	       md ? "" : "# ", model, sysconf(_SC_NPROCESSORS_ONLN),
	       cpu_name(o->cpu), stream_isa(), o->reps,
	       bind && *bind && strcmp(bind, "false") ? "pinned (OMP_PROC_BIND)" : "not pinned",
	       o->huge ? "2 MiB pages where the kernel gives them (madvise)" :
			 "the allocator's pages", date, load0);
}

static int usage(FILE *f)
{
	fprintf(f,
		"usage: tilecopy bench [--json | --markdown] [--threads N[,N...]] [--reps N]\n"
		"                      [--case NAME] [--cpu NAME] [--all-cpus] [--huge-pages] [--list]\n"
		"                      [--from FMT --to FMT --shape S [--dtype T]]  (a custom case)\n");
	return 2;
}

/* "1,2" into o->thr. */
static int parse_threads(struct bench_opts *o, const char *s)
{
	o->nthr = 0;
	while (*s && o->nthr < BENCH_MAX_THR) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > TILECOPY_MAX_THREADS)
			return -1;
		o->thr[o->nthr++] = (int)v;
		s = end + (*end == ',');
		if (*end && *end != ',')
			return -1;
	}
	return *s || !o->nthr ? -1 : 0;
}

/* A refused argument: say which and why (usage follows). */
static int bad_arg(const char *what, const char *val, const char *why)
{
	if (val)
		fprintf(stderr, "bench: %s '%s': %s\n", what, val, why);
	else
		fprintf(stderr, "bench: %s: %s\n", what, why);
	return -1;
}

/* Is @name one of the built-in cases? */
static int find_case(const char *name)
{
	for (size_t k = 0; k < NCASES; k++)
		if (!strcmp(bench_cases[k].name, name))
			return 1;
	return 0;
}

/* An option that takes a value (parse_args: the last argument it cannot be). */
static int takes_value(const char *a)
{
	static const char *const opts[] = {
		"--threads", "--reps", "--case", "--cpu", "--from", "--to", "--shape", "--dtype",
	};

	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
		if (!strcmp(a, opts[k]))
			return 1;
	return 0;
}

/* "N": 1..BENCH_MAX_REPS (strtol's form: a sign and leading blanks pass). */
static int parse_reps(struct bench_opts *o, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < 1 || v > BENCH_MAX_REPS)
		return -1;
	o->reps = (int)v;
	return 0;
}

static int parse_args(struct bench_opts *o, struct bench_case *custom, int argc,
		      char **argv)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (takes_value(a) && i + 1 == argc)
			return bad_arg(a, NULL, "needs a value");

		if (!strcmp(a, "--json")) {
			o->json = 1;
		} else if (!strcmp(a, "--markdown")) {
			o->markdown = 1;
		} else if (!strcmp(a, "--all-cpus")) {
			o->all_cpus = 1;
		} else if (!strcmp(a, "--huge-pages")) {
			o->huge = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			return 2;
		} else if (!strcmp(a, "--list")) {
			for (size_t k = 0; k < NCASES; k++)
				printf("%s\n", bench_cases[k].name);
			return 1;
		} else if (!strcmp(a, "--threads")) {
			if (parse_threads(o, argv[++i]))
				return bad_arg("--threads", argv[i], "want up to "
					       BENCH_STR(BENCH_MAX_THR) " thread counts of 1.."
					       BENCH_STR(TILECOPY_MAX_THREADS) ", comma-separated");
		} else if (!strcmp(a, "--reps")) {
			if (parse_reps(o, argv[++i]))
				return bad_arg("--reps", argv[i], "want a count of rounds, 1.."
					       BENCH_STR(BENCH_MAX_REPS));
		} else if (!strcmp(a, "--case")) {
			o->only = argv[++i];
		} else if (!strcmp(a, "--cpu")) {
			o->cpu = argv[++i];
		} else if (!strcmp(a, "--from")) {
			o->from = argv[++i];
		} else if (!strcmp(a, "--to")) {
			o->to = argv[++i];
		} else if (!strcmp(a, "--shape")) {
			o->shape = argv[++i];
		} else if (!strcmp(a, "--dtype")) {
			o->dtype = argv[++i];
		} else {
			return bad_arg(a, NULL, "unknown argument");
		}
	}
	if (o->json && o->markdown)
		return bad_arg("--json and --markdown", NULL, "one output format at a time");
	if (!cpu_name(o->cpu))
		return bad_arg("--cpu", o->cpu, tilecopy_last_error());
	if (o->only && !find_case(o->only))
		return bad_arg("--case", o->only, "no such case (--list names them)");
	if (o->from || o->to || o->shape || o->dtype) {
		if (!o->from || !o->to || !o->shape ||
		    tilecopy_shape_parse(custom->shape, &custom->rank, 4, o->shape) ||
		    tilecopy_dtype_parse(&custom->dt, o->dtype ? o->dtype : "f32")) {
			fprintf(stderr, "bench: a custom case needs --from, --to, --shape (up to 4 dims) and a valid --dtype\n");
			return -1;
		}
		custom->from = o->from;
		custom->to = o->to;
		o->only = custom->name;
	}
	return 0;
}

int tc_bench_run(int argc, char **argv)
{
	struct bench_opts o = { .reps = 10, .nthr = 1, .thr = { 1 } };
	struct bench_case custom = {
		.name = "custom", .dnnl_from = dnnl_format_tag_undef,
		.dnnl_to = dnnl_format_tag_undef, .convert = 0,
	};
	static struct bench_result res[NCASES + 1];
	const struct bench_case *done[NCASES + 1];
	dnnl_engine_t eng = NULL;
	dnnl_stream_t stream = NULL;
	int failed = 0, nd = 0, st;
	double load0 = loadavg();

	st = parse_args(&o, &custom, argc, argv);
	if (st == 2) {		/* --help */
		usage(stdout);
		return 0;
	}
	if (st)
		return st > 0 ? 0 : usage(stderr);
	/*
	 * With OMP_PROC_BIND, libgomp binds this (main) thread to one CPU
	 * before tilecopy's first call, so tilecopy's automatic worker list
	 * (the process's mask, read from the main thread) would be that one
	 * CPU: give it every online CPU, as OpenMP has.
	 */
	if (getenv("OMP_PROC_BIND") && !getenv("TILECOPY_AFFINITY")) {
		int cpus[256], n = 0;
		long on = sysconf(_SC_NPROCESSORS_ONLN);

		for (int c = 0; c < on && n < 256; c++)
			cpus[n++] = c;
		tilecopy_cpu_set_affinity(cpus, n);
	}
	if (dnnl_engine_create(&eng, dnnl_cpu, 0) ||
	    dnnl_stream_create(&stream, eng, dnnl_stream_default_flags)) {
		fprintf(stderr, "bench: cannot create a oneDNN engine\n");
		return 1;
	}
	if (!o.json)
		print_machine(&o, load0, o.markdown);
	if (!o.json && !o.markdown)
		print_header(&o, NULL, o.nthr > 1 ? 1 : 0, 0);
	for (size_t k = 0; k <= NCASES; k++) {
		const struct bench_case *c = k < NCASES ? &bench_cases[k] : &custom;
		struct bench_result *r = &res[nd];

		if (k == NCASES && c->from == NULL)
			continue;
		if (o.only && strcmp(o.only, c->name))
			continue;
		if (o.markdown)
			fprintf(stderr, "bench: %s ...\n", c->name);
		if (bench_one(c, &o, eng, stream, r)) {
			failed++;
			continue;
		}
		done[nd++] = c;
		for (int t = 0; t < o.nthr; t++) {
			if (o.json)
				print_json(c, r, &o, t);
			else if (!o.markdown)
				print_row(c, r, &o, t, 0);
		}
		fflush(stdout);
	}
	for (int t = 0; o.markdown && t < o.nthr; t++) {
		print_header(&o, nd ? &res[0] : NULL, t, 1);
		for (int i = 0; i < nd; i++)
			print_row(done[i], &res[i], &o, t, 1);
	}
	if (o.markdown)
		printf("\nload average %.2f at the end\n", loadavg());
	dnnl_stream_destroy(stream);
	dnnl_engine_destroy(eng);
	return failed ? 1 : 0;
}
