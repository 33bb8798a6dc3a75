// SPDX-License-Identifier: MIT
/*
 * plan.c - the planner: (src tensor, dst tensor) -> engine descriptors.
 *
 * Per logical mode, the source and destination split the coordinate
 * c in [0, extent) into mixed-radix digits (their leaves). The planner takes
 * the common refinement of the two digit systems, so that every digit has
 * one source stride and one destination stride; a mode whose extent is below
 * its size (padding) is cut into at most depth+1 boxes, each a product of
 * whole digits. The product of the modes' boxes gives the copies; dims are
 * then ordered by destination stride and coalesced, so NCHW->NHWC of any size
 * is one descriptor. Destination padding gets FILL descriptors, emitted
 * first; a destination with holes between its elements (a strided view) is
 * zero-filled whole first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan_internal.h"
#include "cpu/cpu_exec.h"

/* Bounds that keep a pathological plan from eating the machine. */
#define TC_PLAN_MAX_DESCS	(1 << 20)
#define TC_FALLBACK_MAX		65536

struct tc_dim {
	int64_t ext, ss, ds;
};

struct tc_box {
	int64_t soff, doff;
	int n;
	struct tc_dim dim[TILECOPY_MAX_LEAVES];
};

struct tc_boxes {
	int n, cap;
	struct tc_box *b;
};

/* A mode as digits: place[j] = product of radices below j; top unbounded. */
struct tc_radix {
	int k;
	int64_t place[TILECOPY_MAX_LEAVES * 2 + 1];
	int64_t ss[TILECOPY_MAX_LEAVES * 2 + 1];
	int64_t ds[TILECOPY_MAX_LEAVES * 2 + 1];
};

static tilecopy_status_t tc_boxes_add(struct tc_boxes *v, const struct tc_box *b)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		struct tc_box *nb = realloc(v->b, sizeof(*nb) * (size_t)cap);

		if (!nb)
			return tc_fail(TILECOPY_ERR_NOMEM, "plan: out of memory");
		v->b = nb;
		v->cap = cap;
	}
	v->b[v->n++] = *b;
	return TILECOPY_SUCCESS;
}

/* Box: digits below j full, digit j in [from, to), given offsets. */
static tilecopy_status_t tc_box_digits(struct tc_boxes *out,
				       const struct tc_radix *x, int j,
				       int64_t from, int64_t to, int64_t soff,
				       int64_t doff)
{
	struct tc_box b;

	b.n = 0;
	b.soff = soff + from * x->ss[j];
	b.doff = doff + from * x->ds[j];
	for (int i = 0; i < j; i++) {
		b.dim[b.n].ext = x->place[i + 1] / x->place[i];
		b.dim[b.n].ss = x->ss[i];
		b.dim[b.n].ds = x->ds[i];
		b.n++;
	}
	b.dim[b.n].ext = to - from;
	b.dim[b.n].ss = x->ss[j];
	b.dim[b.n].ds = x->ds[j];
	b.n++;
	return tc_boxes_add(out, &b);
}

/*
 * Cut [lo, hi) (values of digits 0..j) into boxes of whole digits: at most
 * two partial ends per digit level, so at most 2*(j+1) boxes.
 */
static tilecopy_status_t tc_decompose(struct tc_boxes *out,
				      const struct tc_radix *x, int j,
				      int64_t lo, int64_t hi, int64_t soff,
				      int64_t doff)
{
	int64_t p = x->place[j], a = lo, bh = hi / p * p;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	if (lo >= hi)
		return TILECOPY_SUCCESS;
	if (lo % p == 0 && hi % p == 0)
		return tc_box_digits(out, x, j, lo / p, hi / p, soff, doff);
	if (lo / p == (hi - 1) / p) {
		int64_t t = lo / p;

		return tc_decompose(out, x, j - 1, lo - t * p, hi - t * p,
				    soff + t * x->ss[j], doff + t * x->ds[j]);
	}
	if (lo % p) {
		int64_t t = lo / p;

		st = tc_decompose(out, x, j - 1, lo - t * p, p,
				  soff + t * x->ss[j], doff + t * x->ds[j]);
		a = (t + 1) * p;
	}
	if (!st && bh > a)
		st = tc_box_digits(out, x, j, a / p, bh / p, soff, doff);
	if (!st && hi % p)
		st = tc_decompose(out, x, j - 1, 0, hi - bh,
				  soff + (bh / p) * x->ss[j],
				  doff + (bh / p) * x->ds[j]);
	return st;
}

