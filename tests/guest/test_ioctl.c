// SPDX-License-Identifier: MIT
/*
 * test_ioctl - every tilecopy ioctl with valid and invalid arguments, and
 * real jobs (COPY, FILL, WRITE64) checked against references computed here.
 *
 * Negative cases follow intel/linux-npu-driver's kmd-test: non-zero padding,
 * flags and reserved fields, unknown parameters, bad/closed/foreign handles,
 * size 0 and huge, counts 0 and above the limits, footprints outside the
 * job's BOs and footprints that overflow, NULL and unmapped user pointers.
 *
 * Runs in the guest (make check-guest); exits 77 without a device.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tc_guest.h"
#include "../desc_cases.h"

#define MAX_DESCS	16384
#define MAX_BOS		64
#define VA_START	0x100000000ull
#define VA_END		(1ull << 39)

/* The engines of this run convert (engine 1.2), unless made 1.1 ones. */
static int tc_run_converts(void)
{
	const char *props = getenv("TC_DEVICE_PROPS");

	return !props || !strstr(props, "convert=off");
}

/* ---- GET_PARAM ----------------------------------------------------------- */

START_TEST(test_param_values)
{
	int fd = tc_open();
	uint64_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);

	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_ABI_VERSION),
			  DRM_TILECOPY_ABI_VERSION);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_HW_VERSION),
			  tc_run_converts() ? TC_HW_VERSION : TC_HW_VERSION_1_1);
	/* the image build/firmware/tilecopy/engine.bin, version 1.0.0 */
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FW_VERSION), 0x010000);
	ck_assert_uint_ge(nq, 1);
	ck_assert_uint_le(nq, TC_MAX_QUEUES);
	if (tc_device_prop("queues"))
		ck_assert_uint_eq(nq, tc_device_prop("queues"));
	else
		ck_assert_uint_eq(nq, 4);	/* the device's default */
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_DIMS), DRM_TILECOPY_MAX_DIMS);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_DESCS), MAX_DESCS);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_BOS), MAX_BOS);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_VA_START), VA_START);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_VA_SIZE), VA_END - VA_START);
	ck_assert_uint_gt(tc_get_param(fd, DRM_TILECOPY_PARAM_TILEBUF_SIZE), 0);
	if (tc_device_prop("tilebuf-size"))
		ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_TILEBUF_SIZE),
				  tc_device_prop("tilebuf-size"));
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_PCI_ID),
			  (uint64_t)TC_PCI_VENDOR_ID << 16 | TC_PCI_DEVICE_ID);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FEATURES),
			  DRM_TILECOPY_FEATURE_DESC_STRIDE | DRM_TILECOPY_FEATURE_STATUS_RESET |
			  DRM_TILECOPY_FEATURE_LIMITS | DRM_TILECOPY_FEATURE_USERPTR |
			  (tc_run_converts() ? DRM_TILECOPY_FEATURE_CONVERT : 0));
	/* the struct this driver knows, whatever the engine */
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_DESC_SIZE), 256);
	ck_assert_uint_eq(sizeof(struct drm_tilecopy_desc), 256);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_CONVERT_TYPES),
			  tc_run_converts() ? 0x1feu : 0);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_JOB_ELEMS),
			  tc_device_prop("max-job-elems") ? (uint64_t)tc_device_prop("max-job-elems") :
			  DRM_TILECOPY_MAX_JOB_ELEMS);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_FILE_JOBS), 256);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_MAX_FILE_DESC_BYTES), 20 << 20);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS),
			  tc_module_param("job_timeout_ms", 5000) * 1000000ull);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_BAN_HANGS), 3);
	ck_assert_uint_eq(tc_get_param(fd, DRM_TILECOPY_PARAM_FILE_HANGS), 0);
	close(fd);
}
END_TEST

START_TEST(test_param_invalid)
{
	int fd = tc_open();
	struct drm_tilecopy_get_param p = { .param = DRM_TILECOPY_PARAM_ABI_VERSION, .pad = 1 };

	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &p), EINVAL);
	p.pad = 0;
	/* one not there: past CONVERT_TYPES and the 4 reserved for USERPTR */
	p.param = DRM_TILECOPY_PARAM_CONVERT_TYPES + 5;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &p), EINVAL);
	p.param = 0xffffffffu;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &p), EINVAL);
	/* the argument itself unreadable */
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, NULL), EFAULT);
	close(fd);
}
END_TEST

/* sysfs attribute of device 0 (in its PCI device directory), as text */
static void sysfs_read(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	ck_assert(tc_device_sysfs(0, name, path, sizeof(path)));
	f = fopen(path, "r");
	ck_assert_msg(f, "no %s", path);
	ck_assert(fgets(buf, len, f));
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

static long long sysfs_num(const char *name)
{
	char buf[64];

	sysfs_read(name, buf, sizeof(buf));
	return strtoll(buf, NULL, 10);
}

START_TEST(test_sysfs_counters)
{
	int fd = tc_open();
	struct tc_bo a, b;
	struct drm_tilecopy_desc d[2];
	uint32_t bos[2];
	uint64_t job;
	char buf[128];
	long long done0, failed0, bytes0, busy0;

	sysfs_read("fw_version", buf, sizeof(buf));
	ck_assert_str_eq(buf, "1.0.0");
	sysfs_read("fw_name", buf, sizeof(buf));
	ck_assert_str_eq(buf, "tilecopy/engine.bin");
	tc_bo_new(fd, 65536, 0, &a);
	tc_bo_new(fd, 65536, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	done0 = sysfs_num("jobs_done");
	failed0 = sysfs_num("jobs_failed");
	bytes0 = sysfs_num("bytes_moved");
	busy0 = sysfs_num("busy_ns");
	tc_desc_memcpy(&d[0], b.va, a.va, 65536);
	tc_desc_write64(&d[1], a.va, 1);
	tc_assert_ok(tc_submit(fd, d, 2, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_int_eq(sysfs_num("jobs_done"), done0 + 1);
	ck_assert_int_eq(sysfs_num("jobs_failed"), failed0);
	/* bytes written: 65536 copied + 8 by WRITE64 */
	ck_assert_int_eq(sysfs_num("bytes_moved"), bytes0 + 65536 + 8);
	ck_assert_int_gt(sysfs_num("busy_ns"), busy0);
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	close(fd);
}
END_TEST

/* ---- BO_CREATE / BO_INFO ------------------------------------------------ */

START_TEST(test_bo_create_valid)
{
	/* sizes round up to CPU pages (4, 16 or 64 KiB), VAs to engine pages */
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = tc_open();
	struct drm_tilecopy_bo_create a = { .size = 1 }, b = { .size = 3 * pg + 5 };
	struct drm_tilecopy_bo_info info = { 0 };

	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &a));
	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &b));
	ck_assert_uint_ne(a.handle, 0);
	ck_assert_uint_ne(a.handle, b.handle);
	ck_assert_uint_ge(a.va, VA_START);
	ck_assert_uint_le(a.va + pg, VA_END);
	ck_assert_uint_eq(a.va % 4096, 0);
	ck_assert_uint_eq(b.va % 4096, 0);
	/* no overlap in the device address space */
	ck_assert(a.va + pg <= b.va || b.va + 4 * pg <= a.va);
	ck_assert_uint_ne(a.mmap_offset, b.mmap_offset);

	info.handle = b.handle;
	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info));
	ck_assert_uint_eq(info.size, 4 * pg);	/* rounded up to pages */
	ck_assert_uint_eq(info.va, b.va);
	ck_assert_uint_eq(info.mmap_offset, b.mmap_offset);
	info.handle = a.handle;
	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info));
	ck_assert_uint_eq(info.size, pg);
	tc_assert_ok(tc_gem_close(fd, a.handle));
	tc_assert_ok(tc_gem_close(fd, b.handle));
	close(fd);
}
END_TEST

