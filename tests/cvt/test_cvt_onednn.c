// SPDX-License-Identifier: MIT
/*
 * test_cvt_onednn.c - element conversion against oneDNN 2.6's reorder, bit
 * for bit.
 *
 * For every pair of f32, f16, bf16, s8, u8, s32 and every quantization
 * configuration of cvt_test.h (none; per-tensor scales that are ordinary,
 * negative, tiny and huge; source and destination zero points; per-channel
 * scales along either dim of a 2-D tensor), the test asks the installed
 * libdnnl for a reorder of a plain tensor with those output scales and zero
 * points. Where oneDNN has one, it converts the inputs of cvt_test.h
 * (every f16, bf16, s8 and u8 value; for f32 the specials, all f16 and
 * bf16 rounding ties, the saturation limits and a sample; for s32 the
 * limits and a sample), and so do the element-by-element reference and
 * every kernel set this CPU runs. Every element must have oneDNN's bits.
 *
 * Three oneDNN behaviours are not copied (docs/dtype-conversion.md). Each
 * is modelled exactly here, so that the element must still have the bits
 * the model predicts, and counted separately:
 *   ref-signed-zero  oneDNN's only f16 reorder is its reference, which
 *                    computes scale * (x - zp) + zp even when they are 1
 *                    and 0: a -0 result becomes +0 and a signalling NaN
 *                    is quieted even in an f16 -> f16 copy. Its bf16
 *                    reorders are the reference too on a CPU without
 *                    AVX-512 (simple:any, not jit:uni), and then also
 *                    flush a bf16 denormal in a bf16 -> bf16 copy;
 *   ref-nan-int      that reference (bf16 -> s8/s32 there) rounds a NaN
 *                    with nearbyintf, to INT32_MIN, narrowed: 0 for s8;
 *   bf16-int-nosat   bf16 -> s8/u8 without scale or zero point skips the
 *                    saturation step of the JIT: NaN and |x| >= 2^31 come
 *                    out as INT32_MIN narrowed (-128 for s8, 0 for u8);
 *   s32-zp-wrap      s32 -> s32 with zero points only wraps around on
 *                    overflow, tilecopy saturates.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <oneapi/dnnl/dnnl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvt_test.h"

#define NKINDS_DNNL 6	/* f32 f16 bf16 i8 u8 i32: the first six kinds */

static const dnnl_data_type_t dnnl_type[NKINDS_DNNL] = {
	[TC_CVT_F32] = dnnl_f32, [TC_CVT_F16] = dnnl_f16, [TC_CVT_BF16] = dnnl_bf16,
	[TC_CVT_I8] = dnnl_s8, [TC_CVT_U8] = dnnl_u8, [TC_CVT_I32] = dnnl_s32,
};

static const char *const dnnl_name[NKINDS_DNNL] = {
	"f32", "f16", "bf16", "s8", "u8", "s32",
};

enum defect { D_NONE, D_REF_SIGNED_ZERO, D_REF_NAN_INT, D_BF16_NOSAT, D_S32_WRAP, D_COUNT };
static const char *const defect_name[D_COUNT] = {
	"", "ref-signed-zero", "ref-nan-int", "bf16-int-nosat", "s32-zp-wrap",
};

static dnnl_engine_t eng;
static dnnl_stream_t strm;

/* ---- one conversion case -------------------------------------------------- */

struct ccase {
	enum tc_cvt_kind dk, sk;
	const struct cvt_qcfg *cfg;
	size_t rows, cols;		/* cols == n, rows == 1 for per-tensor */
	float *chan;			/* per-channel scales, rows or cols of them */
	size_t nchan;
	unsigned char *src;		/* rows * cols elements */
};

static size_t esize(enum tc_cvt_kind k)
{
	return tc_cvt_kind_bits(k) / 8;
}

