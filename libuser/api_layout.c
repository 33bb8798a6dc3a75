// SPDX-License-Identifier: MIT
/*
 * api_layout.c - the public layout handles: each one a heap copy of a
 * struct tilecopy_layout tagged TC_MAGIC_LAYOUT, over the value-level
 * functions of layout.c and layout_algebra.c.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* tc_layout_arg - refuse NULL, another kind of handle, a freed one. */
tilecopy_status_t tc_layout_arg(const tilecopy_layout_t *l, const char *what)
{
	if (!l)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL layout", what);
	if (l->magic != TC_MAGIC_LAYOUT && l->magic != TC_MAGIC_LAYOUT_BORROWED)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: not a layout handle (destroyed, or another object)", what);
	return TILECOPY_SUCCESS;
}

/* Hand out a copy of @v as a new handle. */
static tilecopy_status_t tc_layout_out(tilecopy_layout_t **out, const tilecopy_layout_t *v)
{
	tilecopy_layout_t *l = malloc(sizeof(*l));

	if (!l)
		return tc_fail(TILECOPY_ERR_NOMEM, "layout: out of memory");
	*l = *v;
	l->magic = TC_MAGIC_LAYOUT;
	*out = l;
	return tc_ok();
}

#define TC_OUT(out) do {						\
	if (!(out))							\
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");	\
	*(out) = NULL;							\
} while (0)

TILECOPY_API tilecopy_status_t tilecopy_layout_parse(tilecopy_layout_t **out,
						     const char *text)
{
	tilecopy_layout_t v;
	tilecopy_status_t st;

	TC_OUT(out);
	st = tc_layout_parse(&v, text);
	return st ? st : tc_layout_out(out, &v);
}

TILECOPY_API tilecopy_status_t tilecopy_layout_create(tilecopy_layout_t **out, int rank,
						      const int64_t *shape,
						      const int64_t *stride)
{
	tilecopy_layout_t v;
	tilecopy_status_t st;

	TC_OUT(out);
	st = tc_layout_make(&v, rank, shape, stride);
	return st ? st : tc_layout_out(out, &v);
}

TILECOPY_API tilecopy_status_t tilecopy_layout_clone(tilecopy_layout_t **out,
						     const tilecopy_layout_t *l)
{
	tilecopy_status_t st;

	TC_OUT(out);
	st = tc_layout_arg(l, "layout");
	return st ? st : tc_layout_out(out, l);
}

TILECOPY_API void tilecopy_layout_destroy(tilecopy_layout_t *l)
{
	if (l && l->magic == TC_MAGIC_LAYOUT_BORROWED) {
		/* part of a tensor (tilecopy_tensor_layout): not ours to free */
		tc_fail(TILECOPY_ERR_INVALID_ARG,
			"layout: borrowed from a tensor, not destroyed (destroy the tensor)");
		return;
	}
	if (!l || l->magic != TC_MAGIC_LAYOUT)
		return;
	l->magic = 0;
	free(l);
}

TILECOPY_API tilecopy_status_t tilecopy_layout_print(const tilecopy_layout_t *l,
						     char *buf, size_t size)
{
	tilecopy_status_t st = tc_layout_arg(l, "layout");

	if (st) {
		if (buf && size)
			buf[0] = '\0';
		return st;
	}
	return tc_layout_print(l, buf, size);
}

/* Getters: check the handle and the output, then answer. */
#define TC_GET(l, outp) do {						\
	tilecopy_status_t st_ = tc_layout_arg(l, "layout");		\
	if (st_)							\
		return st_;						\
	if (!(outp))							\
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", #outp); \
} while (0)

