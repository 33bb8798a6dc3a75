// SPDX-License-Identifier: MIT
/*
 * test_format.c - tensors from format names: exact layouts (CuTe notation)
 * for known shapes, the queries, and the errors with the field they name.
 */
#include <stdio.h>

#include "tc_test.h"

static void make(tilecopy_tensor_t *t, const char *fmt, const char *shape,
		 tilecopy_dtype_t dt, const char *block)
{
	int64_t s[TILECOPY_MAX_RANK];
	int rank;

	TC_OK(tilecopy_shape_parse(s, &rank, TILECOPY_MAX_RANK, shape));
	TC_OK(tc_tensor_make(t, fmt, s, rank, dt, block));
}

static void assert_layout(const char *fmt, const char *shape, tilecopy_dtype_t dt,
			  const char *block, const char *want)
{
	tilecopy_tensor_t t;
	char buf[256];

	make(&t, fmt, shape, dt, block);
	TC_OK(tc_layout_print(&t.layout, buf, sizeof(buf)));
	ck_assert_msg(!strcmp(buf, want), "%s %s: got %s, want %s", fmt, shape, buf, want);
}

START_TEST(test_plain_orders)
{
	assert_layout("NCHW", "2x3x4x5", TILECOPY_DT_F32, NULL, "(2,3,4,5):(60,20,5,1)");
	assert_layout("NHWC", "2x3x4x5", TILECOPY_DT_F32, NULL, "(2,3,4,5):(60,1,15,3)");
	assert_layout("CHWN", "2x3x4x5", TILECOPY_DT_F32, NULL, "(2,3,4,5):(1,40,10,2)");
	assert_layout("HWCN", "2x3x4x5", TILECOPY_DT_F32, NULL, "(2,3,4,5):(1,2,30,6)");
	assert_layout("NDHWC", "2x3x4x5x6", TILECOPY_DT_F32, NULL,
		      "(2,3,4,5,6):(360,1,90,18,3)");
	assert_layout("NCW", "2x3x4", TILECOPY_DT_F32, NULL, "(2,3,4):(12,4,1)");
}
END_TEST

START_TEST(test_blocked)
{
	/* nChw16c, C = 20 padded to 32: C is the mode (16,2):(1,H*W*16) */
	assert_layout("nChw16c", "2x20x3x4", TILECOPY_DT_F32, NULL,
		      "(2,(16,2),3,4):(384,(1,192),64,16)");
	assert_layout("NCHW8", "1x8x2x2", TILECOPY_DT_F32, NULL,
		      "(1,(8,1),2,2):(32,(1,32),16,8)");
	/* NC1HWC0: C0 = 32 bytes / element size */
	assert_layout("NC1HWC0", "1x3x2x2", TILECOPY_DT_F16, NULL,
		      "(1,(16,1),2,2):(64,(1,64),32,16)");
	assert_layout("NC1HWC0", "1x3x2x2", TILECOPY_DT_I8, NULL,
		      "(1,(32,1),2,2):(128,(1,128),64,32)");
	assert_layout("NC1HWC0", "1x3x2x2", TILECOPY_DT_F32, "4",
		      "(1,(4,1),2,2):(16,(1,16),8,4)");
	/* CHWN4: [C/4, H, W, N, 4] */
	assert_layout("CHWN4", "2x8x3x5", TILECOPY_DT_I8, NULL,
		      "(2,(4,2),3,5):(4,(1,120),40,8)");
	assert_layout("nCdhw8c", "1x8x2x2x2", TILECOPY_DT_F32, NULL,
		      "(1,(8,1),2,2,2):(64,(1,64),32,16,8)");
}
END_TEST

