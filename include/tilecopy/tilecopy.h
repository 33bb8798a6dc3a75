/* SPDX-License-Identifier: MIT */
/*
 * tilecopy.h - libtilecopy, layout conversion for the tile-copy engine.
 *
 * 1. layouts:  tilecopy_layout_t, hierarchical shape:stride (CuTe style)
 * 2. tensors:  tilecopy_tensor_t, a layout + logical extents + dtype, made
 *              from a format name (NCHW, nChw16c, zN, ...), from shape and
 *              stride arrays, from a layout, or from DLPack (dlpack.h)
 * 3. plans:    (src tensor, dst tensor) -> tilecopy_plan_t, a list of engine
 *              descriptors (struct drm_tilecopy_desc)
 * 4. executor: a plan runs on the CPU (tilecopy_plan_execute_cpu) or on an
 *              engine (tilecopy/device.h, library tilecopy-device)
 *
 * The ABI. Layouts, tensors and plans are opaque handles: made by a
 * _create/_parse call, read through getters, freed by _destroy. No struct
 * of this header is passed by value or embedded in a caller, so fields can
 * grow without breaking programs built against an older header. Flags
 * arguments refuse unknown bits (TILECOPY_ERR_INVALID_ARG).
 *
 * Statuses. Every function that can fail returns a tilecopy_status_t;
 * outputs come first and are written only on success (a handle output is
 * set to NULL on failure). tilecopy_last_error() then gives a message
 * (per thread) naming the offending field.
 *
 * NULL. No function crashes on NULL: a NULL handle, input or output
 * pointer gives TILECOPY_ERR_INVALID_ARG, and _destroy(NULL) does nothing.
 * A handle of the wrong kind or one already destroyed is refused too, as
 * far as the library can tell (handles carry a tag; a freed one is not
 * guaranteed to be detected).
 *
 * Threads. Handles are immutable once made: any number of threads may read,
 * plan from and execute the same layouts, tensors and plans at the same
 * time. Destroying a handle while another thread still uses it is the
 * caller's race. tilecopy_last_error is per thread. The only process-wide
 * state is the CPU executors' settings: tilecopy_cpu_set_threads() and
 * tilecopy_cpu_set_affinity() (any thread may call them while others
 * execute plans; each execution uses the settings of when it starts) and
 * the environment variables TILECOPY_CPU, TILECOPY_THREADS and
 * TILECOPY_AFFINITY, read once, at first use.
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

/* ---- version --------------------------------------------------------------- */

#define TILECOPY_VERSION_MAJOR	1
#define TILECOPY_VERSION_MINOR	1
#define TILECOPY_VERSION_PATCH	0
#define TILECOPY_VERSION_ENCODE(major, minor, patch) \
	(((major) << 16) | ((minor) << 8) | (patch))
/** TILECOPY_VERSION - the version of this header, major << 16 | minor << 8 | patch. */
#define TILECOPY_VERSION TILECOPY_VERSION_ENCODE(TILECOPY_VERSION_MAJOR, \
						 TILECOPY_VERSION_MINOR, \
						 TILECOPY_VERSION_PATCH)

/**
 * tilecopy_version - the version of the library loaded at run time, encoded
 * as TILECOPY_VERSION. A program built against M.m runs with any M.x,
 * x >= m (functions "since 1.1" need 1.1; the dynamic linker says so).
 * Thread-safe; cannot fail.
 */
TILECOPY_API uint32_t tilecopy_version(void);
/** tilecopy_version_string - the library's version as "major.minor.patch" ("1.1.0"). Thread-safe; cannot fail. */
TILECOPY_API const char *tilecopy_version_string(void);

/* ---- status ------------------------------------------------------------ */

