// SPDX-License-Identifier: MIT
/*
 * pattern_typed.c - typed descriptors (ABI 1.2: element conversion, 4-bit
 * elements) in the SIMD executors.
 *
 * A typed COPY is normalised like an untyped one (unit dims dropped, dims
 * whose source, destination and scale strides all chain merged; strides
 * in elements), then run one of three ways:
 *
 *   fused       a transpose (below) of f32 into f16, bf16, i8 or u8 whose
 *               scales are one, or one per destination row element (the
 *               channel of NHWC): in registers, zero points and scale
 *               applied and encoded on the way out (tc_cvt_kernels.
 *               tr_encode), one pass; streamed out through a stage when
 *               large and the destination rows are back to back.
 *   transpose   dim 0 is contiguous in the destination and another dim in
 *               the source (NCHW f32 -> NHWC bf16, NCHW -> NCHW64 i4):
 *               tiles of up to TC_TT_COLS x (TC_TT_BYTES / cols) bytes;
 *               the source elements are transposed as they are (bits) by
 *               the executor's register transposes into a stage (in L2),
 *               whose rows are the destination's, then each row converted
 *               with the contiguous kernels (4-bit sources are unpacked to
 *               a byte each first: i4 sign-extended is i8, u4 is u8, the
 *               same values). Two passes, the first a plain transpose.
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
#include <pthread.h>
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
 * TC_TT_BYTES of source elements in the stage. What matters is the run
 * read from each source row: 64 rows of 128 bytes (an 8 KiB stage) left
 * the prefetchers behind and NCHW f32 -> NHWC bf16 (C = 64) ran at 6 GB/s;
 * 1 KiB rows (64 KiB, in L2) give 9 (4-bit: 1.9 GB/s with 128-byte rows).
 */
