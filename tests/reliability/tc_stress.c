// SPDX-License-Identifier: MIT
/*
 * tc_stress.c - reliability and security tests of the tilecopy driver, run
 * inside the guest (tests/reliability/guest.sh, through run-guest.sh).
 *
 *   tc_stress uapi-fuzz PROCS ITERS SEED   random and mutated-valid arguments
 *                                          to every ioctl (userptr BOs over
 *                                          memory later unmapped too), PROCS
 *                                          processes
 *   tc_stress isolation                    process A attacks process B's BOs
 *   tc_stress faults PROCS JOBS TIMEOUTS DMAERRS
 *                                          PROCS processes submit JOBS jobs
 *                                          each while the engine injects
 *                                          faults; exactly TIMEOUTS jobs must
 *                                          time out and DMAERRS fail with
 *                                          DMA_ERROR; a job running when a
 *                                          hang resets the engine may fail
 *                                          with RESET; every other one verify
 *   tc_stress load PROCS SECONDS           N processes x jobs with verification
 *   tc_stress kill PROCS ROUNDS            kill -9 of processes with jobs in flight
 *   tc_stress reuse ROUNDS                 GEM_CLOSE of a running job's BO, new BOs
 *   tc_stress hold mmap|dmabuf SECONDS [BYTES]  keep a BO alive past its file
 *   tc_stress snapshot FILE                driver/memory counters into FILE
 *   tc_stress compare BEFORE AFTER         counters back to baseline?
 *
 * Talks to the driver with raw ioctls (libdrm's drmIoctl) like tests/guest.
 * Every mode prints one "RESULT ..." line with its figures and exits 0 on
 * success, 1 on a failed check, 77 when there is no device.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "tilecopy_accel.h"
#include "hw/tilecopy_hw.h"

#define N_(a) (sizeof(a) / sizeof((a)[0]))
#define PAGE 4096u

/*
 * A dma-buf's line in debugfs dma_buf/bufinfo: "size\tflags\tmode\tcount\t
 * exp_name\t...". DRM's PRIME export names the exporter after its own
 * module ("drm"), not the driver: "tilecopy" would only match the fence
 * lines under each buffer. Nothing else in the guest exports through DRM.
 */
#define TC_DMABUF_LINE	"\tdrm\t"

static const char *prog_mode = "?";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tc_stress %s [%d]: FAIL: ", prog_mode, getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

#define CHECK(cond, ...) do { if (!(cond)) die(__VA_ARGS__); } while (0)

/* ---- random numbers (xorshift64*, reproducible per seed) ------------------ */

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t rnd_below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* ---- device -------------------------------------------------------------- */

static char dev_path[64];
static char pci_name[64];

static unsigned long read_ulong(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoul(buf, NULL, 0);
}

static void find_device(void)
{
	DIR *d = opendir("/sys/class/accel");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char p[512], link[512];
		ssize_t n;

		if (strncmp(e->d_name, "accel", 5))
			continue;
		snprintf(p, sizeof(p), "/sys/class/accel/%s/device/vendor", e->d_name);
		if (read_ulong(p) != TC_PCI_VENDOR_ID)
			continue;
		snprintf(p, sizeof(p), "/sys/class/accel/%s/device/device", e->d_name);
		if (read_ulong(p) != TC_PCI_DEVICE_ID)
			continue;
		snprintf(p, sizeof(p), "/sys/class/accel/%s/device", e->d_name);
		n = readlink(p, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		if (!dev_path[0] || strcmp(e->d_name, dev_path + 11) < 0) {
			snprintf(dev_path, sizeof(dev_path), "/dev/accel/%.40s", e->d_name);
			snprintf(pci_name, sizeof(pci_name), "%.60s", strrchr(link, '/') + 1);
		}
	}
	if (d)
		closedir(d);
	if (!dev_path[0]) {
		fprintf(stderr, "tc_stress: SKIP: no tilecopy device under /sys/class/accel\n");
		exit(getenv("TC_REQUIRE_DEVICE") ? 1 : 77);
	}
}

static int dev_open(void)
{
	int fd = open(dev_path, O_RDWR | O_CLOEXEC);

	CHECK(fd >= 0, "open %s: %s", dev_path, strerror(errno));
	return fd;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static uint64_t get_param(int fd, uint32_t p)
{
	struct drm_tilecopy_get_param g = { .param = p };

	CHECK(!xioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &g), "GET_PARAM %u", p);
	return g.value;
}

struct bo {
	uint32_t handle, flags;
	uint64_t size, va, off;
	uint8_t *map;
	/* a userptr BO: the anonymous mapping it was made of (NULL once unmapped) */
	uint8_t *umap;
	size_t ulen;
};

/* Unmap what the process maps of @b: its mmap, or a userptr BO's memory. */
static void bo_unmap(struct bo *b)
{
	if (b->ulen) {
		if (b->umap)
			munmap(b->umap, b->ulen);
	} else {
		munmap(b->map, b->size);
	}
}

static int bo_create(int fd, uint64_t size, uint32_t flags, struct bo *b)
{
	struct drm_tilecopy_bo_create c = { .size = size, .flags = flags };
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);

	if (r)
		return r;
	memset(b, 0, sizeof(*b));
	b->handle = c.handle;
	b->flags = flags;
	b->size = size;
	b->va = c.va;
	b->off = c.mmap_offset;
	b->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, c.mmap_offset);
	CHECK(b->map != MAP_FAILED, "mmap BO: %s", strerror(errno));
	return 0;
}

static void bo_new(int fd, uint64_t size, struct bo *b)
{
	int r = bo_create(fd, size, 0, b);

	CHECK(!r, "BO_CREATE %" PRIu64 ": %s", size, strerror(-r));
}

static int gem_close(int fd, uint32_t h)
{
	struct drm_gem_close c = { .handle = h };

	return xioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

static void bo_free(int fd, struct bo *b)
{
	bo_unmap(b);
	CHECK(!gem_close(fd, b->handle), "GEM_CLOSE %u", b->handle);
}

static void desc_memcpy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src, uint32_t n)
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

static int submit(int fd, const struct drm_tilecopy_desc *d, uint32_t n,
		  const uint32_t *bos, uint32_t nbo, uint32_t queue, uint64_t *id)
{
	struct drm_tilecopy_submit s = {
		.descs = (uintptr_t)d, .bo_handles = (uintptr_t)bos,
		.desc_count = n, .desc_size = sizeof(*d), .bo_count = nbo,
		.queue = queue,
	};
	int r = xioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, &s);

	if (!r && id)
		*id = s.job_id;
	return r;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int wait_job(int fd, uint64_t id, int64_t rel_ns, struct drm_tilecopy_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->job_id = id;
	w->timeout_ns = now_ns() + rel_ns;
	return xioctl(fd, DRM_IOCTL_TILECOPY_WAIT, w);
}

