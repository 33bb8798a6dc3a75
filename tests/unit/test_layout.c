// SPDX-License-Identifier: MIT
/*
 * test_layout.c - CuTe notation and layout algebra.
 *
 * The algebra is checked against each operation's defining property by
 * brute force over random layouts, and against examples from CuTe's docs.
 */
#include <stdio.h>

#include "tc_test.h"

static int64_t L(const tilecopy_layout_t *l, int64_t i)
{
	/* Evaluate a layout at linear index i of its domain (colex). */
	int64_t off = 0;

	for (int k = 0; k < l->nleaves; k++) {
		off += (i % l->shape[k]) * l->stride[k];
		i /= l->shape[k];
	}
	return off;
}

static const char *str(const tilecopy_layout_t *l)
{
	static char buf[4][256];
	static int k;

	k = (k + 1) % 4;
	tc_layout_print(l, buf[k], sizeof(buf[k]));
	return buf[k];
}

static void parse(tilecopy_layout_t *l, const char *s)
{
	TC_OK(tc_layout_parse(l, s));
}

static void assert_prints(const tilecopy_layout_t *l, const char *want)
{
	char buf[256];

	TC_OK(tc_layout_print(l, buf, sizeof(buf)));
	ck_assert_str_eq(buf, want);
}

START_TEST(test_parse_print_roundtrip)
{
	static const char *const cases[] = {
		"((4,2),(4,3)):((4,16),(1,32))",
		"8:1",
		"(4,8):(8,1)",
		"((2,(2,2)),4):((1,(4,8)),2)",
		"((4,2)):((1,4))",
		"(3,1,5):(0,7,1)",
	};
	tilecopy_layout_t l;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse(&l, cases[i]);
		assert_prints(&l, cases[i]);
	}
}
END_TEST

START_TEST(test_parse_queries)
{
	tilecopy_layout_t l;
	int64_t crd[2], idx;

	parse(&l, "((4,2),(4,3)):((4,16),(1,32))");
	ck_assert_int_eq(tc_layout_rank(&l), 2);
	ck_assert_int_eq(tc_layout_depth(&l), 2);
	ck_assert_int_eq(tc_layout_size(&l), 96);
	ck_assert_int_eq(tc_layout_cosize(&l), 96);
	ck_assert_int_eq(tc_layout_mode_size(&l, 0), 8);
	ck_assert_int_eq(tc_layout_mode_size(&l, 1), 12);
	/* row 5, col 6 of the 8x12 zN example: fractal (1,1), in-fractal (1,2) */
	crd[0] = 5, crd[1] = 6;
	TC_OK(tc_layout_crd2idx(&l, crd, &idx));
	ck_assert_int_eq(idx, 1 * 16 + 1 * 32 + 1 * 4 + 2);
	TC_OK(tc_layout_idx2crd(&l, 8 * 6 + 5, crd));
	ck_assert_int_eq(crd[0], 5);
	ck_assert_int_eq(crd[1], 6);
	parse(&l, "(_4,_8)");	/* shape only: compact column-major */
	assert_prints(&l, "(4,8):(1,4)");
	ck_assert_int_eq(tc_layout_depth(&l), 1);
	parse(&l, "16:1");
	ck_assert_int_eq(tc_layout_depth(&l), 0);
}
END_TEST