START_TEST(test_fractal)
{
	/* the seed example of the CLI, then CATLASS TLA's definitions */
	assert_layout("zN", "8x12", TILECOPY_DT_F16, "4x4", "((4,2),(4,3)):((4,16),(1,32))");
	assert_layout("zZ", "8x12", TILECOPY_DT_F16, "4x4", "((4,2),(4,3)):((4,48),(1,16))");
	assert_layout("nZ", "8x12", TILECOPY_DT_F16, "4x4", "((4,2),(4,3)):((1,48),(4,16))");
	assert_layout("nN", "8x12", TILECOPY_DT_F16, "4x4", "((4,2),(4,3)):((1,16),(4,32))");
	/* defaults: zN fractal 16 x C0, nZ fractal C0 x 16 */
	assert_layout("zN", "20x40", TILECOPY_DT_F16, NULL, "((16,2),(16,3)):((16,256),(1,512))");
	assert_layout("zN", "20x40", TILECOPY_DT_I8, NULL, "((16,2),(32,2)):((32,512),(1,1024))");
	assert_layout("nZ", "20x40", TILECOPY_DT_F32, NULL, "((8,3),(16,3)):((1,384),(8,128))");
	/* batch dims outermost, each matrix whole with its padding */
	assert_layout("zN", "3x8x12", TILECOPY_DT_F16, "4x4",
		      "(3,(4,2),(4,3)):(96,(4,16),(1,32))");
	assert_layout("RowMajor", "2x3x4", TILECOPY_DT_F16, NULL, "(2,3,4):(12,4,1)");
	assert_layout("ColumnMajor", "3x4", TILECOPY_DT_F16, NULL, "(3,4):(1,3)");
	assert_layout("ND", "3x4", TILECOPY_DT_F16, NULL, "(3,4):(4,1)");
}
END_TEST

START_TEST(test_strided_cute)
{
	assert_layout("strided:8,1", "3x5", TILECOPY_DT_F32, NULL, "(3,5):(8,1)");
	assert_layout("((4,2),(4,3)):((4,16),(1,32))", "8x12", TILECOPY_DT_F16, NULL,
		      "((4,2),(4,3)):((4,16),(1,32))");
}
END_TEST

START_TEST(test_queries)
{
	tilecopy_tensor_t t;
	uint64_t b;

	make(&t, "nChw16c", "2x20x3x4", TILECOPY_DT_F32, NULL);
	TC_OK(tc_tensor_bytes(&t, &b));
	ck_assert_uint_eq(b, 2 * 32 * 3 * 4 * 4);
	ck_assert(tc_tensor_has_padding(&t));
	ck_assert(!tc_tensor_is_dense(&t));
	ck_assert(!tc_tensor_has_overlap(&t));
	ck_assert(tc_tensor_is_contiguous_in(&t, "nChw16c"));
	ck_assert(!tc_tensor_is_contiguous_in(&t, "NCHW"));
	make(&t, "NHWC", "2x3x4x5", TILECOPY_DT_F16, NULL);
	ck_assert(tc_tensor_is_dense(&t));
	ck_assert(tc_tensor_is_contiguous_in(&t, "NHWC"));
	ck_assert(!tc_tensor_is_contiguous_in(&t, "NCHW"));
	/* strides equal to NHWC's, given explicitly */
	make(&t, "strided:60,1,15,3", "2x3x4x5", TILECOPY_DT_F16, NULL);
	ck_assert(tc_tensor_is_contiguous_in(&t, "NHWC"));
	/* DirectML size rule: (1 + sum((size-1)*stride)) * esize */
	make(&t, "strided:8,1", "3x5", TILECOPY_DT_F32, NULL);
	TC_OK(tc_tensor_bytes(&t, &b));
	ck_assert_uint_eq(b, (1 + 2 * 8 + 4 * 1) * 4);
	ck_assert(tc_tensor_has_padding(&t));
	make(&t, "strided:0,1", "3x5", TILECOPY_DT_F32, NULL);
	ck_assert(tc_tensor_has_overlap(&t));
	make(&t, "strided:2,1", "3x3", TILECOPY_DT_I8, NULL);	/* (0,2) and (1,0) */
	ck_assert(tc_tensor_has_overlap(&t));
	make(&t, "strided:3,2", "3x3", TILECOPY_DT_I8, NULL);	/* needs the exact check */
	ck_assert(!tc_tensor_has_overlap(&t));
	make(&t, "strided:2,3", "2x2", TILECOPY_DT_I8, NULL);	/* 0,3,2,5: injective */
	ck_assert(!tc_tensor_has_overlap(&t));
}
END_TEST

