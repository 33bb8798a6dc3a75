// SPDX-License-Identifier: MIT
/*
 * bench.c - tilecopy's CPU path against memcpy, oneDNN and a naive loop.
 *
 * Every case is one layout conversion. In the same run, each contender is
 * warmed up, its result checked against the scalar reference, and then
 * all are timed in N interleaved rounds (--reps), each keeping its best:
 *
 *   tilecopy   the plan, run by tilecopy_plan_execute_cpu on the best
 *              executor (or --cpu NAME; --all-cpus adds every executor)
 *   memcpy     memcpy of the source bytes (split over the threads)
 *   oneDNN     dnnl reorder: by format tag where oneDNN has the format, or
 *              else by the plan's own strided view (one descriptor, up to
 *              8 dims); its output is compared with tilecopy's
 *   naive      a typed element loop over the plan's descriptors
 *
 * GB/s count bytes read + bytes written. Threads: --threads N gives
 * tilecopy (TILECOPY_THREADS), memcpy and oneDNN (OpenMP) N threads; the
 * naive loop always runs on one.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

#include "tilecopy/tilecopy.h"
#include "tilecopy_accel.h"
#include "bench.h"

/* libgomp, under oneDNN: its thread count is set with this. */
void omp_set_num_threads(int n);

struct bench_case {
	const char *name;
	const char *from, *to;
	tilecopy_dtype_t dt;
	int rank;
	int64_t shape[4];
	dnnl_format_tag_t dnnl_from, dnnl_to;	/* dnnl_format_tag_undef: view */
};

static const struct bench_case bench_cases[] = {
	{ "nchw-nhwc-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nhwc },
	{ "nhwc-nchw-f32", "NHWC", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nhwc, dnnl_nchw },
	{ "nchw-nChw16c-f32", "NCHW", "nChw16c", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c },
	{ "nChw16c-nchw-f32", "nChw16c", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nChw16c, dnnl_nchw },
	{ "nchw-nc1hwc0-f16", "NCHW", "NC1HWC0", TILECOPY_DT_F16, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nChw16c },	/* C0 = 16 for f16: nChw16c */
	{ "rowmajor-zN-f16", "RowMajor", "zN", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "zN-rowmajor-f16", "zN", "RowMajor", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "zN-nZ-f16", "zN", "nZ", TILECOPY_DT_F16, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "rowmajor-zN-i8", "RowMajor", "zN", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "zN-rowmajor-i8", "zN", "RowMajor", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "zN-nZ-i8", "zN", "nZ", TILECOPY_DT_I8, 2, { 4096, 4096 },
	  dnnl_format_tag_undef, dnnl_format_tag_undef },
	{ "nchw-nchw-f32", "NCHW", "NCHW", TILECOPY_DT_F32, 4, { 32, 64, 56, 56 },
	  dnnl_nchw, dnnl_nchw },
	{ "small-4k-f32", "NCHW", "NHWC", TILECOPY_DT_F32, 4, { 1, 16, 8, 8 },
	  dnnl_nchw, dnnl_nhwc },
};
#define NCASES (sizeof(bench_cases) / sizeof(bench_cases[0]))

struct bench_opts {
	int json, threads, reps, all_cpus;
	const char *only, *cpu;
	const char *from, *to, *shape, *dtype;	/* a custom case */
};

/* ---- timing -------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef int (*bench_fn)(void *ctx);

/*
 * One contender of a case. All contenders of a case are timed in
 * interleaved rounds (round r times each of them once), so that on a busy
 * machine they see the same conditions; each keeps its best round. Small
 * jobs repeat inside a round until it lasts about 2 ms.
 */
struct contender {
	const char *name;
	bench_fn fn;
	void *ctx;
	int verify;		/* its output must equal the reference */
	long inner;
	double best;		/* seconds per call; < 0: failed */
};

static int contender_prepare(struct contender *c, unsigned char *dst,
			     size_t dst_bytes, const unsigned char *check)
{
	double t0, t;

	c->best = -1;
	memset(dst, 0, dst_bytes);
	if (c->fn(c->ctx))
		return -1;
	if (c->verify && memcmp(check, dst, dst_bytes))
		return -1;
	t0 = now();
	if (c->fn(c->ctx))
		return -1;
	t = now() - t0;
	c->inner = t < 2e-3 ? (long)(2e-3 / (t > 1e-8 ? t : 1e-8)) + 1 : 1;
	c->best = 1e30;
	return 0;
}

static void contenders_time(struct contender *c, int n, int reps)
{
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++) {
			double t0, t;

			if (c[i].best < 0)
				continue;
			t0 = now();
			for (long k = 0; k < c[i].inner; k++)
				if (c[i].fn(c[i].ctx)) {
					c[i].best = -1;
					break;
				}
			if (c[i].best < 0)
				continue;
			t = (now() - t0) / (double)c[i].inner;
			if (t < c[i].best)
				c[i].best = t;
		}
	}
}

