// SPDX-License-Identifier: GPL-2.0-only
/*
 * SUBMIT: a job's descriptors are copied into kernel memory the submitter
 * cannot change, every field is checked, and the copy is mapped read-only
 * into the job's address space, where the engine fetches it.
 *
 * The descriptor rules live here, in libuser/cpu/desc_check.c and in the
 * engine (qemu/tilecopy.c); tests/desc_cases.h is the table of cases the
 * three answer alike (this file's runner: tests/guest/test_ioctl.c). The
 * order of the checks is the same: fields, footprints, work.
 *
 * Copyright (c) 2026 The tilecopy authors
 */

#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

#include "tilecopy_accel.h"
#include "tilecopy_drv.h"
#include "tilecopy_gem.h"
#include "tilecopy_job.h"
#include "tilecopy_mmu.h"

/* ---- descriptors -------------------------------------------------------- */

/* Bits of an element of &enum drm_tilecopy_type @type; 0: none, unknown. */
static unsigned int tc_type_bits(unsigned int type)
{
	static const u8 bits[] = {
		[DRM_TILECOPY_TYPE_F32] = 32, [DRM_TILECOPY_TYPE_F16] = 16,
		[DRM_TILECOPY_TYPE_BF16] = 16, [DRM_TILECOPY_TYPE_I8] = 8,
		[DRM_TILECOPY_TYPE_U8] = 8, [DRM_TILECOPY_TYPE_I32] = 32,
		[DRM_TILECOPY_TYPE_I4] = 4, [DRM_TILECOPY_TYPE_U4] = 4,
	};

	return type < ARRAY_SIZE(bits) ? bits[type] : 0;
}

/* Bits of an element of one side: its type's, or elem_size bytes. */
static unsigned int tc_desc_bits(const struct drm_tilecopy_desc *d, bool src)
{
	unsigned int type = src ? d->src_type : d->dst_type;

	return type ? tc_type_bits(type) : 8 * d->elem_size;
}

/* The last element's index: sum((extent[k] - 1) * stride[k]). */
static bool tc_desc_last(const struct drm_tilecopy_desc *d, const u64 *stride,
			 u64 *last)
{
	u64 t;
	unsigned int k;

	*last = 0;
	for (k = 0; k < d->ndims; k++) {
		if (check_mul_overflow((u64)d->extent[k] - 1, stride[k], &t) ||
		    check_add_overflow(*last, t, last))
			return false;
	}
	return true;
}

/*
 * Bytes from the first to one past the last element of the source (@src)
 * or destination: (1 + last) elements, or for a 4-bit side the bytes of
 * nibbles nibble .. nibble + last, ceil((nibble + last + 1) / 2).
 */
static bool tc_desc_span(const struct drm_tilecopy_desc *d, bool src, u64 *span)
{
	unsigned int bits = tc_desc_bits(d, src);
	u64 last;

	if (!tc_desc_last(d, src ? d->src_stride : d->dst_stride, &last))
		return false;
	if (bits == 4) {
		if (check_add_overflow(last, (u64)(src ? d->src_nibble : d->dst_nibble),
				       &last))
			return false;
		*span = last / 2 + 1;
		return true;
	}
	return !check_add_overflow(last, 1ull, &last) &&
	       !check_mul_overflow(last, (u64)(bits / 8), span);
}

/* Bytes of binary32 scales a DRM_TILECOPY_CVT_SCALES descriptor reads. */
static bool tc_desc_scales_span(const struct drm_tilecopy_desc *d, u64 *span)
{
	u64 stride[DRM_TILECOPY_MAX_DIMS], last;
	unsigned int k;

	for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++)
		stride[k] = d->scale_stride[k];
	return tc_desc_last(d, stride, &last) &&
	       !check_add_overflow(last, 1ull, &last) &&
	       !check_mul_overflow(last, 4ull, span);
}

/* Is [addr, addr + span) inside one mapping (a writable one if @write)? */
static bool tc_desc_in_bos(struct tc_job *job, u64 addr, u64 span, bool write)
{
	u32 i;

	for (i = 0; i < job->map_count; i++) {
		const struct tc_bo_map *m = job->maps[i];
		u64 start = m->va;

		if (addr >= start && addr - start <= m->size &&
		    span <= m->size - (addr - start) && (!write || m->writable)) {
			if (write)
				job->written |= BIT_ULL(i);
			return true;
		}
	}
	return false;
}

