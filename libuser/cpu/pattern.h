/* SPDX-License-Identifier: MIT */
/*
 * pattern.h - shape analysis shared by the SIMD executors (internal).
 *
 * pattern.c turns a descriptor into a normalised shape (unit dims dropped,
 * mergeable dims coalesced, strides in bytes), recognises the shapes that
 * matter (contiguous, runs, 2-D transposes, fills), blocks them for the
 * caches and splits them over threads. An ISA file only supplies the
 * kernels of struct tc_kernels.
 *
 * Copyright (c) 2026 The tilecopy authors
 */
#ifndef TILECOPY_CPU_PATTERN_H
#define TILECOPY_CPU_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tilecopy_accel.h"

/* Storage for a prepared few-rows program (struct tc_kernels.fr_prepare). */
#define TC_FR_PROG_BYTES	16384

/*
 * struct tc_fr_plan - a few-rows transpose as permutes (tc_fr_build).
 *
 * The destination of a transpose with rows * es < 64 is a stream of rows
 * of @dld bytes: rows * es data bytes, @pad pattern bytes, then a gap up to
 * @dld. A span of @per = vb / es columns is one vector of each source row,
 * loaded once, and @T = dld / es output vectors of @vb bytes, each made
 * from those registers (T = 3 for a C = 3 f32 image and 64-byte vectors:
 * 16 pixels, three loads, three stores). Output t permutes row 0 by
 * @idx[t][0] (with @pair, rows 0 and 1 together: row 1's indices offset by
 * vb), then merges each further row r by @idx[t][r] where @k[t][r], then
 * @patv[t] where @patk[t], and is stored where @storek[t] (every byte
 * unless there are gaps). Indices are of bytes (VBMI's vpermb, AVX2's
 * pshufb, NEON's tbl), one mask bit per byte. An ISA may rewrite the
 * 64-byte slots into its own form.
 */
#define TC_FR_MAXROWS	8
#define TC_FR_MAXT	16

struct tc_fr_plan {
	uint8_t idx[TC_FR_MAXT][TC_FR_MAXROWS][64];
	uint8_t patv[TC_FR_MAXT][64];
	uint64_t k[TC_FR_MAXT][TC_FR_MAXROWS];
	uint64_t patk[TC_FR_MAXT], storek[TC_FR_MAXT];
	size_t rows, dld, pad, T, per;
	unsigned es;
	int gaps;
	unsigned char pat[64];
};

/**
 * tc_fr_build - the program of a few-rows transpose for vectors of @vb
 * bytes and byte permutes (@pair: rows 0 and 1 in one two-source
 * permute). @return 0, or -1 if the shape needs more than TC_FR_MAXROWS
 * rows or TC_FR_MAXT outputs.
 */
int tc_fr_build(struct tc_fr_plan *p, unsigned vb, int pair, size_t rows,
		unsigned es, size_t dld, size_t pad, const unsigned char pat[64]);

/*
 * TC_FR_SPAN - one span of a program whose slots an ISA rewrote for a
 * byte-table lookup @shuf that gives 0 for an index of 0x80 (AVX2's
 * pshufb, NEON's tbl), pattern bytes 0 where the rows supply the byte:
 * @R rows loaded by @ld_row at column @c, then for t < @T (p->T, in a
 * local: stores through char * may alias @p) the output, the OR (@vor)
 * of one lookup per row and of the pattern, goes to @store(dst, T, t,
 * out). @R is a constant and the row loops are unrolled so that the rows
 * stay in registers (rolled, NEON kept them on the stack).
 */
#define TC_FR_SPAN(vec_t, R, T, p, dst, src, sld, c, ld_row, ld_slot, shuf, vor, store) \
	do {								\
		vec_t v_[R];						\
									\
		_Pragma("GCC unroll 8")					\
		for (int r_ = 0; r_ < (R); r_++)			\
			v_[r_] = ld_row((src) + r_ * (sld) + (c) * (p)->es); \
		for (size_t t_ = 0; t_ < (T); t_++) {			\
			vec_t o_ = shuf(v_[0], ld_slot((p)->idx[t_][0]));	\
									\
			_Pragma("GCC unroll 8")				\
			for (int r_ = 1; r_ < (R); r_++)		\
				o_ = vor(o_, shuf(v_[r_], ld_slot((p)->idx[t_][r_]))); \
			if ((p)->patk[t_])				\
				o_ = vor(o_, ld_slot((p)->patv[t_]));	\
			store(dst, T, t_, o_);				\
		}							\
	} while (0)

