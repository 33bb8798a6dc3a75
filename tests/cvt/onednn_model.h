/* SPDX-License-Identifier: MIT */
/*
 * onednn_model.h - what oneDNN 2.6's reorder gives for one element where
 * tilecopy differs by design (docs/dtype-conversion.md, section 3): the
 * three behaviours tilecopy does not copy, modelled exactly so that the
 * tests still check those elements bit for bit, and count them.
 *
 *   ref-signed-zero  oneDNN's only f16 reorder is its reference, which
 *                    computes scale * (x - zp) + zp even when they are 1
 *                    and 0: a -0 result becomes +0 and a signalling NaN
 *                    is quieted even in an f16 -> f16 copy;
 *   bf16-int-nosat   bf16 -> s8/u8 without scale or zero point in the
 *                    jit:uni reorder skips the saturation step: NaN and
 *                    |x| >= 2^31 come out as INT32_MIN narrowed (-128 for
 *                    s8, 0 for u8). Where oneDNN's JIT targets AVX-512
 *                    BF16 without AMX (AMD Zen 4/5) it does so with
 *                    per-channel scales too, on the quantized value, in
 *                    some layouts (nChw16c -> nhwc with scales along C):
 *                    there either result is taken, the INT32_MIN one
 *                    counted. Where oneDNN's is INT32_MIN, tilecopy's
 *                    must be the saturated value;
 *   s32-zp-wrap      s32 -> s32 with zero points only wraps around on
 *                    overflow, tilecopy saturates;
 *   pad-neg-zero     (layout changes) the jit:uni reorder into f32 fills
 *                    some of the destination's padding with its zeros
 *                    times a scale: -0 where that scale is negative
 *                    (which scale depends on the layout: OIhw16i16o's
 *                    padding stays +0, nChw16c's takes the per-tensor
 *                    scale's sign and, with scales along N, another
 *                    channel's; on AVX-512 BF16 without AMX into bf16
 *                    alike). tilecopy's padding is zero bytes, in any
 *                    plan. So a padding element of oneDNN's must be a
 *                    zero: +0, or -0 in f32 or bf16 from jit:uni, counted.
 *
 * Used by test_cvt_onednn.c (plain 2-D tensors) and test_reorder_onednn.c
 * (layouts and conversion together).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_ONEDNN_MODEL_H
#define TC_ONEDNN_MODEL_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu/cvt.h"

enum defect {
	D_NONE, D_REF_SIGNED_ZERO, D_REF_NAN_INT, D_BF16_NOSAT, D_S32_WRAP, D_PAD_NEG_ZERO,
	D_COUNT
};
static const char *const defect_name[D_COUNT] = {
	"", "ref-signed-zero", "ref-nan-int", "bf16-int-nosat", "s32-zp-wrap", "pad-neg-zero",
};

/*
 * One element's conversion as oneDNN's reorder sees it: kinds, the scale
 * the element is multiplied by, the zero points, and whether the reorder
 * has any scale or zero point at all (oneDNN's attributes).
 */
struct onednn_elem {
	enum tc_cvt_kind sk, dk;
	float scale;
	int32_t src_zp, dst_zp;
	int per_channel;	/* scales per channel (then scale is this one's) */
	int unit_scale;		/* per tensor and 1.0: no output scales */
	uint32_t got;		/* oneDNN's bits for it */
};

static inline uint32_t onednn_load_bits(const void *p, size_t i, size_t es)
{
	uint32_t u = 0;

	memcpy(&u, (const char *)p + i * es, es);
	return u;
}

/*
 * oneDNN's reference reorder rounds scale * ((float)x - zp) + zp, every
 * step done: -0 before the rounding becomes +0, a NaN is quieted; a NaN
 * into an integer is CVTSS2SI's INT32_MIN, narrowed.
 */
