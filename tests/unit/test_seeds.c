// SPDX-License-Identifier: MIT
/*
 * test_seeds.c - the seed examples from the layout literature, and round
 * trips between every pair of formats checked against index arithmetic
 * written out independently here (not through the library's crd2idx).
 */
#include <stdio.h>

#include "tc_test.h"

static void make(tilecopy_tensor_t *t, const char *fmt, const int64_t *shape,
		 int rank, tilecopy_dtype_t dt, const char *block)
{
	TC_OK(tc_tensor_make(t, fmt, shape, rank, dt, block));
}

static int64_t at(const tilecopy_tensor_t *t, int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t crd[4] = { a, b, c, d }, idx;

	TC_OK(tc_layout_crd2idx(&t->layout, crd, &idx));
	return idx;
}

/* /layout/zN/seed-example: the whole table and crd2idx((1,5)) = 37 */
START_TEST(test_seed_zn_table)
{
	static const int64_t want[8][12] = {
		{ 0, 1, 2, 3, 32, 33, 34, 35, 64, 65, 66, 67 },
		{ 4, 5, 6, 7, 36, 37, 38, 39, 68, 69, 70, 71 },
		{ 8, 9, 10, 11, 40, 41, 42, 43, 72, 73, 74, 75 },
		{ 12, 13, 14, 15, 44, 45, 46, 47, 76, 77, 78, 79 },
		{ 16, 17, 18, 19, 48, 49, 50, 51, 80, 81, 82, 83 },
		{ 20, 21, 22, 23, 52, 53, 54, 55, 84, 85, 86, 87 },
		{ 24, 25, 26, 27, 56, 57, 58, 59, 88, 89, 90, 91 },
		{ 28, 29, 30, 31, 60, 61, 62, 63, 92, 93, 94, 95 },
	};
	int64_t shape[2] = { 8, 12 };
	tilecopy_tensor_t t;

	make(&t, "zN", shape, 2, TILECOPY_DT_F16, "4x4");
	for (int r = 0; r < 8; r++)
		for (int c = 0; c < 12; c++)
			ck_assert_int_eq(at(&t, r, c, 0, 0), want[r][c]);
	ck_assert_int_eq(at(&t, 1, 5, 0, 0), 37);
}
END_TEST

/* DirectML: sizes {2,2,3} (D,H,W) strides {6,3,1}; element 'H' (8th) at 7 */
START_TEST(test_seed_directml)
{
	int64_t shape[3] = { 2, 2, 3 };
	tilecopy_tensor_t t;
	uint64_t b;

	make(&t, "strided:6,3,1", shape, 3, TILECOPY_DT_F32, NULL);
	ck_assert_int_eq(at(&t, 1, 0, 1, 0), 7);
	TC_OK(tc_tensor_bytes(&t, &b));
	ck_assert_uint_eq(b, 12 * 4);
	/* padded rows: row stride 5 for 3 columns -> (1 + 1*10 + 1*5 + 2) elements */
	make(&t, "strided:10,5,1", shape, 3, TILECOPY_DT_F32, NULL);
	TC_OK(tc_tensor_bytes(&t, &b));
	ck_assert_uint_eq(b, 18 * 4);
	ck_assert(tc_tensor_has_padding(&t));
	/* broadcast along D: stride 0, a 6-element buffer serves 12 elements */
	make(&t, "strided:0,3,1", shape, 3, TILECOPY_DT_F32, NULL);
	TC_OK(tc_tensor_bytes(&t, &b));
	ck_assert_uint_eq(b, 6 * 4);
	ck_assert_int_eq(at(&t, 1, 1, 2, 0), at(&t, 0, 1, 2, 0));
	ck_assert(tc_tensor_has_overlap(&t));
}
END_TEST

/* MegEngine: int32 2x5, strides (20,4) bytes: x[1][2] at byte 28 */
START_TEST(test_seed_megengine)
{
	int64_t shape[2] = { 2, 5 };
	tilecopy_tensor_t t;

	make(&t, "strided:5,1", shape, 2, TILECOPY_DT_I32, NULL);
	ck_assert_int_eq(at(&t, 1, 2, 0, 0) * 4, 28);
	ck_assert(tc_tensor_is_contiguous_in(&t, "RowMajor"));
}
END_TEST

