// SPDX-License-Identifier: MIT
/*
 * device.c - finding and opening tile-copy engines.
 *
 * Discovery walks the "accel" subsystem with libudev (sysfs, so it also works
 * without a running udevd, as in the test guest) and keeps the devices whose
 * PCI parent is bound to the "tilecopy" driver, ordered by node name. On a
 * kernel without the accel core (CONFIG_DRM_ACCEL=n: Debian's arm64 6.12)
 * the driver registers DRM render nodes instead: the "drm" subsystem's
 * renderD* devices are taken the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <libudev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#include "internal.h"
#include "device_internal.h"

#define TC_MAX_DEVICES 16
#define TC_DRIVER_NAME "tilecopy"

struct tc_found {
	char path[64];
	char slot[32];
};

int tc_drm_ioctl(int fd, unsigned long req, void *arg)
{
	/* drmIoctl restarts on EINTR/EAGAIN, as libdrm users expect. */
	return drmIoctl(fd, req, arg) ? -errno : 0;
}

static int tc_cmp_found(const void *a, const void *b)
{
	const struct tc_found *x = a, *y = b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	/* accel2 before accel10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->path, y->path);
}

static int tc_enumerate(struct tc_found *out, int max)
{
	struct udev *u = udev_new();
	struct udev_enumerate *e;
	struct udev_list_entry *it;
	int n = 0;

	if (!u)
		return -ENOMEM;
	e = udev_enumerate_new(u);
	if (!e) {
		udev_unref(u);
		return -ENOMEM;
	}
	udev_enumerate_add_match_subsystem(e, "accel");
	udev_enumerate_add_match_subsystem(e, "drm");
	udev_enumerate_scan_devices(e);
	udev_list_entry_foreach(it, udev_enumerate_get_list_entry(e)) {
		struct udev_device *d, *pci;
		const char *node, *drv, *sub;

		d = udev_device_new_from_syspath(u, udev_list_entry_get_name(it));
		if (!d)
			continue;
		node = udev_device_get_devnode(d);
		sub = udev_device_get_subsystem(d);
		/* of the drm nodes, the render node (not cardN, nor connectors) */
		if (node && (!sub || strcmp(sub, "accel")) &&
		    strncmp(udev_device_get_sysname(d), "renderD", 7))
			node = NULL;
		pci = udev_device_get_parent_with_subsystem_devtype(d, "pci", NULL);
		drv = pci ? udev_device_get_driver(pci) : NULL;
		if (node && drv && !strcmp(drv, TC_DRIVER_NAME) && n < max) {
			snprintf(out[n].path, sizeof(out[n].path), "%s", node);
			snprintf(out[n].slot, sizeof(out[n].slot), "%s",
				 udev_device_get_sysname(pci));
			n++;
		}
		udev_device_unref(d);
	}
	udev_enumerate_unref(e);
	udev_unref(u);
	qsort(out, (size_t)n, sizeof(out[0]), tc_cmp_found);
	return n;
}

TILECOPY_API tilecopy_status_t tilecopy_device_count(int *count)
{
	struct tc_found f[TC_MAX_DEVICES];
	int n;

	if (!count)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "count: NULL");
	n = tc_enumerate(f, TC_MAX_DEVICES);
	if (n < 0)
		return tc_fail(TILECOPY_ERR_NOMEM, "device: libudev: out of memory");
	*count = n;
	return tc_ok();
}

static tilecopy_status_t tc_param(tilecopy_device_t *dev, uint32_t param,
				  uint64_t *value)
{
	struct drm_tilecopy_get_param gp = { .param = param };
	int ret = tc_drm_ioctl(dev->fd, DRM_IOCTL_TILECOPY_GET_PARAM, &gp);

	if (ret)
		return tc_fail(TILECOPY_ERR_DEVICE, "device: %s: GET_PARAM %u: %s",
			       dev->info.path, param, strerror(-ret));
	*value = gp.value;
	return TILECOPY_SUCCESS;
}

/*
 * ABI 1.1: the feature bits and the work bound of a job. A 1.0 driver has
 * neither parameter (GET_PARAM says -EINVAL): no features, and the bound
 * of the engine generation, which it does not enforce but the engine does.
 */