typedef enum tilecopy_status {
	TILECOPY_SUCCESS = 0,
	TILECOPY_ERR_INVALID_ARG = 1,	/* NULL, bad handle, out-of-range value */
	TILECOPY_ERR_PARSE = 2,		/* syntax error in a format/layout text */
	TILECOPY_ERR_UNKNOWN_FORMAT = 3,
	TILECOPY_ERR_SHAPE_MISMATCH = 4,
	TILECOPY_ERR_DTYPE_MISMATCH = 5,	/* element types differ */
	TILECOPY_ERR_BLOCK = 6,		/* block does not fit the format */
	TILECOPY_ERR_OVERLAP = 7,	/* memory that must not overlap does */
	TILECOPY_ERR_BUFFER_TOO_SMALL = 8,
	TILECOPY_ERR_OVERFLOW = 9,	/* a size does not fit in 64 bits */
	TILECOPY_ERR_NOMEM = 10,
	TILECOPY_ERR_UNSUPPORTED = 11,	/* valid, but not implemented/available */
	TILECOPY_ERR_NO_DEVICE = 12,
	TILECOPY_ERR_DEVICE = 13,	/* the driver refused or failed a call */
	TILECOPY_ERR_TIMEOUT = 14,	/* not finished by the deadline */
	TILECOPY_ERR_FAULT = 15,	/* the engine faulted on a job */
	TILECOPY_ERR_IO = 16,		/* file I/O */
	TILECOPY_ERR_RESET = 17,	/* the engine was reset under a job */
} tilecopy_status_t;

/**
 * tilecopy_status_str - short name of a status ("shape mismatch"); "unknown
 * status" for a value outside the enum. Never NULL. Thread-safe.
 */
TILECOPY_API const char *tilecopy_status_str(tilecopy_status_t st);

/**
 * tilecopy_last_error - message of the last failed call on this thread,
 * naming the field, e.g. "dst: shape 8x12 differs from src shape 8x13".
 * Empty string when the last call succeeded. Never NULL; valid until the
 * thread's next tilecopy call.
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

/** tilecopy_dtype_size - bytes per element (1, 2, 4 or 8). */
TILECOPY_API tilecopy_status_t tilecopy_dtype_size(tilecopy_dtype_t dt, size_t *bytes);
/** tilecopy_dtype_name - "f16", ...; a static string. */
TILECOPY_API tilecopy_status_t tilecopy_dtype_name(tilecopy_dtype_t dt, const char **name);
/**
 * tilecopy_dtype_parse - "u8|i8|f16|bf16|i16|f32|i32|f64|i64" or long names
 * ("float16", "int8", ...); another name is TILECOPY_ERR_PARSE.
 */
TILECOPY_API tilecopy_status_t tilecopy_dtype_parse(tilecopy_dtype_t *dt,
						    const char *name);

/* ---- layouts (CuTe vocabulary) ------------------------------------------ */

/* Limits of this version (they may grow; they size no public struct). */
#define TILECOPY_MAX_RANK	16	/* top-level modes of a layout */
#define TILECOPY_MAX_LEAVES	32	/* leaves of the whole tree */

/**
 * tilecopy_layout_t - a hierarchical shape:stride layout (opaque).
 *
 * Its leaves, in order, are (shape[i], stride[i]), strides in elements.
 * Top-level mode m owns a run of leaves; coordinates inside a mode are
 * colexicographic (first leaf fastest), as CuTe's idx2crd.
 */
typedef struct tilecopy_layout tilecopy_layout_t;

