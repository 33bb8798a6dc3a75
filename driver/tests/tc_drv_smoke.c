// SPDX-License-Identifier: MIT
/*
 * tc_drv_smoke - driver behaviour that the in-guest Check suites
 * (tests/guest/) do not cover, run in a guest by `make check-driver-guest`:
 *
 *   /implicit-sync  device 1 copies from a BO shared through PRIME that
 *                 device 0 fills after a slow job (delay-ns-per-kb): the
 *                 copy must wait for the fill through the BO's reservation
 *                 fences, without any syncobj of its own
 *   /contexts     80 open files per device, more than the engine's 64 MMU
 *                 contexts, each with a job on the engine: all run (an
 *                 address space holds a context only while its jobs run)
 *   /prime-self   a BO exported and imported by another file of the same
 *                 device gets its own VA there; both see the same pages
 *   /prime-cross  same, imported into a second device (when there is one)
 *   /read-only    a read-only BO is refused as a destination, fine as source
 *   /isolation    a VA that is valid in another file is refused
 *   /sysfs        counters and firmware version in the PCI device's sysfs
 *   /fdinfo       /proc/self/fdinfo of the file: driver name, BO memory
 *   /no-leak      once every file is closed, no engine MMU context is left
 *                 in use (debugfs "queues"): jobs and mappings dropped
 *                 their references
 *
 * Exit status: 0 all passed, 1 a check failed, 77 no tilecopy device.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tilecopy_accel.h"

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		failures++;						\
		return;							\
	}								\
} while (0)

struct bo {
	uint32_t handle;
	uint64_t va, size;
	void *map;
};

static char devs[8][256];
static int ndevs;

/*
 * The node kind: accel (/dev/accel/accelN), or a DRM render node
 * (/dev/dri/renderDN) on kernels without the accel core (CONFIG_DRM_ACCEL
 * off, as in Debian's arm64 6.12). One kernel has one kind.
 */
static const struct {
	const char *dev_dir, *prefix, *class_dir, *debugfs_dir;
} kinds[] = {
	{ "/dev/accel", "accel", "/sys/class/accel", "accel" },
	{ "/dev/dri", "renderD", "/sys/class/drm", "dri" },
};
static unsigned int kind;

static void find_devices(void)
{
	struct dirent *e;
	char drv[256], link[512];
	ssize_t n;
	DIR *d;

	for (kind = 0; kind < sizeof(kinds) / sizeof(kinds[0]); kind++) {
		d = opendir(kinds[kind].dev_dir);
		if (!d)
			continue;
		while ((e = readdir(d)) && ndevs < 8) {
			if (strncmp(e->d_name, kinds[kind].prefix, strlen(kinds[kind].prefix)))
				continue;
			snprintf(link, sizeof(link), "%s/%s/device/driver",
				 kinds[kind].class_dir, e->d_name);
			n = readlink(link, drv, sizeof(drv) - 1);
			if (n <= 0)
				continue;
			drv[n] = 0;
			if (!strstr(drv, "/tilecopy"))
				continue;
			snprintf(devs[ndevs++], sizeof(devs[0]), "%s", e->d_name);
		}
		closedir(d);
		if (ndevs)
			break;
	}
	/* readdir order is arbitrary; accel0 first keeps messages stable */
	qsort(devs, ndevs, sizeof(devs[0]), (int (*)(const void *, const void *))strcmp);
}

static int open_dev(int n)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%s", kinds[kind].dev_dir, devs[n]);
	return open(path, O_RDWR | O_CLOEXEC);
}

/*
 * A CPU mapping keeps its DRM file open after close(fd): close_dev()
 * unmaps the file's BOs first, so that closing really ends the file.
 */
static struct {
	int fd;
	void *map;
	size_t size;
} maps[64];

static void *map_bo(int fd, uint64_t size, uint64_t offset)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
	unsigned int i;

	if (p == MAP_FAILED)
		return p;
	for (i = 0; i < 64; i++) {
		if (!maps[i].map) {
			maps[i].fd = fd;
			maps[i].map = p;
			maps[i].size = size;
			break;
		}
	}
	return p;
}

static void unmap_bo(struct bo *bo)
{
	unsigned int i;

	for (i = 0; i < 64; i++)
		if (maps[i].map == bo->map)
			maps[i].map = NULL;
	munmap(bo->map, bo->size);
	bo->map = NULL;
}