START_TEST(test_parse_errors)
{
	tilecopy_layout_t l;
	int64_t crd[2] = { 8, 0 }, idx;

	TC_FAILS(tc_layout_parse(&l, "(4,2):(1)"), TILECOPY_ERR_PARSE, "nesting");
	TC_FAILS(tc_layout_parse(&l, "(4,2"), TILECOPY_ERR_PARSE, "expected");
	TC_FAILS(tc_layout_parse(&l, "(4,x):(1,4)"), TILECOPY_ERR_PARSE, "shape");
	TC_FAILS(tc_layout_parse(&l, "(4,0):(1,4)"), TILECOPY_ERR_PARSE, ">= 1");
	TC_FAILS(tc_layout_parse(&l, "4:1 junk"), TILECOPY_ERR_PARSE, "trailing");
	/* CuTe allows negative strides; tilecopy says why it does not (B4) */
	TC_FAILS(tc_layout_parse(&l, "4:-1"), TILECOPY_ERR_UNSUPPORTED, "negative strides");
	TC_FAILS(tc_layout_parse(&l, "(4,-2):(1,4)"), TILECOPY_ERR_PARSE, "shape at column 4");
	TC_FAILS(tc_layout_parse(&l, "9223372036854775808:1"), TILECOPY_ERR_OVERFLOW, "2^63-1");
	parse(&l, "9223372036854775807:1");	/* the largest is a number */
	ck_assert_int_eq(l.shape[0], INT64_MAX);
	assert_prints(&l, "9223372036854775807:1");
	parse(&l, "(8,12):(12,1)");
	TC_FAILS(tc_layout_crd2idx(&l, crd, &idx), TILECOPY_ERR_INVALID_ARG, "coord[0]");
	{
		char small[8];

		TC_FAILS(tc_layout_print(&l, small, sizeof(small)),
			 TILECOPY_ERR_BUFFER_TOO_SMALL, "needs 14");
		ck_assert_int_eq(strlen(small), 7);
	}
}
END_TEST

/* A random flat layout: 1..4 leaves, shapes 1..6, strides from a pool. */
static void random_layout(tilecopy_layout_t *l, uint64_t *seed, int compact)
{
	int64_t shape[4], stride[4], s = 1;
	int n = 1 + (int)(tc_rand(seed) % 4);

	for (int i = 0; i < n; i++) {
		shape[i] = 1 + (int64_t)(tc_rand(seed) % 6);
		if (compact) {
			stride[i] = s;
			s *= shape[i];
		} else {
			stride[i] = (int64_t)(tc_rand(seed) % 40);
		}
	}
	/* compact layouts get their leaves permuted: any bijection */
	if (compact) {
		for (int i = n - 1; i > 0; i--) {
			int j = (int)(tc_rand(seed) % (uint64_t)(i + 1));
			int64_t t = shape[i];

			shape[i] = shape[j], shape[j] = t;
			t = stride[i], stride[i] = stride[j], stride[j] = t;
		}
	}
	TC_OK(tc_layout_make(l, n, shape, stride));
}

START_TEST(test_coalesce_property)
{
	uint64_t seed = 0x1234567;

	for (int it = 0; it < 500; it++) {
		tilecopy_layout_t a, c;

		random_layout(&a, &seed, it & 1);
		TC_OK(tc_layout_coalesce(&c, &a));
		ck_assert_int_eq(tc_layout_size(&c), tc_layout_size(&a));
		ck_assert_int_le(c.nleaves, a.nleaves);
		for (int64_t i = 0; i < tc_layout_size(&a); i++)
			ck_assert_int_eq(L(&c, i), L(&a, i));
	}
}
END_TEST

START_TEST(test_coalesce_examples)
{
	tilecopy_layout_t a, c;

	parse(&a, "(2,(1,6)):(1,(6,2))");	/* CuTe docs: -> 12:1 */
	TC_OK(tc_layout_coalesce(&c, &a));
	assert_prints(&c, "12:1");
	parse(&a, "(4,3):(3,1)");		/* nothing merges */
	TC_OK(tc_layout_coalesce(&c, &a));
	assert_prints(&c, "(4,3):(3,1)");
}
END_TEST


/*
 * CuTe's layout algebra for run-time integers, ported from cute/layout.hpp
 * (bw_coalesce, coalesce_x, composition_impl, complement, right_inverse)
 * without its static checks: the reference of what CuTe returns. Layouts
 * here are flat leaf lists.
 */
struct ref_l {
	int n;
	int64_t s[64], d[64];
};

static void ref_from(struct ref_l *r, const tilecopy_layout_t *l)
{
	r->n = l->nleaves;
	for (int i = 0; i < l->nleaves; i++)
		r->s[i] = l->shape[i], r->d[i] = l->stride[i];
}

