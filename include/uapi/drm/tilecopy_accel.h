/* SPDX-License-Identifier: MIT */
/*
 * tilecopy_accel.h - uAPI of the tilecopy tile-copy engine.
 *
 * The one definition of the engine's descriptor format and of the ioctl
 * interface. The library emits descriptors in this format, the driver copies
 * and validates them, the engine (QEMU device model) executes them, and the
 * CPU executors run the very same list.
 *
 * Rules: every pointer is a __u64, every struct has explicit padding, flags
 * and padding must be zero, ioctl numbers are append-only.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef _UAPI_DRM_TILECOPY_ACCEL_H_
#define _UAPI_DRM_TILECOPY_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DRM_TILECOPY_ABI_VERSION - version of this interface, major << 16 | minor.
 *
 * The minor number grows when something is appended; the major number
 * changes only if a published struct changes meaning (never, so far).
 * What a driver offers beyond 1.0 is announced by the bits of
 * DRM_TILECOPY_PARAM_FEATURES: test those, not the minor number. (The
 * firmware speaks its own interface, TC_FW_IFACE_VERSION of tilecopy_hw.h,
 * which this number does not touch.)
 *
 * 1.1: STATUS_RESET, ERR_DESC_NONE, parameters FEATURES to FILE_HANGS,
 * desc_size above 192, SUBMIT's -EBUSY, -E2BIG, -ECANCELED and -EIO.
 * 1.2: typed descriptors (element conversion, 4-bit elements: the fields
 * of struct drm_tilecopy_desc from @src_type on, 256 bytes,
 * DRM_TILECOPY_FEATURE_CONVERT, parameter CONVERT_TYPES); user-memory
 * buffer objects (DRM_IOCTL_TILECOPY_BO_USERPTR, DRM_TILECOPY_FEATURE_USERPTR).
 */
#define DRM_TILECOPY_ABI_VERSION	0x00010002u

/* ------------------------------------------------------------------------
 * Descriptors: the engine's native job format
 * ------------------------------------------------------------------------
 */

/** DRM_TILECOPY_MAX_DIMS - dimensions of one descriptor's iteration space. */
#define DRM_TILECOPY_MAX_DIMS		8

/**
 * DRM_TILECOPY_MAX_JOB_ELEMS - the work bound of this engine generation:
 * elements one job may write, the product of each descriptor's extents
 * summed over the job. A stride-0 dimension counts with its extent: a
 * descriptor that writes one byte 2^64 times is 2^64 elements of work.
 * DRM_TILECOPY_PARAM_MAX_JOB_ELEMS reports a device's own bound.
 */
#define DRM_TILECOPY_MAX_JOB_ELEMS	(1ull << 32)

/**
 * DRM_TILECOPY_MAX_ROW_ELEMS - the longest row of one descriptor, in
 * elements. The engine stops (for a reset) between rows, not inside one,
 * so a row must be short. A row is dimension 0 after the engine drops the
 * dimensions of extent 1 and merges each dimension that continues the one
 * before (its stride equals the stride times extent of the one before, on
 * both sides): a stride-0 FILL of extents [2^20, 4096] is one row of 2^32
 * elements. A row contiguous on each side (stride 1) may instead hold up to
 * DRM_TILECOPY_MAX_ROW_BYTES bytes; a COPY that transposes (stride 1 on
 * each side in different dimensions) goes tile by tile and has no row
 * limit. SUBMIT fails with -E2BIG beyond them.
 */
#define DRM_TILECOPY_MAX_ROW_ELEMS	(1ull << 20)
/** DRM_TILECOPY_MAX_ROW_BYTES - the longest contiguous row, in bytes. */
#define DRM_TILECOPY_MAX_ROW_BYTES	(1ull << 26)

/**
 * enum drm_tilecopy_op - what a descriptor does.
 * @DRM_TILECOPY_OP_COPY: N-D strided copy, element by element, from @src to
 *	@dst. A source stride may be 0 (broadcast).
 * @DRM_TILECOPY_OP_FILL: write the low @elem_size bytes of @value (little
 *	endian) to every element of the N-D region at @dst. Used for padding.
 *	The bits of @value above @elem_size bytes must be zero.
 * @DRM_TILECOPY_OP_WRITE64: write the 64-bit @value at @dst (8 bytes, ndims
 *	1, extent[0] 1): a completion marker visible in memory.
 */