/* Stride of the digit with place value @place in one tensor's mode. */
static int64_t tc_digit_stride(const tilecopy_layout_t *l, int m, int64_t place)
{
	int64_t cum = 1;

	for (int i = l->mode[m]; i < l->mode[m + 1]; i++) {
		if (i == l->mode[m + 1] - 1 || place < cum * l->shape[i])
			return l->stride[i] * (place / cum);
		cum *= l->shape[i];
	}
	return 0;
}

static int tc_cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Leaf boundaries (cumulative products) of mode m below @limit. */
static int tc_bounds(const tilecopy_layout_t *l, int m, int64_t limit,
		     int64_t *out, int n)
{
	int64_t cum = 1;

	for (int i = l->mode[m]; i < l->mode[m + 1] - 1; i++) {
		cum *= l->shape[i];
		if (cum >= limit)
			break;
		if (cum > 1)
			out[n++] = cum;
	}
	return n;
}

/*
 * Common refinement of the digit systems of @s and @d (d may be NULL: fill)
 * in mode m, for coordinates below @limit. Returns 0 if one digit system's
 * boundaries do not divide the other's (then no product form exists).
 */
static int tc_refine(struct tc_radix *x, const tilecopy_layout_t *s,
		     const tilecopy_layout_t *d, int m, int64_t limit)
{
	int64_t b[TILECOPY_MAX_LEAVES * 2];
	int n = 0, k = 0;

	if (s)
		n = tc_bounds(s, m, limit, b, n);
	n = tc_bounds(d, m, limit, b, n);
	qsort(b, (size_t)n, sizeof(b[0]), tc_cmp_i64);
	x->place[k++] = 1;
	for (int i = 0; i < n; i++) {
		if (b[i] == x->place[k - 1])
			continue;
		if (b[i] % x->place[k - 1])
			return 0;
		x->place[k++] = b[i];
	}
	x->k = k;
	for (int j = 0; j < k; j++) {
		x->ss[j] = s ? tc_digit_stride(s, m, x->place[j]) : 0;
		x->ds[j] = tc_digit_stride(d, m, x->place[j]);
	}
	return 1;
}

/* Offset of coordinate c of mode m (colex over its leaves). */
static int64_t tc_mode_offset(const tilecopy_layout_t *l, int m, int64_t c)
{
	int64_t off = 0;

	for (int i = l->mode[m]; i < l->mode[m + 1]; i++) {
		off += (c % l->shape[i]) * l->stride[i];
		c /= l->shape[i];
	}
	return off;
}

/* Size of mode m's leaves below its top one: its period. */
static int64_t tc_mode_period(const tilecopy_layout_t *l, int m)
{
	int64_t p = 1;

	for (int i = l->mode[m]; i < l->mode[m + 1] - 1; i++)
		if (tc_mul_ovf(p, l->shape[i], &p))
			return -1;
	return p;
}

