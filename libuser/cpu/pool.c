// SPDX-License-Identifier: MIT
/*
 * pool.c - the worker threads of the CPU executors, and the public calls
 * that set their number and CPU affinity.
 *
 * A worker is created the first time a call needs it and lives until the
 * process exits (or the library is unloaded). Between calls it spins for
 * TC_SPIN_NS, so that calls in a row find it awake on its own CPU, then
 * sleeps on a futex. Handing a part over is a store and, only when the
 * worker sleeps, a FUTEX_WAKE; the caller waits for the result the same way.
 * Whoever starts a part first owns it (one compare-and-swap): a caller done
 * with its own part takes back the parts whose worker has not woken yet,
 * so a slow wake-up never makes a call slower than running it alone.
 *
 * Placement: on these VMs the scheduler puts a newly woken thread on the
 * CPU of the thread that woke it (sched_vcpu_pack), so an unpinned worker
 * woken by a call usually queues behind its caller. By default every
 * worker is pinned to one CPU of the process's affinity mask, and a call
 * takes the workers of CPUs other than the one it runs on: caller and
 * workers then run side by side without the caller pinning anything.
 * tilecopy_cpu_set_affinity() and $TILECOPY_AFFINITY change the list or
 * turn pinning off.
 *
 * One caller at a time uses the workers (trylock); a concurrent call runs
 * all its parts itself rather than wait. After fork() the child starts
 * with no workers (they do not exist there).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "cpu/pool.h"

/*
 * Spin before sleeping: long enough to bridge back-to-back calls (a
 * 256 KiB job takes ~10 us, less than a wake-up of a sleeping thread on
 * another vCPU), short enough to cost little when calls are rare.
 */
#define TC_SPIN_NS	100000
#define TC_CPU_MAX	1024		/* CPU numbers we can pin to */

struct tc_worker {
	_Atomic uint32_t post;		/* bumped by the caller: a new part */
	_Atomic uint32_t done;		/* == post once the part is settled */
	_Atomic uint32_t claim;		/* 2 post: open; 2 post + 1: taken */
	_Atomic int sleeping;		/* the worker waits in futex(post) */
	_Atomic int waiter;		/* the caller waits in futex(done) */
	_Atomic int quit;
	tc_part_fn fn;
	void *arg;
	int cpu;			/* pinned to, or -1 */
	pthread_t tid;
} __attribute__((aligned(64)));

enum tc_aff_mode { TC_AFF_LIST, TC_AFF_NONE };