enum drm_tilecopy_op {
	DRM_TILECOPY_OP_COPY = 1,
	DRM_TILECOPY_OP_FILL = 2,
	DRM_TILECOPY_OP_WRITE64 = 3,
};

/**
 * enum drm_tilecopy_type - element types of a typed descriptor (ABI 1.2).
 * @DRM_TILECOPY_TYPE_NONE: an untyped descriptor: @elem_size raw bytes per
 *	element, moved bit for bit (every descriptor of ABI 1.0 and 1.1).
 * @DRM_TILECOPY_TYPE_F32: IEEE binary32.
 * @DRM_TILECOPY_TYPE_F16: IEEE binary16.
 * @DRM_TILECOPY_TYPE_BF16: bfloat16 (the top half of a binary32).
 * @DRM_TILECOPY_TYPE_I8: signed 8-bit integer.
 * @DRM_TILECOPY_TYPE_U8: unsigned 8-bit integer.
 * @DRM_TILECOPY_TYPE_I32: signed 32-bit integer.
 * @DRM_TILECOPY_TYPE_I4: signed 4-bit integer (-8..7), two per byte, the
 *	even element in the low nibble.
 * @DRM_TILECOPY_TYPE_U4: unsigned 4-bit integer (0..15), packed as I4.
 *
 * docs/dtype-conversion.md gives the conversion of every pair: decode to
 * binary32 (exact but for I32 beyond 2^24), subtract @src_zp, multiply by
 * the scale, add @dst_zp, each step one binary32 operation rounded to
 * nearest even and skipped when its parameter is absent; then encode:
 * round to nearest even, saturating for the integer types.
 */
enum drm_tilecopy_type {
	DRM_TILECOPY_TYPE_NONE = 0,
	DRM_TILECOPY_TYPE_F32 = 1,
	DRM_TILECOPY_TYPE_F16 = 2,
	DRM_TILECOPY_TYPE_BF16 = 3,
	DRM_TILECOPY_TYPE_I8 = 4,
	DRM_TILECOPY_TYPE_U8 = 5,
	DRM_TILECOPY_TYPE_I32 = 6,
	DRM_TILECOPY_TYPE_I4 = 7,
	DRM_TILECOPY_TYPE_U4 = 8,
};

/* struct drm_tilecopy_desc.cvt_flags */
/* Multiply by the binary32 @scale (finite). */
#define DRM_TILECOPY_CVT_SCALE		(1u << 0)
/* Multiply by the binary32 scales[sum(i_k * scale_stride[k])] at @scales. */
#define DRM_TILECOPY_CVT_SCALES		(1u << 1)

/** DRM_TILECOPY_DESC_SIZE_1_0 - sizeof(struct drm_tilecopy_desc) before 1.2. */
#define DRM_TILECOPY_DESC_SIZE_1_0	192

/**
 * struct drm_tilecopy_desc - one engine descriptor (256 bytes; 192 before
 * ABI 1.2, whose callers still pass @desc_size 192).
 *
 * Later versions may append fields; SUBMIT's @desc_size says how large the
 * caller's struct is (see struct drm_tilecopy_submit). Fields a caller's
 * smaller struct does not have are taken as zero.
 *
 * The iteration space is extent[0] x ... x extent[ndims-1] elements;
 * dimension 0 is the innermost (fastest) loop. Element (i0, ..., iN-1) is
 * read at src + elem_size * sum(i_k * src_stride[k]) and written at
 * dst + elem_size * sum(i_k * dst_stride[k]). Strides are in elements and
 * are never negative. Addresses need no alignment.
 *
 * In a plan built by the library, @src and @dst are byte offsets from the
 * start of the source and destination buffers; the CPU executors add the
 * buffer addresses, the device backend adds the buffer objects' device
 * virtual addresses before submission. In a submitted job they are device
 * virtual addresses.
 *
 * Extents and strides of dimensions >= @ndims must be zero.
 */