static void close_dev(int fd)
{
	unsigned int i;

	for (i = 0; i < 64; i++) {
		if (maps[i].map && maps[i].fd == fd) {
			munmap(maps[i].map, maps[i].size);
			maps[i].map = NULL;
		}
	}
	close(fd);
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static int bo_new(int fd, uint64_t size, uint32_t flags, struct bo *bo)
{
	struct drm_tilecopy_bo_create c = { .size = size, .flags = flags };
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);

	if (r)
		return r;
	bo->handle = c.handle;
	bo->va = c.va;
	bo->size = size;
	bo->map = map_bo(fd, size, c.mmap_offset);
	return bo->map == MAP_FAILED ? -errno : 0;
}

static int bo_info(int fd, uint32_t handle, struct bo *bo)
{
	struct drm_tilecopy_bo_info i = { .handle = handle };
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &i);

	if (r)
		return r;
	bo->handle = handle;
	bo->va = i.va;
	bo->size = i.size;
	bo->map = map_bo(fd, i.size, i.mmap_offset);
	return bo->map == MAP_FAILED ? -errno : 0;
}

static void desc_copy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src, uint32_t n)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->elem_size = 1;
	d->ndims = 1;
	d->src = src;
	d->dst = dst;
	d->extent[0] = n;
	d->src_stride[0] = 1;
	d->dst_stride[0] = 1;
}

/* Submit one descriptor over @handles and wait; returns -errno or the status. */
static int run(int fd, const struct drm_tilecopy_desc *d, const uint32_t *handles,
	       uint32_t nbo)
{
	struct drm_tilecopy_submit s = {
		.descs = (uintptr_t)d, .bo_handles = (uintptr_t)handles,
		.desc_count = 1, .desc_size = sizeof(*d), .bo_count = nbo,
	};
	struct drm_tilecopy_wait w = { 0 };
	struct timespec ts;
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, &s);

	if (r)
		return r;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.job_id = s.job_id;
	w.timeout_ns = (ts.tv_sec + 60) * 1000000000ll + ts.tv_nsec;
	r = xioctl(fd, DRM_IOCTL_TILECOPY_WAIT, &w);
	return r ? r : (int)w.status;
}

static void test_contexts(void)
{
	enum { NFILES = 80 };
	int fds[NFILES], i, r;
	struct bo bo[NFILES];

	for (i = 0; i < NFILES; i++) {
		struct drm_tilecopy_desc d;

		fds[i] = open_dev(0);
		if (fds[i] < 0)
			break;
		CHECK(bo_new(fds[i], 4096, 0, &bo[i]) == 0, "BO of file %d", i);
		desc_copy(&d, bo[i].va + 2048, bo[i].va, 8);
		r = run(fds[i], &d, &bo[i].handle, 1);
		CHECK(r == DRM_TILECOPY_STATUS_OK, "file %d: job: %d", i, r);
		unmap_bo(&bo[i]);	/* the file stays open, with its BO */
	}
	CHECK(i == NFILES, "only %d opens succeeded: %s", i, strerror(errno));
	while (i--)
		close(fds[i]);
}

