// SPDX-License-Identifier: MIT
/*
 * test_reorder_onednn.c - layout change and element conversion together,
 * through the public API (tilecopy_plan_create_v2), against oneDNN 2.6's
 * reorder, bit for bit.
 *
 * For every pair of f32, f16, bf16, s8, u8, s32, on blocked formats with
 * odd shapes (nchw -> nChw16c, nChw16c -> nhwc, nchw -> NCHW64 and back,
 * oihw -> OIhw16i16o, OIhw16i16o -> ohwi) and eleven quantizations (none;
 * per-tensor scales ordinary, negative, tiny, huge; source, destination
 * and both zero points with a scale; per-channel scales along dim 1 and
 * dim 0, with and without zero points), oneDNN is asked for a reorder with
 * those output scales and zero points. Where it has one, both convert the
 * same source bytes (inputs of cvt_test.h: specials, ties, limits, every
 * value of the narrow kinds; source padding is noise): every logical
 * element must have oneDNN's bits (onednn_model.h gives oneDNN's where
 * tilecopy differs by design, and those are counted), every padding
 * element 0 in both, and every CPU executor present the scalar one's
 * bytes. NCHW64 has no oneDNN tag: its memory desc is nChw16c's with the
 * block set to 64.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvt_test.h"
#include "onednn_exec.h"
#include "onednn_model.h"
#include "internal.h"

#define NK 6	/* f32 f16 bf16 i8 u8 i32: the first six kinds */

static const dnnl_data_type_t dnnl_type[NK] = {
	[TC_CVT_F32] = dnnl_f32, [TC_CVT_F16] = dnnl_f16, [TC_CVT_BF16] = dnnl_bf16,
	[TC_CVT_I8] = dnnl_s8, [TC_CVT_U8] = dnnl_u8, [TC_CVT_I32] = dnnl_s32,
};
static const tilecopy_dtype_t tc_type[NK] = {
	[TC_CVT_F32] = TILECOPY_DT_F32, [TC_CVT_F16] = TILECOPY_DT_F16,
	[TC_CVT_BF16] = TILECOPY_DT_BF16, [TC_CVT_I8] = TILECOPY_DT_I8,
	[TC_CVT_U8] = TILECOPY_DT_U8, [TC_CVT_I32] = TILECOPY_DT_I32,
};
static const char *const kname[NK] = { "f32", "f16", "bf16", "s8", "u8", "s32" };

static const char *const cpus[] = { "scalar", "sse2", "avx2", "avx512", "neon" };
#define NCPUS (int)(sizeof(cpus) / sizeof(cpus[0]))

/* A layout change; tag 0 means NCHW64 (built by hand). */
struct lcase {
	const char *sfmt, *dfmt;
	dnnl_format_tag_t stag, dtag;
	int64_t shape[4];
};

static const struct lcase lcases[] = {
	{ "nchw", "nChw16c", dnnl_nchw, dnnl_nChw16c, { 2, 19, 3, 5 } },
	{ "nChw16c", "nhwc", dnnl_nChw16c, dnnl_nhwc, { 1, 33, 2, 3 } },
	{ "nchw", "NCHW64", dnnl_nchw, 0, { 2, 67, 2, 3 } },
	{ "NCHW64", "nhwc", 0, dnnl_nhwc, { 1, 3, 3, 5 } },
	{ "oihw", "OIhw16i16o", dnnl_oihw, dnnl_OIhw16i16o, { 17, 19, 3, 3 } },
	{ "OIhw16i16o", "ohwi", dnnl_OIhw16i16o, dnnl_ohwi, { 33, 5, 1, 2 } },
};
#define NLCASES (int)(sizeof(lcases) / sizeof(lcases[0]))

