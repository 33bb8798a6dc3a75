// SPDX-License-Identifier: MIT
/*
 * abi_compat.c - the two functions whose argument changed shape in 1.2,
 * as programs built against 1.0 and 1.1 call them.
 *
 * Their struct drm_tilecopy_desc is DRM_TILECOPY_DESC_SIZE_1_0 (192) bytes;
 * 1.2 appended the typed fields (256 bytes). tilecopy_plan_descs() hands
 * out an array the caller steps through by its own sizeof, and
 * tilecopy_desc_format() reads a whole struct: a 1.1 program would step
 * into the middle of the next descriptor, or have 64 bytes past its own
 * struct read. So the shared library keeps the 1.0 versions of both
 * (symbol version TILECOPY_1.0, bound by .symver below: what such programs
 * were linked against) and gives new links the 1.2 ones
 * (tilecopy_plan_descs@@TILECOPY_1.2, libuser/tilecopy.map.in). A static
 * archive has no old programs to serve: libuser.mk localizes these there.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

/*
 * Exported only through the .symver names (the version script makes the
 * plain names local): default visibility, or the aliases would be hidden.
 */
TC_SYMVER_OLD(tc_symver_plan_descs_1_0, tilecopy_plan_descs, TILECOPY_1.0);
TC_SYMVER_OLD(tc_symver_desc_format_1_0, tilecopy_desc_format, TILECOPY_1.0);

TILECOPY_API tilecopy_status_t tc_symver_plan_descs_1_0(const tilecopy_plan_t *plan,
							const void **descs, size_t *count);
TILECOPY_API tilecopy_status_t tc_symver_desc_format_1_0(const void *d, char *buf,
							 size_t size);

static int tc_plan_is_typed(const tilecopy_plan_t *plan)
{
	for (size_t i = 0; i < plan->n; i++)
		if (plan->descs[i].src_type || plan->descs[i].dst_type)
			return 1;
	return 0;
}

/*
 * The plan's descriptors in the 1.0 shape, made the first time a 1.0
 * caller asks. A plan is shared by threads without a lock: each makes its
 * copy, the first one published stays, the others are freed.
 */
static const unsigned char *tc_plan_descs_1_0_copy(const tilecopy_plan_t *plan)
{
	struct tilecopy_plan *p = (struct tilecopy_plan *)plan;	/* its cache only */
	unsigned char *copy = atomic_load(&p->descs_1_0), *none = NULL;

	if (copy)
		return copy;
	copy = malloc(plan->n * DRM_TILECOPY_DESC_SIZE_1_0 + 1);
	if (!copy)
		return NULL;
	for (size_t i = 0; i < plan->n; i++)
		memcpy(copy + i * DRM_TILECOPY_DESC_SIZE_1_0, &plan->descs[i],
		       DRM_TILECOPY_DESC_SIZE_1_0);
	if (!atomic_compare_exchange_strong(&p->descs_1_0, &none, copy)) {
		free(copy);
		copy = none;
	}
	return copy;
}

TILECOPY_API tilecopy_status_t tc_symver_plan_descs_1_0(const tilecopy_plan_t *plan,
							const void **descs, size_t *count)
{
	tilecopy_status_t st = tc_plan_arg(plan);
	const unsigned char *copy;

	if (st)
		return st;
	if (!descs || !count)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", descs ? "count" : "descs");
	if (tc_plan_is_typed(plan))
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "descs: the plan has typed descriptors (ABI 1.2), which a program built against tilecopy 1.0 or 1.1 cannot hold: rebuild it, or read them with tilecopy_plan_desc()");
	copy = tc_plan_descs_1_0_copy(plan);
	if (!copy)
		return tc_fail(TILECOPY_ERR_NOMEM, "descs: no memory for %zu descriptors",
			       plan->n);
	*descs = copy;
	*count = plan->n;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tc_symver_desc_format_1_0(const void *d, char *buf,
							 size_t size)
{
	struct drm_tilecopy_desc whole = { 0 };	/* the 1.2 fields: untyped */

	if (!d)
		return tc_symver_desc_format_1_2(NULL, buf, size);
	memcpy(&whole, d, DRM_TILECOPY_DESC_SIZE_1_0);
	return tc_symver_desc_format_1_2(&whole, buf, size);
}
