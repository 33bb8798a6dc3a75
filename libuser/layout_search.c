// SPDX-License-Identifier: MIT
/*
 * layout_search.c - a o b found by evaluating it, for the compositions the
 * leaf-by-leaf walk of layout_algebra.c cannot express but whose values
 * still form a layout.
 *
 * CuTe's composition returns a layout for inputs outside its divisibility
 * conditions too, and some of those are right by coincidence of a's
 * strides: (7,2,7):(0,13,13) o 4:6 is (2,2):(0,13) because a gives 13
 * both one and two steps of 7 on. No rule of the walk predicts that, so
 * for a b of at most TC_COMPOSE_SEARCH_MAX elements the values R(i) = a(b(i)) are
 * computed and a layout with b's top-level modes is looked for directly:
 * each mode's values split into leaves, the fastest first, each leaf the
 * longest run i*f(1) that also repeats additively over the rest. What is
 * returned was checked value by value; a success is exact by construction.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* A bound on the work of one search: values computed and compared. */
#define TC_SEARCH_BUDGET	(1L << 22)

/*
 * The values R(i) = a(b(i)), computed when first asked for: most inputs
 * that have no layout show it after a few values, so a search costs little
 * more than the values it looks at.
 */
struct tc_search {
	const tilecopy_layout_t *a, *b;
	int64_t *f;
	unsigned char *have;
	int overflow;		/* some R(i) does not fit in 64 bits */
	long budget;		/* values and comparisons left */
	int n;
	int64_t shape[TILECOPY_MAX_LEAVES], stride[TILECOPY_MAX_LEAVES];
};

/* a at any x >= 0, its last leaf unbounded (CuTe's coalesce_x function). */
static int tc_eval_ext(const tilecopy_layout_t *a, int64_t x, int64_t *v)
{
	int64_t off = 0, t;

	for (int k = 0; k < a->nleaves; k++) {
		int64_t digit = k == a->nleaves - 1 ? x : x % a->shape[k];

		if (tc_mul_ovf(digit, a->stride[k], &t) || tc_add_ovf(off, t, &off))
			return -1;
		x /= a->shape[k];
	}
	*v = off;
	return 0;
}

static int64_t tc_search_f(struct tc_search *s, int64_t i)
{
	const tilecopy_layout_t *b = s->b;
	int64_t x = 0, r = i, t;

	if (s->have[i])
		return s->f[i];
	s->have[i] = 1;
	s->budget--;
	for (int k = 0; k < b->nleaves; k++) {
		if (tc_mul_ovf(r % b->shape[k], b->stride[k], &t) || tc_add_ovf(x, t, &x)) {
			s->overflow = 1;
			return s->f[i] = 0;
		}
		r /= b->shape[k];
	}
	if (tc_eval_ext(s->a, x, &s->f[i])) {
		/* a value all the same: the callers compare before they look at overflow */
		s->overflow = 1;
		s->f[i] = 0;
	}
	return s->f[i];
}

/*
 * Leaves for the values R(base + q*step), q < n: a run of m (m divides n)
 * with R(t) = t*R(1), repeating additively, R(q*m + t) = R(q*m) + R(t);
 * then the same for R(q*m). Largest runs first, smaller ones on failure.
 */
static int tc_search_leaves(struct tc_search *s, int64_t step, int64_t n)
{
	int64_t run = 1, f1;

	if (n == 1)
		return 1;
	f1 = tc_search_f(s, step);
	for (int64_t v; run < n && !tc_mul_ovf(run, f1, &v) &&
	     tc_search_f(s, run * step) == v;)
		run++;
	for (int64_t m = run; m >= 2; m--) {
		int ok = 1;

		if (n % m)
			continue;
		for (int64_t q = m; ok && q < n; q += m) {
			int64_t fq = tc_search_f(s, q * step);

			for (int64_t t = 1, v; ok && t < m; t++)
				ok = !tc_add_ovf(fq, tc_search_f(s, t * step), &v) &&
				     tc_search_f(s, (q + t) * step) == v;
			s->budget -= m;
		}
		if (s->budget < 0 || s->overflow || s->n == TILECOPY_MAX_LEAVES)
			return 0;
		if (!ok)
			continue;
		s->shape[s->n] = m;
		s->stride[s->n] = f1;
		s->n++;
		if (tc_search_leaves(s, step * m, n / m))
			return 1;
		s->n--;
	}
	return 0;
}

/* Every R(i) is what the layout found gives: the modes add up. */
static int tc_search_verify(struct tc_search *s, const tilecopy_layout_t *r, int64_t size)
{
	for (int64_t i = 0; i < size; i++) {
		int64_t off = 0, rest = i, t;

		/* colex over all leaves is colex over the modes' leaves */
		for (int k = 0; k < r->nleaves; k++) {
			if (tc_mul_ovf(rest % r->shape[k], r->stride[k], &t) ||
			    tc_add_ovf(off, t, &off))
				return 0;
			rest /= r->shape[k];
		}
		if (off != tc_search_f(s, i) || s->overflow)
			return 0;
	}
	return 1;
}

/*
 * tc_layout_compose_search - a o b with b's top-level modes, found from
 * its values, or TILECOPY_ERR_INVALID_ARG (no such layout, or b too large
 * to search). @post on success, out(i) == a(b(i)) for every i < size(b).
 */
tilecopy_status_t tc_layout_compose_search(tilecopy_layout_t *out,
					   const tilecopy_layout_t *a,
					   const tilecopy_layout_t *b)
{
	int64_t size = tc_layout_size(b), place = 1;
	struct tc_search s = { .a = a, .b = b, .budget = TC_SEARCH_BUDGET };
	tilecopy_layout_t r;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	if (size < 1 || size > TC_COMPOSE_SEARCH_MAX)
		return TILECOPY_ERR_INVALID_ARG;
	s.f = malloc(sizeof(*s.f) * (size_t)size);
	s.have = calloc((size_t)size, 1);
	if (!s.f || !s.have) {
		free(s.f);
		free(s.have);
		return tc_fail(TILECOPY_ERR_NOMEM, "composition: out of memory");
	}
	tc_layout_init_flat(&r, 0, NULL, NULL);
	for (int m = 0; m < b->rank && !st; m++) {
		int64_t ms = tc_layout_mode_size(b, m);

		s.n = 0;
		if (!tc_search_leaves(&s, place, ms)) {
			st = TILECOPY_ERR_INVALID_ARG;
			break;
		}
		if (!s.n) {
			s.shape[0] = 1, s.stride[0] = 0;
			s.n = 1;
		}
		if (!strcmp(b->profile, "x") && s.n <= TILECOPY_MAX_RANK)
			tc_layout_init_flat(&r, s.n, s.shape, s.stride);
		else
			st = tc_layout_append_mode(&r, s.n, s.shape, s.stride);
		place *= ms;
	}
	if (!st && !tc_search_verify(&s, &r, size))
		st = TILECOPY_ERR_INVALID_ARG;
	free(s.f);
	free(s.have);
	if (!st)
		*out = r;
	return st;
}