/**
 * struct tc_kernels - what one instruction set provides.
 * @copy: @bytes contiguous bytes; @nt allows non-temporal stores (the
 *	caller issues @sfence after the descriptor).
 * @fill: @bytes at @dst with @pat repeated (@pat is what dst[0..63] holds;
 *	its period divides 64).
 * @runs: @count runs of @run bytes, the i-th from src + i * sld to
 *	dst + i * dld (runs shorter than 256 bytes: fractal formats).
 * @transpose: indexed by log2(elem_size): element (r, c) of a @rows x @cols
 *	block, read at src + r * sld + c * es, is written at
 *	dst + c * dld + r * es. Any sizes; edges are the kernel's business.
 *	@nt allows non-temporal stores.
 * @fr_prepare: optional (NULL: none). A few-rows transpose, rows * es
 *	under 64 bytes (a C = 1..15 image to NHWC): destination rows of
 *	@rows * @es bytes followed by @pad bytes of @pat (a fused FILL),
 *	@dld apart. Writes a program into @prog (TC_FR_PROG_BYTES, 64-byte
 *	aligned) and returns 0, or returns -1 when this ISA has no kernel for
 *	the shape; @fr_run then transposes @cols columns with it.
 * @fractal: optional, by log2(elem_size) (NULL: none): one whole fractal
 *	of B x B elements, B = 32 / es, contiguous on both sides (zN <-> nZ):
 *	element (r, c) at src + 32 r + es c goes to dst + 32 c + es r.
 * @runs_pairs: optional (NULL: none). Runs of 32 bytes transposed two by
 *	two (RowMajor <-> zN, zZ, nN of 32-byte fractal rows): run (r, c) of
 *	@rows x @cols, both even, read at src + r * sld + 32 c, goes to
 *	dst + c * dld + 32 r. Runs (r, c) and (r, c + 1) are one 64-byte
 *	source piece, read once; runs (r, c) and (r + 1, c) one 64-byte
 *	destination piece, written at once (streamed when @nt and @dst and
 *	@dld are multiples of 64). Columns in pairs outside, rows inside.
 * @tr_split4: optional (NULL, or returning 0 for a shape it declines: a
 *	byte transpose into a stage, then a portable split). A tile of a
 *	4-bit transpose whose channels are the destination rows (int4 NCHW ->
 *	NCHW64, NCHW32, NHWC, ...): @rows (even, at most 64) source rows of
 *	@cols bytes, @sld apart; byte c of row k holds pixels 2c (low nibble)
 *	and 2c + 1 (high) of channel k. Pixel p's @rows channels go to
 *	@rows / 2 bytes at dst + p * dld, channel 2j in byte j's low nibble,
 *	2j + 1 in its high one; the bytes between are kept. @nt allows
 *	non-temporal stores (the caller issues @sfence after the descriptor);
 *	AVX-512 streams 64 channels of back-to-back pixels (@dld 32) whose
 *	@dst is on a line. Returns 1 when done.
 * @sfence: orders non-temporal stores (NULL when no kernel uses them).
 */
struct tc_kernels {
	const char *name;	/* the executor's: its conversion kernels (tc_cvt_for_executor) */
	void (*copy)(char *dst, const char *src, size_t bytes, int nt);
	void (*fill)(char *dst, const unsigned char pat[64], size_t bytes, int nt);
	void (*runs)(char *dst, size_t dld, const char *src, size_t sld,
		     size_t run, size_t count, int nt);
	void (*transpose[4])(char *dst, size_t dld, const char *src, size_t sld,
			     size_t rows, size_t cols, int nt);
	int (*fr_prepare)(void *prog, size_t rows, unsigned es, size_t dld,
			  size_t pad, const unsigned char pat[64]);
	void (*fr_run)(const void *prog, char *dst, const char *src, size_t sld,
		       size_t cols, int nt);
	void (*fractal[4])(char *dst, const char *src, int nt);
	void (*runs_pairs)(char *dst, size_t dld, const char *src, size_t sld,
			   size_t rows, size_t cols, int nt);
	int (*tr_split4)(char *dst, size_t dld, const char *src, size_t sld,
			 size_t rows, size_t cols, int nt);
	void (*sfence)(void);
};

