// SPDX-License-Identifier: MIT
/*
 * exec_avx2.c - AVX2 executor: 32-byte copies and fills (non-temporal for
 * large outputs), in-register transposes with two 16-byte lanes stacked
 * over rows (32x16 bytes, 16x8 16-bit, 8x4 32-bit, 4x2 64-bit tiles), so
 * every destination row of a tile is one 32-byte store. Narrow blocks fall
 * back to one lane; edges are typed element loops. Streamed tiles of 8-
 * and 16-bit elements fill their lines in a stack buffer first; streamed
 * u8 transposes into aligned lines go in 64 x 64 squares where source rows
 * are a multiple of 1 KiB apart; many destination rows 1 KiB or more
 * apart go in macro tiles (TC_DEFINE_MACRO_TILES: bursts of 4 lines per
 * row from a 32 KB stage). Few rows (a C = 3 image, any element size) run
 * a pshufb program; whole zN <-> nZ fractals run their two tiles with
 * constant strides. Shape analysis is in pattern.c.
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

/*
 * The 8-bit tile again (32 rows x 16 bytes, rows i and 16 + i in one
 * register), for whole fractals (1 KB, contiguous): it pairs registers 1,
 * 2, 4 apart within each half of 8, then the halves, so the first half's
 * 8 results wait while the second half's 8 rows go through (AVX2 has 16
 * registers). TC_TILE_BODY's order pairs registers 8 apart first: every
 * round has all 16 live plus temporaries. Both spill; this one about 25
 * stack accesses a tile against 70. In L2, zN -> nZ i8 256^2 47 -> 60
 * GB/s; 4096^2 0.67-0.71x -> 0.75-0.82x the limit (three alternated
 * runs). In the macro tiles (8000^2 u8) the tile above, whose 32 loads
 * all go first, stayed ahead (9.2-10.8 against 7.7-10.0 GB/s).
 */
static inline __attribute__((always_inline)) void
avx2_t8_half(__m256i c[8], const char *src, size_t sld)
{
	__m256i r[8], a[8], b[8];

	_Pragma("GCC unroll 8")
	for (int i = 0; i < 8; i++)
		r[i] = LD2(src + i * sld, 16 * sld);
	_Pragma("GCC unroll 4")
	for (int k = 0; k < 4; k++) {
		a[2 * k] = _mm256_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
		a[2 * k + 1] = _mm256_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
	}
	_Pragma("GCC unroll 2")
	for (int m = 0; m < 2; m++) {
		b[4 * m] = _mm256_unpacklo_epi16(a[4 * m], a[4 * m + 2]);
		b[4 * m + 1] = _mm256_unpackhi_epi16(a[4 * m], a[4 * m + 2]);
		b[4 * m + 2] = _mm256_unpacklo_epi16(a[4 * m + 1], a[4 * m + 3]);
		b[4 * m + 3] = _mm256_unpackhi_epi16(a[4 * m + 1], a[4 * m + 3]);
	}
	_Pragma("GCC unroll 4")
	for (int j = 0; j < 4; j++) {
		c[2 * j] = _mm256_unpacklo_epi32(b[j], b[4 + j]);
		c[2 * j + 1] = _mm256_unpackhi_epi32(b[j], b[4 + j]);
	}
}

#define AVX2_TILE1(fn, store)						\
static inline __attribute__((always_inline)) void			\
fn(char *dst, size_t dld, const char *src, size_t sld)			\
{									\
	__m256i c_[16];							\
									\
	avx2_t8_half(c_, src, sld);					\
	avx2_t8_half(c_ + 8, src + 8 * sld, sld);			\
	_Pragma("GCC unroll 8")						\
	for (int j_ = 0; j_ < 8; j_++) {				\
		store(dst + 2 * j_ * dld, _mm256_unpacklo_epi64(c_[j_], c_[8 + j_])); \
		store(dst + (2 * j_ + 1) * dld,				\
		      _mm256_unpackhi_epi64(c_[j_], c_[8 + j_]));	\
	}								\
}
AVX2_TILE1(avx2_tile1_h, ST)
AVX2_TILE1(avx2_tile1_h_nt, NT2)
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

