// SPDX-License-Identifier: MIT
/*
 * status.c - status names and the per-thread error message.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

static _Thread_local char tc_msg[512];

static const char *const tc_status_names[] = {
	[TILECOPY_SUCCESS] = "success",
	[TILECOPY_ERR_INVALID_ARG] = "invalid argument",
	[TILECOPY_ERR_PARSE] = "parse error",
	[TILECOPY_ERR_UNKNOWN_FORMAT] = "unknown format",
	[TILECOPY_ERR_SHAPE_MISMATCH] = "shape mismatch",
	[TILECOPY_ERR_DTYPE_MISMATCH] = "element size mismatch",
	[TILECOPY_ERR_BLOCK] = "block does not fit",
	[TILECOPY_ERR_OVERLAP] = "destination overlaps itself",
	[TILECOPY_ERR_BUFFER_TOO_SMALL] = "buffer too small",
	[TILECOPY_ERR_OVERFLOW] = "size overflow",
	[TILECOPY_ERR_NOMEM] = "out of memory",
	[TILECOPY_ERR_UNSUPPORTED] = "unsupported",
	[TILECOPY_ERR_NO_DEVICE] = "no device",
	[TILECOPY_ERR_DEVICE] = "device error",
	[TILECOPY_ERR_TIMEOUT] = "timeout",
	[TILECOPY_ERR_FAULT] = "engine fault",
	[TILECOPY_ERR_IO] = "I/O error",
	[TILECOPY_ERR_RESET] = "engine reset",
};

TILECOPY_API const char *tilecopy_status_str(tilecopy_status_t st)
{
	if ((unsigned int)st >= TC_ARRAY_SIZE(tc_status_names) ||
	    !tc_status_names[st])
		return "unknown status";
	return tc_status_names[st];
}

TILECOPY_API const char *tilecopy_last_error(void)
{
	return tc_msg;
}

tilecopy_status_t tc_fail(tilecopy_status_t st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tc_msg, sizeof(tc_msg), fmt, ap);
	va_end(ap);
	return st;
}

tilecopy_status_t tc_ok(void)
{
	tc_msg[0] = '\0';
	return TILECOPY_SUCCESS;
}

const char *tc_shape_str(const int64_t *shape, int rank, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; i < rank && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%lld", i ? "x" : "",
				 (long long)shape[i]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	return buf;
}
