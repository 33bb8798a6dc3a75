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

TILECOPY_API size_t tilecopy_dtype_size(tilecopy_dtype_t dt)
{
	if ((unsigned int)dt >= TC_ARRAY_SIZE(tc_dtypes))
		return 0;
	return tc_dtypes[dt].size;
}

TILECOPY_API const char *tilecopy_dtype_name(tilecopy_dtype_t dt)
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
	/* Common spellings of the same types. */
	if (!strcmp(name, "float") || !strcmp(name, "fp32"))
		return *dt = TILECOPY_DT_F32, tc_ok();
	if (!strcmp(name, "half") || !strcmp(name, "fp16"))
		return *dt = TILECOPY_DT_F16, tc_ok();
	if (!strcmp(name, "int8"))
		return *dt = TILECOPY_DT_I8, tc_ok();
	return tc_fail(TILECOPY_ERR_INVALID_ARG,
		       "dtype: unknown element type '%s' (u8, i8, f16, bf16, i16, f32, i32, f64, i64)",
		       name);
}
