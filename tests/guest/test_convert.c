// SPDX-License-Identifier: MIT
/*
 * test_convert - typed descriptors (ABI 1.2) through SUBMIT on the real
 * module: element conversion of every type pair with scales (per tensor,
 * per channel from a BO) and zero points, 4-bit copies from odd nibbles,
 * typed FILL, the scales' BO rules, hostile fields, callers of the 192-byte
 * struct, an engine without conversion (-EOPNOTSUPP), and the SDK's device
 * backend running typed plans (scales uploaded, cut over queues, 4-bit
 * destinations kept on one queue). Every result is
 * compared byte for byte with the library's CPU reference (tests/typed_ref.h
 * over libuser/cpu/cvt_scalar.c).
 *
 * Runs in the guest (make check-guest), on any engine: what it expects
 * follows GET_PARAM FEATURES, which must agree with the run's device
 * properties (convert=off). Exits 77 without a device.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <stdio.h>
#include <unistd.h>

#include "tc_guest.h"
#include "../typed_ref.h"
/* white-box: a typed plan built by hand (the planner builds none yet) */
#include "tilecopy/device.h"
#include "plan_internal.h"
#include "device_internal.h"

/* The one function of libuser/cpu/cvt.c that cvt_scalar.c needs. */
unsigned int tc_cvt_kind_bits(enum tc_cvt_kind k)
{
	return tc_desc_type_bits((unsigned int)k + DRM_TILECOPY_TYPE_F32);
}

static int converts(int fd)
{
	const char *props = getenv("TC_DEVICE_PROPS");
	int on = !!(tc_get_param(fd, DRM_TILECOPY_PARAM_FEATURES) & DRM_TILECOPY_FEATURE_CONVERT);

	ck_assert_int_eq(on, !props || !strstr(props, "convert=off"));
	return on;
}

/* Source, destination and scales BOs (scales read-only), and the job. */
struct job {
	int fd;
	struct tc_bo src, dst, scl;
	uint32_t bos[3];
	struct drm_tilecopy_desc d[256];
	unsigned int n;
};

static void job_init(struct job *j, uint64_t dst_size)
{
	static const float scales[] = { 0.37f, 1.0f, -2.5f, 0.0f, -0.0f, 3e-39f, 65504.0f, 1e-3f };
	j->fd = tc_open();
	tc_bo_new(j->fd, 8192, 0, &j->src);
	tc_bo_new(j->fd, dst_size, 0, &j->dst);
	/* the scales: read-only to the engine, written by the CPU */
	tc_bo_new(j->fd, 4096, DRM_TILECOPY_BO_READ_ONLY, &j->scl);
	for (unsigned int i = 0; i < 1024; i++)
		((float *)j->scl.map)[i] = scales[i % 8] * (float)(1 + i / 8);
	tc_pattern(j->src.map, 8192, 7);
	j->bos[0] = j->src.handle;
	j->bos[1] = j->dst.handle;
	j->bos[2] = j->scl.handle;
	j->n = 0;
}

static void job_fini(struct job *j)
{
	tc_bo_free(j->fd, &j->src);
	tc_bo_free(j->fd, &j->dst);
	tc_bo_free(j->fd, &j->scl);
	close(j->fd);
}

/* A typed COPY of @e0 x @e1 elements; offsets in bytes of the job's BOs. */
static struct drm_tilecopy_desc *job_copy(struct job *j, unsigned int dt, uint64_t dst,
					  unsigned int st, uint64_t src, uint32_t e0, uint32_t e1,
					  const uint64_t *ss, const uint64_t *ds)
{
	struct drm_tilecopy_desc *d = &j->d[j->n++];

	tc_desc_copy(d, dst, src, 1, 2, (uint32_t[]){ e0, e1 }, ds, ss);
	d->elem_size = 0;
	d->src_type = (uint8_t)st;
	d->dst_type = (uint8_t)dt;
	return d;
}

/*
 * Submit the job's descriptors (offsets made VAs), wait, and compare the
 * whole destination BO with the reference applied to its noise.
 */
