/* SPDX-License-Identifier: MIT */
/*
 * cvt_neon_tr.h - the body of the NEON converting transposes (struct
 * tc_cvt_kernels.tr_encode), one for every destination kind: cvt_neon.c
 * instantiates it for f16, bf16, i8 and u8, cvt_neon_bf16.c for bf16 with
 * BFCVTN (built for armv8.2-a+bf16, so it cannot share cvt_neon.c's code
 * otherwise). The row encoder is a parameter, inlined with the body.
 *
 * Rows are encoded before they are transposed (as cvt_avx2.c's byte
 * kinds): each source row's elements go through the steps with the row's
 * scale broadcast and are encoded into one register, then the encoded
 * elements are transposed, 2 or 4 times fewer bytes than binary32. A tile
 * is as wide as a destination row's 16-byte store: 16 x 16 bytes, or
 * 8 x 8 of 16-bit elements; bytes fall back to 8 x 8 tiles (the low
 * halves) where 16 do not fit. The rest goes element by element through
 * the reference's encoder, whose bits the vector encoders give.
 *
 * aarch64 only; the includer has checked.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_CVT_NEON_TR_H
#define TILECOPY_CPU_CVT_NEON_TR_H

#include <arm_neon.h>

#include "cpu/cvt.h"

/* The f32 stage on 4 lanes (tc_cvt_affine1() on one element). */
static inline float32x4_t tc_neon_affine4(float32x4_t x, const struct tc_cvt_affine *a,
					  float32x4_t s)
{
	TC_CVT_AFFINE(x, a, s, vsubq_f32, vmulq_f32, vaddq_f32, vdupq_n_f32);
	return x;
}

/*
 * One row's @n elements (8 or 16) from @row, the steps done with scale @s,
 * encoded: 16 bytes, or 8 in the low half.
 */
typedef uint8x16_t tc_neon_tr_row_fn(const float *row, const struct tc_cvt_affine *a,
				     float32x4_t s, int n);

/* TRN1 / TRN2 on units of @bytes: *x gets the even units of both, *y the odd. */
static inline __attribute__((always_inline)) void
tc_neon_trn(uint8x16_t *x, uint8x16_t *y, int bytes)
{
	uint8x16_t a = *x, b = *y;

	switch (bytes) {
	case 1:
		*x = vtrn1q_u8(a, b);
		*y = vtrn2q_u8(a, b);
		break;
	case 2:
		*x = vreinterpretq_u8_u16(vtrn1q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
		*y = vreinterpretq_u8_u16(vtrn2q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
		break;
	case 4:
		*x = vreinterpretq_u8_u32(vtrn1q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
		*y = vreinterpretq_u8_u32(vtrn2q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
		break;
	default:
		*x = vreinterpretq_u8_u64(vtrn1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)));
		*y = vreinterpretq_u8_u64(vtrn2q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)));
		break;
	}
}

/*
 * @n rows of @n elements of @es bytes in, their columns out (p[j] = column
 * j): rows s apart exchange units of s elements, s = 1, 2, 4 (, 8). TRN
 * keeps every byte in its half, so 8 x 8 bytes work in the low halves.
 */
static inline __attribute__((always_inline)) void
tc_neon_tr_square(uint8x16_t *p, int n, int es)
{
#pragma GCC unroll 4
	for (int s = 1; s < n; s <<= 1)
#pragma GCC unroll 16
		for (int i = 0; i < n; i++)
			if (!(i & s))
				tc_neon_trn(&p[i], &p[i + s], s * es);
}

/* @n x @n elements of @es bytes: rows of @src encoded, columns to @d. */
static inline __attribute__((always_inline)) void
tc_neon_tr_tile(char *d, size_t dld, const float *src, size_t sld,
		const struct tc_cvt_affine *a, const float *scale, ptrdiff_t sst,
		int n, int es, tc_neon_tr_row_fn *row)
{
	uint8x16_t p[16];

#pragma GCC unroll 16
	for (int i = 0; i < n; i++)
		p[i] = row(src + (size_t)i * sld, a, vdupq_n_f32(scale[(ptrdiff_t)i * sst]), n);
	tc_neon_tr_square(p, n, es);
#pragma GCC unroll 16
	for (int j = 0; j < n; j++) {
		if (n * es == 16)
			vst1q_u8((uint8_t *)d + (size_t)j * dld * es, p[j]);
		else
			vst1_u8((uint8_t *)d + (size_t)j * dld * es, vget_low_u8(p[j]));
	}
}

/* Rows [r0, r1) x columns [c0, c1) by the reference's encoder. */
static inline void tc_neon_tr_edge(enum tc_cvt_kind kind, void *d, size_t dld,
				   const float *src, size_t sld, size_t r0, size_t r1,
				   size_t c0, size_t c1, const struct tc_cvt_affine *a,
				   const float *scale, ptrdiff_t sst)
{
	if (r0 >= r1)
		return;
	for (size_t c = c0; c < c1; c++)
		for (size_t r = r0; r < r1; r++)
			tc_cvt_store(kind, d, (int64_t)(c * dld + r),
				     tc_cvt_affine1(tc_cvt_load(TC_CVT_F32, src,
								(int64_t)(r * sld + c)),
						    a, scale[(ptrdiff_t)r * sst]));
}

/*
 * The tr_encode of @kind (see cvt.h). Bands of 16 rows (bytes) or 8 swept
 * across the columns, as in cvt_avx2.c: the source is read as 8 or 16
 * sequential streams and each destination row gets 16 bytes a band.
 */
static inline __attribute__((always_inline)) void
tc_neon_tr_encode(void *dst, size_t dld, const float *src, size_t sld, size_t rows,
		  size_t cols, const struct tc_cvt_affine *a, const float *scale,
		  ptrdiff_t sst, enum tc_cvt_kind kind, tc_neon_tr_row_fn *row)
{
	/* a copy the stores cannot alias, so the steps are read once */
	const struct tc_cvt_affine af = *a;
	const int es = kind == TC_CVT_F16 || kind == TC_CVT_BF16 ? 2 : 1;
	char *d = dst;
	size_t r = 0, c;

	for (; es == 1 && r + 16 <= rows; r += 16) {
		for (c = 0; c + 16 <= cols; c += 16)
			tc_neon_tr_tile(d + c * dld + r, dld, src + r * sld + c, sld, &af,
					scale + (ptrdiff_t)r * sst, sst, 16, 1, row);
		if (c + 8 <= cols) {
			for (size_t h = r; h < r + 16; h += 8)
				tc_neon_tr_tile(d + c * dld + h, dld, src + h * sld + c, sld,
						&af, scale + (ptrdiff_t)h * sst, sst, 8, 1, row);
			c += 8;
		}
		tc_neon_tr_edge(kind, d, dld, src, sld, r, r + 16, c, cols, &af, scale, sst);
	}
	for (; r + 8 <= rows; r += 8) {
		for (c = 0; c + 8 <= cols; c += 8)
			tc_neon_tr_tile(d + (c * dld + r) * es, dld, src + r * sld + c, sld, &af,
					scale + (ptrdiff_t)r * sst, sst, 8, es, row);
		tc_neon_tr_edge(kind, d, dld, src, sld, r, r + 8, c, cols, &af, scale, sst);
	}
	tc_neon_tr_edge(kind, d, dld, src, sld, r, rows, 0, cols, &af, scale, sst);
}

#endif /* TILECOPY_CPU_CVT_NEON_TR_H */
