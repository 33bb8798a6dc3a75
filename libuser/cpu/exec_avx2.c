// SPDX-License-Identifier: MIT
/*
 * exec_avx2.c - AVX2 executor: 32-byte copies and fills (non-temporal for
 * large outputs), in-register transposes with two 16-byte lanes stacked
 * over rows (32x16 bytes, 16x8 16-bit, 8x4 32-bit, 4x2 64-bit tiles), so
 * every destination row of a tile is one 32-byte store. Narrow blocks fall
 * back to one lane; edges are typed element loops. Few rows of 32/64-bit
 * elements (a C = 3 f32 image) run a vpermd program. Shape analysis is in
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
#define LD(p)		_mm256_loadu_si256((const __m256i *)(p))
#define ST(p, v)	_mm256_storeu_si256((__m256i *)(p), (v))
#define NT1(p, v)	_mm_stream_si128((__m128i *)(p), (v))
#define NT2(p, v)	_mm256_stream_si256((__m256i *)(p), (v))
#define LDV1(p)		LD1((p), 0)
#define LD2(p, step)							\
	_mm256_inserti128_si256(_mm256_castsi128_si256(LD1((p), 0)),	\
				LD1((p) + (step), 0), 1)

TC_DEFINE_TILE(avx2_tile1_l2, __m256i, 16, LD2, ST, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
TC_DEFINE_TILE(avx2_tile1_l2_nt, __m256i, 16, LD2, NT2, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
TC_DEFINE_TILE(avx2_tile2_l2, __m256i, 8, LD2, ST, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
TC_DEFINE_TILE(avx2_tile2_l2_nt, __m256i, 8, LD2, NT2, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
TC_DEFINE_TILE(avx2_tile4_l2, __m256i, 4, LD2, ST, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
TC_DEFINE_TILE(avx2_tile4_l2_nt, __m256i, 4, LD2, NT2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
TC_DEFINE_TILE(avx2_tile8_l2, __m256i, 2, LD2, ST, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
TC_DEFINE_TILE(avx2_tile8_l2_nt, __m256i, 2, LD2, NT2, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
TC_DEFINE_TILE(avx2_tile1_l1, __m128i, 16, LD1, ST1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(avx2_tile1_l1_nt, __m128i, 16, LD1, NT1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(avx2_tile2_l1, __m128i, 8, LD1, ST1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(avx2_tile2_l1_nt, __m128i, 8, LD1, NT1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(avx2_tile4_l1, __m128i, 4, LD1, ST1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(avx2_tile4_l1_nt, __m128i, 4, LD1, NT1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(avx2_tile8_l1, __m128i, 2, LD1, ST1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)
TC_DEFINE_TILE(avx2_tile8_l1_nt, __m128i, 2, LD1, NT1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)

#define AVX2_TR(es, n)							\
static void avx2_tr##es(char *dst, size_t dld, const char *src,	\
			size_t sld, size_t rows, size_t cols, int nt)	\
{									\
	size_t r = 0;							\
	TC_BLOCK_BAND(avx2_tile##es##_l2, avx2_tile##es##_l2_nt,	\
		      2 * n, n, es, 32, tc_edge##es)	\
	TC_BLOCK_BAND(avx2_tile##es##_l1, avx2_tile##es##_l1_nt,	\
		      n, n, es, 16, tc_edge##es)	\
	if (r < rows)							\
		tc_edge##es(dst + r * es, dld, src + r * sld, sld,	\
			    rows - r, cols);				\
}
AVX2_TR(1, 16)
AVX2_TR(2, 8)
AVX2_TR(4, 4)
AVX2_TR(8, 2)

/*
 * Few rows of 32- and 64-bit elements (struct tc_fr_plan): vpermd of each
 * source row an output touches, merged by byte blends. The plan's 64-byte
 * index slot of an op holds 8 dword indices then the 8-dword blend mask;
 * a pattern slot the pattern then its blend mask.
 */
static void avx2_fr_masks(uint8_t slot[64], const uint8_t *units, uint64_t bits,
			  int idx)
{
	int32_t v[16];

	for (int u = 0; u < 8; u++) {
		int32_t w;

		memcpy(&w, units + 4 * u, 4);
		v[u] = idx ? units[u] : w;
		v[8 + u] = (bits >> u & 1) ? -1 : 0;
	}
	memcpy(slot, v, 64);
}

static int avx2_fr_prepare(void *prog, size_t rows, unsigned es, size_t dld,
			   size_t pad, const unsigned char pat[64])
{
	struct tc_fr_plan *p = prog;

	if (es < 4 || tc_fr_build(p, 32, 4, 0, rows, es, dld, pad, pat) || p->gaps)
		return -1;
	for (size_t t = 0; t < p->T; t++) {
		for (size_t r = 0; r < rows; r++)
			avx2_fr_masks(p->idx[t][r], p->idx[t][r], p->k[t][r], 1);
		avx2_fr_masks(p->patv[t], p->patv[t], p->patk[t], 0);
	}
	return 0;
}

