// SPDX-License-Identifier: MIT
/*
 * exec_avx512.c - AVX-512 (F, BW, VL) executor: 64-byte copies and fills
 * (non-temporal for large outputs), in-register transposes with four
 * 16-byte lanes stacked over rows (64x16 bytes, 32x8 16-bit, 16x4 32-bit,
 * 8x2 64-bit tiles), so every destination row of a tile is one 64-byte
 * store; narrower blocks use two lanes, then one. Edges are the same tiles
 * with masked loads and stores, never an element loop. Streamed
 * transposes into many destination rows 1 KiB or more apart go in macro
 * tiles (TC_DEFINE_MACRO_TILES: four-lane tiles into a 32 KB stage, bursts
 * of 4 lines per row; u8 and 16-bit source rows that crowd the L1 sets
 * take wide tiles of whole source lines instead). Whole zN/nZ
 * fractals (16x16 16-bit, 32x32 8-bit) are transposed in registers from
 * 64-byte loads; with VBMI, transposes of few rows (a C = 3 image to
 * NHWC) run a permute program. Shape analysis is in pattern.c.
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

/* ---- masked tiles: the edges ------------------------------------------------ */

/* Bytes [0, n) of a 16/32/64-byte vector, n <= its width. */
static inline __mmask16 avx512_m16(size_t n)
{
	return (__mmask16)((1u << n) - 1);
}

static inline __mmask32 avx512_m32(size_t n)
{
	return n >= 32 ? 0xffffffffu : (__mmask32)((1u << n) - 1);
}

static inline __mmask64 avx512_m64(size_t n)
{
	return n >= 64 ? ~0ull : (1ull << n) - 1;
}

/* Row @i of a lane, masked to @cm bytes, or zeros (no access) past @nr rows. */
static inline __m128i avx512_ldm(const char *src, size_t sld, size_t i,
				 size_t nr, __mmask16 cm)
{
	return i < nr ? _mm_maskz_loadu_epi8(cm, src + i * sld) : _mm_setzero_si128();
}

#define LDM1(s, sld, i, n, nr, cm)	avx512_ldm((s), (sld), (i), (nr), (cm))
#define LDM2(s, sld, i, n, nr, cm)					\
	_mm256_inserti128_si256(_mm256_castsi128_si256(			\
		avx512_ldm((s), (sld), (i), (nr), (cm))),		\
		avx512_ldm((s), (sld), (i) + (n), (nr), (cm)), 1)
static inline __m512i avx512_ldm4(const char *s, size_t sld, size_t i, size_t n,
				  size_t nr, __mmask16 cm)
{
	__m512i v = _mm512_castsi128_si512(avx512_ldm(s, sld, i, nr, cm));

	v = _mm512_inserti32x4(v, avx512_ldm(s, sld, i + n, nr, cm), 1);
	v = _mm512_inserti32x4(v, avx512_ldm(s, sld, i + 2 * n, nr, cm), 2);
	return _mm512_inserti32x4(v, avx512_ldm(s, sld, i + 3 * n, nr, cm), 3);
}
#define LDM4(s, sld, i, n, nr, cm)	avx512_ldm4((s), (sld), (i), (n), (nr), (cm))
#define STM1(p, v, b)	_mm_mask_storeu_epi8((p), avx512_m16(b), (v))
#define STM2(p, v, b)	_mm256_mask_storeu_epi8((p), avx512_m32(b), (v))
#define STM4(p, v, b)	_mm512_mask_storeu_epi8((p), avx512_m64(b), (v))

/*
 * A tile of @nr rows (up to L*n) x @nc cols (up to n): rows past @nr and
 * cols past @nc are neither read nor written.
 */