#define TC_TT_COLS	64
#define TC_TT_BYTES	65536
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
	const struct tc_cvt *cv;
	const struct tc_cvt *rows;	/* transposes: the conversion of a stage row */
	tc_cvt_tr_encode_fn *fused;	/* f32 transposed and encoded at once, or NULL */
	const char *src;
	char *dst;
	const float *scales;
	int64_t so, dso, co;
	int nd;
	struct tc_tdim d[TC_MAXD];
	int a, b;		/* transpose: a contiguous in src, b in dst; else -1 */
	unsigned int sbits, dbits;
	int nt;			/* the whole op writes TC_NT_THRESHOLD or more */
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
	if (t->nd < 2 || t->d[0].ds != 1 || t->d[0].ss == 1 || !t->rows ||
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

/* ---- scratch ---------------------------------------------------------------- */

/*
 * The stages of the transposes (up to TC_SCRATCH bytes) are per thread and
 * kept: on the heap, since a caller's thread may have a small stack, and
 * kept because allocating them each call costs page faults (blocks this
 * size are mmapped and unmapped by malloc). Freed when the thread exits.
 */
#define TC_SCRATCH	(256u << 10)

static pthread_key_t tc_scratch_key;
static pthread_once_t tc_scratch_once = PTHREAD_ONCE_INIT;
static int tc_scratch_ok;

static void tc_scratch_init(void)
{
	tc_scratch_ok = !pthread_key_create(&tc_scratch_key, free);
}

/* This thread's TC_SCRATCH bytes, 64-byte aligned, or NULL. */
static char *tc_scratch(void)
{
	void *p;

	pthread_once(&tc_scratch_once, tc_scratch_init);
	if (!tc_scratch_ok)
		return NULL;
	p = pthread_getspecific(tc_scratch_key);
	if (p)
		return p;
	if (posix_memalign(&p, 64, TC_SCRATCH))
		return NULL;
	if (pthread_setspecific(tc_scratch_key, p)) {
		free(p);
		return NULL;
	}
	return p;
}

/* dlclose: no destructor may point into the unmapped library (leaks the buffers). */
__attribute__((destructor)) static void tc_scratch_fini(void)
{
	if (tc_scratch_ok)
		pthread_key_delete(tc_scratch_key);
	tc_scratch_ok = 0;
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
 * 4-bit elements to and from one byte each, eight at a time in a 64-bit
 * word (no loop here vectorises without the ISA's flags; byte at a time,
 * unpacking and packing took 90% of an i4 transpose). Little endian: the
 * low nibble of a byte is the even element, as the low byte of a word.
 */
#define TC_B01	0x0101010101010101ull

/* Four bytes of nibbles: eight bytes, i4 sign-extended (v - 8 of v ^ 8, per byte). */
static inline uint64_t tc_spread8(uint32_t in, int is_signed)
{
	uint64_t z = in;

	z = (z | z << 16) & 0x0000ffff0000ffffull;
	z = (z | z << 8) & 0x00ff00ff00ff00ffull;
	z = (z & 0x0f * (TC_B01 & 0x00ff00ff00ff00ffull)) |
	    ((z & 0xf0 * (TC_B01 & 0x00ff00ff00ff00ffull)) << 4);
	if (is_signed)
		z = (((z ^ 8 * TC_B01) | 0x80 * TC_B01) - 8 * TC_B01) ^ 0x80 * TC_B01;
	return z;
}

/* Eight bytes' low nibbles: four bytes of nibbles. */
static inline uint32_t tc_gather8(uint64_t x)
{
	x &= 0x0f * TC_B01;
	x = (x | x >> 4) & 0x00ff00ff00ff00ffull;
	x = (x | x >> 8) & 0x0000ffff0000ffffull;
	return (uint32_t)(x | x >> 16);
}

static inline signed char tc_nib(unsigned int v, int is_signed)
{
	v &= 0xf;
	return (signed char)(is_signed ? (int)(v ^ 8) - 8 : (int)v);
}

/* @n 4-bit elements from element @e of @src (any nibble) as bytes. */
static void tc_unpack4(unsigned char *out, const unsigned char *src, int64_t e, size_t n,
		       int is_signed)
{
	const unsigned char *p = src + (e >> 1);
	size_t i = 0;

	if (n && (e & 1))
		out[i++] = (unsigned char)tc_nib(*p++ >> 4, is_signed);
	for (; i + 8 <= n; i += 8, p += 4) {
		uint32_t in;
		uint64_t x;

		memcpy(&in, p, 4);
		x = tc_spread8(in, is_signed);
		memcpy(out + i, &x, 8);
	}
	for (; i < n; i++) {
		out[i] = (unsigned char)tc_nib(*p, is_signed);
		if (++i == n)
			break;
		out[i] = (unsigned char)tc_nib(*p++ >> 4, is_signed);
	}
}

/* @n bytes' low nibbles into 4-bit elements from element @e of @dst on. */
static void tc_pack4(unsigned char *dst, int64_t e, const unsigned char *in, size_t n)
{
	unsigned char *p = dst + (e >> 1);
	size_t i = 0;

	if (n && (e & 1)) {
		*p = (unsigned char)((*p & 0x0f) | in[i++] << 4);
		p++;
	}
	for (; i + 8 <= n; i += 8, p += 4) {
		uint64_t x;
		uint32_t v;

		memcpy(&x, in + i, 8);
		v = tc_gather8(x);
		memcpy(p, &v, 4);
	}
	for (; i + 2 <= n; i += 2)
		*p++ = (unsigned char)((in[i] & 0x0f) | in[i + 1] << 4);
	if (i < n)
		*p = (unsigned char)((*p & 0xf0) | (in[i] & 0x0f));
}

/*
 * @n bytes (@n even) split by nibble: the low nibbles packed into @n / 2
 * bytes at @lo, the high ones at @hi. 32 bytes a step as 16 words w, in
 * GCC vectors (SSE2 or NEON, whichever the target has): the low byte of
 * lo is w's bits 0-3 and 8-11, of hi bits 4-7 and 12-15. Twice the
 * SWAR version's bytes a step and one pass for both: NCHW -> NCHW64 i4,
 * 32x64x56x56, spent 62% of its time in the two SWAR passes.
 */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "a word's low byte is the even element's");
typedef uint16_t tc_u16x16 __attribute__((vector_size(32)));
typedef uint8_t tc_u8x16 __attribute__((vector_size(16)));

static void tc_pack_split(unsigned char *lo, unsigned char *hi, const unsigned char *in,
			  size_t n)
{
	size_t i = 0;

	for (; i + 32 <= n; i += 32, lo += 16, hi += 16) {
		tc_u16x16 w;
		tc_u8x16 l, h;

		memcpy(&w, in + i, sizeof(w));
		l = __builtin_convertvector((w & 0x0f) | ((w >> 4) & 0xf0), tc_u8x16);
		h = __builtin_convertvector(((w >> 4) & 0x0f) | ((w >> 8) & 0xf0), tc_u8x16);
		memcpy(lo, &l, sizeof(l));
		memcpy(hi, &h, sizeof(h));
	}
	for (; i < n; i += 2) {
		*lo++ = (unsigned char)((in[i] & 0x0f) | (in[i + 1] & 0x0f) << 4);
		*hi++ = (unsigned char)((in[i] >> 4) | (in[i + 1] & 0xf0));
	}
}

/*
 * A 4-bit copy whose source rows, pixel pairs and destination rows start
 * bytes (NCHW -> NCHW64 of an even H x W): each source byte holds two
 * pixels of a channel, so the bytes are transposed as they are (half the
 * bytes of an unpacked stage) and each stage row, the channels of two
 * pixels, split into the two destination rows by its low and high
 * nibbles: in the registers where the executor has @tr_split4, else over
 * the stage. @return 0 if the tile is not of that shape.
 */
static int tc_tile_pairs(const struct tc_top *t, int64_t so, int64_t dso, size_t nc,
			 size_t nr, char *stage)
{
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
	unsigned char *d = (unsigned char *)t->dst;

	if (!t->cv->copy || t->sbits != 4 ||
	    ((so | b->ss | (int64_t)nr | dso | a->ds | (int64_t)nc) & 1))
		return 0;
	/* (a tile of more than 64 channels, tc_tr_point's for few pixels: the stage) */
	if (t->k->tr_split4 && nc <= 64 &&
	    t->k->tr_split4((char *)d + dso / 2, (size_t)a->ds / 2, t->src + so / 2,
			    (size_t)b->ss / 2, nc, nr / 2, t->nt))
		return 1;
	t->k->transpose[0](stage, nc, t->src + so / 2, (size_t)b->ss / 2, nc, nr / 2, 0);
	for (size_t q = 0; q < nr / 2; q++) {
		const unsigned char *row = (const unsigned char *)stage + q * nc;

		tc_pack_split(d + (dso + (int64_t)(2 * q) * a->ds) / 2,
			      d + (dso + (int64_t)(2 * q + 1) * a->ds) / 2, row, nc);
	}
	return 1;
}

/* Stage row(s) @n elements at @stage + @off into the destination from @dso on. */
static void tc_tile_row(const struct tc_top *t, int64_t dso, const char *stage, size_t off,
			size_t n, int64_t co, ptrdiff_t cs)
{
	if (t->cv->copy && t->dbits == 4)	/* bytes of nibbles: just their nibbles */
		tc_pack4((unsigned char *)t->dst, dso, (const unsigned char *)stage + off, n);
	else
		tc_cvt_run(t->rows, t->dst, dso, 1, stage, (int64_t)off, 1, n,
			   tc_top_scale(t, co), cs);
}

/*
 * One tile: @nc destination columns (dim b) x @nr rows (dim a) from
 * element offsets @so, @dso, @co. The stage is [nr][nc] source elements
 * (bytes for a 4-bit source, unpacked through @tmp first): each of its
 * rows one destination row's, converted in one run.
 */
static void tc_tile(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
		    size_t nc, size_t nr, char *stage, char *tmp)
{
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
	unsigned int es = t->sbits == 4 ? 1 : t->sbits / 8;
	unsigned int lg = es == 1 ? 0 : es == 2 ? 1 : 2;
	size_t i;

	if (tc_tile_pairs(t, so, dso, nc, nr, stage))
		return;
	if (t->sbits == 4) {
		for (i = 0; i < nc; i++)
			tc_unpack4((unsigned char *)tmp + i * nr, (const unsigned char *)t->src,
				   so + (int64_t)i * b->ss, nr, t->cv->src_kind == TC_CVT_I4);
		t->k->transpose[0](stage, nc, tmp, nr, nc, nr, 0);
	} else {
		t->k->transpose[lg](stage, nc * es, t->src + so * (int64_t)es,
				    (size_t)b->ss * es, nc, nr, 0);
	}
	/* whole destination rows back to back, the scales chained: one run */
	if (a->ds == (int64_t)nc && (!t->scales || a->cs == b->cs * (int64_t)nc)) {
		tc_tile_row(t, dso, stage, 0, nc * nr, co, (ptrdiff_t)b->cs);
		return;
	}
	for (i = 0; i < nr; i++)
		tc_tile_row(t, dso + (int64_t)i * a->ds, stage, i * nc, nc,
			    co + (int64_t)i * a->cs, (ptrdiff_t)b->cs);
}

/* The stage and the unpacked rows of a 4-bit source (the thread's scratch). */
struct tc_tile_mem {
	char stage[TC_TT_BYTES];
	char tmp[TC_TT_BYTES];
};
_Static_assert(sizeof(struct tc_tile_mem) <= TC_SCRATCH, "scratch too small");

/*
 * Blocks of a fused transpose (f32 -> f16, bf16, i8, u8): TC_FUSED_DST
 * destination elements of each row by TC_FUSED_SRC
 * source elements of each row (4 KiB of f32: measured best among 0.5 to 4
 * KiB on NCHW -> NHWC bf16, C = 64).
 *
 * A large output whose destination rows lie back to back (NHWC) is made
 * TC_FUSED_NT rows at a time in a stage and streamed out whole with
 * non-temporal stores: the rows get a few elements per band of the
 * transpose, and written in place each line is read first (a third more
 * traffic; 3.9 -> 3.2 ms on 32x64x56x56).
 */
#define TC_FUSED_DST	128
#define TC_FUSED_SRC	1024
#define TC_FUSED_NT	1024
/* Destination rows shorter than this take two passes (tc_typed_exec). */
#define TC_FUSED_MIN_ROWS	8
_Static_assert(TC_FUSED_NT * TC_FUSED_DST * 2 <= TC_SCRATCH, "scratch too small");

/*
 * @nc x @nr elements (dim b x dim a) from element offsets @so, @dso, the
 * scales of its rows (dim b) at @co; through @stage, streamed, when given.
 */
static void tc_fused_block(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			   size_t nc, size_t nr, char *stage)
{
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
	const float *sc = t->scales ? t->scales + co : &t->cv->scale;
	ptrdiff_t sst = t->scales ? (ptrdiff_t)b->cs : 0;
	size_t des = t->dbits / 8;
	char *d = t->dst + dso * (int64_t)des;
	const float *s = (const float *)t->src + so;

	if (!stage) {
		t->fused(d, (size_t)a->ds, s, (size_t)b->ss, nc, nr, &t->cv->affine, sc, sst);
		return;
	}
	for (size_t a0 = 0; a0 < nr; a0 += TC_FUSED_NT) {
		size_t m = nr - a0 < TC_FUSED_NT ? nr - a0 : TC_FUSED_NT;

		t->fused(stage, nc, s + a0, (size_t)b->ss, nc, m, &t->cv->affine, sc, sst);
		t->k->copy(d + a0 * nc * des, stage, m * nc * des, 1);
	}
}

static void tc_fused_point(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			   char *stage)
{
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];

	for (int64_t b0 = 0; b0 < b->ext; b0 += TC_FUSED_DST) {
		size_t nc = b->ext - b0 < TC_FUSED_DST ? (size_t)(b->ext - b0) : TC_FUSED_DST;

		for (int64_t a0 = 0; a0 < a->ext; a0 += TC_FUSED_SRC) {
			size_t nr = a->ext - a0 < TC_FUSED_SRC ? (size_t)(a->ext - a0) : TC_FUSED_SRC;

			tc_fused_block(t, so + a0 + b0 * b->ss, dso + a0 * a->ds + b0,
				       co + b0 * b->cs, nc, nr, stage);
		}
	}
}

