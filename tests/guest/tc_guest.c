// SPDX-License-Identifier: MIT
/*
 * tc_guest.c - helpers of the in-guest driver tests.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "tc_guest.h"

static unsigned long read_hex(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strtoul(buf, NULL, 0);
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	/* accel10 after accel9 */
	size_t la = strlen((*a)->d_name), lb = strlen((*b)->d_name);

	return la != lb ? (la < lb ? -1 : 1) : strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * The driver's nodes: /dev/accel/accelN, or /dev/dri/renderDN when the
 * kernel has no accel core (CONFIG_DRM_ACCEL=n, e.g. Debian's arm64 6.12).
 * A kernel has one kind or the other; both are scanned.
 */
static const struct {
	const char *class_dir, *prefix, *dev_dir;
} tc_node_kinds[] = {
	{ "/sys/class/accel", "accel", "/dev/accel" },
	{ "/sys/class/drm", "renderD", "/dev/dri" },
};

static const char *tc_filter_prefix;

static int node_filter(const struct dirent *d)
{
	return !strncmp(d->d_name, tc_filter_prefix, strlen(tc_filter_prefix));
}

/* The n-th tilecopy node of one kind; *found counts the nodes seen. */
static const char *tc_find_kind(unsigned int kind, int n, int *found, char *buf, size_t len)
{
	const char *cls = tc_node_kinds[kind].class_dir;
	struct dirent **names;
	const char *ret = NULL;
	int count;

	tc_filter_prefix = tc_node_kinds[kind].prefix;
	count = scandir(cls, &names, node_filter, cmp_names);
	for (int i = 0; i < count; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s/device/vendor", cls, names[i]->d_name);
		if (read_hex(path) != TC_PCI_VENDOR_ID)
			continue;
		snprintf(path, sizeof(path), "%s/%s/device/device", cls, names[i]->d_name);
		if (read_hex(path) != TC_PCI_DEVICE_ID)
			continue;
		if (++*found == n && !ret) {
			snprintf(buf, len, "%s/%s", tc_node_kinds[kind].dev_dir, names[i]->d_name);
			ret = buf;
		}
	}
	for (int i = 0; i < count; i++)
		free(names[i]);
	if (count > 0)
		free(names);
	return ret;
}

const char *tc_find_device(int n, char *buf, size_t len)
{
	const char *ret = NULL;
	int found = -1;

	for (unsigned int k = 0; k < TC_ARRAY_SIZE(tc_node_kinds) && !ret; k++)
		ret = tc_find_kind(k, n, &found, buf, len);
	return ret;
}

const char *tc_device_sysfs(int n, const char *attr, char *buf, size_t len)
{
	char node[64];
	const char *dev = tc_find_device(n, node, sizeof(node));
	struct stat st;

	if (!dev || stat(dev, &st))
		return NULL;
	/* the node's class device, whatever its class; device/ is the PCI one */
	snprintf(buf, len, "/sys/dev/char/%u:%u/device/%s", major(st.st_rdev),
		 minor(st.st_rdev), attr);
	return buf;
}

const char *tc_device_debugfs(int n, const char *file, char *buf, size_t len)
{
	char node[64], link[512], target[512];
	const char *dev = tc_find_device(n, node, sizeof(node));
	const char *pci;
	ssize_t r;

	if (!dev || !tc_device_sysfs(n, "", link, sizeof(link)))
		return NULL;
	link[strlen(link) - 1] = 0;	/* .../device/ -> .../device */
	r = readlink(link, target, sizeof(target) - 1);
	if (r <= 0)
		return NULL;
	target[r] = 0;
	pci = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	/* accel keeps a device's files in accel/<PCI name>/, DRM in dri/<PCI name>/ */
	snprintf(buf, len, "/sys/kernel/debug/%s/%s/%s",
		 strncmp(dev, "/dev/accel/", 11) ? "dri" : "accel", pci, file);
	return buf;
}

int tc_count_devices(void)
{
	char buf[64];
	int n = 0;

	while (tc_find_device(n, buf, sizeof(buf)))
		n++;
	return n;
}

int tc_open_nth(int n)
{
	char buf[64];
	const char *path = n == 0 && getenv("TC_DEVICE") ? getenv("TC_DEVICE") :
			   tc_find_device(n, buf, sizeof(buf));
	drmVersionPtr v;
	int fd;

	ck_assert_msg(path, "no tilecopy device #%d", n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	v = drmGetVersion(fd);
	ck_assert_msg(v, "drmGetVersion on %s failed", path);
	ck_assert_str_eq(v->name, "tilecopy");
	drmFreeVersion(v);
	return fd;
}

int tc_open(void)
{
	return tc_open_nth(0);
}

void tc_require_device(const char *prog)
{
	char buf[64];

	if (getenv("TC_DEVICE") || tc_find_device(0, buf, sizeof(buf)))
		return;
	if (getenv("TC_REQUIRE_DEVICE") && atoi(getenv("TC_REQUIRE_DEVICE"))) {
		fprintf(stderr, "%s: FAIL: no tilecopy device (PCI %04x:%04x) under /sys/class/accel or drm\n",
			prog, TC_PCI_VENDOR_ID, TC_PCI_DEVICE_ID);
		exit(1);
	}
	fprintf(stderr, "%s: SKIP: no tilecopy device (PCI %04x:%04x) under /sys/class/accel or drm; run it in the guest (make check-guest)\n",
		prog, TC_PCI_VENDOR_ID, TC_PCI_DEVICE_ID);
	exit(77);
}

int tc_ioctl(int fd, unsigned long req, void *arg)
{
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

uint64_t tc_get_param(int fd, uint32_t param)
{
	struct drm_tilecopy_get_param p = { .param = param };

	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_GET_PARAM, &p));
	return p.value;
}

void tc_bo_new(int fd, uint64_t size, uint32_t flags, struct tc_bo *bo)
{
	struct drm_tilecopy_bo_create c = { .size = size, .flags = flags };
	void *map;

	tc_assert_ok(tc_ioctl(fd, DRM_IOCTL_TILECOPY_BO_CREATE, &c));
	ck_assert_uint_ne(c.handle, 0);
	bo->handle = c.handle;
	bo->size = size;
	bo->va = c.va;
	bo->mmap_offset = c.mmap_offset;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, c.mmap_offset);
	ck_assert_msg(map != MAP_FAILED, "mmap BO: %s", strerror(errno));
	bo->map = map;
}

