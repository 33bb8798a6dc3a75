// SPDX-License-Identifier: MIT
/*
 * device_job.c - running a plan on the engine.
 *
 * The plan's descriptors hold byte offsets; here they become device virtual
 * addresses (BO va + offset), are sliced across the hardware queues when the
 * plan is large and its order does not matter, cut into jobs of at most
 * MAX_DESCS descriptors and MAX_JOB_ELEMS elements of work, and submitted.
 * Each job descriptor remembers which plan descriptor it came from, so a
 * fault names the plan's descriptor.
 *
 * Typed descriptors (ABI 1.2): the plan's scales go into a read-only BO of
 * the job, and a descriptor's @scales (an offset into them) becomes a VA.
 * Cuts move 4-bit sides by nibbles (address and nibble field) and the
 * scales with src and dst. A plan that writes 4-bit elements stays on one
 * queue (and, cut across engines, on the first): two parts writing the two
 * nibbles of one byte at once, each a read-modify-write, could lose one.
 *
 * A tilecopy_job_t is one or more hardware jobs ("parts"); one syncobj
 * covers them all (their fences merged through sync_file), and its status
 * is the first failure of any part, kept for every later wait.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>
#include <xf86drm.h>

#include "internal.h"
#include "device_internal.h"
#include "plan_internal.h"
#include "cpu/cpu_exec.h"

/* Below this many bytes moved a plan stays on one queue: the split costs
 * more submissions than it saves. */
#define TC_SPLIT_MIN_BYTES (1ull << 20)
/* In-fences per hardware job (the driver's TC_MAX_IN_SYNCOBJS). */
#define TC_MAX_IN_FENCES 64
/* How long SUBMIT may say -EBUSY (the file's jobs in flight) before we
 * give up: jobs finish on their own, hung ones after job_timeout_ms. */
#define TC_BUSY_MAX_NS (120ll * 1000000000)

struct tc_dlist {
	struct drm_tilecopy_desc *d;
	uint32_t *idx;
	size_t n, cap;
};

static int tc_dlist_push(struct tc_dlist *l, const struct drm_tilecopy_desc *d,
			 uint32_t idx)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void *nd = realloc(l->d, cap * sizeof(*l->d));
		void *ni;

		if (!nd)
			return -ENOMEM;
		l->d = nd;
		ni = realloc(l->idx, cap * sizeof(*l->idx));
		if (!ni)
			return -ENOMEM;
		l->idx = ni;
		l->cap = cap;
	}
	l->d[l->n] = *d;
	l->idx[l->n] = idx;
	l->n++;
	return 0;
}

/* Bits of an element of one side of @d: its type's, or elem_size bytes. */
static unsigned int tc_side_bits(const struct drm_tilecopy_desc *d, int src)
{
	unsigned int type = src ? d->src_type : d->dst_type;

	return type ? tc_desc_type_bits(type) : 8u * d->elem_size;
}

/* One side's address (and nibble, 4-bit) @n elements further. */
static void tc_side_advance(__u64 *addr, __u8 *nibble, unsigned int bits, uint64_t n)
{
	uint64_t x;

	if (bits != 4) {
		*addr += n * (bits / 8);
		return;
	}
	x = *nibble + n;
	*addr += x >> 1;
	*nibble = (__u8)(x & 1);
}

/* @out: @d from element @lo of its dimension @k on (extent[k] left as is). */
static void tc_desc_skip(const struct drm_tilecopy_desc *d, int k, uint64_t lo,
			 struct drm_tilecopy_desc *out)
{
	*out = *d;
	tc_side_advance(&out->src, &out->src_nibble, tc_side_bits(d, 1), lo * d->src_stride[k]);
	tc_side_advance(&out->dst, &out->dst_nibble, tc_side_bits(d, 0), lo * d->dst_stride[k]);
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES)
		out->scales += lo * d->scale_stride[k] * 4;
}

/*
 * Piece @part of @nparts of @d, cut along its outermost dim of extent > 1.
 * A descriptor too small to cut goes whole to piece (@seq % @nparts).
 * Returns 0 when the piece is empty.
 */
static int tc_piece(const struct drm_tilecopy_desc *d, unsigned int part,
		    unsigned int nparts, size_t seq, struct drm_tilecopy_desc *out)
{
	int k = d->ndims - 1;
	uint64_t lo, hi;

	while (k > 0 && d->extent[k] == 1)
		k--;
	if (nparts == 1 || d->op == DRM_TILECOPY_OP_WRITE64 || d->extent[k] < nparts) {
		if (seq % nparts != part)
			return 0;
		*out = *d;
		return 1;
	}
	lo = (uint64_t)d->extent[k] * part / nparts;
	hi = (uint64_t)d->extent[k] * (part + 1) / nparts;
	tc_desc_skip(d, k, lo, out);
	out->extent[k] = (uint32_t)(hi - lo);
	return 1;
}

