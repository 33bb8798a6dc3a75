// SPDX-License-Identifier: MIT
/*
 * format.c - tensors from format names.
 *
 * Logical order never changes (4-D N,C,H,W; 5-D N,C,D,H,W; 3-D N,C,W;
 * matrices batch..., rows, cols); a format only chooses the strides, and
 * blocked formats split a logical mode into nested leaves, e.g. C of
 * nChw16c is the mode (16, C1):(1, H*W*16).
 */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

static const char *const tc_plain_order[] = {
	[3] = "NCW", [4] = "NCHW", [5] = "NCDHW",
};

/* Strides (elements) of physical order @perm over logical @ext. */
static tilecopy_status_t tc_packed(const int64_t *ext, const int *perm,
				   int rank, int64_t *stride)
{
	int64_t s = 1;

	for (int k = rank - 1; k >= 0; k--) {
		stride[perm[k]] = s;
		if (tc_mul_ovf(s, ext[perm[k]], &s))
			return tc_fail(TILECOPY_ERR_OVERFLOW,
				       "shape: element count overflows 64 bits");
	}
	return TILECOPY_SUCCESS;
}

/* Any permutation of the dim letters of the logical order: NHWC, CHWN. */
static int tc_plain_perm(const char *fmt, int rank, int *perm)
{
	const char *order;
	unsigned int seen = 0;

	if (rank < 3 || rank > 5 || strlen(fmt) != (size_t)rank)
		return 0;
	order = tc_plain_order[rank];
	for (int k = 0; k < rank; k++) {
		const char *p = strchr(order, fmt[k]);

		if (!p || fmt[k] == '\0' || (seen & (1u << (p - order))))
			return 0;
		seen |= 1u << (p - order);
		perm[k] = (int)(p - order);
	}
	return 1;
}

static tilecopy_status_t tc_make_flat(tilecopy_tensor_t *t, const int64_t *ext,
				      int rank, const int64_t *stride)
{
	tc_layout_init_flat(&t->layout, rank, ext, stride);
	return TILECOPY_SUCCESS;
}

/*
 * Blocked channel formats: [N, C1, spatial..., x] (nChw16c, NC1HWC0) or,
 * with @cn, [C1, spatial..., N, x] (CHWN4). C is padded to C1 * x.
 */
static tilecopy_status_t tc_make_blocked(tilecopy_tensor_t *t,
					 const int64_t *ext, int rank,
					 int64_t x, int cn)
{
	int64_t c1 = tc_ceil_div(ext[1], x), st[5], acc, cstride, nstride;
	int64_t shape[2], stride[2];
	tilecopy_layout_t *l = &t->layout;

	/* Spatial dims, innermost first, inside the block (and N for CHWN4). */
	acc = x;
	if (cn && tc_mul_ovf(acc, ext[0], &acc))
		goto ovf;
	for (int k = rank - 1; k >= 2; k--) {
		st[k] = acc;
		if (tc_mul_ovf(acc, ext[k], &acc))
			goto ovf;
	}
	cstride = acc;			/* one step of C1 */
	nstride = cn ? x : 0;
	if (!cn && tc_mul_ovf(cstride, c1, &nstride))
		goto ovf;
	tc_layout_init_flat(l, 0, NULL, NULL);
	tc_layout_append_mode(l, 1, &ext[0], &nstride);
	shape[0] = x, shape[1] = c1;
	stride[0] = 1, stride[1] = cstride;
	tc_layout_append_mode(l, 2, shape, stride);
	for (int k = 2; k < rank; k++)
		tc_layout_append_mode(l, 1, &ext[k], &st[k]);
	if (tc_layout_cosize(l) < 0)
		goto ovf;
	return TILECOPY_SUCCESS;
ovf:
	return tc_fail(TILECOPY_ERR_OVERFLOW, "shape: physical size overflows 64 bits");
}

/* Fractal kinds: inner order z (row-major) or n (column-major), outer Z/N. */
struct tc_fractal {
	const char *name;
	int inner_row_major;
	int outer_row_major;
	int tall;	/* fractal C0 x 16 (nZ, nN) instead of 16 x C0 */
};

static const struct tc_fractal tc_fractals[] = {
	{ "zN", 1, 0, 0 },
	{ "zZ", 1, 1, 0 },
	{ "nZ", 0, 1, 1 },
	{ "nN", 0, 0, 1 },
};

