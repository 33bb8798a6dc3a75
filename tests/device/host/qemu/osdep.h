/*
 * Stand-in for QEMU's qemu/osdep.h when the engine model's transposes
 * (qemu/tilecopy-transpose.c) are built on their own, outside QEMU, for
 * tests/device/test_transpose_host.c: the few macros that file uses, and
 * the CPU feature checks routed to the test (which masks features).
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef TC_HOST_OSDEP_H
#define TC_HOST_OSDEP_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

/* the test's: the host's answer, unless the test masked the feature */
int tc_host_cpu_supports(const char *feature);
#define __builtin_cpu_supports(f) tc_host_cpu_supports(f)

#endif
