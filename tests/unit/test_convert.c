// SPDX-License-Identifier: MIT
/*
 * test_convert.c - int4 element types and dtype-converting plans (issue 14
 * parts 3 and 4, library side) against index arithmetic.
 *
 * /convert/dtype       i4 and u4: bits, names, sizes of tensors rounded up
 *                      to whole bytes, byte strides, DLPack refusing them.
 * /convert/int4-plans  NCHW <-> NCHW64 and NHWC <-> NCHW64 of i4 and u4
 *                      with odd C (and more formats), every CPU executor:
 *                      every nibble where crd2idx says, padding nibbles 0,
 *                      source padding never read (poisoned), a view's other
 *                      nibbles untouched.
 * /convert/reference   converting plans between formats (blocked ones with
 *                      odd shapes) against tc_cvt_ref_run() element by
 *                      element, per-tensor and per-channel scales, zero
 *                      points, every executor.
 * /convert/refused     wrong dtypes, NULL and malformed params, nscales
 *                      against the channel extent, NaN/Inf scales,
 *                      scale_dim out of range, 2^63 sizes: the status and a
 *                      message naming the field.
 * /convert/in-place    src and dst in one buffer with different dtypes.
 * /convert/descs       typed descriptors through tilecopy_plan_desc (1.1
 *                      and 1.2 struct sizes), tilecopy_plan_scales and
 *                      tilecopy_desc_format.
 *
 * An executor this CPU cannot run is reported as skipped by name.
 * TC_TEST_QUICK (valgrind runs): the first two shapes and executors only.
 */
#include <math.h>
#include <stdio.h>

#include "tilecopy/dlpack.h"
#include "tc_test.h"
#include "cpu/cvt.h"

static const char *const cpus[] = { "scalar", "sse2", "avx2", "avx512", "neon" };
#define NCPUS (int)(sizeof(cpus) / sizeof(cpus[0]))

/* TC_TEST_QUICK: @full cases, or @quick of them. */
static size_t cases(size_t full, size_t quick)
{
	return getenv("TC_TEST_QUICK") && quick < full ? quick : full;
}

/* Non-zero if @cpu runs here; says so once per test if not. */
static int cpu_ok(const char *cpu, const char *test)
{
	const char *name;

	if (tilecopy_cpu_name(cpu, &name) == TILECOPY_SUCCESS)
		return 1;
	printf("SKIP %s %s: %s\n", test, cpu, tilecopy_last_error());
	return 0;
}

static void noise(unsigned char *p, size_t n, uint64_t seed)
{
	uint64_t s = seed | 1;

	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(tc_rand(&s) >> 56);
}

static unsigned nib_get(const unsigned char *p, int64_t e)
{
	return (e & 1) ? p[e >> 1] >> 4 : p[e >> 1] & 0xfu;
}

static void nib_set(unsigned char *p, int64_t e, unsigned v)
{
	if (e & 1)
		p[e >> 1] = (unsigned char)((p[e >> 1] & 0x0f) | (v << 4));
	else
		p[e >> 1] = (unsigned char)((p[e >> 1] & 0xf0) | (v & 0xf));
}

static tilecopy_tensor_t *tensor(const char *fmt, const int64_t *shape, int rank,
				 tilecopy_dtype_t dt)
{
	tilecopy_tensor_t *t = NULL;

	TC_OK(tilecopy_tensor_create(&t, fmt, shape, rank, dt, NULL, 0));
	return t;
}

/* Coordinate of logical index @i (dim 0 slowest, as row-major). */
static void coord(const tilecopy_tensor_t *t, int64_t i, int64_t *crd)
{
	for (int m = t->layout.rank - 1; m >= 0; m--) {
		crd[m] = i % t->extent[m];
		i /= t->extent[m];
	}
}

static int64_t count(const tilecopy_tensor_t *t)
{
	int64_t n = 1;

	for (int m = 0; m < t->layout.rank; m++)
		n *= t->extent[m];
	return n;
}

/* ---- dtypes ------------------------------------------------------------- */

