// SPDX-License-Identifier: MIT
/*
 * test_cvt.c - element conversion: every kernel set against the
 * element-by-element reference, and the reference against outside
 * implementations where there are any (test_cvt_onednn.c has oneDNN).
 *
 *   /cvt/ref/...     the reference: f16 against the compiler's _Float16
 *                    (libgcc's soft-fp, IEEE round to nearest even) for all
 *                    65536 f16 values and a sweep of f32; round trips; the
 *                    int4 packing; the integer saturation table
 *   /cvt/sweep/...   f32 -> every kind over a sweep of 2^21 bit patterns
 *                    (sign, exponent, top 12 mantissa bits) x 4 low-bit
 *                    patterns: every bit a rounding to f16 or bf16 looks at,
 *                    each kernel set against the reference; all 2^32 f32
 *                    inputs with TC_CVT_EXHAUSTIVE=1 (a minute, not in the gate)
 *   /cvt/runs/...    all 64 kind pairs x quantizations x run shapes (odd
 *                    lengths around the vector widths and the chunk size,
 *                    odd nibble offsets, strides of 0, 2, 3, -1, misaligned
 *                    bases), each kernel set against the reference on
 *                    noise-filled destinations: every byte, inside and
 *                    outside the run, must agree, and every byte or nibble
 *                    outside the run must still be the noise
 *   /cvt/bulk/...    long contiguous runs of every special value in every
 *                    lane position, and in-place conversions
 *   /cvt/init/...    bad parameters are refused with a message naming the field
 *
 * A kernel set this CPU cannot run is reported as skipped, by name; on
 * x86-64 and aarch64 the run fails if no SIMD set could be tested.
 * TC_TEST_QUICK=1 shrinks the sweeps (used under qemu-user).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cvt_test.h"

static int quick(void)
{
	const char *q = getenv("TC_TEST_QUICK");

	return q && *q && *q != '0';
}

static int env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && *v != '0';
}

/* The kernel set of index @i of tc_cvt_kernel_names, or NULL (reported). */
static const struct tc_cvt_kernels *set_or_skip(int i, int say)
{
	int err = 0;
	const struct tc_cvt_kernels *k = tc_cvt_kernels_get(tc_cvt_kernel_names[i], &err);

	if (!k) {
		ck_assert_int_eq(err, -ENODEV);
		if (say)
			printf("SKIP %s: kernel set not available on this CPU/architecture\n",
			       tc_cvt_kernel_names[i]);
	}
	return k;
}

static int nsets(void)
{
	int n = 0;

	while (tc_cvt_kernel_names[n])
		n++;
	return n;
}

static size_t bytes_for(enum tc_cvt_kind k, size_t n)
{
	return (n * tc_cvt_kind_bits(k) + 7) / 8;
}

/* The raw bits of element @e (for messages). */
static uint32_t elem_bits(enum tc_cvt_kind k, const void *base, size_t e)
{
	unsigned int eb = tc_cvt_kind_bits(k);
	uint32_t u = 0;

	if (eb == 4)
		return tc_cvt_nibble_get(base, (int64_t)e);
	memcpy(&u, (const char *)base + e * (eb / 8), eb / 8);
	return u;
}

/* ---- the reference -------------------------------------------------------- */

#ifdef __FLT16_MAX__
static uint16_t h_bits(_Float16 h)
{
	uint16_t u;

	memcpy(&u, &h, 2);
	return u;
}
#endif

