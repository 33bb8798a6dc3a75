// SPDX-License-Identifier: MIT
/*
 * fuzz_plan.c - libFuzzer target: the planner and the CPU executors.
 *
 * The input picks a small shape (1..5 dims), a dtype and two formats: named
 * formats for that rank (with random blocks for fractals and NC1HWC0),
 * "strided:" with random permutations, gaps and broadcast, or a random CuTe
 * layout (each mode split into one or two leaves, padded, permuted, with
 * gaps). For each pair that tilecopy_plan_create accepts:
 *  - the plan runs on exactly-sized buffers with the scalar executor;
 *  - the result is compared with a brute-force reference: every logical
 *    element copied through crd2idx of both layouts, every other byte of
 *    the destination zero (padding is written with zeros);
 *  - every SIMD executor this CPU has gives the same bytes as scalar;
 *  - buffers one byte too small are refused.
 * A refused pair must come with a message. Any mismatch aborts.
 *
 * Element types include i4 and u4; a byte after the formats may ask for a
 * dtype-converting plan (tilecopy_plan_create_v2: another destination type,
 * a scale per tensor or per channel along one dim, zero points), whose
 * reference converts each element with tc_cvt_ref_run. The corpus of
 * plain plans reads as before (that byte is 0 past the end of an input).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilecopy/tilecopy.h"
#include "tilecopy_accel.h"
#include "fuzz_common.h"
/* White-box: the value-level API under the handles (libuser/internal.h). */
#include "internal.h"
#include "plan_internal.h"
#include "cpu/cvt.h"

#define FZ_MAX_ELEMS	4096
#define FZ_MAX_BYTES	(1u << 20)

static const char *const fz_names4[] = {
	"NCHW", "NHWC", "CHWN", "HWCN", "NCHW4", "NCHW8", "NCHW16", "nChw8c",
	"nChw16c", "NC1HWC0", "CHWN4", "RowMajor", "ColumnMajor", "WHCN", "NWCH",
	/* the tag grammar: weights, a dim split twice, odd blocks */
	"OIhw16i16o", "OIhw4i16o4i", "ABcd4b16a4b", "Acdb48a", "hwio", "aBcd3b",
	"ABcd2a3b2a",
};
static const char *const fz_names5[] = {
	"NCDHW", "NDHWC", "NCDHW16", "nCdhw16c", "nCdhw8c", "RowMajor", "ColumnMajor",
	"CDHWN", "gOIhw16i16o", "gOIhw4o4i", "Acdeb16a", "aBCde2c3b2c",
};
static const char *const fz_names3[] = {
	"NCW", "NWC", "nCw8c", "RowMajor", "ColumnMajor", "ABc4a8b8a4b", "Acb3a",
	"BAc2b3a2b",
};
static const char *const fz_names_mat[] = {
	"RowMajor", "ColumnMajor", "ND", "zN", "zZ", "nZ", "nN", "*BA3a5b", "*AB16b16a",
	"*Ab2a",
};

struct fz_fmt {
	char text[512];
	char block[32];
	int has_block;
};

/* "strided:..." a random permutation of packed strides, gaps, broadcast. */
static void fz_strided(struct fz_in *in, const int64_t *shape, int rank, int is_src,
		       struct fz_fmt *f)
{
	int perm[TILECOPY_MAX_RANK];
	int64_t st[TILECOPY_MAX_RANK], s = 1;
	unsigned mode = fz_u8(in);
	size_t n;

	for (int i = 0; i < rank; i++)
		perm[i] = i;
	for (int i = rank - 1; i > 0; i--) {
		int j = fz_u8(in) % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < rank; i++) {
		int d = perm[i];

		st[d] = s;
		s *= shape[d] + (mode & 1 ? fz_range(in, 0, 2) : 0);
	}
	if (mode & 2)		/* fully random strides (may overlap) */
		for (int i = 0; i < rank; i++)
			st[i] = fz_range(in, 0, 40);
	if (is_src && (mode & 4))	/* broadcast a dimension */
		st[fz_u8(in) % rank] = 0;
	n = (size_t)snprintf(f->text, sizeof(f->text), "strided:");
	for (int i = 0; i < rank; i++)
		n += (size_t)snprintf(f->text + n, sizeof(f->text) - n, "%s%lld",
				      i ? "," : "", (long long)st[i]);
}

