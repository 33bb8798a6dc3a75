// SPDX-License-Identifier: MIT
/*
 * fuzz_layout.c - libFuzzer target: the CuTe-notation parser.
 *
 * Input: any bytes, taken as the text of a layout (NUL-terminated copy).
 * Checks, for every text the parser accepts:
 *  - print -> parse gives the same layout (shape, stride, profile, modes);
 *  - printing into every too-small buffer is refused, NUL terminated, and
 *    never writes past the buffer (ASan);
 *  - the queries (size, cosize, rank, depth, mode sizes) agree with each
 *    other; for small layouts crd2idx/idx2crd are checked over the domain
 *    and coalesce must give the same function.
 * Any crash, sanitizer report or failed check aborts (a finding).
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

/* Domains up to this size are walked element by element. */
#define FZ_WALK_MAX 4096

static void fz_check_roundtrip(const tilecopy_layout_t *l, const char *text)
{
	char buf[4096];
	tilecopy_layout_t back;
	tilecopy_status_t st;

	st = tc_layout_print(l, buf, sizeof(buf));
	FZ_CHECK(st == TILECOPY_SUCCESS, "print of '%s' failed: %s", text,
		 tilecopy_last_error());
	st = tc_layout_parse(&back, buf);
	FZ_CHECK(st == TILECOPY_SUCCESS, "'%s' printed as '%s', which does not parse: %s",
		 text, buf, tilecopy_last_error());
	FZ_CHECK(back.rank == l->rank && back.nleaves == l->nleaves &&
		 !strcmp(back.profile, l->profile) &&
		 !memcmp(back.shape, l->shape, sizeof(l->shape[0]) * (size_t)l->nleaves) &&
		 !memcmp(back.stride, l->stride, sizeof(l->stride[0]) * (size_t)l->nleaves) &&
		 !memcmp(back.mode, l->mode, sizeof(l->mode[0]) * (size_t)(l->rank + 1)),
		 "'%s' -> '%s' -> a different layout", text, buf);

	/* Every buffer too small by 1..n bytes: refused, terminated, in bounds. */
	size_t need = strlen(buf) + 1;
	for (size_t size = 1; size < need; size += 1 + size / 4) {
		char *small = malloc(size);

		FZ_CHECK(small, "malloc");
		st = tc_layout_print(l, small, size);
		FZ_CHECK(st != TILECOPY_SUCCESS, "print of '%s' into %zu bytes (needs %zu) succeeded",
			 buf, size, need);
		FZ_CHECK(memchr(small, 0, size), "print into %zu bytes not terminated", size);
		free(small);
	}
}

static void fz_check_queries(const tilecopy_layout_t *l)
{
	int64_t size = tc_layout_size(l), cosize = tc_layout_cosize(l);
	int64_t prod = 1;
	int ovf = 0;

	FZ_CHECK(l->rank >= 1 && l->rank <= TILECOPY_MAX_RANK, "rank %d", l->rank);
	FZ_CHECK(l->nleaves >= 1 && l->nleaves <= TILECOPY_MAX_LEAVES, "nleaves %d", l->nleaves);
	FZ_CHECK(l->mode[0] == 0 && l->mode[l->rank] == l->nleaves, "mode table");
	FZ_CHECK(tc_layout_depth(l) >= 0, "depth");
	for (int m = 0; m < l->rank; m++) {
		int64_t ms = tc_layout_mode_size(l, m);

		FZ_CHECK(l->mode[m] < l->mode[m + 1], "mode %d has no leaf", m);
		if (ms < 0 || __builtin_mul_overflow(prod, ms, &prod))
			ovf = 1;
	}
	if (!ovf)
		FZ_CHECK(size == prod, "size %lld != product of mode sizes %lld",
			 (long long)size, (long long)prod);
	if (size < 1 || size > FZ_WALK_MAX || cosize < 1)
		return;

	tilecopy_layout_t co;
	int co_ok = tc_layout_coalesce(&co, l) == TILECOPY_SUCCESS;

	if (co_ok)
		FZ_CHECK(tc_layout_size(&co) == size, "coalesce changed size");
	for (int64_t i = 0; i < size; i++) {
		int64_t crd[TILECOPY_MAX_RANK], idx, cidx, ccrd[TILECOPY_MAX_RANK];

		FZ_CHECK(tc_layout_idx2crd(l, i, crd) == TILECOPY_SUCCESS,
			 "idx2crd(%lld) failed: %s", (long long)i, tilecopy_last_error());
		FZ_CHECK(tc_layout_crd2idx(l, crd, &idx) == TILECOPY_SUCCESS,
			 "crd2idx failed: %s", tilecopy_last_error());
		FZ_CHECK(idx >= 0 && idx < cosize, "offset %lld outside cosize %lld",
			 (long long)idx, (long long)cosize);
		if (co_ok) {
			FZ_CHECK(tc_layout_idx2crd(&co, i, ccrd) == TILECOPY_SUCCESS,
				 "coalesced idx2crd");
			FZ_CHECK(tc_layout_crd2idx(&co, ccrd, &cidx) == TILECOPY_SUCCESS,
				 "coalesced crd2idx");
			FZ_CHECK(cidx == idx, "coalesce: f(%lld) = %lld, was %lld",
				 (long long)i, (long long)cidx, (long long)idx);
		}
	}
}

/* Algebra on arbitrary input: must not crash; results only sanity-checked. */
static void fz_algebra(const tilecopy_layout_t *l)
{
	tilecopy_layout_t r, inv;

	if (tc_layout_right_inverse(&inv, l) == TILECOPY_SUCCESS) {
		int64_t n = tc_layout_size(&inv);

		/* a(R(i)) == i, where defined (CuTe's contract). */
		if (n > 0 && n <= FZ_WALK_MAX && tc_layout_size(l) <= FZ_WALK_MAX) {
			int64_t lsize = tc_layout_size(l);

			for (int64_t i = 0; i < n; i++) {
				int64_t c[TILECOPY_MAX_RANK], j, k;

				if (tc_layout_idx2crd(&inv, i, c) ||
				    tc_layout_crd2idx(&inv, c, &j))
					break;
				if (j < 0 || j >= lsize || tc_layout_idx2crd(l, j, c) ||
				    tc_layout_crd2idx(l, c, &k))
					break;
				FZ_CHECK(k == i, "right_inverse: a(R(%lld)) = %lld",
					 (long long)i, (long long)k);
			}
		}
	}
	(void)tc_layout_complement(&r, l, tc_layout_cosize(l));
	(void)tc_layout_composition(&r, l, l);
	(void)tc_layout_logical_divide(&r, l, l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	tilecopy_layout_t l;

	if (size > 4096)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (tc_layout_parse(&l, text) == TILECOPY_SUCCESS) {
		fz_check_roundtrip(&l, text);
		fz_check_queries(&l);
		fz_algebra(&l);
	} else {
		FZ_CHECK(tilecopy_last_error()[0], "parse failed without a message");
	}
	free(text);
	return 0;
}