static int tc_desc_check_dims(struct drm_device *dev,
			      const struct drm_tilecopy_desc *d, u32 i)
{
	unsigned int k;

	for (k = 0; k < DRM_TILECOPY_MAX_DIMS; k++) {
		bool used = k < d->ndims;

		if (used ? !d->extent[k] :
		    d->extent[k] || d->src_stride[k] || d->dst_stride[k] ||
		    d->scale_stride[k]) {
			drm_dbg(dev, "desc %u: bad extent/strides of dim %u\n", i, k);
			return -EINVAL;
		}
		if (d->op != DRM_TILECOPY_OP_COPY && d->src_stride[k]) {
			drm_dbg(dev, "desc %u: source stride without a source\n", i);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Element types (ABI 1.2): known ones; a COPY has both or neither, a FILL
 * no source type, a WRITE64 none (it writes 64 raw bits).
 */
static const char *tc_desc_types_why(const struct drm_tilecopy_desc *d)
{
	bool copy = d->op == DRM_TILECOPY_OP_COPY;

	if (d->src_type > DRM_TILECOPY_TYPE_U4 || d->dst_type > DRM_TILECOPY_TYPE_U4)
		return "unknown element type";
	if (copy ? !d->src_type != !d->dst_type : d->src_type)
		return "src_type and dst_type not both set, or a src_type without a source";
	if (d->op == DRM_TILECOPY_OP_WRITE64 && d->dst_type)
		return "a typed WRITE64";
	return NULL;
}

/*
 * The other typed fields: each zero unless the descriptor uses it. A
 * binary32 scale is finite when its exponent is not all ones.
 */
static const char *tc_desc_cvt_why(const struct drm_tilecopy_desc *d)
{
	const u32 known = DRM_TILECOPY_CVT_SCALE | DRM_TILECOPY_CVT_SCALES;
	bool converts = d->op == DRM_TILECOPY_OP_COPY && d->src_type;

	if (d->src_nibble > 1 || (d->src_nibble && tc_type_bits(d->src_type) != 4))
		return "src_nibble not 0 or 1, or not on a 4-bit source";
	if (d->dst_nibble > 1 || (d->dst_nibble && tc_type_bits(d->dst_type) != 4))
		return "dst_nibble not 0 or 1, or not on a 4-bit destination";
	if ((d->cvt_flags & ~known) || d->cvt_flags == known ||
	    (d->cvt_flags && !converts))
		return "cvt_flags unknown, both scales, or not on a typed COPY";
	if ((d->src_zp || d->dst_zp) && !converts)
		return "a zero point not on a typed COPY";
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE ?
	    (d->scale & 0x7f800000u) == 0x7f800000u : d->scale)
		return "scale not finite, or without CVT_SCALE";
	if (d->pad)
		return "pad not zero";
	if (!(d->cvt_flags & DRM_TILECOPY_CVT_SCALES) &&
	    (d->scales || memchr_inv(d->scale_stride, 0, sizeof(d->scale_stride))))
		return "scales or scale_stride without CVT_SCALES";
	return NULL;
}

static int tc_desc_check_fields(struct drm_device *dev,
				const struct drm_tilecopy_desc *d, u32 i)
{
	const char *why;

	if (d->op < DRM_TILECOPY_OP_COPY || d->op > DRM_TILECOPY_OP_WRITE64) {
		drm_dbg(dev, "desc %u: unknown op %u\n", i, d->op);
		return -EINVAL;
	}
	why = tc_desc_types_why(d);
	if (why) {
		drm_dbg(dev, "desc %u: %s (%u, %u)\n", i, why, d->src_type, d->dst_type);
		return -EINVAL;
	}
	/* typed: each side's size is its type's, so elem_size must be 0 */
	if (d->dst_type ? d->elem_size : !is_power_of_2(d->elem_size) || d->elem_size > 8) {
		drm_dbg(dev, "desc %u: bad element size %u%s\n", i, d->elem_size,
			d->dst_type ? " (typed: 0)" : "");
		return -EINVAL;
	}
	if (d->ndims < 1 || d->ndims > DRM_TILECOPY_MAX_DIMS) {
		drm_dbg(dev, "desc %u: bad ndims %u\n", i, d->ndims);
		return -EINVAL;
	}
	if (d->flags) {
		drm_dbg(dev, "desc %u: flags 0x%x must be zero\n", i, d->flags);
		return -EINVAL;
	}
	if (tc_desc_check_dims(dev, d, i))
		return -EINVAL;
	if (d->op == DRM_TILECOPY_OP_COPY ? d->value != 0 : d->src != 0) {
		drm_dbg(dev, "desc %u: %s must be zero for op %u\n", i,
			d->op == DRM_TILECOPY_OP_COPY ? "value" : "src", d->op);
		return -EINVAL;
	}
	/* The pattern is one element: no bit may lie beyond it. */
	if (d->op == DRM_TILECOPY_OP_FILL && tc_desc_bits(d, false) < 64 &&
	    d->value >> tc_desc_bits(d, false)) {
		drm_dbg(dev, "desc %u: FILL value 0x%llx wider than %u bits\n", i,
			d->value, tc_desc_bits(d, false));
		return -EINVAL;
	}
	if (d->op == DRM_TILECOPY_OP_WRITE64 &&
	    (d->elem_size != 8 || d->ndims != 1 || d->extent[0] != 1)) {
		drm_dbg(dev, "desc %u: WRITE64 needs elem_size 8, one element\n", i);
		return -EINVAL;
	}
	why = tc_desc_cvt_why(d);
	if (why) {
		drm_dbg(dev, "desc %u: %s\n", i, why);
		return -EINVAL;
	}
	return 0;
}

/* Elements @d writes: a stride-0 dimension writes as often. Saturates. */
static u64 tc_desc_elems(const struct drm_tilecopy_desc *d)
{
	u64 elems = 1;
	unsigned int k;

	for (k = 0; k < d->ndims; k++) {
		if (check_mul_overflow(elems, (u64)d->extent[k], &elems))
			return U64_MAX;
	}
	return elems;
}

/*
 * The engine honours STOP between rows and tiles, not inside a row
 * (docs/hardware.md): a row must end well within the time a reset waits
 * for the engine to stop (TC_RESET_TIMEOUT_US), or one job wedges the
 * device for everyone. A row is the run of dimension 0 after the engine
 * drops extent-1 dimensions and merges those that continue it (stride
 * times extent equal the next stride, on both sides): a stride-0 FILL of
 * [2^20, 4096] is one row of 2^32 writes. A transposing COPY (stride 1 on
 * each side, in different dimensions) goes through the tile buffer tile by
 * tile and has no row of its own. A typed descriptor's dimensions merge
 * only when the scales continue too, and its row is bounded in elements
 * whatever its strides: it is converted element by element.
 */
static bool tc_desc_row_ok(const struct drm_tilecopy_desc *d)
{
	bool copy = d->op == DRM_TILECOPY_OP_COPY;
	u64 e[DRM_TILECOPY_MAX_DIMS], ss[DRM_TILECOPY_MAX_DIMS];
	u64 ds[DRM_TILECOPY_MAX_DIMS], cs[DRM_TILECOPY_MAX_DIMS], bytes;
	unsigned int k, n = 0, p = UINT_MAX, q = UINT_MAX;

	for (k = 0; k < d->ndims; k++) {
		u64 sk = copy ? d->src_stride[k] : 0;

		if (d->extent[k] == 1)
			continue;
		/* wrapping products, as the engine computes them */
		if (n && ds[n - 1] * e[n - 1] == d->dst_stride[k] &&
		    ss[n - 1] * e[n - 1] == sk &&
		    cs[n - 1] * e[n - 1] == d->scale_stride[k]) {
			if (check_mul_overflow(e[n - 1], (u64)d->extent[k], &e[n - 1]))
				return false;
			continue;
		}
		e[n] = d->extent[k];
		ss[n] = sk;
		ds[n] = d->dst_stride[k];
		cs[n] = d->scale_stride[k];
		n++;
	}
	if (!n)
		return true;
	if (d->dst_type)
		return e[0] <= DRM_TILECOPY_MAX_ROW_ELEMS;
	for (k = 0; k < n && copy; k++) {
		if (ss[k] == 1 && e[k] > 1 && p == UINT_MAX)
			p = k;
		if (ds[k] == 1 && e[k] > 1 && q == UINT_MAX)
			q = k;
	}
	if (p != UINT_MAX && q != UINT_MAX && p != q)
		return true;
	/* contiguous on each side: copied run by run, at memory speed */
	if (ds[0] == 1 && (!copy || ss[0] == 1))
		return !check_mul_overflow(e[0], (u64)d->elem_size, &bytes) &&
		       bytes <= DRM_TILECOPY_MAX_ROW_BYTES;
	return e[0] <= DRM_TILECOPY_MAX_ROW_ELEMS;
}

/* Check one descriptor; add what it writes to the job's totals. */
static int tc_desc_check(struct drm_device *dev, struct tc_job *job, u32 i)
{
	const struct drm_tilecopy_desc *d = &job->descs->cpu[i];
	u64 max = job->tdev->max_job_elems, span, elems, bits;
	int ret;

	/* the typed fields of ABI 1.2, for an engine that has them */
	if (!job->descs->wide &&
	    memchr_inv((const u8 *)d + DRM_TILECOPY_DESC_SIZE_1_0, 0,
		       sizeof(*d) - DRM_TILECOPY_DESC_SIZE_1_0)) {
		drm_dbg(dev, "desc %u: typed, but the engine does not convert\n", i);
		return -EOPNOTSUPP;
	}
	ret = tc_desc_check_fields(dev, d, i);
	if (ret)
		return ret;
	/* known types (checked above) this engine does not convert */
	if ((d->dst_type && !(job->tdev->cvt_types & BIT(d->dst_type))) ||
	    (d->src_type && !(job->tdev->cvt_types & BIT(d->src_type)))) {
		drm_dbg(dev, "desc %u: the engine does not convert type %u or %u\n", i,
			d->src_type, d->dst_type);
		return -EOPNOTSUPP;
	}
	if (!tc_desc_span(d, false, &span) ||
	    !tc_desc_in_bos(job, d->dst, span, true)) {
		drm_dbg(dev, "desc %u: destination 0x%llx is not inside one writable BO of the job\n",
			i, d->dst);
		return -EINVAL;
	}
	if (d->op == DRM_TILECOPY_OP_COPY &&
	    (!tc_desc_span(d, true, &span) ||
	     !tc_desc_in_bos(job, d->src, span, false))) {
		drm_dbg(dev, "desc %u: source 0x%llx is not inside one BO of the job\n",
			i, d->src);
		return -EINVAL;
	}
	/* the scales are read like a source */
	if ((d->cvt_flags & DRM_TILECOPY_CVT_SCALES) &&
	    (!tc_desc_scales_span(d, &span) ||
	     !tc_desc_in_bos(job, d->scales, span, false))) {
		drm_dbg(dev, "desc %u: scales 0x%llx are not inside one BO of the job\n",
			i, d->scales);
		return -EINVAL;
	}
	/*
	 * The work bound: a job that cannot finish in reasonable time (one
	 * byte written 2^64 times) is refused rather than timed out.
	 */
	elems = tc_desc_elems(d);
	if (elems > max || job->elems > max - elems) {
		drm_dbg(dev, "desc %u: the job writes more than %llu elements\n", i, max);
		return -E2BIG;
	}
	if (!tc_desc_row_ok(d)) {
		drm_dbg(dev, "desc %u: a row longer than %llu elements (%llu contiguous bytes)\n",
			i, DRM_TILECOPY_MAX_ROW_ELEMS, DRM_TILECOPY_MAX_ROW_BYTES);
		return -E2BIG;
	}
	job->elems += elems;
	/* Only a counter: saturate rather than refuse. */
	if (check_mul_overflow(elems, (u64)tc_desc_bits(d, false), &bits) ||
	    check_add_overflow(job->bytes, DIV_ROUND_UP_ULL(bits, 8), &job->bytes))
		job->bytes = U64_MAX;
	return 0;
}

/* Map descriptors read-only into @ctx, where the engine fetches them. */
static int tc_job_descs_map(struct tc_device *tdev, struct tc_mmu_ctx *ctx,
			    struct tc_job_descs *d)
{
	size_t i, npages = d->bytes >> PAGE_SHIFT;
	struct page **pages;
	int ret, idx;

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < npages; i++)
		pages[i] = vmalloc_to_page((u8 *)d->cpu + i * PAGE_SIZE);
	ret = sg_alloc_table_from_pages(&d->sgt, pages, npages, 0, d->bytes,
					GFP_KERNEL);
	kvfree(pages);
	if (ret)
		return ret;
	/* listed before the removal's drm_dev_unplug() returns, or not mapped */
	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	ret = dma_map_sgtable(tdev->base.dev, &d->sgt, DMA_TO_DEVICE, 0);
	if (!ret) {
		mutex_lock(&tdev->dma_lock);
		list_add_tail(&d->link, &tdev->dma_jobs);
		d->dma_mapped = true;
		mutex_unlock(&tdev->dma_lock);
	}
	drm_dev_exit(idx);
	if (ret)
		return ret;
	ret = tc_mmu_map(ctx, &d->node, &d->sgt, d->bytes, false);
	if (ret)
		return ret;
	d->va_mapped = true;
	return 0;
}

/* Charged to the submitter; pages, not contiguous memory. */
static struct tc_job_descs *tc_job_descs_alloc(size_t bytes)
{
	struct tc_job_descs *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);

	if (!d)
		return NULL;
	d->bytes = bytes;
	d->cpu = __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_ZERO);
	if (!d->cpu) {
		kfree(d);
		return NULL;
	}
	return d;
}