/* ---- contenders ---------------------------------------------------------- */

struct bench_run {
	const tilecopy_plan_t *plan;
	const char *cpu;
	unsigned char *src, *dst;
	size_t src_bytes, dst_bytes;
	int threads;
	/* oneDNN */
	dnnl_primitive_t reorder;
	dnnl_stream_t stream;
	dnnl_memory_t msrc, mdst;
};

static int run_tilecopy(void *ctx)
{
	struct bench_run *r = ctx;

	return tilecopy_plan_execute_cpu(r->plan, r->src, r->src_bytes, r->dst,
					 r->dst_bytes, r->cpu) ? -1 : 0;
}

struct memcpy_part {
	void *dst;
	const void *src;
	size_t n;
};

static void *memcpy_thread(void *arg)
{
	struct memcpy_part *p = arg;

	memcpy(p->dst, p->src, p->n);
	return NULL;
}

static int run_memcpy(void *ctx)
{
	struct bench_run *r = ctx;
	struct memcpy_part part[64];
	pthread_t tid[64];
	size_t n = r->src_bytes < r->dst_bytes ? r->src_bytes : r->dst_bytes;
	int t, nt = r->threads > 64 ? 64 : r->threads;

	if (nt <= 1 || n < (1u << 20)) {
		memcpy(r->dst, r->src, n);
		return 0;
	}
	for (t = 0; t < nt; t++) {
		size_t lo = n / nt * t, hi = t == nt - 1 ? n : n / nt * (t + 1);

		part[t] = (struct memcpy_part){ r->dst + lo, r->src + lo, hi - lo };
		if (t && pthread_create(&tid[t], NULL, memcpy_thread, &part[t]))
			return -1;
	}
	memcpy_thread(&part[0]);
	for (t = 1; t < nt; t++)
		pthread_join(tid[t], NULL);
	return 0;
}

static int run_onednn(void *ctx)
{
	struct bench_run *r = ctx;
	dnnl_exec_arg_t args[2] = {
		{ DNNL_ARG_FROM, r->msrc }, { DNNL_ARG_TO, r->mdst },
	};

	if (dnnl_primitive_execute(r->reorder, r->stream, 2, args) != dnnl_success)
		return -1;
	return dnnl_stream_wait(r->stream) == dnnl_success ? 0 : -1;
}

/* The loop a programmer writes first: typed elements, nested dims. */
#define NAIVE_COPY(type)						\
	do {								\
		const type *s_ = (const type *)(src + d->src);		\
		type *d_ = (type *)(dst + d->dst);			\
		for (size_t o = 0; o < outer; o++) {			\
			size_t so = 0, dof = 0, rest = o;		\
			for (int k = 1; k < d->ndims; k++) {		\
				size_t i_ = rest % d->extent[k];	\
				rest /= d->extent[k];			\
				so += i_ * d->src_stride[k];		\
				dof += i_ * d->dst_stride[k];		\
			}						\
			for (size_t i = 0; i < d->extent[0]; i++)	\
				d_[dof + i * d->dst_stride[0]] =	\
					s_[so + i * d->src_stride[0]];	\
		}							\
	} while (0)

#define NAIVE_FILL(type)						\
	do {								\
		type *d_ = (type *)(dst + d->dst);			\
		for (size_t o = 0; o < outer; o++) {			\
			size_t dof = 0, rest = o;			\
			for (int k = 1; k < d->ndims; k++) {		\
				dof += rest % d->extent[k] * d->dst_stride[k]; \
				rest /= d->extent[k];			\
			}						\
			for (size_t i = 0; i < d->extent[0]; i++)	\
				d_[dof + i * d->dst_stride[0]] = (type)d->value; \
		}							\
	} while (0)

/* Shims over the 1.0 API, whose getters return a status. */
static const struct drm_tilecopy_desc *plan_descs(const tilecopy_plan_t *p, size_t *n)
{
	const struct drm_tilecopy_desc *d = NULL;

	*n = 0;
	tilecopy_plan_descs(p, &d, n);
	return d;
}