START_TEST(test_bo_create_invalid)
{
	int fd = tc_open();
	struct drm_tilecopy_bo_create c = { .size = 0 };
	int64_t t0;
	int r;

	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c), EINVAL);
	c.size = 4096;
	c.flags = 1u << 1;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c), EINVAL);
	c.flags = 0x80000000u;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c), EINVAL);
	c.flags = 0;
	c.size = VA_END - VA_START + 1;		/* larger than the address space */
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c), EINVAL);
	c.size = ~0ull;				/* page rounding would overflow */
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c), EINVAL);
	/* fits the VA range but not the guest's 1 GiB: refused, no crash */
	c.size = 64ull << 30;
	t0 = tc_now_ns();
	r = tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c);
	if (tc_now_ns() - t0 > 2000000000)
		fprintf(stderr, "test_bo_create_invalid: a 64 GiB BO_CREATE took %.1f s to return %d\n",
			(tc_now_ns() - t0) / 1e9, r);
	if (r == 0) {
		/* shmem is lazy: creation may succeed; it must then be usable */
		tc_assert_ok(tc_gem_close(fd, c.handle));
	} else {
		ck_assert_msg(r == -ENOMEM || r == -ENOSPC || r == -EINVAL,
			      "64 GiB BO: %d (%s)", r, strerror(-r));
	}
	close(fd);
}
END_TEST

START_TEST(test_bo_info_invalid)
{
	int fd = tc_open(), fd2 = tc_open();
	struct tc_bo bo, other;
	struct drm_tilecopy_bo_info info = { 0 };

	tc_bo_new(fd, 4096, 0, &bo);
	tc_bo_new(fd2, 4096, 0, &other);

	info.handle = bo.handle;
	info.flags = 1;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info), EINVAL);
	info.flags = 0;
	info.handle = 0;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info), ENOENT);
	info.handle = 0x7fffffff;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info), ENOENT);
	/* a handle of another open file means nothing here */
	info.handle = other.handle + 100;
	tc_assert_err(tc_ioctl(fd2, DRM_IOCTL_TILECOPY_BO_INFO, &info), ENOENT);
	/* closed handle */
	munmap(bo.map, bo.size);
	tc_assert_ok(tc_gem_close(fd, bo.handle));
	info.handle = bo.handle;
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_INFO, &info), ENOENT);
	tc_assert_err(tc_gem_close(fd, bo.handle), EINVAL);	/* DRM core: closing twice */
	tc_bo_free(fd2, &other);
	close(fd);
	close(fd2);
}
END_TEST

START_TEST(test_bo_mmap)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = tc_open();
	struct tc_bo bo;
	uint8_t *p;
	void *bad;

	tc_bo_new(fd, 3 * 4096, 0, &bo);
	p = bo.map;
	for (size_t i = 0; i < bo.size; i++)
		ck_assert_uint_eq(p[i], 0);	/* new BOs are zeroed */
	tc_pattern(p, bo.size, 7);
	/* a second mapping sees the same pages */
	bad = mmap(NULL, bo.size, PROT_READ, MAP_SHARED, fd, bo.mmap_offset);
	ck_assert(bad != MAP_FAILED);
	ck_assert_mem_eq(bad, p, bo.size);
	munmap(bad, bo.size);
	/* an offset that is no BO */
	bad = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, bo.mmap_offset + (1ull << 32));
	ck_assert(bad == MAP_FAILED);
	/* larger than the BO (which is whole CPU pages) */
	bad = mmap(NULL, bo.size + pg, PROT_READ, MAP_SHARED, fd, bo.mmap_offset);
	ck_assert(bad == MAP_FAILED);
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

/* ---- jobs ---------------------------------------------------------------- */

/* NCHW -> NHWC of an N x C x H x W tensor of @es-byte elements, by hand. */
static void nchw_to_nhwc(int fd, unsigned int es, uint32_t N, uint32_t C, uint32_t H,
			 uint32_t W, uint32_t queue)
{
	size_t n = (size_t)N * C * H * W, bytes = n * es;
	struct tc_bo src, dst;
	struct drm_tilecopy_desc d;
	uint8_t *ref;
	uint64_t job;
	/* iterate in source order: w, h, c, n (dim 0 innermost) */
	const uint32_t ext[4] = { W, H, C, N };
	const uint64_t sst[4] = { 1, W, (uint64_t)H * W, (uint64_t)C * H * W };
	const uint64_t dstr[4] = { C, (uint64_t)W * C, 1, (uint64_t)H * W * C };
	uint32_t bos[2];

	tc_bo_new(fd, bytes, DRM_TILECOPY_BO_READ_ONLY, &src);
	tc_bo_new(fd, bytes, 0, &dst);
	tc_pattern(src.map, bytes, N * 1000 + C + es);
	memset(dst.map, 0xee, bytes);
	tc_desc_copy(&d, dst.va, src.va, es, 4, ext, dstr, sst);
	bos[0] = src.handle;
	bos[1] = dst.handle;
	tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, queue, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);

	ref = malloc(bytes);
	for (uint32_t in = 0; in < N; in++)
		for (uint32_t c = 0; c < C; c++)
			for (uint32_t h = 0; h < H; h++)
				for (uint32_t w = 0; w < W; w++) {
					size_t s = ((((size_t)in * C + c) * H + h) * W + w) * es;
					size_t t = ((((size_t)in * H + h) * W + w) * C + c) * es;

					memcpy(ref + t, (uint8_t *)src.map + s, es);
				}
	ck_assert_mem_eq(dst.map, ref, bytes);
	free(ref);
	tc_bo_free(fd, &src);
	tc_bo_free(fd, &dst);
}

