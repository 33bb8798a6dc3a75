// SPDX-License-Identifier: MIT
/*
 * plan_exec.c - running a plan on the CPU, and printing descriptors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan_internal.h"
#include "cpu/cpu_exec.h"
#include "cpu/pool.h"

static const char *tc_op_name(unsigned int op)
{
	switch (op) {
	case DRM_TILECOPY_OP_COPY:
		return "COPY";
	case DRM_TILECOPY_OP_FILL:
		return "FILL";
	case DRM_TILECOPY_OP_WRITE64:
		return "WRITE64";
	default:
		return "?";
	}
}

static size_t tc_put(char *buf, size_t size, size_t n, const char *fmt,
		     unsigned long long a)
{
	int w;

	if (n >= size)
		return n;
	w = snprintf(buf + n, size - n, fmt, a);
	return w < 0 ? size : n + (size_t)w;
}

/* Append @str (already formatted). */
static size_t tc_puts(char *buf, size_t size, size_t n, const char *str)
{
	int w;

	if (n >= size)
		return n;
	w = snprintf(buf + n, size - n, "%s", str);
	return w < 0 ? size : n + (size_t)w;
}

static const char *tc_type_name(unsigned int t)
{
	static const char *const names[] = {
		[DRM_TILECOPY_TYPE_NONE] = "none",
		[DRM_TILECOPY_TYPE_F32] = "f32", [DRM_TILECOPY_TYPE_F16] = "f16",
		[DRM_TILECOPY_TYPE_BF16] = "bf16", [DRM_TILECOPY_TYPE_I8] = "i8",
		[DRM_TILECOPY_TYPE_U8] = "u8", [DRM_TILECOPY_TYPE_I32] = "i32",
		[DRM_TILECOPY_TYPE_I4] = "i4", [DRM_TILECOPY_TYPE_U4] = "u4",
	};

	return t < TC_ARRAY_SIZE(names) ? names[t] : "?";
}

static size_t tc_put_dims(char *buf, size_t size, size_t n, const char *name,
			  const struct drm_tilecopy_desc *d, const __u64 *v64,
			  const __u32 *v32)
{
	n = tc_put(buf, size, n, name, 0);
	for (int k = 0; k < d->ndims && k < DRM_TILECOPY_MAX_DIMS; k++)
		n = tc_put(buf, size, n, k ? ",%llu" : "%llu", v64 ? v64[k] : v32[k]);
	return tc_put(buf, size, n, "]", 0);
}

/* A typed descriptor's fields beyond 1.1's: the conversion (ABI 1.2). */
static size_t tc_put_typed(char *line, size_t size, size_t n,
			   const struct drm_tilecopy_desc *d)
{
	float scale;
	char num[48];

	if (d->src_nibble)
		n = tc_put(line, size, n, " src_nibble=%llu", d->src_nibble);
	if (d->dst_nibble)
		n = tc_put(line, size, n, " dst_nibble=%llu", d->dst_nibble);
	if (d->src_zp) {
		snprintf(num, sizeof(num), " src_zp=%d", (int)d->src_zp);
		n = tc_puts(line, size, n, num);
	}
	if (d->dst_zp) {
		snprintf(num, sizeof(num), " dst_zp=%d", (int)d->dst_zp);
		n = tc_puts(line, size, n, num);
	}
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALE) {
		memcpy(&scale, &d->scale, sizeof(scale));
		snprintf(num, sizeof(num), " scale=%.9g", (double)scale);
		n = tc_puts(line, size, n, num);
	}
	if (d->cvt_flags & DRM_TILECOPY_CVT_SCALES) {
		n = tc_put(line, size, n, " scales=%llu", d->scales);
		n = tc_put_dims(line, size, n, " scale_stride=[", d, NULL, d->scale_stride);
	}
	return n;
}