START_TEST(test_dtype)
{
	static const int64_t s[4] = { 1, 3, 5, 7 }, s2[2] = { 3, 5 };
	tilecopy_dtype_t dt;
	tilecopy_tensor_t *t;
	const char *name;
	size_t n;
	uint64_t bytes;

	TC_OK(tilecopy_dtype_bits(TILECOPY_DT_I4, &n));
	ck_assert_uint_eq(n, 4);
	TC_OK(tilecopy_dtype_bits(TILECOPY_DT_F32, &n));
	ck_assert_uint_eq(n, 32);
	TC_FAILS(tilecopy_dtype_size(TILECOPY_DT_U4, &n), TILECOPY_ERR_UNSUPPORTED, "tilecopy_dtype_bits");
	TC_FAILS(tilecopy_dtype_bits((tilecopy_dtype_t)99, &n), TILECOPY_ERR_INVALID_ARG, "dtype");
	TC_FAILS(tilecopy_dtype_bits(TILECOPY_DT_I4, NULL), TILECOPY_ERR_INVALID_ARG, "bits");
	TC_OK(tilecopy_dtype_parse(&dt, "int4"));
	ck_assert_int_eq(dt, TILECOPY_DT_I4);
	TC_OK(tilecopy_dtype_parse(&dt, "u4"));
	ck_assert_int_eq(dt, TILECOPY_DT_U4);
	TC_OK(tilecopy_dtype_name(TILECOPY_DT_I4, &name));
	ck_assert_str_eq(name, "i4");
	/* appended, never renumbered */
	ck_assert_int_eq(TILECOPY_DT_I64, 8);
	ck_assert_int_eq(TILECOPY_DT_I4, 9);
	ck_assert_int_eq(TILECOPY_DT_U4, 10);

	/* 105 nibbles: 53 bytes; NCHW64 of C = 3: 35 rows of 64 nibbles */
	t = tensor("NCHW", s, 4, TILECOPY_DT_I4);
	TC_OK(tilecopy_tensor_bytes(t, &bytes));
	ck_assert_uint_eq(bytes, 53);
	tilecopy_tensor_destroy(t);
	t = tensor("NCHW64", s, 4, TILECOPY_DT_I4);
	TC_OK(tilecopy_tensor_bytes(t, &bytes));
	ck_assert_uint_eq(bytes, 35 * 32);
	tilecopy_tensor_destroy(t);
	/* C0 of NC1HWC0 is 32 bytes: 64 int4 */
	TC_OK(tilecopy_tensor_create(&t, "NC1HWC0", s, 4, TILECOPY_DT_U4, NULL, 0));
	TC_OK(tilecopy_tensor_bytes(t, &bytes));
	ck_assert_uint_eq(bytes, 35 * 32);
	tilecopy_tensor_destroy(t);
	/* byte strides of int4: a byte is two elements; any byte offset */
	{
		int64_t st[2] = { 4, 1 };

		TC_OK(tilecopy_tensor_create_strided(&t, 2, s2, st, TILECOPY_DT_I4, 3,
						     TILECOPY_STRIDES_BYTES));
		TC_OK(tilecopy_tensor_strides(t, st, 2));
		ck_assert_int_eq(st[0], 8);
		ck_assert_int_eq(st[1], 2);
		TC_OK(tilecopy_tensor_bytes(t, &bytes));
		ck_assert_uint_eq(bytes, 3 + (1 + 2 * 8 + 4 * 2 + 1) / 2);
		tilecopy_tensor_destroy(t);
	}
}
END_TEST

START_TEST(test_dlpack_int4)
{
	static int64_t shape[2] = { 2, 3 };
	DLTensor dl = { 0 };
	DLManagedTensor *m = NULL;
	tilecopy_tensor_t *t;
	char data[8];

	dl.data = data;
	dl.device.device_type = kDLCPU;
	dl.ndim = 2;
	dl.shape = shape;
	dl.dtype.code = kDLInt;
	dl.dtype.bits = 4;
	dl.dtype.lanes = 1;
	TC_FAILS(tilecopy_tensor_from_dlpack(&t, &dl, 0), TILECOPY_ERR_UNSUPPORTED, "dl->dtype");
	dl.dtype.code = kDLUInt;
	TC_FAILS(tilecopy_tensor_from_dlpack(&t, &dl, 0), TILECOPY_ERR_UNSUPPORTED, "packing");
	t = tensor("RowMajor", shape, 2, TILECOPY_DT_U4);
	TC_FAILS(tilecopy_tensor_to_dlpack(&m, t, data, 0), TILECOPY_ERR_UNSUPPORTED, "tensor");
	ck_assert_ptr_null(m);
	tilecopy_tensor_destroy(t);
}
END_TEST

/* ---- int4 plans against index arithmetic ----------------------------------- */

/*
 * @src -> @dst of 4-bit elements on @cpu: each logical element's nibble
 * where crd2idx puts it, every other nibble of a destination that is not a
 * view 0 (padding), a view's other nibbles as they were. The source's
 * nibbles outside its elements are noise: a plan that read them would
 * carry them over.
 */
