// SPDX-License-Identifier: MIT
/*
 * layout_algebra.c - CuTe's layout algebra at run time: coalesce,
 * composition, complement, right_inverse, logical_divide.
 *
 * All of them work on the flattened leaves (a layout's function does not
 * depend on its nesting). Each is checked in the unit tests against its
 * defining property by brute force, e.g. composition(a, b)(i) == a(b(i)).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct tc_leaves {
	int n;
	int64_t shape[TILECOPY_MAX_LEAVES];
	int64_t stride[TILECOPY_MAX_LEAVES];
};

static tilecopy_status_t tc_leaves_push(struct tc_leaves *v, int64_t s,
					int64_t d)
{
	if (v->n >= TILECOPY_MAX_LEAVES)
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: more than %d leaves",
			       TILECOPY_MAX_LEAVES);
	v->shape[v->n] = s;
	v->stride[v->n] = d;
	v->n++;
	return TILECOPY_SUCCESS;
}

/* Merge leaves (s0:d0),(s1:d1) where d1 == s0*d0; drop shape-1 leaves. */
static void tc_leaves_coalesce(struct tc_leaves *v)
{
	struct tc_leaves r = { 0 };

	for (int i = 0; i < v->n; i++) {
		int64_t s = v->shape[i], d = v->stride[i], span, merged;

		if (s == 1)
			continue;
		/* Checked: fuzzing found huge leaves overflowing both products. */
		if (r.n && !tc_mul_ovf(r.shape[r.n - 1], r.stride[r.n - 1], &span) &&
		    span == d && !tc_mul_ovf(r.shape[r.n - 1], s, &merged)) {
			r.shape[r.n - 1] = merged;
			continue;
		}
		r.shape[r.n] = s;
		r.stride[r.n] = d;
		r.n++;
	}
	if (!r.n) {
		r.shape[0] = 1;
		r.stride[0] = 0;
		r.n = 1;
	}
	*v = r;
}

static void tc_leaves_from(struct tc_leaves *v, const tilecopy_layout_t *l)
{
	v->n = l->nleaves;
	memcpy(v->shape, l->shape, sizeof(l->shape[0]) * (size_t)l->nleaves);
	memcpy(v->stride, l->stride, sizeof(l->stride[0]) * (size_t)l->nleaves);
}

static void tc_leaves_to(tilecopy_layout_t *out, const struct tc_leaves *v)
{
	tc_layout_init_flat(out, v->n, v->shape, v->stride);
}

tilecopy_status_t tc_layout_coalesce(tilecopy_layout_t *out,
							const tilecopy_layout_t *l)
{
	struct tc_leaves v;

	if (!out || !l)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "coalesce: NULL argument");
	tc_leaves_from(&v, l);
	tc_leaves_coalesce(&v);
	tc_leaves_to(out, &v);
	return tc_ok();
}

/*
 * Composition, a o b, one leaf (s:d) of b at a time, with a coalesced and
 * flat, its last leaf unbounded (as in CuTe). The index i*d (i < s) is
 * written in a's mixed radix: d first divides out whole leaves of a, then
 * the s values take a leaf's digits, leaf by leaf. Where CuTe needs
 * divisibility (its shape_div), it is asked for only where the walk carries
 * from one leaf of a into the next; a leaf of b whose values all stay inside
 * one leaf of a needs none ((7,4):(1,21) o 4:2 = 4:2).
 *
 * @used[k] adds up, over b's leaves, the largest digit each one puts into
 * leaf k of a. The leaves' results can simply be added (R(i) = a(b(i)))
 * exactly when no sum of digits carries: used[k] < shape of leaf k for
 * every bounded leaf (a is coalesced, so a carry always changes the
 * offset). That is what makes a non-injective b safe: it is refused when
 * the sum would carry, accepted (and exact) when it does not.
 */
struct tc_compose {
	const struct tc_leaves *a;
	int64_t used[TILECOPY_MAX_LEAVES];
};

static tilecopy_status_t tc_compose_use(struct tc_compose *c, int k, int64_t digit)
{
	if (k < c->a->n - 1 && tc_add_ovf(c->used[k], digit, &c->used[k]))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "composition: digit sum overflows 64 bits");
	return TILECOPY_SUCCESS;
}

