// SPDX-License-Identifier: MIT
/*
 * cvt_neon.c - element conversion kernels for AArch64 Advanced SIMD, 8
 * elements a step (16 for 4-bit decodes); the remainder goes to the scalar
 * kernel. Two sets: "neon" converts f32 -> bf16 in integer arithmetic,
 * "neonbf16" with BFCVTN where the CPU has FEAT_BF16 (cvt_neon_bf16.c).
 * Both have the converting transposes into f16, bf16, i8 and u8
 * (tr_encode; the body is in cvt_neon_tr.h).
 *
 * Bit-exactness with cvt_scalar.c rests on: FCVTL/FCVTN (f16) round to
 * nearest even in the default FPCR, keep subnormals and quiet a NaN keeping
 * its top payload bits, like F16C; FCVTNS rounds to nearest even whatever
 * FPCR says. FMIN/FMAX propagate NaN instead of picking the bound, so NaN
 * is replaced explicitly (with the bound of a signed kind, 0 of an
 * unsigned one) before saturating.
 *
 * Built on every architecture, empty but for aarch64 (see cvt_avx512.c).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>
#include <sys/auxv.h>

#include "cpu/cvt.h"
#include "cpu/cvt_neon_tr.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif
#ifndef HWCAP2_BF16
#define HWCAP2_BF16 (1 << 14)
#endif

/* ---- kind -> f32 ------------------------------------------------------- */

static void neon_decode_f16(float *dst, const void *src, size_t n)
{
	const uint16_t *s = src;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint16x8_t h = vld1q_u16(s + i);

		vst1q_f32(dst + i, vcvt_f32_f16(vreinterpret_f16_u16(vget_low_u16(h))));
		vst1q_f32(dst + i + 4, vcvt_high_f32_f16(vreinterpretq_f16_u16(h)));
	}
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_F16](dst + i, s + i, n - i);
}

static void neon_decode_bf16(float *dst, const void *src, size_t n)
{
	const uint16_t *s = src;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		uint16x8_t h = vld1q_u16(s + i);

		vst1q_f32(dst + i, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)));
		vst1q_f32(dst + i + 4, vreinterpretq_f32_u32(vshll_high_n_u16(h, 16)));
	}
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_BF16](dst + i, s + i, n - i);
}

/* 8 signed bytes -> 8 floats. */
static inline void st8_from_s8(float *dst, int8x8_t b)
{
	int16x8_t w = vmovl_s8(b);

	vst1q_f32(dst, vcvtq_f32_s32(vmovl_s16(vget_low_s16(w))));
	vst1q_f32(dst + 4, vcvtq_f32_s32(vmovl_high_s16(w)));
}

static inline void st8_from_u8(float *dst, uint8x8_t b)
{
	uint16x8_t w = vmovl_u8(b);

	vst1q_f32(dst, vcvtq_f32_u32(vmovl_u16(vget_low_u16(w))));
	vst1q_f32(dst + 4, vcvtq_f32_u32(vmovl_high_u16(w)));
}

static void neon_decode_i8(float *dst, const void *src, size_t n)
{
	const int8_t *s = src;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		st8_from_s8(dst + i, vld1_s8(s + i));
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_I8](dst + i, s + i, n - i);
}

static void neon_decode_u8(float *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		st8_from_u8(dst + i, vld1_u8(s + i));
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_U8](dst + i, s + i, n - i);
}

static void neon_decode_i32(float *dst, const void *src, size_t n)
{
	const int32_t *s = src;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		vst1q_f32(dst + i, vcvtq_f32_s32(vld1q_s32(s + i)));
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_I32](dst + i, s + i, n - i);
}

/* 8 bytes -> 16 nibbles in element order (low nibble first). */
static inline uint8x8x2_t ld_nibbles(const uint8_t *p)
{
	uint8x8_t b = vld1_u8(p);

	return vzip_u8(vand_u8(b, vdup_n_u8(0xf)), vshr_n_u8(b, 4));
}

static void neon_decode_u4(float *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		uint8x8x2_t z = ld_nibbles(s + i / 2);

		st8_from_u8(dst + i, z.val[0]);
		st8_from_u8(dst + i + 8, z.val[1]);
	}
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_U4](dst + i, s + i / 2, n - i);
}

