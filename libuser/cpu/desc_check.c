// SPDX-License-Identifier: MIT
/*
 * desc_check.c - the rules every descriptor obeys, as the driver and the
 * engine apply them; used by the planner (self-check) and before any CPU
 * execution of a descriptor list that came from outside the planner.
 *
 * The same rules live in driver/tilecopy_submit.c and qemu/tilecopy.c;
 * tests/desc_cases.h holds the cases all three must answer alike. The order
 * of the checks is theirs too: the op, the element types, the fixed fields,
 * the dimensions, what the op leaves out, the typed fields (ABI 1.2), then
 * the footprints (source, destination, scales) and the work.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cpu_exec.h"

/* Bits per element of one side: its type's, or elem_size bytes untyped. */
static unsigned int tc_desc_side_bits(const struct drm_tilecopy_desc *d, int src_side)
{
	unsigned int type = src_side ? d->src_type : d->dst_type;

	return type ? tc_desc_type_bits(type) : 8u * d->elem_size;
}

int tc_desc_side_footprint(const struct drm_tilecopy_desc *d, int src_side,
			   __u64 *bytes)
{
	const __u64 *stride = src_side ? d->src_stride : d->dst_stride;
	unsigned int bits = tc_desc_side_bits(d, src_side);
	__u64 last = 0, t;

	for (int k = 0; k < d->ndims; k++) {
		if (__builtin_mul_overflow((__u64)(d->extent[k] - 1), stride[k], &t) ||
		    __builtin_add_overflow(last, t, &last))
			return -EOVERFLOW;
	}
	if (bits == 4) {
		/* nibbles nibble .. nibble + last: ceil((nibble + last + 1) / 2) bytes */
		if (__builtin_add_overflow(last, (__u64)(src_side ? d->src_nibble :
							 d->dst_nibble), &last))
			return -EOVERFLOW;
		*bytes = last / 2 + 1;
		return 0;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, (__u64)(bits / 8), bytes))
		return -EOVERFLOW;
	return 0;
}

int tc_desc_footprint(const struct drm_tilecopy_desc *d, const __u64 *stride,
		      __u64 *bytes)
{
	return tc_desc_side_footprint(d, stride == d->src_stride, bytes);
}

/*
 * Element types: known ones; a COPY has both or neither, a FILL at most a
 * destination type, a WRITE64 none (it writes 64 raw bits).
 */
static int tc_desc_check_types(const struct drm_tilecopy_desc *d, const char **field)
{
	if (d->src_type > DRM_TILECOPY_TYPE_U4)
		return *field = "src_type", -EINVAL;
	if (d->dst_type > DRM_TILECOPY_TYPE_U4)
		return *field = "dst_type", -EINVAL;
	if (d->op == DRM_TILECOPY_OP_COPY && !d->src_type != !d->dst_type)
		return *field = d->src_type ? "dst_type" : "src_type", -EINVAL;
	if (d->op != DRM_TILECOPY_OP_COPY && d->src_type)
		return *field = "src_type", -EINVAL;
	if (d->op == DRM_TILECOPY_OP_WRITE64 && d->dst_type)
		return *field = "dst_type", -EINVAL;
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
		if (d->scale_stride[k])
			return *field = "scale_stride", -EINVAL;
	}
	return 0;
}

/* What FILL and WRITE64 leave out, and what they need. */
static int tc_desc_check_op(const struct drm_tilecopy_desc *d, const char **field)
{
	unsigned int bits = tc_desc_side_bits(d, 0);

	if (d->op == DRM_TILECOPY_OP_COPY)
		return d->value ? (*field = "value", -EINVAL) : 0;
	if (d->src)
		return *field = "src", -EINVAL;
	for (int k = 0; k < d->ndims; k++)
		if (d->src_stride[k])
			return *field = "src_stride", -EINVAL;
	/* A FILL pattern is one element: no bit may lie beyond it. */
	if (d->op == DRM_TILECOPY_OP_FILL && bits < 64 && d->value >> bits)
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

/* A nibble field: 0 or 1, and only on a 4-bit side. */
static int tc_desc_check_nibble(unsigned int nibble, unsigned int type)
{
	return nibble > 1 || (nibble && tc_desc_type_bits(type) != 4);
}

/*
 * The typed fields (ABI 1.2): each is zero unless its descriptor uses it.
 * A binary32 scale must be finite: its exponent is not all ones.
 */
static int tc_desc_check_cvt(const struct drm_tilecopy_desc *d, const char **field)
{
	const __u32 known = DRM_TILECOPY_CVT_SCALE | DRM_TILECOPY_CVT_SCALES;
	int converts = d->op == DRM_TILECOPY_OP_COPY && d->src_type;

	if (tc_desc_check_nibble(d->src_nibble, d->src_type))
		return *field = "src_nibble", -EINVAL;
	if (tc_desc_check_nibble(d->dst_nibble, d->dst_type))
		return *field = "dst_nibble", -EINVAL;
	if ((d->cvt_flags & ~known) || d->cvt_flags == known ||
	    (d->cvt_flags && !converts))
		return *field = "cvt_flags", -EINVAL;
	if (d->src_zp && !converts)
		return *field = "src_zp", -EINVAL;
	if (d->dst_zp && !converts)
		return *field = "dst_zp", -EINVAL;
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE ?
	    (d->scale & 0x7f800000u) == 0x7f800000u : d->scale != 0)
		return *field = "scale", -EINVAL;
	if (d->pad)
		return *field = "pad", -EINVAL;
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES)
		return 0;
	if (d->scales)
		return *field = "scales", -EINVAL;
	for (int k = 0; k < DRM_TILECOPY_MAX_DIMS; k++)
		if (d->scale_stride[k])
			return *field = "scale_stride", -EINVAL;
	return 0;
}