/**
 * tilecopy_layout_parse - CuTe notation, "((4,2),(4,3)):((4,16),(1,32))";
 * without ":strides", CuTe's compact column-major. Numbers 0..2^63-1 (a
 * larger one is TILECOPY_ERR_OVERFLOW). A negative stride, which CuTe
 * allows, is TILECOPY_ERR_UNSUPPORTED: tilecopy addresses memory forward
 * from a tensor's first element (the engine walks forward).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_parse(tilecopy_layout_t **out,
						     const char *text);
/**
 * tilecopy_layout_create - a flat layout of @rank single-leaf modes.
 * @stride: NULL for CuTe's compact column-major strides (1, shape[0], ...);
 *	a negative stride is TILECOPY_ERR_UNSUPPORTED (see layout_parse).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_create(tilecopy_layout_t **out,
						      int rank,
						      const int64_t *shape,
						      const int64_t *stride);
/** tilecopy_layout_clone - a copy the caller destroys. */
TILECOPY_API tilecopy_status_t tilecopy_layout_clone(tilecopy_layout_t **out,
						     const tilecopy_layout_t *l);
/** tilecopy_layout_destroy - free a layout made by any of these calls. */
TILECOPY_API void tilecopy_layout_destroy(tilecopy_layout_t *l);

/**
 * tilecopy_layout_print - CuTe notation into @buf (always NUL terminated
 * when @size > 0). TILECOPY_ERR_BUFFER_TOO_SMALL if it did not fit (the
 * output is truncated and the message gives the size needed); @size 0
 * (@buf may then be NULL) asks for that size.
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_print(const tilecopy_layout_t *l,
						     char *buf, size_t size);

/** tilecopy_layout_size - number of coordinates; OVERFLOW past 2^63. */
TILECOPY_API tilecopy_status_t tilecopy_layout_size(const tilecopy_layout_t *l,
						    int64_t *size);
/** tilecopy_layout_cosize - 1 + largest offset; OVERFLOW past 2^63. */
TILECOPY_API tilecopy_status_t tilecopy_layout_cosize(const tilecopy_layout_t *l,
						      int64_t *cosize);
/** tilecopy_layout_rank - number of top-level modes. */
TILECOPY_API tilecopy_status_t tilecopy_layout_rank(const tilecopy_layout_t *l, int *rank);
/** tilecopy_layout_depth - 0 for a single integer, 1 for a flat tuple, ... */
TILECOPY_API tilecopy_status_t tilecopy_layout_depth(const tilecopy_layout_t *l, int *depth);
/** tilecopy_layout_mode_size - size of top-level mode @m. */
TILECOPY_API tilecopy_status_t tilecopy_layout_mode_size(const tilecopy_layout_t *l,
							 int m, int64_t *size);
/** tilecopy_layout_nleaves - number of leaves of the whole tree. */
TILECOPY_API tilecopy_status_t tilecopy_layout_nleaves(const tilecopy_layout_t *l,
						       int *nleaves);
/** tilecopy_layout_leaf - shape and stride of leaf @i (either output may be NULL). */
TILECOPY_API tilecopy_status_t tilecopy_layout_leaf(const tilecopy_layout_t *l, int i,
						    int64_t *shape, int64_t *stride);
/** tilecopy_layout_mode_leaves - mode @m owns leaves [*first, *first + *count). */
TILECOPY_API tilecopy_status_t tilecopy_layout_mode_leaves(const tilecopy_layout_t *l,
							   int m, int *first, int *count);

