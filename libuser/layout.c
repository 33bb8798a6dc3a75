// SPDX-License-Identifier: MIT
/*
 * layout.c - hierarchical shape:stride layouts: building, CuTe notation,
 * and the queries size, cosize, rank, depth, crd2idx, idx2crd.
 *
 * A layout keeps its leaves in a flat array and the nesting in a profile
 * string ("((x,x),(x,x))"), so it is a plain value: no allocation, safe to
 * copy. Coordinates within a mode are colexicographic over its leaves, which
 * is what CuTe's recursive idx2crd gives for any nesting.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Rebuild profile and mode table for a layout of depth <= 2. */
static tilecopy_status_t tc_layout_rebuild(tilecopy_layout_t *l,
					   const int *mode_leaves)
{
	char *p = l->profile;
	char *end = l->profile + sizeof(l->profile) - 4;
	int leaf = 0;

	if (l->rank == 1 && mode_leaves[0] == 1) {
		strcpy(l->profile, "x");
		l->mode[0] = 0;
		l->mode[1] = 1;
		return TILECOPY_SUCCESS;
	}
	*p++ = '(';
	for (int m = 0; m < l->rank; m++) {
		l->mode[m] = leaf;
		if (p >= end)
			return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: too deep");
		if (m)
			*p++ = ',';
		if (mode_leaves[m] == 1) {
			*p++ = 'x';
		} else {
			*p++ = '(';
			for (int k = 0; k < mode_leaves[m] && p < end; k++) {
				if (k)
					*p++ = ',';
				*p++ = 'x';
			}
			*p++ = ')';
		}
		leaf += mode_leaves[m];
	}
	*p++ = ')';
	*p = '\0';
	l->mode[l->rank] = leaf;
	return TILECOPY_SUCCESS;
}

void tc_layout_init_flat(tilecopy_layout_t *l, int n, const int64_t *shape,
			 const int64_t *stride)
{
	int ones[TILECOPY_MAX_RANK];

	memset(l, 0, sizeof(*l));
	l->rank = n;
	l->nleaves = n;
	for (int i = 0; i < n; i++) {
		l->shape[i] = shape[i];
		l->stride[i] = stride[i];
		ones[i] = 1;
	}
	tc_layout_rebuild(l, ones);
}

/*
 * tc_layout_append_mode - add a top-level mode of @n leaves (colex order).
 * @pre l was built by tc_layout_init_flat/append_mode (depth <= 2).
 */
tilecopy_status_t tc_layout_append_mode(tilecopy_layout_t *l, int n,
					const int64_t *shape,
					const int64_t *stride)
{
	int counts[TILECOPY_MAX_RANK + 1];

	if (l->rank >= TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "layout: more than %d modes", TILECOPY_MAX_RANK);
	if (n < 1 || l->nleaves + n > TILECOPY_MAX_LEAVES)
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "layout: more than %d leaves", TILECOPY_MAX_LEAVES);
	for (int m = 0; m < l->rank; m++)
		counts[m] = l->mode[m + 1] - l->mode[m];
	counts[l->rank] = n;
	for (int i = 0; i < n; i++) {
		l->shape[l->nleaves + i] = shape[i];
		l->stride[l->nleaves + i] = stride[i];
	}
	l->nleaves += n;
	l->rank++;
	return tc_layout_rebuild(l, counts);
}

/* CuTe's default strides: compact, column-major (first leaf fastest). */
static tilecopy_status_t tc_compact_strides(tilecopy_layout_t *l)
{
	int64_t s = 1;

	for (int i = 0; i < l->nleaves; i++) {
		l->stride[i] = s;
		/* Found by fuzzing: a wrapped product gave negative strides. */
		if (i + 1 < l->nleaves && tc_mul_ovf(s, l->shape[i], &s))
			return tc_fail(TILECOPY_ERR_OVERFLOW,
				       "layout: stride of leaf %d overflows 64 bits", i + 1);
	}
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_layout_make(tilecopy_layout_t *out,
						    int rank,
						    const int64_t *shape,
						    const int64_t *stride)
{
	if (!out || !shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "layout: NULL %s", out ? "shape" : "out");
	if (rank < 1 || rank > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "rank: %d outside 1..%d", rank, TILECOPY_MAX_RANK);
	for (int i = 0; i < rank; i++) {
		if (shape[i] < 1)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "shape[%d]: %lld is not >= 1", i,
				       (long long)shape[i]);
		if (stride && stride[i] < 0)
			return tc_fail(TILECOPY_ERR_UNSUPPORTED,
				       "stride[%d]: %lld is negative; memory is addressed forward from the first element",
				       i, (long long)stride[i]);
	}
	tc_layout_init_flat(out, rank, shape, stride ? stride : shape);
	/* no strides: CuTe's default, compact column-major (as "(4,6)") */
	return stride ? tc_ok() : tc_compact_strides(out) ?: tc_ok();
}