static tilecopy_status_t tc_check_ref(const char *what,
				      const struct tilecopy_buffer_ref *r,
				      uint64_t need, tilecopy_device_t *dev)
{
	uint64_t end;

	if (!r)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", what);
	if (tc_handle_arg(r->bo, TC_MAGIC_BO, what))
		return TILECOPY_ERR_INVALID_ARG;
	if (r->bo->dev != dev)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "%s: buffer object belongs to another device", what);
	if (__builtin_add_overflow(r->offset, need, &end) || end > r->bo->size)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "%s: offset %llu + %llu bytes exceeds the buffer object's %llu",
			       what, (unsigned long long)r->offset,
			       (unsigned long long)need, (unsigned long long)r->bo->size);
	return TILECOPY_SUCCESS;
}

static int64_t tc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What a refused SUBMIT means, for the message. */
static tilecopy_status_t tc_submit_error(tilecopy_job_t *job, int err)
{
	const char *path = job->dev->info.path;

	switch (err) {
	case -ENOMEM:
		return tc_fail(TILECOPY_ERR_NOMEM, "job: %s: SUBMIT: out of memory", path);
	case -ECANCELED:
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "job: %s: SUBMIT refused: this device file is banned, its jobs hung the engine too often; open the device again",
			       path);
	case -EIO:
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "job: %s: SUBMIT refused: the device is wedged (an engine reset failed); unbind and bind the driver",
			       path);
	case -ENODEV:
		return tc_fail(TILECOPY_ERR_NO_DEVICE, "job: %s: the device was removed", path);
	case -EOPNOTSUPP:
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "job: %s: the engine does not convert element types (no DRM_TILECOPY_FEATURE_CONVERT): run the plan on the CPU",
			       path);
	case -E2BIG:
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "job: %s: SUBMIT refused a descriptor as too big (E2BIG): it writes more than the engine's %llu elements per job, or its row is longer than %llu elements (%llu bytes contiguous), and it could not be cut",
			       path, (unsigned long long)job->dev->max_job_elems,
			       (unsigned long long)DRM_TILECOPY_MAX_ROW_ELEMS,
			       (unsigned long long)DRM_TILECOPY_MAX_ROW_BYTES);
	case -EBUSY:
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "job: %s: SUBMIT: this device file's jobs in flight stayed at the driver's limit for %lld s",
			       path, TC_BUSY_MAX_NS / 1000000000);
	default:
		return tc_fail(TILECOPY_ERR_DEVICE, "job: %s: SUBMIT refused part %d: %s",
			       path, job->nparts, strerror(-err));
	}
}

/*
 * SUBMIT, again while the file is at its limit of jobs in flight (-EBUSY):
 * they finish by themselves, so a short sleep does.
 */
static int tc_submit_retry(int fd, struct drm_tilecopy_submit *s)
{
	int64_t end = tc_now_ns() + TC_BUSY_MAX_NS;
	long pause_us = 100;
	int ret;

	while ((ret = tc_drm_ioctl(fd, DRM_IOCTL_TILECOPY_SUBMIT, s)) == -EBUSY &&
	       tc_now_ns() < end) {
		struct timespec ts = { 0, pause_us * 1000 };

		nanosleep(&ts, NULL);
		if (pause_us < 20000)
			pause_us *= 2;
	}
	return ret;
}

/* The fences a job waits for, as syncobj handles of the device's file. */
struct tc_in_fences {
	uint32_t h[TC_MAX_IN_FENCES];
	uint32_t n;
	uint32_t imported;	/* the first @imported are ours: destroy them */
};

/* The sync_file fds of @o become syncobjs of our own. */
static tilecopy_status_t tc_in_fences_get(tilecopy_device_t *dev,
					  const struct tilecopy_submit_opts *o,
					  struct tc_in_fences *in)
{
	in->n = in->imported = 0;
	for (uint32_t i = 0; i < o->num_in_fences; i++) {
		uint32_t h;

		if (drmSyncobjCreate(dev->fd, 0, &h))
			return tc_fail(TILECOPY_ERR_DEVICE, "job: syncobj: %s", strerror(errno));
		in->h[in->n++] = h;
		in->imported++;
		if (drmSyncobjImportSyncFile(dev->fd, h, o->in_fences[i]))
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "opts: in_fences[%u] (fd %d) is not a sync_file: %s", i,
				       o->in_fences[i], strerror(errno));
	}
	for (uint32_t i = 0; i < o->num_in_syncobjs; i++)
		in->h[in->n++] = o->in_syncobjs[i];
	return TILECOPY_SUCCESS;
}

static void tc_in_fences_put(tilecopy_device_t *dev, struct tc_in_fences *in)
{
	for (uint32_t i = 0; i < in->imported; i++)
		drmSyncobjDestroy(dev->fd, in->h[i]);
}

