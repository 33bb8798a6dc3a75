/* SPDX-License-Identifier: MIT */
/* plan_internal.h - the plan object, shared by plan.c and plan_exec.c. */
#ifndef TILECOPY_PLAN_INTERNAL_H
#define TILECOPY_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "tilecopy_accel.h"

struct tilecopy_plan {
	struct drm_tilecopy_desc *descs;
	size_t n, cap;
	size_t esize;
	uint64_t src_bytes, dst_bytes, moved_bytes;
	int ordered;	/* descriptors must run in order (whole-buffer fill first) */
};

#endif /* TILECOPY_PLAN_INTERNAL_H */