struct drm_tilecopy_desc {
	/** @op: one of &enum drm_tilecopy_op. */
	__u16 op;
	/** @elem_size: bytes per element: 1, 2, 4 or 8. */
	__u8 elem_size;
	/** @ndims: number of dimensions used, 1..DRM_TILECOPY_MAX_DIMS. */
	__u8 ndims;
	/** @flags: must be zero. */
	__u32 flags;
	/** @src: source address (COPY); must be zero for FILL and WRITE64. */
	__u64 src;
	/** @dst: destination address. */
	__u64 dst;
	/** @value: fill pattern (FILL) or value (WRITE64); zero for COPY. */
	__u64 value;
	/** @extent: elements per dimension, each >= 1 for k < @ndims. */
	__u32 extent[DRM_TILECOPY_MAX_DIMS];
	/** @src_stride: source stride per dimension in elements (COPY). */
	__u64 src_stride[DRM_TILECOPY_MAX_DIMS];
	/** @dst_stride: destination stride per dimension in elements. */
	__u64 dst_stride[DRM_TILECOPY_MAX_DIMS];

	/*
	 * ABI 1.2 (DRM_TILECOPY_FEATURE_CONVERT): a typed descriptor. All
	 * zero: an untyped one, as in 1.0. With a type set, @elem_size must
	 * be 0 (each side's element size is its type's), so a reader that
	 * knows only the 192-byte struct refuses it instead of moving bytes.
	 */
	/**
	 * @src_type: element type of the source, &enum drm_tilecopy_type
	 * (COPY; 0 for FILL and WRITE64). Set exactly when @dst_type is.
	 */
	__u8 src_type;
	/** @dst_type: element type of the destination (COPY, FILL). */
	__u8 dst_type;
	/**
	 * @src_nibble: 4-bit source only: 1 when element 0 is the high nibble
	 * of the byte at @src, else 0. Element (i0, ...) of a 4-bit side is
	 * nibble @src_nibble + sum(i_k * src_stride[k]) counted from the low
	 * nibble of the byte at @src (the even nibble of a byte is its low
	 * half). A typed FILL of a 4-bit type writes the low 4 bits of @value
	 * to each nibble and leaves the other nibble of each byte as it was.
	 */
	__u8 src_nibble;
	/** @dst_nibble: 4-bit destination only: as @src_nibble. */
	__u8 dst_nibble;
	/** @cvt_flags: DRM_TILECOPY_CVT_* (at most one of them), else 0. */
	__u32 cvt_flags;
	/** @src_zp: zero point subtracted from the decoded source (COPY). */
	__s32 src_zp;
	/** @dst_zp: zero point added before encoding (COPY). */
	__s32 dst_zp;
	/** @scale: binary32 bits of the scale, with DRM_TILECOPY_CVT_SCALE. */
	__u32 scale;
	/** @pad: must be zero. */
	__u32 pad;
	/**
	 * @scales: address of the binary32 scales, with
	 * DRM_TILECOPY_CVT_SCALES (a byte offset into the plan's scales in a
	 * library plan, a device VA in a job), else 0. The engine reads them;
	 * they must lie inside a BO of the job.
	 */
	__u64 scales;
	/** @scale_stride: with DRM_TILECOPY_CVT_SCALES, in scales per dim. */
	__u32 scale_stride[DRM_TILECOPY_MAX_DIMS];
};

/**
 * enum drm_tilecopy_status - outcome of a job, as reported by the engine
 * (register ERR_CODE) and by DRM_IOCTL_TILECOPY_WAIT.
 * @DRM_TILECOPY_STATUS_OK: every descriptor executed.
 * @DRM_TILECOPY_STATUS_FAULT_UNMAPPED: a device VA had no valid mapping.
 * @DRM_TILECOPY_STATUS_FAULT_PERM: write to a read-only page (or read of a
 *	page without read permission).
 * @DRM_TILECOPY_STATUS_DMA_ERROR: the bus reported an error on a transfer.
 * @DRM_TILECOPY_STATUS_BAD_DESC: the engine refused a malformed descriptor.
 * @DRM_TILECOPY_STATUS_TIMEOUT: the job ran longer than
 *	DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS of engine time (time spent waiting
 *	behind other jobs does not count): it hung, and the engine was reset.
 *	It counts towards its file's ban (DRM_TILECOPY_PARAM_BAN_HANGS).
 *	Its destination is undefined.
 * @DRM_TILECOPY_STATUS_CANCELLED: the job was dropped before it ran: its
 *	file was closed or banned, the device removed or wedged. Never a job
 *	that may have run: after a reset that did not complete, those are
 *	DRM_TILECOPY_STATUS_RESET.
 * @DRM_TILECOPY_STATUS_NO_FIRMWARE: the engine has no running firmware.
 * @DRM_TILECOPY_STATUS_PENDING: the job has not finished (WAIT timed out).
 * @DRM_TILECOPY_STATUS_RESET: the engine was reset (another job hung, or a
 *	forced reset) while it was running this job: some descriptors may have
 *	run, the destination is undefined. The job is not run again; submit it
 *	again if that is safe. Jobs the reset found finished complete as OK;
 *	jobs it found not yet started run after it. A job is never reported
 *	OK unless every one of its descriptors ran exactly once.
 */
