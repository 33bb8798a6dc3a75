// SPDX-License-Identifier: MIT
/*
 * cmd_convert.c - `tilecopy convert ... IN OUT`: raw little-endian files,
 * "-" for standard input / output.
 *
 * IN must hold exactly the source's physical size (--allow-larger-input
 * takes its first bytes); a stream is read no further than that size and
 * one byte, so /dev/zero or an endless pipe is refused, not swallowed. OUT
 * gets exactly the destination's physical size, padding zeroed; how OUT is
 * written: cli_out.c. Every check runs before OUT is touched.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* Output larger than this and than GROWTH x the input needs --allow-growth. */
#define GROWTH_MIN_BYTES	(64ull << 20)
#define GROWTH_FACTOR		64

struct in_buf {
	void *p;
	size_t size;
	int mapped;
	int more;	/* a stream went on past the limit read */
};

/* At most @limit bytes of a stream (stdin, a pipe, a device). */
static int read_all(int fd, const char *path, size_t limit, struct in_buf *m)
{
	size_t cap = limit < (1 << 16) ? limit : 1 << 16;
	char *p = malloc(cap ? cap : 1);

	m->size = 0;
	for (;;) {
		ssize_t r;

		if (!p)
			goto nomem;
		if (m->size == limit) {
			m->more = 1;
			break;
		}
		if (m->size == cap) {
			size_t ncap = cap > limit / 2 ? limit : cap * 2;
			char *np = realloc(p, ncap);

			if (!np)
				goto nomem;
			p = np;
			cap = ncap;
		}
		r = read(fd, p + m->size, cap - m->size);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "tilecopy: IN: reading '%s': %s\n", path, strerror(errno));
			free(p);
			return -1;
		}
		if (!r)
			break;
		m->size += (size_t)r;
	}
	m->p = p;
	return 0;
nomem:
	fprintf(stderr, "tilecopy: IN: '%s': out of memory after %zu bytes\n", path, m->size);
	free(p);
	return -1;
}

/*
 * IN, of which @limit bytes at most are read: the source's size and one
 * byte to tell a longer stream, or with --allow-larger-input the size
 * itself. A regular file is mapped, whatever its length.
 */
static int load_input(const char *path, size_t limit, struct in_buf *m)
{
	struct stat sb;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	int ret = -1;

	if (fd < 0) {
		fprintf(stderr, "tilecopy: IN: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tilecopy: IN: '%s' is a directory or cannot be read\n", path);
	} else if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
		m->size = (size_t)sb.st_size;
		m->p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		m->mapped = m->p != MAP_FAILED;
		if (!m->mapped)
			fprintf(stderr, "tilecopy: IN: cannot map '%s': %s\n", path, strerror(errno));
		ret = m->mapped ? 0 : -1;
	} else {
		ret = read_all(fd, path, limit, m);	/* stdin, pipes, empty files */
	}
	if (fd != STDIN_FILENO)
		close(fd);
	return ret;
}

static void free_input(struct in_buf *m)
{
	if (m->mapped)
		munmap(m->p, m->size);
	else
		free(m->p);
}

