// SPDX-License-Identifier: MIT
/*
 * cvt_scalar.c - the reference of element conversion: one element at a
 * time, in integer arithmetic where the rounding must not depend on the
 * floating-point environment (f16, bf16), and the scalar kernel set built
 * from it. docs/dtype-conversion.md states the rules; oneDNN 2.6 is where
 * they come from (src/common/float16.hpp, bfloat16.cpp, cpu/simple_q10n.hpp
 * and the JIT reorder's saturation), checked by tests/cvt.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <math.h>
#include <string.h>

#include "cpu/cvt.h"

static inline uint32_t f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/*
 * f16 -> f32 is exact. A NaN keeps its payload and gets the quiet bit, as
 * VCVTPH2PS and FCVTL do (and as oneDNN's f16 reorder, whose arithmetic
 * quiets it, gives).
 */
float tc_cvt_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16;
	uint32_t e = (h >> 10) & 0x1f;
	uint32_t m = h & 0x3ff;
	int sh;

	if (e == 0x1f)
		return u2f(sign | 0x7f800000 | (m << 13) | (m ? 0x400000 : 0));
	if (e)
		return u2f(sign | ((e + 112) << 23) | (m << 13));
	if (!m)
		return u2f(sign);
	/* Subnormal m * 2^-24: normalise so that bit 10 is the leading one. */
	sh = __builtin_clz(m) - 21;
	m <<= sh;
	return u2f(sign | ((uint32_t)(113 - sh) << 23) | ((m & 0x3ff) << 13));
}

/*
 * f32 -> f16, IEEE round to nearest even with subnormal results; a NaN is
 * quieted (bit 9) and keeps the top 9 bits of its payload, like VCVTPS2PH
 * and FCVTN.
 */
uint16_t tc_cvt_f32_to_f16(float f)
{
	uint32_t u = f2u(f);
	uint32_t sign = (u >> 16) & 0x8000;
	uint32_t a = u & 0x7fffffff;
	uint32_t m, q, rem, half;
	int sh;

	if (a > 0x7f800000)
		return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff));
	if (a >= 0x477ff000)		/* >= 65520 rounds to infinity */
		return (uint16_t)(sign | 0x7c00);
	if (a >= 0x38800000) {		/* normal: 2^-14 and up */
		a += 0x0fff + ((a >> 13) & 1);
		return (uint16_t)(sign | ((a - 0x38000000) >> 13));
	}
	if (a <= 0x33000000)		/* <= 2^-25: ties to the even zero */
		return (uint16_t)sign;
	/* Subnormal result: the value in units of 2^-24, rounded. */
	m = (a & 0x7fffff) | 0x800000;
	sh = 126 - (int)(a >> 23);	/* 14 .. 24 */
	q = m >> sh;
	rem = m & ((1u << sh) - 1);
	half = 1u << (sh - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;			/* may carry into the smallest normal */
	return (uint16_t)(sign | q);
}

float tc_cvt_bf16_to_f32(uint16_t b)
{
	return u2f((uint32_t)b << 16);
}

/*
 * f32 -> bf16 as VCVTNEPS2BF16 (and oneDNN's bfloat16_t): denormal inputs
 * become a zero of their sign, a NaN is truncated with its quiet bit set,
 * everything else rounds to nearest even (overflowing to infinity).
 */