static tilecopy_status_t tc_parse_block2(const char *block, int64_t *r,
					 int64_t *c)
{
	char *end;
	long long a, b;

	a = strtoll(block, &end, 10);
	if (end == block || (*end != 'x' && *end != 'X'))
		goto bad;
	b = strtoll(end + 1, &end, 10);
	if (*end || a < 1 || b < 1 || a > (1 << 20) || b > (1 << 20))
		goto bad;
	*r = a;
	*c = b;
	return TILECOPY_SUCCESS;
bad:
	return tc_fail(TILECOPY_ERR_BLOCK,
		       "block: '%s' is not ROWSxCOLS with both in 1..1048576",
		       block);
}

/* Batch modes outermost: each matrix whole (padding included), in order. */
static tilecopy_status_t tc_append_batch_first(tilecopy_tensor_t *t,
					       const int64_t *ext, int nb,
					       int64_t matrix,
					       tilecopy_layout_t *mat)
{
	int64_t st[TILECOPY_MAX_RANK], acc = matrix;
	tilecopy_layout_t *l = &t->layout;

	for (int k = nb - 1; k >= 0; k--) {
		st[k] = acc;
		if (tc_mul_ovf(acc, ext[k], &acc))
			return tc_fail(TILECOPY_ERR_OVERFLOW,
				       "shape: physical size overflows 64 bits");
	}
	tc_layout_init_flat(l, 0, NULL, NULL);
	for (int k = 0; k < nb; k++)
		tc_layout_append_mode(l, 1, &ext[k], &st[k]);
	for (int m = 0; m < mat->rank; m++) {
		int a = mat->mode[m];

		tc_layout_append_mode(l, mat->mode[m + 1] - a, &mat->shape[a],
				      &mat->stride[a]);
	}
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_make_fractal(tilecopy_tensor_t *t,
					 const struct tc_fractal *f,
					 const int64_t *ext, int rank,
					 size_t esize, const char *block)
{
	int64_t rows = ext[rank - 2], cols = ext[rank - 1];
	int64_t c0 = 32 / (int64_t)esize, r0, k0, r1, c1, fr;
	int64_t sh[2], st[2], m;
	tilecopy_layout_t mat;
	tilecopy_status_t s;

	/* CATLASS: fractal 16 x C0 (zN, zZ) or C0 x 16 (nZ, nN). */
	r0 = f->tall ? c0 : 16;
	k0 = f->tall ? 16 : c0;
	if (block) {
		s = tc_parse_block2(block, &r0, &k0);
		if (s)
			return s;
	}
	r1 = tc_ceil_div(rows, r0);
	c1 = tc_ceil_div(cols, k0);
	fr = r0 * k0;
	if (tc_mul_ovf(fr, r1, &m) || tc_mul_ovf(m, c1, &m))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "shape: physical size overflows 64 bits");
	tc_layout_init_flat(&mat, 0, NULL, NULL);
	/* rows: (r0, R1) */
	sh[0] = r0, sh[1] = r1;
	st[0] = f->inner_row_major ? k0 : 1;
	st[1] = f->outer_row_major ? c1 * fr : fr;
	tc_layout_append_mode(&mat, 2, sh, st);
	/* cols: (c0, C1) */
	sh[0] = k0, sh[1] = c1;
	st[0] = f->inner_row_major ? 1 : r0;
	st[1] = f->outer_row_major ? fr : r1 * fr;
	tc_layout_append_mode(&mat, 2, sh, st);
	return tc_append_batch_first(t, ext, rank - 2, m, &mat);
}

static tilecopy_status_t tc_make_matrix(tilecopy_tensor_t *t, const int64_t *ext,
					int rank, int col_major)
{
	int64_t rows = ext[rank - 2], cols = ext[rank - 1];
	int64_t st[2] = { cols, 1 }, sh[2] = { rows, cols }, m;
	tilecopy_layout_t mat;

	if (col_major)
		st[0] = 1, st[1] = rows;
	if (tc_mul_ovf(rows, cols, &m))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "shape: physical size overflows 64 bits");
	tc_layout_init_flat(&mat, 2, sh, st);
	return tc_append_batch_first(t, ext, rank - 2, m, &mat);
}