/**
 * tc_exec_kernels - run @n descriptors with the kernels @k; @scales as
 * tc_exec_scales_fn (cpu_exec.h) says.
 */
int tc_exec_kernels(const struct tc_kernels *k,
		    const struct drm_tilecopy_desc *descs, size_t n,
		    const void *src, void *dst, const float *scales);

/* tc_direct_run - as tc_direct_fn (cpu_exec.h), with the kernels @k. */
int tc_direct_run(const struct tc_kernels *k, const struct tc_direct *dc,
		  const void *src, void *dst);

/*
 * TC_DEFINE_EXEC - an executor's three entry points (struct
 * tc_cpu_backend): @fn (no scales), @fn_scales and @fn_direct, over the
 * kernels @k.
 */
#define TC_DEFINE_EXEC(fn, k)						\
static int fn##_scales(const struct drm_tilecopy_desc *descs, size_t n,	\
		       const void *src, void *dst, const float *scales)	\
{									\
	return tc_exec_kernels(&(k), descs, n, src, dst, scales);	\
}									\
static int fn(const struct drm_tilecopy_desc *descs, size_t n,		\
	      const void *src, void *dst)				\
{									\
	return fn##_scales(descs, n, src, dst, NULL);			\
}									\
static int fn##_direct(const struct tc_direct *dc, const void *src,	\
		       void *dst)					\
{									\
	return tc_direct_run(&(k), dc, src, dst);			\
}

struct tc_cvt_kernels;

/*
 * tc_cvt_for_executor - the conversion kernel set executor @exec uses:
 * avx512 -> avx512bf16 or avx512, avx2 -> avx2, sse2 -> scalar, neon ->
 * neonbf16 or neon (the first this CPU runs), anything else scalar.
 */
const struct tc_cvt_kernels *tc_cvt_for_executor(const char *exec);

/*
 * tc_typed_exec - a typed descriptor (ABI 1.2) that is more than a byte
 * copy (tc_typed_as_untyped said no), on up to @nthr threads.
 * @return 0, or -EINVAL for an op or types it cannot run.
 */
int tc_typed_exec(const struct tc_kernels *k, const struct drm_tilecopy_desc *d,
		  const void *src, void *dst, const float *scales, unsigned nthr);

/*
 * tc_typed_cuts - where a typed COPY is cut into up to @n parts for
 * threads: along a dim of @ext indices, @stride elements apart, the
 * outermost of a destination whose other dims span @inner elements, from
 * element @first of the base. @cut[0..m] are the parts' bounds (cut[0] 0,
 * cut[m] @ext); for @bits 4 no two parts write nibbles of one byte.
 * @return m, the number of parts (1: no cut is safe).
 */
unsigned tc_typed_cuts(int64_t first, int64_t stride, int64_t ext, int64_t inner,
		       unsigned int bits, unsigned n, int64_t *cut);

/**
 * tc_transpose_scalar - the element loop of a transpose block (edges),
 * one typed loop per element size (no memcpy call per element).
 */
void tc_transpose_scalar(char *dst, size_t dld, const char *src, size_t sld,
			 size_t rows, size_t cols, unsigned es);

/*
 * tc_fr_tail - the columns a few-rows program leaves: @rows elements and
 * @pad pattern bytes per destination row, element by element.
 */
void tc_fr_tail(char *dst, size_t dld, const char *src, size_t sld,
		size_t rows, size_t cols, unsigned es, size_t pad,
		const unsigned char pat[64]);

/*
 * TC_DEFINE_EDGE - the element loop of a transpose edge for one element
 * type: a typed load and store per element, columns outer so each
 * destination row is written in order.
 */
