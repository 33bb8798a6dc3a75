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
 * in the driver's SUBMIT), and the scales of typed descriptors (ABI 1.2):
 * @scales, 8192 readable bytes (the driver's and the engine's runners use
 * src). For the library the addresses are offsets into the source,
 * destination and scales buffers (src = dst = scales = 0). The work bound @max
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
	uint64_t scales;		/* TC_CASE_BUF readable bytes of scales */
};

/**
 * struct tc_desc_case - one row: a job and what each implementation says.
 * @name: what the case is.
 * @field: the field tc_desc_list_check() names (NULL when it accepts).
 * @cpu: tc_desc_list_check_v2() (scales: TC_CASE_BUF bytes): 0, -EINVAL
 *	(malformed), -ERANGE (outside a buffer), -EOVERFLOW (a footprint beyond
 *	64 bits), -E2BIG (work bound).
 * @drv: SUBMIT: 0 or -EINVAL, -E2BIG (on an engine with typed descriptors:
 *	one without refuses every typed case with -EOPNOTSUPP).
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
	/* typed descriptors (ABI 1.2), accepted */
	TC_CASE_T_OK_F32_BF16, TC_CASE_T_OK_NIBBLES, TC_CASE_T_OK_NIBBLE_LAST,
	TC_CASE_T_OK_SCALE_ZP, TC_CASE_T_OK_SCALES, TC_CASE_T_OK_SCALES_LAST,
	TC_CASE_T_OK_SCALES_RO, TC_CASE_T_OK_FILL_I4, TC_CASE_T_OK_FILL_BF16,
	TC_CASE_T_OK_SCALE_ZERO,
	/* typed, malformed: one field */
	TC_CASE_T_SRC_TYPE_9, TC_CASE_T_DST_TYPE_FF, TC_CASE_T_SRC_ONLY,
	TC_CASE_T_DST_ONLY, TC_CASE_T_FILL_SRC_TYPE, TC_CASE_T_W64_TYPED,
	TC_CASE_T_ELEM_SIZE, TC_CASE_T_SRC_NIBBLE_2, TC_CASE_T_SRC_NIBBLE_I8,
	TC_CASE_T_DST_NIBBLE_UNTYPED, TC_CASE_T_DST_NIBBLE_FILL_U8,
	TC_CASE_T_CVT_UNKNOWN, TC_CASE_T_CVT_BOTH, TC_CASE_T_CVT_UNTYPED,
	TC_CASE_T_CVT_FILL, TC_CASE_T_SCALE_NAN, TC_CASE_T_SCALE_INF,
	TC_CASE_T_SCALE_NO_FLAG, TC_CASE_T_ZP_FILL, TC_CASE_T_ZP_UNTYPED,
	TC_CASE_T_PAD, TC_CASE_T_SCALES_NO_FLAG, TC_CASE_T_SSTRIDE_NO_FLAG,
	TC_CASE_T_SSTRIDE_UNUSED, TC_CASE_T_FILL_VALUE_I4,
	TC_CASE_T_FILL_VALUE_BF16, TC_CASE_T_BAD_IN_MIDDLE,
	/* typed footprints: nibbles, scales */
	TC_CASE_T_NIBBLE_PAST, TC_CASE_T_NIBBLE_SRC_PAST, TC_CASE_T_NIBBLE_OVERFLOW,
	TC_CASE_T_SCALES_PAST, TC_CASE_T_SCALES_OVERFLOW, TC_CASE_T_SCALES_FAR,
	TC_CASE_T_SCALES_VA_ZERO, TC_CASE_T_SCALES_UNLISTED,
	/* typed work and rows: in elements */
	TC_CASE_T_WORK_ONE, TC_CASE_T_ROW_AT_BOUND, TC_CASE_T_ROW_PAST_BOUND,
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

	/* typed descriptors (ABI 1.2) */
	[TC_CASE_T_OK_F32_BF16] = { "f32 -> bf16, 2048 elements", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_NIBBLES] = { "u4 -> i4, odd nibbles, strided", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_NIBBLE_LAST] = { "i4 destination ends on the last high nibble", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_SCALE_ZP] = { "f32 -> i8, scale and zero points", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_SCALES] = { "f16 -> u8, per-channel scales", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_SCALES_LAST] = { "scales end on the last byte", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_SCALES_RO] = { "scales in a read-only buffer", NULL, TC_NA, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_FILL_I4] = { "FILL of i4 nibbles from an odd one", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_FILL_BF16] = { "FILL of bf16, value 0xffff", NULL, 0, 0, TCC_OK, 0 },
	[TC_CASE_T_OK_SCALE_ZERO] = { "scale 0 and -0 are finite", NULL, 0, 0, TCC_OK, 0 },

	[TC_CASE_T_SRC_TYPE_9] = { "src_type 9", "src_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_DST_TYPE_FF] = { "dst_type 255", "dst_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SRC_ONLY] = { "COPY with src_type only", "dst_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_DST_ONLY] = { "COPY with dst_type only", "src_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_FILL_SRC_TYPE] = { "FILL with a src_type", "src_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_W64_TYPED] = { "WRITE64 with a dst_type", "dst_type", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_ELEM_SIZE] = { "typed with elem_size 4", "elem_size", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SRC_NIBBLE_2] = { "src_nibble 2", "src_nibble", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SRC_NIBBLE_I8] = { "src_nibble 1 on an i8 source", "src_nibble", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_DST_NIBBLE_UNTYPED] = { "dst_nibble 1 untyped", "dst_nibble", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_DST_NIBBLE_FILL_U8] = { "dst_nibble 1 on a u8 FILL", "dst_nibble", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_CVT_UNKNOWN] = { "cvt_flags bit 2", "cvt_flags", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_CVT_BOTH] = { "CVT_SCALE and CVT_SCALES", "cvt_flags", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_CVT_UNTYPED] = { "CVT_SCALE untyped", "cvt_flags", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_CVT_FILL] = { "CVT_SCALE on a typed FILL", "cvt_flags", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALE_NAN] = { "scale NaN", "scale", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALE_INF] = { "scale -infinity", "scale", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALE_NO_FLAG] = { "scale without CVT_SCALE", "scale", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_ZP_FILL] = { "zero point on a typed FILL", "dst_zp", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_ZP_UNTYPED] = { "zero point untyped", "src_zp", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_PAD] = { "pad not zero", "pad", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALES_NO_FLAG] = { "scales without CVT_SCALES", "scales", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SSTRIDE_NO_FLAG] = { "scale_stride without CVT_SCALES", "scale_stride", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SSTRIDE_UNUSED] = { "scale_stride beyond ndims", "scale_stride", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_FILL_VALUE_I4] = { "i4 FILL value 0x10", "value", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_FILL_VALUE_BF16] = { "bf16 FILL value 0x10000", "value", TCC_EI, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_BAD_IN_MIDDLE] = { "bad nibble between two typed COPYs", "src_nibble", TCC_EI, TCC_EI, TCC_BAD, 1 },

	[TC_CASE_T_NIBBLE_PAST] = { "i4 destination one nibble past the buffer", "dst", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_T_NIBBLE_SRC_PAST] = { "u4 source one nibble past the buffer", "src", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_T_NIBBLE_OVERFLOW] = { "i4 source stride 2^63 x 2", "src", TCC_EO, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALES_PAST] = { "scales one past the buffer", "scales", TCC_ER, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_T_SCALES_OVERFLOW] = { "scale_stride 2^32-1 x 2^32-1 elements", "scales", TCC_EO, TCC_EI, TCC_BAD, 0 },
	[TC_CASE_T_SCALES_FAR] = { "scales 2^40 past the buffer", "scales", TCC_ER, TCC_EI, TCC_UNM, 0 },
	/* offset 0 is the plan's scales to the library */
	[TC_CASE_T_SCALES_VA_ZERO] = { "scales address 0", NULL, TC_NA, TCC_EI, TCC_UNM, 0 },
	[TC_CASE_T_SCALES_UNLISTED] = { "scales in a buffer the job does not list", NULL, TC_NA, TCC_EI, TCC_OK, 0 },

	[TC_CASE_T_WORK_ONE] = { "u4 FILL of max + 2 nibbles", "extent", TCC_E2, TCC_E2, TCC_BAD, 1 },
	/* typed rows are bounded in elements, contiguous or not (no byte rule) */
	[TC_CASE_T_ROW_AT_BOUND] = { "typed FILL row of DRM_TILECOPY_MAX_ROW_ELEMS writes", NULL, TC_NA, 0, TC_NA, 0 },
	[TC_CASE_T_ROW_PAST_BOUND] = { "typed FILL row of DRM_TILECOPY_MAX_ROW_ELEMS + 1 writes", NULL, TC_NA, TCC_E2, TC_NA, 0 },
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

/* A typed COPY of @n elements, strides 1, from @src to @dst. */
static inline void tc_case_typed(struct drm_tilecopy_desc *d, uint64_t dst,
				 unsigned int dst_type, uint64_t src,
				 unsigned int src_type, uint32_t n)
{
	tc_case_memcpy(d, dst, src, n);
	d->elem_size = 0;
	d->src_type = (uint8_t)src_type;
	d->dst_type = (uint8_t)dst_type;
}

/* A typed FILL of @n elements of @type, stride 1, at @dst. */
static inline void tc_case_typed_fill(struct drm_tilecopy_desc *d, uint64_t dst,
				      unsigned int type, uint64_t value, uint32_t n)
{
	tc_case_fill0(d, dst, n, 0);
	d->elem_size = 0;
	d->dst_type = (uint8_t)type;
	d->value = value;
	d->dst_stride[0] = 1;
}

/* Per-channel scales along dimension 1 of an [e0, e1] f32 -> u8 COPY. */
static inline void tc_case_scales(struct drm_tilecopy_desc *d, const struct tc_desc_env *e,
				  uint64_t scales, uint32_t e0, uint32_t e1)
{
	tc_case_typed(d, e->dst, DRM_TILECOPY_TYPE_U8, e->src, DRM_TILECOPY_TYPE_F32, e0);
	d->ndims = 2;
	d->extent[1] = e1;
	d->src_stride[1] = d->dst_stride[1] = e0;
	d->cvt_flags = DRM_TILECOPY_CVT_SCALES;
	d->scales = scales;
	d->scale_stride[1] = 1;
}

/* The cases from TC_CASE_T_OK_F32_BF16 on (typed descriptors). */
static inline unsigned int tc_desc_case_build_typed(unsigned int c, const struct tc_desc_env *e,
						    struct drm_tilecopy_desc *d)
{
	const uint32_t buf = (uint32_t)TC_CASE_BUF;
	struct drm_tilecopy_desc *x = &d[0];
	unsigned int n = 1;

	/* the base: f32 -> f16 of 1024 elements, which each case changes */
	tc_case_typed(x, e->dst, DRM_TILECOPY_TYPE_F16, e->src, DRM_TILECOPY_TYPE_F32, 1024);
	switch (c) {
	case TC_CASE_T_OK_F32_BF16:
		x->dst_type = DRM_TILECOPY_TYPE_BF16;
		x->extent[0] = 2048;
		break;
	case TC_CASE_T_OK_NIBBLES:
		/* 40 x 3 elements: every 3rd nibble of src, rows 301 nibbles apart */
		tc_case_typed(x, e->dst + 5, DRM_TILECOPY_TYPE_I4, e->src + 7,
			      DRM_TILECOPY_TYPE_U4, 3);
		x->src_nibble = x->dst_nibble = 1;
		x->ndims = 2;
		x->extent[1] = 40;
		x->src_stride[0] = 3;
		x->src_stride[1] = 9;
		x->dst_stride[1] = 301;
		break;
	case TC_CASE_T_OK_NIBBLE_LAST:
		/* nibbles 1 .. 2 * buf - 1: every byte, the first one's high half */
		tc_case_typed(x, e->dst, DRM_TILECOPY_TYPE_I4, e->src, DRM_TILECOPY_TYPE_I8,
			      2 * buf - 1);
		x->src_stride[0] = 0;
		x->dst_nibble = 1;
		break;
	case TC_CASE_T_OK_SCALE_ZP:
		x->dst_type = DRM_TILECOPY_TYPE_I8;
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0x3e800000u;		/* 0.25 */
		x->src_zp = -3;
		x->dst_zp = 7;
		break;
	case TC_CASE_T_OK_SCALES:
		tc_case_scales(x, e, e->scales, 16, 64);
		x->src_type = DRM_TILECOPY_TYPE_F16;
		break;
	case TC_CASE_T_OK_SCALES_LAST:
		tc_case_scales(x, e, e->scales + buf - 4 * 64, 16, 64);
		break;
	case TC_CASE_T_OK_SCALES_RO:
		tc_case_scales(x, e, e->ro, 16, 64);
		break;
	case TC_CASE_T_OK_FILL_I4:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_I4, 0xf, 301);
		x->dst_nibble = 1;
		break;
	case TC_CASE_T_OK_FILL_BF16:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_BF16, 0xffff, 4096);
		break;
	case TC_CASE_T_OK_SCALE_ZERO:
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0x80000000u;
		break;
	case TC_CASE_T_SRC_TYPE_9: x->src_type = 9; break;
	case TC_CASE_T_DST_TYPE_FF: x->dst_type = 0xff; break;
	case TC_CASE_T_SRC_ONLY: x->dst_type = 0; break;
	case TC_CASE_T_DST_ONLY: x->src_type = 0; break;
	case TC_CASE_T_FILL_SRC_TYPE:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_U8, 1, 16);
		x->src_type = DRM_TILECOPY_TYPE_U8;
		break;
	case TC_CASE_T_W64_TYPED:
		tc_case_write64(x, e->dst);
		x->elem_size = 0;
		x->dst_type = DRM_TILECOPY_TYPE_I32;
		x->value = 0;
		break;
	case TC_CASE_T_ELEM_SIZE: x->elem_size = 4; break;
	case TC_CASE_T_SRC_NIBBLE_2:
		x->src_type = DRM_TILECOPY_TYPE_U4;
		x->src_nibble = 2;
		break;
	case TC_CASE_T_SRC_NIBBLE_I8:
		x->src_type = DRM_TILECOPY_TYPE_I8;
		x->src_nibble = 1;
		break;
	case TC_CASE_T_DST_NIBBLE_UNTYPED:
		tc_case_memcpy(x, e->dst, e->src, 16);
		x->dst_nibble = 1;
		break;
	case TC_CASE_T_DST_NIBBLE_FILL_U8:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_U8, 1, 16);
		x->dst_nibble = 1;
		break;
	case TC_CASE_T_CVT_UNKNOWN: x->cvt_flags = 4; break;
	case TC_CASE_T_CVT_BOTH:
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE | DRM_TILECOPY_CVT_SCALES;
		x->scale = 0x3f800000u;
		x->scales = e->scales;
		break;
	case TC_CASE_T_CVT_UNTYPED:
		tc_case_memcpy(x, e->dst, e->src, 16);
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0x3f800000u;
		break;
	case TC_CASE_T_CVT_FILL:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_U8, 1, 16);
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0x3f800000u;
		break;
	case TC_CASE_T_SCALE_NAN:
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0x7fc00000u;
		break;
	case TC_CASE_T_SCALE_INF:
		x->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		x->scale = 0xff800000u;
		break;
	case TC_CASE_T_SCALE_NO_FLAG: x->scale = 0x3f800000u; break;
	case TC_CASE_T_ZP_FILL:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_U8, 1, 16);
		x->dst_zp = 1;
		break;
	case TC_CASE_T_ZP_UNTYPED:
		tc_case_memcpy(x, e->dst, e->src, 16);
		x->src_zp = -1;
		break;
	case TC_CASE_T_PAD: x->pad = 1; break;
	case TC_CASE_T_SCALES_NO_FLAG: x->scales = e->scales + 4; break;
	case TC_CASE_T_SSTRIDE_NO_FLAG: x->scale_stride[0] = 1; break;
	case TC_CASE_T_SSTRIDE_UNUSED:
		tc_case_scales(x, e, e->scales, 16, 64);
		x->scale_stride[2] = 1;
		break;
	case TC_CASE_T_FILL_VALUE_I4:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_I4, 0x10, 16);
		break;
	case TC_CASE_T_FILL_VALUE_BF16:
		tc_case_typed_fill(x, e->dst, DRM_TILECOPY_TYPE_BF16, 0x10000, 16);
		break;
	case TC_CASE_T_BAD_IN_MIDDLE:
		tc_case_typed(&d[0], e->dst, DRM_TILECOPY_TYPE_U4, e->src, DRM_TILECOPY_TYPE_U4, 16);
		d[1] = d[0];
		d[1].src_nibble = 3;
		d[2] = d[0];
		d[2].dst += 16;
		n = 3;
		break;
	case TC_CASE_T_NIBBLE_PAST:
		/* nibbles 1 .. 2 * buf: the last one is in the byte after dst */
		tc_case_typed(x, e->dst, DRM_TILECOPY_TYPE_I4, e->src, DRM_TILECOPY_TYPE_I8,
			      2 * buf);
		x->src_stride[0] = 0;
		x->dst_nibble = 1;
		break;
	case TC_CASE_T_NIBBLE_SRC_PAST:
		tc_case_typed(x, e->dst, DRM_TILECOPY_TYPE_U8, e->src + buf - 8,
			      DRM_TILECOPY_TYPE_U4, 17);
		break;
	case TC_CASE_T_NIBBLE_OVERFLOW:
		x->src_type = DRM_TILECOPY_TYPE_I4;
		x->extent[0] = 3;
		x->src_stride[0] = 1ull << 63;
		break;
	case TC_CASE_T_SCALES_PAST:
		tc_case_scales(x, e, e->scales + buf - 4 * 64 + 4, 16, 64);
		break;
	case TC_CASE_T_SCALES_OVERFLOW:
		/* one source element broadcast, one destination byte rewritten */
		tc_case_scales(x, e, e->scales, 0xffffffffu, 0xffffffffu);
		x->src_stride[1] = x->dst_stride[1] = 0;
		x->src_stride[0] = x->dst_stride[0] = 0;
		x->scale_stride[0] = 0xffffffffu;
		break;
	case TC_CASE_T_SCALES_FAR:
		tc_case_scales(x, e, e->scales + (1ull << 40), 16, 64);
		break;
	case TC_CASE_T_SCALES_VA_ZERO:
		tc_case_scales(x, e, 0, 16, 64);
		break;
	case TC_CASE_T_SCALES_UNLISTED:
		tc_case_scales(x, e, e->other, 16, 64);
		break;
	case TC_CASE_T_WORK_ONE:	/* rows * r >= max + 2 nibbles, rows a nibble apart */
		tc_case_write64(&d[0], e->dst);
		tc_case_fill_rows(&d[1], e->dst + 8, tc_case_row(e),
				  (uint32_t)((e->max + 1) / tc_case_row(e) + 1));
		d[1].elem_size = 0;
		d[1].dst_type = DRM_TILECOPY_TYPE_U4;
		d[1].value = 0xa;
		n = 2;
		break;
	case TC_CASE_T_ROW_AT_BOUND:
	case TC_CASE_T_ROW_PAST_BOUND:
		tc_case_fill0(x, e->dst, (uint32_t)DRM_TILECOPY_MAX_ROW_ELEMS +
			      (c == TC_CASE_T_ROW_PAST_BOUND), 0);
		x->elem_size = 0;
		x->dst_type = DRM_TILECOPY_TYPE_U8;
		break;
	}
	return n;
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
	if (c >= TC_CASE_T_OK_F32_BF16)
		return tc_desc_case_build_typed(c, e, d);
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