static struct {
	pthread_once_t once;
	_Atomic int ready;		/* tc_pool_init has run */
	pthread_mutex_t lock;		/* held by the call using the workers */
	_Atomic int threads;		/* tilecopy_cpu_set_threads; 0: default */
	int env_threads;		/* $TILECOPY_THREADS, else 1 */
	char env_error[192];		/* a bad $TILECOPY_THREADS/_AFFINITY */
	/* affinity: changed and read under @lock */
	enum tc_aff_mode mode;
	int ncpus;
	int cpus[TC_CPU_MAX];
	int auto_ncpus;			/* the default list */
	int auto_cpus[TC_CPU_MAX];
	/* workers, created on demand */
	struct tc_worker *pinned[TC_CPU_MAX];	/* by CPU number */
	struct tc_worker *free[TILECOPY_MAX_THREADS];	/* unpinned */
} tc_pool = {
	.once = PTHREAD_ONCE_INIT,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- futex and spinning ------------------------------------------------ */

static void tc_futex_wait(_Atomic uint32_t *p, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)p, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void tc_futex_wake(_Atomic uint32_t *p)
{
	syscall(SYS_futex, (uint32_t *)p, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static inline void tc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static uint64_t tc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Wait until *@p differs from @old and return the new value: spin for
 * TC_SPIN_NS (yielding now and then, in case the thread we wait for shares
 * this CPU), then sleep. @sleeping is raised before sleeping; the other
 * side stores *@p first and checks @sleeping second (both sequentially
 * consistent), so either we see the new value or it sees us asleep.
 */
static uint32_t tc_wait_change(_Atomic uint32_t *p, uint32_t old,
			       _Atomic int *sleeping)
{
	uint64_t t0 = 0;
	uint32_t v;

	for (unsigned i = 1;; i++) {
		v = atomic_load_explicit(p, memory_order_acquire);
		if (v != old)
			return v;
		tc_cpu_relax();
		if (i % 256)
			continue;
		if (!t0)
			t0 = tc_now_ns();
		else if (tc_now_ns() - t0 > TC_SPIN_NS)
			break;
		sched_yield();
	}
	for (;;) {
		atomic_store(sleeping, 1);
		v = atomic_load(p);
		if (v == old)
			tc_futex_wait(p, old);
		atomic_store(sleeping, 0);
		v = atomic_load_explicit(p, memory_order_acquire);
		if (v != old)
			return v;
	}
}

/* ---- workers ------------------------------------------------------------ */

static void *tc_worker_main(void *arg)
{
	struct tc_worker *w = arg;
	uint32_t seen = 0;

	for (;;) {
		uint32_t open;

		seen = tc_wait_change(&w->post, seen, &w->sleeping);
		if (atomic_load(&w->quit))
			return NULL;
		open = 2 * seen;
		/* the caller may have taken it back: then it is not ours to touch */
		if (atomic_compare_exchange_strong(&w->claim, &open, 2 * seen + 1))
			w->fn(w->arg);
		atomic_store(&w->done, seen);
		if (atomic_load(&w->waiter))
			tc_futex_wake(&w->done);
	}
}

/* A new worker, pinned to @cpu (>= 0) if the system lets us; NULL if no
 * thread can be created. Workers never take signals meant for the program. */
static struct tc_worker *tc_worker_new(int cpu)
{
	struct tc_worker *w = aligned_alloc(64, sizeof(*w));
	sigset_t all, old;
	pthread_attr_t attr;
	int err;

	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->cpu = cpu;
	if (pthread_attr_init(&attr)) {
		free(w);
		return NULL;
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&w->tid, &attr, tc_worker_main, w);
	if (err && cpu >= 0) {
		/* the CPU is outside our cpuset or offline: run unpinned */
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		w->cpu = -1;
		err = pthread_create(&w->tid, &attr, tc_worker_main, w);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		free(w);
		return NULL;
	}
	return w;
}

/*
 * Every earlier part of @w is settled (taken back, or done), so no worker
 * can still claim it: @fn and @arg are free to reuse.
 */
static void tc_worker_post(struct tc_worker *w, tc_part_fn fn, void *arg)
{
	uint32_t seq = atomic_load_explicit(&w->post, memory_order_relaxed) + 1;

	w->fn = fn;
	w->arg = arg;
	atomic_store(&w->claim, 2 * seq);
	atomic_store(&w->post, seq);
	if (atomic_load(&w->sleeping))
		tc_futex_wake(&w->post);
}

/* Take the part back if its worker has not started it; non-zero if so. */
static int tc_worker_steal(struct tc_worker *w)
{
	uint32_t seq = atomic_load_explicit(&w->post, memory_order_relaxed);
	uint32_t open = 2 * seq;

	return atomic_compare_exchange_strong(&w->claim, &open, 2 * seq + 1);
}

/*
 * Wait until the worker settled its latest part. (done may lag further
 * behind: a worker that slept through a part taken back settles it late.)
 */
static void tc_worker_wait(struct tc_worker *w)
{
	uint32_t want = atomic_load_explicit(&w->post, memory_order_relaxed), d;

	while ((d = atomic_load_explicit(&w->done, memory_order_acquire)) != want)
		tc_wait_change(&w->done, d, &w->waiter);
}

/* ---- settings ------------------------------------------------------------ */

/* "0,2,5" into @out (at most TC_CPU_MAX); 0 on a syntax error or no CPU. */
static int tc_parse_cpus(const char *s, int *out)
{
	int n = 0;

	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v >= TC_CPU_MAX || n == TC_CPU_MAX)
			return 0;
		out[n++] = (int)v;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return 0;
	}
	return n;
}

static void tc_pool_atfork_child(void)
{
	/* The workers were not copied; forget them (their memory is lost). */
	memset(tc_pool.pinned, 0, sizeof(tc_pool.pinned));
	memset(tc_pool.free, 0, sizeof(tc_pool.free));
	pthread_mutex_init(&tc_pool.lock, NULL);
}

/* $TILECOPY_THREADS: digits only, 1..TILECOPY_MAX_THREADS; else said. */
static void tc_pool_env_threads(void)
{
	const char *e = getenv("TILECOPY_THREADS");
	char *end;
	long n;

	tc_pool.env_threads = 1;
	if (!e || !*e)
		return;
	errno = 0;
	n = strtol(e, &end, 10);
	if (*e < '0' || *e > '9' || *end || errno || n < 1 || n > TILECOPY_MAX_THREADS) {
		snprintf(tc_pool.env_error, sizeof(tc_pool.env_error),
			 "$TILECOPY_THREADS: '%.40s' is not a thread count 1..%d",
			 e, TILECOPY_MAX_THREADS);
		return;
	}
	tc_pool.env_threads = (int)n;
}

static void tc_pool_init(void)
{
	const char *e;
	cpu_set_t set;

	tc_pool_env_threads();
	/* the process's mask (its main thread's), not the first caller's */
	CPU_ZERO(&set);
	if (!sched_getaffinity(getpid(), sizeof(set), &set)) {
		for (int c = 0; c < TC_CPU_MAX && c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				tc_pool.auto_cpus[tc_pool.auto_ncpus++] = c;
	}
	tc_pool.mode = TC_AFF_LIST;
	memcpy(tc_pool.cpus, tc_pool.auto_cpus, sizeof(tc_pool.cpus));
	tc_pool.ncpus = tc_pool.auto_ncpus;
	e = getenv("TILECOPY_AFFINITY");
	if (e && !strcmp(e, "none")) {
		tc_pool.mode = TC_AFF_NONE;
	} else if (e && *e && strcmp(e, "auto")) {
		int cpus[TC_CPU_MAX], k = tc_parse_cpus(e, cpus);

		if (k) {
			memcpy(tc_pool.cpus, cpus, sizeof(int) * (size_t)k);
			tc_pool.ncpus = k;
		} else if (!tc_pool.env_error[0]) {
			snprintf(tc_pool.env_error, sizeof(tc_pool.env_error),
				 "$TILECOPY_AFFINITY: '%.40s' is not \"none\", \"auto\" or a list of CPUs 0..%d (\"0,2,4\")",
				 e, TC_CPU_MAX - 1);
		}
	}
	pthread_atfork(NULL, NULL, tc_pool_atfork_child);
	atomic_store_explicit(&tc_pool.ready, 1, memory_order_release);
}

/* pthread_once costs a call and a barrier on every use; this a load. */
static inline void tc_pool_once(void)
{
	if (!atomic_load_explicit(&tc_pool.ready, memory_order_acquire))
		pthread_once(&tc_pool.once, tc_pool_init);
}

const char *tc_pool_env_error(void)
{
	tc_pool_once();
	return tc_pool.env_error[0] ? tc_pool.env_error : NULL;
}

unsigned tc_pool_threads(void)
{
	int n;

	tc_pool_once();
	n = atomic_load_explicit(&tc_pool.threads, memory_order_relaxed);
	return (unsigned)(n ? n : tc_pool.env_threads);
}

TILECOPY_API tilecopy_status_t tilecopy_cpu_set_threads(int n)
{
	if (n < 0 || n > TILECOPY_MAX_THREADS)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "n: %d threads; 1..%d, or 0 for the default", n,
			       TILECOPY_MAX_THREADS);
	tc_pool_once();
	atomic_store(&tc_pool.threads, n);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_cpu_threads(int *n)
{
	if (!n)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "n: NULL");
	if (tc_pool_env_error())
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s", tc_pool_env_error());
	*n = (int)tc_pool_threads();
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_cpu_set_affinity(const int *cpus, int ncpus)
{
	if (ncpus > TC_CPU_MAX)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "ncpus: %d; at most %d CPUs", ncpus, TC_CPU_MAX);
	if (ncpus > 0 && !cpus)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "cpus: NULL with ncpus %d",
			       ncpus);
	for (int i = 0; i < ncpus; i++)
		if (cpus[i] < 0 || cpus[i] >= TC_CPU_MAX)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "cpus[%d]: CPU %d; 0..%d", i, cpus[i],
				       TC_CPU_MAX - 1);
	tc_pool_once();
	pthread_mutex_lock(&tc_pool.lock);
	if (ncpus == 0) {
		tc_pool.mode = TC_AFF_NONE;
	} else if (ncpus < 0) {
		tc_pool.mode = TC_AFF_LIST;
		memcpy(tc_pool.cpus, tc_pool.auto_cpus, sizeof(tc_pool.cpus));
		tc_pool.ncpus = tc_pool.auto_ncpus;
	} else {
		tc_pool.mode = TC_AFF_LIST;
		memcpy(tc_pool.cpus, cpus, sizeof(int) * (size_t)ncpus);
		tc_pool.ncpus = ncpus;
	}
	pthread_mutex_unlock(&tc_pool.lock);
	return tc_ok();
}

