// SPDX-License-Identifier: MIT
/*
 * cvt_avx512.c - element conversion kernels for AVX-512 (F, BW, VL) with
 * F16C, 16 elements a step and masked loads and stores for the tail (no
 * scalar remainder). Two sets: "avx512" converts f32 -> bf16 in integer
 * arithmetic, "avx512bf16" with VCVTNEPS2BF16 (Cooper Lake, Sapphire
 * Rapids, Zen 4); both give its bits.
 *
 * Bit-exactness with cvt_scalar.c rests on four instruction facts:
 * VCVTPH2PS/VCVTPS2PH round to nearest even (immediate, not MXCSR), handle
 * subnormals exactly and quiet a NaN keeping its top payload bits;
 * VMINPS/VMAXPS return the second operand when the first is NaN (so min
 * against the upper bound sends NaN there, max against 0 sends it to 0);
 * VCVTPS2DQ rounds like lrintf() in the same MXCSR.
 *
 * Built on every architecture, empty but for x86-64, so that the aarch64
 * build in tests/simd/simd.mk, which takes the host's source list, works.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#if defined(__x86_64__)
#include <immintrin.h>

#include "cpu/cvt.h"

#define TC_RNE	(_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

static inline __mmask16 tail_mask16(size_t n)
{
	return n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
}

static inline __mmask8 tail_mask8(size_t n)
{
	return n >= 8 ? (__mmask8)0xff : (__mmask8)((1u << n) - 1);
}

/* ---- kind -> f32: 16 elements, masked ----------------------------------- */

static inline __m512 ld_f16(const char *p, __mmask16 k)
{
	return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(k, p));
}

static inline __m512 ld_bf16(const char *p, __mmask16 k)
{
	__m512i w = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, p));

	return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

static inline __m512 ld_i8(const char *p, __mmask16 k)
{
	return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_maskz_loadu_epi8(k, p)));
}

static inline __m512 ld_u8(const char *p, __mmask16 k)
{
	return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(k, p)));
}

static inline __m512 ld_i32(const char *p, __mmask16 k)
{
	return _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(k, p));
}

/*
 * 8 bytes -> 16 nibbles: each byte into a 64-bit lane, the low nibble to
 * its low dword (the even element) and the high nibble to its high dword.
 */
static inline __m512i ld_nibbles(const char *p, __mmask16 k)
{
	__mmask16 kb = tail_mask16(((unsigned int)__builtin_popcount(k) + 1) / 2);
	__m512i q = _mm512_cvtepu8_epi64(_mm_maskz_loadu_epi8(kb, p));
	__m512i lo = _mm512_and_si512(q, _mm512_set1_epi64(0xf));
	__m512i hi = _mm512_and_si512(_mm512_srli_epi64(q, 4), _mm512_set1_epi64(0xf));

	return _mm512_or_si512(lo, _mm512_slli_epi64(hi, 32));
}

static inline __m512 ld_u4(const char *p, __mmask16 k)
{
	return _mm512_cvtepi32_ps(ld_nibbles(p, k));
}

static inline __m512 ld_i4(const char *p, __mmask16 k)
{
	const __m512i eight = _mm512_set1_epi32(8);
	__m512i x = _mm512_sub_epi32(_mm512_xor_si512(ld_nibbles(p, k), eight), eight);

	return _mm512_cvtepi32_ps(x);
}

/* @num/@den: bytes per element, as a fraction (1/2 for 4-bit kinds). */
#define AVX512_DECODER(name, num, den)					\
static void avx512_decode_##name(float *dst, const void *src, size_t n)	\
{									\
	const char *s = src;						\
	size_t i;							\
									\
	for (i = 0; i + 16 <= n; i += 16)				\
		_mm512_storeu_ps(dst + i, ld_##name(s + i * (num) / (den), 0xffff)); \
	if (i < n) {							\
		__mmask16 k = tail_mask16(n - i);			\
		_mm512_mask_storeu_ps(dst + i, k, ld_##name(s + i * (num) / (den), k)); \
	}								\
}
AVX512_DECODER(f16, 2, 1)
AVX512_DECODER(bf16, 2, 1)
AVX512_DECODER(i8, 1, 1)
AVX512_DECODER(u8, 1, 1)
AVX512_DECODER(i32, 4, 1)
AVX512_DECODER(i4, 1, 2)
AVX512_DECODER(u4, 1, 2)

/* ---- f32 -> kind: 16 elements, masked ----------------------------------- */

static inline void st_f16(char *p, __mmask16 k, __m512 v)
{
	_mm256_mask_storeu_epi16(p, k, _mm512_cvtps_ph(v, TC_RNE));
}

/* VCVTNEPS2BF16 in integer arithmetic (cvt_scalar.c has the rules). */
static inline void st_bf16(char *p, __mmask16 k, __m512 v)
{
	__m512i u = _mm512_castps_si512(v);
	__m512i hi = _mm512_srli_epi32(u, 16);
	__m512i abs = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
	__mmask16 nan = _mm512_cmpgt_epu32_mask(abs, _mm512_set1_epi32(0x7f800000));
	__mmask16 den = _mm512_testn_epi32_mask(u, _mm512_set1_epi32(0x7f800000));
	__m512i bias = _mm512_add_epi32(_mm512_set1_epi32(0x7fff),
					_mm512_and_si512(hi, _mm512_set1_epi32(1)));
	__m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, bias), 16);

	r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
	r = _mm512_mask_mov_epi32(r, den, _mm512_and_si512(hi, _mm512_set1_epi32(0x8000)));
	_mm512_mask_cvtepi32_storeu_epi16(p, k, r);
}