/* Quantizations: per_channel 0, or 1 + the dim of the scales. */
static const struct cvt_qcfg qcfgs[] = {
	{ "none", 0, 1.0f, 0, 0 },
	{ "scale", 0, 0.37f, 0, 0 },
	{ "scale-neg", 0, -1.5f, 0, 0 },
	{ "scale-tiny", 0, 0x1p-130f, 0, 0 },
	{ "scale-huge", 0, 3e30f, 0, 0 },
	{ "src-zp", 0, 1.0f, 3, 0 },
	{ "dst-zp", 0, 1.0f, 0, -5 },
	{ "all", 0, 0.37f, -3, 5 },
	{ "chan-dim1", 2, 1.0f, 0, 0 },
	{ "chan-dim0", 1, 1.0f, 0, 0 },
	{ "chan-dim1-zp", 2, 1.0f, 7, -2 },
};
#define NQ (int)(sizeof(qcfgs) / sizeof(qcfgs[0]))

static struct cvt_vals inputs[NK];

/* ---- memory descs ------------------------------------------------------------ */

/* nChw16c's desc with a block of 64 channels: MegEngine's NCHW64. */
static void md_nchw64(dnnl_memory_desc_t *md, const dnnl_dims_t dims, dnnl_data_type_t dt)
{
	dnnl_blocking_desc_t *b = &md->format_desc.blocking;
	dnnl_dim_t c1 = (dims[1] + 63) / 64;

	ck_assert_int_eq(dnnl_memory_desc_init_by_tag(md, 4, dims, dt, dnnl_nChw16c), dnnl_success);
	md->padded_dims[1] = c1 * 64;
	b->inner_blks[0] = 64;
	b->strides[3] = 64;
	b->strides[2] = dims[3] * 64;
	b->strides[1] = dims[2] * dims[3] * 64;
	b->strides[0] = c1 * dims[2] * dims[3] * 64;
}

static void md_make(dnnl_memory_desc_t *md, const int64_t *shape, dnnl_format_tag_t tag,
		    enum tc_cvt_kind k)
{
	dnnl_dims_t dims = { shape[0], shape[1], shape[2], shape[3] };

	if (tag)
		ck_assert_int_eq(dnnl_memory_desc_init_by_tag(md, 4, dims, dnnl_type[k], tag),
				 dnnl_success);
	else
		md_nchw64(md, dims, dnnl_type[k]);
}

/* ---- one conversion ------------------------------------------------------------ */

struct rcase {
	const struct lcase *lc;
	const struct cvt_qcfg *q;
	enum tc_cvt_kind sk, dk;
	tilecopy_tensor_t *src, *dst;
	float chan[128];
	size_t nchan;
	int cdim;		/* the scales' dim, or -1 */
};

struct tally {
	size_t configs, values, mismatches, by_design[D_COUNT];
	char impls[160];
};

static float rcase_scale(const struct rcase *r, const int64_t *crd)
{
	return r->cdim >= 0 ? r->chan[crd[r->cdim]] : r->q->scale;
}

static dnnl_primitive_t onednn_reorder(const struct rcase *r, dnnl_memory_desc_t *smd,
				       dnnl_memory_desc_t *dmd, const char **impl)
{
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim = NULL;
	dnnl_status_t st;

	md_make(smd, r->lc->shape, r->lc->stag, r->sk);
	md_make(dmd, r->lc->shape, r->lc->dtag, r->dk);
	ck_assert_int_eq(dnnl_primitive_attr_create(&attr), dnnl_success);
	if (r->cdim >= 0)
		ck_assert_int_eq(dnnl_primitive_attr_set_output_scales(attr,
				(dnnl_dim_t)r->nchan, 1 << r->cdim, r->chan), dnnl_success);
	else if (r->q->scale != 1.0f)
		ck_assert_int_eq(dnnl_primitive_attr_set_output_scales(attr, 1, 0,
				&r->q->scale), dnnl_success);
	if (r->q->src_zp)
		ck_assert_int_eq(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
				&r->q->src_zp), dnnl_success);
	if (r->q->dst_zp)
		ck_assert_int_eq(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
				&r->q->dst_zp), dnnl_success);
	st = dnnl_reorder_primitive_desc_create(&pd, smd, eng, dmd, eng, attr);
	dnnl_primitive_attr_destroy(attr);
	if (st != dnnl_success)
		return NULL;
	ck_assert_int_eq(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, impl),
			 dnnl_success);
	ck_assert_int_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
	dnnl_primitive_desc_destroy(pd);
	return prim;
}

