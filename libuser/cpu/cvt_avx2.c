// SPDX-License-Identifier: MIT
/*
 * cvt_avx2.c - element conversion kernels for AVX2 with F16C (Haswell and
 * later, every Zen), 8 elements a step; the remainder of a run goes to the
 * scalar kernel. f32 -> bf16 is done in integer arithmetic. The instruction
 * facts the bit-exactness rests on are listed in cvt_avx512.c.
 *
 * Built on every architecture, empty but for x86-64 (see cvt_avx512.c).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "cpu/cvt.h"

/* ---- kind -> f32, 8 at a time --------------------------------------------- */

static inline __m256 ld_f16(const char *p)
{
	return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
}

static inline __m256 ld_bf16(const char *p)
{
	__m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p));

	return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

static inline __m256 ld_i8(const char *p)
{
	return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

static inline __m256 ld_u8(const char *p)
{
	return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)));
}

static inline __m256 ld_i32(const char *p)
{
	return _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)p));
}

/* 4 bytes -> 8 nibbles, each byte a 64-bit lane: low nibble, high nibble. */
static inline __m256i ld_nibbles(const char *p)
{
	int32_t w;
	__m256i q, lo, hi;

	memcpy(&w, p, sizeof(w));
	q = _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w));
	lo = _mm256_and_si256(q, _mm256_set1_epi64x(0xf));
	hi = _mm256_and_si256(_mm256_srli_epi64(q, 4), _mm256_set1_epi64x(0xf));
	return _mm256_or_si256(lo, _mm256_slli_epi64(hi, 32));
}

static inline __m256 ld_u4(const char *p)
{
	return _mm256_cvtepi32_ps(ld_nibbles(p));
}

static inline __m256 ld_i4(const char *p)
{
	const __m256i eight = _mm256_set1_epi32(8);

	return _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_xor_si256(ld_nibbles(p), eight),
						   eight));
}

#define AVX2_DECODER(name, kind, num, den)				\
static void avx2_decode_##name(float *dst, const void *src, size_t n)	\
{									\
	const char *s = src;						\
	size_t i;							\
									\
	for (i = 0; i + 8 <= n; i += 8)					\
		_mm256_storeu_ps(dst + i, ld_##name(s + i * (num) / (den))); \
	if (i < n)							\
		tc_cvt_scalar.decode[kind](dst + i, s + i * (num) / (den), n - i); \
}
AVX2_DECODER(f16, TC_CVT_F16, 2, 1)
AVX2_DECODER(bf16, TC_CVT_BF16, 2, 1)
AVX2_DECODER(i8, TC_CVT_I8, 1, 1)
AVX2_DECODER(u8, TC_CVT_U8, 1, 1)
AVX2_DECODER(i32, TC_CVT_I32, 4, 1)
AVX2_DECODER(i4, TC_CVT_I4, 1, 2)
AVX2_DECODER(u4, TC_CVT_U4, 1, 2)

/* ---- f32 -> kind, 8 at a time --------------------------------------------- */

static inline void st_f16(char *p, __m256 v)
{
	_mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
}

/* VCVTNEPS2BF16 in integer arithmetic (cvt_scalar.c has the rules). */
static inline void st_bf16(char *p, __m256 v)
{
	__m256i u = _mm256_castps_si256(v);
	__m256i hi = _mm256_srli_epi32(u, 16);
	__m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
	__m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
	__m256i den = _mm256_cmpeq_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7f800000)),
					 _mm256_setzero_si256());
	__m256i bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
					_mm256_and_si256(hi, _mm256_set1_epi32(1)));
	__m256i r = _mm256_srli_epi32(_mm256_add_epi32(u, bias), 16);

	r = _mm256_blendv_epi8(r, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
	r = _mm256_blendv_epi8(r, _mm256_and_si256(hi, _mm256_set1_epi32(0x8000)), den);
	/* 16-bit results: pack within lanes, then put the two halves together */
	r = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
	_mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(r));
}

/* Saturate as in cvt_avx512.c: NaN to the upper bound, or to 0 unsigned. */
static inline __m256i sat_signed(__m256 v, float lo, float hi)
{
	v = _mm256_min_ps(v, _mm256_set1_ps(hi));
	v = _mm256_max_ps(v, _mm256_set1_ps(lo));
	return _mm256_cvtps_epi32(v);
}