#define TC_DEFINE_EDGE(fn, type)					\
static inline void fn(char *dst, size_t dld, const char *src, size_t sld, \
		      size_t rows, size_t cols)			\
{									\
	for (size_t c_ = 0; c_ < cols; c_++)				\
		for (size_t r_ = 0; r_ < rows; r_++) {			\
			type v_;					\
			memcpy(&v_, src + r_ * sld + c_ * sizeof(type), sizeof(type)); \
			memcpy(dst + c_ * dld + r_ * sizeof(type), &v_, sizeof(type)); \
		}							\
}
TC_DEFINE_EDGE(tc_edge1, uint8_t)
TC_DEFINE_EDGE(tc_edge2, uint16_t)
TC_DEFINE_EDGE(tc_edge4, uint32_t)
TC_DEFINE_EDGE(tc_edge8, uint64_t)

/* Bytes of one descriptor's output above which stores go non-temporal. */
#define TC_NT_THRESHOLD	(4u << 20)

/*
 * TC_DEFINE_TILE - one register tile: @n x @n elements per 16-byte lane
 * (n = 16 / elem_size), @L lanes stacked over rows: src rows
 * [0, L*n) x cols [0, n) become dst rows [0, n) of L*n elements, one full
 * vector store each. The in-lane transpose is log2(n) rounds of unpacks of
 * the element width (the perfect-shuffle transpose).
 */
#define TC_TILE_BODY(vec_t, n, unlo, unhi)				\
	_Pragma("GCC unroll 4")						\
	for (int s_ = 1; s_ < (n); s_ <<= 1) {				\
		vec_t t_[n];						\
		_Pragma("GCC unroll 16")				\
		for (int i_ = 0; i_ < (n) / 2; i_++) {			\
			t_[2 * i_] = unlo(r_[i_], r_[i_ + (n) / 2]);	\
			t_[2 * i_ + 1] = unhi(r_[i_], r_[i_ + (n) / 2]); \
		}							\
		_Pragma("GCC unroll 16")				\
		for (int i_ = 0; i_ < (n); i_++)			\
			r_[i_] = t_[i_];				\
	}

#define TC_DEFINE_TILE(fn, vec_t, n, load_lanes, store, unlo, unhi)	\
static inline __attribute__((always_inline)) void				\
fn(char *dst, size_t dld, const char *src, size_t sld)			\
{									\
	vec_t r_[n];							\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (n); i_++)				\
		r_[i_] = load_lanes(src + i_ * sld, (n) * sld);		\
	TC_TILE_BODY(vec_t, n, unlo, unhi)				\
	_Pragma("GCC unroll 16")					\
	for (int i_ = 0; i_ < (n); i_++)				\
		store(dst + i_ * dld, r_[i_]);				\
}

/*
 * TC_BLOCK_BAND - transpose rows [r, r + R) x all cols of a block with the
 * tile @tile (R = rows per tile, n = cols per tile, each tile writes @vb
 * bytes per destination row); leftover cols go to @edge(dst, dld, src,
 * sld, rows, cols).
 *
 * With @nt, @tile_nt (non-temporal @vb-byte stores) is used where whole
 * 64-byte lines are written back to back: a partial line left in a
 * write-combining buffer goes to memory as a slow partial write. So either
 * the stores are full lines (@vb 64), or a destination row is @vb bytes
 * (consecutive tiles continue the same lines), or 64 / @vb tiles stacked
 * over rows fill each line before moving on (a "line group").
 *
 * TC_BLOCK_BAND_LINES with @stage (a constant): a line group's tiles are
 * written with @tile into a 64-byte-per-row buffer on the stack, then
 * @line_nt streams each line whole. Tiles of 8- and 16-bit elements have
 * 16 or 8 destination rows: streamed in place, that many lines were open
 * at once, more than the write-combining buffers (AMD EPYC Zen 3, 8000^2
 * u8: 3.3-3.8 GB/s in place, 5.6-8.7 staged).
 */
static inline void tc_line_none(char *dst, const char *line)
{
	(void)dst, (void)line;
}

