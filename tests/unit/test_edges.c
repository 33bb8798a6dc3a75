// SPDX-License-Identifier: MIT
/*
 * test_edges.c - what a Python user reaches through the C API (the review
 * of the Python package): strides of extent-1 dims as numpy and PyTorch
 * give them, and messages that name what the user wrote (a format's block
 * digits, dims that are no dims, strided: text, $TILECOPY_CPU).
 */
#include <stdio.h>

#include "tc_test.h"
#include "cpu/cpu_exec.h"
#include "tilecopy/dlpack.h"

static tilecopy_tensor_t *make(const char *fmt, const int64_t *shape, int rank)
{
	tilecopy_tensor_t *t = NULL;

	TC_OK(tilecopy_tensor_create(&t, fmt, shape, rank, TILECOPY_DT_F32, NULL, 0));
	return t;
}

static void assert_strides(const char *fmt, const int64_t *shape, int rank,
			   const int64_t *want)
{
	tilecopy_tensor_t *t = make(fmt, shape, rank);
	int64_t got[TILECOPY_MAX_RANK];

	TC_OK(tilecopy_tensor_strides(t, got, TILECOPY_MAX_RANK));
	for (int m = 0; m < rank; m++)
		ck_assert_msg(got[m] == want[m], "%s: stride[%d] %lld, want %lld", fmt, m,
			      (long long)got[m], (long long)want[m]);
	tilecopy_tensor_destroy(t);
}

/*
 * The wanted strides are numpy's for the array in memory order, transposed
 * to logical order: np.empty((1, 5, 4, 9)).transpose(0, 3, 1, 2) has
 * element strides (180, 1, 36, 9); PyTorch's channels_last the same.
 */
START_TEST(test_extent1_strides)
{
	static const int64_t nhwc[] = { 1, 9, 5, 4 }, nhwc_w[] = { 180, 1, 36, 9 };
	static const int64_t one[] = { 1, 1, 1, 1 }, one_w[] = { 1, 1, 1, 1 };
	static const int64_t c1[] = { 2, 1, 3, 5 }, c1_w[] = { 240, 1, 80, 16 };
	static const int64_t cute[] = { 3, 1, 4 }, cute_w[] = { 4, 99, 1 };
	static const int64_t nhwc_one[] = { 1, 1, 1, 1 }, nhwc_one_w[] = { 1, 1, 1, 1 };

	assert_strides("NHWC", nhwc, 4, nhwc_w);
	assert_strides("NCHW", one, 4, one_w);
	assert_strides("NHWC", nhwc_one, 4, nhwc_one_w);
	/* C = 1 of nChw16c: one block, its innermost leaf (16 channels, stride 1) */
	assert_strides("nChw16c", c1, 4, c1_w);
	/* a layout's own stride for its extent-1 mode, whatever it is */
	assert_strides("(3,1,4):(4,99,1)", cute, 3, cute_w);
}
END_TEST

/* The DLPack export of the logical view carries the same strides. */
START_TEST(test_extent1_dlpack)
{
	static const int64_t nhwc[] = { 1, 9, 5, 4 }, want[] = { 180, 1, 36, 9 };
	tilecopy_tensor_t *t = make("NHWC", nhwc, 4);
	DLManagedTensor *m = NULL;
	float buf[180];

	TC_OK(tilecopy_tensor_to_dlpack(&m, t, buf, 0));
	ck_assert_int_eq(m->dl_tensor.ndim, 4);
	for (int k = 0; k < 4; k++)
		ck_assert_int_eq(m->dl_tensor.strides[k], want[k]);
	m->deleter(m);
	tilecopy_tensor_destroy(t);
}
END_TEST

static void assert_refused(const char *fmt, const int64_t *shape, int rank,
			   tilecopy_status_t want, const char *needle)
{
	tilecopy_tensor_t *t = NULL;

	TC_FAILS(tilecopy_tensor_create(&t, fmt, shape, rank, TILECOPY_DT_F32, NULL, 0), want,
		 needle);
	ck_assert_ptr_null(t);
}

START_TEST(test_format_messages)
{
	static const int64_t s4[] = { 1, 3, 4, 5 }, s2[] = { 3, 4 };

	/* every digit the user wrote, not the first 16 */
	assert_refused("nChw99999999999999999999c", s4, 4, TILECOPY_ERR_BLOCK,
		       "block 99999999999999999999 is not in 1..");
	/* letters that are no dims: an unknown format, whatever follows them */
	assert_refused("bogus0", s4, 4, TILECOPY_ERR_UNKNOWN_FORMAT, "dims bogus are not");
	assert_refused("bogus16c", s4, 4, TILECOPY_ERR_UNKNOWN_FORMAT,
		       "unknown format 'bogus16c'");
	/* a real dim set keeps the block error */
	assert_refused("nChw0c", s4, 4, TILECOPY_ERR_BLOCK, "block 0 is not in 1..");
	/* strided: digits and commas only, no trailing comma */
	assert_refused("strided: 4,1", s2, 2, TILECOPY_ERR_PARSE, "unexpected ' '");
	assert_refused("strided:+4,1", s2, 2, TILECOPY_ERR_PARSE, "unexpected '+'");
	assert_refused("strided:4,-1", s2, 2, TILECOPY_ERR_PARSE, "unexpected '-'");
	assert_refused("strided:4,1,", s2, 2, TILECOPY_ERR_PARSE, "unexpected ','");
	assert_refused("strided:4,,1", s2, 2, TILECOPY_ERR_PARSE, "stride 1");
	tilecopy_tensor_destroy(make("strided:4,1", s2, 2));
}
END_TEST

/*
 * An executor $TILECOPY_CPU names, not the caller: the message says so.
 * The variable is read once, at the first call: reloaded after each setenv.
 */
START_TEST(test_cpu_env_named)
{
#ifdef __aarch64__
	const char *absent = "avx2";
#else
	const char *absent = "neon";
#endif
	char want[64];
	const char *name;

	setenv("TILECOPY_CPU", "garbage", 1);
	tc_cpu_backend_env_reload();
	TC_FAILS(tilecopy_cpu_name(NULL, &name), TILECOPY_ERR_INVALID_ARG,
		 "$TILECOPY_CPU: unknown executor 'garbage'");
	/* a name the caller passed is the caller's */
	TC_FAILS(tilecopy_cpu_name("garbage", &name), TILECOPY_ERR_INVALID_ARG,
		 "cpu: unknown executor 'garbage'");
	setenv("TILECOPY_CPU", absent, 1);
	tc_cpu_backend_env_reload();
	snprintf(want, sizeof(want), "$TILECOPY_CPU: executor '%s' is not available", absent);
	TC_FAILS(tilecopy_cpu_name(NULL, &name), TILECOPY_ERR_UNSUPPORTED, want);
	setenv("TILECOPY_CPU", "scalar", 1);
	tc_cpu_backend_env_reload();
	TC_OK(tilecopy_cpu_name(NULL, &name));
	ck_assert_str_eq(name, "scalar");
	unsetenv("TILECOPY_CPU");
	tc_cpu_backend_env_reload();
}
END_TEST

static Suite *edges_suite(void)
{
	Suite *s = suite_create("edges");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extent1_strides);
	tcase_add_test(tc, test_extent1_dlpack);
	tcase_add_test(tc, test_format_messages);
	tcase_add_test(tc, test_cpu_env_named);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(edges_suite());
}
