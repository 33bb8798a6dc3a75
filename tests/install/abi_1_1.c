// SPDX-License-Identifier: MIT
/*
 * abi_1_1.c - a program as it was built against tilecopy 1.1, run against
 * the installed library: its struct drm_tilecopy_desc is 192 bytes and it
 * is linked to the 1.0 versions of tilecopy_plan_descs and
 * tilecopy_desc_format (what the linker recorded then; the .symver
 * references below record the same). The 1.2 library must still give it
 * 192-byte descriptors, read no byte past its struct, and refuse a typed
 * plan rather than hand it descriptors it would misread.
 *
 * Built and run by tests/install/run.sh against the installed tree.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#define _DEFAULT_SOURCE	/* MAP_ANONYMOUS */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <tilecopy/tilecopy.h>

/* struct drm_tilecopy_desc of ABI 1.1, field for field */
struct desc_1_1 {
	uint16_t op;
	uint8_t elem_size, ndims;
	uint32_t flags;
	uint64_t src, dst, value;
	uint32_t extent[8];
	uint64_t src_stride[8], dst_stride[8];
};
_Static_assert(sizeof(struct desc_1_1) == 192, "the 1.1 descriptor is 192 bytes");

tilecopy_status_t old_plan_descs(const tilecopy_plan_t *plan, const struct desc_1_1 **descs,
				 size_t *count);
tilecopy_status_t old_desc_format(const struct desc_1_1 *d, char *buf, size_t size);
__asm__(".symver old_plan_descs, tilecopy_plan_descs@TILECOPY_1.0");
__asm__(".symver old_desc_format, tilecopy_desc_format@TILECOPY_1.0");

static int failed;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
		failed = 1;						\
	}								\
} while (0)

static tilecopy_tensor_t *tensor(const char *fmt, tilecopy_dtype_t dt)
{
	int64_t shape[4] = { 2, 20, 3, 5 };	/* C = 20: nChw16c pads, 2 descriptors */
	tilecopy_tensor_t *t = NULL;

	CHECK(tilecopy_tensor_create(&t, fmt, shape, 4, dt, NULL, 0) == TILECOPY_SUCCESS,
	      "%s: %s", fmt, tilecopy_last_error());
	return t;
}

/* Every 192-byte entry equals the descriptor tilecopy_plan_desc gives. */
static void check_untyped(const tilecopy_plan_t *p)
{
	const struct desc_1_1 *d = NULL;
	size_t n = 0;
	long pg = sysconf(_SC_PAGESIZE);
	char *guard, a[2048], b[2048];

	CHECK(old_plan_descs(p, &d, &n) == TILECOPY_SUCCESS, "descs@1.0: %s",
	      tilecopy_last_error());
	CHECK(n >= 2, "%zu descriptors", n);
	/* the struct at the very end of a page, a PROT_NONE page after it */
	guard = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(guard != MAP_FAILED && !mprotect(guard + pg, pg, PROT_NONE), "guard page");
	for (size_t i = 0; i < n && !failed; i++) {
		struct tilecopy_desc one = { .struct_size = sizeof(one) };
		struct desc_1_1 *last = (struct desc_1_1 *)(guard + pg - sizeof(*last));

		CHECK(tilecopy_plan_desc(p, i, &one) == TILECOPY_SUCCESS, "desc %zu", i);
		CHECK(d[i].op == one.op && d[i].elem_size == one.elem_size &&
		      d[i].ndims == one.ndims && d[i].src == one.src && d[i].dst == one.dst &&
		      d[i].value == one.value &&
		      !memcmp(d[i].extent, one.extent, sizeof(d[i].extent)) &&
		      !memcmp(d[i].src_stride, one.src_stride, sizeof(d[i].src_stride)) &&
		      !memcmp(d[i].dst_stride, one.dst_stride, sizeof(d[i].dst_stride)),
		      "descriptor %zu of the 192-byte array differs from tilecopy_plan_desc", i);
		memcpy(last, &d[i], sizeof(*last));
		CHECK(old_desc_format(last, a, sizeof(a)) == TILECOPY_SUCCESS, "format@1.0 %zu", i);
		CHECK(tilecopy_plan_desc_format(p, i, b, sizeof(b)) == TILECOPY_SUCCESS, "format %zu",
		      i);
		CHECK(!strcmp(a, b), "descriptor %zu: '%s' vs '%s'", i, a, b);
	}
	munmap(guard, 2 * pg);
}

int main(void)
{
	tilecopy_tensor_t *s = tensor("NCHW", TILECOPY_DT_F32), *d = tensor("nChw16c", TILECOPY_DT_F32);
	tilecopy_tensor_t *h = tensor("nChw16c", TILECOPY_DT_BF16);
	tilecopy_convert_params_t cp;
	tilecopy_plan_t *p = NULL, *typed = NULL;
	const struct desc_1_1 *dd = NULL;
	size_t n = 0;

	CHECK(tilecopy_plan_create(&p, s, d, 0) == TILECOPY_SUCCESS, "plan: %s",
	      tilecopy_last_error());
	if (p)
		check_untyped(p);
	/* a typed plan: refused to the 1.1 program, never misread */
	CHECK(tilecopy_convert_params_init(&cp) == TILECOPY_SUCCESS, "params");
	CHECK(tilecopy_plan_create_v2(&typed, s, h, &cp, 0) == TILECOPY_SUCCESS, "typed plan: %s",
	      tilecopy_last_error());
	if (typed) {
		CHECK(old_plan_descs(typed, &dd, &n) == TILECOPY_ERR_UNSUPPORTED &&
		      strstr(tilecopy_last_error(), "tilecopy_plan_desc()"),
		      "typed plan through descs@1.0: %s", tilecopy_last_error());
	}
	CHECK(old_plan_descs(NULL, &dd, &n) == TILECOPY_ERR_INVALID_ARG, "NULL plan");
	tilecopy_plan_destroy(typed);
	tilecopy_plan_destroy(p);
	tilecopy_tensor_destroy(s);
	tilecopy_tensor_destroy(d);
	tilecopy_tensor_destroy(h);
	if (!failed)
		printf("a 1.1 program: 192-byte descriptors, formats within its struct, typed plans refused\n");
	return failed;
}