/*
 * Staged line groups cover a whole destination row where rows are 128 or
 * 256 bytes apart and packed (NCHW -> NHWC of 64 16-bit channels: each
 * row streamed out in one piece, not as two lines written a band apart;
 * padded rows keep 64-byte groups), and those prefetch their source rows
 * TC_GROUP_PREFETCH bytes ahead once per 64 bytes of columns: 64-256
 * rows, each read 16 bytes per tile, are more streams than the hardware
 * prefetchers follow. Into L1 (T0): a row's prefetched lines are read
 * within the next 1 KB of columns, and the group's stage is 1-4 KB (the
 * macro tiles prefetch towards L2 because their 32 KB stage fills L1).
 * AMD EPYC Zen 3, NCHW -> NHWC f16 32x64x56x56, one thread, builds
 * alternated: 8.4-8.8 GB/s before, 9.5-11.4 with whole rows, 13.8-14.3
 * with the prefetch too (256 bytes ahead: 11.7-12.3, 2 KB alike); u8
 * with 128 channels 7.4 -> 9.1.
 * The prefetch lost in 64-byte groups (transpose-8000-u8 12.2 -> 10.9)
 * and in the unstaged f32 ones (12.4-14.0 -> 11.5-12.1).
 */
#define TC_GROUP_PREFETCH	1024u

/* @n rows @sld apart from @src, TC_GROUP_PREFETCH bytes on (no fault). */
static inline void tc_group_prefetch(const char *src, size_t sld, size_t n)
{
	uintptr_t p = (uintptr_t)src + TC_GROUP_PREFETCH;

	for (size_t i = 0; i < n; i++, p += sld)
		__builtin_prefetch((const void *)p, 0, 3);
}

/*
 * TC_GROUPS - line groups of @gb bytes per destination row (a constant:
 * 64, or a whole row of 128 or 256 bytes when staged) from row r on, in
 * the caller's r, rows, cols, src, sld, dst, dld (TC_BLOCK_BAND_LINES).
 */
#define TC_GROUPS(tile, tile_nt, R, n, es, vb, edge, stage, line_nt, gb) \
	for (; r + ((gb) / (vb)) * (R) <= rows; r += ((gb) / (vb)) * (R)) { \
		_Alignas(64) char st_[(n) * (gb)];			\
		size_t c_ = 0;						\
		for (; c_ + (n) <= cols; c_ += (n)) {			\
			if (stage) {					\
				if ((gb) > 64 && !((c_ * (es)) & 63))	\
					tc_group_prefetch(src + r * sld + c_ * (es), \
							  sld, ((gb) / (vb)) * (R)); \
				for (size_t g_ = 0; g_ < (gb) / (vb); g_++) \
					tile(st_ + g_ * (vb), (gb),	\
					     src + (r + g_ * (R)) * sld + c_ * (es), \
					     sld);				\
				for (size_t i_ = 0; i_ < (n); i_++)	\
					for (size_t l_ = 0; l_ < (gb); l_ += 64) \
						line_nt(dst + (c_ + i_) * dld + r * (es) + l_, \
							st_ + (gb) * i_ + l_); \
				continue;				\
			}						\
			for (size_t g_ = 0; g_ < (gb) / (vb); g_++)	\
				tile_nt(dst + c_ * dld + (r + g_ * (R)) * (es), \
					dld, src + (r + g_ * (R)) * sld + c_ * (es), \
					sld);					\
		}							\
		if (c_ < cols)						\
			edge(dst + c_ * dld + r * (es), dld,		\
			     src + r * sld + c_ * (es), sld,		\
			     ((gb) / (vb)) * (R), cols - c_);		\
	}

#define TC_BLOCK_BAND(tile, tile_nt, R, n, es, vb, edge)		\
	TC_BLOCK_BAND_LINES(tile, tile_nt, R, n, es, vb, edge, 0, tc_line_none)
