// SPDX-License-Identifier: MIT
/*
 * test_format.c - tensors from format names: exact layouts (CuTe notation)
 * for known shapes, the tag grammar and its alias table, the queries, and
 * the errors with the field they name. (Every tag oneDNN defines is
 * compared with oneDNN itself in onednn_tags.c.)
 */
#include <stdio.h>

#include "tc_test.h"
#include "internal.h"

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

struct layout_case {
	const char *fmt, *shape;
	tilecopy_dtype_t dt;
	const char *block, *want;
};

/* /format/grammar: blocked dims, several blocks of one dim, groups */
static const struct layout_case grammar_cases[] = {
	/* O,I,H,W = 20,35,3,3: [O/16, I/16, h, w, 16i, 16o] */
	{ "OIhw16i16o", "20x35x3x3", TILECOPY_DT_F32, NULL,
	  "((16,2),(16,3),3,3):((1,6912),(16,2304),768,256)" },
	/* b split twice: [A, B, c, d, 4b, 16a, 4b]; the last 4b is fastest */
	{ "ABcd4b16a4b", "20x35x3x3", TILECOPY_DT_F32, NULL,
	  "((16,2),(4,4,3),3,3):((4,6912),(1,64,2304),768,256)" },
	{ "OIhw4i16o4i", "20x35x3x3", TILECOPY_DT_F32, NULL,
	  "((16,2),(4,4,3),3,3):((4,6912),(1,64,2304),768,256)" },
	/* a split twice, b split twice */
	{ "ABc4a8b8a4b", "33x40x2", TILECOPY_DT_I8, NULL,
	  "((8,4,2),(4,8,2),2):((4,256,4096),(1,32,2048),1024)" },
	/* grouped weights: g,O,I,H,W = 2,20,35,3,3 */
	{ "gOIhw16i16o", "2x20x35x3x3", TILECOPY_DT_F32, NULL,
	  "(2,(16,2),(16,3),3,3):(13824,(1,6912),(16,2304),768,256)" },
	/* a block of 1, and blocks that are not powers of two */
	{ "aBc1b", "2x3x4", TILECOPY_DT_F32, NULL, "(2,(1,3),4):(12,(1,4),1)" },
	{ "Acb48a", "50x2x3", TILECOPY_DT_F32, NULL, "((48,2),2,3):((1,288),48,96)" },
	/* '*': leading batch dims, plain and outermost */
	{ "*BA4a4b", "3x8x12", TILECOPY_DT_F16, NULL,
	  "(3,(4,2),(4,3)):(96,(4,16),(1,32))" },
	{ "*ba", "2x2x3x4", TILECOPY_DT_F16, NULL, "(2,2,3,4):(24,12,1,3)" },
	/* one dim, twelve dims */
	{ "A8a", "20", TILECOPY_DT_F32, NULL, "((8,3)):((1,8))" },
	{ "abcdefghijlk", "1x1x1x1x1x1x1x1x1x2x3x4", TILECOPY_DT_F32, NULL,
	  "(1,1,1,1,1,1,1,1,1,2,3,4):(24,24,24,24,24,24,24,24,24,12,1,3)" },
};

START_TEST(test_grammar)
{
	for (size_t i = 0; i < sizeof(grammar_cases) / sizeof(grammar_cases[0]); i++) {
		const struct layout_case *c = &grammar_cases[i];

		assert_layout(c->fmt, c->shape, c->dt, c->block, c->want);
	}
}
END_TEST

struct same_case {
	const char *fmt, *tag, *shape;
	tilecopy_dtype_t dt;
	const char *block;
};

