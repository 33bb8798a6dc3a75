// SPDX-License-Identifier: MIT
/*
 * test_abuse - what a hostile or careless user does, each answered with the
 * documented errno (docs/uapi.md) while the engine keeps serving a second
 * process (a bystander that runs checked jobs meanwhile):
 *
 *   flood      one file submits until SUBMIT says -EBUSY: jobs in flight
 *              (then WAIT for one, SUBMIT again: no -EBUSY),
 *              then descriptor memory (GET_PARAM MAX_FILE_JOBS,
 *              MAX_FILE_DESC_BYTES)
 *   work       a FILL of 2^64 one-byte writes: -E2BIG (MAX_JOB_ELEMS); rows
 *              longer than DRM_TILECOPY_MAX_ROW_ELEMS, merged ones too:
 *              -E2BIG; forced resets under the longest rows do not wedge
 *   opens      100 files of one process, each with a BO and a job: all run
 *              (the engine's 64 MMU contexts go to files with jobs on it)
 *   ban        a file whose jobs hang the engine 3 times: its queued jobs are
 *              cancelled, its SUBMITs fail with -ECANCELED (BAN_HANGS)
 *   dep        a producer that hangs (TIMEOUT): the job waiting on its
 *              out-syncobj, and the one waiting on that job's, are
 *              CANCELLED and write nothing; so is a consumer on the
 *              producer's own queue (already on the ring behind it), from
 *              the same file and from another; after a producer that
 *              succeeded the consumer runs
 *   race       six threads on one file: GEM_CLOSE against BO_CREATE,
 *              BO_INFO and SUBMIT; only documented errnos, and the harness
 *              fails the run on any WARNING in dmesg
 *   tdr        (tcase of its own) files banned with jobs queued while the
 *              scheduler's timer fires on jobs the engine never got
 *
 * Needs hang-queue-mask (ban) and delay-ns-per-kb (a flood that the engine
 * cannot drain as fast as it comes); job_timeout_ms small keeps it short.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc_guest.h"

/* ---- the bystander: another process whose jobs must go on ---------------- */

struct bystander {
	pid_t pid;
	int done_fd;	/* read end: one byte per checked job */
};

static void bystander_loop(int out, uint32_t queue)
{
	int fd = tc_open();
	struct tc_bo a, b;
	uint32_t bos[2];

	tc_bo_new(fd, 4096, 0, &a);
	tc_bo_new(fd, 4096, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	for (uint32_t i = 1;; i++) {
		struct drm_tilecopy_desc d;
		uint64_t job;
		char c = 1;

		tc_pattern(a.map, 4096, i);
		tc_desc_memcpy(&d, b.va, a.va, 4096);
		if (tc_submit(fd, &d, 1, bos, 2, queue, &job) ||
		    tc_wait_status(fd, job) != DRM_TILECOPY_STATUS_OK ||
		    memcmp(a.map, b.map, 4096))
			_exit(1);
		if (write(out, &c, 1) != 1)
			_exit(0);
	}
}

static void bystander_start(struct bystander *b, uint32_t queue)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	b->pid = fork();
	ck_assert_int_ge(b->pid, 0);
	if (!b->pid) {
		close(p[0]);
		signal(SIGPIPE, SIG_IGN);	/* the parent's close ends the loop */
		bystander_loop(p[1], queue);
	}
	close(p[1]);
	b->done_fd = p[0];
	fcntl(b->done_fd, F_SETFL, O_NONBLOCK);
}

/* Jobs the bystander completed since the last call. */
static int bystander_count(struct bystander *b)
{
	char buf[256];
	ssize_t r;
	int n = 0;

	while ((r = read(b->done_fd, buf, sizeof(buf))) > 0)
		n += r;
	return n;
}

/* Wait until the bystander completes one more job (it may take a while:
 * the abuse slows the engine down, it must not stop it). */
static void bystander_progress(struct bystander *b, const char *during)
{
	int64_t end = tc_now_ns() + 60ll * 1000000000;

	bystander_count(b);
	while (!bystander_count(b)) {
		int st;

		ck_assert_msg(waitpid(b->pid, &st, WNOHANG) == 0,
			      "the bystander failed during %s (status 0x%x)", during, st);
		ck_assert_msg(tc_now_ns() < end, "the bystander made no progress during %s",
			      during);
		usleep(1000);
	}
}