START_TEST(test_job_copy_nchw_nhwc)
{
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);

	nchw_to_nhwc(fd, 4, 2, 3, 5, 7, 0);
	nchw_to_nhwc(fd, 1, 1, 16, 9, 9, nq - 1);
	nchw_to_nhwc(fd, 2, 3, 8, 4, 6, 1 % nq);
	nchw_to_nhwc(fd, 8, 2, 5, 3, 3, 0);
	nchw_to_nhwc(fd, 4, 4, 32, 16, 16, 0);	/* 128 KiB, several pages */
	close(fd);
}
END_TEST

START_TEST(test_job_fill_write64_broadcast)
{
	int fd = tc_open();
	struct tc_bo a, b;
	struct drm_tilecopy_desc d[4];
	uint32_t bos[2];
	uint64_t job;
	/* FILL a 6x5 sub-block of a 10x8 uint16 matrix with 0xabcd */
	const uint32_t fext[2] = { 5, 6 };
	const uint64_t fst[2] = { 1, 8 };
	/* broadcast row 0 of @a (4 uint32) to 3 rows of @b: src stride 0 */
	const uint32_t bext[2] = { 4, 3 };
	const uint64_t bsrc[2] = { 1, 0 }, bdst[2] = { 1, 4 };
	uint16_t *m;
	uint32_t *row, *out;

	tc_bo_new(fd, 4096, 0, &a);
	tc_bo_new(fd, 4096, 0, &b);
	memset(a.map, 0, 4096);
	row = (uint32_t *)((uint8_t *)b.map + 2048);
	for (int i = 0; i < 4; i++)
		row[i] = 0x11110000u + i;
	tc_desc_fill(&d[0], a.va + 2 * (1 * 8 + 2), 0xabcd, 2, 2, fext, fst);
	tc_desc_write64(&d[1], a.va + 1024, 0x0123456789abcdefull);
	tc_desc_write64(&d[2], a.va + 1033, 0xfedcba9876543210ull);	/* unaligned */
	tc_desc_copy(&d[3], b.va, b.va + 2048, 4, 2, bext, bdst, bsrc);
	bos[0] = a.handle;
	bos[1] = b.handle;
	tc_assert_ok(tc_submit(fd, d, 4, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);

	m = a.map;
	for (int r = 0; r < 10; r++)
		for (int c = 0; c < 8; c++) {
			int in = r >= 1 && r < 7 && c >= 2 && c < 7;

			ck_assert_uint_eq(m[r * 8 + c], in ? 0xabcd : 0);
		}
	ck_assert_uint_eq(*(uint64_t *)((uint8_t *)a.map + 1024), 0x0123456789abcdefull);
	{
		uint64_t v;

		memcpy(&v, (uint8_t *)a.map + 1033, 8);
		ck_assert_uint_eq(v, 0xfedcba9876543210ull);
	}
	out = b.map;
	for (int r = 0; r < 3; r++)
		for (int i = 0; i < 4; i++)
			ck_assert_uint_eq(out[r * 4 + i], 0x11110000u + i);
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	close(fd);
}
END_TEST

START_TEST(test_job_max_descs)
{
	/* exactly MAX_DESCS descriptors is fine: 16384 WRITE64s */
	int fd = tc_open();
	struct tc_bo bo;
	struct drm_tilecopy_desc *d = calloc(MAX_DESCS, sizeof(*d));
	uint64_t job;
	uint64_t *v;

	tc_bo_new(fd, MAX_DESCS * 8, 0, &bo);
	for (int i = 0; i < MAX_DESCS; i++)
		tc_desc_write64(&d[i], bo.va + 8ull * i, 0x5a5a000000000000ull | i);
	tc_assert_ok(tc_submit(fd, d, MAX_DESCS, &bo.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	v = bo.map;
	for (int i = 0; i < MAX_DESCS; i++)
		ck_assert_uint_eq(v[i], 0x5a5a000000000000ull | i);
	free(d);
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

START_TEST(test_job_many_bos)
{
	/* MAX_BOS BOs in one job, each written by one descriptor */
	int fd = tc_open();
	struct tc_bo bo[MAX_BOS];
	struct drm_tilecopy_desc d[MAX_BOS];
	uint32_t h[MAX_BOS];
	uint64_t job;

	for (int i = 0; i < MAX_BOS; i++) {
		tc_bo_new(fd, 4096, 0, &bo[i]);
		h[i] = bo[i].handle;
		tc_desc_write64(&d[i], bo[i].va + 4088, 0xb0b0 + i);
	}
	tc_assert_ok(tc_submit(fd, d, MAX_BOS, h, MAX_BOS, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	for (int i = 0; i < MAX_BOS; i++) {
		ck_assert_uint_eq(((uint64_t *)bo[i].map)[511], 0xb0b0 + i);
		tc_bo_free(fd, &bo[i]);
	}
	close(fd);
}
END_TEST

START_TEST(test_job_all_queues)
{
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	struct tc_bo bo;
	struct drm_tilecopy_desc d[TC_MAX_QUEUES];
	uint64_t job[TC_MAX_QUEUES];

	tc_bo_new(fd, 4096, 0, &bo);
	for (uint32_t q = 0; q < nq; q++) {
		tc_desc_write64(&d[q], bo.va + 8 * q, 0xc0de0000 + q);
		tc_assert_ok(tc_submit(fd, &d[q], 1, &bo.handle, 1, q, &job[q]));
	}
	for (uint32_t q = 0; q < nq; q++) {
		ck_assert_uint_eq(tc_wait_status(fd, job[q]), DRM_TILECOPY_STATUS_OK);
		ck_assert_uint_eq(((uint64_t *)bo.map)[q], 0xc0de0000 + q);
	}
	tc_bo_free(fd, &bo);
	close(fd);
}
END_TEST

/* ---- SUBMIT: invalid arguments ------------------------------------------ */

struct submit_fixture {
	int fd;
	struct tc_bo src, dst, ro;
	struct drm_tilecopy_desc d;
	uint32_t bos[3];
	struct drm_tilecopy_submit s;
};

static void fixture_init(struct submit_fixture *f)
{
	f->fd = tc_open();
	tc_bo_new(f->fd, 8192, 0, &f->src);
	tc_bo_new(f->fd, 8192, 0, &f->dst);
	tc_bo_new(f->fd, 4096, DRM_TILECOPY_BO_READ_ONLY, &f->ro);
	tc_desc_memcpy(&f->d, f->dst.va, f->src.va, 8192);
	f->bos[0] = f->src.handle;
	f->bos[1] = f->dst.handle;
	f->bos[2] = f->ro.handle;
	memset(&f->s, 0, sizeof(f->s));
	f->s.descs = (uintptr_t)&f->d;
	f->s.bo_handles = (uintptr_t)f->bos;
	f->s.desc_count = 1;
	f->s.desc_size = sizeof(f->d);
	f->s.bo_count = 3;
}

static void fixture_fini(struct submit_fixture *f)
{
	tc_bo_free(f->fd, &f->src);
	tc_bo_free(f->fd, &f->dst);
	tc_bo_free(f->fd, &f->ro);
	close(f->fd);
}

/* the fixture's job as built is valid */
static void fixture_ok(struct submit_fixture *f)
{
	struct drm_tilecopy_submit s = f->s;

	tc_assert_ok(tc_submit_args(f->fd, &s));
	ck_assert_uint_eq(tc_wait_status(f->fd, s.job_id), DRM_TILECOPY_STATUS_OK);
}

START_TEST(test_submit_header_invalid)
{
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	uint32_t nq;

	fixture_init(&f);
	nq = tc_get_param(f.fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	fixture_ok(&f);

#define TRY(field, val, err) do {					\
		s = f.s;						\
		s.field = (val);					\
		tc_assert_err(tc_submit_args(f.fd, &s), err);		\
	} while (0)
	TRY(flags, 1, EINVAL);
	TRY(flags, 0x80000000u, EINVAL);
	TRY(pad, 1, EINVAL);
	TRY(desc_size, DRM_TILECOPY_DESC_SIZE_1_0 - 8, EINVAL);
	TRY(desc_size, DRM_TILECOPY_DESC_SIZE_1_0 - 1, EINVAL);
	TRY(desc_size, 0, EINVAL);
	TRY(desc_size, 4097, EINVAL);
	TRY(desc_size, 0xffffffffu, EINVAL);
	TRY(desc_count, 0, EINVAL);
	TRY(desc_count, MAX_DESCS + 1, EINVAL);
	TRY(desc_count, 0xffffffffu, EINVAL);
	TRY(bo_count, 0, EINVAL);
	TRY(bo_count, MAX_BOS + 1, EINVAL);
	TRY(bo_count, 0xffffffffu, EINVAL);
	TRY(queue, nq, EINVAL);
	TRY(queue, 0xffffffffu, EINVAL);
	TRY(in_syncobj_count, 0xffffffffu, EINVAL);
	/* NULL and unmapped user pointers */
	TRY(descs, 0, EFAULT);
	TRY(bo_handles, 0, EFAULT);
	TRY(descs, 0xdead0000ull, EFAULT);
	TRY(bo_handles, 0xdead0000ull, EFAULT);
	TRY(descs, (uint64_t)-4096, EFAULT);
	s = f.s;
	s.in_syncobj_count = 1;
	s.in_syncobjs = 0;
	tc_assert_err(tc_submit_args(f.fd, &s), EFAULT);
	/* the array runs into unmapped memory: 1 valid descriptor, 2 asked */
	{
		uint8_t *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct drm_tilecopy_desc *last;

		ck_assert(page != MAP_FAILED);
		munmap(page + 4096, 4096);
		last = (void *)(page + 4096 - sizeof(*last));
		*last = f.d;
		s = f.s;
		s.descs = (uintptr_t)last;
		tc_assert_ok(tc_submit_args(f.fd, &s));	/* exactly fits */
		ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
		s = f.s;
		s.descs = (uintptr_t)last;
		s.desc_count = 2;
		tc_assert_err(tc_submit_args(f.fd, &s), EFAULT);
		/* misaligned pointers are fine for copy_from_user: accepted */
		memmove(page + 1, &f.d, sizeof(f.d));
		s = f.s;
		s.descs = (uintptr_t)(page + 1);
		tc_assert_ok(tc_submit_args(f.fd, &s));
		ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
		munmap(page, 4096);
	}
#undef TRY
	fixture_ok(&f);		/* nothing above broke the file */
	fixture_fini(&f);
}
END_TEST

START_TEST(test_submit_bad_handles)
{
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	uint32_t bos[3];
	int fd2;
	struct tc_bo other, gone;

	fixture_init(&f);
	fd2 = tc_open();
	tc_bo_new(fd2, 4096, 0, &other);

	s = f.s;
	memcpy(bos, f.bos, sizeof(bos));
	s.bo_handles = (uintptr_t)bos;
	bos[2] = 0;
	tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
	bos[2] = 0x7fffffff;
	tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
	/* foreign: a handle number valid only in fd2 */
	bos[2] = other.handle + 50;
	tc_assert_err(tc_submit_args(fd2, &(struct drm_tilecopy_submit){
		.descs = s.descs, .bo_handles = (uintptr_t)&bos[2], .desc_count = 1,
		.desc_size = sizeof(struct drm_tilecopy_desc), .bo_count = 1 }), ENOENT);
	/* closed handle */
	tc_bo_new(f.fd, 4096, 0, &gone);
	munmap(gone.map, gone.size);
	tc_assert_ok(tc_gem_close(f.fd, gone.handle));
	bos[2] = gone.handle;
	tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
	/* the same handle twice is allowed or refused, but never a crash */
	bos[2] = bos[1];
	{
		int r = tc_submit_args(f.fd, &s);

		ck_assert_msg(r == 0 || r == -EINVAL, "duplicate handle: %d", r);
		if (!r)
			ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	}
	/* syncobjs that do not exist */
	s = f.s;
	s.out_syncobj = 0x7fffffff;
	tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
	{
		uint32_t in = 0x7fffffff;

		s = f.s;
		s.in_syncobjs = (uintptr_t)&in;
		s.in_syncobj_count = 1;
		tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
		/* a syncobj without a fence (docs/uapi.md, SUBMIT step 8) */
		tc_assert_ok(drmSyncobjCreate(f.fd, 0, &in));
		tc_assert_err(tc_submit_args(f.fd, &s), EINVAL);
		drmSyncobjDestroy(f.fd, in);
	}
	{
		/* the documented order: BO handles (step 5) before descriptors (6) */
		struct drm_tilecopy_desc bad = *(struct drm_tilecopy_desc *)(uintptr_t)f.s.descs;
		uint32_t h[1] = { 0x7fffffff };

		bad.op = 99;
		s = f.s;
		s.descs = (uintptr_t)&bad;
		s.desc_count = 1;
		s.bo_handles = (uintptr_t)h;
		s.bo_count = 1;
		tc_assert_err(tc_submit_args(f.fd, &s), ENOENT);
	}
	fixture_ok(&f);
	tc_bo_free(fd2, &other);
	close(fd2);
	fixture_fini(&f);
}
END_TEST

/*
 * The table of descriptor cases (tests/desc_cases.h), which the library and
 * the engine are tested against too: SUBMIT's answer for each. Accepted
 * jobs must also complete.
 */
START_TEST(test_submit_table)
{
	const struct tc_desc_case *tc = &tc_desc_cases[_i];
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	struct drm_tilecopy_desc d[TC_CASE_MAX_DESCS];
	struct tc_desc_env env;
	struct tc_bo other;
	int r;

	if (tc->drv == TC_NA)
		return;
	fixture_init(&f);
	tc_bo_new(f.fd, TC_CASE_SMALL, 0, &other);	/* not listed in the job */
	env.src = f.src.va;
	env.dst = f.dst.va;
	env.ro = f.ro.va;
	env.other = other.va;
	env.scales = f.src.va;
	env.max = tc_get_param(f.fd, DRM_TILECOPY_PARAM_MAX_JOB_ELEMS);
	s = f.s;
	s.descs = (uintptr_t)d;
	s.desc_count = tc_desc_case_build(_i, &env, d);
	r = tc_submit_args(f.fd, &s);
	if (!tc_run_converts() && _i >= TC_CASE_T_OK_F32_BF16) {
		/* every typed row sets a typed field: refused before any rule */
		ck_assert_msg(r == -EOPNOTSUPP, "%s: SUBMIT returned %d (%s) without conversion",
			      tc->name, r, r ? strerror(-r) : "accepted");
	} else {
		ck_assert_msg(r == tc->drv, "%s: SUBMIT returned %d (%s), want %d", tc->name, r,
			      r ? strerror(-r) : "accepted", tc->drv);
		if (!r)
			ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	}
	fixture_ok(&f);
	tc_bo_free(f.fd, &other);
	fixture_fini(&f);
}
END_TEST

/*
 * desc_size above the known struct: the array is strided by it, the
 * bytes beyond the known struct must be zero (the uAPI may grow).
 */
START_TEST(test_submit_desc_stride)
{
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	const size_t stride = sizeof(struct drm_tilecopy_desc) + 64;
	uint8_t *arr = calloc(3, stride);
	struct drm_tilecopy_desc d;

	fixture_init(&f);
	for (int i = 0; i < 3; i++) {
		tc_desc_write64(&d, f.dst.va + 8 * i, 0xa0 + i);
		memcpy(arr + i * stride, &d, sizeof(d));
	}
	s = f.s;
	s.descs = (uintptr_t)arr;
	s.desc_count = 3;
	s.desc_size = stride;
	tc_assert_ok(tc_submit_args(f.fd, &s));
	ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(((uint64_t *)f.dst.map)[i], 0xa0 + i);
	/* a byte beyond the known struct, in the last descriptor */
	arr[2 * stride + sizeof(d) + 5] = 1;
	tc_assert_err(tc_submit_args(f.fd, &s), EINVAL);
	arr[2 * stride + sizeof(d) + 5] = 0;
	arr[stride - 1] = 0x80;
	tc_assert_err(tc_submit_args(f.fd, &s), EINVAL);
	arr[stride - 1] = 0;
	/* the padding runs into unmapped memory: EFAULT, not a read beyond */
	{
		uint8_t *page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ck_assert(page != MAP_FAILED);
		munmap(page + 4096, 4096);
		memcpy(page + 4096 - stride + 8, &d, sizeof(d));
		s.descs = (uintptr_t)(page + 4096 - stride + 8);
		s.desc_count = 1;
		tc_assert_err(tc_submit_args(f.fd, &s), EFAULT);
		munmap(page, 4096);
	}
	free(arr);
	fixture_ok(&f);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_submit_footprint_edges_valid)
{
	/* the footprint may touch the last byte of the BO, and a 0 stride is fine */
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	struct drm_tilecopy_desc d[3];

	fixture_init(&f);
	tc_pattern(f.src.map, 8192, 3);
	tc_desc_memcpy(&d[0], f.dst.va + 8191, f.src.va + 8191, 1);
	tc_desc_copy(&d[1], f.dst.va, f.src.va + 8184, 8, 1, (uint32_t[]){ 3 },
		     (uint64_t[]){ 1 }, (uint64_t[]){ 0 });	/* broadcast the last 8 bytes */
	tc_desc_memcpy(&d[2], f.dst.va + 100, f.ro.va, 16);	/* read-only source */
	s = f.s;
	s.descs = (uintptr_t)d;
	s.desc_count = 3;
	tc_assert_ok(tc_submit_args(f.fd, &s));
	ck_assert_uint_eq(tc_wait_status(f.fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(((uint8_t *)f.dst.map)[8191], ((uint8_t *)f.src.map)[8191]);
	for (int i = 0; i < 3; i++)
		ck_assert_mem_eq((uint8_t *)f.dst.map + 8 * i, (uint8_t *)f.src.map + 8184, 8);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(((uint8_t *)f.dst.map)[100 + i], 0);
	fixture_fini(&f);
}
END_TEST

/* ---- WAIT ---------------------------------------------------------------- */

START_TEST(test_wait_invalid)
{
	struct submit_fixture f;
	struct drm_tilecopy_submit s;
	struct drm_tilecopy_wait w;
	int fd2;

	fixture_init(&f);
	fd2 = tc_open();
	s = f.s;
	tc_assert_ok(tc_submit_args(f.fd, &s));

	memset(&w, 0, sizeof(w));
	w.job_id = s.job_id;
	w.timeout_ns = tc_now_ns() + 10ll * 1000000000;
	w.flags = 1;
	tc_assert_err(tc_ioctl(f.fd, DRM_IOCTL_TILECOPY_WAIT, &w), EINVAL);
	w.flags = 0;
	w.pad = 1;
	tc_assert_err(tc_ioctl(f.fd, DRM_IOCTL_TILECOPY_WAIT, &w), EINVAL);
	/* another file cannot see this file's job */
	tc_assert_err(tc_wait(fd2, s.job_id, 1000000000, &w), ENOENT);
	tc_assert_err(tc_wait(f.fd, 0, 1000000000, &w), ENOENT);
	tc_assert_err(tc_wait(f.fd, s.job_id + 1000, 1000000000, &w), ENOENT);
	tc_assert_err(tc_wait(f.fd, ~0ull, 1000000000, &w), ENOENT);
	/* first successful wait reaps the status, the second one finds nothing */
	tc_assert_ok(tc_wait(f.fd, s.job_id, 10ll * 1000000000, &w));
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(w.err_addr, 0);
	tc_assert_err(tc_wait(f.fd, s.job_id, 1000000000, &w), ENOENT);
	close(fd2);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_wait_timeout)
{
	/*
	 * A job that cannot start: it waits for the out-fence of a job that
	 * is itself slow. With delay-ns-per-kb set (check-guest sets it for
	 * this run) a 16 MiB copy takes long enough to be reliably pending.
	 */
	int fd = tc_open();
	long delay = tc_device_prop("delay-ns-per-kb");
	struct tc_bo a, b;
	struct drm_tilecopy_desc d;
	uint32_t bos[2];
	uint64_t job;
	struct drm_tilecopy_wait w;
	int64_t t0, t1;
	uint64_t size = 16 << 20;	/* 800 ms at 50000 ns/KiB: pending even if we are descheduled */

	if (delay < 10000) {
		fprintf(stderr, "test_wait_timeout: needs delay-ns-per-kb >= 10000 (have %ld); not run\n",
			delay);
		close(fd);
		return;
	}
	tc_bo_new(fd, size, 0, &a);
	tc_bo_new(fd, size, 0, &b);
	tc_pattern(a.map, size, 99);
	tc_desc_memcpy(&d, b.va, a.va, size);
	bos[0] = a.handle;
	bos[1] = b.handle;
	tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, 0, &job));
	/* deadline in the past: returns at once */
	memset(&w, 0, sizeof(w));
	w.job_id = job;
	w.timeout_ns = 0;
	t0 = tc_now_ns();
	tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_WAIT, &w), ETIMEDOUT);
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_PENDING);
	ck_assert_int_lt(tc_now_ns() - t0, 100000000);
	/*
	 * Negative deadlines are in the past too (timeout_ns is signed): one
	 * check, then -ETIMEDOUT. The driver once compared them unsigned and
	 * spun in the kernel until the job finished, then reported it done.
	 */
	for (int i = 0; i < 3; i++) {
		static const int64_t past[] = { -1, INT64_MIN, -1000000000ll };

		memset(&w, 0, sizeof(w));
		w.job_id = job;
		w.timeout_ns = past[i];
		tc_assert_err(tc_ioctl(fd, DRM_IOCTL_TILECOPY_WAIT, &w), ETIMEDOUT);
		ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_PENDING);
	}
	/*
	 * 30 ms from now: returns after the deadline, not much later. The uAPI
	 * says -ETIMEDOUT means the absolute deadline passed; a wait computed
	 * in jiffies must not end early (truncated rounding, or jiffies lagging
	 * CLOCK_MONOTONIC when a vCPU's tick is late).
	 */
	t0 = tc_now_ns();
	tc_assert_err(tc_wait(fd, job, 30000000, &w), ETIMEDOUT);
	t1 = tc_now_ns();
	ck_assert_uint_eq(w.status, DRM_TILECOPY_STATUS_PENDING);
	ck_assert_int_ge(t1 - t0, 29000000);
	ck_assert_int_lt(t1 - t0, 1000000000);
	/* a timed-out wait does not reap: waiting again succeeds */
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_mem_eq(a.map, b.map, size);
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	close(fd);
}
END_TEST

/* ---- syncobj ------------------------------------------------------------- */

START_TEST(test_syncobj_out_and_in)
{
	/*
	 * Job A (queue 0) fills buffer X; job B (another queue) copies X to Y
	 * and waits for A's out-syncobj. Y must hold A's data: the dependency
	 * is what orders two queues.
	 */
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	struct tc_bo x, y;
	struct drm_tilecopy_desc da, db;
	uint32_t sa, sb, bos[2];
	struct drm_tilecopy_submit s = { 0 };
	uint64_t ja, jb;
	uint64_t size = 1 << 20;
	uint32_t *py;

	tc_bo_new(fd, size, 0, &x);
	tc_bo_new(fd, size, 0, &y);
	tc_assert_ok(drmSyncobjCreate(fd, 0, &sa));
	tc_assert_ok(drmSyncobjCreate(fd, 0, &sb));
	tc_desc_fill(&da, x.va, 0x600dcafe, 4, 1, (uint32_t[]){ size / 4 }, (uint64_t[]){ 1 });
	tc_desc_memcpy(&db, y.va, x.va, size);
	bos[0] = x.handle;
	bos[1] = y.handle;

	s.descs = (uintptr_t)&da;
	s.bo_handles = (uintptr_t)bos;
	s.desc_count = 1;
	s.desc_size = sizeof(da);
	s.bo_count = 2;
	s.out_syncobj = sa;
	tc_assert_ok(tc_submit_args(fd, &s));
	ja = s.job_id;

	s.descs = (uintptr_t)&db;
	s.in_syncobjs = (uintptr_t)&sa;
	s.in_syncobj_count = 1;
	s.out_syncobj = sb;
	s.queue = nq > 1 ? 1 : 0;
	tc_assert_ok(tc_submit_args(fd, &s));
	jb = s.job_id;
	ck_assert_uint_ne(ja, jb);

	/* the out-fence signals; drmSyncobjWait takes an absolute timeout */
	tc_assert_ok(drmSyncobjWait(fd, &sb, 1, tc_now_ns() + 30ll * 1000000000,
				    DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL, NULL));
	ck_assert_uint_eq(tc_wait_status(fd, jb), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(tc_wait_status(fd, ja), DRM_TILECOPY_STATUS_OK);
	py = y.map;
	for (size_t i = 0; i < size / 4; i++)
		ck_assert_uint_eq(py[i], 0x600dcafe);
	/* a syncobj reset to no fence is refused as a dependency */
	tc_assert_ok(drmSyncobjReset(fd, &sa, 1));
	s.out_syncobj = 0;
	{
		int r = tc_submit_args(fd, &s);

		ck_assert_msg(r == -EINVAL || r == -ENOENT, "in-syncobj without fence: %d", r);
	}
	/* an already signalled syncobj is no obstacle */
	tc_assert_ok(drmSyncobjSignal(fd, &sa, 1));
	tc_assert_ok(tc_submit_args(fd, &s));
	ck_assert_uint_eq(tc_wait_status(fd, s.job_id), DRM_TILECOPY_STATUS_OK);
	drmSyncobjDestroy(fd, sa);
	drmSyncobjDestroy(fd, sb);
	tc_bo_free(fd, &x);
	tc_bo_free(fd, &y);
	close(fd);
}
END_TEST

/* ---- several processes, files and devices -------------------------------- */

static int child_jobs(int id)
{
	/* runs in a forked child: its own file, BOs and jobs, checked */
	int fd = tc_open();
	uint32_t nq = tc_get_param(fd, DRM_TILECOPY_PARAM_NUM_QUEUES);
	struct tc_bo a, b;
	uint32_t bos[2];
	uint64_t size = 64 << 10;

	tc_bo_new(fd, size, 0, &a);
	tc_bo_new(fd, size, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	for (int round = 0; round < 20; round++) {
		struct drm_tilecopy_desc d[2];
		uint64_t job;
		uint32_t n = 1024 + 512 * ((id + round) % 8);

		tc_pattern(a.map, size, id * 100 + round);
		memset(b.map, 0, size);
		tc_desc_memcpy(&d[0], b.va, a.va + 7, n);
		tc_desc_write64(&d[1], b.va + size - 8, ((uint64_t)id << 32) | round);
		if (tc_submit(fd, d, 2, bos, 2, (id + round) % nq, &job))
			return 10;
		if (tc_wait_status(fd, job) != DRM_TILECOPY_STATUS_OK)
			return 11;
		if (memcmp(b.map, (uint8_t *)a.map + 7, n))
			return 12;
		if (((uint64_t *)b.map)[size / 8 - 1] != (((uint64_t)id << 32) | round))
			return 13;
	}
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	close(fd);
	return 0;
}

START_TEST(test_fork_processes)
{
	enum { NPROC = 4 };
	pid_t pid[NPROC];

	for (int i = 0; i < NPROC; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (pid[i] == 0)
			_exit(child_jobs(i + 1));
	}
	for (int i = 0; i < NPROC; i++) {
		int st;

		ck_assert_int_eq(waitpid(pid[i], &st, 0), pid[i]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			      "child %d: status 0x%x", i, st);
	}
}
END_TEST

START_TEST(test_close_with_jobs_pending)
{
	/* closing the file with jobs queued and unreaped must not leak or hang */
	for (int iter = 0; iter < 5; iter++) {
		int fd = tc_open();
		struct tc_bo a, b;
		struct drm_tilecopy_desc d;
		uint32_t bos[2];

		tc_bo_new(fd, 256 << 10, 0, &a);
		tc_bo_new(fd, 256 << 10, 0, &b);
		bos[0] = a.handle;
		bos[1] = b.handle;
		tc_desc_memcpy(&d, b.va, a.va, 256 << 10);
		for (int j = 0; j < 16; j++)
			tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, j % 2, NULL));
		munmap(a.map, a.size);
		munmap(b.map, b.size);
		close(fd);	/* BOs and jobs go with the file */
	}
	/* the device still works */
	{
		int fd = tc_open();
		struct tc_bo bo;
		struct drm_tilecopy_desc d;
		uint64_t job;

		tc_bo_new(fd, 4096, 0, &bo);
		tc_desc_write64(&d, bo.va, 42);
		tc_assert_ok(tc_submit(fd, &d, 1, &bo.handle, 1, 0, &job));
		ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
		ck_assert_uint_eq(*(uint64_t *)bo.map, 42);
		tc_bo_free(fd, &bo);
		close(fd);
	}
}
END_TEST

START_TEST(test_free_bo_with_job_pending)
{
	/* the job holds its BOs: closing the handles right after SUBMIT is safe */
	int fd = tc_open();
	struct tc_bo a, b, c;
	struct drm_tilecopy_desc d;
	uint32_t bos[2];
	uint64_t job;

	tc_bo_new(fd, 1 << 20, 0, &a);
	tc_bo_new(fd, 1 << 20, 0, &b);
	bos[0] = a.handle;
	bos[1] = b.handle;
	tc_desc_memcpy(&d, b.va, a.va, 1 << 20);
	tc_assert_ok(tc_submit(fd, &d, 1, bos, 2, 0, &job));
	tc_bo_free(fd, &a);
	tc_bo_free(fd, &b);
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	/* new BOs may reuse the VAs once the job is done */
	tc_bo_new(fd, 4096, 0, &c);
	tc_desc_write64(&d, c.va, 7);
	tc_assert_ok(tc_submit(fd, &d, 1, &c.handle, 1, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_uint_eq(*(uint64_t *)c.map, 7);
	tc_bo_free(fd, &c);
	close(fd);
}
END_TEST

/* ---- PRIME (dma-buf) ------------------------------------------------------ */

/*
 * Export a BO from one file, import it into another (same engine, or the
 * second engine with --devices 2): the importer gets its own handle and
 * device VA, its jobs write the exporter's pages.
 */
static void prime_share(int fd_a, int fd_b)
{
	struct tc_bo a, bsrc;
	struct drm_tilecopy_bo_info info = { 0 };
	struct drm_tilecopy_desc d[2];
	uint32_t hb, bos[2];
	uint64_t job;
	int dmabuf;

	tc_bo_new(fd_a, 8192, 0, &a);
	tc_bo_new(fd_b, 4096, 0, &bsrc);
	memset(a.map, 0, 8192);
	tc_pattern(bsrc.map, 4096, 77);
	tc_assert_ok(drmPrimeHandleToFD(fd_a, a.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	tc_assert_ok(drmPrimeFDToHandle(fd_b, dmabuf, &hb));
	close(dmabuf);
	info.handle = hb;
	tc_assert_ok(tc_ioctl(fd_b, DRM_IOCTL_TILECOPY_BO_INFO, &info));
	ck_assert_uint_eq(info.size, 8192);
	ck_assert_uint_ge(info.va, VA_START);
	ck_assert_uint_le(info.va + info.size, VA_END);
	/* fd_b's job copies into the imported BO; fd_a sees it */
	tc_desc_memcpy(&d[0], info.va + 4096, bsrc.va, 4096);
	tc_desc_write64(&d[1], info.va, 0x9e1e9e1e);
	bos[0] = hb;
	bos[1] = bsrc.handle;
	tc_assert_ok(tc_submit(fd_b, d, 2, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd_b, job), DRM_TILECOPY_STATUS_OK);
	ck_assert_mem_eq((uint8_t *)a.map + 4096, bsrc.map, 4096);
	ck_assert_uint_eq(*(uint64_t *)a.map, 0x9e1e9e1e);
	/* the importer's handle covers exactly the BO: one byte more is refused */
	tc_desc_memcpy(&d[0], info.va + 4097, bsrc.va, 4096);
	tc_assert_err(tc_submit(fd_b, d, 1, bos, 2, 0, &job), EINVAL);
	/* the exporter frees first; the import keeps the pages alive */
	tc_bo_free(fd_a, &a);
	tc_desc_write64(&d[0], info.va + 8, 5);
	tc_assert_ok(tc_submit(fd_b, d, 1, bos, 2, 0, &job));
	ck_assert_uint_eq(tc_wait_status(fd_b, job), DRM_TILECOPY_STATUS_OK);
	tc_assert_ok(tc_gem_close(fd_b, hb));
	tc_bo_free(fd_b, &bsrc);
}

START_TEST(test_prime_same_device)
{
	int fd_a = tc_open(), fd_b = tc_open();

	prime_share(fd_a, fd_b);
	close(fd_a);
	close(fd_b);
}
END_TEST

START_TEST(test_prime_other_device)
{
	int fd_a, fd_b;

	if (tc_count_devices() < 2) {
		fprintf(stderr, "test_prime_other_device: one engine only; run with --devices 2\n");
		ck_assert(!getenv("TC_EXPECT_DEVICES") || atoi(getenv("TC_EXPECT_DEVICES")) < 2);
		return;
	}
	fd_a = tc_open_nth(0);
	fd_b = tc_open_nth(1);
	prime_share(fd_a, fd_b);
	close(fd_a);
	close(fd_b);
}
END_TEST

START_TEST(test_prime_self_import)
{
	/* importing one's own export gives back the same handle (DRM core) */
	int fd = tc_open();
	struct tc_bo a;
	uint32_t h;
	int dmabuf;

	tc_bo_new(fd, 4096, 0, &a);
	tc_assert_ok(drmPrimeHandleToFD(fd, a.handle, DRM_CLOEXEC | DRM_RDWR, &dmabuf));
	tc_assert_ok(drmPrimeFDToHandle(fd, dmabuf, &h));
	ck_assert_uint_eq(h, a.handle);
	close(dmabuf);
	/* not a dma-buf */
	ck_assert_int_ne(drmPrimeFDToHandle(fd, fd, &h), 0);
	tc_bo_free(fd, &a);
	close(fd);
}
END_TEST

START_TEST(test_every_device)
{
	/* with --devices N, each engine runs jobs on its own */
	int n = tc_count_devices();

	if (getenv("TC_EXPECT_DEVICES"))
		ck_assert_int_eq(n, atoi(getenv("TC_EXPECT_DEVICES")));
	for (int i = 0; i < n; i++) {
		int fd = tc_open_nth(i);

		nchw_to_nhwc(fd, 4, 1, 8, 6, 6, 0);
		close(fd);
	}
}
END_TEST

static Suite *ioctl_suite(void)
{
	Suite *s = suite_create("ioctl");
	TCase *tc;

	tc = tcase_create("param");
	tcase_add_test(tc, test_param_values);
	tcase_add_test(tc, test_param_invalid);
	tcase_add_test(tc, test_sysfs_counters);
	suite_add_tcase(s, tc);

	tc = tcase_create("bo");
	tcase_add_test(tc, test_bo_create_valid);
	tcase_add_test(tc, test_bo_create_invalid);
	tcase_add_test(tc, test_bo_info_invalid);
	tcase_add_test(tc, test_bo_mmap);
	tcase_set_timeout(tc, 90);
	suite_add_tcase(s, tc);

	tc = tcase_create("job");
	tcase_add_test(tc, test_job_copy_nchw_nhwc);
	tcase_add_test(tc, test_job_fill_write64_broadcast);
	tcase_add_test(tc, test_job_max_descs);
	tcase_add_test(tc, test_job_many_bos);
	tcase_add_test(tc, test_job_all_queues);
	tcase_add_test(tc, test_every_device);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("submit");
	tcase_add_test(tc, test_submit_header_invalid);
	tcase_add_test(tc, test_submit_bad_handles);
	tcase_add_loop_test(tc, test_submit_table, 0, TC_CASE_COUNT);
	tcase_add_test(tc, test_submit_desc_stride);
	tcase_add_test(tc, test_submit_footprint_edges_valid);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("wait");
	tcase_add_test(tc, test_wait_invalid);
	tcase_add_test(tc, test_wait_timeout);
	tcase_add_test(tc, test_syncobj_out_and_in);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_add_test(tc, test_fork_processes);
	tcase_add_test(tc, test_close_with_jobs_pending);
	tcase_add_test(tc, test_free_bo_with_job_pending);
	tcase_add_test(tc, test_prime_same_device);
	tcase_add_test(tc, test_prime_other_device);
	tcase_add_test(tc, test_prime_self_import);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	tc_require_device("test_ioctl");
	return tc_run_suite(ioctl_suite());
}