/* /format/aliases: named dims, case, and the table over the grammar */
static const struct same_case alias_cases[] = {
	/* named dims: n,c,[d,]h,w; o,i,...; g,o,i,...; RNN t,n,c and l,d,i,g,o */
	{ "nchw", "abcd", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "nhwc", "acdb", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "chwn", "bcda", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "ndhwc", "acdeb", "2x3x4x5x6", TILECOPY_DT_F32, NULL },
	{ "nCdhw16c", "aBcde16b", "2x20x4x5x6", TILECOPY_DT_F32, NULL },
	{ "hwio", "cdba", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "OIhw8i8o", "ABcd8b8a", "9x10x3x3", TILECOPY_DT_F32, NULL },
	{ "gOIhw16i16o", "aBCde16c16b", "2x20x35x3x3", TILECOPY_DT_F32, NULL },
	{ "hwioG16g", "decbA16a", "20x3x5x3x3", TILECOPY_DT_F32, NULL },
	{ "Goiw16g", "Abcd16a", "20x3x5x3", TILECOPY_DT_F32, NULL },
	{ "x", "a", "7", TILECOPY_DT_F32, NULL },
	{ "cn", "ba", "7x3", TILECOPY_DT_F32, NULL },
	{ "ntc", "bac", "2x3x4", TILECOPY_DT_F32, NULL },
	{ "ldgOI32o4i", "abdEC32e4c", "2x1x9x3x40", TILECOPY_DT_F32, NULL },
	/* upper case without blocks is plain (PyTorch and MegEngine names) */
	{ "NCHW", "abcd", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "NHWC", "nhwc", "2x3x4x5", TILECOPY_DT_F32, NULL },
	{ "OIHW", "oihw", "2x3x4x5", TILECOPY_DT_F32, NULL },
	/* the table */
	{ "NCHW4", "nChw4c", "2x7x4x5", TILECOPY_DT_I8, NULL },
	{ "NCHW12", "nChw12c", "2x13x4x5", TILECOPY_DT_I8, NULL },
	{ "NCW8", "aBc8b", "2x13x5", TILECOPY_DT_I8, NULL },
	{ "CHWN4", "Chwn4c", "3x7x4x5", TILECOPY_DT_I8, NULL },
	{ "NC1HWC0", "nChw16c", "2x20x4x5", TILECOPY_DT_F16, NULL },
	{ "NC1HWC0", "nChw8c", "2x20x4x5", TILECOPY_DT_F32, NULL },
	{ "NC1HWC0", "nChw4c", "2x20x4x5", TILECOPY_DT_F16, "4" },
	{ "RowMajor", "abc", "2x3x4", TILECOPY_DT_F16, NULL },
	{ "rowmajor", "ab", "3x4", TILECOPY_DT_F16, NULL },
	{ "ColumnMajor", "acb", "2x3x4", TILECOPY_DT_F16, NULL },
	{ "zN", "BA16a16b", "20x40", TILECOPY_DT_F16, NULL },
	{ "zN", "aCB16b32c", "2x20x40", TILECOPY_DT_I8, NULL },
	{ "zZ", "AB16a8b", "20x40", TILECOPY_DT_F32, NULL },
	{ "nZ", "AB16b32a", "20x40", TILECOPY_DT_I8, NULL },
	{ "nN", "BA16b8a", "20x40", TILECOPY_DT_F32, NULL },
	{ "nN", "BA5b4a", "20x40", TILECOPY_DT_F32, "4x5" },
};

/* @fmt (with @block) and @tag give the same layout. */
START_TEST(test_aliases)
{
	for (size_t i = 0; i < sizeof(alias_cases) / sizeof(alias_cases[0]); i++) {
		const struct same_case *c = &alias_cases[i];
		tilecopy_tensor_t a, b;
		char la[256], lb[256];

		make(&a, c->fmt, c->shape, c->dt, c->block);
		make(&b, c->tag, c->shape, c->dt, NULL);
		TC_OK(tc_layout_print(&a.layout, la, sizeof(la)));
		TC_OK(tc_layout_print(&b.layout, lb, sizeof(lb)));
		ck_assert_msg(!strcmp(la, lb), "%s %s: %s, but %s: %s", c->fmt, c->shape,
			      la, c->tag, lb);
	}
}
END_TEST

