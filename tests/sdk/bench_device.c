// SPDX-License-Identifier: MIT
/*
 * bench_device.c - the engine against the CPU path, in the same guest:
 * jobs per second for 4 KB jobs (submit + wait, one at a time and with
 * several in flight), GB/s (bytes read + written) for a 64 MB f32
 * NCHW->NHWC conversion on BO-resident data, what a userptr BO costs
 * (BO_USERPTR and GEM_CLOSE), and tilecopy_convert on host
 * buffers (malloc'd memory) from 32 KiB to 64 MiB moved: the engine on the
 * caller's pinned pages (userptr BOs), the engine through staging copies
 * (TILECOPY_USERPTR=0), the CPU path. Prints a table and the crossover
 * lines, or JSON lines with --json.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <xf86drm.h>

#include "tilecopy/device.h"
#include "../unit/tc_test.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct setup {
	tilecopy_plan_t *plan;
	tilecopy_bo_t *sbo, *dbo;
	void *sp, *dp;
};

/* The 1.0 getters return a status. */
static uint64_t plan_get(tilecopy_status_t (*get)(const tilecopy_plan_t *, uint64_t *),
			 const tilecopy_plan_t *plan)
{
	uint64_t b = 0;

	get(plan, &b);
	return b;
}
#define plan_src(p) plan_get(tilecopy_plan_src_bytes, p)
#define plan_dst(p) plan_get(tilecopy_plan_dst_bytes, p)
#define plan_moved(p) plan_get(tilecopy_plan_moved_bytes, p)

static const char *cpu_name(void)
{
	const char *n = "?";

	tilecopy_cpu_name(NULL, &n);
	return n;
}

static int setup(struct setup *s, tilecopy_device_t *dev, const char *shape)
{
	int64_t sh[4];
	int rank;
	tilecopy_tensor_t *a = NULL, *b = NULL;
	uint64_t sb = 0, db = 0;

	if (tilecopy_shape_parse(sh, &rank, 4, shape) ||
	    tilecopy_tensor_create(&a, "NCHW", sh, rank, TILECOPY_DT_F32, NULL, 0) ||
	    tilecopy_tensor_create(&b, "NHWC", sh, rank, TILECOPY_DT_F32, NULL, 0) ||
	    tilecopy_plan_create(&s->plan, a, b, 0) ||
	    tilecopy_plan_src_bytes(s->plan, &sb) || tilecopy_plan_dst_bytes(s->plan, &db) ||
	    tilecopy_bo_create(&s->sbo, dev, sb, 0) ||
	    tilecopy_bo_create(&s->dbo, dev, db, 0) ||
	    tilecopy_bo_map(s->sbo, &s->sp) || tilecopy_bo_map(s->dbo, &s->dp)) {
		fprintf(stderr, "bench_device: setup %s: %s\n", shape, tilecopy_last_error());
		return -1;
	}
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
	memset(s->sp, 1, sb);
	return 0;
}

static int run_jobs(tilecopy_device_t *dev, struct setup *s, int n, int depth,
		    double *secs)
{
	struct tilecopy_buffer_ref sr = { s->sbo, 0 }, dr = { s->dbo, 0 };
	tilecopy_job_t *ring[64] = { 0 };
	double t0 = now();

	for (int i = 0; i < n + depth; i++) {
		tilecopy_job_t **slot = &ring[i % depth];

		if (*slot) {
			if (tilecopy_job_wait(*slot, -1))
				return -1;
			tilecopy_job_destroy(*slot);
			*slot = NULL;
		}
		if (i < n && tilecopy_job_submit(slot, dev, s->plan, &sr, &dr, 0))
			return -1;
	}
	*secs = now() - t0;
	return 0;
}

static double cpu_secs(struct setup *s, int reps)
{
	double best = 1e9;

	for (int r = 0; r < reps; r++) {
		double t0 = now();

		tilecopy_plan_execute_cpu(s->plan, s->sp, plan_src(s->plan),
					  s->dp, plan_dst(s->plan), NULL);
		if (now() - t0 < best)
			best = now() - t0;
	}
	return best;
}

/*
 * What a userptr BO costs, through the uAPI: BO_USERPTR (pin, DMA map,
 * map into the engine's MMU) and GEM_CLOSE (unmap, unpin) of a writable
 * BO over @bytes of touched anonymous memory, best of 5. The crossover is
 * these plus a job's fixed cost against the CPU path.
 */