static int64_t tc_gcd(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * No product form: src and dst split mode m into blocks that do not nest
 * (zN 3x5 -> zN 5x3). Both are periodic all the same: with P a common
 * multiple of the sizes below their top leaves, c + q*P moves the top
 * leaves only, by P/period steps each. So each c0 in [lo, lo + P) starts a
 * box over q of its own: P boxes, not one per coordinate (15 for 3 vs 5
 * rather than 1000 for 1000 rows). When P is not below the extent, one box
 * per coordinate is no more.
 */
static tilecopy_status_t tc_mode_boxes_periodic(struct tc_boxes *out,
						const tilecopy_layout_t *s,
						const tilecopy_layout_t *d, int m,
						int64_t lo, int64_t hi)
{
	int64_t pd = tc_mode_period(d, m), ps = s ? tc_mode_period(s, m) : pd, p = -1;
	int64_t ts = s ? s->stride[s->mode[m + 1] - 1] : 0, td = d->stride[d->mode[m + 1] - 1];

	if (ps > 0 && pd > 0 && tc_mul_ovf(ps / tc_gcd(ps, pd), pd, &p))
		p = -1;
	if (p < 1 || p >= hi - lo)
		p = hi - lo;		/* one box per coordinate */
	if (p > TC_FALLBACK_MAX)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "plan: mode %d: src and dst split it into blocks that do not nest, repeating every %lld > %d coordinates",
			       m, (long long)p, TC_FALLBACK_MAX);
	for (int64_t c = lo; c < lo + p; c++) {
		struct tc_box b = { .n = 1 };
		tilecopy_status_t st;

		b.soff = s ? tc_mode_offset(s, m, c) : 0;
		b.doff = tc_mode_offset(d, m, c);
		b.dim[0].ext = tc_ceil_div(hi - c, p);
		b.dim[0].ss = p / ps * ts;
		b.dim[0].ds = p / pd * td;
		if (b.dim[0].ext == 1)
			b.n = 0;	/* a single coordinate: no dim */
		st = tc_boxes_add(out, &b);
		if (st)
			return st;
	}
	return TILECOPY_SUCCESS;
}

/* Boxes covering coordinates [lo, hi) of mode m. */
static tilecopy_status_t tc_mode_boxes(struct tc_boxes *out,
				       const tilecopy_layout_t *s,
				       const tilecopy_layout_t *d, int m,
				       int64_t lo, int64_t hi)
{
	struct tc_radix x;

	if (tc_refine(&x, s, d, m, hi))
		return tc_decompose(out, &x, x.k - 1, lo, hi, 0, 0);
	return tc_mode_boxes_periodic(out, s, d, m, lo, hi);
}

/* ---- descriptor emission --------------------------------------------------- */

static tilecopy_status_t tc_plan_push(struct tilecopy_plan *p,
				      const struct drm_tilecopy_desc *d)
{
	if (p->n >= TC_PLAN_MAX_DESCS)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "plan: more than %d descriptors", TC_PLAN_MAX_DESCS);
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct drm_tilecopy_desc *nd = realloc(p->descs, sizeof(*nd) * cap);

		if (!nd)
			return tc_fail(TILECOPY_ERR_NOMEM, "plan: out of memory");
		p->descs = nd;
		p->cap = cap;
	}
	p->descs[p->n++] = *d;
	return TILECOPY_SUCCESS;
}

static int tc_cmp_dim(const void *x, const void *y)
{
	const struct tc_dim *a = x, *b = y;

	if (a->ds != b->ds)
		return a->ds < b->ds ? -1 : 1;
	if (a->ss != b->ss)
		return a->ss < b->ss ? -1 : 1;
	return 0;
}

/* Order dims by destination stride (writes stream) and merge neighbours. */
static int tc_dims_canon(struct tc_dim *dim, int n)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (dim[i].ext > 1)
			dim[k++] = dim[i];
	n = k;
	qsort(dim, (size_t)n, sizeof(dim[0]), tc_cmp_dim);
	k = 0;
	for (int i = 0; i < n; i++) {
		if (k && dim[k - 1].ext * dim[k - 1].ds == dim[i].ds &&
		    dim[k - 1].ext * dim[k - 1].ss == dim[i].ss) {
			dim[k - 1].ext *= dim[i].ext;
			continue;
		}
		dim[k++] = dim[i];
	}
	return k;
}

#define TC_EXT_MAX	0xffffffffLL
#define TC_EXT_CHUNK	(1LL << 30)

