/* SPDX-License-Identifier: MIT */
/*
 * bench_device.c - speed of the engine model: transposing COPY jobs of about
 * 64 MiB, each timed by the device's own BUSY_NS counter, next to a host
 * memcpy of 64 MiB between the same guest pages in the same run. Every
 * output is checked in full against a host reference.
 *
 * Two clocks: BUSY_NS is wall time, so on a shared machine it counts the
 * time the engine's worker thread waited for a CPU; the worker's own CPU
 * time (schedstat of the QEMU thread named "tilecopy") does not, and is
 * compared with the CPU time of the memcpy. Both ratios are printed.
 *
 * GB/s = tensor bytes / time (10^9 bytes per second). "x memcpy" compares
 * the job's GB/s with memcpy's (best with best).
 * Usage: bench_device [reps, default 20]   (exit 77 when the QEMU binary is
 * absent). TC_BENCH_CASES=substring runs only the cases whose name contains
 * it; TC_BENCH_STRICT=1 makes a case below 0.5x memcpy (CPU time) an error.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qtest.h"

#define VA_SRC 0x1000000000ull
#define VA_DST 0x2000000000ull
#define MEMCPY_BYTES (64ull << 20)
#define MAX_REPS 64

/*
 * One transposing copy. Dimensions innermost first, strides in elements,
 * as in struct drm_tilecopy_desc; the destination is packed (its strides
 * are a permutation of the source's packed strides) so that the bytes
 * moved equal the tensor's size.
 */
struct bcase {
	const char *name;
	unsigned es, nd;
	uint32_t e[4];
	uint64_t ss[4], ds[4];
	int scattered;		/* destination pages reversed in each 2 MiB */
};

#define HW (256ull * 256)
#define IMG (224ull * 224)