/*
 * Merge the fence of @syncobj into @acc (a sync_file fd, or -1): the job's
 * one fence covers every part, whichever queue finishes last.
 */
static int tc_fence_merge(int fd, uint32_t syncobj, int *acc)
{
	struct sync_merge_data m = { .name = "tilecopy-job" };
	int part;

	if (drmSyncobjExportSyncFile(fd, syncobj, &part))
		return -errno;
	if (*acc < 0) {
		*acc = part;
		return 0;
	}
	m.fd2 = part;
	if (ioctl(*acc, SYNC_IOC_MERGE, &m)) {
		int e = -errno;

		close(part);
		return e;
	}
	close(part);
	close(*acc);
	*acc = m.fence;
	return 0;
}

struct tc_submit_ctx {
	tilecopy_job_t *job;
	const uint32_t *bos;
	uint32_t nbos;
	const struct tc_in_fences *in;
	uint32_t out;		/* syncobj each part signals */
};

static int tc_submit_part(struct tc_submit_ctx *c, const struct tc_dlist *l,
			  size_t from, size_t n, uint32_t queue)
{
	tilecopy_job_t *job = c->job;
	struct drm_tilecopy_submit s = { 0 };
	struct tc_job_part *p = &job->part[job->nparts];
	unsigned char *packed = NULL;
	int ret;

	s.descs = (uintptr_t)(l->d + from);
	s.desc_count = (uint32_t)n;
	s.desc_size = sizeof(struct drm_tilecopy_desc);
	if (!(job->dev->features & DRM_TILECOPY_FEATURE_DESC_STRIDE)) {
		/* a 1.0 driver: 192-byte descriptors (untyped: tc_plan_types()) */
		packed = malloc(n * DRM_TILECOPY_DESC_SIZE_1_0);
		if (!packed)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			memcpy(packed + i * DRM_TILECOPY_DESC_SIZE_1_0, &l->d[from + i],
			       DRM_TILECOPY_DESC_SIZE_1_0);
		s.descs = (uintptr_t)packed;
		s.desc_size = DRM_TILECOPY_DESC_SIZE_1_0;
	}
	s.bo_handles = (uintptr_t)c->bos;
	s.bo_count = c->nbos;
	s.in_syncobjs = (uintptr_t)c->in->h;
	s.in_syncobj_count = c->in->n;
	s.queue = queue;
	s.out_syncobj = c->out;
	ret = tc_submit_retry(job->dev->fd, &s);
	free(packed);
	if (ret)
		return ret;
	p->id = s.job_id;
	p->queue = queue;
	p->ndescs = (uint32_t)n;
	p->plan_index = malloc(n * sizeof(uint32_t));
	if (p->plan_index)
		memcpy(p->plan_index, l->idx + from, n * sizeof(uint32_t));
	job->nparts++;
	return 0;
}

/*
 * Descriptors of list @l from @from that make one hardware job: at most
 * @max of them and dev->max_job_elems elements of work (at least one).
 */
static size_t tc_cut(const tilecopy_device_t *dev, const struct tc_dlist *l,
		     size_t from, uint32_t max)
{
	uint64_t elems = 0;
	size_t n = 0;

	while (from + n < l->n && n < max) {
		uint64_t e = tc_desc_elems(&l->d[from + n]);

		if (n && (e > dev->max_job_elems || elems > dev->max_job_elems - e))
			break;
		elems += e;
		n++;
	}
	return n;
}

static size_t tc_count_parts(const tilecopy_device_t *dev, const struct tc_dlist *lists,
			     unsigned int q, uint32_t max)
{
	size_t n = 0;

	for (unsigned int i = 0; i < q; i++)
		for (size_t from = 0; from < lists[i].n; from += tc_cut(dev, &lists[i], from, max))
			n++;
	return n;
}

static void tc_lists_free(struct tc_dlist *lists, unsigned int q)
{
	for (unsigned int i = 0; i < q; i++) {
		free(lists[i].d);
		free(lists[i].idx);
	}
	free(lists);
}

/*
 * The driver's row rule (tc_desc_row_ok in driver/tilecopy_submit.c): the
 * engine honours STOP between rows, so SUBMIT refuses (E2BIG) a descriptor
 * whose row - dimension 0 once extent-1 dimensions are dropped and those
 * that continue it merged - is longer than DRM_TILECOPY_MAX_ROW_ELEMS, or
 * DRM_TILECOPY_MAX_ROW_BYTES when contiguous on both sides. A transposing
 * COPY has no row. A typed descriptor merges dimensions only when its
 * scales continue too, and its row is bounded in elements whatever its
 * strides. Returns the outermost dimension of a row too long, else -1.
 */
