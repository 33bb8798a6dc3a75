// SPDX-License-Identifier: MIT
/*
 * dlpack.c - DLPack import and export (include/tilecopy/dlpack.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilecopy/dlpack.h"
#include "internal.h"

static const struct {
	uint8_t code, bits;
	tilecopy_dtype_t dt;
} tc_dl_types[] = {
	{ kDLUInt, 8, TILECOPY_DT_U8 },		{ kDLInt, 8, TILECOPY_DT_I8 },
	{ kDLFloat, 16, TILECOPY_DT_F16 },	{ kDLBfloat, 16, TILECOPY_DT_BF16 },
	{ kDLInt, 16, TILECOPY_DT_I16 },	{ kDLFloat, 32, TILECOPY_DT_F32 },
	{ kDLInt, 32, TILECOPY_DT_I32 },	{ kDLFloat, 64, TILECOPY_DT_F64 },
	{ kDLInt, 64, TILECOPY_DT_I64 },
};

/*
 * 4-bit integers are not exchanged: DLPack 0.6 (the header this library
 * builds against) defines no packing below a byte, and its size rule,
 * (bits * lanes + 7) / 8 bytes per element, gives an int4 element a whole
 * byte. Reading such a tensor as two a byte, or handing out ours for a
 * consumer to read as one a byte, would move the wrong elements silently.
 */
static tilecopy_status_t tc_dl_no_4bit(const char *field)
{
	return tc_fail(TILECOPY_ERR_UNSUPPORTED,
		       "%s: 4-bit integers have no packing in DLPack 0.6 (it sizes an element as (bits + 7) / 8 bytes, one a byte, where i4 and u4 are two a byte); pass the bytes as u8",
		       field);
}

static tilecopy_status_t tc_dl_dtype(DLDataType t, tilecopy_dtype_t *dt)
{
	if (t.lanes != 1)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "dl->dtype: %u lanes; only scalar elements (lanes 1)", t.lanes);
	if ((t.code == kDLInt || t.code == kDLUInt) && t.bits == 4)
		return tc_dl_no_4bit("dl->dtype");
	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_dl_types); i++) {
		if (tc_dl_types[i].code == t.code && tc_dl_types[i].bits == t.bits) {
			*dt = tc_dl_types[i].dt;
			return TILECOPY_SUCCESS;
		}
	}
	return tc_fail(TILECOPY_ERR_UNSUPPORTED,
		       "dl->dtype: code %u bits %u has no tilecopy dtype (u8, i8..i64, f16, bf16, f32, f64)",
		       t.code, t.bits);
}

static tilecopy_status_t tc_dl_device(DLDevice d)
{
	switch (d.device_type) {
	case kDLCPU:
	case kDLCUDAHost:
	case kDLROCMHost:
	case kDLCUDAManaged:
		return TILECOPY_SUCCESS;
	default:
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "dl->device: type %d is memory the CPU cannot address (kDLCPU, kDLCUDAHost, kDLROCMHost, kDLCUDAManaged are)",
			       (int)d.device_type);
	}
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_from_dlpack(tilecopy_tensor_t **out,
							   const DLTensor *dl,
							   uint32_t flags)
{
	static const int64_t one = 1;
	tilecopy_dtype_t dt = TILECOPY_DT_U8;
	tilecopy_status_t st;
	tilecopy_tensor_t *t;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");
	*out = NULL;
	if (!dl)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dl: NULL");
	if (flags)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x", flags);
	st = tc_dl_device(dl->device);
	if (!st)
		st = tc_dl_dtype(dl->dtype, &dt);
	if (st)
		return st;
	if (dl->ndim < 0 || dl->ndim > TILECOPY_MAX_RANK)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED, "dl->ndim: %d outside 0..%d",
			       dl->ndim, TILECOPY_MAX_RANK);
	if (dl->ndim && !dl->shape)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dl->shape: NULL");
	if (!dl->ndim)	/* a scalar: one element */
		return tilecopy_tensor_create_strided(out, 1, &one, &one, dt, dl->byte_offset, 0);
	st = tilecopy_tensor_create_strided(out, dl->ndim, dl->shape, dl->strides, dt,
					    dl->byte_offset, 0);
	if (st)
		return st;
	t = *out;
	strcpy(t->format, "dlpack");
	return TILECOPY_SUCCESS;
}

