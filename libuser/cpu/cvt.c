// SPDX-License-Identifier: MIT
/*
 * cvt.c - element conversion runs: validate and prepare a conversion,
 * choose a kernel set by cpuid, and drive the contiguous kernels over a
 * run of any strides and nibble offsets.
 *
 * A run goes through L1-sized chunks in three steps: the source elements
 * to f32 (read in place when they are contiguous, else gathered into a
 * contiguous stage first), the f32 stage (zero points and scale), and f32
 * to the destination kind (written in place when contiguous, else through
 * a stage that is scattered). So every instruction set only provides
 * contiguous kernels, and strides, odd nibble offsets and the other nibble
 * of a shared byte are handled once, here.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cpu/cvt.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* Elements per chunk: even (4-bit chunks start on a byte), 1 KiB of f32. */
#define TC_CVT_CHUNK 256

static const struct {
	const char *name;
	unsigned int bits;
	int is_float;
} tc_cvt_kinds[TC_CVT_NKINDS] = {
	[TC_CVT_F32] = { "f32", 32, 1 },
	[TC_CVT_F16] = { "f16", 16, 1 },
	[TC_CVT_BF16] = { "bf16", 16, 1 },
	[TC_CVT_I8] = { "i8", 8, 0 },
	[TC_CVT_U8] = { "u8", 8, 0 },
	[TC_CVT_I32] = { "i32", 32, 0 },
	[TC_CVT_I4] = { "i4", 4, 0 },
	[TC_CVT_U4] = { "u4", 4, 0 },
};

unsigned int tc_cvt_kind_bits(enum tc_cvt_kind k)
{
	return (unsigned int)k < TC_CVT_NKINDS ? tc_cvt_kinds[k].bits : 0;
}

const char *tc_cvt_kind_name(enum tc_cvt_kind k)
{
	return (unsigned int)k < TC_CVT_NKINDS ? tc_cvt_kinds[k].name : "?";
}

int tc_cvt_kind_is_float(enum tc_cvt_kind k)
{
	return (unsigned int)k < TC_CVT_NKINDS && tc_cvt_kinds[k].is_float;
}

/* ---- kernel sets --------------------------------------------------------- */

#if defined(__x86_64__)
int tc_cvt_cpu_has_f16c(void)
{
	unsigned int eax, ebx, ecx, edx;

	if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx))
		return 0;
	return !!(ecx & bit_F16C);
}
#endif

/* Best first: the first available one is the default. */
static const struct tc_cvt_kernels *const tc_cvt_sets[] = {
#if defined(__x86_64__)
	&tc_cvt_avx512bf16,
	&tc_cvt_avx512,
	&tc_cvt_avx2,
#elif defined(__aarch64__)
	&tc_cvt_neonbf16,
	&tc_cvt_neon,
#endif
	&tc_cvt_scalar,
};

#define TC_CVT_NSETS (sizeof(tc_cvt_sets) / sizeof(tc_cvt_sets[0]))

/* Names valid on some build, so "neon" on x86 is -ENODEV, not -EINVAL. */
const char *const tc_cvt_kernel_names[] = {
	"scalar", "avx2", "avx512", "avx512bf16", "neon", "neonbf16", NULL,
};

const struct tc_cvt_kernels *tc_cvt_kernels_get(const char *name, int *err)
{
	int dummy;
	size_t i;

	if (!err)
		err = &dummy;
	for (i = 0; i < TC_CVT_NSETS; i++) {
		if (name && strcmp(tc_cvt_sets[i]->name, name))
			continue;
		if (tc_cvt_sets[i]->available()) {
			*err = 0;
			return tc_cvt_sets[i];
		}
		if (name) {
			*err = -ENODEV;
			return NULL;
		}
	}
	*err = -EINVAL;
	for (i = 0; name && tc_cvt_kernel_names[i]; i++)
		if (!strcmp(tc_cvt_kernel_names[i], name))
			*err = -ENODEV;	/* not built for this architecture */
	return NULL;
}

/* ---- preparing a conversion ---------------------------------------------- */

static int cvt_fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