enum drm_tilecopy_status {
	DRM_TILECOPY_STATUS_OK = 0,
	DRM_TILECOPY_STATUS_FAULT_UNMAPPED = 1,
	DRM_TILECOPY_STATUS_FAULT_PERM = 2,
	DRM_TILECOPY_STATUS_DMA_ERROR = 3,
	DRM_TILECOPY_STATUS_BAD_DESC = 4,
	DRM_TILECOPY_STATUS_TIMEOUT = 5,
	DRM_TILECOPY_STATUS_CANCELLED = 6,
	DRM_TILECOPY_STATUS_NO_FIRMWARE = 7,
	DRM_TILECOPY_STATUS_PENDING = 8,
	DRM_TILECOPY_STATUS_RESET = 9,
};

/**
 * DRM_TILECOPY_ERR_DESC_NONE - &drm_tilecopy_wait.err_desc when the status
 * is not about one descriptor: OK, PENDING, TIMEOUT, RESET, CANCELLED,
 * NO_FIRMWARE, or a fault in the job's ring entry rather than in a
 * descriptor.
 */
#define DRM_TILECOPY_ERR_DESC_NONE	0xffffffffu

/* ------------------------------------------------------------------------
 * ioctls
 * ------------------------------------------------------------------------
 */

#define DRM_TILECOPY_GET_PARAM		0x00
#define DRM_TILECOPY_BO_CREATE		0x01
#define DRM_TILECOPY_BO_INFO		0x02
#define DRM_TILECOPY_SUBMIT		0x03
#define DRM_TILECOPY_WAIT		0x04
#define DRM_TILECOPY_BO_USERPTR		0x05	/* 1.2, FEATURE_USERPTR */

/**
 * enum drm_tilecopy_param - what DRM_IOCTL_TILECOPY_GET_PARAM reports.
 * @DRM_TILECOPY_PARAM_ABI_VERSION: DRM_TILECOPY_ABI_VERSION of the driver.
 * @DRM_TILECOPY_PARAM_HW_VERSION: engine VERSION register.
 * @DRM_TILECOPY_PARAM_FW_VERSION: running firmware version.
 * @DRM_TILECOPY_PARAM_NUM_QUEUES: hardware queues usable by SUBMIT.
 * @DRM_TILECOPY_PARAM_MAX_DIMS: dimensions per descriptor.
 * @DRM_TILECOPY_PARAM_MAX_DESCS: descriptors per job.
 * @DRM_TILECOPY_PARAM_MAX_BOS: buffer objects per job.
 * @DRM_TILECOPY_PARAM_VA_START: first device VA given to buffer objects.
 * @DRM_TILECOPY_PARAM_VA_SIZE: size of the device VA range.
 * @DRM_TILECOPY_PARAM_TILEBUF_SIZE: bytes of on-chip tile buffer.
 * @DRM_TILECOPY_PARAM_PCI_ID: PCI vendor << 16 | device.
 * @DRM_TILECOPY_PARAM_FEATURES: DRM_TILECOPY_FEATURE_* bits (a driver
 *	without this parameter answers -EINVAL: it has none of them).
 * @DRM_TILECOPY_PARAM_DESC_SIZE: sizeof(struct drm_tilecopy_desc) as the
 *	driver knows it; larger @desc_size values are accepted.
 * @DRM_TILECOPY_PARAM_MAX_JOB_ELEMS: the work bound: elements one job may
 *	write (see DRM_TILECOPY_MAX_JOB_ELEMS); SUBMIT fails with -E2BIG above.
 * @DRM_TILECOPY_PARAM_MAX_FILE_JOBS: jobs a file may have submitted and not
 *	yet finished; SUBMIT fails with -EBUSY beyond.
 * @DRM_TILECOPY_PARAM_MAX_FILE_DESC_BYTES: kernel memory the descriptors of
 *	those jobs may hold (each job: desc_count * DRM_TILECOPY_PARAM_DESC_SIZE
 *	rounded up to pages);
 *	SUBMIT fails with -EBUSY beyond.
 * @DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS: engine time a job may use before it
 *	counts as hung (0: never).
 * @DRM_TILECOPY_PARAM_BAN_HANGS: hangs after which a file is banned: its
 *	SUBMITs fail with -ECANCELED, its jobs not yet started are cancelled.
 * @DRM_TILECOPY_PARAM_FILE_HANGS: hangs this file has caused so far.
 * @DRM_TILECOPY_PARAM_CONVERT_TYPES: bit (1 << type) for every
 *	&enum drm_tilecopy_type the engine converts from and to (1.2,
 *	DRM_TILECOPY_FEATURE_CONVERT); 0 without typed descriptors.
 */