/*
 * /format/alias-table: every line is an alias and not also a tag (the table
 * is looked up first: a name that is both would mean two things), and
 * expands to a tag that makes a layout of some rank.
 */
START_TEST(test_alias_table)
{
	size_t n;
	const struct tc_format_alias *a = tc_format_aliases(&n);
	int64_t ext[TILECOPY_MAX_RANK];

	for (int k = 0; k < TILECOPY_MAX_RANK; k++)
		ext[k] = 5;
	for (size_t i = 0; i < n; i++) {
		char name[32], *h;
		tilecopy_layout_t l;
		tilecopy_tensor_t t;
		int made = 0;

		snprintf(name, sizeof(name), "%s", a[i].name);
		h = strchr(name, '#');
		if (h)
			snprintf(h, sizeof(name) - (size_t)(h - name), "8%s",
				 strchr(a[i].name, '#') + 1);
		for (int r = 1; r <= TILECOPY_MAX_RANK; r++) {
			ck_assert_msg(tc_format_tag(&l, name, name, ext, r) != TILECOPY_SUCCESS,
				      "alias %s is also a tag of rank %d", name, r);
			made |= !tc_tensor_make(&t, name, ext, r, TILECOPY_DT_F16, NULL);
		}
		ck_assert_msg(made, "alias %s makes no tensor of any rank: %s", name,
			      tilecopy_last_error());
	}
}
END_TEST

struct error_case {
	const char *fmt, *shape, *block;
	tilecopy_status_t want;
	const char *needle;
};

/* /format/grammar-errors: each refusal names what is wrong */
static const struct error_case error_cases[] = {
	{ "nChw16", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "a number and a dim letter" },
	{ "nChw", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "C is upper case (blocked) but has no inner block" },
	{ "nchw16c", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "inner block 16c needs" },
	{ "nChw16C", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "inner block 16C needs" },
	{ "nChw16h", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "inner block 16h needs" },
	{ "nnhw", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "dim n appears twice" },
	{ "nNhw4n", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "appears twice" },
	{ "abd", "2x3x4", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "dims abd are not a..c, ncw, oiw, tnc in any order" },
	{ "nchw", "2x3x4", NULL, TILECOPY_ERR_SHAPE_MISMATCH,
	  "shape: format nchw needs rank 4, got 3" },
	{ "*ab", "4", NULL, TILECOPY_ERR_SHAPE_MISMATCH,
	  "needs rank >= 2, got 1" },
	{ "nChw0c", "2x3x4x5", NULL, TILECOPY_ERR_BLOCK,
	  "block 0 is not in 1..1048576" },
	{ "NCHW0", "2x3x4x5", NULL, TILECOPY_ERR_BLOCK,
	  "block 0 is not" },
	{ "nChw99999999999999999999999c", "2x3x4x5", NULL, TILECOPY_ERR_BLOCK,
	  "is not in 1..1048576" },
	{ "NCHW99999999999999999999999999", "2x3x4x5", NULL, TILECOPY_ERR_BLOCK,
	  "is not in 1..1048576" },
	{ "aBcd1048576b1048576b1048576b1048576b", "2x3x4x5", NULL, TILECOPY_ERR_OVERFLOW,
	  "overflows" },
	{ "nChw16c", "1x9223372036854775804x1x1", NULL, TILECOPY_ERR_OVERFLOW,
	  "overflows" },
	{ "", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "no dim letters" },
	{ "*", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "no dim letters" },
	{ "nc-hw", "2x3x4x5", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "format: unknown format 'nc-hw'" },
	{ "abcdefghijklmnopq", "1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1", NULL, TILECOPY_ERR_UNKNOWN_FORMAT,
	  "more than 16 dims" },
	{ "aBcd16b", "2x3x4x5", "4", TILECOPY_ERR_BLOCK,
	  "block: format aBcd16b takes no block override" },
	{ "NCHW16", "2x3x4x5", "4", TILECOPY_ERR_BLOCK,
	  "block: format NCHW16 takes no block override" },
	{ "NC1HWC0", "2x3x4x5", "4x4", TILECOPY_ERR_BLOCK,
	  "block: '4x4' is not one number for NC1HWC0" },
	{ "NC1HWC0", "2x3x4x5", "C0", TILECOPY_ERR_BLOCK,
	  "block: 'C0'" },
	{ "zN", "2x3x4x5", "4", TILECOPY_ERR_BLOCK,
	  "is not ROWSxCOLS for zN" },
	{ "zN", "2x3x4x5", "4x4x4", TILECOPY_ERR_BLOCK,
	  "ROWSxCOLS" },
	{ "zN", "2x3x4x5", "4x2000000", TILECOPY_ERR_BLOCK,
	  "ROWSxCOLS" },
	{ "zN", "2x3x4x5", "-4x4", TILECOPY_ERR_BLOCK,
	  "ROWSxCOLS" },
	{ "zN", "2x3x4x5", "", TILECOPY_ERR_BLOCK,
	  "ROWSxCOLS" },
	{ "zN", "4", NULL, TILECOPY_ERR_SHAPE_MISMATCH,
	  "format zN needs rank >= 2, got 1" },
};

