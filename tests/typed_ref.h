/* SPDX-License-Identifier: MIT */
/*
 * typed_ref.h - the reference result of a typed descriptor (ABI 1.2),
 * element by element in the descriptor's order: the conversion of the
 * library's CPU reference (tc_cvt_ref_run() over tc_cvt_desc_init()), a
 * typed FILL as its value's bits. The engine's tests (tests/device) and the
 * driver's (tests/guest) compare device results with it byte for byte.
 *
 * Link libuser/cpu/cvt_scalar.c and cvt_desc.c (and tc_cvt_kind_bits(),
 * from cvt.c or the caller) with it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_TYPED_REF_H
#define TC_TYPED_REF_H

#include <stdint.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/cvt_desc.h"

/*
 * Apply typed descriptor @d to @dst: @src, @dst and @scales are where the
 * descriptor's src, dst and scales point. Returns 0, or -EINVAL if @d is
 * neither a typed COPY nor a typed FILL.
 */
static inline int tc_typed_ref(const struct drm_tilecopy_desc *d, const uint8_t *src,
			       uint8_t *dst, const float *scales)
{
	uint64_t idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
	unsigned int bits = tc_desc_type_bits(d->dst_type), k;
	struct tc_cvt cv;

	if (!bits || (d->op == DRM_TILECOPY_OP_COPY ? tc_cvt_desc_init(&cv, d, &tc_cvt_scalar) :
		      d->op != DRM_TILECOPY_OP_FILL))
		return -EINVAL;
	for (;;) {
		int64_t se = d->src_nibble, de = d->dst_nibble, ce = 0;

		for (k = 0; k < d->ndims; k++) {
			se += idx[k] * d->src_stride[k];
			de += idx[k] * d->dst_stride[k];
			ce += idx[k] * d->scale_stride[k];
		}
		if (d->op == DRM_TILECOPY_OP_COPY)
			tc_cvt_ref_run(&cv, dst, de, 1, src, se, 1, 1, scales + ce, 0);
		else if (bits == 4)
			tc_cvt_nibble_set(dst, de, (unsigned int)d->value);
		else
			memcpy(dst + de * (bits / 8), &d->value, bits / 8);	/* little endian */
		for (k = 0; k < d->ndims; k++) {
			if (++idx[k] < d->extent[k])
				break;
			idx[k] = 0;
		}
		if (k == d->ndims)
			return 0;
	}
}

#endif /* TC_TYPED_REF_H */