/*
 * A free slot of @ctx's descriptor pool, a new one while the pool is below
 * TC_DESC_POOL_SLOTS, or NULL when every slot is in use (the job then gets
 * descriptors of its own).
 */
static struct tc_job_descs *tc_desc_pool_get(struct tc_device *tdev,
					     struct tc_mmu_ctx *ctx)
{
	struct tc_job_descs *d;
	bool grow = false;
	int ret;

	spin_lock(&ctx->pool_lock);
	d = list_first_entry_or_null(&ctx->pool_free, struct tc_job_descs,
				     pool_link);
	if (d) {
		list_del(&d->pool_link);
	} else if (ctx->pool_slots < TC_DESC_POOL_SLOTS) {
		ctx->pool_slots++;
		grow = true;
	}
	spin_unlock(&ctx->pool_lock);
	if (!grow)
		return d;

	d = tc_job_descs_alloc(PAGE_SIZE);
	ret = d ? tc_job_descs_map(tdev, ctx, d) : -ENOMEM;
	if (ret) {
		if (d)
			tc_job_descs_free(tdev, ctx, d);
		spin_lock(&ctx->pool_lock);
		ctx->pool_slots--;
		spin_unlock(&ctx->pool_lock);
		return ERR_PTR(ret);
	}
	d->pooled = true;
	return d;
}

