// SPDX-License-Identifier: MIT
/*
 * exec_typed.c - typed descriptors (ABI 1.2) on the CPU: the conversion a
 * descriptor asks for, and the reference loop every executor must match.
 *
 * The conversion is built from the descriptor's own fields (types, zero
 * points, scale flags: tc_cvt_desc_init(), which the engine uses too),
 * never from the plan that made it, so that the CPU runs exactly the list
 * the engine would run and both give the same bits.
 * A COPY is then one tc_cvt_run() per run of dimension 0, in the order
 * the descriptor defines; a FILL writes the low bits of @value to each
 * element (a 4-bit one nibble by nibble, the other nibble of a byte kept).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/cvt_desc.h"

int tc_typed_cvt_init_from(struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
			   const struct tc_cvt_kernels *k, unsigned int src_type)
{
	struct drm_tilecopy_desc x = *d;

	x.src_type = (__u8)src_type;
	return tc_cvt_desc_init(cv, &x, k);
}

int tc_typed_as_untyped(const struct drm_tilecopy_desc *d,
			struct drm_tilecopy_desc *out)
{
	unsigned int bits = tc_desc_type_bits(d->dst_type);

	if (bits < 8)
		return 0;
	if (d->op == DRM_TILECOPY_OP_COPY &&
	    (d->src_type != d->dst_type || d->cvt_flags || d->src_zp || d->dst_zp))
		return 0;
	*out = *d;
	out->src_type = out->dst_type = 0;
	out->elem_size = (__u8)(bits / 8);
	if (bits < 64)
		out->value &= (1ull << bits) - 1;
	return 1;
}

/* Runs of dim 0, outer dims in the descriptor's order (dim 1 fastest). */
void tc_typed_copy_ref(const struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
		       const void *src, void *dst, const float *scales)
{
	__u32 idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
	const char *s = (const char *)src + d->src;
	char *t = (char *)dst + d->dst;
	int64_t so = d->src_nibble, dso = d->dst_nibble, co = 0;
	int k;

	if (scales)
		scales = (const float *)((const char *)scales + d->scales);
	for (;;) {
		tc_cvt_run(cv, t, dso, (int64_t)d->dst_stride[0], s, so,
			   (int64_t)d->src_stride[0], d->extent[0],
			   scales ? scales + co : NULL, (ptrdiff_t)d->scale_stride[0]);
		for (k = 1; k < d->ndims; k++) {
			so += (int64_t)d->src_stride[k];
			dso += (int64_t)d->dst_stride[k];
			co += d->scale_stride[k];
			if (++idx[k] < d->extent[k])
				break;
			so -= (int64_t)(d->src_stride[k] * d->extent[k]);
			dso -= (int64_t)(d->dst_stride[k] * d->extent[k]);
			co -= (int64_t)d->scale_stride[k] * d->extent[k];
			idx[k] = 0;
		}
		if (k >= d->ndims)
			return;
	}
}

/* @n nibbles of value @v from nibble @e of @base on, stride 1. */
static void tc_nibble_run(unsigned char *base, int64_t e, size_t n, unsigned int v)
{
	size_t bytes;

	if (n && (e & 1)) {
		tc_cvt_nibble_set(base, e++, v);
		n--;
	}
	bytes = n / 2;
	memset(base + (e >> 1), (int)(v * 0x11u), bytes);
	if (n & 1)
		tc_cvt_nibble_set(base, e + 2 * (int64_t)bytes, v);
}

/* A FILL of 4-bit elements; the other nibble of every byte is kept. */
void tc_typed_fill4(const struct drm_tilecopy_desc *d, void *dst)
{
	__u32 idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
	unsigned char *t = (unsigned char *)dst + d->dst;
	unsigned int v = (unsigned int)(d->value & 0xf);
	int64_t e = d->dst_nibble;
	int k;

	for (;;) {
		if (d->dst_stride[0] == 1)
			tc_nibble_run(t, e, d->extent[0], v);
		else
			for (__u32 i = 0; i < d->extent[0]; i++)
				tc_cvt_nibble_set(t, e + (int64_t)(i * d->dst_stride[0]), v);
		for (k = 1; k < d->ndims; k++) {
			e += (int64_t)d->dst_stride[k];
			if (++idx[k] < d->extent[k])
				break;
			e -= (int64_t)(d->dst_stride[k] * d->extent[k]);
			idx[k] = 0;
		}
		if (k >= d->ndims)
			return;
	}
}

int tc_typed_scales_ok(const struct drm_tilecopy_desc *d, const float *scales)
{
	return scales || !(d->cvt_flags & DRM_TILECOPY_CVT_SCALES);
}
