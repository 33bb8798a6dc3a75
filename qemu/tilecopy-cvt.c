/*
 * tilecopy: element conversion of typed descriptors, over the tilecopy
 * library's scalar reference (tilecopy-cvt.h).
 *
 * scripts/build-qemu.sh copies this file, libuser/cpu/cvt_scalar.c,
 * cvt_desc.c and their headers into hw/misc/tilecopy-cvt/ and builds them as
 * one small library with that directory on the include path (the library's
 * files include "cpu/cvt.h") and without FMA contraction, as the library
 * builds them: each step of a conversion rounds once.
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpu/cpu_exec.h"
#include "cpu/cvt_desc.h"
#include "tilecopy-cvt.h"

/*
 * The one function of the library's cvt.c that cvt_scalar.c needs (cvt.c
 * itself picks SIMD kernels: the engine has no use for them).
 */
unsigned int tc_cvt_kind_bits(enum tc_cvt_kind k)
{
    return tc_desc_type_bits((unsigned)k + DRM_TILECOPY_TYPE_F32);
}

size_t tilecopy_cvt_size(void)
{
    return sizeof(struct tc_cvt);
}

bool tilecopy_cvt_prepare(void *cv, const struct drm_tilecopy_desc *d)
{
    return tc_cvt_desc_init(cv, d, NULL) == 0;
}

void tilecopy_cvt_run(const void *cv, void *dst, int64_t dst_off,
                      const void *src, int64_t src_off, int64_t src_stride,
                      size_t n, const float *scale, ptrdiff_t scale_stride)
{
    tc_cvt_ref_run(cv, dst, dst_off, 1, src, src_off, src_stride, n, scale,
                   scale_stride);
}

unsigned tilecopy_cvt_type_bits(unsigned type)
{
    return tc_desc_type_bits(type);
}

unsigned tilecopy_cvt_nibble_get(const void *base, int64_t e)
{
    return tc_cvt_nibble_get(base, e);
}

void tilecopy_cvt_nibble_set(void *base, int64_t e, unsigned v)
{
    tc_cvt_nibble_set(base, e, v);
}
