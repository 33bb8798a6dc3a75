/* SPDX-License-Identifier: MIT */
/*
 * desc_cases.h - the one table of descriptor cases.
 *
 * The descriptor rules are implemented three times: the driver checks every
 * SUBMIT (driver/tilecopy_submit.c), the library checks descriptor lists
 * before the CPU runs them (libuser/cpu/desc_check.c), and the engine checks
 * what it fetches (qemu/tilecopy.c). This table says, once, what each of
 * them does with each case; three runners apply it:
 *
 *   tests/unit/test_desc.c      tc_desc_list_check()      (make check-unit)
 *   tests/device/test_device.c  the engine, /desc/table   (make check-device)
 *   tests/guest/test_ioctl.c    SUBMIT, submit/table      (make check-guest)
 *
 * A new rule is a new row here, with the three answers.
 *
 * The cases are built against four buffers whose addresses the runner
 * gives (struct tc_desc_env): src and dst of 8192 bytes, ro of 4096 bytes
 * (read-only for the engine), other of 4096 bytes (writable, but not listed
 * in the driver's SUBMIT). For the library the addresses are offsets into
 * the source and destination buffers (src = dst = 0). The work bound @max
 * is the runner's: GET_PARAM MAX_JOB_ELEMS for the driver, the engine's
 * max-job-elems property, any for the library; at least TC_CASE_MIN_MAX
 * (the 8 KiB copies of the table must fit).
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_DESC_CASES_H
#define TC_DESC_CASES_H

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "tilecopy_accel.h"

/* Expected value for an implementation the rule does not apply to. */
#define TC_NA			(-1000)
#define TC_CASE_MAX_DESCS	3
#define TC_CASE_BUF		8192ull	/* bytes of src and dst */
#define TC_CASE_SMALL		4096ull	/* bytes of ro and other */
#define TC_CASE_MIN_MAX		65536ull	/* smallest bound a runner may use */

struct tc_desc_env {
	uint64_t src, dst, ro, other;
	uint64_t max;			/* elements one job may write */
};

/**
 * struct tc_desc_case - one row: a job and what each implementation says.
 * @name: what the case is.
 * @field: the field tc_desc_list_check() names (NULL when it accepts).
 * @cpu: tc_desc_list_check(): 0, -EINVAL (malformed), -ERANGE (outside a
 *	buffer), -EOVERFLOW (a footprint beyond 64 bits), -E2BIG (work bound).
 * @drv: SUBMIT: 0 or -EINVAL, -E2BIG.
 * @eng: the engine's status: DRM_TILECOPY_STATUS_OK, _BAD_DESC, _FAULT_*.
 * @bad: index of the descriptor at fault (library and engine).
 */
struct tc_desc_case {
	const char *name;
	const char *field;
	int cpu, drv, eng;
	unsigned int bad;
};

enum {
	/* accepted everywhere */
	TC_CASE_OK_COPY, TC_CASE_OK_LAST_BYTE, TC_CASE_OK_BROADCAST,
	TC_CASE_OK_FILL_VALUE_FITS, TC_CASE_OK_WRITE64_END, TC_CASE_OK_AT_BOUND,
	/* malformed: one field */
	TC_CASE_OP_0, TC_CASE_OP_4, TC_CASE_OP_FFFF, TC_CASE_ELEM_0, TC_CASE_ELEM_3,
	TC_CASE_ELEM_16, TC_CASE_NDIMS_0, TC_CASE_NDIMS_9, TC_CASE_FLAGS,
	TC_CASE_EXTENT_0, TC_CASE_EXTENT_UNUSED, TC_CASE_SSTRIDE_UNUSED,
	TC_CASE_DSTRIDE_UNUSED, TC_CASE_COPY_VALUE, TC_CASE_FILL_SRC,
	TC_CASE_FILL_SSTRIDE, TC_CASE_FILL_VALUE_HIGH, TC_CASE_W64_NDIMS,
	TC_CASE_W64_EXTENT, TC_CASE_W64_ELEM, TC_CASE_BAD_IN_MIDDLE,
	/* footprints beyond 64 bits */
	TC_CASE_STRIDE_OVERFLOW, TC_CASE_SRC_STRIDE_OVERFLOW, TC_CASE_ADDR_WRAP,
	TC_CASE_EXTENT_OVERFLOW,
	/* outside the buffers */
	TC_CASE_DST_END_PLUS_1, TC_CASE_SRC_END_PLUS_1, TC_CASE_SRC_BEFORE,
	TC_CASE_DST_FAR, TC_CASE_FILL_OUTSIDE, TC_CASE_DST_STRIDE_HUGE,
	TC_CASE_VA_HUGE, TC_CASE_VA_ZERO, TC_CASE_STRADDLE, TC_CASE_DST_READONLY,
	TC_CASE_DST_UNLISTED,
	/* the work bound: elements written, stride-0 repeats included */
	TC_CASE_WORK_2_64, TC_CASE_WORK_PRODUCT_OVERFLOW, TC_CASE_WORK_ONE,
	TC_CASE_WORK_SUM,
	/* the driver's row bound: a row must end within a reset's wait */
	TC_CASE_ROW_AT_BOUND, TC_CASE_ROW_PAST_BOUND,
	TC_CASE_COUNT
};

