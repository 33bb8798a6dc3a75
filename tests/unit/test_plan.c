// SPDX-License-Identifier: MIT
/*
 * test_plan.c - the planner and the scalar executor against a brute-force
 * reference: for every pair of formats in a family, every shape and element
 * size, the plan's output equals element-by-element copying through
 * crd2idx, with every destination byte written (padding zeroed).
 */
#include <stdio.h>

#include "tc_test.h"

struct family {
	const char *name;
	const char *const *formats;
	const char *const *shapes;
};

static const char *const fmt4[] = {
	"NCHW", "NHWC", "CHWN", "HWCN", "NCHW4", "nChw8c", "nChw16c", "NCHW32",
	"NCHW64", "NC1HWC0", "CHWN4", NULL,
};
static const char *const shp4[] = { "2x3x5x7", "1x17x3x2", "3x64x2x2", "2x1x1x1", NULL };
static const char *const fmt5[] = { "NCDHW", "NDHWC", "nCdhw16c", "NCDHW8", "CDHWN", NULL };
static const char *const shp5[] = { "2x5x3x2x3", "1x20x1x2x2", NULL };
static const char *const fmtm[] = {
	"RowMajor", "ColumnMajor", "zN", "zZ", "nZ", "nN", NULL,
};
static const char *const shpm[] = { "20x30", "1x1", "33x17", "2x3x40x9", "16x64", NULL };

static const struct family families[] = {
	{ "4d", fmt4, shp4 },
	{ "5d", fmt5, shp5 },
	{ "matrix", fmtm, shpm },
};

static const tilecopy_dtype_t dtypes[] = {
	TILECOPY_DT_I8, TILECOPY_DT_F16, TILECOPY_DT_F32, TILECOPY_DT_F64,
};

static void make(tilecopy_tensor_t *t, const char *fmt, const char *shape,
		 tilecopy_dtype_t dt, const char *block)
{
	int64_t s[TILECOPY_MAX_RANK];
	int rank;

	TC_OK(tilecopy_shape_parse(s, &rank, TILECOPY_MAX_RANK, shape));
	TC_OK(tc_tensor_make(t, fmt, s, rank, dt, block));
}

static void reference(const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
		      const unsigned char *in, unsigned char *out, size_t dst_bytes)
{
	size_t es = tc_dtype_size(src->dtype);
	int rank = src->layout.rank;
	int64_t n = 1, crd[TILECOPY_MAX_RANK];

	memset(out, 0, dst_bytes);
	for (int m = 0; m < rank; m++)
		n *= src->extent[m];
	for (int64_t i = 0; i < n; i++) {
		int64_t r = i, so, d;

		for (int m = 0; m < rank; m++) {
			crd[m] = r % src->extent[m];
			r /= src->extent[m];
		}
		tc_layout_crd2idx(&src->layout, crd, &so);
		tc_layout_crd2idx(&dst->layout, crd, &d);
		memcpy(out + d * (int64_t)es, in + so * (int64_t)es, es);
	}
}

/* Convert with the plan on @cpu and compare with the reference. */
static void check_pair(const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
		       const char *cpu)
{
	tilecopy_plan_t *plan;
	uint64_t sb, db, seed = 99;
	unsigned char *in, *want, *got;

	TC_OK(tc_plan_create(&plan, src, dst, 0));
	sb = plan->src_bytes;
	db = plan->dst_bytes;
	in = malloc(sb + 1);
	want = malloc(db + 1);
	got = malloc(db + 1);
	for (uint64_t i = 0; i < sb; i++)
		in[i] = (unsigned char)tc_rand(&seed);
	memset(got, 0xa5, db);		/* unwritten bytes would show */
	reference(src, dst, in, want, db);
	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, got, db, cpu));
	for (uint64_t i = 0; i < db; i++)
		ck_assert_msg(got[i] == want[i],
			      "%s -> %s (%s, esize %zu): byte %llu is %02x, want %02x",
			      src->format, dst->format, cpu,
			      tc_dtype_size(src->dtype), (unsigned long long)i,
			      got[i], want[i]);
	free(in);
	free(want);
	free(got);
	tilecopy_plan_destroy(plan);
}

START_TEST(test_all_pairs_scalar)
{
	const struct family *f = &families[_i];
	/* TC_TEST_QUICK (valgrind runs): one shape, two element sizes */
	int quick = getenv("TC_TEST_QUICK") != NULL;
	size_t ndt = quick ? 2 : sizeof(dtypes) / sizeof(dtypes[0]);
	int pairs = 0;

	for (const char *const *sh = f->shapes; *sh && (!quick || sh == f->shapes); sh++)
		for (size_t d = 0; d < ndt; d++)
			for (const char *const *a = f->formats; *a; a++)
				for (const char *const *b = f->formats; *b; b++) {
					tilecopy_tensor_t src, dst;

					make(&src, *a, *sh, dtypes[d], NULL);
					make(&dst, *b, *sh, dtypes[d], NULL);
					check_pair(&src, &dst, "scalar");
					pairs++;
				}
	ck_assert_int_gt(pairs, quick ? 20 : 50);
}
END_TEST

