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

#endif /* TILECOPY_INTERNAL_H */
