// SPDX-License-Identifier: MIT
/*
 * test_userptr - BO_USERPTR (docs/uapi.md "Userptr buffer objects"): buffer
 * objects over the caller's own memory, as a careful and as a hostile user
 * uses them.
 *
 *   /userptr/feature         FEATURES bit 4, ABI 1.2
 *   /userptr/exact           engine copies between userptr BOs, page-aligned
 *                            and at odd offsets, over many pages: bit-exact,
 *                            the bytes around the destination untouched
 *   /userptr/read-only       a read-only pin of read-only memory (a file of
 *                            the host share) works; a write through it is
 *                            refused; a writable pin of it faults
 *   /userptr/bad-ranges      size 0, flags, wrapping, kernel addresses,
 *                            unmapped and PROT_NONE memory, larger than the
 *                            VA space or RAM, a BO's and a dma-buf's mmap:
 *                            each its errno
 *   /userptr/exact-range     SUBMIT accepts exactly the bytes asked for, not
 *                            the rest of their pages
 *   /userptr/no-mmap-export  no mmap offset, PRIME export refused
 *   /userptr/munmap-in-job   the range unmapped (source and destination)
 *                            while the job runs: the job completes on the
 *                            still-pinned pages, nothing leaks
 *   /userptr/mremap-fork     after mremap the BO writes the moved pages;
 *                            after fork the parent keeps the pinned pages
 *   /userptr/shared          memfd and MAP_SHARED memory: the engine's writes
 *                            show through the other mapping
 *   /userptr/pin-limit       RLIMIT_MEMLOCK without CAP_IPC_LOCK: ENOMEM,
 *                            VmPin accounts the pins and gives them back
 *   /userptr/pin-limit-children  children that pin through the inherited
 *                            file and exit leave their pins charged to
 *                            the user: together they stay within one
 *                            limit
 *   /userptr/threads         64 threads create and close userptr BOs on one
 *                            file (each handle closed twice) while 4
 *                            threads run checked jobs through others
 *   /userptr/close-in-flight a process with pinned BOs and jobs in flight
 *                            exits: the driver's counters, the kernel's
 *                            pin counters and VmPin come back
 *   /userptr/page-tables-charged  512 read-only BOs over one pinned
 *                            4 MiB buffer: their device page tables are
 *                            charged to the caller's memory cgroup
 *
 * Runs in check-guest's first boot (delay-ns-per-kb=50000: jobs slow enough
 * to unmap under) and in check-debug's (KASAN, lockdep, DMA-API debug).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "tc_guest.h"

#define PG 4096ul
#define MIB (1ul << 20)

/* ---- helpers --------------------------------------------------------------- */

static int userptr(int fd, const void *addr, uint64_t size, uint32_t flags,
		   struct drm_tilecopy_bo_userptr *out)
{
	struct drm_tilecopy_bo_userptr u = {
		.addr = (uintptr_t)addr, .size = size, .flags = flags,
	};
	int ret = tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);

	if (out)
		*out = u;
	if (!ret && !out)
		tc_gem_close(fd, u.handle);
	return ret;
}

static int userptr_raw(int fd, uint64_t addr, uint64_t size, uint32_t flags)
{
	struct drm_tilecopy_bo_userptr u = { .addr = addr, .size = size, .flags = flags };
	int ret = tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u);

	if (!ret)
		tc_gem_close(fd, u.handle);
	return ret;
}

static void *anon(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_msg(p != MAP_FAILED, "mmap %zu: %s", size, strerror(errno));
	return p;
}

/* One job copying @n bytes from @src to @dst in pieces of at most @piece. */
static int copy_job(int fd, uint64_t dst, uint64_t src, uint64_t n, uint64_t piece,
		    const uint32_t *bos, uint32_t nbos, uint64_t *job)
{
	uint32_t nd = (uint32_t)((n + piece - 1) / piece);
	struct drm_tilecopy_desc *d = calloc(nd, sizeof(*d));
	int ret;

	ck_assert(d);
	for (uint32_t i = 0; i < nd; i++) {
		uint64_t off = i * piece;

		tc_desc_memcpy(&d[i], dst + off, src + off,
			       (uint32_t)(n - off < piece ? n - off : piece));
	}
	ret = tc_submit(fd, d, nd, bos, nbos, 0, job);
	free(d);
	return ret;
}