enum drm_tilecopy_param {
	DRM_TILECOPY_PARAM_ABI_VERSION = 0,
	DRM_TILECOPY_PARAM_HW_VERSION = 1,
	DRM_TILECOPY_PARAM_FW_VERSION = 2,
	DRM_TILECOPY_PARAM_NUM_QUEUES = 3,
	DRM_TILECOPY_PARAM_MAX_DIMS = 4,
	DRM_TILECOPY_PARAM_MAX_DESCS = 5,
	DRM_TILECOPY_PARAM_MAX_BOS = 6,
	DRM_TILECOPY_PARAM_VA_START = 7,
	DRM_TILECOPY_PARAM_VA_SIZE = 8,
	DRM_TILECOPY_PARAM_TILEBUF_SIZE = 9,
	DRM_TILECOPY_PARAM_PCI_ID = 10,
	DRM_TILECOPY_PARAM_FEATURES = 11,
	DRM_TILECOPY_PARAM_DESC_SIZE = 12,
	DRM_TILECOPY_PARAM_MAX_JOB_ELEMS = 13,
	DRM_TILECOPY_PARAM_MAX_FILE_JOBS = 14,
	DRM_TILECOPY_PARAM_MAX_FILE_DESC_BYTES = 15,
	DRM_TILECOPY_PARAM_JOB_TIMEOUT_NS = 16,
	DRM_TILECOPY_PARAM_BAN_HANGS = 17,
	DRM_TILECOPY_PARAM_FILE_HANGS = 18,
	DRM_TILECOPY_PARAM_CONVERT_TYPES = 19,
};

/*
 * DRM_TILECOPY_PARAM_FEATURES bits; append-only. Later additions to the
 * interface (descriptor fields, ioctls, flags) each get a bit here.
 */
/* SUBMIT accepts desc_size >= 192, the array strided by it. */
#define DRM_TILECOPY_FEATURE_DESC_STRIDE	(1ull << 0)
/* WAIT reports DRM_TILECOPY_STATUS_RESET; jobs are never replayed. */
#define DRM_TILECOPY_FEATURE_STATUS_RESET	(1ull << 1)
/* The limits of parameters MAX_JOB_ELEMS to FILE_HANGS are enforced. */
#define DRM_TILECOPY_FEATURE_LIMITS		(1ull << 2)
/* Typed descriptors: struct drm_tilecopy_desc from @src_type on (1.2). */
#define DRM_TILECOPY_FEATURE_CONVERT		(1ull << 3)
/*
 * BO_USERPTR (1.2): buffer objects over the caller's own memory. A driver
 * may leave the bit clear where it cannot offer them (an engine whose DMA
 * does not snoop the CPU caches); BO_USERPTR then fails with -EOPNOTSUPP.
 */
#define DRM_TILECOPY_FEATURE_USERPTR		(1ull << 4)

/**
 * struct drm_tilecopy_get_param - query a device parameter.
 */