__attribute__((target("avx512bf16")))
static inline void st_bf16_hw(char *p, __mmask16 k, __m512 v)
{
	__m256bh b = _mm512_cvtneps_pbh(v);

	_mm256_mask_storeu_epi16(p, k, (__m256i)b);
}

/*
 * Saturate: a signed kind takes min against its upper bound first (NaN ->
 * the bound), an unsigned one max against 0 first (NaN -> 0).
 */
static inline __m512i sat_signed(__m512 v, float lo, float hi)
{
	v = _mm512_min_ps(v, _mm512_set1_ps(hi));
	v = _mm512_max_ps(v, _mm512_set1_ps(lo));
	return _mm512_cvtps_epi32(v);
}

static inline __m512i sat_unsigned(__m512 v, float hi)
{
	v = _mm512_max_ps(v, _mm512_setzero_ps());
	v = _mm512_min_ps(v, _mm512_set1_ps(hi));
	return _mm512_cvtps_epi32(v);
}

static inline void st_i8(char *p, __mmask16 k, __m512 v)
{
	_mm512_mask_cvtepi32_storeu_epi8(p, k, sat_signed(v, -128.0f, 127.0f));
}

static inline void st_u8(char *p, __mmask16 k, __m512 v)
{
	_mm512_mask_cvtepi32_storeu_epi8(p, k, sat_unsigned(v, 255.0f));
}

static inline void st_i32(char *p, __mmask16 k, __m512 v)
{
	_mm512_mask_storeu_epi32(p, k, sat_signed(v, -2147483648.0f, 2147483520.0f));
}

/* Element pairs (a 64-bit lane each) into bytes, the even one low. */
static inline void st_nibbles(char *p, __mmask16 k, __m512i x)
{
	__m512i lo = _mm512_and_si512(x, _mm512_set1_epi64(0xf));
	__m512i hi = _mm512_and_si512(_mm512_srli_epi64(x, 28), _mm512_set1_epi64(0xf0));

	/* encoders get even counts: k covers whole pairs */
	_mm512_mask_cvtepi64_storeu_epi8(p, tail_mask8((unsigned int)__builtin_popcount(k) / 2),
					 _mm512_or_si512(lo, hi));
}

static inline void st_i4(char *p, __mmask16 k, __m512 v)
{
	st_nibbles(p, k, sat_signed(v, -8.0f, 7.0f));
}

static inline void st_u4(char *p, __mmask16 k, __m512 v)
{
	st_nibbles(p, k, sat_unsigned(v, 15.0f));
}

#define AVX512_ENCODER(name, st, attr, num, den)			\
attr static void avx512_encode_##name(void *dst, const float *src, size_t n) \
{									\
	char *d = dst;							\
	size_t i;							\
									\
	for (i = 0; i + 16 <= n; i += 16)				\
		st(d + i * (num) / (den), 0xffff, _mm512_loadu_ps(src + i)); \
	if (i < n) {							\
		__mmask16 k = tail_mask16(n - i);			\
		st(d + i * (num) / (den), k, _mm512_maskz_loadu_ps(k, src + i)); \
	}								\
}
AVX512_ENCODER(f16, st_f16, , 2, 1)
AVX512_ENCODER(bf16, st_bf16, , 2, 1)
AVX512_ENCODER(bf16_hw, st_bf16_hw, __attribute__((target("avx512bf16"))), 2, 1)
AVX512_ENCODER(i8, st_i8, , 1, 1)
AVX512_ENCODER(u8, st_u8, , 1, 1)
AVX512_ENCODER(i32, st_i32, , 4, 1)
AVX512_ENCODER(i4, st_i4, , 1, 2)
AVX512_ENCODER(u4, st_u4, , 1, 2)

/* ---- the f32 stage ------------------------------------------------------- */