static inline __m256i sat_unsigned(__m256 v, float hi)
{
	v = _mm256_max_ps(v, _mm256_setzero_ps());
	v = _mm256_min_ps(v, _mm256_set1_ps(hi));
	return _mm256_cvtps_epi32(v);
}

/* 8 in-range dwords -> 8 words (exact: the values already fit). */
static inline __m128i narrow16(__m256i x)
{
	return _mm_packs_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
}

static inline void st_i8(char *p, __m256 v)
{
	__m128i w = narrow16(sat_signed(v, -128.0f, 127.0f));

	_mm_storel_epi64((__m128i *)p, _mm_packs_epi16(w, w));
}

static inline void st_u8(char *p, __m256 v)
{
	__m128i w = narrow16(sat_unsigned(v, 255.0f));

	_mm_storel_epi64((__m128i *)p, _mm_packus_epi16(w, w));
}

static inline void st_i32(char *p, __m256 v)
{
	_mm256_storeu_si256((__m256i *)p, sat_signed(v, -2147483648.0f, 2147483520.0f));
}

/* Element pairs (a 64-bit lane each) into 4 bytes, the even one low. */
static inline void st_nibbles(char *p, __m256i x)
{
	const __m256i pick = _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1,
					      -1, -1, -1, -1, -1, -1, -1, -1,
					      0, 8, -1, -1, -1, -1, -1, -1,
					      -1, -1, -1, -1, -1, -1, -1, -1);
	__m256i lo = _mm256_and_si256(x, _mm256_set1_epi64x(0xf));
	__m256i hi = _mm256_and_si256(_mm256_srli_epi64(x, 28), _mm256_set1_epi64x(0xf0));
	__m256i b = _mm256_shuffle_epi8(_mm256_or_si256(lo, hi), pick);
	uint32_t w = (uint32_t)_mm256_extract_epi16(b, 0) |
		     ((uint32_t)_mm256_extract_epi16(b, 8) << 16);

	memcpy(p, &w, sizeof(w));
}

static inline void st_i4(char *p, __m256 v)
{
	st_nibbles(p, sat_signed(v, -8.0f, 7.0f));
}

static inline void st_u4(char *p, __m256 v)
{
	st_nibbles(p, sat_unsigned(v, 15.0f));
}

#define AVX2_ENCODER(name, kind, num, den)				\
static void avx2_encode_##name(void *dst, const float *src, size_t n)	\
{									\
	char *d = dst;							\
	size_t i;							\
									\
	for (i = 0; i + 8 <= n; i += 8)					\
		st_##name(d + i * (num) / (den), _mm256_loadu_ps(src + i)); \
	if (i < n)							\
		tc_cvt_scalar.encode[kind](d + i * (num) / (den), src + i, n - i); \
}
AVX2_ENCODER(f16, TC_CVT_F16, 2, 1)
AVX2_ENCODER(bf16, TC_CVT_BF16, 2, 1)
AVX2_ENCODER(i8, TC_CVT_I8, 1, 1)
AVX2_ENCODER(u8, TC_CVT_U8, 1, 1)
AVX2_ENCODER(i32, TC_CVT_I32, 4, 1)
AVX2_ENCODER(i4, TC_CVT_I4, 1, 2)
AVX2_ENCODER(u4, TC_CVT_U4, 1, 2)

/* ---- transposes fused with an encoding ------------------------------------ */