static void check_int4(const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
		       const char *cpu)
{
	tilecopy_plan_t *plan;
	uint64_t sb, db;
	unsigned char *in, *out, *want, *written;
	int64_t n = count(src), crd[TILECOPY_MAX_RANK], so, d, base;

	TC_OK(tilecopy_plan_create(&plan, src, dst, 0));
	TC_OK(tilecopy_plan_src_bytes(plan, &sb));
	TC_OK(tilecopy_plan_dst_bytes(plan, &db));
	in = malloc(sb + 1);
	out = malloc(db + 1);
	want = malloc(db + 1);
	written = calloc(db * 2 + 2, 1);
	ck_assert(in && out && want && written);
	noise(in, sb, sb * 7 + 1);
	noise(out, db, db * 3 + 5);
	memcpy(want, out, db);
	base = (int64_t)dst->byte_offset * 2;
	/*
	 * A format tensor's nibbles are all its own (padding: 0); the high
	 * nibble of an odd-sized tensor's last byte is outside it, never
	 * written.
	 */
	if (!dst->view)
		for (int64_t e = base; e < base + tc_layout_cosize(&dst->layout); e++)
			nib_set(want, e, 0);
	for (int64_t i = 0; i < n; i++) {
		coord(src, i, crd);
		TC_OK(tc_layout_crd2idx(&src->layout, crd, &so));
		TC_OK(tc_layout_crd2idx(&dst->layout, crd, &d));
		nib_set(want, base + d, nib_get(in, (int64_t)src->byte_offset * 2 + so));
		written[base + d] = 1;
	}
	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, out, db, cpu));
	for (int64_t e = 0; e < (int64_t)db * 2; e++)
		ck_assert_msg(nib_get(out, e) == nib_get(want, e),
			      "%s: %s -> %s: nibble %lld (%s) is %x, want %x", cpu,
			      src->format, dst->format, (long long)e,
			      written[e] ? "an element" : "not an element",
			      nib_get(out, e), nib_get(want, e));
	free(in);
	free(out);
	free(want);
	free(written);
	tilecopy_plan_destroy(plan);
}

START_TEST(test_int4_plans)
{
	static const char *const fmts[] = {
		"NCHW", "NHWC", "NCHW64", "NCHW32", "nChw16c", "CHWN", "NC1HWC0",
	};
	static const int64_t shapes[][4] = {
		{ 1, 3, 5, 7 }, { 2, 65, 3, 3 }, { 2, 1, 1, 1 }, { 3, 7, 2, 5 }, { 1, 64, 4, 4 },
	};
	static const tilecopy_dtype_t dts[] = { TILECOPY_DT_I4, TILECOPY_DT_U4 };

	for (int c = 0; c < (int)cases(NCPUS, 2); c++) {
		if (!cpu_ok(cpus[c], "/convert/int4-plans"))
			continue;
		for (size_t t = 0; t < 2; t++)
			for (size_t s = 0; s < cases(sizeof(shapes) / sizeof(shapes[0]), 2); s++)
				for (size_t a = 0; a < sizeof(fmts) / sizeof(fmts[0]); a++)
					for (size_t b = 0; b < sizeof(fmts) / sizeof(fmts[0]); b++) {
						tilecopy_tensor_t *x = tensor(fmts[a], shapes[s], 4, dts[t]);
						tilecopy_tensor_t *y = tensor(fmts[b], shapes[s], 4, dts[t]);

						check_int4(x, y, cpus[c]);
						tilecopy_tensor_destroy(x);
						tilecopy_tensor_destroy(y);
					}
	}
}
END_TEST

/* Views: odd byte offsets and strides that leave nibbles to others. */
START_TEST(test_int4_views)
{
	static const int64_t shape[3] = { 3, 5, 7 };
	static const int64_t st_a[3] = { 80, 15, 2 }, st_b[3] = { 1, 21, 3 };
	tilecopy_tensor_t *a, *b, *f;

	TC_OK(tilecopy_tensor_create_strided(&a, 3, shape, st_a, TILECOPY_DT_I4, 5, 0));
	TC_OK(tilecopy_tensor_create_strided(&b, 3, shape, st_b, TILECOPY_DT_I4, 2, 0));
	f = tensor("RowMajor", shape, 3, TILECOPY_DT_I4);
	for (int c = 0; c < NCPUS; c++) {
		if (!cpu_ok(cpus[c], "/convert/int4-views"))
			continue;
		check_int4(a, b, cpus[c]);
		check_int4(b, a, cpus[c]);
		check_int4(f, a, cpus[c]);
		check_int4(b, f, cpus[c]);
	}
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
	tilecopy_tensor_destroy(f);
}
END_TEST

/* ---- converting plans against the element reference -------------------------- */