/* Status of a job, waiting up to 60 s (a hung job times out in ~5 s). */
static uint32_t wait_status(int fd, uint64_t id, struct drm_tilecopy_wait *out)
{
	struct drm_tilecopy_wait w;
	int r = wait_job(fd, id, 60ll * 1000000000, &w);

	CHECK(!r, "WAIT job %" PRIu64 ": %s", id, strerror(-r));
	if (out)
		*out = w;
	return w.status;
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u | 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static int pattern_ok(const uint8_t *p, size_t n, uint32_t seed)
{
	uint8_t *ref = malloc(n);
	int ok;

	CHECK(ref, "malloc");
	pattern(ref, n, seed);
	ok = !memcmp(ref, p, n);
	free(ref);
	return ok;
}

/* One verified job: COPY src -> dst (reversed in 4 KiB blocks) on @queue. */
struct vjob {
	struct bo src, dst;
	uint32_t seed;
	uint64_t id;
	size_t size;
	struct drm_tilecopy_desc d[64];
	uint32_t nd;
};

static void vjob_prepare(int fd, struct vjob *j, size_t size, uint32_t seed)
{
	memset(j, 0, sizeof(*j));
	j->size = size;
	j->seed = seed;
	bo_new(fd, size, &j->src);
	bo_new(fd, size, &j->dst);
}

static int vjob_submit(int fd, struct vjob *j, uint32_t queue)
{
	size_t blocks = j->size / PAGE;
	uint32_t bos[2] = { j->src.handle, j->dst.handle };

	pattern(j->src.map, j->size, j->seed);
	memset(j->dst.map, 0, j->size);
	j->nd = 0;
	for (size_t b = 0; b < blocks && j->nd < N_(j->d); b++, j->nd++)
		desc_memcpy(&j->d[j->nd], j->dst.va + (blocks - 1 - b) * PAGE,
			    j->src.va + b * PAGE, PAGE);
	return submit(fd, j->d, j->nd, bos, 2, queue, &j->id);
}

static int vjob_verify(const struct vjob *j)
{
	size_t blocks = j->size / PAGE;
	uint8_t *ref = malloc(j->size);
	int ok = 1;

	CHECK(ref, "malloc");
	pattern(ref, j->size, j->seed);
	for (size_t b = 0; b < blocks && ok; b++)
		ok = !memcmp(j->dst.map + (blocks - 1 - b) * PAGE, ref + b * PAGE, PAGE);
	free(ref);
	return ok;
}

static void vjob_free(int fd, struct vjob *j)
{
	bo_free(fd, &j->src);
	bo_free(fd, &j->dst);
}

/* A quick end-to-end job: the device works. */
static void device_works(const char *when)
{
	int fd = dev_open();
	struct vjob j;
	uint32_t st;

	vjob_prepare(fd, &j, 16 * PAGE, 4242);
	CHECK(!vjob_submit(fd, &j, 0), "%s: SUBMIT of a valid job refused", when);
	st = wait_status(fd, j.id, NULL);
	CHECK(st == DRM_TILECOPY_STATUS_OK, "%s: valid job status %u", when, st);
	CHECK(vjob_verify(&j), "%s: valid job's data wrong", when);
	vjob_free(fd, &j);
	close(fd);
}

/* ---- counters: driver sysfs + debugfs, kernel memory ---------------------- */

struct snap {
	long shmem_kb, sunreclaim_kb, memavail_kb;
	long jobs_done, jobs_failed, resets;
	long module_refcnt, clients, engine_jobs, dmabufs, gem_objects;
	long bos, bo_bytes;	/* the driver's own count of live BOs */
	long pinned_bytes;	/* user pages pinned by userptr BOs */
};

static long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static long count_lines(const char *path, const char *match, int skip)
{
	FILE *f = fopen(path, "r");
	char line[512];
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (skip-- <= 0 && (!match || strstr(line, match)))
			n++;
	fclose(f);
	return n;
}

/* Sum of "N jobs on the engine" over the queues in debugfs. */
static long engine_jobs(void)
{
	char p[256], line[512];
	FILE *f;
	long n = 0;

	snprintf(p, sizeof(p), "/sys/kernel/debug/accel/%s/queues", pci_name);
	f = fopen(p, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned q, j;

		if (sscanf(line, "queue %u: %u jobs", &q, &j) == 2)
			n += j;
	}
	fclose(f);
	return n;
}

static void snapshot(struct snap *s)
{
	char p[256];

	/* Let deferred frees (RCU, workqueues) run first. */
	sync();
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen("/proc/sys/vm/drop_caches", "w");

		if (f) {
			fputs("3\n", f);
			fclose(f);
		}
		usleep(200000);
	}
	s->shmem_kb = meminfo("Shmem");
	s->sunreclaim_kb = meminfo("SUnreclaim");
	s->memavail_kb = meminfo("MemAvailable");
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/jobs_done", pci_name);
	s->jobs_done = (long)read_ulong(p);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/jobs_failed", pci_name);
	s->jobs_failed = (long)read_ulong(p);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resets", pci_name);
	s->resets = (long)read_ulong(p);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/bos", pci_name);
	CHECK(access(p, R_OK) == 0, "%s missing", p);
	s->bos = (long)read_ulong(p);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/bo_bytes", pci_name);
	s->bo_bytes = (long)read_ulong(p);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/pinned_bytes", pci_name);
	s->pinned_bytes = (long)read_ulong(p);
	s->module_refcnt = (long)read_ulong("/sys/module/tilecopy/refcnt");
	snprintf(p, sizeof(p), "/sys/kernel/debug/accel/%s/clients", pci_name);
	s->clients = count_lines(p, NULL, 1);
	s->engine_jobs = engine_jobs();
	s->dmabufs = count_lines("/sys/kernel/debug/dma_buf/bufinfo", TC_DMABUF_LINE, 0);
	snprintf(p, sizeof(p), "/sys/kernel/debug/accel/%s/gem_names", pci_name);
	s->gem_objects = count_lines(p, NULL, 1);
}

static void snap_print(FILE *f, const struct snap *s)
{
	fprintf(f, "shmem_kb=%ld sunreclaim_kb=%ld memavail_kb=%ld jobs_done=%ld jobs_failed=%ld resets=%ld module_refcnt=%ld clients=%ld engine_jobs=%ld dmabufs=%ld gem_names=%ld bos=%ld bo_bytes=%ld pinned_bytes=%ld\n",
		s->shmem_kb, s->sunreclaim_kb, s->memavail_kb, s->jobs_done,
		s->jobs_failed, s->resets, s->module_refcnt, s->clients,
		s->engine_jobs, s->dmabufs, s->gem_objects, s->bos, s->bo_bytes,
		s->pinned_bytes);
}

static void snap_read(const char *path, struct snap *s)
{
	FILE *f = fopen(path, "r");

	CHECK(f, "open %s", path);
	CHECK(fscanf(f, "shmem_kb=%ld sunreclaim_kb=%ld memavail_kb=%ld jobs_done=%ld jobs_failed=%ld resets=%ld module_refcnt=%ld clients=%ld engine_jobs=%ld dmabufs=%ld gem_names=%ld bos=%ld bo_bytes=%ld pinned_bytes=%ld",
		     &s->shmem_kb, &s->sunreclaim_kb, &s->memavail_kb, &s->jobs_done,
		     &s->jobs_failed, &s->resets, &s->module_refcnt, &s->clients,
		     &s->engine_jobs, &s->dmabufs, &s->gem_objects, &s->bos,
		     &s->bo_bytes, &s->pinned_bytes) == 14, "parse %s", path);
	fclose(f);
}

/*
 * Back to baseline: no file, job, dma-buf or module reference left, and
 * kernel memory within a slack far below what the tests allocated (they
 * create hundreds of MiB of BOs in total).
 */
