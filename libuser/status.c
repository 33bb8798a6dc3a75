// SPDX-License-Identifier: MIT
/*
 * status.c - status names and the per-thread error message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local char tc_msg[512];

static const char *const tc_status_names[] = {
	[TILECOPY_SUCCESS] = "success",
	[TILECOPY_ERR_INVALID_ARG] = "invalid argument",
	[TILECOPY_ERR_PARSE] = "parse error",
	[TILECOPY_ERR_UNKNOWN_FORMAT] = "unknown format",
	[TILECOPY_ERR_SHAPE_MISMATCH] = "shape mismatch",
	[TILECOPY_ERR_DTYPE_MISMATCH] = "dtype mismatch",
	[TILECOPY_ERR_BLOCK] = "block does not fit",
	[TILECOPY_ERR_OVERLAP] = "overlapping memory",
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

/*
 * Formatted aside first: a caller may pass tilecopy_last_error() itself as
 * an argument, to add context to a message (dlpack.c does), and
 * vsnprintf into the buffer it reads from is undefined (glibc gives "").
 */
tilecopy_status_t tc_fail(tilecopy_status_t st, const char *fmt, ...)
{
	char buf[sizeof(tc_msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memcpy(tc_msg, buf, sizeof(tc_msg));
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

	if (!size)
		return buf;
	buf[0] = '\0';
	if (rank > TILECOPY_MAX_RANK)	/* a hand-made rank never walks off the array */
		rank = TILECOPY_MAX_RANK;
	for (int i = 0; i < rank && n < size; i++) {
		int w = snprintf(buf + n, size - n, "%s%lld", i ? "x" : "",
				 (long long)shape[i]);
		if (w < 0)
			break;
		n += (size_t)w;
	}
	if (n >= size && size > 4)
		strcpy(buf + size - 4, "...");
	return buf;
}

TILECOPY_API uint32_t tilecopy_version(void)
{
	return TILECOPY_VERSION;
}

#define TC_STR2(x) #x
#define TC_STR(x) TC_STR2(x)

TILECOPY_API const char *tilecopy_version_string(void)
{
	return TC_STR(TILECOPY_VERSION_MAJOR) "." TC_STR(TILECOPY_VERSION_MINOR) "."
	       TC_STR(TILECOPY_VERSION_PATCH);
}
