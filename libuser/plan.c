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
 *
 * Typed plans (ABI 1.2: element conversion, or 4-bit elements) are planned
 * the same way, in element indices; only the emission differs: each side's
 * byte address comes from its own element size (a 4-bit side's odd
 * element index sets the descriptor's nibble field), and per-channel
 * scales ride along as a third stride vector, the scale index of a
 * coordinate being its channel index (stride 0 in every other mode), so
 * that splitting and coalescing keep them right as they keep the source's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan_internal.h"
#include "cpu/cpu_exec.h"

/* Bounds that keep a pathological plan from eating the machine. */
#define TC_PLAN_MAX_DESCS	(1 << 20)
#define TC_FALLBACK_MAX		65536

/* ext elements; strides of source, destination and scales (per channel) */
struct tc_dim {
	int64_t ext, ss, ds, cs;
};

struct tc_box {
	int64_t soff, doff, coff;
	int n;
	struct tc_dim dim[TILECOPY_MAX_LEAVES];
};

struct tc_boxes {
	int n, cap;
	struct tc_box *b;
};

/*
 * A mode as digits: place[j] = product of radices below j; top unbounded.
 * cs[j]: the digit's scale stride, its place value in the channel mode.
 */
struct tc_radix {
	int k;
	int64_t place[TILECOPY_MAX_LEAVES * 2 + 1];
	int64_t ss[TILECOPY_MAX_LEAVES * 2 + 1];
	int64_t ds[TILECOPY_MAX_LEAVES * 2 + 1];
	int64_t cs[TILECOPY_MAX_LEAVES * 2 + 1];
};

/*
 * struct tc_planner - one plan being emitted: each side's element bits and,
 * for a typed plan, the fields every COPY and FILL descriptor carries.
 * @chan: the logical mode of per-channel scales, or -1.
 */
struct tc_planner {
	struct tilecopy_plan *p;
	unsigned int sbits, dbits;
	int typed;
	int chan;
	struct drm_tilecopy_desc copy, fill;
};

/* Offsets of a box's first element: source, destination, scales. */
struct tc_off {
	int64_t s, d, c;
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

/* @o moved by @t steps of digit j. */
static struct tc_off tc_off_step(struct tc_off o, const struct tc_radix *x, int j,
				 int64_t t)
{
	o.s += t * x->ss[j];
	o.d += t * x->ds[j];
	o.c += t * x->cs[j];
	return o;
}

/* Box: digits below j full, digit j in [from, to), given offsets. */
static tilecopy_status_t tc_box_digits(struct tc_boxes *out,
				       const struct tc_radix *x, int j,
				       int64_t from, int64_t to, struct tc_off o)
{
	struct tc_box b;

	o = tc_off_step(o, x, j, from);
	b.n = 0;
	b.soff = o.s;
	b.doff = o.d;
	b.coff = o.c;
	for (int i = 0; i <= j; i++) {
		b.dim[b.n].ext = i < j ? x->place[i + 1] / x->place[i] : to - from;
		b.dim[b.n].ss = x->ss[i];
		b.dim[b.n].ds = x->ds[i];
		b.dim[b.n].cs = x->cs[i];
		b.n++;
	}
	return tc_boxes_add(out, &b);
}

/*
 * Cut [lo, hi) (values of digits 0..j) into boxes of whole digits: at most
 * two partial ends per digit level, so at most 2*(j+1) boxes.
 */
static tilecopy_status_t tc_decompose(struct tc_boxes *out,
				      const struct tc_radix *x, int j,
				      int64_t lo, int64_t hi, struct tc_off o)
{
	int64_t p = x->place[j], a = lo, bh = hi / p * p;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	if (lo >= hi)
		return TILECOPY_SUCCESS;
	if (lo % p == 0 && hi % p == 0)
		return tc_box_digits(out, x, j, lo / p, hi / p, o);
	if (lo / p == (hi - 1) / p) {
		int64_t t = lo / p;

		return tc_decompose(out, x, j - 1, lo - t * p, hi - t * p,
				    tc_off_step(o, x, j, t));
	}
	if (lo % p) {
		int64_t t = lo / p;

		st = tc_decompose(out, x, j - 1, lo - t * p, p, tc_off_step(o, x, j, t));
		a = (t + 1) * p;
	}
	if (!st && bh > a)
		st = tc_box_digits(out, x, j, a / p, bh / p, o);
	if (!st && hi % p)
		st = tc_decompose(out, x, j - 1, 0, hi - bh, tc_off_step(o, x, j, bh / p));
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
 * @chan: mode m carries the scales: a digit's scale stride is its place.
 */
static int tc_refine(struct tc_radix *x, const tilecopy_layout_t *s,
		     const tilecopy_layout_t *d, int m, int64_t limit, int chan)
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
		x->cs[j] = chan ? x->place[j] : 0;
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
						int64_t lo, int64_t hi, int chan)
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
		b.coff = chan ? c : 0;
		b.dim[0].ext = tc_ceil_div(hi - c, p);
		b.dim[0].ss = p / ps * ts;
		b.dim[0].ds = p / pd * td;
		b.dim[0].cs = chan ? p : 0;
		if (b.dim[0].ext == 1)
			b.n = 0;	/* a single coordinate: no dim */
		st = tc_boxes_add(out, &b);
		if (st)
			return st;
	}
	return TILECOPY_SUCCESS;
}

