/* SPDX-License-Identifier: MIT */
/*
 * cpu_exec.h - CPU executors of engine descriptor lists (internal).
 *
 * Every executor runs the same descriptor list the engine runs and must give
 * bit-identical results; the scalar one is the reference (the oracle).
 * In a plan, drm_tilecopy_desc.src/.dst are byte offsets from the start of
 * the source and destination buffers given here.
 */
#ifndef TILECOPY_CPU_EXEC_H
#define TILECOPY_CPU_EXEC_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include "tilecopy_accel.h"

/**
 * tc_exec_fn - run @n descriptors on the CPU.
 * @src: base of the source buffer (COPY descriptors read src + desc.src).
 * @dst: base of the destination buffer.
 *
 * @pre the descriptors were checked by tc_desc_check() against the buffer
 *      sizes (the planner's output always is); an executor does not re-check.
 * @return 0 on success, or a negative errno for an unknown op.
 */
typedef int (*tc_exec_fn)(const struct drm_tilecopy_desc *descs, size_t n,
			  const void *src, void *dst);
/**
 * tc_exec_scales_fn - tc_exec_fn with the scales typed descriptors
 * (ABI 1.2) read: a descriptor with DRM_TILECOPY_CVT_SCALES reads them
 * from byte @scales of it on (a plan's scales). NULL: no descriptor has
 * that flag (else -EINVAL before anything is written).
 */
typedef int (*tc_exec_scales_fn)(const struct drm_tilecopy_desc *descs, size_t n,
				 const void *src, void *dst, const float *scales);

/**
 * struct tc_direct - a descriptor list that the executors with kernels
 * run as one kernel call: one untyped COPY under the threads' minimum
 * whose loops (pattern.c) would make a single call. Found once, when a
 * plan is made (tc_direct_analyse), so that a small call pays for its
 * kernel and the buffer checks, not for the descriptor's analysis: of a
 * 4 KB transpose's 90 ns, ~50 were the analysis and its loops (perf,
 * AMD EPYC Zen 5).
 * @kind: TC_DIRECT_NONE (run the list as usual), TC_DIRECT_COPY (one
 *        contiguous run of @bytes), TC_DIRECT_TRANSPOSE (@rows x @cols
 *        elements of @tes bytes, @sld / @dld bytes apart).
 * @src, @dst: byte offsets into the buffers.
 */
struct tc_direct {
	enum { TC_DIRECT_NONE, TC_DIRECT_COPY, TC_DIRECT_TRANSPOSE } kind;
	unsigned tes;
	size_t rows, cols, sld, dld, bytes;
	uint64_t src, dst;
};

/*
 * tc_direct_analyse - @dc for the @n descriptors (kind TC_DIRECT_NONE
 * unless they qualify).
 */
void tc_direct_analyse(const struct drm_tilecopy_desc *descs, size_t n,
		       struct tc_direct *dc);

/**
 * tc_direct_fn - run @dc (kind other than NONE) on buffers @src and @dst.
 * @return 0, or -1 if this executor's kernels may take another path for
 *         it, a few-rows program (the caller runs the descriptors instead;
 *         nothing was written).
 */
typedef int (*tc_direct_fn)(const struct tc_direct *dc, const void *src, void *dst);

/**
 * struct tc_cpu_backend - one CPU executor.
 * @exec: descriptors without per-channel scales (exec_scales with NULL).
 * @exec_scales: any descriptors.
 * @direct: a struct tc_direct, or NULL (scalar: the reference runs every
 *          descriptor its own way).
 */
struct tc_cpu_backend {
	const char *name;		/* "scalar", "sse2", "avx2", "avx512", "neon" */
	int (*available)(void);		/* non-zero when this CPU can run it */
	tc_exec_fn exec;
	tc_exec_scales_fn exec_scales;
	tc_direct_fn direct;
};

int tc_exec_scalar(const struct drm_tilecopy_desc *descs, size_t n,
		   const void *src, void *dst);
int tc_exec_scalar_scales(const struct drm_tilecopy_desc *descs, size_t n,
			  const void *src, void *dst, const float *scales);

/* ---- typed descriptors (exec_typed.c) ------------------------------------ */

struct tc_cvt;
struct tc_cvt_kernels;

/*
 * tc_typed_cvt_init_from - the conversion of typed COPY @d
 * (tc_cvt_desc_init()) from elements of @src_type instead of its own: the
 * second half of a conversion split at binary32. @return 0 or -EINVAL.
 */
int tc_typed_cvt_init_from(struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
			   const struct tc_cvt_kernels *k, unsigned int src_type);
/*
 * tc_typed_as_untyped - a typed descriptor that only moves bytes (a COPY
 * of one byte-sized type, no zero point, no scale; a FILL of a byte-sized
 * type) as the untyped one doing the same into @out: 1, else 0.
 */
int tc_typed_as_untyped(const struct drm_tilecopy_desc *d,
			struct drm_tilecopy_desc *out);
/* tc_typed_copy_ref - typed COPY @d with @cv, in the descriptor's order. */
void tc_typed_copy_ref(const struct tc_cvt *cv, const struct drm_tilecopy_desc *d,
		       const void *src, void *dst, const float *scales);
/* tc_typed_fill4 - a typed FILL of a 4-bit type. */
void tc_typed_fill4(const struct drm_tilecopy_desc *d, void *dst);
/* tc_typed_scales_ok - @d does not need scales, or has them. */
int tc_typed_scales_ok(const struct drm_tilecopy_desc *d, const float *scales);