/* ---- CuTe notation ------------------------------------------------------- */

struct tc_parser {
	const char *s;
	const char *start;
	char profile[TILECOPY_MAX_TREE];
	int plen;
	int64_t val[TILECOPY_MAX_LEAVES];
	int nval;
	const char *what;	/* "shape" or "stride", for messages */
};

static void tc_skip_ws(struct tc_parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static tilecopy_status_t tc_parse_emit(struct tc_parser *p, char c)
{
	if (p->plen + 2 >= (int)sizeof(p->profile))
		return tc_fail(TILECOPY_ERR_PARSE, "layout: nesting too long");
	p->profile[p->plen++] = c;
	p->profile[p->plen] = '\0';
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_parse_int(struct tc_parser *p)
{
	int col;
	char *end;
	long long v;

	tc_skip_ws(p);
	if (*p->s == '_')	/* CuTe's static integers print as _4 */
		p->s++;
	col = (int)(p->s - p->start) + 1;
	/*
	 * CuTe allows negative strides; a tilecopy layout addresses memory
	 * from its first byte forward (the engine walks forward), so they are
	 * refused by name rather than as a syntax error.
	 */
	if (*p->s == '-' && isdigit((unsigned char)p->s[1]))
		return tc_fail(!strcmp(p->what, "stride") ? TILECOPY_ERR_UNSUPPORTED :
			       TILECOPY_ERR_PARSE,
			       "layout: %s at column %d is negative: %s", p->what, col,
			       !strcmp(p->what, "stride") ?
			       "negative strides are not supported (memory is addressed forward from the first element)" :
			       "a shape is >= 1");
	if (!isdigit((unsigned char)*p->s))
		return tc_fail(TILECOPY_ERR_PARSE,
			       "layout: %s: expected a number at column %d", p->what, col);
	errno = 0;
	v = strtoll(p->s, &end, 10);
	if (errno == ERANGE)
		return tc_fail(TILECOPY_ERR_OVERFLOW,
			       "layout: %s at column %d: number above 2^63-1", p->what, col);
	if (p->nval >= TILECOPY_MAX_LEAVES)
		return tc_fail(TILECOPY_ERR_PARSE, "layout: more than %d leaves",
			       TILECOPY_MAX_LEAVES);
	p->val[p->nval++] = v;
	p->s = end;
	return tc_parse_emit(p, 'x');
}

static tilecopy_status_t tc_parse_tuple(struct tc_parser *p, int depth)
{
	tilecopy_status_t st;

	tc_skip_ws(p);
	if (*p->s != '(')
		return tc_parse_int(p);
	if (depth > 16)
		return tc_fail(TILECOPY_ERR_PARSE, "layout: nested too deeply");
	p->s++;
	st = tc_parse_emit(p, '(');
	while (st == TILECOPY_SUCCESS) {
		st = tc_parse_tuple(p, depth + 1);
		if (st)
			return st;
		tc_skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			st = tc_parse_emit(p, ',');
			continue;
		}
		if (*p->s == ')') {
			p->s++;
			return tc_parse_emit(p, ')');
		}
		return tc_fail(TILECOPY_ERR_PARSE,
			       "layout: %s: expected ',' or ')' at column %d",
			       p->what, (int)(p->s - p->start) + 1);
	}
	return st;
}

/* Fill rank and mode[] from the profile. */
static tilecopy_status_t tc_layout_index_modes(tilecopy_layout_t *l)
{
	const char *c = l->profile;
	int depth = 0, leaf = 0;

	if (!strcmp(c, "x")) {
		l->rank = 1;
		l->mode[0] = 0;
		l->mode[1] = 1;
		return TILECOPY_SUCCESS;
	}
	l->rank = 0;
	for (; *c; c++) {
		if (*c == '(')
			depth++;
		else if (*c == ')')
			depth--;
		/* A top-level mode starts after the outer '(' and each ','. */
		if (depth == 1 && (*c == '(' || *c == ',')) {
			if (l->rank >= TILECOPY_MAX_RANK)
				return tc_fail(TILECOPY_ERR_PARSE,
					       "layout: more than %d modes",
					       TILECOPY_MAX_RANK);
			l->mode[l->rank++] = leaf;
		}
		if (*c == 'x')
			leaf++;
	}
	l->mode[l->rank] = leaf;
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_layout_parse(tilecopy_layout_t *out,
						     const char *text)
{
	struct tc_parser sp = { 0 }, dp = { 0 };
	tilecopy_status_t st;

	if (!out || !text)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "layout: NULL argument");
	memset(out, 0, sizeof(*out));
	sp.s = sp.start = text;
	sp.what = "shape";
	st = tc_parse_tuple(&sp, 0);
	if (st)
		return st;
	tc_skip_ws(&sp);
	out->nleaves = sp.nval;
	memcpy(out->shape, sp.val, sizeof(sp.val));
	memcpy(out->profile, sp.profile, sizeof(sp.profile));
	if (*sp.s == ':') {
		dp.s = dp.start = sp.s + 1;
		dp.what = "stride";
		st = tc_parse_tuple(&dp, 0);
		if (st)
			return st;
		tc_skip_ws(&dp);
		if (*dp.s)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "layout: trailing text '%s'", dp.s);
		if (strcmp(sp.profile, dp.profile))
			return tc_fail(TILECOPY_ERR_PARSE,
				       "layout: stride nesting %s differs from shape nesting %s",
				       dp.profile, sp.profile);
		memcpy(out->stride, dp.val, sizeof(dp.val));
	} else if (*sp.s) {
		return tc_fail(TILECOPY_ERR_PARSE, "layout: trailing text '%s'",
			       sp.s);
	} else {
		st = tc_compact_strides(out);	/* CuTe's default: column-major */
		if (st)
			return st;
	}
	for (int i = 0; i < out->nleaves; i++)
		if (out->shape[i] < 1)
			return tc_fail(TILECOPY_ERR_PARSE,
				       "layout: shape: leaf %d is %lld, must be >= 1",
				       i, (long long)out->shape[i]);
	st = tc_layout_index_modes(out);
	if (st)
		return st;
	return tc_ok();
}