static void job_run(struct job *j, const char *what)
{
	uint8_t *exp = malloc(j->dst.size);
	uint64_t id;
	unsigned int i;

	tc_pattern(j->dst.map, j->dst.size, 99);
	memcpy(exp, j->dst.map, j->dst.size);
	for (i = 0; i < j->n; i++) {
		struct drm_tilecopy_desc *d = &j->d[i];

		ck_assert_int_eq(tc_typed_ref(d, (uint8_t *)j->src.map + d->src, exp + d->dst,
					      (const float *)((uint8_t *)j->scl.map + d->scales)), 0);
		d->src += d->op == DRM_TILECOPY_OP_COPY ? j->src.va : 0;
		d->dst += j->dst.va;
		d->scales += d->cvt_flags & DRM_TILECOPY_CVT_SCALES ? j->scl.va : 0;
	}
	tc_assert_ok(tc_submit(j->fd, j->d, j->n, j->bos, 3, 0, &id));
	ck_assert_uint_eq(tc_wait_status(j->fd, id), DRM_TILECOPY_STATUS_OK);
	for (i = memcmp(j->dst.map, exp, j->dst.size) ? 0 : j->dst.size; i < j->dst.size; i++)
		ck_assert_msg(((uint8_t *)j->dst.map)[i] == exp[i],
			      "%s: byte %u: got 0x%02x want 0x%02x", what, i,
			      ((uint8_t *)j->dst.map)[i], exp[i]);
	free(exp);
	j->n = 0;
}

/*
 * Every pair of types, four conversions each (none; a scale and zero
 * points; per-channel scales along dimension 1 from the scales BO; per
 * element along dimension 0, with a zero point of 100000), 33 x 5
 * elements from odd nibbles and a misaligned source: one job of 256
 * descriptors.
 */
START_TEST(test_pairs)
{
	static const uint64_t ss[2] = { 1, 35 }, ds[2] = { 1, 37 };
	struct job j;

	job_init(&j, 256 * 1024);
	if (!converts(j.fd)) {
		job_fini(&j);
		return;
	}
	for (unsigned int st = DRM_TILECOPY_TYPE_F32; st <= DRM_TILECOPY_TYPE_U4; st++) {
		for (unsigned int dt = DRM_TILECOPY_TYPE_F32; dt <= DRM_TILECOPY_TYPE_U4; dt++) {
			for (unsigned int c = 0; c < 4; c++) {
				struct drm_tilecopy_desc *d =
					job_copy(&j, dt, j.n * 1024, st, 3, 33, 5, ss, ds);

				d->src_nibble = tc_desc_type_bits(st) == 4;
				d->dst_nibble = tc_desc_type_bits(dt) == 4;
				if (c == 1) {
					d->cvt_flags = DRM_TILECOPY_CVT_SCALE;
					d->scale = 0x3ebd70a4u;		/* 0.37 */
					d->src_zp = -3;
					d->dst_zp = 5;
				} else if (c >= 2) {
					d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
					d->scales = 4 * c;
					d->scale_stride[c == 2 ? 1 : 0] = 1;
					d->src_zp = c == 3 ? 100000 : 0;
					d->dst_zp = c == 2 ? -1 : 0;
				}
			}
		}
	}
	job_run(&j, "64 pairs x 4 conversions");
	job_fini(&j);
}
END_TEST

/*
 * int4: bit copies and conversions between either nibble, strided (the
 * NCHW64 gather of odd C), and typed FILLs of nibbles (its padding): every
 * other nibble of the destination kept.
 */
START_TEST(test_nibbles)
{
	struct job j;

	job_init(&j, 16 * 1024);
	if (!converts(j.fd)) {
		job_fini(&j);
		return;
	}
	for (unsigned int v = 0; v < 12; v++) {
		uint64_t ss[2] = { v % 4, 301 }, ds[2] = { 1 + v % 3, (1 + v % 3) * 300 };
		unsigned int st = v & 8 ? DRM_TILECOPY_TYPE_I8 : DRM_TILECOPY_TYPE_U4;
		unsigned int dt = v & 4 ? DRM_TILECOPY_TYPE_I4 : DRM_TILECOPY_TYPE_U4;
		struct drm_tilecopy_desc *d = job_copy(&j, dt, v * 1024 + (v & 2), st, v, 300 - v,
						       2, ss, ds);

		d->src_nibble = tc_desc_type_bits(st) == 4 && (v & 1);
		d->dst_nibble = !!(v & 2);
	}
	for (unsigned int v = 0; v < 4; v++) {
		struct drm_tilecopy_desc *d = &j.d[j.n++];

		tc_desc_fill(d, 12 * 1024 + v * 1024, 0xa - v, 1, 1, (uint32_t[]){ 101 + v },
			     (uint64_t[]){ 1 + v / 2 });
		d->elem_size = 0;
		d->dst_type = v & 1 ? DRM_TILECOPY_TYPE_I4 : DRM_TILECOPY_TYPE_U4;
		d->dst_nibble = v < 2;
	}
	job_run(&j, "int4");
	job_fini(&j);
}
END_TEST