#define TC_BLOCK_BAND_LINES(tile, tile_nt, R, n, es, vb, edge, stage, line_nt) \
	if (nt && (vb) < 64 && !(((uintptr_t)(dst + r * (es)) | dld) & 63)) { \
		if ((stage) && dld == 128) {				\
			TC_GROUPS(tile, tile_nt, R, n, es, vb, edge, stage, line_nt, 128) \
		}							\
		if ((stage) && dld == 256) {				\
			TC_GROUPS(tile, tile_nt, R, n, es, vb, edge, stage, line_nt, 256) \
		}							\
		TC_GROUPS(tile, tile_nt, R, n, es, vb, edge, stage, line_nt, 64) \
	}								\
	for (; r + (R) <= rows; r += (R)) {				\
		size_t c_ = 0;						\
		if (nt && ((vb) == 64 || dld == (vb)) &&		\
		    !(((uintptr_t)(dst + r * (es)) | dld) & ((vb) - 1)))	\
			for (; c_ + (n) <= cols; c_ += (n))		\
				tile_nt(dst + c_ * dld + r * (es), dld,	\
					src + r * sld + c_ * (es), sld); \
		else							\
			for (; c_ + (n) <= cols; c_ += (n))		\
				tile(dst + c_ * dld + r * (es), dld,	\
				     src + r * sld + c_ * (es), sld);	\
		if (c_ < cols)						\
			edge(dst + c_ * dld + r * (es), dld,		\
			     src + r * sld + c_ * (es), sld, (R), cols - c_); \
	}

/*
 * TC_DEFINE_MACRO_TILES - @fn(dst, dld, src, sld, rows, cols) transposes
 * the first rows of a block in macro tiles and returns how many it did (a
 * multiple of TC_MT_BURST / @es; the caller does the rest). Only where
 * TC_MT_APPLIES: streamed output, the destination and its row pitch
 * multiples of 64 bytes, 32 or more destination rows at least 1 KiB
 * apart, and a macro tile's rows (TC_MT_BURST / @es) or more.
 *
 * A macro tile is a burst of TC_MT_BURST bytes (4 lines) of up to
 * TC_MT_COLS destination rows. Its register tiles (@tile: @R rows x @n
 * cols, one @vb-byte store per destination row) go into a 32 KB stack
 * stage band of @R source rows by band, each band's rows read in order
 * across the macro tile's columns; then each stage row is streamed out
 * whole by @line_nt, and between rows @prefetch brings the next macro
 * tile's source lines towards L2 (the stage keeps L1 busy). Columns
 * left over (fewer than @n) go to @edge.
 *
 * Before, a line group wrote one line into each of many destination
 * rows in turn, and runs of lines (NHWC -> NCHW) read the source a
 * column of tiles at a time; with destination rows 4 KB apart (NCHW ->
 * NHWC of 1024 channels) that ran at 0.25-0.3x the streaming limit.
 * AMD EPYC Zen 3, builds alternated, GB/s: 256x1024x7x7 f32 5.7-5.9 ->
 * 13.1-15.4 on one thread, 9.3 -> 23.1 on two; 8x1024x56x56 f32 5.8-6.1
 * -> 10.6-11.7; u8 NHWC -> NCHW 9.5-10.6 -> 14.3-15.4; NHWC -> NCHW f32
 * 13.3-16.0 -> 14.6-17.4 (two threads 21.0 -> 23.4), f16 alike
 * (docs/performance.md, "Macro tiles"). Tried and slower: 512-byte bursts
 * (7x7 f32 12.3 GB/s), a 16 KB stage, two 16 KB stages alternating (the
 * previous one streamed between the next one's bands), no prefetch
 * (5-10%). The 1 KiB floor: into destination rows 256 bytes apart (NCHW
 * -> NHWC of 64 channels, one contiguous output) macro tiles ran at 0.46x
 * the limit against 0.82x in line groups, 512 bytes apart alike, 1 KiB
 * apart better (0.37x -> 0.54x).
 */
#define TC_MT_BURST	256u
#define TC_MT_STAGE	32768u
#define TC_MT_COLS	(TC_MT_STAGE / TC_MT_BURST)
#define TC_MT_MIN_COLS	32
#define TC_MT_MIN_DLD	1024u

#define TC_MT_APPLIES(nt, dst, dld, rows, cols, es)			\
	((nt) && (cols) >= TC_MT_MIN_COLS && (dld) >= TC_MT_MIN_DLD &&	\
	 (rows) >= TC_MT_BURST / (es) && !(((uintptr_t)(dst) | (dld)) & 63))

