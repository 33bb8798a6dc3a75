// SPDX-License-Identifier: MIT
/*
 * test_recovery - faulting, hanging and reset jobs, with the engine's fault
 * injection properties (docs/hardware.md):
 *
 *   dma-error-on-job=N  the N-th job the engine starts fails with a DMA
 *                       error in the middle of descriptor desc_count / 2
 *   hang-on-job=N       the N-th job never completes: the driver's job
 *                       timeout resets the engine and fails only that job
 *   delay-ns-per-kb=D   jobs are slow, so a forced reset (debugfs "reset")
 *                       finds them in flight
 *
 * Which tests run depends on $TC_DEVICE_PROPS (exported by run-guest.sh);
 * the engine counts jobs from its creation, so each property gets a freshly
 * booted guest and this program must be the first to submit jobs in it.
 * Exits 77 when no property applies.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc_guest.h"

/* A single one-descriptor job that must succeed. */
static void good_job(int fd, uint32_t queue)
{
	struct tc_bo bo;
	struct drm_tilecopy_desc d;
	uint64_t job;

	tc_bo_new(fd, 4096, 0, &bo);
	tc_desc_write64(&d, bo.va + 8, 0x1234567890abcdefull);
	tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, queue, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint64_t *)bo.map)[1], 0x1234567890abcdefull);
	tc_bo_free(fd, &bo);
}

START_TEST(test_dma_error)
{
	long n = tc_device_prop("dma-error-on-job");
	int fd = tc_open();
	long long failed0 = tc_sysfs_stat(0, "jobs_failed");
	struct tc_bo src, dst;
	struct drm_tilecopy_desc d[5];
	struct drm_tilecopy_wait w;
	uint32_t bos[2], out;
	uint64_t job;
	const uint32_t chunk = 16384;

	for (long i = 1; i < n; i++)
		good_job(fd, 0);
	/* job n: five 16 KiB copies; the engine fails in the middle of #2 */
	tc_bo_new(fd, 5 * chunk, 0, &src);
	tc_bo_new(fd, 5 * chunk, 0, &dst);
	tc_pattern(src.map, 5 * chunk, 5);
	memset(dst.map, 0x77, 5 * chunk);
	for (int i = 0; i < 5; i++)
		tc_desc_memcpy(&d[i], dst.va + i * chunk, src.va + i * chunk, chunk);
	bos[0] = src.handle;
	bos[1] = dst.handle;
	tc_assert_ok(drmSyncobjCreate(fd, 0, &out));
	{
		struct drm_tilecopy_submit sa = {
			.descs = (uintptr_t)d, .bo_handles = (uintptr_t)bos,
			.desc_count = 5, .desc_size = sizeof(d[0]), .bo_count = 2,
			.out_syncobj = out,
		};

		tc_assert_ok(tc_submit_args(fd, &sa));
		job = sa.job_id;
	}
	/* a failed job still signals its out-fence: waiters never hang */
	tc_assert_ok(drmSyncobjWait(fd, &out, 1, tc_now_ns() + 30ll * 1000000000,
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	drmSyncobjDestroy(fd, out);
	tc_assert_ok(tc_wait(fd, job, 30ll * 1000000000, &w));
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_DMA_ERROR);
	ck_assert_uint_eq(w.err_desc, 2);
	ck_assert_msg(w.err_addr >= dst.va + 2 * chunk && w.err_addr < dst.va + 3 * chunk,
		      "err_addr 0x%llx outside descriptor 2's destination",
		      (unsigned long long)w.err_addr);
	/* descriptors before the failing one ran, the ones after did not */
	ck_assert_mem_eq(dst.map, src.map, 2 * chunk);
	for (uint32_t i = 3 * chunk; i < 5 * chunk; i++)
		ck_assert_uint_eq(((uint8_t *)dst.map)[i], 0x77);
	ck_assert_int_eq(tc_sysfs_stat(0, "jobs_failed"), failed0 + 1);
	/* the engine recovered: the next jobs run, on every queue */
	for (uint32_t q = 0; q < tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES); q++)
		good_job(fd, q);
	tc_bo_free(fd, &src);
	tc_bo_free(fd, &dst);
	close(fd);
}
END_TEST

