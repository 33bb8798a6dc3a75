// SPDX-License-Identifier: MIT
/*
 * cvt_neon_bf16.c - f32 -> bf16 with BFCVTN (FEAT_BF16: Neoverse V1/N2,
 * Graviton 3, Apple M2), the kernels of the "neonbf16" set that need more
 * than the baseline (the contiguous encoder and the converting transpose
 * into bf16); cvt_neon.c chooses them by HWCAP2_BF16.
 *
 * BFCVTN rounds to nearest even and quiets a NaN keeping its top payload
 * bits, as VCVTNEPS2BF16; but with FPCR.FZ clear it rounds a denormal
 * input instead of flushing it, so denormals are made signed zeros first.
 *
 * The target pragma (not a per-object flag) lets the aarch64 build in
 * tests/simd/simd.mk, which compiles every source in one command, build it.
 * Empty but for aarch64 (see cvt_avx512.c).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#if defined(__aarch64__)
#pragma GCC target("arch=armv8.2-a+bf16")
#include <arm_neon.h>

#include "cpu/cvt.h"
#include "cpu/cvt_neon_tr.h"

static inline uint16x4_t bf16_hw4(float32x4_t v)
{
	uint32x4_t u = vreinterpretq_u32_f32(v);
	uint32x4_t den = vceqq_u32(vandq_u32(u, vdupq_n_u32(0x7f800000)), vdupq_n_u32(0));

	u = vbslq_u32(den, vandq_u32(u, vdupq_n_u32(0x80000000)), u);
	return vreinterpret_u16_bf16(vcvt_bf16_f32(vreinterpretq_f32_u32(u)));
}

void tc_cvt_neon_encode_bf16_hw(void *dst, const float *src, size_t n)
{
	uint16_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		vst1q_u16(d + i, vcombine_u16(bf16_hw4(vld1q_f32(src + i)),
					      bf16_hw4(vld1q_f32(src + i + 4))));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_BF16](d + i, src + i, n - i);
}

/* The converting transpose into bf16 (cvt_neon_tr.h) with BFCVTN; @n is 8. */
static inline uint8x16_t tr_row_bf16_hw(const float *p, const struct tc_cvt_affine *a,
					float32x4_t s, int n)
{
	return vreinterpretq_u8_u16(vcombine_u16(bf16_hw4(tc_neon_affine4(vld1q_f32(p), a, s)),
						 bf16_hw4(tc_neon_affine4(vld1q_f32(p + 4), a, s))));
}

void tc_cvt_neon_tr_bf16_hw(void *dst, size_t dld, const float *src, size_t sld,
			    size_t rows, size_t cols, const struct tc_cvt_affine *a,
			    const float *scale, ptrdiff_t sst)
{
	tc_neon_tr_encode(dst, dld, src, sld, rows, cols, a, scale, sst, TC_CVT_BF16,
			  tr_row_bf16_hw);
}

#endif /* __aarch64__ */