static void test_prime(int dev_b, const char *name)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int fa = open_dev(0), fb = open_dev(dev_b), dmabuf = -1;
	struct bo a, src, imp;
	uint32_t h, hs[2];
	struct drm_tilecopy_desc d;
	int r, i;

	CHECK(fa >= 0 && fb >= 0, "%s: open", name);
	CHECK(bo_new(fa, 8192, 0, &a) == 0, "%s: BO in A", name);
	CHECK(drmPrimeHandleToFD(fa, a.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf) == 0,
	      "%s: export: %s", name, strerror(errno));
	CHECK(drmPrimeFDToHandle(fb, dmabuf, &h) == 0, "%s: import: %s", name, strerror(errno));
	CHECK(bo_info(fb, h, &imp) == 0, "%s: BO_INFO of the import", name);
	/* 8192 bytes rounded up to CPU pages */
	CHECK(imp.size == ((8192 + pg - 1) & ~(pg - 1)), "%s: imported size %llu", name,
	      (unsigned long long)imp.size);
	CHECK(imp.va >= 0x100000000ull, "%s: imported VA 0x%llx", name,
	      (unsigned long long)imp.va);

	/* the engine of B writes into A's pages through B's mapping */
	CHECK(bo_new(fb, 4096, 0, &src) == 0, "%s: source BO", name);
	for (i = 0; i < 4096; i++)
		((uint8_t *)src.map)[i] = (uint8_t)(i * 7 + 3);
	memset(a.map, 0, 8192);
	desc_copy(&d, imp.va + 4096, src.va, 4096);
	hs[0] = h;
	hs[1] = src.handle;
	r = run(fb, &d, hs, 2);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "%s: copy into the import: %d", name, r);
	CHECK(memcmp((uint8_t *)a.map + 4096, src.map, 4096) == 0,
	      "%s: exporter does not see the data", name);
	CHECK(((uint8_t *)a.map)[0] == 0, "%s: wrote outside the range", name);
	CHECK(memcmp((uint8_t *)imp.map + 4096, src.map, 4096) == 0,
	      "%s: importer's mmap does not see the data", name);

	/* the exporter's file closes its handle: the import keeps working */
	drmCloseBufferHandle(fa, a.handle);
	close_dev(fa);
	memset(src.map, 0x5a, 4096);
	desc_copy(&d, imp.va, src.va, 4096);
	r = run(fb, &d, hs, 2);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "%s: copy after the exporter closed: %d", name, r);
	CHECK(((uint8_t *)imp.map)[100] == 0x5a, "%s: data after the exporter closed", name);
	close(dmabuf);
	close_dev(fb);
}

static int submit_nowait(int fd, const struct drm_tilecopy_desc *d,
			 const uint32_t *handles, uint32_t nbo, uint32_t in,
			 uint32_t out, uint64_t *job)
{
	struct drm_tilecopy_submit s = {
		.descs = (uintptr_t)d, .bo_handles = (uintptr_t)handles,
		.desc_count = 1, .desc_size = sizeof(*d), .bo_count = nbo,
		.in_syncobjs = (uintptr_t)&in, .in_syncobj_count = in ? 1 : 0,
		.out_syncobj = out,
	};
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, &s);

	*job = s.job_id;
	return r;
}

static int wait_job(int fd, uint64_t job)
{
	struct drm_tilecopy_wait w = { .job_id = job };
	struct timespec ts;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_ns = (ts.tv_sec + 60) * 1000000000ll + ts.tv_nsec;
	r = xioctl(fd, DRM_IOCTL_TILECOPY_WAIT, &w);
	return r ? r : (int)w.status;
}

static void test_implicit_sync(void)
{
	const uint64_t size = 4 << 20;
	int fa = open_dev(0), fb = open_dev(1), dmabuf = -1;
	struct drm_tilecopy_desc fill, copy, slow;
	struct bo x, y, xb, z;
	uint64_t ja, jb, jz;
	uint32_t h, hs[2], sync;
	uint64_t i;
	int r;

	CHECK(fa >= 0 && fb >= 0, "open");
	CHECK(bo_new(fa, size, 0, &x) == 0 && bo_new(fb, size, 0, &y) == 0 &&
	      bo_new(fa, 2 * size, 0, &z) == 0, "BOs");
	CHECK(drmSyncobjCreate(fa, 0, &sync) == 0, "syncobj");
	memset(x.map, 0, size);
	memset(y.map, 0, size);
	CHECK(drmPrimeHandleToFD(fa, x.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf) == 0, "export");
	CHECK(drmPrimeFDToHandle(fb, dmabuf, &h) == 0 && bo_info(fb, h, &xb) == 0, "import");

	memset(&fill, 0, sizeof(fill));
	fill.op = DRM_TILECOPY_OP_FILL;
	fill.elem_size = 8;
	fill.ndims = 1;
	fill.dst = x.va;
	fill.extent[0] = size / 8;
	fill.dst_stride[0] = 1;
	fill.value = 0xababababababababull;
	desc_copy(&copy, y.va, xb.va, (uint32_t)size);
	hs[0] = y.handle;
	hs[1] = h;

	/* z: about 80 ms of engine time; the fill waits for it */
	desc_copy(&slow, z.va + size, z.va, (uint32_t)size);
	CHECK(submit_nowait(fa, &slow, &z.handle, 1, 0, sync, &jz) == 0, "slow job");
	CHECK(submit_nowait(fa, &fill, &x.handle, 1, sync, 0, &ja) == 0, "fill");
	CHECK(submit_nowait(fb, &copy, hs, 2, 0, 0, &jb) == 0, "copy");
	r = wait_job(fb, jb);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "copy: %d", r);
	r = wait_job(fa, ja);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "fill: %d", r);
	r = wait_job(fa, jz);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "slow job: %d", r);
	for (i = 0; i < size && ((uint8_t *)y.map)[i] == 0xab; i++)
		;
	CHECK(i == size, "the copy did not wait for the fill: byte %llu is 0x%02x",
	      (unsigned long long)i, ((uint8_t *)y.map)[i]);
	drmSyncobjDestroy(fa, sync);
	close(dmabuf);
	close_dev(fa);
	close_dev(fb);
}

