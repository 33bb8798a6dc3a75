// SPDX-License-Identifier: MIT
/*
 * test_desc - the library's descriptor rules (libuser/cpu/desc_check.c)
 * against the table of descriptor cases that the driver's SUBMIT and the
 * engine answer too (tests/desc_cases.h).
 */
#include <errno.h>
#include <stdio.h>

#include "tc_test.h"
#include "cpu/cpu_exec.h"
#include "../desc_cases.h"

/* Each case with a bound of @max elements per job; buffers at offset 0. */
static void run_table(unsigned int c, uint64_t max)
{
	const struct tc_desc_case *tc = &tc_desc_cases[c];
	struct tc_desc_env env = { .max = max };
	struct drm_tilecopy_desc d[TC_CASE_MAX_DESCS];
	const char *field = NULL;
	size_t bad = ~(size_t)0;
	unsigned int n;
	int ret;

	if (tc->cpu == TC_NA)
		return;
	n = tc_desc_case_build(c, &env, d);
	ret = tc_desc_list_check(d, n, TC_CASE_BUF, TC_CASE_BUF, max, &bad, &field);
	ck_assert_msg(ret == tc->cpu, "%s (max %llu): got %d (%s), want %d", tc->name,
		      (unsigned long long)max, ret, ret ? field : "accepted", tc->cpu);
	if (!ret)
		return;
	ck_assert_msg(field && !strcmp(field, tc->field), "%s: field '%s', want '%s'",
		      tc->name, field ? field : "(none)", tc->field);
	ck_assert_msg(bad == tc->bad, "%s: descriptor %zu at fault, want %u", tc->name,
		      bad, tc->bad);
}

START_TEST(test_table_small_bound)
{
	run_table(_i, TC_CASE_MIN_MAX);
}
END_TEST

START_TEST(test_table_device_bound)
{
	/* the engine's bound: only checked here, never run */
	run_table(_i, DRM_TILECOPY_MAX_JOB_ELEMS);
}
END_TEST

START_TEST(test_elems)
{
	struct drm_tilecopy_desc d[TC_CASE_MAX_DESCS];
	struct tc_desc_env env = { .max = TC_CASE_MIN_MAX };

	tc_desc_case_build(TC_CASE_WORK_2_64, &env, d);
	ck_assert_uint_eq(tc_desc_elems(d), 0xffffffffull * 0xffffffffull);
	tc_desc_case_build(TC_CASE_WORK_PRODUCT_OVERFLOW, &env, d);
	ck_assert_uint_eq(tc_desc_elems(d), UINT64_MAX);
	tc_desc_case_build(TC_CASE_OK_COPY, &env, d);
	ck_assert_uint_eq(tc_desc_elems(d), TC_CASE_BUF);
}
END_TEST

START_TEST(test_no_bound)
{
	/* max 0: the CPU path has no work bound, only the field rules */
	struct drm_tilecopy_desc d[TC_CASE_MAX_DESCS];
	struct tc_desc_env env = { .max = TC_CASE_MIN_MAX };
	const char *field = NULL;
	size_t bad;
	unsigned int n = tc_desc_case_build(TC_CASE_WORK_2_64, &env, d);

	ck_assert_int_eq(tc_desc_list_check(d, n, 1, TC_CASE_BUF, 0, &bad, &field), 0);
}
END_TEST

static Suite *desc_suite(void)
{
	Suite *s = suite_create("desc");
	TCase *tc = tcase_create("table");

	tcase_add_loop_test(tc, test_table_small_bound, 0, TC_CASE_COUNT);
	tcase_add_loop_test(tc, test_table_device_bound, 0, TC_CASE_COUNT);
	tcase_add_test(tc, test_elems);
	tcase_add_test(tc, test_no_bound);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(desc_suite());
}