/* Eight rows of eight binary32 in, their eight columns out (o[c] = column c). */
static inline void tr8x8(__m256 *o, const float *src, size_t sld)
{
	__m256 t[8], u[8];

	for (int i = 0; i < 8; i += 2) {
		__m256 a = _mm256_loadu_ps(src + (size_t)i * sld);
		__m256 b = _mm256_loadu_ps(src + (size_t)(i + 1) * sld);

		t[i] = _mm256_unpacklo_ps(a, b);
		t[i + 1] = _mm256_unpackhi_ps(a, b);
	}
	for (int i = 0; i < 8; i += 4) {
		u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
		u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
		u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
		u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
	}
	for (int i = 0; i < 4; i++) {
		o[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
		o[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
	}
}

/* The f32 stage on 8 lanes (tc_cvt_affine1() on one element). */
static inline __m256 affine8(__m256 x, const struct tc_cvt_affine *a, __m256 s)
{
	TC_CVT_AFFINE(x, a, s, _mm256_sub_ps, _mm256_mul_ps, _mm256_add_ps, _mm256_set1_ps);
	return x;
}

/*
 * 16 x 16 f32 into bytes, transposed after the encoding (i8, u8): each row
 * is encoded on its own (its scale broadcast), two rows packed into one
 * register (_mm256_packs_epi32 then the 16-bit pack: lane 0 holds columns
 * 0-3 and 8-11 of both rows, lane 1 columns 4-7 and 12-15), the two rows'
 * bytes interleaved into 16-bit pairs, and the 8 pairs transposed as 8 x 8
 * words in each lane: a quarter of the shuffles of transposing binary32
 * first, and each destination row gets 16 bytes in one store (NCHW f32 ->
 * nChw16c s8). Word j of the transpose is column j of its lane's set.
 */
static inline __attribute__((always_inline)) void tr16_words(__m256i *p)
{
#pragma GCC unroll 4
	for (int s = 1; s < 8; s <<= 1) {
		__m256i t[8];

#pragma GCC unroll 4
		for (int i = 0; i < 4; i++) {
			t[2 * i] = _mm256_unpacklo_epi16(p[i], p[i + 4]);
			t[2 * i + 1] = _mm256_unpackhi_epi16(p[i], p[i + 4]);
		}
#pragma GCC unroll 8
		for (int i = 0; i < 8; i++)
			p[i] = t[i];
	}
}

#define AVX2_TR16_BYTES(name, sat, pack16)				\
static inline __attribute__((always_inline)) void				\
tr16_##name(char *d, size_t dld, const float *src, size_t sld,		\
			       const struct tc_cvt_affine *a, const float *scale, \
			       ptrdiff_t sst)				\
{									\
	const __m256i pairs = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, \
			5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, \
			5, 13, 6, 14, 7, 15);				\
	__m256i p[8], w[2];						\
									\
	_Pragma("GCC unroll 8")						\
	for (int k = 0; k < 8; k++) {					\
		_Pragma("GCC unroll 2")					\
		for (int h = 0; h < 2; h++) {				\
			const float *r = src + (size_t)(2 * k + h) * sld; \
			__m256 s = _mm256_set1_ps(scale[(ptrdiff_t)(2 * k + h) * sst]); \
									\
			w[h] = _mm256_packs_epi32(sat(affine8(_mm256_loadu_ps(r), a, s)), \
						  sat(affine8(_mm256_loadu_ps(r + 8), a, s))); \
		}							\
		p[k] = _mm256_shuffle_epi8(pack16(w[0], w[1]), pairs);	\
	}								\
	tr16_words(p);							\
	_Pragma("GCC unroll 8")						\
	for (int j = 0; j < 8; j++) {					\
		size_t c = j < 4 ? (size_t)j : (size_t)j + 4;		\
									\
		_mm_storeu_si128((__m128i *)(d + c * dld), _mm256_castsi256_si128(p[j])); \
		_mm_storeu_si128((__m128i *)(d + (c + 4) * dld),	\
				 _mm256_extracti128_si256(p[j], 1));	\
	}								\
}

/*
 * No lower clamp: below -128 (and -inf) the conversion gives a negative
 * dword (INT_MIN when out of range) that the signed packs saturate to
 * -128. The upper clamp stays: above 2^31 the conversion gives INT_MIN
 * too, and it sends NaN to 127 (minps returns its second operand).
 */
static inline __m256i sat_i8(__m256 v)
{
	return _mm256_cvtps_epi32(_mm256_min_ps(v, _mm256_set1_ps(127.0f)));
}

static inline __m256i sat_u8(__m256 v)
{
	return sat_unsigned(v, 255.0f);
}

AVX2_TR16_BYTES(i8, sat_i8, _mm256_packs_epi16)
AVX2_TR16_BYTES(u8, sat_u8, _mm256_packus_epi16)