START_TEST(test_hang_timeout)
{
	long n = tc_device_prop("hang-on-job");
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	long long resets0 = tc_sysfs_stat(0, "resets");
	struct tc_bo bo;
	struct drm_tilecopy_desc d[3];
	uint64_t hung, behind, other;
	struct drm_tilecopy_wait w;
	int64_t t0;

	ck_assert_uint_ge(nq, 2);
	for (long i = 1; i < n; i++)
		good_job(fd, 0);
	tc_bo_new(fd, 4096, 0, &bo);
	tc_desc_write64(&d[0], bo.va, 0xdead);
	tc_desc_write64(&d[1], bo.va + 8, 0xbe41d);
	tc_desc_write64(&d[2], bo.va + 16, 0x07e4);
	t0 = tc_now_ns();
	tc_assert_ok(tc_submit(fd, &d[0], 1, &bo.handle, 1, 0, &hung));
	usleep(300 * 1000);	/* let the engine start it: it is job n */
	tc_assert_ok(tc_submit(fd, &d[1], 1, &bo.handle, 1, 0, &behind));
	tc_assert_ok(tc_submit(fd, &d[2], 1, &bo.handle, 1, 1, &other));

	/* still pending well before the timeout */
	tc_assert_err(tc_wait(fd, hung, 100000000, &w), ETIMEDOUT);
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_PENDING);

	tc_assert_ok(tc_wait(fd, hung, 60ll * 1000000000, &w));
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_TIMEOUT);
	ck_assert_int_ge(tc_now_ns() - t0, 1000000000);	/* job_timeout_ms, not at once */
	/* only the guilty job fails; the one queued behind it and the one on
	 * another queue complete normally */
	ck_assert_uint_eq(tc_wait_status(fd, behind), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(tc_wait_status(fd, other), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint64_t *)bo.map)[0], 0);	/* the hung job wrote nothing */
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FILE_HANGS), 1);
	ck_assert_int_ge(tc_sysfs_stat(0, "hangs"), 1);
	ck_assert_uint_eq(((uint64_t *)bo.map)[1], 0xbe41d);
	ck_assert_uint_eq(((uint64_t *)bo.map)[2], 0x07e4);
	ck_assert_int_ge(tc_sysfs_stat(0, "resets"), resets0 + 1);
	/* firmware booted again after the reset: jobs run on every queue
	 * (but those the engine hangs by configuration: make check-debug
	 * boots this test with test_abuse's hang-queue-mask) */
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FW_VERSION), 0x010000);
	for (uint32_t q = 0; q < nq; q++)
		if (!(tc_device_prop("hang-queue-mask") & (1l << q)))
			good_job(fd, q);
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

START_TEST(test_forced_reset_in_flight)
{
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	long long resets0 = tc_sysfs_stat(0, "resets");
	enum { NJOBS = 8 };
	const uint64_t size = 4 << 20;	/* 200 ms per job at 50000 ns/KiB */
	struct tc_bo src, dst[NJOBS];
	uint64_t job[NJOBS];
	char path[1024], buf[4096];
	int dfd;
	ssize_t r;

	tc_bo_new(fd, size, DRM_TILECOPY_BO_READ_ONLY, &src);
	tc_pattern(src.map, size, 11);
	/* BOs first: the submissions then come faster than the jobs finish,
	 * even on a debug kernel (KASAN makes BO creation slow) */
	for (int i = 0; i < NJOBS; i++)
		tc_bo_new(fd, size, 0, &dst[i]);
	/*
	 * Jobs are on the engine now: the debugfs job list shows them. The
	 * engine paces them by the host's clock (delay-ns-per-kb), the guest
	 * runs under TCG: on a loaded host the guest can stall past the whole
	 * batch (1.6 s) before it reads the list, which is then empty. Such a
	 * batch is checked (all OK, correct) and another one submitted, up to
	 * 5 batches: the reset below must find jobs in flight.
	 */
	tc_debugfs_path(0, "jobs", path, sizeof(path));
	for (int batch = 0;; batch++) {
		for (int i = 0; i < NJOBS; i++) {
			struct drm_tilecopy_desc d;
			uint32_t bos[2];

			bos[0] = src.handle;
			bos[1] = dst[i].handle;
			memset(dst[i].map, 0, size);
			tc_desc_memcpy(&d, dst[i].va, src.va, size);
			tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, i % nq, &job[i]));
		}
		dfd = open(path, O_RDONLY);
		ck_assert_msg(dfd >= 0, "open %s: %s", path, strerror(errno));
		r = read(dfd, buf, sizeof(buf) - 1);
		close(dfd);
		ck_assert_int_ge(r, 0);
		buf[r] = 0;
		if (strstr(buf, " seqno "))
			break;
		ck_assert_msg(batch < 4, "no job in flight in %s after 5 batches", path);
		fprintf(stderr, "test_forced_reset_in_flight: batch %d done before the job list was read; again\n",
			batch);
		for (int i = 0; i < NJOBS; i++) {
			ck_assert_uint_eq(tc_wait_status(fd, job[i]), DRM_TILECOPY_STATUS_OK);
			ck_assert_mem_eq(dst[i].map, src.map, size);
		}
	}

	tc_debugfs_path(0, "reset", path, sizeof(path));
	dfd = open(path, O_WRONLY);
	ck_assert_msg(dfd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_int_eq(write(dfd, "1\n", 2), 2);
	close(dfd);

	/*
	 * Nobody is guilty in a forced reset, and no job runs twice: the one
	 * the engine was running fails with RESET (it runs one job at a time),
	 * every other completes, correctly, whether it had finished before or
	 * ran after.
	 */
	{
		long long hits0 = tc_sysfs_stat(0, "reset_hits");
		int hit = 0;

		for (int i = 0; i < NJOBS; i++) {
			uint32_t st = tc_wait_status(fd, job[i]);

			if (st == DRM_TILECOPY_STATUS_RESET) {
				hit++;
			} else {
				ck_assert_uint_eq(st, DRM_TILECOPY_STATUS_OK);
				ck_assert_mem_eq(dst[i].map, src.map, size);
			}
			tc_bo_free(fd, &dst[i]);
		}
		ck_assert_int_le(hit, 1);
		ck_assert_int_eq(tc_sysfs_stat(0, "reset_hits"), hits0 + hit);
		fprintf(stderr, "test_forced_reset_in_flight: %d of %d jobs hit by the reset\n",
			hit, NJOBS);
	}
	ck_assert_int_eq(tc_sysfs_stat(0, "resets"), resets0 + 1);
	/* the registers file reads after the reset */
	tc_debugfs_path(0, "regs", path, sizeof(path));
	dfd = open(path, O_RDONLY);
	ck_assert_int_ge(dfd, 0);
	ck_assert_int_gt(read(dfd, buf, sizeof(buf)), 0);
	close(dfd);
	good_job(fd, 0);
	tc_bo_free(fd, &src);
	close(fd);
}
END_TEST