static enum tc_cvt_kind kind_of(tilecopy_dtype_t dt)
{
	switch (dt) {
	case TILECOPY_DT_F32: return TC_CVT_F32;
	case TILECOPY_DT_F16: return TC_CVT_F16;
	case TILECOPY_DT_BF16: return TC_CVT_BF16;
	case TILECOPY_DT_I8: return TC_CVT_I8;
	case TILECOPY_DT_U8: return TC_CVT_U8;
	case TILECOPY_DT_I32: return TC_CVT_I32;
	case TILECOPY_DT_I4: return TC_CVT_I4;
	default: return TC_CVT_U4;
	}
}

/* Element index @e of a tensor as the conversion kernels count it. */
static int64_t elem_of(const tilecopy_tensor_t *t, int64_t idx)
{
	unsigned bits = tc_dtype_bits(t->dtype);

	return (int64_t)t->byte_offset * 8 / (int64_t)bits + idx;
}

/* Is element @e of @dst's buffer (whole bits) zero? */
static int elem_zero(const unsigned char *p, int64_t e, unsigned bits)
{
	if (bits == 4)
		return !nib_get(p, e);
	for (unsigned i = 0; i < bits / 8; i++)
		if (p[e * (bits / 8) + i])
			return 0;
	return 1;
}

struct conv_case {
	const char *sf, *df;
	tilecopy_dtype_t st, dt;
	int q;		/* 0 none, 1 scale, 2 per channel (dim 1), 3 zero points, 4 all, 5 per channel dim 2 */
};

static void check_conversion(const struct conv_case *cc, const int64_t *shape, const char *cpu)
{
	tilecopy_tensor_t *src = tensor(cc->sf, shape, 4, cc->st), *dst = tensor(cc->df, shape, 4, cc->dt);
	tilecopy_convert_params_t pr;
	struct tc_cvt_quant q = { 0 };
	struct tc_cvt cv;
	tilecopy_plan_t *plan;
	float sc[256];
	uint64_t sb, db;
	unsigned char *in, *out, *want, *isel;
	int64_t n = count(src), crd[TILECOPY_MAX_RANK], so, d;
	unsigned dbits = tc_dtype_bits(cc->dt);
	int sd = cc->q == 5 ? 2 : 1;

	TC_OK(tilecopy_convert_params_init(&pr));
	for (int i = 0; i < 256; i++)
		sc[i] = i % 5 == 1 ? 1.0f : (i % 3 ? 0.37f * (float)(i + 1) : -1.5f / (float)(i + 1));
	if (cc->q == 1 || cc->q == 4) {
		pr.scales = &sc[2];
		pr.nscales = 1;
	}
	if (cc->q == 2 || cc->q == 5) {
		pr.scales = sc;
		pr.nscales = (size_t)shape[sd];
		pr.scale_dim = sd;
	}
	if (cc->q >= 2) {
		pr.src_zero_point = cc->q == 3 ? -7 : 5;
		pr.dst_zero_point = cc->q == 3 ? 100 : -3;
	}
	TC_OK(tilecopy_plan_create_v2(&plan, src, dst, &pr, 0));
	q.scales = pr.scales;
	q.nscales = pr.nscales;
	q.src_zp = pr.src_zero_point;
	q.dst_zp = pr.dst_zero_point;
	ck_assert(!tc_cvt_init(&cv, kind_of(cc->dt), kind_of(cc->st), &q, &tc_cvt_scalar, NULL));
	TC_OK(tilecopy_plan_src_bytes(plan, &sb));
	TC_OK(tilecopy_plan_dst_bytes(plan, &db));
	in = malloc(sb);
	out = malloc(db);
	want = malloc(db);
	isel = calloc(db * 2, 1);
	ck_assert(in && out && want && isel);
	noise(in, sb, sb + 11);
	noise(out, db, db + 3);
	memset(want, 0, db);
	for (int64_t i = 0; i < n; i++) {
		coord(src, i, crd);
		TC_OK(tc_layout_crd2idx(&src->layout, crd, &so));
		TC_OK(tc_layout_crd2idx(&dst->layout, crd, &d));
		tc_cvt_ref_run(&cv, want, elem_of(dst, d), 1, in, elem_of(src, so), 1, 1,
			       &sc[crd[sd]], 0);
		isel[elem_of(dst, d)] = 1;
	}
	TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, out, db, cpu));
	if (memcmp(out, want, db)) {
		int64_t e;

		for (e = 0; e < (int64_t)(db * 8 / dbits); e++) {
			unsigned char a[4] = { 0 }, b[4] = { 0 };

			if (dbits == 4) {
				a[0] = (unsigned char)nib_get(out, e);
				b[0] = (unsigned char)nib_get(want, e);
			} else {
				memcpy(a, out + e * (dbits / 8), dbits / 8);
				memcpy(b, want + e * (dbits / 8), dbits / 8);
			}
			if (memcmp(a, b, 4))
				break;
		}
		ck_abort_msg("%s: %s %d -> %s %d (q %d): element %lld (%s) differs",
			     cpu, cc->sf, cc->st, cc->df, cc->dt, cc->q, (long long)e,
			     isel[e] ? "logical" : "padding");
	}
	for (int64_t e = 0; e < (int64_t)(db * 8 / dbits); e++)
		if (!isel[e])
			ck_assert(elem_zero(out, e, dbits));
	free(in);
	free(out);
	free(want);
	free(isel);
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(src);
	tilecopy_tensor_destroy(dst);
}

