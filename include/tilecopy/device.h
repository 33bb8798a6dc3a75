/* SPDX-License-Identifier: MIT */
/*
 * device.h - libtilecopy's device backend: the tile-copy engine through the
 * tilecopy DRM accel driver.
 *
 *   tilecopy_device_open(&dev, "auto")      find and open an engine
 *   tilecopy_bo_create(&bo, dev, bytes, 0)   device-visible memory
 *   tilecopy_job_submit(&job, dev, plan, &src, &dst, 0)   asynchronous
 *   tilecopy_job_wait(job, timeout_ns)       status of the job
 *
 * or, for plain user memory, tilecopy_convert() which stages through buffer
 * objects and falls back to the CPU path when there is no device.
 *
 * Devices are found with libudev (accel devices bound to the "tilecopy"
 * driver), never by a fixed path. Every call returns a tilecopy_status_t;
 * tilecopy_last_error() says which device, which field, and why.
 *
 * This is libtilecopy-device (pkg-config tilecopy-device): libdrm, libudev
 * and the core library. NULL: as in tilecopy.h, a NULL device, BO, job or
 * output pointer is TILECOPY_ERR_INVALID_ARG and _close/_free/_destroy(NULL)
 * do nothing. Handles carry a tag, as the core's: a device, BO or job
 * handle of another kind (or a layout, tensor or plan), or one already
 * freed as far as the library can tell, is refused with
 * TILECOPY_ERR_INVALID_ARG, and _close/_free/_destroy leave it alone. Threads: a device may be shared by threads (tilecopy_convert
 * serialises on the device's staging buffers); a BO or job must not be
 * freed while another thread uses it. Lifetimes: a plan may be destroyed
 * once tilecopy_job_submit returns; a BO must outlive the jobs that use it
 * (tilecopy_job_destroy waits for a running job); a device must outlive its
 * BOs and jobs.
 */
#ifndef TILECOPY_DEVICE_H
#define TILECOPY_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "tilecopy/tilecopy.h"

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct tilecopy_device tilecopy_device_t;
typedef struct tilecopy_bo tilecopy_bo_t;
typedef struct tilecopy_job tilecopy_job_t;

/**
 * struct tilecopy_device_info - what a device is and can do.
 * @struct_size: Input: sizeof(struct tilecopy_device_info) as the caller's
 *	header has it (a size below the 1.0 struct, or above 4096, is
 *	TILECOPY_ERR_INVALID_ARG).
 *	Output: the bytes the library filled: the fields both know. Fields are
 *	only ever appended, so an older program keeps working when the struct
 *	grows; a newer program on an older library gets the fields past
 *	@struct_size zeroed, and can tell it from @struct_size.
 */
struct tilecopy_device_info {
	uint32_t struct_size;
	char path[64];		/* /dev/accel/accelN */
	char pci_slot[32];	/* 0000:00:04.0 */
	uint32_t abi_version;	/* DRM_TILECOPY_ABI_VERSION of the driver */
	uint32_t hw_version;
	uint32_t fw_version;	/* major << 16 | minor << 8 | patch */
	uint32_t num_queues;
	uint32_t max_dims;
	uint32_t max_descs;	/* per job */
	uint32_t max_bos;	/* per job */
	uint32_t tilebuf_size;
	uint64_t va_start, va_size;
};

/**
 * tilecopy_device_count - number of tilecopy engines on this machine
 * (0 with TILECOPY_SUCCESS when there are none).
 */
TILECOPY_API tilecopy_status_t tilecopy_device_count(int *count);

/** tilecopy_device_info_get - describe device @index (0-based). */
TILECOPY_API tilecopy_status_t tilecopy_device_info_get(int index,
							struct tilecopy_device_info *info);

/**
 * tilecopy_device_open - open a device.
 * @spec: "auto" (the first device), a decimal index ("1"), or a path
 *	("/dev/accel/accel0"). NULL means $TILECOPY_DEVICE, else "auto".
 * Returns TILECOPY_ERR_NO_DEVICE when none exists or the spec names none,
 * TILECOPY_ERR_DEVICE when it exists but cannot be used (permissions: see
 * the udev rule driver/99-tilecopy.rules; another driver; old ABI).
 */
TILECOPY_API tilecopy_status_t tilecopy_device_open(tilecopy_device_t **dev,
						    const char *spec);
TILECOPY_API void tilecopy_device_close(tilecopy_device_t *dev);
TILECOPY_API tilecopy_status_t tilecopy_device_query(const tilecopy_device_t *dev,
						     struct tilecopy_device_info *info);