/* The f32 steps of @ops on 16 lanes. */
static inline __m512 affine16(__m512 x, unsigned int ops, __m512 zs, __m512 s, __m512 zd)
{
	if (ops & TC_CVT_SUB_ZP)
		x = _mm512_sub_ps(x, zs);
	if (ops & TC_CVT_MUL)
		x = _mm512_mul_ps(x, s);
	if (ops & TC_CVT_ADD_ZP)
		x = _mm512_add_ps(x, zd);
	return x;
}

static void avx512_affine(float *dst, const float *src, size_t n,
			  const struct tc_cvt_affine *a, const float *scale,
			  ptrdiff_t scale_stride)
{
	/* in locals: the stores below may alias *a as far as the compiler knows */
	const unsigned int ops = a->ops;
	const __m512 zs = _mm512_set1_ps(a->src_zp), zd = _mm512_set1_ps(a->dst_zp);
	__m512 s = _mm512_set1_ps(scale[0]);
	size_t i;

	if (scale_stride != 0 && scale_stride != 1) {
		tc_cvt_scalar.affine(dst, src, n, a, scale, scale_stride);
		return;
	}
	for (i = 0; i + 16 <= n; i += 16) {
		if (scale_stride)
			s = _mm512_loadu_ps(scale + i);
		_mm512_storeu_ps(dst + i, affine16(_mm512_loadu_ps(src + i), ops, zs, s, zd));
	}
	if (i < n) {
		__mmask16 k = tail_mask16(n - i);

		if (scale_stride)
			s = _mm512_maskz_loadu_ps(k, scale + i);
		_mm512_mask_storeu_ps(dst + i, k,
				      affine16(_mm512_maskz_loadu_ps(k, src + i), ops, zs, s, zd));
	}
}

/* ---- transposes fused with an encoding ------------------------------------ */

/*
 * 16 rows of 16 binary32 in @x, their 16 columns out in @o (o[c] = column
 * c): pairs of rows interleaved, then quads (u[4i + j], lane k: column
 * 4k + j of rows 4i..4i + 3), then the lanes gathered in two rounds of
 * 128-bit shuffles.
 */
static inline __attribute__((always_inline)) void tr16x16(__m512 o[16], const __m512 x[16])
{
	__m512 t[16], u[16];

#pragma GCC unroll 8
	for (int i = 0; i < 8; i++) {
		t[2 * i] = _mm512_unpacklo_ps(x[2 * i], x[2 * i + 1]);
		t[2 * i + 1] = _mm512_unpackhi_ps(x[2 * i], x[2 * i + 1]);
	}
#pragma GCC unroll 4
	for (int i = 0; i < 4; i++) {
		u[4 * i] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
		u[4 * i + 1] = _mm512_shuffle_ps(t[4 * i], t[4 * i + 2], 0xee);
		u[4 * i + 2] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
		u[4 * i + 3] = _mm512_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xee);
	}
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		__m512 v0 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
		__m512 v1 = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xdd);
		__m512 w0 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
		__m512 w1 = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xdd);

		o[j] = _mm512_shuffle_f32x4(v0, w0, 0x88);
		o[8 + j] = _mm512_shuffle_f32x4(v0, w0, 0xdd);
		o[4 + j] = _mm512_shuffle_f32x4(v1, w1, 0x88);
		o[12 + j] = _mm512_shuffle_f32x4(v1, w1, 0xdd);
	}
}

/*
 * One tile: the first @nr rows (others zero, not read) of @kc columns from
 * @src, transposed into @o. Inlined with constants for whole tiles.
 */
static inline __attribute__((always_inline)) void
tr_tile16(__m512 o[16], const float *src, size_t sld, size_t nr, __mmask16 kc)
{
	__m512 x[16];

#pragma GCC unroll 16
	for (size_t i = 0; i < 16; i++)
		x[i] = i < nr ? _mm512_maskz_loadu_ps(kc, src + i * sld) : _mm512_setzero_ps();
	tr16x16(o, x);
}

/*
 * Each band prefetches (tc_cvt_tr_prefetch): NCHW f32 -> NHWC bf16
 * 32x64x56x56 on AMD Zen 5, one thread, calls of each distance
 * interleaved in one process: 1.10-1.19 ms a call without, 1.01-1.11
 * with 512 bytes, no better with 256 or 1024 (a synthetic read of 16
 * rows: 0.86 -> 0.55 ms).
 */
/*
 * The fused transpose (tc_cvt_tr_encode_fn) on 16 x 16 tiles, bands of 16
 * source rows swept across the columns (16 sequential source streams; each
 * destination row gets 16 elements a band: 32 bytes of f16 or bf16, 16 of
 * i8). The f32 steps run on the transposed columns, whose lanes are
 * the rows: one scale vector a band. Edges are the same tiles, masked
 * (AVX2's 8 x 8 tiles, which this replaces here, did them element by
 * element).
 */