START_TEST(test_reference)
{
	static const struct conv_case convs[] = {
		{ "NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_BF16, 0 },
		{ "NCHW", "nChw16c", TILECOPY_DT_F32, TILECOPY_DT_F16, 1 },
		{ "nChw16c", "NHWC", TILECOPY_DT_F16, TILECOPY_DT_F32, 0 },
		{ "NCHW", "NCHW64", TILECOPY_DT_F32, TILECOPY_DT_I8, 2 },
		{ "NCHW64", "NCHW", TILECOPY_DT_I8, TILECOPY_DT_F32, 2 },
		{ "NHWC", "NCHW64", TILECOPY_DT_F32, TILECOPY_DT_I4, 4 },
		{ "NCHW64", "NHWC", TILECOPY_DT_I4, TILECOPY_DT_BF16, 2 },
		{ "NCHW", "NCHW", TILECOPY_DT_BF16, TILECOPY_DT_U4, 5 },
		{ "OIhw16i16o", "oihw", TILECOPY_DT_F32, TILECOPY_DT_BF16, 2 },
		{ "oihw", "OIhw16i16o", TILECOPY_DT_F32, TILECOPY_DT_I8, 4 },
		{ "NCHW32", "NHWC", TILECOPY_DT_U8, TILECOPY_DT_I8, 3 },
		{ "NHWC", "NCHW", TILECOPY_DT_I32, TILECOPY_DT_I32, 3 },
		{ "NHWC", "NCHW4", TILECOPY_DT_I32, TILECOPY_DT_F16, 1 },
		{ "NCHW", "NCHW", TILECOPY_DT_F32, TILECOPY_DT_F32, 4 },
		{ "NCHW", "NHWC", TILECOPY_DT_U4, TILECOPY_DT_I4, 0 },
	};
	static const int64_t shapes[][4] = { { 2, 19, 3, 5 }, { 1, 3, 4, 7 }, { 17, 33, 1, 2 } };

	for (int c = 0; c < (int)cases(NCPUS, 2); c++) {
		if (!cpu_ok(cpus[c], "/convert/reference"))
			continue;
		for (size_t i = 0; i < sizeof(convs) / sizeof(convs[0]); i++)
			for (size_t s = 0; s < cases(3, 1); s++)
				check_conversion(&convs[i], shapes[s], cpus[c]);
	}
}
END_TEST

/* ---- refused ---------------------------------------------------------------- */

START_TEST(test_refused)
{
	static const int64_t s[4] = { 2, 3, 4, 5 };
	tilecopy_tensor_t *f32 = tensor("NCHW", s, 4, TILECOPY_DT_F32);
	tilecopy_tensor_t *bf = tensor("NHWC", s, 4, TILECOPY_DT_BF16);
	tilecopy_tensor_t *f64 = tensor("NHWC", s, 4, TILECOPY_DT_F64);
	tilecopy_tensor_t *i16 = tensor("NHWC", s, 4, TILECOPY_DT_I16);
	tilecopy_tensor_t *i4 = tensor("NHWC", s, 4, TILECOPY_DT_I4);
	tilecopy_tensor_t *u8 = tensor("NHWC", s, 4, TILECOPY_DT_U8);
	tilecopy_convert_params_t pr;
	tilecopy_plan_t *plan = (tilecopy_plan_t *)&pr;
	float sc[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
	struct { tilecopy_convert_params_t p; unsigned char more[8]; } big;

	/* without params: as before, with a hint at the conversion */
	TC_FAILS(tilecopy_plan_create(&plan, f32, bf, 0), TILECOPY_ERR_DTYPE_MISMATCH,
		 "tilecopy_plan_create_v2");
	ck_assert_ptr_null(plan);
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, NULL, 0), TILECOPY_ERR_DTYPE_MISMATCH, "dst:");
	TC_FAILS(tilecopy_plan_create(&plan, i4, u8, TILECOPY_PLAN_REINTERPRET),
		 TILECOPY_ERR_DTYPE_MISMATCH, "4 bits");
	TC_FAILS(tilecopy_convert_params_init(NULL), TILECOPY_ERR_INVALID_ARG, "params");
	TC_OK(tilecopy_convert_params_init(&pr));
	TC_FAILS(tilecopy_plan_create_v2(NULL, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "plan");
	TC_FAILS(tilecopy_plan_create_v2(&plan, NULL, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "src");
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, TILECOPY_PLAN_REINTERPRET),
		 TILECOPY_ERR_INVALID_ARG, "REINTERPRET");
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0x80), TILECOPY_ERR_INVALID_ARG, "flags");
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, f64, &pr, 0), TILECOPY_ERR_UNSUPPORTED, "dst: dtype f64");
	TC_FAILS(tilecopy_plan_create_v2(&plan, i16, f32, &pr, 0), TILECOPY_ERR_UNSUPPORTED, "src: dtype i16");
	/* the struct itself */
	pr.struct_size = 8;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG,
		 "params->struct_size");
	pr.struct_size = 1u << 20;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG,
		 "params->struct_size");
	memset(&big, 0, sizeof(big));
	TC_OK(tilecopy_convert_params_init(&big.p));
	big.p.struct_size = sizeof(big);
	TC_OK(tilecopy_plan_create_v2(&plan, f32, bf, &big.p, 0));	/* a newer caller's zeros */
	tilecopy_plan_destroy(plan);
	big.more[3] = 1;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &big.p, 0), TILECOPY_ERR_UNSUPPORTED, "params: byte");
	TC_OK(tilecopy_convert_params_init(&pr));
	pr.flags = 4;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->flags");
	TC_OK(tilecopy_convert_params_init(&pr));
	pr.reserved = 1;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->reserved");
	/* scales */
	TC_OK(tilecopy_convert_params_init(&pr));
	pr.nscales = 3;
	pr.scale_dim = 1;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scales: NULL");
	pr.scales = sc;
	pr.nscales = 0;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->nscales: 0");
	pr.nscales = 4;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_SHAPE_MISMATCH,
		 "params->nscales: 4, but dim 1 (scale_dim) has extent 3");
	pr.scale_dim = 3;
	pr.nscales = 3;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_SHAPE_MISMATCH, "extent 5");
	pr.scale_dim = -1;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_SHAPE_MISMATCH, "scale_dim -1");
	pr.scale_dim = 4;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scale_dim: 4");
	pr.scale_dim = -2;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scale_dim: -2");
	pr.scale_dim = 1;
	sc[2] = NAN;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scales[2]: NaN");
	sc[2] = -INFINITY;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scales[2]: infinite");
	pr.nscales = 1;
	sc[0] = INFINITY;
	TC_FAILS(tilecopy_plan_create_v2(&plan, f32, bf, &pr, 0), TILECOPY_ERR_INVALID_ARG, "params->scales[0]: infinite");
	ck_assert_ptr_null(plan);
	tilecopy_tensor_destroy(f32);
	tilecopy_tensor_destroy(bf);
	tilecopy_tensor_destroy(f64);
	tilecopy_tensor_destroy(i16);
	tilecopy_tensor_destroy(i4);
	tilecopy_tensor_destroy(u8);
}
END_TEST