struct drm_tilecopy_get_param {
	/** @param: Input, one of &enum drm_tilecopy_param. */
	__u32 param;
	/** @pad: must be zero. */
	__u32 pad;
	/** @value: Output, the value. */
	__u64 value;
};

/**
 * struct drm_tilecopy_bo_create - create a GEM shmem buffer object.
 *
 * The BO is mapped into the file's device address space at creation, with
 * read and write permission unless DRM_TILECOPY_BO_READ_ONLY is given.
 */
struct drm_tilecopy_bo_create {
	/** @size: Input, bytes, > 0; rounded up to the page size. */
	__u64 size;
	/** @flags: Input, DRM_TILECOPY_BO_* flags; unknown bits are refused. */
	__u32 flags;
	/** @handle: Output, GEM handle. */
	__u32 handle;
	/** @va: Output, device virtual address of the first byte. */
	__u64 va;
	/** @mmap_offset: Output, offset to pass to mmap() on the DRM fd. */
	__u64 mmap_offset;
};

/** DRM_TILECOPY_BO_READ_ONLY - the engine may read but never write the BO. */
#define DRM_TILECOPY_BO_READ_ONLY	(1u << 0)

/**
 * struct drm_tilecopy_bo_info - look up a BO (also one imported by PRIME,
 * which is mapped into the device address space on import).
 */
struct drm_tilecopy_bo_info {
	/** @handle: Input, GEM handle. */
	__u32 handle;
	/** @flags: Input, must be zero. */
	__u32 flags;
	/** @size: Output, bytes. */
	__u64 size;
	/** @va: Output, device virtual address. */
	__u64 va;
	/** @mmap_offset: Output, offset to pass to mmap() on the DRM fd. */
	__u64 mmap_offset;
};

/**
 * struct drm_tilecopy_bo_userptr - a buffer object over the caller's memory.
 *
 * The pages of [@addr, @addr + @size) are pinned (long-term, the way
 * RDMA pins memory) and mapped into the file's device address space, like
 * a BO of BO_CREATE, read-only with DRM_TILECOPY_BO_READ_ONLY. The BO
 * holds the pages, not the addresses: they stay pinned, and the engine
 * reads and writes those very pages, until the BO is freed (its handle is
 * closed and every job that lists it has finished), whatever becomes of
 * the range meanwhile (munmap, mremap, fork). The pinned pages count
 * against the caller's RLIMIT_MEMLOCK (as pinned, not locked, memory),
 * unless it has CAP_IPC_LOCK.
 *
 * Such a BO has no mmap offset (the caller has its own mapping) and cannot
 * be exported through PRIME (-EOPNOTSUPP). BO_INFO reports @size and @va.
 *
 * Errors: -EINVAL (flags, @size 0, @addr + @size wrapping or larger than
 * the address space), -EFAULT (not user memory, or a page of the range is
 * not mapped, lacks the access asked for, or cannot be pinned: I/O or PFN
 * mappings such as a BO's own mmap, a writable shared file mapping whose
 * filesystem tracks dirty pages, a poisoned page), -ENOMEM (RLIMIT_MEMLOCK, more than RAM,
 * out of memory), -ENOSPC (the address space is full), -EOPNOTSUPP (the
 * feature is not offered, a DAX file mapping, a DMA mapping that would be
 * bounced), -EAGAIN (a page could not be migrated for the pin: retry),
 * -EINTR (a fatal signal while pinning), -EIO (wedged), -ENODEV (the device
 * is gone).
 * docs/uapi.md has the details and the order of the checks.
 */
struct drm_tilecopy_bo_userptr {
	/** @addr: Input, user address of the first byte; any alignment. */
	__u64 addr;
	/** @size: Input, bytes, > 0. */
	__u64 size;
	/** @flags: Input, DRM_TILECOPY_BO_READ_ONLY or 0. */
	__u32 flags;
	/** @handle: Output, GEM handle. */
	__u32 handle;
	/** @va: Output, device virtual address of the byte at @addr. */
	__u64 va;
};