/* The job's descriptor memory: a pool slot if it fits one, else its own. */
static int tc_job_descs_get(struct tc_job *job, const struct drm_tilecopy_submit *args)
{
	struct tc_job_descs *d = NULL;

	if (job->desc_bytes <= PAGE_SIZE) {
		d = tc_desc_pool_get(job->tdev, job->ctx);
		if (IS_ERR(d))
			return PTR_ERR(d);
	}
	if (!d) {
		d = tc_job_descs_alloc(job->desc_bytes);
		if (!d)
			return -ENOMEM;
	}
	job->descs = d;
	d->wide = job->tdev->caps & TC_CAP_CONVERT;
	/* a slot holds the bytes of its last job: fields not copied are zero */
	if (d->pooled && args->desc_size < sizeof(struct drm_tilecopy_desc))
		memset(d->cpu, 0, args->desc_count * sizeof(struct drm_tilecopy_desc));
	return 0;
}

/*
 * Copy the descriptors into kernel memory, each @desc_size bytes apart in
 * the user's array. A caller's smaller struct (192 bytes, before ABI 1.2)
 * has its missing fields taken as zero; bytes beyond the struct this
 * driver knows must be zero (the uAPI may grow: a zero field means "not
 * used").
 */
static int tc_job_descs_copy(struct drm_device *dev, struct tc_job *job,
			     const struct drm_tilecopy_submit *args)
{
	const size_t known = sizeof(struct drm_tilecopy_desc);
	const size_t len = min_t(size_t, args->desc_size, known);
	const u8 __user *src = u64_to_user_ptr(args->descs);
	struct tc_job_descs *d;
	u32 i;
	int ret;

	ret = tc_job_descs_get(job, args);
	if (ret)
		return ret;
	d = job->descs;
	job->desc_count = args->desc_count;
	if (args->desc_size == known)
		return copy_from_user(d->cpu, src, known * job->desc_count) ?
		       -EFAULT : 0;
	for (i = 0; i < job->desc_count; i++, src += args->desc_size) {
		if (copy_from_user(&d->cpu[i], src, len))
			return -EFAULT;
		if (args->desc_size <= known)
			continue;
		ret = check_zeroed_user(src + known, args->desc_size - known);
		if (ret <= 0) {
			if (!ret)
				drm_dbg(dev, "desc %u: bytes beyond %zu are not zero\n",
					i, known);
			return ret ? ret : -EINVAL;
		}
	}
	return 0;
}