/* A CuTe layout: each mode 1 or 2 leaves (padded), permuted strides, gaps. */
static void fz_cute(struct fz_in *in, const int64_t *shape, int rank, struct fz_fmt *f)
{
	int64_t lshape[2 * TILECOPY_MAX_RANK], lstride[2 * TILECOPY_MAX_RANK];
	int nl[TILECOPY_MAX_RANK], perm[2 * TILECOPY_MAX_RANK], n = 0;
	unsigned mode = fz_u8(in);
	int64_t s = 1;
	size_t w = 0;

	for (int m = 0; m < rank; m++) {
		unsigned b = fz_u8(in);
		int64_t e = shape[m] + (b & 0x80 ? (b >> 5) & 3 : 0);	/* pad */

		if ((b & 1) && e > 1) {
			int64_t a = 1 + (int64_t)((b >> 1) & 7) % e;

			lshape[n++] = a;
			lshape[n++] = (e + a - 1) / a;
			nl[m] = 2;
		} else {
			lshape[n++] = e;
			nl[m] = 1;
		}
	}
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = fz_u8(in) % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (int i = 0; i < n; i++) {
		lstride[perm[i]] = s;
		s *= lshape[perm[i]] + (mode & 1 ? fz_range(in, 0, 1) : 0);
	}
	if (mode & 2)
		lstride[fz_u8(in) % n] = fz_range(in, 0, 30);
	for (int pass = 0; pass < 2; pass++) {
		const int64_t *v = pass ? lstride : lshape;
		int k = 0;

		w += (size_t)snprintf(f->text + w, sizeof(f->text) - w, "%s(", pass ? ":" : "");
		for (int m = 0; m < rank; m++) {
			w += (size_t)snprintf(f->text + w, sizeof(f->text) - w, "%s", m ? "," : "");
			if (nl[m] == 2)
				w += (size_t)snprintf(f->text + w, sizeof(f->text) - w, "(%lld,%lld)",
						      (long long)v[k], (long long)v[k + 1]);
			else
				w += (size_t)snprintf(f->text + w, sizeof(f->text) - w, "%lld",
						      (long long)v[k]);
			k += nl[m];
		}
		w += (size_t)snprintf(f->text + w, sizeof(f->text) - w, ")");
	}
}

static void fz_format(struct fz_in *in, int kind, const int64_t *shape, int rank,
		      int is_src, struct fz_fmt *f)
{
	unsigned b = fz_u8(in);
	const char *const *names;
	size_t nnames;

	memset(f, 0, sizeof(*f));
	switch (b % 8) {
	case 0:
		fz_strided(in, shape, rank, is_src, f);
		return;
	case 1:
		fz_cute(in, shape, rank, f);
		return;
	default:
		break;
	}
	switch (kind) {
	case 0: names = fz_names4; nnames = TC_N(fz_names4); break;
	case 1: names = fz_names5; nnames = TC_N(fz_names5); break;
	case 2: names = fz_names_mat; nnames = TC_N(fz_names_mat); break;
	default: names = fz_names3; nnames = TC_N(fz_names3); break;
	}
	snprintf(f->text, sizeof(f->text), "%s", names[fz_u8(in) % nnames]);
	unsigned blk = fz_u8(in);

	if (blk & 1) {
		f->has_block = 1;
		if (f->text[0] == 'z' || f->text[0] == 'n')
			snprintf(f->block, sizeof(f->block), "%dx%d", 1 + (blk >> 1) % 8,
				 1 + (blk >> 4) % 8);
		else
			snprintf(f->block, sizeof(f->block), "%d", 1 + (blk >> 1) % 16);
	}
}