/* A one-descriptor job of @d over the job's three BOs: SUBMIT's answer. */
static int submit_one(struct job *j, const struct drm_tilecopy_desc *d, uint32_t nbo)
{
	uint64_t id;
	int r = tc_submit(j->fd, d, 1, j->bos, nbo, 0, &id);

	if (!r)
		ck_assert_uint_eq(tc_wait_status(j->fd, id), DRM_TILECOPY_STATUS_OK);
	return r;
}

/*
 * The scales must lie in a BO of the job, as a source must: a read-only BO
 * is fine; a BO not listed, no BO, the last scale one past the BO, a huge
 * scale stride, a VA of 2^63 are -EINVAL. Scales that overlap the
 * destination run (their result is undefined).
 */
START_TEST(test_scales_bo)
{
	struct job j;
	struct drm_tilecopy_desc d;
	static const uint64_t one[2] = { 1, 16 };
	struct tc_bo other;

	job_init(&j, 4096);
	if (!converts(j.fd)) {
		job_fini(&j);
		return;
	}
	tc_bo_new(j.fd, 4096, 0, &other);
	tc_desc_copy(&d, j.dst.va, j.src.va, 1, 2, (uint32_t[]){ 16, 64 }, one, one);
	d.elem_size = 0;
	d.src_type = DRM_TILECOPY_TYPE_F32;
	d.dst_type = DRM_TILECOPY_TYPE_U8;
	d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d.scale_stride[1] = 1;
#define SCALES_AT(va, nbo, err) do {					\
		d.scales = (va);					\
		if (err)						\
			tc_assert_err(submit_one(&j, &d, nbo), err);	\
		else							\
			tc_assert_ok(submit_one(&j, &d, nbo));		\
	} while (0)
	SCALES_AT(j.scl.va, 3, 0);
	SCALES_AT(j.scl.va + 4096 - 4 * 64, 3, 0);	/* ends on the BO's last byte */
	SCALES_AT(j.scl.va + 4096 - 4 * 64 + 4, 3, EINVAL);
	SCALES_AT(j.scl.va, 2, EINVAL);			/* its BO not listed */
	SCALES_AT(other.va, 3, EINVAL);			/* a BO of the file, not of the job */
	SCALES_AT(0, 3, EINVAL);
	SCALES_AT(1ull << 63, 3, EINVAL);
	SCALES_AT(j.scl.va - 4, 3, EINVAL);
	SCALES_AT(j.dst.va, 3, 0);			/* the destination itself */
	d.scale_stride[1] = 0xffffffffu;		/* 256 GiB of scales */
	SCALES_AT(j.scl.va, 3, EINVAL);
	d.scale_stride[0] = d.scale_stride[1] = 0;	/* one scale for all */
	SCALES_AT(j.scl.va + 4092, 3, 0);
#undef SCALES_AT
	tc_bo_free(j.fd, &other);
	job_fini(&j);
}
END_TEST

/*
 * What a hostile caller might try on each new field: each gets its errno,
 * and the file works afterwards.
 */