static tilecopy_plan_t *ours_plan(const struct rcase *r)
{
	tilecopy_convert_params_t pr;
	tilecopy_plan_t *plan = NULL;

	ck_assert(!tilecopy_convert_params_init(&pr));
	if (r->cdim >= 0) {
		pr.scales = r->chan;
		pr.nscales = r->nchan;
		pr.scale_dim = r->cdim;
	} else {
		pr.scales = &r->q->scale;
		pr.nscales = 1;
	}
	pr.src_zero_point = r->q->src_zp;
	pr.dst_zero_point = r->q->dst_zp;
	ck_assert_msg(!tilecopy_plan_create_v2(&plan, r->src, r->dst, &pr, 0), "%s",
		      tilecopy_last_error());
	return plan;
}

static void coord(const int64_t *shape, int64_t i, int64_t *crd)
{
	for (int m = 3; m >= 0; m--) {
		crd[m] = i % shape[m];
		i /= shape[m];
	}
}

/* The source: the kind's inputs, scrambled, at each element; noise between. */
static void fill_source(const struct rcase *r, unsigned char *buf, size_t bytes, size_t seed)
{
	const struct cvt_vals *in = &inputs[r->sk];
	size_t es = tc_cvt_kind_bits(r->sk) / 8;
	int64_t n = r->lc->shape[0] * r->lc->shape[1] * r->lc->shape[2] * r->lc->shape[3];
	int64_t crd[4], off;

	cvt_fill_noise(buf, bytes, 0xbad0 + seed);
	for (int64_t i = 0; i < n; i++) {
		size_t v = (size_t)(i * 7919 + (int64_t)seed * 104729) % in->n;

		coord(r->lc->shape, i, crd);
		ck_assert(!tc_layout_crd2idx(&r->src->layout, crd, &off));
		memcpy(buf + off * (int64_t)es, in->p + v * es, es);
	}
}

/*
 * The padding elements of the destination (coordinates beyond the extents
 * in its padded modes): ours 0, oneDNN's as the model says.
 */
static size_t compare_padding(const struct rcase *r, const char *impl,
			      const unsigned char *ours, const unsigned char *ref,
			      struct tally *t)
{
	const tilecopy_layout_t *l = &r->dst->layout;
	size_t es = tc_cvt_kind_bits(r->dk) / 8, bad = 0;
	int64_t size[4], n = 1, crd[4], d;

	for (int m = 0; m < 4; m++)
		n *= size[m] = tc_layout_mode_size(l, m);
	for (int64_t i = 0; i < n; i++) {
		int pad = 0;
		uint32_t want, got, o;
		enum defect why;

		coord(size, i, crd);
		for (int m = 0; m < 4; m++)
			pad |= crd[m] >= r->lc->shape[m];
		if (!pad)
			continue;
		ck_assert(!tc_layout_crd2idx(l, crd, &d));
		o = onednn_load_bits(ours, (size_t)d, es);
		got = onednn_load_bits(ref, (size_t)d, es);
		want = onednn_expect_pad(r->dk, impl, got, &why);
		if (why != D_NONE)
			t->by_design[why]++;
		if ((o || want != got) && !bad++)
			fprintf(stderr, "%s->%s %s %s->%s [%s]: padding (%lld,%lld,%lld,%lld): tilecopy %x, oneDNN %x (model %x)\n",
				kname[r->sk], kname[r->dk], r->q->name, r->lc->sfmt, r->lc->dfmt,
				impl, (long long)crd[0], (long long)crd[1], (long long)crd[2],
				(long long)crd[3], o, got, want);
	}
	return bad;
}

