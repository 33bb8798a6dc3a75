// SPDX-License-Identifier: MIT
/*
 * test_api.c - the public API as a program sees it: every function with
 * NULL and with the wrong kind of handle, versions, tensors from numbers
 * and from DLPack, the physical-order option, in-place conversions, dtype
 * checks, plans of hand-damaged tensors.
 */
#include <pthread.h>
#include <stdio.h>

#include "tc_test.h"
#include "tilecopy/dlpack.h"

START_TEST(test_version)
{
	char want[32];

	ck_assert_uint_eq(tilecopy_version(), TILECOPY_VERSION);
	snprintf(want, sizeof(want), "%d.%d.%d", TILECOPY_VERSION_MAJOR,
		 TILECOPY_VERSION_MINOR, TILECOPY_VERSION_PATCH);
	ck_assert_str_eq(tilecopy_version_string(), want);
	ck_assert_str_eq(tilecopy_status_str((tilecopy_status_t)999), "unknown status");
}
END_TEST

#define NUL_FAILS(call) TC_FAILS(call, TILECOPY_ERR_INVALID_ARG, "")

START_TEST(test_null_everywhere)
{
	int64_t shape[2] = { 2, 3 }, i64 = 0;
	tilecopy_layout_t *l = NULL;
	tilecopy_tensor_t *t = NULL;
	tilecopy_plan_t *p = NULL;
	const tilecopy_layout_t *cl;
	const struct drm_tilecopy_desc *d;
	const char *s;
	tilecopy_dtype_t dt;
	uint64_t u64;
	size_t sz;
	int i;
	char buf[64] = "x";
	DLManagedTensor *m;

	NUL_FAILS(tilecopy_dtype_size(TILECOPY_DT_F32, NULL));
	NUL_FAILS(tilecopy_dtype_size((tilecopy_dtype_t)77, &sz));
	NUL_FAILS(tilecopy_dtype_name(TILECOPY_DT_F32, NULL));
	NUL_FAILS(tilecopy_dtype_parse(NULL, "f32"));
	NUL_FAILS(tilecopy_dtype_parse(&dt, NULL));
	NUL_FAILS(tilecopy_layout_parse(NULL, "4:1"));
	NUL_FAILS(tilecopy_layout_parse(&l, NULL));
	ck_assert_ptr_null(l);
	NUL_FAILS(tilecopy_layout_create(NULL, 2, shape, shape));
	NUL_FAILS(tilecopy_layout_create(&l, 2, NULL, shape));
	NUL_FAILS(tilecopy_layout_clone(&l, NULL));
	NUL_FAILS(tilecopy_layout_clone(NULL, NULL));
	tilecopy_layout_destroy(NULL);
	NUL_FAILS(tilecopy_layout_print(NULL, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "");
	NUL_FAILS(tilecopy_layout_size(NULL, &i64));
	NUL_FAILS(tilecopy_layout_cosize(NULL, &i64));
	NUL_FAILS(tilecopy_layout_rank(NULL, &i));
	NUL_FAILS(tilecopy_layout_depth(NULL, &i));
	NUL_FAILS(tilecopy_layout_mode_size(NULL, 0, &i64));
	NUL_FAILS(tilecopy_layout_nleaves(NULL, &i));
	NUL_FAILS(tilecopy_layout_leaf(NULL, 0, &i64, &i64));
	NUL_FAILS(tilecopy_layout_mode_leaves(NULL, 0, &i, &i));
	NUL_FAILS(tilecopy_layout_crd2idx(NULL, shape, 2, &i64));
	NUL_FAILS(tilecopy_layout_idx2crd(NULL, 0, shape, 2));
	NUL_FAILS(tilecopy_layout_coalesce(&l, NULL));
	NUL_FAILS(tilecopy_layout_composition(&l, NULL, NULL));
	NUL_FAILS(tilecopy_layout_complement(&l, NULL, 4));
	NUL_FAILS(tilecopy_layout_right_inverse(&l, NULL));
	NUL_FAILS(tilecopy_layout_logical_divide(&l, NULL, NULL));
	NUL_FAILS(tilecopy_tensor_create(NULL, "NCHW", shape, 2, TILECOPY_DT_F32, NULL, 0));
	NUL_FAILS(tilecopy_tensor_create(&t, NULL, shape, 2, TILECOPY_DT_F32, NULL, 0));
	NUL_FAILS(tilecopy_tensor_create(&t, "RowMajor", NULL, 2, TILECOPY_DT_F32, NULL, 0));
	NUL_FAILS(tilecopy_tensor_create_strided(NULL, 2, shape, NULL, TILECOPY_DT_F32, 0, 0));
	NUL_FAILS(tilecopy_tensor_create_strided(&t, 2, NULL, NULL, TILECOPY_DT_F32, 0, 0));
	NUL_FAILS(tilecopy_tensor_create_layout(&t, NULL, NULL, TILECOPY_DT_F32, 0));
	NUL_FAILS(tilecopy_tensor_create_layout(NULL, NULL, NULL, TILECOPY_DT_F32, 0));
	ck_assert_ptr_null(t);
	tilecopy_tensor_destroy(NULL);
	NUL_FAILS(tilecopy_tensor_rank(NULL, &i));
	NUL_FAILS(tilecopy_tensor_shape(NULL, shape, 2));
	NUL_FAILS(tilecopy_tensor_dtype(NULL, &dt));
	NUL_FAILS(tilecopy_tensor_layout(NULL, &cl));
	NUL_FAILS(tilecopy_tensor_format(NULL, &s));
	NUL_FAILS(tilecopy_tensor_byte_offset(NULL, &u64));
	NUL_FAILS(tilecopy_tensor_strides(NULL, shape, 2));
	NUL_FAILS(tilecopy_tensor_physical_order(NULL, &i, 1));
	NUL_FAILS(tilecopy_tensor_bytes(NULL, &u64));
	NUL_FAILS(tilecopy_tensor_is_dense(NULL, &i));
	NUL_FAILS(tilecopy_tensor_is_contiguous_in(NULL, "NCHW", &i));
	NUL_FAILS(tilecopy_tensor_has_padding(NULL, &i));
	NUL_FAILS(tilecopy_tensor_has_overlap(NULL, &i));
	NUL_FAILS(tilecopy_shape_parse(NULL, &i, 4, "2x3"));
	NUL_FAILS(tilecopy_shape_parse(shape, NULL, 4, "2x3"));
	NUL_FAILS(tilecopy_shape_parse(shape, &i, 4, NULL));
	NUL_FAILS(tilecopy_plan_create(NULL, NULL, NULL, 0));
	NUL_FAILS(tilecopy_plan_create(&p, NULL, NULL, 0));
	ck_assert_ptr_null(p);
	tilecopy_plan_destroy(NULL);
	NUL_FAILS(tilecopy_plan_descs(NULL, &d, &sz));
	NUL_FAILS(tilecopy_plan_src_bytes(NULL, &u64));
	NUL_FAILS(tilecopy_plan_dst_bytes(NULL, &u64));
	NUL_FAILS(tilecopy_plan_moved_bytes(NULL, &u64));
	NUL_FAILS(tilecopy_desc_format(NULL, buf, sizeof(buf)));
	NUL_FAILS(tilecopy_plan_execute_cpu(NULL, buf, 1, buf, 1, NULL));
	NUL_FAILS(tilecopy_cpu_name(NULL, NULL));
	NUL_FAILS(tilecopy_cpu_threads(NULL));
	TC_FAILS(tilecopy_cpu_set_affinity(NULL, 2), TILECOPY_ERR_INVALID_ARG, "cpus: NULL");
	NUL_FAILS(tilecopy_tensor_from_dlpack(NULL, NULL, 0));
	NUL_FAILS(tilecopy_tensor_from_dlpack(&t, NULL, 0));
	NUL_FAILS(tilecopy_tensor_to_dlpack(NULL, NULL, buf, 0));
	NUL_FAILS(tilecopy_tensor_to_dlpack(&m, NULL, buf, 0));
	ck_assert_ptr_nonnull(tilecopy_last_error());
}
END_TEST

/* Outputs that are NULL with a good handle; handles of the wrong kind. */
START_TEST(test_outputs_and_handles)
{
	int64_t shape[2] = { 2, 3 };
	tilecopy_tensor_t *t;
	tilecopy_layout_t *l;
	tilecopy_plan_t *p;
	const tilecopy_layout_t *cl;
	int64_t i64;

	TC_OK(tilecopy_tensor_create(&t, "RowMajor", shape, 2, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_layout_parse(&l, "(2,3):(3,1)"));
	TC_OK(tilecopy_plan_create(&p, t, t, 0));
	NUL_FAILS(tilecopy_tensor_rank(t, NULL));
	NUL_FAILS(tilecopy_tensor_bytes(t, NULL));
	NUL_FAILS(tilecopy_layout_size(l, NULL));
	NUL_FAILS(tilecopy_plan_src_bytes(p, NULL));
	NUL_FAILS(tilecopy_plan_descs(p, NULL, NULL));
	TC_FAILS(tilecopy_tensor_shape(t, shape, 1), TILECOPY_ERR_BUFFER_TOO_SMALL, "count");
	/* a tensor is no layout, a layout no tensor, a plan neither */
	TC_FAILS(tilecopy_layout_size((const tilecopy_layout_t *)t, &i64),
		 TILECOPY_ERR_INVALID_ARG, "not a layout handle");
	TC_FAILS(tilecopy_tensor_layout((const tilecopy_tensor_t *)l, &cl),
		 TILECOPY_ERR_INVALID_ARG, "not a tensor handle");
	{
		tilecopy_plan_t *q;

		TC_FAILS(tilecopy_plan_create(&q, (const tilecopy_tensor_t *)p, t, 0),
			 TILECOPY_ERR_INVALID_ARG, "not a tensor handle");
	}
	/* the borrowed layout of a tensor is a layout */
	TC_OK(tilecopy_tensor_layout(t, &cl));
	TC_OK(tilecopy_layout_size(cl, &i64));
	ck_assert_int_eq(i64, 6);
	tilecopy_plan_destroy(p);
	/* unknown flags are refused everywhere */
	TC_FAILS(tilecopy_plan_create(&p, t, t, 1u << 30), TILECOPY_ERR_INVALID_ARG, "flags");
	ck_assert_ptr_null(p);
	tilecopy_layout_destroy(l);
	tilecopy_tensor_destroy(t);
}
END_TEST

/* The example: a 2x2 transposition in place gives 0 20 40 1. */
START_TEST(test_in_place)
{
	int64_t shape[2] = { 2, 2 };
	int32_t buf[4] = { 0, 40, 20, 1 }, big[64];
	tilecopy_tensor_t *a, *b;
	tilecopy_plan_t *p;

	TC_OK(tilecopy_tensor_create(&a, "RowMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&b, "ColumnMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, a, b, 0));
	TC_OK(tilecopy_plan_execute_cpu(p, buf, sizeof(buf), buf, sizeof(buf), "scalar"));
	ck_assert_int_eq(buf[0], 0);
	ck_assert_int_eq(buf[1], 20);
	ck_assert_int_eq(buf[2], 40);
	ck_assert_int_eq(buf[3], 1);
	/* partly overlapping: dst starts one element into src */
	for (int i = 0; i < 64; i++)
		big[i] = i;
	TC_OK(tilecopy_plan_execute_cpu(p, big, 16, big + 1, 16, NULL));
	/* NULL buffers with a good plan: refused, nothing written */
	TC_FAILS(tilecopy_plan_execute_cpu(p, NULL, 16, big, 16, NULL), TILECOPY_ERR_INVALID_ARG,
		 "src");
	TC_FAILS(tilecopy_plan_execute_cpu(p, big, 16, NULL, 16, NULL), TILECOPY_ERR_INVALID_ARG,
		 "dst");
	ck_assert_int_eq(big[1], 0);
	ck_assert_int_eq(big[2], 2);
	ck_assert_int_eq(big[3], 1);
	ck_assert_int_eq(big[4], 3);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
	/*
	 * A view terabytes into its buffer (the buffer "starts" near address
	 * 0; only the view is dereferenced), in place: only its footprint is
	 * copied aside (it asked for the whole offset of heap, and read before
	 * the view).
	 */
	{
		uint64_t off = ((uintptr_t)buf - 4096) & ~(uint64_t)15;
		uintptr_t base = (uintptr_t)buf - (uintptr_t)off;

		buf[0] = 0, buf[1] = 40, buf[2] = 20, buf[3] = 1;
		TC_OK(tilecopy_tensor_create_strided(&a, 2, shape, NULL, TILECOPY_DT_I32, off, 0));
		TC_OK(tilecopy_tensor_create_strided(&b, 2, shape, (int64_t[]){ 1, 2 },
						     TILECOPY_DT_I32, off, 0));
		TC_OK(tilecopy_plan_create(&p, a, b, 0));
		TC_OK(tilecopy_plan_execute_cpu(p, (const void *)base, off + 16, (void *)base,
						off + 16, NULL));
		ck_assert_int_eq(buf[1], 20);
		ck_assert_int_eq(buf[2], 40);
		tilecopy_plan_destroy(p);
		tilecopy_tensor_destroy(a);
		tilecopy_tensor_destroy(b);
	}
}
END_TEST

START_TEST(test_dtype_mismatch)
{
	int64_t shape[2] = { 2, 3 };
	tilecopy_tensor_t *f32, *i32, *f16;
	tilecopy_plan_t *p;

	TC_OK(tilecopy_tensor_create(&f32, "RowMajor", shape, 2, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&i32, "ColumnMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&f16, "ColumnMajor", shape, 2, TILECOPY_DT_F16, NULL, 0));
	TC_FAILS(tilecopy_plan_create(&p, f32, i32, 0), TILECOPY_ERR_DTYPE_MISMATCH,
		 "TILECOPY_PLAN_REINTERPRET");
	ck_assert_ptr_null(p);
	TC_OK(tilecopy_plan_create(&p, f32, i32, TILECOPY_PLAN_REINTERPRET));
	tilecopy_plan_destroy(p);
	TC_FAILS(tilecopy_plan_create(&p, f32, f16, TILECOPY_PLAN_REINTERPRET),
		 TILECOPY_ERR_DTYPE_MISMATCH, "element size");
	tilecopy_tensor_destroy(f32);
	tilecopy_tensor_destroy(i32);
	tilecopy_tensor_destroy(f16);
}
END_TEST

/* A tensor damaged by hand (white-box): plans refuse it, nothing overflows. */
START_TEST(test_hand_built_tensors)
{
	int64_t shape[4] = { 1, 2, 3, 4 };
	tilecopy_tensor_t *a, *b;
	tilecopy_plan_t *p;
	char buf[64];

	TC_OK(tilecopy_tensor_create(&a, "NCHW", shape, 4, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&b, "NHWC", shape, 4, TILECOPY_DT_F32, NULL, 0));
	a->layout.rank = 1000;
	TC_FAILS(tilecopy_plan_create(&p, a, b, 0), TILECOPY_ERR_INVALID_ARG, "rank 1000");
	a->layout.rank = 17;
	TC_FAILS(tilecopy_plan_create(&p, a, b, 0), TILECOPY_ERR_INVALID_ARG, "rank 17");
	a->layout.rank = 4;
	a->layout.nleaves = 40;
	TC_FAILS(tilecopy_plan_create(&p, a, b, 0), TILECOPY_ERR_INVALID_ARG, "leaves");
	a->layout.nleaves = 4;
	a->layout.mode[2] = 7;
	TC_FAILS(tilecopy_plan_create(&p, a, b, 0), TILECOPY_ERR_INVALID_ARG, "mode");
	a->layout.mode[2] = 2;
	a->extent[3] = 5;
	TC_FAILS(tilecopy_plan_create(&p, a, b, 0), TILECOPY_ERR_SHAPE_MISMATCH, "extent 5");
	a->extent[3] = 4;
	TC_OK(tilecopy_plan_create(&p, a, b, 0));
	tilecopy_plan_destroy(p);
	/* the shape printer clamps a hand-made rank to the extent array */
	tc_shape_str(a->extent, 1000, buf, sizeof(buf));
	ck_assert_uint_lt(strlen(buf), sizeof(buf));
	{
		int xs = 0;

		for (const char *c = buf; *c; c++)
			xs += *c == 'x';
		ck_assert_int_eq(xs, TILECOPY_MAX_RANK - 1);
	}
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
}
END_TEST

START_TEST(test_shape_parse_strict)
{
	int64_t s[4] = { 11, 11, 11, 11 };
	int r = 77;

	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2x3x"), TILECOPY_ERR_PARSE, "end");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2,"), TILECOPY_ERR_PARSE, "end");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "x2"), TILECOPY_ERR_PARSE, "");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2xx3"), TILECOPY_ERR_PARSE, "");
	/* one kind of separator throughout; X is x */
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2x3,4"), TILECOPY_ERR_PARSE, "mixes");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2,3X4"), TILECOPY_ERR_PARSE, "mixes");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "+2x3"), TILECOPY_ERR_PARSE, "");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "2x 3"), TILECOPY_ERR_PARSE, "");
	TC_FAILS(tilecopy_shape_parse(s, &r, 4, "9223372036854775808"), TILECOPY_ERR_PARSE,
		 "2^63-1");
	/* outputs are written only on success (review B12) */
	ck_assert_int_eq(s[0], 11);
	ck_assert_int_eq(s[1], 11);
	ck_assert_int_eq(r, 77);
	TC_FAILS(tilecopy_shape_parse(s, &r, 2, "2x3x4"), TILECOPY_ERR_BUFFER_TOO_SMALL,
		 "3 dimensions, more than 2");
	ck_assert_int_eq(s[0], 11);
	TC_FAILS(tilecopy_shape_parse(s, &r, 0, "2"), TILECOPY_ERR_INVALID_ARG, "max");
	TC_OK(tilecopy_shape_parse(s, &r, 4, "2x3"));
	ck_assert_int_eq(r, 2);
	TC_OK(tilecopy_shape_parse(s, &r, 4, "2X3X5"));
	ck_assert_int_eq(r, 3);
	ck_assert_int_eq(s[2], 5);
	/* the largest dimension there is */
	TC_OK(tilecopy_shape_parse(s, &r, 4, "9223372036854775807"));
	ck_assert_int_eq(s[0], INT64_MAX);
}
END_TEST

