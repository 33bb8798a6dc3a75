/* SPDX-License-Identifier: MIT */
/*
 * cvt.h - element conversion between element kinds (internal): the
 * computational core of dtype-converting reorders.
 *
 * One run converts n elements, addressed by element index, so a strided
 * inner loop of a reorder (and a run of 4-bit elements that starts in the
 * middle of a byte) can call it directly:
 *
 *   dst[dst_off + i * dst_stride] = Q(src[src_off + i * src_stride]),  0 <= i < n
 *
 * Q is defined in docs/dtype-conversion.md and bit-for-bit equal to
 * oneDNN 2.6's reorder for every pair oneDNN supports (with three
 * documented exceptions where oneDNN itself is inconsistent). In short:
 *
 *   x = (f32)src;  x -= src_zp;  x *= scale;  x += dst_zp;  dst = E(x)
 *
 * in f32, each step only when its parameter differs from the identity, and
 * E rounds to nearest even: f16 like IEEE (NaN quieted, payload truncated),
 * bf16 like VCVTNEPS2BF16 (denormals to signed zero), integers saturated
 * (NaN to the upper bound of signed kinds, to 0 of unsigned ones). The same
 * kind with no quantization is a bit copy; i32 -> i32 with zero points only
 * is exact integer arithmetic, saturated.
 *
 * 4-bit kinds (i4, u4) hold two elements per byte, the even element in the
 * low nibble (as MegEngine and CUDA): element e is nibble (e & 1) of byte
 * e >> 1 of the base. Writing one element never changes the other nibble.
 *
 * Every kernel set (scalar, AVX2+F16C, AVX-512, AVX-512 BF16, NEON, NEON
 * BF16) gives the same bits as tc_cvt_ref_run(), the element-by-element
 * reference; tests/cvt checks that and checks the reference against oneDNN.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_CVT_H
#define TILECOPY_CPU_CVT_H

#include <stddef.h>
#include <stdint.h>

/** enum tc_cvt_kind - element kinds (oneDNN: f32 f16 bf16 s8 u8 s32). */
enum tc_cvt_kind {
	TC_CVT_F32,
	TC_CVT_F16,
	TC_CVT_BF16,
	TC_CVT_I8,
	TC_CVT_U8,
	TC_CVT_I32,
	TC_CVT_I4,
	TC_CVT_U4,
	TC_CVT_NKINDS
};

/** tc_cvt_kind_bits - 32, 16, 8 or 4; 0 for an unknown kind. */
unsigned int tc_cvt_kind_bits(enum tc_cvt_kind k);
/** tc_cvt_kind_name - "f32", "f16", "bf16", "i8", "u8", "i32", "i4", "u4". */
const char *tc_cvt_kind_name(enum tc_cvt_kind k);
/** tc_cvt_kind_is_float - f32, f16, bf16. */
int tc_cvt_kind_is_float(enum tc_cvt_kind k);

/**
 * struct tc_cvt_quant - quantization parameters of one conversion.
 * @scales: @nscales factors; NULL (with @nscales 0) means no scaling.
 * @nscales: 1 for one scale per tensor, more for one per index along one
 *	dimension ("per channel"); which scale a run uses is the caller's
 *	choice at tc_cvt_run() time.
 * @src_zp: subtracted from the source value before scaling.
 * @dst_zp: added after scaling.
 *
 * As in oneDNN, scaling happens when any scale differs from 1.0 and a zero
 * point is applied when it is not 0; an identity step is skipped, not
 * computed, so -0 and signalling-NaN payloads survive a plain conversion.
 */
struct tc_cvt_quant {
	const float *scales;
	size_t nscales;
	int32_t src_zp;
	int32_t dst_zp;
};

/* Steps of the f32 stage (struct tc_cvt_affine.ops). */
#define TC_CVT_SUB_ZP	0x1u
#define TC_CVT_MUL	0x2u
#define TC_CVT_ADD_ZP	0x4u

/** struct tc_cvt_affine - the f32 stage, as the kernels see it. */
struct tc_cvt_affine {
	unsigned int ops;	/* TC_CVT_SUB_ZP | TC_CVT_MUL | TC_CVT_ADD_ZP */
	float src_zp;		/* (float)quant.src_zp, rounded to nearest even */
	float dst_zp;
};

/*
 * Contiguous kernels of one instruction set. A 4-bit run starts at the low
 * nibble of its first byte; a decoder reads (n + 1) / 2 bytes, an encoder is
 * only called with an even n (tc_cvt_run() writes an odd last element
 * itself, keeping the other nibble). Pointers need no alignment.
 */
typedef void tc_cvt_decode_fn(float *dst, const void *src, size_t n);
typedef void tc_cvt_encode_fn(void *dst, const float *src, size_t n);
/* dst[i] = the steps of @a on src[i], with scale[i * scale_stride]. */
typedef void tc_cvt_affine_fn(float *dst, const float *src, size_t n,
			      const struct tc_cvt_affine *a,
			      const float *scale, ptrdiff_t scale_stride);