#define AVX512_TR_ENCODER(name, st, attr, es)				\
attr static void tc_cvt_avx512_tr_##name(void *dst, size_t dld, const float *src, \
					  size_t sld, size_t rows, size_t cols, \
					  const struct tc_cvt_affine *a, \
					  const float *scale, ptrdiff_t sst) \
{									\
	const unsigned int ops = a->ops;				\
	const __m512 zs = _mm512_set1_ps(a->src_zp), zd = _mm512_set1_ps(a->dst_zp); \
	char *d = dst;							\
	__m512 o[16];							\
									\
	for (size_t r = 0; r < rows; r += 16) {				\
		size_t nr = rows - r < 16 ? rows - r : 16, c = 0;	\
		__mmask16 kr = tail_mask16(nr);				\
		__m512 s = sst ? _mm512_maskz_loadu_ps(kr, scale + r) :	\
				 _mm512_set1_ps(scale[0]);		\
		const float *sr = src + r * sld;			\
		char *dr = d + r * (es);				\
									\
		if (nr == 16)						\
			for (; c + 16 <= cols; c += 16) {		\
				tc_cvt_tr_prefetch(sr + c, sld, 16);	\
				tr_tile16(o, sr + c, sld, 16, 0xffff);	\
				_Pragma("GCC unroll 16")		\
				for (size_t i = 0; i < 16; i++)		\
					st(dr + (c + i) * dld * (es), 0xffff, \
					   affine16(o[i], ops, zs, s, zd)); \
			}						\
		for (; c < cols; c += 16) {				\
			size_t nc = cols - c < 16 ? cols - c : 16;	\
									\
			tr_tile16(o, sr + c, sld, nr, tail_mask16(nc));	\
			for (size_t i = 0; i < nc; i++)			\
				st(dr + (c + i) * dld * (es), kr,	\
				   affine16(o[i], ops, zs, s, zd));	\
		}							\
	}								\
}
AVX512_TR_ENCODER(f16, st_f16, , 2)
AVX512_TR_ENCODER(bf16, st_bf16, , 2)
AVX512_TR_ENCODER(bf16_hw, st_bf16_hw, __attribute__((target("avx512bf16"))), 2)
AVX512_TR_ENCODER(i8, st_i8, , 1)
AVX512_TR_ENCODER(u8, st_u8, , 1)

static int avx512_available(void)
{
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") && tc_cvt_cpu_has_f16c();
}

static int avx512bf16_available(void)
{
	return avx512_available() && __builtin_cpu_supports("avx512bf16");
}

#define AVX512_SET(set_name, avail, bf16_encoder, bf16_tr)			\
	{								\
		.name = set_name,					\
		.available = avail,					\
		.decode = {						\
			[TC_CVT_F16] = avx512_decode_f16,		\
			[TC_CVT_BF16] = avx512_decode_bf16,		\
			[TC_CVT_I8] = avx512_decode_i8,			\
			[TC_CVT_U8] = avx512_decode_u8,			\
			[TC_CVT_I32] = avx512_decode_i32,		\
			[TC_CVT_I4] = avx512_decode_i4,			\
			[TC_CVT_U4] = avx512_decode_u4,			\
		},							\
		.encode = {						\
			[TC_CVT_F16] = avx512_encode_f16,		\
			[TC_CVT_BF16] = bf16_encoder,			\
			[TC_CVT_I8] = avx512_encode_i8,			\
			[TC_CVT_U8] = avx512_encode_u8,			\
			[TC_CVT_I32] = avx512_encode_i32,		\
			[TC_CVT_I4] = avx512_encode_i4,			\
			[TC_CVT_U4] = avx512_encode_u4,			\
		},							\
		.affine = avx512_affine,				\
		.tr_encode = {						\
			[TC_CVT_F16] = tc_cvt_avx512_tr_f16,		\
			[TC_CVT_BF16] = bf16_tr,			\
			[TC_CVT_I8] = tc_cvt_avx512_tr_i8,		\
			[TC_CVT_U8] = tc_cvt_avx512_tr_u8,		\
		},							\
	}

const struct tc_cvt_kernels tc_cvt_avx512 =
	AVX512_SET("avx512", avx512_available, avx512_encode_bf16, tc_cvt_avx512_tr_bf16);
const struct tc_cvt_kernels tc_cvt_avx512bf16 =
	AVX512_SET("avx512bf16", avx512bf16_available, avx512_encode_bf16_hw,
		   tc_cvt_avx512_tr_bf16_hw);

#endif /* __x86_64__ */