/*
 * Element (r, c) of a band by the reference's encoder (the vector one's
 * bits), on the encoder's d, dld, src, sld, a, scale and sst. An empty row
 * range skips its column loop too: 1024 empty column steps a block were
 * 14% of the s8 kernel.
 */
#define AVX2_TR_EDGE(kind, r0, r1, c0, c1)				\
	for (size_t c_ = (r0) < (r1) ? (c0) : (c1); c_ < (c1); c_++)	\
		for (size_t i_ = (r0); i_ < (r1); i_++)			\
			tc_cvt_store(kind, d, (int64_t)(c_ * dld + i_),	\
				     tc_cvt_affine1(tc_cvt_load(TC_CVT_F32, src, \
							    (int64_t)(i_ * sld + c_)), \
						    a, scale[(ptrdiff_t)i_ * sst]))

/*
 * The 16-bit kinds' 8-row bands prefetch (tc_cvt_tr_prefetch) as
 * cvt_avx512.c's do. NCHW f32 -> NHWC, 32x64x56x56, AVX2 on AMD Zen 5,
 * distances compared call by call in one process (40 calls each), best
 * ms: bf16 3.64 -> 2.47, f16 4.48 -> 2.70, bf16 on two threads 3.22 ->
 * 1.72; 256 bytes alike, 1024 a little slower. The byte kinds' 16-row
 * bands (tr16_*) read whole lines and gained nothing (i8 0.73-0.88 ms
 * with and without).
 */

/*
 * 8 rows from @r, columns from @c while 8 are left: register tiles of
 * 8 x 8 binary32, each column encoded on the way out; for 16-bit kinds
 * a prefetch every other tile (a tile row is half a line; the byte kinds
 * come here only for the 16-row bands' tails). Returns the first column
 * not done.
 */
#define AVX2_TR8(name, es)						\
static inline size_t tr8_##name(char *d, size_t dld, const float *src, size_t sld, \
				size_t r, size_t c, size_t cols,	\
				const struct tc_cvt_affine *a, const float *scale, \
				ptrdiff_t sst)				\
{									\
	__m256 s = sst ? _mm256_loadu_ps(scale + r) : _mm256_set1_ps(scale[0]); \
									\
	for (; c + 8 <= cols; c += 8) {					\
		__m256 o[8];						\
									\
		if ((es) == 2 && !(c & 15))				\
			tc_cvt_tr_prefetch(src + r * sld + c, sld, 8);	\
		tr8x8(o, src + r * sld + c, sld);			\
		for (int i = 0; i < 8; i++)				\
			st_##name(d + ((c + i) * dld + r) * (es), affine8(o[i], a, s)); \
	}								\
	return c;							\
}
AVX2_TR8(f16, 2)
AVX2_TR8(bf16, 2)
AVX2_TR8(i8, 1)
AVX2_TR8(u8, 1)

/*
 * The 16-row bands of the byte kinds (tr16_*): 16 columns at a time, then
 * 8 more if left as two 8 x 8 tiles, then the edge.
 */
#define AVX2_BAND16_BYTES(name, kind)					\
	for (; r + 16 <= rows; r += 16) {				\
		size_t e_;						\
									\
		for (c = 0; c + 16 <= cols; c += 16)			\
			tr16_##name(d + c * dld + r, dld, src + r * sld + c, sld, a, \
				    scale + (ptrdiff_t)r * sst, sst);	\
		e_ = tr8_##name(d, dld, src, sld, r, c, cols, a, scale, sst); \
		tr8_##name(d, dld, src, sld, r + 8, c, cols, a, scale, sst); \
		AVX2_TR_EDGE(kind, r, r + 16, e_, cols);		\
	}
#define AVX2_BAND16_NONE(name, kind)

/*
 * Bands of 8 source rows (16 for bytes, @band16) swept across the columns:
 * the source is read as 8 (16) sequential streams (columns outer, 64 rows
 * apart, left the prefetchers behind: 3x slower on NCHW -> NHWC), each
 * destination row gets 8 (16) elements a band and stays in the caches
 * until the block is done. Edges element by element.
 */