static tilecopy_status_t tc_make_strided(tilecopy_tensor_t *t, const char *list,
					 const int64_t *ext, int rank)
{
	int64_t st[TILECOPY_MAX_RANK];
	const char *p = list;
	int n = 0;

	while (*p) {
		char *end;
		long long v = strtoll(p, &end, 10);

		if (end == p || v < 0)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "format: strided: stride %d '%s' is not a number >= 0",
				       n, p);
		if (n >= TILECOPY_MAX_RANK)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "format: strided: more than %d strides",
				       TILECOPY_MAX_RANK);
		st[n++] = v;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "format: strided: unexpected '%c' after stride %d",
				       *p, n - 1);
	}
	if (n != rank)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "format: strided: %d strides for a rank-%d shape",
			       n, rank);
	tc_make_flat(t, ext, rank, st);
	if (tc_layout_cosize(&t->layout) < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "format: strided: physical size overflows 64 bits");
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_make_cute(tilecopy_tensor_t *t, const char *text,
				      const int64_t *ext, int rank)
{
	tilecopy_status_t st = tc_layout_parse(&t->layout, text);

	if (st)
		return st;
	if (t->layout.rank != rank)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "format: layout has rank %d, shape has rank %d",
			       t->layout.rank, rank);
	for (int m = 0; m < rank; m++)
		if (tc_layout_mode_size(&t->layout, m) < ext[m])
			return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
				       "format: layout mode %d has size %lld < shape[%d] = %lld",
				       m, (long long)tc_layout_mode_size(&t->layout, m),
				       m, (long long)ext[m]);
	if (tc_layout_cosize(&t->layout) < 0)
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "format: layout: physical size overflows 64 bits");
	return TILECOPY_SUCCESS;
}

/* "nChw16c" / "nCdhw8c" -> block 16 / 8 with the right rank; 0 if not. */
static int64_t tc_onednn_block(const char *f, int rank)
{
	/* Found by fuzzing: "nCw8c" of another rank than 3 went on to
	 * tc_make_blocked, which reads ext[1] and writes st[rank - 1]. */
	const char *tail = rank == 4 ? "nChw" : rank == 5 ? "nCdhw" : rank == 3 ? "nCw" : NULL;
	size_t n;
	char *end;
	long v;

	if (!tail)
		return 0;
	n = strlen(tail);
	if (strncmp(f, tail, n) || !isdigit((unsigned char)f[n]))
		return 0;
	v = strtol(f + n, &end, 10);
	return strcmp(end, "c") ? 0 : v;
}

/* "NCHW16" / "NCDHW8" -> 16 / 8; 0 if not. */
static int64_t tc_nchwx_block(const char *f, int rank)
{
	const char *order = rank >= 3 && rank <= 5 ? tc_plain_order[rank] : "";
	size_t n = strlen(order);
	char *end;
	long v;

	if (!n || strncmp(f, order, n) || !isdigit((unsigned char)f[n]))
		return 0;
	v = strtol(f + n, &end, 10);
	return *end ? 0 : v;
}