/* One instance per row count: the row vectors stay in registers. */
#define AVX2_FR_RUN(R)							\
static void avx2_fr_run##R(const struct tc_fr_plan *p, char *dst,	\
			   const char *src, size_t sld, size_t cols, int nt) \
{									\
	size_t c = 0, S = p->per, T = p->T, t;				\
	__m256i v[R];							\
									\
	nt = nt && !((uintptr_t)dst & 31);				\
	for (; c + S <= cols; c += S) {					\
		_Pragma("GCC unroll 8")					\
		for (int r = 0; r < (R); r++)				\
			v[r] = LD(src + r * sld + c * p->es);		\
		for (t = 0; t < T; t++, dst += 32) {			\
			__m256i acc = _mm256_permutevar8x32_epi32(v[0], LD(p->idx[t][0])); \
									\
			_Pragma("GCC unroll 8")				\
			for (int r = 1; r < (R); r++)			\
				acc = _mm256_blendv_epi8(acc,		\
					_mm256_permutevar8x32_epi32(v[r], LD(p->idx[t][r])), \
					LD(p->idx[t][r] + 32));		\
			if (p->patk[t])					\
				acc = _mm256_blendv_epi8(acc, LD(p->patv[t]),	\
							 LD(p->patv[t] + 32));	\
			if (nt)						\
				_mm256_stream_si256((__m256i *)dst, acc); \
			else						\
				ST(dst, acc);				\
		}							\
	}								\
	if (c < cols)							\
		tc_fr_tail(dst, p->dld, src + c * p->es, sld, p->rows, cols - c, \
			   p->es, p->pad, p->pat);			\
}
AVX2_FR_RUN(1)
AVX2_FR_RUN(2)
AVX2_FR_RUN(3)
AVX2_FR_RUN(4)
AVX2_FR_RUN(5)
AVX2_FR_RUN(6)
AVX2_FR_RUN(7)
AVX2_FR_RUN(8)

static void avx2_fr_run(const void *prog, char *dst, const char *src,
			size_t sld, size_t cols, int nt)
{
	static void (*const run[TC_FR_MAXROWS])(const struct tc_fr_plan *, char *,
						  const char *, size_t, size_t, int) = {
		avx2_fr_run1, avx2_fr_run2, avx2_fr_run3, avx2_fr_run4,
		avx2_fr_run5, avx2_fr_run6, avx2_fr_run7, avx2_fr_run8,
	};
	const struct tc_fr_plan *p = prog;

	run[p->rows - 1](p, dst, src, sld, cols, nt);
}

static void avx2_copy(char *dst, const char *src, size_t n, int nt)
{
	__m256i a, b, c, d;

	if (n < 256) {
		memcpy(dst, src, n);
		return;
	}
	if (nt) {
		size_t head = (32 - ((uintptr_t)dst & 31)) & 31;

		ST(dst, LD(src));
		dst += head, src += head, n -= head;
		for (; n >= 128; n -= 128, dst += 128, src += 128) {
			a = LD(src), b = LD(src + 32);
			c = LD(src + 64), d = LD(src + 96);
			_mm256_stream_si256((__m256i *)dst, a);
			_mm256_stream_si256((__m256i *)(dst + 32), b);
			_mm256_stream_si256((__m256i *)(dst + 64), c);
			_mm256_stream_si256((__m256i *)(dst + 96), d);
		}
	} else {
		for (; n >= 128; n -= 128, dst += 128, src += 128) {
			a = LD(src), b = LD(src + 32);
			c = LD(src + 64), d = LD(src + 96);
			ST(dst, a), ST(dst + 32, b);
			ST(dst + 64, c), ST(dst + 96, d);
		}
	}
	for (; n >= 32; n -= 32, dst += 32, src += 32)
		ST(dst, LD(src));
	if (n)
		ST(dst + n - 32, LD(src + n - 32));
}

static void avx2_runs(char *dst, size_t dld, const char *src, size_t sld,
		      size_t run, size_t count, int nt)
{
	TC_RUNS_VEC(32, LD, ST, NT2)
	TC_RUNS_VEC(16, LDV1, ST1, NT1)
	for (size_t i = 0; i < count; i++)
		avx2_copy(dst + i * dld, src + i * sld, run, nt);
}

static void avx2_fill(char *dst, const unsigned char pat[64], size_t n, int nt)
{
	unsigned char rot[64];
	__m256i a, b;
	size_t i = 0;

	if (n < 64) {
		memcpy(dst, pat, n);
		return;
	}
	if (nt) {
		size_t head = (32 - ((uintptr_t)dst & 31)) & 31;

		ST(dst, LD(pat));
		tc_pat_rotate(rot, pat, head);
		a = LD(rot), b = LD(rot + 32);
		for (i = head; i + 64 <= n; i += 64) {
			_mm256_stream_si256((__m256i *)(dst + i), a);
			_mm256_stream_si256((__m256i *)(dst + i + 32), b);
		}
	} else {
		a = LD(pat), b = LD(pat + 32);
		for (; i + 64 <= n; i += 64)
			ST(dst + i, a), ST(dst + i + 32, b);
	}
	if (i < n) {
		tc_pat_rotate(rot, pat, n - 64);
		ST(dst + n - 64, LD(rot));
		ST(dst + n - 32, LD(rot + 32));
	}
}

static void avx2_sfence(void)
{
	_mm_sfence();
}

static const struct tc_kernels avx2_kernels = {
	.name = "avx2",
	.copy = avx2_copy,
	.fill = avx2_fill,
	.runs = avx2_runs,
	.transpose = { avx2_tr1, avx2_tr2, avx2_tr4, avx2_tr8 },
	.fr_prepare = avx2_fr_prepare,
	.fr_run = avx2_fr_run,
	.sfence = avx2_sfence,
};

TC_DEFINE_EXEC(avx2_exec, avx2_kernels)

static int avx2_available(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

const struct tc_cpu_backend tc_backend_avx2 = {
	.name = "avx2",
	.available = avx2_available,
	.exec = avx2_exec,
	.exec_scales = avx2_exec_scales,
};