/* One allocation: the managed tensor, then shape and strides. */
struct tc_dl_export {
	DLManagedTensor m;
	int64_t shape[TILECOPY_MAX_LEAVES];
	int64_t strides[TILECOPY_MAX_LEAVES];
};

static void tc_dl_deleter(DLManagedTensor *m)
{
	free(m);	/* m is the first member of struct tc_dl_export */
}

/* The logical view: one stride per dim, or UNSUPPORTED for a blocked dim. */
static tilecopy_status_t tc_dl_logical(struct tc_dl_export *e, const tilecopy_tensor_t *t)
{
	tilecopy_status_t st = tilecopy_tensor_strides(t, e->strides, TILECOPY_MAX_LEAVES);
	char why[256];

	if (st == TILECOPY_ERR_UNSUPPORTED) {
		/* a copy: the message is the buffer tc_fail writes into */
		snprintf(why, sizeof(why), "%s", tilecopy_last_error());
		return tc_fail(st, "%s (DLPack has one stride per dim; TILECOPY_DLPACK_PHYSICAL exports the blocked layout)",
			       why);
	}
	if (st)
		return st;
	memcpy(e->shape, t->extent, sizeof(e->shape[0]) * (size_t)t->layout.rank);
	e->m.dl_tensor.ndim = t->layout.rank;
	return TILECOPY_SUCCESS;
}

/* The physical view: every leaf a dim, largest stride first. */
static void tc_dl_physical(struct tc_dl_export *e, const tilecopy_tensor_t *t)
{
	const tilecopy_layout_t *l = &t->layout;
	int n = 0;

	for (int i = 0; i < l->nleaves; i++) {
		int k = n++;

		while (k > 0 && e->strides[k - 1] < l->stride[i]) {
			e->strides[k] = e->strides[k - 1];
			e->shape[k] = e->shape[k - 1];
			k--;
		}
		e->strides[k] = l->stride[i];
		e->shape[k] = l->shape[i];
	}
	e->m.dl_tensor.ndim = n;
}

TILECOPY_API tilecopy_status_t tilecopy_tensor_to_dlpack(DLManagedTensor **out,
							 const tilecopy_tensor_t *t,
							 void *data, uint32_t flags)
{
	struct tc_dl_export *e;
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "out: NULL");
	*out = NULL;
	st = tc_tensor_arg(t, "tensor");
	if (st)
		return st;
	if (!data)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "data: NULL");
	if (tc_dtype_bits(t->dtype) < 8)
		return tc_dl_no_4bit("tensor");
	if (flags & ~TILECOPY_DLPACK_PHYSICAL)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~TILECOPY_DLPACK_PHYSICAL);
	e = calloc(1, sizeof(*e));
	if (!e)
		return tc_fail(TILECOPY_ERR_NOMEM, "dlpack: out of memory");
	if (flags & TILECOPY_DLPACK_PHYSICAL) {
		tc_dl_physical(e, t);
	} else {
		st = tc_dl_logical(e, t);
		if (st) {
			free(e);
			return st;
		}
	}
	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_dl_types); i++) {
		if (tc_dl_types[i].dt == t->dtype) {
			e->m.dl_tensor.dtype.code = tc_dl_types[i].code;
			e->m.dl_tensor.dtype.bits = tc_dl_types[i].bits;
		}
	}
	e->m.dl_tensor.dtype.lanes = 1;
	e->m.dl_tensor.data = data;
	e->m.dl_tensor.device.device_type = kDLCPU;
	e->m.dl_tensor.device.device_id = 0;
	e->m.dl_tensor.shape = e->shape;
	e->m.dl_tensor.strides = e->strides;
	e->m.dl_tensor.byte_offset = t->byte_offset;
	e->m.manager_ctx = NULL;
	e->m.deleter = tc_dl_deleter;
	*out = &e->m;
	return tc_ok();
}