/* bw_coalesce from the back; @x: coalesce_x (a last leaf of 1 acts as 2). */
static void ref_coalesce(struct ref_l *v, int x)
{
	struct ref_l r;
	int64_t fs[64], fd[64];
	int n = 1;

	fs[0] = v->s[v->n - 1] == 1 && x ? 2 : v->s[v->n - 1];
	fd[0] = v->d[v->n - 1];
	for (int i = v->n - 2; i >= 0; i--) {
		if (v->s[i] == 1)
			continue;
		if (n == 1 && fs[0] == 1) {
			fs[0] = v->s[i], fd[0] = v->d[i];
		} else if (v->s[i] * v->d[i] == fd[0]) {
			fs[0] *= v->s[i], fd[0] = v->d[i];
		} else {
			memmove(fs + 1, fs, sizeof(fs[0]) * (size_t)n);
			memmove(fd + 1, fd, sizeof(fd[0]) * (size_t)n);
			fs[0] = v->s[i], fd[0] = v->d[i], n++;
		}
	}
	if (n == 1 && fs[0] == 1)
		fd[0] = 0;
	r.n = n;
	memcpy(r.s, fs, sizeof(fs[0]) * (size_t)n);
	memcpy(r.d, fd, sizeof(fd[0]) * (size_t)n);
	*v = r;
}