static int snap_compare(const struct snap *a, const struct snap *b)
{
	int ok = 1;

#define SAME(f) do { if (a->f != b->f) { fprintf(stderr, "leak check: %s %ld -> %ld\n", #f, a->f, b->f); ok = 0; } } while (0)
	SAME(module_refcnt);
	SAME(clients);
	SAME(engine_jobs);
	SAME(dmabufs);
	SAME(gem_objects);
	SAME(bos);
	SAME(bo_bytes);
	SAME(pinned_bytes);
#undef SAME
	if (b->shmem_kb - a->shmem_kb > 2048) {
		fprintf(stderr, "leak check: Shmem grew by %ld kB\n", b->shmem_kb - a->shmem_kb);
		ok = 0;
	}
	if (b->sunreclaim_kb - a->sunreclaim_kb > 4096) {
		fprintf(stderr, "leak check: SUnreclaim grew by %ld kB\n",
			b->sunreclaim_kb - a->sunreclaim_kb);
		ok = 0;
	}
	printf("RESULT leak-check %s: Shmem %+ld kB, SUnreclaim %+ld kB, MemAvailable %+ld kB, jobs done %+ld, failed %+ld, resets %+ld, clients %ld->%ld, engine jobs %ld->%ld, dma-bufs %ld->%ld, module refcnt %ld->%ld, BOs %ld->%ld (%ld->%ld bytes), pinned %ld->%ld bytes\n",
	       ok ? "ok" : "FAILED", b->shmem_kb - a->shmem_kb,
	       b->sunreclaim_kb - a->sunreclaim_kb, b->memavail_kb - a->memavail_kb,
	       b->jobs_done - a->jobs_done, b->jobs_failed - a->jobs_failed,
	       b->resets - a->resets, a->clients, b->clients, a->engine_jobs,
	       b->engine_jobs, a->dmabufs, b->dmabufs, a->module_refcnt, b->module_refcnt,
	       a->bos, b->bos, a->bo_bytes, b->bo_bytes, a->pinned_bytes, b->pinned_bytes);
	return ok;
}

/* ---- children ------------------------------------------------------------- */

/* Run @fn(@i) in @n children; 0 when all exited 0. */
static int run_children(int n, void (*fn)(int), pid_t *pids)
{
	pid_t local[256];
	int bad = 0;

	if (!pids)
		pids = local;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		CHECK(pids[i] >= 0, "fork");
		if (!pids[i]) {
			fn(i);
			exit(0);
		}
	}
	for (int i = 0; i < n; i++) {
		int st;

		waitpid(pids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "child %d (pid %d) %s %d\n", i, pids[i],
				WIFEXITED(st) ? "exited" : "killed by signal",
				WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
			bad++;
		}
	}
	return bad;
}

/* ---- uapi-fuzz ------------------------------------------------------------- */

static long fz_iters;
static uint64_t fz_seed;

struct fz_state {
	int fd;
	struct bo bos[48];
	int nbo;
	uint64_t jobs[128];
	int njobs;
	uint32_t syncobjs[8];
	int nsync;
	long calls, ok, err, jobs_run, waits_ok, valid_tried, valid_refused;
};

static uint32_t fz_handle(struct fz_state *s)
{
	switch (rnd_below(8)) {
	case 0: return 0;
	case 1: return (uint32_t)rnd();
	case 2: return s->nbo + 1 + (uint32_t)rnd_below(4);
	default: return s->nbo ? s->bos[rnd_below((uint64_t)s->nbo)].handle : 1;
	}
}

static uint64_t fz_u64_interesting(void)
{
	static const uint64_t v[] = {
		0, 1, 2, 7, 8, 4095, 4096, 4097, 65536, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
		~0ull, ~0ull - 4095, TC_VA_BITS < 64 ? 1ull << TC_VA_BITS : 0,
	};

	return rnd_below(3) ? v[rnd_below(N_(v))] : rnd();
}

static uint64_t fz_va(struct fz_state *s)
{
	if (s->nbo && rnd_below(4)) {
		struct bo *b = &s->bos[rnd_below((uint64_t)s->nbo)];

		switch (rnd_below(4)) {
		case 0: return b->va;
		case 1: return b->va + rnd_below(b->size);
		case 2: return b->va + b->size - rnd_below(16);
		default: return b->va + b->size + rnd_below(PAGE);
		}
	}
	return rnd_below(2) ? 0x100000000ull + rnd_below(1ull << 30) : fz_u64_interesting();
}

static void fz_count(struct fz_state *s, int r)
{
	s->calls++;
	if (r)
		s->err++;
	else
		s->ok++;
}

static void fz_bo_create(struct fz_state *s)
{
	static const uint64_t sizes[] = { 0, 1, 100, 4095, 4096, 4097, 8192, 65536, 1 << 20 };
	struct bo b;
	uint64_t size = rnd_below(5) ? sizes[rnd_below(N_(sizes))] : fz_u64_interesting();
	uint32_t flags = rnd_below(8) ? 0 : rnd_below(2) ? DRM_TILECOPY_BO_READ_ONLY : (uint32_t)rnd();
	int r;

	if (s->nbo >= (int)N_(s->bos))
		return;
	if (size > (4u << 20) && size < (64ull << 30))
		size = 4096;	/* huge sizes are refused; mid sizes would eat the guest */
	r = bo_create(s->fd, size, flags, &b);
	fz_count(s, r);
	if (!r) {
		CHECK(size && !(flags & ~DRM_TILECOPY_BO_READ_ONLY), "BO_CREATE accepted size %" PRIu64 " flags 0x%x",
		      size, flags);
		CHECK(b.va >= 0x100000000ull, "BO va 0x%" PRIx64 " below VA_START", b.va);
		if (!(flags & DRM_TILECOPY_BO_READ_ONLY) || 1)
			memset(b.map, 0x5a, size);
		s->bos[s->nbo++] = b;
	}
}

/*
 * BO_USERPTR: over fresh anonymous memory at a random offset (must work
 * for a size 1..1 MiB and valid flags, as root has no pin limit), or with a
 * hostile address and size (must fail). Now and then the memory of a live
 * userptr BO is unmapped: later jobs write its still-pinned pages.
 */
static void fz_bo_userptr(struct fz_state *s)
{
	static const uint64_t sizes[] = { 0, 1, 100, 4095, 4096, 4097, 8192, 65536, 1 << 20 };
	struct drm_tilecopy_bo_userptr u = { 0 };
	uint64_t size = sizes[rnd_below(N_(sizes))], off = rnd_below(2) ? 0 : rnd_below(PAGE);
	uint32_t flags = rnd_below(8) ? (rnd_below(2) ? DRM_TILECOPY_BO_READ_ONLY : 0) : (uint32_t)rnd();
	size_t len = (off + size + PAGE - 1) / PAGE * PAGE + PAGE;
	uint8_t *p;
	int r;

	if (s->nbo && rnd_below(8) == 0) {
		struct bo *b = &s->bos[rnd_below((uint64_t)s->nbo)];

		if (b->umap) {
			munmap(b->umap, b->ulen);
			b->umap = NULL;
		}
		return;
	}
	if (s->nbo >= (int)N_(s->bos))
		return;
	if (rnd_below(4) == 0) {
		u.addr = fz_u64_interesting();
		u.size = rnd_below(2) ? size : fz_u64_interesting();
		u.flags = flags;
		r = xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);
		fz_count(s, r);
		if (!r)	/* an address of ours after all: not kept */
			gem_close(s->fd, u.handle);
		return;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap %zu: %s", len, strerror(errno));
	memset(p, 0x5a, len);
	u.addr = (uintptr_t)p + off;
	u.size = size;
	u.flags = flags;
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);
	fz_count(s, r);
	CHECK(!r == (size && !(flags & ~DRM_TILECOPY_BO_READ_ONLY)),
	      "BO_USERPTR of %" PRIu64 " bytes, flags 0x%x: %s", size, flags,
	      r ? strerror(-r) : "accepted");
	if (r) {
		munmap(p, len);
		return;
	}
	s->bos[s->nbo++] = (struct bo){ .handle = u.handle, .flags = flags, .size = size,
					 .va = u.va, .map = p + off, .umap = p, .ulen = len };
}