/* Boxes covering coordinates [lo, hi) of mode m (@chan: it has the scales). */
static tilecopy_status_t tc_mode_boxes(struct tc_boxes *out,
				       const tilecopy_layout_t *s,
				       const tilecopy_layout_t *d, int m,
				       int64_t lo, int64_t hi, int chan)
{
	struct tc_radix x;
	struct tc_off o = { 0, 0, 0 };

	if (tc_refine(&x, s, d, m, hi, chan))
		return tc_decompose(out, &x, x.k - 1, lo, hi, o);
	return tc_mode_boxes_periodic(out, s, d, m, lo, hi, chan);
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
		    dim[k - 1].ext * dim[k - 1].ss == dim[i].ss &&
		    dim[k - 1].ext * dim[k - 1].cs == dim[i].cs) {
			dim[k - 1].ext *= dim[i].ext;
			continue;
		}
		dim[k++] = dim[i];
	}
	return k;
}

#define TC_EXT_MAX	0xffffffffLL
#define TC_EXT_CHUNK	(1LL << 30)

/* Byte address of element @off of a side of @bits bits; a 4-bit odd index sets *@nibble. */
static __u64 tc_side_addr(unsigned int bits, uint64_t base, int64_t off, __u8 *nibble)
{
	if (bits == 4) {
		*nibble = (__u8)(off & 1);
		return base + (uint64_t)(off >> 1);
	}
	*nibble = 0;
	return base + (uint64_t)off * (bits / 8);
}

/*
 * The descriptor of one box: untyped (elem_size bytes, as 1.0) unless the
 * plan is typed; a FILL of a byte-sized destination stays untyped in any
 * plan (its zeros are zeros of any type), a FILL of 4-bit elements writes
 * nibbles.
 */
static void tc_desc_make(const struct tc_planner *pl, int op, const struct tc_dim *dim,
			 int n, struct tc_off o, struct drm_tilecopy_desc *d)
{
	const struct tilecopy_plan *p = pl->p;
	int copy = op == DRM_TILECOPY_OP_COPY;
	int typed = pl->typed && (copy || pl->dbits == 4);
	__u8 nib;

	if (typed)
		*d = copy ? pl->copy : pl->fill;
	else
		memset(d, 0, sizeof(*d));
	d->op = (__u16)op;
	d->elem_size = typed ? 0 : (__u8)(pl->dbits / 8);
	d->ndims = (__u8)(n ? n : 1);
	if (copy)
		d->src = tc_side_addr(pl->sbits, p->src_base, o.s, &nib), d->src_nibble = typed ? nib : 0;
	d->dst = tc_side_addr(pl->dbits, p->dst_base, o.d, &nib);
	d->dst_nibble = typed ? nib : 0;
	if (typed && (d->cvt_flags & DRM_TILECOPY_CVT_SCALES))
		d->scales = (__u64)o.c * sizeof(float);
	d->extent[0] = 1;
	for (int i = 0; i < n; i++) {
		d->extent[i] = (__u32)dim[i].ext;
		d->src_stride[i] = copy ? (__u64)dim[i].ss : 0;
		d->dst_stride[i] = (__u64)dim[i].ds;
		if (typed && (d->cvt_flags & DRM_TILECOPY_CVT_SCALES))
			d->scale_stride[i] = (__u32)dim[i].cs;
	}
}

