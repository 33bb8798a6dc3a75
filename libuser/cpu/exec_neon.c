// SPDX-License-Identifier: MIT
/*
 * exec_neon.c - AArch64 Advanced SIMD executor: 64-byte copies and fills,
 * in-register transposes of 16x16 bytes, 8x8 16-bit, 4x4 32-bit and 2x2
 * 64-bit tiles (ZIP1/ZIP2 rounds). AArch64 has no useful non-temporal
 * store for this (STNP is only a hint), so @nt is ignored. Shape analysis
 * is in pattern.c.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <arm_neon.h>
#include <string.h>
#include <sys/auxv.h>

#include "cpu/exec_isa.h"
#include "cpu/pattern.h"

#ifndef HWCAP_ASIMD
#define HWCAP_ASIMD (1 << 1)
#endif

#define LD1(p, step)	vld1q_u8((const uint8_t *)(p))
#define ST1(p, v)	vst1q_u8((uint8_t *)(p), (v))
#define LDV1(p)		LD1((p), 0)

#define NEON_ZIP(w, half)						\
static inline uint8x16_t neon_zip##half##_##w(uint8x16_t a, uint8x16_t b) \
{									\
	return vreinterpretq_u8_u##w(vzip##half##q_u##w(vreinterpretq_u##w##_u8(a), \
						     vreinterpretq_u##w##_u8(b))); \
}
NEON_ZIP(16, 1)
NEON_ZIP(16, 2)
NEON_ZIP(32, 1)
NEON_ZIP(32, 2)
NEON_ZIP(64, 1)
NEON_ZIP(64, 2)

TC_DEFINE_TILE(neon_tile1, uint8x16_t, 16, LD1, ST1, vzip1q_u8, vzip2q_u8)
TC_DEFINE_TILE(neon_tile2, uint8x16_t, 8, LD1, ST1, neon_zip1_16, neon_zip2_16)
TC_DEFINE_TILE(neon_tile4, uint8x16_t, 4, LD1, ST1, neon_zip1_32, neon_zip2_32)
TC_DEFINE_TILE(neon_tile8, uint8x16_t, 2, LD1, ST1, neon_zip1_64, neon_zip2_64)

#define NEON_TR(es, n)							\
static void neon_tr##es(char *dst, size_t dld, const char *src,	\
			size_t sld, size_t rows, size_t cols, int nt)	\
{									\
	size_t r = 0;							\
	TC_BLOCK_BAND(neon_tile##es, neon_tile##es, n, n, es, 16, tc_edge##es)	\
	if (r < rows)							\
		tc_edge##es(dst + r * es, dld, src + r * sld, sld,	\
			    rows - r, cols);				\
}
NEON_TR(1, 16)
NEON_TR(2, 8)
NEON_TR(4, 4)
NEON_TR(8, 2)

/*
 * Few rows, dense (an NHWC image of C = 2..4): a structure store
 * interleaves 2, 3 or 4 registers element by element, which is exactly
 * this transpose: one load per row and one store per 16 bytes of each.
 * Other few-rows shapes (C = 5..8, rows followed by a pattern: NC1HWC0
 * with C < C0) run the program of struct tc_fr_plan for 16-byte vectors
 * of bytes: an output is the OR of one TBL per row (an index of 0x80 is
 * out of the table and gives 0) and the pattern, as on AVX2. At most
 * TC_FR_MAXT (16) outputs per span: rows of up to 16 u8 or 32 u16 bytes
 * with their pattern (f16 NC1HWC0, nChw16c; int8 NC1HWC0's 32-byte rows
 * go to the tiles and a fill).
 */
struct neon_fr {
	int tbl;
	size_t rows, dld;
	unsigned es;
	unsigned char pat[64];
	struct tc_fr_plan plan;
};

_Static_assert(sizeof(struct neon_fr) <= TC_FR_PROG_BYTES, "neon few-rows program");

static int neon_fr_prepare(void *prog, size_t rows, unsigned es, size_t dld,
			   size_t pad, const unsigned char pat[64])
{
	struct neon_fr *p = prog;
	struct tc_fr_plan *q = &p->plan;

	p->rows = rows, p->dld = dld, p->es = es;
	memcpy(p->pat, pat, 64);
	p->tbl = pad || rows < 2 || rows > 4 || dld != rows * es;
	if (!p->tbl)
		return 0;
	if (tc_fr_build(q, 16, 0, rows, es, dld, pad, pat) || q->gaps)
		return -1;
	for (size_t t = 0; t < q->T; t++) {
		for (size_t r = 0; r < rows; r++)
			for (int u = 0; u < 16; u++)
				if (!(q->k[t][r] >> u & 1))
					q->idx[t][r][u] = 0x80;
		for (int u = 0; u < 16; u++)
			if (!(q->patk[t] >> u & 1))
				q->patv[t][u] = 0;
	}
	return 0;
}