static void test_read_only(void)
{
	int fd = open_dev(0);
	struct bo ro, rw;
	struct drm_tilecopy_desc d;
	uint32_t hs[2];
	int r;

	CHECK(fd >= 0, "open");
	CHECK(bo_new(fd, 4096, DRM_TILECOPY_BO_READ_ONLY, &ro) == 0, "read-only BO");
	CHECK(bo_new(fd, 4096, 0, &rw) == 0, "BO");
	memset(ro.map, 0x11, 4096);
	hs[0] = ro.handle;
	hs[1] = rw.handle;
	desc_copy(&d, ro.va, rw.va, 16);
	r = run(fd, &d, hs, 2);
	CHECK(r == -EINVAL, "read-only destination: %d", r);
	desc_copy(&d, rw.va, ro.va, 4096);
	r = run(fd, &d, hs, 2);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "read-only source: %d", r);
	CHECK(((uint8_t *)rw.map)[4095] == 0x11, "copy from the read-only BO");
	close_dev(fd);
}

static void test_isolation(void)
{
	/* a BO is whole CPU pages: 4 KiB, or 16/64 KiB on some arm64 kernels */
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int f1 = open_dev(0), f2 = open_dev(0);
	struct bo a, b;
	struct drm_tilecopy_desc d;
	int r;

	CHECK(f1 >= 0 && f2 >= 0, "open");
	CHECK(bo_new(f1, 4096, 0, &a) == 0 && bo_new(f2, 8192, 0, &b) == 0, "BOs");
	/* b's VA range in f2 is not a's; f1 may not name f2's addresses */
	desc_copy(&d, a.va, b.va + 4096, 16);
	if (b.va + 4096 >= a.va && b.va + 4096 < a.va + pg)
		d.src = a.va + 2 * pg;	/* happens to overlap: use a surely foreign VA */
	r = run(f1, &d, &a.handle, 1);
	CHECK(r == -EINVAL, "foreign VA as source: %d", r);
	/* a handle of f2 means nothing in f1 (or another BO) */
	r = run(f1, &d, &b.handle, 1);
	CHECK(r == -ENOENT || r == -EINVAL, "f2's handle in f1: %d", r);
	close_dev(f1);
	close_dev(f2);
}

static long long sysfs_num(const char *name)
{
	char path[512], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/device/%s", kinds[kind].class_dir, devs[0], name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? strtoll(buf, NULL, 10) : -1;
}

static void test_sysfs(void)
{
	long long done0 = sysfs_num("jobs_done"), bytes0 = sysfs_num("bytes_moved");
	int fd = open_dev(0);
	struct bo a;
	struct drm_tilecopy_desc d;
	struct drm_tilecopy_get_param p = { .param = DRM_TILECOPY_PARAM_FW_VERSION };
	char path[512], buf[64] = "", want[64];
	FILE *f;
	int r;

	CHECK(done0 >= 0 && bytes0 >= 0, "sysfs counters missing");
	CHECK(fd >= 0 && bo_new(fd, 8192, 0, &a) == 0, "BO");
	desc_copy(&d, a.va + 4096, a.va, 4096);
	r = run(fd, &d, &a.handle, 1);
	CHECK(r == DRM_TILECOPY_STATUS_OK, "copy: %d", r);
	CHECK(sysfs_num("jobs_done") >= done0 + 1, "jobs_done did not move");
	CHECK(sysfs_num("bytes_moved") >= bytes0 + 4096, "bytes_moved did not move");
	CHECK(xioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &p) == 0, "GET_PARAM");
	snprintf(want, sizeof(want), "%u.%u.%u\n", (unsigned)(p.value >> 16),
		 (unsigned)(p.value >> 8) & 0xff, (unsigned)p.value & 0xff);
	snprintf(path, sizeof(path), "%s/%s/device/fw_version", kinds[kind].class_dir, devs[0]);
	f = fopen(path, "r");
	CHECK(f, "no %s", path);
	CHECK(fgets(buf, sizeof(buf), f), "read %s", path);
	fclose(f);
	CHECK(!strcmp(buf, want), "fw_version %s, GET_PARAM says %s", buf, want);
	close_dev(fd);
}

