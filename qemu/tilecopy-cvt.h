/*
 * tilecopy: element conversion of typed descriptors (tilecopy-cvt.c).
 *
 * The engine converts with the tilecopy library's own scalar reference
 * (libuser/cpu/cvt_scalar.c and cvt_desc.c, built into the device next to
 * tilecopy-cvt.c), so that its results are the CPU reference's bit for bit.
 * This header keeps the library's headers out of the device's own files.
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */

#ifndef HW_MISC_TILECOPY_CVT_H
#define HW_MISC_TILECOPY_CVT_H

struct drm_tilecopy_desc;

/* Bytes of the opaque state tilecopy_cvt_prepare() fills. */
size_t tilecopy_cvt_size(void);

/*
 * Prepare @cv (tilecopy_cvt_size() bytes) for typed COPY @d, whose fields
 * the engine has checked. False if @d is not a typed COPY.
 */
bool tilecopy_cvt_prepare(void *cv, const struct drm_tilecopy_desc *d);

/*
 * dst[dst_off + i] = Q(src[src_off + i * src_stride]) for i < @n, in
 * elements of the descriptor's types (nibbles for 4-bit ones, the other
 * nibble of a byte kept); per channel, element i is scaled by
 * scale[i * scale_stride].
 */
void tilecopy_cvt_run(const void *cv, void *dst, int64_t dst_off,
                      const void *src, int64_t src_off, int64_t src_stride,
                      size_t n, const float *scale, ptrdiff_t scale_stride);

/* Bits of an element of enum drm_tilecopy_type @type; 0 if unknown. */
unsigned tilecopy_cvt_type_bits(unsigned type);

/* Nibble @e of @base (4-bit elements: the even one in the low half). */
unsigned tilecopy_cvt_nibble_get(const void *base, int64_t e);
/* Set nibble @e of @base to @v & 0xf, keeping the other nibble. */
void tilecopy_cvt_nibble_set(void *base, int64_t e, unsigned v);

#endif