/*
 * The descriptors in plain C types (review B8): the same fields as the
 * uAPI struct, for programs without libdrm's drm.h; a larger (newer)
 * struct gets its extra bytes zeroed and struct_size says what was filled.
 */
START_TEST(test_plan_desc)
{
	int64_t shape[4] = { 2, 3, 5, 7 };
	tilecopy_tensor_t *s, *d;
	tilecopy_plan_t *p;
	const struct drm_tilecopy_desc *dd;
	struct {
		struct tilecopy_desc desc;
		uint64_t newer[2];
	} big;
	struct tilecopy_desc one;
	char a[512], b[512];
	size_t n;

	TC_OK(tilecopy_tensor_create(&s, "NCHW", shape, 4, TILECOPY_DT_F16, NULL, 0));
	TC_OK(tilecopy_tensor_create(&d, "NC1HWC0", shape, 4, TILECOPY_DT_F16, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, s, d, 0));
	TC_OK(tilecopy_plan_descs(p, &dd, &n));
	ck_assert_uint_ge(n, 2);	/* a fill of the padding, a copy */
	for (size_t i = 0; i < n; i++) {
		memset(&big, 0xa5, sizeof(big));
		big.desc.struct_size = sizeof(big);
		TC_OK(tilecopy_plan_desc(p, i, &big.desc));
		ck_assert_uint_eq(big.desc.struct_size, sizeof(struct tilecopy_desc));
		ck_assert(big.newer[0] == 0 && big.newer[1] == 0);
		ck_assert_uint_eq(big.desc.op, dd[i].op);
		ck_assert_uint_eq(big.desc.elem_size, dd[i].elem_size);
		ck_assert_uint_eq(big.desc.ndims, dd[i].ndims);
		ck_assert(big.desc.src == dd[i].src && big.desc.dst == dd[i].dst &&
			  big.desc.value == dd[i].value);
		for (int k = 0; k < TILECOPY_DESC_MAX_DIMS; k++)
			ck_assert(big.desc.extent[k] == dd[i].extent[k] &&
				  big.desc.src_stride[k] == dd[i].src_stride[k] &&
				  big.desc.dst_stride[k] == dd[i].dst_stride[k]);
		TC_OK(tilecopy_plan_desc_format(p, i, a, sizeof(a)));
		TC_OK(tilecopy_desc_format(&dd[i], b, sizeof(b)));
		ck_assert_str_eq(a, b);
	}
	ck_assert_uint_eq(dd[0].op, TILECOPY_DESC_FILL);
	one.struct_size = sizeof(one);
	TC_FAILS(tilecopy_plan_desc(p, n, &one), TILECOPY_ERR_INVALID_ARG, "descriptors");
	TC_FAILS(tilecopy_plan_desc_format(p, n, a, sizeof(a)), TILECOPY_ERR_INVALID_ARG,
		 "descriptors");
	one.struct_size = 4;
	TC_FAILS(tilecopy_plan_desc(p, 0, &one), TILECOPY_ERR_INVALID_ARG, "struct_size 4");
	/* an unset struct_size is refused, never zeroed over the caller's memory */
	one.struct_size = 1u << 20;
	TC_FAILS(tilecopy_plan_desc(p, 0, &one), TILECOPY_ERR_INVALID_ARG, "not set?");
	one.struct_size = 0xffffffffu;
	TC_FAILS(tilecopy_plan_desc(p, 0, &one), TILECOPY_ERR_INVALID_ARG, "not set?");
	NUL_FAILS(tilecopy_plan_desc(p, 0, NULL));
	NUL_FAILS(tilecopy_plan_desc(NULL, 0, &one));
	NUL_FAILS(tilecopy_plan_desc_format(NULL, 0, a, sizeof(a)));
	TC_FAILS(tilecopy_plan_desc((tilecopy_plan_t *)s, 0, &one), TILECOPY_ERR_INVALID_ARG,
		 "not a plan");
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
}
END_TEST