/**
 * tilecopy_device_fd - the device's DRM file descriptor, for libdrm calls
 * (drmSyncobj*, drmPrime*, GET_PARAM); -1 for NULL. It belongs to @dev: do
 * not close it. Syncobj handles made on it are what
 * tilecopy_job_syncobj() returns and tilecopy_submit_opts takes. Since 1.1.
 */
TILECOPY_API int tilecopy_device_fd(const tilecopy_device_t *dev);

/* ---- buffer objects ------------------------------------------------------ */

/** TILECOPY_BO_READ_ONLY - the engine may only read the buffer. */
#define TILECOPY_BO_READ_ONLY	(1u << 0)

TILECOPY_API tilecopy_status_t tilecopy_bo_create(tilecopy_bo_t **bo,
						  tilecopy_device_t *dev,
						  size_t size, uint32_t flags);
/** tilecopy_bo_map - CPU address of the BO (mapped once, kept). */
TILECOPY_API tilecopy_status_t tilecopy_bo_map(tilecopy_bo_t *bo, void **ptr);
/** tilecopy_bo_size - the BO's size in bytes. */
TILECOPY_API tilecopy_status_t tilecopy_bo_size(const tilecopy_bo_t *bo, size_t *size);
/** tilecopy_bo_va - device virtual address of the BO's first byte. */
TILECOPY_API tilecopy_status_t tilecopy_bo_va(const tilecopy_bo_t *bo, uint64_t *va);
TILECOPY_API void tilecopy_bo_free(tilecopy_bo_t *bo);
/** tilecopy_bo_export - a dma-buf fd for the BO (caller closes it). */
TILECOPY_API tilecopy_status_t tilecopy_bo_export(tilecopy_bo_t *bo, int *fd);
/** tilecopy_bo_import - a BO of @dev for a dma-buf fd (fd stays the caller's). */
TILECOPY_API tilecopy_status_t tilecopy_bo_import(tilecopy_bo_t **bo,
						  tilecopy_device_t *dev, int fd);

/* ---- jobs ------------------------------------------------------------------ */

/**
 * struct tilecopy_buffer_ref - a tensor's place: BO + byte offset.
 * Frozen: it never grows under this SONAME (the library checks its layout
 * when built); anything more would come as a new struct and a _v2 call.
 */
struct tilecopy_buffer_ref {
	tilecopy_bo_t *bo;
	uint64_t offset;
};

/** TILECOPY_SUBMIT_ONE_QUEUE - do not split the job across queues. */
#define TILECOPY_SUBMIT_ONE_QUEUE	(1u << 0)

/**
 * tilecopy_job_submit - run @plan on the engine, asynchronously.
 * The source is read at src->bo + src->offset, the destination written at
 * dst->bo + dst->offset; both must hold the plan's bytes. Large plans are
 * split into several hardware jobs, across queues unless @flags has
 * TILECOPY_SUBMIT_ONE_QUEUE (or the plan's order matters). Source and
 * destination ranges overlapping in one BO are TILECOPY_ERR_OVERLAP (the
 * same memory under two BOs, e.g. an imported dma-buf, cannot be seen).
 */
TILECOPY_API tilecopy_status_t tilecopy_job_submit(tilecopy_job_t **job,
						   tilecopy_device_t *dev,
						   const tilecopy_plan_t *plan,
						   const struct tilecopy_buffer_ref *src,
						   const struct tilecopy_buffer_ref *dst,
						   uint32_t flags);
/**
 * struct tilecopy_submit_opts - what tilecopy_job_submit_opts() takes
 * beyond the plan and the buffers.
 * @size: sizeof(struct tilecopy_submit_opts) as the caller knows it. Later
 *	versions append fields: a caller built against an older header gets
 *	their defaults, one built against a newer header must leave the
 *	fields this library does not know zero.
 * @flags: TILECOPY_SUBMIT_* flags.
 * @in_syncobjs: DRM syncobj handles of tilecopy_device_fd(): the job starts
 *	once all their fences have signalled (each must hold a fence).
 * @num_in_syncobjs: entries of @in_syncobjs.
 * @in_fences: sync_file fds (from another driver, or exported from a
 *	syncobj): the same, for fences that come as fds. They stay the caller's.
 * @num_in_fences: entries of @in_fences. With @num_in_syncobjs at most 64.
 */
