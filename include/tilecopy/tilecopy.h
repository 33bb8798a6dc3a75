/* SPDX-License-Identifier: MIT */
/*
 * tilecopy.h - libtilecopy, layout conversion for the tile-copy engine.
 *
 * 1. layouts:  tilecopy_layout_t, hierarchical shape:stride (CuTe style),
 *              and tilecopy_tensor_t, a layout with logical extents + dtype,
 *              built from a format name (NCHW, nChw16c, zN, strided:..., ...)
 * 2. planner:  (src tensor, dst tensor) -> tilecopy_plan_t, a list of engine
 *              descriptors (struct drm_tilecopy_desc)
 * 3. executor: a plan runs on the CPU (tilecopy_plan_execute_cpu) or on a
 *              device (tilecopy/device.h)
 *
 * Every call returns a tilecopy_status_t; on failure tilecopy_last_error()
 * gives a message (per thread) naming the offending field.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_TILECOPY_H
#define TILECOPY_TILECOPY_H

#include <stddef.h>
#include <stdint.h>

#if defined(__cplusplus)
extern "C" {
#endif

#if defined(TILECOPY_BUILDING)
#define TILECOPY_API __attribute__((visibility("default")))
#else
#define TILECOPY_API
#endif

/* ---- status ------------------------------------------------------------ */

typedef enum tilecopy_status {
	TILECOPY_SUCCESS = 0,
	TILECOPY_ERR_INVALID_ARG = 1,	/* NULL or out-of-range argument */
	TILECOPY_ERR_PARSE = 2,		/* syntax error in a format/layout text */
	TILECOPY_ERR_UNKNOWN_FORMAT = 3,
	TILECOPY_ERR_SHAPE_MISMATCH = 4,
	TILECOPY_ERR_DTYPE_MISMATCH = 5,	/* element sizes differ */
	TILECOPY_ERR_BLOCK = 6,		/* block does not fit the format */
	TILECOPY_ERR_OVERLAP = 7,	/* destination overlaps itself */
	TILECOPY_ERR_BUFFER_TOO_SMALL = 8,
	TILECOPY_ERR_OVERFLOW = 9,	/* a size does not fit in 64 bits */
	TILECOPY_ERR_NOMEM = 10,
	TILECOPY_ERR_UNSUPPORTED = 11,	/* valid, but not implemented/available */
	TILECOPY_ERR_NO_DEVICE = 12,
	TILECOPY_ERR_DEVICE = 13,	/* the driver refused or failed a call */
	TILECOPY_ERR_TIMEOUT = 14,
	TILECOPY_ERR_FAULT = 15,	/* the engine faulted on a job */
	TILECOPY_ERR_IO = 16,		/* file I/O */
} tilecopy_status_t;

/** tilecopy_status_str - short name of a status ("shape mismatch"). */
TILECOPY_API const char *tilecopy_status_str(tilecopy_status_t st);

/**
 * tilecopy_last_error - message of the last failed call on this thread,
 * naming the field, e.g. "dst: shape 8x12 differs from src shape 8x13".
 * Empty string when the last call succeeded.
 */
TILECOPY_API const char *tilecopy_last_error(void);

/* ---- element types ----------------------------------------------------- */

typedef enum tilecopy_dtype {
	TILECOPY_DT_U8 = 0,
	TILECOPY_DT_I8,
	TILECOPY_DT_F16,
	TILECOPY_DT_BF16,
	TILECOPY_DT_I16,
	TILECOPY_DT_F32,
	TILECOPY_DT_I32,
	TILECOPY_DT_F64,
	TILECOPY_DT_I64,
} tilecopy_dtype_t;

/** tilecopy_dtype_size - bytes per element (1, 2, 4 or 8); 0 if unknown. */
TILECOPY_API size_t tilecopy_dtype_size(tilecopy_dtype_t dt);
/** tilecopy_dtype_name - "f16", ... */
TILECOPY_API const char *tilecopy_dtype_name(tilecopy_dtype_t dt);
/** tilecopy_dtype_parse - "u8|i8|f16|bf16|i16|f32|i32|f64|i64". */
TILECOPY_API tilecopy_status_t tilecopy_dtype_parse(tilecopy_dtype_t *dt,
						    const char *name);