/* Sizes near 2^63: refused whole, by name, before any scale is read. */
START_TEST(test_refused_huge)
{
	static const int64_t huge[2] = { INT64_C(1) << 61, 3 }, wide[2] = { INT64_C(1) << 33, 1 };
	static const int64_t over[2] = { INT64_C(1) << 62, 4 };
	tilecopy_tensor_t *a, *b;
	tilecopy_convert_params_t pr;
	tilecopy_plan_t *plan;
	float one = 2.0f;
	uint64_t bytes;

	/* 2^64 i4 elements: 2^63 bytes, but the element count overflows */
	TC_FAILS(tilecopy_tensor_create(&a, "RowMajor", over, 2, TILECOPY_DT_I4, NULL, 0),
		 TILECOPY_ERR_OVERFLOW, "");
	TC_OK(tilecopy_tensor_create(&a, "RowMajor", huge, 2, TILECOPY_DT_I4, NULL, 0));
	TC_OK(tilecopy_tensor_bytes(a, &bytes));
	ck_assert_uint_eq(bytes, UINT64_C(3) << 60);
	/* the same shape in f32 needs 3 * 2^63 bytes */
	TC_FAILS(tilecopy_tensor_create(&b, "RowMajor", huge, 2, TILECOPY_DT_F32, NULL, 0),
		 TILECOPY_ERR_OVERFLOW, "");
	TC_OK(tilecopy_tensor_create(&b, "ColumnMajor", huge, 2, TILECOPY_DT_U4, NULL, 0));
	TC_OK(tilecopy_convert_params_init(&pr));
	pr.src_zero_point = 1;
	TC_OK(tilecopy_plan_create_v2(&plan, a, b, &pr, 0));
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
	/* 2^33 channels: one scale per channel cannot be strided in 32 bits */
	TC_OK(tilecopy_tensor_create(&a, "RowMajor", wide, 2, TILECOPY_DT_I8, NULL, 0));
	TC_OK(tilecopy_tensor_create(&b, "RowMajor", wide, 2, TILECOPY_DT_F32, NULL, 0));
	pr.scales = &one;	/* never read: the count is refused first */
	pr.nscales = (size_t)wide[0];
	pr.scale_dim = 0;
	TC_FAILS(tilecopy_plan_create_v2(&plan, a, b, &pr, 0), TILECOPY_ERR_UNSUPPORTED,
		 "params->nscales");
	pr.nscales = SIZE_MAX;
	TC_FAILS(tilecopy_plan_create_v2(&plan, a, b, &pr, 0), TILECOPY_ERR_SHAPE_MISMATCH,
		 "params->nscales");
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
}
END_TEST