static void ccase_init(struct ccase *c, enum tc_cvt_kind dk, enum tc_cvt_kind sk,
		       const struct cvt_qcfg *cfg, const struct cvt_vals *in)
{
	size_t n, i, es = esize(sk);

	memset(c, 0, sizeof(*c));
	c->dk = dk;
	c->sk = sk;
	c->cfg = cfg;
	if (cfg->per_channel) {
		c->cols = CVT_COLS;
		c->rows = (in->n + CVT_COLS - 1) / CVT_COLS;
		c->nchan = cfg->per_channel == 1 ? c->rows : c->cols;
		c->chan = malloc(c->nchan * sizeof(float));
		ck_assert(c->chan);
		for (i = 0; i < c->nchan; i++)
			c->chan[i] = cvt_chan_scale(i);
	} else {
		c->rows = 1;
		c->cols = in->n;
	}
	n = c->rows * c->cols;
	c->src = malloc(n * es);
	ck_assert(c->src);
	for (i = 0; i < n; i++)	/* the inputs, repeated to fill the last row */
		memcpy(c->src + i * es, in->p + (i % in->n) * es, es);
}

static void ccase_fini(struct ccase *c)
{
	free(c->chan);
	free(c->src);
}

/* oneDNN's reorder for @c, or NULL when oneDNN has none; @impl its name. */
static dnnl_primitive_t onednn_create(const struct ccase *c, dnnl_memory_desc_t *smd,
				      dnnl_memory_desc_t *dmd, const char **impl)
{
	dnnl_dims_t dims = { (dnnl_dim_t)c->rows, (dnnl_dim_t)c->cols };
	dnnl_primitive_attr_t attr;
	dnnl_primitive_desc_t pd;
	dnnl_primitive_t prim = NULL;
	dnnl_status_t st;
	const char *name;

	ck_assert_int_eq(dnnl_memory_desc_init_by_tag(smd, 2, dims, dnnl_type[c->sk],
						      dnnl_ab), dnnl_success);
	ck_assert_int_eq(dnnl_memory_desc_init_by_tag(dmd, 2, dims, dnnl_type[c->dk],
						      dnnl_ab), dnnl_success);
	ck_assert_int_eq(dnnl_primitive_attr_create(&attr), dnnl_success);
	if (c->cfg->per_channel)
		ck_assert_int_eq(dnnl_primitive_attr_set_output_scales(attr,
				(dnnl_dim_t)c->nchan, 1 << (c->cfg->per_channel - 1),
				c->chan), dnnl_success);
	else if (c->cfg->scale != 1.0f)
		ck_assert_int_eq(dnnl_primitive_attr_set_output_scales(attr, 1, 0,
				&c->cfg->scale), dnnl_success);
	if (c->cfg->src_zp)
		ck_assert_int_eq(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_SRC, 1, 0,
				&c->cfg->src_zp), dnnl_success);
	if (c->cfg->dst_zp)
		ck_assert_int_eq(dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0,
				&c->cfg->dst_zp), dnnl_success);
	st = dnnl_reorder_primitive_desc_create(&pd, smd, eng, dmd, eng, attr);
	dnnl_primitive_attr_destroy(attr);
	if (st != dnnl_success)
		return NULL;
	ck_assert_int_eq(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0,
						   &name), dnnl_success);
	*impl = name;	/* static strings inside libdnnl */
	ck_assert_int_eq(dnnl_primitive_create(&prim, pd), dnnl_success);
	dnnl_primitive_desc_destroy(pd);
	return prim;
}

static void onednn_run(dnnl_primitive_t prim, const dnnl_memory_desc_t *smd,
		       const dnnl_memory_desc_t *dmd, void *src, void *dst)
{
	dnnl_memory_t sm, dm;

	ck_assert_int_eq(dnnl_memory_create(&sm, smd, eng, src), dnnl_success);
	ck_assert_int_eq(dnnl_memory_create(&dm, dmd, eng, dst), dnnl_success);
	{
		dnnl_exec_arg_t args[2] = { { DNNL_ARG_FROM, sm }, { DNNL_ARG_TO, dm } };

		ck_assert_int_eq(dnnl_primitive_execute(prim, strm, 2, args), dnnl_success);
	}
	ck_assert_int_eq(dnnl_stream_wait(strm), dnnl_success);
	dnnl_memory_destroy(sm);
	dnnl_memory_destroy(dm);
}

