/* SPDX-License-Identifier: MIT */
/*
 * internal.h - helpers shared by the library's files; never installed.
 */
#ifndef TILECOPY_INTERNAL_H
#define TILECOPY_INTERNAL_H

#include <stdint.h>
#include "tilecopy/tilecopy.h"

#define TC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * tc_fail - record the message for tilecopy_last_error() and return @st.
 * Messages start with the name of the offending field ("shape: ...").
 */
tilecopy_status_t tc_fail(tilecopy_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* tc_ok - clear the message and return TILECOPY_SUCCESS. */
tilecopy_status_t tc_ok(void);

/* Overflow-checked int64 arithmetic; return non-zero on overflow. */
static inline int tc_mul_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

static inline int tc_add_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

/*
 * tc_ceil_div - ceil(a / b) for a >= 0, b > 0, without the a + b - 1 that
 * overflows when a is near INT64_MAX.
 */
static inline int64_t tc_ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0);
}

/* tc_shape_str - "8x12" into buf. */
const char *tc_shape_str(const int64_t *shape, int rank, char *buf, size_t size);

/* Layout helpers used across files (layout.c). */
void tc_layout_init_flat(tilecopy_layout_t *l, int n, const int64_t *shape,
			 const int64_t *stride);
tilecopy_status_t tc_layout_append_mode(tilecopy_layout_t *l, int n,
					const int64_t *shape,
					const int64_t *stride);

/*
 * tc_format_named - the layout of a named format (format_tag.c): a tag of
 * oneDNN's grammar (nChw16c, ABcd4b16a4b, OIhw16i16o) or an alias of the
 * table (NCHW4, NC1HWC0, zN, RowMajor) for logical extents @ext.
 * @block: NULL, or the block parameters of an alias that has them.
 */
tilecopy_status_t tc_format_named(tilecopy_layout_t *l, const char *name,
				  const int64_t *ext, int rank, size_t esize,
				  const char *block);

/*
 * tc_format_tag - the layout of grammar text @text alone (no aliases);
 * @name is the format's name for messages.
 */
tilecopy_status_t tc_format_tag(tilecopy_layout_t *l, const char *name,
				const char *text, const int64_t *ext, int rank);

/* One line of the alias table (format_tag.c); for tests and docs. */
struct tc_format_alias {
	const char *name;	/* '#' matches a number */
	const char *tag;	/* grammar text; '#', $1 and $2 substituted */
	const char *block;	/* defaults of $1 ($2), or NULL: no --block */
	int icase;		/* name matched ignoring case */
};

const struct tc_format_alias *tc_format_aliases(size_t *n);

#endif /* TILECOPY_INTERNAL_H */