/**
 * tilecopy_layout_crd2idx - offset of a coordinate, one integer per
 * top-level mode (@ncoord must equal the rank; coord[m] < mode_size(m)).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_crd2idx(const tilecopy_layout_t *l,
						       const int64_t *coord, int ncoord,
						       int64_t *idx);
/**
 * tilecopy_layout_idx2crd - the coordinate (one integer per top-level mode,
 * @ncoord >= rank, else TILECOPY_ERR_BUFFER_TOO_SMALL) of linear index @idx
 * of the layout's domain, colexicographic (mode 0 fastest), as CuTe's
 * idx2crd of the shape.
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_idx2crd(const tilecopy_layout_t *l,
						       int64_t idx, int64_t *coord,
						       int ncoord);

/**
 * tilecopy_layout_coalesce - same function on [0, size), fewest flat modes
 * (CuTe's coalesce). More than TILECOPY_MAX_RANK leaves that do not merge
 * make no flat layout: TILECOPY_ERR_UNSUPPORTED.
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_coalesce(tilecopy_layout_t **out,
							const tilecopy_layout_t *l);
/**
 * tilecopy_layout_composition - R(i) = a(b(i)) for every i < size(b), as
 * CuTe's composition. a is a function of every x >= 0: past size(a) it
 * goes on along its last leaf (CuTe's coalesce_x: (2,1):(1,32) at 2 is
 * 32), so b may leave a's domain. R has one mode per top-level mode of b
 * (b of one integer mode, as 4:1: its leaves, flat).
 *
 * Accepted whenever a layout gives these values and it is found: b's steps
 * that divide or are divided by a's leaves where they carry into the next
 * (CuTe's divisibility), that carry evenly over a stride-0 leaf of a, or
 * whose digits in a never carry; and, for b of at most 65536 elements, any
 * layout with b's modes, found from the values. So every input CuTe
 * composes correctly is accepted when b has at most 65536 elements. A
 * success is always exact. Otherwise TILECOPY_ERR_INVALID_ARG, also where
 * CuTe's unchecked arithmetic returns a layout that is wrong
 * ((5,1):(6,1) o 4:4: CuTe's (2,2):(24,1) gives 1 for a(8) = 19).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_composition(tilecopy_layout_t **out,
							   const tilecopy_layout_t *a,
							   const tilecopy_layout_t *b);
/**
 * tilecopy_layout_complement - CuTe's complement(a, cotarget): the offsets
 * a leaves out, as a layout R ordered by offset with (a, R) injective. As
 * in CuTe, stride-0 leaves of a are ignored, and a gap below a stride that
 * the smaller leaves' span does not divide is filled rounded down
 * (complement((2,8):(3,32), 64) = (3,5):(1,6), offsets 30 and 31 left
 * out); when every stride of a is a multiple of that span, (a, R) reaches
 * @cotarget. A non-injective a (a stride inside the span of the smaller
 * leaves) is TILECOPY_ERR_INVALID_ARG.
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_complement(tilecopy_layout_t **out,
							  const tilecopy_layout_t *a,
							  int64_t cotarget);
/**
 * tilecopy_layout_right_inverse - R with a(R(i)) = i for i < size(R), as
 * CuTe's right_inverse: a's leaves chained from stride 1 in CuTe's order
 * (size(R) = size(a) when a is a bijection onto [0, size(a))). Where a is
 * not injective several such R exist; this is CuTe's ((5,8,2):(16,1,1)
 * gives 8:5).
 */
TILECOPY_API tilecopy_status_t tilecopy_layout_right_inverse(tilecopy_layout_t **out,
							     const tilecopy_layout_t *a);
/** tilecopy_layout_logical_divide - a o (tiler, complement(tiler, size(a))). */
TILECOPY_API tilecopy_status_t tilecopy_layout_logical_divide(tilecopy_layout_t **out,
							      const tilecopy_layout_t *a,
							      const tilecopy_layout_t *tiler);

/* ---- tensors: a layout + logical extents + dtype ------------------------- */

/**
 * tilecopy_tensor_t - a tensor's place in memory (opaque; no data pointer).
 *
 * The logical order never changes, whatever the format: 4-D shapes are
 * N,C,H,W, 5-D N,C,D,H,W, 3-D N,C,W, matrices (batch..., rows, cols) - as
 * in PyTorch and DLPack. A format only changes the physical order (NHWC
 * and NCHW tensors both have shape N,C,H,W). Pass
 * TILECOPY_TENSOR_SHAPE_PHYSICAL to give a shape in the format's order.
 *
 * Top-level mode m has the logical extent shape[m]; a format may give the
 * mode a larger size (padding: nChw16c with C = 20). Padding of a
 * destination is written with zeros, padding of a source never read.
 */
typedef struct tilecopy_tensor tilecopy_tensor_t;