/*
 * TC_MT_WIDTH - the columns of the macro tile from column @c: whole
 * register tiles of @n columns, up to TC_MT_COLS.
 */
#define TC_MT_WIDTH(cols, c, n)						\
	((cols) - (c) < TC_MT_COLS ? ((cols) - (c)) / (n) * (n) : TC_MT_COLS)

/*
 * Source rows @j0..@j1 of the macro tile at @nx, @w bytes each, towards
 * L2: a prefetch per line, the last one at the row's last byte (a row off
 * its lines ends in one more line), no address past the row.
 */
#define TC_MT_PREFETCH(prefetch, nx, sld, j0, j1, w)			\
	for (size_t j_ = (j0); j_ < (j1); j_++) {			\
		for (size_t b_ = 0; b_ < (w); b_ += 64)			\
			prefetch((nx) + j_ * (sld) + b_);		\
		prefetch((nx) + j_ * (sld) + (w) - 1);			\
	}

/*
 * A macro tile's @prefetch of x86 executors: towards L2 (locality 2 is
 * prefetcht1: AMD's L2, Intel's L2 and L3); the stage holds L1.
 */
static inline void tc_prefetch_l2(const char *p)
{
	__builtin_prefetch((const void *)p, 0, 2);
}

#define TC_DEFINE_MACRO_TILES(fn, tile, R, n, es, vb, edge, line_nt, prefetch) \
/* not inlined: the stage is on the stack only while macro tiles run */ \
static __attribute__((noinline)) size_t					\
fn(char *dst, size_t dld, const char *src, size_t sld, size_t rows,	\
   size_t cols)								\
{									\
	enum { MR_ = TC_MT_BURST / (es), LPB_ = TC_MT_BURST / 64 };	\
	_Alignas(64) char st_[TC_MT_STAGE];				\
	size_t rr_ = rows / MR_ * MR_;					\
									\
	_Static_assert((R) * (es) == (vb) && TC_MT_BURST % (vb) == 0,	\
		       "a register tile fills vb bytes of a burst");	\
	for (size_t r0 = 0; r0 < rr_; r0 += MR_) {			\
		size_t c0 = 0;						\
									\
		while (c0 + (n) <= cols) {				\
			size_t mc = TC_MT_WIDTH(cols, c0, n);		\
			/* the next macro tile: along these rows, or the next */ \
			size_t nc = c0 + mc + (n) <= cols ? c0 + mc : 0; \
			size_t nr = nc ? r0 : r0 + MR_;			\
			size_t npr = nr < rr_ ? MR_ : 0;		\
			size_t nw = TC_MT_WIDTH(cols, nc, n) * (es);	\
			const char *nx = npr ? src + nr * sld + nc * (es) : src; \
									\
			for (size_t g = 0; g < MR_; g += (R))		\
				for (size_t c = 0; c < mc; c += (n))	\
					tile(st_ + c * TC_MT_BURST + g * (es), \
					     TC_MT_BURST,		\
					     src + (r0 + g) * sld + (c0 + c) * (es), \
					     sld);			\
			for (size_t i = 0; i < mc; i++) {		\
				char *d_ = dst + (c0 + i) * dld + r0 * (es); \
									\
				for (size_t l = 0; l < LPB_; l++)	\
					line_nt(d_ + 64 * l,		\
						st_ + i * TC_MT_BURST + 64 * l); \
				TC_MT_PREFETCH(prefetch, nx, sld, npr * i / mc, \
					       npr * (i + 1) / mc, nw);	\
			}						\
			c0 += mc;					\
		}							\
		if (c0 < cols)						\
			edge(dst + c0 * dld + r0 * (es), dld,		\
			     src + r0 * sld + c0 * (es), sld, MR_, cols - c0); \
	}								\
	return rr_;							\
}

/*
 * TC_RUNS_PAIRS_PREFETCH - in a @runs_pairs kernel, the pieces four pairs
 * on along both source rows of @s (@sld apart) towards L1: each row is a
 * stream the kernel advances 64 bytes a column pair, 16 of them at once
 * (rows a multiple of 4 KB apart, 4, 8 or 128 KB: one L1 set). AMD EPYC
 * Zen 5, one thread, x the limit: RowMajor -> zN f16 0.75-0.91x ->
 * 0.89-0.92x, zN -> RowMajor f16 0.65-0.77x -> 0.81-0.89x, i8 alike
 * (docs/performance.md, "Runs in pairs"); 1 KB ahead no better. Addresses
 * as integers: a hint, it may point past the tensor.
 */