START_TEST(test_hostile)
{
	struct job j;
	struct drm_tilecopy_desc d, base;
	static const uint64_t one[2] = { 1, 0 };

	job_init(&j, 4096);
	if (!converts(j.fd)) {
		job_fini(&j);
		return;
	}
	tc_desc_copy(&base, j.dst.va, j.src.va, 1, 1, (uint32_t[]){ 1024 }, one, one);
	base.elem_size = 0;
	base.src_type = DRM_TILECOPY_TYPE_F32;
	base.dst_type = DRM_TILECOPY_TYPE_U4;
#define TRY(what, err) do {						\
		d = base;						\
		what;							\
		tc_assert_err(submit_one(&j, &d, 3), err);		\
	} while (0)
	TRY(d.src_type = DRM_TILECOPY_TYPE_I8; d.src_nibble = 1, EINVAL);	/* nibble on 8 bits */
	TRY(d.dst_nibble = 2, EINVAL);
	TRY(d.cvt_flags = DRM_TILECOPY_CVT_SCALE; d.scale = 0x7fc00000u, EINVAL);	/* NaN */
	TRY(d.cvt_flags = DRM_TILECOPY_CVT_SCALE; d.scale = 0x7f800000u, EINVAL);	/* inf */
	TRY(d.cvt_flags = 3, EINVAL);
	TRY(d.cvt_flags = 0x80000000u, EINVAL);
	TRY(d.src = j.src.va + (1ull << 63), EINVAL);				/* 2^63 offsets */
	TRY(d.src_stride[0] = 1ull << 63, EINVAL);
	TRY(d.dst_stride[0] = 1ull << 62, EINVAL);
	TRY(d.src_type = 200, EINVAL);
	TRY(d.dst_type = 0, EINVAL);
	TRY(d.elem_size = 4, EINVAL);
	TRY(d.pad = 0xffffffffu, EINVAL);
	TRY(d.scale_stride[7] = 1, EINVAL);
	TRY(d.scales = j.scl.va, EINVAL);					/* no CVT_SCALES */
	/* a 4-bit destination in a read-only BO: not writable */
	TRY(d.dst = j.scl.va, EINVAL);
	/* the work bound counts nibbles, a typed row is bounded in elements */
	TRY(d.ndims = 2; d.extent[0] = 1u << 20; d.extent[1] = 4097; d.src_stride[0] = 0;
	    d.dst_stride[0] = 0; d.dst_stride[1] = 1, E2BIG);
	TRY(d.extent[0] = (1u << 20) + 1; d.src_stride[0] = d.dst_stride[0] = 0, E2BIG);
	/* scales that are the destination, 2^20 stride-0 writes: run */
	d = base;
	d.extent[0] = 1u << 20;
	d.src_stride[0] = d.dst_stride[0] = 0;
	d.cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d.scales = j.dst.va;
	tc_assert_ok(submit_one(&j, &d, 3));
#undef TRY
	job_fini(&j);
}
END_TEST

/*
 * Callers of smaller structs: desc_size 192 (ABI 1.1) runs untyped jobs; a
 * 224-byte struct (up to @scales) runs a scaled conversion, its missing
 * scale_stride taken as zero.
 */