static void test_fdinfo(void)
{
	int fd = open_dev(0);
	char path[64], line[256];
	int driver = 0;
	long long total = -1;
	struct bo a;
	FILE *f;

	CHECK(fd >= 0 && bo_new(fd, 3 << 20, 0, &a) == 0, "BO");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	CHECK(f, "no %s", path);
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "drm-driver:\ttilecopy\n"))
			driver = 1;
		if (sscanf(line, "drm-total-memory:\t%lld MiB", &total) == 1)
			continue;
	}
	fclose(f);
	CHECK(driver, "no drm-driver: tilecopy line");
	CHECK(total >= 3, "drm-total-memory %lld MiB, a 3 MiB BO is open", total);
	close_dev(fd);
}

/* "engine contexts in use: N of 64" from debugfs, -1 if unreadable. */
static int contexts_in_use(int n)
{
	char link[300], target[512], path[640], line[128];
	const char *pci;
	FILE *f;
	ssize_t r;
	int used = -1;

	snprintf(link, sizeof(link), "%s/%s/device", kinds[kind].class_dir, devs[n]);
	r = readlink(link, target, sizeof(target) - 1);
	if (r <= 0)
		return -1;
	target[r] = 0;
	pci = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/%s/queues", kinds[kind].debugfs_dir, pci);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "engine contexts in use: %d", &used) == 1)
			break;
	fclose(f);
	return used;
}

static void test_no_leak(void)
{
	int n, tries, used = -1;

	for (n = 0; n < ndevs; n++) {
		/* jobs are freed by the scheduler's worker, just after they end */
		for (tries = 0; tries < 50; tries++) {
			used = contexts_in_use(n);
			if (used == 0)
				break;
			usleep(100000);
		}
		CHECK(used == 0, "%s: %d contexts still in use with no file open",
		      devs[n], used);
	}
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} tests[] = {
		{ "/read-only", test_read_only },
		{ "/isolation", test_isolation },
		{ "/sysfs", test_sysfs },
		{ "/fdinfo", test_fdinfo },
	};
	unsigned int i;
	int before;

	find_devices();
	if (!ndevs) {
		printf("tc_drv_smoke: no tilecopy device: skipped\n");
		return 77;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		before = failures;
		tests[i].fn();
		printf("%s %s\n", failures == before ? "ok  " : "FAIL", tests[i].name);
	}
	before = failures;
	test_prime(0, "prime-self");
	printf("%s /prime-self\n", failures == before ? "ok  " : "FAIL");
	if (ndevs > 1) {
		before = failures;
		test_prime(1, "prime-cross");
		printf("%s /prime-cross (%s -> %s)\n", failures == before ? "ok  " : "FAIL",
		       devs[0], devs[1]);
		before = failures;
		test_implicit_sync();
		printf("%s /implicit-sync (%s -> %s)\n", failures == before ? "ok  " : "FAIL",
		       devs[0], devs[1]);
	} else {
		printf("skip /prime-cross, /implicit-sync: one device only\n");
	}
	/* last: every earlier test must have dropped its references */
	before = failures;
	test_contexts();
	printf("%s /contexts\n", failures == before ? "ok  " : "FAIL");
	before = failures;
	test_no_leak();
	printf("%s /no-leak\n", failures == before ? "ok  " : "FAIL");
	printf("tc_drv_smoke: %d failure(s) on %d device(s)\n", failures, ndevs);
	return failures ? 1 : 0;
}