static int check_sizes(const struct cli_opts *o, const struct in_buf *in, uint64_t need,
		       uint64_t out)
{
	if (in->size < need || (in->size > need && !o->allow_larger)) {
		fprintf(stderr,
			"tilecopy: IN: '%s' has %s%zu bytes, the source (--shape %s, %s %s) needs exactly %" PRIu64 "%s; nothing written\n",
			o->args[0], in->more ? "more than " : "", in->more ? in->size - 1 : in->size,
			o->shape, o->from_dtype ? o->from_dtype :
			o->dtype ? o->dtype : "f32", o->from, need,
			in->size > need ? " (--allow-larger-input uses its first bytes)" : "");
		return -1;
	}
	if (out > GROWTH_MIN_BYTES && out / GROWTH_FACTOR > (need ? need : 1) &&
	    !o->allow_growth) {
		fprintf(stderr,
			"tilecopy: OUT: %" PRIu64 " bytes from %" PRIu64 " of input (%" PRIu64 "x, padding of %s); --allow-growth if that is meant; nothing written\n",
			out, need, out / (need ? need : 1), o->to);
		return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A "converting ... N s" line on a terminal's stderr after 2 s
 * ($TILECOPY_PROGRESS_MS), refreshed every second, closed by "converted".
 */
struct progress {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done, running, shown;
	long after_ms;
	uint64_t bytes;
	double t0;
};

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += p->after_ms / 1000;
	ts.tv_nsec += (p->after_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	if (!p->after_ms) {		/* TILECOPY_PROGRESS_MS=0: at once */
		fprintf(stderr, "tilecopy: converting %.1f MB...", p->bytes / 1e6);
		p->shown = 1;
	}
	while (!p->done) {
		if (pthread_cond_timedwait(&p->cond, &p->lock, &ts) == ETIMEDOUT) {
			fprintf(stderr, "\rtilecopy: converting %.1f MB... %.0f s", p->bytes / 1e6,
				now_s() - p->t0);
			p->shown = 1;
			ts.tv_sec += 1;
		}
	}
	if (p->shown)
		fprintf(stderr, "\rtilecopy: converted %.1f MB in %.1f s\n", p->bytes / 1e6,
			now_s() - p->t0);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/*
 * $TILECOPY_PROGRESS_MS: after how long the line appears (default 2 s); a
 * value that is no number of milliseconds is said, not taken for 0.
 */
static long progress_after_ms(void)
{
	const char *e = getenv("TILECOPY_PROGRESS_MS");
	char *end;
	long v;

	if (!e || !*e)
		return 2000;
	errno = 0;
	v = strtol(e, &end, 10);
	if (*end || v < 0 || errno || !(*e >= '0' && *e <= '9')) {
		fprintf(stderr, "tilecopy: TILECOPY_PROGRESS_MS='%.32s' is not a number of milliseconds: 2000 it is\n",
			e);
		return 2000;
	}
	return v;
}

static void progress_start(struct progress *p, uint64_t bytes)
{
	memset(p, 0, sizeof(*p));
	p->bytes = bytes;
	p->t0 = now_s();
	p->after_ms = progress_after_ms();
	if (!isatty(STDERR_FILENO))
		return;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->running = !pthread_create(&p->thread, NULL, progress_main, p);
}

static void progress_stop(struct progress *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	p->done = 1;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
}

#define MAX_DEVS 16

struct devs {
	const struct cli_device *dv;
	tilecopy_device_t *d[MAX_DEVS];
	int n;
};

/*
 * --device cpu|auto|PATH|INDEX (default $TILECOPY_DEVICE, else cpu). auto
 * uses every engine found (the work is split across them) and falls back to
 * the CPU when there is none, or no device library; an explicit path or
 * index must work. *note says why auto fell back, for -v.
 */
static int pick_devices(const char *spec, struct devs *v, const char **note)
{
	tilecopy_status_t st;
	const char *why;
	int count = 0;

	v->n = 0;
	*note = NULL;
	if (!spec)
		spec = getenv("TILECOPY_DEVICE");
	if (!spec || !*spec || !strcmp(spec, "cpu"))	/* set but empty: unset */
		return 0;
	v->dv = cli_device(&why);
	if (!v->dv && !strcmp(spec, "auto")) {
		*note = why;
		return 0;
	}
	if (!v->dv) {
		fprintf(stderr, "tilecopy: --device %s: %s\n", spec, why);
		return -1;
	}
	if (strcmp(spec, "auto")) {
		st = v->dv->device_open(&v->d[0], spec);
		if (st)
			return cli_error("--device", st), -1;
		v->n = 1;
		return 0;
	}
	st = v->dv->device_count(&count);
	if (st)
		return cli_error("--device", st), -1;
	if (!count)
		*note = "no engine found";
	for (int i = 0; i < count && i < MAX_DEVS; i++) {
		char idx[16];

		snprintf(idx, sizeof(idx), "%d", i);
		st = v->dv->device_open(&v->d[v->n], idx);
		if (st)
			return cli_error("--device", st), -1;
		v->n++;
	}
	return 0;
}

static void close_devices(struct devs *v)
{
	for (int i = 0; i < v->n; i++)
		v->dv->device_close(v->d[i]);
	v->n = 0;
}

/* Run on the engine(s) or the CPU; *who names what ran. */
static tilecopy_status_t run(const struct cli_opts *o, const tilecopy_plan_t *plan,
			     const struct in_buf *in, void *out, uint64_t out_size,
			     char *who, size_t whosz)
{
	struct devs devs = { .n = 0 };
	uint64_t moved = 0, thr = 0;
	const char *note;
	tilecopy_status_t st;
	int used = 0;

	if (pick_devices(o->device, &devs, &note))
		return TILECOPY_ERR_NO_DEVICE;
	if (note && o->verbose)
		fprintf(stderr, "tilecopy: --device auto: %s; converting on the CPU\n", note);
	tilecopy_plan_moved_bytes(plan, &moved);
	if (devs.n)
		st = devs.dv->device_threshold(&thr);
	else
		st = TILECOPY_SUCCESS;
	if (st)
		;
	else if (devs.n > 1 && moved >= thr)
		st = devs.dv->convert_multi(devs.d, devs.n, plan, in->p, in->size, out,
					    out_size, &used);
	else if (devs.n)
		st = devs.dv->convert(devs.d[0], plan, in->p, in->size, out, out_size, &used);
	else
		st = tilecopy_plan_execute_cpu(plan, in->p, in->size, out, out_size, o->cpu);
	if (used) {
		struct tilecopy_device_info info = { .struct_size = sizeof(info) };

		devs.dv->device_query(devs.d[0], &info);
		snprintf(who, whosz, "engine %s%s", info.path, used > 1 ? " and others" : "");
	}
	close_devices(&devs);
	if (st)
		cli_error("convert", st);
	return st;
}

static void report(const struct cli_opts *o, const tilecopy_plan_t *plan, char *who,
		   size_t whosz, double secs)
{
	uint64_t moved = 0;
	size_t n = 0;
	const struct drm_tilecopy_desc *d;
	const char *cpu = NULL;

	tilecopy_plan_moved_bytes(plan, &moved);
	tilecopy_plan_descs(plan, &d, &n);
	if (!who[0] && !tilecopy_cpu_name(o->cpu, &cpu))
		snprintf(who, whosz, "CPU executor %s", cpu);
	fprintf(stderr, "tilecopy: %s, %zu descriptors, %" PRIu64 " bytes moved in %.3f ms, %.2f GB/s\n",
		who, n, moved, secs * 1e3, secs > 0 ? moved / secs / 1e9 : 0.0);
}

int cmd_convert(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_plan_t *plan = NULL;
	struct in_buf in = { 0 };
	struct progress pr;
	uint64_t need = 0, out_size = 0;
	char who[128] = "";
	void *out = NULL;
	double t0;
	int ret = 1;

	if (cli_parse(argc, argv, &o))
		return cli_usage("convert", stderr, 2);
	if (o.help)
		return cli_usage("convert", stdout, 0);
	if (o.version)
		return cli_version();
	if (!o.from || !o.to || o.nargs != 2) {
		fprintf(stderr, "tilecopy convert: %s\n",
			!o.from ? "--from FORMAT is missing" : !o.to ? "--to FORMAT is missing" :
			o.nargs < 2 ? "IN and OUT are needed (- for stdin, stdout)" :
			"more than IN and OUT given");
		return cli_usage("convert", stderr, 2);
	}
	if (cli_plan(&o, &plan))
		return 1;
	tilecopy_plan_src_bytes(plan, &need);
	tilecopy_plan_dst_bytes(plan, &out_size);
	if (need >= SIZE_MAX) {
		fprintf(stderr, "tilecopy: IN: the source needs %" PRIu64 " bytes, more than this machine addresses\n",
			need);
		goto err_plan;
	}
	if (load_input(o.args[0], (size_t)need + !o.allow_larger, &in))
		goto err_plan;
	if (check_sizes(&o, &in, need, out_size))
		goto err_input;
	out = out_size <= SIZE_MAX ? calloc(1, out_size ? (size_t)out_size : 1) : NULL;
	if (!out) {
		fprintf(stderr, "tilecopy: OUT: cannot allocate %" PRIu64 " bytes\n", out_size);
		goto err_input;
	}
	t0 = now_s();
	progress_start(&pr, out_size);
	if (run(&o, plan, &in, out, out_size, who, sizeof(who)) == TILECOPY_SUCCESS)
		ret = 0;
	progress_stop(&pr);
	if (!ret && o.verbose)
		report(&o, plan, who, sizeof(who), now_s() - t0);
	if (!ret && cli_write_output(o.args[1], out, (size_t)out_size))
		ret = 1;
	free(out);
err_input:
	free_input(&in);
err_plan:
	tilecopy_plan_destroy(plan);
	return ret;
}