static void neon_decode_i4(float *dst, const void *src, size_t n)
{
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i + 16 <= n; i += 16) {
		uint8x8x2_t z = ld_nibbles(s + i / 2);
		/* sign-extend the nibble: up to the top of the byte and back */
		int8x8_t lo = vshr_n_s8(vshl_n_s8(vreinterpret_s8_u8(z.val[0]), 4), 4);
		int8x8_t hi = vshr_n_s8(vshl_n_s8(vreinterpret_s8_u8(z.val[1]), 4), 4);

		st8_from_s8(dst + i, lo);
		st8_from_s8(dst + i + 8, hi);
	}
	if (i < n)
		tc_cvt_scalar.decode[TC_CVT_I4](dst + i, s + i / 2, n - i);
}

/* ---- f32 -> kind ------------------------------------------------------- */

static void neon_encode_f16(void *dst, const float *src, size_t n)
{
	uint16_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		float16x8_t h = vcvt_high_f16_f32(vcvt_f16_f32(vld1q_f32(src + i)),
						  vld1q_f32(src + i + 4));

		vst1q_u16(d + i, vreinterpretq_u16_f16(h));
	}
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_F16](d + i, src + i, n - i);
}

/* VCVTNEPS2BF16's rules in integer arithmetic (see cvt_scalar.c). */
static inline uint16x4_t bf16_4(float32x4_t v)
{
	uint32x4_t u = vreinterpretq_u32_f32(v);
	uint32x4_t hi = vshrq_n_u32(u, 16);
	uint32x4_t abs = vandq_u32(u, vdupq_n_u32(0x7fffffff));
	uint32x4_t nan = vcgtq_u32(abs, vdupq_n_u32(0x7f800000));
	uint32x4_t den = vceqq_u32(vandq_u32(u, vdupq_n_u32(0x7f800000)), vdupq_n_u32(0));
	uint32x4_t bias = vaddq_u32(vdupq_n_u32(0x7fff), vandq_u32(hi, vdupq_n_u32(1)));
	uint32x4_t r = vshrq_n_u32(vaddq_u32(u, bias), 16);

	r = vbslq_u32(nan, vorrq_u32(hi, vdupq_n_u32(0x40)), r);
	r = vbslq_u32(den, vandq_u32(hi, vdupq_n_u32(0x8000)), r);
	return vmovn_u32(r);
}

static void neon_encode_bf16(void *dst, const float *src, size_t n)
{
	uint16_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		vst1q_u16(d + i, vcombine_u16(bf16_4(vld1q_f32(src + i)),
					      bf16_4(vld1q_f32(src + i + 4))));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_BF16](d + i, src + i, n - i);
}

/* NaN -> @nan, then clamp to [lo, hi], then round to nearest even. */
static inline int32x4_t sat4(float32x4_t v, float lo, float hi, float nan)
{
	v = vbslq_f32(vceqq_f32(v, v), v, vdupq_n_f32(nan));
	v = vmaxq_f32(vminq_f32(v, vdupq_n_f32(hi)), vdupq_n_f32(lo));
	return vcvtnq_s32_f32(v);
}

/* 8 in-range values -> 8 int16 (exact: they already fit). */
static inline int16x8_t sat8(const float *src, float lo, float hi, float nan)
{
	return vcombine_s16(vmovn_s32(sat4(vld1q_f32(src), lo, hi, nan)),
			    vmovn_s32(sat4(vld1q_f32(src + 4), lo, hi, nan)));
}

static void neon_encode_i8(void *dst, const float *src, size_t n)
{
	int8_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		vst1_s8(d + i, vmovn_s16(sat8(src + i, -128.0f, 127.0f, 127.0f)));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_I8](d + i, src + i, n - i);
}

static void neon_encode_u8(void *dst, const float *src, size_t n)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		vst1_u8(d + i, vmovn_u16(vreinterpretq_u16_s16(sat8(src + i, 0.0f, 255.0f, 0.0f))));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_U8](d + i, src + i, n - i);
}