static tilecopy_status_t tc_emit(struct tilecopy_plan *p, int op,
				 struct tc_dim *dim, int n, int64_t soff,
				 int64_t doff)
{
	struct drm_tilecopy_desc d;
	tilecopy_status_t st;

	/* A dim too long for a 32-bit extent becomes (chunk, count) + tail. */
	for (int i = 0; i < n; i++) {
		struct tc_dim sub[TILECOPY_MAX_LEAVES + 1];
		int64_t q, r;

		if (dim[i].ext <= TC_EXT_MAX)
			continue;
		q = dim[i].ext / TC_EXT_CHUNK;
		r = dim[i].ext % TC_EXT_CHUNK;
		memcpy(sub, dim, sizeof(dim[0]) * (size_t)n);
		sub[i].ext = TC_EXT_CHUNK;
		sub[n].ext = q;
		sub[n].ss = dim[i].ss * TC_EXT_CHUNK;
		sub[n].ds = dim[i].ds * TC_EXT_CHUNK;
		st = tc_emit(p, op, sub, n + 1, soff, doff);
		if (st || !r)
			return st;
		sub[i].ext = r;
		return tc_emit(p, op, sub, n, soff + q * TC_EXT_CHUNK * dim[i].ss,
			       doff + q * TC_EXT_CHUNK * dim[i].ds);
	}
	/* More dims than the engine has: loop over the outermost one. */
	if (n > DRM_TILECOPY_MAX_DIMS) {
		for (int64_t c = 0; c < dim[n - 1].ext; c++) {
			st = tc_emit(p, op, dim, n - 1, soff + c * dim[n - 1].ss,
				     doff + c * dim[n - 1].ds);
			if (st)
				return st;
		}
		return TILECOPY_SUCCESS;
	}
	memset(&d, 0, sizeof(d));
	d.op = (__u16)op;
	d.elem_size = (__u8)p->esize;
	d.ndims = (__u8)(n ? n : 1);
	d.src = op == DRM_TILECOPY_OP_COPY ? (__u64)soff * p->esize + p->src_base : 0;
	d.dst = (__u64)doff * p->esize + p->dst_base;
	d.extent[0] = 1;
	for (int i = 0; i < n; i++) {
		d.extent[i] = (__u32)dim[i].ext;
		d.src_stride[i] = op == DRM_TILECOPY_OP_COPY ? (__u64)dim[i].ss : 0;
		d.dst_stride[i] = (__u64)dim[i].ds;
	}
	return tc_plan_push(p, &d);
}

/*
 * Walk the product of the modes' box lists (an odometer over box indices)
 * and emit one descriptor per combination.
 */
static tilecopy_status_t tc_emit_product(struct tilecopy_plan *p, int op,
					 struct tc_boxes *mb, int rank)
{
	int idx[TILECOPY_MAX_RANK] = { 0 };
	int64_t total = 1;

	for (int m = 0; m < rank; m++) {
		if (!mb[m].n)
			return TILECOPY_SUCCESS;
		if (tc_mul_ovf(total, mb[m].n, &total) || total > TC_PLAN_MAX_DESCS)
			return tc_fail(TILECOPY_ERR_UNSUPPORTED,
				       "plan: more than %d descriptors", TC_PLAN_MAX_DESCS);
	}
	for (;;) {
		struct tc_dim dim[TILECOPY_MAX_RANK * TILECOPY_MAX_LEAVES];
		int64_t soff = 0, doff = 0;
		int n = 0, m;
		tilecopy_status_t st;

		for (m = 0; m < rank; m++) {
			const struct tc_box *b = &mb[m].b[idx[m]];

			soff += b->soff;
			doff += b->doff;
			memcpy(&dim[n], b->dim, sizeof(b->dim[0]) * (size_t)b->n);
			n += b->n;
		}
		n = tc_dims_canon(dim, n);
		st = tc_emit(p, op, dim, n, soff, doff);
		if (st)
			return st;
		for (m = 0; m < rank; m++) {
			if (++idx[m] < mb[m].n)
				break;
			idx[m] = 0;
		}
		if (m == rank)
			return TILECOPY_SUCCESS;
	}
}

static void tc_boxes_free(struct tc_boxes *mb, int rank)
{
	for (int m = 0; m < rank; m++) {
		free(mb[m].b);
		mb[m].b = NULL;
		mb[m].n = mb[m].cap = 0;
	}
}