static void fz_gem_close(struct fz_state *s)
{
	if (s->nbo && rnd_below(4)) {
		int i = (int)rnd_below((uint64_t)s->nbo);

		bo_unmap(&s->bos[i]);
		fz_count(s, gem_close(s->fd, s->bos[i].handle));
		s->bos[i] = s->bos[--s->nbo];
	} else {
		uint32_t h = (uint32_t)rnd();
		int live = 0;

		for (int i = 0; i < s->nbo; i++)
			live |= s->bos[i].handle == h;
		if (!live) {
			struct drm_gem_close c = { .handle = h, .pad = (uint32_t)rnd_below(2) };
			int r = xioctl(s->fd, DRM_IOCTL_GEM_CLOSE, &c);

			fz_count(s, r);
			CHECK(r, "GEM_CLOSE of unknown handle %u succeeded", h);
		}
	}
}

static void fz_mutate(void *p, size_t n)
{
	uint8_t *b = p;
	int k = 1 + (int)rnd_below(4);

	while (k--) {
		size_t i = rnd_below(n);

		switch (rnd_below(3)) {
		case 0: b[i] ^= (uint8_t)(1u << rnd_below(8)); break;
		case 1: b[i] = (uint8_t)rnd(); break;
		default: b[i] = rnd_below(2) ? 0xff : 0; break;
		}
	}
}

static void fz_submit(struct fz_state *s)
{
	struct drm_tilecopy_desc d[16];
	uint32_t bos[64];
	struct drm_tilecopy_submit a;
	uint32_t nd = 1 + (uint32_t)rnd_below(N_(d)), nb = 0;
	int r;

	int mutate = (int)rnd_below(2);	/* half valid jobs, half one mutation */
	int victim = mutate ? (int)rnd_below(nd + 1) : -1;	/* nd: the struct */

	memset(d, 0, sizeof(d));
	for (int i = 0; i < s->nbo; i++)
		bos[nb++] = s->bos[i].handle;
	if (mutate && rnd_below(4) == 0)
		nb = (uint32_t)rnd_below(nb + 1);	/* a partial BO list */
	/* Valid descriptors inside the BOs, then mutations. */
	for (uint32_t i = 0; i < nd; i++) {
		struct bo *src = s->nbo ? &s->bos[rnd_below((uint64_t)s->nbo)] : NULL;
		struct bo *dst = s->nbo ? &s->bos[rnd_below((uint64_t)s->nbo)] : NULL;

		for (int t = 0; dst && t < 4 && (dst->flags & DRM_TILECOPY_BO_READ_ONLY); t++)
			dst = &s->bos[rnd_below((uint64_t)s->nbo)];
		uint64_t lim = src && dst ? (src->size < dst->size ? src->size : dst->size) : 0;
		uint32_t n = 1 + (uint32_t)rnd_below(lim < PAGE ? lim : PAGE);

		if (lim) {
			desc_memcpy(&d[i], dst->va + rnd_below(dst->size - n + 1),
				    src->va + rnd_below(src->size - n + 1), n);
			if (rnd_below(4) == 0) {
				d[i].op = DRM_TILECOPY_OP_FILL;
				d[i].src = 0;
				d[i].src_stride[0] = 0;
				d[i].value = rnd() & 0xff;	/* no bits above elem_size */
			}
		} else {
			desc_memcpy(&d[i], fz_va(s), fz_va(s), n);
		}
		if ((int)i == victim) {
			if (rnd_below(3) == 0) {
				d[i].src = fz_va(s);
				d[i].dst = fz_va(s);
			} else {
				fz_mutate(&d[i], sizeof(d[i]));
			}
		}
	}
	memset(&a, 0, sizeof(a));
	a.descs = (uintptr_t)d;
	a.bo_handles = (uintptr_t)bos;
	a.desc_count = nd;
	a.desc_size = sizeof(d[0]);
	a.bo_count = nb;
	if (s->nsync && rnd_below(8) == 0) {
		a.in_syncobjs = (uintptr_t)s->syncobjs;
		a.in_syncobj_count = 1 + (uint32_t)rnd_below((uint64_t)s->nsync);
	}
	if (s->nsync && rnd_below(4) == 0)
		a.out_syncobj = s->syncobjs[rnd_below((uint64_t)s->nsync)];
	a.queue = (uint32_t)rnd_below(mutate ? 6 : 4);
	if (victim == (int)nd) {
		/* Mutate the submit struct itself, with pointer-ish values. */
		switch (rnd_below(8)) {
		case 0: a.descs = rnd_below(2) ? 0 : 0xffff800000000000ull; break;
		case 1: a.bo_handles = rnd_below(2) ? 1 : fz_u64_interesting(); break;
		case 2: a.desc_count = (uint32_t)fz_u64_interesting(); break;
		case 3: a.desc_size = (uint32_t)rnd_below(512); break;
		case 4: a.bo_count = (uint32_t)fz_u64_interesting(); break;
		case 5: a.in_syncobjs = fz_u64_interesting(); a.in_syncobj_count = (uint32_t)rnd_below(100); break;
		case 6: a.out_syncobj = (uint32_t)rnd(); break;
		default: fz_mutate(&a, sizeof(a)); break;
		}
	}
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_SUBMIT, &a);
	fz_count(s, r);
	int all_rw = 1;

	for (uint32_t i = 0; i < nd; i++)
		for (int k = 0; k < s->nbo; k++)
			if ((s->bos[k].flags & DRM_TILECOPY_BO_READ_ONLY) && d[i].dst >= s->bos[k].va &&
			    d[i].dst < s->bos[k].va + s->bos[k].size)
				all_rw = 0;
	if (!mutate && all_rw && s->nbo && a.queue < 4 && nb == (uint32_t)s->nbo && !a.in_syncobj_count)
		s->valid_tried++, s->valid_refused += r != 0;
	if (!mutate && all_rw && s->nbo && a.queue < 4 && nb == (uint32_t)s->nbo && !a.in_syncobj_count && r && getenv("TC_STRESS_DEBUG"))
		fprintf(stderr, "unmutated job refused: %s\n", strerror(-r));
	if (!r) {
		CHECK(a.job_id, "SUBMIT gave job id 0");
		s->jobs_run++;
		if (s->njobs < (int)N_(s->jobs))
			s->jobs[s->njobs++] = a.job_id;
	}
}