static void fz_fill(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

/* A conversion asked for by the input, or none (on == 0). */
struct fz_conv {
	int on;
	tilecopy_convert_params_t pr;
	float scales[16];
	struct tc_cvt cv;
};

static const tilecopy_dtype_t fz_cvt_types[] = {
	TILECOPY_DT_F32, TILECOPY_DT_F16, TILECOPY_DT_BF16, TILECOPY_DT_I8,
	TILECOPY_DT_U8, TILECOPY_DT_I32, TILECOPY_DT_I4, TILECOPY_DT_U4,
};

/* tc_cvt_kind of a convertible dtype (the table's order is the kinds'). */
static enum tc_cvt_kind fz_kind(tilecopy_dtype_t dt)
{
	for (size_t i = 0; i < TC_N(fz_cvt_types); i++)
		if (fz_cvt_types[i] == dt)
			return (enum tc_cvt_kind)i;
	return TC_CVT_F32;
}

/*
 * Byte @b: bit 0 a conversion; bits 1-3 the destination type; bits 4-5
 * none, a scale, scales along dim (b >> 6) % rank, zero points.
 */
static void fz_conv_pick(struct fz_conv *c, unsigned b, tilecopy_dtype_t *sdt,
			 tilecopy_dtype_t *ddt, const int64_t *shape, int rank)
{
	int q = (b >> 4) & 3, dim = (int)(b >> 6) % rank;

	memset(c, 0, sizeof(*c));
	if (!(b & 1))
		return;
	c->on = 1;
	if (fz_kind(*sdt) == TC_CVT_F32 && *sdt != TILECOPY_DT_F32)
		*sdt = TILECOPY_DT_F32;		/* f64, i64, i16 have no conversion */
	*ddt = fz_cvt_types[(b >> 1) & 7];
	tilecopy_convert_params_init(&c->pr);
	for (int i = 0; i < 16; i++)
		c->scales[i] = i % 3 ? 0.37f * (float)(i + 1) : -1.5f;
	if (q == 1) {
		c->pr.scales = &c->scales[1];
		c->pr.nscales = 1;
	} else if (q == 2 && shape[dim] <= 16) {
		c->pr.scales = c->scales;
		c->pr.nscales = (size_t)shape[dim];
		c->pr.scale_dim = dim;
	} else if (q == 3) {
		c->pr.src_zero_point = 3;
		c->pr.dst_zero_point = -2;
	}
}

/* Element @e of a side of @bits bits, as raw bits (a nibble, a byte, ...). */
static uint64_t fz_elem(const uint8_t *p, int64_t e, unsigned bits)
{
	uint64_t v = 0;

	if (bits == 4)
		return (p[e >> 1] >> (4 * (e & 1))) & 0xf;
	memcpy(&v, p + e * (bits / 8), bits / 8);
	return v;
}

static void fz_elem_set(uint8_t *p, int64_t e, unsigned bits, uint64_t v)
{
	if (bits == 4)
		p[e >> 1] = (uint8_t)((p[e >> 1] & (e & 1 ? 0x0f : 0xf0)) |
				      (v & 0xf) << (4 * (e & 1)));
	else
		memcpy(p + e * (bits / 8), &v, bits / 8);
}

/* The reference: every logical element through crd2idx, converted or copied. */
static void fz_reference(const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
			 const int64_t *shape, int rank, const struct fz_conv *c,
			 const uint8_t *s, uint64_t sb, uint8_t *ref, uint64_t db)
{
	unsigned sbits = tc_dtype_bits(src->dtype), dbits = tc_dtype_bits(dst->dtype);
	int64_t n = 1;

	for (int m = 0; m < rank; m++)
		n *= shape[m];
	for (int64_t i = 0; i < n; i++) {
		int64_t crd[TILECOPY_MAX_RANK], r = i, si, di;
		int d = c->pr.scale_dim;

		for (int m = 0; m < rank; m++) {
			crd[m] = r % shape[m];
			r /= shape[m];
		}
		FZ_CHECK(!tc_layout_crd2idx(&src->layout, crd, &si), "src crd2idx");
		FZ_CHECK(!tc_layout_crd2idx(&dst->layout, crd, &di), "dst crd2idx");
		FZ_CHECK((uint64_t)(si + 1) * sbits <= sb * 8 && (uint64_t)(di + 1) * dbits <= db * 8,
			 "element outside the plan's buffers");
		if (c->on)
			tc_cvt_ref_run(&c->cv, ref, di, 1, s, si, 1, 1,
				       &c->scales[c->pr.nscales > 1 ? crd[d] : 0], 0);
		else
			fz_elem_set(ref, di, dbits, fz_elem(s, si, sbits));
	}
}

/*
 * The high nibble of a 4-bit destination's last byte when its cosize is
 * odd: outside the tensor, never written. Its bits in that byte, or 0.
 */
static uint8_t fz_unwritten(const tilecopy_tensor_t *dst)
{
	return tc_dtype_bits(dst->dtype) == 4 && (tc_layout_cosize(&dst->layout) & 1) ? 0xf0 : 0;
}

static void fz_run(const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
		   const int64_t *shape, int rank, uint32_t seed, struct fz_conv *c)
{
	tilecopy_plan_t *plan;
	tilecopy_status_t st;

	if (c->on) {
		struct tc_cvt_quant q = {
			c->pr.scales, c->pr.nscales, c->pr.src_zero_point, c->pr.dst_zero_point,
		};

		st = tc_plan_create_v2(&plan, src, dst, &c->pr, 0);
		FZ_CHECK(st || !tc_cvt_init(&c->cv, fz_kind(dst->dtype), fz_kind(src->dtype), &q,
					    &tc_cvt_scalar, NULL), "tc_cvt_init");
	} else {
		st = tc_plan_create(&plan, src, dst, 0);
	}
	if (st) {
		FZ_CHECK(tilecopy_last_error()[0], "plan %s -> %s refused without a message",
			 src->format, dst->format);
		return;
	}
	uint64_t sb = plan->src_bytes, db = plan->dst_bytes;
	uint64_t tsb, tdb;

	FZ_CHECK(!tc_tensor_bytes(src, &tsb) && tsb == sb, "src bytes");
	FZ_CHECK(!tc_tensor_bytes(dst, &tdb) && tdb == db, "dst bytes");
	if (sb > FZ_MAX_BYTES || db > FZ_MAX_BYTES || !db) {
		tilecopy_plan_destroy(plan);
		return;
	}
	size_t nd = plan->n;
	const struct drm_tilecopy_desc *d = plan->descs;
	char line[512];

	for (size_t i = 0; i < nd && i < 64; i++)
		FZ_CHECK(!tilecopy_desc_format(&d[i], line, sizeof(line)), "desc_format");

	uint8_t *s = malloc(sb ? sb : 1), *out = malloc(db), *ref = malloc(db), *alt = malloc(db);
	uint8_t outside = fz_unwritten(dst);

	FZ_CHECK(s && out && ref && alt, "malloc");
	fz_fill(s, sb, seed);
	memset(out, 0xa5, db);
	st = tilecopy_plan_execute_cpu(plan, s, sb, out, db, "scalar");
	FZ_CHECK(st == TILECOPY_SUCCESS, "scalar %s -> %s: %s", src->format, dst->format,
		 tilecopy_last_error());

	/* Reference: zeros (the bits outside the tensor as they were), then the elements. */
	memset(ref, 0, db);
	ref[db - 1] |= 0xa5 & outside;
	fz_reference(src, dst, shape, rank, c, s, sb, ref, db);
	for (uint64_t i = 0; i < db; i++)
		FZ_CHECK(out[i] == ref[i],
			 "%s -> %s (%s -> %s, shape[0] %lld, rank %d): byte %llu is 0x%02x, reference 0x%02x",
			 src->format, dst->format, tc_dtype_name(src->dtype),
			 tc_dtype_name(dst->dtype), (long long)shape[0], rank,
			 (unsigned long long)i, out[i], ref[i]);

	static const char *const simd[] = { "sse2", "avx2", "avx512", "neon" };

	for (size_t k = 0; k < TC_N(simd); k++) {
		const char *name;

		if (tilecopy_cpu_name(simd[k], &name))
			continue;
		memset(alt, 0x5a, db);
		st = tilecopy_plan_execute_cpu(plan, s, sb, alt, db, simd[k]);
		FZ_CHECK(st == TILECOPY_SUCCESS, "%s: %s", simd[k], tilecopy_last_error());
		FZ_CHECK((alt[db - 1] & outside) == (0x5a & outside), "%s wrote outside", simd[k]);
		alt[db - 1] = (uint8_t)((alt[db - 1] & ~outside) | (out[db - 1] & outside));
		FZ_CHECK(!memcmp(alt, out, db), "%s differs from scalar: %s -> %s", simd[k],
			 src->format, dst->format);
	}
	/* In place (src == dst): the result of disjoint buffers. */
	{
		uint64_t big = sb > db ? sb : db;
		uint8_t *io = malloc(big);

		FZ_CHECK(io, "malloc");
		memcpy(io, s, sb);
		st = tilecopy_plan_execute_cpu(plan, io, big, io, big, "scalar");
		FZ_CHECK(st == TILECOPY_SUCCESS, "in place: %s", tilecopy_last_error());
		/* bytes the plan does not write keep the source's there */
		if (outside)	/* that nibble keeps the source's byte's */
			io[db - 1] = (uint8_t)((io[db - 1] & ~outside) | (out[db - 1] & outside));
		for (uint64_t i = 0; i < db; i++)
			FZ_CHECK(io[i] == out[i] || (out[i] == 0xa5 && i < sb && io[i] == s[i]),
				 "in place %s -> %s: byte %llu is 0x%02x, out of place 0x%02x",
				 src->format, dst->format, (unsigned long long)i, io[i], out[i]);
		free(io);
	}
	/* Short buffers are refused before anything is written. */
	memset(alt, 0x77, db);
	FZ_CHECK(tilecopy_plan_execute_cpu(plan, s, sb, alt, db - 1, "scalar") ==
		 TILECOPY_ERR_BUFFER_TOO_SMALL, "short dst accepted");
	if (sb)
		FZ_CHECK(tilecopy_plan_execute_cpu(plan, s, sb - 1, alt, db, "scalar") ==
			 TILECOPY_ERR_BUFFER_TOO_SMALL, "short src accepted");
	for (uint64_t i = 0; i < db; i++)
		FZ_CHECK(alt[i] == 0x77, "refused execution wrote byte %llu",
			 (unsigned long long)i);
	free(s);
	free(out);
	free(ref);
	free(alt);
	tilecopy_plan_destroy(plan);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	int64_t shape[TILECOPY_MAX_RANK];
	int rank, kind = fz_u8(&in) % 4;
	tilecopy_dtype_t dt = (tilecopy_dtype_t)(fz_u8(&in) % 11), dt2;
	struct fz_fmt fs, fd;
	struct fz_conv conv;
	tilecopy_tensor_t src, dst;
	int64_t n = 1;

	if (size > 512)
		return 0;
	switch (kind) {
	case 0: rank = 4; break;
	case 1: rank = 5; break;
	case 2: rank = fz_range(&in, 2, 4); break;
	default: rank = fz_range(&in, 1, 3); break;
	}
	for (int m = 0; m < rank; m++) {
		unsigned b = fz_u8(&in);

		/* Matrices: rows/cols up to 40 so fractal edges get cut. */
		shape[m] = kind == 2 && m >= rank - 2 ? 1 + b % 40 : 1 + b % 9;
		n *= shape[m];
	}
	if (n > FZ_MAX_ELEMS)
		return 0;
	uint32_t seed = fz_u32(&in);

	fz_format(&in, kind, shape, rank, 1, &fs);
	fz_format(&in, kind, shape, rank, 0, &fd);
	dt2 = dt;
	fz_conv_pick(&conv, fz_u8(&in), &dt, &dt2, shape, rank);
	if (tc_tensor_make(&src, fs.text, shape, rank, dt, fs.has_block ? fs.block : NULL))
		return 0;
	if (tc_tensor_make(&dst, fd.text, shape, rank, dt2, fd.has_block ? fd.block : NULL))
		return 0;
	fz_run(&src, &dst, shape, rank, seed, &conv);
	return 0;
}