/*
 * Statuses and messages as docs/sdk.md's table gives them (review B11):
 * a name that does not parse is PARSE, an output array or buffer too small
 * is BUFFER_TOO_SMALL with the size needed, and the message names the field.
 */
START_TEST(test_status_table)
{
	int64_t shape[2] = { 4, 6 }, crd[2], v;
	tilecopy_layout_t *l;
	tilecopy_tensor_t *t, *blk;
	tilecopy_plan_t *p;
	tilecopy_dtype_t dt;
	const struct drm_tilecopy_desc *d;
	DLManagedTensor *m;
	char buf[256], small[5];
	size_t n;
	int64_t four[4] = { 2, 20, 3, 5 };

	TC_FAILS(tilecopy_dtype_parse(&dt, "f33"), TILECOPY_ERR_PARSE, "dtype: unknown");
	TC_OK(tilecopy_layout_parse(&l, "(4,6):(6,1)"));
	TC_FAILS(tilecopy_layout_idx2crd(l, 0, crd, 1), TILECOPY_ERR_BUFFER_TOO_SMALL, "ncoord");
	/* size 0 asks for the size needed */
	TC_FAILS(tilecopy_layout_print(l, NULL, 0), TILECOPY_ERR_BUFFER_TOO_SMALL, "needs 12");
	TC_FAILS(tilecopy_layout_print(l, buf, 0), TILECOPY_ERR_BUFFER_TOO_SMALL, "needs 12");
	TC_FAILS(tilecopy_layout_print(l, NULL, 8), TILECOPY_ERR_INVALID_ARG, "buf: NULL");
	TC_OK(tilecopy_layout_print(l, buf, 12));
	ck_assert_str_eq(buf, "(4,6):(6,1)");
	/* no strides: CuTe's compact column-major */
	tilecopy_layout_destroy(l);
	TC_OK(tilecopy_layout_create(&l, 2, shape, NULL));
	TC_OK(tilecopy_layout_leaf(l, 1, NULL, &v));
	ck_assert_int_eq(v, 4);
	tilecopy_layout_destroy(l);
	TC_OK(tilecopy_tensor_create(&t, "RowMajor", shape, 2, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, t, t, 0));
	TC_OK(tilecopy_plan_descs(p, &d, &n));
	TC_FAILS(tilecopy_desc_format(d, small, sizeof(small)), TILECOPY_ERR_BUFFER_TOO_SMALL,
		 "it needs");
	ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	TC_FAILS(tilecopy_desc_format(d, NULL, 0), TILECOPY_ERR_BUFFER_TOO_SMALL, "it needs");
	TC_FAILS(tilecopy_desc_format(d, NULL, 9), TILECOPY_ERR_INVALID_ARG, "buf: NULL");
	TC_OK(tilecopy_desc_format(d, buf, sizeof(buf)));
	ck_assert_ptr_nonnull(strstr(buf, "COPY"));
	tilecopy_plan_destroy(p);
	/* a blocked dim as one DLPack stride: the message keeps its field */
	TC_OK(tilecopy_tensor_create(&blk, "nChw16c", four, 4, TILECOPY_DT_F32, NULL, 0));
	TC_FAILS(tilecopy_tensor_to_dlpack(&m, blk, buf, 0), TILECOPY_ERR_UNSUPPORTED,
		 "tensor: dim 1 is blocked");
	tilecopy_tensor_destroy(blk);
	tilecopy_tensor_destroy(t);
}
END_TEST