START_TEST(test_ref_f16_compiler)
{
#ifdef __FLT16_MAX__
	uint64_t s = 7;

	for (uint32_t h = 0; h < 0x10000; h++) {
		_Float16 x;
		float want, got = tc_cvt_f16_to_f32((uint16_t)h);

		memcpy(&x, &h, 2);
		want = (float)x;
		if (isnan(want)) {	/* quieted, payload kept */
			CVT_CHECK(isnan(got) && cvt_f2u(got) ==
				      (((h & 0x8000u) << 16) | 0x7fc00000u | ((h & 0x3ffu) << 13)),
				      "f16 %04x -> %08x", h, cvt_f2u(got));
			continue;
		}
		CVT_CHECK(cvt_f2u(got) == cvt_f2u(want), "f16 %04x: %08x, _Float16 %08x",
			      h, cvt_f2u(got), cvt_f2u(want));
	}
	for (uint32_t i = 0; i < (quick() ? 1u << 18 : 1u << 22); i++) {
		uint32_t u = i < 0x10000 ? (i << 16) | (i & 0xffff) : (uint32_t)(cvt_rng(&s) >> 32);
		float f = cvt_u2f(u);

		if (isnan(f))
			continue;
		CVT_CHECK(tc_cvt_f32_to_f16(f) == h_bits((_Float16)f),
			      "f32 %08x: %04x, _Float16 %04x", u, tc_cvt_f32_to_f16(f),
			      h_bits((_Float16)f));
	}
#else
	printf("SKIP /cvt/ref/f16-compiler: this compiler has no _Float16\n");
#endif
}
END_TEST

START_TEST(test_ref_roundtrip)
{
	for (uint32_t h = 0; h < 0x10000; h++) {
		int nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
		uint16_t want = (uint16_t)(nan ? h | 0x200 : h);	/* quieted */
		uint16_t b = (uint16_t)h;

		CVT_CHECK(tc_cvt_f32_to_f16(tc_cvt_f16_to_f32((uint16_t)h)) == want,
			  "f16 %04x round trip", h);
		nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f);
		if (!nan && !(b & 0x7f80) && (b & 0x7f))
			want = b & 0x8000;	/* bf16 denormals flush to zero */
		else
			want = (uint16_t)(nan ? b | 0x40 : b);
		CVT_CHECK(tc_cvt_f32_to_bf16(tc_cvt_bf16_to_f32(b)) == want,
			  "bf16 %04x round trip", b);
	}
}
END_TEST

/* The rules of docs/dtype-conversion.md, spelled out once. */
START_TEST(test_ref_rules)
{
	static const struct { enum tc_cvt_kind k; float x; int32_t want; } ints[] = {
		{ TC_CVT_I8, 0.5f, 0 }, { TC_CVT_I8, 1.5f, 2 }, { TC_CVT_I8, 2.5f, 2 },
		{ TC_CVT_I8, -2.5f, -2 }, { TC_CVT_I8, 127.5f, 127 }, { TC_CVT_I8, -128.5f, -128 },
		{ TC_CVT_I8, NAN, 127 }, { TC_CVT_I8, -NAN, 127 }, { TC_CVT_I8, INFINITY, 127 },
		{ TC_CVT_I8, -INFINITY, -128 }, { TC_CVT_U8, NAN, 0 }, { TC_CVT_U8, -0.5f, 0 },
		{ TC_CVT_U8, 255.5f, 255 }, { TC_CVT_U8, 254.5f, 254 },
		{ TC_CVT_I32, 2147483648.0f, 2147483520 }, { TC_CVT_I32, NAN, 2147483520 },
		{ TC_CVT_I32, -3e9f, INT32_MIN }, { TC_CVT_I4, 7.5f, 7 }, { TC_CVT_I4, -8.5f, -8 },
		{ TC_CVT_I4, 6.5f, 6 }, { TC_CVT_I4, NAN, 7 }, { TC_CVT_U4, 15.5f, 15 },
		{ TC_CVT_U4, NAN, 0 }, { TC_CVT_U4, -1.0f, 0 },
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		ck_assert_msg(tc_cvt_f32_to_int(ints[i].x, ints[i].k) == ints[i].want,
			      "%s(%g) = %d, want %d", tc_cvt_kind_name(ints[i].k), ints[i].x,
			      tc_cvt_f32_to_int(ints[i].x, ints[i].k), ints[i].want);
	/* f16: NaN quieted with the top of its payload, -0 kept, 65520 -> inf */
	ck_assert_uint_eq(tc_cvt_f32_to_f16(cvt_u2f(0x7f800001)), 0x7e00);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(cvt_u2f(0xffa02000)), 0xff01);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(-0.0f), 0x8000);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(65519.99f), 0x7bff);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(65520.0f), 0x7c00);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(0x1p-25f), 0x0000);
	ck_assert_uint_eq(tc_cvt_f32_to_f16(cvt_u2f(0x33000001)), 0x0001);
	/* bf16: denormals to signed zero, NaN truncated and quieted */
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x807fffff)), 0x8000);
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x7f800001)), 0x7fc0);
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x7fc1ffff)), 0x7fc1);
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x3f808000)), 0x3f80);
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x3f818000)), 0x3f82);
	ck_assert_uint_eq(tc_cvt_f32_to_bf16(cvt_u2f(0x7f7fffff)), 0x7f80);
}
END_TEST