static long long status_kb(const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	ck_assert(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtoll(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

/*
 * FOLL_PIN pins held system-wide: acquired minus released (/proc/vmstat),
 * after folding the per-CPU deltas (stat_refresh): unfolded, the two
 * counters may be a few apart either way (a baseline of -1 was seen).
 */
static long long pins_held(void)
{
	char name[64];
	long long v, acq = -1, rel = -1;
	int rfd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	FILE *f;

	ck_assert_msg(rfd >= 0 && write(rfd, "1", 1) == 1, "stat_refresh: %s",
		      strerror(errno));
	close(rfd);
	f = fopen("/proc/vmstat", "r");
	ck_assert(f);
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(name, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	ck_assert_msg(acq >= 0 && rel >= 0, "no nr_foll_pin_* in /proc/vmstat");
	return acq - rel;
}

struct counters {
	long long bos, bo_bytes, pinned, pins;
};

static void counters_read(struct counters *c)
{
	c->bos = tc_sysfs_stat(0, "bos");
	c->bo_bytes = tc_sysfs_stat(0, "bo_bytes");
	c->pinned = tc_sysfs_stat(0, "pinned_bytes");
	c->pins = pins_held();
}

/* Jobs drop their BOs a little after they finish: poll, with a bound. */
static void counters_settle(const struct counters *base, const char *after)
{
	int64_t end = tc_now_ns() + 20ll * 1000000000;
	struct counters now;

	for (;;) {
		counters_read(&now);
		if (!memcmp(&now, base, sizeof(now)) || tc_now_ns() > end)
			break;
		usleep(10000);
	}
	ck_assert_msg(!memcmp(&now, base, sizeof(now)),
		      "%s: bos %lld->%lld, bo_bytes %lld->%lld, pinned_bytes %lld->%lld, pins %lld->%lld",
		      after, base->bos, now.bos, base->bo_bytes, now.bo_bytes, base->pinned,
		      now.pinned, base->pins, now.pins);
}

/* ---- cases ------------------------------------------------------------------- */

START_TEST(test_feature)
{
	int fd = tc_open();

	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_ABI_VERSION), 0x00010002);
	ck_assert(tc_get_param(fd, DRM_TILECOPY_PARAM_FEATURES) & DRM_TILECOPY_FEATURE_USERPTR);
	close(fd);
}
END_TEST

/*
 * @n bytes from @src + @so to @dst + @dso, each a userptr BO of exactly its
 * bytes (the source read-only), in pieces of @piece.
 */
static void exact_case(int fd, uint8_t *src, size_t so, uint8_t *dst, size_t dso, size_t n,
		       size_t piece, uint32_t seed)
{
	struct drm_tilecopy_bo_userptr s, d;
	struct drm_tilecopy_bo_info info = { 0 };
	uint32_t bos[2];
	uint64_t job;

	tc_pattern(src + so, n, seed);
	memset(dst, 0x5a, dso + n + 64);
	tc_assert_ok(userptr(fd, src + so, n, DRM_TILECOPY_BO_READ_ONLY, &s));
	tc_assert_ok(userptr(fd, dst + dso, n, 0, &d));
	ck_assert_uint_eq(s.va % PG, ((uintptr_t)src + so) % PG);
	ck_assert_uint_eq(d.va % PG, ((uintptr_t)dst + dso) % PG);
	info.handle = d.handle;
	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info));
	ck_assert_uint_eq(info.size, n);
	ck_assert_uint_eq(info.va, d.va);
	ck_assert_uint_eq(info.mmap_offset, 0);
	bos[0] = s.handle;
	bos[1] = d.handle;
	tc_assert_ok(copy_job(fd, d.va, s.va, n, piece, bos, 2, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_msg(!memcmp(dst + dso, src + so, n), "%zu bytes at +%zu -> +%zu differ", n, so,
		      dso);
	for (size_t i = 0; i < dso; i++)
		ck_assert_msg(dst[i] == 0x5a, "byte %zu before the destination written", i);
	for (size_t i = dso + n; i < dso + n + 64; i++)
		ck_assert_msg(dst[i] == 0x5a, "byte %zu after the destination written", i);
	tc_assert_ok(tc_gem_close(fd, s.handle));
	tc_assert_ok(tc_gem_close(fd, d.handle));
}

START_TEST(test_exact)
{
	static const struct { size_t so, dso, n, piece; } cases[] = {
		{ 0, 0, PG, PG },			/* one page, aligned */
		{ 0, 0, 64 * PG, 16 * PG },		/* many pages, aligned */
		{ 1, 4095, 3, 3 },			/* 3 bytes across a page boundary */
		{ 7, 13, 100 * PG + 123, 7 * PG + 5 },	/* odd offsets, many pages */
		{ 4095, 1, 2 * MIB + 1, 256 * 1024 },	/* 2 MiB + 1 */
	};
	struct counters base;
	int fd = tc_open();
	size_t max = 2 * MIB + 2 * PG + 64;
	uint8_t *src = anon(max), *dst = malloc(max + 64);

	ck_assert(dst);
	counters_read(&base);
	for (size_t i = 0; i < TC_ARRAY_SIZE(cases); i++)
		exact_case(fd, src, cases[i].so, dst, cases[i].dso, cases[i].n, cases[i].piece,
			   (uint32_t)i + 1);
	/* source and destination in the same pages, two BOs over one range */
	{
		uint8_t *buf = anon(8 * PG);
		struct drm_tilecopy_bo_userptr a, b;
		uint32_t bos[2];
		uint64_t job;

		tc_pattern(buf, 4 * PG, 99);
		tc_assert_ok(userptr(fd, buf, 8 * PG, DRM_TILECOPY_BO_READ_ONLY, &a));
		tc_assert_ok(userptr(fd, buf, 8 * PG, 0, &b));
		bos[0] = a.handle;
		bos[1] = b.handle;
		tc_assert_ok(copy_job(fd, b.va + 4 * PG + 1, a.va, 4 * PG - 1, PG, bos, 2, &job));
		ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
		ck_assert(!memcmp(buf + 4 * PG + 1, buf, 4 * PG - 1));
		tc_gem_close(fd, a.handle);
		tc_gem_close(fd, b.handle);
		munmap(buf, 8 * PG);
	}
	close(fd);
	counters_settle(&base, "exact");
	munmap(src, max);
	free(dst);
}
END_TEST

START_TEST(test_read_only)
{
	int fd = tc_open(), ffd;
	uint8_t *ro = anon(4 * PG), *out = anon(4 * PG);
	struct drm_tilecopy_bo_userptr r, o;
	struct drm_tilecopy_desc d;
	uint32_t bos[2];
	struct stat st;
	uint64_t job;
	void *file;

	/* read-only memory: a read-only pin works, a writable one faults */
	tc_pattern(ro, 4 * PG, 7);
	ck_assert_int_eq(mprotect(ro, 4 * PG, PROT_READ), 0);
	tc_assert_err(userptr(fd, ro, 4 * PG, 0, NULL), EFAULT);
	tc_assert_ok(userptr(fd, ro + 5, 4 * PG - 5, DRM_TILECOPY_BO_READ_ONLY, &r));
	tc_assert_ok(userptr(fd, out, 4 * PG, 0, &o));
	bos[0] = r.handle;
	bos[1] = o.handle;
	/* the engine may not write a read-only userptr BO: SUBMIT refuses it */
	tc_desc_memcpy(&d, r.va, o.va, 16);
	tc_assert_err(tc_submit(fd, &d, 1, bos, 2, 0, NULL), EINVAL);
	tc_desc_memcpy(&d, o.va, r.va, 4 * PG - 5);
	tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert(!memcmp(out, ro + 5, 4 * PG - 5));
	tc_gem_close(fd, r.handle);

	/* a file of the (read-only) host share, mapped shared and read-only */
	ffd = open("/proc/self/exe", O_RDONLY);
	ck_assert_int_ge(ffd, 0);
	ck_assert_int_eq(fstat(ffd, &st), 0);
	ck_assert_int_ge(st.st_size, 4 * PG);
	file = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, ffd, 0);
	ck_assert(file != MAP_FAILED);
	tc_assert_err(userptr(fd, file, 4 * PG, 0, NULL), EFAULT);
	tc_assert_ok(userptr(fd, file, 4 * PG, DRM_TILECOPY_BO_READ_ONLY, &r));
	bos[0] = r.handle;
	memset(out, 0, 4 * PG);
	tc_desc_memcpy(&d, o.va, r.va, 4 * PG);
	tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert(!memcmp(out, file, 4 * PG));
	tc_gem_close(fd, r.handle);
	tc_gem_close(fd, o.handle);
	munmap(file, 4 * PG);
	close(ffd);
	close(fd);
}
END_TEST

START_TEST(test_bad_ranges)
{
	int fd = tc_open();
	uint8_t *p = anon(4 * PG);
	uint64_t va_size = tc_get_param(fd, DRM_TILECOPY_PARAM_VA_SIZE);
	struct drm_tilecopy_bo_userptr u = { .addr = (uintptr_t)p, .size = PG };
	struct tc_bo bo;
	struct counters base;

	counters_read(&base);
	tc_assert_err(userptr(fd, p, 0, 0, NULL), EINVAL);
	tc_assert_err(userptr(fd, p, PG, 2, NULL), EINVAL);
	tc_assert_err(userptr(fd, p, PG, 0x80000000u, NULL), EINVAL);
	tc_assert_err(userptr_raw(fd, ~0ull - 100, 200, 0), EINVAL);		/* wraps */
	tc_assert_err(userptr_raw(fd, 1ull << 47, ~0ull - (1ull << 47), 0), EINVAL);
	tc_assert_err(userptr_raw(fd, 0xffff888000000000ull, PG, 0), EFAULT);	/* kernel */
	tc_assert_err(userptr_raw(fd, 0xffffffffff600000ull, PG,		/* vsyscall */
				  DRM_TILECOPY_BO_READ_ONLY), EFAULT);
	tc_assert_err(userptr_raw(fd, (1ull << 47) - PG, 2 * PG, 0), EFAULT);	/* past user */
	tc_assert_err(userptr_raw(fd, 0, PG, 0), EFAULT);			/* NULL page */
	/* larger than the device's address space, then than RAM */
	tc_assert_err(userptr(fd, p, va_size, 0, NULL), EINVAL);
	tc_assert_err(userptr_raw(fd, 1ull << 40, 256ull << 30, 0), ENOMEM);
	/* a hole, and a range running into one */
	ck_assert_int_eq(munmap(p + 2 * PG, PG), 0);
	tc_assert_err(userptr(fd, p + 2 * PG, PG, 0, NULL), EFAULT);
	tc_assert_err(userptr(fd, p + PG, 2 * PG, DRM_TILECOPY_BO_READ_ONLY, NULL), EFAULT);
	/* PROT_NONE: no access for either pin */
	ck_assert_int_eq(mprotect(p + 3 * PG, PG, PROT_NONE), 0);
	tc_assert_err(userptr(fd, p + 3 * PG, PG, DRM_TILECOPY_BO_READ_ONLY, NULL), EFAULT);
	tc_assert_err(userptr(fd, p + 3 * PG, PG, 0, NULL), EFAULT);
	/* a BO's own mmap and a dma-buf's mmap: PFN maps without pages to pin */
	tc_bo_new(fd, 2 * PG, 0, &bo);
	tc_assert_err(userptr(fd, bo.map, 2 * PG, 0, NULL), EFAULT);
	tc_assert_err(userptr(fd, bo.map, PG, DRM_TILECOPY_BO_READ_ONLY, NULL), EFAULT);
	{
		struct drm_prime_handle h = { .handle = bo.handle, .flags = O_RDWR | O_CLOEXEC };
		void *m;

		tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &h));
		m = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, h.fd, 0);
		ck_assert_msg(m != MAP_FAILED, "mmap dma-buf: %s", strerror(errno));
		tc_assert_err(userptr(fd, m, 2 * PG, 0, NULL), EFAULT);
		munmap(m, 2 * PG);
		close(h.fd);
	}
	tc_bo_free(fd, &bo);
	/* a failed call leaves the struct's outputs alone */
	u.flags = 4;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u), EINVAL);
	ck_assert_uint_eq(u.handle, 0);
	close(fd);
	counters_settle(&base, "bad ranges");
	ck_assert_int_eq(status_kb("VmPin:"), 0);
}
END_TEST

