// SPDX-License-Identifier: MIT
/*
 * plan_convert.c - what a plan does to element values: nothing (bits are
 * moved, the 1.0 plans), or a conversion (tilecopy_plan_create_v2 with
 * tilecopy_convert_params_t, docs/dtype-conversion.md). The dtypes and the
 * parameters are checked here and turned into the fields of typed
 * descriptors (ABI 1.2); plan.c emits them.
 *
 * A plan is typed when it converts, or when its elements are 4-bit (a
 * nibble can only be addressed by a typed descriptor). Everything else
 * stays untyped, so plans of 1.1 are unchanged, for old engines and for
 * the CPU executors' fast paths.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tilecopy_accel.h"

/* The engine's element types; 0 for the dtypes it cannot convert. */
static const uint8_t tc_uapi_types[] = {
	[TILECOPY_DT_U8] = DRM_TILECOPY_TYPE_U8,
	[TILECOPY_DT_I8] = DRM_TILECOPY_TYPE_I8,
	[TILECOPY_DT_F16] = DRM_TILECOPY_TYPE_F16,
	[TILECOPY_DT_BF16] = DRM_TILECOPY_TYPE_BF16,
	[TILECOPY_DT_I16] = 0,
	[TILECOPY_DT_F32] = DRM_TILECOPY_TYPE_F32,
	[TILECOPY_DT_I32] = DRM_TILECOPY_TYPE_I32,
	[TILECOPY_DT_F64] = 0,
	[TILECOPY_DT_I64] = 0,
	[TILECOPY_DT_I4] = DRM_TILECOPY_TYPE_I4,
	[TILECOPY_DT_U4] = DRM_TILECOPY_TYPE_U4,
};

uint8_t tc_dtype_uapi_type(tilecopy_dtype_t dt)
{
	if ((unsigned int)dt >= TC_ARRAY_SIZE(tc_uapi_types))
		return 0;
	return tc_uapi_types[dt];
}

/* The 1.2 struct; a caller's larger one has its unknown bytes zero. */
static tilecopy_status_t tc_params_struct(const tilecopy_convert_params_t *pr)
{
	const unsigned char *b = (const unsigned char *)pr;

	if (pr->struct_size < sizeof(*pr))
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "params->struct_size: %u, at least %zu (tilecopy_convert_params_init sets it)",
			       pr->struct_size, sizeof(*pr));
	if (pr->struct_size > TC_STRUCT_SIZE_MAX)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "params->struct_size: %u, more than %u: not set? (tilecopy_convert_params_init sets it)",
			       pr->struct_size, TC_STRUCT_SIZE_MAX);
	for (size_t i = sizeof(*pr); i < pr->struct_size; i++)
		if (b[i])
			return tc_fail(TILECOPY_ERR_UNSUPPORTED,
				       "params: byte %zu is set, a field this library (%s) does not know",
				       i, tilecopy_version_string());
	if (pr->flags)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "params->flags: unknown bits 0x%x",
			       pr->flags);
	if (pr->reserved)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "params->reserved: 0x%x, must be 0",
			       pr->reserved);
	return TILECOPY_SUCCESS;
}

/* Without parameters: the bits move (1.1's rules); 4-bit elements typed. */
static tilecopy_status_t tc_convert_none(struct tc_convert *cv, const tilecopy_tensor_t *src,
					 const tilecopy_tensor_t *dst, uint32_t flags)
{
	unsigned int sb = tc_dtype_bits(src->dtype), db = tc_dtype_bits(dst->dtype);

	if (sb != db && sb >= 8 && db >= 8)
		return tc_fail(TILECOPY_ERR_DTYPE_MISMATCH,
			       "dst: element size %u (%s) differs from src element size %u (%s); a plan moves bits and converts no values (tilecopy_plan_create_v2 with tilecopy_convert_params_t converts them)",
			       db / 8, tc_dtype_name(dst->dtype), sb / 8,
			       tc_dtype_name(src->dtype));
	if (sb != db)
		return tc_fail(TILECOPY_ERR_DTYPE_MISMATCH,
			       "dst: element size %u bits (%s) differs from src element size %u bits (%s); a plan moves bits and converts no values (tilecopy_plan_create_v2 with tilecopy_convert_params_t converts them)",
			       db, tc_dtype_name(dst->dtype), sb, tc_dtype_name(src->dtype));
	if (src->dtype != dst->dtype && !(flags & TILECOPY_PLAN_REINTERPRET))
		return tc_fail(TILECOPY_ERR_DTYPE_MISMATCH,
			       "dst: dtype %s differs from src dtype %s; a plan moves bits and converts no values (TILECOPY_PLAN_REINTERPRET copies them as they are; tilecopy_plan_create_v2 with tilecopy_convert_params_t converts them)",
			       tc_dtype_name(dst->dtype), tc_dtype_name(src->dtype));
	if (db == 4) {
		/* a copy of the nibbles: one type on both sides converts nothing */
		cv->typed = 1;
		cv->src_type = cv->dst_type = tc_dtype_uapi_type(dst->dtype);
	}
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_convert_kinds(struct tc_convert *cv, const tilecopy_tensor_t *src,
					  const tilecopy_tensor_t *dst)
{
	static const char kinds[] = "f32, f16, bf16, i8, u8, i32, i4 or u4";

	cv->src_type = tc_dtype_uapi_type(src->dtype);
	cv->dst_type = tc_dtype_uapi_type(dst->dtype);
	if (!cv->src_type)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "src: dtype %s cannot be converted (%s can)",
			       tc_dtype_name(src->dtype), kinds);
	if (!cv->dst_type)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "dst: dtype %s cannot be converted to (%s can)",
			       tc_dtype_name(dst->dtype), kinds);
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_convert_types(struct tc_convert *cv, const tilecopy_tensor_t *src,
				   const tilecopy_tensor_t *dst,
				   const tilecopy_convert_params_t *params, uint32_t flags)
{
	tilecopy_status_t st;

	memset(cv, 0, sizeof(*cv));
	cv->chan = -1;
	if (!params)
		return tc_convert_none(cv, src, dst, flags);
	if (flags & TILECOPY_PLAN_REINTERPRET)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "flags: TILECOPY_PLAN_REINTERPRET copies bits, params convert values: one or the other");
	st = tc_params_struct(params);
	if (!st)
		st = tc_convert_kinds(cv, src, dst);
	return st;
}