static tilecopy_status_t tc_emit(struct tc_planner *pl, int op,
				 struct tc_dim *dim, int n, struct tc_off o)
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
		sub[n].cs = dim[i].cs * TC_EXT_CHUNK;
		st = tc_emit(pl, op, sub, n + 1, o);
		if (st || !r)
			return st;
		sub[i].ext = r;
		o.s += q * TC_EXT_CHUNK * dim[i].ss;
		o.d += q * TC_EXT_CHUNK * dim[i].ds;
		o.c += q * TC_EXT_CHUNK * dim[i].cs;
		return tc_emit(pl, op, sub, n, o);
	}
	/* More dims than the engine has: loop over the outermost one. */
	if (n > DRM_TILECOPY_MAX_DIMS) {
		for (int64_t c = 0; c < dim[n - 1].ext; c++) {
			struct tc_off oc = {
				o.s + c * dim[n - 1].ss, o.d + c * dim[n - 1].ds,
				o.c + c * dim[n - 1].cs,
			};

			st = tc_emit(pl, op, dim, n - 1, oc);
			if (st)
				return st;
		}
		return TILECOPY_SUCCESS;
	}
	tc_desc_make(pl, op, dim, n, o, &d);
	return tc_plan_push(pl->p, &d);
}

/*
 * Walk the product of the modes' box lists (an odometer over box indices)
 * and emit one descriptor per combination.
 */
static tilecopy_status_t tc_emit_product(struct tc_planner *pl, int op,
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
		struct tc_off o = { 0, 0, 0 };
		int n = 0, m;
		tilecopy_status_t st;

		for (m = 0; m < rank; m++) {
			const struct tc_box *b = &mb[m].b[idx[m]];

			o.s += b->soff;
			o.d += b->doff;
			o.c += b->coff;
			memcpy(&dim[n], b->dim, sizeof(b->dim[0]) * (size_t)b->n);
			n += b->n;
		}
		n = tc_dims_canon(dim, n);
		st = tc_emit(pl, op, dim, n, o);
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

static tilecopy_status_t tc_plan_copies(struct tc_planner *pl,
					const tilecopy_tensor_t *src,
					const tilecopy_tensor_t *dst)
{
	struct tc_boxes mb[TILECOPY_MAX_RANK] = { 0 };
	int rank = dst->layout.rank;
	tilecopy_status_t st = TILECOPY_SUCCESS;

	for (int m = 0; m < rank && !st; m++)
		st = tc_mode_boxes(&mb[m], &src->layout, &dst->layout, m, 0,
				   dst->extent[m], m == pl->chan);
	if (!st)
		st = tc_emit_product(pl, DRM_TILECOPY_OP_COPY, mb, rank);
	tc_boxes_free(mb, rank);
	return st;
}

/*
 * Padding of a destination without holes: for each mode m with extent <
 * size, the region {c_j < extent_j for j < m, c_m >= extent_m, c_j any for
 * j > m}. The regions are disjoint and cover exactly the padding.
 */
static tilecopy_status_t tc_plan_pad_fills(struct tc_planner *pl,
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
			st = tc_mode_boxes(&mb[j], NULL, l, j, lo, hi, 0);
		}
		if (!st)
			st = tc_emit_product(pl, DRM_TILECOPY_OP_FILL, mb, rank);
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

static tilecopy_status_t tc_plan_fill_all(struct tc_planner *pl, int64_t n)
{
	struct tc_dim d = { .ext = n, .ss = 0, .ds = 1, .cs = 0 };
	struct tc_off o = { 0, 0, 0 };

	return tc_emit(pl, DRM_TILECOPY_OP_FILL, &d, 1, o);
}

/* Shape and destination overlap; tensors and dtypes are checked before. */
static tilecopy_status_t tc_plan_check_args(const tilecopy_tensor_t *src,
					    const tilecopy_tensor_t *dst)
{
	char a[256], b[256];

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

/* Bytes @n elements of @bits take (4-bit: rounded up, an estimate per descriptor). */
static uint64_t tc_moved(uint64_t n, unsigned int bits)
{
	return tc_elems_bytes(n, bits);
}

static tilecopy_status_t tc_plan_sizes(struct tc_planner *pl,
				       const tilecopy_tensor_t *src,
				       const tilecopy_tensor_t *dst)
{
	struct tilecopy_plan *p = pl->p;
	uint64_t moved = 0;

	if (tc_tensor_bytes(src, &p->src_bytes))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "src: physical size overflows 64 bits");
	if (tc_tensor_bytes(dst, &p->dst_bytes))
		return tc_fail(TILECOPY_ERR_OVERFLOW, "dst: physical size overflows 64 bits");
	for (size_t i = 0; i < p->n; i++) {
		uint64_t e = tc_desc_elems(&p->descs[i]);

		moved += tc_moved(e, pl->dbits);
		if (p->descs[i].op == DRM_TILECOPY_OP_COPY)
			moved += tc_moved(e, pl->sbits);
	}
	p->moved_bytes = moved;
	return TILECOPY_SUCCESS;
}

/* Every emitted descriptor must pass the same check the driver makes. */
static tilecopy_status_t tc_plan_verify(const struct tilecopy_plan *p)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *field = "";

		if (tc_desc_check_v2(&p->descs[i], p->src_bytes, p->dst_bytes,
				     p->nscales * sizeof(float), &field))
			return tc_fail(TILECOPY_ERR_OVERFLOW,
				       "plan: descriptor %zu: %s out of range (internal error)",
				       i, field);
	}
	return TILECOPY_SUCCESS;
}