/*
 * A pool slot is mapped already: its new contents only need to reach the
 * device (a no-op on a coherent bus), inside drm_dev_enter(): the removal
 * unmaps the slot only after drm_dev_unplug().
 */
static int tc_job_descs_sync(struct tc_device *tdev, struct tc_job_descs *d)
{
	int idx;

	if (!drm_dev_enter(&tdev->base, &idx))
		return -ENODEV;
	dma_sync_sgtable_for_device(tdev->base.dev, &d->sgt, DMA_TO_DEVICE);
	drm_dev_exit(idx);
	return 0;
}

/*
 * An engine without TC_CAP_CONVERT (version 1.1) reads 192-byte
 * descriptors 192 apart: pack the checked copy so (its typed fields are
 * all zero, tc_desc_check() saw to that).
 */
static void tc_job_descs_pack(struct tc_job *job)
{
	u8 *p = (u8 *)job->descs->cpu;
	u32 i;

	for (i = 1; i < job->desc_count; i++)
		memmove(p + i * DRM_TILECOPY_DESC_SIZE_1_0,
			p + i * sizeof(struct drm_tilecopy_desc),
			DRM_TILECOPY_DESC_SIZE_1_0);
}

static int tc_submit_descs(struct drm_device *dev, struct tc_job *job,
			   const struct drm_tilecopy_submit *args)
{
	u32 i;
	int ret;

	ret = tc_job_descs_copy(dev, job, args);
	for (i = 0; !ret && i < job->desc_count; i++)
		ret = tc_desc_check(dev, job, i);
	if (ret)
		return ret;
	if (!job->descs->wide)
		tc_job_descs_pack(job);
	if (job->descs->pooled)
		return tc_job_descs_sync(job->tdev, job->descs);
	return tc_job_descs_map(job->tdev, job->ctx, job->descs);
}