/* Every element of oneDNN's output against ours (and the model). */
static void compare(const struct rcase *r, const char *impl, const unsigned char *src,
		    const unsigned char *ours, const unsigned char *ref, struct tally *t)
{
	size_t es = tc_cvt_kind_bits(r->dk) / 8, bad = 0;
	int64_t n = r->lc->shape[0] * r->lc->shape[1] * r->lc->shape[2] * r->lc->shape[3];
	int64_t crd[4], so, d;

	for (int64_t i = 0; i < n; i++) {
		struct onednn_elem e = {
			.sk = r->sk, .dk = r->dk, .src_zp = r->q->src_zp, .dst_zp = r->q->dst_zp,
			.per_channel = r->cdim >= 0,
			.unit_scale = r->cdim < 0 && r->q->scale == 1.0f,
		};
		uint32_t o, want, got;
		enum defect why;

		coord(r->lc->shape, i, crd);
		ck_assert(!tc_layout_crd2idx(&r->src->layout, crd, &so));
		ck_assert(!tc_layout_crd2idx(&r->dst->layout, crd, &d));
		e.scale = rcase_scale(r, crd);
		o = onednn_load_bits(ours, (size_t)d, es);
		e.got = got = onednn_load_bits(ref, (size_t)d, es);
		want = onednn_expect(&e, impl, src, so, o, &why);
		if (why != D_NONE)
			t->by_design[why]++;
		if (want != got && !bad++)
			fprintf(stderr, "%s->%s %s %s->%s [%s]: element (%lld,%lld,%lld,%lld): tilecopy %x, oneDNN %x (model %x)\n",
				kname[r->sk], kname[r->dk], r->q->name, r->lc->sfmt, r->lc->dfmt,
				impl, (long long)crd[0], (long long)crd[1], (long long)crd[2],
				(long long)crd[3], o, got, want);
	}
	t->values += (size_t)n;
	t->mismatches += bad + compare_padding(r, impl, ours, ref, t);
}

/* Every executor present gives the scalar one's bytes. */
static void check_executors(tilecopy_plan_t *plan, const unsigned char *src, size_t sbytes,
			    const unsigned char *scalar, size_t dbytes, const struct rcase *r,
			    struct tally *t)
{
	unsigned char *out = malloc(dbytes);
	const char *name;

	ck_assert(out);
	for (int c = 1; c < NCPUS; c++) {
		if (tilecopy_cpu_name(cpus[c], &name))
			continue;
		cvt_fill_noise(out, dbytes, 0x51 + (uint64_t)c);
		ck_assert(!tilecopy_plan_execute_cpu(plan, src, sbytes, out, dbytes, cpus[c]));
		if (memcmp(out, scalar, dbytes)) {
			fprintf(stderr, "%s->%s %s %s->%s: executor %s differs from scalar\n",
				kname[r->sk], kname[r->dk], r->q->name, r->lc->sfmt,
				r->lc->dfmt, cpus[c]);
			t->mismatches++;
		}
	}
	free(out);
}

static void tally_impl(struct tally *t, const char *impl)
{
	if (!strstr(t->impls, impl) && strlen(t->impls) + strlen(impl) + 2 < sizeof(t->impls)) {
		if (t->impls[0])
			strcat(t->impls, ",");
		strcat(t->impls, impl);
	}
}

