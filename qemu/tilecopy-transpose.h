/*
 * tilecopy: the tile transposes of the engine model (tilecopy-transpose.c).
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */

#ifndef HW_MISC_TILECOPY_TRANSPOSE_H
#define HW_MISC_TILECOPY_TRANSPOSE_H

/*
 * out[c * ostride + r] = row[r][c] for r < @rows, c < @cols: @rows rows of
 * @cols elements of @es bytes (each row contiguous, rows anywhere) into the
 * tile buffer, whose rows are @ostride elements apart.
 */
void tilecopy_transpose(uint8_t *out, const uint8_t *const *row,
                        size_t rows, size_t cols, size_t ostride, unsigned es);

/*
 * drow[c][r] = row[r][c]: the same transpose written straight to the
 * destination rows @drow (each @rows elements), with streaming stores.
 * With @stage (@stage_size bytes of scratch, or NULL), for rows far apart
 * on both sides, where the tile fits: 4- and 8-byte elements (with AVX2)
 * and 1- and 2-byte ones (with AVX-512) are macro tiles, transposed there
 * (one row per destination row) and streamed out a destination row at a
 * time, the columns short of a stage tile by the blocks; 1- and 2-byte
 * elements without AVX-512 (and 4-byte ones without AVX2) copy the source
 * rows there first and the blocks read the copy; either way the same
 * source rows past the columns taken (@cols rounded down to a block; the
 * rest element by element) are prefetched for the next tile. @stage must
 * not overlap @row or @drow; *@staged tells whether the stage was used.
 * Returns false, having written nothing, when it has no kernel for the
 * shape: @es without a SIMD kernel on this host, fewer rows or columns
 * than a kernel block, or destination rows of different alignments.
 */
bool tilecopy_transpose_direct(uint8_t *const *drow,
                               const uint8_t *const *row, size_t rows,
                               size_t cols, unsigned es, uint8_t *stage,
                               size_t stage_size, bool *staged);

/* Columns tilecopy_transpose_direct() needs at least for @es (0: never). */
size_t tilecopy_direct_min_cols(unsigned es);

/*
 * Tiles of too few rows or columns for a block (2 to TILECOPY_FEW_MAX, an
 * image's channels), with streaming stores: tilecopy_interleave() writes
 * @rows source rows to destination rows that are one run at @dst (out[c *
 * rows + r] = row[r][c]); tilecopy_deinterleave() reads source rows that
 * are one run at @src (row r at src + r * cols * es) into @cols
 * destination rows. Each returns false, having written nothing, when it
 * cannot take the tile (the count, no SSSE3, no alignment to work with).
 */
#define TILECOPY_FEW_MAX        15
bool tilecopy_interleave(uint8_t *dst, const uint8_t *const *row,
                         size_t rows, size_t cols, unsigned es);
bool tilecopy_deinterleave(uint8_t *const *drow, const uint8_t *src,
                           size_t rows, size_t cols, unsigned es);

/*
 * drow[c][r] = row[r][c] for blocks of @bsize bytes: @rows source rows of
 * @cols blocks into @cols destination rows of @rows blocks, each
 * destination row written from start to end (streaming stores where the
 * blocks are whole 16-byte units and the rows so aligned).
 */
void tilecopy_transpose_blocks(uint8_t *const *drow, const uint8_t *const *row,
                               size_t rows, size_t cols, size_t bsize);

/*
 * Copy a finished tile out to memory. Large blocks bypass the host caches
 * (streaming stores), as a DMA engine's writes would; tilecopy_store_fence()
 * orders them before anything the engine does next that others can see.
 */
void tilecopy_store(uint8_t *dst, const uint8_t *src, size_t n);
void tilecopy_store_fence(void);

#endif
