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

START_TEST(test_composition_property)
{
	uint64_t seed = 0xabcdef;
	int done = 0;

	for (int it = 0; it < 2000; it++) {
		tilecopy_layout_t a, b, r;
		int64_t sz;

		random_layout(&a, &seed, 1);
		random_layout(&b, &seed, it & 1);
		sz = tc_layout_size(&a);
		/* b must map into a's domain for a(b(i)) to be defined */
		if (tc_layout_cosize(&b) > sz)
			continue;
		if (tc_layout_composition(&r, &a, &b))
			continue;	/* indivisible: CuTe rejects those too */
		ck_assert_int_eq(tc_layout_size(&r), tc_layout_size(&b));
		for (int64_t i = 0; i < tc_layout_size(&b); i++)
			ck_assert_msg(L(&r, i) == L(&a, L(&b, i)), "it %d i %lld", it,
				      (long long)i);
		done++;
	}
	ck_assert_int_gt(done, 300);	/* the property was really exercised */
}
END_TEST

START_TEST(test_composition_examples)
{
	tilecopy_layout_t a, b, r;

	/* CuTe docs: (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8) */
	parse(&a, "(6,2):(8,2)");
	parse(&b, "(4,3):(3,1)");
	TC_OK(tc_layout_composition(&r, &a, &b));
	assert_prints(&r, "((2,2),3):((24,2),8)");
	/* 20:2 o (5,4):(4,1) = (5,4):(8,2) */
	parse(&a, "20:2");
	parse(&b, "(5,4):(4,1)");
	TC_OK(tc_layout_composition(&r, &a, &b));
	assert_prints(&r, "(5,4):(8,2)");
}
END_TEST

/*
 * CuTe's composition of one leaf s:d with a coalesced flat a, as its
 * layout.hpp defines it for run-time integers (shape_div rounds up, no
 * divisibility check): the reference "what CuTe accepts and returns".
 */
static int cute_div(int64_t a, int64_t b)
{
	return (int)((a + b - 1) / b);
}

static int cute_compose_leaf(const int64_t *as, const int64_t *ad, int an, int64_t s,
			     int64_t d, int64_t *rs, int64_t *rd, int n)
{
	int64_t rest_d = d, rest_s = s, sh1[8], st1[8];

	if (d == 0 || an == 1) {
		rs[n] = s, rd[n] = d * ad[0];
		return n + 1;
	}
	for (int k = 0; k < an - 1; k++) {
		sh1[k] = cute_div(as[k], rest_d);
		rest_d = cute_div(rest_d, as[k]);
		st1[k] = ad[k] * cute_div(as[k], sh1[k]);
	}
	for (int k = 0; k < an - 1; k++) {
		int64_t m = sh1[k] < rest_s ? sh1[k] : rest_s;

		rest_s = cute_div(rest_s, sh1[k]);
		if (m > 1)
			rs[n] = m, rd[n] = st1[k], n++;
	}
	rs[n] = rest_s, rd[n] = rest_d * ad[an - 1];
	return n + 1;
}

/* Evaluate flat leaves at index i (colex). */
static int64_t eval_leaves(const int64_t *s, const int64_t *d, int n, int64_t i)
{
	int64_t off = 0;

	for (int k = 0; k < n; k++) {
		off += (i % s[k]) * d[k];
		i /= s[k];
	}
	return off;
}