/* Element e of a 4-bit tensor is nibble e & 1 of byte e >> 1, low first. */
START_TEST(test_ref_int4_packing)
{
	unsigned char b[3] = { 0xa5, 0x5a, 0xcc };
	static const float i4[] = { 5, -6, -6, 5, -4, -4 };
	static const float u4[] = { 5, 10, 10, 5, 12, 12 };

	for (int e = 0; e < 6; e++) {
		ck_assert(tc_cvt_load(TC_CVT_I4, b, e) == i4[e]);
		ck_assert(tc_cvt_load(TC_CVT_U4, b, e) == u4[e]);
	}
	tc_cvt_store(TC_CVT_I4, b, 1, -1.0f);	/* high nibble of byte 0 */
	ck_assert_uint_eq(b[0], 0xf5);
	tc_cvt_store(TC_CVT_U4, b, 2, 3.0f);	/* low nibble of byte 1 */
	ck_assert_uint_eq(b[1], 0x53);
	ck_assert_uint_eq(b[2], 0xcc);
}
END_TEST

/* ---- f32 sweeps ------------------------------------------------------- */

/*
 * Convert @n f32 values made by @gen(i) to @dk with set @k and with the
 * reference, in blocks; the results must agree.
 */
static void sweep_block(const struct tc_cvt_kernels *k, enum tc_cvt_kind dk,
			const uint32_t *in, size_t n, unsigned char *out,
			unsigned char *ref)
{
	size_t nb = bytes_for(dk, n);
	struct tc_cvt cv, cvr;
	const char *why;

	CVT_CHECK(!tc_cvt_init(&cv, dk, TC_CVT_F32, NULL, k, &why), "init: %s", why);
	CVT_CHECK(!tc_cvt_init(&cvr, dk, TC_CVT_F32, NULL, &tc_cvt_scalar, &why), "init");
	tc_cvt_run(&cv, out, 0, 1, in, 0, 1, n, NULL, 0);
	tc_cvt_ref_run(&cvr, ref, 0, 1, in, 0, 1, n, NULL, 0);
	if (memcmp(out, ref, nb)) {
		size_t i;

		for (i = 0; i < nb && out[i] == ref[i]; i++)
			;
		i = i * 8 / tc_cvt_kind_bits(dk);
		ck_abort_msg("%s f32 -> %s: f32 %08x gives %x, reference %x", k->name,
			     tc_cvt_kind_name(dk), in[i], elem_bits(dk, out, i),
			     elem_bits(dk, ref, i));
	}
}

#define SWEEP_BLOCK 4096