static void pin_cost(tilecopy_device_t *dev, int json)
{
	static const size_t sizes[] = { 64 << 10, 1 << 20, 16 << 20 };
	int fd = tilecopy_device_fd(dev);

	if (!json)
		printf("\n%-12s %12s %12s %12s   (a userptr BO, writable, through the uAPI)\n",
		       "bytes", "BO_USERPTR us", "GEM_CLOSE us", "us per page");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		void *p = mmap(NULL, sizes[i], PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double tp = 1e9, tc = 1e9;

		if (p == MAP_FAILED)
			return;
		memset(p, 1, sizes[i]);
		for (int r = 0; r < 5; r++) {
			struct drm_tilecopy_bo_userptr u = { .addr = (uintptr_t)p, .size = sizes[i] };
			struct drm_gem_close c = { 0 };
			double t0 = now(), t1;

			if (drmIoctl(fd, DRM_IOCTL_TILECOPY_BO_USERPTR, &u)) {
				perror("bench_device: BO_USERPTR");
				munmap(p, sizes[i]);
				return;
			}
			t1 = now();
			c.handle = u.handle;
			drmIoctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
			tp = t1 - t0 < tp ? t1 - t0 : tp;
			tc = now() - t1 < tc ? now() - t1 : tc;
		}
		if (json)
			printf("{\"case\": \"userptr pin\", \"bytes\": %zu, \"pin_us\": %.1f, \"close_us\": %.1f}\n",
			       sizes[i], tp * 1e6, tc * 1e6);
		else
			printf("%-12zu %12.1f %12.1f %12.2f\n", sizes[i], tp * 1e6, tc * 1e6,
			       (tp + tc) * 1e6 / (double)(sizes[i] / 4096));
		munmap(p, sizes[i]);
	}
}

/* Best of @reps tilecopy_convert calls, in seconds. */
static double convert_secs(tilecopy_device_t *dev, const tilecopy_plan_t *plan,
			   const void *in, void *out, int reps)
{
	double best = 1e9;

	for (int r = 0; r < reps; r++) {
		double t0 = now();

		if (tilecopy_convert(dev, plan, in, plan_src(plan), out, plan_dst(plan), NULL)) {
			fprintf(stderr, "bench_device: convert: %s\n", tilecopy_last_error());
			return 1e9;
		}
		if (now() - t0 < best)
			best = now() - t0;
	}
	return best;
}

/* The crossover line: the smallest size from which the engine stays ahead. */
static void crossover(const char *what, double from, double last, const char *why)
{
	if (from)
		printf("crossover (%s): the engine beats the guest CPU path from %.0f bytes moved (%.0f KiB)\n",
		       what, from, from / 1024);
	else
		printf("crossover (%s): none: the CPU path was faster at every size up to %.0f bytes moved (%s)\n",
		       what, last, why);
}

/*
 * The threshold sweep: tilecopy_convert on host memory (malloc'd, touched
 * once before), NCHW->NHWC f32 of growing size, on the engine with userptr
 * BOs, on the engine through staging copies, and on the CPU, interleaved,
 * best of 5. The crossover is the smallest size from which the engine is
 * faster at every larger size of the sweep.
 */