START_TEST(test_errors)
{
	tilecopy_tensor_t t;
	int64_t s4[4] = { 2, 3, 4, 5 }, s2[2] = { 8, 12 }, big[2] = { 1LL << 40, 1LL << 40 };
	int64_t shape[4];
	int rank;
	tilecopy_dtype_t dt;

	TC_FAILS(tc_tensor_make(&t, "NCHQ", s4, 4, TILECOPY_DT_F32, NULL),
		 TILECOPY_ERR_UNKNOWN_FORMAT, "format: unknown format 'NCHQ'");
	TC_FAILS(tc_tensor_make(&t, "NCHW", s2, 2, TILECOPY_DT_F32, NULL),
		 TILECOPY_ERR_UNKNOWN_FORMAT, "rank 2");
	TC_FAILS(tc_tensor_make(&t, "NCHW12", s4, 4, TILECOPY_DT_F32, NULL),
		 TILECOPY_ERR_BLOCK, "channel block 12");
	TC_FAILS(tc_tensor_make(&t, "zN", s2, 2, TILECOPY_DT_F16, "4y4"),
		 TILECOPY_ERR_BLOCK, "block: '4y4'");
	TC_FAILS(tc_tensor_make(&t, "zN", s2, 2, TILECOPY_DT_F16, "0x4"),
		 TILECOPY_ERR_BLOCK, "block");
	TC_FAILS(tc_tensor_make(&t, "NHWC", s4, 4, TILECOPY_DT_F16, "4x4"),
		 TILECOPY_ERR_BLOCK, "takes no block");
	TC_FAILS(tc_tensor_make(&t, "NC1HWC0", s2, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_SHAPE_MISMATCH, "needs rank 4");
	TC_FAILS(tc_tensor_make(&t, "strided:1,2,3", s2, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_SHAPE_MISMATCH, "3 strides for a rank-2 shape");
	TC_FAILS(tc_tensor_make(&t, "strided:1,z", s2, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_PARSE, "strided");
	TC_FAILS(tc_tensor_make(&t, "(4,4):(1,4)", s2, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_SHAPE_MISMATCH, "mode 0 has size 4");
	TC_FAILS(tc_tensor_make(&t, "RowMajor", big, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_OVERFLOW, "overflows");
	TC_FAILS(tc_tensor_make(&t, "zN", big, 2, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_OVERFLOW, "overflows");
	TC_FAILS(tilecopy_shape_parse(shape, &rank, 4, "8x0"), TILECOPY_ERR_PARSE, "shape");
	TC_FAILS(tilecopy_shape_parse(shape, &rank, 4, "8xx2"), TILECOPY_ERR_PARSE, "shape");
	TC_FAILS(tilecopy_shape_parse(shape, &rank, 2, "1x2x3"), TILECOPY_ERR_PARSE,
		 "more than 2");
	TC_FAILS(tilecopy_dtype_parse(&dt, "f17"), TILECOPY_ERR_INVALID_ARG, "dtype: unknown");
	s4[2] = 0;
	TC_FAILS(tc_tensor_make(&t, "NCHW", s4, 4, TILECOPY_DT_F32, NULL),
		 TILECOPY_ERR_SHAPE_MISMATCH, "shape[2]");
}
END_TEST

static Suite *format_suite(void)
{
	Suite *s = suite_create("format");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_plain_orders);
	tcase_add_test(tc, test_blocked);
	tcase_add_test(tc, test_fractal);
	tcase_add_test(tc, test_strided_cute);
	tcase_add_test(tc, test_queries);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(format_suite());
}