static int tc_row_too_long(const struct drm_tilecopy_desc *d)
{
	int copy = d->op == DRM_TILECOPY_OP_COPY, n = 0, top = -1, p = -1, q = -1;
	uint64_t e[DRM_TILECOPY_MAX_DIMS], ss[DRM_TILECOPY_MAX_DIMS];
	uint64_t ds[DRM_TILECOPY_MAX_DIMS], cs[DRM_TILECOPY_MAX_DIMS], bytes;
	int ovf = 0;

	for (int k = 0; k < d->ndims; k++) {
		uint64_t sk = copy ? d->src_stride[k] : 0;

		if (d->extent[k] == 1)
			continue;
		/* wrapping products, as the engine computes them */
		if (n && ds[n - 1] * e[n - 1] == d->dst_stride[k] && ss[n - 1] * e[n - 1] == sk &&
		    cs[n - 1] * e[n - 1] == d->scale_stride[k]) {
			ovf |= __builtin_mul_overflow(e[n - 1], (uint64_t)d->extent[k], &e[n - 1]);
			if (n == 1)
				top = k;
			continue;
		}
		e[n] = d->extent[k];
		ss[n] = sk;
		ds[n] = d->dst_stride[k];
		cs[n] = d->scale_stride[k];
		if (!n)
			top = k;
		n++;
	}
	if (!n)
		return -1;
	if (d->dst_type)
		return ovf || e[0] > DRM_TILECOPY_MAX_ROW_ELEMS ? top : -1;
	for (int k = 0; k < n && copy; k++) {
		if (ss[k] == 1 && e[k] > 1 && p < 0)
			p = k;
		if (ds[k] == 1 && e[k] > 1 && q < 0)
			q = k;
	}
	if (p >= 0 && q >= 0 && p != q)
		return -1;
	if (ovf)
		return top;
	if (ds[0] == 1 && (!copy || ss[0] == 1))
		return __builtin_mul_overflow(e[0], (uint64_t)d->elem_size, &bytes) ||
		       bytes > DRM_TILECOPY_MAX_ROW_BYTES ? top : -1;
	return e[0] > DRM_TILECOPY_MAX_ROW_ELEMS ? top : -1;
}

/* Elements [@lo, @hi) of @d's dimension @k. */
static void tc_cut_dim(const struct drm_tilecopy_desc *d, int k, uint64_t lo, uint64_t hi,
		       struct drm_tilecopy_desc *out)
{
	tc_desc_skip(d, k, lo, out);
	out->extent[k] = (uint32_t)(hi - lo);
}

/*
 * Push @d onto @l, its row halved along the row's outermost dimension
 * until the driver takes it (each halving shortens the row; a 2^32 row is
 * 4096 pieces at most). Pieces follow each other in order.
 */
static int tc_push_rows(struct tc_dlist *l, const struct drm_tilecopy_desc *d, uint32_t idx)
{
	struct drm_tilecopy_desc lo, hi;
	int k = tc_row_too_long(d);

	if (k < 0)
		return tc_dlist_push(l, d, idx);
	tc_cut_dim(d, k, 0, d->extent[k] / 2, &lo);
	tc_cut_dim(d, k, d->extent[k] / 2, d->extent[k], &hi);
	return tc_push_rows(l, &lo, idx) ? -ENOMEM : tc_push_rows(l, &hi, idx);
}

/*
 * Push @d onto @l, cut along its outermost dimension into pieces within
 * the work bound of one job when it is larger, and each piece's row within
 * the driver's bound.
 */
static int tc_push_bounded(const tilecopy_device_t *dev, struct tc_dlist *l,
			   const struct drm_tilecopy_desc *d, uint32_t idx)
{
	uint64_t e = tc_desc_elems(d), k = (e + dev->max_job_elems - 1) / dev->max_job_elems;
	struct drm_tilecopy_desc piece;

	if (k <= 1 || k > UINT32_MAX)
		return tc_push_rows(l, d, idx);
	for (uint64_t p = 0; p < k; p++)
		if (tc_piece(d, (unsigned int)p, (unsigned int)k, 0, &piece) &&
		    tc_push_rows(l, &piece, idx))
			return -ENOMEM;
	return 0;
}

/* Where a plan's descriptors are rebased: the buffers' device VAs. */
struct tc_rebase {
	uint64_t src, dst, scales;
};

/*
 * Piece @part of @nparts of the plan, rebased onto the buffers' device VAs,
 * spread over @q queue lists.
 */
