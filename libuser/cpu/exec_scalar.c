// SPDX-License-Identifier: MIT
/*
 * exec_scalar.c - the reference executor: one element at a time, in the
 * order the descriptor defines. Every other executor, and the engine, must
 * give the same bytes. Kept deliberately plain.
 */
#include <errno.h>
#include <string.h>

#include "cpu_exec.h"
#include "cvt_desc.h"

static void tc_scalar_copy(const struct drm_tilecopy_desc *d,
			   const unsigned char *src, unsigned char *dst)
{
	__u32 idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
	size_t es = d->elem_size;
	__u64 so = d->src, dso = d->dst;
	int k;

	for (;;) {
		memcpy(dst + dso, src + so, es);
		for (k = 0; k < d->ndims; k++) {
			so += d->src_stride[k] * es;
			dso += d->dst_stride[k] * es;
			if (++idx[k] < d->extent[k])
				break;
			so -= d->src_stride[k] * es * d->extent[k];
			dso -= d->dst_stride[k] * es * d->extent[k];
			idx[k] = 0;
		}
		if (k == d->ndims)
			return;
	}
}

static void tc_scalar_fill(const struct drm_tilecopy_desc *d, unsigned char *dst)
{
	__u32 idx[DRM_TILECOPY_MAX_DIMS] = { 0 };
	unsigned char pat[8];
	size_t es = d->elem_size;
	__u64 dso = d->dst;
	int k;

	/* The pattern is the low elem_size bytes of value, little endian. */
	for (int i = 0; i < 8; i++)
		pat[i] = (unsigned char)(d->value >> (8 * i));
	for (;;) {
		memcpy(dst + dso, pat, es);
		for (k = 0; k < d->ndims; k++) {
			dso += d->dst_stride[k] * es;
			if (++idx[k] < d->extent[k])
				break;
			dso -= d->dst_stride[k] * es * d->extent[k];
			idx[k] = 0;
		}
		if (k == d->ndims)
			return;
	}
}

/*
 * A typed descriptor (ABI 1.2): the scalar conversion kernels, one run of
 * dim 0 at a time; byte-moving ones as their untyped twins.
 */
static int tc_scalar_typed(const struct drm_tilecopy_desc *d, const void *src,
			   void *dst, const float *scales)
{
	struct drm_tilecopy_desc u;
	struct tc_cvt cv;

	if (tc_typed_as_untyped(d, &u))
		return tc_exec_scalar(&u, 1, src, dst);
	if (d->op == DRM_TILECOPY_OP_FILL) {
		tc_typed_fill4(d, dst);
		return 0;
	}
	if (d->op != DRM_TILECOPY_OP_COPY || tc_cvt_desc_init(&cv, d, &tc_cvt_scalar))
		return -EINVAL;
	tc_typed_copy_ref(&cv, d, src, dst, scales);
	return 0;
}

int tc_exec_scalar_scales(const struct drm_tilecopy_desc *descs, size_t n,
			  const void *src, void *dst, const float *scales)
{
	for (size_t i = 0; i < n; i++)
		if (!tc_typed_scales_ok(&descs[i], scales))
			return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct drm_tilecopy_desc *d = &descs[i];
		int ret;

		if (d->src_type || d->dst_type) {
			ret = tc_scalar_typed(d, src, dst, scales);
			if (ret)
				return ret;
			continue;
		}
		switch (d->op) {
		case DRM_TILECOPY_OP_COPY:
			tc_scalar_copy(d, src, dst);
			break;
		case DRM_TILECOPY_OP_FILL:
			tc_scalar_fill(d, dst);
			break;
		case DRM_TILECOPY_OP_WRITE64:
			for (int b = 0; b < 8; b++)
				((unsigned char *)dst)[d->dst + b] =
					(unsigned char)(d->value >> (8 * b));
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

int tc_exec_scalar(const struct drm_tilecopy_desc *descs, size_t n,
		   const void *src, void *dst)
{
	return tc_exec_scalar_scales(descs, n, src, dst, NULL);
}