static int cvt_init_quant(struct tc_cvt *cv, const struct tc_cvt_quant *q,
			  const char **why)
{
	size_t i;

	if (q->nscales && !q->scales)
		return cvt_fail(why, "scales: NULL with nscales > 0");
	if (!q->nscales && q->scales)
		return cvt_fail(why, "nscales: 0 with scales given");
	for (i = 0; i < q->nscales; i++) {
		if (!isfinite(q->scales[i]))
			return cvt_fail(why, "scales: a scale is NaN or infinite");
		if (q->scales[i] != 1.0f)
			cv->affine.ops |= TC_CVT_MUL;
	}
	if (cv->affine.ops & TC_CVT_MUL) {
		cv->per_channel = q->nscales > 1;
		cv->scale = q->scales[0];
	}
	if (q->src_zp)
		cv->affine.ops |= TC_CVT_SUB_ZP;
	if (q->dst_zp)
		cv->affine.ops |= TC_CVT_ADD_ZP;
	cv->affine.src_zp = (float)q->src_zp;
	cv->affine.dst_zp = (float)q->dst_zp;
	cv->src_zp = q->src_zp;
	cv->dst_zp = q->dst_zp;
	return 0;
}

int tc_cvt_init(struct tc_cvt *cv, enum tc_cvt_kind dst_kind,
		enum tc_cvt_kind src_kind, const struct tc_cvt_quant *q,
		const struct tc_cvt_kernels *k, const char **why)
{
	int err;

	memset(cv, 0, sizeof(*cv));
	cv->scale = 1.0f;
	if ((unsigned int)dst_kind >= TC_CVT_NKINDS)
		return cvt_fail(why, "dst_kind: unknown element kind");
	if ((unsigned int)src_kind >= TC_CVT_NKINDS)
		return cvt_fail(why, "src_kind: unknown element kind");
	cv->dst_kind = dst_kind;
	cv->src_kind = src_kind;
	if (q) {
		err = cvt_init_quant(cv, q, why);
		if (err)
			return err;
	}
	cv->copy = src_kind == dst_kind && !cv->affine.ops;
	cv->int_zp = src_kind == TC_CVT_I32 && dst_kind == TC_CVT_I32 &&
		     cv->affine.ops && !(cv->affine.ops & TC_CVT_MUL);
	if (!k) {
		k = tc_cvt_kernels_get(NULL, &err);
		if (!k)
			return cvt_fail(why, "kernels: none available");
	}
	cv->k = k;
	cv->decode = k->decode[src_kind] ? k->decode[src_kind]
					 : tc_cvt_scalar.decode[src_kind];
	cv->encode = k->encode[dst_kind] ? k->encode[dst_kind]
					 : tc_cvt_scalar.encode[dst_kind];
	cv->affine_fn = k->affine ? k->affine : tc_cvt_scalar.affine;
	return 0;
}

/* ---- moving elements ----------------------------------------------------- */

static inline void cvt_move(unsigned int bits, void *dst, int64_t de,
			    const void *src, int64_t se)
{
	char *d = dst;
	const char *s = src;

	switch (bits) {
	case 4:
		tc_cvt_nibble_set(dst, de, tc_cvt_nibble_get(src, se));
		break;
	case 8:
		d[de] = s[se];
		break;
	case 16:
		memcpy(d + de * 2, s + se * 2, 2);
		break;
	default:
		memcpy(d + de * 4, s + se * 4, 4);
		break;
	}
}

/* Address of element @e, which must start a byte. */
static inline const char *cvt_at(unsigned int bits, const void *base, int64_t e)
{
	return bits == 4 ? (const char *)base + (e >> 1)
			 : (const char *)base + e * (int64_t)(bits / 8);
}

/* A same-kind run with no quantization: the bits move unchanged. */
static void cvt_copy_run(unsigned int bits, void *dst, int64_t doff,
			 int64_t dstride, const void *src, int64_t soff,
			 int64_t sstride, size_t n)
{
	if (dstride == 1 && sstride == 1 && bits != 4) {
		memmove((char *)cvt_at(bits, dst, doff), cvt_at(bits, src, soff),
			n * (bits / 8));
		return;
	}
	for (size_t i = 0; i < n; i++)
		cvt_move(bits, dst, doff + (int64_t)i * dstride,
			 src, soff + (int64_t)i * sstride);
}

/*
 * The source of one chunk as contiguous elements (a 4-bit run starting at
 * a low nibble): the elements themselves, or a copy in @stage.
 */