static int tc_distribute(const tilecopy_device_t *dev, struct tc_dlist *lists,
			 unsigned int q, const struct tilecopy_plan *plan,
			 const struct tc_rebase *va, unsigned int part, unsigned int nparts)
{
	size_t seq = 0;

	for (size_t i = 0; i < plan->n; i++) {
		struct drm_tilecopy_desc d = plan->descs[i], piece;

		if (d.op == DRM_TILECOPY_OP_COPY)
			d.src += va->src;
		d.dst += va->dst;
		if (d.cvt_flags & DRM_TILECOPY_CVT_SCALES)
			d.scales += va->scales;
		if (!tc_piece(&d, part, nparts, i, &piece))
			continue;
		for (unsigned int p = 0; p < q; p++) {
			struct drm_tilecopy_desc qd;

			if (tc_piece(&piece, p, q, seq, &qd) &&
			    tc_push_bounded(dev, &lists[p], &qd, (uint32_t)i))
				return -ENOMEM;
		}
		seq++;
	}
	return 0;
}

/* Submit every part; the job's syncobj ends up covering them all. */
static tilecopy_status_t tc_submit_parts(tilecopy_job_t *job, struct tc_dlist *lists,
					 unsigned int q, const uint32_t *bos, uint32_t nbos,
					 const struct tc_in_fences *in, size_t nparts_hw)
{
	tilecopy_device_t *dev = job->dev;
	struct tc_submit_ctx c = { job, bos, nbos, in, job->syncobj };
	uint32_t max = dev->info.max_descs;
	/* one-queue jobs rotate over the queues so several users share them */
	unsigned int first = q == 1 ? dev->next_queue++ % dev->info.num_queues : 0;
	int acc = -1, ret = 0;

	if (!nparts_hw && drmSyncobjSignal(dev->fd, &job->syncobj, 1))
		return tc_fail(TILECOPY_ERR_DEVICE, "job: syncobj: %s", strerror(errno));
	if (nparts_hw > 1 && drmSyncobjCreate(dev->fd, 0, &c.out))
		return tc_fail(TILECOPY_ERR_DEVICE, "job: syncobj: %s", strerror(errno));
	for (unsigned int i = 0; i < q && !ret; i++) {
		for (size_t from = 0, n; from < lists[i].n && !ret; from += n) {
			n = tc_cut(dev, &lists[i], from, max);
			ret = tc_submit_part(&c, &lists[i], from, n, q == 1 ? first : i);
			if (!ret && c.out != job->syncobj)
				ret = tc_fence_merge(dev->fd, c.out, &acc);
		}
	}
	if (!ret && acc >= 0 && drmSyncobjImportSyncFile(dev->fd, job->syncobj, acc))
		ret = -errno;
	if (acc >= 0)
		close(acc);
	if (c.out != job->syncobj)
		drmSyncobjDestroy(dev->fd, c.out);
	return ret ? tc_submit_error(job, ret) : TILECOPY_SUCCESS;
}

/* What the plan's typed descriptors need of the job. */
struct tc_plan_types {
	int typed;	/* a descriptor converts or writes typed values */
	int nibbles;	/* one writes 4-bit elements */
	int scales;	/* one reads the plan's scales */
};

/*
 * The plan's typed descriptors: the engine must convert, and each reads
 * its scales inside the plan's (the driver would refuse a footprint beyond
 * the BO; this names the plan's descriptor instead).
 */
static tilecopy_status_t tc_plan_types(const tilecopy_device_t *dev,
				       const struct tilecopy_plan *plan,
				       struct tc_plan_types *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < plan->n; i++) {
		const struct drm_tilecopy_desc *d = &plan->descs[i];
		__u64 bytes, end;

		t->typed |= d->dst_type != 0;
		t->nibbles |= tc_desc_type_bits(d->dst_type) == 4;
		if (!(d->cvt_flags & DRM_TILECOPY_CVT_SCALES))
			continue;
		t->scales = 1;
		if (tc_desc_scales_footprint(d, &bytes) ||
		    __builtin_add_overflow(d->scales, bytes, &end) ||
		    end > (uint64_t)plan->nscales * sizeof(float) || !plan->scales)
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "plan: descriptor %zu reads scales beyond the plan's %zu",
				       i, plan->nscales);
	}
	if (t->typed && !(dev->features & DRM_TILECOPY_FEATURE_CONVERT))
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "job: %s: the engine does not convert element types (no DRM_TILECOPY_FEATURE_CONVERT): run the plan on the CPU",
			       dev->info.path);
	return TILECOPY_SUCCESS;
}

/* The plan's scales in a BO the engine reads (a job's own, freed with it). */
static tilecopy_status_t tc_scales_bo(tilecopy_device_t *dev, const struct tilecopy_plan *plan,
				      tilecopy_bo_t **bo)
{
	size_t bytes = plan->nscales * sizeof(float);
	tilecopy_status_t st;
	void *map;

	st = tilecopy_bo_create(bo, dev, bytes, TILECOPY_BO_READ_ONLY);
	if (!st)
		st = tilecopy_bo_map(*bo, &map);
	if (st) {
		tilecopy_bo_free(*bo);
		*bo = NULL;
		return st;
	}
	memcpy(map, plan->scales, bytes);
	return TILECOPY_SUCCESS;
}