TILECOPY_API tilecopy_status_t tilecopy_layout_size(const tilecopy_layout_t *l, int64_t *size)
{
	int64_t v;

	TC_GET(l, size);
	v = tc_layout_size(l);
	if (v < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: size overflows 64 bits");
	*size = v;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_cosize(const tilecopy_layout_t *l,
						      int64_t *cosize)
{
	int64_t v;

	TC_GET(l, cosize);
	v = tc_layout_cosize(l);
	if (v < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: cosize overflows 64 bits");
	*cosize = v;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_rank(const tilecopy_layout_t *l, int *rank)
{
	TC_GET(l, rank);
	*rank = l->rank;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_depth(const tilecopy_layout_t *l, int *depth)
{
	TC_GET(l, depth);
	*depth = tc_layout_depth(l);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_mode_size(const tilecopy_layout_t *l,
							 int m, int64_t *size)
{
	int64_t v;

	TC_GET(l, size);
	if (m < 0 || m >= l->rank)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "m: %d outside 0..%d", m, l->rank - 1);
	v = tc_layout_mode_size(l, m);
	if (v < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: mode %d size overflows 64 bits", m);
	*size = v;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_nleaves(const tilecopy_layout_t *l,
						       int *nleaves)
{
	TC_GET(l, nleaves);
	*nleaves = l->nleaves;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_leaf(const tilecopy_layout_t *l, int i,
						    int64_t *shape, int64_t *stride)
{
	tilecopy_status_t st = tc_layout_arg(l, "layout");

	if (st)
		return st;
	if (i < 0 || i >= l->nleaves)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "i: leaf %d outside 0..%d", i,
			       l->nleaves - 1);
	if (shape)
		*shape = l->shape[i];
	if (stride)
		*stride = l->stride[i];
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_mode_leaves(const tilecopy_layout_t *l,
							   int m, int *first, int *count)
{
	TC_GET(l, first);
	if (!count)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "count: NULL");
	if (m < 0 || m >= l->rank)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "m: %d outside 0..%d", m, l->rank - 1);
	*first = l->mode[m];
	*count = l->mode[m + 1] - l->mode[m];
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_layout_crd2idx(const tilecopy_layout_t *l,
						       const int64_t *coord, int ncoord,
						       int64_t *idx)
{
	TC_GET(l, idx);
	if (!coord)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "coord: NULL");
	if (ncoord != l->rank)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "ncoord: %d for a rank-%d layout",
			       ncoord, l->rank);
	return tc_layout_crd2idx(l, coord, idx);
}

TILECOPY_API tilecopy_status_t tilecopy_layout_idx2crd(const tilecopy_layout_t *l,
						       int64_t idx, int64_t *coord,
						       int ncoord)
{
	TC_GET(l, coord);
	if (ncoord < l->rank)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "ncoord: %d entries for a rank-%d layout", ncoord, l->rank);
	return tc_layout_idx2crd(l, idx, coord);
}

/* The algebra: a result into a value, then a handle. */
#define TC_ALGEBRA(out, call) do {					\
	tilecopy_layout_t v_;						\
	tilecopy_status_t st_;						\
	TC_OUT(out);							\
	st_ = call;							\
	return st_ ? st_ : tc_layout_out(out, &v_);			\
} while (0)

TILECOPY_API tilecopy_status_t tilecopy_layout_coalesce(tilecopy_layout_t **out,
							const tilecopy_layout_t *l)
{
	TC_ALGEBRA(out, tc_layout_arg(l, "layout") ?: tc_layout_coalesce(&v_, l));
}

TILECOPY_API tilecopy_status_t tilecopy_layout_composition(tilecopy_layout_t **out,
							   const tilecopy_layout_t *a,
							   const tilecopy_layout_t *b)
{
	TC_ALGEBRA(out, tc_layout_arg(a, "a") ?: tc_layout_arg(b, "b") ?:
	       tc_layout_composition(&v_, a, b));
}

TILECOPY_API tilecopy_status_t tilecopy_layout_complement(tilecopy_layout_t **out,
							  const tilecopy_layout_t *a,
							  int64_t cotarget)
{
	TC_ALGEBRA(out, tc_layout_arg(a, "a") ?: tc_layout_complement(&v_, a, cotarget));
}

TILECOPY_API tilecopy_status_t tilecopy_layout_right_inverse(tilecopy_layout_t **out,
							     const tilecopy_layout_t *a)
{
	TC_ALGEBRA(out, tc_layout_arg(a, "a") ?: tc_layout_right_inverse(&v_, a));
}

TILECOPY_API tilecopy_status_t tilecopy_layout_logical_divide(tilecopy_layout_t **out,
							      const tilecopy_layout_t *a,
							      const tilecopy_layout_t *tiler)
{
	TC_ALGEBRA(out, tc_layout_arg(a, "a") ?: tc_layout_arg(tiler, "tiler") ?:
	       tc_layout_logical_divide(&v_, a, tiler));
}