int tc_gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close c = { .handle = handle };

	return tc_ioctl(fd, DRM_IOCTL_GEM_CLOSE, &c);
}

void tc_bo_free(int fd, struct tc_bo *bo)
{
	if (bo->map)
		munmap(bo->map, bo->size);
	tc_assert_ok(tc_gem_close(fd, bo->handle));
	memset(bo, 0, sizeof(*bo));
}

void tc_desc_copy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src,
		  unsigned int elem_size, unsigned int ndims, const uint32_t *extent,
		  const uint64_t *dst_stride, const uint64_t *src_stride)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->elem_size = elem_size;
	d->ndims = ndims;
	d->src = src;
	d->dst = dst;
	for (unsigned int k = 0; k < ndims; k++) {
		d->extent[k] = extent[k];
		d->dst_stride[k] = dst_stride[k];
		d->src_stride[k] = src_stride[k];
	}
}

void tc_desc_fill(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t value,
		  unsigned int elem_size, unsigned int ndims, const uint32_t *extent,
		  const uint64_t *dst_stride)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_FILL;
	d->elem_size = elem_size;
	d->ndims = ndims;
	d->dst = dst;
	d->value = value;
	for (unsigned int k = 0; k < ndims; k++) {
		d->extent[k] = extent[k];
		d->dst_stride[k] = dst_stride[k];
	}
}

void tc_desc_write64(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t value)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_WRITE64;
	d->elem_size = 8;
	d->ndims = 1;
	d->dst = dst;
	d->value = value;
	d->extent[0] = 1;
	d->dst_stride[0] = 1;
}