/* ---- SUBMIT ------------------------------------------------------------- */

static int tc_submit_check(struct drm_device *dev, struct tc_device *tdev,
			   const struct drm_tilecopy_submit *args)
{
	if (args->flags || args->pad) {
		drm_dbg(dev, "SUBMIT flags 0x%x and pad must be zero\n", args->flags);
		return -EINVAL;
	}
	if (args->desc_size < DRM_TILECOPY_DESC_SIZE_1_0 ||
	    args->desc_size > TC_MAX_DESC_SIZE) {
		drm_dbg(dev, "SUBMIT desc_size %u, expected %u..%u\n", args->desc_size,
			DRM_TILECOPY_DESC_SIZE_1_0, TC_MAX_DESC_SIZE);
		return -EINVAL;
	}
	if (!args->desc_count || args->desc_count > TC_MAX_DESCS ||
	    !args->bo_count || args->bo_count > TC_MAX_BOS ||
	    args->in_syncobj_count > TC_MAX_IN_SYNCOBJS) {
		drm_dbg(dev, "SUBMIT counts out of range: %u descs, %u BOs, %u syncobjs\n",
			args->desc_count, args->bo_count, args->in_syncobj_count);
		return -EINVAL;
	}
	if (args->queue >= tdev->num_queues) {
		drm_dbg(dev, "SUBMIT queue %u, device has %u\n", args->queue,
			tdev->num_queues);
		return -EINVAL;
	}
	return 0;
}

/*
 * The file's limits: jobs not yet finished and their descriptor memory.
 * -EBUSY rather than sleeping: the caller knows which of its jobs to wait
 * for, and a blocked SUBMIT would hold every other thread of the file.
 */
static int tc_submit_charge(struct drm_device *dev, struct tc_job *job, u32 count)
{
	struct tc_mmu_ctx *ctx = job->ctx;
	u64 bytes = PAGE_ALIGN((u64)count * sizeof(struct drm_tilecopy_desc));

	if (atomic_inc_return(&ctx->jobs) > TC_FILE_MAX_JOBS) {
		atomic_dec(&ctx->jobs);
		drm_dbg(dev, "SUBMIT: %u jobs of this file not finished\n", TC_FILE_MAX_JOBS);
		return -EBUSY;
	}
	if (atomic64_add_return(bytes, &ctx->desc_bytes) > TC_FILE_MAX_DESC_BYTES) {
		atomic64_sub(bytes, &ctx->desc_bytes);
		atomic_dec(&ctx->jobs);
		drm_dbg(dev, "SUBMIT: descriptors of this file's jobs exceed %llu bytes\n",
			TC_FILE_MAX_DESC_BYTES);
		return -EBUSY;
	}
	job->desc_bytes = bytes;
	job->charged = true;
	job->counted = true;
	return 0;
}

/* Look every handle up once, with the BO's mapping in the file's space. */
static int tc_submit_bos(struct drm_device *dev, struct drm_file *file,
			 struct tc_job *job, const struct drm_tilecopy_submit *args)
{
	u32 *handles;
	u32 i;
	int ret = 0;

	handles = kvmalloc_array(args->bo_count, sizeof(*handles), GFP_KERNEL);
	job->maps = kvcalloc(args->bo_count, sizeof(*job->maps), GFP_KERNEL_ACCOUNT);
	if (!handles || !job->maps) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(handles, u64_to_user_ptr(args->bo_handles),
			   args->bo_count * sizeof(*handles))) {
		ret = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < args->bo_count; i++) {
		job->maps[i] = tc_bo_map_lookup(file, handles[i]);
		if (!job->maps[i]) {
			drm_dbg(dev, "SUBMIT: no BO handle %u\n", handles[i]);
			ret = -ENOENT;
			break;
		}
		job->map_count = i + 1;
	}