/* SUBMIT takes the bytes asked for, not the rest of their pages. */
START_TEST(test_exact_range)
{
	int fd = tc_open();
	uint8_t *p = anon(4 * PG);
	struct drm_tilecopy_bo_userptr u;
	struct drm_tilecopy_desc d;
	uint64_t job;

	tc_assert_ok(userptr(fd, p + 100, 1000, 0, &u));
	tc_desc_memcpy(&d, u.va + 500, u.va, 500);
	tc_assert_ok(tc_submit(fd, &d, 1, &u.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	tc_desc_memcpy(&d, u.va + 500, u.va - 1, 500);		/* one byte before */
	tc_assert_err(tc_submit(fd, &d, 1, &u.handle, 1, 0, NULL), EINVAL);
	tc_desc_memcpy(&d, u.va + 501, u.va, 500);		/* one byte after */
	tc_assert_err(tc_submit(fd, &d, 1, &u.handle, 1, 0, NULL), EINVAL);
	tc_gem_close(fd, u.handle);
	close(fd);
}
END_TEST

START_TEST(test_no_mmap_export)
{
	int fd = tc_open();
	uint8_t *p = anon(PG);
	struct drm_tilecopy_bo_userptr u;
	struct drm_prime_handle h = { .flags = O_RDWR | O_CLOEXEC };

	tc_assert_ok(userptr(fd, p, PG, 0, &u));
	h.handle = u.handle;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &h), EOPNOTSUPP);
	ck_assert(mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED);
	tc_gem_close(fd, u.handle);
	close(fd);
}
END_TEST