/* ---- running parts --------------------------------------------------------- */

/*
 * Up to @m workers for this call, under the lock: pinned ones on listed
 * CPUs after the caller's, skipping the caller's own, then unpinned ones.
 */
static unsigned tc_pool_pick(struct tc_worker **out, unsigned m)
{
	unsigned got = 0, nfree = 0;
	int self = sched_getcpu(), start = 0;

	if (tc_pool.mode == TC_AFF_LIST) {
		for (int i = 0; i < tc_pool.ncpus; i++)
			if (tc_pool.cpus[i] == self) {
				start = i + 1;
				break;
			}
		for (int i = 0; i < tc_pool.ncpus && got < m; i++) {
			int cpu = tc_pool.cpus[(start + i) % tc_pool.ncpus];
			struct tc_worker *w;
			unsigned j;

			if (cpu == self)
				continue;
			if (!tc_pool.pinned[cpu])
				tc_pool.pinned[cpu] = tc_worker_new(cpu);
			w = tc_pool.pinned[cpu];
			for (j = 0; j < got && out[j] != w; j++)
				;
			if (w && j == got)	/* a CPU listed twice: once */
				out[got++] = w;
		}
	}
	while (got < m && nfree < TILECOPY_MAX_THREADS) {
		if (!tc_pool.free[nfree])
			tc_pool.free[nfree] = tc_worker_new(-1);
		if (!tc_pool.free[nfree])
			break;
		out[got++] = tc_pool.free[nfree++];
	}
	return got;
}

