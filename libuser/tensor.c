// SPDX-License-Identifier: MIT
/*
 * tensor.c - queries on tensors: physical size, density, padding, overlap,
 * contiguity in a format.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Above this many elements the brute-force overlap check is not tried. */
#define TC_OVERLAP_BRUTE_MAX (1LL << 24)

static int64_t tc_logical_count(const tilecopy_tensor_t *t)
{
	int64_t n = 1;

	for (int m = 0; m < t->layout.rank; m++)
		if (tc_mul_ovf(n, t->extent[m], &n))
			return -1;
	return n;
}

/*
 * Unsigned: a buffer of 2^63 bytes or more is a size, if an unlikely one.
 * 4-bit elements: the cosize's bytes rounded up (element 0 starts a byte).
 */
tilecopy_status_t tc_tensor_bytes(const tilecopy_tensor_t *t, uint64_t *bytes)
{
	int64_t c = tc_layout_cosize(&t->layout);
	unsigned int bits = tc_dtype_bits(t->dtype);
	uint64_t b = 0;
	int ovf = c < 0;

	if (!ovf && bits >= 8)
		ovf = __builtin_mul_overflow((uint64_t)c, (uint64_t)(bits / 8), &b);
	else if (!ovf)
		b = tc_elems_bytes((uint64_t)c, bits);
	if (ovf || __builtin_add_overflow(b, t->byte_offset, &b))
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "tensor: byte offset %llu plus the physical size overflows 64 bits",
			       (unsigned long long)t->byte_offset);
	*bytes = b;
	return TILECOPY_SUCCESS;
}

int tc_tensor_is_dense(const tilecopy_tensor_t *t)
{
	return !tc_tensor_has_overlap(t) &&
	       tc_layout_cosize(&t->layout) == tc_logical_count(t);
}

int tc_tensor_has_padding(const tilecopy_tensor_t *t)
{
	return tc_layout_cosize(&t->layout) > tc_logical_count(t);
}

struct tc_ls {
	int64_t shape, stride;
};

static int tc_cmp_ls(const void *x, const void *y)
{
	const struct tc_ls *a = x, *b = y;

	if (a->stride != b->stride)
		return a->stride < b->stride ? -1 : 1;
	return (a->shape > b->shape) - (a->shape < b->shape);
}

/*
 * Leaves restricted to the logical extents. A mode whose extent is below its
 * size keeps its leaves, with the top one cut to what the extent needs:
 * a superset of the logical elements, enough for an overlap test.
 */
static int tc_logical_leaves(const tilecopy_tensor_t *t, struct tc_ls *v)
{
	const tilecopy_layout_t *l = &t->layout;
	int n = 0;

	for (int m = 0; m < l->rank; m++) {
		int64_t need = t->extent[m], below = 1;

		for (int i = l->mode[m]; i < l->mode[m + 1] && need > below; i++) {
			int64_t s = l->shape[i];
			int64_t top = tc_ceil_div(need, below);

			if (s > top)
				s = top;
			if (s > 1) {
				v[n].shape = s;
				v[n].stride = l->stride[i];
				n++;
			}
			if (tc_mul_ovf(below, l->shape[i], &below))
				below = INT64_MAX;	/* covers any extent */
		}
	}
	return n;
}

static int tc_overlap_brute(const tilecopy_tensor_t *t, int64_t cosize)
{
	const tilecopy_layout_t *l = &t->layout;
	int64_t n = tc_logical_count(t), crd[TILECOPY_MAX_RANK];
	unsigned char *seen = calloc((size_t)(cosize + 7) / 8, 1);
	int hit = 0;

	if (!seen)
		return 1;
	for (int64_t i = 0; i < n && !hit; i++) {
		int64_t r = i, off;

		for (int m = 0; m < l->rank; m++) {
			crd[m] = r % t->extent[m];
			r /= t->extent[m];
		}
		tc_layout_crd2idx(l, crd, &off);
		hit = !!(seen[off / 8] & (1u << (off % 8)));
		seen[off / 8] |= (unsigned char)(1u << (off % 8));
	}
	free(seen);
	return hit;
}