static uint64_t plan_bytes(tilecopy_status_t (*get)(const tilecopy_plan_t *, uint64_t *),
			   const tilecopy_plan_t *p)
{
	uint64_t b = 0;

	get(p, &b);
	return b;
}

static const char *dtype_name(tilecopy_dtype_t dt)
{
	const char *name = "?";

	tilecopy_dtype_name(dt, &name);
	return name;
}

static const char *cpu_name(const char *cpu)
{
	const char *name = NULL;

	return tilecopy_cpu_name(cpu, &name) ? NULL : name;
}

static int run_naive(void *ctx)
{
	struct bench_run *r = ctx;
	size_t n, j;
	const struct drm_tilecopy_desc *descs = plan_descs(r->plan, &n);
	const unsigned char *src = r->src;
	unsigned char *dst = r->dst;

	for (j = 0; j < n; j++) {
		const struct drm_tilecopy_desc *d = &descs[j];
		size_t outer = 1;

		for (int k = 1; k < d->ndims; k++)
			outer *= d->extent[k];
		if (d->op == DRM_TILECOPY_OP_COPY) {
			switch (d->elem_size) {
			case 1: NAIVE_COPY(uint8_t); break;
			case 2: NAIVE_COPY(uint16_t); break;
			case 4: NAIVE_COPY(uint32_t); break;
			default: NAIVE_COPY(uint64_t); break;
			}
		} else if (d->op == DRM_TILECOPY_OP_FILL) {
			switch (d->elem_size) {
			case 1: NAIVE_FILL(uint8_t); break;
			case 2: NAIVE_FILL(uint16_t); break;
			case 4: NAIVE_FILL(uint32_t); break;
			default: NAIVE_FILL(uint64_t); break;
			}
		} else {
			memcpy(dst + d->dst, &d->value, 8);
		}
	}
	return 0;
}

/* ---- oneDNN setup -------------------------------------------------------- */

static dnnl_data_type_t dnnl_type_of(size_t es)
{
	return es == 1 ? dnnl_s8 : es == 2 ? dnnl_f16 : dnnl_f32;
}

/*
 * The reorder for @c: by tags, or by the plan's one descriptor as a strided
 * view (dims outermost first, as oneDNN wants them). Sets @how.
 */
static int onednn_setup(struct bench_run *r, const struct bench_case *c,
			dnnl_engine_t eng, const char **how)
{
	dnnl_memory_desc_t ms, md;
	dnnl_primitive_desc_t pd;
	dnnl_dims_t dims, ss, ds;
	size_t es = 0, n;
	const struct drm_tilecopy_desc *d = plan_descs(r->plan, &n);
	int nd;

	tilecopy_dtype_size(c->dt, &es);
	*how = NULL;
	if (es == 8)
		return -1;
	if (c->dnnl_from != dnnl_format_tag_undef) {
		for (nd = 0; nd < c->rank; nd++)
			dims[nd] = c->shape[nd];
		if (dnnl_memory_desc_init_by_tag(&ms, nd, dims, dnnl_type_of(es),
						 c->dnnl_from) ||
		    dnnl_memory_desc_init_by_tag(&md, nd, dims, dnnl_type_of(es),
						 c->dnnl_to))
			return -1;
		*how = "format tags";
	} else {
		if (n != 1 || d->op != DRM_TILECOPY_OP_COPY || d->src || d->dst)
			return -1;
		nd = d->ndims;
		for (int k = 0; k < nd; k++) {
			dims[nd - 1 - k] = d->extent[k];
			ss[nd - 1 - k] = (dnnl_dim_t)d->src_stride[k];
			ds[nd - 1 - k] = (dnnl_dim_t)d->dst_stride[k];
		}
		if (dnnl_memory_desc_init_by_strides(&ms, nd, dims, dnnl_type_of(es), ss) ||
		    dnnl_memory_desc_init_by_strides(&md, nd, dims, dnnl_type_of(es), ds))
			return -1;
		*how = "strided view of the plan";
	}
	if (dnnl_reorder_primitive_desc_create(&pd, &ms, eng, &md, eng, NULL))
		return *how = NULL, -1;
	if (dnnl_primitive_create(&r->reorder, pd)) {
		dnnl_primitive_desc_destroy(pd);
		return *how = NULL, -1;
	}
	dnnl_primitive_desc_destroy(pd);
	if (dnnl_memory_create(&r->msrc, &ms, eng, r->src) ||
	    dnnl_memory_create(&r->mdst, &md, eng, r->dst))
		return *how = NULL, -1;
	return 0;
}