static const void *cvt_src_view(unsigned int bits, const void *src, int64_t off,
				int64_t stride, size_t m, unsigned char *stage)
{
	if (stride == 1 && (bits != 4 || !(off & 1)))
		return cvt_at(bits, src, off);
	if (bits == 4)
		memset(stage, 0, (m + 1) / 2);
	for (size_t i = 0; i < m; i++)
		cvt_move(bits, stage, (int64_t)i, src, off + (int64_t)i * stride);
	return stage;
}

/* Encode @m values from @f to contiguous elements at @p (low nibble). */
static void cvt_encode(const struct tc_cvt *cv, unsigned int bits, void *p,
		       const float *f, size_t m)
{
	size_t whole = bits == 4 ? m & ~(size_t)1 : m;

	if (whole)
		cv->encode(p, f, whole);
	if (whole < m)	/* an odd 4-bit tail shares its byte: keep the other nibble */
		tc_cvt_store(cv->dst_kind, p, (int64_t)whole, f[whole]);
}

static void cvt_dst_write(const struct tc_cvt *cv, void *dst, int64_t off,
			  int64_t stride, const float *f, size_t m,
			  unsigned char *stage)
{
	unsigned int bits = tc_cvt_kinds[cv->dst_kind].bits;

	if (stride == 1 && (bits != 4 || !(off & 1))) {
		cvt_encode(cv, bits, (char *)cvt_at(bits, dst, off), f, m);
		return;
	}
	if (bits == 4)
		memset(stage, 0, (m + 1) / 2);
	cvt_encode(cv, bits, stage, f, m);
	for (size_t i = 0; i < m; i++)
		cvt_move(bits, dst, off + (int64_t)i * stride, stage, (int64_t)i);
}

static inline int cvt_f32_aligned(const void *p)
{
	return !((uintptr_t)p & (sizeof(float) - 1));
}

static void cvt_chunk(const struct tc_cvt *cv, void *dst, int64_t doff,
		      int64_t dstride, const void *src, int64_t soff,
		      int64_t sstride, size_t m, const float *scale,
		      ptrdiff_t scale_stride)
{
	float fbuf[TC_CVT_CHUNK];
	unsigned char sstage[TC_CVT_CHUNK * 4], dstage[TC_CVT_CHUNK * 4];
	unsigned int sbits = tc_cvt_kinds[cv->src_kind].bits;
	const void *sp = cvt_src_view(sbits, src, soff, sstride, m, sstage);
	float *work = fbuf;
	const float *f;
	int fdirect = 0;

	/* An f32 destination in place is its own work buffer. */
	if (cv->dst_kind == TC_CVT_F32 && dstride == 1) {
		float *dp = (float *)cvt_at(32, dst, doff);

		if (cvt_f32_aligned(dp)) {
			work = dp;
			fdirect = 1;
		}
	}
	if (cv->src_kind == TC_CVT_F32 && cvt_f32_aligned(sp)) {
		/* (with fdirect, f32 -> f32 is never a copy: the affine step writes) */
		f = sp;
	} else {
		cv->decode(work, sp, m);
		f = work;
	}
	if (cv->affine.ops) {
		cv->affine_fn(work, f, m, &cv->affine, scale, scale_stride);
		f = work;
	}
	if (!fdirect)
		cvt_dst_write(cv, dst, doff, dstride, f, m, dstage);
}

void tc_cvt_run(const struct tc_cvt *cv,
		void *dst, int64_t dst_off, int64_t dst_stride,
		const void *src, int64_t src_off, int64_t src_stride,
		size_t n, const float *scale, ptrdiff_t scale_stride)
{
	size_t done, m;

	if (cv->copy) {
		cvt_copy_run(tc_cvt_kinds[cv->src_kind].bits, dst, dst_off,
			     dst_stride, src, src_off, src_stride, n);
		return;
	}
	if (cv->int_zp) {	/* rare: integer arithmetic, one at a time */
		tc_cvt_ref_run(cv, dst, dst_off, dst_stride, src, src_off,
			       src_stride, n, scale, scale_stride);
		return;
	}
	if (!cv->per_channel) {
		scale = &cv->scale;
		scale_stride = 0;
	}
	for (done = 0; done < n; done += m) {
		m = n - done < TC_CVT_CHUNK ? n - done : TC_CVT_CHUNK;
		cvt_chunk(cv, dst, dst_off + (int64_t)done * dst_stride, dst_stride,
			  src, src_off + (int64_t)done * src_stride, src_stride, m,
			  scale + (ptrdiff_t)done * scale_stride, scale_stride);
	}
}
