/* Stand-in for QEMU's qemu/units.h (see osdep.h here). SPDX-License-Identifier: MIT */
#ifndef TC_HOST_UNITS_H
#define TC_HOST_UNITS_H
#define KiB (1024ULL)
#define MiB (1024ULL * KiB)
#endif