static void fz_wait(struct fz_state *s, int all)
{
	struct drm_tilecopy_wait w;
	int r;

	if (all || (s->njobs && rnd_below(3))) {
		int i = all ? s->njobs - 1 : (int)rnd_below((uint64_t)s->njobs);

		if (i < 0)
			return;
		r = wait_job(s->fd, s->jobs[i], all ? 60ll * 1000000000 : (int64_t)rnd_below(20000000), &w);
		fz_count(s, r);
		CHECK(!r || r == -ETIMEDOUT, "WAIT of own job %" PRIu64 ": %s", s->jobs[i], strerror(-r));
		if (!r) {
			CHECK(w.status < DRM_TILECOPY_STATUS_PENDING ||
			      w.status == DRM_TILECOPY_STATUS_RESET, "status %u", w.status);
			s->waits_ok++;
			s->jobs[i] = s->jobs[--s->njobs];
		} else {
			CHECK(w.status == DRM_TILECOPY_STATUS_PENDING, "timed-out WAIT status %u", w.status);
		}
		return;
	}
	memset(&w, 0, sizeof(w));
	w.job_id = fz_u64_interesting();
	w.timeout_ns = rnd_below(2) ? now_ns() + (int64_t)rnd_below(1000000) : (int64_t)fz_u64_interesting();
	w.flags = rnd_below(3) ? 0 : (uint32_t)rnd();
	w.pad = rnd_below(3) ? 0 : (uint32_t)rnd();
	r = xioctl(s->fd, DRM_IOCTL_TILECOPY_WAIT, &w);
	fz_count(s, r);
	for (int i = 0; i < s->njobs; i++)
		if (s->jobs[i] == w.job_id && !r)
			s->jobs[i] = s->jobs[--s->njobs];
}

static void fz_prime(struct fz_state *s)
{
	uint32_t h = fz_handle(s), back = 0;
	int fd = -1, r;

	r = drmPrimeHandleToFD(s->fd, h, rnd_below(4) ? DRM_CLOEXEC | DRM_RDWR : (uint32_t)rnd(), &fd) ? -errno : 0;
	fz_count(s, r);
	if (!r) {
		r = drmPrimeFDToHandle(s->fd, fd, &back) ? -errno : 0;
		fz_count(s, r);
		CHECK(!r && back == h, "PRIME import of own export: %d, handle %u != %u", r, back, h);
		close(fd);
	}
	/* Import of fds that are no dma-buf: refused. */
	int junk[] = { 0, 1, s->fd, -1, 1000 };

	fd = junk[rnd_below(N_(junk))];
	r = drmPrimeFDToHandle(s->fd, fd, &back) ? -errno : 0;
	fz_count(s, r);
	CHECK(r, "PRIME import of fd %d (no dma-buf) succeeded", fd);
}

static void fz_raw(struct fz_state *s)
{
	/* Any driver ioctl number, any size and direction, random bytes. */
	uint8_t buf[512];
	unsigned nr = DRM_COMMAND_BASE + (unsigned)rnd_below(16);
	unsigned size = (unsigned)rnd_below(sizeof(buf));
	unsigned long req;
	int r;

	pattern(buf, sizeof(buf), (uint32_t)rnd());
	switch (rnd_below(4)) {
	case 0: req = DRM_IO(nr); break;
	case 1: req = DRM_IOR(nr, uint8_t[1]) & ~(0x3fffu << 16) ; req |= (unsigned long)size << 16; break;
	case 2: req = (DRM_IOW(nr, uint8_t[1]) & ~(0x3fffu << 16)) | (unsigned long)size << 16; break;
	default: req = (DRM_IOWR(nr, uint8_t[1]) & ~(0x3fffu << 16)) | (unsigned long)size << 16; break;
	}
	/* Never a real BO_CREATE with random size: it could pin all RAM. */
	if ((nr - DRM_COMMAND_BASE) == DRM_TILECOPY_BO_CREATE) {
		uint64_t small = rnd_below(65536);

		memcpy(buf, &small, sizeof(small));
	}
	r = ioctl(s->fd, req, rnd_below(8) ? (void *)buf : (void *)(uintptr_t)fz_u64_interesting()) ? -errno : 0;
	fz_count(s, r);
	if (!r && (nr - DRM_COMMAND_BASE) == DRM_TILECOPY_BO_CREATE && size >= 16) {
		uint32_t h;

		memcpy(&h, buf + 12, sizeof(h));
		gem_close(s->fd, h);	/* created by chance: do not leak it */
	}
}

static void fz_param(struct fz_state *s)
{
	struct drm_tilecopy_get_param g = {
		.param = rnd_below(4) ? (uint32_t)rnd_below(24) : (uint32_t)rnd(),
		.pad = rnd_below(4) ? 0 : (uint32_t)rnd(),
	};
	int r = xioctl(s->fd, DRM_IOCTL_TILECOPY_GET_PARAM, &g);

	fz_count(s, r);
	if (g.param > DRM_TILECOPY_PARAM_CONVERT_TYPES || g.pad)	/* the last one */
		CHECK(r == -EINVAL, "GET_PARAM %u pad %u: %d", g.param, g.pad, r);
}

static void fz_bo_info(struct fz_state *s)
{
	struct drm_tilecopy_bo_info i = {
		.handle = fz_handle(s), .flags = rnd_below(4) ? 0 : (uint32_t)rnd(),
	};
	int r = xioctl(s->fd, DRM_IOCTL_TILECOPY_BO_INFO, &i);

	fz_count(s, r);
	if (!r)
		for (int k = 0; k < s->nbo; k++)
			if (s->bos[k].handle == i.handle)
				CHECK(i.va == s->bos[k].va && i.size >= s->bos[k].size,
				      "BO_INFO of handle %u: va 0x%" PRIx64 " size %" PRIu64
				      ", BO_CREATE gave va 0x%" PRIx64 " size %" PRIu64, i.handle,
				      (uint64_t)i.va, (uint64_t)i.size, s->bos[k].va, s->bos[k].size);
}

static void fz_syncobj(struct fz_state *s)
{
	if (s->nsync < (int)N_(s->syncobjs) && rnd_below(2)) {
		uint32_t h;

		if (!drmSyncobjCreate(s->fd, rnd_below(2) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0, &h))
			s->syncobjs[s->nsync++] = h;
		fz_count(s, 0);
	} else if (s->nsync) {
		fz_count(s, drmSyncobjDestroy(s->fd, s->syncobjs[--s->nsync]));
	}
}

static void fz_mmap(struct fz_state *s)
{
	uint64_t off = s->nbo && rnd_below(2) ? s->bos[rnd_below((uint64_t)s->nbo)].off +
		       (rnd_below(2) ? PAGE * rnd_below(4) : 0) : fz_u64_interesting() & ~(uint64_t)(PAGE - 1);
	size_t len = PAGE * (1 + rnd_below(300));
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)off);

	fz_count(s, p == MAP_FAILED ? -errno : 0);
	if (p != MAP_FAILED) {
		volatile uint8_t *b = p;

		(void)b[0];	/* fault one page in */
		munmap(p, len);
	}
}