static tilecopy_status_t tc_plan_copies(struct tilecopy_plan *p,
					const tilecopy_tensor_t *src,
					const tilecopy_tensor_t *dst)
{
	struct tc_boxes mb[TILECOPY_MAX_RANK] = { 0 };
	int rank = dst->layout.rank;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	for (int m = 0; m < rank && !st; m++)
		st = tc_mode_boxes(&mb[m], &src->layout, &dst->layout, m, 0,
				   dst->extent[m]);
	if (!st)
		st = tc_emit_product(p, DRM_TILECOPY_OP_COPY, mb, rank);
	tc_boxes_free(mb, rank);
	return st;
}

/*
 * Padding of a destination without holes: for each mode m with extent <
 * size, the region {c_j < extent_j for j < m, c_m >= extent_m, c_j any for
 * j > m}. The regions are disjoint and cover exactly the padding.
 */
static tilecopy_status_t tc_plan_pad_fills(struct tilecopy_plan *p,
					   const tilecopy_tensor_t *dst)
{
	const tilecopy_layout_t *l = &dst->layout;
	int rank = l->rank;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	for (int m = 0; m < rank && !st; m++) {
		struct tc_boxes mb[TILECOPY_MAX_RANK] = { 0 };
		int64_t size = tc_layout_mode_size(l, m);

		if (dst->extent[m] >= size)
			continue;
		for (int j = 0; j < rank && !st; j++) {
			int64_t lo = 0, hi = tc_layout_mode_size(l, j);

			if (j < m)
				hi = dst->extent[j];
			else if (j == m)
				lo = dst->extent[m];
			st = tc_mode_boxes(&mb[j], NULL, l, j, lo, hi);
		}
		if (!st)
			st = tc_emit_product(p, DRM_TILECOPY_OP_FILL, mb, rank);
		tc_boxes_free(mb, rank);
	}
	return st;
}

/* Every address in [0, cosize) is the image of exactly one coordinate. */
static int tc_layout_is_compact(const tilecopy_layout_t *l)
{
	tilecopy_layout_t c;
	int64_t pairs[TILECOPY_MAX_LEAVES][2], next = 1;
	int n = 0;

	tc_layout_coalesce(&c, l);
	for (int i = 0; i < c.nleaves; i++) {
		if (c.shape[i] == 1)
			continue;
		pairs[n][0] = c.stride[i];
		pairs[n][1] = c.shape[i];
		n++;
	}
	qsort(pairs, (size_t)n, sizeof(pairs[0]), tc_cmp_i64);
	for (int i = 0; i < n; i++) {
		if (pairs[i][0] != next)
			return 0;
		next = pairs[i][0] * pairs[i][1];
	}
	return 1;
}

static tilecopy_status_t tc_plan_fill_all(struct tilecopy_plan *p, int64_t n)
{
	struct tc_dim d = { .ext = n, .ss = 0, .ds = 1 };

	return tc_emit(p, DRM_TILECOPY_OP_FILL, &d, 1, 0, 0);
}