/* Every scale finite; *@mul: one of them is not 1.0, *@same: all equal. */
static tilecopy_status_t tc_scales_scan(const float *s, size_t n, int *mul, int *same)
{
	*mul = 0;
	*same = 1;
	for (size_t i = 0; i < n; i++) {
		if (isnan(s[i]) || isinf(s[i]))
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "params->scales[%zu]: %s; a scale must be finite",
				       i, isnan(s[i]) ? "NaN" : "infinite");
		*mul |= s[i] != 1.0f;
		*same &= !memcmp(&s[i], &s[0], sizeof(s[0]));
	}
	return TILECOPY_SUCCESS;
}

/* @nscales against @scale_dim and the shape: 0, 1, or the dim's extent. */
static tilecopy_status_t tc_scales_shape(const tilecopy_convert_params_t *pr,
					 const tilecopy_tensor_t *dst)
{
	int rank = dst->layout.rank;

	if (pr->nscales && !pr->scales)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "params->scales: NULL with nscales %zu",
			       pr->nscales);
	if (!pr->nscales && pr->scales)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "params->nscales: 0 with scales given (1 for one scale per tensor)");
	if (pr->scale_dim < -1 || pr->scale_dim >= rank)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "params->scale_dim: %d outside -1..%d (a logical dim of the rank-%d tensors, or -1 per tensor)",
			       (int)pr->scale_dim, rank - 1, rank);
	if (pr->nscales <= 1)
		return TILECOPY_SUCCESS;
	if (pr->scale_dim < 0)
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "params->nscales: %zu scales with scale_dim -1 (one scale per tensor: nscales 1)",
			       pr->nscales);
	if ((uint64_t)pr->nscales != (uint64_t)dst->extent[pr->scale_dim])
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "params->nscales: %zu, but dim %d (scale_dim) has extent %lld: one scale per index, or 1",
			       pr->nscales, (int)pr->scale_dim,
			       (long long)dst->extent[pr->scale_dim]);
	if (pr->nscales > UINT32_MAX)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "params->nscales: %zu scales; a descriptor's scale strides are 32-bit (at most 2^32-1 channels)",
			       pr->nscales);
	return TILECOPY_SUCCESS;
}

/* The scales as descriptors carry them: none, one, or the plan's array. */
static tilecopy_status_t tc_convert_scales(struct tc_convert *cv,
					   const tilecopy_convert_params_t *pr)
{
	int mul, same;
	tilecopy_status_t st = tc_scales_scan(pr->scales, pr->nscales, &mul, &same);

	if (st || !mul)
		return st;	/* all 1.0: no step (x * 1 would quiet a NaN) */
	if (same) {	/* per channel, all alike: one scale does the same */
		cv->cvt_flags = DRM_TILECOPY_CVT_SCALE;
		memcpy(&cv->scale, &pr->scales[0], sizeof(cv->scale));
		return TILECOPY_SUCCESS;
	}
	cv->scales = malloc(pr->nscales * sizeof(float));
	if (!cv->scales)
		return tc_fail(TILECOPY_ERR_NOMEM, "params->scales: no memory for %zu scales",
			       pr->nscales);
	memcpy(cv->scales, pr->scales, pr->nscales * sizeof(float));
	cv->nscales = pr->nscales;
	cv->cvt_flags = DRM_TILECOPY_CVT_SCALES;
	cv->chan = pr->scale_dim;
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_convert_params(struct tc_convert *cv, const tilecopy_tensor_t *src,
				    const tilecopy_tensor_t *dst,
				    const tilecopy_convert_params_t *pr)
{
	tilecopy_status_t st;

	if (!pr)
		return TILECOPY_SUCCESS;
	st = tc_scales_shape(pr, dst);
	if (!st)
		st = tc_convert_scales(cv, pr);
	if (st)
		return st;
	cv->src_zp = pr->src_zero_point;
	cv->dst_zp = pr->dst_zero_point;
	/* the same byte-sized type, nothing to compute: a copy, untyped */
	cv->typed = src->dtype != dst->dtype || tc_dtype_bits(dst->dtype) == 4 ||
		    cv->cvt_flags || cv->src_zp || cv->dst_zp;
	return TILECOPY_SUCCESS;
}

void tc_convert_fini(struct tc_convert *cv)
{
	free(cv->scales);
	cv->scales = NULL;
	cv->nscales = 0;
}

TILECOPY_API tilecopy_status_t tilecopy_convert_params_init(tilecopy_convert_params_t *params)
{
	if (!params)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "params: NULL");
	memset(params, 0, sizeof(*params));
	params->struct_size = (uint32_t)sizeof(*params);
	params->scale_dim = -1;
	return tc_ok();
}
