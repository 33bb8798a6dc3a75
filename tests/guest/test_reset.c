// SPDX-License-Identifier: MIT
/*
 * test_reset - resets never hand a job back as OK unless each of its
 * descriptors ran exactly once, and jobs that wait are not blamed.
 *
 * The job that shows a replay: desc 0 copies A to B, desc 1 copies C to A.
 * Run twice (from desc 0 again after a reset), B gets C's bytes instead of
 * A's: an OK status with such a B is a corrupt result. Each run resets at a
 * different moment; the test counts the runs whose job the reset caught
 * running (status RESET) and fails if there were none, so that it cannot
 * pass without testing what it is about. A second, idempotent job on
 * another queue is usually waiting when the reset comes: it must complete
 * after it, with the right data.
 *
 *   forced    (delay-ns-per-kb set, no hang-queue-mask): resets through
 *             debugfs at moments spread over the job's life; then the
 *             victim test: a job waiting behind two other queues' long jobs
 *             for longer than job_timeout_ms is not failed
 *   hang      (hang-queue-mask set): every job of the hung queue hangs, from
 *             a file of its own; the reset its timeout causes lands at
 *             moments spread over our job's life
 *
 * Timing decides only which path a run takes, never the verdict.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tc_guest.h"

#define JOB_BYTES	(64u << 10)

/* The non-idempotent job, an idempotent one beside it, and their data. */
struct nij {
	int fd;
	struct tc_bo a, b, c, ysrc, y;
	uint8_t *pa, *pc;
};

struct tally {
	int runs, hits, ok, requeued_ok, yhits, corrupt;
};

static void nij_init(struct nij *x)
{
	x->fd = tc_open();
	tc_bo_new(x->fd, JOB_BYTES, 0, &x->a);
	tc_bo_new(x->fd, JOB_BYTES, 0, &x->b);
	tc_bo_new(x->fd, JOB_BYTES, 0, &x->c);
	tc_bo_new(x->fd, JOB_BYTES / 4, DRM_TILECOPY_BO_READ_ONLY, &x->ysrc);
	tc_bo_new(x->fd, JOB_BYTES / 4, 0, &x->y);
	x->pa = malloc(JOB_BYTES);
	x->pc = malloc(JOB_BYTES);
	tc_pattern(x->pa, JOB_BYTES, 1);
	tc_pattern(x->pc, JOB_BYTES, 2);
	tc_pattern(x->ysrc.map, JOB_BYTES / 4, 3);
	memcpy(x->c.map, x->pc, JOB_BYTES);
}

static void nij_fini(struct nij *x)
{
	tc_bo_free(x->fd, &x->a);
	tc_bo_free(x->fd, &x->b);
	tc_bo_free(x->fd, &x->c);
	tc_bo_free(x->fd, &x->ysrc);
	tc_bo_free(x->fd, &x->y);
	free(x->pa);
	free(x->pc);
	close(x->fd);
}

/* Submit both jobs: ours on @q, the idempotent one on @yq. */
static void nij_submit(struct nij *x, uint32_t q, uint32_t yq, uint64_t *job, uint64_t *yjob)
{
	struct drm_tilecopy_desc d[2];
	uint32_t bos[3] = { x->a.handle, x->b.handle, x->c.handle };
	uint32_t ybos[2] = { x->ysrc.handle, x->y.handle };

	memcpy(x->a.map, x->pa, JOB_BYTES);
	memset(x->b.map, 0, JOB_BYTES);
	memset(x->y.map, 0, JOB_BYTES / 4);
	tc_desc_memcpy(&d[0], x->b.va, x->a.va, JOB_BYTES);
	tc_desc_memcpy(&d[1], x->a.va, x->c.va, JOB_BYTES);
	tc_assert_ok(tc_submit(x->fd, d, 2, bos, 3, q, job));
	tc_desc_memcpy(&d[0], x->y.va, x->ysrc.va, JOB_BYTES / 4);
	tc_assert_ok(tc_submit(x->fd, d, 1, ybos, 2, yq, yjob));
}

/* Judge one run: OK must mean exactly-once; RESET is a hit. */
static void nij_judge(struct nij *x, uint64_t job, uint64_t yjob, struct tally *t)
{
	uint32_t st = tc_wait_status(x->fd, job), yst = tc_wait_status(x->fd, yjob);

	t->runs++;
	if (st == DRM_TILECOPY_STATUS_OK) {
		t->ok++;
		if (memcmp(x->b.map, x->pa, JOB_BYTES) || memcmp(x->a.map, x->pc, JOB_BYTES))
			t->corrupt++;
	} else {
		ck_assert_msg(st == DRM_TILECOPY_STATUS_RESET, "run %d: status %u", t->runs, st);
		t->hits++;
	}
	if (yst == DRM_TILECOPY_STATUS_OK) {
		ck_assert_msg(!memcmp(x->y.map, x->ysrc.map, JOB_BYTES / 4),
			      "run %d: idempotent job OK with wrong data", t->runs);
		t->requeued_ok++;
	} else {
		ck_assert_msg(yst == DRM_TILECOPY_STATUS_RESET, "run %d: second job status %u",
			      t->runs, yst);
		t->yhits++;
	}
}