/* PyTorch: channels_last of 10x3x32x32 has strides (3072, 1, 96, 3) */
START_TEST(test_seed_pytorch_channels_last)
{
	int64_t shape[4] = { 10, 3, 32, 32 };
	tilecopy_tensor_t t;
	char buf[128];

	make(&t, "NHWC", shape, 4, TILECOPY_DT_F32, NULL);
	TC_OK(tc_layout_print(&t.layout, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "(10,3,32,32):(3072,1,96,3)");
}
END_TEST

/* oneDNN nChw8c: off = ((n*C1 + c/8)*H + h)*W*8 + w*8 + c%8 */
START_TEST(test_seed_onednn_nchw8c)
{
	int64_t shape[4] = { 3, 20, 5, 7 }, C1 = 3;
	tilecopy_tensor_t t;

	make(&t, "nChw8c", shape, 4, TILECOPY_DT_F32, NULL);
	for (int64_t n = 0; n < 3; n++)
		for (int64_t c = 0; c < 20; c++)
			for (int64_t h = 0; h < 5; h++)
				for (int64_t w = 0; w < 7; w++)
					ck_assert_int_eq(at(&t, n, c, h, w),
							 ((n * C1 + c / 8) * 5 + h) * 7 * 8 +
							 w * 8 + c % 8);
}
END_TEST

/* ---- round trips against independent index arithmetic ------------------- */

struct fmt {
	const char *name;
	int64_t x;	/* channel block, or 0 */
};

static int64_t cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* Element offset of (n,c,h,w), written from each format's definition. */
static int64_t off4(const char *f, const int64_t *s, const int64_t *x, size_t es)
{
	int64_t N = s[0], C = s[1], H = s[2], W = s[3];
	int64_t n = x[0], c = x[1], h = x[2], w = x[3];
	int64_t b;

	if (!strcmp(f, "NCHW"))
		return ((n * C + c) * H + h) * W + w;
	if (!strcmp(f, "NHWC"))
		return ((n * H + h) * W + w) * C + c;
	if (!strcmp(f, "CHWN"))
		return ((c * H + h) * W + w) * N + n;
	if (!strcmp(f, "HWCN"))
		return ((h * W + w) * C + c) * N + n;
	if (!strcmp(f, "CHWN4"))
		return ((((c / 4) * H + h) * W + w) * N + n) * 4 + c % 4;
	b = !strcmp(f, "NC1HWC0") ? 32 / (int64_t)es : !strcmp(f, "nChw16c") ? 16 :
	    !strcmp(f, "nChw8c") ? 8 : !strcmp(f, "NCHW4") ? 4 : 0;
	ck_assert_int_ne(b, 0);
	return (((n * cdiv(C, b) + c / b) * H + h) * W + w) * b + c % b;
}

static int64_t size4(const char *f, const int64_t *s, size_t es)
{
	int64_t b = !strcmp(f, "NC1HWC0") ? 32 / (int64_t)es : !strcmp(f, "nChw16c") ? 16 :
		    !strcmp(f, "nChw8c") ? 8 : !strcmp(f, "NCHW4") || !strcmp(f, "CHWN4") ? 4 : 1;

	return s[0] * cdiv(s[1], b) * b * s[2] * s[3];
}

/* Matrices (batch, rows, cols): fractals by their CATLASS definitions. */
static void frac(const char *f, size_t es, int64_t *r0, int64_t *c0)
{
	int64_t k = 32 / (int64_t)es;

	*r0 = f[0] == 'z' ? 16 : k;
	*c0 = f[0] == 'z' ? k : 16;
}

static int64_t sizem(const char *f, const int64_t *s, size_t es)
{
	int64_t r0, c0;

	if (!strcmp(f, "RowMajor") || !strcmp(f, "ColumnMajor"))
		return s[0] * s[1] * s[2];
	frac(f, es, &r0, &c0);
	return s[0] * cdiv(s[1], r0) * r0 * cdiv(s[2], c0) * c0;
}

static int64_t offm(const char *f, const int64_t *s, const int64_t *x, size_t es)
{
	int64_t R = s[1], Cc = s[2], r = x[1], c = x[2], r0, c0, R1, C1, fi, in;
	int64_t m = sizem(f, s, es) / s[0];

	if (!strcmp(f, "RowMajor"))
		return x[0] * m + r * Cc + c;
	if (!strcmp(f, "ColumnMajor"))
		return x[0] * m + c * R + r;
	frac(f, es, &r0, &c0);
	R1 = cdiv(R, r0);
	C1 = cdiv(Cc, c0);
	fi = f[1] == 'N' ? (r / r0) + (c / c0) * R1 : (r / r0) * C1 + c / c0;
	in = f[0] == 'z' ? (r % r0) * c0 + c % c0 : (c % c0) * r0 + r % r0;
	return x[0] * m + fi * r0 * c0 + in;
}

typedef int64_t (*off_fn)(const char *, const int64_t *, const int64_t *, size_t);
typedef int64_t (*size_fn)(const char *, const int64_t *, size_t);

static void roundtrip(const char *a, const char *b, const int64_t *shape, int rank,
		      tilecopy_dtype_t dt, off_fn off, size_fn size)
{
	size_t es = tc_dtype_size(dt);
	int64_t ss = size(a, shape, es), ds = size(b, shape, es), n = 1, x[4];
	tilecopy_tensor_t s, d;
	tilecopy_plan_t *plan;
	unsigned char *in, *want, *got, *got2, *logical;
	uint64_t seed = (uint64_t)ss * 7 + (uint64_t)ds;

	make(&s, a, shape, rank, dt, NULL);
	make(&d, b, shape, rank, dt, NULL);
	TC_OK(tc_plan_create(&plan, &s, &d, 0));
	ck_assert_uint_eq(plan->src_bytes, (uint64_t)ss * es);
	ck_assert_uint_eq(plan->dst_bytes, (uint64_t)ds * es);
	in = malloc((size_t)(ss * (int64_t)es));
	logical = calloc((size_t)ss, 1);
	want = calloc((size_t)(ds * (int64_t)es), 1);
	got = malloc((size_t)(ds * (int64_t)es));
	got2 = malloc((size_t)(ds * (int64_t)es));
	for (int64_t i = 0; i < ss * (int64_t)es; i++)
		in[i] = (unsigned char)tc_rand(&seed);
	for (int k = 0; k < rank; k++)
		n *= shape[k];
	for (int64_t i = 0; i < n; i++) {
		int64_t r = i, so, dof;

		for (int k = rank - 1; k >= 0; k--) {
			x[k] = r % shape[k];
			r /= shape[k];
		}
		so = off(a, shape, x, es);
		dof = off(b, shape, x, es);
		logical[so] = 1;
		memcpy(want + dof * (int64_t)es, in + so * (int64_t)es, es);
	}
	memset(got, 0x5a, (size_t)(ds * (int64_t)es));
	TC_OK(tilecopy_plan_execute_cpu(plan, in, (size_t)(ss * (int64_t)es), got,
					(size_t)(ds * (int64_t)es), NULL));
	ck_assert_msg(!memcmp(got, want, (size_t)(ds * (int64_t)es)), "%s -> %s esize %zu",
		      a, b, es);
	/* garbage in the source's padding must not change the result */
	for (int64_t i = 0; i < ss; i++)
		if (!logical[i])
			memset(in + i * (int64_t)es, (int)(0x33 + i), es);
	TC_OK(tilecopy_plan_execute_cpu(plan, in, (size_t)(ss * (int64_t)es), got2,
					(size_t)(ds * (int64_t)es), "scalar"));
	ck_assert_msg(!memcmp(got2, want, (size_t)(ds * (int64_t)es)),
		      "%s -> %s: source padding leaked", a, b);
	free(in);
	free(logical);
	free(want);
	free(got);
	free(got2);
	tilecopy_plan_destroy(plan);
}

START_TEST(test_roundtrip_4d)
{
	static const char *const f[] = { "NCHW", "NHWC", "CHWN", "HWCN", "NCHW4", "nChw8c",
					  "nChw16c", "NC1HWC0", "CHWN4" };
	static const int64_t shapes[][4] = { { 2, 19, 3, 5 }, { 1, 3, 7, 1 }, { 3, 33, 2, 2 } };
	static const tilecopy_dtype_t dts[] = { TILECOPY_DT_I8, TILECOPY_DT_F16,
						TILECOPY_DT_F32, TILECOPY_DT_F64 };

	for (size_t k = 0; k < 3; k++)
		for (size_t t = 0; t < 4; t++)
			for (size_t i = 0; i < 9; i++)
				for (size_t j = 0; j < 9; j++)
					roundtrip(f[i], f[j], shapes[k], 4, dts[t], off4, size4);
}
END_TEST

START_TEST(test_roundtrip_matrix)
{
	static const char *const f[] = { "RowMajor", "ColumnMajor", "zN", "zZ", "nZ", "nN" };
	static const int64_t shapes[][3] = { { 1, 17, 35 }, { 3, 33, 9 }, { 2, 1, 1 } };
	static const tilecopy_dtype_t dts[] = { TILECOPY_DT_I8, TILECOPY_DT_F16,
						TILECOPY_DT_F32, TILECOPY_DT_F64 };

	for (size_t k = 0; k < 3; k++)
		for (size_t t = 0; t < 4; t++)
			for (size_t i = 0; i < 6; i++)
				for (size_t j = 0; j < 6; j++)
					roundtrip(f[i], f[j], shapes[k], 3, dts[t], offm, sizem);
}
END_TEST

static Suite *seeds_suite(void)
{
	Suite *s = suite_create("seeds");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_seed_zn_table);
	tcase_add_test(tc, test_seed_directml);
	tcase_add_test(tc, test_seed_megengine);
	tcase_add_test(tc, test_seed_pytorch_channels_last);
	tcase_add_test(tc, test_seed_onednn_nchw8c);
	tcase_add_test(tc, test_roundtrip_4d);
	tcase_add_test(tc, test_roundtrip_matrix);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(seeds_suite());
}
