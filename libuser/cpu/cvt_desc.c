// SPDX-License-Identifier: MIT
/*
 * cvt_desc.c - a typed descriptor's conversion (cvt_desc.h). Built into the
 * library and, with cvt_scalar.c, into the engine: the two sides read the
 * descriptor's conversion fields in this one place.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <string.h>

#include "cpu/cvt_desc.h"

/* The kinds follow the uAPI's types, one lower: F32 (1) is TC_CVT_F32 (0). */
_Static_assert(DRM_TILECOPY_TYPE_U4 - DRM_TILECOPY_TYPE_F32 == TC_CVT_U4 &&
	       DRM_TILECOPY_TYPE_I32 - DRM_TILECOPY_TYPE_F32 == TC_CVT_I32 &&
	       DRM_TILECOPY_TYPE_BF16 - DRM_TILECOPY_TYPE_F32 == TC_CVT_BF16,
	       "enum tc_cvt_kind and enum drm_tilecopy_type out of step");

int tc_cvt_desc_init(struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
		     const struct tc_cvt_kernels *k)
{
	const __u32 scaled = DRM_TILECOPY_CVT_SCALE | DRM_TILECOPY_CVT_SCALES;

	memset(cv, 0, sizeof(*cv));
	if (d->op != DRM_TILECOPY_OP_COPY ||
	    d->src_type < DRM_TILECOPY_TYPE_F32 || d->src_type > DRM_TILECOPY_TYPE_U4 ||
	    d->dst_type < DRM_TILECOPY_TYPE_F32 || d->dst_type > DRM_TILECOPY_TYPE_U4)
		return -EINVAL;
	cv->src_kind = tc_cvt_desc_kind(d->src_type);
	cv->dst_kind = tc_cvt_desc_kind(d->dst_type);
	cv->scale = 1.0f;
	if (d->cvt_flags & scaled)
		cv->affine.ops |= TC_CVT_MUL;
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE)
		memcpy(&cv->scale, &d->scale, sizeof(cv->scale));
	cv->per_channel = !!(d->cvt_flags & DRM_TILECOPY_CVT_SCALES);
	if (d->src_zp)
		cv->affine.ops |= TC_CVT_SUB_ZP;
	if (d->dst_zp)
		cv->affine.ops |= TC_CVT_ADD_ZP;
	/* rounded to nearest even beyond 2^24, as tc_cvt_init() does */
	cv->affine.src_zp = (float)d->src_zp;
	cv->affine.dst_zp = (float)d->dst_zp;
	cv->src_zp = d->src_zp;
	cv->dst_zp = d->dst_zp;
	cv->copy = cv->src_kind == cv->dst_kind && !cv->affine.ops;
	cv->int_zp = cv->src_kind == TC_CVT_I32 && cv->dst_kind == TC_CVT_I32 &&
		     cv->affine.ops && !(cv->affine.ops & TC_CVT_MUL);
	if (!k)
		k = &tc_cvt_scalar;
	cv->k = k;
	cv->decode = k->decode[cv->src_kind] ? k->decode[cv->src_kind] :
		     tc_cvt_scalar.decode[cv->src_kind];
	cv->encode = k->encode[cv->dst_kind] ? k->encode[cv->dst_kind] :
		     tc_cvt_scalar.encode[cv->dst_kind];
	cv->affine_fn = k->affine ? k->affine : tc_cvt_scalar.affine;
	return 0;
}