static inline uint32_t onednn_ref(const struct onednn_elem *e, const void *src,
				  int64_t si, uint32_t ours, enum defect *why)
{
	float x = tc_cvt_load(e->sk, src, si);
	unsigned char out[4] = { 0 };
	uint32_t want;

	x = e->scale * (x - (float)e->src_zp) + (float)e->dst_zp;
	if (!tc_cvt_kind_is_float(e->dk) && isnan(x)) {
		want = e->dk == TC_CVT_I32 ? 0x80000000u : 0;
		if (want != ours)
			*why = D_REF_NAN_INT;
		return want;
	}
	tc_cvt_store(e->dk, out, 0, x);
	want = onednn_load_bits(out, 0, tc_cvt_kind_bits(e->dk) / 8);
	if (want != ours)
		*why = D_REF_SIGNED_ZERO;
	return want;
}

/*
 * The bits oneDNN's reorder (implementation @impl) gives for source
 * element @si of @src, where tilecopy gives @ours; *@why says which
 * documented deviation made them differ, if one did.
 */
static inline uint32_t onednn_expect(const struct onednn_elem *e, const char *impl,
				     const void *src, int64_t si, uint32_t ours,
				     enum defect *why)
{
	int no_quant = e->unit_scale && !e->src_zp && !e->dst_zp;
	uint32_t sbits = onednn_load_bits(src, (size_t)si, tc_cvt_kind_bits(e->sk) / 8);

	*why = D_NONE;
	if ((e->sk == TC_CVT_F16 || e->dk == TC_CVT_F16) && tc_cvt_kind_is_float(e->dk))
		return onednn_ref(e, src, si, ours, why);
	if ((e->sk == TC_CVT_BF16 || e->dk == TC_CVT_BF16) && !strcmp(impl, "simple:any"))
		return onednn_ref(e, src, si, ours, why);
	if (e->sk == TC_CVT_BF16 && (e->dk == TC_CVT_I8 || e->dk == TC_CVT_U8) &&
	    !strcmp(impl, "jit:uni")) {
		float x = tc_cvt_bf16_to_f32((uint16_t)sbits);
		uint32_t want = ours, nosat = e->dk == TC_CVT_I8 ? 0x80 : 0x00;

		if (!no_quant)	/* oneDNN's order: scale * (x - zp) + zp */
			x = e->scale * (x - (float)e->src_zp) + (float)e->dst_zp;
		/*
		 * CVTPS2DQ's INT32_MIN, then VPMOVSDB, or VPMAXSD 0 + VPMOVUSDB.
		 * With scales only per channel, and only where oneDNN gave it;
		 * ours must then still be the saturated value (else it is
		 * returned and compared with oneDNN's).
		 */
		if ((isnan(x) || x >= 2147483648.0f || x < -2147483648.0f) &&
		    (no_quant || (e->per_channel && e->got == nosat))) {
			unsigned char sat[1];

			tc_cvt_store(e->dk, sat, 0, x);
			if (ours != sat[0])
				return ours;
			want = nosat;
		}
		if (want != ours)
			*why = D_BF16_NOSAT;
		return want;
	}
	if (e->sk == TC_CVT_I32 && e->dk == TC_CVT_I32 && e->unit_scale) {
		uint32_t want = sbits - (uint32_t)e->src_zp + (uint32_t)e->dst_zp;

		if (want != ours)
			*why = D_S32_WRAP;
		return want;
	}
	return ours;
}

/*
 * A padding element of the destination, @got in oneDNN's output: what it
 * must be (0, or the -0 pad-neg-zero allows); *@why as onednn_expect's.
 */
static inline uint32_t onednn_expect_pad(enum tc_cvt_kind dk, const char *impl, uint32_t got,
					 enum defect *why)
{
	*why = D_NONE;
	if (!strcmp(impl, "jit:uni") && ((dk == TC_CVT_F32 && got == 0x80000000u) ||
					 (dk == TC_CVT_BF16 && got == 0x8000u))) {
		*why = D_PAD_NEG_ZERO;
		return got;
	}
	return 0;
}

/* ", 12 ref-signed-zero, 3 s32-zp-wrap": the deviations counted, for a summary line. */
static inline const char *onednn_defects_str(const size_t *by_design, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int d = 1; d < D_COUNT; d++)
		if (by_design[d])
			snprintf(buf + strlen(buf), size - strlen(buf), ", %zu %s",
				 by_design[d], defect_name[d]);
	return buf;
}

#endif /* TC_ONEDNN_MODEL_H */