static tilecopy_status_t tc_plan_check_args(const tilecopy_tensor_t *src,
					    const tilecopy_tensor_t *dst, uint32_t flags)
{
	char a[256], b[256];
	size_t ss, ds;
	tilecopy_status_t st;

	/* whoever made them: ranks, leaves, extents, dtypes must be sane */
	st = tc_tensor_check(src, "src");
	if (!st)
		st = tc_tensor_check(dst, "dst");
	if (st)
		return st;
	ss = tc_dtype_size(src->dtype);
	ds = tc_dtype_size(dst->dtype);
	if (ss != ds)
		return tc_fail(TILECOPY_ERR_DTYPE_MISMATCH,
			       "dst: element size %zu (%s) differs from src element size %zu (%s)",
			       ds, tc_dtype_name(dst->dtype), ss,
			       tc_dtype_name(src->dtype));
	if (src->dtype != dst->dtype && !(flags & TILECOPY_PLAN_REINTERPRET))
		return tc_fail(TILECOPY_ERR_DTYPE_MISMATCH,
			       "dst: dtype %s differs from src dtype %s; a plan moves bits and converts no values (TILECOPY_PLAN_REINTERPRET copies them as they are)",
			       tc_dtype_name(dst->dtype), tc_dtype_name(src->dtype));
	if (src->layout.rank != dst->layout.rank ||
	    memcmp(src->extent, dst->extent,
		   sizeof(src->extent[0]) * (size_t)src->layout.rank))
		return tc_fail(TILECOPY_ERR_SHAPE_MISMATCH,
			       "dst: shape %s differs from src shape %s",
			       tc_shape_str(dst->extent, dst->layout.rank, a, sizeof(a)),
			       tc_shape_str(src->extent, src->layout.rank, b, sizeof(b)));
	if (tc_tensor_has_overlap(dst))
		return tc_fail(TILECOPY_ERR_OVERLAP,
			       "dst: format %s maps two elements to one address (stride 0 or overlapping strides)",
			       dst->format);
	return TILECOPY_SUCCESS;
}

static tilecopy_status_t tc_plan_sizes(struct tilecopy_plan *p,
				       const tilecopy_tensor_t *src,
				       const tilecopy_tensor_t *dst)
{
	uint64_t moved = 0;

	if (tc_tensor_bytes(src, &p->src_bytes))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "src: physical size overflows 64 bits");
	if (tc_tensor_bytes(dst, &p->dst_bytes))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "dst: physical size overflows 64 bits");
	for (size_t i = 0; i < p->n; i++) {
		uint64_t e = 1;

		for (int k = 0; k < p->descs[i].ndims; k++)
			e *= p->descs[i].extent[k];
		moved += e * p->esize * (p->descs[i].op == DRM_TILECOPY_OP_COPY ? 2 : 1);
	}
	p->moved_bytes = moved;
	return TILECOPY_SUCCESS;
}

/* Every emitted descriptor must pass the same check the driver makes. */
static tilecopy_status_t tc_plan_verify(const struct tilecopy_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *field = "";

		if (tc_desc_check(&p->descs[i], p->src_bytes, p->dst_bytes, &field))
			return tc_fail(TILECOPY_ERR_OVERFLOW,
				       "plan: descriptor %zu: %s out of range (internal error)",
				       i, field);
	}
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_plan_create(struct tilecopy_plan **plan, const tilecopy_tensor_t *src,
				 const tilecopy_tensor_t *dst, uint32_t flags)
{
	struct tilecopy_plan *p;
	tilecopy_status_t st;

	*plan = NULL;
	if (flags & ~TILECOPY_PLAN_REINTERPRET)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~TILECOPY_PLAN_REINTERPRET);
	st = tc_plan_check_args(src, dst, flags);
	if (st)
		return st;
	p = calloc(1, sizeof(*p));
	if (!p)
		return tc_fail(TILECOPY_ERR_NOMEM, "plan: out of memory");
	p->magic = TC_MAGIC_PLAN;
	p->esize = tc_dtype_size(src->dtype);
	p->src_base = src->byte_offset;
	p->dst_base = dst->byte_offset;
	st = tc_plan_sizes(p, src, dst);
	if (st)
		goto err_free;
	if (dst->view)
		;	/* a view's gaps belong to someone else: written never */
	else if (!tc_layout_is_compact(&dst->layout)) {
		p->ordered = 1;
		st = tc_plan_fill_all(p, tc_layout_cosize(&dst->layout));
	} else {
		st = tc_plan_pad_fills(p, dst);
	}
	if (st)
		goto err_free;
	st = tc_plan_copies(p, src, dst);
	if (st)
		goto err_free;
	st = tc_plan_sizes(p, src, dst);
	if (!st)
		st = tc_plan_verify(p);
	if (st)
		goto err_free;
	*plan = p;
	return tc_ok();
err_free:
	tilecopy_plan_destroy(p);
	return st;
}

