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
#include <stdio.h>
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

/*
 * Merge leaves (s0:d0),(s1:d1) where d1 == s0*d0; drop shape-1 leaves.
 * @keep_last: CuTe's coalesce_x, which keeps the function equal past the
 * domain too: a layout evaluated at i >= size goes on along its last leaf
 * ((2,1):(1,32) at 2 is 32), so the last leaf is kept even of size 1 and
 * stands for an unbounded one. Without it (CuTe's coalesce), only i <
 * size counts: (2,1):(1,32) becomes 2:1.
 */
static void tc_leaves_merge(struct tc_leaves *v, int keep_last)
{
	struct tc_leaves r = { 0 };

	for (int i = 0; i < v->n; i++) {
		int64_t s = v->shape[i], d = v->stride[i], span, merged;

		if (s == 1 && !(keep_last && i == v->n - 1))
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

static void tc_leaves_coalesce(struct tc_leaves *v)
{
	tc_leaves_merge(v, 0);
}

static void tc_leaves_from(struct tc_leaves *v, const tilecopy_layout_t *l)
{
	v->n = l->nleaves;
	memcpy(v->shape, l->shape, sizeof(l->shape[0]) * (size_t)l->nleaves);
	memcpy(v->stride, l->stride, sizeof(l->stride[0]) * (size_t)l->nleaves);
}

/*
 * The leaves as a flat layout, one mode each. More than TILECOPY_MAX_RANK
 * leaves that nothing merges (coalescing a deep layout of 32) make no flat
 * layout: refused, never written past the mode table.
 */
static tilecopy_status_t tc_leaves_to(tilecopy_layout_t *out, const struct tc_leaves *v)
{
	if (v->n > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "layout: the result has %d flat modes that do not merge; a layout holds %d",
			       v->n, TILECOPY_MAX_RANK);
	tc_layout_init_flat(out, v->n, v->shape, v->stride);
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_layout_coalesce(tilecopy_layout_t *out,
							const tilecopy_layout_t *l)
{
	struct tc_leaves v;

	if (!out || !l)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "coalesce: NULL argument");
	tc_leaves_from(&v, l);
	tc_leaves_coalesce(&v);
	return tc_leaves_to(out, &v) ?: tc_ok();
}

/*
 * Composition, a o b, one leaf (s:d) of b at a time, with a flat and
 * coalesced as CuTe's coalesce_x does: its last leaf is unbounded, so a(x)
 * is defined for every x >= 0 and b may leave a's domain (1:1 o 4:1 = 4:1,
 * (2,1):(1,32) o 4:1 = (2,2):(1,32)). The index i*d (i < s) is written in
 * a's mixed radix: d first divides out whole leaves of a, then the s
 * values take a leaf's digits, leaf by leaf. Where CuTe needs divisibility
 * (its shape_div), it is asked for only where the walk carries from one
 * leaf of a into the next; a leaf of b whose values all stay inside one
 * leaf of a needs none ((7,4):(1,21) o 4:2 = 4:2), nor does a leaf of
 * stride 0 whose carries come out evenly (tc_compose_zero_leaf).
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

/*
 * s:d where the digits of d in a's radix, times s - 1, carry nowhere: then
 * d*i has i times d's digits and a(d*i) = i*a(d), the leaf s:a(d). Always
 * so for s = 2; also (6,1):(1,1) o 5:19 = 5:4 (19 is digits 1 and 3).
 * Returns 0 (nothing written) when some digit would carry.
 */
static int tc_compose_linear(struct tc_compose *c, struct tc_leaves *out, int64_t s,
			     int64_t d, tilecopy_status_t *st)
{
	const struct tc_leaves *a = c->a;
	int64_t x = d, off = 0, t, digit[TILECOPY_MAX_LEAVES];

	for (int k = 0; k < a->n; k++) {
		digit[k] = k < a->n - 1 ? x % a->shape[k] : x;
		if (k < a->n - 1 && (tc_mul_ovf(digit[k], s - 1, &t) || t >= a->shape[k]))
			return 0;
		if (tc_mul_ovf(digit[k], a->stride[k], &t) || tc_add_ovf(off, t, &off)) {
			*st = tc_fail(TILECOPY_ERR_OVERFLOW, "composition: stride overflows 64 bits");
			return 1;
		}
		if (k < a->n - 1)
			x /= a->shape[k];
	}
	for (int k = 0; k < a->n - 1; k++) {
		*st = tc_compose_use(c, k, digit[k] * (s - 1));
		if (*st)
			return 1;
	}
	*st = tc_leaves_push(out, s, off);
	return 1;
}

/*
 * Steps of r (< ak) over a leaf ak:0 that r does not divide: the offsets
 * the leaf gives are all 0, only its carries count. With m = ceil(ak / r)
 * and i = q*m + t (t < m), the carry floor(r*i / ak) is exactly q - the
 * leaf splits as (m, rest):(0, next) - when the digit r*i - q*ak = q*e +
 * r*t (e = m*r - ak) stays below ak for every i < rest_s: CuTe's
 * (7,4):(0,6) o 6:4 = (2,3):(0,6). Sets *m and the largest digit.
 */
static int tc_compose_zero_leaf(int64_t ak, int64_t r, int64_t rest_s, int64_t *m,
				int64_t *digit)
{
	int64_t e, hi, t;

	*m = tc_ceil_div(ak, r);
	if (rest_s % *m || tc_mul_ovf(*m, r, &e))
		return 0;
	e -= ak;
	if (tc_mul_ovf(rest_s / *m - 1, e, &hi) || tc_mul_ovf(r, *m - 1, &t) ||
	    tc_add_ovf(hi, t, &hi) || hi >= ak)
		return 0;
	*digit = hi;
	return 1;
}

static tilecopy_status_t tc_compose_leaf(struct tc_compose *c, struct tc_leaves *out,
					 int64_t s, int64_t d)
{
	const struct tc_leaves *a = c->a;
	int64_t rest_s = s, rest_d = d, stride, reach, used[TILECOPY_MAX_LEAVES];
	tilecopy_status_t st;
	int k, n0 = out->n;

	if (s == 1 || d == 0)
		return tc_leaves_push(out, s, 0);
	memcpy(used, c->used, sizeof(used));
	for (k = 0; k < a->n - 1 && rest_s > 1; k++) {
		int64_t ak = a->shape[k], avail, digit;

		/* positions the rest of the leaf spans, in units of leaf k */
		if (!tc_mul_ovf(rest_s - 1, rest_d, &reach) && reach < ak) {
			avail = rest_s;			/* stays inside leaf k */
			digit = reach;
		} else if (rest_d % ak == 0) {		/* steps over leaf k */
			rest_d /= ak;
			continue;
		} else if (ak % rest_d == 0 && rest_s % (ak / rest_d) == 0) {
			avail = ak / rest_d;		/* fills leaf k, carries */
			digit = ak - rest_d;
		} else if (a->stride[k] == 0 && rest_d < ak &&
			   tc_compose_zero_leaf(ak, rest_d, rest_s, &avail, &digit)) {
			;				/* carries evenly */
		} else {
			goto indivisible;
		}
		if (tc_mul_ovf(a->stride[k], rest_d, &stride))
			goto overflow;
		st = tc_leaves_push(out, avail, stride);
		if (!st)
			st = tc_compose_use(c, k, digit);
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
	/* the walk's leaves undone, the whole leaf tried as one */
	out->n = n0;
	memcpy(c->used, used, sizeof(used));
	if (tc_compose_linear(c, out, s, d, &st))
		return st;
	return tc_fail(TILECOPY_ERR_INVALID_ARG,
		       "composition: b's leaf %lld:%lld crosses a's leaf of size %lld with a step that neither divides nor is divided by it",
		       (long long)s, (long long)d, (long long)a->shape[k]);
}

static tilecopy_status_t tc_compose_walk(tilecopy_layout_t *out,
					 const tilecopy_layout_t *a,
					 const tilecopy_layout_t *b)
{
	struct tc_leaves av;
	struct tc_compose c = { .a = &av };
	tilecopy_layout_t r = { 0 };
	tilecopy_status_t st;

	tc_leaves_from(&av, a);
	tc_leaves_merge(&av, 1);	/* coalesce_x: a's function past its size too */
	tc_layout_init_flat(&r, 0, NULL, NULL);
	/*
	 * One result mode per top-level mode of b, as CuTe's by-mode result;
	 * b a single integer mode (4:1) gives CuTe's flat tuple of leaves
	 * ((2,2):(1,32), not ((2,2)):((1,32))).
	 */
	for (int m = 0; m < b->rank; m++) {
		struct tc_leaves mv = { 0 };

		for (int i = b->mode[m]; i < b->mode[m + 1]; i++) {
			st = tc_compose_leaf(&c, &mv, b->shape[i], b->stride[i]);
			if (st)
				return st;
		}
		if (!mv.n)
			tc_leaves_push(&mv, 1, 0);
		if (!strcmp(b->profile, "x"))
			st = tc_leaves_to(&r, &mv);
		else
			st = tc_layout_append_mode(&r, mv.n, mv.shape, mv.stride);
		if (st)
			return st;
	}
	for (int k = 0; k < av.n - 1; k++)
		if (c.used[k] >= av.shape[k])
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "composition: b's leaves together carry out of a's leaf %d (size %lld) (b overlaps itself or its leaves interleave)",
				       k, (long long)av.shape[k]);
	*out = r;
	return TILECOPY_SUCCESS;
}

/*
 * The walk, and where it finds no layout, the search by value
 * (layout_search.c) for a b small enough: what CuTe composes right by a
 * coincidence of a's strides is accepted too.
 */
tilecopy_status_t tc_layout_composition(tilecopy_layout_t *out,
					const tilecopy_layout_t *a,
					const tilecopy_layout_t *b)
{
	char why[400];
	tilecopy_status_t st;

	if (!out || !a || !b)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "composition: NULL argument");
	st = tc_compose_walk(out, a, b);
	if (st != TILECOPY_ERR_INVALID_ARG)
		return st ? st : tc_ok();
	snprintf(why, sizeof(why), "%s", tilecopy_last_error());
	st = tc_layout_compose_search(out, a, b);
	if (st != TILECOPY_ERR_INVALID_ARG)
		return st ? st : tc_ok();
	if (tc_layout_size(b) > TC_COMPOSE_SEARCH_MAX || tc_layout_size(b) < 0)
		return tc_fail(st, "%s; b has more than %d elements, too many to search for a layout by value",
			       why, TC_COMPOSE_SEARCH_MAX);
	return tc_fail(st, "%s: a(b(i)) is no layout", why);
}

/*
 * Complement, as CuTe's: a filtered (stride-0 leaves dropped) and
 * coalesced, then its leaves by increasing stride d_j, each gap below one
 * filled by a leaf (d_j / span, span) where span is the reach of the
 * smaller ones (shape * stride of the previous leaf, 1 at first), rounded
 * down as CuTe's division does ((2,8):(3,32) and 64 give (3,5):(1,6):
 * the gap 30..31 stays empty); then (ceil(cotarget / span), span). A
 * stride below the span means two coordinates of a can meet: a is not
 * injective and has no complement.
 */
tilecopy_status_t tc_layout_complement(tilecopy_layout_t *out,
				       const tilecopy_layout_t *a,
				       int64_t cotarget)
{
	struct tc_leaves v, r = { 0 };
	int64_t span = 1;
	tilecopy_status_t st;

	if (!out || !a)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "complement: NULL argument");
	if (cotarget < 1)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "cotarget: %lld is not >= 1", (long long)cotarget);
	tc_leaves_from(&v, a);
	for (int i = 0; i < v.n; i++)
		if (!v.stride[i])
			v.shape[i] = 1;		/* CuTe's filter */
	tc_leaves_coalesce(&v);
	while (v.n && v.shape[0] > 1) {
		int k = 0;

		for (int i = 1; i < v.n; i++)	/* the first smallest, as CuTe */
			if (v.stride[i] < v.stride[k])
				k = i;
		if (v.stride[k] < span)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "complement: a is not injective: its stride %lld lies inside the %lld offsets its smaller leaves span",
				       (long long)v.stride[k], (long long)span);
		st = tc_leaves_push(&r, v.stride[k] / span, span);
		if (st)
			return st;
		if (tc_mul_ovf(v.shape[k], v.stride[k], &span))
			return tc_fail(TILECOPY_ERR_OVERFLOW, "complement: overflow");
		v.n--;
		memmove(&v.shape[k], &v.shape[k + 1], sizeof(v.shape[0]) * (size_t)(v.n - k));
		memmove(&v.stride[k], &v.stride[k + 1], sizeof(v.stride[0]) * (size_t)(v.n - k));
	}
	st = tc_leaves_push(&r, tc_ceil_div(cotarget, span), span);
	if (st)
		return st;
	tc_leaves_coalesce(&r);
	return tc_leaves_to(out, &r) ?: tc_ok();
}

