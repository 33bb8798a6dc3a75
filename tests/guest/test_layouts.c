// SPDX-License-Identifier: MIT
/*
 * test_layouts - every layout pair of a family converted on the engine
 * (libtilecopy's device backend) and compared bit-exact with the CPU
 * reference (the scalar executor running the same plan; TC_REF_CPU=name
 * picks another executor, e.g. neon in the arm64 guest, where it is the
 * native CPU path: an executor this build or CPU lacks fails the test).
 *
 * Shapes are odd on purpose so that blocked and fractal formats have
 * padding: the device must write it with zeros exactly as the CPU does, and
 * leave bytes outside the plan's footprint untouched.
 *
 * Runs in the guest (make check-guest); exits 77 without a device.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <stdio.h>

#include "tc_guest.h"
#include "tilecopy/tilecopy.h"
#include "tilecopy/device.h"

struct family {
	const char *name;
	int rank;
	int64_t shape[5];
	const char *const *formats;
	int nformats;
};

static const char *const fmt4[] = {
	"NCHW", "NHWC", "CHWN", "HWCN", "nChw8c", "nChw16c", "NC1HWC0", "CHWN4",
};
static const char *const fmt2[] = { "RowMajor", "ColumnMajor", "zN", "zZ", "nZ", "nN" };
static const char *const fmt5[] = { "NCDHW", "NDHWC", "nCdhw16c" };

static const struct family families[] = {
	{ "4d", 4, { 2, 19, 5, 7 }, fmt4, TC_ARRAY_SIZE(fmt4) },
	{ "matrix", 2, { 37, 45 }, fmt2, TC_ARRAY_SIZE(fmt2) },
	{ "batched-matrix", 3, { 3, 17, 33 }, fmt2, TC_ARRAY_SIZE(fmt2) },
	{ "5d", 5, { 1, 20, 3, 4, 5 }, fmt5, TC_ARRAY_SIZE(fmt5) },
};

static const tilecopy_dtype_t dtypes[] = {
	TILECOPY_DT_I8, TILECOPY_DT_F16, TILECOPY_DT_F32, TILECOPY_DT_I64,
};

static tilecopy_device_t *dev;

/* jobs the engine completed (driver's sysfs counter): proves it ran them */
static long long jobs_done(void)
{
	char path[256], buf[64] = "";
	FILE *f;

	ck_assert(tc_device_sysfs(0, "jobs_done", path, sizeof(path)));
	f = fopen(path, "r");
	ck_assert_msg(f, "no %s", path);
	ck_assert(fgets(buf, sizeof(buf), f));
	fclose(f);
	return strtoll(buf, NULL, 0);
}

static const char *ref_cpu(void)
{
	const char *e = getenv("TC_REF_CPU");

	return e && *e ? e : "scalar";
}

#define ck_tc(expr) do {						\
	tilecopy_status_t _st = (expr);					\
	ck_assert_msg(_st == TILECOPY_SUCCESS, "%s: %s: %s", #expr,	\
		      tilecopy_status_str(_st), tilecopy_last_error());	\
} while (0)

/* The 1.0 tilecopy_dtype_name returns a status. */
static const char *dt_name(tilecopy_dtype_t dt)
{
	const char *n = "?";

	tilecopy_dtype_name(dt, &n);
	return n;
}