static tilecopy_status_t tc_print_tuple(const tilecopy_layout_t *l,
					const int64_t *v, char *buf,
					size_t size, size_t *n)
{
	int leaf = 0;

	for (const char *c = l->profile; *c; c++) {
		int w;

		if (*c == 'x')
			w = snprintf(buf + *n, size - *n, "%lld",
				     (long long)v[leaf++]);
		else
			w = snprintf(buf + *n, size - *n, "%c", *c);
		if (w < 0 || (size_t)w >= size - *n)
			return TILECOPY_ERR_INVALID_ARG;
		*n += (size_t)w;
	}
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_layout_print(const tilecopy_layout_t *l, char *buf, size_t size)
{
	/* 32 leaves of 20 digits twice and the profile fit in 2 KiB */
	char full[2048];
	size_t n = 0;

	if (!l || (!buf && size))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", l ? "buf" : "layout");
	full[0] = '\0';
	if (tc_print_tuple(l, l->shape, full, sizeof(full) - 1, &n))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: text longer than %zu", sizeof(full));
	full[n++] = ':';
	full[n] = '\0';
	if (tc_print_tuple(l, l->stride, full, sizeof(full), &n))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "layout: text longer than %zu", sizeof(full));
	if (size)
		snprintf(buf, size, "%s", full);
	if (n + 1 > size)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "buf: %zu bytes are too few for the layout, it needs %zu",
			       size, n + 1);
	return tc_ok();
}

/*
 * Invariants of a layout: counts in range, modes covering the leaves in
 * order, shapes >= 1, strides >= 0, a profile with one 'x' per leaf. Plans
 * and tensors check every layout they take, whoever made it.
 */