/* tilecopy's conversion of @c into @dst: @k NULL is the reference. */
static void ours_run(const struct ccase *c, const struct tc_cvt_kernels *k, void *dst)
{
	struct tc_cvt_quant q = { 0 };
	struct tc_cvt cv;
	const char *why = NULL;
	size_t r;

	if (c->cfg->per_channel) {
		q.scales = c->chan;
		q.nscales = c->nchan;
	} else {
		q.scales = &c->cfg->scale;
		q.nscales = 1;
	}
	q.src_zp = c->cfg->src_zp;
	q.dst_zp = c->cfg->dst_zp;
	ck_assert_msg(!tc_cvt_init(&cv, c->dk, c->sk, &q, k ? k : &tc_cvt_scalar, &why),
		      "tc_cvt_init: %s", why);
	for (r = 0; r < c->rows; r++) {
		int64_t off = (int64_t)(r * c->cols);
		const float *s = c->cfg->per_channel == 1 ? &c->chan[r] : c->chan;
		ptrdiff_t ss = c->cfg->per_channel == 2 ? 1 : 0;

		if (k)
			tc_cvt_run(&cv, dst, off, 1, c->src, off, 1, c->cols, s, ss);
		else
			tc_cvt_ref_run(&cv, dst, off, 1, c->src, off, 1, c->cols, s, ss);
	}
}

/* ---- what oneDNN gives where tilecopy differs by design ----------------- */

static uint32_t load_bits(const void *p, size_t i, size_t es)
{
	uint32_t u = 0;

	memcpy(&u, (const char *)p + i * es, es);
	return u;
}

static int no_quant(const struct cvt_qcfg *cfg)
{
	return !cfg->per_channel && cfg->scale == 1.0f && !cfg->src_zp && !cfg->dst_zp;
}

/* The scale element @i of @c is multiplied by. */
static float elem_scale(const struct ccase *c, size_t i)
{
	if (c->cfg->per_channel == 1)
		return c->chan[i / c->cols];
	if (c->cfg->per_channel == 2)
		return c->chan[i % c->cols];
	return c->cfg->scale;
}

/*
 * oneDNN's reference reorder (simple:any) rounds scale * ((float)x - zp) +
 * zp, every step done: -0 before the rounding becomes +0, a NaN is
 * quieted. An integer result is saturated, then nearbyintf'd: a NaN
 * passes the saturation and becomes INT32_MIN, narrowed.
 */
static uint32_t onednn_ref(const struct ccase *c, size_t i, uint32_t ours,
			   enum defect *why)
{
	float x = tc_cvt_load(c->sk, c->src, (int64_t)i);
	unsigned char out[4] = { 0 };
	uint32_t want;

	x = elem_scale(c, i) * (x - (float)c->cfg->src_zp) + (float)c->cfg->dst_zp;
	if (isnan(x) && !tc_cvt_kind_is_float(c->dk)) {
		want = c->dk == TC_CVT_I32 ? 0x80000000u : 0;
		if (want != ours)
			*why = D_REF_NAN_INT;
		return want;
	}
	tc_cvt_store(c->dk, out, 0, x);
	want = load_bits(out, 0, esize(c->dk));
	if (want != ours)
		*why = D_REF_SIGNED_ZERO;
	return want;
}

/* Pairs for which oneDNN ran its reference rather than a copy or a JIT. */
static int onednn_is_ref(const struct ccase *c, const char *impl)
{
	if ((c->sk == TC_CVT_F16 || c->dk == TC_CVT_F16) && tc_cvt_kind_is_float(c->dk))
		return 1;	/* f16 has no other reorder in 2.6 */
	/* f32 -> f32 simple:any is a bit copy, not the reference */
	return (c->sk == TC_CVT_BF16 || c->dk == TC_CVT_BF16) && !strcmp(impl, "simple:any");
}