static void bystander_stop(struct bystander *b)
{
	int st;

	close(b->done_fd);	/* its next write fails: it exits 0 */
	ck_assert_int_eq(waitpid(b->pid, &st, 0), b->pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "bystander status 0x%x", st);
}

/* ---- abuse ------------------------------------------------------------------ */

/*
 * SUBMIT @big (@ndesc descriptors on BO @bh) behind a gate of @gates
 * chained copies until SUBMIT refuses (*r) or 40 jobs went in; their ids
 * in @jobs[*nbig]. Returns 1 when the gate opened before that (the attempt
 * says nothing about the limit), else 0.
 */
static int flood_behind_gate(int fd, int gates, const struct drm_tilecopy_desc *big,
			     uint32_t ndesc, uint32_t bh, uint64_t *jobs, uint32_t *nbig, int *r)
{
	uint64_t gate_bytes = (uint64_t)(tc_get_param(fd, DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS) *
					 7 / 10 / tc_device_prop("delay-ns-per-kb")) << 10;
	struct tc_bo gs, gd;
	uint32_t sync[2], gbos[2];
	struct drm_tilecopy_desc g;
	int opened = 0;

	gate_bytes = gate_bytes > (4 << 20) ? 4 << 20 : gate_bytes;
	tc_bo_new(fd, gate_bytes, 0, &gs);
	tc_bo_new(fd, gate_bytes, 0, &gd);
	gbos[0] = gs.handle;
	gbos[1] = gd.handle;
	tc_assert_ok(drmSyncobjCreate(fd, 0, &sync[0]));
	tc_assert_ok(drmSyncobjCreate(fd, 0, &sync[1]));
	tc_desc_memcpy(&g, gd.va, gs.va, gate_bytes);
	/* an even count: the last gate job's fence ends up in sync[0] */
	for (int k = 0; k < gates; k++) {
		struct drm_tilecopy_submit sa = {
			.descs = (uintptr_t)&g, .bo_handles = (uintptr_t)gbos,
			.desc_count = 1, .desc_size = sizeof(g), .bo_count = 2, .queue = 1,
			.in_syncobjs = (uintptr_t)&sync[k % 2], .in_syncobj_count = k > 0,
			.out_syncobj = sync[(k + 1) % 2],
		};

		tc_assert_ok(tc_submit_args(fd, &sa));
	}
	for (;;) {
		struct drm_tilecopy_submit sa = {
			.descs = (uintptr_t)big, .bo_handles = (uintptr_t)&bh,
			.desc_count = ndesc, .desc_size = sizeof(*big), .bo_count = 1,
			.queue = 2, .in_syncobjs = (uintptr_t)&sync[0], .in_syncobj_count = 1,
		};

		*r = tc_submit_args(fd, &sa);
		if (*r)
			break;	/* EBUSY is the limit whether or not the gate is open now */
		jobs[(*nbig)++] = sa.job_id;
		/* the gate open (a poll: the deadline is in the past)? */
		opened = !drmSyncobjWait(fd, &sync[0], 1, 0, 0, NULL);
		if (opened)
			break;
		ck_assert_uint_lt(*nbig, 40);
	}
	drmSyncobjDestroy(fd, sync[0]);
	drmSyncobjDestroy(fd, sync[1]);
	tc_bo_free(fd, &gs);
	tc_bo_free(fd, &gd);
	return opened;
}