static void tc_tr_point(const struct tc_top *t, int64_t so, int64_t dso, int64_t co,
			void *ctx)
{
	struct tc_tile_mem *m = ctx;
	const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];

	if (t->fused) {
		tc_fused_point(t, so, dso, co, ctx);
		return;
	}
	size_t es = t->sbits == 4 ? 1 : t->sbits / 8;
	size_t cb = b->ext < TC_TT_COLS ? (size_t)b->ext : TC_TT_COLS;
	size_t rb = TC_TT_BYTES / es / cb;

	/* few source rows (NHWC -> NCHW, C = 64): longer destination rows */
	if ((int64_t)rb > a->ext) {
		rb = (size_t)a->ext;
		cb = TC_TT_BYTES / es / rb;
		if ((int64_t)cb > b->ext)
			cb = (size_t)b->ext;
	}
	/* 4-bit: tiles of whole pixel pairs keep the byte transposes (tc_tile_pairs) */
	if (t->sbits == 4 && rb > 1)
		rb &= ~(size_t)1;

	for (int64_t b0 = 0; b0 < b->ext; b0 += (int64_t)cb) {
		size_t nc = b->ext - b0 < (int64_t)cb ? (size_t)(b->ext - b0) : cb;

		for (int64_t a0 = 0; a0 < a->ext; a0 += (int64_t)rb) {
			size_t nr = a->ext - a0 < (int64_t)rb ? (size_t)(a->ext - a0) : rb;

			tc_tile(t, so + a0 * a->ss + b0 * b->ss, dso + a0 * a->ds + b0 * b->ds,
				co + a0 * a->cs + b0 * b->cs, nc, nr, m->stage, m->tmp);
		}
	}
}