/*
 * How slice @part of @nparts of the plan is spread: the queues it goes to
 * (returned), and whether it is empty. Large unordered plans go to every
 * queue. A plan that writes 4-bit elements goes to one queue, all of it in
 * the first slice (the others empty): parts on different queues or engines
 * run at once, and two of them writing the two nibbles of one byte (each a
 * read-modify-write) could lose one. Within one queue, jobs run in order.
 */
static unsigned int tc_spread(const tilecopy_device_t *dev, const struct tilecopy_plan *plan,
			      const struct tc_plan_types *t, uint32_t flags,
			      unsigned int *part, unsigned int *nparts, int *empty)
{
	*empty = 0;
	if (t->nibbles) {
		*empty = *part != 0;
		*part = 0;
		*nparts = 1;
		return 1;
	}
	if (!plan->ordered && !(flags & TILECOPY_SUBMIT_ONE_QUEUE) &&
	    plan->moved_bytes / *nparts >= TC_SPLIT_MIN_BYTES)
		return dev->info.num_queues;
	return 1;
}

/* The options of the first version: later ones append fields. */
#define TC_OPTS_SIZE_V1 (offsetof(struct tilecopy_submit_opts, num_in_fences) + \
			 sizeof(uint32_t))

/*
 * The caller's options as far as both of us know them, the rest default;
 * fields of a newer caller that this library does not know must be zero.
 */
static tilecopy_status_t tc_opts_get(const struct tilecopy_submit_opts *in,
				     struct tilecopy_submit_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->size = sizeof(*o);
	if (!in)
		return TILECOPY_SUCCESS;
	if (in->size < TC_OPTS_SIZE_V1)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "opts: size %zu, smaller than the first version's %zu", in->size,
			       (size_t)TC_OPTS_SIZE_V1);
	for (size_t i = sizeof(*o); i < in->size; i++)
		if (((const unsigned char *)in)[i])
			return tc_fail(TILECOPY_ERR_INVALID_ARG,
				       "opts: byte %zu is set, beyond the fields this library knows", i);
	memcpy(o, in, in->size < sizeof(*o) ? in->size : sizeof(*o));
	if (o->flags & ~TILECOPY_SUBMIT_ONE_QUEUE)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "opts: unknown flags 0x%x",
			       o->flags & ~TILECOPY_SUBMIT_ONE_QUEUE);
	if ((o->num_in_syncobjs && !o->in_syncobjs) || (o->num_in_fences && !o->in_fences))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "opts: NULL fence array");
	if ((uint64_t)o->num_in_syncobjs + o->num_in_fences > TC_MAX_IN_FENCES)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "opts: %u syncobjs and %u fences, at most %d in all",
			       o->num_in_syncobjs, o->num_in_fences, TC_MAX_IN_FENCES);
	return TILECOPY_SUCCESS;
}

tilecopy_status_t tc_job_submit_slice_opts(tilecopy_job_t **out, tilecopy_device_t *dev,
					   const struct tilecopy_plan *plan,
					   tilecopy_bo_t *sbo, uint64_t src_va,
					   tilecopy_bo_t *dbo, uint64_t dst_va,
					   unsigned int part, unsigned int nparts,
					   const struct tilecopy_submit_opts *user_opts)
{
	struct tilecopy_submit_opts opts;
	struct tc_rebase va = { src_va, dst_va, 0 };
	struct tc_plan_types types;
	tilecopy_bo_t *scales = NULL;
	uint32_t bos[3], nbos = 1;
	struct tc_in_fences in;
	struct tc_dlist *lists;
	tilecopy_job_t *job;
	tilecopy_status_t st;
	unsigned int q;
	size_t nparts_hw;
	int empty;

	*out = NULL;
	st = tc_opts_get(user_opts, &opts) ?: tc_plan_types(dev, plan, &types);
	if (!st && types.scales)
		st = tc_scales_bo(dev, plan, &scales);
	if (st)
		return st;
	va.scales = scales ? scales->va : 0;
	q = tc_spread(dev, plan, &types, opts.flags, &part, &nparts, &empty);
	lists = calloc(q, sizeof(*lists));
	if (!lists || (!empty && tc_distribute(dev, lists, q, plan, &va, part, nparts))) {
		if (lists)
			tc_lists_free(lists, q);
		tilecopy_bo_free(scales);
		return tc_fail(TILECOPY_ERR_NOMEM, "job: out of memory");
	}
	nparts_hw = tc_count_parts(dev, lists, q, dev->info.max_descs);
	job = calloc(1, sizeof(*job) + nparts_hw * sizeof(job->part[0]));
	if (!job) {
		tc_lists_free(lists, q);
		tilecopy_bo_free(scales);
		return tc_fail(TILECOPY_ERR_NOMEM, "job: out of memory");
	}
	job->magic = TC_MAGIC_JOB;
	job->dev = dev;
	job->scales = scales;
	if (drmSyncobjCreate(dev->fd, 0, &job->syncobj)) {
		st = tc_fail(TILECOPY_ERR_DEVICE, "job: syncobj: %s", strerror(errno));
		tilecopy_bo_free(scales);
		free(job);
		tc_lists_free(lists, q);
		return st;
	}
	bos[0] = sbo->handle;
	if (dbo->handle != bos[0])
		bos[nbos++] = dbo->handle;
	if (scales)
		bos[nbos++] = scales->handle;
	st = tc_in_fences_get(dev, &opts, &in);
	if (!st)
		st = tc_submit_parts(job, lists, q, bos, nbos, &in, nparts_hw);
	tc_in_fences_put(dev, &in);
	tc_lists_free(lists, q);
	if (st) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", tilecopy_last_error());
		tilecopy_job_destroy(job);	/* waits for the parts already queued */
		return tc_fail(st, "%s", msg);
	}
	*out = job;
	return tc_ok();
}