static int64_t ref_ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* composition_impl of flat @a (coalesce_x'd) with one leaf s:d, appended to @out. */
static void ref_compose_leaf(const struct ref_l *a, int64_t s, int64_t d, struct ref_l *out)
{
	int64_t rest_s = s, rest_d = d;
	int R = a->n, pushed = 0;

	if (d == 0 || R == 1) {
		out->s[out->n] = s, out->d[out->n++] = d * a->d[0];
		return;
	}
	for (int k = 0; k < R - 1; k++) {
		int64_t next_shape = ref_ceil_div(a->s[k], rest_d);
		int64_t next_stride = ref_ceil_div(rest_d, a->s[k]);

		if (next_shape != 1 && rest_s != 1) {
			int64_t ns = next_shape < rest_s ? next_shape : rest_s;

			out->s[out->n] = ns, out->d[out->n++] = rest_d * a->d[k];
			rest_s /= ns;
			pushed++;
		}
		rest_d = next_stride;
	}
	if (!pushed || rest_s != 1)
		out->s[out->n] = rest_s, out->d[out->n++] = rest_d * a->d[R - 1];
}

/* a at any x >= 0, its last leaf unbounded (CuTe's layout past its size). */
static int64_t L_ext(const tilecopy_layout_t *l, int64_t x)
{
	int64_t off = 0;

	for (int k = 0; k < l->nleaves; k++) {
		if (k == l->nleaves - 1)
			return off + x * l->stride[k];
		off += (x % l->shape[k]) * l->stride[k];
		x /= l->shape[k];
	}
	return off;
}

/* a o b prints @want (CuTe notation) and is a(b(i)) for every i < size(b). */
static void compose_check(const char *at, const char *bt, const char *want)
{
	tilecopy_layout_t a, b, r;

	parse(&a, at);
	parse(&b, bt);
	ck_assert_msg(!tc_layout_composition(&r, &a, &b), "%s o %s: %s", at, bt,
		      tilecopy_last_error());
	assert_prints(&r, want);
	for (int64_t i = 0; i < tc_layout_size(&b); i++)
		ck_assert_int_eq(L(&r, i), L_ext(&a, L(&b, i)));
}

static int64_t ref_eval(const struct ref_l *r, int64_t i)
{
	int64_t off = 0;

	for (int k = 0; k < r->n; k++) {
		off += (i % r->s[k]) * r->d[k];
		i /= r->s[k];
	}
	return off;
}

/* CuTe's a o b is exact: size(b) values, each a(b(i)) (a extended). */
static int ref_compose_exact(const tilecopy_layout_t *a, const tilecopy_layout_t *b)
{
	struct ref_l fa, res = { 0 };
	int64_t size_b = tc_layout_size(b), size_r = 1;

	ref_from(&fa, a);
	ref_coalesce(&fa, 1);
	for (int i = 0; i < b->nleaves; i++)
		ref_compose_leaf(&fa, b->shape[i], b->stride[i], &res);
	for (int k = 0; k < res.n; k++)
		size_r *= res.s[k];
	if (size_r != size_b)
		return 0;
	for (int64_t i = 0; i < size_b; i++)
		if (ref_eval(&res, i) != L_ext(a, L(b, i)))
			return 0;
	return 1;
}

/* A random flat layout for the algebra: shapes 1..7, strides 0..29, often 0. */
static void random_any(tilecopy_layout_t *l, uint64_t *seed, int maxn)
{
	int64_t shape[4], stride[4];
	int n = 1 + (int)(tc_rand(seed) % (uint64_t)maxn);

	for (int i = 0; i < n; i++) {
		shape[i] = 1 + (int64_t)(tc_rand(seed) % 7);
		stride[i] = tc_rand(seed) % 4 ? (int64_t)(tc_rand(seed) % 30) : 0;
	}
	TC_OK(tc_layout_make(l, n, shape, stride));
}

/*
 * Every success is exactly a(b(i)) over b's whole domain, a extended past
 * its size along its last leaf (CuTe's coalesce_x), b in a's domain or not,
 * stride-0 and size-1 leaves included; and whatever CuTe composes exactly
 * is accepted.
 */
START_TEST(test_composition_matches_cute)
{
	uint64_t seed = 0x5eed;
	int cute_exact = 0, ours = 0, outside = 0;

	for (int it = 0; it < tc_iters(20000); it++) {
		tilecopy_layout_t a, b, r;
		int64_t size_b;
		int exact;

		if (it % 3 == 0)
			random_layout(&a, &seed, 1);
		else
			random_any(&a, &seed, 4);
		if (it % 4 == 0)
			random_layout(&b, &seed, it & 1);
		else
			random_any(&b, &seed, 3);
		size_b = tc_layout_size(&b);
		exact = ref_compose_exact(&a, &b);
		outside += tc_layout_cosize(&b) > tc_layout_size(&a);
		if (tc_layout_composition(&r, &a, &b) == TILECOPY_SUCCESS) {
			ck_assert_int_eq(tc_layout_size(&r), size_b);
			for (int64_t i = 0; i < size_b; i++)
				ck_assert_msg(L(&r, i) == L_ext(&a, L(&b, i)),
					      "it %d i %lld: %s o %s = %s", it, (long long)i,
					      str(&a), str(&b), str(&r));
			ours++;
		} else {
			ck_assert_msg(!exact, "it %d: CuTe composes %s o %s exactly, refused: %s",
				      it, str(&a), str(&b), tilecopy_last_error());
		}
		cute_exact += exact;
	}
	ck_assert_int_gt(outside, tc_iters(20000) / 4);	/* b leaving a's domain was tried */
	ck_assert_int_gt(cute_exact, tc_iters(20000) / 4);
	ck_assert_int_ge(ours, cute_exact);
}
END_TEST

/*
 * The walk's own rules, on b too large for the search by value (more than
 * TC_COMPOSE_SEARCH_MAX elements): a stride-0 leaf carrying evenly, a leaf
 * whose digits never carry; and a refusal that says it did not search.
 */
START_TEST(test_composition_large)
{
	tilecopy_layout_t a, b, r;

	compose_check("(7,1000000):(0,6)", "(6,11000):(4,28)", "((2,3),11000):((0,6),24)");
	compose_check("(6,1):(1,1)", "(5,14000):(19,6)", "(5,14000):(4,1)");
	parse(&a, "(5,1):(6,1)");
	parse(&b, "(4,17000):(4,5)");
	TC_FAILS(tc_layout_composition(&r, &a, &b), TILECOPY_ERR_INVALID_ARG,
		 "too many to search");
	parse(&b, "4:4");
	TC_FAILS(tc_layout_composition(&r, &a, &b), TILECOPY_ERR_INVALID_ARG,
		 "a(b(i)) is no layout");
}
END_TEST

/*
 * More than 16 leaves that do not merge: no flat layout holds them, so
 * coalesce refuses (it wrote past the mode table before).
 */
START_TEST(test_coalesce_too_many_modes)
{
	tilecopy_layout_t a, r;
	char text[1024] = "((";
	size_t n = 2;
	int64_t st = 1;

	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s2", i ? "," : "");
	n += (size_t)snprintf(text + n, sizeof(text) - n, ")):((");
	for (int i = 0; i < 20; i++, st *= 3)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%lld", i ? "," : "",
				      (long long)st);
	snprintf(text + n, sizeof(text) - n, "))");
	parse(&a, text);
	ck_assert_int_eq(a.nleaves, 20);
	TC_FAILS(tc_layout_coalesce(&r, &a), TILECOPY_ERR_UNSUPPORTED, "20 flat modes");
}
END_TEST