/* @count inputs gen(0), gen(step), gen(2 * step), ... */
static void sweep(const struct tc_cvt_kernels *k, enum tc_cvt_kind dk, uint64_t count,
		  uint32_t (*gen)(uint64_t), uint64_t step)
{
	uint32_t *in = malloc(SWEEP_BLOCK * 4);
	unsigned char *out = malloc(SWEEP_BLOCK * 4), *ref = malloc(SWEEP_BLOCK * 4);

	ck_assert(in && out && ref);
	for (uint64_t i = 0; i < count; i += SWEEP_BLOCK) {
		size_t n = count - i < SWEEP_BLOCK ? (size_t)(count - i) : SWEEP_BLOCK;

		for (size_t j = 0; j < n; j++)
			in[j] = gen((i + j) * step);
		sweep_block(k, dk, in, n, out, ref);
	}
	free(in);
	free(out);
	free(ref);
}

/* Top 21 bits x low-bit patterns: all a rounding to f16/bf16 depends on. */
static uint32_t gen_structured(uint64_t i)
{
	static const uint32_t low[] = { 0x000, 0x001, 0x400, 0x7ff };

	return (uint32_t)(i >> 2) << 11 | low[i & 3];
}

/* Top 19 bits x the f16 round bit and sticky patterns (qemu-user). */
static uint32_t gen_structured_quick(uint64_t i)
{
	static const uint32_t low[] = { 0x0000, 0x0fff, 0x1000, 0x1001 };

	return (uint32_t)(i >> 2) << 13 | low[i & 3];
}

static uint32_t gen_all(uint64_t i)
{
	return (uint32_t)i;
}

/* Did an earlier available set already have this very encoder? */
static int swept_before(int set, enum tc_cvt_kind dk)
{
	const struct tc_cvt_kernels *k = tc_cvt_kernels_get(tc_cvt_kernel_names[set], NULL);

	for (int j = 0; j < set; j++) {
		const struct tc_cvt_kernels *o = tc_cvt_kernels_get(tc_cvt_kernel_names[j], NULL);

		if (o && o != &tc_cvt_scalar && o->encode[dk] == k->encode[dk])
			return 1;
	}
	return 0;
}

START_TEST(test_sweep)
{
	const struct tc_cvt_kernels *k = set_or_skip(_i, 1);

	if (!k || k == &tc_cvt_scalar)
		return;
	for (int d = 0; d < CVT_NKINDS; d++) {
		enum tc_cvt_kind dk = cvt_all_kinds[d];
		/* integers only depend on the value: every 16th pattern will do */
		uint64_t step = tc_cvt_kind_is_float(dk) ? 1 : 16;

		if (dk == TC_CVT_F32 || swept_before(_i, dk))
			continue;
		if (env_on("TC_CVT_EXHAUSTIVE") && step == 1)
			sweep(k, dk, 1ull << 32, gen_all, 1);
		else if (quick())
			sweep(k, dk, (1ull << 21) / step, gen_structured_quick, step);
		else
			sweep(k, dk, (1ull << 23) / step, gen_structured, step);
	}
}
END_TEST

/* ---- runs of every shape ------------------------------------------------- */

struct run_shape {
	size_t n;
	int64_t doff, dstride, soff, sstride;
	unsigned int dmis, smis;	/* bytes the bases are misaligned by */
	ptrdiff_t chan_stride;		/* per-channel: 0, 1 or 2 */
};