#define TCC_EI	(-EINVAL)
#define TCC_EO	(-EOVERFLOW)
#define TCC_ER	(-ERANGE)
#define TCC_E2	(-E2BIG)
#define TCC_OK	DRM_TILECOPY_STATUS_OK
#define TCC_BAD	DRM_TILECOPY_STATUS_BAD_DESC
#define TCC_UNM	DRM_TILECOPY_STATUS_FAULT_UNMAPPED
#define TCC_PERM	DRM_TILECOPY_STATUS_FAULT_PERM

static const struct tc_desc_case tc_desc_cases[TC_CASE_COUNT] = {
	/*                                  field         cpu    drv    eng   bad */
	[TC_CASE_OK_COPY] = { "8 KiB copy", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_OK_LAST_BYTE] = { "footprint ends on the last byte", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_OK_BROADCAST] = { "source stride 0 (broadcast)", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_OK_FILL_VALUE_FITS] = { "FILL value uses every bit of elem_size", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_OK_WRITE64_END] = { "WRITE64 to the last 8 bytes", NULL, 0, 0, TCC_OK, 0 },
	/* the driver's bound is 2^32: a job that big runs for minutes */
	[TC_CASE_OK_AT_BOUND] = { "exactly max elements", NULL, 0, TC_NA, TCC_OK, 0 },

	[TC_CASE_OP_0] = { "op 0", "op", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_OP_4] = { "op 4", "op", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_OP_FFFF] = { "op 0xffff", "op", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_ELEM_0] = { "elem_size 0", "elem_size", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_ELEM_3] = { "elem_size 3", "elem_size", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_ELEM_16] = { "elem_size 16", "elem_size", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_NDIMS_0] = { "ndims 0", "ndims", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_NDIMS_9] = { "ndims 9", "ndims", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_FLAGS] = { "descriptor flags", "flags", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_EXTENT_0] = { "extent 0", "extent", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_EXTENT_UNUSED] = { "extent beyond ndims", "extent", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_SSTRIDE_UNUSED] = { "src_stride beyond ndims", "src_stride", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_DSTRIDE_UNUSED] = { "dst_stride beyond ndims", "dst_stride", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_COPY_VALUE] = { "COPY with a value", "value", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_FILL_SRC] = { "FILL with a src", "src", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_FILL_SSTRIDE] = { "FILL with a src_stride", "src_stride", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_FILL_VALUE_HIGH] = { "FILL value bits above elem_size", "value", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_W64_NDIMS] = { "WRITE64 ndims 2", "ndims", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_W64_EXTENT] = { "WRITE64 extent 2", "extent", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_W64_ELEM] = { "WRITE64 elem_size 4", "elem_size", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_BAD_IN_MIDDLE] = { "bad op between two good ones", "op", TCC_EI, TCC_EI, TCC_BAD, 1 },

	[TC_CASE_STRIDE_OVERFLOW] = { "dst stride * extent overflows", "dst", TCC_EO, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_SRC_STRIDE_OVERFLOW] = { "src stride * extent overflows", "src", TCC_EO, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_ADDR_WRAP] = { "address + footprint wraps", "dst", TCC_EO, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_EXTENT_OVERFLOW] = { "8 dims of 2^32-1, packed", "src", TCC_EO, TCC_EI, TCC_BAD, 0 },

	[TC_CASE_DST_END_PLUS_1] = { "dst one byte past the buffer", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_SRC_END_PLUS_1] = { "src one byte past the buffer", "src", TCC_ER, TCC_EI, TCC_UNM, 0 },
	/* to the library the address before offset 0 is 2^64 - 1 */
	[TC_CASE_SRC_BEFORE] = { "src one byte before the buffer", "src", TCC_EO, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_DST_FAR] = { "dst 4 GiB past the buffer", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_FILL_OUTSIDE] = { "FILL 4 bytes past the end", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_DST_STRIDE_HUGE] = { "dst stride 2^62", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_VA_HUGE] = { "dst 2^63", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	/* offset 0 is the buffer itself to the library */
	[TC_CASE_VA_ZERO] = { "dst address 0", NULL, TC_NA, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_STRADDLE] = { "dst runs from one buffer into the next", NULL, TC_NA, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_DST_READONLY] = { "dst in a read-only buffer", NULL, TC_NA, TCC_EI, TCC_PERM, 0 },
	/* the engine only sees mappings: the listing is the driver's rule */
	[TC_CASE_DST_UNLISTED] = { "dst in a buffer the job does not list", NULL, TC_NA, TCC_EI, TCC_OK, 0 },

	[TC_CASE_WORK_2_64] = { "FILL of 2^64 elements over 1 byte (stride 0)", "extent", TCC_E2, TCC_E2, TCC_BAD, 0 },
	[TC_CASE_WORK_PRODUCT_OVERFLOW] = { "element count beyond 64 bits (stride 0)", "extent", TCC_E2, TCC_E2, TCC_BAD, 0 },
	[TC_CASE_WORK_ONE] = { "one descriptor of max + 2 elements", "extent", TCC_E2, TCC_E2, TCC_BAD, 1 },
	[TC_CASE_WORK_SUM] = { "two descriptors of max / 2 + 1 elements", "extent", TCC_E2, TCC_E2, TCC_BAD, 1 },

	/*
	 * SUBMIT's policy, not a descriptor rule: the engine and the CPU
	 * stop within a row (docs/hardware.md 7.1); the driver bounds rows so
	 * any engine stops within TC_RESET_TIMEOUT_US. The work-bound cases
	 * above keep their rows short so they test the work bound alone.
	 */
	[TC_CASE_ROW_AT_BOUND] = { "FILL row of DRM_TILECOPY_MAX_ROW_ELEMS stride-0 writes", NULL, TC_NA, 0, TC_NA, 0 },
	[TC_CASE_ROW_PAST_BOUND] = { "FILL row of DRM_TILECOPY_MAX_ROW_ELEMS + 1 writes", NULL, TC_NA, TCC_E2, TC_NA, 0 },
};

#undef TCC_EI
#undef TCC_EO
#undef TCC_ER
#undef TCC_E2
#undef TCC_OK
#undef TCC_BAD
#undef TCC_UNM
#undef TCC_PERM

static inline void tc_case_memcpy(struct drm_tilecopy_desc *d, uint64_t dst,
				  uint64_t src, uint32_t n)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_COPY;
	d->elem_size = 1;
	d->ndims = 1;
	d->src = src;
	d->dst = dst;
	d->extent[0] = n;
	d->src_stride[0] = 1;
	d->dst_stride[0] = 1;
}

