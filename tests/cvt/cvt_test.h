/* SPDX-License-Identifier: MIT */
/*
 * cvt_test.h - inputs shared by the element conversion tests: every
 * special value of each kind (signed zeros, infinities, quiet and
 * signalling NaNs with payloads, denormals, rounding ties and their
 * neighbours, values around every saturation limit, large magnitudes) and
 * deterministic samples. Nothing here is random between runs.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_CVT_TEST_H
#define TC_CVT_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cvt.h"

/*
 * For hot loops: Check's ck_assert_msg() records its location through the
 * runner (a system call each time), this only fails.
 */
#define CVT_CHECK(cond, ...) do {					\
		if (!(cond))						\
			ck_abort_msg(__VA_ARGS__);			\
	} while (0)

static const enum tc_cvt_kind cvt_all_kinds[] = {
	TC_CVT_F32, TC_CVT_F16, TC_CVT_BF16, TC_CVT_I8,
	TC_CVT_U8, TC_CVT_I32, TC_CVT_I4, TC_CVT_U4,
};
#define CVT_NKINDS ((int)(sizeof(cvt_all_kinds) / sizeof(cvt_all_kinds[0])))

static inline uint64_t cvt_rng(uint64_t *s)
{
	/* xorshift64*: the same sequence on every run and machine */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static inline void cvt_fill_noise(void *p, size_t n, uint64_t seed)
{
	unsigned char *b = p;
	uint64_t s = seed | 1;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(cvt_rng(&s) >> 56);
}

static inline uint32_t cvt_f2u(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static inline float cvt_u2f(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* A growable array of elements of one kind (raw bits). */
struct cvt_vals {
	enum tc_cvt_kind kind;
	size_t n, cap;
	unsigned char *p;	/* n elements; 4-bit kinds packed */
};

static inline void cvt_vals_init(struct cvt_vals *v, enum tc_cvt_kind k)
{
	v->kind = k;
	v->n = 0;
	v->cap = 1024;
	v->p = calloc(v->cap, 4);
}

static inline void cvt_vals_free(struct cvt_vals *v)
{
	free(v->p);
	v->p = NULL;
}

static inline void cvt_vals_push_bits(struct cvt_vals *v, uint32_t bits)
{
	unsigned int eb = tc_cvt_kind_bits(v->kind);

	if (v->n == v->cap) {
		v->p = realloc(v->p, v->cap * 2 * 4);
		memset(v->p + v->cap * 4, 0, v->cap * 4);
		v->cap *= 2;
	}
	if (eb == 4)
		tc_cvt_nibble_set(v->p, (int64_t)v->n, bits);
	else
		memcpy(v->p + v->n * (eb / 8), &bits, eb / 8);	/* little endian */
	v->n++;
}

static inline void cvt_push_f32(struct cvt_vals *v, float f)
{
	cvt_vals_push_bits(v, cvt_f2u(f));
}

/* f32 value and its negation, and the neighbours one ulp either side. */
static inline void cvt_push_f32_around(struct cvt_vals *v, float f)
{
	cvt_push_f32(v, f);
	cvt_push_f32(v, -f);
	cvt_push_f32(v, nextafterf(f, INFINITY));
	cvt_push_f32(v, nextafterf(f, -INFINITY));
	cvt_push_f32(v, -nextafterf(f, INFINITY));
	cvt_push_f32(v, -nextafterf(f, -INFINITY));
}

/*
 * f32 inputs: the specials; every f16 value, the ties between it and its
 * neighbour and one ulp either side of the tie (all binades, subnormal
 * results included); the same for bf16 (its ties are bit patterns);
 * integers and ties around every saturation limit; a deterministic sample.
 * @sample: how many sample values to add; @ties: 0 leaves out the f16 and
 * bf16 ties (350 K values that only matter to those two conversions).
 */
static inline void cvt_gen_f32(struct cvt_vals *v, size_t sample, int ties)
{
	static const uint32_t specials[] = {
		0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
		0x807fffff, 0x00400000, 0x00800000, 0x80800000, 0x7f7fffff,
		0xff7fffff, 0x7f800000, 0xff800000,
		0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff, 0xffffffff,
		0x7fc12345, 0xffd55555,				/* quiet NaNs */
		0x7f800001, 0xff800001, 0x7fa00000, 0x7fbfffff, 0xff812345,
		0x7f802000, 0x7f801fff,				/* signalling */
		0x3f800000, 0xbf800000, 0x4f000000, 0xcf000000, 0x4effffff,
		0xcf000001, 0x4f800000, 0x5f000000, 0x501502f9, 0xd01502f9,
		0x4b000000, 0x4b000001, 0x4b7fffff, 0x4b800001, 0x477fe000,
		0x477fefff, 0x477ff000, 0x477ff001, 0x477fffff,
	};
	const float lims[] = { 0.5f, 1.5f, 2.5f, 7.0f, 7.5f, 8.0f, 8.5f,
			       15.0f, 15.5f, 16.0f, 127.0f, 127.5f, 128.0f,
			       128.5f, 255.0f, 255.5f, 256.0f, 2147483520.0f,
			       2147483648.0f, 16777216.0f, 65504.0f, 65520.0f };
	uint64_t s = 0x5eed0f32;
	size_t i;

	for (i = 0; i < sizeof(specials) / sizeof(specials[0]); i++)
		cvt_vals_push_bits(v, specials[i]);
	for (uint32_t h = 0; ties && h < 0x7c00; h++) {	/* finite f16 */
		float x = tc_cvt_f16_to_f32((uint16_t)h);
		float y = tc_cvt_f16_to_f32((uint16_t)(h + 1));
		float mid = (x + y) / 2;	/* exact: both have 11 bits */

		cvt_push_f32(v, x);
		cvt_push_f32_around(v, mid);
	}
	for (uint32_t b = 0; ties && b < 0x7f80; b++) {	/* finite bf16 */
		uint32_t u = b << 16;

		cvt_vals_push_bits(v, u | 0x8000);
		cvt_vals_push_bits(v, (u | 0x8000) ^ 0x80000000);
		cvt_vals_push_bits(v, u | 0x7fff);
		cvt_vals_push_bits(v, u | 0x8001);
	}
	for (int k = -300; k <= 300; k++) {
		cvt_push_f32(v, (float)k);
		cvt_push_f32_around(v, (float)k + 0.5f);
	}
	for (i = 0; i < sizeof(lims) / sizeof(lims[0]); i++)
		cvt_push_f32_around(v, lims[i]);
	for (i = 0; i < sample; i++)
		cvt_vals_push_bits(v, (uint32_t)(cvt_rng(&s) >> 32));
}

/* Every value of a 16-bit kind, or of a 4- or 8-bit one. */
static inline void cvt_gen_all(struct cvt_vals *v)
{
	uint32_t n = 1u << tc_cvt_kind_bits(v->kind);

	for (uint32_t b = 0; b < n; b++)
		cvt_vals_push_bits(v, b);
}

static inline void cvt_gen_i32(struct cvt_vals *v, size_t sample)
{
	static const int64_t around[] = {
		0, 7, 8, 15, 16, 127, 128, 255, 256, 16777216, 16777217 + 2,
		1073741824, 2147483520, 2147483584, 2147483647, -2147483647,
	};
	uint64_t s = 0x5eed0132;

	for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++)
		for (int64_t d = -3; d <= 3; d++) {
			int64_t a = around[i] + d, b = -around[i] + d;

			if (a >= INT32_MIN && a <= INT32_MAX)
				cvt_vals_push_bits(v, (uint32_t)(int32_t)a);
			if (b >= INT32_MIN && b <= INT32_MAX)
				cvt_vals_push_bits(v, (uint32_t)(int32_t)b);
		}
	for (size_t i = 0; i < sample; i++)
		cvt_vals_push_bits(v, (uint32_t)(cvt_rng(&s) >> 32));
}

/* The input set of a kind: everything for the narrow kinds. */
static inline void cvt_gen(struct cvt_vals *v, enum tc_cvt_kind k, size_t sample,
			   int ties)
{
	cvt_vals_init(v, k);
	if (k == TC_CVT_F32)
		cvt_gen_f32(v, sample, ties);
	else if (k == TC_CVT_I32)
		cvt_gen_i32(v, sample);
	else
		cvt_gen_all(v);
}

/* Quantization configurations; a per-channel one uses cvt_chan_scales. */
struct cvt_qcfg {
	const char *name;
	int per_channel;	/* 0, or 1 + the dim of a 2-D [rows, cols] tensor */
	float scale;		/* per tensor; 1 = none */
	int32_t src_zp, dst_zp;
};

static const struct cvt_qcfg cvt_qcfgs[] = {
	{ "none", 0, 1.0f, 0, 0 },
	{ "scale", 0, 0.37f, 0, 0 },
	{ "scale-third", 0, 1.0f / 3.0f, 0, 0 },
	{ "scale-neg", 0, -1.5f, 0, 0 },
	{ "scale-tiny", 0, 0x1p-130f, 0, 0 },	/* results in denormals */
	{ "scale-huge", 0, 3e30f, 0, 0 },	/* overflow to inf / saturate */
	{ "src-zp", 0, 1.0f, 3, 0 },
	{ "dst-zp", 0, 1.0f, 0, -5 },
	{ "zp-large", 0, 1.0f, 1000000007, -1000000007 },
	{ "all", 0, 0.37f, -3, 5 },
	{ "chan-rows", 1, 1.0f, 0, 0 },		/* one scale per row (dim 0) */
	{ "chan-cols", 2, 1.0f, 0, 0 },		/* one scale per column (dim 1) */
	{ "chan-cols-zp", 2, 1.0f, 7, -2 },
};
#define CVT_NQCFGS ((int)(sizeof(cvt_qcfgs) / sizeof(cvt_qcfgs[0])))

/* Columns of the 2-D tensor of the per-channel cases: odd, not a power of 2. */
#define CVT_COLS 7

/* Scales of channel c: 1.0 among them, negative, tiny, large. */
static inline float cvt_chan_scale(size_t c)
{
	static const float s[] = { 1.0f, 0.5f, -2.0f, 0.0078125f, 3.25f,
				   1e-20f, 1e20f, -0.3f, 1.0f, 7.0f, 0.999f };

	return s[c % (sizeof(s) / sizeof(s[0]))];
}

#endif /* TC_CVT_TEST_H */