/* tilecopy_desc_format@@TILECOPY_1.2, the default (abi_compat.c) */
TC_SYMVER_DEFAULT(tc_symver_desc_format_1_2, tilecopy_desc_format, TILECOPY_1.2);
TILECOPY_API tilecopy_status_t tc_symver_desc_format_1_2(const struct drm_tilecopy_desc *d,
						    char *buf, size_t size)
{
	/* the longest line: 8 dims of 20-digit strides, four times, fit in 2 KiB */
	char line[2048];
	int copy, typed;
	size_t n = 0;

	if (!d || (!buf && size))
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s: NULL", d ? "buf" : "desc");
	copy = d->op == DRM_TILECOPY_OP_COPY;
	typed = d->src_type || d->dst_type;
	if (!typed)
		n = (size_t)snprintf(line, sizeof(line), "%-5s esize=%u", tc_op_name(d->op),
				     d->elem_size);
	else if (copy)
		n = (size_t)snprintf(line, sizeof(line), "%-5s %s>%s", tc_op_name(d->op),
				     tc_type_name(d->src_type), tc_type_name(d->dst_type));
	else
		n = (size_t)snprintf(line, sizeof(line), "%-5s %s", tc_op_name(d->op),
				     tc_type_name(d->dst_type));
	if (copy)
		n = tc_put(line, sizeof(line), n, " src=%llu", d->src);
	n = tc_put(line, sizeof(line), n, " dst=%llu", d->dst);
	if (!copy)
		n = tc_put(line, sizeof(line), n, " value=0x%llx", d->value);
	n = tc_put_dims(line, sizeof(line), n, " extent=[", d, NULL, d->extent);
	if (copy)
		n = tc_put_dims(line, sizeof(line), n, " src_stride=[", d, d->src_stride, NULL);
	n = tc_put_dims(line, sizeof(line), n, " dst_stride=[", d, d->dst_stride, NULL);
	if (typed)
		n = tc_put_typed(line, sizeof(line), n, d);
	if (size)
		snprintf(buf, size, "%s", line);
	if (n >= size)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "buf: %zu bytes are too few for the descriptor, it needs %zu",
			       size, n + 1);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_desc_format(const tilecopy_plan_t *plan,
							 size_t index, char *buf, size_t size)
{
	tilecopy_status_t st = tc_plan_arg(plan);

	if (st)
		return st;
	if (index >= plan->n)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "index: %zu, the plan has %zu descriptors",
			       index, plan->n);
	return tc_symver_desc_format_1_2(&plan->descs[index], buf, size);
}

static tilecopy_status_t tc_backend(const char *cpu,
				    const struct tc_cpu_backend **be)
{
	const char *field = "cpu";
	int err = 0;

	if (tc_pool_env_error())
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "%s", tc_pool_env_error());
	*be = tc_cpu_backend_get(cpu, &err);
	if (*be)
		return TILECOPY_SUCCESS;
	/* no name given: the environment chose it, so name the variable */
	if (!cpu) {
		cpu = getenv("TILECOPY_CPU");
		field = "$TILECOPY_CPU";
	}
	if (err == -ENODEV)
		return tc_fail(TILECOPY_ERR_UNSUPPORTED,
			       "%s: executor '%s' is not available on this CPU",
			       field, cpu ? cpu : "?");
	return tc_fail(TILECOPY_ERR_INVALID_ARG,
		       "%s: unknown executor '%s' (scalar, sse2, avx2, avx512, neon)",
		       field, cpu ? cpu : "?");
}

TILECOPY_API tilecopy_status_t tilecopy_cpu_name(const char *cpu, const char **name)
{
	const struct tc_cpu_backend *be;
	tilecopy_status_t st;

	if (!name)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "name: NULL");
	st = tc_backend(cpu, &be);
	if (st)
		return st;
	*name = be->name;
	return tc_ok();
}

