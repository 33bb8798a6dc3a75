// SPDX-License-Identifier: MIT
/*
 * desc_check.c - the rules every descriptor obeys, as the driver and the
 * engine apply them; used by the planner (self-check) and before any CPU
 * execution of a descriptor list that came from outside the planner.
 *
 * The same rules live in driver/tilecopy_submit.c and qemu/tilecopy.c;
 * tests/desc_cases.h holds the cases all three must answer alike.
 */
#include <errno.h>
#include <stdint.h>

#include "cpu_exec.h"

int tc_desc_footprint(const struct drm_tilecopy_desc *d, const __u64 *stride,
		      __u64 *bytes)
{
	__u64 last = 0, t;

	for (int k = 0; k < d->ndims; k++) {
		if (__builtin_mul_overflow((__u64)(d->extent[k] - 1), stride[k], &t) ||
		    __builtin_add_overflow(last, t, &last))
			return -EOVERFLOW;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, (__u64)d->elem_size, bytes))
		return -EOVERFLOW;
	return 0;
}

/* Dimensions at and beyond ndims are all zero; used ones have extents. */
static int tc_desc_check_dims(const struct drm_tilecopy_desc *d, const char **field)
{
	for (int k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
		if (k < d->ndims) {
			if (!d->extent[k])
				return *field = "extent", -EINVAL;
			continue;
		}
		if (d->extent[k])
			return *field = "extent", -EINVAL;
		if (d->src_stride[k])
			return *field = "src_stride", -EINVAL;
		if (d->dst_stride[k])
			return *field = "dst_stride", -EINVAL;
	}
	return 0;
}

/* What FILL and WRITE64 leave out, and what they need. */
static int tc_desc_check_op(const struct drm_tilecopy_desc *d, const char **field)
{
	if (d->op == DRM_TILECOPY_OP_COPY)
		return d->value ? (*field = "value", -EINVAL) : 0;
	if (d->src)
		return *field = "src", -EINVAL;
	for (int k = 0; k < d->ndims; k++)
		if (d->src_stride[k])
			return *field = "src_stride", -EINVAL;
	/* A FILL pattern is elem_size bytes: no bit may lie beyond them. */
	if (d->op == DRM_TILECOPY_OP_FILL && d->elem_size < 8 &&
	    d->value >> (8 * d->elem_size))
		return *field = "value", -EINVAL;
	if (d->op == DRM_TILECOPY_OP_WRITE64) {
		if (d->elem_size != 8)
			return *field = "elem_size", -EINVAL;
		if (d->ndims != 1)
			return *field = "ndims", -EINVAL;
		if (d->extent[0] != 1)
			return *field = "extent", -EINVAL;
	}
	return 0;
}

static int tc_desc_check_shape(const struct drm_tilecopy_desc *d,
			       const char **field)
{
	int ret;

	if (d->op < DRM_TILECOPY_OP_COPY || d->op > DRM_TILECOPY_OP_WRITE64)
		return *field = "op", -EINVAL;
	if (d->elem_size != 1 && d->elem_size != 2 && d->elem_size != 4 &&
	    d->elem_size != 8)
		return *field = "elem_size", -EINVAL;
	if (d->ndims < 1 || d->ndims > DRM_TILECOPY_MAX_DIMS)
		return *field = "ndims", -EINVAL;
	if (d->flags)
		return *field = "flags", -EINVAL;
	ret = tc_desc_check_dims(d, field);
	if (ret)
		return ret;
	return tc_desc_check_op(d, field);
}

static int tc_desc_in(__u64 base, const __u64 *stride,
		      const struct drm_tilecopy_desc *d, size_t size)
{
	__u64 bytes, end;
	int ret = tc_desc_footprint(d, stride, &bytes);

	if (ret)
		return ret;
	if (__builtin_add_overflow(base, bytes, &end))
		return -EOVERFLOW;
	return end > size ? -ERANGE : 0;
}

int tc_desc_check(const struct drm_tilecopy_desc *d, size_t src_size,
		  size_t dst_size, const char **field)
{
	int ret = tc_desc_check_shape(d, field);

	if (ret)
		return ret;
	if (d->op == DRM_TILECOPY_OP_COPY) {
		ret = tc_desc_in(d->src, d->src_stride, d, src_size);
		if (ret)
			return *field = "src", ret;
	}
	ret = tc_desc_in(d->dst, d->dst_stride, d, dst_size);
	if (ret)
		return *field = "dst", ret;
	return 0;
}

int tc_desc_list_check(const struct drm_tilecopy_desc *d, size_t n,
		       size_t src_size, size_t dst_size, __u64 max_elems,
		       size_t *bad, const char **field)
{
	__u64 total = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 elems;
		int ret;

		*bad = i;
		ret = tc_desc_check(&d[i], src_size, dst_size, field);
		if (ret)
			return ret;
		elems = tc_desc_elems(&d[i]);
		if (max_elems && (elems > max_elems || total > max_elems - elems))
			return *field = "extent", -E2BIG;
		total += elems;
	}
	return 0;
}