/* ---- in place and overlapping, different dtypes -------------------------- */

START_TEST(test_in_place)
{
	static const int64_t s[4] = { 2, 5, 3, 7 };
	static const struct { const char *sf, *df; tilecopy_dtype_t st, dt; uint64_t off; } c[] = {
		{ "NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_BF16, 0 },
		{ "NCHW", "NHWC", TILECOPY_DT_BF16, TILECOPY_DT_F32, 0 },
		{ "NCHW", "NCHW64", TILECOPY_DT_F32, TILECOPY_DT_I4, 0 },
		{ "NHWC", "NCHW", TILECOPY_DT_I4, TILECOPY_DT_F16, 0 },
		{ "NCHW", "NHWC", TILECOPY_DT_F32, TILECOPY_DT_I8, 96 },	/* partly */
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		tilecopy_tensor_t *x = tensor(c[i].sf, s, 4, c[i].st), *y;
		tilecopy_convert_params_t pr;
		tilecopy_plan_t *plan;
		uint64_t sb, db, size;
		unsigned char *buf, *in, *want;

		TC_OK(tilecopy_tensor_create(&y, c[i].df, s, 4, c[i].dt, NULL, 0));
		TC_OK(tilecopy_convert_params_init(&pr));
		pr.dst_zero_point = 1;
		TC_OK(tilecopy_plan_create_v2(&plan, x, y, &pr, 0));
		TC_OK(tilecopy_plan_src_bytes(plan, &sb));
		TC_OK(tilecopy_plan_dst_bytes(plan, &db));
		size = (sb > db ? sb : db) + c[i].off;
		buf = malloc(size);
		in = malloc(sb);
		want = malloc(db);
		ck_assert(buf && in && want);
		noise(in, sb, 5 + i);
		memset(want, 0x77, db);
		TC_OK(tilecopy_plan_execute_cpu(plan, in, sb, want, db, "scalar"));
		memset(buf, 0x77, size);
		memcpy(buf + c[i].off, in, sb);
		TC_OK(tilecopy_plan_execute_cpu(plan, buf + c[i].off, sb, buf, db, NULL));
		ck_assert_msg(!memcmp(buf, want, db), "case %zu: in place differs from disjoint", i);
		free(buf);
		free(in);
		free(want);
		tilecopy_plan_destroy(plan);
		tilecopy_tensor_destroy(x);
		tilecopy_tensor_destroy(y);
	}
}
END_TEST

/* ---- descriptors out ---------------------------------------------------------- */

START_TEST(test_descs)
{
	static const int64_t s[4] = { 1, 3, 2, 5 };
	tilecopy_tensor_t *x = tensor("NCHW", s, 4, TILECOPY_DT_F32);
	tilecopy_tensor_t *y = tensor("NCHW64", s, 4, TILECOPY_DT_I4);
	tilecopy_convert_params_t pr;
	tilecopy_plan_t *plan;
	struct tilecopy_desc d;
	const float *scales;
	float sc[3] = { 0.5f, 2.0f, -1.0f };
	size_t n, ns, ncopy = 0, nfill = 0;
	char line[512];

	TC_OK(tilecopy_convert_params_init(&pr));
	pr.scales = sc;
	pr.nscales = 3;
	pr.scale_dim = 1;
	pr.dst_zero_point = 2;
	TC_OK(tilecopy_plan_create_v2(&plan, x, y, &pr, 0));
	TC_OK(tilecopy_plan_scales(plan, &scales, &ns));
	ck_assert_uint_eq(ns, 3);
	ck_assert(scales[1] == 2.0f && scales != sc);	/* a copy */
	TC_FAILS(tilecopy_plan_scales(plan, &scales, NULL), TILECOPY_ERR_INVALID_ARG, "count");
	TC_OK(tilecopy_plan_descs(plan, &(const struct drm_tilecopy_desc *){ NULL }, &n));
	for (size_t i = 0; i < n; i++) {
		memset(&d, 0xee, sizeof(d));
		d.struct_size = sizeof(d);
		TC_OK(tilecopy_plan_desc(plan, i, &d));
		ck_assert_uint_eq(d.struct_size, sizeof(d));
		ck_assert_uint_eq(d.elem_size, 0);
		ck_assert_uint_eq(d.dst_type, TILECOPY_DESC_TYPE_I4);
		TC_OK(tilecopy_plan_desc_format(plan, i, line, sizeof(line)));
		if (d.op == TILECOPY_DESC_COPY) {
			ncopy++;
			ck_assert_uint_eq(d.src_type, TILECOPY_DESC_TYPE_F32);
			ck_assert_uint_eq(d.cvt_flags, TILECOPY_DESC_CVT_SCALES);
			ck_assert_int_eq(d.dst_zp, 2);
			ck_assert_ptr_nonnull(strstr(line, "f32>i4"));
			ck_assert_ptr_nonnull(strstr(line, "scale_stride=["));
			ck_assert_ptr_nonnull(strstr(line, "dst_zp=2"));
		} else {
			nfill++;
			ck_assert_uint_eq(d.src_type, 0);
			ck_assert_ptr_nonnull(strstr(line, "FILL  i4"));
			ck_assert_ptr_nonnull(strstr(line, "dst_nibble=1"));
		}
		/* a 1.1 caller: its fields only, elem_size 0 says "not for you" */
		memset(&d, 0xee, sizeof(d));
		d.struct_size = TILECOPY_DESC_SIZE_1_1;
		TC_OK(tilecopy_plan_desc(plan, i, &d));
		ck_assert_uint_eq(d.struct_size, TILECOPY_DESC_SIZE_1_1);
		ck_assert_uint_eq(d.elem_size, 0);
		ck_assert_uint_eq(d.src_type, 0xee);	/* not its bytes */
	}
	ck_assert(ncopy >= 1 && nfill >= 1);
	d.struct_size = TILECOPY_DESC_SIZE_1_1 - 1;
	TC_FAILS(tilecopy_plan_desc(plan, 0, &d), TILECOPY_ERR_INVALID_ARG, "struct_size");
	tilecopy_plan_destroy(plan);
	/* all scales 1.0: no multiplication at all; all alike: one scale */
	sc[0] = sc[1] = sc[2] = 1.0f;
	TC_OK(tilecopy_plan_create_v2(&plan, x, y, &pr, 0));
	TC_OK(tilecopy_plan_scales(plan, &scales, &ns));
	ck_assert_uint_eq(ns, 0);
	for (size_t i = 0; i < plan->n; i++)
		ck_assert_uint_eq(plan->descs[i].cvt_flags, 0);
	tilecopy_plan_destroy(plan);
	sc[0] = sc[1] = sc[2] = 0.5f;
	TC_OK(tilecopy_plan_create_v2(&plan, x, y, &pr, 0));
	ck_assert_ptr_null(plan->scales);
	for (size_t i = 0; i < plan->n; i++)
		if (plan->descs[i].op == DRM_TILECOPY_OP_COPY)
			ck_assert_uint_eq(plan->descs[i].cvt_flags, DRM_TILECOPY_CVT_SCALE);
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(y);
	/* same byte-sized dtype, default params: an untyped copy, as 1.1 */
	y = tensor("NHWC", s, 4, TILECOPY_DT_F32);
	TC_OK(tilecopy_convert_params_init(&pr));
	TC_OK(tilecopy_plan_create_v2(&plan, x, y, &pr, 0));
	ck_assert_uint_eq(plan->descs[0].elem_size, 4);
	ck_assert_uint_eq(plan->descs[0].src_type, 0);
	tilecopy_plan_destroy(plan);
	tilecopy_tensor_destroy(x);
	tilecopy_tensor_destroy(y);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("convert");
	TCase *tc = tcase_create("convert");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_dtype);
	tcase_add_test(tc, test_dlpack_int4);
	tcase_add_test(tc, test_int4_plans);
	tcase_add_test(tc, test_int4_views);
	tcase_add_test(tc, test_reference);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_refused_huge);
	tcase_add_test(tc, test_in_place);
	tcase_add_test(tc, test_descs);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
