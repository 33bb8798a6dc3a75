// SPDX-License-Identifier: MIT
/*
 * test_device_api.c - tilecopy/device.h with NULL everywhere: every call
 * refuses with TILECOPY_ERR_INVALID_ARG and a message, none crashes, and
 * nothing needs an engine. The engine itself: tests/sdk (check-sdk).
 */
#include <stdio.h>

#include "tc_test.h"
#include "tilecopy/device.h"
#include "device_internal.h"

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
	TC_FAILS(tilecopy_device_info_get(0, NULL), TILECOPY_ERR_INVALID_ARG, "info: NULL");
	NUL_FAILS(tilecopy_device_info_get(-1, &info));
	info.struct_size = 4;
	NUL_FAILS(tilecopy_device_info_get(0, &info));
	info.struct_size = 1u << 20;
	NUL_FAILS(tilecopy_device_info_get(0, &info));
	NUL_FAILS(tilecopy_device_open(NULL, "auto"));
	tilecopy_device_close(NULL);
	NUL_FAILS(tilecopy_device_query(NULL, &info));
	NUL_FAILS(tilecopy_bo_create(NULL, NULL, 4096, 0));
	TC_FAILS(tilecopy_bo_create(&bo, NULL, 4096, 0), TILECOPY_ERR_INVALID_ARG, "dev: NULL");
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
	NUL_FAILS(tilecopy_job_submit_opts(NULL, NULL, NULL, NULL, NULL, NULL));
	NUL_FAILS(tilecopy_job_submit_opts(&job, NULL, NULL, &ref, &ref, NULL));
	ck_assert_ptr_null(job);
	ck_assert_int_eq(tilecopy_device_fd(NULL), -1);
	NUL_FAILS(tilecopy_job_wait(NULL, 0));
	NUL_FAILS(tilecopy_job_syncobj(NULL, &u32));
	tilecopy_job_destroy(NULL);
	NUL_FAILS(tilecopy_convert(NULL, NULL, buf, sizeof(buf), buf, sizeof(buf), &n));
	ck_assert_int_eq(n, 0);
	TC_FAILS(tilecopy_convert_multi(NULL, 1, NULL, buf, 1, buf, 1, NULL),
		 TILECOPY_ERR_INVALID_ARG, "devs: NULL");
	NUL_FAILS(tilecopy_convert_multi(devs, 2, NULL, buf, 1, buf, 1, NULL));
	NUL_FAILS(tilecopy_device_threshold(NULL));
	(void)dev;
}
END_TEST

/*
 * Handles of the wrong kind (review A3): a tensor, a plan, or a device-
 * library handle of another kind where a device, BO or job is expected is
 * refused by its tag, never followed; _close/_free/_destroy leave it
 * alone. The handles of the right kind are made by hand (white-box, no
 * engine needed), with an fd no ioctl can use.
 */
#define WRONG(call, kind) TC_FAILS(call, TILECOPY_ERR_INVALID_ARG, "not a " kind " handle")

START_TEST(test_wrong_kind_handles)
{
	int64_t sh[4] = { 2, 3, 4, 5 };
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *p;
	struct tilecopy_device fdev = { .magic = TC_MAGIC_DEVICE, .fd = -1 };
	struct tilecopy_bo fbo = { .magic = TC_MAGIC_BO, .dev = &fdev, .size = 4096 };
	struct tilecopy_device_info info = { .struct_size = sizeof(info) };
	float in[120] = { 0 }, out[120];
	void *m;
	size_t z;
	uint64_t va;
	uint32_t so;
	int fd, used = -1;
	tilecopy_bo_t *bo = (tilecopy_bo_t *)1;
	tilecopy_job_t *job = (tilecopy_job_t *)1;
	tilecopy_device_t *devs[2] = { &fdev, NULL };

	TC_OK(tilecopy_tensor_create(&s, "NCHW", sh, 4, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&d, "NHWC", sh, 4, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, s, d, 0));
	WRONG(tilecopy_device_query((tilecopy_device_t *)s, &info), "device");
	WRONG(tilecopy_device_query((tilecopy_device_t *)&fbo, &info), "device");
	WRONG(tilecopy_bo_map((tilecopy_bo_t *)s, &m), "buffer object");
	WRONG(tilecopy_bo_map((tilecopy_bo_t *)&fdev, &m), "buffer object");
	WRONG(tilecopy_bo_size((tilecopy_bo_t *)p, &z), "buffer object");
	WRONG(tilecopy_bo_va((tilecopy_bo_t *)p, &va), "buffer object");
	WRONG(tilecopy_bo_export((tilecopy_bo_t *)s, &fd), "buffer object");
	WRONG(tilecopy_bo_create(&bo, (tilecopy_device_t *)s, 4096, 0), "device");
	ck_assert_ptr_null(bo);
	WRONG(tilecopy_bo_import(&bo, (tilecopy_device_t *)&fbo, 0), "device");
	WRONG(tilecopy_job_wait((tilecopy_job_t *)p, 0), "job");
	WRONG(tilecopy_job_wait((tilecopy_job_t *)&fbo, 0), "job");
	WRONG(tilecopy_job_syncobj((tilecopy_job_t *)p, &so), "job");
	/* it ran on the CPU before, as if the tensor were no device */
	WRONG(tilecopy_convert((tilecopy_device_t *)s, p, in, sizeof(in), out, sizeof(out),
			       &used), "device");
	ck_assert_int_eq(used, 0);
	devs[1] = (tilecopy_device_t *)d;
	WRONG(tilecopy_convert_multi(devs, 2, p, in, sizeof(in), out, sizeof(out), &used),
	      "device");
	devs[0] = NULL;
	devs[1] = &fdev;
	TC_FAILS(tilecopy_convert_multi(devs, 2, p, in, sizeof(in), out, sizeof(out), &used),
		 TILECOPY_ERR_INVALID_ARG, "devs[0]: NULL");
	{
		struct tilecopy_buffer_ref r = { (tilecopy_bo_t *)s, 0 }, ok = { &fbo, 0 };

		WRONG(tilecopy_job_submit(&job, (tilecopy_device_t *)d, p, &ok, &ok, 0),
		      "device");
		ck_assert_ptr_null(job);
		WRONG(tilecopy_job_submit(&job, &fdev, p, &r, &ok, 0), "buffer object");
		WRONG(tilecopy_job_submit(&job, &fdev, p, &ok, &r, 0), "buffer object");
		WRONG(tilecopy_job_submit(&job, &fdev, (tilecopy_plan_t *)s, &ok, &ok, 0),
		      "plan");
	}
	/* frees of the wrong kind do nothing: the handles stay whole */
	tilecopy_device_close((tilecopy_device_t *)s);
	tilecopy_bo_free((tilecopy_bo_t *)s);
	tilecopy_job_destroy((tilecopy_job_t *)p);
	tilecopy_device_close((tilecopy_device_t *)&fbo);
	tilecopy_bo_free((tilecopy_bo_t *)&fdev);
	ck_assert_uint_eq(fdev.magic, TC_MAGIC_DEVICE);
	ck_assert_uint_eq(fbo.magic, TC_MAGIC_BO);
	TC_OK(tilecopy_plan_execute_cpu(p, in, sizeof(in), out, sizeof(out), NULL));
	/* the right kind passes the tag: a query needs no ioctl */
	TC_OK(tilecopy_device_query(&fdev, &info));
	TC_OK(tilecopy_bo_size(&fbo, &z));
	ck_assert_uint_eq(z, 4096);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
}
END_TEST

