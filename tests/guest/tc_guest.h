/* SPDX-License-Identifier: MIT */
/*
 * tc_guest.h - helpers of the in-guest driver tests (tests/guest/).
 *
 * The tests run inside the QEMU guest started by tests/qemu/run-guest.sh,
 * against /dev/accel/accel* of the tilecopy driver (/dev/dri/renderD* on a
 * kernel without the accel core). They talk to the driver
 * with raw ioctls (through libdrm's drmIoctl), never through libtilecopy, so
 * that the uAPI itself is what is tested.
 *
 * Without a device they exit 77 (skip) with the reason, unless
 * TC_REQUIRE_DEVICE=1 (set by make check-guest, where a missing device is a
 * failure).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_GUEST_H
#define TC_GUEST_H

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xf86drm.h>

#include "tilecopy_accel.h"
#include "hw/tilecopy_hw.h"

#define TC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Path of the n-th tilecopy device node (by PCI id), or NULL. */
const char *tc_find_device(int n, char *buf, size_t len);
/* "/sys/dev/char/M:m/device/<attr>" (the PCI device's) of the n-th node. */
const char *tc_device_sysfs(int n, const char *attr, char *buf, size_t len);
/* "/sys/kernel/debug/{accel,dri}/<PCI name>/<file>" of the n-th node. */
const char *tc_device_debugfs(int n, const char *file, char *buf, size_t len);
/* Number of tilecopy device nodes. */
int tc_count_devices(void);
/* Open the first tilecopy device (or $TC_DEVICE); fails the test if none. */
int tc_open(void);
int tc_open_nth(int n);
/* Exit 77 with a message when there is no device (main() calls this). */
void tc_require_device(const char *prog);

/* ioctl that returns 0 or -errno. */
int tc_ioctl(int fd, unsigned long req, void *arg);

uint64_t tc_get_param(int fd, uint32_t param);

struct tc_bo {
	uint32_t handle;
	uint64_t size;
	uint64_t va;
	uint64_t mmap_offset;
	void *map;
};

/* Create (flags 0 or READ_ONLY) and mmap a BO; asserts on failure. */
void tc_bo_new(int fd, uint64_t size, uint32_t flags, struct tc_bo *bo);
void tc_bo_free(int fd, struct tc_bo *bo);
int tc_gem_close(int fd, uint32_t handle);

/* Descriptors. Addresses are device VAs. */
void tc_desc_copy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src,
		  unsigned int elem_size, unsigned int ndims, const uint32_t *extent,
		  const uint64_t *dst_stride, const uint64_t *src_stride);
void tc_desc_fill(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t value,
		  unsigned int elem_size, unsigned int ndims, const uint32_t *extent,
		  const uint64_t *dst_stride);
void tc_desc_write64(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t value);
/* A 1-D COPY of @n bytes. */
void tc_desc_memcpy(struct drm_tilecopy_desc *d, uint64_t dst, uint64_t src, uint32_t n);

/* Fill a submit struct; returns SUBMIT's 0/-errno, job id in *job_id. */
int tc_submit(int fd, const struct drm_tilecopy_desc *descs, uint32_t ndesc,
	      const uint32_t *bos, uint32_t nbo, uint32_t queue, uint64_t *job_id);
int tc_submit_args(int fd, struct drm_tilecopy_submit *args);

/* Absolute CLOCK_MONOTONIC ns. */
int64_t tc_now_ns(void);
/* WAIT with a deadline @rel_ns from now; returns 0/-errno, fills *w. */
int tc_wait(int fd, uint64_t job_id, int64_t rel_ns, struct drm_tilecopy_wait *w);
/* WAIT up to 30 s and return the job's status (asserts the ioctl worked). */
uint32_t tc_wait_status(int fd, uint64_t job_id);

/* Device properties of this run (from $TC_DEVICE_PROPS), 0 if absent. */
long tc_device_prop(const char *name);
/* A parameter of the loaded tilecopy module, @def if it cannot be read. */
long tc_module_param(const char *name, long def);

/* PCI name (0000:00:04.0) of the n-th device; fails the test if none. */
void tc_pci_name(int n, char *out, size_t len);
/* Counter @name in the sysfs directory of the n-th device's PCI device. */
long long tc_sysfs_stat(int n, const char *name);
/* Path of @file in the n-th device's debugfs directory. */
void tc_debugfs_path(int n, const char *file, char *out, size_t len);
/* Write "1" to the n-th device's debugfs reset; returns 0 or -errno. */
int tc_force_reset(int n);

void tc_pattern(void *buf, size_t n, uint32_t seed);

#define tc_assert_err(expr, err) do {					\
	int _r = (expr);						\
	ck_assert_msg(_r == -(err), "%s: got %d (%s), want -%s",	\
		      #expr, _r, _r ? strerror(-_r) : "success", #err);	\
} while (0)

#define tc_assert_ok(expr) do {						\
	int _r = (expr);						\
	ck_assert_msg(_r == 0, "%s: got %d (%s), want 0", #expr, _r,	\
		      strerror(-_r));					\
} while (0)

/* Run a suite; CK_FORK is on by default. Returns the exit status. */
int tc_run_suite(Suite *s);

#endif /* TC_GUEST_H */