START_TEST(test_grammar_errors)
{
	int64_t s[TILECOPY_MAX_RANK], s4[4] = { 2, 3, 4, 5 };
	tilecopy_tensor_t t;
	char many[128];
	int rank;

	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		const struct error_case *c = &error_cases[i];

		TC_OK(tilecopy_shape_parse(s, &rank, TILECOPY_MAX_RANK, c->shape));
		TC_FAILS(tc_tensor_make(&t, c->fmt, s, rank, TILECOPY_DT_F32, c->block),
			 c->want, c->needle);
	}
	/* 31 blocks on 4 dims: more leaves than a layout holds */
	snprintf(many, sizeof(many), "aBcd");
	for (int k = 0; k < 31; k++)
		strcat(many, "1b");
	TC_FAILS(tc_tensor_make(&t, many, s4, 4, TILECOPY_DT_F32, NULL),
		 TILECOPY_ERR_UNKNOWN_FORMAT, "more leaves");
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

/* A vector in a plain matrix format is its one dim; fractals need two. */
START_TEST(test_vector_in_matrix_formats)
{
	tilecopy_tensor_t t;
	int64_t n[1] = { 7 };

	assert_layout("RowMajor", "7", TILECOPY_DT_F32, NULL, "7:1");
	assert_layout("ColumnMajor", "7", TILECOPY_DT_F32, NULL, "7:1");
	assert_layout("ND", "7", TILECOPY_DT_F32, NULL, "7:1");
	TC_FAILS(tc_tensor_make(&t, "zN", n, 1, TILECOPY_DT_F16, NULL),
		 TILECOPY_ERR_SHAPE_MISMATCH, "needs rank >= 2");
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
		 TILECOPY_ERR_SHAPE_MISMATCH, "needs rank 4, got 2");
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
	TC_FAILS(tilecopy_shape_parse(shape, &rank, 2, "1x2x3"), TILECOPY_ERR_BUFFER_TOO_SMALL,
		 "more than 2");
	TC_FAILS(tilecopy_dtype_parse(&dt, "f17"), TILECOPY_ERR_PARSE, "dtype: unknown");
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
	tcase_add_test(tc, test_grammar);
	tcase_add_test(tc, test_aliases);
	tcase_add_test(tc, test_alias_table);
	tcase_add_test(tc, test_grammar_errors);
	tcase_add_test(tc, test_strided_cute);
	tcase_add_test(tc, test_queries);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_vector_in_matrix_formats);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(format_suite());
}