static const struct run_shape run_shapes[] = {
	{ 0, 0, 1, 0, 1, 0, 0, 1 },
	{ 1, 0, 1, 0, 1, 1, 3, 0 },
	{ 1, 1, 1, 1, 1, 0, 0, 1 },	/* odd nibble on both sides */
	{ 2, 1, 1, 0, 1, 2, 1, 1 },
	{ 3, 0, 1, 3, 1, 0, 2, 1 },
	{ 7, 1, 1, 1, 1, 3, 3, 0 },
	{ 15, 0, 1, 0, 1, 1, 0, 1 },
	{ 16, 0, 1, 0, 1, 0, 0, 1 },
	{ 17, 1, 1, 0, 1, 2, 2, 1 },
	{ 31, 0, 1, 1, 1, 0, 1, 1 },
	{ 33, 3, 1, 5, 1, 1, 1, 1 },
	{ 64, 0, 1, 0, 1, 0, 0, 1 },
	{ 65, 1, 1, 1, 1, 3, 2, 2 },	/* every other scale */
	{ 255, 0, 1, 0, 1, 0, 0, 1 },
	{ 257, 1, 1, 0, 1, 1, 3, 1 },	/* chunk boundary */
	{ 600, 0, 1, 1, 1, 2, 0, 1 },
	{ 37, 0, 2, 0, 1, 1, 0, 1 },	/* strided destination */
	{ 37, 1, 3, 0, 1, 0, 0, 0 },
	{ 37, 0, 1, 1, 2, 0, 1, 1 },	/* strided source */
	{ 300, 1, 2, 0, 3, 3, 1, 1 },
	{ 40, 0, 1, 5, 0, 0, 0, 1 },	/* broadcast source */
	{ 41, 0, 1, 40, -1, 0, 2, 1 },	/* backwards source */
	{ 41, 81, -2, 0, 1, 1, 0, 1 },	/* backwards destination */
};
#define NSHAPES ((int)(sizeof(run_shapes) / sizeof(run_shapes[0])))

/* Quantizations for runs: a subset of cvt_qcfgs and a per-channel one. */
static const int run_qcfgs[] = { 0, 1, 3, 4, 6, 9, 11, 12 };
#define NRUNQ ((int)(sizeof(run_qcfgs) / sizeof(run_qcfgs[0])))

/* Highest element index a side touches, + 1. */
static size_t run_span(size_t n, int64_t off, int64_t stride)
{
	int64_t last = off + (int64_t)(n ? n - 1 : 0) * stride;

	return (size_t)((off > last ? off : last) + 1);
}

/* The source: the kind's special values, cycled from @phase. */
static void fill_src(unsigned char *p, enum tc_cvt_kind k, size_t span,
		     const struct cvt_vals *vals, size_t phase)
{
	unsigned int eb = tc_cvt_kind_bits(k);

	for (size_t e = 0; e < span; e++) {
		size_t j = (e + phase) % vals->n;

		if (eb == 4)
			tc_cvt_nibble_set(p, (int64_t)e, tc_cvt_nibble_get(vals->p, (int64_t)j));
		else
			memcpy(p + e * (eb / 8), vals->p + j * (eb / 8), eb / 8);
	}
}

static struct cvt_vals run_vals[TC_CVT_NKINDS];

/* Every nibble or byte of @buf outside the run's elements is @noise's. */
static void check_outside(const unsigned char *buf, const unsigned char *noise,
			  size_t bytes, enum tc_cvt_kind k, const struct run_shape *sh,
			  const char *who)
{
	unsigned int eb = tc_cvt_kind_bits(k);
	size_t units = eb == 4 ? bytes * 2 : bytes;	/* nibbles or bytes */
	unsigned char *hit = calloc(units, 1);

	CVT_CHECK(hit, "out of memory");
	for (size_t i = 0; i < sh->n; i++) {
		int64_t e = sh->doff + (int64_t)i * sh->dstride;

		if (eb == 4)
			hit[e] = 1;
		else
			memset(hit + e * (eb / 8), 1, eb / 8);
	}
	for (size_t u = 0; u < units; u++) {
		unsigned int got, want;

		if (hit[u])
			continue;
		got = eb == 4 ? tc_cvt_nibble_get(buf, (int64_t)u) : buf[u];
		want = eb == 4 ? tc_cvt_nibble_get(noise, (int64_t)u) : noise[u];
		CVT_CHECK(got == want, "%s wrote %s %zu outside the run (%x, was %x)",
			      who, eb == 4 ? "nibble" : "byte", u, got, want);
	}
	free(hit);
}

/* Guard bytes of noise before and after every destination. */
#define GUARD 16