/* Strided tensors: numpy's transposed view copied to row-major. */
START_TEST(test_strided)
{
	int64_t shape[2] = { 3, 2 }, st_el[2] = { 1, 3 }, st_b[2] = { 4, 12 }, got[2];
	float src[6] = { 0, 1, 2, 3, 4, 5 }, dst[6];
	tilecopy_tensor_t *v, *vb, *r, *bad;
	tilecopy_plan_t *p;
	uint64_t bytes;

	/* a = arange(6).reshape(2,3); v = a.T: shape (3,2), strides (1,3) */
	TC_OK(tilecopy_tensor_create_strided(&v, 2, shape, st_el, TILECOPY_DT_F32, 0, 0));
	TC_OK(tilecopy_tensor_create_strided(&vb, 2, shape, st_b, TILECOPY_DT_F32, 0,
					     TILECOPY_STRIDES_BYTES));
	TC_OK(tilecopy_tensor_strides(vb, got, 2));
	ck_assert_int_eq(got[0], 1);
	ck_assert_int_eq(got[1], 3);
	TC_OK(tilecopy_tensor_create_strided(&r, 2, shape, NULL, TILECOPY_DT_F32, 0, 0));
	TC_OK(tilecopy_plan_create(&p, v, r, 0));
	TC_OK(tilecopy_plan_execute_cpu(p, src, sizeof(src), dst, sizeof(dst), NULL));
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			ck_assert_float_eq(dst[i * 2 + j], src[j * 3 + i]);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(v);
	/* errors name the field */
	st_el[1] = -3;
	TC_FAILS(tilecopy_tensor_create_strided(&bad, 2, shape, st_el, TILECOPY_DT_F32, 0, 0),
		 TILECOPY_ERR_UNSUPPORTED, "strides[1]");
	st_b[1] = 6;
	TC_FAILS(tilecopy_tensor_create_strided(&bad, 2, shape, st_b, TILECOPY_DT_F32, 0,
						TILECOPY_STRIDES_BYTES),
		 TILECOPY_ERR_INVALID_ARG, "multiple of the element size");
	TC_FAILS(tilecopy_tensor_create_strided(&bad, 2, shape, NULL, TILECOPY_DT_F32, 2, 0),
		 TILECOPY_ERR_INVALID_ARG, "byte offset");
	ck_assert_ptr_null(bad);
	/* the byte offset counts in the buffer size */
	TC_OK(tilecopy_tensor_create_strided(&v, 2, shape, NULL, TILECOPY_DT_F32, 40, 0));
	TC_OK(tilecopy_tensor_bytes(v, &bytes));
	ck_assert_uint_eq(bytes, 40 + 24);
	tilecopy_tensor_destroy(v);
	tilecopy_tensor_destroy(vb);
	tilecopy_tensor_destroy(r);
}
END_TEST

