// SPDX-License-Identifier: MIT
/*
 * exec_avx512.c - AVX-512 (F, BW, VL) executor: 64-byte copies and fills
 * (non-temporal for large outputs), in-register transposes with four
 * 16-byte lanes stacked over rows (64x16 bytes, 32x8 16-bit, 16x4 32-bit,
 * 8x2 64-bit tiles), so every destination row of a tile is one 64-byte
 * store; narrower blocks use two lanes, then one. Shape analysis is in
 * pattern.c.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <immintrin.h>
#include <string.h>

#include "cpu/exec_isa.h"
#include "cpu/pattern.h"

#define LD1(p, step)	_mm_loadu_si128((const __m128i *)(p))
#define ST1(p, v)	_mm_storeu_si128((__m128i *)(p), (v))
#define LD2(p, step)							\
	_mm256_inserti128_si256(_mm256_castsi128_si256(LD1((p), 0)),	\
				LD1((p) + (step), 0), 1)
#define ST2(p, v)	_mm256_storeu_si256((__m256i *)(p), (v))
#define LD(p)		_mm512_loadu_si512((const void *)(p))
#define ST(p, v)	_mm512_storeu_si512((void *)(p), (v))
#define NT1(p, v)	_mm_stream_si128((__m128i *)(p), (v))
#define NT2(p, v)	_mm256_stream_si256((__m256i *)(p), (v))
#define NT4(p, v)	_mm512_stream_si512((void *)(p), (v))
#define LDV1(p)		LD1((p), 0)
#define LDV2(p)		_mm256_loadu_si256((const __m256i *)(p))

static inline __attribute__((always_inline)) __m512i
avx512_ld4(const char *p, size_t step)
{
	__m512i v = _mm512_castsi128_si512(LD1(p, 0));

	v = _mm512_inserti32x4(v, LD1(p + step, 0), 1);
	v = _mm512_inserti32x4(v, LD1(p + 2 * step, 0), 2);
	return _mm512_inserti32x4(v, LD1(p + 3 * step, 0), 3);
}
#define LD4(p, step)	avx512_ld4((p), (step))

TC_DEFINE_TILE(avx512_tile1_l4, __m512i, 16, LD4, ST, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile1_l4_nt, __m512i, 16, LD4, NT4, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile2_l4, __m512i, 8, LD4, ST, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile2_l4_nt, __m512i, 8, LD4, NT4, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile4_l4, __m512i, 4, LD4, ST, _mm512_unpacklo_epi32, _mm512_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile4_l4_nt, __m512i, 4, LD4, NT4, _mm512_unpacklo_epi32, _mm512_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile8_l4, __m512i, 2, LD4, ST, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64)
TC_DEFINE_TILE(avx512_tile8_l4_nt, __m512i, 2, LD4, NT4, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64)
TC_DEFINE_TILE(avx512_tile1_l2, __m256i, 16, LD2, ST2, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile1_l2_nt, __m256i, 16, LD2, NT2, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile2_l2, __m256i, 8, LD2, ST2, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile2_l2_nt, __m256i, 8, LD2, NT2, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile4_l2, __m256i, 4, LD2, ST2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile4_l2_nt, __m256i, 4, LD2, NT2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile8_l2, __m256i, 2, LD2, ST2, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
TC_DEFINE_TILE(avx512_tile8_l2_nt, __m256i, 2, LD2, NT2, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
TC_DEFINE_TILE(avx512_tile1_l1, __m128i, 16, LD1, ST1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile1_l1_nt, __m128i, 16, LD1, NT1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile2_l1, __m128i, 8, LD1, ST1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile2_l1_nt, __m128i, 8, LD1, NT1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(avx512_tile4_l1, __m128i, 4, LD1, ST1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile4_l1_nt, __m128i, 4, LD1, NT1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(avx512_tile8_l1, __m128i, 2, LD1, ST1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)
TC_DEFINE_TILE(avx512_tile8_l1_nt, __m128i, 2, LD1, NT1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)

#define AVX512_TR(es, n)						\
static void avx512_tr##es(char *dst, size_t dld, const char *src,	\
			  size_t sld, size_t rows, size_t cols, int nt)	\
{									\
	size_t r = 0;							\
	TC_BLOCK_BAND(avx512_tile##es##_l4, avx512_tile##es##_l4_nt,	\
		      4 * n, n, es, 64)					\
	TC_BLOCK_BAND(avx512_tile##es##_l2, avx512_tile##es##_l2_nt,	\
		      2 * n, n, es, 32)					\
	TC_BLOCK_BAND(avx512_tile##es##_l1, avx512_tile##es##_l1_nt,	\
		      n, n, es, 16)					\
	if (r < rows)							\
		tc_transpose_scalar(dst + r * es, dld, src + r * sld, sld, \
				    rows - r, cols, es);		\
}
AVX512_TR(1, 16)
AVX512_TR(2, 8)
AVX512_TR(4, 4)
AVX512_TR(8, 2)

static void avx512_copy(char *dst, const char *src, size_t n, int nt)
{
	__m512i a, b, c, d;

	if (n < 256) {
		memcpy(dst, src, n);
		return;
	}
	if (nt) {
		size_t head = (64 - ((uintptr_t)dst & 63)) & 63;

		ST(dst, LD(src));
		dst += head, src += head, n -= head;
		for (; n >= 256; n -= 256, dst += 256, src += 256) {
			a = LD(src), b = LD(src + 64);
			c = LD(src + 128), d = LD(src + 192);
			_mm512_stream_si512((void *)dst, a);
			_mm512_stream_si512((void *)(dst + 64), b);
			_mm512_stream_si512((void *)(dst + 128), c);
			_mm512_stream_si512((void *)(dst + 192), d);
		}
	} else {
		for (; n >= 256; n -= 256, dst += 256, src += 256) {
			a = LD(src), b = LD(src + 64);
			c = LD(src + 128), d = LD(src + 192);
			ST(dst, a), ST(dst + 64, b);
			ST(dst + 128, c), ST(dst + 192, d);
		}
	}
	for (; n >= 64; n -= 64, dst += 64, src += 64)
		ST(dst, LD(src));
	if (n)
		ST(dst + n - 64, LD(src + n - 64));
}

static void avx512_runs(char *dst, size_t dld, const char *src, size_t sld,
			size_t run, size_t count, int nt)
{
	TC_RUNS_VEC(64, LD, ST, NT4)
	TC_RUNS_VEC(32, LDV2, ST2, NT2)
	TC_RUNS_VEC(16, LDV1, ST1, NT1)
	for (size_t i = 0; i < count; i++)
		avx512_copy(dst + i * dld, src + i * sld, run, nt);
}

static void avx512_fill(char *dst, const unsigned char pat[64], size_t n, int nt)
{
	unsigned char rot[64];
	__m512i a;
	size_t i = 0;

	if (n < 64) {
		memcpy(dst, pat, n);
		return;
	}
	if (nt) {
		size_t head = (64 - ((uintptr_t)dst & 63)) & 63;

		ST(dst, LD(pat));
		tc_pat_rotate(rot, pat, head);
		a = LD(rot);
		for (i = head; i + 64 <= n; i += 64)
			_mm512_stream_si512((void *)(dst + i), a);
	} else {
		a = LD(pat);
		for (; i + 64 <= n; i += 64)
			ST(dst + i, a);
	}
	if (i < n) {
		tc_pat_rotate(rot, pat, n - 64);
		ST(dst + n - 64, LD(rot));
	}
}

static void avx512_sfence(void)
{
	_mm_sfence();
}

static const struct tc_kernels avx512_kernels = {
	.copy = avx512_copy,
	.fill = avx512_fill,
	.runs = avx512_runs,
	.transpose = { avx512_tr1, avx512_tr2, avx512_tr4, avx512_tr8 },
	.sfence = avx512_sfence,
};

static int avx512_exec(const struct drm_tilecopy_desc *descs, size_t n,
		       const void *src, void *dst)
{
	return tc_exec_kernels(&avx512_kernels, descs, n, src, dst);
}

static int avx512_available(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") &&
	       __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl");
}

const struct tc_cpu_backend tc_backend_avx512 = {
	.name = "avx512",
	.available = avx512_available,
	.exec = avx512_exec,
};