static void neon_encode_i32(void *dst, const float *src, size_t n)
{
	int32_t *d = dst;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		vst1q_s32(d + i, sat4(vld1q_f32(src + i), -2147483648.0f, 2147483520.0f,
				      2147483520.0f));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_I32](d + i, src + i, n - i);
}

/* 8 values in [-8, 15] -> 4 bytes, element pairs, the even one low. */
static inline void st_nibbles(uint8_t *p, int16x8_t x)
{
	uint8x8_t b = vreinterpret_u8_s8(vmovn_s16(x));
	uint8x8_t even = vuzp1_u8(b, b), odd = vuzp2_u8(b, b);
	uint8x8_t r = vorr_u8(vand_u8(even, vdup_n_u8(0xf)), vshl_n_u8(odd, 4));
	uint32_t w = vget_lane_u32(vreinterpret_u32_u8(r), 0);

	memcpy(p, &w, sizeof(w));
}

static void neon_encode_i4(void *dst, const float *src, size_t n)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		st_nibbles(d + i / 2, sat8(src + i, -8.0f, 7.0f, 7.0f));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_I4](d + i / 2, src + i, n - i);
}

static void neon_encode_u4(void *dst, const float *src, size_t n)
{
	uint8_t *d = dst;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		st_nibbles(d + i / 2, sat8(src + i, 0.0f, 15.0f, 0.0f));
	if (i < n)
		tc_cvt_scalar.encode[TC_CVT_U4](d + i / 2, src + i, n - i);
}

/* ---- transposes fused with an encoding (cvt_neon_tr.h) -------------------- */

/* 16-bit kinds: @n is 8, the 16 bytes of a destination row. */
static inline uint8x16_t tr_row_f16(const float *p, const struct tc_cvt_affine *a,
				    float32x4_t s, int n)
{
	float16x4_t lo = vcvt_f16_f32(tc_neon_affine4(vld1q_f32(p), a, s));

	return vreinterpretq_u8_f16(vcvt_high_f16_f32(lo, tc_neon_affine4(vld1q_f32(p + 4), a, s)));
}

static inline uint8x16_t tr_row_bf16(const float *p, const struct tc_cvt_affine *a,
				     float32x4_t s, int n)
{
	return vreinterpretq_u8_u16(vcombine_u16(bf16_4(tc_neon_affine4(vld1q_f32(p), a, s)),
						 bf16_4(tc_neon_affine4(vld1q_f32(p + 4), a, s))));
}

/*
 * 8 values to bytes with no clamp: FCVTNS rounds to nearest even and
 * saturates to int32 (NaN to 0, u8's NaN value), the narrowing saturates
 * from there, so only NaN is replaced, by 127, for i8.
 */
static inline __attribute__((always_inline)) uint8x8_t
tr_bytes8(const float *p, const struct tc_cvt_affine *a, float32x4_t s, int is_u8)
{
	int32x4_t q[2];
	int16x8_t w;

	for (int h = 0; h < 2; h++) {
		float32x4_t v = tc_neon_affine4(vld1q_f32(p + 4 * h), a, s);

		if (!is_u8)
			v = vbslq_f32(vceqq_f32(v, v), v, vdupq_n_f32(127.0f));
		q[h] = vcvtnq_s32_f32(v);
	}
	w = vcombine_s16(vqmovn_s32(q[0]), vqmovn_s32(q[1]));
	return is_u8 ? vqmovun_s16(w) : vreinterpret_u8_s8(vqmovn_s16(w));
}

static inline uint8x16_t tr_row_i8(const float *p, const struct tc_cvt_affine *a,
				   float32x4_t s, int n)
{
	uint8x8_t lo = tr_bytes8(p, a, s, 0);

	return vcombine_u8(lo, n == 16 ? tr_bytes8(p + 8, a, s, 0) : lo);
}

static inline uint8x16_t tr_row_u8(const float *p, const struct tc_cvt_affine *a,
				   float32x4_t s, int n)
{
	uint8x8_t lo = tr_bytes8(p, a, s, 1);

	return vcombine_u8(lo, n == 16 ? tr_bytes8(p + 8, a, s, 1) : lo);
}