START_TEST(test_flood)
{
	int fd = tc_open();
	uint64_t max_jobs = tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_FILE_JOBS);
	uint64_t max_bytes = tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_FILE_DESC_BYTES);
	const uint32_t size = 8 << 10;
	uint64_t *jobs = calloc(4 * max_jobs, sizeof(*jobs));
	struct drm_tilecopy_desc *big;
	struct bystander by;
	struct tc_bo a, b;
	uint32_t bos[2], n = 0, nbig = 0, ndesc = 16384;
	int r;

	bystander_start(&by, 1);
	tc_bo_new(fd, size, 0, &a);
	tc_bo_new(fd, size, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	/* many slow jobs on one queue: the engine drains them far slower */
	for (;;) {
		struct drm_tilecopy_desc d;

		tc_desc_memcpy(&d, b.va, a.va, size);
		r = tc_submit(fd, &d, 1, bos, 2, 0, &jobs[n]);
		if (r)
			break;
		ck_assert_uint_lt(++n, 4 * max_jobs);
	}
	tc_assert_err(r, EBUSY);
	ck_assert_uint_ge(n, max_jobs);
	fprintf(stderr, "test_flood: -EBUSY after %u jobs (limit %llu in flight)\n", n,
		(unsigned long long)max_jobs);
	/*
	 * "WAIT for one of them, submit again": a job that WAIT saw finish no
	 * longer counts, even if the kernel has not freed it yet (it once
	 * counted until a worker freed it: EBUSY right after a WAIT).
	 */
	{
		/* the jobs not waited for are the most that can count */
		uint32_t w = 0;

		while (n - w >= max_jobs)
			ck_assert_uint_eq(tc_wait_status(fd, jobs[w++]), DRM_TILECOPY_STATUS_OK);
		for (int i = 0; i < 64; i++) {
			struct drm_tilecopy_desc d;

			tc_desc_memcpy(&d, b.va, a.va, size);
			tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, 0, &jobs[n]));
			n++;
			ck_assert_uint_eq(tc_wait_status(fd, jobs[w++]), DRM_TILECOPY_STATUS_OK);
		}
		memmove(jobs, jobs + w, (n - w) * sizeof(*jobs));
		n -= w;
	}
	bystander_progress(&by, "a flood of one queue");
	for (uint32_t i = 0; i < n; i++)
		ck_assert_uint_eq(tc_wait_status(fd, jobs[i]), DRM_TILECOPY_STATUS_OK);

	/*
	 * Descriptor memory: jobs of TC_MAX_DESCS descriptors, 3 MiB each,
	 * of one byte each (the slowed engine takes its time per byte written:
	 * these jobs stay far from job_timeout_ms).
	 */
	big = calloc(ndesc, sizeof(*big));
	for (uint32_t i = 0; i < ndesc; i++)
		tc_desc_fill(&big[i], b.va + i % size, i & 0xff, 1, 1, (uint32_t[]){ 1 },
			     (uint64_t[]){ 1 });
	/*
	 * They wait for a gate of chained copies (each well below
	 * job_timeout_ms): a small job per file would drain faster than the
	 * caller submits 3 MiB of descriptors. Whether the gate outlasts the
	 * flood depends on the machine's speed, so the gate is watched: an
	 * attempt whose gate opened before EBUSY proves nothing and is
	 * repeated with a gate four times longer, and the verdict is only
	 * taken on an attempt whose jobs all still waited.
	 */
	for (int gates = 4;; gates *= 4) {
		ck_assert_msg(gates <= 64,
			      "the engine ran a gate of %d chained jobs before %u SUBMITs of %u descriptors",
			      gates / 4, nbig, ndesc);
		nbig = 0;
		if (!flood_behind_gate(fd, gates, big, ndesc, b.handle, jobs, &nbig, &r))
			break;
		fprintf(stderr, "test_flood: the gate of %d jobs opened after %u SUBMITs; again, longer\n",
			gates, nbig);
		for (uint32_t i = 0; i < nbig; i++)
			ck_assert_uint_eq(tc_wait_status(fd, jobs[i]), DRM_TILECOPY_STATUS_OK);
	}
	tc_assert_err(r, EBUSY);
	ck_assert_uint_ge((uint64_t)nbig * ndesc * sizeof(*big), max_bytes - ndesc * sizeof(*big));
	fprintf(stderr, "test_flood: -EBUSY after %u jobs of %u descriptors (limit %llu bytes)\n",
		nbig, ndesc, (unsigned long long)max_bytes);
	bystander_progress(&by, "a flood of descriptor memory");
	for (uint32_t i = 0; i < nbig; i++)
		ck_assert_uint_eq(tc_wait_status(fd, jobs[i]), DRM_TILECOPY_STATUS_OK);
	/* the file works again once its jobs are done (and freed) */
	{
		struct drm_tilecopy_desc d;
		uint64_t job;
		int64_t end = tc_now_ns() + 10ll * 1000000000;

		tc_desc_write64(&d, b.va, 7);
		while ((r = tc_submit(fd, &d, 1, &b.handle, 1, 0, &job)) == -EBUSY &&
		       tc_now_ns() < end)
			usleep(1000);
		tc_assert_ok(r);
		ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	}
	bystander_stop(&by);
	free(big);
	free(jobs);
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	close(fd);
}
END_TEST