/**
 * TILECOPY_TENSOR_SHAPE_PHYSICAL - @shape is in the format's physical order,
 *	outermost first (NHWC: N,H,W,C; CHWN4: C,H,W,N; zN: cols, rows): the
 *	order tilecopy_tensor_physical_order gives, the format's own whatever
 *	the shape.
 * TILECOPY_TENSOR_VIEW - a view into memory shared with others: a plan
 *	writing this tensor writes its elements only, never the bytes between
 *	them (a format tensor's gaps and padding are otherwise zero-filled).
 *	Implied by tilecopy_tensor_create_strided and DLPack imports.
 * TILECOPY_STRIDES_BYTES - create_strided: strides are in bytes (multiples
 *	of the element size), as numpy's; else in elements, as DLPack's.
 */
#define TILECOPY_TENSOR_SHAPE_PHYSICAL	(1u << 0)
#define TILECOPY_TENSOR_VIEW		(1u << 1)
#define TILECOPY_STRIDES_BYTES		(1u << 2)

/**
 * tilecopy_tensor_create - a tensor of a format.
 * @format: NCHW, NHWC, CHWN, HWCN, ... (any order of the dim letters),
 *	NCDHW, NDHWC, NCHW4/8/16/32/64 (nChw8c, nChw16c, ...), NCDHW16
 *	(nCdhw16c), NC1HWC0, CHWN4, RowMajor (ND), ColumnMajor, zN, zZ, nZ,
 *	nN, "strided:s0,s1,..." (elements, logical order; gaps zero-filled in a
 *	destination), or a layout in CuTe notation.
 * @shape, @rank: logical shape (or physical, see the flags).
 * @block: NULL, or a block override: "RxC" for a fractal format, "C0" for
 *	NC1HWC0.
 * @flags: TILECOPY_TENSOR_SHAPE_PHYSICAL, TILECOPY_TENSOR_VIEW.
 * RowMajor, ND and ColumnMajor take a rank-1 shape too (a vector).
 * A tensor whose buffer would need more than 2^64 - 1 bytes (byte offset
 * included) is TILECOPY_ERR_OVERFLOW here, as in every constructor.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_create(tilecopy_tensor_t **out,
						      const char *format,
						      const int64_t *shape, int rank,
						      tilecopy_dtype_t dtype,
						      const char *block, uint32_t flags);

/**
 * tilecopy_tensor_create_strided - a strided view, as numpy, PyTorch and
 * DLPack describe tensors: element (i0, ..., ir-1) is at byte
 * @byte_offset + sum(i_k * strides[k]) * elem_size (strides in elements),
 * or @byte_offset + sum(i_k * strides[k]) with TILECOPY_STRIDES_BYTES.
 * @strides: NULL for compact row-major (last dim fastest). Stride 0
 *	(broadcast) is allowed; negative strides are refused
 *	(TILECOPY_ERR_UNSUPPORTED: the engine walks memory forward only).
 * @byte_offset: a multiple of the element size.
 * The tensor is a view (TILECOPY_TENSOR_VIEW): a plan writes its elements
 * and nothing between them.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_create_strided(tilecopy_tensor_t **out,
							      int rank,
							      const int64_t *shape,
							      const int64_t *strides,
							      tilecopy_dtype_t dtype,
							      uint64_t byte_offset,
							      uint32_t flags);

/**
 * tilecopy_tensor_create_layout - a tensor laid out by @layout: its
 * top-level modes are the logical dims.
 * @extent: logical shape, one per mode (<= mode size, the rest is padding),
 *	or NULL for the mode sizes.
 * @flags: TILECOPY_TENSOR_VIEW.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_create_layout(tilecopy_tensor_t **out,
							     const tilecopy_layout_t *layout,
							     const int64_t *extent,
							     tilecopy_dtype_t dtype,
							     uint32_t flags);

/** tilecopy_tensor_destroy - free a tensor (plans made from it stay valid). */
TILECOPY_API void tilecopy_tensor_destroy(tilecopy_tensor_t *t);

