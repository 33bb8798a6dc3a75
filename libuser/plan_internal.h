/* SPDX-License-Identifier: MIT */
/* plan_internal.h - the plan object, shared by plan.c and plan_exec.c. */
#ifndef TILECOPY_PLAN_INTERNAL_H
#define TILECOPY_PLAN_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "tilecopy/tilecopy.h"
#include "tilecopy_accel.h"
#include "internal.h"
#include "cpu/cpu_exec.h"

/*
 * TC_PRIVATE_ABI - the interface the device library takes from the core:
 * the TC_PRIVATE functions (internal.h, here) and struct tilecopy_plan,
 * whose fields it reads. Bump it with any change to either: it names the
 * symbol node of those functions (libuser/tilecopy.map.in), so a device
 * library never loads against a core it does not fit, and always against
 * one it does, whatever their release numbers.
 */
#define TC_PRIVATE_ABI	3

/*
 * @esize: bytes per element of an untyped plan; 0 when its descriptors are
 * typed (ABI 1.2: a converting plan, or one of 4-bit elements).
 */
struct tilecopy_plan {
	uint32_t magic;			/* TC_MAGIC_PLAN */
	struct drm_tilecopy_desc *descs;
	size_t n, cap;
	size_t esize;
	uint64_t src_bytes, dst_bytes, moved_bytes;
	uint64_t src_base, dst_base;	/* byte offsets of the tensors' element 0 */
	int ordered;	/* descriptors must run in order (whole-buffer fill first) */
	/*
	 * Scales of converting descriptors (DRM_TILECOPY_CVT_SCALES): a
	 * descriptor's @scales is a byte offset into this array; the device
	 * backend uploads it into a BO and adds the BO's VA.
	 */
	float *scales;
	size_t nscales;
	/* The descriptors as 1.0 programs read them (abi_compat.c), or NULL. */
	_Atomic(unsigned char *) descs_1_0;
	struct tc_direct direct;	/* the CPU executors' one-call form */
};

/*
 * Functions whose argument changed shape keep each shape under its own
 * symbol version (abi_compat.c): @impl is exported as @name@@node (the
 * default, what new links bind to) or as @name@node (an older version,
 * for programs linked before). The static archive turns the default back
 * into the plain name (libuser.mk). Not through the assembler's "@@@",
 * which clang's keeps under both names.
 */
#define TC_SYMVER_DEFAULT(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@@" #node)
#define TC_SYMVER_OLD(impl, name, node) \
	__asm__(".symver " #impl ", " #name "@" #node)

TILECOPY_API tilecopy_status_t tc_symver_plan_descs_1_2(const tilecopy_plan_t *plan,
							const struct drm_tilecopy_desc **descs,
							size_t *count);
TILECOPY_API tilecopy_status_t tc_symver_desc_format_1_2(const struct drm_tilecopy_desc *d,
							 char *buf, size_t size);

/*
 * tc_plan_check_buffers - NULL pointers and buffer sizes against what the
 * plan reads and writes; every executor (CPU, device) checks through here.
 */
/* tc_plan_arg - NULL / wrong-kind / freed plan handle. */
TC_PRIVATE tilecopy_status_t tc_plan_arg(const struct tilecopy_plan *plan);

TC_PRIVATE tilecopy_status_t tc_plan_check_buffers(const struct tilecopy_plan *plan, const void *src,
			  size_t src_size, const void *dst, size_t dst_size);

#endif /* TILECOPY_PLAN_INTERNAL_H */