/* The review's cases (docs/sdk.md), printed as CuTe prints them. */
START_TEST(test_composition_review_cases)
{
	static const struct {
		const char *a, *b, *want;	/* want NULL: refused */
	} cases[] = {
		/* b beyond a's domain: a goes on along its last leaf */
		{ "1:1", "4:1", "4:1" },
		{ "(2,1):(1,32)", "4:1", "(2,2):(1,32)" },
		{ "(8,1):(1,1)", "(3,1):(8,4)", "(3,1):(1,0)" },	/* CuTe (3,1):(1,1) */
		/* CuTe gives (2,2):(24,1), but a(8) = 19: no layout */
		{ "(5,1):(6,1)", "4:4", NULL },
		/* stride-0 leaves of a whose carries come out evenly */
		{ "(7,4):(0,6)", "6:4", "(2,3):(0,6)" },
		{ "(5,2):(0,4)", "4:3", "(2,2):(0,4)" },
		{ "(8,6):(0,3)", "6:3", "(3,2):(0,3)" },
		/* ... and one whose carries do not: a(4*7) = 24, not 18 */
		{ "(7,4):(0,6)", "8:4", NULL },
		/* right by a coincidence of a's strides: found by value */
		{ "(7,2,7):(0,13,13)", "4:6", "(2,2):(0,13)" },
		/* 19 is digits 1 and 3 of a: nothing carries, 5:a(19) */
		{ "(6,1):(1,1)", "5:19", "5:4" },
		/* CuTe's docs */
		{ "(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)" },
		{ "20:2", "(5,4):(4,1)", "(5,4):(8,2)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tilecopy_layout_t a, b, r;
		tilecopy_status_t st;

		parse(&a, cases[i].a);
		parse(&b, cases[i].b);
		st = tc_layout_composition(&r, &a, &b);
		if (!cases[i].want) {
			ck_assert_msg(st == TILECOPY_ERR_INVALID_ARG, "%s o %s: %s", cases[i].a,
				      cases[i].b, st ? tilecopy_last_error() : str(&r));
			continue;
		}
		compose_check(cases[i].a, cases[i].b, cases[i].want);
	}
}
END_TEST

START_TEST(test_composition_issue_cases)
{
	tilecopy_layout_t a, b, r;

	/* b's leaf stays inside a's first leaf: no divisibility needed */
	parse(&a, "(7,4):(1,21)");
	parse(&b, "4:2");
	TC_OK(tc_layout_composition(&r, &a, &b));
	assert_prints(&r, "4:2");
	/* CuTe's rounding gives 2:4 here; a(5) = 5 */
	parse(&b, "2:5");
	TC_OK(tc_layout_composition(&r, &a, &b));
	assert_prints(&r, "2:5");
	/* non-injective b whose sum carries: a(b(1,1)) = a(2) = 1, no layout */
	parse(&a, "(2,2):(10,1)");
	parse(&b, "(2,2):(1,1)");
	TC_FAILS(tc_layout_composition(&r, &a, &b), TILECOPY_ERR_INVALID_ARG, "carry");
	/* non-injective b that never carries is exact: a linear */
	parse(&a, "16:3");
	TC_OK(tc_layout_composition(&r, &a, &b));
	assert_prints(&r, "(2,2):(3,3)");
	/* two leaves each inside a's leaf, together past it: refused */
	parse(&a, "(3,2):(1,100)");
	parse(&b, "(2,2):(1,2)");
	TC_FAILS(tc_layout_composition(&r, &a, &b), TILECOPY_ERR_INVALID_ARG, "carry");
	/* a step that crosses a leaf with neither dividing: no layout */
	parse(&b, "3:2");
	TC_FAILS(tc_layout_composition(&r, &a, &b), TILECOPY_ERR_INVALID_ARG, "divides");
}
END_TEST

/* CuTe's filter: stride-0 leaves become size 1, then coalesce. */
static void ref_filter(struct ref_l *v, const tilecopy_layout_t *a)
{
	ref_from(v, a);
	for (int i = 0; i < v->n; i++)
		if (!v->d[i])
			v->s[i] = 1;
	ref_coalesce(v, 0);
}

/* CuTe's complement: filter, then gaps below each stride, rounded down. */
static int ref_complement(const tilecopy_layout_t *a, int64_t cot, struct ref_l *r)
{
	struct ref_l v;
	int64_t span = 1;

	ref_filter(&v, a);
	r->n = 0;
	if (v.d[0] == 0 && v.n == 1) {		/* 1:0: nothing filtered in */
		r->s[0] = cot, r->d[0] = 1, r->n = 1;
		ref_coalesce(r, 0);
		return 1;
	}
	while (v.n) {
		int k = 0;

		for (int i = 1; i < v.n; i++)
			if (v.d[i] < v.d[k])
				k = i;
		if (v.d[k] / span == 0)
			return 0;
		r->s[r->n] = v.d[k] / span, r->d[r->n++] = span;
		span = v.d[k] * v.s[k];
		v.n--;
		memmove(&v.s[k], &v.s[k + 1], sizeof(v.s[0]) * (size_t)(v.n - k));
		memmove(&v.d[k], &v.d[k + 1], sizeof(v.d[0]) * (size_t)(v.n - k));
	}
	r->s[r->n] = ref_ceil_div(cot, span), r->d[r->n++] = span;
	ref_coalesce(r, 0);
	return 1;
}

/* The strides of filtered a each a multiple of the span below them. */
static int divisible_strides(const tilecopy_layout_t *a)
{
	struct ref_l v;
	int64_t span = 1;

	ref_filter(&v, a);
	if (v.n == 1 && v.s[0] == 1)
		return 1;
	for (int done = 0; done < v.n; done++) {
		int k = -1;

		for (int i = 0; i < v.n; i++)
			if (v.s[i] > 0 && (k < 0 || v.d[i] < v.d[k]))
				k = i;
		if (v.d[k] % span)
			return 0;
		span = v.d[k] * v.s[k];
		v.s[k] = 0;	/* taken */
	}
	return 1;
}

/*
 * Against the port of CuTe's complement, and CuTe's own postconditions
 * (test/unit/cute/core/complement.cpp): (a, R) injective, R ordered and
 * disjoint from a; when a's strides divide, (a, R) reaches cotarget (its
 * bound on cosize(R) holds for the cotargets it tries only: complement(2:6,
 * 13) is (6,2):(1,12) there too).
 */
START_TEST(test_complement_property)
{
	uint64_t seed = 0x777;
	int done = 0, uneven = 0;

	for (int it = 0; it < tc_iters(4000); it++) {
		tilecopy_layout_t a, c;
		struct ref_l ref;
		int64_t m, cos, reach = 0;
		unsigned char seen[8192] = { 0 }, aset[1024];
		int cute_ok;

		if (it & 1)
			random_layout(&a, &seed, 0);
		else
			random_any(&a, &seed, 4);
		cos = tc_layout_cosize(&a);
		m = 1 + (int64_t)(tc_rand(&seed) % (uint64_t)(cos + 8));
		cute_ok = ref_complement(&a, m, &ref);
		if (tc_layout_complement(&c, &a, m)) {
			ck_assert_msg(!cute_ok, "it %d: CuTe complements %s, refused: %s", it,
				      str(&a), tilecopy_last_error());
			continue;
		}
		ck_assert_msg(cute_ok, "it %d: %s has no complement in CuTe", it, str(&a));
		ck_assert_int_eq(c.nleaves, ref.n);
		for (int k = 0; k < ref.n; k++) {
			ck_assert_int_eq(c.shape[k], ref.s[k]);
			ck_assert_int_eq(c.stride[k], ref.d[k]);
		}
		/* R ordered, disjoint from a; (a, R) injective on a's distinct
		 * offsets (a itself may repeat them through stride-0 leaves) */
		for (int64_t j = 1; j < tc_layout_size(&c); j++)
			ck_assert_int_lt(L(&c, j - 1), L(&c, j));
		memset(aset, 0, sizeof(aset));
		for (int64_t i = 0; i < tc_layout_size(&a); i++)
			aset[L(&a, i)] = 1;
		for (int64_t j = 1; j < tc_layout_size(&c); j++)
			ck_assert(L(&c, j) >= (int64_t)sizeof(aset) || !aset[L(&c, j)]);
		for (int64_t o = 0; o < (int64_t)sizeof(aset); o++) {
			if (!aset[o])
				continue;
			for (int64_t j = 0; j < tc_layout_size(&c); j++) {
				int64_t x = o + L(&c, j);

				ck_assert_int_lt(x, (int64_t)sizeof(seen));
				ck_assert_msg(!seen[x], "it %d: %s, complement %s meet at %lld", it,
					      str(&a), str(&c), (long long)x);
				seen[x] = 1;
				if (x > reach)
					reach = x;
			}
		}
		if (divisible_strides(&a))
			ck_assert_msg(reach + 1 >= m, "it %d: (%s, %s) ends at %lld < %lld", it,
				      str(&a), str(&c), (long long)reach, (long long)m);
		else
			uneven++;
		done++;
	}
	ck_assert_int_gt(done, tc_iters(4000) / 4);
	ck_assert_int_gt(uneven, tc_iters(4000) / 80);
}
END_TEST

START_TEST(test_complement_examples)
{
	tilecopy_layout_t a, c;

	parse(&a, "4:1");			/* complement(4:1, 24) = 6:4 */
	TC_OK(tc_layout_complement(&c, &a, 24));
	assert_prints(&c, "6:4");
	parse(&a, "(2,2):(1,6)");		/* -> (3,2):(2,12) */
	TC_OK(tc_layout_complement(&c, &a, 24));
	assert_prints(&c, "(3,2):(2,12)");
	parse(&a, "(2,2):(2,3)");		/* overlapping: refused */
	TC_FAILS(tc_layout_complement(&c, &a, 24), TILECOPY_ERR_INVALID_ARG,
		 "not injective");
	/* the review's case: strides that do not divide, CuTe's result */
	parse(&a, "(2,8):(3,32)");
	TC_OK(tc_layout_complement(&c, &a, 64));
	assert_prints(&c, "(3,5):(1,6)");
	parse(&a, "(4,2):(1,10)");		/* CuTe's own test */
	TC_OK(tc_layout_complement(&c, &a, 21));
	assert_prints(&c, "(2,2):(4,20)");
}
END_TEST

/* CuTe's right_inverse: coalesce, exchange-sort by stride, chain. */
static void ref_right_inverse(const tilecopy_layout_t *a, struct ref_l *r)
{
	struct ref_l v;
	int64_t pre[64], curr = 1;
	int order[64];

	ref_from(&v, a);
	ref_coalesce(&v, 0);
	pre[0] = 1;
	for (int i = 0; i < v.n; i++)
		pre[i + 1] = pre[i] * v.s[i], order[i] = i;
	for (int i = 0; i < v.n; i++)
		for (int j = i + 1; j < v.n; j++)
			if (v.d[order[j]] < v.d[order[i]]) {
				int t = order[i];

				order[i] = order[j], order[j] = t;
			}
	r->n = 1;
	r->s[0] = 1, r->d[0] = 0;
	for (int i = 0; i < v.n; i++) {
		int k = order[i];

		if (v.d[k] == curr) {
			r->s[r->n] = v.s[k], r->d[r->n++] = pre[k];
			curr = v.s[k] * v.d[k];
		}
	}
	ref_coalesce(r, 0);
}

START_TEST(test_right_inverse_property)
{
	uint64_t seed = 0x4242;
	int partial = 0;

	for (int it = 0; it < tc_iters(4000); it++) {
		tilecopy_layout_t a, r;
		struct ref_l ref;

		if (it & 1)
			random_layout(&a, &seed, 1);	/* bijections: full inverse */
		else
			random_any(&a, &seed, 4);	/* anything: CuTe's inverse */
		TC_OK(tc_layout_right_inverse(&r, &a));
		if (it & 1)
			ck_assert_int_eq(tc_layout_size(&r), tc_layout_size(&a));
		partial += tc_layout_size(&r) < tc_layout_size(&a);
		for (int64_t i = 0; i < tc_layout_size(&r); i++)
			ck_assert_int_eq(L(&a, L(&r, i)), i);
		ref_right_inverse(&a, &ref);
		ck_assert_int_eq(r.nleaves, ref.n);
		for (int k = 0; k < ref.n; k++) {
			ck_assert_msg(r.shape[k] == ref.s[k] && r.stride[k] == ref.d[k],
				      "it %d: right_inverse(%s) = %s, CuTe's leaf %d is %lld:%lld",
				      it, str(&a), str(&r), k, (long long)ref.s[k],
				      (long long)ref.d[k]);
		}
	}
	ck_assert_int_gt(partial, tc_iters(4000) / 8);
}
END_TEST

START_TEST(test_right_inverse_review_case)
{
	tilecopy_layout_t a, r;

	/* non-injective: CuTe's inverse 8:5, not the smaller 2:40 */
	parse(&a, "(5,8,2):(16,1,1)");
	TC_OK(tc_layout_right_inverse(&r, &a));
	assert_prints(&r, "8:5");
}
END_TEST

START_TEST(test_right_inverse_nchw_nhwc)
{
	tilecopy_layout_t nhwc, r;

	/* NHWC strides of a 2x3x4x5 tensor in logical N,C,H,W order; its
	 * inverse walks memory order back to logical indices. */
	parse(&nhwc, "(2,3,4,5):(60,1,15,3)");
	TC_OK(tc_layout_right_inverse(&r, &nhwc));
	for (int64_t i = 0; i < 120; i++)
		ck_assert_int_eq(L(&nhwc, L(&r, i)), i);
	assert_prints(&r, "(3,5,4,2):(2,24,6,1)");
}
END_TEST

START_TEST(test_logical_divide)
{
	tilecopy_layout_t a, t, r;

	/* CuTe docs: (4,2,3):(2,1,8) / 4:2 = ((2,2),(2,3)):((4,1),(2,8)) */
	parse(&a, "(4,2,3):(2,1,8)");
	parse(&t, "4:2");
	TC_OK(tc_layout_logical_divide(&r, &a, &t));
	ck_assert_int_eq(tc_layout_rank(&r), 2);
	ck_assert_int_eq(tc_layout_size(&r), 24);
	assert_prints(&r, "((2,2),(2,3)):((4,1),(2,8))");
}
END_TEST

static Suite *layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("core");

	/* brute force over 70000 values, also under qemu-user (check-arm64) */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parse_print_roundtrip);
	tcase_add_test(tc, test_parse_queries);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_coalesce_property);
	tcase_add_test(tc, test_coalesce_examples);
	tcase_add_test(tc, test_composition_matches_cute);
	tcase_add_test(tc, test_composition_review_cases);
	tcase_add_test(tc, test_composition_large);
	tcase_add_test(tc, test_coalesce_too_many_modes);
	tcase_add_test(tc, test_composition_issue_cases);
	tcase_add_test(tc, test_complement_property);
	tcase_add_test(tc, test_complement_examples);
	tcase_add_test(tc, test_right_inverse_property);
	tcase_add_test(tc, test_right_inverse_review_case);
	tcase_add_test(tc, test_right_inverse_nchw_nhwc);
	tcase_add_test(tc, test_logical_divide);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(layout_suite());
}