/*
 * tc_cvt_tr_prefetch - the line TC_CVT_TR_PF bytes ahead in each of @n
 * rows @sld floats apart from @src, into L1: for a tr_encode kernel's
 * band, whose 8 or 16 source streams at once are more than the hardware
 * prefetchers keep enough lines in flight for (measured in cvt_avx512.c
 * and cvt_avx2.c). The address is formed as an integer: it may lie past
 * the rows. (pattern.h's tc_group_prefetch is its twin for the untyped
 * line groups, 1 KiB ahead.)
 */
#define TC_CVT_TR_PF	512

static inline __attribute__((always_inline)) void
tc_cvt_tr_prefetch(const float *src, size_t sld, size_t n)
{
#pragma GCC unroll 16
	for (size_t i = 0; i < n; i++)
		__builtin_prefetch((const void *)((uintptr_t)(src + i * sld) + TC_CVT_TR_PF), 0, 3);
}

/*
 * A transpose fused with a conversion from binary32 (a dtype-converting
 * NCHW -> NHWC): element (r, c) of a @rows x @cols block of binary32, read
 * at src + r * sld + c (@src of any alignment, so only unaligned or masked
 * vector loads or tc_cvt_load, never a plain float dereference; nothing
 * past the block is read), goes through
 * the steps of @a with the scale scale[r * scale_stride] (0: one scale;
 * 1: one a row, the channel of an NHWC destination) and is encoded to
 * element c * dld + r of @dst (a byte-sized kind). The bits are
 * tc_cvt_run()'s.
 */
typedef void tc_cvt_tr_encode_fn(void *dst, size_t dld, const float *src, size_t sld,
				 size_t rows, size_t cols, const struct tc_cvt_affine *a,
				 const float *scale, ptrdiff_t scale_stride);

/**
 * struct tc_cvt_kernels - one kernel set. A NULL entry falls back to the
 * scalar kernel, so a set only carries what its instructions improve.
 * @tr_encode: optional (NULL: none; no scalar fallback), by kind.
 */
struct tc_cvt_kernels {
	const char *name;
	int (*available)(void);
	tc_cvt_decode_fn *decode[TC_CVT_NKINDS];	/* kind -> f32 */
	tc_cvt_encode_fn *encode[TC_CVT_NKINDS];	/* f32 -> kind */
	tc_cvt_affine_fn *affine;
	tc_cvt_tr_encode_fn *tr_encode[TC_CVT_NKINDS];
};

/**
 * tc_cvt_kernels_get - a kernel set by @name ("scalar", "avx2", "avx512",
 * "avx512bf16", "neon", "neonbf16"), or the best this CPU runs for NULL.
 * An unknown name is NULL with *err = -EINVAL, a known one this build or
 * CPU cannot run NULL with -ENODEV: never a silent fallback.
 */
const struct tc_cvt_kernels *tc_cvt_kernels_get(const char *name, int *err);
/** tc_cvt_kernel_names - every name tc_cvt_kernels_get() knows, NULL-ended. */
extern const char *const tc_cvt_kernel_names[];

/**
 * struct tc_cvt - a prepared conversion (tc_cvt_init()); read-only while
 * runs use it, so threads may share one.
 */
struct tc_cvt {
	enum tc_cvt_kind src_kind, dst_kind;
	int copy;			/* same kind, no quantization: bit copy */
	struct tc_cvt_affine affine;
	float scale;			/* the per-tensor scale (nscales == 1) */
	int per_channel;		/* nscales > 1: runs pass their scales */
	/*
	 * i32 -> i32 with zero points only is integer arithmetic (as in
	 * oneDNN's JIT reorder), saturated where oneDNN wraps around.
	 */
	int int_zp;
	int32_t src_zp, dst_zp;
	const struct tc_cvt_kernels *k;
	tc_cvt_decode_fn *decode;
	tc_cvt_encode_fn *encode;
	tc_cvt_affine_fn *affine_fn;
};

/**
 * tc_cvt_init - validate a conversion and choose its kernels.
 * @k: kernel set, or NULL for tc_cvt_kernels_get(NULL).
 * @q: quantization, or NULL for none.
 * @why: on failure, set to a message that starts with the offending field.
 * @return 0, or -EINVAL (unknown kind, scales NULL with nscales > 0, a
 *	scale that is NaN or infinite).
 * @post the scales are copied only for the per-tensor case; per-channel
 *	scales are passed again to each run.
 */
int tc_cvt_init(struct tc_cvt *cv, enum tc_cvt_kind dst_kind,
		enum tc_cvt_kind src_kind, const struct tc_cvt_quant *q,
		const struct tc_cvt_kernels *k, const char **why);