/* ---- layouts (CuTe vocabulary) ------------------------------------------ */

#define TILECOPY_MAX_RANK	16	/* top-level modes of a layout */
#define TILECOPY_MAX_LEAVES	32	/* leaves of the whole tree */
#define TILECOPY_MAX_TREE	128	/* profile text, see below */

/**
 * tilecopy_layout_t - a hierarchical shape:stride layout, by value.
 *
 * The leaves, in order, are (shape[i], stride[i]); strides in elements.
 * @profile spells the nesting with one 'x' a leaf, e.g. "((x,x),(x,x))" for
 * ((4,2),(4,3)):((4,16),(1,32)); a rank-1 layout of one leaf is "x".
 * @rank counts top-level modes; mode m owns leaves [mode[m], mode[m+1]).
 * Coordinates inside a mode are colexicographic (first leaf fastest).
 */
typedef struct tilecopy_layout {
	int rank;
	int nleaves;
	int mode[TILECOPY_MAX_RANK + 1];
	int64_t shape[TILECOPY_MAX_LEAVES];
	int64_t stride[TILECOPY_MAX_LEAVES];
	char profile[TILECOPY_MAX_TREE];
} tilecopy_layout_t;

/** tilecopy_layout_parse - CuTe notation, "((4,2),(4,3)):((4,16),(1,32))". */
TILECOPY_API tilecopy_status_t tilecopy_layout_parse(tilecopy_layout_t *out,
						     const char *text);
/** tilecopy_layout_make - a flat layout of @rank single-leaf modes. */
TILECOPY_API tilecopy_status_t tilecopy_layout_make(tilecopy_layout_t *out,
						    int rank,
						    const int64_t *shape,
						    const int64_t *stride);
/**
 * tilecopy_layout_print - CuTe notation into @buf (always NUL terminated).
 * @return TILECOPY_ERR_INVALID_ARG if it did not fit (output truncated).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_print(const tilecopy_layout_t *l,
						     char *buf, size_t size);

TILECOPY_API int64_t tilecopy_layout_size(const tilecopy_layout_t *l);
/** tilecopy_layout_cosize - 1 + largest offset (0 for an empty layout). */
TILECOPY_API int64_t tilecopy_layout_cosize(const tilecopy_layout_t *l);
TILECOPY_API int tilecopy_layout_rank(const tilecopy_layout_t *l);
TILECOPY_API int tilecopy_layout_depth(const tilecopy_layout_t *l);
/** tilecopy_layout_mode_size - size of top-level mode @m. */
TILECOPY_API int64_t tilecopy_layout_mode_size(const tilecopy_layout_t *l,
					       int m);

/**
 * tilecopy_layout_crd2idx - offset of a coordinate, one integer per top-level
 * mode (coord[m] < mode_size(m)).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_crd2idx(const tilecopy_layout_t *l,
						       const int64_t *coord,
						       int64_t *idx);
/**
 * tilecopy_layout_idx2crd - the coordinate (one integer per top-level mode)
 * of linear index @idx in the layout's domain, colexicographic (mode 0
 * fastest), as CuTe's idx2crd of the shape.
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_idx2crd(const tilecopy_layout_t *l,
						       int64_t idx,
						       int64_t *coord);

/** tilecopy_layout_coalesce - same function, fewest flat modes. */
TILECOPY_API tilecopy_status_t tilecopy_layout_coalesce(tilecopy_layout_t *out,
							const tilecopy_layout_t *l);
/** tilecopy_layout_composition - R(i) = a(b(i)) for i < size(b). */
TILECOPY_API tilecopy_status_t tilecopy_layout_composition(tilecopy_layout_t *out,
							   const tilecopy_layout_t *a,
							   const tilecopy_layout_t *b);