tilecopy_status_t tc_layout_check(const tilecopy_layout_t *l, const char *what)
{
	int x = 0;

	if (l->rank < 1 || l->rank > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: rank %d outside 1..%d",
			       what, l->rank, TILECOPY_MAX_RANK);
	if (l->nleaves < l->rank || l->nleaves > TILECOPY_MAX_LEAVES)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: %d leaves for rank %d (max %d)",
			       what, l->nleaves, l->rank, TILECOPY_MAX_LEAVES);
	if (l->mode[0] != 0 || l->mode[l->rank] != l->nleaves)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: modes do not cover the leaves", what);
	for (int m = 0; m < l->rank; m++)
		if (l->mode[m + 1] <= l->mode[m])
			return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: mode %d has no leaf", what, m);
	for (int i = 0; i < l->nleaves; i++)
		if (l->shape[i] < 1 || l->stride[i] < 0)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "%s: leaf %d is %lld:%lld (shape >= 1, stride >= 0)",
				       what, i, (long long)l->shape[i], (long long)l->stride[i]);
	if (!memchr(l->profile, '\0', sizeof(l->profile)))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: profile not terminated", what);
	for (const char *c = l->profile; *c; c++)
		x += *c == 'x';
	if (x != l->nleaves)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: profile has %d leaves, not %d",
			       what, x, l->nleaves);
	return TILECOPY_SUCCESS;
}

/* ---- queries ------------------------------------------------------------- */

int64_t tc_layout_size(const tilecopy_layout_t *l)
{
	int64_t s = 1;

	for (int i = 0; i < l->nleaves; i++)
		if (tc_mul_ovf(s, l->shape[i], &s))
			return -1;
	return s;
}

int64_t tc_layout_cosize(const tilecopy_layout_t *l)
{
	int64_t c = 0, t;

	for (int i = 0; i < l->nleaves; i++) {
		if (l->shape[i] < 1)
			return 0;
		if (tc_mul_ovf(l->shape[i] - 1, l->stride[i], &t) ||
		    tc_add_ovf(c, t, &c))
			return -1;
	}
	if (tc_add_ovf(c, 1, &c))	/* found by fuzzing: c == INT64_MAX */
		return -1;
	return c;
}

int tc_layout_rank(const tilecopy_layout_t *l)
{
	return l->rank;
}

int tc_layout_depth(const tilecopy_layout_t *l)
{
	int d = 0, max = 0;

	for (const char *c = l->profile; *c; c++) {
		if (*c == '(' && ++d > max)
			max = d;
		else if (*c == ')')
			d--;
	}
	return max;
}

int64_t tc_layout_mode_size(const tilecopy_layout_t *l,
					       int m)
{
	int64_t s = 1;

	if (m < 0 || m >= l->rank)
		return -1;
	for (int i = l->mode[m]; i < l->mode[m + 1]; i++)
		if (tc_mul_ovf(s, l->shape[i], &s))
			return -1;
	return s;
}

tilecopy_status_t tc_layout_crd2idx(const tilecopy_layout_t *l,
						       const int64_t *coord,
						       int64_t *idx)
{
	int64_t off = 0;

	if (!l || !coord || !idx)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "crd2idx: NULL argument");
	for (int m = 0; m < l->rank; m++) {
		int64_t c = coord[m];

		if (c < 0 || c >= tc_layout_mode_size(l, m))
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "coord[%d]: %lld outside mode of size %lld",
				       m, (long long)c,
				       (long long)tc_layout_mode_size(l, m));
		for (int i = l->mode[m]; i < l->mode[m + 1]; i++) {
			off += (c % l->shape[i]) * l->stride[i];
			c /= l->shape[i];
		}
	}
	*idx = off;
	return tc_ok();
}

tilecopy_status_t tc_layout_idx2crd(const tilecopy_layout_t *l,
						       int64_t idx,
						       int64_t *coord)
{
	int64_t size;

	if (!l || !coord)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "idx2crd: NULL argument");
	size = tc_layout_size(l);
	if (idx < 0 || idx >= size)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "idx: %lld outside domain of size %lld",
			       (long long)idx, (long long)size);
	for (int m = 0; m < l->rank; m++) {
		int64_t ms = tc_layout_mode_size(l, m);

		coord[m] = idx % ms;
		idx /= ms;
	}
	return tc_ok();
}
