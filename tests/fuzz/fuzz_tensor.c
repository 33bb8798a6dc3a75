// SPDX-License-Identifier: MIT
/*
 * fuzz_tensor.c - libFuzzer target: formats, shapes, dtypes and blocks.
 *
 * Input: [dtype][rank][flags] then one value per dimension (a byte: small
 * dims 1..200, zero/negative, or a following 8-byte arbitrary value), then
 * the text "format|block" (block absent when flags bit 0 is clear).
 * The shape array is allocated with exactly @rank entries so any read
 * beyond it is an ASan report.
 *
 * tilecopy_tensor_make must either refuse with a message or give a tensor
 * whose queries are consistent: extents within their modes, every logical
 * element's byte range inside tilecopy_tensor_bytes (walked for small
 * tensors), padding/density flags agreeing with the element count.
 * The same text is also fed to tilecopy_shape_parse and tilecopy_dtype_parse.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilecopy/tilecopy.h"
#include "fuzz_common.h"
/* White-box: the value-level API under the handles (libuser/internal.h). */
#include "internal.h"
#include "plan_internal.h"

#define FZ_WALK_MAX 4096

static int64_t fz_dim(struct fz_in *in)
{
	unsigned b = fz_u8(in);

	if (b < 200)
		return 1 + b;
	if (b < 220)
		return -(int64_t)(b - 200);	/* 0, -1, ... */
	if (b < 240)
		return (int64_t)1 << (b - 200);	/* 2^20 .. 2^39 */
	return (int64_t)fz_u64(in);
}

