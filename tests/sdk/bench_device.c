// SPDX-License-Identifier: MIT
/*
 * bench_device.c - the engine against the CPU path, in the same guest:
 * jobs per second for 4 KB jobs (submit + wait, one at a time and with
 * several in flight), GB/s (bytes read + written) for a 64 MB f32
 * NCHW->NHWC conversion on BO-resident data. Prints a table, or JSON lines
 * with --json.
 */
#include <stdio.h>
#include <time.h>

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
 * The threshold sweep: tilecopy_convert on user memory (staging included)
 * on the engine and on the CPU, for growing NCHW->NHWC f32 tensors. The
 * smallest size where the engine wins is the measured crossover.
 */
static void sweep(tilecopy_device_t *dev, int json)
{
	static const char *const shapes[] = { "1x16x16x16", "1x32x32x32", "1x64x32x32",
					      "1x64x64x32", "1x64x64x64", "2x64x64x64",
					      "4x64x64x64", "8x64x64x64", "16x64x64x64",
					      "32x64x64x64" };
	double cross = 0;

	if (!json)
		printf("\n%-12s %12s %12s   (tilecopy_convert, staging included)\n",
		       "bytes moved", "engine us", "CPU us");
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct setup st;
		double te = 1e9, tc = 1e9, moved;
		void *in, *out;

		if (setup(&st, dev, shapes[i]))
			return;
		moved = (double)plan_moved(st.plan);
		in = st.sp;
		out = malloc(plan_dst(st.plan));
		for (int r = 0; r < 3; r++) {
			double t0;

			setenv("TILECOPY_DEVICE_THRESHOLD", "0", 1);
			t0 = now();
			tilecopy_convert(dev, st.plan, in, plan_src(st.plan), out,
					 plan_dst(st.plan), NULL);
			te = now() - t0 < te ? now() - t0 : te;
			t0 = now();
			tilecopy_convert(NULL, st.plan, in, plan_src(st.plan), out,
					 plan_dst(st.plan), NULL);
			tc = now() - t0 < tc ? now() - t0 : tc;
		}
		if (!cross && te < tc)
			cross = moved;
		if (json)
			printf("{\"case\": \"sweep\", \"moved_bytes\": %.0f, \"engine_us\": %.1f, \"cpu_us\": %.1f}\n",
			       moved, te * 1e6, tc * 1e6);
		else
			printf("%-12.0f %12.1f %12.1f\n", moved, te * 1e6, tc * 1e6);
		free(out);
		tilecopy_plan_destroy(st.plan);
		tilecopy_bo_free(st.sbo);
		tilecopy_bo_free(st.dbo);
	}
	if (!json)
		printf("crossover: the engine wins from %.0f bytes moved%s\n", cross,
		       cross ? "" : " (never, in this range)");
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
	sweep(dev, json);
	tilecopy_device_close(dev);
	return 0;
fail:
	fprintf(stderr, "bench_device: %s\n", tilecopy_last_error());
	return 1;
}