START_TEST(test_composition_accepts_what_cute_gets_right)
{
	uint64_t seed = 0x5eed;
	int cute_right = 0, both = 0;

	for (int it = 0; it < 3000; it++) {
		tilecopy_layout_t a, b, r, ac;
		int64_t rs[64], rd[64], size_b, size_r = 1;
		int n = 0, ok = 1;

		random_layout(&a, &seed, it % 3 == 0);
		random_layout(&b, &seed, it % 3 == 1);
		/* b must map into a's domain for a(b(i)) to be defined */
		if (tc_layout_cosize(&b) > tc_layout_size(&a))
			continue;
		TC_OK(tc_layout_coalesce(&ac, &a));
		for (int i = 0; i < b.nleaves; i++)
			n = cute_compose_leaf(ac.shape, ac.stride, ac.nleaves, b.shape[i],
					      b.stride[i], rs, rd, n);
		for (int i = 0; i < n; i++)
			size_r *= rs[i];
		size_b = tc_layout_size(&b);
		if (size_r != size_b)
			ok = 0;
		for (int64_t i = 0; ok && i < size_b; i++)
			ok = eval_leaves(rs, rd, n, i) == L(&a, L(&b, i));
		if (tc_layout_composition(&r, &a, &b) == TILECOPY_SUCCESS) {
			/* whatever is accepted is exact */
			ck_assert_int_eq(tc_layout_size(&r), size_b);
			for (int64_t i = 0; i < size_b; i++)
				ck_assert_msg(L(&r, i) == L(&a, L(&b, i)), "it %d i %lld: %s o %s",
					      it, (long long)i, str(&a), str(&b));
			both += ok;
		} else {
			ck_assert_msg(!ok, "it %d: CuTe gets it right, refused: %s", it,
				      tilecopy_last_error());
		}
		cute_right += ok;
	}
	ck_assert_int_gt(cute_right, 400);
	ck_assert_int_eq(both, cute_right);
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

START_TEST(test_complement_property)
{
	uint64_t seed = 0x777;
	int done = 0;

	for (int it = 0; it < 1000; it++) {
		tilecopy_layout_t a, c;
		int64_t m, cos;
		unsigned char seen[4096] = { 0 };

		random_layout(&a, &seed, 0);
		for (int k = 0; k < a.nleaves; k++)
			if (a.shape[k] > 1 && !a.stride[k])
				goto next;	/* not injective: outside the contract */
		cos = tc_layout_cosize(&a);
		m = cos + (int64_t)(tc_rand(&seed) % 8);
		if (tc_layout_complement(&c, &a, m))
			continue;
		/* (a, complement) must be injective and cover at least m */
		for (int64_t i = 0; i < tc_layout_size(&a); i++) {
			for (int64_t j = 0; j < tc_layout_size(&c); j++) {
				int64_t off = L(&a, i) + L(&c, j);

				ck_assert_int_lt(off, 4096);
				ck_assert_msg(!seen[off], "overlap at %lld", (long long)off);
				seen[off] = 1;
			}
		}
		ck_assert_int_ge(tc_layout_size(&a) * tc_layout_size(&c), m);
		done++;
next:;
	}
	ck_assert_int_gt(done, 100);
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
		 "complement");
}
END_TEST

START_TEST(test_right_inverse_property)
{
	uint64_t seed = 0x4242;

	for (int it = 0; it < 1000; it++) {
		tilecopy_layout_t a, r;

		random_layout(&a, &seed, 1);	/* bijections: full inverse */
		TC_OK(tc_layout_right_inverse(&r, &a));
		ck_assert_int_eq(tc_layout_size(&r), tc_layout_size(&a));
		for (int64_t i = 0; i < tc_layout_size(&r); i++)
			ck_assert_int_eq(L(&a, L(&r, i)), i);
	}
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

	tcase_add_test(tc, test_parse_print_roundtrip);
	tcase_add_test(tc, test_parse_queries);
	tcase_add_test(tc, test_parse_errors);
	tcase_add_test(tc, test_coalesce_property);
	tcase_add_test(tc, test_coalesce_examples);
	tcase_add_test(tc, test_composition_property);
	tcase_add_test(tc, test_composition_examples);
	tcase_add_test(tc, test_composition_accepts_what_cute_gets_right);
	tcase_add_test(tc, test_composition_issue_cases);
	tcase_add_test(tc, test_complement_property);
	tcase_add_test(tc, test_complement_examples);
	tcase_add_test(tc, test_right_inverse_property);
	tcase_add_test(tc, test_right_inverse_nchw_nhwc);
	tcase_add_test(tc, test_logical_divide);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(layout_suite());
}
