// SPDX-License-Identifier: MIT
/*
 * dispatch.c - choose a CPU executor: by name, by $TILECOPY_CPU, or the best
 * one this CPU can run (cpuid through __builtin_cpu_supports).
 *
 * $TILECOPY_CPU is read once, at the first call that needs it: getenv()
 * walks the whole environment (~300 instructions here, more than the rest
 * of a 4 KB conversion's overhead).
 *
 * An unknown name is -EINVAL and an unavailable one -ENODEV: a forced choice
 * never silently falls back, so a test that asks for "avx512" really ran it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
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
	.exec_scales = tc_exec_scalar_scales,
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

/* The best available executor, found once (cpuid does not change). */
static const struct tc_cpu_backend *tc_backend_best(void)
{
	static const struct tc_cpu_backend *_Atomic best;
	const struct tc_cpu_backend *b = atomic_load_explicit(&best, memory_order_acquire);

	for (size_t i = 0; !b && i < TC_NBACKENDS; i++)
		if (tc_backends[i]->available())
			b = tc_backends[i];
	atomic_store_explicit(&best, b, memory_order_release);
	return b;
}

static struct {
	pthread_mutex_t lock;
	_Atomic int read;
	int set;
	char name[32];
} tc_env = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tc_cpu_backend_env_reload(void)
{
	pthread_mutex_lock(&tc_env.lock);
	atomic_store(&tc_env.read, 0);
	pthread_mutex_unlock(&tc_env.lock);
}

/* $TILECOPY_CPU as it was at the first call (or the last reload); NULL if
 * unset or empty. A value too long for any executor name stays invalid. */
static const char *tc_env_cpu(void)
{
	if (!atomic_load_explicit(&tc_env.read, memory_order_acquire)) {
		pthread_mutex_lock(&tc_env.lock);
		if (!atomic_load(&tc_env.read)) {
			const char *e = getenv("TILECOPY_CPU");

			tc_env.set = e && *e;
			snprintf(tc_env.name, sizeof(tc_env.name), "%s", e ? e : "");
			atomic_store_explicit(&tc_env.read, 1, memory_order_release);
		}
		pthread_mutex_unlock(&tc_env.lock);
	}
	return tc_env.set ? tc_env.name : NULL;
}

const struct tc_cpu_backend *tc_cpu_backend_get(const char *name, int *err)
{
	const struct tc_cpu_backend *b;
	int dummy;

	if (!err)
		err = &dummy;
	if (!name)
		name = tc_env_cpu();
	if (name)
		return tc_backend_lookup(name, err);
	b = tc_backend_best();
	*err = b ? 0 : -ENODEV;	/* scalar is always available */
	return b;
}