out_free:
	kvfree(handles);
	return ret;
}

static int tc_submit_deps(struct drm_file *file, struct tc_job *job,
			  const struct drm_tilecopy_submit *args)
{
	u32 __user *handles = u64_to_user_ptr(args->in_syncobjs);
	struct dma_fence *fence;
	u32 i, handle;
	int ret;

	if (!args->in_syncobj_count)
		return 0;
	job->in_fences = kcalloc(args->in_syncobj_count, sizeof(*job->in_fences),
				 GFP_KERNEL_ACCOUNT);
	if (!job->in_fences)
		return -ENOMEM;
	for (i = 0; i < args->in_syncobj_count; i++) {
		if (get_user(handle, handles + i))
			return -EFAULT;
		ret = drm_syncobj_find_fence(file, handle, 0, 0, &fence);
		if (ret) {
			drm_dbg(file->minor->dev, "SUBMIT: bad in-syncobj %u: %d\n",
				handle, ret);
			return ret;
		}
		/* one reference kept to read its error in run_job */
		job->in_fences[job->in_count++] = dma_fence_get(fence);
		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * struct tc_resv - the job's BOs, locked for implicit synchronisation.
 * @objs: each BO once.
 * @count: entries of @objs.
 * @write_mask: bit j set if the job writes @objs[j].
 * @ticket: ww acquire context of the reservation locks.
 */
struct tc_resv {
	struct drm_gem_object **objs;
	u32 count;
	u64 write_mask;
	struct ww_acquire_ctx ticket;
};

/*
 * Implicit synchronisation, as rocket does: the job waits for the fences
 * already on its BOs (earlier jobs, or another device sharing a BO through
 * PRIME), and publishes its own fence there (tc_resv_publish()). The
 * reservations stay locked from here until the fence is published.
 */
static int tc_resv_lock(struct tc_job *job, struct tc_resv *r)
{
	u32 i, j;
	int ret;

	r->objs = kmalloc_array(job->map_count, sizeof(*r->objs), GFP_KERNEL);
	if (!r->objs)
		return -ENOMEM;
	r->count = 0;
	r->write_mask = 0;
	for (i = 0; i < job->map_count; i++) {
		struct drm_gem_object *obj = &job->maps[i]->bo->base.base;

		for (j = 0; j < r->count && r->objs[j] != obj; j++)
			;
		if (j == r->count)
			r->objs[r->count++] = obj;	/* a BO may be listed twice */
		if (job->written & BIT_ULL(i))
			r->write_mask |= BIT_ULL(j);
	}

	ret = drm_gem_lock_reservations(r->objs, r->count, &r->ticket);
	if (ret)
		goto err_free;
	for (j = 0; j < r->count; j++) {
		ret = dma_resv_reserve_fences(r->objs[j]->resv, 1);
		if (!ret)
			ret = drm_sched_job_add_implicit_dependencies(&job->base, r->objs[j],
								      r->write_mask & BIT_ULL(j));
		if (ret)
			goto err_unlock;
	}
	return 0;

err_unlock:
	drm_gem_unlock_reservations(r->objs, r->count, &r->ticket);
err_free:
	kfree(r->objs);
	return ret;
}

static void tc_resv_unlock(struct tc_resv *r)
{
	drm_gem_unlock_reservations(r->objs, r->count, &r->ticket);
	kfree(r->objs);
}

static void tc_resv_publish(struct tc_resv *r, struct dma_fence *fence)
{
	u32 j;

	for (j = 0; j < r->count; j++)
		dma_resv_add_fence(r->objs[j]->resv, fence,
				   r->write_mask & BIT_ULL(j) ?
				   DMA_RESV_USAGE_WRITE : DMA_RESV_USAGE_READ);
}

static void tc_submit_push(struct tc_file *tfile, struct tc_job *job, u32 id,
			   struct drm_syncobj *out, struct tc_resv *resv)
{
	struct dma_fence *finished;

	mutex_lock(&tfile->submit_lock);
	drm_sched_job_arm(&job->base);
	finished = &job->base.s_fence->finished;
	tc_resv_publish(resv, finished);
	job->result->done = dma_fence_get(finished);	/* not yet visible */
	kref_get(&job->result->ref);
	/*
	 * Replaces the entry xa_alloc_cyclic() reserved (NULL): storing into
	 * a reserved entry never allocates, so it cannot fail, and nothing
	 * may fail here anyway: the job is armed.
	 */
	xa_store(&tfile->jobs, id, job->result, GFP_NOWAIT);
	if (out)
		drm_syncobj_replace_fence(out, finished);
	drm_sched_entity_push_job(&job->base);
	mutex_unlock(&tfile->submit_lock);
}

/**
 * tc_ioctl_submit() - DRM_IOCTL_TILECOPY_SUBMIT
 * @dev: DRM device
 * @data: struct drm_tilecopy_submit
 * @file: caller
 *
 * Return: 0, -EINVAL for a bad argument or descriptor, -ENOENT for a bad
 * handle, -EFAULT, -E2BIG (the work bound), -EOPNOTSUPP (a typed
 * descriptor for an engine that does not convert it), -EBUSY (the file's
 * limits), -ECANCELED (the file is banned), -EIO (the device is wedged),
 * -ENOMEM.
 */
int tc_ioctl_submit(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_tilecopy_submit *args = data;
	struct tc_device *tdev = to_tc_device(dev);
	struct tc_file *tfile = to_tc_file(file);
	struct drm_syncobj *out = NULL;
	struct tc_resv resv;
	struct tc_job *job;
	u32 id;
	int ret;

	if (READ_ONCE(tdev->wedged))
		return -EIO;
	ret = tc_submit_check(dev, tdev, args);
	if (ret)
		return ret;
	if (tc_mmu_ctx_banned(tfile->ctx)) {
		drm_dbg(dev, "SUBMIT: the file hung the engine %u times: banned\n",
			TC_BAN_HANGS);
		return -ECANCELED;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	atomic_inc(&tdev->jobs_alive);
	job->tdev = tdev;
	job->queue = &tdev->queues[args->queue];
	job->ctx = tc_mmu_ctx_get(tfile->ctx);
	INIT_LIST_HEAD(&job->link);
	job->result = kzalloc(sizeof(*job->result), GFP_KERNEL_ACCOUNT);
	if (!job->result) {
		ret = -ENOMEM;
		goto err_free_job;
	}
	/* tc_job_free() puts the result: its reference must exist first. */
	kref_init(&job->result->ref);
	spin_lock_init(&job->result->lock);
	job->result->status = DRM_TILECOPY_STATUS_CANCELLED;
	job->result->err_desc = DRM_TILECOPY_ERR_DESC_NONE;
	job->fence = kzalloc(sizeof(*job->fence), GFP_KERNEL_ACCOUNT);
	if (!job->fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}

	ret = tc_submit_charge(dev, job, args->desc_count);
	if (ret)
		goto err_free_job;
	ret = tc_submit_bos(dev, file, job, args);
	if (ret)
		goto err_free_job;
	ret = tc_submit_descs(dev, job, args);
	if (ret)
		goto err_free_job;

	ret = drm_sched_job_init(&job->base, &tfile->entities[args->queue], 1,
				 tfile, file->client_id);
	if (ret)
		goto err_free_job;
	ret = tc_submit_deps(file, job, args);
	if (ret)
		goto err_cleanup_job;
	if (args->out_syncobj) {
		out = drm_syncobj_find(file, args->out_syncobj);
		if (!out) {
			drm_dbg(dev, "SUBMIT: bad out-syncobj %u\n", args->out_syncobj);
			ret = -ENOENT;
			goto err_cleanup_job;
		}
	}
	if (atomic_inc_return(&tfile->num_results) > TC_MAX_RESULTS) {
		drm_dbg(dev, "SUBMIT: %u job statuses not reaped by WAIT\n",
			TC_MAX_RESULTS);
		ret = -EBUSY;
		goto err_dec_results;
	}
	ret = xa_alloc_cyclic(&tfile->jobs, &id, NULL, XA_LIMIT(1, U32_MAX),
			      &tfile->next_job_id, GFP_KERNEL);
	if (ret < 0)
		goto err_dec_results;
	ret = tc_resv_lock(job, &resv);
	if (ret)
		goto err_erase_id;

	tc_submit_push(tfile, job, id, out, &resv);
	tc_resv_unlock(&resv);
	if (out)
		drm_syncobj_put(out);
	args->job_id = id;
	return 0;

err_erase_id:
	xa_erase(&tfile->jobs, id);
err_dec_results:
	atomic_dec(&tfile->num_results);
	if (out)
		drm_syncobj_put(out);
err_cleanup_job:
	drm_sched_job_cleanup(&job->base);
err_free_job:
	tc_job_free(job);
	return ret;
}
