// SPDX-License-Identifier: MIT
/*
 * test_device_api.c - tilecopy/device.h with NULL everywhere: every call
 * refuses with TILECOPY_ERR_INVALID_ARG and a message, none crashes, and
 * nothing needs an engine. The engine itself: tests/sdk (check-sdk).
 */
#include "tc_test.h"
#include "tilecopy/device.h"

#define NUL_FAILS(call) TC_FAILS(call, TILECOPY_ERR_INVALID_ARG, "")

START_TEST(test_device_null)
{
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	struct tilecopy_buffer_ref ref = { 0 };
	tilecopy_device_t *dev = NULL, *devs[2] = { NULL, NULL };
	tilecopy_bo_t *bo = NULL;
	tilecopy_job_t *job = NULL;
	uint64_t u64;
	uint32_t u32;
	size_t sz;
	void *p;
	int fd, n;
	char buf[16];

	NUL_FAILS(tilecopy_device_count(NULL));
	NUL_FAILS(tilecopy_device_info_get(0, NULL));
	NUL_FAILS(tilecopy_device_info_get(-1, &info));
	info.struct_size = 4;
	NUL_FAILS(tilecopy_device_info_get(0, &info));
	NUL_FAILS(tilecopy_device_open(NULL, "auto"));
	tilecopy_device_close(NULL);
	NUL_FAILS(tilecopy_device_query(NULL, &info));
	NUL_FAILS(tilecopy_bo_create(NULL, NULL, 4096, 0));
	NUL_FAILS(tilecopy_bo_create(&bo, NULL, 4096, 0));
	ck_assert_ptr_null(bo);
	NUL_FAILS(tilecopy_bo_map(NULL, &p));
	NUL_FAILS(tilecopy_bo_size(NULL, &sz));
	NUL_FAILS(tilecopy_bo_va(NULL, &u64));
	tilecopy_bo_free(NULL);
	NUL_FAILS(tilecopy_bo_export(NULL, &fd));
	NUL_FAILS(tilecopy_bo_import(NULL, NULL, 0));
	NUL_FAILS(tilecopy_bo_import(&bo, NULL, 0));
	NUL_FAILS(tilecopy_job_submit(NULL, NULL, NULL, NULL, NULL, 0));
	NUL_FAILS(tilecopy_job_submit(&job, NULL, NULL, &ref, &ref, 0));
	ck_assert_ptr_null(job);
	NUL_FAILS(tilecopy_job_wait(NULL, 0));
	NUL_FAILS(tilecopy_job_syncobj(NULL, &u32));
	tilecopy_job_destroy(NULL);
	NUL_FAILS(tilecopy_convert(NULL, NULL, buf, sizeof(buf), buf, sizeof(buf), &n));
	ck_assert_int_eq(n, 0);
	NUL_FAILS(tilecopy_convert_multi(NULL, 1, NULL, buf, 1, buf, 1, NULL));
	NUL_FAILS(tilecopy_convert_multi(devs, 2, NULL, buf, 1, buf, 1, NULL));
	NUL_FAILS(tilecopy_device_threshold(NULL));
	(void)dev;
}
END_TEST

/* The CPU fallback of tilecopy_convert with no device, in place. */
START_TEST(test_convert_cpu_in_place)
{
	int64_t shape[2] = { 2, 2 };
	int32_t buf[4] = { 0, 40, 20, 1 };
	tilecopy_tensor_t *a, *b;
	tilecopy_plan_t *p;
	int used = -1;

	TC_OK(tilecopy_tensor_create(&a, "RowMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&b, "ColumnMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, a, b, 0));
	TC_OK(tilecopy_convert(NULL, p, buf, sizeof(buf), buf, sizeof(buf), &used));
	ck_assert_int_eq(used, 0);
	ck_assert_int_eq(buf[1], 20);
	ck_assert_int_eq(buf[2], 40);
	ck_assert_int_eq(buf[3], 1);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("device-api");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_device_null);
	tcase_add_test(tc, test_convert_cpu_in_place);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