static void sweep(tilecopy_device_t *dev, int json)
{
	static const char *const shapes[] = { "1x16x16x16", "1x32x32x32", "1x64x32x32",
					      "1x64x64x32", "1x64x64x48", "1x64x64x64",
					      "3x64x64x32", "2x64x64x64", "4x64x64x64",
					      "8x64x64x64", "16x64x64x64", "32x64x64x64" };
	enum { N = sizeof(shapes) / sizeof(shapes[0]), REPS = 5 };
	double moved[N], tu[N], ts[N], tc[N], cu = 0, cs = 0;

	setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
	if (!json)
		printf("\n%-12s %12s %12s %12s   (tilecopy_convert on malloc'd host buffers)\n",
		       "bytes moved", "userptr us", "staged us", "CPU us");
	for (size_t i = 0; i < N; i++) {
		struct setup st;
		void *in, *out;

		if (setup(&st, dev, shapes[i]))
			return;
		moved[i] = (double)plan_moved(st.plan);
		in = malloc(plan_src(st.plan));
		out = malloc(plan_dst(st.plan));
		memset(in, 1, plan_src(st.plan));
		memset(out, 0, plan_dst(st.plan));
		tu[i] = ts[i] = tc[i] = 1e9;
		for (int r = 0; r < REPS; r++) {
			double t;

			setenv("TILECOPY_USERPTR", "1", 1);
			t = convert_secs(dev, st.plan, in, out, 1);
			tu[i] = t < tu[i] ? t : tu[i];
			setenv("TILECOPY_USERPTR", "0", 1);
			t = convert_secs(dev, st.plan, in, out, 1);
			ts[i] = t < ts[i] ? t : ts[i];
			t = convert_secs(NULL, st.plan, in, out, 1);
			tc[i] = t < tc[i] ? t : tc[i];
		}
		unsetenv("TILECOPY_USERPTR");
		if (json)
			printf("{\"case\": \"sweep\", \"moved_bytes\": %.0f, \"userptr_us\": %.1f, \"staged_us\": %.1f, \"cpu_us\": %.1f}\n",
			       moved[i], tu[i] * 1e6, ts[i] * 1e6, tc[i] * 1e6);
		else
			printf("%-12.0f %12.1f %12.1f %12.1f\n", moved[i], tu[i] * 1e6, ts[i] * 1e6,
			       tc[i] * 1e6);
		free(in);
		free(out);
		tilecopy_plan_destroy(st.plan);
		tilecopy_bo_free(st.sbo);
		tilecopy_bo_free(st.dbo);
	}
	for (int i = N - 1; i >= 0 && tu[i] < tc[i]; i--)
		cu = moved[i];
	for (int i = N - 1; i >= 0 && ts[i] < tc[i]; i--)
		cs = moved[i];
	if (json) {
		printf("{\"case\": \"crossover\", \"userptr_bytes\": %.0f, \"staged_bytes\": %.0f}\n",
		       cu, cs);
		return;
	}
	crossover("host buffers, userptr", cu, moved[N - 1], "pinning included");
	crossover("host buffers, staged", cs, moved[N - 1], "two staging copies included");
}

int main(int argc, char **argv)
{
	int json = argc > 1 && !strcmp(argv[1], "--json");
	tilecopy_device_t *dev;
	struct setup small, big;
	double t1, t8, tbig = 1e9, tcpu_small, tcpu_big;
	double mb;

	if (tilecopy_device_open(&dev, NULL)) {
		fprintf(stderr, "bench_device: %s\n", tilecopy_last_error());
		return 77;
	}
	if (setup(&small, dev, "1x16x8x8") || setup(&big, dev, "4x64x256x256"))
		return 1;
	if (run_jobs(dev, &small, 200, 1, &t1) || run_jobs(dev, &small, 400, 8, &t8))
		goto fail;
	for (int r = 0; r < 3; r++) {
		double t;

		if (run_jobs(dev, &big, 1, 1, &t))
			goto fail;
		tbig = t < tbig ? t : tbig;
	}
	tcpu_small = cpu_secs(&small, 50);
	tcpu_big = cpu_secs(&big, 2);
	mb = (double)plan_moved(big.plan);
	if (json) {
		printf("{\"case\": \"4KB jobs\", \"device_jobs_per_s\": %.0f, \"device_jobs_per_s_depth8\": %.0f, \"cpu_jobs_per_s\": %.0f}\n",
		       200 / t1, 400 / t8, 1 / tcpu_small);
		printf("{\"case\": \"64MB f32 NCHW->NHWC\", \"bytes\": %.0f, \"device_gbps\": %.3f, \"cpu_gbps\": %.3f}\n",
		       mb / 2, mb / tbig / 1e9, mb / tcpu_big / 1e9);
	} else {
		printf("%-28s %14s %14s\n", "case (guest, same run)", "engine", "CPU path");
		printf("%-28s %10.0f j/s %10.0f j/s\n", "4 KB jobs, one at a time", 200 / t1,
		       1 / tcpu_small);
		printf("%-28s %10.0f j/s %14s\n", "4 KB jobs, 8 in flight", 400 / t8, "-");
		printf("%-28s %9.3f GB/s %9.3f GB/s\n", "64 MB f32 NCHW->NHWC", mb / tbig / 1e9,
		       mb / tcpu_big / 1e9);
		printf("(GB/s = bytes read + written per second; CPU path: %s under the guest's CPU)\n",
		       cpu_name());
	}
	pin_cost(dev, json);
	sweep(dev, json);
	tilecopy_device_close(dev);
	return 0;
fail:
	fprintf(stderr, "bench_device: %s\n", tilecopy_last_error());
	return 1;
}