uint16_t tc_cvt_f32_to_bf16(float f)
{
	uint32_t u = f2u(f);

	if ((u & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((u >> 16) | 0x40);
	if (!(u & 0x7f800000))
		return (uint16_t)((u >> 16) & 0x8000);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/*
 * Integer ranges. The i32 upper bound is the largest float below 2^31, as
 * in oneDNN (types::max_value<float>(s32)): 2^31 itself would convert to
 * INT32_MIN. NaN goes where oneDNN's JIT reorder sends it: MINPS against
 * the upper bound gives the bound for signed kinds, MAXPS against zero
 * (done first for unsigned kinds) gives 0.
 */
static const struct {
	float lo, hi;
	int32_t nan;
} tc_cvt_int_range[TC_CVT_NKINDS] = {
	[TC_CVT_I8] = { -128.0f, 127.0f, 127 },
	[TC_CVT_U8] = { 0.0f, 255.0f, 0 },
	[TC_CVT_I32] = { -2147483648.0f, 2147483520.0f, 2147483520 },
	[TC_CVT_I4] = { -8.0f, 7.0f, 7 },
	[TC_CVT_U4] = { 0.0f, 15.0f, 0 },
};

/*
 * Saturate in f32, then round to nearest even (the current rounding mode,
 * which is that unless a caller changed it: as oneDNN's cvtps2dq).
 */
int32_t tc_cvt_f32_to_int(float x, enum tc_cvt_kind k)
{
	if (isnan(x))
		return tc_cvt_int_range[k].nan;
	if (x < tc_cvt_int_range[k].lo)
		x = tc_cvt_int_range[k].lo;
	if (x > tc_cvt_int_range[k].hi)
		x = tc_cvt_int_range[k].hi;
	return (int32_t)lrintf(x);
}

float tc_cvt_load(enum tc_cvt_kind k, const void *base, int64_t e)
{
	const unsigned char *p = base;
	uint16_t h;
	uint32_t w;
	int32_t i;
	unsigned int n;

	switch (k) {
	case TC_CVT_F32:
		memcpy(&w, p + e * 4, 4);
		return u2f(w);
	case TC_CVT_F16:
		memcpy(&h, p + e * 2, 2);
		return tc_cvt_f16_to_f32(h);
	case TC_CVT_BF16:
		memcpy(&h, p + e * 2, 2);
		return tc_cvt_bf16_to_f32(h);
	case TC_CVT_I8:
		return (float)(int8_t)p[e];
	case TC_CVT_U8:
		return (float)p[e];
	case TC_CVT_I32:
		memcpy(&i, p + e * 4, 4);
		return (float)i;
	case TC_CVT_I4:
		n = tc_cvt_nibble_get(base, e);
		return (float)((int)(n ^ 8) - 8);
	case TC_CVT_U4:
		return (float)tc_cvt_nibble_get(base, e);
	default:
		return 0.0f;
	}
}

void tc_cvt_store(enum tc_cvt_kind k, void *base, int64_t e, float x)
{
	unsigned char *p = base;
	uint16_t h;
	int32_t i;

	switch (k) {
	case TC_CVT_F32:
		memcpy(p + e * 4, &x, 4);
		break;
	case TC_CVT_F16:
		h = tc_cvt_f32_to_f16(x);
		memcpy(p + e * 2, &h, 2);
		break;
	case TC_CVT_BF16:
		h = tc_cvt_f32_to_bf16(x);
		memcpy(p + e * 2, &h, 2);
		break;
	case TC_CVT_I8:
	case TC_CVT_U8:
		p[e] = (unsigned char)tc_cvt_f32_to_int(x, k);
		break;
	case TC_CVT_I32:
		i = tc_cvt_f32_to_int(x, k);
		memcpy(p + e * 4, &i, 4);
		break;
	case TC_CVT_I4:
	case TC_CVT_U4:
		tc_cvt_nibble_set(base, e, (unsigned int)tc_cvt_f32_to_int(x, k));
		break;
	default:
		break;
	}
}

/* ---- the scalar kernel set ---------------------------------------------- */

#define SCALAR_CODEC(kind, lname)					\
static void scalar_decode_##lname(float *dst, const void *src, size_t n) \
{									\
	for (size_t i = 0; i < n; i++)					\
		dst[i] = tc_cvt_load(kind, src, (int64_t)i);		\
}									\
static void scalar_encode_##lname(void *dst, const float *src, size_t n) \
{									\
	for (size_t i = 0; i < n; i++)					\
		tc_cvt_store(kind, dst, (int64_t)i, src[i]);		\
}
SCALAR_CODEC(TC_CVT_F16, f16)
SCALAR_CODEC(TC_CVT_BF16, bf16)
SCALAR_CODEC(TC_CVT_I8, i8)
SCALAR_CODEC(TC_CVT_U8, u8)
SCALAR_CODEC(TC_CVT_I32, i32)
SCALAR_CODEC(TC_CVT_I4, i4)
SCALAR_CODEC(TC_CVT_U4, u4)

/* f32 "decodes" and "encodes" by copying (memmove: dst may be src). */
static void scalar_decode_f32(float *dst, const void *src, size_t n)
{
	memmove(dst, src, n * sizeof(float));
}

static void scalar_encode_f32(void *dst, const float *src, size_t n)
{
	memmove(dst, src, n * sizeof(float));
}

static void scalar_affine(float *dst, const float *src, size_t n,
			  const struct tc_cvt_affine *a, const float *scale,
			  ptrdiff_t scale_stride)
{
	for (size_t i = 0; i < n; i++) {
		float x = src[i];

		if (a->ops & TC_CVT_SUB_ZP)
			x -= a->src_zp;
		if (a->ops & TC_CVT_MUL)
			x *= scale[(ptrdiff_t)i * scale_stride];
		if (a->ops & TC_CVT_ADD_ZP)
			x += a->dst_zp;
		dst[i] = x;
	}
}

static int scalar_available(void)
{
	return 1;
}

const struct tc_cvt_kernels tc_cvt_scalar = {
	.name = "scalar",
	.available = scalar_available,
	.decode = {
		[TC_CVT_F32] = scalar_decode_f32,
		[TC_CVT_F16] = scalar_decode_f16,
		[TC_CVT_BF16] = scalar_decode_bf16,
		[TC_CVT_I8] = scalar_decode_i8,
		[TC_CVT_U8] = scalar_decode_u8,
		[TC_CVT_I32] = scalar_decode_i32,
		[TC_CVT_I4] = scalar_decode_i4,
		[TC_CVT_U4] = scalar_decode_u4,
	},
	.encode = {
		[TC_CVT_F32] = scalar_encode_f32,
		[TC_CVT_F16] = scalar_encode_f16,
		[TC_CVT_BF16] = scalar_encode_bf16,
		[TC_CVT_I8] = scalar_encode_i8,
		[TC_CVT_U8] = scalar_encode_u8,
		[TC_CVT_I32] = scalar_encode_i32,
		[TC_CVT_I4] = scalar_encode_i4,
		[TC_CVT_U4] = scalar_encode_u4,
	},
	.affine = scalar_affine,
};

/* ---- the element-by-element oracle --------------------------------------- */

static void ref_copy_elem(enum tc_cvt_kind k, void *dst, int64_t de,
			  const void *src, int64_t se)
{
	unsigned int bits = tc_cvt_kind_bits(k);

	if (bits == 4)
		tc_cvt_nibble_set(dst, de, tc_cvt_nibble_get(src, se));
	else
		memmove((char *)dst + de * (bits / 8),
			(const char *)src + se * (bits / 8), bits / 8);
}

static int32_t ref_int_zp(const struct tc_cvt *cv, const void *src, int64_t se)
{
	int32_t x;
	int64_t v;

	memcpy(&x, (const char *)src + se * 4, 4);
	v = (int64_t)x - cv->src_zp + cv->dst_zp;
	if (v > INT32_MAX)
		return INT32_MAX;
	if (v < INT32_MIN)
		return INT32_MIN;
	return (int32_t)v;
}

void tc_cvt_ref_run(const struct tc_cvt *cv,
		    void *dst, int64_t dst_off, int64_t dst_stride,
		    const void *src, int64_t src_off, int64_t src_stride,
		    size_t n, const float *scale, ptrdiff_t scale_stride)
{
	for (size_t i = 0; i < n; i++) {
		int64_t de = dst_off + (int64_t)i * dst_stride;
		int64_t se = src_off + (int64_t)i * src_stride;
		float x, s;

		if (cv->copy) {
			ref_copy_elem(cv->src_kind, dst, de, src, se);
			continue;
		}
		if (cv->int_zp) {
			int32_t v = ref_int_zp(cv, src, se);

			memcpy((char *)dst + de * 4, &v, 4);
			continue;
		}
		x = tc_cvt_load(cv->src_kind, src, se);
		s = cv->per_channel ? scale[(ptrdiff_t)i * scale_stride] : cv->scale;
		if (cv->affine.ops & TC_CVT_SUB_ZP)
			x -= cv->affine.src_zp;
		if (cv->affine.ops & TC_CVT_MUL)
			x *= s;
		if (cv->affine.ops & TC_CVT_ADD_ZP)
			x += cv->affine.dst_zp;
		tc_cvt_store(cv->dst_kind, dst, de, x);
	}
}
