/* SPDX-License-Identifier: MIT */
/*
 * fuzz_common.h - helpers of the libFuzzer targets (tests/fuzz/).
 *
 * FZ_CHECK turns a broken property into an abort(), which libFuzzer reports
 * as a crash and saves the input (crash-<sha1>) for the corpus.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TC_FUZZ_COMMON_H
#define TC_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry point, defined by each target. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TC_N(a) (sizeof(a) / sizeof((a)[0]))

#define FZ_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__,	\
			__LINE__, #cond);				\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

/* A byte reader over the fuzzer's input; past the end it gives zeros. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline unsigned fz_u8(struct fz_in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static inline uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v |= (uint32_t)fz_u8(in) << (8 * i);
	return v;
}

static inline uint64_t fz_u64(struct fz_in *in)
{
	return fz_u32(in) | (uint64_t)fz_u32(in) << 32;
}

/* A value in [lo, hi] from one byte. */
static inline int fz_range(struct fz_in *in, int lo, int hi)
{
	return lo + (int)(fz_u8(in) % (unsigned)(hi - lo + 1));
}

#endif /* TC_FUZZ_COMMON_H */