START_TEST(test_work_bound)
{
	int fd = tc_open();
	struct bystander by;
	struct drm_tilecopy_desc d;
	struct tc_bo bo;
	uint64_t job;

	bystander_start(&by, 1);
	tc_bo_new(fd, 4096, 0, &bo);
	/* one byte, written 2^32-1 x 2^32-1 times (stride 0) */
	tc_desc_fill(&d, bo.va, 0x5a, 1, 2, (uint32_t[]){ 0xffffffffu, 0xffffffffu },
		     (uint64_t[]){ 0, 0 });
	tc_assert_err(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job), E2BIG);
	/* the file is fine: a small FILL of the same byte runs */
	tc_desc_fill(&d, bo.va, 0x5a, 1, 2, (uint32_t[]){ 16, 16 }, (uint64_t[]){ 0, 0 });
	tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint8_t *)bo.map)[0], 0x5a);
	/*
	 * Rows: the engine stops for a reset between rows only. One row of
	 * 2^32 - 1 one-byte writes (within the work bound) once took a minute
	 * and wedged the device for everyone at the next reset.
	 */
	tc_desc_fill(&d, bo.va, 0x5a, 1, 1, (uint32_t[]){ 0xffffffffu }, (uint64_t[]){ 0 });
	tc_assert_err(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job), E2BIG);
	/* the engine merges [2^20, 4096] of stride 0 into that row too */
	tc_desc_fill(&d, bo.va, 0x5a, 1, 2, (uint32_t[]){ 1u << 20, 4096 },
		     (uint64_t[]){ 0, 0 });
	tc_assert_err(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job), E2BIG);
	{
		/* strided rows have the bound too (here 2 MiB + 2 bytes long) */
		struct tc_bo big;

		tc_bo_new(fd, 4 << 20, 0, &big);
		tc_desc_fill(&d, big.va, 0x5a, 1, 1, (uint32_t[]){ (1u << 20) + 1 },
			     (uint64_t[]){ 2 });
		tc_assert_err(tc_submit(fd, &d, 1, &big.handle, 1, 0, &job), E2BIG);
		tc_bo_free(fd, &big);
	}
	/* the longest row runs */
	tc_desc_fill(&d, bo.va, 0x5b, 1, 1, (uint32_t[]){ 1u << 20 }, (uint64_t[]){ 0 });
	tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint8_t *)bo.map)[0], 0x5b);
	bystander_progress(&by, "work-bound refusals");
	bystander_stop(&by);

	/*
	 * A reset while rows of the longest length run (4096 of them, not
	 * merged: dimension 1 has stride 1) stops the engine: the device
	 * comes back, whenever the reset lands.
	 */
	tc_bo_free(fd, &bo);
	close(fd);
	for (int i = 0; i < 3; i++) {
		uint32_t st;

		/* a file each: the job may time out (job_timeout_ms) and count */
		fd = tc_open();
		tc_bo_new(fd, 4096, 0, &bo);
		tc_desc_fill(&d, bo.va, 0x5c, 1, 2, (uint32_t[]){ 1u << 20, 64 },
			     (uint64_t[]){ 0, 1 });
		tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, i, &job));
		usleep(20000 * i);
		tc_assert_ok(tc_force_reset(0));
		ck_assert_int_eq(tc_sysfs_stat(0, "wedged"), 0);
		st = tc_wait_status(fd, job);
		ck_assert_msg(st == DRM_TILECOPY_STATUS_OK || st == DRM_TILECOPY_STATUS_RESET ||
			      st == DRM_TILECOPY_STATUS_TIMEOUT, "status %u", st);
		tc_bo_free(fd, &bo);
		close(fd);
	}
	fd = tc_open();
	tc_bo_new(fd, 4096, 0, &bo);
	tc_desc_write64(&d, bo.va, 0x600d);
	tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