/* A two-element leaf 2:d is always a layout: 2:a(d), a's digits of d. */
static tilecopy_status_t tc_compose_pair(struct tc_compose *c, struct tc_leaves *out,
					 int64_t d)
{
	const struct tc_leaves *a = c->a;
	int64_t x = d, off = 0, t;
	tilecopy_status_t st;

	for (int k = 0; k < a->n; k++) {
		int64_t digit = k < a->n - 1 ? x % a->shape[k] : x;

		if (tc_mul_ovf(digit, a->stride[k], &t) || tc_add_ovf(off, t, &off))
			return tc_fail(TILECOPY_ERR_OVERFLOW, "composition: stride overflows 64 bits");
		st = tc_compose_use(c, k, digit);
		if (st)
			return st;
		if (k < a->n - 1)
			x /= a->shape[k];
	}
	return tc_leaves_push(out, 2, off);
}

static tilecopy_status_t tc_compose_leaf(struct tc_compose *c, struct tc_leaves *out,
					 int64_t s, int64_t d)
{
	const struct tc_leaves *a = c->a;
	int64_t rest_s = s, rest_d = d, stride, reach;
	tilecopy_status_t st;
	int k;

	if (s == 1 || d == 0)
		return tc_leaves_push(out, s, 0);
	for (k = 0; k < a->n - 1 && rest_s > 1; k++) {
		int64_t ak = a->shape[k], avail;

		/* positions the rest of the leaf spans, in units of leaf k */
		if (tc_mul_ovf(rest_s - 1, rest_d, &reach) || reach >= ak) {
			if (rest_d % ak == 0) {		/* steps over leaf k */
				rest_d /= ak;
				continue;
			}
			if (ak % rest_d)
				goto indivisible;
			avail = ak / rest_d;
			if (rest_s % avail)
				goto indivisible;
		} else {
			avail = rest_s;			/* stays inside leaf k */
		}
		if (tc_mul_ovf(a->stride[k], rest_d, &stride))
			goto overflow;
		st = tc_leaves_push(out, avail, stride);
		if (!st)
			st = tc_compose_use(c, k, (avail - 1) * rest_d);
		if (st)
			return st;
		rest_s /= avail;
		rest_d = 1;
	}
	if (rest_s > 1) {
		if (tc_mul_ovf(a->stride[a->n - 1], rest_d, &stride))
			goto overflow;
		return tc_leaves_push(out, rest_s, stride);
	}
	return TILECOPY_SUCCESS;
overflow:	/* checked since fuzzing found huge strides wrapping here */
	return tc_fail(TILECOPY_ERR_OVERFLOW, "composition: stride overflows 64 bits");
indivisible:
	if (s == 2)
		return tc_compose_pair(c, out, d);
	return tc_fail(TILECOPY_ERR_INVALID_ARG,
		       "composition: b's leaf %lld:%lld crosses a's leaf of size %lld with a step that neither divides nor is divided by it: a o b is no layout",
		       (long long)s, (long long)d, (long long)a->shape[k]);
}

tilecopy_status_t tc_layout_composition(tilecopy_layout_t *out,
							   const tilecopy_layout_t *a,
							   const tilecopy_layout_t *b)
{
	struct tc_leaves av;
	struct tc_compose c = { .a = &av };
	tilecopy_layout_t r = { 0 };
	tilecopy_status_t st;

	if (!out || !a || !b)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "composition: NULL argument");
	tc_leaves_from(&av, a);
	tc_leaves_coalesce(&av);
	tc_layout_init_flat(&r, 0, NULL, NULL);
	/* One result mode per top-level mode of b, as CuTe's by-mode result. */
	for (int m = 0; m < b->rank; m++) {
		struct tc_leaves mv = { 0 };

		for (int i = b->mode[m]; i < b->mode[m + 1]; i++) {
			st = tc_compose_leaf(&c, &mv, b->shape[i], b->stride[i]);
			if (st)
				return st;
		}
		if (!mv.n)
			tc_leaves_push(&mv, 1, 0);
		st = tc_layout_append_mode(&r, mv.n, mv.shape, mv.stride);
		if (st)
			return st;
	}
	for (int k = 0; k < av.n - 1; k++)
		if (c.used[k] >= av.shape[k])
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "composition: b's leaves together carry out of a's leaf %d (size %lld): a(b(i)) is no layout (b overlaps itself or its leaves interleave)",
				       k, (long long)av.shape[k]);
	*out = r;
	return tc_ok();
}