void tc_desc_memcpy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src, uint32_t n)
{
	const uint32_t ext[1] = { n };
	const uint64_t one[1] = { 1 };

	tc_desc_copy(d, dst, src, 1, 1, ext, one, one);
}

int tc_submit_args(int fd, struct drm_tilecopy_submit *args)
{
	return tc_ioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, args);
}

int tc_submit(int fd, const struct drm_tilecopy_desc *descs, uint32_t ndesc,
	      const uint32_t *bos, uint32_t nbo, uint32_t queue, uint64_t *job_id)
{
	struct drm_tilecopy_submit s = {
		.descs = (uintptr_t)descs,
		.bo_handles = (uintptr_t)bos,
		.desc_count = ndesc,
		.desc_size = sizeof(*descs),
		.bo_count = nbo,
		.queue = queue,
	};
	int ret = tc_submit_args(fd, &s);

	if (!ret) {
		ck_assert_uint_ne(s.job_id, 0);
		if (job_id)
			*job_id = s.job_id;
	}
	return ret;
}

int64_t tc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int tc_wait(int fd, uint64_t job_id, int64_t rel_ns, struct drm_tilecopy_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->job_id = job_id;
	w->timeout_ns = tc_now_ns() + rel_ns;
	return tc_ioctl(fd, DRM_IOCTL_TILECOPY_WAIT, w);
}

uint32_t tc_wait_status(int fd, uint64_t job_id)
{
	struct drm_tilecopy_wait w;

	tc_assert_ok(tc_wait(fd, job_id, 30ll * 1000000000, &w));
	ck_assert_uint_ne(w.status, DRM_TILECOPY_STATUS_PENDING);
	return w.status;
}

long tc_device_prop(const char *name)
{
	const char *props = getenv("TC_DEVICE_PROPS"), *p;
	size_t n = strlen(name);

	for (p = props; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == '=')
			return strtol(p + n + 1, NULL, 0);
	return 0;
}

long tc_module_param(const char *name, long def)
{
	char path[256], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/tilecopy/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return def;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? strtol(buf, NULL, 0) : def;
}

void tc_pci_name(int n, char *out, size_t len)
{
	char link[512], target[512];
	const char *pci;
	ssize_t r;

	/* the node's class device (accel or drm) links to its PCI device */
	ck_assert_msg(tc_device_sysfs(n, "", link, sizeof(link)), "no tilecopy device #%d", n);
	link[strlen(link) - 1] = 0;	/* .../device/ -> .../device */
	r = readlink(link, target, sizeof(target) - 1);
	ck_assert_msg(r > 0, "readlink %s: %s", link, strerror(errno));
	target[r] = 0;
	pci = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
	snprintf(out, len, "%s", pci);
}

long long tc_sysfs_stat(int n, const char *name)
{
	char path[256], buf[64] = "";
	FILE *f;

	ck_assert_msg(tc_device_sysfs(n, name, path, sizeof(path)), "no tilecopy device #%d", n);
	f = fopen(path, "r");
	ck_assert_msg(f, "no %s", path);
	ck_assert(fgets(buf, sizeof(buf), f));
	fclose(f);
	return strtoll(buf, NULL, 0);
}

void tc_debugfs_path(int n, const char *file, char *out, size_t len)
{
	/* accel keeps a device's files in accel/<PCI name>/, DRM in dri/<PCI name>/ */
	ck_assert_msg(tc_device_debugfs(n, file, out, len), "no debugfs dir of device %d", n);
}

int tc_force_reset(int n)
{
	char path[512];
	int fd, ret = 0;

	tc_debugfs_path(n, "reset", path, sizeof(path));
	fd = open(path, O_WRONLY);
	ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
	if (write(fd, "1", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

void tc_pattern(void *buf, size_t n, uint32_t seed)
{
	uint8_t *p = buf;
	uint32_t x = seed * 2654435761u + 1;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

int tc_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	if (!getenv("CK_FORK"))
		srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