/* One instance per row count: the row vectors stay in registers. */
#define NEON_FR_ST(dst, T, t, v)	ST1((dst) + 16 * (t), (v))
#define NEON_FR_TBL(R)							\
static void neon_fr_tbl##R(const struct tc_fr_plan *p, char *dst,	\
			   const char *src, size_t sld, size_t cols)	\
{									\
	size_t c = 0, S = p->per, T = p->T;				\
									\
	for (; c + S <= cols; c += S, dst += 16 * T)			\
		TC_FR_SPAN(uint8x16_t, R, T, p, dst, src, sld, c, LDV1, LDV1, \
			   vqtbl1q_u8, vorrq_u8, NEON_FR_ST);		\
	if (c < cols)							\
		tc_fr_tail(dst, p->dld, src + c * p->es, sld, p->rows, cols - c, \
			   p->es, p->pad, p->pat);			\
}
NEON_FR_TBL(1)
NEON_FR_TBL(2)
NEON_FR_TBL(3)
NEON_FR_TBL(4)
NEON_FR_TBL(5)
NEON_FR_TBL(6)
NEON_FR_TBL(7)
NEON_FR_TBL(8)

#define NEON_FR_LOOP(n, w, vt, ld, st)					\
	for (; c + 16 / sizeof(w) <= cols; c += 16 / sizeof(w)) {	\
		vt v_;							\
		for (int r_ = 0; r_ < (n); r_++)			\
			v_.val[r_] = ld((const w *)(src + r_ * sld + c * sizeof(w))); \
		st((w *)(dst + c * (n) * sizeof(w)), v_);		\
	}

#define NEON_FR_CASE(n, bits, lanes)					\
	case (n) * 16 + (bits) / 8:					\
		NEON_FR_LOOP(n, uint##bits##_t, uint##bits##x##lanes##x##n##_t, \
			     vld1q_u##bits, vst##n##q_u##bits)		\
		break;

static void neon_fr_run(const void *prog, char *dst, const char *src,
			size_t sld, size_t cols, int nt)
{
	static void (*const tbl[TC_FR_MAXROWS])(const struct tc_fr_plan *, char *,
						  const char *, size_t, size_t) = {
		neon_fr_tbl1, neon_fr_tbl2, neon_fr_tbl3, neon_fr_tbl4,
		neon_fr_tbl5, neon_fr_tbl6, neon_fr_tbl7, neon_fr_tbl8,
	};
	const struct neon_fr *p = prog;
	size_t c = 0;

	if (p->tbl) {
		tbl[p->rows - 1](&p->plan, dst, src, sld, cols);
		return;
	}
	switch (p->rows * 16 + p->es) {
#define X(n) NEON_FR_CASE(n, 8, 16) NEON_FR_CASE(n, 16, 8) NEON_FR_CASE(n, 32, 4) \
	NEON_FR_CASE(n, 64, 2)
	X(2) X(3) X(4)
#undef X
	default:
		break;
	}
	if (c < cols)
		tc_fr_tail(dst + c * p->dld, p->dld, src + c * p->es, sld, p->rows,
			   cols - c, p->es, 0, p->pat);
}

static void neon_copy(char *dst, const char *src, size_t n, int nt)
{
	if (n < 128) {
		memcpy(dst, src, n);
		return;
	}
	for (; n >= 64; n -= 64, dst += 64, src += 64) {
		uint8x16_t a = LD1(src, 0), b = LD1(src + 16, 0);
		uint8x16_t c = LD1(src + 32, 0), d = LD1(src + 48, 0);

		ST1(dst, a), ST1(dst + 16, b), ST1(dst + 32, c), ST1(dst + 48, d);
	}
	for (; n >= 16; n -= 16, dst += 16, src += 16)
		ST1(dst, LD1(src, 0));
	if (n)
		ST1(dst + n - 16, LD1(src + n - 16, 0));
}

static void neon_runs(char *dst, size_t dld, const char *src, size_t sld,
		      size_t run, size_t count, int nt)
{
	TC_RUNS_VEC(16, LDV1, ST1, ST1)
	for (size_t i = 0; i < count; i++)
		neon_copy(dst + i * dld, src + i * sld, run, nt);
}

static void neon_fill(char *dst, const unsigned char pat[64], size_t n, int nt)
{
	unsigned char rot[64];
	uint8x16_t v[4];
	size_t i;
	int j;

	if (n < 64) {
		memcpy(dst, pat, n);
		return;
	}
	for (j = 0; j < 4; j++)
		v[j] = LD1(pat + 16 * j, 0);
	for (i = 0; i + 64 <= n; i += 64)
		for (j = 0; j < 4; j++)
			ST1(dst + i + 16 * j, v[j]);
	if (i < n) {
		tc_pat_rotate(rot, pat, n - 64);
		memcpy(dst + n - 64, rot, 64);
	}
}

/* (no streaming stores: @STREAM is the plain store) */
TC_DEFINE_RUNS_PAIRS(neon_runs_pairs, uint8x16_t, 16, LDV1, ST1, ST1)

static const struct tc_kernels neon_kernels = {
	.name = "neon",
	.copy = neon_copy,
	.fill = neon_fill,
	.runs = neon_runs,
	.transpose = { neon_tr1, neon_tr2, neon_tr4, neon_tr8 },
	.fr_prepare = neon_fr_prepare,
	.fr_run = neon_fr_run,
	.runs_pairs = neon_runs_pairs,
	.sfence = NULL,
};

TC_DEFINE_EXEC(neon_exec, neon_kernels)

static int neon_available(void)
{
	return !!(getauxval(AT_HWCAP) & HWCAP_ASIMD);
}

const struct tc_cpu_backend tc_backend_neon = {
	.name = "neon",
	.available = neon_available,
	.exec = neon_exec,
	.exec_scales = neon_exec_scales,
	.direct = neon_exec_direct,
};