static void uapi_fuzz_child(int idx)
{
	struct fz_state s = { 0 };

	rng_state = fz_seed * 1000003u + (uint64_t)idx * 7919u + 1;
	s.fd = dev_open();
	for (long it = 0; it < fz_iters; it++) {
		switch (rnd_below(20)) {
		case 0: case 1: case 2: fz_bo_create(&s); break;
		case 3: fz_gem_close(&s); break;
		case 4: fz_bo_info(&s); break;
		case 5: fz_param(&s); break;
		case 6: case 7: case 8: case 9: case 10: fz_submit(&s); break;
		case 11: case 12: case 13: fz_wait(&s, 0); break;
		case 14: fz_prime(&s); break;
		case 15: fz_raw(&s); break;
		case 16: fz_syncobj(&s); break;
		case 17: fz_mmap(&s); break;
		case 18: fz_bo_userptr(&s); break;
		default:
			/* a second file of the same process, opened and closed */
			close(dev_open());
			fz_count(&s, 0);
			break;
		}
	}
	CHECK(!s.valid_refused, "%ld of %ld valid (unmutated) jobs refused", s.valid_refused, s.valid_tried);
	/* Half the children reap everything and clean up; half just exit. */
	if (idx % 2 == 0) {
		while (s.njobs)
			fz_wait(&s, 1);
		for (int i = 0; i < s.nbo; i++)
			bo_free(s.fd, &s.bos[i]);
		close(s.fd);
	}
	printf("RESULT uapi-fuzz child %d: %ld calls (%ld ok, %ld refused), %ld jobs accepted, %ld waited, %ld of %ld unmutated jobs refused, %s\n",
	       idx, s.calls, s.ok, s.err, s.jobs_run, s.waits_ok, s.valid_refused, s.valid_tried,
	       idx % 2 ? "exit without cleanup" : "clean close");
	fflush(stdout);
}

static int mode_uapi_fuzz(int argc, char **argv)
{
	int procs = argc > 2 ? atoi(argv[2]) : 4;
	int64_t t0 = now_ns();

	fz_iters = argc > 3 ? atol(argv[3]) : 2000;
	fz_seed = argc > 4 ? strtoull(argv[4], NULL, 0) : 1;
	CHECK(!run_children(procs, uapi_fuzz_child, NULL), "a fuzzing child failed");
	device_works("after uapi fuzzing");
	printf("RESULT uapi-fuzz: %d processes x %ld iterations, seed %" PRIu64 ", %.1f s, device works after\n",
	       procs, fz_iters, fz_seed, (now_ns() - t0) / 1e9);
	return 0;
}

/* ---- isolation ------------------------------------------------------------ */

#define ISO_BOS 4
#define ISO_SIZE (64 * 1024)

struct iso_msg {
	uint64_t va[ISO_BOS];
	uint32_t handle[ISO_BOS];
};

static int mode_isolation(void)
{
	int to_a[2], done[2];
	struct iso_msg m;
	pid_t b;
	int64_t t0 = now_ns();

	CHECK(!pipe(to_a) && !pipe(done), "pipe");
	b = fork();
	CHECK(b >= 0, "fork");
	if (!b) {
		/* Process B: the victim. Keeps running its own verified jobs. */
		int fd = dev_open();
		struct bo bo[ISO_BOS];
		struct vjob j;
		long jobs = 0;
		char c;

		close(to_a[0]);
		close(done[1]);
		for (int i = 0; i < ISO_BOS; i++) {
			bo_new(fd, ISO_SIZE, &bo[i]);
			pattern(bo[i].map, ISO_SIZE, 1000 + i);
			m.va[i] = bo[i].va;
			m.handle[i] = bo[i].handle;
		}
		vjob_prepare(fd, &j, 16 * PAGE, 77);
		CHECK(write(to_a[1], &m, sizeof(m)) == sizeof(m), "write");
		fcntl(done[0], F_SETFL, O_NONBLOCK);
		while (read(done[0], &c, 1) != 1) {
			j.seed = 77 + (uint32_t)jobs;
			CHECK(!vjob_submit(fd, &j, (uint32_t)(jobs % 4)), "B: own SUBMIT refused");
			CHECK(wait_status(fd, j.id, NULL) == DRM_TILECOPY_STATUS_OK, "B: own job failed");
			CHECK(vjob_verify(&j), "B: own job's data wrong");
			jobs++;
		}
		for (int i = 0; i < ISO_BOS; i++)
			CHECK(pattern_ok(bo[i].map, ISO_SIZE, 1000 + i),
			      "B: BO %d (va 0x%" PRIx64 ") changed by process A", i, bo[i].va);
		printf("RESULT isolation B: %ld own jobs verified while A attacked; B's %d BOs unchanged\n",
		       jobs, ISO_BOS);
		exit(0);
	}

	/* Process A: the attacker. */
	close(to_a[1]);
	close(done[0]);
	CHECK(read(to_a[0], &m, sizeof(m)) == sizeof(m), "read");
	int fd = dev_open();
	struct bo own;
	uint32_t h;
	long refused = 0, ran = 0, faulted = 0, tries = 0;
	struct drm_tilecopy_desc d;
	uint64_t id;
	int same_va = 0;

	bo_new(fd, ISO_SIZE, &own);
	pattern(own.map, ISO_SIZE, 5);
	h = own.handle;
	for (int i = 0; i < ISO_BOS; i++)
		same_va += m.va[i] == own.va;
	/* 1. copies from/to B's VAs (and around them) with A's own BO list */
	for (int i = 0; i < ISO_BOS; i++) {
		for (int64_t delta = -(int64_t)PAGE; delta <= (int64_t)ISO_SIZE; delta += PAGE / 2) {
			for (int dir = 0; dir < 2; dir++) {
				uint64_t theirs = m.va[i] + (uint64_t)delta;
				int inside = theirs >= own.va && theirs + 256 <= own.va + own.size;
				int r;

				if (dir)
					desc_memcpy(&d, theirs, own.va, 256);
				else
					desc_memcpy(&d, own.va + PAGE, theirs, 256);
				tries++;
				r = submit(fd, &d, 1, &h, 1, 0, &id);
				if (r) {
					CHECK(r == -EINVAL, "A: SUBMIT at B's va 0x%" PRIx64 ": %s (want EINVAL)",
					      theirs, strerror(-r));
					CHECK(!inside, "A: SUBMIT inside A's own BO refused");
					refused++;
					continue;
				}
				/* Accepted only because A has its own BO at that VA. */
				CHECK(inside, "A: SUBMIT to 0x%" PRIx64 " outside A's BOs accepted", theirs);
				if (wait_status(fd, id, NULL) != DRM_TILECOPY_STATUS_OK)
					faulted++;
				ran++;
			}
		}
	}
	/* 2. B's handle numbers in A's file: A's own BO or nothing */
	for (int i = 0; i < ISO_BOS; i++) {
		struct drm_tilecopy_bo_info info = { .handle = m.handle[i] };
		int r = xioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info);

		tries++;
		if (m.handle[i] == own.handle)
			CHECK(!r && info.va == own.va, "A: BO_INFO of own handle");
		else
			CHECK(r == -ENOENT, "A: BO_INFO of B's handle %u: %d (want ENOENT)", m.handle[i], r);
		desc_memcpy(&d, own.va, m.va[i], 256);
		r = submit(fd, &d, 1, &m.handle[i], 1, 0, &id);
		if (!r) {
			CHECK(m.handle[i] == own.handle, "A: SUBMIT with B's handle %u accepted", m.handle[i]);
			wait_status(fd, id, NULL);
			ran++;
		} else {
			refused++;
		}
	}
	/* 3. flink names (global GEM names): none exist, none can be opened */
	for (uint32_t name = 1; name <= 256; name++) {
		struct drm_gem_open o = { .name = name };
		int r = xioctl(fd, DRM_IOCTL_GEM_OPEN, &o);

		tries++;
		CHECK(r, "A: GEM_OPEN of guessed name %u gave handle %u", name, o.handle);
		refused++;
	}
	/* 4. a sweep over the VA range start: all refused but A's own BO */
	for (uint64_t va = 0x100000000ull; va < 0x100000000ull + (64ull << 20); va += 64 * 1024) {
		int inside = va >= own.va && va + 64 <= own.va + own.size;
		int r;

		desc_memcpy(&d, va, own.va, 64);
		r = submit(fd, &d, 1, &h, 1, (uint32_t)(va >> 16) % 4, &id);
		tries++;
		CHECK((r == 0) == inside, "A: sweep va 0x%" PRIx64 ": %d", va, r);
		if (r)
			refused++;
		else
			wait_status(fd, id, NULL), ran++;
	}
	/* 5. A's own data: only A's own bytes moved around inside it */
	device_works("A after the attack");
	CHECK(write(done[1], "x", 1) == 1, "write");
	int st;

	waitpid(b, &st, 0);
	CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "process B failed");
	bo_free(fd, &own);
	close(fd);
	printf("RESULT isolation A: %ld attempts on B's VAs/handles/names: %ld refused (EINVAL/ENOENT), %ld ran inside A's own BO at the same VA (%d of B's VAs equal A's), %ld faulted; %.1f s\n",
	       tries, refused, ran, same_va, faulted, (now_ns() - t0) / 1e9);
	return 0;
}