START_TEST(test_many_opens)
{
	enum { NFILES = 100 };
	int fd[NFILES];
	struct tc_bo bo[NFILES];
	uint64_t job[NFILES];
	struct bystander by;
	char path[512], buf[4096];
	int dfd;
	ssize_t r;

	bystander_start(&by, 1);
	for (int i = 0; i < NFILES; i++) {
		struct drm_tilecopy_desc d;

		fd[i] = tc_open();	/* more files than the engine has contexts */
		tc_bo_new(fd[i], 4096, 0, &bo[i]);
		tc_desc_write64(&d, bo[i].va, 0xf11e0000u + i);
		tc_assert_ok(tc_submit(fd[i], &d, 1, &bo[i].handle, 1, i % 2 ? 2 : 0, &job[i]));
	}
	bystander_progress(&by, "100 open files");
	for (int i = 0; i < NFILES; i++) {
		ck_assert_uint_eq(tc_wait_status(fd[i], job[i]), DRM_TILECOPY_STATUS_OK);
		ck_assert_uint_eq(*(uint64_t *)bo[i].map, 0xf11e0000u + i);
	}
	tc_debugfs_path(0, "queues", path, sizeof(path));
	dfd = open(path, O_RDONLY);
	ck_assert_int_ge(dfd, 0);
	r = read(dfd, buf, sizeof(buf) - 1);
	close(dfd);
	ck_assert_int_gt(r, 0);
	buf[r] = 0;
	ck_assert_msg(strstr(buf, "engine contexts in use: "), "%s", buf);
	ck_assert_int_le(atoi(strstr(buf, "engine contexts in use: ") + 24), 64);
	for (int i = 0; i < NFILES; i++) {
		tc_bo_free(fd[i], &bo[i]);
		close(fd[i]);
	}
	bystander_stop(&by);
}
END_TEST

START_TEST(test_ban)
{
	long mask = tc_device_prop("hang-queue-mask");
	uint32_t hq = __builtin_ctzl(mask);
	int fd = tc_open(), fd2;
	uint64_t ban = tc_get_param(fd, DRM_TILECOPY_PARAM_BAN_HANGS);
	struct bystander by;
	struct drm_tilecopy_desc d;
	struct tc_bo bo;
	uint64_t job[8], extra;
	int timeouts = 0, cancelled = 0;

	ck_assert(mask);
	ck_assert_uint_eq(ban, 3);
	bystander_start(&by, 0);
	tc_bo_new(fd, 4096, 0, &bo);
	tc_desc_write64(&d, bo.va, 1);
	/* ban + 2 jobs queued at once on the queue where every job hangs */
	for (uint64_t i = 0; i < ban + 2; i++)
		tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, hq, &job[i]));
	for (uint64_t i = 0; i < ban + 2; i++) {
		uint32_t st = tc_wait_status(fd, job[i]);

		if (st == DRM_TILECOPY_STATUS_TIMEOUT)
			timeouts++;
		else if (st == DRM_TILECOPY_STATUS_CANCELLED)
			cancelled++;
		else
			ck_abort_msg("job %llu: status %u", (unsigned long long)i, st);
	}
	/* each hang was the file's; at the third, the rest was cancelled */
	ck_assert_int_eq(timeouts, ban);
	ck_assert_int_eq(cancelled, 2);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FILE_HANGS), ban);
	/* banned: every queue refuses its jobs */
	tc_desc_write64(&d, bo.va, 2);
	tc_assert_err(tc_submit(fd, &d, 1, &bo.handle, 1, hq, &extra), ECANCELED);
	tc_assert_err(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &extra), ECANCELED);
	bystander_progress(&by, "a banned file");
	/* a new file of the same process starts clean */
	fd2 = tc_open();
	ck_assert_uint_eq(tc_get_param(fd2, DRM_TILECOPY_PARAM_FILE_HANGS), 0);
	close(fd2);
	bystander_stop(&by);
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

/* ---- a failed producer cancels its consumers ------------------------------ */