static void onednn_teardown(struct bench_run *r)
{
	if (r->reorder)
		dnnl_primitive_destroy(r->reorder);
	if (r->msrc)
		dnnl_memory_destroy(r->msrc);
	if (r->mdst)
		dnnl_memory_destroy(r->mdst);
	r->reorder = NULL;
	r->msrc = r->mdst = NULL;
}

/* ---- one case ------------------------------------------------------------ */

struct bench_result {
	uint64_t bytes, moved;
	size_t descs;
	double tc, mc, dn, nv;		/* GB/s; < 0: not measured */
	const char *cpu, *dnnl_how;
	double per_cpu[8];
	const char *cpu_names[8];
	int ncpus;
	double tc_call_us;
};

/* Values that are finite numbers in every float format (no NaN payloads). */
static void bench_fill_src(unsigned char *p, size_t n)
{
	uint32_t s = 12345;

	for (size_t i = 0; i < n; i++) {
		s = s * 1103515245u + 12345u;
		p[i] = (unsigned char)((s >> 16) & 0x3f);
	}
}

static int bench_one(const struct bench_case *c, const struct bench_opts *o,
		     dnnl_engine_t eng, dnnl_stream_t stream,
		     struct bench_result *res)
{
	static const char *const cpus[] = { "scalar", "sse2", "avx2", "avx512", "neon" };
	tilecopy_tensor_t *ts = NULL, *td = NULL;
	tilecopy_plan_t *plan = NULL;
	struct bench_run r = { .cpu = o->cpu, .threads = o->threads, .stream = stream };
	unsigned char *check = NULL;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->tc = res->mc = res->dn = res->nv = -1;
	if (tilecopy_tensor_create(&ts, c->from, c->shape, c->rank, c->dt, NULL, 0) ||
	    tilecopy_tensor_create(&td, c->to, c->shape, c->rank, c->dt, NULL, 0) ||
	    tilecopy_plan_create(&plan, ts, td, 0)) {
		fprintf(stderr, "bench: %s: %s\n", c->name, tilecopy_last_error());
		tilecopy_tensor_destroy(ts);
		tilecopy_tensor_destroy(td);
		return -1;
	}
	tilecopy_tensor_destroy(ts);
	tilecopy_tensor_destroy(td);
	r.plan = plan;
	r.src_bytes = plan_bytes(tilecopy_plan_src_bytes, plan);
	r.dst_bytes = plan_bytes(tilecopy_plan_dst_bytes, plan);
	res->bytes = r.src_bytes;
	res->moved = plan_bytes(tilecopy_plan_moved_bytes, plan);
	plan_descs(plan, &res->descs);
	res->cpu = cpu_name(o->cpu);
	if (!res->cpu) {
		fprintf(stderr, "bench: %s\n", tilecopy_last_error());
		goto out;
	}
	if (posix_memalign((void **)&r.src, 64, r.src_bytes) ||
	    posix_memalign((void **)&r.dst, 64, r.dst_bytes) ||
	    !(check = malloc(r.dst_bytes)))
		goto out;
	bench_fill_src(r.src, r.src_bytes);
	memset(r.dst, 0, r.dst_bytes);		/* fault the pages in */

	/* Reference result: the scalar executor. */
	if (tilecopy_plan_execute_cpu(plan, r.src, r.src_bytes, r.dst, r.dst_bytes,
				      "scalar"))
		goto out;
	memcpy(check, r.dst, r.dst_bytes);
	memset(r.dst, 0, r.dst_bytes);