/**
 * tc_cvt_run - convert @n elements (see the top of this file).
 * @dst_off, @src_off: index of the first element from @dst, @src.
 * @dst_stride, @src_stride: element strides (may be 0 for the source, or
 *	negative, as long as every element index is >= 0).
 * @scale: per-channel conversions only: the scale of the first element;
 *	element i uses scale[i * scale_stride] (0: the run stays in one
 *	channel; 1: the run walks the channel dimension). Ignored otherwise.
 *
 * @pre tc_cvt_init() succeeded on @cv; the source and destination elements
 *	do not overlap, unless they are the very same elements of kinds of the
 *	same size (in-place); a run into a 4-bit destination is not split
 *	between threads inside one byte.
 */
void tc_cvt_run(const struct tc_cvt *cv,
		void *dst, int64_t dst_off, int64_t dst_stride,
		const void *src, int64_t src_off, int64_t src_stride,
		size_t n, const float *scale, ptrdiff_t scale_stride);

/* ---- the scalar reference (cvt_scalar.c) -------------------------------- */

float tc_cvt_f16_to_f32(uint16_t h);
uint16_t tc_cvt_f32_to_f16(float f);
float tc_cvt_bf16_to_f32(uint16_t b);
uint16_t tc_cvt_f32_to_bf16(float f);
/* Saturate, round to nearest even: an integer kind's value for @x. */
int32_t tc_cvt_f32_to_int(float x, enum tc_cvt_kind k);

/* One element of kind @k at element index @e of @base, as f32 (exact). */
float tc_cvt_load(enum tc_cvt_kind k, const void *base, int64_t e);
/* Store E(x) at element index @e; a 4-bit store keeps the other nibble. */
void tc_cvt_store(enum tc_cvt_kind k, void *base, int64_t e, float x);

/**
 * tc_cvt_ref_run - tc_cvt_run() element by element, with no kernels and
 * no chunking: the oracle of the tests.
 */
void tc_cvt_ref_run(const struct tc_cvt *cv,
		    void *dst, int64_t dst_off, int64_t dst_stride,
		    const void *src, int64_t src_off, int64_t src_stride,
		    size_t n, const float *scale, ptrdiff_t scale_stride);

extern const struct tc_cvt_kernels tc_cvt_scalar;

/* ---- for the kernel files ----------------------------------------------- */

static inline unsigned int tc_cvt_nibble_get(const void *base, int64_t e)
{
	unsigned char b = ((const unsigned char *)base)[e >> 1];

	return (e & 1) ? b >> 4 : b & 0xfu;
}

/* Set element @e to @v & 0xf; the other nibble of its byte is kept. */
static inline void tc_cvt_nibble_set(void *base, int64_t e, unsigned int v)
{
	unsigned char *p = (unsigned char *)base + (e >> 1);

	if (e & 1)
		*p = (unsigned char)((*p & 0x0fu) | ((v & 0xfu) << 4));
	else
		*p = (unsigned char)((*p & 0xf0u) | (v & 0xfu));
}

/*
 * TC_CVT_AFFINE - the f32 stage of @a on @x (a vector) with scale @s, in
 * the reference's order, each step only when @a has it; @sub, @mul, @add
 * and @dup (a broadcast) are the instruction set's. tc_cvt_affine1() is
 * the same on one element (the kernels' edges).
 */
#define TC_CVT_AFFINE(x, a, s, sub, mul, add, dup)			\
	do {								\
		if ((a)->ops & TC_CVT_SUB_ZP)				\
			(x) = sub((x), dup((a)->src_zp));		\
		if ((a)->ops & TC_CVT_MUL)				\
			(x) = mul((x), (s));				\
		if ((a)->ops & TC_CVT_ADD_ZP)				\
			(x) = add((x), dup((a)->dst_zp));		\
	} while (0)

static inline float tc_cvt_affine1(float x, const struct tc_cvt_affine *a, float s)
{
	if (a->ops & TC_CVT_SUB_ZP)
		x -= a->src_zp;
	if (a->ops & TC_CVT_MUL)
		x *= s;
	if (a->ops & TC_CVT_ADD_ZP)
		x += a->dst_zp;
	return x;
}

#if defined(__x86_64__)
extern const struct tc_cvt_kernels tc_cvt_avx2;
extern const struct tc_cvt_kernels tc_cvt_avx512;
extern const struct tc_cvt_kernels tc_cvt_avx512bf16;
/*
 * tc_cvt_cpu_has_f16c - CPUID.1:ECX.F16C. Read by hand because clang 14's
 * __builtin_cpu_supports() does not know "f16c" (a compile error there).
 * Callers also check "avx2" or "avx512f", which covers the OS saving YMM.
 */
int tc_cvt_cpu_has_f16c(void);
#endif
#if defined(__aarch64__)
extern const struct tc_cvt_kernels tc_cvt_neon;
extern const struct tc_cvt_kernels tc_cvt_neonbf16;
/* cvt_neon_bf16.c: BFCVTN, built for armv8.2-a+bf16; and the converting
 * transpose into bf16 with it (cvt_neon_tr.h). */
void tc_cvt_neon_encode_bf16_hw(void *dst, const float *src, size_t n);
tc_cvt_tr_encode_fn tc_cvt_neon_tr_bf16_hw;
#endif

#endif /* TILECOPY_CPU_CVT_H */