START_TEST(test_strided_and_cute)
{
	tilecopy_tensor_t src, dst;

	/* padded rows (stride 8 for 5 columns) as a destination: holes zeroed */
	make(&src, "RowMajor", "3x5", TILECOPY_DT_F32, NULL);
	make(&dst, "strided:8,1", "3x5", TILECOPY_DT_F32, NULL);
	check_pair(&src, &dst, "scalar");
	check_pair(&dst, &src, "scalar");
	/* broadcast source (stride 0) into a dense destination */
	make(&src, "strided:0,1", "4x6", TILECOPY_DT_F16, NULL);
	make(&dst, "ColumnMajor", "4x6", TILECOPY_DT_F16, NULL);
	check_pair(&src, &dst, "scalar");
	/* CuTe notation on both sides, with a split that does not refine */
	make(&src, "((2,3),4):((1,2),6)", "6x4", TILECOPY_DT_I8, NULL);
	make(&dst, "((3,2),4):((4,1),6)", "6x4", TILECOPY_DT_I8, NULL);
	check_pair(&src, &dst, "scalar");
	/* block overrides */
	make(&src, "RowMajor", "8x12", TILECOPY_DT_F16, NULL);
	make(&dst, "zN", "8x12", TILECOPY_DT_F16, "4x4");
	check_pair(&src, &dst, "scalar");
	make(&dst, "nZ", "7x9", TILECOPY_DT_F16, "2x4");
	make(&src, "zZ", "7x9", TILECOPY_DT_F16, "4x2");
	check_pair(&src, &dst, "scalar");
	make(&src, "NCHW", "2x5x3x3", TILECOPY_DT_F32, NULL);
	make(&dst, "NC1HWC0", "2x5x3x3", TILECOPY_DT_F32, "4");
	check_pair(&src, &dst, "scalar");
}
END_TEST

static size_t plan_count(const char *from, const char *to, const char *shape,
			 tilecopy_dtype_t dt)
{
	tilecopy_tensor_t src, dst;
	tilecopy_plan_t *plan;
	size_t n;

	make(&src, from, shape, dt, NULL);
	make(&dst, to, shape, dt, NULL);
	TC_OK(tc_plan_create(&plan, &src, &dst, 0));
	n = plan->n;
	tilecopy_plan_destroy(plan);
	return n;
}

START_TEST(test_plans_are_few)
{
	ck_assert_uint_eq(plan_count("NCHW", "NHWC", "32x64x56x56", TILECOPY_DT_F32), 1);
	ck_assert_uint_eq(plan_count("NHWC", "NCHW", "32x64x56x56", TILECOPY_DT_F32), 1);
	ck_assert_uint_eq(plan_count("NCHW", "nChw16c", "32x64x56x56", TILECOPY_DT_F32), 1);
	ck_assert_uint_eq(plan_count("NCHW", "NCHW", "32x64x56x56", TILECOPY_DT_F32), 1);
	ck_assert_uint_eq(plan_count("RowMajor", "zN", "4096x4096", TILECOPY_DT_F16), 1);
	ck_assert_uint_eq(plan_count("zN", "nZ", "4096x4096", TILECOPY_DT_I8), 1);
	/* C=3 padded to 16: one fill + one copy */
	ck_assert_uint_eq(plan_count("NCHW", "NC1HWC0", "8x3x32x32", TILECOPY_DT_F16), 2);
}
END_TEST

/*
 * Blocks that do not nest (review B9): zN 3x5 -> zN/nZ 5x3 repeat every
 * 15 rows and 15 columns, so the plan has a descriptor per residue pair,
 * not one per element (it had 1,000,001 for 1000x1000), and is exact.
 */