/** tilecopy_layout_complement - CuTe complement(a, cotarget). */
TILECOPY_API tilecopy_status_t tilecopy_layout_complement(tilecopy_layout_t *out,
							  const tilecopy_layout_t *a,
							  int64_t cotarget);
/** tilecopy_layout_right_inverse - a(R(i)) = i for i < size(R). */
TILECOPY_API tilecopy_status_t tilecopy_layout_right_inverse(tilecopy_layout_t *out,
							     const tilecopy_layout_t *a);
/** tilecopy_layout_logical_divide - a o (tiler, complement(tiler, size(a))). */
TILECOPY_API tilecopy_status_t tilecopy_layout_logical_divide(tilecopy_layout_t *out,
							      const tilecopy_layout_t *a,
							      const tilecopy_layout_t *tiler);

/* ---- tensors: a layout + logical extents + dtype ------------------------- */

/**
 * tilecopy_tensor_t - a tensor in memory.
 *
 * @extent[m] is the logical size of top-level mode m; it may be smaller than
 * the mode's size, the rest being padding (never read in a source, written
 * with zeros in a destination). Logical order never changes: 4-D is
 * N,C,H,W, 5-D N,C,D,H,W, matrices (batch..., rows, cols).
 */
typedef struct tilecopy_tensor {
	tilecopy_layout_t layout;
	int64_t extent[TILECOPY_MAX_RANK];
	tilecopy_dtype_t dtype;
	char format[48];		/* canonical format name, for messages */
} tilecopy_tensor_t;

/**
 * tilecopy_tensor_make - build a tensor from a format.
 * @format: NCHW, NHWC, CHWN, HWCN, ... (any order of the dim letters),
 *	NCDHW, NDHWC, NCHW4/8/16/32/64 (nChw8c, nChw16c, ...), NCDHW16
 *	(nCdhw16c), NC1HWC0, CHWN4, RowMajor (ND), ColumnMajor, zN, zZ, nZ,
 *	nN, "strided:s0,s1,..." (elements, logical order), or a layout in
 *	CuTe notation.
 * @shape, @rank: logical shape.
 * @block: NULL, or a block override: "RxC" for a fractal format, "C0" for
 *	NC1HWC0.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_make(tilecopy_tensor_t *out,
						    const char *format,
						    const int64_t *shape,
						    int rank,
						    tilecopy_dtype_t dtype,
						    const char *block);

/** tilecopy_shape_parse - "8x12" or "32,64,56,56" into @shape (max @max). */
TILECOPY_API tilecopy_status_t tilecopy_shape_parse(int64_t *shape, int *rank,
						    int max, const char *text);

/**
 * tilecopy_tensor_bytes - physical size in bytes (DirectML's
 * DMLCalcBufferTensorSize rule: (1 + sum((size-1)*stride)) * elem_size).
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_bytes(const tilecopy_tensor_t *t,
						     uint64_t *bytes);
/** tilecopy_tensor_is_dense - physical elements == logical elements. */
TILECOPY_API int tilecopy_tensor_is_dense(const tilecopy_tensor_t *t);
/**
 * tilecopy_tensor_is_contiguous_in - the tensor has exactly the strides
 * @format would give its shape (PyTorch's is_contiguous(memory_format)).
 */
TILECOPY_API int tilecopy_tensor_is_contiguous_in(const tilecopy_tensor_t *t,
						  const char *format);
/** tilecopy_tensor_has_padding - physical bytes hold non-logical elements. */
TILECOPY_API int tilecopy_tensor_has_padding(const tilecopy_tensor_t *t);
/** tilecopy_tensor_has_overlap - two logical elements share an address. */
TILECOPY_API int tilecopy_tensor_has_overlap(const tilecopy_tensor_t *t);

/* ---- plans --------------------------------------------------------------- */

struct drm_tilecopy_desc;
typedef struct tilecopy_plan tilecopy_plan_t;