static tilecopy_status_t tc_check_block_x(int64_t x, const char *fmt)
{
	if (x != 4 && x != 8 && x != 16 && x != 32 && x != 64)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "format: %s: channel block %lld is not 4, 8, 16, 32 or 64",
			       fmt, (long long)x);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_no_block(const char *fmt, const char *block)
{
	if (block)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "block: format %s takes no block override", fmt);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_need_rank(const char *fmt, int rank, int lo, int hi)
{
	if (rank < lo || rank > hi)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "shape: format %s needs rank %d..%d, got %d",
			       fmt, lo, hi, rank);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_make_named(tilecopy_tensor_t *t, const char *fmt,
				       const int64_t *ext, int rank,
				       size_t esize, const char *block)
{
	int perm[TILECOPY_MAX_RANK];
	int64_t st[TILECOPY_MAX_RANK], x;
	tilecopy_status_t s;

	if (tc_plain_perm(fmt, rank, perm)) {
		if ((s = tc_no_block(fmt, block)) || (s = tc_packed(ext, perm, rank, st)))
			return s;
		return tc_make_flat(t, ext, rank, st);
	}
	x = tc_onednn_block(fmt, rank);
	if (!x)
		x = tc_nchwx_block(fmt, rank);
	if (x) {
		if ((s = tc_no_block(fmt, block)) || (s = tc_check_block_x(x, fmt)))
			return s;
		return tc_make_blocked(t, ext, rank, x, 0);
	}
	if (!strcmp(fmt, "NC1HWC0")) {
		char *end;

		if ((s = tc_need_rank(fmt, rank, 4, 4)))
			return s;
		x = 32 / (int64_t)esize;
		if (block) {
			x = strtoll(block, &end, 10);
			if (end == block || *end || x < 1 || x > 1024)
				return tc_fail(TILECOPY_ERR_BLOCK,
					       "block: NC1HWC0 takes C0 in 1..1024, not '%s'",
					       block);
		}
		return tc_make_blocked(t, ext, rank, x, 0);
	}
	if (!strcmp(fmt, "CHWN4")) {
		if ((s = tc_need_rank(fmt, rank, 4, 4)) || (s = tc_no_block(fmt, block)))
			return s;
		return tc_make_blocked(t, ext, rank, 4, 1);
	}
	if (!strcasecmp(fmt, "RowMajor") || !strcmp(fmt, "ND") ||
	    !strcasecmp(fmt, "ColumnMajor")) {
		if ((s = tc_need_rank(fmt, rank, 2, TILECOPY_MAX_RANK)) ||
		    (s = tc_no_block(fmt, block)))
			return s;
		return tc_make_matrix(t, ext, rank, !strcasecmp(fmt, "ColumnMajor"));
	}
	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_fractals); i++) {
		if (strcmp(fmt, tc_fractals[i].name))
			continue;
		if ((s = tc_need_rank(fmt, rank, 2, TILECOPY_MAX_RANK - 2)))
			return s;
		return tc_make_fractal(t, &tc_fractals[i], ext, rank, esize, block);
	}
	return tc_fail(TILECOPY_ERR_UNKNOWN_FORMAT,
		       "format: unknown format '%s' for rank %d (NCHW-style orders, nChw16c, NCHW16, NC1HWC0, CHWN4, RowMajor, ColumnMajor, zN, zZ, nZ, nN, strided:..., or CuTe notation)",
		       fmt, rank);
}

tilecopy_status_t tc_tensor_make(tilecopy_tensor_t *out,
						    const char *format,
						    const int64_t *shape,
						    int rank,
						    tilecopy_dtype_t dtype,
						    const char *block)
{
	tilecopy_tensor_t t;
	size_t esize = tc_dtype_size(dtype);
	tilecopy_status_t s;

	if (!out || !format || !shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "tensor: NULL argument");
	if (!esize)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dtype);
	if (rank < 1 || rank > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH, "shape: rank %d outside 1..%d",
			       rank, TILECOPY_MAX_RANK);
	for (int k = 0; k < rank; k++)
		if (shape[k] < 1)
			return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
				       "shape[%d]: %lld is not >= 1", k,
				       (long long)shape[k]);
	memset(&t, 0, sizeof(t));
	t.dtype = dtype;
	memcpy(t.extent, shape, sizeof(shape[0]) * (size_t)rank);
	if (!strncmp(format, "strided:", 8)) {
		s = tc_no_block("strided", block);
		if (!s)
			s = tc_make_strided(&t, format + 8, shape, rank);
	} else if (format[0] == '(' || isdigit((unsigned char)format[0]) ||
		   !strncmp(format, "cute:", 5)) {
		s = tc_no_block("CuTe", block);
		if (!s)
			s = tc_make_cute(&t, format + (format[0] == 'c' ? 5 : 0),
					 shape, rank);
	} else {
		s = tc_make_named(&t, format, shape, rank, esize, block);
	}
	if (s)
		return s;
	snprintf(t.format, sizeof(t.format), "%s", format);
	*out = t;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_shape_parse(int64_t *shape, int *rank,
						    int max, const char *text)
{
	const char *p = text;
	int n = 0;

	if (!shape || !rank || !text)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "shape: NULL argument");
	while (*p) {
		char *end;
		long long v;

		if (!isdigit((unsigned char)*p))
			return tc_fail(TILECOPY_ERR_PARSE,
				       "shape: '%s' is not like 8x12 or 32,64,56,56",
				       text);
		v = strtoll(p, &end, 10);
		if (v < 1 || v == LLONG_MAX)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "shape: dimension %d of '%s' is not in 1..2^63-1",
				       n, text);
		if (n >= max)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "shape: more than %d dimensions", max);
		shape[n++] = v;
		p = end;
		if ((*p == 'x' || *p == ',' || *p == 'X') && p[1])
			p++;
		else if (*p)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "shape: unexpected '%c' at the end of '%s'", *p, text);
	}
	if (!n)
		return tc_fail(TILECOPY_ERR_PARSE, "shape: empty");
	*rank = n;
	return tc_ok();
}