	{
		struct bench_run runs[8];
		struct contender con[12];
		int n = 0, ncpu0, dn = -1;

		con[n++] = (struct contender){ .name = "tilecopy", .fn = run_tilecopy, .ctx = &r, .verify = 1 };
		ncpu0 = n;
		for (size_t i = 0; o->all_cpus && i < sizeof(cpus) / sizeof(cpus[0]); i++) {
			if (!cpu_name(cpus[i]))
				continue;
			runs[res->ncpus] = r;
			runs[res->ncpus].cpu = cpus[i];
			res->cpu_names[res->ncpus] = cpus[i];
			con[n++] = (struct contender){
				.name = cpus[i], .fn = run_tilecopy,
				.ctx = &runs[res->ncpus++], .verify = 1 };
		}
		con[n++] = (struct contender){ .name = "memcpy", .fn = run_memcpy, .ctx = &r };
		if (!onednn_setup(&r, c, eng, &res->dnnl_how)) {
			dn = n;
			con[n++] = (struct contender){ .name = "oneDNN", .fn = run_onednn, .ctx = &r, .verify = 1 };
		}
		con[n++] = (struct contender){ .name = "naive", .fn = run_naive, .ctx = &r, .verify = 1 };

		for (int i = 0; i < n; i++) {
			if (!contender_prepare(&con[i], r.dst, r.dst_bytes, check))
				continue;
			if (i == dn) {
				fprintf(stderr, "bench: %s: oneDNN's result differs; not reported\n",
					c->name);
				res->dnnl_how = NULL;
				continue;
			}
			fprintf(stderr, "bench: %s: %s gave a wrong result\n", c->name,
				con[i].name);
			onednn_teardown(&r);
			goto out;
		}
		contenders_time(con, n, o->reps);
		onednn_teardown(&r);
		for (int i = 0; i < n; i++) {
			double gbps = con[i].best > 0 ? res->moved / con[i].best * 1e-9 : -1;

			if (i == 0) {
				res->tc = gbps;
				res->tc_call_us = con[i].best * 1e6;
			} else if (i < ncpu0 + res->ncpus) {
				res->per_cpu[i - ncpu0] = gbps;
			} else if (con[i].fn == run_memcpy) {
				size_t m = r.src_bytes < r.dst_bytes ? r.src_bytes : r.dst_bytes;

				res->mc = con[i].best > 0 ? 2.0 * m / con[i].best * 1e-9 : -1;
			} else if (i == dn) {
				res->dn = gbps;
			} else {
				res->nv = gbps;
			}
		}
		if (res->tc < 0) {
			fprintf(stderr, "bench: %s: tilecopy failed\n", c->name);
			goto out;
		}
	}
	ret = 0;
out:
	free(r.src);
	free(r.dst);
	free(check);
	tilecopy_plan_destroy(plan);
	return ret;
}

/* ---- output -------------------------------------------------------------- */

static void print_num(double v)
{
	if (v < 0)
		printf("null");
	else
		printf("%.2f", v);
}

static void print_json(const struct bench_case *c, const struct bench_result *r,
		       const struct bench_opts *o)
{
	printf("{\"case\": \"%s\", \"from\": \"%s\", \"to\": \"%s\", \"dtype\": \"%s\", "
	       "\"bytes\": %llu, \"moved_bytes\": %llu, \"threads\": %d, \"cpu\": \"%s\", "
	       "\"tilecopy_gbps\": ",
	       c->name, c->from, c->to, dtype_name(c->dt),
	       (unsigned long long)r->bytes, (unsigned long long)r->moved,
	       o->threads, r->cpu);
	print_num(r->tc);
	printf(", \"memcpy_gbps\": ");
	print_num(r->mc);
	printf(", \"onednn_gbps\": ");
	print_num(r->dn);
	printf(", \"onednn_how\": ");
	if (r->dnnl_how)
		printf("\"%s\"", r->dnnl_how);
	else
		printf("null");
	printf(", \"naive_gbps\": ");
	print_num(r->nv);
	printf(", \"descriptors\": %zu, \"tilecopy_us_per_call\": %.2f",
	       r->descs, r->tc_call_us);
	for (int i = 0; i < r->ncpus; i++) {
		printf(", \"tilecopy_%s_gbps\": ", r->cpu_names[i]);
		print_num(r->per_cpu[i]);
	}
	printf("}\n");
}

static void print_ratio(double a, double b)
{
	if (a < 0 || b <= 0)
		printf("  %6s", "-");
	else
		printf("  %5.2fx", a / b);
}

static void print_row(const struct bench_case *c, const struct bench_result *r)
{
	printf("%-18s %8.2f %5zu %9.2f %8.2f", c->name, r->bytes / 1048576.0,
	       r->descs, r->tc, r->mc);
	print_ratio(r->tc, r->mc);
	if (r->dn < 0)
		printf(" %8s", "-");
	else
		printf(" %8.2f", r->dn);
	print_ratio(r->tc, r->dn);
	printf(" %8.2f", r->nv);
	for (int i = 0; i < r->ncpus; i++)
		printf(" %s=%.2f", r->cpu_names[i], r->per_cpu[i]);
	printf("\n");
}

