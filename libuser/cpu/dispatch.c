// SPDX-License-Identifier: MIT
/*
 * dispatch.c - choose a CPU executor: by name, by $TILECOPY_CPU, or the best
 * one this CPU can run (cpuid through __builtin_cpu_supports).
 *
 * An unknown name is -EINVAL and an unavailable one -ENODEV: a forced choice
 * never silently falls back, so a test that asks for "avx512" really ran it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_exec.h"
#include "cpu/exec_isa.h"

static int scalar_available(void)
{
	return 1;
}

static const struct tc_cpu_backend tc_backend_scalar = {
	.name = "scalar",
	.available = scalar_available,
	.exec = tc_exec_scalar,
};

/* Best first: the first available entry is the default. */
static const struct tc_cpu_backend *const tc_backends[] = {
#if defined(__x86_64__)
	&tc_backend_avx512,
	&tc_backend_avx2,
	&tc_backend_sse2,
#elif defined(__aarch64__)
	&tc_backend_neon,
#endif
	&tc_backend_scalar,
};

#define TC_NBACKENDS (sizeof(tc_backends) / sizeof(tc_backends[0]))

/* Names valid on some build, so "neon" on x86 is -ENODEV, not -EINVAL. */
static const char *const tc_known_names[] = {
	"scalar", "sse2", "avx2", "avx512", "neon",
};

static const struct tc_cpu_backend *tc_backend_lookup(const char *name, int *err)
{
	size_t i;

	for (i = 0; i < TC_NBACKENDS; i++) {
		if (strcmp(tc_backends[i]->name, name))
			continue;
		if (!tc_backends[i]->available()) {
			*err = -ENODEV;
			return NULL;
		}
		*err = 0;
		return tc_backends[i];
	}
	for (i = 0; i < sizeof(tc_known_names) / sizeof(tc_known_names[0]); i++) {
		if (!strcmp(tc_known_names[i], name)) {
			*err = -ENODEV;	/* not built for this architecture */
			return NULL;
		}
	}
	*err = -EINVAL;
	return NULL;
}

const struct tc_cpu_backend *tc_cpu_backend_get(const char *name, int *err)
{
	int dummy;
	size_t i;

	if (!err)
		err = &dummy;
	if (!name) {
		name = getenv("TILECOPY_CPU");
		if (name && !*name)
			name = NULL;
	}
	if (name)
		return tc_backend_lookup(name, err);

	for (i = 0; i < TC_NBACKENDS; i++) {
		if (tc_backends[i]->available()) {
			*err = 0;
			return tc_backends[i];
		}
	}
	*err = -ENODEV;		/* unreachable: scalar is always available */
	return NULL;
}