static int tc_desc_check_shape(const struct drm_tilecopy_desc *d,
			       const char **field)
{
	int ret;

	if (d->op < DRM_TILECOPY_OP_COPY || d->op > DRM_TILECOPY_OP_WRITE64)
		return *field = "op", -EINVAL;
	ret = tc_desc_check_types(d, field);
	if (ret)
		return ret;
	/* typed: each side's size is its type's, so elem_size must be 0 */
	if (d->dst_type ? d->elem_size != 0 :
	    d->elem_size != 1 && d->elem_size != 2 && d->elem_size != 4 &&
	    d->elem_size != 8)
		return *field = "elem_size", -EINVAL;
	if (d->ndims < 1 || d->ndims > DRM_TILECOPY_MAX_DIMS)
		return *field = "ndims", -EINVAL;
	if (d->flags)
		return *field = "flags", -EINVAL;
	ret = tc_desc_check_dims(d, field);
	if (ret)
		return ret;
	ret = tc_desc_check_op(d, field);
	if (ret)
		return ret;
	return tc_desc_check_cvt(d, field);
}

static int tc_desc_in(__u64 base, __u64 bytes, size_t size)
{
	__u64 end;

	if (__builtin_add_overflow(base, bytes, &end))
		return -EOVERFLOW;
	return end > size ? -ERANGE : 0;
}

static int tc_desc_side_in(const struct drm_tilecopy_desc *d, int src_side,
			   size_t size)
{
	__u64 bytes;
	int ret = tc_desc_side_footprint(d, src_side, &bytes);

	return ret ? ret : tc_desc_in(src_side ? d->src : d->dst, bytes, size);
}

int tc_desc_check_v2(const struct drm_tilecopy_desc *d, size_t src_size,
		     size_t dst_size, size_t scales_size, const char **field)
{
	int ret = tc_desc_check_shape(d, field);
	__u64 bytes;

	if (ret)
		return ret;
	if (d->op == DRM_TILECOPY_OP_COPY) {
		ret = tc_desc_side_in(d, 1, src_size);
		if (ret)
			return *field = "src", ret;
	}
	ret = tc_desc_side_in(d, 0, dst_size);
	if (ret)
		return *field = "dst", ret;
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES) {
		ret = tc_desc_scales_footprint(d, &bytes);
		if (!ret)
			ret = tc_desc_in(d->scales, bytes, scales_size);
		if (ret)
			return *field = "scales", ret;
	}
	return 0;
}

int tc_desc_check(const struct drm_tilecopy_desc *d, size_t src_size,
		  size_t dst_size, const char **field)
{
	return tc_desc_check_v2(d, src_size, dst_size, 0, field);
}

int tc_desc_list_check_v2(const struct drm_tilecopy_desc *d, size_t n,
			  size_t src_size, size_t dst_size, size_t scales_size,
			  __u64 max_elems, size_t *bad, const char **field)
{
	__u64 total = 0;

	for (size_t i = 0; i < n; i++) {
		__u64 elems;
		int ret;

		*bad = i;
		ret = tc_desc_check_v2(&d[i], src_size, dst_size, scales_size, field);
		if (ret)
			return ret;
		elems = tc_desc_elems(&d[i]);
		if (max_elems && (elems > max_elems || total > max_elems - elems))
			return *field = "extent", -E2BIG;
		total += elems;
	}
	return 0;
}

int tc_desc_list_check(const struct drm_tilecopy_desc *d, size_t n,
		       size_t src_size, size_t dst_size, __u64 max_elems,
		       size_t *bad, const char **field)
{
	return tc_desc_list_check_v2(d, n, src_size, dst_size, 0, max_elems, bad,
				     field);
}