static tilecopy_status_t tc_device_fill_limits(tilecopy_device_t *dev)
{
	struct drm_tilecopy_get_param gp = { .param = DRM_TILECOPY_PARAM_FEATURES };
	int ret = tc_drm_ioctl(dev->fd, DRM_IOCTL_TILECOPY_GET_PARAM, &gp);

	dev->features = 0;
	dev->max_job_elems = DRM_TILECOPY_MAX_JOB_ELEMS;
	if (ret == -EINVAL)
		return TILECOPY_SUCCESS;
	if (ret)
		return tc_fail(TILECOPY_ERR_DEVICE, "device: %s: GET_PARAM FEATURES: %s",
			       dev->info.path, strerror(-ret));
	dev->features = gp.value;
	if (dev->features & DRM_TILECOPY_FEATURE_LIMITS)
		return tc_param(dev, DRM_TILECOPY_PARAM_MAX_JOB_ELEMS, &dev->max_job_elems);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_device_fill_info(tilecopy_device_t *dev)
{
	static const struct {
		uint32_t param;
		size_t off, size;
	} map[] = {
#define P(p, f) { DRM_TILECOPY_PARAM_##p, offsetof(struct tilecopy_device_info, f), \
		  sizeof(((struct tilecopy_device_info *)0)->f) }
		P(ABI_VERSION, abi_version), P(HW_VERSION, hw_version),
		P(FW_VERSION, fw_version), P(NUM_QUEUES, num_queues),
		P(MAX_DIMS, max_dims), P(MAX_DESCS, max_descs),
		P(MAX_BOS, max_bos), P(VA_START, va_start), P(VA_SIZE, va_size),
		P(TILEBUF_SIZE, tilebuf_size),
#undef P
	};

	for (size_t i = 0; i < TC_ARRAY_SIZE(map); i++) {
		uint64_t v = 0;
		tilecopy_status_t st = tc_param(dev, map[i].param, &v);
		char *dst = (char *)&dev->info + map[i].off;

		if (st)
			return st;
		if (map[i].size == 4) {
			uint32_t v32 = (uint32_t)v;

			memcpy(dst, &v32, 4);
		} else {
			memcpy(dst, &v, 8);
		}
	}
	if (dev->info.abi_version >> 16 != DRM_TILECOPY_ABI_VERSION >> 16)
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "device: %s: driver ABI %u.%u, this library speaks %u.x",
			       dev->info.path, dev->info.abi_version >> 16,
			       dev->info.abi_version & 0xffff,
			       DRM_TILECOPY_ABI_VERSION >> 16);
	if (!dev->info.num_queues || !dev->info.max_descs)
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "device: %s: reports no queues", dev->info.path);
	return tc_device_fill_limits(dev);
}

static tilecopy_status_t tc_open_path(tilecopy_device_t **out, const char *path,
				      const char *slot)
{
	tilecopy_device_t *dev;
	drmVersionPtr ver;
	tilecopy_status_t st;
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		if (e == EACCES || e == EPERM)
			return tc_fail(TILECOPY_ERR_DEVICE,
				       "device: %s: permission denied: the node belongs to group render (udev rule driver/99-tilecopy.rules); add the user to that group",
				       path);
		if (e == EIO)
			return tc_fail(TILECOPY_ERR_DEVICE,
				       "device: %s: wedged: an engine reset failed; unbind and bind the driver to recover",
				       path);
		return tc_fail(e == ENOENT || e == ENXIO || e == ENODEV ?
			       TILECOPY_ERR_NO_DEVICE : TILECOPY_ERR_DEVICE,
			       "device: %s: %s", path, strerror(e));
	}
	ver = drmGetVersion(fd);
	if (!ver || strcmp(ver->name, TC_DRIVER_NAME)) {
		st = tc_fail(TILECOPY_ERR_DEVICE,
			     "device: %s: driver '%s' is not tilecopy", path,
			     ver ? ver->name : "?");
		drmFreeVersion(ver);
		close(fd);
		return st;
	}
	drmFreeVersion(ver);
	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return tc_fail(TILECOPY_ERR_NOMEM, "device: out of memory");
	}
	dev->magic = TC_MAGIC_DEVICE;
	dev->fd = fd;
	pthread_mutex_init(&dev->stage_lock, NULL);
	snprintf(dev->info.path, sizeof(dev->info.path), "%s", path);
	snprintf(dev->info.pci_slot, sizeof(dev->info.pci_slot), "%s", slot ? slot : "");
	st = tc_device_fill_info(dev);
	if (st) {
		tilecopy_device_close(dev);
		return st;
	}
	*out = dev;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_device_open(tilecopy_device_t **dev,
						    const char *spec)
{
	struct tc_found f[TC_MAX_DEVICES];
	char *end;
	long idx = 0;
	int n;

	if (!dev)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dev: NULL");
	*dev = NULL;
	if (!spec)
		spec = getenv("TILECOPY_DEVICE");
	if (!spec || !*spec)
		spec = "auto";
	if (!strcmp(spec, "cpu"))
		return tc_fail(TILECOPY_ERR_NO_DEVICE, "device: 'cpu' names no device");
	n = tc_enumerate(f, TC_MAX_DEVICES);
	if (spec[0] == '/') {
		for (int i = 0; i < n; i++)
			if (!strcmp(f[i].path, spec))
				return tc_open_path(dev, spec, f[i].slot);
		if (access(spec, F_OK))
			return tc_fail(TILECOPY_ERR_NO_DEVICE,
				       "device: %s does not exist (is the tilecopy module loaded?)",
				       spec);
		return tc_open_path(dev, spec, NULL);
	}
	if (strcmp(spec, "auto")) {
		idx = strtol(spec, &end, 10);
		if (end == spec || *end || idx < 0)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "device: '%s' is not auto, cpu, an index or a path",
				       spec);
	}
	if (n <= 0)
		return tc_fail(TILECOPY_ERR_NO_DEVICE,
			       "device: no tilecopy engine found (no accel device bound to the tilecopy driver; is the module loaded?)");
	if (idx >= n)
		return tc_fail(TILECOPY_ERR_NO_DEVICE,
			       "device: index %ld, but only %d engine(s) found", idx, n);
	return tc_open_path(dev, f[idx].path, f[idx].slot);
}