static void tc_top_run(const struct tc_top *t)
{
	unsigned int ab = t->a >= 0 ? (1u << t->a) | (1u << t->b) : 0;
	char *scratch = t->a >= 0 ? tc_scratch() : NULL;

	if (t->a >= 0 && t->fused) {
		const struct tc_tdim *a = &t->d[t->a], *b = &t->d[t->b];
		int nt = scratch && t->nt && b->ext <= TC_FUSED_DST && a->ds == b->ext;

		tc_top_foreach(t, ab, tc_tr_point, nt ? scratch : NULL);
		if (nt && t->k->sfence)
			t->k->sfence();
		return;
	}
	if (t->a >= 0 && scratch) {
		tc_top_foreach(t, ab, tc_tr_point, scratch);
		if (t->nt && t->k->sfence)	/* a tr_split4 may stream */
			t->k->sfence();
		return;
	}
	tc_top_foreach(t, 1u, tc_run_point, NULL);	/* (no memory: the runs) */
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
	const struct tc_tdim *d = &t->d[k];
	int64_t inner = 0;
	unsigned m;

	for (int j = 0; j < t->nd; j++)
		if (j != k)
			inner += t->d[j].ds * (t->d[j].ext - 1);
	m = tc_typed_cuts(t->dso, d->ds, d->ext, inner, t->dbits, n, cut);
	/*
	 * A 4-bit source: a part that starts on a byte keeps the byte
	 * transposes (tc_tile_pairs); one that starts on an odd pixel went
	 * element by element (1x64x112x112 i4 -> NCHW64 on 3 threads: 8x
	 * the time of 2). The cut moves one on where that is still safe.
	 */
	for (unsigned p = 1; t->sbits == 4 && (d->ss & 1) && p < m; p++)
		if (((t->so + cut[p] * d->ss) & 1) && cut[p] + 1 < cut[p + 1] &&
		    tc_cut_ok(t->dso, d->ds, inner, t->dbits, cut[p] + 1))
			cut[p]++;
	return m;
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
	struct tc_cvt cv, rows;
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
	t.sbits = tc_desc_type_bits(d->src_type);
	t.dbits = tc_desc_type_bits(d->dst_type);
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES)
		t.scales = (const float *)((const char *)scales + d->scales);
	/*
	 * A transpose's stage rows hold source elements, 4-bit ones unpacked
	 * to bytes: the same values as i8 / u8, so the same conversion from
	 * those (a 4-bit copy included: its values fit).
	 */
	t.rows = &cv;
	if (t.sbits == 4 && !tc_typed_cvt_init_from(&rows, d, set, cv.src_kind == TC_CVT_I4 ?
						   DRM_TILECOPY_TYPE_I8 : DRM_TILECOPY_TYPE_U8))
		t.rows = &rows;
	else if (t.sbits == 4)
		t.rows = NULL;
	tc_top_shape(&t, d);
	tc_top_analyse(&t);
	/*
	 * f32 transposed in registers, converted on the way out: with one
	 * scale, or one per element of a destination row (NHWC's channel).
	 * Not for destination rows of fewer than TC_FUSED_MIN_ROWS elements
	 * (C = 3 images): the fused kernels' tiles are 8 or 16 rows, and
	 * fewer go element by element (AVX2, f32 -> u8, C = 3: 8.1 ns an
	 * element fused against 4.5 in two passes; C = 8: 0.53).
	 */
	if (t.a >= 0 && cv.src_kind == TC_CVT_F32 && !cv.copy &&
	    t.d[t.b].ext >= TC_FUSED_MIN_ROWS &&
	    (!t.scales || (!t.d[t.a].cs && t.d[t.b].cs <= 1)))
		t.fused = set->tr_encode[cv.dst_kind];
	t.nt = tc_top_bytes(&t) >= TC_NT_THRESHOLD;
	tc_top_exec(&t, nthr, tc_top_bytes(&t));
	return 0;
}
