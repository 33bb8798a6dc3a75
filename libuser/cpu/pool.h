/* SPDX-License-Identifier: MIT */
/*
 * pool.h - the CPU executors' worker threads (internal).
 *
 * Workers are created on first use and parked between calls: a short spin
 * (so back-to-back calls find them running), then a futex. By default each
 * worker is pinned to one CPU and a call takes workers on CPUs other than
 * its own: on a VM whose scheduler places a woken thread on the waker's
 * CPU, an unpinned worker would run after its caller instead of beside it.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_POOL_H
#define TILECOPY_CPU_POOL_H

#include <stddef.h>

typedef void (*tc_part_fn)(void *part);

/*
 * tc_pool_env_error - why $TILECOPY_THREADS or $TILECOPY_AFFINITY (read
 * once, at first use) is refused, or NULL: CPU executions fail with it
 * rather than run with a setting the user did not ask for.
 */
const char *tc_pool_env_error(void);

/** tc_pool_threads - the thread count a call may use now (>= 1). */
unsigned tc_pool_threads(void);

/*
 * A worker asleep (no call for TC_SPIN_NS) is woken only for jobs writing
 * this much: a wake-up is a futex call and an interrupt to another vCPU at
 * best, and milliseconds when a niced job holds that vCPU (measured here);
 * a 0.6 MB C = 3 image ran at 0.62x on two threads when every call woke
 * its worker.
 */
#define TC_POOL_WAKE_MIN	(2u << 20)

/**
 * tc_pool_run - run @fn on @n parts, @size bytes apart from @parts: part 0
 * on the calling thread, the others on workers; returns when all are done.
 * @bytes: what the whole job writes (see TC_POOL_WAKE_MIN). Parts no
 * worker takes (another thread holds the pool, a thread could not be
 * created, the worker sleeps through a small job) run on the caller, so
 * the call always completes.
 */
void tc_pool_run(tc_part_fn fn, void *parts, size_t size, unsigned n,
		 size_t bytes);

#endif /* TILECOPY_CPU_POOL_H */
