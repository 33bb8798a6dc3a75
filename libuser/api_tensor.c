// SPDX-License-Identifier: MIT
/*
 * api_tensor.c - the public tensor handles: made from a format (logical or
 * physical shape), from shape and stride arrays, from a layout; getters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define TC_TENSOR_FLAGS (TILECOPY_TENSOR_SHAPE_PHYSICAL | TILECOPY_TENSOR_VIEW)

tilecopy_status_t tc_tensor_arg(const tilecopy_tensor_t *t, const char *what)
{
	if (!t)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL tensor", what);
	if (t->magic != TC_MAGIC_TENSOR)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: not a tensor handle (destroyed, or another object)", what);
	/* cheap (a few dozen fields): no getter walks a damaged tensor */
	return tc_tensor_check(t, what);
}

/*
 * Check @v whole, its byte size too (a tensor no buffer can hold is refused
 * here, not at its first use), then hand out a heap copy as a new handle.
 */
static tilecopy_status_t tc_tensor_out(tilecopy_tensor_t **out, const tilecopy_tensor_t *v)
{
	tilecopy_tensor_t *t;
	uint64_t bytes;
	tilecopy_status_t st = tc_tensor_check(v, "tensor");

	if (!st)
		st = tc_tensor_bytes(v, &bytes);
	if (st)
		return st;
	t = malloc(sizeof(*t));
	if (!t)
		return tc_fail(TILECOPY_ERR_NOMEM, "tensor: out of memory");
	*t = *v;
	t->magic = TC_MAGIC_TENSOR;
	/* lent out by tilecopy_tensor_layout: readable, never destroyed */
	t->layout.magic = TC_MAGIC_LAYOUT_BORROWED;
	*out = t;
	return tc_ok();
}

static tilecopy_status_t tc_check_flags(uint32_t flags, uint32_t known)
{
	if (flags & ~known)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~known);
	return TILECOPY_SUCCESS;
}

/*
 * The physical order of @format for @rank dims, found from the layout it
 * gives a probe shape (modes by outer stride, largest first): the one
 * definition tilecopy_tensor_physical_order and TILECOPY_TENSOR_SHAPE_PHYSICAL
 * share. It does not depend on the tensor's shape, so a dim of size 1 or a
 * single fractal block (whose strides say nothing) keeps its place. The probe's
 * dims are 64 - larger than every default block, so no outer leaf is
 * trivial and ties cannot hide the order - from the innermost dims out,
 * then 2 once the product passes 2^40 (only plain batch dims are left).
 * Formats with fixed strides (strided:, CuTe) ignore the probe; those
 * whose modes are smaller than 64 get a probe of ones.
 */