tilecopy_status_t tc_job_submit_slice(tilecopy_job_t **out, tilecopy_device_t *dev,
				      const struct tilecopy_plan *plan,
				      tilecopy_bo_t *sbo, uint64_t src_va,
				      tilecopy_bo_t *dbo, uint64_t dst_va,
				      unsigned int part, unsigned int nparts,
				      uint32_t flags)
{
	struct tilecopy_submit_opts opts = { .size = sizeof(opts), .flags = flags };

	return tc_job_submit_slice_opts(out, dev, plan, sbo, src_va, dbo, dst_va, part,
					nparts, &opts);
}

TILECOPY_API tilecopy_status_t tilecopy_job_submit_opts(tilecopy_job_t **out,
							tilecopy_device_t *dev,
							const tilecopy_plan_t *plan,
							const struct tilecopy_buffer_ref *src,
							const struct tilecopy_buffer_ref *dst,
							const struct tilecopy_submit_opts *opts)
{
	tilecopy_status_t st;

	if (!out)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "job: NULL");
	*out = NULL;
	st = tc_handle_arg(dev, TC_MAGIC_DEVICE, "dev") ?: tc_plan_arg(plan);
	if (st)
		return st;
	st = tc_check_ref("src", src, plan->src_bytes, dev);
	if (!st)
		st = tc_check_ref("dst", dst, plan->dst_bytes, dev);
	if (!st && src->bo == dst->bo && plan->src_bytes && plan->dst_bytes &&
	    src->offset < dst->offset + plan->dst_bytes &&
	    dst->offset < src->offset + plan->src_bytes)
		st = tc_fail(TILECOPY_ERR_OVERLAP,
			     "dst: bytes %llu..%llu of the buffer object overlap the source's %llu..%llu; the engine reads and writes at once",
			     (unsigned long long)dst->offset,
			     (unsigned long long)(dst->offset + plan->dst_bytes),
			     (unsigned long long)src->offset,
			     (unsigned long long)(src->offset + plan->src_bytes));
	if (st)
		return st;
	return tc_job_submit_slice_opts(out, dev, plan, src->bo, src->bo->va + src->offset,
					dst->bo, dst->bo->va + dst->offset, 0, 1, opts);
}

TILECOPY_API tilecopy_status_t tilecopy_job_submit(tilecopy_job_t **out,
						   tilecopy_device_t *dev,
						   const tilecopy_plan_t *plan,
						   const struct tilecopy_buffer_ref *src,
						   const struct tilecopy_buffer_ref *dst,
						   uint32_t flags)
{
	struct tilecopy_submit_opts opts = { .size = sizeof(opts), .flags = flags };

	return tilecopy_job_submit_opts(out, dev, plan, src, dst, &opts);
}

static const char *tc_job_status_name(uint32_t s)
{
	static const char *const names[] = {
		[DRM_TILECOPY_STATUS_OK] = "ok",
		[DRM_TILECOPY_STATUS_FAULT_UNMAPPED] = "page fault (address not mapped)",
		[DRM_TILECOPY_STATUS_FAULT_PERM] = "page fault (permission)",
		[DRM_TILECOPY_STATUS_DMA_ERROR] = "DMA error",
		[DRM_TILECOPY_STATUS_BAD_DESC] = "malformed descriptor",
		[DRM_TILECOPY_STATUS_TIMEOUT] = "hang (engine reset)",
		[DRM_TILECOPY_STATUS_CANCELLED] = "cancelled",
		[DRM_TILECOPY_STATUS_NO_FIRMWARE] = "no firmware running",
		[DRM_TILECOPY_STATUS_PENDING] = "pending",
		[DRM_TILECOPY_STATUS_RESET] = "engine reset",
	};

	return s < TC_ARRAY_SIZE(names) && names[s] ? names[s] : "unknown status";
}