/*
 * struct tilecopy_device_info of another size (review B7): a newer
 * program's larger struct gets the fields this library knows, its extra
 * bytes zeroed, and struct_size saying how much was filled.
 */
START_TEST(test_info_struct_size)
{
	struct tilecopy_device fdev = { .magic = TC_MAGIC_DEVICE, .fd = -1 };
	struct {
		struct tilecopy_device_info info;
		uint64_t newer[4];
	} big;

	snprintf(fdev.info.path, sizeof(fdev.info.path), "/dev/accel/accel7");
	fdev.info.num_queues = 4;
	memset(&big, 0xa5, sizeof(big));
	big.info.struct_size = sizeof(big);
	TC_OK(tilecopy_device_query(&fdev, &big.info));
	ck_assert_uint_eq(big.info.struct_size, sizeof(struct tilecopy_device_info));
	ck_assert_str_eq(big.info.path, "/dev/accel/accel7");
	ck_assert_uint_eq(big.info.num_queues, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(big.newer[i], 0);
	big.info.struct_size = 8;
	TC_FAILS(tilecopy_device_query(&fdev, &big.info), TILECOPY_ERR_INVALID_ARG,
		 "struct_size 8");
}
END_TEST

/* $TILECOPY_DEVICE_THRESHOLD: digits or a clear refusal (review B13). */
START_TEST(test_threshold_env)
{
	static const char *const bad[] = { "-1", "abc", "1e9", "0x10", " 5", "64M",
					   "99999999999999999999" };
	int64_t shape[2] = { 2, 2 };
	int32_t buf[4] = { 0 };
	tilecopy_tensor_t *a;
	tilecopy_plan_t *p;
	uint64_t thr;

	TC_OK(tilecopy_tensor_create(&a, "RowMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, a, a, 0));
	unsetenv("TILECOPY_DEVICE_THRESHOLD");
	TC_OK(tilecopy_device_threshold(&thr));
	ck_assert_uint_eq(thr, 64ull << 20);
	setenv("TILECOPY_DEVICE_THRESHOLD", "4096", 1);
	TC_OK(tilecopy_device_threshold(&thr));
	ck_assert_uint_eq(thr, 4096);
	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
	TC_OK(tilecopy_device_threshold(&thr));
	ck_assert_uint_eq(thr, 0);
	/* set but empty is unset, as for every TILECOPY_* variable */
	setenv("TILECOPY_DEVICE_THRESHOLD", "", 1);
	TC_OK(tilecopy_device_threshold(&thr));
	ck_assert_uint_eq(thr, 64ull << 20);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("TILECOPY_DEVICE_THRESHOLD", bad[i], 1);
		TC_FAILS(tilecopy_device_threshold(&thr), TILECOPY_ERR_INVALID_ARG,
			 "TILECOPY_DEVICE_THRESHOLD");
		TC_FAILS(tilecopy_convert(NULL, p, buf, sizeof(buf), buf, sizeof(buf), NULL),
			 TILECOPY_ERR_INVALID_ARG, "not a byte count");
	}
	unsetenv("TILECOPY_DEVICE_THRESHOLD");
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(a);
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
	tcase_add_test(tc, test_wrong_kind_handles);
	tcase_add_test(tc, test_info_struct_size);
	tcase_add_test(tc, test_threshold_env);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