/* "AMD EPYC ..." from /proc/cpuinfo, for the table's header. */
static void cpu_model(char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, size, "unknown CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !p)
			continue;
		p += 1 + (p[1] == ' ');
		p[strcspn(p, "\n")] = 0;
		snprintf(buf, size, "%s", p);
		break;
	}
	fclose(f);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: tilecopy bench [--json] [--threads N] [--reps N] [--case NAME]\n"
		"                      [--cpu NAME] [--all-cpus] [--list]\n"
		"                      [--from FMT --to FMT --shape S [--dtype T]]  (a custom case)\n");
	return 2;
}

int tc_bench_run(int argc, char **argv)
{
	struct bench_opts o = { .threads = 1, .reps = 10 };
	struct bench_case custom = {
		.name = "custom", .dnnl_from = dnnl_format_tag_undef,
		.dnnl_to = dnnl_format_tag_undef,
	};
	dnnl_engine_t eng = NULL;
	dnnl_stream_t stream = NULL;
	char nthr[16];
	int ran = 0, failed = 0;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			o.json = 1;
		} else if (!strcmp(a, "--all-cpus")) {
			o.all_cpus = 1;
		} else if (!strcmp(a, "--list")) {
			for (size_t k = 0; k < NCASES; k++)
				printf("%s\n", bench_cases[k].name);
			return 0;
		} else if (i + 1 < argc && !strcmp(a, "--threads")) {
			o.threads = atoi(argv[++i]);
		} else if (i + 1 < argc && !strcmp(a, "--reps")) {
			o.reps = atoi(argv[++i]);
		} else if (i + 1 < argc && !strcmp(a, "--case")) {
			o.only = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--cpu")) {
			o.cpu = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--from")) {
			o.from = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--to")) {
			o.to = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--shape")) {
			o.shape = argv[++i];
		} else if (i + 1 < argc && !strcmp(a, "--dtype")) {
			o.dtype = argv[++i];
		} else {
			return usage();
		}
	}
	if (o.threads < 1 || o.threads > 64 || o.reps < 1)
		return usage();
	if (!cpu_name(o.cpu)) {
		fprintf(stderr, "bench: %s\n", tilecopy_last_error());
		return 2;
	}
	snprintf(nthr, sizeof(nthr), "%d", o.threads);
	setenv("TILECOPY_THREADS", nthr, 1);
	omp_set_num_threads(o.threads);
	if (dnnl_engine_create(&eng, dnnl_cpu, 0) ||
	    dnnl_stream_create(&stream, eng, dnnl_stream_default_flags)) {
		fprintf(stderr, "bench: cannot create a oneDNN engine\n");
		return 1;
	}
	if (!o.json) {
		char model[128];

		cpu_model(model, sizeof(model));
		printf("# %s, %ld online CPUs\n", model, sysconf(_SC_NPROCESSORS_ONLN));
	}
	if (!o.json)
		printf("%-18s %8s %5s %9s %8s %7s %8s %7s %8s   (GB/s = read + write; %d thread%s, best of %d; executor %s)\n",
		       "case", "MB", "descs", "tilecopy", "memcpy", "x mcpy", "oneDNN",
		       "x dnnl", "naive", o.threads, o.threads > 1 ? "s" : "", o.reps,
		       cpu_name(o.cpu));
	if (o.from || o.to || o.shape || o.dtype) {
		if (!o.from || !o.to || !o.shape ||
		    tilecopy_shape_parse(custom.shape, &custom.rank, 4, o.shape) ||
		    tilecopy_dtype_parse(&custom.dt, o.dtype ? o.dtype : "f32")) {
			fprintf(stderr, "bench: a custom case needs --from, --to, --shape (up to 4 dims) and a valid --dtype\n");
			return 2;
		}
		custom.from = o.from;
		custom.to = o.to;
		o.only = custom.name;
	}
	for (size_t k = 0; k <= NCASES; k++) {
		const struct bench_case *c = k < NCASES ? &bench_cases[k] : &custom;
		struct bench_result r;

		if (k == NCASES && c->from == NULL)
			continue;
		if (o.only && strcmp(o.only, c->name))
			continue;
		ran++;
		if (bench_one(c, &o, eng, stream, &r)) {
			failed++;
			continue;
		}
		if (o.json)
			print_json(c, &r, &o);
		else
			print_row(c, &r);
		fflush(stdout);
	}
	dnnl_stream_destroy(stream);
	dnnl_engine_destroy(eng);
	if (!ran) {
		fprintf(stderr, "bench: no case named '%s' (--list)\n", o.only);
		return 2;
	}
	return failed ? 1 : 0;
}
