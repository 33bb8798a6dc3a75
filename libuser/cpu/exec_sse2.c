// SPDX-License-Identifier: MIT
/*
 * exec_sse2.c - SSE2 executor: 16-byte copies and fills (non-temporal for
 * large outputs), in-register transposes of 16x16 bytes, 8x8 16-bit,
 * 4x4 32-bit and 2x2 64-bit tiles; streamed tiles of 8- and 16-bit
 * elements fill their lines in a stack buffer first (TC_BLOCK_BAND_LINES).
 * Shape analysis is in pattern.c.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <emmintrin.h>
#include <string.h>

#include "cpu/exec_isa.h"
#include "cpu/pattern.h"

#define LD1(p, step)	_mm_loadu_si128((const __m128i *)(p))
#define ST1(p, v)	_mm_storeu_si128((__m128i *)(p), (v))
#define NT1(p, v)	_mm_stream_si128((__m128i *)(p), (v))
#define LDV1(p)		LD1((p), 0)

TC_DEFINE_TILE(sse2_tile1, __m128i, 16, LD1, ST1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(sse2_tile1_nt, __m128i, 16, LD1, NT1, _mm_unpacklo_epi8, _mm_unpackhi_epi8)
TC_DEFINE_TILE(sse2_tile2, __m128i, 8, LD1, ST1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(sse2_tile2_nt, __m128i, 8, LD1, NT1, _mm_unpacklo_epi16, _mm_unpackhi_epi16)
TC_DEFINE_TILE(sse2_tile4, __m128i, 4, LD1, ST1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(sse2_tile4_nt, __m128i, 4, LD1, NT1, _mm_unpacklo_epi32, _mm_unpackhi_epi32)
TC_DEFINE_TILE(sse2_tile8, __m128i, 2, LD1, ST1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)
TC_DEFINE_TILE(sse2_tile8_nt, __m128i, 2, LD1, NT1, _mm_unpacklo_epi64, _mm_unpackhi_epi64)

/* One 64-byte line from an aligned staging buffer, streamed. */
static inline void sse2_line_nt(char *dst, const char *line)
{
	for (int i = 0; i < 4; i++)
		_mm_stream_si128((__m128i *)(dst + 16 * i),
				 _mm_load_si128((const __m128i *)(line + 16 * i)));
}

#define SSE2_TR(es, n)							\
static void sse2_tr##es(char *dst, size_t dld, const char *src,	\
			size_t sld, size_t rows, size_t cols, int nt)	\
{									\
	size_t r = 0;							\
	TC_BLOCK_BAND_LINES(sse2_tile##es, sse2_tile##es##_nt, n, n, es, 16,	\
			    tc_edge##es, (n) >= 8, sse2_line_nt)	\
	if (r < rows)							\
		tc_edge##es(dst + r * es, dld, src + r * sld, sld,	\
			    rows - r, cols);				\
}
SSE2_TR(1, 16)
SSE2_TR(2, 8)
SSE2_TR(4, 4)
SSE2_TR(8, 2)

static void sse2_copy(char *dst, const char *src, size_t n, int nt)
{
	__m128i a, b, c, d;

	if (n < 128) {
		memcpy(dst, src, n);
		return;
	}
	if (nt) {
		size_t head = (16 - ((uintptr_t)dst & 15)) & 15;

		ST1(dst, LD1(src, 0));
		dst += head, src += head, n -= head;
		for (; n >= 64; n -= 64, dst += 64, src += 64) {
			a = LD1(src, 0), b = LD1(src + 16, 0);
			c = LD1(src + 32, 0), d = LD1(src + 48, 0);
			_mm_stream_si128((__m128i *)dst, a);
			_mm_stream_si128((__m128i *)(dst + 16), b);
			_mm_stream_si128((__m128i *)(dst + 32), c);
			_mm_stream_si128((__m128i *)(dst + 48), d);
		}
	} else {
		for (; n >= 64; n -= 64, dst += 64, src += 64) {
			a = LD1(src, 0), b = LD1(src + 16, 0);
			c = LD1(src + 32, 0), d = LD1(src + 48, 0);
			ST1(dst, a), ST1(dst + 16, b);
			ST1(dst + 32, c), ST1(dst + 48, d);
		}
	}
	for (; n >= 16; n -= 16, dst += 16, src += 16)
		ST1(dst, LD1(src, 0));
	if (n)
		ST1(dst + n - 16, LD1(src + n - 16, 0));
}

static void sse2_runs(char *dst, size_t dld, const char *src, size_t sld,
		      size_t run, size_t count, int nt)
{
	TC_RUNS_VEC(16, LDV1, ST1, NT1)
	for (size_t i = 0; i < count; i++)
		sse2_copy(dst + i * dld, src + i * sld, run, nt);
}

static void sse2_fill(char *dst, const unsigned char pat[64], size_t n, int nt)
{
	unsigned char rot[64];
	__m128i v[4];
	size_t i = 0;
	int j;

	if (n < 64) {
		memcpy(dst, pat, n);
		return;
	}
	if (nt) {
		size_t head = (16 - ((uintptr_t)dst & 15)) & 15;

		memcpy(dst, pat, 16);
		tc_pat_rotate(rot, pat, head);
		for (j = 0; j < 4; j++)
			v[j] = LD1(rot + 16 * j, 0);
		for (i = head; i + 64 <= n; i += 64)
			for (j = 0; j < 4; j++)
				_mm_stream_si128((__m128i *)(dst + i + 16 * j), v[j]);
	} else {
		for (j = 0; j < 4; j++)
			v[j] = LD1(pat + 16 * j, 0);
		for (; i + 64 <= n; i += 64)
			for (j = 0; j < 4; j++)
				ST1(dst + i + 16 * j, v[j]);
	}
	if (i < n) {
		tc_pat_rotate(rot, pat, n - 64);
		memcpy(dst + n - 64, rot, 64);
	}
}

TC_DEFINE_RUNS_PAIRS(sse2_runs_pairs, __m128i, 16, LDV1, ST1, NT1)

static void sse2_sfence(void)
{
	_mm_sfence();
}

static const struct tc_kernels sse2_kernels = {
	.name = "sse2",
	.copy = sse2_copy,
	.fill = sse2_fill,
	.runs = sse2_runs,
	.transpose = { sse2_tr1, sse2_tr2, sse2_tr4, sse2_tr8 },
	.runs_pairs = sse2_runs_pairs,
	.sfence = sse2_sfence,
};

TC_DEFINE_EXEC(sse2_exec, sse2_kernels)

static int sse2_available(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse2");
}

const struct tc_cpu_backend tc_backend_sse2 = {
	.name = "sse2",
	.available = sse2_available,
	.exec = sse2_exec,
	.exec_scales = sse2_exec_scales,
	.direct = sse2_exec_direct,
};