START_TEST(test_old_callers)
{
	struct job j;
	struct drm_tilecopy_desc d;
	struct drm_tilecopy_submit s;
	uint8_t arr[3 * 224];
	static const uint64_t one[1] = { 1 };
	uint8_t exp[64];
	int conv;

	job_init(&j, 4096);
	conv = converts(j.fd);
	memset(arr, 0, sizeof(arr));
	for (int i = 0; i < 3; i++) {
		tc_desc_write64(&d, j.dst.va + 8 * i, 0xb0 + i);
		memcpy(arr + i * DRM_TILECOPY_DESC_SIZE_1_0, &d, DRM_TILECOPY_DESC_SIZE_1_0);
	}
	memset(&s, 0, sizeof(s));
	s.descs = (uintptr_t)arr;
	s.bo_handles = (uintptr_t)j.bos;
	s.bo_count = 3;
	s.desc_count = 3;
	s.desc_size = DRM_TILECOPY_DESC_SIZE_1_0;
	tc_assert_ok(tc_submit_args(j.fd, &s));
	ck_assert_uint_eq(tc_wait_status(j.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(((uint64_t *)j.dst.map)[i], 0xb0 + i);

	/* 224 bytes: f32 -> i8 scaled by 0.25 with zero points */
	tc_desc_copy(&d, j.dst.va + 64, j.src.va, 1, 1, (uint32_t[]){ 64 }, one, one);
	d.elem_size = 0;
	d.src_type = DRM_TILECOPY_TYPE_F32;
	d.dst_type = DRM_TILECOPY_TYPE_I8;
	d.cvt_flags = DRM_TILECOPY_CVT_SCALE;
	d.scale = 0x3e800000u;
	d.src_zp = 2;
	d.dst_zp = -9;
	memcpy(arr, &d, 224);
	s.desc_size = 224;
	s.desc_count = 1;
	if (!conv) {
		tc_assert_err(tc_submit_args(j.fd, &s), EOPNOTSUPP);
		job_fini(&j);
		return;
	}
	memcpy(exp, (uint8_t *)j.dst.map + 64, 64);
	d.src = d.dst = 0;
	ck_assert_int_eq(tc_typed_ref(&d, j.src.map, exp, j.scl.map), 0);
	tc_assert_ok(tc_submit_args(j.fd, &s));
	ck_assert_uint_eq(tc_wait_status(j.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	ck_assert(!memcmp(exp, (uint8_t *)j.dst.map + 64, 64));
	job_fini(&j);
}
END_TEST

/*
 * An engine without conversion (convert=off: engine 1.1): no
 * FEATURE_CONVERT, CONVERT_TYPES 0, every descriptor with a typed field set
 * refused with -EOPNOTSUPP (an untyped one with a non-zero typed byte too),
 * untyped jobs of 256-byte descriptors run (the driver packs them to the
 * engine's 192 bytes).
 */
START_TEST(test_no_convert)
{
	struct job j;
	struct drm_tilecopy_desc d[3];
	uint64_t id;

	job_init(&j, 4096);
	if (converts(j.fd)) {
		job_fini(&j);
		return;
	}
	ck_assert_uint_eq(tc_get_param(j.fd, DRM_TILECOPY_PARAM_CONVERT_TYPES), 0);
	ck_assert_uint_eq(tc_get_param(j.fd, DRM_TILECOPY_PARAM_DESC_SIZE), 256);
	tc_desc_copy(&d[0], j.dst.va, j.src.va, 1, 1, (uint32_t[]){ 16 }, (uint64_t[]){ 1 },
		     (uint64_t[]){ 1 });
	d[0].elem_size = 0;
	d[0].src_type = d[0].dst_type = DRM_TILECOPY_TYPE_U8;
	tc_assert_err(submit_one(&j, &d[0], 3), EOPNOTSUPP);
	d[0].elem_size = 1;
	d[0].src_type = d[0].dst_type = 0;
	d[0].pad = 1;
	tc_assert_err(submit_one(&j, &d[0], 3), EOPNOTSUPP);
	d[0].pad = 0;
	/* three descriptors: a copy, then two writes after it */
	tc_desc_write64(&d[1], j.dst.va + 16, 0x1111);
	tc_desc_write64(&d[2], j.dst.va + 24, 0x2222);
	tc_assert_ok(tc_submit(j.fd, d, 3, j.bos, 3, 0, &id));
	ck_assert_uint_eq(tc_wait_status(j.fd, id), DRM_TILECOPY_STATUS_OK);
	ck_assert(!memcmp(j.dst.map, j.src.map, 16));
	ck_assert_uint_eq(((uint64_t *)j.dst.map)[2], 0x1111);
	ck_assert_uint_eq(((uint64_t *)j.dst.map)[3], 0x2222);
	job_fini(&j);
}
END_TEST

#define ck_tc(call) do {						\
	tilecopy_status_t st_ = (call);					\
	ck_assert_msg(st_ == TILECOPY_SUCCESS, "%s: %s", #call, tilecopy_last_error()); \
} while (0)

/*
 * Typed plans through the SDK (libuser/device_job.c): per-channel scales
 * the backend uploads into a BO of the job, the plan large enough to be
 * cut over every queue (moved_bytes says so); then a 4-bit destination
 * from odd nibbles, which stays on one queue. Both equal the reference.
 * Without conversion, the backend refuses a typed plan itself.
 */
START_TEST(test_sdk_plan)
{
	static const uint64_t ss[2] = { 1, 128 }, ds[2] = { 1, 129 };
	struct tilecopy_plan plan = { .magic = TC_MAGIC_PLAN };
	struct drm_tilecopy_desc d[2];
	struct tilecopy_buffer_ref sr, dr;
	tilecopy_device_t *dev;
	tilecopy_bo_t *sbo, *dbo;
	tilecopy_job_t *job;
	float scales[64];
	uint8_t *sp, *dp, *exp;
	const size_t bytes = 65536;
	struct job j = { 0 };
	int conv;

	ck_tc(tilecopy_device_open(&dev, "auto"));
	ck_tc(tilecopy_bo_create(&sbo, dev, bytes, TILECOPY_BO_READ_ONLY));
	ck_tc(tilecopy_bo_create(&dbo, dev, bytes, 0));
	ck_tc(tilecopy_bo_map(sbo, (void **)&sp));
	ck_tc(tilecopy_bo_map(dbo, (void **)&dp));
	tc_pattern(sp, bytes, 5);
	for (int i = 0; i < 64; i++)
		scales[i] = 0.125f * (float)(i - 20);
	exp = malloc(bytes);
	j.fd = tilecopy_device_fd(dev);
	conv = converts(j.fd);
	/* f16 -> u8, scale per row (dimension 1): 128 x 64 */
	j.n = 0;
	job_copy(&j, DRM_TILECOPY_TYPE_U8, 16, DRM_TILECOPY_TYPE_F16, 0, 128, 64, ss, ds);
	j.d[0].cvt_flags = DRM_TILECOPY_CVT_SCALES;
	j.d[0].scale_stride[1] = 1;
	j.d[0].dst_zp = 7;
	/* u8 -> i4 from the high nibble, per-tensor scale */
	job_copy(&j, DRM_TILECOPY_TYPE_I4, 32768 + 3, DRM_TILECOPY_TYPE_U8, 100, 255, 33,
		 (uint64_t[]){ 1, 255 }, (uint64_t[]){ 1, 257 });
	j.d[1].dst_nibble = 1;
	j.d[1].cvt_flags = DRM_TILECOPY_CVT_SCALE;
	j.d[1].scale = 0x3c000000u;	/* 1/128 */
	memcpy(d, j.d, sizeof(d));
	plan.scales = scales;
	plan.nscales = 64;
	plan.src_bytes = plan.dst_bytes = bytes;
	plan.moved_bytes = 1ull << 30;	/* "large": cut over every queue */
	sr = (struct tilecopy_buffer_ref){ sbo, 0 };
	dr = (struct tilecopy_buffer_ref){ dbo, 0 };
	for (int n = 1; n <= 2; n++) {
		plan.descs = d;
		plan.n = (size_t)n;
		tc_pattern(dp, bytes, 17 + n);
		memcpy(exp, dp, bytes);
		for (int i = 0; i < n; i++)
			ck_assert_int_eq(tc_typed_ref(&d[i], sp + d[i].src, exp + d[i].dst,
						      (const float *)((const uint8_t *)scales +
								      d[i].scales)), 0);
		if (!conv) {
			ck_assert_int_eq(tilecopy_job_submit(&job, dev, &plan, &sr, &dr, 0),
					 TILECOPY_ERR_UNSUPPORTED);
			break;
		}
		ck_tc(tilecopy_job_submit(&job, dev, &plan, &sr, &dr, 0));
		/* the plan without 4-bit elements went to every queue */
		ck_assert_int_ge(job->nparts, n == 1 ? (int)tc_get_param(j.fd,
			DRM_TILECOPY_PARAM_NUM_QUEUES) : 1);
		ck_assert_int_le(job->nparts, n == 1 ? 64 : 1);
		ck_tc(tilecopy_job_wait(job, -1));
		tilecopy_job_destroy(job);
		ck_assert_msg(!memcmp(dp, exp, bytes), "SDK typed plan of %d descriptors", n);
	}
	free(exp);
	tilecopy_bo_free(sbo);
	tilecopy_bo_free(dbo);
	tilecopy_device_close(dev);
}
END_TEST

static Suite *convert_suite(void)
{
	Suite *s = suite_create("convert");
	TCase *tc = tcase_create("convert");

	tcase_add_test(tc, test_pairs);
	tcase_add_test(tc, test_nibbles);
	tcase_add_test(tc, test_scales_bo);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_old_callers);
	tcase_add_test(tc, test_no_convert);
	tcase_add_test(tc, test_sdk_plan);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	tc_require_device("test_convert");
	return tc_run_suite(convert_suite());
}