TILECOPY_API tilecopy_status_t tilecopy_plan_create(tilecopy_plan_t **plan,
						    const tilecopy_tensor_t *src,
						    const tilecopy_tensor_t *dst,
						    uint32_t flags)
{
	tilecopy_status_t st;

	if (!plan)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "plan: NULL");
	*plan = NULL;
	st = tc_tensor_arg(src, "src");
	if (!st)
		st = tc_tensor_arg(dst, "dst");
	return st ? st : tc_plan_create(plan, src, dst, flags);
}

TILECOPY_API void tilecopy_plan_destroy(tilecopy_plan_t *plan)
{
	if (!plan || plan->magic != TC_MAGIC_PLAN)
		return;
	plan->magic = 0;
	free(plan->descs);
	free(plan);
}

tilecopy_status_t tc_plan_arg(const struct tilecopy_plan *plan)
{
	if (!plan)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "plan: NULL");
	if (plan->magic != TC_MAGIC_PLAN)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "plan: not a plan handle (destroyed, or another object)");
	return TILECOPY_SUCCESS;
}

#define TC_GET(plan, outp) do {						\
	tilecopy_status_t st_ = tc_plan_arg(plan);			\
	if (st_)							\
		return st_;						\
	if (!(outp))							\
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", #outp); \
} while (0)

TILECOPY_API tilecopy_status_t tilecopy_plan_descs(const tilecopy_plan_t *plan,
						   const struct drm_tilecopy_desc **descs,
						   size_t *count)
{
	TC_GET(plan, descs);
	if (!count)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "count: NULL");
	*descs = plan->descs;
	*count = plan->n;
	return tc_ok();
}

/* struct tilecopy_desc (tilecopy.h) is the uAPI descriptor in plain C types. */
_Static_assert(TILECOPY_DESC_MAX_DIMS == DRM_TILECOPY_MAX_DIMS &&
	       TILECOPY_DESC_COPY == DRM_TILECOPY_OP_COPY &&
	       TILECOPY_DESC_FILL == DRM_TILECOPY_OP_FILL &&
	       TILECOPY_DESC_WRITE64 == DRM_TILECOPY_OP_WRITE64,
	       "struct tilecopy_desc and struct drm_tilecopy_desc disagree");

TILECOPY_API tilecopy_status_t tilecopy_plan_desc(const tilecopy_plan_t *plan, size_t index,
						  struct tilecopy_desc *desc)
{
	const struct drm_tilecopy_desc *d;
	uint32_t n;

	TC_GET(plan, desc);
	if (index >= plan->n)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "index: %zu, the plan has %zu descriptors",
			       index, plan->n);
	n = desc->struct_size;
	if (n < sizeof(*desc))	/* 1.1 is the first version: all its fields */
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "desc: struct_size %u, at least %zu (set it to sizeof)",
			       n, sizeof(*desc));
	if (n > TC_STRUCT_SIZE_MAX)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "desc: struct_size %u, more than %u: not set? (set it to sizeof)",
			       n, TC_STRUCT_SIZE_MAX);
	d = &plan->descs[index];
	memset(desc, 0, n);
	desc->struct_size = (uint32_t)sizeof(*desc);
	desc->op = d->op;
	desc->elem_size = d->elem_size;
	desc->ndims = d->ndims;
	desc->src = d->src;
	desc->dst = d->dst;
	desc->value = d->value;
	for (int k = 0; k < TILECOPY_DESC_MAX_DIMS; k++) {
		desc->extent[k] = d->extent[k];
		desc->src_stride[k] = d->src_stride[k];
		desc->dst_stride[k] = d->dst_stride[k];
	}
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_src_bytes(const tilecopy_plan_t *plan,
						       uint64_t *bytes)
{
	TC_GET(plan, bytes);
	*bytes = plan->src_bytes;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_dst_bytes(const tilecopy_plan_t *plan,
						       uint64_t *bytes)
{
	TC_GET(plan, bytes);
	*bytes = plan->dst_bytes;
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_moved_bytes(const tilecopy_plan_t *plan,
							 uint64_t *bytes)
{
	TC_GET(plan, bytes);
	*bytes = plan->moved_bytes;
	return tc_ok();
}
