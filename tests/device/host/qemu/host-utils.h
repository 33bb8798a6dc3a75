/* Stand-in for QEMU's qemu/host-utils.h (see osdep.h here). SPDX-License-Identifier: MIT */
#ifndef TC_HOST_HOST_UTILS_H
#define TC_HOST_HOST_UTILS_H
static inline int ctz32(uint32_t v)
{
	return v ? __builtin_ctz(v) : 32;
}
#endif