#define AVX512_TILE_M(fn, vec_t, n, es, LDM, STM, unlo, unhi)		\
static void fn(char *dst, size_t dld, const char *src, size_t sld,	\
	       size_t nr, size_t nc)					\
{									\
	__mmask16 cm = avx512_m16(nc * (es));				\
	vec_t r_[n];							\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (n); i_++)				\
		r_[i_] = LDM(src, sld, (size_t)i_, (n), nr, cm);	\
	TC_TILE_BODY(vec_t, n, unlo, unhi)				\
	for (size_t i_ = 0; i_ < nc; i_++)				\
		STM(dst + i_ * dld, r_[i_], nr * (es));			\
}
AVX512_TILE_M(avx512_tm1_l4, __m512i, 16, 1, LDM4, STM4, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
AVX512_TILE_M(avx512_tm2_l4, __m512i, 8, 2, LDM4, STM4, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16)
AVX512_TILE_M(avx512_tm4_l4, __m512i, 4, 4, LDM4, STM4, _mm512_unpacklo_epi32, _mm512_unpackhi_epi32)
AVX512_TILE_M(avx512_tm8_l4, __m512i, 2, 8, LDM4, STM4, _mm512_unpacklo_epi64, _mm512_unpackhi_epi64)
AVX512_TILE_M(avx512_tm1_l2, __m256i, 16, 1, LDM2, STM2, _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)
AVX512_TILE_M(avx512_tm2_l2, __m256i, 8, 2, LDM2, STM2, _mm256_unpacklo_epi16, _mm256_unpackhi_epi16)
AVX512_TILE_M(avx512_tm4_l2, __m256i, 4, 4, LDM2, STM2, _mm256_unpacklo_epi32, _mm256_unpackhi_epi32)
AVX512_TILE_M(avx512_tm8_l2, __m256i, 2, 8, LDM2, STM2, _mm256_unpacklo_epi64, _mm256_unpackhi_epi64)
AVX512_TILE_M(avx512_tm1_l1, __m128i, 16, 1, LDM1, STM1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
AVX512_TILE_M(avx512_tm2_l1, __m128i, 8, 2, LDM1, STM1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
AVX512_TILE_M(avx512_tm4_l1, __m128i, 4, 4, LDM1, STM1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
AVX512_TILE_M(avx512_tm8_l1, __m128i, 2, 8, LDM1, STM1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)

/* One 64-byte line from an aligned stage, streamed. */
static inline void avx512_line_nt(char *dst, const char *line)
{
	_mm512_stream_si512((void *)dst, _mm512_load_si512((const void *)line));
}

/*
 * A macro tile's last columns (fewer than a tile's n): masked four-lane
 * tiles down its rows, a multiple of 4 n.
 */
#define AVX512_MT_EDGE(es, n)						\
static void avx512_mt_edge##es(char *dst, size_t dld, const char *src,	\
			       size_t sld, size_t rows, size_t cols)	\
{									\
	for (size_t r_ = 0; r_ < rows; r_ += 4 * (n))			\
		avx512_tm##es##_l4(dst + r_ * (es), dld, src + r_ * sld, sld, \
				   rows - r_ < 4 * (n) ? rows - r_ : 4 * (n), cols); \
}

/*
 * Macro tiles (TC_DEFINE_MACRO_TILES): four-lane tiles write 64 bytes of
 * a destination row, a line, so a burst is 4 tiles stacked over rows.
 * Without them, streamed transposes into rows 1 KiB or more apart wrote
 * one line into each of many rows in turn (4096^2 f32 0.27x -> 0.60x the
 * limit on AMD Zen 5; docs/performance.md, "Macro tiles").
 */
#define AVX512_MT(es, n)						\
	AVX512_MT_EDGE(es, n)						\
	TC_DEFINE_MACRO_TILES(avx512_mt##es, avx512_tile##es##_l4, 4 * (n), n, \
			      es, 64, avx512_mt_edge##es, avx512_line_nt, \
			      tc_prefetch_l2)
AVX512_MT(1, 16)
AVX512_MT(2, 8)
AVX512_MT(4, 4)
AVX512_MT(8, 2)

/*
 * Wide register tiles for the macro tiles of 1- and 2-byte elements where
 * source rows are a multiple of 1 KiB (u8) or 4 KiB (16-bit) apart: @n
 * source rows x 64 bytes, one full-line load per row, and each of the four
 * lanes' in-lane transposes is 16 bytes of a destination row (4 @n rows).
 * The four-lane tiles read 16 bytes of 64 (32) rows at a time; at such
 * strides those rows share one to four L1 sets (12 ways on Zen 5), so each
 * source line was fetched four times. AMD EPYC Zen 5, one thread, builds
 * alternated: 8192^2 u8 10.4-11.5 -> 17.5-23.5 GB/s, NCHW -> NHWC u8 of
 * 8192 x 2048 pixels (2 KiB rows) 18.5 -> 27.7, f16 of 4096 x 4096 pixels
 * 24.3 -> 26.8-27.1. Elsewhere they tied or lost (docs/performance.md,
 * "Wide tiles"): u8 rows not a multiple of 1 KiB apart (8000^2), 16-bit
 * rows 2 or 3 KiB apart, f32 and f64 at any stride, where the narrow
 * tiles' rows fit the ways.
 */
#define AVX512_TILE_W(fn, n, unlo, unhi)				\
static inline __attribute__((always_inline)) void			\
fn(char *dst, size_t dld, const char *src, size_t sld)			\
{									\
	__m512i r_[n];							\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (n); i_++)				\
		r_[i_] = LD(src + i_ * sld);				\
	TC_TILE_BODY(__m512i, n, unlo, unhi)				\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (n); i_++) {				\
		ST1(dst + i_ * dld, _mm512_castsi512_si128(r_[i_]));	\
		ST1(dst + ((n) + i_) * dld,				\
		    _mm512_extracti32x4_epi32(r_[i_], 1));		\
		ST1(dst + (2 * (n) + i_) * dld,				\
		    _mm512_extracti32x4_epi32(r_[i_], 2));		\
		ST1(dst + (3 * (n) + i_) * dld,				\
		    _mm512_extracti32x4_epi32(r_[i_], 3));		\
	}								\
}