/* A 1-byte FILL at @dst repeating @e0 x @e1 times over one byte (stride 0). */
static inline void tc_case_fill0(struct drm_tilecopy_desc *d, uint64_t dst,
				 uint32_t e0, uint32_t e1)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_FILL;
	d->elem_size = 1;
	d->ndims = e1 ? 2 : 1;
	d->dst = dst;
	d->value = 0x5a;
	d->extent[0] = e0;
	d->extent[1] = e1;
}

/*
 * A 1-byte FILL of @e1 rows of @e0 stride-0 writes, the rows a byte apart:
 * many elements, rows no longer than @e0 (stride-0 dims alone would merge
 * into one row).
 */
static inline void tc_case_fill_rows(struct drm_tilecopy_desc *d, uint64_t dst,
				     uint32_t e0, uint32_t e1)
{
	tc_case_fill0(d, dst, e0, e1);
	d->dst_stride[1] = 1;
}

/* The row for the work-bound cases: short enough for the row bound. */
static inline uint32_t tc_case_row(const struct tc_desc_env *e)
{
	return (uint32_t)(e->max / 2 < DRM_TILECOPY_MAX_ROW_ELEMS ? e->max / 2 :
			  DRM_TILECOPY_MAX_ROW_ELEMS);
}

static inline void tc_case_write64(struct drm_tilecopy_desc *d, uint64_t dst)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_TILECOPY_OP_WRITE64;
	d->elem_size = 8;
	d->ndims = 1;
	d->dst = dst;
	d->value = 0x0123456789abcdefull;
	d->extent[0] = 1;
	d->dst_stride[0] = 1;
}