static void report(const char *what, const struct tally *t, long long hits0,
		   long long requeued0)
{
	fprintf(stderr, "test_reset: %s: %d runs, %d resets hit our running job, %d OK (each "
		"checked), %d corrupt results; second job: %d OK, %d hit; driver: %lld jobs hit, "
		"%lld never-started jobs run after a reset\n", what, t->runs, t->hits, t->ok,
		t->corrupt, t->requeued_ok, t->yhits, tc_sysfs_stat(0, "reset_hits") - hits0,
		tc_sysfs_stat(0, "reset_requeued") - requeued0);
	printf("RESULT %s runs=%d hits=%d corrupt=%d\n", what, t->runs, t->hits, t->corrupt);
	ck_assert_int_eq(t->corrupt, 0);
	ck_assert_msg(t->hits > 0, "no reset hit a running job in %d runs: nothing was tested",
		      t->runs);
}

static uint32_t rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* ns the engine takes for @bytes written (delay-ns-per-kb) */
static int64_t engine_ns(uint64_t bytes)
{
	return (int64_t)(bytes / 1024) * tc_device_prop("delay-ns-per-kb");
}

START_TEST(test_forced_loop)
{
	enum { RUNS = 60 };
	struct nij x;
	struct tally t = { 0 };
	uint64_t seed = 0x5eed;
	long long hits0 = tc_sysfs_stat(0, "reset_hits");
	long long requeued0 = tc_sysfs_stat(0, "reset_requeued");
	long long resets0 = tc_sysfs_stat(0, "resets");
	uint32_t nq;
	/* the job and the one beside it, plus a margin after them */
	int64_t span = engine_ns(2 * JOB_BYTES + JOB_BYTES / 4) * 13 / 10;

	nij_init(&x);
	nq = tc_get_param(x.fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	ck_assert_uint_ge(nq, 2);
	for (int run = 0; run < RUNS; run++) {
		uint64_t job, yjob;
		uint32_t q = run % nq;

		nij_submit(&x, q, (q + 1) % nq, &job, &yjob);
		usleep(rnd(&seed) % (span / 1000));
		tc_assert_ok(tc_force_reset(0));
		nij_judge(&x, job, yjob, &t);
	}
	ck_assert_int_eq(tc_sysfs_stat(0, "resets"), resets0 + RUNS);
	report("forced resets", &t, hits0, requeued0);
	nij_fini(&x);
}
END_TEST

START_TEST(test_hang_loop)
{
	enum { RUNS = 50 };
	long mask = tc_device_prop("hang-queue-mask");
	uint32_t hq = __builtin_ctzl(mask);
	int64_t tmo;
	struct nij x;
	struct tally t = { 0 };
	uint64_t seed = 0xba5e;
	long long hits0 = tc_sysfs_stat(0, "reset_hits");
	long long requeued0 = tc_sysfs_stat(0, "reset_requeued");
	long long hangs0 = tc_sysfs_stat(0, "hangs");

	nij_init(&x);
	tmo = tc_get_param(x.fd, DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS);
	ck_assert_int_gt(tmo, 0);
	ck_assert_uint_gt(tc_get_param(x.fd, DRM_TILECOPY_PARAM_NUM_QUEUES), hq);
	ck_assert_uint_ge(hq, 2);
	for (int run = 0; run < RUNS; run++) {
		/* the hanging job comes from a file of its own, whose hang it is */
		int hfd = tc_open();
		struct tc_bo hbo;
		struct drm_tilecopy_desc d;
		uint64_t hjob, job, yjob;

		tc_bo_new(hfd, 4096, 0, &hbo);
		tc_desc_write64(&d, hbo.va, 1);
		tc_assert_ok(tc_submit(hfd, &d, 1, &hbo.handle, 1, hq, &hjob));
		/*
		 * The hang is noticed after 1 to 1.25 timeouts (the driver looks
		 * every quarter timeout; the job's engine time must have reached
		 * one): start ours, which takes 0.6 of one, so that the reset
		 * comes before, while or after it runs.
		 */
		usleep((tmo / 2 + (int64_t)(rnd(&seed) % 1000) * tmo * 8 / 10 / 1000) / 1000);
		nij_submit(&x, run % 2, 1 - run % 2, &job, &yjob);
		nij_judge(&x, job, yjob, &t);
		ck_assert_uint_eq(tc_wait_status(hfd, hjob), DRM_TILECOPY_STATUS_TIMEOUT);
		ck_assert_uint_eq(tc_get_param(hfd, DRM_TILECOPY_PARAM_FILE_HANGS), 1);
		tc_bo_free(hfd, &hbo);
		close(hfd);
	}
	ck_assert_int_eq(tc_sysfs_stat(0, "hangs"), hangs0 + RUNS);
	/* ours never hung, it was only caught */
	ck_assert_uint_eq(tc_get_param(x.fd, DRM_TILECOPY_PARAM_FILE_HANGS), 0);
	report("another queue's hangs", &t, hits0, requeued0);
	nij_fini(&x);
}
END_TEST

/*
 * A victim waits behind long jobs of other queues for longer than
 * job_timeout_ms: the engine serves queues round robin, one job at a time,
 * so with jobs on queues 2, 3 and 0 ahead of it in the round, the job on
 * queue 1 waits for two of them and the rest of the third. Each long job
 * takes 2/3 of the timeout; the victim's wait is about 1.8 timeouts. Its
 * scheduler's timer fires while it waits; it is not failed, no reset.
 */
START_TEST(test_victim_not_blamed)
{
	int fd = tc_open();
	int64_t tmo = tc_get_param(fd, DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS);
	uint64_t long_bytes = (uint64_t)(tmo * 2 / 3 / tc_device_prop("delay-ns-per-kb")) << 10;
	static const uint32_t order[3] = { 2, 3, 0 };
	struct tc_bo src, dst[3], marks;
	uint64_t job[3], victim;
	long long resets0 = tc_sysfs_stat(0, "resets");
	long long skips0 = tc_sysfs_stat(0, "tdr_skips");
	struct drm_tilecopy_desc d[2];
	uint32_t bos[3];

	ck_assert_uint_ge(tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES), 4);
	tc_bo_new(fd, long_bytes, DRM_TILECOPY_BO_READ_ONLY, &src);
	tc_pattern(src.map, long_bytes, 9);
	tc_bo_new(fd, 4096, 0, &marks);
	for (int i = 0; i < 3; i++) {
		tc_bo_new(fd, long_bytes, 0, &dst[i]);
		/* a mark the moment the job starts, then the long copy */
		tc_desc_write64(&d[0], marks.va + 8 * i, 1);
		tc_desc_memcpy(&d[1], dst[i].va, src.va, long_bytes);
		bos[0] = marks.handle;
		bos[1] = src.handle;
		bos[2] = dst[i].handle;
		tc_assert_ok(tc_submit(fd, d, 2, bos, 3, order[i], &job[i]));
		if (i == 0) {
			/* the round starts at queue 2: the others come after it */
			while (!((volatile uint64_t *)marks.map)[0])
				usleep(1000);
		}
	}
	tc_desc_write64(&d[0], marks.va + 64, 0x71c7);
	tc_assert_ok(tc_submit(fd, d, 1, &marks.handle, 1, 1, &victim));
	ck_assert_uint_eq(tc_wait_status(fd, victim), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint64_t *)marks.map)[8], 0x71c7);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(tc_wait_status(fd, job[i]), DRM_TILECOPY_STATUS_OK);
		ck_assert_mem_eq(dst[i].map, src.map, long_bytes);
		tc_bo_free(fd, &dst[i]);
	}
	ck_assert_int_eq(tc_sysfs_stat(0, "resets"), resets0);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FILE_HANGS), 0);
	/* the timers did fire on jobs that waited: the case happened */
	fprintf(stderr, "test_victim_not_blamed: %lld timeouts found no hang\n",
		tc_sysfs_stat(0, "tdr_skips") - skips0);
	ck_assert_int_gt(tc_sysfs_stat(0, "tdr_skips"), skips0);
	tc_bo_free(fd, &src);
	tc_bo_free(fd, &marks);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("reset");
	TCase *tc = tcase_create("reset");

	tc_require_device("test_reset");
	if (tc_device_prop("hang-queue-mask")) {
		tcase_add_test(tc, test_hang_loop);
	} else if (tc_device_prop("delay-ns-per-kb")) {
		tcase_add_test(tc, test_forced_loop);
		tcase_add_test(tc, test_victim_not_blamed);
	} else {
		fprintf(stderr, "test_reset: SKIP: TC_DEVICE_PROPS ('%s') has neither hang-queue-mask nor delay-ns-per-kb\n",
			getenv("TC_DEVICE_PROPS") ? getenv("TC_DEVICE_PROPS") : "");
		return 77;
	}
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