/** tilecopy_tensor_rank - number of logical dims. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_rank(const tilecopy_tensor_t *t, int *rank);
/** tilecopy_tensor_shape - the logical shape into shape[0..rank) (@count >= rank). */
TILECOPY_API tilecopy_status_t tilecopy_tensor_shape(const tilecopy_tensor_t *t,
						     int64_t *shape, int count);
/** tilecopy_tensor_dtype - the element type. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_dtype(const tilecopy_tensor_t *t,
						     tilecopy_dtype_t *dtype);
/**
 * tilecopy_tensor_layout - the tensor's layout, borrowed: valid while @t
 * lives; tilecopy_layout_destroy refuses it (it does nothing and says so
 * in tilecopy_last_error), tilecopy_layout_clone makes an own copy.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_layout(const tilecopy_tensor_t *t,
						      const tilecopy_layout_t **layout);
/** tilecopy_tensor_format - the format it was made from, borrowed ("strided", "layout", "dlpack" otherwise). */
TILECOPY_API tilecopy_status_t tilecopy_tensor_format(const tilecopy_tensor_t *t,
						      const char **format);
/** tilecopy_tensor_byte_offset - where element 0 is, from the buffer's start. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_byte_offset(const tilecopy_tensor_t *t,
							   uint64_t *offset);
/**
 * tilecopy_tensor_strides - per-dim strides in elements, when every dim is
 * one stride (TILECOPY_ERR_UNSUPPORTED for a blocked dim such as C of
 * nChw16c: use the layout). A dim of extent 1 has its innermost leaf's
 * stride, as numpy and PyTorch give a contiguous tensor (not 0).
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_strides(const tilecopy_tensor_t *t,
						       int64_t *strides, int count);
/**
 * tilecopy_tensor_physical_order - order[k] = the logical dim that is k-th
 * outermost in memory (NHWC: 0,2,3,1), @count >= rank. For a tensor of a
 * named format: the format's order, the same whatever the shape (the modes
 * by the stride of their outermost leaf for a shape of large dims), so
 * that shape[order[k]] is the physical shape TILECOPY_TENSOR_SHAPE_PHYSICAL
 * takes back to this tensor - dims of size 1, whose strides tie with their
 * neighbours', included (NHWC 2x1x17x3 is 0,2,3,1). For strided, DLPack
 * and layout tensors: by the stride of each dim's outermost leaf, largest
 * first, ties in logical order.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_physical_order(const tilecopy_tensor_t *t,
							      int *order, int count);

/**
 * tilecopy_tensor_bytes - bytes a buffer needs for the tensor: byte offset
 * plus physical size (DirectML's DMLCalcBufferTensorSize rule:
 * (1 + sum((size-1)*stride)) * elem_size).
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_bytes(const tilecopy_tensor_t *t,
						     uint64_t *bytes);
/** tilecopy_tensor_is_dense - *dense = 1 when physical elements == logical elements. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_is_dense(const tilecopy_tensor_t *t,
							int *dense);
/**
 * tilecopy_tensor_is_contiguous_in - *yes = 1 when the tensor has exactly
 * the strides @format would give its shape (PyTorch's
 * is_contiguous(memory_format)); 0 also when @format does not fit it (a
 * rank or block it cannot have). A @format that is not one
 * (TILECOPY_ERR_PARSE, TILECOPY_ERR_UNKNOWN_FORMAT) is an error.
 */
TILECOPY_API tilecopy_status_t tilecopy_tensor_is_contiguous_in(const tilecopy_tensor_t *t,
								const char *format, int *yes);
