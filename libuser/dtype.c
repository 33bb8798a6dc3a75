// SPDX-License-Identifier: MIT
/*
 * dtype.c - element types. Only the size matters to a layout conversion
 * (and the kind to a converting one, plan.c); the name is kept for
 * messages and for choosing C0 of fractal formats.
 *
 * Sizes are in bits: i4 and u4 hold two elements per byte, the even
 * element in the low nibble (MegEngine and CUDA), so "bytes per element"
 * cannot describe them. tc_dtype_size() is the byte size of byte-sized
 * types and 0 for the 4-bit ones.
 */
#include <string.h>

#include "internal.h"

static const struct {
	const char *name;
	unsigned int bits;
} tc_dtypes[] = {
	[TILECOPY_DT_U8] = { "u8", 8 },
	[TILECOPY_DT_I8] = { "i8", 8 },
	[TILECOPY_DT_F16] = { "f16", 16 },
	[TILECOPY_DT_BF16] = { "bf16", 16 },
	[TILECOPY_DT_I16] = { "i16", 16 },
	[TILECOPY_DT_F32] = { "f32", 32 },
	[TILECOPY_DT_I32] = { "i32", 32 },
	[TILECOPY_DT_F64] = { "f64", 64 },
	[TILECOPY_DT_I64] = { "i64", 64 },
	[TILECOPY_DT_I4] = { "i4", 4 },
	[TILECOPY_DT_U4] = { "u4", 4 },
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
	{ "int4", TILECOPY_DT_I4 },	{ "uint4", TILECOPY_DT_U4 },
};

unsigned int tc_dtype_bits(tilecopy_dtype_t dt)
{
	if ((unsigned int)dt >= TC_ARRAY_SIZE(tc_dtypes))
		return 0;
	return tc_dtypes[dt].bits;
}

size_t tc_dtype_size(tilecopy_dtype_t dt)
{
	return tc_dtype_bits(dt) / 8;
}

uint64_t tc_elems_bytes(uint64_t n, unsigned int bits)
{
	return bits == 4 ? n / 2 + (n & 1) : n * (bits / 8);
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
		       "dtype: unknown element type '%s' (u8, i8, f16, bf16, i16, f32, i32, f64, i64, i4, u4 or int8, float16, ...)",
		       name);
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_size(tilecopy_dtype_t dt, size_t *bytes)
{
	if (!bytes)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bytes: NULL");
	if (!tc_dtype_bits(dt))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dt);
	if (!tc_dtype_size(dt))
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "dtype: %s has %u bits, less than a byte (tilecopy_dtype_bits gives it)",
			       tc_dtype_name(dt), tc_dtype_bits(dt));
	*bytes = tc_dtype_size(dt);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_bits(tilecopy_dtype_t dt, size_t *bits)
{
	if (!bits)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "bits: NULL");
	if (!tc_dtype_bits(dt))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dt);
	*bits = tc_dtype_bits(dt);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_dtype_name(tilecopy_dtype_t dt, const char **name)
{
	if (!name)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "name: NULL");
	if (!tc_dtype_bits(dt))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "dtype: unknown (%d)", (int)dt);
	*name = tc_dtype_name(dt);
	return tc_ok();
}