#define TC_RUNS_PAIRS_PREFETCH(s, sld)					\
	do {								\
		__builtin_prefetch((const void *)((uintptr_t)(s) + 256), 0, 3); \
		__builtin_prefetch((const void *)((uintptr_t)(s) + (sld) + 256), \
				   0, 3);				\
	} while (0)

/*
 * TC_DEFINE_RUNS_PAIRS - struct tc_kernels' @runs_pairs from @vb-byte
 * vectors (16 or 32; @LD, @ST, and @STREAM for streamed stores, or @ST
 * again): the two source pieces' vectors loaded, then each destination
 * line's stored together.
 */
#define TC_DEFINE_RUNS_PAIRS(fn, vec_t, vb, LD, ST, STREAM)		\
static void fn(char *dst, size_t dld, const char *src, size_t sld,	\
	       size_t rows, size_t cols, int nt)			\
{									\
	enum { N_ = 32 / (vb) };	/* vectors a run */		\
	int st_ = nt && !(((uintptr_t)dst | dld) & 63);		\
									\
	for (size_t c = 0; c < cols; c += 2)				\
		for (size_t r = 0; r < rows; r += 2) {			\
			const char *s_ = src + r * sld + c * 32;	\
			char *d_ = dst + c * dld + r * 32;		\
			vec_t v_[4 * N_];				\
									\
			TC_RUNS_PAIRS_PREFETCH(s_, sld);		\
			_Pragma("GCC unroll 2")				\
			for (int h = 0; h < N_; h++) {			\
				v_[h] = LD(s_ + (vb) * h);		\
				v_[N_ + h] = LD(s_ + sld + (vb) * h);	\
				v_[2 * N_ + h] = LD(s_ + 32 + (vb) * h); \
				v_[3 * N_ + h] = LD(s_ + sld + 32 + (vb) * h); \
			}						\
			_Pragma("GCC unroll 8")				\
			for (int u = 0; u < 4 * N_; u++) {		\
				char *o_ = d_ + u / (2 * N_) * dld +	\
					   (vb) * (u % (2 * N_));	\
									\
				if (st_)				\
					STREAM(o_, v_[u]);		\
				else					\
					ST(o_, v_[u]);			\
			}						\
		}							\
}

/*
 * TC_RUNS_VEC - in a runs kernel: runs of 1..4 vectors of @vb bytes, with
 * non-temporal stores when allowed, aligned, and writing whole lines back
 * to back (runs end to end, or whole lines each). Returns when it applies.
 */
#define TC_RUNS_VEC(vb, LD, ST, STREAM)					\
	if (run % (vb) == 0 && run <= 4 * (vb)) {			\
		size_t m_ = run / (vb), i_, j_;				\
		if (nt && (dld == run || run % 64 == 0) &&		\
		    !(((uintptr_t)dst | dld) & ((vb) - 1))) {		\
			for (i_ = 0; i_ < count; i_++)			\
				for (j_ = 0; j_ < m_; j_++)		\
					STREAM(dst + i_ * dld + j_ * (vb), \
					       LD(src + i_ * sld + j_ * (vb))); \
		} else {						\
			for (i_ = 0; i_ < count; i_++)			\
				for (j_ = 0; j_ < m_; j_++)		\
					ST(dst + i_ * dld + j_ * (vb),	\
					   LD(src + i_ * sld + j_ * (vb))); \
		}							\
		return;							\
	}

static inline size_t tc_gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* tc_pat_rotate - the fill pattern as seen from byte @off of the region. */
static inline void tc_pat_rotate(unsigned char out[64],
				 const unsigned char pat[64], size_t off)
{
	for (unsigned i = 0; i < 64; i++)
		out[i] = pat[(off + i) & 63];
}

#endif /* TILECOPY_CPU_PATTERN_H */