void tc_pool_run(tc_part_fn fn, void *parts, size_t size, unsigned n,
		 size_t bytes)
{
	struct tc_worker *w[TILECOPY_MAX_THREADS];
	char *p = parts;
	unsigned got = 0, i;
	int locked = 0;

	if (n > TILECOPY_MAX_THREADS)
		n = TILECOPY_MAX_THREADS;
	tc_pool_once();
	if (n > 1 && !pthread_mutex_trylock(&tc_pool.lock)) {
		locked = 1;
		got = tc_pool_pick(w, n - 1);
		if (bytes < TC_POOL_WAKE_MIN) {	/* keep only the awake ones */
			for (i = 0; i < got;) {
				if (atomic_load(&w[i]->sleeping))
					w[i] = w[--got];
				else
					i++;
			}
		}
		for (i = 0; i < got; i++)
			tc_worker_post(w[i], fn, p + (i + 1) * size);
	}
	fn(p);
	for (i = got + 1; i < n; i++)	/* parts no worker was found for */
		fn(p + i * size);
	for (i = got; i-- > 0;) {
		if (tc_worker_steal(w[i]))
			fn(p + (i + 1) * size);	/* its worker is still asleep */
		else
			tc_worker_wait(w[i]);
	}
	if (locked)
		pthread_mutex_unlock(&tc_pool.lock);
}

static void tc_worker_stop(struct tc_worker *w)
{
	if (!w)
		return;
	atomic_store(&w->quit, 1);
	tc_worker_post(w, NULL, NULL);	/* wakes it; quit is seen first */
	pthread_join(w->tid, NULL);
	free(w);
}

/*
 * At exit or dlclose: stop the workers, so none is left running code that
 * is about to be unmapped. A call still running on another thread keeps
 * them (and the process is ending anyway).
 */
__attribute__((destructor)) static void tc_pool_fini(void)
{
	if (pthread_mutex_trylock(&tc_pool.lock))
		return;
	for (int c = 0; c < TC_CPU_MAX; c++) {
		tc_worker_stop(tc_pool.pinned[c]);
		tc_pool.pinned[c] = NULL;
	}
	for (int i = 0; i < TILECOPY_MAX_THREADS; i++) {
		tc_worker_stop(tc_pool.free[i]);
		tc_pool.free[i] = NULL;
	}
	pthread_mutex_unlock(&tc_pool.lock);
}