/**
 * struct drm_tilecopy_submit - queue a job: a list of descriptors.
 *
 * The driver copies the descriptors and checks every field; the whole access
 * footprint of each descriptor (source for COPY, destination for all, the
 * scales of DRM_TILECOPY_CVT_SCALES) must lie inside one BO of @bo_handles,
 * and destinations inside a writable BO. docs/uapi.md lists every errno; in
 * short: -EINVAL (a field), -ENOENT (a handle), -EFAULT (a pointer), -E2BIG
 * (more than MAX_JOB_ELEMS, or a row too long), -EOPNOTSUPP (a typed
 * descriptor without DRM_TILECOPY_FEATURE_CONVERT), -EBUSY (MAX_FILE_JOBS or
 * MAX_FILE_DESC_BYTES reached: WAIT for a job, submit again), -ECANCELED
 * (the file is banned), -EIO (the device is wedged), -ENODEV (the device is
 * gone), -ENOMEM.
 */
struct drm_tilecopy_submit {
	/** @descs: Input, user pointer to struct drm_tilecopy_desc[@desc_count]. */
	__u64 descs;
	/** @bo_handles: Input, user pointer to __u32[@bo_count] GEM handles. */
	__u64 bo_handles;
	/** @in_syncobjs: Input, user pointer to __u32[@in_syncobj_count]. */
	__u64 in_syncobjs;
	/** @desc_count: Input, 1..DRM_TILECOPY_PARAM_MAX_DESCS. */
	__u32 desc_count;
	/**
	 * @desc_size: Input, bytes per element of @descs, >= 192: the
	 * caller's sizeof(struct drm_tilecopy_desc). Bytes beyond the struct
	 * the driver knows (DRM_TILECOPY_PARAM_DESC_SIZE) must be zero.
	 */
	__u32 desc_size;
	/** @bo_count: Input, 1..DRM_TILECOPY_PARAM_MAX_BOS. */
	__u32 bo_count;
	/** @in_syncobj_count: Input, syncobjs to wait for before running. */
	__u32 in_syncobj_count;
	/** @out_syncobj: Input, syncobj to signal on completion, or 0. */
	__u32 out_syncobj;
	/** @queue: Input, hardware queue, < DRM_TILECOPY_PARAM_NUM_QUEUES. */
	__u32 queue;
	/** @flags: Input, must be zero. */
	__u32 flags;
	/** @pad: must be zero. */
	__u32 pad;
	/** @job_id: Output, id for DRM_IOCTL_TILECOPY_WAIT, never 0. */
	__u64 job_id;
};

/**
 * struct drm_tilecopy_wait - wait for a job of this file and get its status.
 *
 * Returns 0 once the job finished (whatever its status), -ETIMEDOUT if
 * @timeout_ns passed first (status then DRM_TILECOPY_STATUS_PENDING), or
 * -ENOENT for an id this file never got or whose status was already
 * reaped. A job's status is kept until it is waited on successfully or the
 * file is closed.
 */
struct drm_tilecopy_wait {
	/** @job_id: Input, from SUBMIT. */
	__u64 job_id;
	/** @timeout_ns: Input, absolute CLOCK_MONOTONIC deadline in ns. */
	__s64 timeout_ns;
	/** @flags: Input, must be zero. */
	__u32 flags;
	/** @status: Output, &enum drm_tilecopy_status. */
	__u32 status;
	/**
	 * @err_desc: Output, index of the failing descriptor in the job, or
	 * DRM_TILECOPY_ERR_DESC_NONE.
	 */
	__u32 err_desc;
	/** @pad: must be zero. */
	__u32 pad;
	/** @err_addr: Output, faulting device VA (faults), else 0. */
	__u64 err_addr;
};

#define DRM_IOCTL_TILECOPY_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_GET_PARAM, \
		 struct drm_tilecopy_get_param)
#define DRM_IOCTL_TILECOPY_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_BO_CREATE, \
		 struct drm_tilecopy_bo_create)
#define DRM_IOCTL_TILECOPY_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_BO_INFO, \
		 struct drm_tilecopy_bo_info)
#define DRM_IOCTL_TILECOPY_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_SUBMIT, \
		 struct drm_tilecopy_submit)
#define DRM_IOCTL_TILECOPY_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_WAIT, \
		 struct drm_tilecopy_wait)
#define DRM_IOCTL_TILECOPY_BO_USERPTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_TILECOPY_BO_USERPTR, \
		 struct drm_tilecopy_bo_userptr)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_DRM_TILECOPY_ACCEL_H_ */