/* A view destination: elements written, the bytes between them untouched. */
START_TEST(test_view_keeps_gaps)
{
	int64_t shape[2] = { 2, 2 }, strides[2] = { 4, 1 };
	uint8_t src[4] = { 1, 2, 3, 4 }, dst[8];
	tilecopy_tensor_t *s, *d, *df;
	tilecopy_plan_t *p;

	memset(dst, 0xee, sizeof(dst));
	TC_OK(tilecopy_tensor_create(&s, "RowMajor", shape, 2, TILECOPY_DT_U8, NULL, 0));
	TC_OK(tilecopy_tensor_create_strided(&d, 2, shape, strides, TILECOPY_DT_U8, 0, 0));
	TC_OK(tilecopy_plan_create(&p, s, d, 0));
	TC_OK(tilecopy_plan_execute_cpu(p, src, 4, dst, 8, NULL));
	ck_assert_uint_eq(dst[0], 1);
	ck_assert_uint_eq(dst[1], 2);
	ck_assert_uint_eq(dst[2], 0xee);
	ck_assert_uint_eq(dst[4], 3);
	ck_assert_uint_eq(dst[5], 4);
	tilecopy_plan_destroy(p);
	/* the same strides as a format: gaps are padding, zero-filled */
	TC_OK(tilecopy_tensor_create(&df, "strided:4,1", shape, 2, TILECOPY_DT_U8, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, s, df, 0));
	TC_OK(tilecopy_plan_execute_cpu(p, src, 4, dst, 8, NULL));
	ck_assert_uint_eq(dst[2], 0);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
	tilecopy_tensor_destroy(df);
}
END_TEST

START_TEST(test_from_layout)
{
	tilecopy_layout_t *l;
	tilecopy_tensor_t *t, *f;
	int64_t ext[2] = { 8, 10 };
	int yes;

	TC_OK(tilecopy_layout_parse(&l, "((4,2),(4,3)):((4,16),(1,32))"));
	TC_OK(tilecopy_tensor_create_layout(&t, l, NULL, TILECOPY_DT_F16, 0));
	TC_OK(tilecopy_tensor_create(&f, "zN", ext, 2, TILECOPY_DT_F16, "4x4", 0));
	ext[1] = 12;
	tilecopy_tensor_destroy(f);
	TC_OK(tilecopy_tensor_create(&f, "zN", ext, 2, TILECOPY_DT_F16, "4x4", 0));
	TC_OK(tilecopy_tensor_is_contiguous_in(t, "zN", &yes));
	/* zN of f16 has 16x16 fractals by default, so not that one */
	ck_assert_int_eq(yes, 0);
	tilecopy_tensor_destroy(t);
	ext[1] = 13;
	TC_FAILS(tilecopy_tensor_create_layout(&t, l, ext, TILECOPY_DT_F16, 0),
		 TILECOPY_ERR_SHAPE_MISMATCH, "extent 13");
	ext[1] = 10;	/* padding within the layout's modes */
	TC_OK(tilecopy_tensor_create_layout(&t, l, ext, TILECOPY_DT_F16, 0));
	TC_OK(tilecopy_tensor_has_padding(t, &yes));
	ck_assert_int_eq(yes, 1);
	tilecopy_tensor_destroy(t);
	tilecopy_tensor_destroy(f);
	tilecopy_layout_destroy(l);
}
END_TEST