static int tc_cmp_leaf(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;	/* pairs (stride, shape) */

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

tilecopy_status_t tc_layout_complement(tilecopy_layout_t *out,
							  const tilecopy_layout_t *a,
							  int64_t cotarget)
{
	int64_t pairs[TILECOPY_MAX_LEAVES][2];
	struct tc_leaves r = { 0 };
	int n = 0;
	int64_t cur = 1;

	if (!out || !a)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "complement: NULL argument");
	if (cotarget < 1)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "cotarget: %lld is not >= 1", (long long)cotarget);
	for (int i = 0; i < a->nleaves; i++) {
		if (a->shape[i] == 1 || a->stride[i] == 0)
			continue;
		pairs[n][0] = a->stride[i];
		pairs[n][1] = a->shape[i];
		n++;
	}
	qsort(pairs, (size_t)n, sizeof(pairs[0]), tc_cmp_leaf);
	for (int i = 0; i < n; i++) {
		int64_t d = pairs[i][0], s = pairs[i][1];

		if (d < cur || d % cur)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "complement: stride %lld overlaps or is not a multiple of %lld",
				       (long long)d, (long long)cur);
		tc_leaves_push(&r, d / cur, cur);
		if (tc_mul_ovf(s, d, &cur))
			return tc_fail(TILECOPY_ERR_OVERFLOW, "complement: overflow");
	}
	/* ceil(cotarget / cur), without the overflow fuzzing found */
	tc_leaves_push(&r, cotarget / cur + (cotarget % cur != 0), cur);
	tc_leaves_coalesce(&r);
	tc_leaves_to(out, &r);
	return tc_ok();
}

tilecopy_status_t tc_layout_right_inverse(tilecopy_layout_t *out,
							     const tilecopy_layout_t *a)
{
	struct tc_leaves v, r = { 0 };
	int64_t idx_stride[TILECOPY_MAX_LEAVES];
	int64_t next = 1, p = 1;

	if (!out || !a)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "right_inverse: NULL argument");
	tc_leaves_from(&v, a);
	tc_leaves_coalesce(&v);
	for (int i = 0; i < v.n; i++) {
		idx_stride[i] = p;
		/* Checked: fuzzing found sizes beyond 64 bits overflowing here. */
		if (i + 1 < v.n && tc_mul_ovf(p, v.shape[i], &p))
			return tc_fail(TILECOPY_ERR_OVERFLOW, "right_inverse: size overflows 64 bits");
	}
	/* Follow the chain of strides 1, s0*d0, ... through a's leaves. */
	for (;;) {
		int found = -1;

		for (int i = 0; i < v.n; i++)
			if (v.shape[i] > 1 && v.stride[i] == next)
				found = i;
		if (found < 0)
			break;
		tc_leaves_push(&r, v.shape[found], idx_stride[found]);
		if (tc_mul_ovf(v.shape[found], v.stride[found], &next))
			break;	/* no stride can be that large: the chain ends */
	}
	tc_leaves_coalesce(&r);
	tc_leaves_to(out, &r);
	return tc_ok();
}

tilecopy_status_t tc_layout_logical_divide(tilecopy_layout_t *out,
							      const tilecopy_layout_t *a,
							      const tilecopy_layout_t *tiler)
{
	tilecopy_layout_t comp, b;
	struct tc_leaves t;
	tilecopy_status_t st;

	if (!out || !a || !tiler)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "logical_divide: NULL argument");
	st = tc_layout_complement(&comp, tiler, tc_layout_size(a));
	if (st)
		return st;
	/* b = (tiler, complement): mode 0 the tile, mode 1 the rest. */
	tc_leaves_from(&t, tiler);
	tc_layout_init_flat(&b, 0, NULL, NULL);
	st = tc_layout_append_mode(&b, t.n, t.shape, t.stride);
	if (!st)
		st = tc_layout_append_mode(&b, comp.nleaves, comp.shape, comp.stride);
	if (st)
		return st;
	return tc_layout_composition(out, a, &b);
}