START_TEST(test_plan_blocks_that_do_not_nest)
{
	static const char *const to[] = { "zN", "nZ", "zZ" };

	for (size_t i = 0; i < sizeof(to) / sizeof(to[0]); i++) {
		tilecopy_tensor_t src, dst;
		tilecopy_plan_t *plan;

		make(&src, "zN", "1000x1000", TILECOPY_DT_F16, "3x5");
		make(&dst, to[i], "1000x1000", TILECOPY_DT_F16, "5x3");
		TC_OK(tc_plan_create(&plan, &src, &dst, 0));
		ck_assert_msg(plan->n <= 15 * 15 + 4, "zN 3x5 -> %s 5x3: %zu descriptors",
			      to[i], plan->n);
		tilecopy_plan_destroy(plan);
		make(&src, "zN", "47x38", TILECOPY_DT_F16, "3x5");
		make(&dst, to[i], "47x38", TILECOPY_DT_F16, "5x3");
		check_pair(&src, &dst, "scalar");
		check_pair(&dst, &src, "scalar");
		check_pair(&src, &dst, NULL);
	}
	/* the size that hit the 2^20 descriptor cap */
	{
		tilecopy_tensor_t src, dst;
		tilecopy_plan_t *plan;

		make(&src, "zN", "4095x4097", TILECOPY_DT_F16, "3x5");
		make(&dst, "nZ", "4095x4097", TILECOPY_DT_F16, "5x3");
		TC_OK(tc_plan_create(&plan, &src, &dst, 0));
		ck_assert_uint_le(plan->n, 15 * 15 + 4);
		tilecopy_plan_destroy(plan);
	}
}
END_TEST

START_TEST(test_plan_identity_is_one_run)
{
	tilecopy_tensor_t t;
	tilecopy_plan_t *plan;
	const struct drm_tilecopy_desc *d;
	size_t n;

	make(&t, "NHWC", "2x3x4x5", TILECOPY_DT_F32, NULL);
	TC_OK(tc_plan_create(&plan, &t, &t, 0));
	d = plan->descs, n = plan->n;
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(d[0].ndims, 1);
	ck_assert_uint_eq(d[0].extent[0], 120);
	ck_assert_uint_eq(plan->moved_bytes, 2 * 120 * 4);
	tilecopy_plan_destroy(plan);
}
END_TEST

START_TEST(test_plan_errors)
{
	tilecopy_tensor_t a, b;
	tilecopy_plan_t *plan = (tilecopy_plan_t *)1;
	unsigned char buf[64];

	make(&a, "RowMajor", "8x12", TILECOPY_DT_F16, NULL);
	make(&b, "zN", "8x13", TILECOPY_DT_F16, NULL);
	TC_FAILS(tc_plan_create(&plan, &a, &b, 0), TILECOPY_ERR_SHAPE_MISMATCH,
		 "dst: shape 8x13 differs from src shape 8x12");
	ck_assert_ptr_null(plan);
	make(&b, "zN", "8x12", TILECOPY_DT_F32, NULL);
	TC_FAILS(tc_plan_create(&plan, &a, &b, 0), TILECOPY_ERR_DTYPE_MISMATCH,
		 "element size 4");
	make(&b, "strided:1,0", "8x12", TILECOPY_DT_F16, NULL);
	TC_FAILS(tc_plan_create(&plan, &a, &b, 0), TILECOPY_ERR_OVERLAP, "dst");
	make(&b, "strided:2,1", "8x12", TILECOPY_DT_F16, NULL);	/* rows overlap */
	TC_FAILS(tc_plan_create(&plan, &a, &b, 0), TILECOPY_ERR_OVERLAP, "dst");
	make(&b, "ColumnMajor", "8x12", TILECOPY_DT_F16, NULL);
	TC_OK(tc_plan_create(&plan, &a, &b, 0));
	memset(buf, 0x5a, sizeof(buf));
	TC_FAILS(tilecopy_plan_execute_cpu(plan, buf, sizeof(buf), buf, sizeof(buf), NULL),
		 TILECOPY_ERR_BUFFER_TOO_SMALL, "src_size: 64 bytes, the source needs 192");
	for (size_t i = 0; i < sizeof(buf); i++)
		ck_assert_uint_eq(buf[i], 0x5a);	/* nothing written */
	TC_FAILS(tilecopy_plan_execute_cpu(plan, buf, 1000, buf, 10, NULL),
		 TILECOPY_ERR_BUFFER_TOO_SMALL, "dst_size");
	TC_FAILS(tilecopy_plan_execute_cpu(plan, buf, 1000, buf, 1000, "mmx"),
		 TILECOPY_ERR_INVALID_ARG, "cpu: unknown executor 'mmx'");
	tilecopy_plan_destroy(plan);
}
END_TEST

static Suite *plan_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_all_pairs_scalar, 0,
			    sizeof(families) / sizeof(families[0]));
	tcase_add_test(tc, test_strided_and_cute);
	tcase_add_test(tc, test_plans_are_few);
	tcase_add_test(tc, test_plan_identity_is_one_run);
	tcase_add_test(tc, test_plan_blocks_that_do_not_nest);
	tcase_add_test(tc, test_plan_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(plan_suite());
}