struct tilecopy_submit_opts {
	size_t size;
	uint32_t flags;
	uint32_t num_in_syncobjs;
	const uint32_t *in_syncobjs;
	const int *in_fences;
	uint32_t num_in_fences;
};

/**
 * tilecopy_job_submit_opts - tilecopy_job_submit() with input fences.
 * @opts: options, NULL for the defaults (as tilecopy_job_submit(.., 0)).
 * Since 1.1.
 */
TILECOPY_API tilecopy_status_t tilecopy_job_submit_opts(tilecopy_job_t **job,
							tilecopy_device_t *dev,
							const tilecopy_plan_t *plan,
							const struct tilecopy_buffer_ref *src,
							const struct tilecopy_buffer_ref *dst,
							const struct tilecopy_submit_opts *opts);
/**
 * tilecopy_job_wait - wait up to @timeout_ns (relative; < 0 forever).
 * TILECOPY_SUCCESS: every part ran, each descriptor exactly once.
 * TILECOPY_ERR_TIMEOUT: not finished by the deadline; the job goes on:
 *	wait again. The only status that is not final.
 * TILECOPY_ERR_FAULT: the engine failed it; the message names the
 *	descriptor index within the plan, the address and the engine's status.
 * TILECOPY_ERR_RESET: the engine was reset while it ran (it hung, another
 *	job hung, or a forced reset): the destination is undefined.
 * TILECOPY_ERR_DEVICE: cancelled (device removed or wedged, file banned)
 *	or the driver failed the wait.
 * A failure is sticky: every later wait on the job returns it again, with
 * the same message. docs/sdk.md, "Job status", says what to do for each.
 */
TILECOPY_API tilecopy_status_t tilecopy_job_wait(tilecopy_job_t *job,
						 int64_t timeout_ns);
/**
 * tilecopy_job_syncobj - DRM syncobj (on tilecopy_device_fd()) signalled
 * when the whole job is done: every part, on every queue.
 */
TILECOPY_API tilecopy_status_t tilecopy_job_syncobj(const tilecopy_job_t *job,
						    uint32_t *syncobj);
/** tilecopy_job_destroy - free the job (waits for it first if it runs). */
TILECOPY_API void tilecopy_job_destroy(tilecopy_job_t *job);

/* ---- convenience ------------------------------------------------------------ */

/**
 * tilecopy_convert - run @plan on plain user memory, synchronously.
 * @dev: a device, or NULL for the CPU path. The engine works on the
 * caller's pages, pinned for the call (userptr BOs), where the driver
 * offers it; else, or when a pin is refused (RLIMIT_MEMLOCK, memory that
 * cannot be pinned) or the buffers overlap, data is staged through BOs
 * ($TILECOPY_USERPTR=0 always stages; docs/sdk.md).
 * Plans that move fewer than the threshold run on the CPU even when @dev
 * is given (the engine's fixed cost dominates them): 4 MiB on pinned
 * pages, tilecopy_device_threshold() bytes when staged.
 * @used_device: optional, set to 1 when the engine ran the plan.
 */
TILECOPY_API tilecopy_status_t tilecopy_convert(tilecopy_device_t *dev,
						const tilecopy_plan_t *plan,
						const void *src, size_t src_size,
						void *dst, size_t dst_size,
						int *used_device);

/**
 * tilecopy_convert_multi - like tilecopy_convert, with the plan's work
 * sliced across @ndev devices (and each device's queues). The data is
 * staged once, in buffer objects of devs[0] shared with the others as
 * dma-bufs, so every engine reads and writes the same memory.
 * @used_devices: optional, set to how many devices ran a part.
 */
TILECOPY_API tilecopy_status_t tilecopy_convert_multi(tilecopy_device_t *const *devs,
						      int ndev,
						      const tilecopy_plan_t *plan,
						      const void *src, size_t src_size,
						      void *dst, size_t dst_size,
						      int *used_devices);

/**
 * tilecopy_device_threshold - bytes moved below which the CPU is used by a
 * staged tilecopy_convert: 64 MiB (on pinned pages the default is 4 MiB).
 * $TILECOPY_DEVICE_THRESHOLD overrides both defaults with a byte
 * count in decimal digits (0 = always the device); anything else ("-1",
 * "1e9", "0x10", "") is TILECOPY_ERR_INVALID_ARG here and in
 * tilecopy_convert, naming the variable.
 */
TILECOPY_API tilecopy_status_t tilecopy_device_threshold(uint64_t *bytes);

#if defined(__cplusplus)
}
#endif

#endif /* TILECOPY_DEVICE_H */