/** tilecopy_tensor_has_padding - *yes = 1 when its bytes hold non-logical elements. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_has_padding(const tilecopy_tensor_t *t,
							   int *yes);
/** tilecopy_tensor_has_overlap - *yes = 1 when two logical elements share an address. */
TILECOPY_API tilecopy_status_t tilecopy_tensor_has_overlap(const tilecopy_tensor_t *t,
							   int *yes);

/**
 * tilecopy_shape_parse - "8x12" or "32,64,56,56" into @shape. Strict: one
 * separator throughout, 'x' (or 'X') or ',' ("2x3,4" is refused), each
 * dimension 1..2^63-1 in decimal digits, nothing else (TILECOPY_ERR_PARSE).
 * More than @max dimensions is TILECOPY_ERR_BUFFER_TOO_SMALL; @max < 1 is
 * TILECOPY_ERR_INVALID_ARG. Nothing is written unless it succeeds.
 */
TILECOPY_API tilecopy_status_t tilecopy_shape_parse(int64_t *shape, int *rank,
						    int max, const char *text);

/* ---- plans --------------------------------------------------------------- */

struct drm_tilecopy_desc;
typedef struct tilecopy_plan tilecopy_plan_t;

/**
 * TILECOPY_PLAN_REINTERPRET - allow src and dst of different dtypes of the
 *	same size (f32 -> i32, f16 -> bf16): the bits are copied, not
 *	converted. Without it such a pair is TILECOPY_ERR_DTYPE_MISMATCH.
 */
#define TILECOPY_PLAN_REINTERPRET	(1u << 0)

/**
 * tilecopy_plan_create - plan the conversion @src -> @dst.
 *
 * Both tensors must have the same logical shape and (without
 * TILECOPY_PLAN_REINTERPRET) the same dtype. The plan is a list of engine
 * descriptors whose src/dst are byte offsets into the source and
 * destination buffers. Destination padding is filled with zeros (not for a
 * view); source padding is never read. A destination mapping two elements
 * to one address is TILECOPY_ERR_OVERLAP. A plan of more than 2^20
 * descriptors is TILECOPY_ERR_UNSUPPORTED (src and dst blocks that do not
 * nest cost a descriptor per period of both, e.g. 15 x 15 for zN 3x5 ->
 * zN 5x3). The plan keeps no reference to the tensors.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_create(tilecopy_plan_t **plan,
						    const tilecopy_tensor_t *src,
						    const tilecopy_tensor_t *dst,
						    uint32_t flags);
TILECOPY_API void tilecopy_plan_destroy(tilecopy_plan_t *plan);

/**
 * tilecopy_plan_descs - the descriptors (borrowed, valid while the plan
 * lives), as the engine takes them: struct drm_tilecopy_desc of
 * <tilecopy/uapi/tilecopy_accel.h>, which needs libdrm's drm.h. @count
 * alone needs neither; a CPU-only program reads the descriptors through
 * tilecopy_plan_desc.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_descs(const tilecopy_plan_t *plan,
						   const struct drm_tilecopy_desc **descs,
						   size_t *count);

/* Since 1.1: the descriptors in plain C types, no drm.h needed. */
#define TILECOPY_DESC_MAX_DIMS	8	/* = DRM_TILECOPY_MAX_DIMS */
#define TILECOPY_DESC_COPY	1	/* = DRM_TILECOPY_OP_COPY */
#define TILECOPY_DESC_FILL	2	/* = DRM_TILECOPY_OP_FILL */
#define TILECOPY_DESC_WRITE64	3	/* = DRM_TILECOPY_OP_WRITE64 */

/**
 * struct tilecopy_desc - one descriptor of a plan, the fields of the
 * uAPI's struct drm_tilecopy_desc in <stdint.h> types (the library checks
 * they agree when built): dims 0..@ndims-1, dim 0 innermost; element
 * (i0, ...) read at @src + elem_size * sum(i_k * src_stride[k]) (COPY) and
 * written at @dst + elem_size * sum(i_k * dst_stride[k]), @src and @dst
 * byte offsets into the plan's buffers; FILL writes the low @elem_size
 * bytes of @value.
 * @struct_size: Input: sizeof(struct tilecopy_desc) as the caller's header
 *	has it; Output: the bytes filled (fields are only appended; a larger
 *	struct gets its extra bytes zeroed). More than 4096 is refused
 *	(TILECOPY_ERR_INVALID_ARG): an unset struct_size, not a struct.
 */