static tilecopy_status_t tc_physical_perm(const char *format, int rank,
					  tilecopy_dtype_t dtype, const char *block,
					  int *order)
{
	int64_t probe[TILECOPY_MAX_RANK], prod = 1;
	tilecopy_tensor_t t;
	tilecopy_status_t st;

	for (int k = rank - 1; k >= 0; k--) {
		probe[k] = prod < (1LL << 40) ? 64 : 2;
		prod *= probe[k];
	}
	st = tc_tensor_make(&t, format, probe, rank, dtype, block);
	if (st) {
		for (int k = 0; k < rank; k++)
			probe[k] = 1;
		st = tc_tensor_make(&t, format, probe, rank, dtype, block);
	}
	if (st)
		return st;
	memcpy(order, t.order, sizeof(t.order[0]) * (size_t)rank);
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_create(tilecopy_tensor_t **out,
						      const char *format,
						      const int64_t *shape, int rank,
						      tilecopy_dtype_t dtype,
						      const char *block, uint32_t flags)
{
	int64_t logical[TILECOPY_MAX_RANK];
	int order[TILECOPY_MAX_RANK], has_order;
	tilecopy_tensor_t v;
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");
	*out = NULL;
	st = tc_check_flags(flags, TC_TENSOR_FLAGS);
	if (st)
		return st;
	if (!format || !shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "tensor: NULL %s",
			       format ? "shape" : "format");
	if (rank < 1 || rank > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH, "shape: rank %d outside 1..%d",
			       rank, TILECOPY_MAX_RANK);
	st = tc_physical_perm(format, rank, dtype, block, order);
	if (flags & TILECOPY_TENSOR_SHAPE_PHYSICAL) {
		if (st)
			return st;
		for (int k = 0; k < rank; k++)
			logical[order[k]] = shape[k];
		shape = logical;
	}
	has_order = !st;
	st = tc_tensor_make(&v, format, shape, rank, dtype, block);
	if (st)
		return st;
	if (has_order)		/* else the tensor's own, by stride */
		memcpy(v.order, order, sizeof(order[0]) * (size_t)rank);
	v.view = !!(flags & TILECOPY_TENSOR_VIEW);
	return tc_tensor_out(out, &v);
}

/* Strides in elements from @strides (bytes or elements, NULL = row-major). */
static tilecopy_status_t tc_strides_in_elems(int64_t *st, int rank, const int64_t *shape,
					     const int64_t *strides, size_t esize,
					     uint32_t flags)
{
	int64_t s = 1;

	for (int k = rank - 1; k >= 0; k--) {
		if (!strides) {
			st[k] = s;
			if (tc_mul_ovf(s, shape[k], &s))
				return tc_fail(TILECOPY_ERR_OVERFLOW,
					       "shape: element count overflows 64 bits");
			continue;
		}
		st[k] = strides[k];
		if (st[k] < 0)
			return tc_fail(TILECOPY_ERR_UNSUPPORTED,
				       "strides[%d]: %lld is negative; the engine walks memory forward only (make the tensor contiguous first, e.g. numpy.ascontiguousarray)",
				       k, (long long)st[k]);
		if (flags & TILECOPY_STRIDES_BYTES) {
			if (st[k] % (int64_t)esize)
				return tc_fail(TILECOPY_ERR_INVALID_ARG,
					       "strides[%d]: %lld bytes is not a multiple of the element size %zu",
					       k, (long long)st[k], esize);
			st[k] /= (int64_t)esize;
		}
	}
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_create_strided(tilecopy_tensor_t **out,
							      int rank,
							      const int64_t *shape,
							      const int64_t *strides,
							      tilecopy_dtype_t dtype,
							      uint64_t byte_offset,
							      uint32_t flags)
{
	int64_t st_el[TILECOPY_MAX_RANK];
	size_t esize = tc_dtype_size(dtype);
	tilecopy_tensor_t v;
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");
	*out = NULL;
	st = tc_check_flags(flags, TILECOPY_STRIDES_BYTES | TILECOPY_TENSOR_VIEW);
	if (st)
		return st;
	if (!shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "shape: NULL");
	if (!esize)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dtype);
	if (rank < 1 || rank > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH, "shape: rank %d outside 1..%d",
			       rank, TILECOPY_MAX_RANK);
	for (int k = 0; k < rank; k++)
		if (shape[k] < 1)
			return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
				       "shape[%d]: %lld is not >= 1 (empty tensors have nothing to convert)",
				       k, (long long)shape[k]);
	st = tc_strides_in_elems(st_el, rank, shape, strides, esize, flags);
	if (st)
		return st;
	memset(&v, 0, sizeof(v));
	st = tc_layout_make(&v.layout, rank, shape, st_el);
	if (st)
		return st;
	if (tc_layout_cosize(&v.layout) < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "strides: physical size overflows 64 bits");
	memcpy(v.extent, shape, sizeof(shape[0]) * (size_t)rank);
	v.dtype = dtype;
	v.byte_offset = byte_offset;
	v.view = 1;
	snprintf(v.format, sizeof(v.format), "strided");
	tc_tensor_stride_order(&v, v.order);
	return tc_tensor_out(out, &v);
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_create_layout(tilecopy_tensor_t **out,
							     const tilecopy_layout_t *layout,
							     const int64_t *extent,
							     tilecopy_dtype_t dtype,
							     uint32_t flags)
{
	tilecopy_tensor_t v;
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");
	*out = NULL;
	st = tc_check_flags(flags, TILECOPY_TENSOR_VIEW);
	if (!st)
		st = tc_layout_arg(layout, "layout");
	if (!st)
		st = tc_layout_check(layout, "layout");
	if (st)
		return st;
	if (!tc_dtype_size(dtype))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dtype);
	memset(&v, 0, sizeof(v));
	v.layout = *layout;
	for (int m = 0; m < layout->rank; m++) {
		int64_t ms = tc_layout_mode_size(layout, m);

		if (ms < 0)
			return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: mode %d size overflows", m);
		v.extent[m] = extent ? extent[m] : ms;
	}
	if (tc_layout_cosize(layout) < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: physical size overflows 64 bits");
	v.dtype = dtype;
	v.view = !!(flags & TILECOPY_TENSOR_VIEW);
	snprintf(v.format, sizeof(v.format), "layout");
	tc_tensor_stride_order(&v, v.order);
	return tc_tensor_out(out, &v);
}

TILECOPY_API void tilecopy_tensor_destroy(tilecopy_tensor_t *t)
{
	if (!t || t->magic != TC_MAGIC_TENSOR)
		return;
	t->magic = 0;
	t->layout.magic = 0;
	free(t);
}

#define TC_GET(t, outp) do {						\
	tilecopy_status_t st_ = tc_tensor_arg(t, "tensor");		\
	if (st_)							\
		return st_;						\
	if (!(outp))							\
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", #outp); \
} while (0)

static tilecopy_status_t tc_count(const tilecopy_tensor_t *t, int count)
{
	if (count < t->layout.rank)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "count: %d entries for a rank-%d tensor", count, t->layout.rank);
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_rank(const tilecopy_tensor_t *t, int *rank)
{
	TC_GET(t, rank);
	*rank = t->layout.rank;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_shape(const tilecopy_tensor_t *t,
						     int64_t *shape, int count)
{
	TC_GET(t, shape);
	if (tc_count(t, count))
		return TILECOPY_ERR_BUFFER_TOO_SMALL;
	memcpy(shape, t->extent, sizeof(shape[0]) * (size_t)t->layout.rank);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_dtype(const tilecopy_tensor_t *t,
						     tilecopy_dtype_t *dtype)
{
	TC_GET(t, dtype);
	*dtype = t->dtype;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_layout(const tilecopy_tensor_t *t,
						      const tilecopy_layout_t **layout)
{
	TC_GET(t, layout);
	*layout = &t->layout;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_format(const tilecopy_tensor_t *t,
						      const char **format)
{
	TC_GET(t, format);
	*format = t->format;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_byte_offset(const tilecopy_tensor_t *t,
							   uint64_t *offset)
{
	TC_GET(t, offset);
	*offset = t->byte_offset;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_strides(const tilecopy_tensor_t *t,
						       int64_t *strides, int count)
{
	const tilecopy_layout_t *l;

	TC_GET(t, strides);
	if (tc_count(t, count))
		return TILECOPY_ERR_BUFFER_TOO_SMALL;
	l = &t->layout;
	for (int m = 0; m < l->rank; m++) {
		/*
		 * An extent-1 dim never moves: its innermost leaf's stride, as
		 * numpy and PyTorch give a contiguous tensor's size-1 dims
		 * (NHWC 1x9x5x4: 180,1,36,9), rather than 0, a broadcast.
		 */
		int64_t s = l->stride[l->mode[m]], below = 1;
		int n = 0;

		/* one leaf that the extent reaches beyond 1; others do not move */
		for (int i = l->mode[m]; i < l->mode[m + 1]; i++) {
			if (t->extent[m] > below && l->shape[i] > 1) {
				s = l->stride[i];
				n++;
			}
			if (tc_mul_ovf(below, l->shape[i], &below))
				below = INT64_MAX;
		}
		if (n > 1)
			return tc_fail(TILECOPY_ERR_UNSUPPORTED,
				       "tensor: dim %d is blocked (%d leaves); one stride cannot describe it, use the layout",
				       m, n);
		strides[m] = s;
	}
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_physical_order(const tilecopy_tensor_t *t,
							      int *order, int count)
{
	TC_GET(t, order);
	if (tc_count(t, count))
		return TILECOPY_ERR_BUFFER_TOO_SMALL;
	memcpy(order, t->order, sizeof(order[0]) * (size_t)t->layout.rank);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_bytes(const tilecopy_tensor_t *t,
						     uint64_t *bytes)
{
	tilecopy_status_t st;

	TC_GET(t, bytes);
	st = tc_tensor_bytes(t, bytes);
	return st ? st : tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_is_dense(const tilecopy_tensor_t *t, int *dense)
{
	TC_GET(t, dense);
	*dense = tc_tensor_is_dense(t);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_is_contiguous_in(const tilecopy_tensor_t *t,
								const char *format, int *yes)
{
	tilecopy_tensor_t f;
	tilecopy_status_t st;

	TC_GET(t, yes);
	if (!format)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "format: NULL");
	/*
	 * A format that does not fit the tensor answers 0; one that is no
	 * format at all is the caller's typo, not a "no".
	 */
	st = tc_tensor_make(&f, format, t->extent, t->layout.rank, t->dtype, NULL);
	if (st == TILECOPY_ERR_PARSE || st == TILECOPY_ERR_UNKNOWN_FORMAT)
		return st;
	*yes = !st && tc_tensor_is_contiguous_in(t, format);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_has_padding(const tilecopy_tensor_t *t, int *yes)
{
	TC_GET(t, yes);
	*yes = tc_tensor_has_padding(t);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_has_overlap(const tilecopy_tensor_t *t, int *yes)
{
	TC_GET(t, yes);
	*yes = tc_tensor_has_overlap(t);
	return tc_ok();
}