/* Shapes in format order: NHWC given as N,H,W,C is the NHWC tensor. */
START_TEST(test_physical_shape)
{
	static const struct {
		const char *fmt;
		int64_t phys[4], logical[4];
		int order[4];
	} cases[] = {
		{ "NHWC", { 2, 5, 7, 3 }, { 2, 3, 5, 7 }, { 0, 2, 3, 1 } },
		{ "NCHW", { 2, 3, 5, 7 }, { 2, 3, 5, 7 }, { 0, 1, 2, 3 } },
		{ "CHWN", { 3, 5, 7, 2 }, { 2, 3, 5, 7 }, { 1, 2, 3, 0 } },
		{ "CHWN4", { 3, 5, 7, 2 }, { 2, 3, 5, 7 }, { 1, 2, 3, 0 } },
		{ "nChw16c", { 2, 3, 5, 7 }, { 2, 3, 5, 7 }, { 0, 1, 2, 3 } },
		{ "HWCN", { 5, 7, 3, 2 }, { 2, 3, 5, 7 }, { 2, 3, 1, 0 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tilecopy_tensor_t *p, *l;
		int64_t got[4];
		int order[4], same;

		TC_OK(tilecopy_tensor_create(&p, cases[i].fmt, cases[i].phys, 4, TILECOPY_DT_F32,
					     NULL, TILECOPY_TENSOR_SHAPE_PHYSICAL));
		TC_OK(tilecopy_tensor_shape(p, got, 4));
		ck_assert_msg(!memcmp(got, cases[i].logical, sizeof(got)), "%s", cases[i].fmt);
		TC_OK(tilecopy_tensor_physical_order(p, order, 4));
		ck_assert_msg(!memcmp(order, cases[i].order, sizeof(order)), "%s order", cases[i].fmt);
		TC_OK(tilecopy_tensor_create(&l, cases[i].fmt, cases[i].logical, 4,
					     TILECOPY_DT_F32, NULL, 0));
		TC_OK(tilecopy_tensor_is_contiguous_in(p, cases[i].fmt, &same));
		ck_assert(same);
		tilecopy_tensor_destroy(p);
		tilecopy_tensor_destroy(l);
	}
}
END_TEST

/*
 * One physical order (review A5): tilecopy_tensor_physical_order of a
 * tensor made from a logical shape, applied to that shape, gives the
 * physical shape TILECOPY_TENSOR_SHAPE_PHYSICAL takes back to the same
 * tensor - size-1 dims and single fractal blocks included, whose strides
 * tie with their neighbours'.
 */
START_TEST(test_physical_order_roundtrip)
{
	static const struct {
		const char *fmt, *block;
		int rank;
	} fmts[] = {
		{ "NCHW", NULL, 4 }, { "NHWC", NULL, 4 }, { "CHWN", NULL, 4 },
		{ "HWCN", NULL, 4 }, { "nChw16c", NULL, 4 }, { "NCHW4", NULL, 4 },
		{ "NC1HWC0", NULL, 4 }, { "CHWN4", NULL, 4 }, { "NDHWC", NULL, 5 },
		{ "nCdhw16c", NULL, 5 }, { "zN", NULL, 2 }, { "zN", "4x8", 3 },
		{ "nZ", NULL, 2 }, { "zZ", NULL, 2 }, { "nN", "2x2", 2 },
		{ "RowMajor", NULL, 3 }, { "ColumnMajor", NULL, 2 },
		{ "OIhw16i16o", NULL, 4 }, { "strided:1,6,2", NULL, 3 },
	};
	uint64_t seed = 0x0de5;
	int done = 0;

	for (int it = 0; it < 2000; it++) {
		int f = (int)(tc_rand(&seed) % (sizeof(fmts) / sizeof(fmts[0])));
		int64_t shape[5], phys[5], got[5];
		int order[5], order2[5], rank = fmts[f].rank;
		tilecopy_tensor_t *t, *u;
		const tilecopy_layout_t *lt, *lu;

		for (int k = 0; k < rank; k++) {
			/* sizes 1 often; up to 40 (one fractal block or several) */
			uint64_t r = tc_rand(&seed) % 4;

			shape[k] = r == 0 ? 1 : r == 1 ? 2 + (int64_t)(tc_rand(&seed) % 6) :
				   1 + (int64_t)(tc_rand(&seed) % 40);
		}
		if (tilecopy_tensor_create(&t, fmts[f].fmt, shape, rank, TILECOPY_DT_F16,
					   fmts[f].block, 0))
			continue;
		TC_OK(tilecopy_tensor_physical_order(t, order, 5));
		for (int k = 0; k < rank; k++)
			phys[k] = shape[order[k]];
		TC_OK(tilecopy_tensor_create(&u, fmts[f].fmt, phys, rank, TILECOPY_DT_F16,
					     fmts[f].block, TILECOPY_TENSOR_SHAPE_PHYSICAL));
		TC_OK(tilecopy_tensor_shape(u, got, 5));
		ck_assert_msg(!memcmp(got, shape, sizeof(shape[0]) * (size_t)rank),
			      "%s rank %d: shape %lldx%lld... came back %lldx%lld...",
			      fmts[f].fmt, rank, (long long)shape[0], (long long)shape[1],
			      (long long)got[0], (long long)got[1]);
		TC_OK(tilecopy_tensor_physical_order(u, order2, 5));
		ck_assert(!memcmp(order, order2, sizeof(order[0]) * (size_t)rank));
		TC_OK(tilecopy_tensor_layout(t, &lt));
		TC_OK(tilecopy_tensor_layout(u, &lu));
		ck_assert(lt->nleaves == lu->nleaves &&
			  !memcmp(lt->shape, lu->shape, sizeof(lt->shape[0]) * (size_t)lt->nleaves) &&
			  !memcmp(lt->stride, lu->stride, sizeof(lt->stride[0]) * (size_t)lt->nleaves));
		tilecopy_tensor_destroy(t);
		tilecopy_tensor_destroy(u);
		done++;
	}
	ck_assert_int_gt(done, 1500);
}
END_TEST

/* The review's cases: NHWC with C = 1, zN with one row block. */
START_TEST(test_physical_order_review_cases)
{
	int64_t nhwc[4] = { 2, 1, 17, 3 }, zn[2] = { 3, 100 }, got[4];
	int order[4];
	tilecopy_tensor_t *t;

	TC_OK(tilecopy_tensor_create(&t, "NHWC", nhwc, 4, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_tensor_physical_order(t, order, 4));
	ck_assert(order[0] == 0 && order[1] == 2 && order[2] == 3 && order[3] == 1);
	tilecopy_tensor_destroy(t);
	TC_OK(tilecopy_tensor_create(&t, "zN", zn, 2, TILECOPY_DT_F16, NULL, 0));
	TC_OK(tilecopy_tensor_physical_order(t, order, 2));
	ck_assert(order[0] == 1 && order[1] == 0);	/* zN: column blocks outermost */
	tilecopy_tensor_destroy(t);
	got[0] = 100, got[1] = 3;
	TC_OK(tilecopy_tensor_create(&t, "zN", got, 2, TILECOPY_DT_F16, NULL,
				     TILECOPY_TENSOR_SHAPE_PHYSICAL));
	TC_OK(tilecopy_tensor_shape(t, got, 2));
	ck_assert(got[0] == 3 && got[1] == 100);
	tilecopy_tensor_destroy(t);
}
END_TEST

/*
 * A tensor's borrowed layout is refused by tilecopy_layout_destroy (it
 * aborted in free) and stays usable (review A6); a clone of it is a
 * layout of its own.
 */
START_TEST(test_borrowed_layout)
{
	int64_t shape[2] = { 2, 3 }, size;
	tilecopy_tensor_t *t;
	const tilecopy_layout_t *l;
	tilecopy_layout_t *c;

	TC_OK(tilecopy_tensor_create(&t, "RowMajor", shape, 2, TILECOPY_DT_F32, NULL, 0));
	TC_OK(tilecopy_tensor_layout(t, &l));
	tilecopy_layout_destroy((tilecopy_layout_t *)l);
	ck_assert_ptr_nonnull(strstr(tilecopy_last_error(), "borrowed"));
	TC_OK(tilecopy_layout_size(l, &size));
	ck_assert_int_eq(size, 6);
	TC_OK(tilecopy_layout_clone(&c, l));
	tilecopy_tensor_destroy(t);
	TC_OK(tilecopy_layout_size(c, &size));
	tilecopy_layout_destroy(c);
}
END_TEST

/* A CPU DLTensor of f32 of @ndim dims. */
static void dl_f32(DLTensor *dl, int ndim, int64_t *shape, int64_t *strides)
{
	memset(dl, 0, sizeof(*dl));
	dl->device.device_type = kDLCPU;
	dl->ndim = ndim;
	dl->dtype.code = kDLFloat;
	dl->dtype.bits = 32;
	dl->dtype.lanes = 1;
	dl->shape = shape;
	dl->strides = strides;
}

/*
 * A tensor no buffer can hold is refused when it is made (review B10), not
 * at its first use; 2^63 bytes exactly is a size (uint64_t), 2^64 is not.
 */
START_TEST(test_byte_size_at_creation)
{
	int64_t big4[4] = { INT64_MAX, 1, 1, 1 }, sq[2] = { 1ll << 31, 1ll << 31 };
	int64_t e63[1] = { 1ll << 61 }, one[1] = { 1 };
	tilecopy_tensor_t *t = (tilecopy_tensor_t *)1;
	DLTensor dl = { 0 };
	uint64_t bytes;

	TC_FAILS(tilecopy_tensor_create(&t, "NCHW", big4, 4, TILECOPY_DT_F32, NULL, 0),
		 TILECOPY_ERR_OVERFLOW, "");
	ck_assert_ptr_null(t);
	TC_FAILS(tilecopy_tensor_create(&t, "RowMajor", sq, 2, TILECOPY_DT_F64, NULL, 0),
		 TILECOPY_ERR_OVERFLOW, "overflows");
	TC_FAILS(tilecopy_tensor_create_strided(&t, 1, one, NULL, TILECOPY_DT_F32,
						UINT64_MAX - 3, 0),
		 TILECOPY_ERR_OVERFLOW, "byte offset");
	dl_f32(&dl, 1, big4, NULL);
	TC_FAILS(tilecopy_tensor_from_dlpack(&t, &dl, 0), TILECOPY_ERR_OVERFLOW, "overflows");
	TC_OK(tilecopy_tensor_create_strided(&t, 1, e63, NULL, TILECOPY_DT_F32, 0, 0));
	TC_OK(tilecopy_tensor_bytes(t, &bytes));
	ck_assert_uint_eq(bytes, 1ull << 63);
	tilecopy_tensor_destroy(t);
}
END_TEST

START_TEST(test_dlpack_roundtrip)
{
	int64_t shape[4] = { 2, 3, 4, 5 }, strides[4] = { 60, 1, 15, 3 };
	DLTensor dl = { 0 };
	DLManagedTensor *m;
	tilecopy_tensor_t *t, *t2, *blk, *bad;
	int same;

	/* a channels-last NCHW tensor, as PyTorch exports it */
	dl_f32(&dl, 4, shape, strides);
	dl.byte_offset = 16;
	TC_OK(tilecopy_tensor_from_dlpack(&t, &dl, 0));
	TC_OK(tilecopy_tensor_is_contiguous_in(t, "NHWC", &same));
	ck_assert(same);
	/* a typo is an error, not "no"; a format that cannot fit is "no" */
	TC_FAILS(tilecopy_tensor_is_contiguous_in(t, "NHCW_typo", &same),
		 TILECOPY_ERR_UNKNOWN_FORMAT, "");
	TC_FAILS(tilecopy_tensor_is_contiguous_in(t, "(1,2", &same), TILECOPY_ERR_PARSE, "");
	TC_OK(tilecopy_tensor_is_contiguous_in(t, "zN", &same));
	ck_assert_int_eq(same, 0);
	TC_OK(tilecopy_tensor_to_dlpack(&m, t, (void *)shape, 0));
	ck_assert_int_eq(m->dl_tensor.ndim, 4);
	ck_assert_int_eq(m->dl_tensor.byte_offset, 16);
	ck_assert_int_eq(m->dl_tensor.strides[2], 15);
	ck_assert_int_eq(m->dl_tensor.dtype.code, kDLFloat);
	TC_OK(tilecopy_tensor_from_dlpack(&t2, &m->dl_tensor, 0));
	m->deleter(m);
	TC_OK(tilecopy_tensor_is_contiguous_in(t2, "NHWC", &same));
	ck_assert(same);
	/* a blocked tensor: only its physical view */
	shape[1] = 20;
	TC_OK(tilecopy_tensor_create(&blk, "nChw16c", shape, 4, TILECOPY_DT_F32, NULL, 0));
	TC_FAILS(tilecopy_tensor_to_dlpack(&m, blk, (void *)shape, 0), TILECOPY_ERR_UNSUPPORTED,
		 "TILECOPY_DLPACK_PHYSICAL");
	/* the message keeps the cause it adds context to (which dim) */
	ck_assert_msg(strstr(tilecopy_last_error(), "dim 1 is blocked"), "%s",
		      tilecopy_last_error());
	TC_OK(tilecopy_tensor_to_dlpack(&m, blk, (void *)shape, TILECOPY_DLPACK_PHYSICAL));
	ck_assert_int_eq(m->dl_tensor.ndim, 5);
	ck_assert_int_eq(m->dl_tensor.shape[1], 2);	/* C1 */
	ck_assert_int_eq(m->dl_tensor.shape[4], 16);	/* c0 */
	m->deleter(m);
	tilecopy_tensor_destroy(blk);
	/* refusals name the field */
	strides[1] = -1;
	TC_FAILS(tilecopy_tensor_from_dlpack(&bad, &dl, 0), TILECOPY_ERR_UNSUPPORTED,
		 "negative");
	dl.dtype.lanes = 4;
	TC_FAILS(tilecopy_tensor_from_dlpack(&bad, &dl, 0), TILECOPY_ERR_UNSUPPORTED, "lanes");
	dl.dtype.lanes = 1;
	dl.device.device_type = kDLCUDA;
	TC_FAILS(tilecopy_tensor_from_dlpack(&bad, &dl, 0), TILECOPY_ERR_UNSUPPORTED, "device");
	tilecopy_tensor_destroy(t);
	tilecopy_tensor_destroy(t2);
}
END_TEST

/*
 * Handles shared by threads: each thread plans from the same tensors and
 * runs the same plan on its own buffers, and half of them make calls fail
 * in between: results and per-thread messages must not mix.
 */
struct thr {
	const tilecopy_tensor_t *a, *b;
	const tilecopy_plan_t *plan;
	int id, bad;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	int32_t in[6 * 7], out[6 * 7];

	for (int it = 0; it < 200 && !t->bad; it++) {
		tilecopy_plan_t *p = NULL;
		tilecopy_tensor_t *x = NULL;
		int64_t bogus = -1;

		for (int i = 0; i < 42; i++)
			in[i] = t->id * 1000 + i;
		if (tilecopy_plan_create(&p, t->a, t->b, 0) ||
		    tilecopy_plan_execute_cpu(t->plan, in, sizeof(in), out, sizeof(out), NULL))
			t->bad = 1;
		if (tilecopy_last_error()[0])		/* success clears it */
			t->bad = 2;
		if (t->id & 1) {
			if (tilecopy_tensor_create(&x, "NCHW", &bogus, 1, TILECOPY_DT_I32, NULL, 0) !=
			    TILECOPY_ERR_SHAPE_MISMATCH || !strstr(tilecopy_last_error(), "-1"))
				t->bad = 3;
		}
		for (int r = 0; r < 6 && !t->bad; r++)
			for (int c = 0; c < 7; c++)
				if (out[c * 6 + r] != in[r * 7 + c])
					t->bad = 4;
		tilecopy_plan_destroy(p);
	}
	return NULL;
}

START_TEST(test_threads_share_handles)
{
	int64_t shape[2] = { 6, 7 };
	tilecopy_tensor_t *a, *b;
	tilecopy_plan_t *p;
	pthread_t th[4];
	struct thr t[4];

	TC_OK(tilecopy_tensor_create(&a, "RowMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_tensor_create(&b, "ColumnMajor", shape, 2, TILECOPY_DT_I32, NULL, 0));
	TC_OK(tilecopy_plan_create(&p, a, b, 0));
	for (int i = 0; i < 4; i++) {
		t[i] = (struct thr){ .a = a, .b = b, .plan = p, .id = i };
		ck_assert_int_eq(pthread_create(&th[i], NULL, thr_main, &t[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		ck_assert_msg(!t[i].bad, "thread %d: failure %d", i, t[i].bad);
	}
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(a);
	tilecopy_tensor_destroy(b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("api");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_null_everywhere);
	tcase_add_test(tc, test_outputs_and_handles);
	tcase_add_test(tc, test_in_place);
	tcase_add_test(tc, test_dtype_mismatch);
	tcase_add_test(tc, test_hand_built_tensors);
	tcase_add_test(tc, test_shape_parse_strict);
	tcase_add_test(tc, test_status_table);
	tcase_add_test(tc, test_plan_desc);
	tcase_add_test(tc, test_strided);
	tcase_add_test(tc, test_view_keeps_gaps);
	tcase_add_test(tc, test_from_layout);
	tcase_add_test(tc, test_physical_shape);
	tcase_add_test(tc, test_physical_order_roundtrip);
	tcase_add_test(tc, test_physical_order_review_cases);
	tcase_add_test(tc, test_borrowed_layout);
	tcase_add_test(tc, test_byte_size_at_creation);
	tcase_add_test(tc, test_dlpack_roundtrip);
	tcase_add_test(tc, test_threads_share_handles);
	suite_add_tcase(s, tc);
	return tc_run_suite(s);
}