tilecopy_status_t tc_plan_check_buffers(const struct tilecopy_plan *plan, const void *src,
			  size_t src_size, const void *dst, size_t dst_size)
{
	tilecopy_status_t st = tc_plan_arg(plan);

	if (st)
		return st;
	if ((!src && plan->src_bytes) || !dst)
		return tc_fail(TILECOPY_ERR_INVALID_ARG, "execute: NULL %s", dst ? "src" : "dst");
	if (src_size < plan->src_bytes)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "src_size: %zu bytes, the source needs %llu",
			       src_size, (unsigned long long)plan->src_bytes);
	if (dst_size < plan->dst_bytes)
		return tc_fail(TILECOPY_ERR_BUFFER_TOO_SMALL,
			       "dst_size: %zu bytes, the destination needs %llu",
			       dst_size, (unsigned long long)plan->dst_bytes);
	return TILECOPY_SUCCESS;
}

/*
 * The byte ranges the plan reads and writes share an address: its
 * footprints, from each tensor's byte offset (its element 0, the lowest
 * address it touches: strides are >= 0) to its end.
 */
static int tc_buffers_overlap(const struct tilecopy_plan *plan, const void *src,
			      const void *dst)
{
	uintptr_t s = (uintptr_t)src, d = (uintptr_t)dst;

	return plan->src_bytes > plan->src_base && plan->dst_bytes > plan->dst_base &&
	       s + plan->src_base < d + plan->dst_bytes &&
	       d + plan->dst_base < s + plan->src_bytes;
}

/*
 * In place or overlapping: the descriptors would read what they have
 * already written (src == dst gave "0 20 40 20" for "0 20 40 1"). Reading
 * from a copy gives the result of disjoint buffers. Only the source's
 * footprint is copied (a view far into its buffer needs no copy of what
 * lies before it), and the descriptors are rebased onto the copy rather
 * than the copy's address moved back by the byte offset, which could wrap.
 */
static tilecopy_status_t tc_execute_aside(const struct tilecopy_plan *plan,
					  const struct tc_cpu_backend *be,
					  const void *src, void *dst)
{
	uint64_t foot = plan->src_bytes - plan->src_base;
	struct drm_tilecopy_desc *descs = NULL;
	void *aside = NULL;
	int ret;

	if (foot <= SIZE_MAX && plan->n <= SIZE_MAX / sizeof(*descs)) {
		aside = malloc((size_t)foot);
		descs = malloc(plan->n * sizeof(*descs));
	}
	if (!aside || !descs) {
		free(aside);
		free(descs);
		return tc_fail(TILECOPY_ERR_NOMEM,
			       "src: overlaps dst and %llu bytes to copy it aside are not available",
			       (unsigned long long)foot);
	}
	memcpy(aside, (const char *)src + plan->src_base, (size_t)foot);
	memcpy(descs, plan->descs, plan->n * sizeof(*descs));
	for (size_t i = 0; i < plan->n; i++)
		if (descs[i].op == DRM_TILECOPY_OP_COPY)
			descs[i].src -= plan->src_base;
	ret = be->exec_scales(descs, plan->n, aside, dst, plan->scales);
	free(aside);
	free(descs);
	if (ret)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "plan: executor %s refused a descriptor", be->name);
	return tc_ok();
}

TILECOPY_API tilecopy_status_t tilecopy_plan_execute_cpu(const tilecopy_plan_t *plan,
							 const void *src,
							 size_t src_size,
							 void *dst,
							 size_t dst_size,
							 const char *cpu)
{
	const struct tc_cpu_backend *be;
	tilecopy_status_t st;
	int ret;

	st = tc_plan_check_buffers(plan, src, src_size, dst, dst_size);
	if (st)
		return st;
	st = tc_backend(cpu, &be);
	if (st)
		return st;
	if (tc_buffers_overlap(plan, src, dst))
		return tc_execute_aside(plan, be, src, dst);
	/* a small plan: its one kernel call, without the analysis */
	if (plan->direct.kind && be->direct && !be->direct(&plan->direct, src, dst))
		return tc_ok();
	ret = be->exec_scales(plan->descs, plan->n, src, dst, plan->scales);
	if (ret)
		return tc_fail(TILECOPY_ERR_INVALID_ARG,
			       "plan: executor %s refused a descriptor", be->name);
	return tc_ok();
}