struct tilecopy_desc {
	uint32_t struct_size;
	uint16_t op;		/* TILECOPY_DESC_COPY, _FILL, _WRITE64 */
	uint8_t elem_size;
	uint8_t ndims;
	uint64_t src, dst, value;
	uint32_t extent[TILECOPY_DESC_MAX_DIMS];
	uint64_t src_stride[TILECOPY_DESC_MAX_DIMS];
	uint64_t dst_stride[TILECOPY_DESC_MAX_DIMS];
};

/**
 * tilecopy_plan_desc - descriptor @index (< the count tilecopy_plan_descs
 * gives) into @desc. Since 1.1.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_desc(const tilecopy_plan_t *plan, size_t index,
						  struct tilecopy_desc *desc);
/**
 * tilecopy_plan_desc_format - descriptor @index as tilecopy_desc_format
 * prints it, without the uAPI struct. Since 1.1.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_desc_format(const tilecopy_plan_t *plan,
							 size_t index, char *buf, size_t size);
/** tilecopy_plan_src_bytes / dst_bytes - buffer sizes the plan needs. */
TILECOPY_API tilecopy_status_t tilecopy_plan_src_bytes(const tilecopy_plan_t *plan,
						       uint64_t *bytes);
TILECOPY_API tilecopy_status_t tilecopy_plan_dst_bytes(const tilecopy_plan_t *plan,
						       uint64_t *bytes);
/** tilecopy_plan_moved_bytes - bytes read + written by the plan. */
TILECOPY_API tilecopy_status_t tilecopy_plan_moved_bytes(const tilecopy_plan_t *plan,
							 uint64_t *bytes);

/**
 * tilecopy_desc_format - one descriptor as a line of text (always NUL
 * terminated when @size > 0); TILECOPY_ERR_BUFFER_TOO_SMALL, the message
 * giving the size needed, when it does not fit; @size 0 asks for it.
 */
TILECOPY_API tilecopy_status_t tilecopy_desc_format(const struct drm_tilecopy_desc *d,
						    char *buf, size_t size);

/**
 * tilecopy_plan_execute_cpu - run the plan on the CPU, synchronously.
 * @cpu: NULL (best available, or $TILECOPY_CPU) or "scalar", "sse2",
 *	"avx2", "avx512", "neon". An unavailable choice is an error.
 * Buffers smaller than the plan needs are refused before anything is
 * written. Overlapping @src and @dst (in place, or partly) are handled:
 * the source is first copied aside (its footprint, plan_src_bytes less
 * its byte offset, of heap; NOMEM if that fails), so the result is always
 * that of disjoint buffers.
 */
TILECOPY_API tilecopy_status_t tilecopy_plan_execute_cpu(const tilecopy_plan_t *plan,
							 const void *src,
							 size_t src_size,
							 void *dst,
							 size_t dst_size,
							 const char *cpu);

/** tilecopy_cpu_name - the executor NULL/@cpu resolves to ("avx512"); static. */
TILECOPY_API tilecopy_status_t tilecopy_cpu_name(const char *cpu, const char **name);

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
 * Since 1.1, as tilecopy_cpu_threads() and tilecopy_cpu_set_affinity().
 */
TILECOPY_API tilecopy_status_t tilecopy_cpu_set_threads(int n);
/** tilecopy_cpu_threads - *n = the thread count calls use now (>= 1). */
TILECOPY_API tilecopy_status_t tilecopy_cpu_threads(int *n);

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