static void run_case(struct rcase *r, size_t seed, struct tally *t)
{
	dnnl_memory_desc_t smd, dmd;
	const char *impl = "?";
	dnnl_primitive_t prim = onednn_reorder(r, &smd, &dmd, &impl);
	tilecopy_plan_t *plan;
	unsigned char *src, *ours, *ref;
	uint64_t sb, db;

	if (!prim)
		return;
	t->configs++;
	tally_impl(t, impl);
	plan = ours_plan(r);
	ck_assert(!tilecopy_plan_src_bytes(plan, &sb));
	ck_assert(!tilecopy_plan_dst_bytes(plan, &db));
	ck_assert_uint_eq(sb, dnnl_memory_desc_get_size(&smd));
	ck_assert_uint_eq(db, dnnl_memory_desc_get_size(&dmd));
	src = malloc(sb);
	ours = malloc(db);
	ref = malloc(db);
	ck_assert(src && ours && ref);
	fill_source(r, src, sb, seed);
	memset(ref, 0xa5, db);
	onednn_exec(prim, &smd, &dmd, src, ref);
	dnnl_primitive_destroy(prim);
	cvt_fill_noise(ours, db, 0x77 + seed);
	ck_assert(!tilecopy_plan_execute_cpu(plan, src, sb, ours, db, "scalar"));
	compare(r, impl, src, ours, ref, t);
	check_executors(plan, src, sb, ours, db, r, t);
	tilecopy_plan_destroy(plan);
	free(src);
	free(ours);
	free(ref);
}

static void rcase_init(struct rcase *r, const struct lcase *lc, const struct cvt_qcfg *q,
		       enum tc_cvt_kind sk, enum tc_cvt_kind dk)
{
	memset(r, 0, sizeof(*r));
	r->lc = lc;
	r->q = q;
	r->sk = sk;
	r->dk = dk;
	r->cdim = q->per_channel ? 2 - q->per_channel : -1;
	if (r->cdim >= 0) {
		r->nchan = (size_t)lc->shape[r->cdim];
		for (size_t c = 0; c < r->nchan; c++)
			r->chan[c] = cvt_chan_scale(c);
	}
	ck_assert(!tilecopy_tensor_create(&r->src, lc->sfmt, lc->shape, 4, tc_type[sk], NULL, 0));
	ck_assert(!tilecopy_tensor_create(&r->dst, lc->dfmt, lc->shape, 4, tc_type[dk], NULL, 0));
}

static void rcase_fini(struct rcase *r)
{
	tilecopy_tensor_destroy(r->src);
	tilecopy_tensor_destroy(r->dst);
}

START_TEST(test_pair)
{
	enum tc_cvt_kind sk = (enum tc_cvt_kind)(_i / NK), dk = (enum tc_cvt_kind)(_i % NK);
	struct tally t = { 0 };
	char extra[200] = "";
	size_t seed = 0;

	for (int l = 0; l < NLCASES; l++)
		for (int q = 0; q < NQ; q++) {
			struct rcase r;

			rcase_init(&r, &lcases[l], &qcfgs[q], sk, dk);
			run_case(&r, seed++, &t);
			rcase_fini(&r);
		}
	onednn_defects_str(t.by_design, extra, sizeof(extra));
	if (!t.configs)
		printf("/reorder/%s-%s: oneDNN has no reorder\n", kname[sk], kname[dk]);
	else
		printf("/reorder/%s-%s: %zu/%d layout x quantization cases [%s], %zu elements, %zu mismatches%s\n",
		       kname[sk], kname[dk], t.configs, NLCASES * NQ, t.impls, t.values,
		       t.mismatches, extra);
	fflush(stdout);
	ck_assert_msg(!t.mismatches, "%s -> %s: %zu cases differ", kname[sk], kname[dk],
		      t.mismatches);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reorder-onednn");
	TCase *tc = tcase_create("reorder");
	SRunner *sr;
	int failed;

	if (!onednn_open())
		return EXIT_FAILURE;
	for (int k = 0; k < NK; k++)
		cvt_gen(&inputs[k], (enum tc_cvt_kind)k, 1 << 11, 0);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_pair, 0, NK * NK);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int k = 0; k < NK; k++)
		cvt_vals_free(&inputs[k]);
	dnnl_stream_destroy(strm);
	dnnl_engine_destroy(eng);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
