// SPDX-License-Identifier: MIT
/*
 * test_wedge - a reset that fails wedges the device, and PCI unbind/bind
 * brings it back; then the device is unbound under an open file with jobs
 * in flight, mmaps and a dma-buf alive, and bound again; then a job's fence,
 * exported as a sync_file, outlives the unbound device and its last file;
 * then the device is unbound with jobs still queued behind others and
 * behind syncobjs, from two files.
 *
 * Needs reset-hang-on=2 (the probe's reset is the first, the forced one in
 * test_reset_fails the second: it never completes) and delay-ns-per-kb.
 * The cases run in order, in one boot.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "tc_guest.h"

#define NFILL	16

static void sysfs_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	ck_assert_msg(write(fd, val, strlen(val)) == (ssize_t)strlen(val), "write %s to %s: %s",
		      val, path, strerror(errno));
	close(fd);
}

/* Unbind device 0 from the driver, and bind it again after @between. */
static void rebind(const char *pci, void (*between)(void *), void *arg)
{
	int64_t end;

	sysfs_write("/sys/bus/pci/drivers/tilecopy/unbind", pci);
	ck_assert_int_eq(tc_count_devices(), 0);
	if (between)
		between(arg);
	sysfs_write("/sys/bus/pci/drivers/tilecopy/bind", pci);
	end = tc_now_ns() + 20ll * 1000000000;
	while (tc_count_devices() < 1 && tc_now_ns() < end)
		usleep(10000);
	ck_assert_int_eq(tc_count_devices(), 1);
}

/* A job on a fresh file must run: the device works. */
static void device_works(void)
{
	int fd = tc_open();
	struct tc_bo bo;
	struct drm_tilecopy_desc d;
	uint64_t job;

	ck_assert_int_eq(tc_sysfs_stat(0, "wedged"), 0);
	tc_bo_new(fd, 4096, 0, &bo);
	tc_desc_write64(&d, bo.va, 0x600d);
	tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(*(uint64_t *)bo.map, 0x600d);
	tc_bo_free(fd, &bo);
	close(fd);
}