/* Child of the reset storm: 60 checked jobs on its own file (~1-2 s). */
static int storm_child(int id)
{
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	const uint64_t size = 256 << 10;
	struct tc_bo a, b;
	uint32_t bos[2];

	tc_bo_new(fd, size, 0, &a);
	tc_bo_new(fd, size, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	for (int i = 0; i < 60; i++) {
		struct drm_tilecopy_desc d[2];
		uint64_t job;

		uint32_t st;

		tc_pattern(a.map, size, id * 1000 + i);
		memset(b.map, 0, size);
		tc_desc_memcpy(&d[0], b.va, a.va, size);
		tc_desc_write64(&d[1], b.va + size - 8, i);
		if (tc_submit(fd, d, 2, bos, 2, (id + i) % nq, &job))
			return 10;
		st = tc_wait_status(fd, job);
		/* a job the reset caught running: its output is undefined */
		if (st == DRM_TILECOPY_STATUS_RESET)
			continue;
		if (st != DRM_TILECOPY_STATUS_OK)
			return 11;
		if (memcmp(b.map, a.map, size - 8) || ((uint64_t *)b.map)[size / 8 - 1] != (uint64_t)i)
			return 12;
	}
	return 0;
}

START_TEST(test_reset_storm)
{
	/* forced resets while two processes keep the engine busy: every job
	 * reported OK has the right data, and the resets are all counted */
	enum { NPROC = 2, NRESETS = 6 };
	long long resets0 = tc_sysfs_stat(0, "resets");
	char path[1024];
	pid_t pid[NPROC];

	tc_debugfs_path(0, "reset", path, sizeof(path));
	for (int i = 0; i < NPROC; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0)
			_exit(storm_child(i + 1));
	}
	for (int r = 0; r < NRESETS; r++) {
		int dfd;

		usleep(150 * 1000);
		dfd = open(path, O_WRONLY);
		ck_assert_msg(dfd >= 0, "open %s: %s", path, strerror(errno));
		ck_assert_int_eq(write(dfd, "1", 1), 1);
		close(dfd);
	}
	/* the children were still working through all the resets */
	for (int i = 0; i < NPROC; i++)
		ck_assert_int_eq(waitpid(pid[i], NULL, WNOHANG), 0);
	for (int i = 0; i < NPROC; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status 0x%x", i, st);
	}
	ck_assert_int_eq(tc_sysfs_stat(0, "resets"), resets0 + NRESETS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recovery");
	TCase *tc = tcase_create("recovery");
	int n = 0;

	tc_require_device("test_recovery");
	if (tc_device_prop("dma-error-on-job")) {
		tcase_add_test(tc, test_dma_error);
		n++;
	}
	if (tc_device_prop("hang-on-job")) {
		tcase_add_test(tc, test_hang_timeout);
		n++;
	}
	if (tc_device_prop("delay-ns-per-kb") >= 10000 && n == 0) {
		tcase_add_test(tc, test_forced_reset_in_flight);
		tcase_add_test(tc, test_reset_storm);
		n++;
	}
	if (!n) {
		fprintf(stderr, "test_recovery: SKIP: TC_DEVICE_PROPS ('%s') has no dma-error-on-job, hang-on-job or delay-ns-per-kb >= 10000\n",
			getenv("TC_DEVICE_PROPS") ? getenv("TC_DEVICE_PROPS") : "");
		return 77;
	}
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
