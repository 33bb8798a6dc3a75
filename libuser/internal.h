/* SPDX-License-Identifier: MIT */
/*
 * internal.h - helpers shared by the library's files; never installed.
 */
#ifndef TILECOPY_INTERNAL_H
#define TILECOPY_INTERNAL_H

#include <stdint.h>
#include "tilecopy/tilecopy.h"

/*
 * The largest struct_size an extensible struct (tilecopy_desc,
 * tilecopy_device_info) may claim: far above any version's, and small
 * enough that an unset struct_size is refused, not zeroed over the
 * caller's stack.
 */
#define TC_STRUCT_SIZE_MAX 4096u

#define TC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * TC_PRIVATE - functions the device library (libtilecopy-device) takes from
 * the core library: exported only in the core's TILECOPY_PRIVATE_<version>
 * symbol node, so the two must come from the same build. Never in a public
 * header. Their tc_ names are kept in the code through the defines below.
 */
#define TC_PRIVATE __attribute__((visibility("default")))
#define tc_fail tilecopy_private_fail
#define tc_ok tilecopy_private_ok
#define tc_plan_check_buffers tilecopy_private_plan_check_buffers
#define tc_plan_arg tilecopy_private_plan_arg

#define TILECOPY_MAX_TREE	128	/* profile text, see below */

/* Tags at the start of every handle: a wrong or freed handle is refused. */
#define TC_MAGIC_LAYOUT	0x544c4179u	/* "yALT" */
/* a tensor's own layout, lent out by tilecopy_tensor_layout: never freed */
#define TC_MAGIC_LAYOUT_BORROWED 0x424c4179u
#define TC_MAGIC_TENSOR	0x54544e53u
#define TC_MAGIC_PLAN	0x54504c4eu

/*
 * struct tilecopy_layout - a layout by value inside the library: the
 * leaves in a flat array, the nesting in @profile with one 'x' a leaf,
 * e.g. "((x,x),(x,x))" for ((4,2),(4,3)):((4,16),(1,32)); a rank-1 layout
 * of one leaf is "x". @rank counts top-level modes; mode m owns leaves
 * [mode[m], mode[m+1]). No allocation: safe to copy.
 */
struct tilecopy_layout {
	uint32_t magic;
	int rank;
	int nleaves;
	int mode[TILECOPY_MAX_RANK + 1];
	int64_t shape[TILECOPY_MAX_LEAVES];
	int64_t stride[TILECOPY_MAX_LEAVES];
	char profile[TILECOPY_MAX_TREE];
};

/*
 * struct tilecopy_tensor - @extent[m] is the logical size of top-level mode
 * m (<= the mode's size; the rest is padding). @byte_offset: where
 * element 0 is. @view: never write between the elements (strided/DLPack).
 * @order: the physical order, order[k] the logical mode k-th outermost:
 * a format's own (tc_physical_perm, whatever the shape), else by stride.
 */
struct tilecopy_tensor {
	uint32_t magic;
	struct tilecopy_layout layout;
	int64_t extent[TILECOPY_MAX_RANK];
	int order[TILECOPY_MAX_RANK];
	tilecopy_dtype_t dtype;
	char format[48];		/* canonical format name, for messages */
	uint64_t byte_offset;
	int view;
};

/*
 * tc_fail - record the message for tilecopy_last_error() and return @st.
 * Messages start with the name of the offending field ("shape: ...").
 */
TC_PRIVATE tilecopy_status_t tc_fail(tilecopy_status_t st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* tc_ok - clear the message and return TILECOPY_SUCCESS. */
TC_PRIVATE tilecopy_status_t tc_ok(void);

/* Overflow-checked int64 arithmetic; return non-zero on overflow. */
static inline int tc_mul_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

static inline int tc_add_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

/*
 * tc_ceil_div - ceil(a / b) for a >= 0, b > 0, without the a + b - 1 that
 * overflows when a is near INT64_MAX.
 */
static inline int64_t tc_ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b != 0);
}

/* tc_shape_str - "8x12" into buf (rank clamped to TILECOPY_MAX_RANK, "..." when cut). */
const char *tc_shape_str(const int64_t *shape, int rank, char *buf, size_t size);

/* ---- the value-level API under the public handles ------------------------
 * Same contracts as the public calls of the same name (tilecopy.h), on
 * structs the caller owns; sizes return -1 on overflow.
 */