/* One 64-byte line from an aligned staging buffer, streamed. */
static inline void avx2_line_nt(char *dst, const char *line)
{
	_mm256_stream_si256((__m256i *)dst, _mm256_load_si256((const __m256i *)line));
	_mm256_stream_si256((__m256i *)(dst + 32),
			    _mm256_load_si256((const __m256i *)(line + 32)));
}

#define AVX2_MT(es, n, tile)						\
	TC_DEFINE_MACRO_TILES(avx2_mt##es, tile, 2 * (n), n, es,	\
			      32, tc_edge##es, avx2_line_nt, tc_prefetch_l2)
AVX2_MT(1, 16, avx2_tile1_l2)
AVX2_MT(2, 8, avx2_tile2_l2)
AVX2_MT(4, 4, avx2_tile4_l2)
AVX2_MT(8, 2, avx2_tile8_l2)

/*
 * The rows from @r on in line groups and tiles: not inlined, so that the
 * line groups' stage (up to 4 KiB) and the macro tiles' 32 KiB are never
 * on the stack at once.
 */
#define AVX2_TR_NAMED(fn, es, n)					\
static __attribute__((noinline)) void					\
fn##_rest(char *dst, size_t dld, const char *src, size_t sld,		\
	  size_t rows, size_t cols, int nt, size_t r)			\
{									\
	TC_BLOCK_BAND_LINES(avx2_tile##es##_l2, avx2_tile##es##_l2_nt,	\
		      2 * n, n, es, 32, tc_edge##es, (n) >= 8, avx2_line_nt) \
	TC_BLOCK_BAND(avx2_tile##es##_l1, avx2_tile##es##_l1_nt,	\
		      n, n, es, 16, tc_edge##es)	\
	if (r < rows)							\
		tc_edge##es(dst + r * es, dld, src + r * sld, sld,	\
			    rows - r, cols);				\
}									\
static void fn(char *dst, size_t dld, const char *src,			\
	       size_t sld, size_t rows, size_t cols, int nt)		\
{									\
	size_t r = 0;							\
									\
	if (TC_MT_APPLIES(nt, dst, dld, rows, cols, es))		\
		r = avx2_mt##es(dst, dld, src, sld, rows, cols);	\
	fn##_rest(dst, dld, src, sld, rows, cols, nt, r);		\
}
#define AVX2_TR(es, n)	AVX2_TR_NAMED(avx2_tr##es, es, n)
AVX2_TR_NAMED(avx2_tr1_band, 1, 16)
AVX2_TR(2, 8)
AVX2_TR(4, 4)
AVX2_TR(8, 2)

/*
 * u8 squares (streamed output, aligned destination lines): 64 source rows
 * x 64 bytes, each source line read once (an aligned source's; a
 * misaligned one's squares share their edge lines) as two 32-byte loads, go
 * through a 4 KB stage whose 64 lines are streamed out whole. The tiles
 * above read 16 bytes of 32 rows at a time: at a power-of-two row stride
 * (8192^2) the 64 rows of a line group share one L1 set, and every line
 * was fetched four times. Here 8 rows of 64 bytes are one register tile
 * (three unpack rounds; 8-byte pieces to the stage), so at most 8 lines of
 * a set are live. The stage alternates between two buffers, and the
 * previous square's lines go out 8 at a time between the next square's
 * row tiles: streamed in one burst after it, the non-temporal stores
 * filled the store queue and held back the loads (8192^2 u8: 3.2 against
 * 4.4 GB/s interleaved). Each tile also prefetches its rows' next line
 * (the next square's): without it the square lost to the tiles above.
 */
#define AVX2_SQ		64

/* 8 rows of 32 bytes in @x: column j's 8 bytes go to @st + AVX2_SQ * j. */
static inline __attribute__((always_inline)) void
avx2_sq_t8x32(char *st, const __m256i x[8])
{
	__m256i t[8], u[8];

	_Pragma("GCC unroll 4")
	for (int i = 0; i < 4; i++) {	/* cols 0-7, 8-15 of rows 2i, 2i + 1 */
		t[2 * i] = _mm256_unpacklo_epi8(x[2 * i], x[2 * i + 1]);
		t[2 * i + 1] = _mm256_unpackhi_epi8(x[2 * i], x[2 * i + 1]);
	}
	_Pragma("GCC unroll 2")
	for (int h = 0; h < 2; h++)	/* u[4h + 2k]: cols 8k..8k+3, u[4h + 2k + 1]: 8k+4..8k+7 */
		_Pragma("GCC unroll 2")
		for (int k = 0; k < 2; k++) {
			u[4 * h + 2 * k] = _mm256_unpacklo_epi16(t[4 * h + k], t[4 * h + k + 2]);
			u[4 * h + 2 * k + 1] = _mm256_unpackhi_epi16(t[4 * h + k], t[4 * h + k + 2]);
		}
	_Pragma("GCC unroll 8")
	for (int m = 0; m < 8; m++) {	/* cols 2m, 2m + 1; lane 1: + 16 */
		__m256i v = m & 1 ? _mm256_unpackhi_epi32(u[m / 2], u[m / 2 + 4])
				  : _mm256_unpacklo_epi32(u[m / 2], u[m / 2 + 4]);
		__m128i lo = _mm256_castsi256_si128(v);
		__m128i hi = _mm256_extracti128_si256(v, 1);

		/* integer stores: the stage is read back as __m256i */
		_mm_storel_epi64((__m128i *)(st + AVX2_SQ * (2 * m)), lo);
		_mm_storel_epi64((__m128i *)(st + AVX2_SQ * (2 * m + 1)),
				 _mm_unpackhi_epi64(lo, lo));
		_mm_storel_epi64((__m128i *)(st + AVX2_SQ * (2 * m + 16)), hi);
		_mm_storel_epi64((__m128i *)(st + AVX2_SQ * (2 * m + 17)),
				 _mm_unpackhi_epi64(hi, hi));
	}
}

/*
 * One square from @src into the stage @st, prefetching the lines at
 * @next (the next square's source); between its row tiles, the lines of
 * @prev (the previous square's stage) go to @pdst, if any.
 */
static inline __attribute__((always_inline)) void
avx2_sq(char *st, const char *src, size_t sld, const char *next,
	const char *prev, char *pdst, size_t dld)
{
	for (int q = 0; q < AVX2_SQ / 8; q++) {
		const char *s = src + 8 * q * sld, *n = next + 8 * q * sld;
		__m256i a[8], b[8];

		_Pragma("GCC unroll 8")
		for (int i = 0; i < 8; i++) {
			a[i] = LD(s + i * sld);
			b[i] = LD(s + i * sld + 32);
			_mm_prefetch(n + i * sld, _MM_HINT_T0);
		}
		avx2_sq_t8x32(st + 8 * q, a);
		avx2_sq_t8x32(st + AVX2_SQ * 32 + 8 * q, b);
		if (pdst)
			_Pragma("GCC unroll 8")
			for (int i = 8 * q; i < 8 * q + 8; i++)
				avx2_line_nt(pdst + i * dld, prev + AVX2_SQ * i);
	}
}

/*
 * The whole squares of a block, row by row of squares (each source row
 * read in order); the columns left over go to the tiles. @return the rows
 * done (a multiple of AVX2_SQ).
 */
static size_t avx2_tr1_squares(char *dst, size_t dld, const char *src, size_t sld,
			       size_t rows, size_t cols)
{
	_Alignas(64) char st[2][AVX2_SQ * AVX2_SQ];
	size_t R = rows & ~(size_t)(AVX2_SQ - 1), C = cols & ~(size_t)(AVX2_SQ - 1);
	char *prev = NULL;
	unsigned k = 0;

	if (!R || !C)
		return 0;
	for (size_t r = 0; r < R; r += AVX2_SQ)
		for (size_t c = 0; c < C; c += AVX2_SQ, k ^= 1) {
			const char *s = src + r * sld + c;

			avx2_sq(st[k], s, sld, c + AVX2_SQ < C ? s + AVX2_SQ : s,
				st[k ^ 1], prev, dld);
			prev = dst + c * dld + r;
		}
	for (int i = 0; i < AVX2_SQ; i++)
		avx2_line_nt(prev + i * dld, st[k ^ 1] + AVX2_SQ * i);
	if (C < cols)
		avx2_tr1_band(dst + C * dld, dld, src + C, sld, R, cols - C, 1);
	return R;
}

static void avx2_tr1(char *dst, size_t dld, const char *src, size_t sld,
		     size_t rows, size_t cols, int nt)
{
	size_t r = 0;

	/*
	 * Only where source rows a multiple of 1 KiB apart crowd a few L1
	 * sets (8192^2: one), which is what the squares cure. Elsewhere the
	 * line groups do as well or better: 8000^2 u8 on two threads ran
	 * 10.7-11.4 GB/s on them and 8.1-9.7 in squares.
	 */
	if (nt && sld && !(sld & 1023) && !(((uintptr_t)dst | dld) & 63))
		r = avx2_tr1_squares(dst, dld, src, sld, rows, cols);
	if (r < rows)
		avx2_tr1_band(dst + r, dld, src + r * sld, sld, rows - r, cols, nt);
}

/*
 * Few rows (struct tc_fr_plan, a C = 1..8 image to NHWC, any element
 * size): the program is built for 16-byte vectors of byte units, so an
 * output is the OR of one pshufb per source row (index 0x80 zeroes the
 * bytes another row or the pattern supplies), plus the pattern. Two spans
 * run at once, one per 128-bit lane. A C = 3 u8 image: 3 loads, 9
 * shuffles, 6 ORs and 6 16-byte stores per 32 pixels; the vpermd program
 * this replaced served only 32/64-bit elements and read two index vectors
 * per row and output (in L2: C = 3 f32 15-24 against oneDNN's 31 GB/s).
 * Each 64-byte slot of the plan is rewritten as its 16 pshufb indices
 * twice (both lanes); a pattern slot as its bytes (zero elsewhere) twice.
 */
static void avx2_fr_slot(uint8_t slot[64], uint64_t bits, int idx)
{
	for (int u = 0; u < 16; u++) {
		if (!(bits >> u & 1))
			slot[u] = idx ? 0x80 : 0;
		slot[16 + u] = slot[u];
	}
}

static int avx2_fr_prepare(void *prog, size_t rows, unsigned es, size_t dld,
			   size_t pad, const unsigned char pat[64])
{
	struct tc_fr_plan *p = prog;

	if (tc_fr_build(p, 16, 0, rows, es, dld, pad, pat) || p->gaps)
		return -1;
	for (size_t t = 0; t < p->T; t++) {
		for (size_t r = 0; r < rows; r++)
			avx2_fr_slot(p->idx[t][r], p->k[t][r], 1);
		avx2_fr_slot(p->patv[t], p->patk[t], 0);
	}
	return 0;
}

/*
 * The two spans of a 256-bit output: lane 0 to @lo, lane 1 to @hi (@nt:
 * streamed; the caller checked 16-byte alignment).
 */
static inline void avx2_store_lanes(char *lo, char *hi, __m256i v, int nt)
{
	if (nt) {
		NT1(lo, _mm256_castsi256_si128(v));
		NT1(hi, _mm256_extracti128_si256(v, 1));
	} else {
		ST1(lo, _mm256_castsi256_si128(v));
		ST1(hi, _mm256_extracti128_si256(v, 1));
	}
}

/*
 * One instance per row count: the row vectors stay in registers. Output t
 * of the span in lane 0 goes to dst + 16 t, of the span in lane 1 to
 * dst + 16 (T + t); a last single span runs on one lane. AVX2_FR_ST2
 * streams by the kernel's @nt, cleared for a misaligned destination.
 */
#define AVX2_FR_ST2(dst, T, t, v)					\
	avx2_store_lanes((dst) + 16 * (t), (dst) + 16 * ((T) + (t)), (v), nt)
#define AVX2_FR_ST1(dst, T, t, v)	ST1((dst) + 16 * (t), (v))
#define AVX2_FR_RUN(R)							\
static void avx2_fr_run##R(const struct tc_fr_plan *p, char *dst,	\
			   const char *src, size_t sld, size_t cols, int nt) \
{									\
	size_t c = 0, S = p->per, T = p->T;				\
									\
	nt = nt && !((uintptr_t)dst & 15);				\
	for (; c + 2 * S <= cols; c += 2 * S, dst += 32 * T)		\
		TC_FR_SPAN(__m256i, R, T, p, dst, src, sld, c, LD, LD,	\
			   _mm256_shuffle_epi8, _mm256_or_si256, AVX2_FR_ST2); \
	if (c + S <= cols) {						\
		TC_FR_SPAN(__m128i, R, T, p, dst, src, sld, c, LDV1, LDV1,	\
			   _mm_shuffle_epi8, _mm_or_si128, AVX2_FR_ST1);	\
		c += S, dst += 16 * T;					\
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

/*
 * Dense rows (no pad: T == R), R <= 3: the R x R index vectors live in
 * registers for the whole run and the outputs are straight-line code (at
 * R = 4 the 16 tables alone fill the 16 ymm registers: the general loop).
 */
#define AVX2_FR_DENSE(R)						\
static void avx2_fr_dense##R(const struct tc_fr_plan *p, char *dst,	\
			     const char *src, size_t sld, size_t cols, int nt) \
{									\
	__m256i ix[R][R], v[R], o[R];					\
	size_t c = 0, S = p->per;					\
									\
	_Pragma("GCC unroll 4")						\
	for (int t = 0; t < (R); t++)					\
		_Pragma("GCC unroll 4")					\
		for (int r = 0; r < (R); r++)				\
			ix[t][r] = LD(p->idx[t][r]);			\
	nt = nt && !((uintptr_t)dst & 15);				\
	for (; c + 2 * S <= cols; c += 2 * S, dst += 32 * (R)) {	\
		_Pragma("GCC unroll 4")					\
		for (int r = 0; r < (R); r++)				\
			v[r] = LD(src + r * sld + c * p->es);		\
		_Pragma("GCC unroll 4")					\
		for (int t = 0; t < (R); t++) {				\
			o[t] = _mm256_shuffle_epi8(v[0], ix[t][0]);	\
			_Pragma("GCC unroll 4")				\
			for (int r = 1; r < (R); r++)			\
				o[t] = _mm256_or_si256(o[t],		\
					_mm256_shuffle_epi8(v[r], ix[t][r])); \
		}							\
		_Pragma("GCC unroll 4")					\
		for (int t = 0; t < (R); t++)				\
			avx2_store_lanes(dst + 16 * t, dst + 16 * ((R) + t), o[t], nt); \
	}								\
	if (c < cols)							\
		avx2_fr_run##R(p, dst, src + c * p->es, sld, cols - c, nt); \
}
AVX2_FR_DENSE(2)
AVX2_FR_DENSE(3)

static void avx2_fr_run(const void *prog, char *dst, const char *src,
			size_t sld, size_t cols, int nt)
{
	static void (*const run[TC_FR_MAXROWS])(const struct tc_fr_plan *, char *,
						  const char *, size_t, size_t, int) = {
		avx2_fr_run1, avx2_fr_run2, avx2_fr_run3, avx2_fr_run4,
		avx2_fr_run5, avx2_fr_run6, avx2_fr_run7, avx2_fr_run8,
	};
	static void (*const dense[3])(const struct tc_fr_plan *, char *,
				      const char *, size_t, size_t, int) = {
		NULL, avx2_fr_dense2, avx2_fr_dense3,
	};
	const struct tc_fr_plan *p = prog;

	/* no gaps (prepare): T == rows means no pattern either */
	if (p->rows <= 3 && p->T == p->rows && dense[p->rows - 1])
		dense[p->rows - 1](p, dst, src, sld, cols, nt);
	else
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

/*
 * Whole fractals (zN <-> nZ: B x B elements, rows of 32 bytes, B = 16 for
 * 16-bit, 32 for 8-bit, contiguous on both sides): the two register tiles
 * of a fractal (its left and right 16-byte halves) with the strides known,
 * so every address is an immediate. Through the general transpose each
 * fractal went through the block loops and their checks with the strides
 * in registers, and the 8-bit tile spilled its addresses: ~200 cycles per
 * 1 KB fractal in L2 (AMD EPYC Zen 3).
 */
#define AVX2_FRACTAL(fn, es, tile)					\
static void fn(char *dst, const char *src, int nt)			\
{									\
	if (nt && !((uintptr_t)dst & 63)) {				\
		tile##_nt(dst, 32, src, 32);				\
		tile##_nt(dst + 512 / (es), 32, src + 16, 32);		\
	} else {							\
		tile(dst, 32, src, 32);					\
		tile(dst + 512 / (es), 32, src + 16, 32);		\
	}								\
}
AVX2_FRACTAL(avx2_fractal1, 1, avx2_tile1_h)
AVX2_FRACTAL(avx2_fractal2, 2, avx2_tile2_l2)

/* struct tc_kernels' @runs_pairs: each 32-byte run a register */
TC_DEFINE_RUNS_PAIRS(avx2_runs_pairs, __m256i, 32, LD, ST, NT2)

/*
 * int4 NCHW -> NCHW64 (struct tc_kernels' @tr_split4), as on AVX-512
 * (exec_avx512.c): each byte tile's destination row, 32 channels of two
 * pixels, split by nibble in the register before the store. 16 words w:
 * the first pixel's byte is w's bits 0-3 and 8-11, the second's bits 4-7
 * and 12-15; packuswb and a qword permute put the first pixel's 16 bytes
 * at @p and the second's at @p + 32: the second pixel's row follows the
 * first's where 64 channels' pixels lie back to back, the only shape
 * avx2_tr_split4 takes (a tile's columns then step 64 bytes).
 */
static inline void avx2_split4_st(char *p, __m256i w)
{
	const __m256i m = _mm256_set1_epi16(0x0f), m2 = _mm256_set1_epi16(0xf0);
	__m256i t = _mm256_srli_epi16(w, 4), u = _mm256_srli_epi16(w, 8);
	__m256i l = _mm256_or_si256(_mm256_and_si256(w, m), _mm256_and_si256(t, m2));
	__m256i h = _mm256_or_si256(_mm256_and_si256(t, m), _mm256_and_si256(u, m2));
	__m256i v = _mm256_permute4x64_epi64(_mm256_packus_epi16(l, h), 0xd8);

	ST1(p, _mm256_castsi256_si128(v));
	ST1(p + 32, _mm256_extracti128_si256(v, 1));
}
TC_DEFINE_TILE(avx2_tile_split4, __m256i, 16, LD2, avx2_split4_st,
	       _mm256_unpacklo_epi8, _mm256_unpackhi_epi8)

/*
 * 64 channels whose pixels lie back to back (dld 32: each column two
 * pixels, one line) in whole register tiles, channels 0-31 then 32-63
 * (the line's four 16-byte quarters), the last columns (fewer than 16)
 * through a stage. Other shapes are declined: staged per 16 columns they
 * ran slower than the generic stage and split (NCHW -> NCHW32 of
 * 32x64x56x56 i4: 0.35 -> 0.64 ms).
 */
static int avx2_tr_split4(char *dst, size_t dld, const char *src, size_t sld,
			  size_t rows, size_t cols, int nt)
{
	char stage[16 * 64] __attribute__((aligned(32)));
	char two[64];
	size_t c = 0;

	(void)nt;	/* 16-byte stores: a line is whole only after both tiles */
	if (rows != 64 || dld != 32)
		return 0;
	for (; c + 16 <= cols; c += 16) {
		avx2_tile_split4(dst + c * 64, 64, src + c, sld);
		avx2_tile_split4(dst + c * 64 + 16, 64, src + 32 * sld + c, sld);
	}
	if (c < cols)
		avx2_tr1(stage, 64, src + c, sld, 64, cols - c, 0);
	for (size_t i = 0; c + i < cols; i++) {
		avx2_split4_st(two, LD(stage + i * 64));
		avx2_split4_st(two + 16, LD(stage + i * 64 + 32));
		memcpy(dst + (c + i) * 64, two, 64);
	}
	return 1;
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
	.fractal = { avx2_fractal1, avx2_fractal2, NULL, NULL },
	.fr_prepare = avx2_fr_prepare,
	.fr_run = avx2_fr_run,
	.runs_pairs = avx2_runs_pairs,
	.tr_split4 = avx2_tr_split4,
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
	.direct = avx2_exec_direct,
};