static void run_case(const struct tc_cvt_kernels *k, enum tc_cvt_kind dk,
		     enum tc_cvt_kind sk, const struct cvt_qcfg *cfg,
		     const struct run_shape *sh, size_t phase)
{
	size_t dspan = run_span(sh->n, sh->doff, sh->dstride);
	size_t sspan = run_span(sh->n, sh->soff, sh->sstride);
	size_t dbytes = bytes_for(dk, dspan), sbytes = bytes_for(sk, sspan) + 8;
	size_t total = dbytes + 2 * GUARD, at = GUARD + sh->dmis;
	unsigned char *sbuf = malloc(sbytes), *noise = malloc(total);
	unsigned char *ref = malloc(total), *out = malloc(total);
	float chan[2 * 600 + 2];
	struct tc_cvt_quant q = { 0 };
	struct tc_cvt cv, cvr;
	const char *why = NULL;
	const float *scale = NULL;
	char who[160];

	CVT_CHECK(sbuf && noise && ref && out, "out of memory");
	cvt_fill_noise(sbuf, sbytes, 0x51 + phase);
	fill_src(sbuf + sh->smis, sk, sspan, &run_vals[sk], phase);
	cvt_fill_noise(noise, total, 0xa5a5 + sspan + phase);
	memcpy(ref, noise, total);
	memcpy(out, noise, total);

	if (cfg->per_channel) {
		for (size_t c = 0; c < sizeof(chan) / sizeof(chan[0]); c++)
			chan[c] = cvt_chan_scale(c + phase);
		q.scales = chan;
		q.nscales = sizeof(chan) / sizeof(chan[0]);
		scale = chan + 1;
	} else {
		q.scales = &cfg->scale;
		q.nscales = 1;
	}
	q.src_zp = cfg->src_zp;
	q.dst_zp = cfg->dst_zp;
	CVT_CHECK(!tc_cvt_init(&cv, dk, sk, &q, k, &why), "init: %s", why);
	CVT_CHECK(!tc_cvt_init(&cvr, dk, sk, &q, &tc_cvt_scalar, &why), "init: %s", why);
	tc_cvt_ref_run(&cvr, ref + at, sh->doff, sh->dstride, sbuf + sh->smis,
		       sh->soff, sh->sstride, sh->n, scale, sh->chan_stride);
	tc_cvt_run(&cv, out + at, sh->doff, sh->dstride, sbuf + sh->smis,
		   sh->soff, sh->sstride, sh->n, scale, sh->chan_stride);

	snprintf(who, sizeof(who), "%s %s -> %s %s n=%zu doff=%lld*%lld soff=%lld*%lld mis=%u/%u",
		 k->name, tc_cvt_kind_name(sk), tc_cvt_kind_name(dk), cfg->name, sh->n,
		 (long long)sh->doff, (long long)sh->dstride, (long long)sh->soff,
		 (long long)sh->sstride, sh->dmis, sh->smis);
	CVT_CHECK(!memcmp(out, noise, at) && !memcmp(out + at + dbytes, noise + at + dbytes,
							total - at - dbytes),
		      "%s wrote outside the destination buffer", who);
	check_outside(ref + at, noise + at, dbytes, dk, sh, "the reference");
	check_outside(out + at, noise + at, dbytes, dk, sh, who);
	if (memcmp(out, ref, total)) {
		size_t e;

		for (e = 0; e < sh->n; e++) {
			size_t de = (size_t)(sh->doff + (int64_t)e * sh->dstride);

			if (elem_bits(dk, out + at, de) != elem_bits(dk, ref + at, de))
				break;
		}
		ck_abort_msg("%s: element %zu (src %x) is %x, reference %x", who, e,
			     elem_bits(sk, sbuf + sh->smis,
				       (size_t)(sh->soff + (int64_t)e * sh->sstride)),
			     elem_bits(dk, out + at, (size_t)(sh->doff + (int64_t)e * sh->dstride)),
			     elem_bits(dk, ref + at, (size_t)(sh->doff + (int64_t)e * sh->dstride)));
	}
	free(sbuf);
	free(noise);
	free(ref);
	free(out);
}