static struct bcase cases[] = {
	{ "NCHW->NHWC f32 4x64x256x256", 4, 3, { 64, HW, 4 },
	  { HW, 1, 64 * HW }, { 1, 64, 64 * HW }, 0 },
	{ "  same, dst pages scattered", 4, 3, { 64, HW, 4 },
	  { HW, 1, 64 * HW }, { 1, 64, 64 * HW }, 1 },
	{ "NHWC->NCHW f32 4x64x256x256", 4, 3, { HW, 64, 4 },
	  { 64, 1, 64 * HW }, { 1, HW, 64 * HW }, 0 },
	{ "nChw16c->NCHW f32 4x64x256x256", 4, 3, { 16, HW, 16 },
	  { 1, 16, 16 * HW }, { HW, 1, 16 * HW }, 0 },
	{ "NCHW->NHWC f32 112x3x224x224", 4, 3, { 3, IMG, 112 },
	  { IMG, 1, 3 * IMG }, { 1, 3, 3 * IMG }, 0 },
	{ "NHWC->NCHW u8 448x3x224x224", 1, 3, { IMG, 3, 448 },
	  { 3, 1, 3 * IMG }, { 1, IMG, 3 * IMG }, 0 },
	{ "4096x4096 f32 transpose", 4, 2, { 4096, 4096 },
	  { 4096, 1 }, { 1, 4096 }, 0 },
	{ "8192x8192 u8 transpose", 1, 2, { 8192, 8192 },
	  { 8192, 1 }, { 1, 8192 }, 0 },
	{ "4096x8192 f16 transpose", 2, 2, { 4096, 8192 },
	  { 8192, 1 }, { 1, 4096 }, 0 },
	{ "2048x4096 f64 transpose", 8, 2, { 2048, 4096 },
	  { 4096, 1 }, { 1, 2048 }, 0 },
	/*
	 * ND -> zN (the fractal layout of NPU matrix units): a 4096x8192 f16
	 * matrix (M x N) as N/16 column blocks of M/16 16x16 fractals, each
	 * row-major: n0 (16, contiguous both sides), m0, m1, n1.
	 */
	{ "ND->zN f16 4096x8192", 2, 4, { 16, 16, 256, 512 },
	  { 1, 8192, 16 * 8192, 16 }, { 1, 16, 256, 16 * 4096 }, 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* BUSY_NS and worker CPU ns of each case in each repetition */
static uint64_t times[NCASES][MAX_REPS], cpu_times[NCASES][MAX_REPS];
static char worker_stat[300];	/* /proc/PID/task/TID/schedstat */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t case_elems(const struct bcase *c)
{
	uint64_t n = 1;
	unsigned k;

	for (k = 0; k < c->nd; k++)
		n *= c->e[k];
	return n;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + t.tv_nsec;
}

/* memcpy's wall time in *wall, returns its CPU time. */
static uint64_t memcpy_ns(struct qts *q, uint64_t pa_dst, uint64_t pa_src, uint64_t bytes,
			  uint64_t *wall)
{
	double t0 = now_sec();
	uint64_t c0 = thread_cpu_ns();

	memcpy(qts_ptr(q, pa_dst), qts_ptr(q, pa_src), bytes);
	*wall = (uint64_t)((now_sec() - t0) * 1e9);
	return thread_cpu_ns() - c0;
}

/* The schedstat file of QEMU's engine worker (threads named: debug-threads). */
static void find_worker(pid_t pid)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		snprintf(worker_stat, sizeof(worker_stat), "/proc/%d/task/%s/comm", (int)pid,
			 de->d_name);
		f = fopen(worker_stat, "r");
		if (f && fgets(comm, sizeof(comm), f) && !strcmp(comm, "tilecopy\n")) {
			fclose(f);
			snprintf(worker_stat, sizeof(worker_stat), "/proc/%d/task/%s/schedstat",
				 (int)pid, de->d_name);
			closedir(dir);
			return;
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	worker_stat[0] = 0;
}

/* CPU time of the worker so far (0 if not found). */
static uint64_t worker_cpu_ns(void)
{
	unsigned long long ns = 0;
	FILE *f = worker_stat[0] ? fopen(worker_stat, "r") : NULL;

	if (f) {
		if (fscanf(f, "%llu", &ns) != 1)
			ns = 0;
		fclose(f);
	}
	return ns;
}

/* One job; returns its BUSY_NS (0 on failure), its worker CPU time in *cpu. */
static uint64_t job_ns(struct tcdev *d, struct ring *r, uint64_t desc_gpa, uint64_t *seq,
		       uint64_t *cpu)
{
	uint64_t b0 = tc_rd64(d, TC_REG_BUSY_NS_LO), c0 = worker_cpu_ns();
	uint32_t st;

	ring_submit(d, 0, r, desc_gpa, 1, 0, ++*seq);
	st = tc_wait(d, 0, 120000);
	if (st & (TC_Q_STATUS_HALTED | 0x80000000u)) {
		fprintf(stderr, "bench: job failed: status 0x%x code %u\n", st,
			tc_qrd(d, 0, TC_Q_ERR_CODE));
		return 0;
	}
	*cpu = worker_cpu_ns() - c0;
	return tc_rd64(d, TC_REG_BUSY_NS_LO) - b0;
}

/*
 * Destination pages in order, or reversed inside each 2 MiB block (one
 * TLB walk per 4 KiB page).
 */
static void map_dst(struct mmu *m, struct tcdev *d, uint64_t pa_dst, uint64_t pages,
		    uint64_t *dpa, int scattered)
{
	uint64_t i;

	for (i = 0; i < pages; i++) {
		dpa[i] = pa_dst + (scattered ? (i / 512 * 512 + 511 - i % 512) : i) * TC_PAGE_SIZE;
		mmu_map_page(m, VA_DST + i * TC_PAGE_SIZE, dpa[i], TC_PTE_READ | TC_PTE_WRITE);
	}
	tc_wr(d, TC_REG_MMU_INVALIDATE_ALL, 1);
}

/* Every element of the destination against the source, by the strides. */
static int verify(struct qts *q, const struct bcase *c, uint64_t pa_src,
		  const uint64_t *dpa)
{
	const uint8_t *s = qts_ptr(q, pa_src);
	uint64_t idx[4] = { 0 }, n = case_elems(c), i, so, dof, bad = 0;
	unsigned k;

	for (i = 0; i < n; i++) {
		so = dof = 0;
		for (k = 0; k < c->nd; k++) {
			so += idx[k] * c->ss[k];
			dof += idx[k] * c->ds[k];
		}
		so *= c->es;
		dof *= c->es;
		if (memcmp((uint8_t *)qts_ptr(q, dpa[dof / TC_PAGE_SIZE]) + dof % TC_PAGE_SIZE,
			   s + so, c->es) && bad++ < 3)
			fprintf(stderr, "bench: %s: element %llu wrong\n", c->name,
				(unsigned long long)i);
		for (k = 0; k < c->nd && ++idx[k] == c->e[k]; k++)
			idx[k] = 0;
	}
	return bad ? -1 : 0;
}

static int selected(const struct bcase *c)
{
	const char *want = getenv("TC_BENCH_CASES");

	return !want || !*want || strstr(c->name, want);
}

static int report(int reps, const uint64_t *t_mem, const uint64_t *c_mem)
{
	double mbest = MEMCPY_BYTES / (double)t_mem[0];
	double cbest = MEMCPY_BYTES / (double)c_mem[0];
	int rc = 0, have_cpu = worker_stat[0] != 0;
	size_t i;

	printf("engine model: ~64 MiB COPY jobs, best of %d interleaved runs, outputs verified\n",
	       reps);
	printf("  %-34s %8s %8s %9s %7s  %8s %7s\n", "case", "busy ms", "GB/s", "median ms",
	       "x memcpy", "cpu ms", "x memcpy");
	printf("  %-34s %8.2f %8.2f %9.2f %7s  %8.2f\n", "host memcpy 64 MiB (same pages)",
	       t_mem[0] / 1e6, mbest, t_mem[reps / 2] / 1e6, "", c_mem[0] / 1e6);
	for (i = 0; i < NCASES; i++) {
		const struct bcase *c = &cases[i];
		uint64_t bytes = case_elems(c) * c->es;
		double best, cpu, ratio;

		if (!selected(c))
			continue;
		qsort(times[i], reps, sizeof(uint64_t), cmp_u64);
		qsort(cpu_times[i], reps, sizeof(uint64_t), cmp_u64);
		best = bytes / (double)times[i][0];
		cpu = bytes / (double)cpu_times[i][0];
		ratio = have_cpu ? cpu / cbest : best / mbest;
		printf("  %-34s %8.2f %8.2f %9.2f %6.2fx  %8.2f %6.2fx\n", c->name,
		       times[i][0] / 1e6, best, times[i][reps / 2] / 1e6, best / mbest,
		       cpu_times[i][0] / 1e6, have_cpu ? cpu / cbest : 0.0);
		if (ratio < 0.5)
			rc = 1;
	}
	printf("  target: every transpose >= 0.5x memcpy (%s, best/best): %s\n",
	       have_cpu ? "CPU time" : "busy time", rc ? "NOT met" : "met");
	return rc;
}

int main(int argc, char **argv)
{
	const uint64_t cap = 68ull << 20, pages = cap / TC_PAGE_SIZE;
	int reps = argc > 1 ? atoi(argv[1]) : 20, r, rc = 0;
	uint64_t pa_src, pa_dst, gpa[NCASES], seq = 0, t_mem[MAX_REPS], c_mem[MAX_REPS], i;
	uint64_t *dpa = malloc(pages * sizeof(*dpa));
	struct qts *q;
	struct tcdev dev;
	struct mmu m;
	struct ring ring;
	uint8_t *src;

	if (reps < 1 || reps > MAX_REPS)
		reps = 20;
	qts_require_binary();
	q = qts_start(1024ull << 20, "-device tilecopy,addr=04.0 -name bench,debug-threads=on");
	tcdev_init(&dev, q, 4, QT_BAR_BASE);
	tc_boot_good(&dev);
	find_worker(q->pid);
	mmu_init(&m, q);
	pa_src = qts_alloc(q, cap, 2 << 20);
	pa_dst = qts_alloc(q, cap, 2 << 20);
	mmu_map(&m, VA_SRC, pa_src, cap, TC_PTE_READ);
	tc_wr(&dev, TC_REG_CTX_ROOT_LO(0), (uint32_t)m.root);
	ring_setup(&dev, 0, &ring, 64);
	src = qts_ptr(q, pa_src);
	for (i = 0; i < cap; i++)
		src[i] = (uint8_t)(i * 0x9e3779b1u >> 13);

	for (i = 0; i < NCASES; i++) {
		struct drm_tilecopy_desc *d = desc_alloc(q, 1, &gpa[i]);
		const struct bcase *c = &cases[i];
		unsigned k;

		memset(d, 0, sizeof(*d));
		d->op = DRM_TILECOPY_OP_COPY;
		d->elem_size = c->es;
		d->ndims = c->nd;
		d->src = VA_SRC;
		d->dst = VA_DST;
		for (k = 0; k < c->nd; k++) {
			d->extent[k] = c->e[k];
			d->src_stride[k] = c->ss[k];
			d->dst_stride[k] = c->ds[k];
		}
	}

	/*
	 * Every repetition runs memcpy and then each case once, so that all
	 * see the same machine load (the machine is shared); the destination
	 * is overwritten with the untransposed bytes before each job, so a job
	 * that did nothing fails the check, made in the last repetition.
	 */
	for (r = 0; r < reps; r++) {
		int last = r == reps - 1;

		c_mem[r] = memcpy_ns(q, pa_dst, pa_src, MEMCPY_BYTES, &t_mem[r]);
		for (i = 0; i < NCASES; i++) {
			struct bcase *c = &cases[i];

			if (!selected(c))
				continue;
			map_dst(&m, &dev, pa_dst, pages, dpa, c->scattered);
			memcpy(qts_ptr(q, pa_dst), src, cap);
			times[i][r] = job_ns(&dev, &ring, gpa[i], &seq, &cpu_times[i][r]);
			if (!times[i][r] || (last && verify(q, c, pa_src, dpa))) {
				fprintf(stderr, "bench: %s failed\n", c->name);
				rc = 1;
				goto out;
			}
		}
	}
	qsort(t_mem, reps, sizeof(uint64_t), cmp_u64);
	qsort(c_mem, reps, sizeof(uint64_t), cmp_u64);
	if (report(reps, t_mem, c_mem) && getenv("TC_BENCH_STRICT") && atoi(getenv("TC_BENCH_STRICT")))
		rc = 1;
out:
	qts_quit(q);
	free(dpa);
	return rc;
}
