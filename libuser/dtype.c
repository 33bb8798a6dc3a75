// SPDX-License-Identifier: MIT
/*
 * dtype.c - element types. Only the size matters to a layout conversion;
 * the name is kept for messages and for choosing C0 of fractal formats.
 */
#include <string.h>

#include "internal.h"

static const struct {
	const char *name;
	size_t size;
} tc_dtypes[] = {
	[TILECOPY_DT_U8] = { "u8", 1 },
	[TILECOPY_DT_I8] = { "i8", 1 },
	[TILECOPY_DT_F16] = { "f16", 2 },
	[TILECOPY_DT_BF16] = { "bf16", 2 },
	[TILECOPY_DT_I16] = { "i16", 2 },
	[TILECOPY_DT_F32] = { "f32", 4 },
	[TILECOPY_DT_I32] = { "i32", 4 },
	[TILECOPY_DT_F64] = { "f64", 8 },
	[TILECOPY_DT_I64] = { "i64", 8 },
};

static const struct {
	const char *name;
	tilecopy_dtype_t dt;
} tc_long_names[] = {
	{ "uint8", TILECOPY_DT_U8 },	{ "int8", TILECOPY_DT_I8 },
	{ "float16", TILECOPY_DT_F16 },	{ "half", TILECOPY_DT_F16 },
	{ "fp16", TILECOPY_DT_F16 },	{ "bfloat16", TILECOPY_DT_BF16 },
	{ "int16", TILECOPY_DT_I16 },	{ "float32", TILECOPY_DT_F32 },
	{ "float", TILECOPY_DT_F32 },	{ "fp32", TILECOPY_DT_F32 },
	{ "int32", TILECOPY_DT_I32 },	{ "float64", TILECOPY_DT_F64 },
	{ "double", TILECOPY_DT_F64 },	{ "int64", TILECOPY_DT_I64 },
};

size_t tc_dtype_size(tilecopy_dtype_t dt)
{
	if ((unsigned int)dt >= TC_ARRAY_SIZE(tc_dtypes))
		return 0;
	return tc_dtypes[dt].size;
}

const char *tc_dtype_name(tilecopy_dtype_t dt)
{
	if ((unsigned int)dt >= TC_ARRAY_SIZE(tc_dtypes))
		return "?";
	return tc_dtypes[dt].name;
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_parse(tilecopy_dtype_t *dt,
						    const char *name)
{
	if (!dt || !name)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: NULL argument");
	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_dtypes); i++) {
		if (!strcmp(name, tc_dtypes[i].name)) {
			*dt = (tilecopy_dtype_t)i;
			return tc_ok();
		}
	}
	/* Long names, as frameworks spell them. */
	for (size_t i = 0; i < TC_ARRAY_SIZE(tc_long_names); i++) {
		if (!strcmp(name, tc_long_names[i].name)) {
			*dt = tc_long_names[i].dt;
			return tc_ok();
		}
	}
	return tc_fail(TILECOPY_ERR_PARSE,
		       "dtype: unknown element type '%s' (u8, i8, f16, bf16, i16, f32, i32, f64, i64 or int8, float16, ...)",
		       name);
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_size(tilecopy_dtype_t dt, size_t *bytes)
{
	if (!bytes)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bytes: NULL");
	if (!tc_dtype_size(dt))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dt);
	*bytes = tc_dtype_size(dt);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_name(tilecopy_dtype_t dt, const char **name)
{
	if (!name)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "name: NULL");
	if (!tc_dtype_size(dt))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dt);
	*name = tc_dtype_name(dt);
	return tc_ok();
}