/*
 * Right inverse, as CuTe's: a coalesced, its leaves taken in CuTe's order
 * of increasing stride (its exchange sort, so ties fall as they do there),
 * chaining strides 1, s*d, ...: a leaf whose stride is the next link joins
 * the inverse with the index stride of its position in a. For a
 * non-injective a several inverses exist; this one is CuTe's
 * ((5,8,2):(16,1,1) gives 8:5).
 */
tilecopy_status_t tc_layout_right_inverse(tilecopy_layout_t *out,
					  const tilecopy_layout_t *a)
{
	struct tc_leaves v, r = { 0 };
	int64_t idx_stride[TILECOPY_MAX_LEAVES];
	int order[TILECOPY_MAX_LEAVES];
	int64_t next = 1, p = 1;

	if (!out || !a)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "right_inverse: NULL argument");
	tc_leaves_from(&v, a);
	tc_leaves_coalesce(&v);
	for (int i = 0; i < v.n; i++) {
		idx_stride[i] = p;
		order[i] = i;
		/* Checked: fuzzing found sizes beyond 64 bits overflowing here. */
		if (i + 1 < v.n && tc_mul_ovf(p, v.shape[i], &p))
			return tc_fail(TILECOPY_ERR_OVERFLOW, "right_inverse: size overflows 64 bits");
	}
	for (int i = 0; i < v.n; i++)		/* CuTe's exchange_sort */
		for (int j = i + 1; j < v.n; j++)
			if (v.stride[order[j]] < v.stride[order[i]]) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	for (int i = 0; i < v.n; i++) {
		int k = order[i];

		if (v.shape[k] < 2 || v.stride[k] != next)
			continue;
		tc_leaves_push(&r, v.shape[k], idx_stride[k]);
		if (tc_mul_ovf(v.shape[k], v.stride[k], &next))
			break;	/* no stride can be that large: the chain ends */
	}
	tc_leaves_coalesce(&r);
	return tc_leaves_to(out, &r) ?: tc_ok();
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