/* A wide macro tile's last columns (fewer than 4 @n): the masked edges. */
#define AVX512_MTW(es, n, unlo, unhi)					\
AVX512_TILE_W(avx512_tilew##es, n, unlo, unhi)				\
static void avx512_mtw_edge##es(char *dst, size_t dld, const char *src,	\
				size_t sld, size_t rows, size_t cols)	\
{									\
	for (size_t c = 0; c < cols; c += (n))				\
		avx512_mt_edge##es(dst + c * dld, dld, src + c * (es), sld, \
				   rows, cols - c < (n) ? cols - c : (n)); \
}									\
TC_DEFINE_MACRO_TILES(avx512_mtw##es, avx512_tilew##es, n, 4 * (n), es, \
		      16, avx512_mtw_edge##es, avx512_line_nt, tc_prefetch_l2)
AVX512_MTW(1, 16, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
AVX512_MTW(2, 8, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16)

/*
 * Source rows crowding the L1 sets: the wide tiles (1- and 2-byte only),
 * where at least one fits across (u8: 64 columns; the macro tiles take
 * blocks from 32, whose narrow tiles stream what the wide ones would
 * leave to the masked edges).
 */
#define AVX512_MT_PICK(es, sld, cols)					\
	((es) == 1 && !((sld) & 1023) && (cols) >= 64 ? avx512_mtw1 :	\
	 (es) == 2 && !((sld) & 4095) ? avx512_mtw2 : avx512_mt##es)

/*
 * Macro tiles where they apply, then bands of 4, 2 and 1 lanes (their
 * column edges masked), then the last rows (fewer than one lane's n) as
 * masked one-lane tiles.
 */
#define AVX512_TR(es, n)						\
static void avx512_tr##es(char *dst, size_t dld, const char *src,	\
			  size_t sld, size_t rows, size_t cols, int nt)	\
{									\
	size_t r = 0;							\
									\
	if (TC_MT_APPLIES(nt, dst, dld, rows, cols, es))		\
		r = AVX512_MT_PICK(es, sld, cols)(dst, dld, src, sld, rows, cols); \
	TC_BLOCK_BAND(avx512_tile##es##_l4, avx512_tile##es##_l4_nt,	\
		      4 * n, n, es, 64, avx512_tm##es##_l4)		\
	TC_BLOCK_BAND(avx512_tile##es##_l2, avx512_tile##es##_l2_nt,	\
		      2 * n, n, es, 32, avx512_tm##es##_l2)		\
	TC_BLOCK_BAND(avx512_tile##es##_l1, avx512_tile##es##_l1_nt,	\
		      n, n, es, 16, avx512_tm##es##_l1)		\
	if (r < rows)							\
		for (size_t c = 0; c < cols; c += n)			\
			avx512_tm##es##_l1(dst + c * dld + r * es, dld,	\
					   src + r * sld + c * es, sld,	\
					   rows - r, cols - c < n ? cols - c : n); \
}
AVX512_TR(1, 16)
AVX512_TR(2, 8)
AVX512_TR(4, 4)
AVX512_TR(8, 2)

/* ---- whole fractals ---------------------------------------------------------- */

/*
 * A B x B fractal of 32-byte rows (B = 16 for 16-bit, 32 for 8-bit) is
 * 2B/4 full vectors, two rows each. Lane shuffles regroup them so that
 * lane l of X[k] is row k (or 16 + k) of one of the four quarter blocks,
 * an in-lane transpose turns rows into columns, and lane shuffles put the
 * columns back together as destination rows: 64-byte loads and stores
 * only (a fractal is shorter than the 32-row 16-bit tile, which would run
 * it as two 256-bit halves).
 */
#define AVX512_FRACTAL(fn, B, unlo, unhi)				\
static void fn(char *dst, const char *src, int nt)			\
{									\
	__m512i in_[B / 2], r_[B / 2];					\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (B) / 2; i_++)				\
		in_[i_] = LD(src + 64 * i_);				\
	_Pragma("GCC unroll 16")					\
	for (int k_ = 0; k_ < (B) / 2; k_++)				\
		r_[k_] = (k_ & 1) ?					\
			_mm512_shuffle_i32x4(in_[k_ / 2], in_[(B) / 4 + k_ / 2], 0xee) : \
			_mm512_shuffle_i32x4(in_[k_ / 2], in_[(B) / 4 + k_ / 2], 0x44); \
	TC_TILE_BODY(__m512i, (B) / 2, unlo, unhi)			\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (B) / 2; i_++)				\
		in_[i_] = i_ < (B) / 4 ?				\
			_mm512_shuffle_i32x4(r_[2 * i_], r_[2 * i_ + 1], 0x88) : \
			_mm512_shuffle_i32x4(r_[2 * i_ - (B) / 2],	\
					     r_[2 * i_ - (B) / 2 + 1], 0xdd); \
	if (nt && !((uintptr_t)dst & 63)) {				\
		_Pragma("GCC unroll 16")				\
		for (int i_ = 0; i_ < (B) / 2; i_++)			\
			NT4(dst + 64 * i_, in_[i_]);			\
	} else {							\
		_Pragma("GCC unroll 16")				\
		for (int i_ = 0; i_ < (B) / 2; i_++)			\
			ST(dst + 64 * i_, in_[i_]);			\
	}								\
}
AVX512_FRACTAL(avx512_fractal1, 32, _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
AVX512_FRACTAL(avx512_fractal2, 16, _mm512_unpacklo_epi16, _mm512_unpackhi_epi16)

/* ---- few rows: a permute program (VBMI) ------------------------------------- */

/*
 * Byte permutes over 64-byte vectors (struct tc_fr_plan): the first two
 * rows of an output with one vpermt2b, every further row with a masked
 * vpermb, the pattern with a masked move. For C = 3 f32: 3 loads,
 * 6 permutes, 3 stores per 16 pixels.
 */
static int avx512_has_vbmi(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512vbmi");
}

static int avx512_fr_prepare(void *prog, size_t rows, unsigned es, size_t dld,
			     size_t pad, const unsigned char pat[64])
{
	if (!avx512_has_vbmi())
		return -1;
	return tc_fr_build(prog, 64, 1, rows, es, dld, pad, pat);
}

/*
 * One instance per row count R, so the R row vectors stay in registers
 * and an output is straight-line code: R - 1 permutes (rows 0 and 1 share
 * a vpermt2b), a masked move for the pattern, a store.
 */
#define AVX512_FR_OUT(R)						\
	({								\
		__m512i a_ = (R) > 1 ?					\
			_mm512_permutex2var_epi8(v[0], LD(p->idx[t][0]), v[(R) > 1]) : \
			_mm512_permutexvar_epi8(LD(p->idx[t][0]), v[0]); \
		_Pragma("GCC unroll 8")					\
		for (int r_ = 2; r_ < (R); r_++)			\
			a_ = _mm512_mask_permutexvar_epi8(a_, p->k[t][r_], \
							  LD(p->idx[t][r_]), v[r_]); \
		if (p->patk[t])						\
			a_ = _mm512_mask_mov_epi8(a_, p->patk[t], LD(p->patv[t])); \
		a_;							\
	})

#define AVX512_FR_RUN(R)						\
__attribute__((target("avx512vbmi")))					\
static void avx512_fr_run##R(const struct tc_fr_plan *p, char *dst,	\
			     const char *src, size_t sld, size_t cols, int nt) \
{									\
	size_t c = 0, S = p->per, T = p->T, t;				\
	__m512i v[R];							\
									\
	nt = nt && !p->gaps && !((uintptr_t)dst & 63);			\
	for (; c + S <= cols; c += S) {					\
		_Pragma("GCC unroll 8")					\
		for (int r = 0; r < (R); r++)				\
			v[r] = LD(src + r * sld + c * p->es);		\
		for (t = 0; t < T; t++, dst += 64) {			\
			__m512i acc = AVX512_FR_OUT(R);			\
									\
			if (p->gaps)					\
				_mm512_mask_storeu_epi8(dst, p->storek[t], acc); \
			else if (nt)					\
				NT4(dst, acc);				\
			else						\
				ST(dst, acc);				\
		}							\
	}								\
	if (c < cols) {		/* the last span, masked at both ends */ \
		__mmask64 lm = avx512_m64((cols - c) * p->es);		\
		size_t left = (cols - c) * p->dld;			\
									\
		for (int r = 0; r < (R); r++)				\
			v[r] = _mm512_maskz_loadu_epi8(lm, src + r * sld + c * p->es); \
		for (t = 0; t * 64 < left; t++, dst += 64)		\
			_mm512_mask_storeu_epi8(dst, p->storek[t] &	\
						avx512_m64(left - t * 64), \
						AVX512_FR_OUT(R));	\
	}								\
}
AVX512_FR_RUN(1)
AVX512_FR_RUN(2)
AVX512_FR_RUN(3)
AVX512_FR_RUN(4)
AVX512_FR_RUN(5)
AVX512_FR_RUN(6)
AVX512_FR_RUN(7)
AVX512_FR_RUN(8)

/*
 * Dense rows (no pad, no gap: T == R), R <= 4: all R x R tables and masks
 * in registers for the whole run (C = 3 f32: 3 loads, 3 vpermt2b,
 * 3 masked vpermb, 3 stores per 16 pixels and nothing else).
 */
#define AVX512_FR_DENSE(R)						\
__attribute__((target("avx512vbmi")))					\
static void avx512_fr_dense##R(const struct tc_fr_plan *p, char *dst,	\
			       const char *src, size_t sld, size_t cols, int nt) \
{									\
	__m512i ix[R][R], v[R], o[R];					\
	__mmask64 k[R][R];						\
	size_t c = 0, S = p->per;					\
									\
	for (int t = 0; t < (R); t++)					\
		for (int r = 0; r < (R); r++) {				\
			ix[t][r] = LD(p->idx[t][r]);			\
			k[t][r] = p->k[t][r];				\
		}							\
	nt = nt && !((uintptr_t)dst & 63);				\
	for (; c + S <= cols; c += S, dst += 64 * (R)) {		\
		_Pragma("GCC unroll 4")					\
		for (int r = 0; r < (R); r++)				\
			v[r] = LD(src + r * sld + c * p->es);		\
		_Pragma("GCC unroll 4")					\
		for (int t = 0; t < (R); t++) {				\
			o[t] = _mm512_permutex2var_epi8(v[0], ix[t][0], v[1]); \
			_Pragma("GCC unroll 4")				\
			for (int r = 2; r < (R); r++)			\
				o[t] = _mm512_mask_permutexvar_epi8(o[t], k[t][r], \
								    ix[t][r], v[r]); \
		}							\
		if (nt) {						\
			_Pragma("GCC unroll 4")				\
			for (int t = 0; t < (R); t++)			\
				NT4(dst + 64 * t, o[t]);		\
		} else {						\
			_Pragma("GCC unroll 4")				\
			for (int t = 0; t < (R); t++)			\
				ST(dst + 64 * t, o[t]);			\
		}							\
	}								\
	if (c < cols)							\
		avx512_fr_run##R(p, dst, src + c * p->es, sld, cols - c, 0); \
}
AVX512_FR_DENSE(2)
AVX512_FR_DENSE(3)
AVX512_FR_DENSE(4)

static void avx512_fr_run(const void *prog, char *dst, const char *src,
			  size_t sld, size_t cols, int nt)
{
	static void (*const dense[5])(const struct tc_fr_plan *, char *,
				      const char *, size_t, size_t, int) = {
		NULL, NULL, avx512_fr_dense2, avx512_fr_dense3, avx512_fr_dense4,
	};
	static void (*const run[TC_FR_MAXROWS])(const struct tc_fr_plan *, char *,
						  const char *, size_t, size_t, int) = {
		avx512_fr_run1, avx512_fr_run2, avx512_fr_run3, avx512_fr_run4,
		avx512_fr_run5, avx512_fr_run6, avx512_fr_run7, avx512_fr_run8,
	};
	const struct tc_fr_plan *p = prog;

	if (p->T == p->rows && p->rows >= 2 && p->rows <= 4 && !p->gaps)
		dense[p->rows](p, dst, src, sld, cols, nt);
	else
		run[p->rows - 1](p, dst, src, sld, cols, nt);
}

/* ---- copies and fills ----------------------------------------------------------- */

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
	if (run < 64) {		/* one masked load and store per run */
		__mmask64 m = avx512_m64(run);

		for (size_t i = 0; i < count; i++)
			_mm512_mask_storeu_epi8(dst + i * dld, m,
						_mm512_maskz_loadu_epi8(m, src + i * sld));
		return;
	}
	for (size_t i = 0; i < count; i++)
		avx512_copy(dst + i * dld, src + i * sld, run, nt);
}