static void fz_check_tensor(const tilecopy_tensor_t *t, const int64_t *shape,
			    int rank, const char *format)
{
	const tilecopy_layout_t *l = &t->layout;
	unsigned int bits = tc_dtype_bits(t->dtype);
	uint64_t bytes;
	int64_t n = 1, idx;
	char buf[1024];

	FZ_CHECK(bits, "tensor with unknown dtype %d", (int)t->dtype);
	FZ_CHECK(l->rank == rank, "%s: layout rank %d for shape rank %d", format,
		 l->rank, rank);
	for (int m = 0; m < rank; m++) {
		int64_t ms = tc_layout_mode_size(l, m);

		FZ_CHECK(t->extent[m] == shape[m], "%s: extent[%d] %lld != shape %lld",
			 format, m, (long long)t->extent[m], (long long)shape[m]);
		FZ_CHECK(ms < 0 || ms >= t->extent[m], "%s: mode %d size %lld < extent %lld",
			 format, m, (long long)ms, (long long)t->extent[m]);
		if (n >= 0 && __builtin_mul_overflow(n, shape[m], &n))
			n = -1;
	}
	(void)tc_layout_print(l, buf, sizeof(buf));
	(void)tc_tensor_is_contiguous_in(t, format);
	(void)tc_tensor_is_contiguous_in(t, "NCHW");
	int pad = tc_tensor_has_padding(t);
	int64_t cosize = tc_layout_cosize(l);

	/*
	 * The overlap test falls back to marking every element (up to 2^24 by
	 * design, ~0.2 s natively, ~10 s under the sanitizers): only below 2^20
	 * here, so that one input stays well under libFuzzer's timeout.
	 */
	if (n < 0 || n > (1 << 20) || cosize < 0 || cosize > (1 << 20))
		return;
	(void)tc_tensor_is_dense(t);
	int ovl = tc_tensor_has_overlap(t);

	if (tc_tensor_bytes(t, &bytes) != TILECOPY_SUCCESS)
		return;
	/*
	 * n logical elements of @bits each, without overlap, need their bytes
	 * (4-bit ones rounded up).
	 */
	if (n > 0 && !ovl && (uint64_t)n <= UINT64_MAX / 8)
		FZ_CHECK(bytes >= tc_elems_bytes((uint64_t)n, bits), "%s: %llu bytes for %lld elements",
			 format, (unsigned long long)bytes, (long long)n);
	if (n > 0 && !pad && !ovl && (uint64_t)n <= UINT64_MAX / 8)
		FZ_CHECK(bytes == tc_elems_bytes((uint64_t)n, bits),
			 "%s: no padding, but %llu bytes for %lld elements",
			 format, (unsigned long long)bytes, (long long)n);
	if (n < 1 || n > FZ_WALK_MAX)
		return;
	for (int64_t i = 0; i < n; i++) {
		int64_t crd[TILECOPY_MAX_RANK], r = i;

		for (int m = 0; m < rank; m++) {
			crd[m] = r % shape[m];
			r /= shape[m];
		}
		FZ_CHECK(tc_layout_crd2idx(l, crd, &idx) == TILECOPY_SUCCESS,
			 "%s: crd2idx: %s", format, tilecopy_last_error());
		FZ_CHECK(idx >= 0 && ((uint64_t)idx + 1) * bits <= bytes * 8,
			 "%s: element %lld at %lld outside %llu bytes", format,
			 (long long)i, (long long)idx, (unsigned long long)bytes);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	tilecopy_tensor_t t;
	tilecopy_dtype_t dt;
	int64_t sh[TILECOPY_MAX_RANK + 4];
	int srank;

	if (size > 2048)
		return 0;
	int dtype = fz_range(&in, -1, 11);	/* -1 and 11: invalid; 9, 10: i4, u4 */
	int rank = fz_range(&in, -1, 18);	/* 16 is the limit */
	unsigned flags = fz_u8(&in);
	int nsh = rank > 0 ? rank : 1;
	int64_t *shape = malloc(sizeof(*shape) * (size_t)nsh);

	if (!shape)
		return 0;
	for (int k = 0; k < nsh; k++)
		shape[k] = fz_dim(&in);

	char *text = malloc(in.n + 1);

	if (!text) {
		free(shape);
		return 0;
	}
	memcpy(text, in.p, in.n);
	text[in.n] = '\0';
	char *block = strchr(text, '|');

	if (block)
		*block++ = '\0';
	if (!(flags & 1))
		block = NULL;

	tilecopy_status_t st = tc_tensor_make(&t, text, shape, rank,
						    (tilecopy_dtype_t)dtype, block);
	if (st == TILECOPY_SUCCESS)
		fz_check_tensor(&t, shape, rank, text);
	else
		FZ_CHECK(tilecopy_last_error()[0], "'%s' refused without a message", text);

	/* The public handle, the flags (bit 1: physical order, bit 2: view). */
	tilecopy_tensor_t *h;
	uint32_t hf = (flags & 2 ? TILECOPY_TENSOR_SHAPE_PHYSICAL : 0) |
		      (flags & 4 ? TILECOPY_TENSOR_VIEW : 0);

	st = tilecopy_tensor_create(&h, text, shape, rank, (tilecopy_dtype_t)dtype, block, hf);
	if (st == TILECOPY_SUCCESS) {
		int64_t got[TILECOPY_MAX_RANK], prod_in = 1, prod_out = 1;
		int order[TILECOPY_MAX_RANK], hr = 0;

		FZ_CHECK(!tilecopy_tensor_rank(h, &hr) && hr == rank, "handle rank %d", hr);
		FZ_CHECK(!tilecopy_tensor_shape(h, got, TILECOPY_MAX_RANK), "shape");
		FZ_CHECK(!tilecopy_tensor_physical_order(h, order, TILECOPY_MAX_RANK), "order");
		/* a physical shape is a permutation of the logical one */
		for (int k = 0; k < rank; k++) {
			if (__builtin_mul_overflow(prod_in, shape[k], &prod_in))
				prod_in = -1;
			if (__builtin_mul_overflow(prod_out, got[k], &prod_out))
				prod_out = -1;
		}
		FZ_CHECK(prod_in == prod_out || prod_in < 0 || prod_out < 0,
			 "%s: shape product changed", text);
		tilecopy_tensor_destroy(h);
	} else {
		FZ_CHECK(tilecopy_last_error()[0], "'%s' (handle) refused without a message", text);
	}

	/* The other parsers on the same text. */
	if (tilecopy_shape_parse(sh, &srank, TILECOPY_MAX_RANK, text) == TILECOPY_SUCCESS) {
		FZ_CHECK(srank >= 1 && srank <= TILECOPY_MAX_RANK, "shape rank %d", srank);
		for (int k = 0; k < srank; k++)
			FZ_CHECK(sh[k] >= 1, "shape_parse gave %lld", (long long)sh[k]);
	}
	if (tilecopy_dtype_parse(&dt, text) == TILECOPY_SUCCESS)
		FZ_CHECK(tc_dtype_bits(dt), "dtype_parse gave unknown %d", (int)dt);
	(void)tilecopy_status_str((tilecopy_status_t)dtype);
	(void)tc_dtype_name((tilecopy_dtype_t)dtype);
	free(text);
	free(shape);
	return 0;
}
