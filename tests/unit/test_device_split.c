// SPDX-License-Identifier: MIT
/*
 * test_device_split - the device backend's job splitter (libuser/
 * device_job.c, included here for its static functions) on typed
 * descriptors, without a device: every way a plan is cut (slices across
 * engines, queues, the work bound, the row bound) gives pieces that, run
 * one after the other, write exactly what the whole descriptors write (the
 * CPU reference of tests/typed_ref.h); 4-bit offsets move by nibbles,
 * scales with source and destination; a plan writing 4-bit elements goes
 * to one queue and one slice.
 */
#include "device_job.c"

#include "tc_test.h"
#include "../typed_ref.h"

#define BUF 65536

struct split_env {
	tilecopy_device_t dev;
	struct tilecopy_plan plan;
	struct drm_tilecopy_desc d[8];
	float scales[256];
	uint8_t src[BUF];
	uint8_t whole[BUF], parts[BUF];
};

static void env_init(struct split_env *e, uint64_t max_elems)
{
	uint64_t seed = 42;

	memset(e, 0, sizeof(*e));
	e->dev.magic = TC_MAGIC_DEVICE;
	e->dev.info.num_queues = 4;
	e->dev.info.max_descs = 16384;
	e->dev.max_job_elems = max_elems;
	e->dev.features = DRM_TILECOPY_FEATURE_DESC_STRIDE | DRM_TILECOPY_FEATURE_CONVERT;
	snprintf(e->dev.info.path, sizeof(e->dev.info.path), "/dev/accel/test");
	for (size_t i = 0; i < BUF; i++)
		e->src[i] = (uint8_t)(tc_rand(&seed) >> 56);
	for (size_t i = 0; i < 256; i++)
		e->scales[i] = 0.25f * (float)(i % 7) - 0.5f;
	e->plan.descs = e->d;
	e->plan.scales = e->scales;
	e->plan.nscales = 256;
	e->plan.moved_bytes = 1ull << 30;
}

/* Run @d (offsets into the env's buffers) on @dst with the CPU reference. */
static void run_desc(struct split_env *e, const struct drm_tilecopy_desc *d, uint8_t *dst)
{
	if (!d->dst_type) {
		ck_assert_int_eq(tc_exec_scalar(d, 1, e->src, dst), 0);
		return;
	}
	ck_assert_int_eq(tc_typed_ref(d, e->src + d->src, dst + d->dst,
				      (const float *)((const uint8_t *)e->scales + d->scales)), 0);
}

/*
 * Slice @part of @nparts over @q queues, as the backend spreads it: run
 * every piece of every queue list on e->parts; each piece must be valid and
 * within the row bound. (The work bound cuts along the outermost dimension
 * only: a piece of one outermost index may stay above it, as before.)
 */
static void run_slice(struct split_env *e, unsigned int q, unsigned int part, unsigned int nparts)
{
	struct tc_rebase va = { 0, 0, 0 };
	struct tc_dlist *lists = calloc(q, sizeof(*lists));

	ck_assert_int_eq(tc_distribute(&e->dev, lists, q, &e->plan, &va, part, nparts), 0);
	for (unsigned int i = 0; i < q; i++) {
		for (size_t k = 0; k < lists[i].n; k++) {
			const struct drm_tilecopy_desc *p = &lists[i].d[k];
			const char *field = NULL;

			ck_assert_int_eq(tc_desc_check_v2(p, BUF, BUF, sizeof(e->scales), &field), 0);
			ck_assert_int_eq(tc_row_too_long(p), -1);
			run_desc(e, p, e->parts);
		}
	}
	tc_lists_free(lists, q);
}

/* Every cut of the plan gives what the whole plan gives. */
static void check_cuts(struct split_env *e, const char *what)
{
	static const unsigned int cuts[][2] = { { 1, 1 }, { 4, 1 }, { 1, 3 }, { 4, 2 } };

	memset(e->whole, 0x5a, BUF);
	for (size_t i = 0; i < e->plan.n; i++)
		run_desc(e, &e->d[i], e->whole);
	for (size_t c = 0; c < TC_ARRAY_SIZE(cuts); c++) {
		memset(e->parts, 0x5a, BUF);
		for (unsigned int part = 0; part < cuts[c][1]; part++)
			run_slice(e, cuts[c][0], part, cuts[c][1]);
		for (size_t b = 0; b < BUF; b++)
			ck_assert_msg(e->parts[b] == e->whole[b],
				      "%s, %u queues x %u slices: byte %zu: 0x%02x, whole 0x%02x",
				      what, cuts[c][0], cuts[c][1], b, e->parts[b], e->whole[b]);
	}
}