START_TEST(test_reset_fails)
{
	int fd = tc_open();
	const uint32_t n = 64 << 10, fill = 256 << 10;
	struct tc_bo a, b, c, s, y;
	struct drm_tilecopy_desc d[2 + NFILL];
	uint32_t bos[5];
	uint64_t job, yjob, early;
	uint8_t *pc = malloc(n), *snap_s = malloc(NFILL * fill), *snap_b = malloc(n);
	char pci[64], node[64];
	struct drm_tilecopy_get_param gp = { .param = DRM_TILECOPY_PARAM_NUM_QUEUES };
	struct drm_tilecopy_bo_create bc = { .size = 4096 };
	struct drm_tilecopy_wait w;
	int64_t end;

	ck_assert_int_eq(tc_device_prop("reset-hang-on"), 2);
	tc_pci_name(0, pci, sizeof(pci));
	tc_bo_new(fd, n, 0, &a);
	tc_bo_new(fd, n, 0, &b);
	tc_bo_new(fd, n, 0, &c);
	tc_bo_new(fd, NFILL * fill, 0, &s);
	tc_bo_new(fd, 4096, 0, &y);
	tc_pattern(a.map, n, 1);
	tc_pattern(c.map, n, 2);
	memcpy(pc, c.map, n);
	bos[0] = a.handle;
	bos[1] = b.handle;
	bos[2] = c.handle;
	bos[3] = s.handle;
	bos[4] = y.handle;
	/* a job that finished before the trouble stays OK */
	tc_desc_write64(&d[0], y.va, 1);
	tc_assert_ok(tc_submit(fd, d, 1, &y.handle, 1, 1, &early));
	ck_assert_uint_eq(tc_wait_status(fd, early), DRM_TILECOPY_STATUS_OK);
	/*
	 * A -> B, C -> A, then 16 slow fills: run again after the failed reset,
	 * the job would change B (A holds C's bytes by then) and go on filling
	 * for a second. Nothing may change once its fence signalled.
	 */
	tc_desc_memcpy(&d[0], b.va, a.va, n);
	tc_desc_memcpy(&d[1], a.va, c.va, n);
	for (int i = 0; i < NFILL; i++)
		tc_desc_fill(&d[2 + i], s.va + (uint64_t)i * fill, 0x10 + i, 1, 1,
			     (uint32_t[]){ fill }, (uint64_t[]){ 1 });
	tc_assert_ok(tc_submit(fd, d, 2 + NFILL, bos, 4, 0, &job));
	/* desc 1 ran: A holds C's bytes; the fills are under way */
	end = tc_now_ns() + 20ll * 1000000000;
	while (memcmp(a.map, pc, n) && tc_now_ns() < end)
		usleep(1000);
	ck_assert(!memcmp(a.map, pc, n));
	/* the engine runs one job at a time: this one waits behind ours */
	tc_desc_write64(&d[0], y.va + 8, 2);
	tc_assert_ok(tc_submit(fd, d, 1, &y.handle, 1, 1, &yjob));

	/* the reset never completes: the device wedges */
	tc_assert_err(tc_force_reset(0), EIO);
	ck_assert_int_eq(tc_sysfs_stat(0, "wedged"), 1);
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_RESET);
	/*
	 * The job behind it had not started when the engine stopped, but the
	 * stuck reset drops STOP and the engine may go on with its ring until
	 * bus mastering goes off: it may have run, so RESET, never CANCELLED
	 * ("dropped before it ran").
	 */
	ck_assert_uint_eq(tc_wait_status(fd, yjob), DRM_TILECOPY_STATUS_RESET);
	/* no DMA after the fences: bus mastering went off first */
	memcpy(snap_s, s.map, NFILL * fill);
	memcpy(snap_b, b.map, n);
	usleep(500 * 1000);
	ck_assert_msg(!memcmp(snap_s, s.map, NFILL * fill) && !memcmp(snap_b, b.map, n),
		      "the engine wrote after the job's fence signalled");
	/* every ioctl that needs the engine says -EIO; WAIT still answers */
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &gp), EIO);
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &bc), EIO);
	tc_assert_err(tc_submit(fd, d, 1, &y.handle, 1, 0, NULL), EIO);
	tc_assert_err(tc_wait(fd, job, 1000000, &w), ENOENT);	/* reaped above */
	tc_assert_err(tc_force_reset(0), EIO);
	ck_assert(tc_find_device(0, node, sizeof(node)));
	ck_assert_int_lt(open(node, O_RDWR), 0);
	ck_assert_int_eq(errno, EIO);
	/* closing everything frees everything */
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	tc_bo_free(fd, &c);
	tc_bo_free(fd, &s);
	tc_bo_free(fd, &y);
	close(fd);
	end = tc_now_ns() + 10ll * 1000000000;
	while (tc_sysfs_stat(0, "bos") && tc_now_ns() < end)
		usleep(10000);
	ck_assert_int_eq(tc_sysfs_stat(0, "bos"), 0);
	ck_assert_int_eq(tc_sysfs_stat(0, "bo_bytes"), 0);

	/* unbind and bind: a new device, working */
	rebind(pci, NULL, NULL);
	device_works();
	free(pc);
	free(snap_s);
	free(snap_b);
}
END_TEST

struct unplugged {
	int fd, dmabuf;
	struct tc_bo src, dst;
	uint64_t job[6];
	uint32_t size;
};

/* While the device is unbound: the file, its mmaps and dma-buf live on. */
static void while_unplugged(void *arg)
{
	struct unplugged *u = arg;
	struct drm_tilecopy_get_param gp = { .param = DRM_TILECOPY_PARAM_NUM_QUEUES };
	struct drm_tilecopy_desc d;
	struct drm_tilecopy_wait w;
	uint8_t *ref = malloc(u->size);
	void *m;

	tc_assert_err(tc_ioctl(u->fd, DRM_IOCTL_TILECOPY_GET_PARAM, &gp), ENODEV);
	tc_desc_write64(&d, u->dst.va, 1);
	tc_assert_err(tc_submit(u->fd, &d, 1, &u->dst.handle, 1, 0, NULL), ENODEV);
	tc_assert_err(tc_wait(u->fd, u->job[0], 1000000, &w), ENODEV);
	/* the pages are the file's: still there, still the data */
	tc_pattern(ref, u->size, 44);
	ck_assert_mem_eq(u->src.map, ref, u->size);
	((uint8_t *)u->dst.map)[0] ^= 0xff;
	/* the dma-buf too (its mmap works or is refused, but does not crash) */
	m = mmap(NULL, u->size, PROT_READ, MAP_SHARED, u->dmabuf, 0);
	if (m != MAP_FAILED) {
		ck_assert_uint_eq(((uint8_t *)m)[0], ((uint8_t *)u->dst.map)[0]);
		munmap(m, u->size);
	}
	free(ref);
	/* the mappings and the dma-buf go while the device is away */
	close(u->dmabuf);
	munmap(u->src.map, u->size);
	munmap(u->dst.map, u->size);
}