/* struct tc_kernels' @runs_pairs: lanes 0-1 of both rows, then lanes 2-3. */
static void avx512_runs_pairs(char *dst, size_t dld, const char *src,
			      size_t sld, size_t rows, size_t cols, int nt)
{
	int st = nt && !(((uintptr_t)dst | dld) & 63);

	for (size_t c = 0; c < cols; c += 2)
		for (size_t r = 0; r < rows; r += 2) {
			const char *s = src + r * sld + c * 32;
			__m512i a = LD(s), b = LD(s + sld);

			TC_RUNS_PAIRS_PREFETCH(s, sld);
			__m512i lo = _mm512_shuffle_i64x2(a, b, 0x44);
			__m512i hi = _mm512_shuffle_i64x2(a, b, 0xee);
			char *d = dst + c * dld + r * 32;

			if (st) {
				NT4(d, lo);
				NT4(d + dld, hi);
			} else {
				ST(d, lo);
				ST(d + dld, hi);
			}
		}
}

/*
 * int4 NCHW -> NCHW64 (struct tc_kernels' @tr_split4). The byte tiles'
 * destination rows are the channels of two pixels (pixel 2c in each
 * byte's low nibble, 2c + 1 in its high one), split here in the register
 * before the store: 32 words w, the first pixel's byte is w's bits 0-3
 * and 8-11, the second's bits 4-7 and 12-15; a select under 0x0f
 * (vpternlogd) merges w with w >> 4, or w >> 4 with w >> 8, and vpmovwb
 * keeps each word's low byte. Split in a second pass over a stage, the
 * stores went out 16 bytes at a time and cost more than the transpose
 * (docs/performance.md, "int4 in one pass").
 */