/* Returns 0 when the pair is not plannable (reported, counted by caller). */
static int convert_pair(const struct family *f, const char *sf, const char *df,
			tilecopy_dtype_t dt)
{
	tilecopy_tensor_t *st, *dtn;
	tilecopy_plan_t *plan;
	tilecopy_bo_t *sbo, *dbo;
	tilecopy_job_t *job;
	void *sp, *dp;
	uint8_t *ref;
	uint64_t sbytes, dbytes;
	struct tilecopy_buffer_ref sr = { 0 }, dr = { 0 };
	tilecopy_status_t st_wait;

	ck_tc(tilecopy_tensor_create(&st, sf, f->shape, f->rank, dt, NULL, 0));
	ck_tc(tilecopy_tensor_create(&dtn, df, f->shape, f->rank, dt, NULL, 0));
	ck_tc(tilecopy_plan_create(&plan, st, dtn, 0));
	tilecopy_tensor_destroy(st);
	tilecopy_tensor_destroy(dtn);
	ck_tc(tilecopy_plan_src_bytes(plan, &sbytes));
	ck_tc(tilecopy_plan_dst_bytes(plan, &dbytes));
	ck_assert_uint_gt(sbytes, 0);
	ck_assert_uint_gt(dbytes, 0);

	ck_tc(tilecopy_bo_create(&sbo, dev, sbytes, TILECOPY_BO_READ_ONLY));
	ck_tc(tilecopy_bo_create(&dbo, dev, dbytes, 0));
	ck_tc(tilecopy_bo_map(sbo, &sp));
	ck_tc(tilecopy_bo_map(dbo, &dp));
	tc_pattern(sp, sbytes, (uint32_t)(sbytes * 31 + dt));
	/* the same garbage in both destinations: what the plan does not write
	 * must stay, padding it writes must become zero in both */
	ref = malloc(dbytes);
	ck_assert_ptr_nonnull(ref);
	memset(ref, 0xa5, dbytes);
	memset(dp, 0xa5, dbytes);
	ck_tc(tilecopy_plan_execute_cpu(plan, sp, sbytes, ref, dbytes, ref_cpu()));

	sr.bo = sbo;
	dr.bo = dbo;
	ck_tc(tilecopy_job_submit(&job, dev, plan, &sr, &dr, 0));
	st_wait = tilecopy_job_wait(job, 60ll * 1000000000);
	ck_assert_msg(st_wait == TILECOPY_SUCCESS, "%s %s -> %s %s: job: %s: %s", f->name, sf,
		      df, dt_name(dt), tilecopy_status_str(st_wait),
		      tilecopy_last_error());
	tilecopy_job_destroy(job);
	if (memcmp(dp, ref, dbytes)) {
		uint64_t i = 0;

		while (((uint8_t *)dp)[i] == ref[i])
			i++;
		ck_abort_msg("%s %s -> %s %s: device result differs from the CPU at byte %llu of %llu (device 0x%02x, cpu 0x%02x)",
			     f->name, sf, df, dt_name(dt), (unsigned long long)i,
			     (unsigned long long)dbytes, ((uint8_t *)dp)[i], ref[i]);
	}
	free(ref);
	tilecopy_bo_free(sbo);
	tilecopy_bo_free(dbo);
	tilecopy_plan_destroy(plan);
	return 1;
}

START_TEST(test_family)
{
	const struct family *f = &families[_i];
	int n = 0;
	long long done0 = jobs_done();

	ck_tc(tilecopy_device_open(&dev, "auto"));
	for (size_t t = 0; t < TC_ARRAY_SIZE(dtypes); t++)
		for (int s = 0; s < f->nformats; s++)
			for (int d = 0; d < f->nformats; d++)
				n += convert_pair(f, f->formats[s], f->formats[d], dtypes[t]);
	ck_assert_int_eq(n, (int)TC_ARRAY_SIZE(dtypes) * f->nformats * f->nformats);
	ck_assert_int_ge(jobs_done() - done0, n);
	printf("test_layouts: %s: %d conversions bit-exact with the CPU (%s), %lld engine jobs\n",
	       f->name, n, ref_cpu(), jobs_done() - done0);
	tilecopy_device_close(dev);
}
END_TEST

START_TEST(test_large_nchw_nhwc)
{
	/* one conversion large enough to be split into several jobs/queues */
	static const struct family big = { "large", 4, { 4, 64, 28, 28 }, fmt4, 2 };

	ck_tc(tilecopy_device_open(&dev, "auto"));
	convert_pair(&big, "NCHW", "NHWC", TILECOPY_DT_F32);
	convert_pair(&big, "NHWC", "nChw16c", TILECOPY_DT_F16);
	tilecopy_device_close(dev);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("layouts");
	TCase *tc = tcase_create("device-vs-cpu");

	tc_require_device("test_layouts");
	tcase_add_loop_test(tc, test_family, 0, TC_ARRAY_SIZE(families));
	tcase_add_test(tc, test_large_nchw_nhwc);
	tcase_set_timeout(tc, 600);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
