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
#include "cpu/cvt_desc.h"
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
	ret = tc_desc_list_check_v2(d, n, TC_CASE_BUF, TC_CASE_BUF, TC_CASE_BUF, max,
				    &bad, &field);
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

/* Footprints of 4-bit sides: ceil((nibble + last + 1) / 2) bytes. */
START_TEST(test_nibble_footprint)
{
	static const struct { uint32_t n; uint64_t stride; uint8_t nibble; uint64_t bytes; } t[] = {
		{ 1, 1, 0, 1 }, { 1, 1, 1, 1 }, { 2, 1, 0, 1 }, { 2, 1, 1, 2 },
		{ 3, 1, 0, 2 }, { 3, 1, 1, 2 }, { 4, 2, 1, 4 }, { 5, 0, 1, 1 },
		{ 2, 1ull << 62, 1, (1ull << 61) + 1 },
	};
	struct drm_tilecopy_desc d;
	__u64 bytes;

	for (unsigned int i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		tc_case_typed(&d, 0, DRM_TILECOPY_TYPE_U4, 0, DRM_TILECOPY_TYPE_I4, t[i].n);
		d.dst_stride[0] = d.src_stride[0] = t[i].stride;
		d.dst_nibble = d.src_nibble = t[i].nibble;
		ck_assert_int_eq(tc_desc_side_footprint(&d, 0, &bytes), 0);
		ck_assert_msg(bytes == t[i].bytes, "case %u: %llu bytes, want %llu", i,
			      (unsigned long long)bytes, (unsigned long long)t[i].bytes);
		ck_assert_int_eq(tc_desc_footprint(&d, d.src_stride, &bytes), 0);
		ck_assert_uint_eq(bytes, t[i].bytes);
	}
	/* the last nibble index 2^64 - 1 plus nibble 1 */
	d.extent[0] = 2;
	d.dst_stride[0] = ~0ull;
	ck_assert_int_eq(tc_desc_side_footprint(&d, 0, &bytes), -EOVERFLOW);
	/* the other side's type: f32 from u4 */
	tc_case_typed(&d, 0, DRM_TILECOPY_TYPE_F32, 0, DRM_TILECOPY_TYPE_U4, 3);
	ck_assert_int_eq(tc_desc_side_footprint(&d, 0, &bytes), 0);
	ck_assert_uint_eq(bytes, 12);
	ck_assert_int_eq(tc_desc_side_footprint(&d, 1, &bytes), 0);
	ck_assert_uint_eq(bytes, 2);
}
END_TEST

/* The scales a CVT_SCALES descriptor reads, and where. */
START_TEST(test_scales_footprint)
{
	struct drm_tilecopy_desc d;
	struct tc_desc_env env = { .max = TC_CASE_MIN_MAX };
	const char *field = NULL;
	__u64 bytes;

	tc_case_scales(&d, &env, 12, 16, 64);
	ck_assert_int_eq(tc_desc_scales_footprint(&d, &bytes), 0);
	ck_assert_uint_eq(bytes, 256);
	ck_assert_int_eq(tc_desc_check_v2(&d, TC_CASE_BUF, TC_CASE_BUF, 268, &field), 0);
	ck_assert_int_eq(tc_desc_check_v2(&d, TC_CASE_BUF, TC_CASE_BUF, 267, &field), -ERANGE);
	ck_assert_str_eq(field, "scales");
	/* without scales (tc_desc_check()), a scales descriptor is out of range */
	ck_assert_int_eq(tc_desc_check(&d, TC_CASE_BUF, TC_CASE_BUF, &field), -ERANGE);
	/* broadcast scales: one scale whatever the extents */
	d.scale_stride[1] = 0;
	ck_assert_int_eq(tc_desc_scales_footprint(&d, &bytes), 0);
	ck_assert_uint_eq(bytes, 4);
	/* per element along both dims */
	d.scale_stride[0] = 1;
	d.scale_stride[1] = 16;
	ck_assert_int_eq(tc_desc_scales_footprint(&d, &bytes), 0);
	ck_assert_uint_eq(bytes, 4096);
}
END_TEST

/*
 * A typed descriptor's conversion is tc_cvt_init()'s with the same
 * parameters, where the flag agrees with tc_cvt_init()'s view of the scale.
 */
START_TEST(test_cvt_desc)
{
	static const float scales[] = { 0.25f, 1.0f };
	static const int32_t zps[][2] = { { 0, 0 }, { -3, 0 }, { 0, 7 }, { 5, -5 } };
	struct drm_tilecopy_desc d;
	struct tc_cvt a, b;
	struct tc_cvt_quant q;
	const char *why;

	for (unsigned int st = DRM_TILECOPY_TYPE_F32; st <= DRM_TILECOPY_TYPE_U4; st++) {
		for (unsigned int dt = DRM_TILECOPY_TYPE_F32; dt <= DRM_TILECOPY_TYPE_U4; dt++) {
			for (unsigned int z = 0; z < 4; z++) {
				for (unsigned int sc = 0; sc < 2; sc++) {
					tc_case_typed(&d, 0, dt, 0, st, 4);
					d.src_zp = zps[z][0];
					d.dst_zp = zps[z][1];
					q = (struct tc_cvt_quant){ sc ? NULL : scales, sc ? 0 : 1,
								   zps[z][0], zps[z][1] };
					if (!sc) {
						d.cvt_flags = DRM_TILECOPY_CVT_SCALE;
						memcpy(&d.scale, &scales[0], 4);
					}
					ck_assert_int_eq(tc_cvt_desc_init(&a, &d, &tc_cvt_scalar), 0);
					ck_assert_int_eq(tc_cvt_init(&b, tc_cvt_desc_kind(dt),
								     tc_cvt_desc_kind(st), &q,
								     &tc_cvt_scalar, &why), 0);
					ck_assert_int_eq(memcmp(&a, &b, sizeof(a)), 0);
				}
			}
		}
	}
	/* a scale of 1.0 with the flag: multiplied (tc_cvt_init() skips it) */
	d.cvt_flags = DRM_TILECOPY_CVT_SCALE;
	memcpy(&d.scale, &scales[1], 4);
	ck_assert_int_eq(tc_cvt_desc_init(&a, &d, NULL), 0);
	ck_assert_uint_eq(a.affine.ops & TC_CVT_MUL, TC_CVT_MUL);
	ck_assert(!a.copy);
	/* per channel */
	d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d.scale = 0;
	ck_assert_int_eq(tc_cvt_desc_init(&a, &d, NULL), 0);
	ck_assert(a.per_channel);
	/* not a typed COPY */
	tc_case_typed_fill(&d, 0, DRM_TILECOPY_TYPE_U4, 1, 4);
	ck_assert_int_eq(tc_cvt_desc_init(&a, &d, NULL), -EINVAL);
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
	tcase_add_test(tc, test_nibble_footprint);
	tcase_add_test(tc, test_scales_footprint);
	tcase_add_test(tc, test_cvt_desc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(desc_suite());
}