/* tc_dtype_bits - 4, 8, 16, 32 or 64; 0 for an unknown dtype. */
unsigned int tc_dtype_bits(tilecopy_dtype_t dt);
/* tc_dtype_size - bytes per element; 0 for 4-bit and unknown dtypes. */
size_t tc_dtype_size(tilecopy_dtype_t dt);
const char *tc_dtype_name(tilecopy_dtype_t dt);
/*
 * tc_elems_bytes - bytes that @n elements of @bits each take, rounded up
 * (two 4-bit elements a byte); @n * bytes must not overflow for bits >= 8.
 */
uint64_t tc_elems_bytes(uint64_t n, unsigned int bits);

tilecopy_status_t tc_layout_parse(tilecopy_layout_t *out, const char *text);
tilecopy_status_t tc_layout_make(tilecopy_layout_t *out, int rank,
				 const int64_t *shape, const int64_t *stride);
tilecopy_status_t tc_layout_print(const tilecopy_layout_t *l, char *buf, size_t size);
int64_t tc_layout_size(const tilecopy_layout_t *l);
int64_t tc_layout_cosize(const tilecopy_layout_t *l);
int tc_layout_rank(const tilecopy_layout_t *l);
int tc_layout_depth(const tilecopy_layout_t *l);
int64_t tc_layout_mode_size(const tilecopy_layout_t *l, int m);
tilecopy_status_t tc_layout_crd2idx(const tilecopy_layout_t *l, const int64_t *coord,
				    int64_t *idx);
tilecopy_status_t tc_layout_idx2crd(const tilecopy_layout_t *l, int64_t idx,
				    int64_t *coord);
tilecopy_status_t tc_layout_coalesce(tilecopy_layout_t *out, const tilecopy_layout_t *l);
tilecopy_status_t tc_layout_composition(tilecopy_layout_t *out, const tilecopy_layout_t *a,
					const tilecopy_layout_t *b);
/*
 * tc_layout_compose_search - a o b from its values (layout_search.c), for
 * b of at most TC_COMPOSE_SEARCH_MAX elements; TILECOPY_ERR_INVALID_ARG
 * (no message) when no layout with b's modes gives them.
 */
#define TC_COMPOSE_SEARCH_MAX	(1 << 16)
tilecopy_status_t tc_layout_compose_search(tilecopy_layout_t *out, const tilecopy_layout_t *a,
					   const tilecopy_layout_t *b);
tilecopy_status_t tc_layout_complement(tilecopy_layout_t *out, const tilecopy_layout_t *a,
				       int64_t cotarget);
tilecopy_status_t tc_layout_right_inverse(tilecopy_layout_t *out,
					  const tilecopy_layout_t *a);
tilecopy_status_t tc_layout_logical_divide(tilecopy_layout_t *out,
					   const tilecopy_layout_t *a,
					   const tilecopy_layout_t *tiler);
/* tc_layout_arg - NULL / wrong-kind / freed handle check ("@what: ..."). */
tilecopy_status_t tc_layout_arg(const tilecopy_layout_t *l, const char *what);
/* tc_tensor_arg - the same for tensors. */
tilecopy_status_t tc_tensor_arg(const tilecopy_tensor_t *t, const char *what);
/* tc_layout_check - the invariants every layout keeps (hand-made ones too). */
tilecopy_status_t tc_layout_check(const tilecopy_layout_t *l, const char *what);

/* format.c: a tensor of a format, logical shape. */
tilecopy_status_t tc_tensor_make(tilecopy_tensor_t *out, const char *format,
				 const int64_t *shape, int rank,
				 tilecopy_dtype_t dtype, const char *block);
tilecopy_status_t tc_tensor_bytes(const tilecopy_tensor_t *t, uint64_t *bytes);
int tc_tensor_is_dense(const tilecopy_tensor_t *t);
int tc_tensor_has_padding(const tilecopy_tensor_t *t);
int tc_tensor_has_overlap(const tilecopy_tensor_t *t);
int tc_tensor_is_contiguous_in(const tilecopy_tensor_t *t, const char *format);
/* tc_tensor_check - rank, leaves, extents and dtype of a tensor are sane. */
tilecopy_status_t tc_tensor_check(const tilecopy_tensor_t *t, const char *what);
/*
 * tc_tensor_stride_order - order[k]: the logical mode k-th outermost by the
 * stride of its outermost leaf, largest first, ties in logical order.
 */
