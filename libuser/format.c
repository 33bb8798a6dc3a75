// SPDX-License-Identifier: MIT
/*
 * format.c - tensors from formats: a named format (format_tag.c), explicit
 * strides ("strided:s0,s1,..."), or a layout in CuTe notation.
 *
 * Logical order never changes (oneDNN's a, b, c, ...: 4-D N,C,H,W or O,I,H,W;
 * matrices batch..., rows, cols); a format only chooses the strides, and
 * blocked formats split a logical mode into nested leaves, e.g. C of
 * nChw16c is the mode (16, C1):(1, H*W*16).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static tilecopy_status_t tc_no_block(const char *fmt, const char *block)
{
	if (block)
		return tc_fail(TILECOPY_ERR_BLOCK,
			       "block: format %s takes no block override", fmt);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_make_strided(tilecopy_tensor_t *t, const char *list,
					 const int64_t *ext, int rank)
{
	int64_t st[TILECOPY_MAX_RANK];
	const char *p = list;
	size_t bad = strspn(list, "0123456789,");
	int n = 0;

	/* digits and commas only: strtoll alone would take " 4" and "+4" */
	if (list[bad])
		return tc_fail(TILECOPY_ERR_PARSE,
			       "format: strided: unexpected '%c' in '%.64s' (strides are digits separated by commas)",
			       list[bad], list);

	while (*p) {
		char *end;
		long long v;

		errno = 0;
		v = strtoll(p, &end, 10);
		if (end == p || v < 0 || errno == ERANGE)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "format: strided: stride %d '%s' is not a number in 0..2^63-1",
				       n, p);
		if (n >= TILECOPY_MAX_RANK)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "format: strided: more than %d strides",
				       TILECOPY_MAX_RANK);
		st[n++] = v;
		p = end;
		if (*p == ',' && p[1])	/* "4,1," ends with a comma: refused below */
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
	tc_layout_init_flat(&t->layout, rank, ext, st);
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

tilecopy_status_t tc_tensor_make(tilecopy_tensor_t *out, const char *format,
				 const int64_t *shape, int rank,
				 tilecopy_dtype_t dtype, const char *block)
{
	tilecopy_tensor_t t;
	unsigned int bits = tc_dtype_bits(dtype);
	tilecopy_status_t s;

	if (!out || !format || !shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "tensor: NULL argument");
	if (!bits)
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
		s = tc_format_named(&t.layout, format, shape, rank, bits, block);
	}
	if (s)
		return s;
	snprintf(t.format, sizeof(t.format), "%s", format);
	tc_tensor_stride_order(&t, t.order);
	*out = t;
	return tc_ok();
}

/*
 * One dimension of a shape text at *p: digits, 1..2^63-1. Advances *p
 * past the digits; *v gets the value.
 */
static tilecopy_status_t tc_shape_dim(const char **p, const char *text, int n, int64_t *v)
{
	char *end;
	long long x;

	if (!isdigit((unsigned char)**p))
		return tc_fail(TILECOPY_ERR_PARSE,
			       "shape: '%s' is not like 8x12 or 32,64,56,56", text);
	errno = 0;
	x = strtoll(*p, &end, 10);
	if (x < 1 || errno == ERANGE)
		return tc_fail(TILECOPY_ERR_PARSE,
			       "shape: dimension %d of '%s' is not in 1..2^63-1", n, text);
	*p = end;
	*v = x;
	return TILECOPY_SUCCESS;
}

/*
 * Strict: dimensions separated by one kind of separator throughout, 'x'
 * (or 'X') or ','; no empty dimension, no sign, no space. The text is read
 * whole before anything is written: a refused text leaves @shape alone.
 */
TILECOPY_API tilecopy_status_t tilecopy_shape_parse(int64_t *shape, int *rank,
						    int max, const char *text)
{
	char sep = 0;
	int n = 0;
	tilecopy_status_t st;

	if (!shape || !rank || !text)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "shape: NULL argument");
	if (max < 1)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "max: %d is not >= 1", max);
	for (int pass = 0; pass < 2; pass++) {
		const char *p = text;

		for (n = 0; *p; n++) {
			int64_t v = 0;
			char c;

			st = tc_shape_dim(&p, text, n, &v);
			if (st)
				return st;
			if (pass)
				shape[n] = v;
			if (!*p)
				continue;
			c = *p == 'X' ? 'x' : *p;
			if ((c != 'x' && c != ',') || !p[1])
				return tc_fail(TILECOPY_ERR_PARSE,
					       "shape: unexpected '%c' at the end of '%s'", *p, text);
			if (sep && c != sep)
				return tc_fail(TILECOPY_ERR_PARSE,
					       "shape: '%s' mixes separators 'x' and ','", text);
			sep = c;
			p++;
		}
		if (!n)
			return tc_fail(TILECOPY_ERR_PARSE, "shape: empty");
		if (n > max)
			return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
				       "max: '%s' has %d dimensions, more than %d", text, n, max);
	}
	*rank = n;
	return tc_ok();
}