/**
 * tc_desc_type_bits - bits of one element of &enum drm_tilecopy_type @type:
 * 32, 16, 8 or 4; 0 for TYPE_NONE and unknown types.
 */
static inline unsigned int tc_desc_type_bits(unsigned int type)
{
	static const unsigned char bits[] = {
		[DRM_TILECOPY_TYPE_F32] = 32, [DRM_TILECOPY_TYPE_F16] = 16,
		[DRM_TILECOPY_TYPE_BF16] = 16, [DRM_TILECOPY_TYPE_I8] = 8,
		[DRM_TILECOPY_TYPE_U8] = 8, [DRM_TILECOPY_TYPE_I32] = 32,
		[DRM_TILECOPY_TYPE_I4] = 4, [DRM_TILECOPY_TYPE_U4] = 4,
	};

	return type < sizeof(bits) ? bits[type] : 0;
}

/**
 * tc_desc_check_v2 - validate one descriptor against buffer sizes.
 * @src_size, @dst_size: bytes available at the source and destination.
 * @scales_size: bytes of the plan's scales (DRM_TILECOPY_CVT_SCALES: @scales
 *	is a byte offset into them).
 * @field: on failure, set to the name of the offending field.
 * @return 0, or -EINVAL (malformed), -ERANGE (outside a buffer),
 *         -EOVERFLOW (footprint does not fit in 64 bits).
 */
int tc_desc_check_v2(const struct drm_tilecopy_desc *d, size_t src_size,
		     size_t dst_size, size_t scales_size, const char **field);

/* tc_desc_check - tc_desc_check_v2() without scales (@scales_size 0). */
int tc_desc_check(const struct drm_tilecopy_desc *d, size_t src_size,
		  size_t dst_size, const char **field);

/**
 * tc_desc_elems - elements @d writes (the product of its extents: a stride-0
 * dimension writes as often as its extent says), UINT64_MAX if beyond 64 bits.
 * Inline: the device library (which cuts jobs within the work bound) uses it
 * too, and must not reach into the core for it.
 */
static inline __u64 tc_desc_elems(const struct drm_tilecopy_desc *d)
{
	__u64 n = 1;

	for (int k = 0; k < d->ndims && k < DRM_TILECOPY_MAX_DIMS; k++)
		if (__builtin_mul_overflow(n, (__u64)d->extent[k], &n))
			return UINT64_MAX;
	return n;
}

/**
 * tc_desc_list_check - tc_desc_check() on each of @n descriptors, then the
 * work bound of a job: at most @max_elems elements in all (0: no bound).
 * @bad: on failure, the index of the descriptor at fault.
 * @return 0, or what tc_desc_check() returns, or -E2BIG (work bound; *field
 *         is "extent").
 */
int tc_desc_list_check(const struct drm_tilecopy_desc *d, size_t n,
		       size_t src_size, size_t dst_size, __u64 max_elems,
		       size_t *bad, const char **field);

/* tc_desc_list_check_v2 - tc_desc_list_check() with the plan's scales. */
int tc_desc_list_check_v2(const struct drm_tilecopy_desc *d, size_t n,
			  size_t src_size, size_t dst_size, size_t scales_size,
			  __u64 max_elems, size_t *bad, const char **field);

/**
 * tc_desc_side_footprint - bytes spanned from the source (@src_side) or
 * destination address: with L = sum((extent[k] - 1) * stride[k]), L + 1
 * elements of the side's size (its type's, or elem_size untyped), or for a
 * 4-bit side ceil((nibble + L + 1) / 2) bytes.
 * @return 0, or -EOVERFLOW.
 */
int tc_desc_side_footprint(const struct drm_tilecopy_desc *d, int src_side,
			   __u64 *bytes);

/**
 * tc_desc_footprint - tc_desc_side_footprint() of the side whose strides
 * @stride is (d->src_stride: the source; anything else: the destination).
 */
int tc_desc_footprint(const struct drm_tilecopy_desc *d, const __u64 *stride,
		      __u64 *bytes);

/**
 * tc_desc_scales_footprint - bytes of scales a DRM_TILECOPY_CVT_SCALES
 * descriptor reads from @scales: 4 * (1 + sum((extent[k] - 1) *
 * scale_stride[k])). Inline: the device library checks a plan's scales
 * with it too.
 * @return 0, or -EOVERFLOW.
 */
static inline int tc_desc_scales_footprint(const struct drm_tilecopy_desc *d, __u64 *bytes)
{
	__u64 last = 0, t;

	for (int k = 0; k < d->ndims && k < DRM_TILECOPY_MAX_DIMS; k++) {
		if (__builtin_mul_overflow((__u64)d->extent[k] - 1,
					   (__u64)d->scale_stride[k], &t) ||
		    __builtin_add_overflow(last, t, &last))
			return -EOVERFLOW;
	}
	if (__builtin_add_overflow(last, 1, &last) ||
	    __builtin_mul_overflow(last, (__u64)4, bytes))
		return -EOVERFLOW;
	return 0;
}

/**
 * tc_cpu_backend_get - the executor to use: @name ("scalar", "sse2", "avx2",
 * "avx512", "neon") or NULL for the best available (overridden by the
 * environment variable TILECOPY_CPU, read at the first call). An
 * unavailable or unknown name is an error (NULL, with *err set to -ENODEV
 * or -EINVAL), never a fallback.
 */
const struct tc_cpu_backend *tc_cpu_backend_get(const char *name, int *err);

/* tc_cpu_backend_env_reload - read $TILECOPY_CPU again at the next call (tests). */
void tc_cpu_backend_env_reload(void);

#endif /* TILECOPY_CPU_EXEC_H */