static struct drm_tilecopy_desc *typed(struct split_env *e, unsigned int dt, uint64_t dst,
				       unsigned int st, uint64_t src, unsigned int nd,
				       const uint32_t *ext, const uint64_t *ss, const uint64_t *ds)
{
	struct drm_tilecopy_desc *d = &e->d[e->plan.n++];

	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->ndims = (uint8_t)nd;
	d->src = src;
	d->dst = dst;
	d->src_type = (uint8_t)st;
	d->dst_type = (uint8_t)dt;
	for (unsigned int k = 0; k < nd; k++) {
		d->extent[k] = ext[k];
		d->src_stride[k] = ss[k];
		d->dst_stride[k] = ds[k];
	}
	return d;
}

/*
 * 4-bit sides from odd nibbles, cut along an outermost dimension of odd
 * stride (pieces start on either nibble), with per-channel scales along
 * it: under a work bound of 7, 64 and 1000 elements, over queues and
 * slices.
 */
START_TEST(test_split_nibbles_scales)
{
	static const uint64_t bounds[] = { 7, 64, 1000 };
	struct split_env *e = malloc(sizeof(*e));

	/* TC_TEST_QUICK (valgrind): the largest bound alone, fewer pieces */
	for (size_t b = getenv("TC_TEST_QUICK") ? 2 : 0; b < TC_ARRAY_SIZE(bounds); b++) {
		struct drm_tilecopy_desc *d;

		env_init(e, bounds[b]);
		d = typed(e, DRM_TILECOPY_TYPE_I4, 1000, DRM_TILECOPY_TYPE_U4, 3, 3,
			  (uint32_t[]){ 5, 3, 37 }, (uint64_t[]){ 1, 5, 17 },
			  (uint64_t[]){ 3, 1, 15 });
		d->src_nibble = d->dst_nibble = 1;
		d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		d->scales = 8;
		d->scale_stride[2] = 1;
		d->src_zp = 3;
		/* f32 -> u4 per element, the destination transposed */
		d = typed(e, DRM_TILECOPY_TYPE_U4, 4000, DRM_TILECOPY_TYPE_F32, 1001, 2,
			  (uint32_t[]){ 9, 41 }, (uint64_t[]){ 1, 9 }, (uint64_t[]){ 41, 1 });
		d->dst_nibble = 1;
		d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
		d->scale_stride[0] = 1;
		d->scale_stride[1] = 2;
		/* a typed FILL of nibbles, and an untyped COPY after it */
		d = &e->d[e->plan.n++];
		memset(d, 0, sizeof(*d));
		d->op = DRM_TILECOPY_OP_FILL;
		d->ndims = 2;
		d->dst = 9000;
		d->dst_type = DRM_TILECOPY_TYPE_I4;
		d->dst_nibble = 1;
		d->value = 0x9;
		d->extent[0] = 13;
		d->extent[1] = 29;
		d->dst_stride[0] = 1;
		d->dst_stride[1] = 15;
		d = &e->d[e->plan.n++];
		memset(d, 0, sizeof(*d));
		d->op = DRM_TILECOPY_OP_COPY;
		d->elem_size = 1;
		d->ndims = 1;
		d->src = 100;
		d->dst = 12000;
		d->extent[0] = 777;
		d->src_stride[0] = d->dst_stride[0] = 1;
		check_cuts(e, "4-bit");
	}
	free(e);
}
END_TEST

/* Wider types, a broadcast source and per-tensor scales, sliced. */
START_TEST(test_split_wide)
{
	struct split_env *e = malloc(sizeof(*e));
	struct drm_tilecopy_desc *d;

	env_init(e, 100);
	d = typed(e, DRM_TILECOPY_TYPE_BF16, 0, DRM_TILECOPY_TYPE_F32, 8, 3,
		  (uint32_t[]){ 7, 11, 13 }, (uint64_t[]){ 0, 7, 77 }, (uint64_t[]){ 1, 7, 77 });
	d->cvt_flags = DRM_TILECOPY_CVT_SCALE;
	d->scale = 0x40400000u;
	d = typed(e, DRM_TILECOPY_TYPE_I8, 20000, DRM_TILECOPY_TYPE_I32, 5000, 2,
		  (uint32_t[]){ 64, 64 }, (uint64_t[]){ 64, 1 }, (uint64_t[]){ 1, 64 });
	d->dst_zp = -7;
	check_cuts(e, "wide");
	free(e);
}
END_TEST

