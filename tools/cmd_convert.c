// SPDX-License-Identifier: MIT
/*
 * cmd_convert.c - `tilecopy convert ... IN OUT`: raw little-endian files.
 *
 * IN may be larger than the source's physical size, never smaller. OUT gets
 * exactly the destination's physical size, padding zeroed. Every check runs
 * before OUT is touched, and OUT is written to a temporary file renamed into
 * place, so a failure never leaves a partial or truncated OUT.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "tilecopy/device.h"

struct in_map {
	void *p;
	size_t size;
};

static int map_input(const char *path, uint64_t need, struct in_map *m)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, "tilecopy: IN: cannot open '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		fprintf(stderr, "tilecopy: IN: '%s' is not a regular file\n", path);
		goto err_close;
	}
	if ((uint64_t)sb.st_size < need) {
		fprintf(stderr,
			"tilecopy: IN: buffer too small: '%s' has %" PRIu64 " bytes, the source layout needs %" PRIu64 "; nothing written\n",
			path, (uint64_t)sb.st_size, need);
		goto err_close;
	}
	m->size = (size_t)sb.st_size;
	m->p = m->size ? mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (m->p == MAP_FAILED) {
		fprintf(stderr, "tilecopy: IN: cannot map '%s': %s\n", path, strerror(errno));
		goto err_close;
	}
	close(fd);
	return 0;
err_close:
	close(fd);
	return -1;
}

static int write_output(const char *path, const void *buf, size_t size)
{
	char *tmp;
	const char *p = buf;
	size_t left = size;
	int fd;

	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return -1;
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "tilecopy: OUT: cannot create a file next to '%s': %s\n",
			path, strerror(errno));
		free(tmp);
		return -1;
	}
	while (left) {
		ssize_t w = write(fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto err_unlink;
		p += w;
		left -= (size_t)w;
	}
	if (fchmod(fd, 0644) || fsync(fd) || close(fd)) {
		fd = -1;
		goto err_unlink;
	}
	if (rename(tmp, path)) {
		fd = -1;
		goto err_unlink;
	}
	free(tmp);
	return 0;
err_unlink:
	fprintf(stderr, "tilecopy: OUT: writing '%s' failed: %s; nothing written\n",
		path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

#define MAX_DEVS 16

struct devs {
	tilecopy_device_t *d[MAX_DEVS];
	int n;
};

/*
 * --device cpu|auto|PATH|INDEX (default $TILECOPY_DEVICE, else cpu). auto
 * uses every engine found (the work is split across them) and falls back to
 * the CPU when there is none; an explicit path or index must work.
 */
static int pick_devices(const char *spec, struct devs *v)
{
	tilecopy_status_t st;
	int count = 0;

	v->n = 0;
	if (!spec)
		spec = getenv("TILECOPY_DEVICE");
	if (!spec || !strcmp(spec, "cpu"))
		return 0;
	if (strcmp(spec, "auto")) {
		st = tilecopy_device_open(&v->d[0], spec);
		if (st)
			return cli_error("--device", st), -1;
		v->n = 1;
		return 0;
	}
	st = tilecopy_device_count(&count);
	if (st)
		return cli_error("--device", st), -1;
	for (int i = 0; i < count && i < MAX_DEVS; i++) {
		char idx[16];

		snprintf(idx, sizeof(idx), "%d", i);
		st = tilecopy_device_open(&v->d[v->n], idx);
		if (st)
			return cli_error("--device", st), -1;
		v->n++;
	}
	return 0;
}

static void close_devices(struct devs *v)
{
	for (int i = 0; i < v->n; i++)
		tilecopy_device_close(v->d[i]);
	v->n = 0;
}

int cmd_convert(int argc, char **argv)
{
	struct cli_opts o;
	tilecopy_plan_t *plan = NULL;
	struct in_map in = { 0 };
	struct devs devs = { .n = 0 };
	tilecopy_status_t st;
	void *out = NULL;
	int ret = 1;

	if (cli_parse(argc, argv, &o))
		return 2;
	if (!o.from || !o.to || o.nargs != 2) {
		fprintf(stderr,
			"usage: tilecopy convert --shape S --dtype T --from FMT --to FMT [--device cpu|auto|PATH] [--cpu NAME] IN OUT\n");
		return 2;
	}
	if (cli_plan(&o, &plan))
		return 1;
	if (map_input(o.args[0], tilecopy_plan_src_bytes(plan), &in))
		goto err_plan;
	if (pick_devices(o.device, &devs))
		goto err_unmap;
	out = calloc(1, tilecopy_plan_dst_bytes(plan) ? tilecopy_plan_dst_bytes(plan) : 1);
	if (!out) {
		fprintf(stderr, "tilecopy: OUT: cannot allocate %" PRIu64 " bytes\n",
			tilecopy_plan_dst_bytes(plan));
		goto err_unmap;
	}
	if (devs.n > 1 && tilecopy_plan_moved_bytes(plan) >= tilecopy_device_threshold())
		st = tilecopy_convert_multi(devs.d, devs.n, plan, in.p, in.size, out,
					    tilecopy_plan_dst_bytes(plan), NULL);
	else if (devs.n)
		st = tilecopy_convert(devs.d[0], plan, in.p, in.size, out,
				      tilecopy_plan_dst_bytes(plan), NULL);
	else
		st = tilecopy_plan_execute_cpu(plan, in.p, in.size, out,
					       tilecopy_plan_dst_bytes(plan), o.cpu);
	if (st) {
		cli_error("convert", st);
		goto err_free;
	}
	if (write_output(o.args[1], out, tilecopy_plan_dst_bytes(plan)))
		goto err_free;
	ret = 0;
err_free:
	free(out);
err_unmap:
	close_devices(&devs);
	if (in.p && in.size)
		munmap(in.p, in.size);
err_plan:
	tilecopy_plan_destroy(plan);
	return ret;
}