TILECOPY_API void tilecopy_device_close(tilecopy_device_t *dev)
{
	if (!dev || tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev"))
		return;
	dev->magic = 0;
	tc_stage_free(dev);
	pthread_mutex_destroy(&dev->stage_lock);
	close(dev->fd);
	free(dev);
}

/*
 * @from into the caller's struct of info->struct_size bytes: as much of it
 * as both know. A caller's struct larger than this library's (a newer
 * header) gets its extra fields zeroed, and struct_size set to what was
 * filled, so it can tell which fields this library knew.
 */
static tilecopy_status_t tc_info_copy(struct tilecopy_device_info *info,
				      const struct tilecopy_device_info *from)
{
	uint32_t n = info->struct_size;

	if (n < sizeof(*info))	/* 1.0 is the first version: all its fields */
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "info: struct_size %u, at least %zu (set it to sizeof)",
			       n, sizeof(*info));
	if (n > TC_STRUCT_SIZE_MAX)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "info: struct_size %u, more than %u: not set? (set it to sizeof)",
			       n, TC_STRUCT_SIZE_MAX);
	memcpy(info, from, sizeof(*info));
	memset((char *)info + sizeof(*info), 0, n - sizeof(*info));
	info->struct_size = (uint32_t)sizeof(*info);
	return TILECOPY_SUCCESS;
}

TILECOPY_API tilecopy_status_t tilecopy_device_query(const tilecopy_device_t *dev,
						     struct tilecopy_device_info *info)
{
	tilecopy_status_t st;

	st = tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev");
	if (st)
		return st;
	if (!info)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "info: NULL");
	st = tc_info_copy(info, &dev->info);
	return st ? st : tc_ok();
}

TILECOPY_API int tilecopy_device_fd(const tilecopy_device_t *dev)
{
	return tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev") ? -1 : dev->fd;
}

TILECOPY_API tilecopy_status_t tilecopy_device_info_get(int index,
							struct tilecopy_device_info *info)
{
	char spec[16];
	tilecopy_device_t *dev;
	tilecopy_status_t st;

	if (!info)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "info: NULL");
	if (index < 0)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "index: %d is negative", index);
	snprintf(spec, sizeof(spec), "%d", index);
	if (info->struct_size < sizeof(*info) || info->struct_size > TC_STRUCT_SIZE_MAX)
		return tc_info_copy(info, NULL);	/* refuses it before any device is opened */
	st = tilecopy_device_open(&dev, spec);
	if (st)
		return st;
	st = tc_info_copy(info, &dev->info);
	tilecopy_device_close(dev);
	return st ? st : tc_ok();
}
