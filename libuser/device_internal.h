/* SPDX-License-Identifier: MIT */
/* device_internal.h - the device backend's objects (device*.c, convert.c). */
#ifndef TILECOPY_DEVICE_INTERNAL_H
#define TILECOPY_DEVICE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "tilecopy/device.h"
#include "tilecopy_accel.h"
#include "internal.h"

struct tilecopy_plan;

/*
 * Tags: the first field of every handle of this library, as of the core's
 * (internal.h): a handle of another kind, or one already freed (the tag is
 * cleared), is refused by tc_handle_arg rather than followed.
 */
#define TC_MAGIC_DEVICE	0x54444556u
#define TC_MAGIC_BO	0x54424f5fu
#define TC_MAGIC_JOB	0x544a4f42u

static inline tilecopy_status_t tc_handle_arg(const void *h, uint32_t magic,
					      const char *what)
{
	if (!h)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", what);
	if (*(const uint32_t *)h != magic)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: not a %s handle (destroyed, or another object)", what,
			       magic == TC_MAGIC_DEVICE ? "device" :
			       magic == TC_MAGIC_BO ? "buffer object" : "job");
	return TILECOPY_SUCCESS;
}

struct tilecopy_device {
	uint32_t magic;		/* TC_MAGIC_DEVICE */
	int fd;
	struct tilecopy_device_info info;
	uint64_t features;		/* DRM_TILECOPY_FEATURE_* */
	uint64_t max_job_elems;		/* work bound of one hardware job */
	unsigned int next_queue;	/* round robin for single-queue jobs */
	/*
	 * Staging BOs of tilecopy_convert, kept between calls: a fresh BO
	 * costs a page fault per page on first touch, more than the copy.
	 */
	pthread_mutex_t stage_lock;
	struct tilecopy_bo *stage_src, *stage_dst;
};

struct tilecopy_bo {
	uint32_t magic;		/* TC_MAGIC_BO */
	tilecopy_device_t *dev;
	uint32_t handle;
	uint64_t size, va, mmap_offset;
	void *map;
	int userptr;		/* over the caller's memory (map): never unmapped */
};

/* One hardware job: a slice of the plan on one queue. */
struct tc_job_part {
	uint64_t id;
	uint32_t queue;
	uint32_t ndescs;
	uint32_t *plan_index;	/* plan descriptor of each job descriptor */
	int done;
};

struct tilecopy_job {
	uint32_t magic;		/* TC_MAGIC_JOB */
	tilecopy_device_t *dev;
	uint32_t syncobj;		/* covers every part */
	/* sticky: the first failure, returned by every later wait */
	tilecopy_status_t failure;
	char failure_msg[512];
	struct tilecopy_bo *scales;	/* the plan's scales, read by the parts */
	int nparts;
	struct tc_job_part part[];
};

/*
 * tc_job_submit_slice - submit slice @part of @nparts of the plan (sliced
 * along each descriptor's outermost dim), rebased on @src_va / @dst_va.
 */
tilecopy_status_t tc_job_submit_slice(tilecopy_job_t **job, tilecopy_device_t *dev,
				      const struct tilecopy_plan *plan,
				      tilecopy_bo_t *sbo, uint64_t src_va,
				      tilecopy_bo_t *dbo, uint64_t dst_va,
				      unsigned int part, unsigned int nparts,
				      uint32_t flags);
/* The same with input fences (struct tilecopy_submit_opts, checked). */
tilecopy_status_t tc_job_submit_slice_opts(tilecopy_job_t **job, tilecopy_device_t *dev,
					   const struct tilecopy_plan *plan,
					   tilecopy_bo_t *sbo, uint64_t src_va,
					   tilecopy_bo_t *dbo, uint64_t dst_va,
					   unsigned int part, unsigned int nparts,
					   const struct tilecopy_submit_opts *opts);

/*
 * tc_bo_userptr - a BO over [@ptr, @ptr + @size) of this process
 * (BO_USERPTR; @flags: TILECOPY_BO_READ_ONLY): its pages stay pinned until
 * tilecopy_bo_free(). On failure *@err is the driver's -errno (0 when the
 * device lacks the feature or the failure was ours), for the caller to
 * decide whether staging would do.
 */
tilecopy_status_t tc_bo_userptr(tilecopy_bo_t **bo, tilecopy_device_t *dev, const void *ptr,
				size_t size, uint32_t flags, int *err);

/* tc_stage_free - release the staging BOs (device close). */
void tc_stage_free(tilecopy_device_t *dev);

/* tc_drm_ioctl - drmIoctl with the errno kept for the message. */
int tc_drm_ioctl(int fd, unsigned long req, void *arg);

#endif