int tc_tensor_has_overlap(const tilecopy_tensor_t *t)
{
	struct tc_ls v[TILECOPY_MAX_LEAVES];
	int n = tc_logical_leaves(t, v), ok = 1;
	int64_t cosize;

	/* Sorted by stride, each leaf must step over the whole of the ones
	 * below it: sufficient for injectivity, and true of every format. */
	qsort(v, (size_t)n, sizeof(v[0]), tc_cmp_ls);
	for (int i = 0; i < n; i++) {
		if (v[i].stride == 0 ||
		    (i && v[i].stride < v[i - 1].stride * v[i - 1].shape))
			ok = 0;
	}
	if (ok)
		return 0;
	for (int i = 0; i < n; i++)
		if (v[i].stride == 0)
			return 1;
	cosize = tc_layout_cosize(&t->layout);
	if (cosize < 0 || cosize > TC_OVERLAP_BRUTE_MAX ||
	    tc_logical_count(t) > TC_OVERLAP_BRUTE_MAX)
		return 1;	/* cannot prove it is free of overlap */
	return tc_overlap_brute(t, cosize);
}

/* Per-mode leaves with shape-1 leaves dropped and mergeable ones merged. */
static int tc_mode_canon(const tilecopy_layout_t *l, int m, struct tc_ls *v)
{
	int n = 0;

	for (int i = l->mode[m]; i < l->mode[m + 1]; i++) {
		if (l->shape[i] == 1)
			continue;
		if (n && v[n - 1].shape * v[n - 1].stride == l->stride[i]) {
			v[n - 1].shape *= l->shape[i];
			continue;
		}
		v[n].shape = l->shape[i];
		v[n].stride = l->stride[i];
		n++;
	}
	return n;
}

int tc_tensor_is_contiguous_in(const tilecopy_tensor_t *t,
						  const char *format)
{
	tilecopy_tensor_t f;
	const char *saved;
	char msg[512];

	if (!t || !format)
		return 0;
	/* A query must not disturb the caller's last error. */
	saved = tilecopy_last_error();
	strncpy(msg, saved, sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	if (tc_tensor_make(&f, format, t->extent, t->layout.rank,
				 t->dtype, NULL)) {
		tc_fail(TILECOPY_SUCCESS, "%s", msg);
		return 0;
	}
	tc_fail(TILECOPY_SUCCESS, "%s", msg);
	for (int m = 0; m < t->layout.rank; m++) {
		struct tc_ls a[TILECOPY_MAX_LEAVES], b[TILECOPY_MAX_LEAVES];
		int na = tc_mode_canon(&t->layout, m, a);
		int nb = tc_mode_canon(&f.layout, m, b);

		if (na != nb || memcmp(a, b, sizeof(a[0]) * (size_t)na))
			return 0;
	}
	return 1;
}

tilecopy_status_t tc_tensor_check(const tilecopy_tensor_t *t, const char *what)
{
	tilecopy_status_t st = tc_layout_check(&t->layout, what);

	if (st)
		return st;
	if (!tc_dtype_bits(t->dtype))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: unknown dtype %d", what,
			       (int)t->dtype);
	for (int m = 0; m < t->layout.rank; m++) {
		int64_t ms = tc_layout_mode_size(&t->layout, m);

		if (t->extent[m] < 1 || (ms >= 0 && t->extent[m] > ms))
			return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
				       "%s: extent %lld of dim %d outside 1..%lld (its layout mode)",
				       what, (long long)t->extent[m], m, (long long)ms);
	}
	if (tc_dtype_size(t->dtype) && t->byte_offset % tc_dtype_size(t->dtype))
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: byte offset %llu is not a multiple of the element size %zu",
			       what, (unsigned long long)t->byte_offset, tc_dtype_size(t->dtype));
	for (int k = 0, seen = 0; k < t->layout.rank; k++) {
		if (t->order[k] < 0 || t->order[k] >= t->layout.rank ||
		    (seen & (1 << t->order[k])))
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "%s: physical order is not a permutation of its dims", what);
		seen |= 1 << t->order[k];
	}
	return TILECOPY_SUCCESS;
}

/* Stride of a mode's outermost leaf, the key of the physical order. */
static int64_t tc_outer_stride(const tilecopy_layout_t *l, int m)
{
	return l->stride[l->mode[m + 1] - 1];
}

void tc_tensor_stride_order(const tilecopy_tensor_t *t, int *order)
{
	const tilecopy_layout_t *l = &t->layout;
	int n = l->rank;

	/* insertion sort: largest outer stride first, ties in logical order */
	for (int m = 0; m < n; m++) {
		int k = m;

		while (k > 0 && tc_outer_stride(l, order[k - 1]) < tc_outer_stride(l, m)) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = m;
	}
}
