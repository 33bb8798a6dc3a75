/* SPDX-License-Identifier: MIT */
/*
 * cvt_desc.h - the conversion a typed descriptor (ABI 1.2) asks for, as a
 * prepared struct tc_cvt: one definition for the CPU executors and the
 * engine (qemu/ builds cvt_desc.c and cvt_scalar.c into the device).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_CVT_DESC_H
#define TILECOPY_CPU_CVT_DESC_H

#include "cpu/cvt.h"
#include "tilecopy_accel.h"

/* enum tc_cvt_kind of &enum drm_tilecopy_type @type (F32 .. U4). */
static inline enum tc_cvt_kind tc_cvt_desc_kind(unsigned int type)
{
	return (enum tc_cvt_kind)(type - DRM_TILECOPY_TYPE_F32);
}

/**
 * tc_cvt_desc_init - the conversion of typed COPY descriptor @d.
 * @k: kernel set, or NULL for the scalar one.
 *
 * Unlike tc_cvt_init(), nothing is decided from the values: the descriptor
 * says which steps run. src_zp != 0 subtracts, a CVT_SCALE or CVT_SCALES
 * flag multiplies (by every scale, 1.0 included), dst_zp != 0 adds. The same
 * type with none of them is a bit copy; I32 -> I32 with zero points only is
 * integer arithmetic. With CVT_SCALES the conversion is per channel: each
 * run passes the scales of its elements (tc_cvt_run()'s @scale).
 *
 * @pre @d passed tc_desc_check_v2() (or the engine's and the driver's
 *	equivalent): known types, at most one scale flag, a finite @scale.
 * @return 0, or -EINVAL if @d is not a typed COPY.
 */
int tc_cvt_desc_init(struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
		     const struct tc_cvt_kernels *k);

#endif /* TILECOPY_CPU_CVT_DESC_H */