START_TEST(test_runs)
{
	const struct tc_cvt_kernels *k = set_or_skip(_i, 1);

	if (!k)
		return;
	for (int s = 0; s < CVT_NKINDS; s++)
		for (int d = 0; d < CVT_NKINDS; d++)
			for (int q = 0; q < NRUNQ; q++)
				for (int h = 0; h < NSHAPES; h++)
					run_case(k, cvt_all_kinds[d], cvt_all_kinds[s],
						 &cvt_qcfgs[run_qcfgs[q]], &run_shapes[h],
						 (size_t)(h * 7 + q));
}
END_TEST

/* Long runs: every special value in every lane position (two phases). */
START_TEST(test_bulk)
{
	const struct tc_cvt_kernels *k = set_or_skip(_i, 0);
	struct run_shape sh = { 0, 0, 1, 0, 1, 0, 0, 0 };

	if (!k)
		return;
	for (int s = 0; s < CVT_NKINDS; s++) {
		sh.n = run_vals[cvt_all_kinds[s]].n + 13;
		if (quick() && sh.n > 4096)
			sh.n = 4096;
		for (int d = 0; d < CVT_NKINDS; d++)
			for (int q = 0; q < 3; q++) {
				run_case(k, cvt_all_kinds[d], cvt_all_kinds[s], &cvt_qcfgs[q], &sh, 0);
				run_case(k, cvt_all_kinds[d], cvt_all_kinds[s], &cvt_qcfgs[q], &sh, 5);
			}
	}
}
END_TEST

/* In place (same elements, kinds of one size) = out of place. */
START_TEST(test_inplace)
{
	static const enum tc_cvt_kind pairs[][2] = {
		{ TC_CVT_I32, TC_CVT_F32 }, { TC_CVT_F32, TC_CVT_I32 }, { TC_CVT_F32, TC_CVT_F32 },
		{ TC_CVT_BF16, TC_CVT_F16 }, { TC_CVT_F16, TC_CVT_BF16 }, { TC_CVT_I8, TC_CVT_U8 },
		{ TC_CVT_U4, TC_CVT_I4 },
	};
	const struct tc_cvt_kernels *k = set_or_skip(_i, 0);
	const float scale = 0.37f;
	struct tc_cvt_quant q = { &scale, 1, 1, -2 };
	enum { N = 301 };

	if (!k)
		return;
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		enum tc_cvt_kind dk = pairs[p][0], sk = pairs[p][1];
		size_t bytes = bytes_for(sk, N + 1);
		unsigned char *a = malloc(bytes), *b = malloc(bytes);
		struct tc_cvt cv;
		const char *why;

		ck_assert(a && b);
		cvt_fill_noise(a, bytes, 9);
		fill_src(a, sk, N, &run_vals[sk], p);
		memcpy(b, a, bytes);
		ck_assert(!tc_cvt_init(&cv, dk, sk, &q, k, &why));
		tc_cvt_ref_run(&cv, b, 1, 1, a, 1, 1, N - 1, NULL, 0);
		tc_cvt_run(&cv, a, 1, 1, a, 1, 1, N - 1, NULL, 0);
		ck_assert_msg(!memcmp(a, b, bytes), "%s in place %s -> %s", k->name,
			      tc_cvt_kind_name(sk), tc_cvt_kind_name(dk));
		free(a);
		free(b);
	}
}
END_TEST

/* ---- bad parameters ------------------------------------------------------ */