/* The typed fields every COPY and FILL of a typed plan carries. */
static void tc_planner_init(struct tc_planner *pl, struct tilecopy_plan *p,
			    const tilecopy_tensor_t *src, const tilecopy_tensor_t *dst,
			    const struct tc_convert *cv)
{
	memset(pl, 0, sizeof(*pl));
	pl->p = p;
	pl->sbits = tc_dtype_bits(src->dtype);
	pl->dbits = tc_dtype_bits(dst->dtype);
	pl->typed = cv->typed;
	pl->chan = cv->chan;
	pl->copy.src_type = cv->src_type;
	pl->copy.dst_type = cv->dst_type;
	pl->copy.cvt_flags = cv->cvt_flags;
	pl->copy.scale = cv->scale;
	pl->copy.src_zp = cv->src_zp;
	pl->copy.dst_zp = cv->dst_zp;
	pl->fill.dst_type = cv->dst_type;
	p->esize = cv->typed ? 0 : pl->dbits / 8;
}

/* The descriptors: padding (or the whole of a destination with holes), then the copies. */
static tilecopy_status_t tc_plan_emit(struct tc_planner *pl, const tilecopy_tensor_t *src,
				      const tilecopy_tensor_t *dst)
{
	tilecopy_status_t st = tc_plan_sizes(pl, src, dst);

	if (st)
		return st;
	if (dst->view)
		;	/* a view's gaps belong to someone else: written never */
	else if (!tc_layout_is_compact(&dst->layout)) {
		pl->p->ordered = 1;
		st = tc_plan_fill_all(pl, tc_layout_cosize(&dst->layout));
	} else {
		st = tc_plan_pad_fills(pl, dst);
	}
	if (!st)
		st = tc_plan_copies(pl, src, dst);
	if (!st)
		st = tc_plan_sizes(pl, src, dst);
	if (!st)
		st = tc_plan_verify(pl->p);
	if (!st)
		tc_direct_analyse(pl->p->descs, pl->p->n, &pl->p->direct);
	return st;
}

tilecopy_status_t tc_plan_create_v2(struct tilecopy_plan **plan, const tilecopy_tensor_t *src,
				    const tilecopy_tensor_t *dst,
				    const tilecopy_convert_params_t *params, uint32_t flags)
{
	struct tc_convert cv;
	struct tc_planner pl;
	struct tilecopy_plan *p;
	tilecopy_status_t st;

	*plan = NULL;
	if (flags & ~TILECOPY_PLAN_REINTERPRET)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "flags: unknown bits 0x%x",
			       flags & ~TILECOPY_PLAN_REINTERPRET);
	/* whoever made them: ranks, leaves, extents, dtypes must be sane */
	st = tc_tensor_check(src, "src");
	if (!st)
		st = tc_tensor_check(dst, "dst");
	if (!st)
		st = tc_convert_types(&cv, src, dst, params, flags);
	if (st)
		return st;
	st = tc_plan_check_args(src, dst);
	if (!st)
		st = tc_convert_params(&cv, src, dst, params);
	if (st)
		goto err_convert;
	p = calloc(1, sizeof(*p));
	if (!p) {
		st = tc_fail(TILECOPY_ERR_NOMEM, "plan: out of memory");
		goto err_convert;
	}
	p->magic = TC_MAGIC_PLAN;
	p->src_base = src->byte_offset;
	p->dst_base = dst->byte_offset;
	p->scales = cv.scales;	/* the plan owns them now */
	p->nscales = cv.nscales;
	tc_planner_init(&pl, p, src, dst, &cv);
	st = tc_plan_emit(&pl, src, dst);
	if (st) {
		tilecopy_plan_destroy(p);
		return st;
	}
	*plan = p;
	return tc_ok();
err_convert:
	tc_convert_fini(&cv);
	return st;
}

tilecopy_status_t tc_plan_create(struct tilecopy_plan **plan, const tilecopy_tensor_t *src,
				 const tilecopy_tensor_t *dst, uint32_t flags)
{
	return tc_plan_create_v2(plan, src, dst, NULL, flags);
}

TILECOPY_API tilecopy_status_t tilecopy_plan_create(tilecopy_plan_t **plan,
						    const tilecopy_tensor_t *src,
						    const tilecopy_tensor_t *dst,
						    uint32_t flags)
{
	return tilecopy_plan_create_v2(plan, src, dst, NULL, flags);
}