void tc_tensor_stride_order(const tilecopy_tensor_t *t, int *order);

struct tilecopy_plan;
tilecopy_status_t tc_plan_create(struct tilecopy_plan **plan, const tilecopy_tensor_t *src,
				 const tilecopy_tensor_t *dst, uint32_t flags);
/* tc_plan_create_v2 - tilecopy_plan_create_v2 on checked handles. */
tilecopy_status_t tc_plan_create_v2(struct tilecopy_plan **plan, const tilecopy_tensor_t *src,
				    const tilecopy_tensor_t *dst,
				    const tilecopy_convert_params_t *params, uint32_t flags);

/*
 * struct tc_convert - what a plan does to element values (plan_convert.c).
 * @typed: its descriptors are typed (ABI 1.2): it converts, or its
 *	elements are 4-bit; else untyped, as every plan of 1.1.
 * @src_type, @dst_type: DRM_TILECOPY_TYPE_* of a typed plan.
 * @cvt_flags, @scale, @src_zp, @dst_zp: the typed COPY descriptors' fields.
 * @chan: with DRM_TILECOPY_CVT_SCALES, the logical dim the scales run
 *	along; else -1.
 * @scales, @nscales: then a heap copy of the scales, for the plan to own.
 */
struct tc_convert {
	int typed;
	uint8_t src_type, dst_type;
	uint32_t cvt_flags, scale;
	int32_t src_zp, dst_zp;
	int chan;
	float *scales;
	size_t nscales;
};

/* tc_dtype_uapi_type - DRM_TILECOPY_TYPE_* of @dt; 0 if it has none. */
uint8_t tc_dtype_uapi_type(tilecopy_dtype_t dt);
/*
 * tc_convert_types - the dtypes of @src and @dst with @params (NULL: 1.1's
 * rules, REINTERPRET in @flags) into @cv; messages name the field.
 */
tilecopy_status_t tc_convert_types(struct tc_convert *cv, const tilecopy_tensor_t *src,
				   const tilecopy_tensor_t *dst,
				   const tilecopy_convert_params_t *params, uint32_t flags);
/*
 * tc_convert_params - scales and zero points of @params (NULL: none)
 * against the shape, which must already be @src's = @dst's.
 */
tilecopy_status_t tc_convert_params(struct tc_convert *cv, const tilecopy_tensor_t *src,
				    const tilecopy_tensor_t *dst,
				    const tilecopy_convert_params_t *params);
void tc_convert_fini(struct tc_convert *cv);

/* Layout helpers used across files (layout.c). */
void tc_layout_init_flat(tilecopy_layout_t *l, int n, const int64_t *shape,
			 const int64_t *stride);
tilecopy_status_t tc_layout_append_mode(tilecopy_layout_t *l, int n,
					const int64_t *shape,
					const int64_t *stride);

/*
 * tc_format_named - the layout of a named format (format_tag.c): a tag of
 * oneDNN's grammar (nChw16c, ABcd4b16a4b, OIhw16i16o) or an alias of the
 * table (NCHW4, NC1HWC0, zN, RowMajor) for logical extents @ext.
 * @block: NULL, or the block parameters of an alias that has them.
 * @ebits: bits per element (a default C0 is 32 bytes of them).
 */
tilecopy_status_t tc_format_named(tilecopy_layout_t *l, const char *name,
				  const int64_t *ext, int rank, unsigned int ebits,
				  const char *block);

/*
 * tc_format_tag - the layout of grammar text @text alone (no aliases);
 * @name is the format's name for messages.
 */
tilecopy_status_t tc_format_tag(tilecopy_layout_t *l, const char *name,
				const char *text, const int64_t *ext, int rank);

/* One line of the alias table (format_tag.c); for tests and docs. */
struct tc_format_alias {
	const char *name;	/* '#' matches a number */
	const char *tag;	/* grammar text; '#', $1 and $2 substituted */
	const char *block;	/* defaults of $1 ($2), or NULL: no --block */
	int icase;		/* name matched ignoring case */
};

const struct tc_format_alias *tc_format_aliases(size_t *n);

#endif /* TILECOPY_INTERNAL_H */