START_TEST(test_unplug_in_use)
{
	struct unplugged u = { .size = 1 << 20 };
	char pci[64];
	uint32_t bos[2];

	tc_pci_name(0, pci, sizeof(pci));
	u.fd = tc_open();
	tc_bo_new(u.fd, u.size, DRM_TILECOPY_BO_READ_ONLY, &u.src);
	tc_bo_new(u.fd, u.size, 0, &u.dst);
	tc_pattern(u.src.map, u.size, 44);
	tc_assert_ok(drmPrimeHandleToFD(u.fd, u.dst.handle, DRM_CLOEXEC | DRM_RDWR, &u.dmabuf));
	bos[0] = u.src.handle;
	bos[1] = u.dst.handle;
	for (int i = 0; i < 6; i++) {
		struct drm_tilecopy_desc d;

		tc_desc_memcpy(&d, u.dst.va, u.src.va, u.size);	/* slow: in flight */
		tc_assert_ok(tc_submit(u.fd, &d, 1, bos, 2, i % 2, &u.job[i]));
	}
	rebind(pci, while_unplugged, &u);
	/* the old file outlives the rebind: still -ENODEV, the new device works */
	device_works();
	{
		struct drm_tilecopy_get_param gp = { .param = DRM_TILECOPY_PARAM_NUM_QUEUES };

		tc_assert_err(tc_ioctl(u.fd, DRM_IOCTL_TILECOPY_GET_PARAM, &gp), ENODEV);
	}
	close(u.fd);
	device_works();
}
END_TEST

/*
 * A job's fence outlives the device: exported as a sync_file, kept while
 * the device is unbound and its last file closed (the drm_device is freed
 * then), it still answers SYNC_IOC_FILE_INFO, whose timeline name comes
 * from the job's scheduler. That scheduler once lived in the freed device
 * (a use-after-free that KASAN sees; the debug lane runs this case).
 */
static void close_file(void *arg)
{
	int *fd = arg;

	close(*fd);
	*fd = -1;
}

START_TEST(test_unplug_sync_file)
{
	char pci[64];
	int fd = tc_open(), sf;
	uint32_t syncobj;
	struct tc_bo bo;
	struct drm_tilecopy_desc d;
	struct drm_tilecopy_submit sa = { 0 };
	struct sync_fence_info info[1];
	struct sync_file_info fi = { 0 };
	struct pollfd pfd;

	tc_pci_name(0, pci, sizeof(pci));
	tc_bo_new(fd, 1 << 20, 0, &bo);
	tc_assert_ok(drmSyncobjCreate(fd, 0, &syncobj));
	tc_desc_fill(&d, bo.va, 0x77, 1, 1, (uint32_t[]){ 1 << 20 }, (uint64_t[]){ 1 });
	sa.descs = (uintptr_t)&d;
	sa.desc_count = 1;
	sa.desc_size = sizeof(d);
	sa.bo_handles = (uintptr_t)&bo.handle;
	sa.bo_count = 1;
	sa.out_syncobj = syncobj;
	tc_assert_ok(tc_submit_args(fd, &sa));
	tc_assert_ok(drmSyncobjExportSyncFile(fd, syncobj, &sf));
	/* the file's last references: its BO mapping and the fd */
	munmap(bo.map, bo.size);
	rebind(pci, close_file, &fd);
	/* the removal settled the job: the fence has signalled */
	pfd.fd = sf;
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 30000), 1);
	ck_assert_int_eq(ioctl(sf, SYNC_IOC_FILE_INFO, &fi), 0);
	ck_assert_uint_eq(fi.num_fences, 1);
	fi.sync_fence_info = (uintptr_t)info;
	ck_assert_int_eq(ioctl(sf, SYNC_IOC_FILE_INFO, &fi), 0);
	ck_assert_int_ne(info[0].status, 0);
	ck_assert_msg(strlen(info[0].obj_name) > 0 && strlen(info[0].driver_name) > 0,
		      "timeline '%s', driver '%s'", info[0].obj_name, info[0].driver_name);
	close(sf);
	device_works();
}
END_TEST