static inline void avx512_split4(__m512i w, __m256i *lo, __m256i *hi)
{
	const __m512i m = _mm512_set1_epi16(0x0f);
	__m512i t = _mm512_srli_epi16(w, 4), u = _mm512_srli_epi16(w, 8);

	*lo = _mm512_cvtepi16_epi8(_mm512_ternarylogic_epi32(m, w, t, 0xca));
	*hi = _mm512_cvtepi16_epi8(_mm512_ternarylogic_epi32(m, t, u, 0xca));
}

/* 64 channels of two pixels as their two 32-byte rows, one line. */
static inline __m512i avx512_split4_line(__m512i v)
{
	__m256i lo, hi;

	avx512_split4(v, &lo, &hi);
	return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
#define ST_SPLIT4(p, v)		ST((p), avx512_split4_line(v))
#define NT_SPLIT4(p, v)		NT4((p), avx512_split4_line(v))
TC_DEFINE_TILE(avx512_tile_split4, __m512i, 16, LD4, ST_SPLIT4,
	       _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)
TC_DEFINE_TILE(avx512_tile_split4_nt, __m512i, 16, LD4, NT_SPLIT4,
	       _mm512_unpacklo_epi8, _mm512_unpackhi_epi8)

/* 32 channels of two pixels (a two-lane tile's row) as their two 16-byte rows. */
static inline __m256i avx512_split4_half(__m256i w)
{
	const __m256i m = _mm256_set1_epi16(0x0f);
	__m256i t = _mm256_srli_epi16(w, 4), u = _mm256_srli_epi16(w, 8);
	__m128i lo = _mm256_cvtepi16_epi8(_mm256_ternarylogic_epi32(m, w, t, 0xca));
	__m128i hi = _mm256_cvtepi16_epi8(_mm256_ternarylogic_epi32(m, t, u, 0xca));

	return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
#define ST_SPLIT4_HALF(p, v)	ST2((p), avx512_split4_half(v))
TC_DEFINE_TILE(avx512_tile_split4_32, __m256i, 16, LD2, ST_SPLIT4_HALF,
	       _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)

/*
 * Columns [@c, @cols) of any tile: masked byte tiles of 16 columns into a
 * stage, each stage row split into the two pixels' @rows / 2 bytes.
 */
static void avx512_tr_split4_staged(char *dst, size_t dld, const char *src, size_t sld,
				    size_t rows, size_t c, size_t cols)
{
	/*
	 * Stage bytes past @rows are split into bytes the masks drop: zeroed
	 * only so that memory checkers see no uninitialised reads.
	 */
	char stage[16 * 64] __attribute__((aligned(64))) = { 0 };
	__mmask32 m = (__mmask32)avx512_m64(rows / 2);
	__m256i lo, hi;

	for (; c < cols; c += 16) {
		size_t n = cols - c < 16 ? cols - c : 16;

		avx512_tm1_l4(stage, 64, src + c, sld, rows, n);
		for (size_t i = 0; i < n; i++) {
			char *d = dst + 2 * (c + i) * dld;

			avx512_split4(_mm512_load_si512((const void *)(stage + i * 64)), &lo, &hi);
			_mm256_mask_storeu_epi8(d, m, lo);
			_mm256_mask_storeu_epi8(d + dld, m, hi);
		}
	}
}

/*
 * 64 channels whose pixels lie back to back (dld 32: each column two
 * pixels, one line) go through whole register tiles, streamed when @nt
 * and on the lines; 32 channels so (NCHW32: dld 16, a column 32 bytes)
 * through two-lane tiles (32x64x56x56 i4 NCHW -> NCHW32: 0.27-0.38 ms
 * staged, 0.15-0.17 so); other tiles and the last columns through the
 * stage.
 */
static int avx512_tr_split4(char *dst, size_t dld, const char *src, size_t sld,
			    size_t rows, size_t cols, int nt)
{
	size_t c = 0;

	if (rows == 64 && dld == 32) {
		int st = nt && !((uintptr_t)dst & 63);

		for (; c + 16 <= cols; c += 16)
			if (st)
				avx512_tile_split4_nt(dst + c * 64, 64, src + c, sld);
			else
				avx512_tile_split4(dst + c * 64, 64, src + c, sld);
	} else if (rows == 32 && dld == 16) {
		for (; c + 16 <= cols; c += 16)
			avx512_tile_split4_32(dst + c * 32, 32, src + c, sld);
	}
	if (c < cols)
		avx512_tr_split4_staged(dst, dld, src, sld, rows, c, cols);
	return 1;
}

static void avx512_fill(char *dst, const unsigned char pat[64], size_t n, int nt)
{
	unsigned char rot[64];
	__m512i a;
	size_t i = 0;

	if (n < 64) {
		_mm512_mask_storeu_epi8(dst, avx512_m64(n), LD(pat));
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
	.name = "avx512",
	.copy = avx512_copy,
	.fill = avx512_fill,
	.runs = avx512_runs,
	.transpose = { avx512_tr1, avx512_tr2, avx512_tr4, avx512_tr8 },
	.fr_prepare = avx512_fr_prepare,
	.fr_run = avx512_fr_run,
	.fractal = { avx512_fractal1, avx512_fractal2, NULL, NULL },
	.runs_pairs = avx512_runs_pairs,
	.tr_split4 = avx512_tr_split4,
	.sfence = avx512_sfence,
};

TC_DEFINE_EXEC(avx512_exec, avx512_kernels)

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
	.exec_scales = avx512_exec_scales,
	.direct = avx512_exec_direct,
};