/**
 * tilecopy_plan_create - plan the conversion @src -> @dst.
 *
 * The plan is a list of engine descriptors whose src/dst are byte offsets
 * into the source and destination buffers. Destination padding is filled
 * with zeros; source padding is never read.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_create(tilecopy_plan_t **plan,
						    const tilecopy_tensor_t *src,
						    const tilecopy_tensor_t *dst);
TILECOPY_API void tilecopy_plan_destroy(tilecopy_plan_t *plan);

/** tilecopy_plan_descs - the descriptors; *count set to their number. */
TILECOPY_API const struct drm_tilecopy_desc *
tilecopy_plan_descs(const tilecopy_plan_t *plan, size_t *count);

/** tilecopy_plan_src_bytes / dst_bytes - buffer sizes the plan needs. */
TILECOPY_API uint64_t tilecopy_plan_src_bytes(const tilecopy_plan_t *plan);
TILECOPY_API uint64_t tilecopy_plan_dst_bytes(const tilecopy_plan_t *plan);
/** tilecopy_plan_moved_bytes - bytes read + written by the plan. */
TILECOPY_API uint64_t tilecopy_plan_moved_bytes(const tilecopy_plan_t *plan);

/** tilecopy_desc_format - one descriptor as a line of text. */
TILECOPY_API tilecopy_status_t tilecopy_desc_format(const struct drm_tilecopy_desc *d,
						    char *buf, size_t size);

/**
 * tilecopy_plan_execute_cpu - run the plan on the CPU.
 * @cpu: NULL (best available, or $TILECOPY_CPU) or "scalar", "sse2",
 *	"avx2", "avx512", "neon". An unavailable choice is an error.
 * Buffers smaller than the plan needs are refused before anything is
 * written.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_execute_cpu(const tilecopy_plan_t *plan,
							 const void *src,
							 size_t src_size,
							 void *dst,
							 size_t dst_size,
							 const char *cpu);

/** tilecopy_cpu_name - executor NULL/@cpu resolves to, or NULL + error. */
TILECOPY_API const char *tilecopy_cpu_name(const char *cpu);

/* ---- CPU threads (issue 15) ----------------------------------------------
 * The CPU executors split a descriptor that writes 256 KiB or more over up
 * to N threads: the calling thread and N - 1 workers of a pool that is
 * created on first use and parked between calls. Settings are process-wide
 * and may change at any time; a call in progress keeps the ones it began
 * with. A call made while another thread's call holds the pool runs on its
 * own thread.
 */

#define TILECOPY_MAX_THREADS	64

/**
 * tilecopy_cpu_set_threads - threads per CPU execution, 1..TILECOPY_MAX_THREADS;
 * 0 restores the default: $TILECOPY_THREADS (read once, at first use), else 1.
 */
TILECOPY_API tilecopy_status_t tilecopy_cpu_set_threads(int n);
/** tilecopy_cpu_threads - the thread count calls use now (>= 1). */
TILECOPY_API int tilecopy_cpu_threads(void);

/**
 * tilecopy_cpu_set_affinity - where the pool's workers run.
 * @cpus, @ncpus > 0: one worker per listed CPU, pinned to it. A call takes
 *	its workers from the list in order, skipping the CPU the caller is on,
 *	so caller and workers never share a CPU while enough are listed.
 * @ncpus == 0 (@cpus may be NULL): workers are not pinned.
 * @ncpus < 0: the default, as a list of every CPU the process may run on
 *	(its affinity mask at first use), unless $TILECOPY_AFFINITY says
 *	"none" or lists CPUs ("0,2,4").
 * Without pinning, a scheduler that places a woken thread on its waker's
 * CPU can run a worker after its caller instead of beside it.
 * @return TILECOPY_ERR_INVALID_ARG for a negative CPU number or more than
 *	1024 CPUs.
 */
TILECOPY_API tilecopy_status_t tilecopy_cpu_set_affinity(const int *cpus, int ncpus);

#if defined(__cplusplus)
}
#endif

#endif /* TILECOPY_TILECOPY_H */