/*
 * Unbound with jobs still queued: more jobs on one queue than the engine
 * takes at once (the scheduler keeps the rest), and on another queue a job
 * waiting for the last of them through a syncobj, from two files, each with
 * its BOs mapped. The removal must undo every DMA mapping of those files,
 * their BOs and queued jobs (the debug lane's DMA-API checks report any
 * left mapped at unbind); the files, their mmaps and a second rebind live on.
 */
#define NQUEUED	40

START_TEST(test_unplug_queued)
{
	struct { int fd; struct tc_bo src, dst; uint32_t syncobj; } f[2];
	uint8_t *ref = malloc(1 << 20);
	char pci[64];

	tc_pci_name(0, pci, sizeof(pci));
	for (int i = 0; i < 2; i++) {
		uint32_t bos[2];
		struct drm_tilecopy_desc d;
		struct drm_tilecopy_submit sa = { 0 };

		f[i].fd = tc_open();
		tc_bo_new(f[i].fd, 1 << 20, DRM_TILECOPY_BO_READ_ONLY, &f[i].src);
		tc_bo_new(f[i].fd, 1 << 20, 0, &f[i].dst);
		tc_pattern(f[i].src.map, 1 << 20, 70 + i);
		tc_assert_ok(drmSyncobjCreate(f[i].fd, 0, &f[i].syncobj));
		bos[0] = f[i].src.handle;
		bos[1] = f[i].dst.handle;
		tc_desc_memcpy(&d, f[i].dst.va, f[i].src.va, 1 << 20);
		sa.descs = (uintptr_t)&d;
		sa.desc_count = 1;
		sa.desc_size = sizeof(d);
		sa.bo_handles = (uintptr_t)bos;
		sa.bo_count = 2;
		for (int j = 0; j < NQUEUED; j++) {
			sa.out_syncobj = j == NQUEUED - 1 ? f[i].syncobj : 0;
			tc_assert_ok(tc_submit_args(f[i].fd, &sa));
		}
		/* behind the last of them */
		sa.out_syncobj = 0;
		sa.in_syncobjs = (uintptr_t)&f[i].syncobj;
		sa.in_syncobj_count = 1;
		sa.queue = 1;
		tc_assert_ok(tc_submit_args(f[i].fd, &sa));
	}
	rebind(pci, NULL, NULL);
	device_works();
	for (int i = 0; i < 2; i++) {
		/* the pages outlived the device's mappings of them */
		tc_pattern(ref, 1 << 20, 70 + i);
		ck_assert_mem_eq(f[i].src.map, ref, 1 << 20);
		munmap(f[i].src.map, f[i].src.size);
		munmap(f[i].dst.map, f[i].dst.size);
		close(f[i].fd);
	}
	free(ref);
	device_works();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wedge");
	TCase *tc = tcase_create("wedge");
	SRunner *sr;
	int failed;

	tc_require_device("test_wedge");
	if (tc_device_prop("reset-hang-on") != 2 || !tc_device_prop("delay-ns-per-kb")) {
		fprintf(stderr, "test_wedge: SKIP: TC_DEVICE_PROPS ('%s') needs reset-hang-on=2 and delay-ns-per-kb\n",
			getenv("TC_DEVICE_PROPS") ? getenv("TC_DEVICE_PROPS") : "");
		return 77;
	}
	tcase_add_test(tc, test_reset_fails);
	tcase_add_test(tc, test_unplug_in_use);
	tcase_add_test(tc, test_unplug_sync_file);
	tcase_add_test(tc, test_unplug_queued);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	/* in order: the second case runs on the device the first one rebound */
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