TILECOPY_API tilecopy_status_t tilecopy_plan_create_v2(tilecopy_plan_t **plan,
						       const tilecopy_tensor_t *src,
						       const tilecopy_tensor_t *dst,
						       const tilecopy_convert_params_t *params,
						       uint32_t flags)
{
	tilecopy_status_t st;

	if (!plan)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "plan: NULL");
	*plan = NULL;
	st = tc_tensor_arg(src, "src");
	if (!st)
		st = tc_tensor_arg(dst, "dst");
	return st ? st : tc_plan_create_v2(plan, src, dst, params, flags);
}

TILECOPY_API void tilecopy_plan_destroy(tilecopy_plan_t *plan)
{
	if (!plan || plan->magic != TC_MAGIC_PLAN)
		return;
	plan->magic = 0;
	free(plan->descs);
	free(plan->scales);
	free(atomic_load(&plan->descs_1_0));
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

/*
 * tilecopy_plan_descs@@TILECOPY_1.2, the default; 1.0's shape stays for
 * older programs (abi_compat.c, which says why).
 */
TC_SYMVER_DEFAULT(tc_symver_plan_descs_1_2, tilecopy_plan_descs, TILECOPY_1.2);
TILECOPY_API tilecopy_status_t tc_symver_plan_descs_1_2(const tilecopy_plan_t *plan,
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
_Static_assert(TILECOPY_DESC_TYPE_F32 == DRM_TILECOPY_TYPE_F32 &&
	       TILECOPY_DESC_TYPE_F16 == DRM_TILECOPY_TYPE_F16 &&
	       TILECOPY_DESC_TYPE_BF16 == DRM_TILECOPY_TYPE_BF16 &&
	       TILECOPY_DESC_TYPE_I8 == DRM_TILECOPY_TYPE_I8 &&
	       TILECOPY_DESC_TYPE_U8 == DRM_TILECOPY_TYPE_U8 &&
	       TILECOPY_DESC_TYPE_I32 == DRM_TILECOPY_TYPE_I32 &&
	       TILECOPY_DESC_TYPE_I4 == DRM_TILECOPY_TYPE_I4 &&
	       TILECOPY_DESC_TYPE_U4 == DRM_TILECOPY_TYPE_U4 &&
	       TILECOPY_DESC_CVT_SCALE == DRM_TILECOPY_CVT_SCALE &&
	       TILECOPY_DESC_CVT_SCALES == DRM_TILECOPY_CVT_SCALES,
	       "struct tilecopy_desc's types and flags and the uAPI's disagree");
_Static_assert(TILECOPY_DESC_SIZE_1_1 == offsetof(struct tilecopy_desc, src_type),
	       "the 1.1 struct tilecopy_desc ends where the typed fields begin");

/* The typed fields (1.2), when the caller's struct has them. */
static void tc_desc_typed_out(struct tilecopy_desc *out, const struct drm_tilecopy_desc *d)
{
	out->src_type = d->src_type;
	out->dst_type = d->dst_type;
	out->src_nibble = d->src_nibble;
	out->dst_nibble = d->dst_nibble;
	out->cvt_flags = d->cvt_flags;
	out->src_zp = d->src_zp;
	out->dst_zp = d->dst_zp;
	out->scale = d->scale;
	out->scales = d->scales;
	for (int k = 0; k < TILECOPY_DESC_MAX_DIMS; k++)
		out->scale_stride[k] = d->scale_stride[k];
}

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
	if (n < TILECOPY_DESC_SIZE_1_1)	/* 1.1 is the first version: all its fields */
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "desc: struct_size %u, at least %u (set it to sizeof)",
			       n, TILECOPY_DESC_SIZE_1_1);
	if (n > TC_STRUCT_SIZE_MAX)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "desc: struct_size %u, more than %u: not set? (set it to sizeof)",
			       n, TC_STRUCT_SIZE_MAX);
	d = &plan->descs[index];
	memset(desc, 0, n);
	/* a struct between the versions' sizes gets the older one's fields */
	desc->struct_size = n >= sizeof(*desc) ? (uint32_t)sizeof(*desc) : TILECOPY_DESC_SIZE_1_1;
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
	if (n >= sizeof(*desc))
		tc_desc_typed_out(desc, d);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_scales(const tilecopy_plan_t *plan,
						    const float **scales, size_t *count)
{
	TC_GET(plan, scales);
	if (!count)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "count: NULL");
	*scales = plan->scales;
	*count = plan->nscales;
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