/* The final status of a part, as the SDK's status and message. */
static tilecopy_status_t tc_part_status(tilecopy_job_t *job, struct tc_job_part *p,
					const struct drm_tilecopy_wait *w)
{
	const char *path = job->dev->info.path;

	switch (w->status) {
	case DRM_TILECOPY_STATUS_OK:
		return TILECOPY_SUCCESS;
	case DRM_TILECOPY_STATUS_TIMEOUT:
		return tc_fail(TILECOPY_ERR_RESET,
			       "job: %s queue %u: the job hung the engine (it ran longer than the driver's job timeout) and the engine was reset; its destination is undefined, and its file counts one more hang",
			       path, p->queue);
	case DRM_TILECOPY_STATUS_RESET:
		return tc_fail(TILECOPY_ERR_RESET,
			       "job: %s queue %u: the engine was reset while the job ran (another job hung, or a forced reset); its destination is undefined: submit it again",
			       path, p->queue);
	case DRM_TILECOPY_STATUS_CANCELLED:
		return tc_fail(TILECOPY_ERR_DEVICE,
			       "job: %s queue %u: cancelled before it ran: the device was removed or wedged, or the file banned",
			       path, p->queue);
	case DRM_TILECOPY_STATUS_NO_FIRMWARE:
		return tc_fail(TILECOPY_ERR_DEVICE, "job: %s queue %u: no firmware running",
			       path, p->queue);
	default:
		return tc_fail(TILECOPY_ERR_FAULT,
			       "job: %s queue %u: %s in plan descriptor %u at device address 0x%llx",
			       path, p->queue, tc_job_status_name(w->status),
			       p->plan_index && w->err_desc < p->ndescs ?
			       p->plan_index[w->err_desc] : w->err_desc,
			       (unsigned long long)w->err_addr);
	}
}

static tilecopy_status_t tc_wait_part(tilecopy_job_t *job, struct tc_job_part *p,
				      int64_t deadline)
{
	struct drm_tilecopy_wait w = { .job_id = p->id, .timeout_ns = deadline };
	int ret = tc_drm_ioctl(job->dev->fd, DRM_IOCTL_TILECOPY_WAIT, &w);

	if (ret == -ETIMEDOUT)
		return tc_fail(TILECOPY_ERR_TIMEOUT,
			       "job: %s queue %u: not finished by the deadline; wait again",
			       job->dev->info.path, p->queue);
	p->done = 1;	/* reaped, or beyond reach: never waited on again */
	if (ret == -ENODEV)
		return tc_fail(TILECOPY_ERR_NO_DEVICE, "job: %s: the device was removed",
			       job->dev->info.path);
	if (ret)
		return tc_fail(TILECOPY_ERR_DEVICE, "job: %s: WAIT: %s",
			       job->dev->info.path, strerror(-ret));
	return tc_part_status(job, p, &w);
}

TILECOPY_API tilecopy_status_t tilecopy_job_wait(tilecopy_job_t *job,
						 int64_t timeout_ns)
{
	int64_t deadline = timeout_ns < 0 ? INT64_MAX : tc_now_ns() + timeout_ns;

	if (tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return TILECOPY_ERR_INVALID_ARG;
	/*
	 * Wait for every part, so no part is left running, and keep the first
	 * failure: the job's status from then on.
	 */
	for (int i = 0; i < job->nparts; i++) {
		tilecopy_status_t st;

		if (job->part[i].done)
			continue;
		st = tc_wait_part(job, &job->part[i], deadline);
		if (st == TILECOPY_ERR_TIMEOUT)
			return st;	/* not final: the next wait goes on */
		if (st && !job->failure) {
			job->failure = st;
			snprintf(job->failure_msg, sizeof(job->failure_msg), "%s",
				 tilecopy_last_error());
		}
	}
	if (job->failure)
		return tc_fail(job->failure, "%s", job->failure_msg);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_job_syncobj(const tilecopy_job_t *job,
						    uint32_t *syncobj)
{
	if (tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return TILECOPY_ERR_INVALID_ARG;
	if (!syncobj)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "syncobj: NULL");
	*syncobj = job->syncobj;
	return tc_ok();
}

TILECOPY_API void tilecopy_job_destroy(tilecopy_job_t *job)
{
	if (!job || tc_handle_arg(job, TC_MAGIC_JOB, "job"))
		return;
	job->magic = 0;
	for (int i = 0; i < job->nparts; i++) {
		if (!job->part[i].done)
			tc_wait_part(job, &job->part[i], INT64_MAX);
		free(job->part[i].plan_index);
	}
	if (job->syncobj)
		drmSyncobjDestroy(job->dev->fd, job->syncobj);
	tilecopy_bo_free(job->scales);	/* the engine is done with them */
	free(job);
}