static uint32_t onednn_expect(const struct ccase *c, const char *impl, size_t i,
			      uint32_t ours, enum defect *why)
{
	uint32_t sbits = load_bits(c->src, i, esize(c->sk));

	*why = D_NONE;
	if (onednn_is_ref(c, impl))
		return onednn_ref(c, i, ours, why);
	if (c->sk == TC_CVT_BF16 && (c->dk == TC_CVT_I8 || c->dk == TC_CVT_U8) &&
	    no_quant(c->cfg) && !strcmp(impl, "jit:uni")) {
		float x = tc_cvt_bf16_to_f32((uint16_t)sbits);
		uint32_t want = ours;

		/* CVTPS2DQ's INT32_MIN, then VPMOVSDB, or VPMAXSD 0 + VPMOVUSDB */
		if (isnan(x) || x >= 2147483648.0f || x < -2147483648.0f)
			want = c->dk == TC_CVT_I8 ? 0x80 : 0x00;
		if (want != ours)
			*why = D_BF16_NOSAT;
		return want;
	}
	if (c->sk == TC_CVT_I32 && c->dk == TC_CVT_I32 && !c->cfg->per_channel &&
	    c->cfg->scale == 1.0f) {
		uint32_t want = sbits - (uint32_t)c->cfg->src_zp + (uint32_t)c->cfg->dst_zp;

		if (want != ours)
			*why = D_S32_WRAP;
		return want;
	}
	return ours;
}

/* ---- the test ------------------------------------------------------------- */

struct tally {
	size_t configs, values, mismatches, by_design[D_COUNT];
	char impls[128];
};

static void tally_impl(struct tally *t, const char *impl)
{
	if (!strstr(t->impls, impl) && strlen(t->impls) + strlen(impl) + 2 < sizeof(t->impls)) {
		if (t->impls[0])
			strcat(t->impls, ",");
		strcat(t->impls, impl);
	}
}

/* Compare the reference's @ours with oneDNN's @ref element by element. */
static void compare(const struct ccase *c, const char *impl, const void *ours,
		    const void *ref, struct tally *t)
{
	size_t n = c->rows * c->cols, es = esize(c->dk), bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t o = load_bits(ours, i, es), r = load_bits(ref, i, es);
		enum defect why;
		uint32_t want = onednn_expect(c, impl, i, o, &why);

		if (why != D_NONE)
			t->by_design[why]++;
		if (want == r)
			continue;
		if (!bad++)
			fprintf(stderr, "%s->%s %s [%s]: element %zu (src %0*x): tilecopy %0*x, oneDNN %0*x (model %0*x)\n",
				dnnl_name[c->sk], dnnl_name[c->dk], c->cfg->name, impl, i,
				(int)esize(c->sk) * 2, load_bits(c->src, i, esize(c->sk)),
				(int)es * 2, o, (int)es * 2, r, (int)es * 2, want);
	}
	t->values += n;
	t->mismatches += bad;
}

/* A kernel set's @out must be the reference's @ref, byte for byte. */
static void compare_set(const struct ccase *c, const char *set, const unsigned char *out,
			const unsigned char *ref, struct tally *t)
{
	size_t n = c->rows * c->cols, es = esize(c->dk), i;

	if (!memcmp(out, ref, n * es))
		return;
	for (i = 0; i < n && !memcmp(out + i * es, ref + i * es, es); i++)
		;
	fprintf(stderr, "%s->%s %s: kernel set %s differs from the reference at element %zu (src %0*x): %0*x, reference %0*x\n",
		dnnl_name[c->sk], dnnl_name[c->dk], c->cfg->name, set, i,
		(int)esize(c->sk) * 2, load_bits(c->src, i, esize(c->sk)),
		(int)es * 2, load_bits(out, i, es), (int)es * 2, load_bits(ref, i, es));
	t->mismatches++;
}