#define AVX2_TR_ENCODER(name, kind, band16)				\
static void tc_cvt_avx2_tr_##name(void *dst, size_t dld, const float *src, size_t sld, \
				  size_t rows, size_t cols, const struct tc_cvt_affine *a, \
				  const float *scale, ptrdiff_t sst)	\
{									\
	char *d = dst;							\
	size_t c, r = 0;						\
									\
	band16(name, kind)						\
	for (; r + 8 <= rows; r += 8) {					\
		c = tr8_##name(d, dld, src, sld, r, 0, cols, a, scale, sst); \
		AVX2_TR_EDGE(kind, r, r + 8, c, cols);			\
	}								\
	AVX2_TR_EDGE(kind, r, rows, 0, cols);				\
}
AVX2_TR_ENCODER(f16, TC_CVT_F16, AVX2_BAND16_NONE)
AVX2_TR_ENCODER(bf16, TC_CVT_BF16, AVX2_BAND16_NONE)
AVX2_TR_ENCODER(i8, TC_CVT_I8, AVX2_BAND16_BYTES)
AVX2_TR_ENCODER(u8, TC_CVT_U8, AVX2_BAND16_BYTES)

/* ---- the f32 stage ------------------------------------------------------- */

static void avx2_affine(float *dst, const float *src, size_t n,
			const struct tc_cvt_affine *a, const float *scale,
			ptrdiff_t scale_stride)
{
	/* in locals: the stores below may alias *a as far as the compiler knows */
	const unsigned int ops = a->ops;
	const __m256 zs = _mm256_set1_ps(a->src_zp), zd = _mm256_set1_ps(a->dst_zp);
	__m256 s = _mm256_set1_ps(scale[0]);
	size_t i = 0;

	if (scale_stride != 0 && scale_stride != 1)
		goto tail;
	for (; i + 8 <= n; i += 8) {
		__m256 x = _mm256_loadu_ps(src + i);

		if (scale_stride)
			s = _mm256_loadu_ps(scale + i);
		if (ops & TC_CVT_SUB_ZP)
			x = _mm256_sub_ps(x, zs);
		if (ops & TC_CVT_MUL)
			x = _mm256_mul_ps(x, s);
		if (ops & TC_CVT_ADD_ZP)
			x = _mm256_add_ps(x, zd);
		_mm256_storeu_ps(dst + i, x);
	}
tail:
	if (i < n)
		tc_cvt_scalar.affine(dst + i, src + i, n - i, a,
				     scale + (ptrdiff_t)i * scale_stride, scale_stride);
}

static int avx2_available(void)
{
	return __builtin_cpu_supports("avx2") && tc_cvt_cpu_has_f16c();
}

const struct tc_cvt_kernels tc_cvt_avx2 = {
	.name = "avx2",
	.available = avx2_available,
	.decode = {
		[TC_CVT_F16] = avx2_decode_f16,
		[TC_CVT_BF16] = avx2_decode_bf16,
		[TC_CVT_I8] = avx2_decode_i8,
		[TC_CVT_U8] = avx2_decode_u8,
		[TC_CVT_I32] = avx2_decode_i32,
		[TC_CVT_I4] = avx2_decode_i4,
		[TC_CVT_U4] = avx2_decode_u4,
	},
	.encode = {
		[TC_CVT_F16] = avx2_encode_f16,
		[TC_CVT_BF16] = avx2_encode_bf16,
		[TC_CVT_I8] = avx2_encode_i8,
		[TC_CVT_U8] = avx2_encode_u8,
		[TC_CVT_I32] = avx2_encode_i32,
		[TC_CVT_I4] = avx2_encode_i4,
		[TC_CVT_U4] = avx2_encode_u4,
	},
	.affine = avx2_affine,
	.tr_encode = {
		[TC_CVT_F16] = tc_cvt_avx2_tr_f16,
		[TC_CVT_BF16] = tc_cvt_avx2_tr_bf16,
		[TC_CVT_I8] = tc_cvt_avx2_tr_i8,
		[TC_CVT_U8] = tc_cvt_avx2_tr_u8,
	},
};

#endif /* __x86_64__ */