START_TEST(test_init_refuses)
{
	struct tc_cvt cv;
	const char *why = NULL;
	float bad[3] = { 1.0f, NAN, 2.0f };
	float inf = INFINITY;
	struct tc_cvt_quant q = { bad, 3, 0, 0 };
	int err;

	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_NKINDS, TC_CVT_F32, NULL, NULL, &why), -EINVAL);
	ck_assert_str_eq(why, "dst_kind: unknown element kind");
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_F32, (enum tc_cvt_kind)-1, NULL, NULL, &why),
			 -EINVAL);
	ck_assert_str_eq(why, "src_kind: unknown element kind");
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_I8, TC_CVT_F32, &q, NULL, &why), -EINVAL);
	ck_assert(strstr(why, "scales:"));
	q.scales = &inf;
	q.nscales = 1;
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_I8, TC_CVT_F32, &q, NULL, &why), -EINVAL);
	q.scales = NULL;
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_I8, TC_CVT_F32, &q, NULL, &why), -EINVAL);
	ck_assert_str_eq(why, "scales: NULL with nscales > 0");
	q.scales = bad;
	q.nscales = 0;
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_I8, TC_CVT_F32, &q, NULL, NULL), -EINVAL);
	/* all-ones scales and zero zero points are no quantization: a copy */
	bad[1] = 1.0f;
	bad[2] = 1.0f;
	q.nscales = 3;
	ck_assert_int_eq(tc_cvt_init(&cv, TC_CVT_F16, TC_CVT_F16, &q, NULL, &why), 0);
	ck_assert(cv.copy && !cv.affine.ops);

	ck_assert_ptr_null(tc_cvt_kernels_get("sse9", &err));
	ck_assert_int_eq(err, -EINVAL);
#if defined(__x86_64__)
	ck_assert_ptr_null(tc_cvt_kernels_get("neon", &err));
#else
	ck_assert_ptr_null(tc_cvt_kernels_get("avx2", &err));
#endif
	ck_assert_int_eq(err, -ENODEV);
	ck_assert_ptr_eq(tc_cvt_kernels_get("scalar", &err), &tc_cvt_scalar);
}
END_TEST

/* At least one SIMD set must have been testable where there are some. */
START_TEST(test_some_simd)
{
#if defined(__x86_64__) || defined(__aarch64__)
	const struct tc_cvt_kernels *best = tc_cvt_kernels_get(NULL, NULL);

	ck_assert_ptr_nonnull(best);
	ck_assert_msg(best != &tc_cvt_scalar, "no SIMD kernel set runs on this CPU");
	printf("cvt: default kernel set %s\n", best->name);
#endif
}
END_TEST

static Suite *cvt_suite(void)
{
	Suite *s = suite_create("cvt");
	int n = nsets();

#define ADD(path, fn, loop) do {					\
		TCase *tc = tcase_create(path);				\
		tcase_set_timeout(tc, 600);				\
		if (loop)						\
			tcase_add_loop_test(tc, fn, 0, n);		\
		else							\
			tcase_add_test(tc, fn);				\
		suite_add_tcase(s, tc);					\
	} while (0)

	ADD("/cvt/ref/f16-compiler", test_ref_f16_compiler, 0);
	ADD("/cvt/ref/roundtrip", test_ref_roundtrip, 0);
	ADD("/cvt/ref/rules", test_ref_rules, 0);
	ADD("/cvt/ref/int4-packing", test_ref_int4_packing, 0);
	ADD("/cvt/init/refuses", test_init_refuses, 0);
	ADD("/cvt/sweep", test_sweep, 1);
	ADD("/cvt/runs", test_runs, 1);
	ADD("/cvt/bulk", test_bulk, 1);
	ADD("/cvt/bulk/in-place", test_inplace, 1);
	ADD("/cvt/some-simd", test_some_simd, 0);
#undef ADD
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	for (int k = 0; k < CVT_NKINDS; k++)
		cvt_gen(&run_vals[cvt_all_kinds[k]], cvt_all_kinds[k], 512, 0);
	sr = srunner_create(cvt_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	for (int k = 0; k < CVT_NKINDS; k++)
		cvt_vals_free(&run_vals[cvt_all_kinds[k]]);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