/* ---- faults / load -------------------------------------------------------- */

static int ld_jobs, ld_seconds, ld_pipe[2];

struct ld_result {
	long ok, verified, timeouts, dma_errors, resets, other, submitted;
	int pid;
};

/* Submit batches of verified jobs on all queues; report per-status counts. */
static void load_child(int idx)
{
	int fd = dev_open();
	uint32_t nq = (uint32_t)get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	struct vjob j[4];
	struct ld_result r = { .pid = getpid() };
	int64_t end = now_ns() + (int64_t)ld_seconds * 1000000000;
	long n = 0;

	for (int k = 0; k < 4; k++)
		vjob_prepare(fd, &j[k], (size_t)(4 + (idx + k) % 13) * PAGE, (uint32_t)(idx * 1000 + k));
	while (ld_jobs ? n < ld_jobs : now_ns() < end) {
		int batch = 1 + (int)((idx + n) % 4);

		for (int k = 0; k < batch; k++) {
			j[k].seed = (uint32_t)(idx * 100000 + n + k);
			int rc = vjob_submit(fd, &j[k], (uint32_t)((idx + k) % nq));

			CHECK(!rc, "child %d: SUBMIT refused: %s", idx, strerror(-rc));
			r.submitted++;
		}
		for (int k = 0; k < batch; k++) {
			struct drm_tilecopy_wait w;
			uint32_t st = wait_status(fd, j[k].id, &w);

			if (st == DRM_TILECOPY_STATUS_OK) {
				r.ok++;
				CHECK(vjob_verify(&j[k]), "child %d: job %" PRIu64 " OK but data wrong", idx, j[k].id);
				r.verified++;
			} else if (st == DRM_TILECOPY_STATUS_TIMEOUT) {
				r.timeouts++;
			} else if (st == DRM_TILECOPY_STATUS_RESET) {
				/* running when the engine was reset: not run again */
				r.resets++;
			} else if (st == DRM_TILECOPY_STATUS_DMA_ERROR) {
				r.dma_errors++;
				CHECK(w.err_desc == j[k].nd / 2, "DMA error at desc %u, injected at %u",
				      w.err_desc, j[k].nd / 2);
			} else {
				r.other++;
				fprintf(stderr, "child %d: job status %u\n", idx, st);
			}
		}
		n += batch;
	}
	for (int k = 0; k < 4; k++)
		vjob_free(fd, &j[k]);
	close(fd);
	CHECK(write(ld_pipe[1], &r, sizeof(r)) == sizeof(r), "write");
}

static int run_load(int procs, struct ld_result *sum)
{
	int bad;

	memset(sum, 0, sizeof(*sum));
	CHECK(!pipe(ld_pipe), "pipe");
	bad = run_children(procs, load_child, NULL);
	close(ld_pipe[1]);
	for (;;) {
		struct ld_result r;

		if (read(ld_pipe[0], &r, sizeof(r)) != sizeof(r))
			break;
		sum->ok += r.ok;
		sum->verified += r.verified;
		sum->timeouts += r.timeouts;
		sum->dma_errors += r.dma_errors;
		sum->resets += r.resets;
		sum->other += r.other;
		sum->submitted += r.submitted;
	}
	close(ld_pipe[0]);
	return bad;
}

static int mode_faults(int argc, char **argv)
{
	int procs = argc > 2 ? atoi(argv[2]) : 4;
	long want_to = argc > 4 ? atol(argv[4]) : 0, want_dma = argc > 5 ? atol(argv[5]) : 0;
	struct ld_result s;
	int64_t t0 = now_ns();

	ld_jobs = argc > 3 ? atoi(argv[3]) : 16;
	CHECK(!run_load(procs, &s), "a submitting process failed");
	printf("RESULT faults: %d processes x %d jobs: %ld submitted, %ld ok and verified, %ld timed out, %ld DMA errors, %ld hit by the resets, %ld other; %.1f s\n",
	       procs, ld_jobs, s.submitted, s.verified, s.timeouts, s.dma_errors, s.resets,
	       s.other, (now_ns() - t0) / 1e9);
	CHECK(s.timeouts == want_to, "%ld jobs timed out, %ld injected", s.timeouts, want_to);
	CHECK(s.dma_errors == want_dma, "%ld DMA errors, %ld injected", s.dma_errors, want_dma);
	/* the engine runs one job at a time besides a hung one */
	CHECK(s.resets <= want_to, "%ld jobs hit by %ld resets", s.resets, want_to);
	CHECK(s.other == 0, "%ld jobs with another status", s.other);
	CHECK(s.verified == s.submitted - want_to - want_dma - s.resets,
	      "not every other job verified");
	device_works("after fault injection");
	return 0;
}

static int mode_load(int argc, char **argv)
{
	int procs = argc > 2 ? atoi(argv[2]) : 4;
	struct ld_result s;
	int64_t t0 = now_ns();

	ld_seconds = argc > 3 ? atoi(argv[3]) : 30;
	ld_jobs = 0;
	CHECK(!run_load(procs, &s), "a load process failed");
	printf("RESULT load: %d processes for %d s: %ld jobs, %ld verified, %ld hit by forced resets, %ld failed otherwise; %.1f s, %.0f jobs/s\n",
	       procs, ld_seconds, s.submitted, s.verified, s.resets,
	       s.submitted - s.verified - s.resets, (now_ns() - t0) / 1e9,
	       s.submitted / ((now_ns() - t0) / 1e9));
	/* a forced reset fails the job it finds running (RESET), no other */
	CHECK(s.verified + s.resets == s.submitted, "jobs failed under load");
	device_works("after load");
	return 0;
}