/*
 * The range unmapped while the job reads (source) or writes (destination)
 * it: the job runs on to the end on the pinned pages, whose contents the
 * engine reads as they were. With delay-ns-per-kb=50000 the 4 MiB job takes
 * about 200 ms of engine time, in 32 descriptors.
 */
START_TEST(test_munmap_in_job)
{
	const size_t n = 4 * MIB;
	struct counters base;
	int fd = tc_open();

	counters_read(&base);
	for (int side = 0; side < 2; side++) {
		uint8_t *src = anon(n), *dst = anon(n);
		struct drm_tilecopy_bo_userptr s, d;
		struct drm_tilecopy_wait w;
		uint32_t bos[2];
		uint64_t job;
		int ret;

		tc_pattern(src, n, 17 + side);
		tc_assert_ok(userptr(fd, src, n, DRM_TILECOPY_BO_READ_ONLY, &s));
		tc_assert_ok(userptr(fd, dst, n, 0, &d));
		bos[0] = s.handle;
		bos[1] = d.handle;
		tc_assert_ok(copy_job(fd, d.va, s.va, n, 128 * 1024, bos, 2, &job));
		/* gone from the process; the handle closed too, the job holds the BO */
		ck_assert_int_eq(munmap(side ? dst : src, n), 0);
		tc_gem_close(fd, side ? d.handle : s.handle);
		ret = tc_wait(fd, job, 0, &w);
		if (!ret) {	/* a guest descheduled for the job's 200 ms */
			printf("munmap-in-job: the job had finished before the munmap\n");
		} else {
			tc_assert_err(ret, ETIMEDOUT);
			tc_assert_ok(tc_wait(fd, job, 30ll * 1000000000, &w));
		}
		ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_OK);
		if (side == 0) {
			/* what the engine read: the pattern, from the pinned pages */
			uint8_t *want = malloc(n);

			ck_assert(want);
			tc_pattern(want, n, 17);
			ck_assert(!memcmp(dst, want, n));
			free(want);
			tc_gem_close(fd, d.handle);
			munmap(dst, n);
		} else {
			tc_gem_close(fd, s.handle);
			munmap(src, n);
		}
	}
	close(fd);
	counters_settle(&base, "munmap in job");
}
END_TEST