/*
 * Rows: a typed row is bounded in elements even when contiguous (an
 * untyped one of the same bytes is not cut); a 4-bit FILL row of 3 Mi + 5
 * nibbles from an odd one is halved into pieces that each start where the
 * one before ended, nibble and all.
 */
START_TEST(test_split_rows)
{
	struct split_env *e = malloc(sizeof(*e));
	struct drm_tilecopy_desc *d, u;

	env_init(e, 1ull << 32);
	d = typed(e, DRM_TILECOPY_TYPE_U8, 0, DRM_TILECOPY_TYPE_U8, 0, 1,
		  (uint32_t[]){ (1u << 20) + 1 }, (uint64_t[]){ 1 }, (uint64_t[]){ 1 });
	ck_assert_int_eq(tc_row_too_long(d), 0);
	u = *d;
	u.src_type = u.dst_type = 0;
	u.elem_size = 1;
	ck_assert_int_eq(tc_row_too_long(&u), -1);
	/* a per-channel scale stride breaks the merge of two dimensions */
	d = typed(e, DRM_TILECOPY_TYPE_U8, 0, DRM_TILECOPY_TYPE_F32, 0, 2,
		  (uint32_t[]){ 1u << 19, 4 }, (uint64_t[]){ 1, 1u << 19 },
		  (uint64_t[]){ 1, 1u << 19 });
	d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d->scale_stride[1] = 1;
	ck_assert_int_eq(tc_row_too_long(d), -1);
	d->scale_stride[1] = 0;
	ck_assert_int_eq(tc_row_too_long(d), 1);

	e->plan.n = 0;
	d = &e->d[e->plan.n++];
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_FILL;
	d->ndims = 1;
	d->dst = 100;
	d->dst_type = DRM_TILECOPY_TYPE_U4;
	d->dst_nibble = 1;
	d->value = 0xc;
	d->extent[0] = 3u << 20 | 5;
	d->dst_stride[0] = 0;
	check_cuts(e, "rows");
	free(e);
}
END_TEST

/*
 * Where the parts go: a plan writing 4-bit elements stays on one queue
 * and in the first slice; another large one goes to every queue.
 */
START_TEST(test_split_spread)
{
	struct split_env *e = malloc(sizeof(*e));
	struct tc_plan_types t;
	unsigned int part, nparts;
	int empty;

	env_init(e, 1ull << 32);
	typed(e, DRM_TILECOPY_TYPE_BF16, 0, DRM_TILECOPY_TYPE_F32, 0, 1, (uint32_t[]){ 64 },
	      (uint64_t[]){ 1 }, (uint64_t[]){ 1 });
	TC_OK(tc_plan_types(&e->dev, &e->plan, &t));
	part = 1, nparts = 2;
	ck_assert_uint_eq(tc_spread(&e->dev, &e->plan, &t, 0, &part, &nparts, &empty), 4);
	ck_assert(!empty && part == 1 && nparts == 2);
	e->d[0].dst_type = DRM_TILECOPY_TYPE_I4;
	TC_OK(tc_plan_types(&e->dev, &e->plan, &t));
	ck_assert(t.nibbles && t.typed && !t.scales);
	for (part = 0; part < 3; part++) {
		unsigned int p = part, n = 3;

		ck_assert_uint_eq(tc_spread(&e->dev, &e->plan, &t, 0, &p, &n, &empty), 1);
		ck_assert(p == 0 && n == 1 && empty == (part != 0));
	}
	/* the scales must be the plan's; the engine must convert */
	e->d[0].cvt_flags = DRM_TILECOPY_CVT_SCALES;
	e->d[0].scales = 255 * 4;
	e->d[0].scale_stride[0] = 1;
	TC_FAILS(tc_plan_types(&e->dev, &e->plan, &t), TILECOPY_ERR_INVALID_ARG,
		 "beyond the plan's 256");
	e->d[0].scale_stride[0] = 0;
	TC_OK(tc_plan_types(&e->dev, &e->plan, &t));
	ck_assert(t.scales);
	e->dev.features &= ~DRM_TILECOPY_FEATURE_CONVERT;
	TC_FAILS(tc_plan_types(&e->dev, &e->plan, &t), TILECOPY_ERR_UNSUPPORTED,
		 "does not convert");
	free(e);
}
END_TEST

static Suite *split_suite(void)
{
	Suite *s = suite_create("device-split");
	TCase *tc = tcase_create("split");

	tcase_add_test(tc, test_split_nibbles_scales);
	tcase_add_test(tc, test_split_wide);
	tcase_add_test(tc, test_split_rows);
	tcase_add_test(tc, test_split_spread);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tc_run_suite(split_suite());
}