/* kill -9 with jobs in flight: children keep many big jobs queued. */
static void kill_child(int idx)
{
	int fd = dev_open();
	struct vjob j[8];
	uint32_t nq = (uint32_t)get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);

	for (int k = 0; k < 8; k++)
		vjob_prepare(fd, &j[k], 64 * PAGE, (uint32_t)(idx + k));
	for (unsigned long n = 0;; n++) {
		/* Never waits: the queue fills up to the per-file limit. */
		int r = vjob_submit(fd, &j[n % 8], (uint32_t)(n % nq));

		if (r) {
			struct drm_tilecopy_wait w;

			wait_job(fd, j[n % 8].id, 100000000, &w);
		}
	}
}

static int mode_kill(int argc, char **argv)
{
	int procs = argc > 2 ? atoi(argv[2]) : 4, rounds = argc > 3 ? atoi(argv[3]) : 3;
	long killed = 0, inflight_seen = 0;
	int64_t t0 = now_ns();

	for (int r = 0; r < rounds; r++) {
		pid_t pids[64];

		for (int i = 0; i < procs; i++) {
			pids[i] = fork();
			CHECK(pids[i] >= 0, "fork");
			if (!pids[i]) {
				kill_child(i);
				exit(0);
			}
		}
		usleep(700000 + 300000 * (useconds_t)r);
		long ej = engine_jobs();

		if (ej > 0)
			inflight_seen += ej;
		for (int i = 0; i < procs; i++) {
			int st;

			kill(pids[i], SIGKILL);
			waitpid(pids[i], &st, 0);
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child %d did not die by SIGKILL", i);
			killed++;
		}
		device_works("after kill -9");
	}
	/* Jobs of dead files drain (or are cancelled) in bounded time. */
	for (int i = 0; i < 300 && engine_jobs() > 0; i++)
		usleep(100000);
	CHECK(engine_jobs() <= 0, "%ld jobs still on the engine 30 s after the kills", engine_jobs());
	printf("RESULT kill: %d rounds, %ld processes killed with jobs queued (%ld jobs on the engine seen at kill time), device works after each; %.1f s\n",
	       rounds, killed, inflight_seen, (now_ns() - t0) / 1e9);
	return 0;
}

/*
 * GEM_CLOSE of a job's destination while the job runs, then new BOs at once:
 * if the closed BO's VA were given out again before the job let go of it,
 * the old job would write into a new BO. Each new BO must keep its bytes;
 * the old job's status is whatever it is (it still owns its BO).
 */
static int mode_reuse(int rounds)
{
	int fd = dev_open();
	long reused = 0, racing = 0, reused_racing = 0;
	const size_t big = 4u << 20;

	for (int r = 0; r < rounds; r++) {
		struct bo src, dst, fresh[4];
		struct drm_tilecopy_desc d[8];
		struct drm_tilecopy_wait w;
		uint32_t bos[2];
		uint64_t id, old_va;
		int running;

		bo_new(fd, big, &src);
		bo_new(fd, big, &dst);
		bos[0] = src.handle;
		bos[1] = dst.handle;
		/* The whole BO written 8 times: ~650 ms at 20 us per KiB. */
		for (int k = 0; k < 8; k++) {
			desc_memcpy(&d[k], dst.va, src.va, 0);
			d[k].elem_size = 8;
			d[k].extent[0] = (uint32_t)(big / 8);
		}
		CHECK(!submit(fd, d, 8, bos, 2, (uint32_t)r % 4, &id), "SUBMIT");
		old_va = dst.va;
		munmap(dst.map, dst.size);
		CHECK(!gem_close(fd, dst.handle), "GEM_CLOSE of a busy BO");
		for (int k = 0; k < 4; k++) {
			bo_new(fd, 64 * PAGE, &fresh[k]);
			pattern(fresh[k].map, fresh[k].size, 900 + (uint32_t)k);
		}
		running = wait_job(fd, id, 0, &w) == -ETIMEDOUT;
		racing += running;
		for (int k = 0; k < 4; k++) {
			int same = fresh[k].va >= old_va && fresh[k].va < old_va + big;

			reused += same;
			reused_racing += same && running;
		}
		if (running)
			CHECK(wait_status(fd, id, NULL) == DRM_TILECOPY_STATUS_OK,
			      "job whose destination handle was closed failed");
		for (int k = 0; k < 4; k++) {
			CHECK(pattern_ok(fresh[k].map, fresh[k].size, 900 + (uint32_t)k),
			      "round %d: new BO at va 0x%" PRIx64 " (inside the old job's dst 0x%" PRIx64
			      ") written by the old job", r, fresh[k].va, old_va);
			bo_free(fd, &fresh[k]);
		}
		bo_free(fd, &src);
	}
	close(fd);
	printf("RESULT reuse: %d rounds of GEM_CLOSE of a running 8 x 4 MiB job's destination, 4 new BOs each: all untouched; job still running in %ld rounds; new BO inside the closed BO's VA range %ld times (%ld while its job ran)\n",
	       rounds, racing, reused, reused_racing);
	CHECK(racing > 0, "the job never outlived the GEM_CLOSE: the race was not exercised (engine too fast?)");
	return 0;
}

/* Keep the module busy without an open file: an mmap or a dma-buf fd. */
static int mode_hold(const char *what, int seconds, uint64_t bytes)
{
	int fd = dev_open(), buf = -1;
	struct bo b;

	bo_new(fd, bytes, &b);
	memset(b.map, 1, bytes);
	if (!strcmp(what, "dmabuf")) {
		CHECK(!drmPrimeHandleToFD(fd, b.handle, DRM_CLOEXEC, &buf), "PRIME export");
		munmap(b.map, b.size);
	}
	close(fd);	/* the mmap or the dma-buf keeps the device in use */
	printf("holding a %s\n", what);
	sleep((unsigned)seconds);
	if (buf >= 0)
		close(buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct snap a, b;

	if (argc < 2) {
		fprintf(stderr, "usage: tc_stress uapi-fuzz|isolation|faults|load|kill|snapshot|compare ...\n");
		return 2;
	}
	prog_mode = argv[1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "compare")) {
		CHECK(argc == 4, "compare BEFORE AFTER");
		snap_read(argv[2], &a);
		snap_read(argv[3], &b);
		return snap_compare(&a, &b) ? 0 : 1;
	}
	find_device();
	if (!strcmp(argv[1], "snapshot")) {
		FILE *f = argc > 2 ? fopen(argv[2], "w") : stdout;

		CHECK(f, "open %s", argv[2]);
		snapshot(&a);
		snap_print(f, &a);
		if (f != stdout)
			fclose(f);
		return 0;
	}
	if (!strcmp(argv[1], "uapi-fuzz"))
		return mode_uapi_fuzz(argc, argv);
	if (!strcmp(argv[1], "isolation"))
		return mode_isolation();
	if (!strcmp(argv[1], "faults"))
		return mode_faults(argc, argv);
	if (!strcmp(argv[1], "load"))
		return mode_load(argc, argv);
	if (!strcmp(argv[1], "reuse"))
		return mode_reuse(argc > 2 ? atoi(argv[2]) : 20);
	if (!strcmp(argv[1], "hold"))
		return mode_hold(argc > 2 ? argv[2] : "mmap", argc > 3 ? atoi(argv[3]) : 3600,
				 argc > 4 ? strtoull(argv[4], NULL, 0) : 16 * PAGE);
	if (!strcmp(argv[1], "kill"))
		return mode_kill(argc, argv);
	fprintf(stderr, "tc_stress: unknown mode %s\n", argv[1]);
	return 2;
}