START_TEST(test_mremap_fork)
{
	int fd = tc_open();
	uint8_t *a = anon(4 * PG), *b;
	struct drm_tilecopy_bo_userptr u;
	struct drm_tilecopy_desc d;
	uint64_t job;
	pid_t pid;
	int st;

	/* mremap moves the pages: the BO writes where they went */
	memset(a, 1, 4 * PG);
	tc_assert_ok(userptr(fd, a, 4 * PG, 0, &u));
	b = mremap(a, 4 * PG, 8 * PG, MREMAP_MAYMOVE);
	ck_assert(b != MAP_FAILED);
	tc_desc_fill(&d, u.va + PG, 0xab, 1, 1, (uint32_t[]){ PG }, (uint64_t[]){ 1 });
	tc_assert_ok(tc_submit(fd, &d, 1, &u.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(b[PG - 1], 1);
	ck_assert_uint_eq(b[PG], 0xab);
	ck_assert_uint_eq(b[2 * PG - 1], 0xab);
	ck_assert_uint_eq(b[2 * PG], 1);

	/* fork: the child gets copies, the parent keeps the pinned pages */
	memset(b, 2, 4 * PG);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		memset(b, 3, 4 * PG);	/* its own copies */
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && !WEXITSTATUS(st));
	b[0] = 4;	/* the parent writes after fork: no copy-on-write break */
	tc_desc_fill(&d, u.va + PG, 0xcd, 1, 1, (uint32_t[]){ PG }, (uint64_t[]){ 1 });
	tc_assert_ok(tc_submit(fd, &d, 1, &u.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(b[0], 4);
	ck_assert_uint_eq(b[PG - 1], 2);
	ck_assert_uint_eq(b[PG], 0xcd);
	ck_assert_uint_eq(b[2 * PG], 2);
	tc_gem_close(fd, u.handle);
	munmap(b, 8 * PG);
	close(fd);
}
END_TEST

START_TEST(test_shared)
{
	int fd = tc_open(), mfd = memfd_create("tc-userptr", MFD_CLOEXEC);
	struct drm_tilecopy_bo_userptr u;
	struct drm_tilecopy_desc d;
	uint8_t *m1, *m2, *sh;
	uint64_t job;

	/* a memfd mapped twice: writes through the BO show in the other map */
	ck_assert_int_ge(mfd, 0);
	ck_assert_int_eq(ftruncate(mfd, 4 * PG), 0);
	m1 = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	m2 = mmap(NULL, 4 * PG, PROT_READ, MAP_SHARED, mfd, 0);
	ck_assert(m1 != MAP_FAILED && m2 != MAP_FAILED);
	memset(m1, 0, 4 * PG);
	tc_assert_ok(userptr(fd, m1 + 3, 3 * PG, 0, &u));
	tc_desc_fill(&d, u.va, 0x77, 1, 1, (uint32_t[]){ 3 * PG }, (uint64_t[]){ 1 });
	tc_assert_ok(tc_submit(fd, &d, 1, &u.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(m2[2], 0);
	ck_assert_uint_eq(m2[3], 0x77);
	ck_assert_uint_eq(m2[3 * PG + 2], 0x77);
	ck_assert_uint_eq(m2[3 * PG + 3], 0);
	tc_gem_close(fd, u.handle);

	/* anonymous shared memory, written by the engine, seen by a child */
	sh = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert(sh != MAP_FAILED);
	tc_assert_ok(userptr(fd, sh, PG, 0, &u));
	tc_desc_write64(&d, u.va, 0x1122334455667788ull);
	tc_assert_ok(tc_submit(fd, &d, 1, &u.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(*(uint64_t *)sh, 0x1122334455667788ull);
	tc_gem_close(fd, u.handle);
	munmap(sh, PG);
	munmap(m1, 4 * PG);
	munmap(m2, 4 * PG);
	close(mfd);
	close(fd);
}
END_TEST

/* Drop CAP_IPC_LOCK from the effective and permitted sets. */
static void drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	ck_assert_int_eq(syscall(SYS_capget, &h, c), 0);
	c[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	c[CAP_TO_INDEX(CAP_IPC_LOCK)].permitted &= ~CAP_TO_MASK(CAP_IPC_LOCK);
	ck_assert_int_eq(syscall(SYS_capset, &h, c), 0);
}

/*
 * RLIMIT_MEMLOCK bounds the pinned pages of a process without
 * CAP_IPC_LOCK: ENOMEM beyond it, VmPin shows what is pinned, a closed BO
 * gives its pages back. Whole pages count: 1 byte at an offset straddling
 * a page boundary is two.
 */
START_TEST(test_pin_limit)
{
	struct rlimit rl = { 16 * PG, 16 * PG };
	int fd = tc_open();
	uint8_t *p = anon(32 * PG);
	struct drm_tilecopy_bo_userptr a, b;

	drop_cap_ipc_lock();
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(status_kb("VmPin:"), 0);
	tc_assert_ok(userptr(fd, p + PG - 1, 2, 0, &a));		/* 2 pages */
	ck_assert_int_eq(status_kb("VmPin:"), 8);
	tc_assert_ok(userptr(fd, p, 14 * PG, DRM_TILECOPY_BO_READ_ONLY, &b));
	ck_assert_int_eq(status_kb("VmPin:"), 64);
	tc_assert_err(userptr(fd, p, 1, 0, NULL), ENOMEM);		/* the 17th */
	tc_assert_err(userptr(fd, p, 32 * PG, 0, NULL), ENOMEM);
	ck_assert_int_eq(status_kb("VmPin:"), 64);
	tc_gem_close(fd, a.handle);
	ck_assert_int_eq(status_kb("VmPin:"), 56);
	tc_assert_ok(userptr(fd, p + 20 * PG, 2 * PG, 0, NULL));
	tc_gem_close(fd, b.handle);
	ck_assert_int_eq(status_kb("VmPin:"), 0);
	/* a limit of 0 pins nothing */
	rl.rlim_cur = 0;
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	tc_assert_err(userptr(fd, p, 1, DRM_TILECOPY_BO_READ_ONLY, NULL), ENOMEM);
	close(fd);
}
END_TEST

/* A child pins @pages pages through @fd and exits: its errno, 0 if pinned. */
static int child_pins(int fd, uint8_t *p, unsigned int pages)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (!pid) {
		struct drm_tilecopy_bo_userptr a;
		int r = userptr(fd, p, pages * PG, 0, &a);

		_exit(r ? -r : 0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/*
 * The BO belongs to the file, which outlives the child that made it: the
 * pin stays charged to the user, so children that pin and exit cannot
 * together pin more than one limit (an outside attack pinned 4 MiB under a
 * 64 KiB limit this way while the charge went to each dead child's mm).
 * Closing the file gives it all back.
 */
START_TEST(test_pin_limit_children)
{
	struct rlimit rl = { 16 * PG, 16 * PG };
	int fd = tc_open();
	uint8_t *p = anon(32 * PG);
	struct counters base;

	counters_read(&base);
	drop_cap_ipc_lock();
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
	ck_assert_int_eq(child_pins(fd, p, 12), 0);
	ck_assert_int_eq(child_pins(fd, p + 12 * PG, 4), 0);
	ck_assert_int_eq(child_pins(fd, p + 16 * PG, 1), ENOMEM);
	tc_assert_err(userptr(fd, p, 1, 0, NULL), ENOMEM);
	ck_assert_int_eq(tc_sysfs_stat(0, "pinned_bytes"), base.pinned + 16 * PG);
	close(fd);
	counters_settle(&base, "the file closed");
	fd = tc_open();
	ck_assert_int_eq(child_pins(fd, p, 16), 0);
	close(fd);
	counters_settle(&base, "the second file closed");
}
END_TEST

/*
 * 64 threads create and close userptr BOs on one file, while 4 threads
 * copy through userptr BOs of their own on the same file and check every
 * byte. The racers' read-only BOs all pin one buffer; their writable ones
 * each pin a page of their own (dma-debug suspects a leak past 7 writable
 * mappings of one cache line, docs/uapi.md). Nothing left afterwards.
 * (A handle is closed once: handle numbers are reused at once, so a second
 * close may hit another thread's new BO.)
 */
enum { RACERS = 64, WORKERS = 4, ROUNDS = 12 };

struct racer {
	int fd, id;
	uint8_t *buf, *own;	/* shared (read-only pins), 2 pages of its own */
	const char *bad;
	int err;
};

static void *racer_thread(void *arg)
{
	struct racer *r = arg;

	for (int i = 0; i < ROUNDS && !r->bad; i++) {
		struct drm_tilecopy_bo_userptr u;
		int ret = (i + r->id) % 2 ?
			  userptr(r->fd, r->buf + (i * 97 + r->id * 13) % (8 * PG), PG + i,
				  DRM_TILECOPY_BO_READ_ONLY, &u) :
			  userptr(r->fd, r->own + i * 13, PG + i, 0, &u);

		if (ret) {
			r->bad = "BO_USERPTR failed", r->err = ret;
			break;
		}
		ret = tc_gem_close(r->fd, u.handle);
		if (ret)
			r->bad = "GEM_CLOSE", r->err = ret;
	}
	return NULL;
}

static void *worker_thread(void *arg)
{
	struct racer *r = arg;
	size_t n = 64 * PG + r->id;
	uint8_t *src = malloc(n), *dst = malloc(n);

	for (int i = 0; i < ROUNDS / 2 && !r->bad; i++) {
		struct drm_tilecopy_bo_userptr s, d;
		struct drm_tilecopy_wait w;
		uint32_t bos[2];
		uint64_t job;
		int ret;

		tc_pattern(src, n, (uint32_t)(r->id * 1000 + i));
		memset(dst, 0, n);
		if (userptr(r->fd, src, n, DRM_TILECOPY_BO_READ_ONLY, &s) ||
		    userptr(r->fd, dst, n, 0, &d)) {
			r->bad = "worker BO_USERPTR";
			break;
		}
		bos[0] = s.handle;
		bos[1] = d.handle;
		ret = copy_job(r->fd, d.va, s.va, n, 16 * PG, bos, 2, &job);
		if (ret)
			r->bad = "worker SUBMIT", r->err = ret;
		else if (tc_wait(r->fd, job, 30ll * 1000000000, &w) ||
			 w.status != DRM_TILECOPY_STATUS_OK || memcmp(src, dst, n))
			r->bad = "worker job";
		tc_gem_close(r->fd, s.handle);
		tc_gem_close(r->fd, d.handle);
	}
	free(src);
	free(dst);
	return NULL;
}

START_TEST(test_threads)
{
	struct racer r[RACERS + WORKERS];
	pthread_t t[RACERS + WORKERS];
	struct counters base;
	int fd = tc_open();
	uint8_t *buf = anon(10 * PG), *own = anon(2 * PG * RACERS);

	counters_read(&base);
	for (int i = 0; i < RACERS + WORKERS; i++) {
		r[i] = (struct racer){ .fd = fd, .id = i, .buf = buf,
				       .own = i < RACERS ? own + 2 * PG * i : NULL };
		ck_assert_int_eq(pthread_create(&t[i], NULL,
						i < RACERS ? racer_thread : worker_thread, &r[i]),
				 0);
	}
	for (int i = 0; i < RACERS + WORKERS; i++) {
		pthread_join(t[i], NULL);
		ck_assert_msg(!r[i].bad, "thread %d: %s: %d (%s)", i, r[i].bad, r[i].err,
			      strerror(-r[i].err));
	}
	close(fd);
	counters_settle(&base, "threads");
	ck_assert_int_eq(status_kb("VmPin:"), 0);
}
END_TEST

/*
 * A process with pinned BOs, handles open and jobs queued and running
 * (32 jobs of 1 MiB, about 50 ms of engine time each) exits without a
 * WAIT or a GEM_CLOSE: its file's close cancels or finishes them, every
 * page is unpinned, the counters are back.
 */
START_TEST(test_close_in_flight)
{
	struct counters base;
	pid_t pid;
	int st;

	counters_read(&base);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = tc_open();
		uint8_t *src = anon(MIB), *dst = anon(8 * MIB);
		struct drm_tilecopy_bo_userptr s, d;
		uint32_t bos[2];

		tc_pattern(src, MIB, 5);
		if (userptr(fd, src, MIB, DRM_TILECOPY_BO_READ_ONLY, &s) ||
		    userptr(fd, dst, 8 * MIB, 0, &d))
			_exit(2);
		bos[0] = s.handle;
		bos[1] = d.handle;
		for (int i = 0; i < 32; i++)
			if (copy_job(fd, d.va + (i % 8) * MIB, s.va, MIB, 256 * 1024, bos, 2,
				     NULL))
				_exit(3);
		if (tc_sysfs_stat(0, "pinned_bytes") < base.pinned + (long long)(9 * MIB) ||
		    status_kb("VmPin:") != 9 * 1024)
			_exit(4);
		_exit(0);	/* no WAIT, no GEM_CLOSE, no close */
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "child status 0x%x", st);
	counters_settle(&base, "close in flight");
}
END_TEST

/* Write @val to the cgroup file @dir/@name; 0 or the errno. */
static int cg_write(const char *dir, const char *name, const char *val)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		err = errno;
	close(fd);
	return err;
}

/* The number in the cgroup file @dir/@name, -1 if unreadable. */
static long long cg_value(const char *dir, const char *name)
{
	char path[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* AnonHugePages of the mapping holding @p (/proc/self/smaps), in KiB; -1 if none. */
static long long thp_kb(const void *p)
{
	char line[256];
	unsigned long lo, hi;
	long long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/*
 * The child of test_page_tables_charged, in cgroup @cg: @res gets its
 * errno (0), the THP KiB of its buffer, the cgroup's usage before and
 * after NBO BOs of one page and before and after NBO BOs of 4 MiB, and the
 * BOs made.
 */
enum { NBO = 512 };

static void page_tables_child(const char *cg, long long *res)
{
	struct drm_tilecopy_bo_userptr u;
	uint8_t *raw, *buf;
	char me[32];
	int fd, n = 0;

	snprintf(me, sizeof(me), "%d", getpid());
	res[0] = cg_write(cg, "cgroup.procs", me);
	if (res[0])
		_exit(2);
	fd = tc_open();
	raw = anon(6 * MIB);
	buf = (uint8_t *)(((uintptr_t)raw + 2 * MIB - 1) & ~(uintptr_t)(2 * MIB - 1));
	madvise(buf, 4 * MIB, MADV_HUGEPAGE);
	memset(buf, 1, 4 * MIB);
	res[1] = thp_kb(buf);
	/* (kept open: a helper given no @out closes the BO at once) */
	for (int size = 0; size < 2; size++) {
		res[2 + 2 * size] = cg_value(cg, "memory.current");
		for (int i = 0; i < NBO; i++)
			n += !userptr(fd, buf, size ? 4 * MIB : PG, DRM_TILECOPY_BO_READ_ONLY, &u);
		res[3 + 2 * size] = cg_value(cg, "memory.current");
	}
	res[6] = n;
	close(fd);
	_exit(0);
}

/*
 * The device's page tables are charged to the memory cgroup of the task
 * that maps. Read-only BOs over the same pinned pages cost a root no
 * RLIMIT_MEMLOCK (CAP_IPC_LOCK), yet each maps its own device VA, a table
 * (a CPU page) per 2 MiB of it: an outside attack made 5000 of one 32 MiB
 * buffer, 350 MB of tables, in a cgroup of 200 MB that was charged 28 MB.
 * Here a child in a cgroup of its own maps 512 BOs of one page, then 512
 * of one 4 MiB buffer (2 GiB of device VA, 1024 tables): the second 512
 * must cost at least 7/8 of their tables more than the first. Only where
 * the buffer is transparent huge pages: else its BOs' sg tables (charged
 * too, 32 KiB each) would hide the page tables. Values are collected and
 * the cgroup removed before anything is asserted.
 */
START_TEST(test_page_tables_charged)
{
	const char *root = "/tmp/tc-cgroup";
	long long tables = 2ll * NBO * sysconf(_SC_PAGESIZE), small, big;
	long long *res = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			      -1, 0);
	struct counters base;
	int st = 0, mounted, rm;
	char cg[64];
	pid_t pid;

	ck_assert(res != MAP_FAILED);
	memset(res, 0xff, PG);
	mkdir(root, 0755);
	mounted = !mount("none", root, "cgroup2", 0, NULL);
	if (!mounted || cg_write(root, "cgroup.subtree_control", "+memory")) {
		printf("SKIP /userptr/page-tables-charged: no cgroup2 memory controller (%s)\n",
		       strerror(errno));
		if (mounted)
			umount(root);
		munmap(res, PG);
		return;
	}
	snprintf(cg, sizeof(cg), "%s/userptr-%d", root, getpid());
	ck_assert_msg(!mkdir(cg, 0755), "mkdir %s: %s", cg, strerror(errno));
	counters_read(&base);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		page_tables_child(cg, res);
	waitpid(pid, &st, 0);
	rm = rmdir(cg) ? errno : 0;
	umount(root);
	small = res[3] - res[2];
	big = res[5] - res[4];
	ck_assert_msg(WIFEXITED(st) && !WEXITSTATUS(st), "child status 0x%x (errno %lld)", st,
		      res[0]);
	ck_assert_msg(!rm, "rmdir %s: %s", cg, strerror(rm));
	ck_assert_int_eq(res[6], 2 * NBO);
	counters_settle(&base, "the cgroup's file closed");
	if (res[1] < 4096) {
		printf("SKIP /userptr/page-tables-charged: the 4 MiB buffer got %lld KiB of "
		       "huge pages\n", res[1]);
		munmap(res, PG);
		return;
	}
	ck_assert(res[2] > 0 && res[4] > 0);
	ck_assert_msg(big - small >= tables * 7 / 8,
		      "%d BOs of 4 MiB cost the cgroup %lld KiB, of a page %lld KiB: their "
		      "%lld KiB of page tables are not charged", NBO, big >> 10, small >> 10,
		      tables >> 10);
	printf("/userptr/page-tables-charged: %d BOs of 4 MiB (2 GiB of device VA) cost the "
	       "cgroup %lld KiB, of a page %lld KiB\n", NBO, big >> 10, small >> 10);
	munmap(res, PG);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("userptr");
	TCase *tc = tcase_create("userptr");

	tc_require_device("test_userptr");
	tcase_add_test(tc, test_feature);
	tcase_add_test(tc, test_exact);
	tcase_add_test(tc, test_read_only);
	tcase_add_test(tc, test_bad_ranges);
	tcase_add_test(tc, test_exact_range);
	tcase_add_test(tc, test_no_mmap_export);
	tcase_add_test(tc, test_munmap_in_job);
	tcase_add_test(tc, test_mremap_fork);
	tcase_add_test(tc, test_shared);
	tcase_add_test(tc, test_pin_limit);
	tcase_add_test(tc, test_pin_limit_children);
	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_close_in_flight);
	tcase_add_test(tc, test_page_tables_charged);
	tcase_set_timeout(tc, 300);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