static void check_case(struct ccase *c, struct tally *t)
{
	size_t n = c->rows * c->cols, bytes = n * esize(c->dk);
	dnnl_memory_desc_t smd, dmd;
	const char *impl = "?";
	dnnl_primitive_t prim = onednn_create(c, &smd, &dmd, &impl);
	unsigned char *onednn, *ref, *out;
	int err, sets = 0;

	if (!prim)
		return;
	t->configs++;
	tally_impl(t, impl);
	onednn = malloc(bytes);
	ref = malloc(bytes);
	out = malloc(bytes);
	ck_assert(onednn && ref && out);
	cvt_fill_noise(onednn, bytes, 0xd0d0);
	onednn_run(prim, &smd, &dmd, c->src, onednn);
	dnnl_primitive_destroy(prim);

	cvt_fill_noise(ref, bytes, 0xbeef);
	ours_run(c, NULL, ref);
	compare(c, impl, ref, onednn, t);
	for (int i = 0; tc_cvt_kernel_names[i]; i++) {
		const struct tc_cvt_kernels *k = tc_cvt_kernels_get(tc_cvt_kernel_names[i], &err);

		if (!k)
			continue;
		cvt_fill_noise(out, bytes, 0xbeef + (unsigned int)i);
		ours_run(c, k, out);
		compare_set(c, k->name, out, ref, t);
		sets++;
	}
	ck_assert_msg(sets, "no kernel set at all");
	free(onednn);
	free(ref);
	free(out);
}

/* The f16/bf16 ties in f32 only with no quantization: a scale moves them. */
static struct cvt_vals inputs[NKINDS_DNNL], inputs_ties;

START_TEST(test_pair)
{
	enum tc_cvt_kind sk = (enum tc_cvt_kind)(_i / NKINDS_DNNL);
	enum tc_cvt_kind dk = (enum tc_cvt_kind)(_i % NKINDS_DNNL);
	struct tally t = { 0 };
	char extra[160] = "";

	for (int q = 0; q < CVT_NQCFGS; q++) {
		struct ccase c;

		ccase_init(&c, dk, sk, &cvt_qcfgs[q],
			   sk == TC_CVT_F32 && q == 0 ? &inputs_ties : &inputs[sk]);
		check_case(&c, &t);
		ccase_fini(&c);
	}
	for (int d = 1; d < D_COUNT; d++)
		if (t.by_design[d])
			snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
				 ", %zu %s", t.by_design[d], defect_name[d]);
	if (!t.configs)
		printf("/onednn/%s-%s: oneDNN has no reorder (scalar reference only, test_cvt)\n",
		       dnnl_name[sk], dnnl_name[dk]);
	else
		printf("/onednn/%s-%s: %zu/%d configs [%s], %zu values, %zu mismatches%s\n",
		       dnnl_name[sk], dnnl_name[dk], t.configs, CVT_NQCFGS, t.impls,
		       t.values, t.mismatches, extra);
	fflush(stdout);
	ck_assert_msg(!t.mismatches, "%s -> %s: %zu elements differ from oneDNN",
		      dnnl_name[sk], dnnl_name[dk], t.mismatches);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cvt-onednn");
	TCase *tc = tcase_create("onednn");
	SRunner *sr;
	int failed;

	if (dnnl_engine_create(&eng, dnnl_cpu, 0) != dnnl_success ||
	    dnnl_stream_create(&strm, eng, dnnl_stream_default_flags) != dnnl_success) {
		fprintf(stderr, "oneDNN: no CPU engine\n");
		return EXIT_FAILURE;
	}
	for (int k = 0; k < NKINDS_DNNL; k++)
		cvt_gen(&inputs[k], (enum tc_cvt_kind)k, 1 << 13, 0);
	cvt_gen(&inputs_ties, TC_CVT_F32, 1 << 13, 1);
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_pair, 0, NKINDS_DNNL * NKINDS_DNNL);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int k = 0; k < NKINDS_DNNL; k++)
		cvt_vals_free(&inputs[k]);
	cvt_vals_free(&inputs_ties);
	dnnl_stream_destroy(strm);
	dnnl_engine_destroy(eng);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