/*
 * tc_desc_case_build - the job of case @c in @d[TC_CASE_MAX_DESCS].
 * Returns the number of descriptors.
 */
static inline unsigned int tc_desc_case_build(unsigned int c, const struct tc_desc_env *e,
					      struct drm_tilecopy_desc *d)
{
	const uint32_t buf = (uint32_t)TC_CASE_BUF;
	struct drm_tilecopy_desc *x = &d[0];
	unsigned int n = 1, k;

	memset(d, 0, TC_CASE_MAX_DESCS * sizeof(*d));
	tc_case_memcpy(x, e->dst, e->src, buf);
	switch (c) {
	case TC_CASE_OK_COPY:
		break;
	case TC_CASE_OK_LAST_BYTE:
		tc_case_memcpy(x, e->dst + buf - 1, e->src + buf - 1, 1);
		break;
	case TC_CASE_OK_BROADCAST:
		/* the last 8 bytes of src, three times */
		x->elem_size = 8;
		x->src = e->src + buf - 8;
		x->extent[0] = 3;
		x->src_stride[0] = 0;
		break;
	case TC_CASE_OK_FILL_VALUE_FITS:
		tc_case_fill0(x, e->dst, 16, 0);
		x->elem_size = 2;
		x->value = 0xffff;
		x->dst_stride[0] = 1;
		break;
	case TC_CASE_OK_WRITE64_END:
		tc_case_write64(x, e->dst + buf - 8);
		break;
	case TC_CASE_OK_AT_BOUND:
		tc_case_fill0(x, e->dst, 2, (uint32_t)(e->max / 2));
		break;
	case TC_CASE_OP_0: x->op = 0; break;
	case TC_CASE_OP_4: x->op = 4; break;
	case TC_CASE_OP_FFFF: x->op = 0xffff; break;
	case TC_CASE_ELEM_0: x->elem_size = 0; break;
	case TC_CASE_ELEM_3: x->elem_size = 3; x->extent[0] = 8; break;
	case TC_CASE_ELEM_16: x->elem_size = 16; x->extent[0] = 8; break;
	case TC_CASE_NDIMS_0: x->ndims = 0; break;
	case TC_CASE_NDIMS_9: x->ndims = 9; break;
	case TC_CASE_FLAGS: x->flags = 1; break;
	case TC_CASE_EXTENT_0:
		x->ndims = 2;
		x->extent[0] = 16;
		x->extent[1] = 0;
		x->src_stride[1] = x->dst_stride[1] = 16;
		break;
	case TC_CASE_EXTENT_UNUSED: x->extent[3] = 1; break;
	case TC_CASE_SSTRIDE_UNUSED: x->src_stride[1] = 1; break;
	case TC_CASE_DSTRIDE_UNUSED: x->dst_stride[7] = 1; break;
	case TC_CASE_COPY_VALUE: x->value = 1; break;
	case TC_CASE_FILL_SRC:
		tc_case_fill0(x, e->dst, 16, 0);
		x->dst_stride[0] = 1;
		x->src = e->src + 8;	/* not 0 to the library either */
		break;
	case TC_CASE_FILL_SSTRIDE:
		tc_case_fill0(x, e->dst, 16, 0);
		x->dst_stride[0] = 1;
		x->src_stride[0] = 1;
		break;
	case TC_CASE_FILL_VALUE_HIGH:
		tc_case_fill0(x, e->dst, 16, 0);
		x->elem_size = 2;
		x->value = 0x10000;
		x->dst_stride[0] = 1;
		break;
	case TC_CASE_W64_NDIMS:
		tc_case_write64(x, e->dst);
		x->ndims = 2;
		x->extent[1] = 1;
		x->dst_stride[1] = 1;
		break;
	case TC_CASE_W64_EXTENT:
		tc_case_write64(x, e->dst);
		x->extent[0] = 2;
		break;
	case TC_CASE_W64_ELEM:
		tc_case_write64(x, e->dst);
		x->elem_size = 4;
		break;
	case TC_CASE_BAD_IN_MIDDLE:
		tc_case_write64(&d[0], e->dst);
		tc_case_memcpy(&d[1], e->dst, e->src, 16);
		d[1].op = 9;
		tc_case_write64(&d[2], e->dst + 8);
		n = 3;
		break;
	case TC_CASE_STRIDE_OVERFLOW:
		/* 2 elements 2^61 elements of 8 bytes apart: 2^64 wraps to 0 */
		x->elem_size = 8;
		x->extent[0] = 2;
		x->dst_stride[0] = 1ull << 61;
		break;
	case TC_CASE_SRC_STRIDE_OVERFLOW:
		x->src_stride[0] = 1ull << 62;
		break;
	case TC_CASE_ADDR_WRAP:
		x->dst = ~0ull - 15;
		x->extent[0] = 32;
		break;
	case TC_CASE_EXTENT_OVERFLOW:
		x->ndims = 8;
		for (k = 0; k < 8; k++) {
			x->extent[k] = 0xffffffffu;
			x->src_stride[k] = x->dst_stride[k] = k ? 1ull << (8 * k) : 1;
		}
		break;
	case TC_CASE_DST_END_PLUS_1: x->dst = e->dst + 1; break;
	case TC_CASE_SRC_END_PLUS_1: x->src = e->src + 1; break;
	case TC_CASE_SRC_BEFORE: x->src = e->src - 1; x->extent[0] = 16; break;
	case TC_CASE_DST_FAR: x->dst = e->dst + (1ull << 32); break;
	case TC_CASE_FILL_OUTSIDE:
		tc_case_fill0(x, e->dst + buf - 192, 49, 0);
		x->elem_size = 4;
		x->dst_stride[0] = 1;
		break;
	case TC_CASE_DST_STRIDE_HUGE:
		x->ndims = 2;
		x->extent[0] = 16;
		x->extent[1] = 2;
		x->src_stride[1] = 16;
		x->dst_stride[1] = 1ull << 62;
		break;
	case TC_CASE_VA_HUGE: x->dst = 1ull << 63; x->extent[0] = 16; break;
	case TC_CASE_VA_ZERO: x->dst = 0; x->extent[0] = 16; break;
	case TC_CASE_STRADDLE:
		/* from the middle of src on, 8 KiB: beyond its end */
		x->dst = e->src + buf / 2;
		x->src = e->dst;
		break;
	case TC_CASE_DST_READONLY: x->dst = e->ro; x->extent[0] = 4096; break;
	case TC_CASE_DST_UNLISTED: x->dst = e->other; x->extent[0] = 4096; break;
	case TC_CASE_WORK_2_64:
		tc_case_fill0(x, e->dst, 0xffffffffu, 0xffffffffu);
		break;
	case TC_CASE_WORK_PRODUCT_OVERFLOW:
		tc_case_fill0(x, e->dst, 0xffffffffu, 0xffffffffu);
		x->ndims = 3;
		x->extent[2] = 0xffffffffu;
		break;
	case TC_CASE_WORK_ONE:	/* rows * r >= max + 2 */
		tc_case_write64(&d[0], e->dst);
		tc_case_fill_rows(&d[1], e->dst, tc_case_row(e),
				  (uint32_t)((e->max + 1) / tc_case_row(e) + 1));
		n = 2;
		break;
	case TC_CASE_WORK_SUM:	/* each max / 2 < rows * r <= max */
		tc_case_fill_rows(&d[0], e->dst, tc_case_row(e),
				  (uint32_t)(e->max / 2 / tc_case_row(e) + 1));
		tc_case_fill_rows(&d[1], e->dst + 1, tc_case_row(e),
				  (uint32_t)(e->max / 2 / tc_case_row(e) + 1));
		n = 2;
		break;
	case TC_CASE_ROW_AT_BOUND:
		tc_case_fill0(&d[0], e->dst, (uint32_t)DRM_TILECOPY_MAX_ROW_ELEMS, 0);
		break;
	case TC_CASE_ROW_PAST_BOUND:
		tc_case_fill0(&d[0], e->dst, (uint32_t)DRM_TILECOPY_MAX_ROW_ELEMS + 1, 0);
		break;
	}
	return n;
}

#endif /* TC_DESC_CASES_H */