#define NEON_TR_ENCODER(name, kind)					\
static void neon_tr_##name(void *dst, size_t dld, const float *src, size_t sld, \
			   size_t rows, size_t cols, const struct tc_cvt_affine *a, \
			   const float *scale, ptrdiff_t sst)		\
{									\
	tc_neon_tr_encode(dst, dld, src, sld, rows, cols, a, scale, sst, kind, \
			  tr_row_##name);				\
}
NEON_TR_ENCODER(f16, TC_CVT_F16)
NEON_TR_ENCODER(bf16, TC_CVT_BF16)
NEON_TR_ENCODER(i8, TC_CVT_I8)
NEON_TR_ENCODER(u8, TC_CVT_U8)

/* ---- the f32 stage ------------------------------------------------------- */

static void neon_affine(float *dst, const float *src, size_t n,
			const struct tc_cvt_affine *a, const float *scale,
			ptrdiff_t scale_stride)
{
	/* in locals: the stores below may alias *a as far as the compiler knows */
	const unsigned int ops = a->ops;
	const float32x4_t zs = vdupq_n_f32(a->src_zp), zd = vdupq_n_f32(a->dst_zp);
	float32x4_t s = vdupq_n_f32(scale[0]);
	size_t i = 0;

	if (scale_stride != 0 && scale_stride != 1)
		goto tail;
	for (; i + 4 <= n; i += 4) {
		float32x4_t x = vld1q_f32(src + i);

		if (scale_stride)
			s = vld1q_f32(scale + i);
		if (ops & TC_CVT_SUB_ZP)
			x = vsubq_f32(x, zs);
		if (ops & TC_CVT_MUL)
			x = vmulq_f32(x, s);
		if (ops & TC_CVT_ADD_ZP)
			x = vaddq_f32(x, zd);
		vst1q_f32(dst + i, x);
	}
tail:
	if (i < n)
		tc_cvt_scalar.affine(dst + i, src + i, n - i, a,
				     scale + (ptrdiff_t)i * scale_stride, scale_stride);
}

static int neon_available(void)
{
	return (getauxval(AT_HWCAP) & HWCAP_ASIMD) != 0;
}

static int neonbf16_available(void)
{
	return neon_available() && (getauxval(AT_HWCAP2) & HWCAP2_BF16);
}

#define NEON_SET(set_name, avail, bf16_encoder, bf16_tr)		\
	{								\
		.name = set_name,					\
		.available = avail,					\
		.decode = {						\
			[TC_CVT_F16] = neon_decode_f16,			\
			[TC_CVT_BF16] = neon_decode_bf16,		\
			[TC_CVT_I8] = neon_decode_i8,			\
			[TC_CVT_U8] = neon_decode_u8,			\
			[TC_CVT_I32] = neon_decode_i32,			\
			[TC_CVT_I4] = neon_decode_i4,			\
			[TC_CVT_U4] = neon_decode_u4,			\
		},							\
		.encode = {						\
			[TC_CVT_F16] = neon_encode_f16,			\
			[TC_CVT_BF16] = bf16_encoder,			\
			[TC_CVT_I8] = neon_encode_i8,			\
			[TC_CVT_U8] = neon_encode_u8,			\
			[TC_CVT_I32] = neon_encode_i32,			\
			[TC_CVT_I4] = neon_encode_i4,			\
			[TC_CVT_U4] = neon_encode_u4,			\
		},							\
		.affine = neon_affine,					\
		.tr_encode = {						\
			[TC_CVT_F16] = neon_tr_f16,			\
			[TC_CVT_BF16] = bf16_tr,			\
			[TC_CVT_I8] = neon_tr_i8,			\
			[TC_CVT_U8] = neon_tr_u8,			\
		},							\
	}

const struct tc_cvt_kernels tc_cvt_neon =
	NEON_SET("neon", neon_available, neon_encode_bf16, neon_tr_bf16);
const struct tc_cvt_kernels tc_cvt_neonbf16 =
	NEON_SET("neonbf16", neonbf16_available, tc_cvt_neon_encode_bf16_hw,
		 tc_cvt_neon_tr_bf16_hw);

#endif /* __aarch64__ */