/* One WRITE64 job on @q, waiting on @in (0: none), signalling @out (0: none). */
static uint64_t submit_dep(int fd, const struct drm_tilecopy_desc *d, uint32_t bo, uint32_t q,
			   uint32_t in, uint32_t out)
{
	struct drm_tilecopy_submit sa = {
		.descs = (uintptr_t)d, .bo_handles = (uintptr_t)&bo,
		.desc_count = 1, .desc_size = sizeof(*d), .bo_count = 1, .queue = q,
		.in_syncobjs = (uintptr_t)&in, .in_syncobj_count = in != 0,
		.out_syncobj = out,
	};

	tc_assert_ok(tc_submit_args(fd, &sa));
	return sa.job_id;
}

START_TEST(test_dep_failed)
{
	uint32_t hq = __builtin_ctzl(tc_device_prop("hang-queue-mask"));
	int fd = tc_open();
	struct drm_tilecopy_desc d;
	struct tc_bo prod, cons;
	uint32_t s1, s2, s3;
	uint64_t jp, jc, jc2;
	volatile uint64_t *out;

	tc_bo_new(fd, 4096, 0, &prod);
	tc_bo_new(fd, 4096, 0, &cons);
	out = cons.map;
	tc_assert_ok(drmSyncobjCreate(fd, 0, &s1));
	tc_assert_ok(drmSyncobjCreate(fd, 0, &s2));
	tc_assert_ok(drmSyncobjCreate(fd, 0, &s3));
	/* the producer hangs; its consumer and the consumer's consumer */
	tc_desc_write64(&d, prod.va, 0x42);
	jp = submit_dep(fd, &d, prod.handle, hq, 0, s1);
	tc_desc_write64(&d, cons.va, 0x77);
	jc = submit_dep(fd, &d, cons.handle, 0, s1, s2);
	tc_desc_write64(&d, cons.va + 8, 0x78);
	jc2 = submit_dep(fd, &d, cons.handle, 1, s2, 0);
	ck_assert_uint_eq(tc_wait_status(fd, jp), DRM_TILECOPY_STATUS_TIMEOUT);
	ck_assert_uint_eq(tc_wait_status(fd, jc), DRM_TILECOPY_STATUS_CANCELLED);
	ck_assert_uint_eq(tc_wait_status(fd, jc2), DRM_TILECOPY_STATUS_CANCELLED);
	ck_assert_uint_eq(out[0], 0);
	ck_assert_uint_eq(out[1], 0);
	/*
	 * On the producer's queue: the scheduler only orders the two (from
	 * one file it drops the dependency), so the consumer reaches the ring
	 * behind the producer; the reset after the hang must cancel it, not
	 * give it to the engine again. From the same file, then another file.
	 */
	for (int other = 0; other < 2; other++) {
		int fd2 = other ? tc_open() : fd;
		uint32_t s4, h2 = cons.handle;
		struct tc_bo cons2;
		volatile uint64_t *out2 = out;

		tc_assert_ok(drmSyncobjCreate(fd, 0, &s4));
		tc_desc_write64(&d, prod.va, 0x44);
		jp = submit_dep(fd, &d, prod.handle, hq, 0, s4);
		if (other) {
			int sfd;

			tc_assert_ok(drmSyncobjHandleToFD(fd, s4, &sfd));
			drmSyncobjDestroy(fd, s4);
			tc_assert_ok(drmSyncobjFDToHandle(fd2, sfd, &s4));
			close(sfd);
			tc_bo_new(fd2, 4096, 0, &cons2);
			h2 = cons2.handle;
			out2 = cons2.map;
			tc_desc_write64(&d, cons2.va + 16, 0x7a);
		} else {
			tc_desc_write64(&d, cons.va + 16, 0x7a);
		}
		jc = submit_dep(fd2, &d, h2, hq, s4, 0);
		ck_assert_uint_eq(tc_wait_status(fd, jp), DRM_TILECOPY_STATUS_TIMEOUT);
		ck_assert_msg(tc_wait_status(fd2, jc) == DRM_TILECOPY_STATUS_CANCELLED,
			      "%s file: the consumer behind a hung producer on its queue was not cancelled",
			      other ? "another" : "the same");
		ck_assert_uint_eq(out2[2], 0);
		drmSyncobjDestroy(fd2, s4);
		if (other) {
			tc_bo_free(fd2, &cons2);
			close(fd2);
		}
	}
	/* three hangs: the file is banned now (BAN_HANGS) */
	drmSyncobjDestroy(fd, s1);
	drmSyncobjDestroy(fd, s2);
	drmSyncobjDestroy(fd, s3);
	tc_bo_free(fd, &prod);
	tc_bo_free(fd, &cons);
	close(fd);
	/* a producer that succeeded, in a new file: its consumer runs */
	fd = tc_open();
	tc_bo_new(fd, 4096, 0, &prod);
	tc_bo_new(fd, 4096, 0, &cons);
	out = cons.map;
	tc_assert_ok(drmSyncobjCreate(fd, 0, &s3));
	tc_desc_write64(&d, prod.va, 0x43);
	jp = submit_dep(fd, &d, prod.handle, 0, 0, s3);
	tc_desc_write64(&d, cons.va, 0x79);
	jc = submit_dep(fd, &d, cons.handle, 0, s3, 0);
	ck_assert_uint_eq(tc_wait_status(fd, jp), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(tc_wait_status(fd, jc), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(out[0], 0x79);
	drmSyncobjDestroy(fd, s3);
	tc_bo_free(fd, &prod);
	tc_bo_free(fd, &cons);
	close(fd);
}
END_TEST

/* ---- GEM_CLOSE racing the other ioctls on one file ------------------------ */

struct race {
	int fd;
	int role;
	int bad;	/* an errno outside the documented ones */
	char what[128];
};

enum { RACE_ITERS = 3000 };

static uint32_t race_handle(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return 1 + (*seed >> 33) % 48;
}

static void race_note(struct race *r, const char *op, int err)
{
	if (!r->bad) {
		r->bad = err ? err : -1;
		snprintf(r->what, sizeof(r->what), "%s: %d (%s)", op, err, strerror(-err));
	}
}

static void *race_thread(void *arg)
{
	struct race *r = arg;
	uint64_t seed = 0x1234 + r->role;

	for (int i = 0; i < RACE_ITERS && !r->bad; i++) {
		uint32_t h = race_handle(&seed);
		int ret;

		switch (r->role) {
		case 0:
		case 1: {
			struct drm_tilecopy_bo_create c = { .size = 4096 << (i % 3) };

			ret = tc_ioctl(r->fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);
			if (ret)
				race_note(r, "BO_CREATE", ret);
			break;
		}
		case 2:
		case 3:
			ret = tc_gem_close(r->fd, h);
			if (ret && ret != -EINVAL)
				race_note(r, "GEM_CLOSE", ret);
			break;
		case 4: {
			struct drm_tilecopy_bo_info info = { .handle = h };

			ret = tc_ioctl(r->fd, DRM_IOCTL_TILECOPY_BO_INFO, &info);
			if (ret && ret != -ENOENT)
				race_note(r, "BO_INFO", ret);
			break;
		}
		default: {
			struct drm_tilecopy_bo_info info = { .handle = h };
			struct drm_tilecopy_desc d;
			uint64_t job;

			if (tc_ioctl(r->fd, DRM_IOCTL_TILECOPY_BO_INFO, &info))
				break;
			tc_desc_write64(&d, info.va, i);
			/* the handle may be closed, or a new BO under it, by now */
			ret = tc_submit(r->fd, &d, 1, &h, 1, i % 2, &job);
			if (ret && ret != -ENOENT && ret != -EINVAL) {
				race_note(r, "SUBMIT", ret);
			} else if (!ret) {
				struct drm_tilecopy_wait w;

				ret = tc_wait(r->fd, job, 30ll * 1000000000, &w);
				if (ret || w.status != DRM_TILECOPY_STATUS_OK)
					race_note(r, "WAIT", ret ? ret : -(int)w.status);
			}
			break;
		}
		}
	}
	return NULL;
}

START_TEST(test_gem_close_race)
{
	enum { NTHREADS = 6 };
	struct race r[NTHREADS];
	pthread_t t[NTHREADS];
	int fd = tc_open();

	for (int i = 0; i < NTHREADS; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].fd = fd;
		r[i].role = i;
		ck_assert_int_eq(pthread_create(&t[i], NULL, race_thread, &r[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(!r[i].bad, "thread %d: %s", i, r[i].what);
	}
	close(fd);
	/* every BO goes with the file (jobs drop theirs a little later) */
	{
		int64_t end = tc_now_ns() + 10ll * 1000000000;

		while (tc_sysfs_stat(0, "bos") && tc_now_ns() < end)
			usleep(10000);
		ck_assert_int_eq(tc_sysfs_stat(0, "bos"), 0);
	}
}
END_TEST

/*
 * The scheduler arms a queue's timer before run_job() gives the job to the
 * engine, and run_job() refuses the jobs of a banned file (no hardware
 * fence): with job_timeout_ms tiny (check-guest runs this case with 1 ms)
 * the timer fires on such jobs. The timeout handler once dereferenced
 * their NULL hardware fence (an oops, caught by the harness in dmesg).
 * Files that get banned with many jobs queued, round after round.
 */
START_TEST(test_tdr_unstarted)
{
	enum { ROUNDS = 4, JOBS = 120 };

	for (int r = 0; r < ROUNDS; r++) {
		int fd = tc_open();
		uint64_t jobs[3 + JOBS];
		int n = 0, cnt[DRM_TILECOPY_STATUS_RESET + 1] = { 0 };
		struct drm_tilecopy_desc d;
		struct tc_bo bo;

		tc_bo_new(fd, 4096, 0, &bo);
		/* queue 3 hangs (hang-queue-mask=0x8): three hangs, a ban */
		for (int i = 0; i < 3; i++) {
			tc_desc_write64(&d, bo.va, i);
			tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 3, &jobs[n++]));
		}
		for (int i = 0; i < JOBS; i++) {
			int ret;

			tc_desc_write64(&d, bo.va, 100 + i);
			ret = tc_submit(fd, &d, 1, &bo.handle, 1, i % 2 ? 0 : 3, &jobs[n]);
			ck_assert_msg(ret == 0 || ret == -ECANCELED || ret == -EBUSY,
				      "SUBMIT: %d", ret);
			if (!ret)
				n++;
		}
		for (int i = 0; i < n; i++) {
			uint32_t st = tc_wait_status(fd, jobs[i]);

			ck_assert_uint_le(st, DRM_TILECOPY_STATUS_RESET);
			cnt[st]++;
		}
		ck_assert_int_eq(cnt[DRM_TILECOPY_STATUS_OK] + cnt[DRM_TILECOPY_STATUS_TIMEOUT] +
				 cnt[DRM_TILECOPY_STATUS_CANCELLED] +
				 cnt[DRM_TILECOPY_STATUS_RESET], n);
		ck_assert_int_ge(cnt[DRM_TILECOPY_STATUS_TIMEOUT], 1);
		tc_bo_free(fd, &bo);
		close(fd);
	}
	/* the device still serves a fresh file */
	{
		int fd = tc_open();
		struct drm_tilecopy_desc d;
		struct tc_bo bo;
		uint64_t job;

		tc_bo_new(fd, 4096, 0, &bo);
		tc_desc_write64(&d, bo.va, 0x1234);
		tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
		ck_assert_uint_le(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_RESET);
		tc_bo_free(fd, &bo);
		close(fd);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("abuse");
	TCase *tc = tcase_create("abuse");

	tc_require_device("test_abuse");
	if (!tc_device_prop("hang-queue-mask") || !tc_device_prop("delay-ns-per-kb")) {
		fprintf(stderr, "test_abuse: SKIP: TC_DEVICE_PROPS ('%s') needs hang-queue-mask and delay-ns-per-kb\n",
			getenv("TC_DEVICE_PROPS") ? getenv("TC_DEVICE_PROPS") : "");
		return 77;
	}
	tcase_add_test(tc, test_flood);
	tcase_add_test(tc, test_work_bound);
	tcase_add_test(tc, test_many_opens);
	tcase_add_test(tc, test_ban);
	tcase_add_test(tc, test_dep_failed);
	tcase_add_test(tc, test_gem_close_race);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	/* check-guest also runs this one alone, with job_timeout_ms=1 */
	tc = tcase_create("tdr");
	tcase_add_test(tc, test_tdr_unstarted);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
