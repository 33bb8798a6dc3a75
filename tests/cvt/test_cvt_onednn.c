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
 * is modelled exactly (onednn_model.h: ref-signed-zero, bf16-int-nosat,
 * s32-zp-wrap), so that the element must still have the bits the model
 * predicts, and counted separately.
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

#define NKINDS_DNNL 6	/* f32 f16 bf16 i8 u8 i32: the first six kinds */

static const dnnl_data_type_t dnnl_type[NKINDS_DNNL] = {
	[TC_CVT_F32] = dnnl_f32, [TC_CVT_F16] = dnnl_f16, [TC_CVT_BF16] = dnnl_bf16,
	[TC_CVT_I8] = dnnl_s8, [TC_CVT_U8] = dnnl_u8, [TC_CVT_I32] = dnnl_s32,
};

static const char *const dnnl_name[NKINDS_DNNL] = {
	"f32", "f16", "bf16", "s8", "u8", "s32",
};


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

#define load_bits onednn_load_bits

/* The scale element @i of @c is multiplied by. */
static float elem_scale(const struct ccase *c, size_t i)
{
	if (c->cfg->per_channel == 1)
		return c->chan[i / c->cols];
	if (c->cfg->per_channel == 2)
		return c->chan[i % c->cols];
	return c->cfg->scale;
}

/* Element @i of @c as the model (onednn_model.h) takes it. */
static uint32_t case_expect(const struct ccase *c, const char *impl, size_t i,
			    uint32_t ours, uint32_t got, enum defect *why)
{
	struct onednn_elem e = {
		.sk = c->sk, .dk = c->dk, .scale = elem_scale(c, i),
		.src_zp = c->cfg->src_zp, .dst_zp = c->cfg->dst_zp,
		.per_channel = c->cfg->per_channel != 0,
		.unit_scale = !c->cfg->per_channel && c->cfg->scale == 1.0f,
		.got = got,
	};

	return onednn_expect(&e, impl, c->src, (int64_t)i, ours, why);
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
		uint32_t want = case_expect(c, impl, i, o, r, &why);

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
	onednn_exec(prim, &smd, &dmd, c->src, onednn);
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
	onednn_defects_str(t.by_design, extra, sizeof(extra));
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

	if (!onednn_open())
		return EXIT_FAILURE;
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
