/*
 * tilecopy: the tile transposes of the engine model.
 *
 * The engine's transposing copy (docs/hardware.md, 5.3) gathers a tile of
 * source rows, transposes it and writes destination rows. On the host that
 * runs the model, the time goes into memory traffic, so the transposes are
 * SIMD blocks and the destination is written with streaming stores in
 * whole cache lines, as a DMA engine's writes would be: no read for
 * ownership of the destination lines, no eviction of the source.
 *
 * Two forms: into the tile buffer (any shape, any element size), and
 * straight from the source rows into the destination rows when every
 * destination row of the tile is mapped. The second saves a pass through
 * the buffer; tilecopy.c picks it when it can and the results are the same.
 *
 * Copyright (c) 2026 The tilecopy authors
 *
 * SPDX-License-Identifier: MIT
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/host-utils.h"
#include "tilecopy-transpose.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TILECOPY_X86 1
#endif

/*
 * Elements as the scalar paths read and write them. A guest's rows need
 * not be aligned to their elements (a 4-byte element at an odd address is
 * a valid descriptor), and a load through a plain uint32_t * of such an
 * address is undefined: the compiler may assume the alignment (UBSan's
 * "load of misaligned address"). These types have an alignment of 1, and
 * on x86 cost nothing.
 */
typedef uint16_t tilecopy_u16 __attribute__((aligned(1), may_alias));
typedef uint32_t tilecopy_u32 __attribute__((aligned(1), may_alias));
typedef uint64_t tilecopy_u64 __attribute__((aligned(1), may_alias));

/* ---- into the tile buffer ----------------------------------------------- */

#ifdef TILECOPY_X86
/*
 * 8x8 blocks of 32-bit elements with AVX2 (half the instructions of the
 * SSE2 4x4 blocks); used when the host has AVX2. Returns the rows done.
 */
__attribute__((target("avx2")))
static size_t tilecopy_transpose32_avx2(uint32_t *out,
                                        const uint8_t *const *row,
                                        size_t rows, size_t cols,
                                        size_t ostride);
#endif

static bool tilecopy_has_avx2(void)
{
#ifdef TILECOPY_X86
    static int avx2 = -1;

    if (avx2 < 0) {
        avx2 = __builtin_cpu_supports("avx2");
    }
    return avx2;
#else
    return false;
#endif
}

#ifdef TILECOPY_X86
/*
 * AVX-512 F and BW: the macro tiles' stage tiles of 1- and 2-byte
 * elements (with the AVX2 blocks and streaming: a VM may offer AVX-512F
 * without AVX2).
 */
static bool tilecopy_has_avx512(void)
{
    static int avx512 = -1;

    if (avx512 < 0) {
        avx512 = tilecopy_has_avx2() &&
                 __builtin_cpu_supports("avx512f") &&
                 __builtin_cpu_supports("avx512bw");
    }
    return avx512;
}
#endif

void tilecopy_transpose(uint8_t *out, const uint8_t *const *row,
                        size_t rows, size_t cols, size_t ostride, unsigned es)
{
    size_t r = 0, c, r0;

#ifdef TILECOPY_X86
    if (es == 4 && tilecopy_has_avx2()) {
        r = tilecopy_transpose32_avx2((uint32_t *)out, row, rows, cols,
                                       ostride);
    }
    if (es == 4) {
        uint32_t *o32 = (uint32_t *)out;

        for (; r + 4 <= rows; r += 4) {
            const tilecopy_u32 *i0 = (const tilecopy_u32 *)row[r];
            const tilecopy_u32 *i1 = (const tilecopy_u32 *)row[r + 1];
            const tilecopy_u32 *i2 = (const tilecopy_u32 *)row[r + 2];
            const tilecopy_u32 *i3 = (const tilecopy_u32 *)row[r + 3];

            for (c = 0; c + 4 <= cols; c += 4) {
                __m128i a, b, d, e, t0, t1, t2, t3;

                a = _mm_loadu_si128((const __m128i *)(i0 + c));
                b = _mm_loadu_si128((const __m128i *)(i1 + c));
                d = _mm_loadu_si128((const __m128i *)(i2 + c));
                e = _mm_loadu_si128((const __m128i *)(i3 + c));
                t0 = _mm_unpacklo_epi32(a, b);
                t1 = _mm_unpacklo_epi32(d, e);
                t2 = _mm_unpackhi_epi32(a, b);
                t3 = _mm_unpackhi_epi32(d, e);

                _mm_storeu_si128((__m128i *)(o32 + (c + 0) * ostride + r),
                                 _mm_unpacklo_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(o32 + (c + 1) * ostride + r),
                                 _mm_unpackhi_epi64(t0, t1));
                _mm_storeu_si128((__m128i *)(o32 + (c + 2) * ostride + r),
                                 _mm_unpacklo_epi64(t2, t3));
                _mm_storeu_si128((__m128i *)(o32 + (c + 3) * ostride + r),
                                 _mm_unpackhi_epi64(t2, t3));
            }
            for (; c < cols; c++) {
                for (r0 = r; r0 < r + 4; r0++) {
                    o32[c * ostride + r0] = ((const tilecopy_u32 *)row[r0])[c];
                }
            }
        }
    }
#endif
    /* The rest (and every other size): blocks of 8 rows for locality. */
    for (; r < rows; r += 8) {
        size_t rn = MIN(rows, r + 8);

#define TILECOPY_T(type)                                                \
        do {                                                            \
            type *ot = (type *)out;                                     \
            for (c = 0; c < cols; c++) {                                \
                for (r0 = r; r0 < rn; r0++) {                           \
                    ot[c * ostride + r0] = ((const type *)row[r0])[c];  \
                }                                                       \
            }                                                           \
        } while (0)
        switch (es) {
        case 1:
            TILECOPY_T(uint8_t);
            break;
        case 2:
            TILECOPY_T(tilecopy_u16);
            break;
        case 4:
            TILECOPY_T(tilecopy_u32);
            break;
        default:
            TILECOPY_T(tilecopy_u64);
            break;
        }
#undef TILECOPY_T
    }
}

/* ---- SIMD blocks -------------------------------------------------------- */

#ifdef TILECOPY_X86
/* Columns 0..7 of the 8 rows in[0..7] of 32-bit elements into o[0..7]. */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_t32x8(const uint8_t *const *in, size_t off,
                                  __m256i *o)
{
    __m256i a0 = _mm256_loadu_si256((const __m256i *)(in[0] + off));
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(in[1] + off));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(in[2] + off));
    __m256i a3 = _mm256_loadu_si256((const __m256i *)(in[3] + off));
    __m256i a4 = _mm256_loadu_si256((const __m256i *)(in[4] + off));
    __m256i a5 = _mm256_loadu_si256((const __m256i *)(in[5] + off));
    __m256i a6 = _mm256_loadu_si256((const __m256i *)(in[6] + off));
    __m256i a7 = _mm256_loadu_si256((const __m256i *)(in[7] + off));
    __m256i b0 = _mm256_unpacklo_epi32(a0, a1);
    __m256i b1 = _mm256_unpackhi_epi32(a0, a1);
    __m256i b2 = _mm256_unpacklo_epi32(a2, a3);
    __m256i b3 = _mm256_unpackhi_epi32(a2, a3);
    __m256i b4 = _mm256_unpacklo_epi32(a4, a5);
    __m256i b5 = _mm256_unpackhi_epi32(a4, a5);
    __m256i b6 = _mm256_unpacklo_epi32(a6, a7);
    __m256i b7 = _mm256_unpackhi_epi32(a6, a7);
    __m256i c0 = _mm256_unpacklo_epi64(b0, b2);
    __m256i c1 = _mm256_unpackhi_epi64(b0, b2);
    __m256i c2 = _mm256_unpacklo_epi64(b1, b3);
    __m256i c3 = _mm256_unpackhi_epi64(b1, b3);
    __m256i c4 = _mm256_unpacklo_epi64(b4, b6);
    __m256i c5 = _mm256_unpackhi_epi64(b4, b6);
    __m256i c6 = _mm256_unpacklo_epi64(b5, b7);
    __m256i c7 = _mm256_unpackhi_epi64(b5, b7);

    o[0] = _mm256_permute2x128_si256(c0, c4, 0x20);
    o[1] = _mm256_permute2x128_si256(c1, c5, 0x20);
    o[2] = _mm256_permute2x128_si256(c2, c6, 0x20);
    o[3] = _mm256_permute2x128_si256(c3, c7, 0x20);
    o[4] = _mm256_permute2x128_si256(c0, c4, 0x31);
    o[5] = _mm256_permute2x128_si256(c1, c5, 0x31);
    o[6] = _mm256_permute2x128_si256(c2, c6, 0x31);
    o[7] = _mm256_permute2x128_si256(c3, c7, 0x31);
}

__attribute__((target("avx2")))
static size_t tilecopy_transpose32_avx2(uint32_t *out,
                                        const uint8_t *const *row,
                                        size_t rows, size_t cols,
                                        size_t ostride)
{
    size_t r, c, k;

    for (r = 0; r + 8 <= rows; r += 8) {
        const tilecopy_u32 *in[8];
        __m256i o[8];

        for (k = 0; k < 8; k++) {
            in[k] = (const tilecopy_u32 *)row[r + k];
        }
        for (c = 0; c + 8 <= cols; c += 8) {
            tilecopy_t32x8(row + r, c * 4, o);
            for (k = 0; k < 8; k++) {
                _mm256_storeu_si256((__m256i *)(out + (c + k) * ostride + r),
                                    o[k]);
            }
        }
        for (; c < cols; c++) {
            for (k = 0; k < 8; k++) {
                out[c * ostride + r + k] = in[k][c];
            }
        }
    }
    return r;
}

/*
 * The direct blocks: R source rows (in[0..R-1], each at the block's first
 * column) by K columns, where R elements are one 64-byte line of a
 * destination row: each of the K destination rows drow[0..K-1] gets one
 * whole, aligned line at byte @off, in consecutive streaming stores. (Lines
 * left half written while others are streamed would leave the write-
 * combining buffers in parts: a read-modify-write in memory each.)
 */

/* 64-bit elements: column 0..3 of 4 rows. */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_t64x4(const uint8_t *const *in, __m256i *o)
{
    __m256i a0 = _mm256_loadu_si256((const __m256i *)in[0]);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)in[1]);
    __m256i a2 = _mm256_loadu_si256((const __m256i *)in[2]);
    __m256i a3 = _mm256_loadu_si256((const __m256i *)in[3]);
    __m256i t0 = _mm256_unpacklo_epi64(a0, a1);
    __m256i t1 = _mm256_unpackhi_epi64(a0, a1);
    __m256i t2 = _mm256_unpacklo_epi64(a2, a3);
    __m256i t3 = _mm256_unpackhi_epi64(a2, a3);

    o[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    o[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    o[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    o[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}

/*
 * 64-bit elements, AVX2: 8 rows x 4 columns, two 4x4 transposes, column k
 * to row @drow[k] at @off: streamed (@nt, a constant), or cached (the
 * macro tiles' stage).
 */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_lines64(uint8_t *const *drow, size_t off,
                                    const uint8_t *const *in, bool nt)
{
    __m256i lo[4], hi[4];
    unsigned k;

    tilecopy_t64x4(in, lo);
    tilecopy_t64x4(in + 4, hi);
    for (k = 0; k < 4; k++) {
        __m256i *o = (__m256i *)(drow[k] + off);

        if (nt) {
            _mm256_stream_si256(o, lo[k]);
            _mm256_stream_si256(o + 1, hi[k]);
        } else {
            _mm256_storeu_si256(o, lo[k]);
            _mm256_storeu_si256(o + 1, hi[k]);
        }
    }
}

__attribute__((target("avx2")))
static void tilecopy_block64_avx2(uint8_t *const *drow, size_t off,
                                  const uint8_t *const *in)
{
    tilecopy_lines64(drow, off, in, true);
}

/* 32-bit elements, AVX2: 16 rows x 8 columns, two 8x8 transposes. */
__attribute__((target("avx2")))
static void tilecopy_block32_avx2(uint8_t *const *drow, size_t off,
                                  const uint8_t *const *in)
{
    __m256i lo[8], hi[8];
    unsigned k;

    tilecopy_t32x8(in, 0, lo);
    tilecopy_t32x8(in + 8, 0, hi);
    for (k = 0; k < 8; k++) {
        __m256i *o = (__m256i *)(drow[k] + off);

        _mm256_stream_si256(o, lo[k]);
        _mm256_stream_si256(o + 1, hi[k]);
    }
}

/* Two 16-byte loads, @lo into the low lane and @hi into the high one. */
__attribute__((target("avx2"), always_inline))
static inline __m256i tilecopy_load2(const uint8_t *lo, const uint8_t *hi)
{
    __m128i l = _mm_loadu_si128((const __m128i *)lo);

    return _mm256_inserti128_si256(_mm256_castsi128_si256(l),
                                   _mm_loadu_si128((const __m128i *)hi), 1);
}

/*
 * 16-bit elements: columns 0..7 of rows in[0..15] into o[0..7] (32 bytes
 * each), an 8x8 transpose in each lane (rows 0-7 low, 8-15 high) in three
 * rounds of unpacks (16-, 32-, 64-bit).
 */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_t16x16(const uint8_t *const *in, __m256i *o)
{
    __m256i a[8], b[8], d[8];
    unsigned k;

    for (k = 0; k < 8; k++) {
        a[k] = tilecopy_load2(in[k], in[8 + k]);
    }
    for (k = 0; k < 8; k += 2) {
        b[k] = _mm256_unpacklo_epi16(a[k], a[k + 1]);       /* cols 0-3 */
        b[k + 1] = _mm256_unpackhi_epi16(a[k], a[k + 1]);   /* cols 4-7 */
    }
    /*
     * d[0], d[1]: cols 0-1, 2-3 of rows 0-3; d[2], d[3]: of rows 4-7;
     * d[4..7]: the same for cols 4-7
     */
    for (k = 0; k < 8; k += 4) {
        d[k / 2] = _mm256_unpacklo_epi32(b[k], b[k + 2]);
        d[k / 2 + 1] = _mm256_unpackhi_epi32(b[k], b[k + 2]);
        d[k / 2 + 4] = _mm256_unpacklo_epi32(b[k + 1], b[k + 3]);
        d[k / 2 + 5] = _mm256_unpackhi_epi32(b[k + 1], b[k + 3]);
    }
    for (k = 0; k < 4; k++) {
        __m256i lo = d[(k & 1) + (k >> 1) * 4];
        __m256i hi = d[(k & 1) + (k >> 1) * 4 + 2];

        o[2 * k] = _mm256_unpacklo_epi64(lo, hi);
        o[2 * k + 1] = _mm256_unpackhi_epi64(lo, hi);
    }
}

/* 16-bit elements, AVX2: 32 rows x 8 columns. */
__attribute__((target("avx2")))
static void tilecopy_block16_avx2(uint8_t *const *drow, size_t off,
                                  const uint8_t *const *in)
{
    __m256i lo[8], hi[8];
    unsigned k;

    tilecopy_t16x16(in, lo);
    tilecopy_t16x16(in + 16, hi);
    for (k = 0; k < 8; k++) {
        __m256i *o = (__m256i *)(drow[k] + off);

        _mm256_stream_si256(o, lo[k]);
        _mm256_stream_si256(o + 1, hi[k]);
    }
}

/*
 * 8-bit elements: columns 0..15 of rows in[0..31] into o[0..15] (32 bytes
 * each), a 16x16 transpose in each lane (rows 0-15 low, 16-31 high) in
 * four rounds of unpacks (8-, 16-, 32-, 64-bit).
 */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_t8x32(const uint8_t *const *in, __m256i *o)
{
    __m256i a[16], b[16];
    unsigned k, g, t;

    for (k = 0; k < 16; k++) {
        a[k] = tilecopy_load2(in[k], in[16 + k]);
    }
    /* b[2i]: cols 0-7 of rows 2i, 2i+1; b[2i+1]: cols 8-15 */
    for (k = 0; k < 16; k += 2) {
        b[k] = _mm256_unpacklo_epi8(a[k], a[k + 1]);
        b[k + 1] = _mm256_unpackhi_epi8(a[k], a[k + 1]);
    }
    /* a[4g + t]: cols 4t..4t+3 of rows 4g..4g+3 */
    for (g = 0; g < 4; g++) {
        a[4 * g] = _mm256_unpacklo_epi16(b[4 * g], b[4 * g + 2]);
        a[4 * g + 1] = _mm256_unpackhi_epi16(b[4 * g], b[4 * g + 2]);
        a[4 * g + 2] = _mm256_unpacklo_epi16(b[4 * g + 1], b[4 * g + 3]);
        a[4 * g + 3] = _mm256_unpackhi_epi16(b[4 * g + 1], b[4 * g + 3]);
    }
    /* b[8h + 2t], b[8h + 2t + 1]: cols 4t, 4t+1 / 4t+2, 4t+3 of rows 8h.. */
    for (g = 0; g < 16; g += 8) {
        for (t = 0; t < 4; t++) {
            b[g + 2 * t] = _mm256_unpacklo_epi32(a[g + t], a[g + 4 + t]);
            b[g + 2 * t + 1] = _mm256_unpackhi_epi32(a[g + t], a[g + 4 + t]);
        }
    }
    /* b[j] holds cols 2j, 2j+1 of rows 0-7, b[8 + j] of rows 8-15 */
    for (k = 0; k < 8; k++) {
        o[2 * k] = _mm256_unpacklo_epi64(b[k], b[8 + k]);
        o[2 * k + 1] = _mm256_unpackhi_epi64(b[k], b[8 + k]);
    }
}

/* 8-bit elements, AVX2: 64 rows x 16 columns. */
__attribute__((target("avx2")))
static void tilecopy_block8_avx2(uint8_t *const *drow, size_t off,
                                 const uint8_t *const *in)
{
    __m256i lo[16], hi[16];
    unsigned k;

    tilecopy_t8x32(in, lo);
    tilecopy_t8x32(in + 32, hi);
    for (k = 0; k < 16; k++) {
        __m256i *o = (__m256i *)(drow[k] + off);

        _mm256_stream_si256(o, lo[k]);
        _mm256_stream_si256(o + 1, hi[k]);
    }
}

/*
 * The macro tiles' stage tiles (below): source rows row[0..], each read
 * from byte @off, the tile's first column. 8-byte elements: 8 rows by 4
 * columns, transposed into the stage: column k's 8 elements (one line) at
 * st + k * @ld, with cached stores.
 */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_stage64_avx2(uint8_t *st, size_t ld,
                                         const uint8_t *const *row, size_t off)
{
    uint8_t *const col[4] = { st, st + ld, st + 2 * ld, st + 3 * ld };
    const uint8_t *const in[8] = {
        row[0] + off, row[1] + off, row[2] + off, row[3] + off,
        row[4] + off, row[5] + off, row[6] + off, row[7] + off,
    };

    tilecopy_lines64(col, 0, in, false);
}

/*
 * The same for 32-bit elements: 8 rows by 4 columns, rows k and 4 + k in
 * the two lanes of one register (16-byte loads), column k's 8 elements (32
 * bytes) at st + k * @ld. (A tile of 32-byte loads, 8 rows by 8 columns,
 * measured no better than the copied source; this one, the library's AVX2
 * macro-tile register tile, did.)
 */
__attribute__((target("avx2"), always_inline))
static inline void tilecopy_stage32_avx2(uint8_t *st, size_t ld,
                                         const uint8_t *const *row, size_t off)
{
    __m256i a0 = tilecopy_load2(row[0] + off, row[4] + off);
    __m256i a1 = tilecopy_load2(row[1] + off, row[5] + off);
    __m256i a2 = tilecopy_load2(row[2] + off, row[6] + off);
    __m256i a3 = tilecopy_load2(row[3] + off, row[7] + off);
    __m256i b0 = _mm256_unpacklo_epi32(a0, a1);
    __m256i b1 = _mm256_unpackhi_epi32(a0, a1);
    __m256i b2 = _mm256_unpacklo_epi32(a2, a3);
    __m256i b3 = _mm256_unpackhi_epi32(a2, a3);

    __m256i o[4] = {
        _mm256_unpacklo_epi64(b0, b2), _mm256_unpackhi_epi64(b0, b2),
        _mm256_unpacklo_epi64(b1, b3), _mm256_unpackhi_epi64(b1, b3),
    };
    unsigned k;

    for (k = 0; k < 4; k++) {
        _mm256_storeu_si256((__m256i *)(st + k * ld), o[k]);
    }
}

/*
 * 1- and 2-byte elements with AVX-512: @n source rows row[0..@n-1] by 64
 * bytes (@n 16 for bytes, 8 for 16-bit), one whole-line load per row (the
 * library's wide tiles, libuser/cpu/exec_avx512.c). log2(@n) rounds of
 * unpacks of the element width, pairing rows i and i + @n / 2, transpose
 * each 16-byte lane: lane l of r[k] is column l * @n + k of the @n rows,
 * 16 bytes stored at st + (l * @n + k) * @ld. The macro tiles with these
 * replaced the copied source (tilecopy_direct_staged) on such hosts: AMD
 * EPYC Zen 5, against its memcpy, alternated builds, 8192^2 u8
 * 0.26-0.33x -> 0.40-0.49x, 4096 x 8192 f16 0.30-0.36x -> 0.48-0.53x,
 * and rows not a power of two apart alike (8000^2 u8 0.24-0.26x ->
 * 0.39-0.51x, 4000 x 8000 f16 0.26-0.30x -> 0.46-0.60x).
 */
__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void tilecopy_stage_wide(uint8_t *st, size_t ld,
                                       const uint8_t *const *row,
                                       size_t off, unsigned n)
{
    __m512i r[16], t[16];
    unsigned i, s;

#pragma GCC unroll 16
    for (i = 0; i < n; i++) {
        r[i] = _mm512_loadu_si512((const void *)(row[i] + off));
    }
#pragma GCC unroll 4
    for (s = 1; s < n; s <<= 1) {
#pragma GCC unroll 8
        for (i = 0; i < n / 2; i++) {
            __m512i a = r[i], b = r[i + n / 2];

            t[2 * i] = n == 16 ? _mm512_unpacklo_epi8(a, b)
                               : _mm512_unpacklo_epi16(a, b);
            t[2 * i + 1] = n == 16 ? _mm512_unpackhi_epi8(a, b)
                                   : _mm512_unpackhi_epi16(a, b);
        }
#pragma GCC unroll 16
        for (i = 0; i < n; i++) {
            r[i] = t[i];
        }
    }
    /* (the lane of an extract is an immediate: written out, not a loop) */
#pragma GCC unroll 16
    for (i = 0; i < n; i++) {
        _mm_storeu_si128((__m128i *)(st + i * ld),
                         _mm512_castsi512_si128(r[i]));
        _mm_storeu_si128((__m128i *)(st + (n + i) * ld),
                         _mm512_extracti32x4_epi32(r[i], 1));
        _mm_storeu_si128((__m128i *)(st + (2 * n + i) * ld),
                         _mm512_extracti32x4_epi32(r[i], 2));
        _mm_storeu_si128((__m128i *)(st + (3 * n + i) * ld),
                         _mm512_extracti32x4_epi32(r[i], 3));
    }
}

__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void tilecopy_stage8_avx512(uint8_t *st, size_t ld,
                                          const uint8_t *const *row, size_t off)
{
    tilecopy_stage_wide(st, ld, row, off, 16);
}

__attribute__((target("avx512f,avx512bw"), always_inline))
static inline void tilecopy_stage16_avx512(uint8_t *st, size_t ld,
                                           const uint8_t *const *row,
                                           size_t off)
{
    tilecopy_stage_wide(st, ld, row, off, 8);
}

/*
 * A macro tile's stage filled: the tile's @nr source rows @row[0..] by
 * @cend columns, @srows rows at a time across the columns (each row's lines
 * in order), @scols columns a stage tile, destination row c's @nr elements
 * at @stage + c * @burst. One function per stage tile with the tile inlined:
 * called through the kernel table once per stage tile, the f32 one (128
 * bytes a call) ran 10-15% slower in a host harness of these tiles.
 */
#define TILECOPY_STAGE_FILL(name, tgt, tile, srows, scols, es)           \
__attribute__((target(tgt)))                                            \
static void name(uint8_t *stage, size_t burst, const uint8_t *const *row,\
                 size_t nr, size_t cend)                                \
{                                                                       \
    size_t r, c;                                                        \
                                                                        \
    /* the table's stage_cols and block rows keep to these */          \
    assert(nr % (srows) == 0 && cend % (scols) == 0);                   \
    for (r = 0; r < nr; r += (srows)) {                                 \
        for (c = 0; c < cend; c += (scols)) {                           \
            tile(stage + c * burst + r * (es), burst, row + r, c * (es));\
        }                                                               \
    }                                                                   \
}

TILECOPY_STAGE_FILL(tilecopy_fill64_avx2, "avx2", tilecopy_stage64_avx2,
                    8, 4, 8)
TILECOPY_STAGE_FILL(tilecopy_fill32_avx2, "avx2", tilecopy_stage32_avx2,
                    8, 4, 4)
TILECOPY_STAGE_FILL(tilecopy_fill8_avx512, "avx512f,avx512bw",
                    tilecopy_stage8_avx512, 16, 64, 1)
TILECOPY_STAGE_FILL(tilecopy_fill16_avx512, "avx512f,avx512bw",
                    tilecopy_stage16_avx512, 8, 32, 2)

/* Stream @count lines of four 16-byte parts, each line's stores together. */
static void tilecopy_stream_lines(uint8_t *const *drow, size_t off,
                                  __m128i (*line)[4], unsigned count)
{
    unsigned k, x;

    for (k = 0; k < count; k++) {
        __m128i *o = (__m128i *)(drow[k] + off);

        for (x = 0; x < 4; x++) {
            _mm_stream_si128(o + x, line[k][x]);
        }
    }
}

/* 64-bit elements, SSE2: 8 rows x 2 columns, four 2x2 transposes. */
static void tilecopy_block64_sse2(uint8_t *const *drow, size_t off,
                                  const uint8_t *const *in)
{
    __m128i line[2][4];
    unsigned k;

    for (k = 0; k < 4; k++) {
        __m128i a = _mm_loadu_si128((const __m128i *)in[2 * k]);
        __m128i b = _mm_loadu_si128((const __m128i *)in[2 * k + 1]);

        line[0][k] = _mm_unpacklo_epi64(a, b);
        line[1][k] = _mm_unpackhi_epi64(a, b);
    }
    tilecopy_stream_lines(drow, off, line, 2);
}

/* 32-bit elements, SSE2: 16 rows x 4 columns, four 4x4 transposes. */
static void tilecopy_block32_sse2(uint8_t *const *drow, size_t off,
                                  const uint8_t *const *in)
{
    __m128i line[4][4];
    unsigned k;

    for (k = 0; k < 4; k++) {
        __m128i a = _mm_loadu_si128((const __m128i *)in[4 * k]);
        __m128i b = _mm_loadu_si128((const __m128i *)in[4 * k + 1]);
        __m128i d = _mm_loadu_si128((const __m128i *)in[4 * k + 2]);
        __m128i e = _mm_loadu_si128((const __m128i *)in[4 * k + 3]);
        __m128i t0 = _mm_unpacklo_epi32(a, b);
        __m128i t1 = _mm_unpacklo_epi32(d, e);
        __m128i t2 = _mm_unpackhi_epi32(a, b);
        __m128i t3 = _mm_unpackhi_epi32(d, e);

        line[0][k] = _mm_unpacklo_epi64(t0, t1);
        line[1][k] = _mm_unpackhi_epi64(t0, t1);
        line[2][k] = _mm_unpacklo_epi64(t2, t3);
        line[3][k] = _mm_unpackhi_epi64(t2, t3);
    }
    tilecopy_stream_lines(drow, off, line, 4);
}

#endif /* TILECOPY_X86 */

/* ---- straight to the destination ---------------------------------------- */

typedef void TilecopyBlockFn(uint8_t *const *drow, size_t off,
                             const uint8_t *const *in);
typedef void TilecopyFillFn(uint8_t *stage, size_t burst,
                            const uint8_t *const *row, size_t nr,
                            size_t cend);

/*
 * A block kernel: @rows x @cols elements, @rows * es = one 64-byte line;
 * for the macro tiles (4- and 8-byte elements with AVX2, 1- and 2-byte
 * ones with AVX-512) also the @fill of a stage from stage tiles
 * @stage_cols wide.
 */
typedef struct TilecopyKernel {
    size_t rows, cols;
    TilecopyBlockFn *fn;
    size_t stage_cols;
    TilecopyFillFn *fill;
} TilecopyKernel;

static const TilecopyKernel *tilecopy_kernel(unsigned es)
{
#ifdef TILECOPY_X86
    /* 8- and 16-bit elements take the buffer's path without AVX2 */
    static const TilecopyKernel sse2[] = {
        { 0, 0, NULL, 0, NULL },
        { 0, 0, NULL, 0, NULL },
        { 16, 4, tilecopy_block32_sse2, 0, NULL },
        { 8, 2, tilecopy_block64_sse2, 0, NULL },
    };
    static const TilecopyKernel avx2[] = {
        { 64, 16, tilecopy_block8_avx2, 0, NULL },
        { 32, 8, tilecopy_block16_avx2, 0, NULL },
        { 16, 8, tilecopy_block32_avx2, 4, tilecopy_fill32_avx2 },
        { 8, 4, tilecopy_block64_avx2, 4, tilecopy_fill64_avx2 },
    };
    static const TilecopyKernel avx512[] = {
        { 64, 16, tilecopy_block8_avx2, 64, tilecopy_fill8_avx512 },
        { 32, 8, tilecopy_block16_avx2, 32, tilecopy_fill16_avx512 },
    };
    const TilecopyKernel *k;

    switch (es) {
    case 1:
    case 2:
    case 4:
    case 8:
        if (es <= 2 && tilecopy_has_avx512()) {
            return &avx512[es - 1];
        }
        k = &(tilecopy_has_avx2() ? avx2 : sse2)[ctz32(es)];
        return k->fn ? k : NULL;
    }
#endif
    return NULL;
}

size_t tilecopy_direct_min_cols(unsigned es)
{
    const TilecopyKernel *k = tilecopy_kernel(es);

    return k ? k->cols : 0;
}

/* The parts of the tile the blocks leave: element by element. */
static void tilecopy_direct_scalar(uint8_t *const *drow,
                                   const uint8_t *const *row, size_t r0,
                                   size_t r1, size_t c0, size_t c1,
                                   unsigned es)
{
    size_t r, c;

#define TILECOPY_D(type)                                                \
    do {                                                                \
        for (c = c0; c < c1; c++) {                                     \
            type *o = (type *)drow[c];                                  \
            for (r = r0; r < r1; r++) {                                 \
                o[r] = ((const type *)row[r])[c];                       \
            }                                                           \
        }                                                               \
    } while (0)
    switch (es) {
    case 1:
        TILECOPY_D(uint8_t);
        break;
    case 2:
        TILECOPY_D(tilecopy_u16);
        break;
    case 4:
        TILECOPY_D(tilecopy_u32);
        break;
    default:
        TILECOPY_D(tilecopy_u64);
        break;
    }
#undef TILECOPY_D
}

/*
 * Writing whole aligned lines: the first @head elements of every
 * destination row (up to a 64-byte boundary) go element by element, which
 * needs every row equally aligned.
 */
static bool tilecopy_head(uint8_t *const *drow, size_t cols, unsigned es,
                          size_t *head)
{
    uintptr_t mis = (uintptr_t)drow[0] & 63;
    size_t c;

    if (mis % es) {
        return false;
    }
    for (c = 1; c < cols; c++) {
        if (((uintptr_t)drow[c] & 63) != mis) {
            return false;
        }
    }
    *head = ((64 - mis) & 63) / es;
    return true;
}

/* ---- few rows or few columns: byte shuffles ------------------------------ */

/*
 * A tile of fewer rows than a block (C = 3 channels of an image into NHWC)
 * or fewer columns (NHWC with C = 3 into planes) is an interleave or a
 * de-interleave of a few streams. Each is a fixed byte permutation of a
 * group of k 16-byte chunks into k 16-byte chunks: output chunk o is the
 * OR of pshufb(input chunk i, mask[o][i]) over the inputs that feed it.
 */
#define TC_SHUF_MAX     TILECOPY_FEW_MAX

typedef struct TilecopyShuffle {
    unsigned mode, k, es;           /* the key; mode 0 interleaves */
    uint8_t mask[TC_SHUF_MAX][TC_SHUF_MAX][16];
} TilecopyShuffle;

/*
 * The program for @k rows (mode 0: output byte j of a group of 16 / es
 * columns is byte j of the interleaved rows) or @k columns (mode 1: chunk o
 * is column o of 16 / es rows of k elements); one per thread, kept while
 * the key stays the same (the tiles of a descriptor).
 */
static const TilecopyShuffle *tilecopy_shuffle(unsigned mode, unsigned k,
                                               unsigned es)
{
    static __thread TilecopyShuffle sh;
    unsigned o, t, i, byte;

    if (sh.k == k && sh.es == es && sh.mode == mode) {
        return &sh;
    }
    memset(&sh, 0, sizeof(sh));
    memset(sh.mask, 0x80, sizeof(sh.mask));     /* 0x80: pshufb writes 0 */
    for (o = 0; o < k; o++) {
        for (t = 0; t < 16; t++) {
            if (mode == 0) {
                unsigned e = (o * 16 + t) / es;

                i = e % k;                              /* source row */
                byte = (e / k) * es + t % es;
            } else {
                unsigned off = ((t / es) * k + o) * es + t % es;

                i = off / 16;
                byte = off % 16;
            }
            sh.mask[o][i][t] = byte;
        }
    }
    sh.mode = mode;
    sh.k = k;
    sh.es = es;
    return &sh;
}

/* One element of @es bytes (the edges of the shuffles). */
static inline void tilecopy_elem(uint8_t *dst, const uint8_t *src, unsigned es)
{
    switch (es) {
    case 1:
        *dst = *src;
        break;
    case 2:
        memcpy(dst, src, 2);
        break;
    case 4:
        memcpy(dst, src, 4);
        break;
    default:
        memcpy(dst, src, 8);
        break;
    }
}

static bool tilecopy_has_ssse3(void)
{
#ifdef TILECOPY_X86
    static int ssse3 = -1;

    if (ssse3 < 0) {
        ssse3 = __builtin_cpu_supports("ssse3");
    }
    return ssse3;
#else
    return false;
#endif
}

#ifdef TILECOPY_X86
/*
 * The shuffle of one group with the masks in registers: @k is a constant
 * where it is small (the loops unroll, no mask is reloaded); masks of
 * inputs that do not feed an output are all 0x80 and add nothing.
 */
__attribute__((target("ssse3"), always_inline))
static inline void tilecopy_shuffle_group(const __m128i (*mask)[TC_SHUF_MAX],
                                          const __m128i *in, __m128i *out,
                                          unsigned k)
{
    unsigned o, i;

    for (o = 0; o < k; o++) {
        __m128i acc = _mm_shuffle_epi8(in[0], mask[o][0]);

        for (i = 1; i < k; i++) {
            acc = _mm_or_si128(acc, _mm_shuffle_epi8(in[i], mask[o][i]));
        }
        out[o] = acc;
    }
}

__attribute__((target("ssse3"), always_inline))
static inline void tilecopy_shuffle_masks(const TilecopyShuffle *sh,
                                          __m128i (*mask)[TC_SHUF_MAX],
                                          unsigned k)
{
    unsigned o, i;

    for (o = 0; o < k; o++) {
        for (i = 0; i < k; i++) {
            mask[o][i] = _mm_loadu_si128((const __m128i *)sh->mask[o][i]);
        }
    }
}

/* Whole groups from column @c0; returns the first column not done. */
__attribute__((target("ssse3"), always_inline))
static inline size_t tilecopy_interleave_k(uint8_t *dst,
                                           const uint8_t *const *row,
                                           unsigned k, size_t c0, size_t cols,
                                           unsigned es)
{
    __m128i mask[TC_SHUF_MAX][TC_SHUF_MAX], in[TC_SHUF_MAX], out[TC_SHUF_MAX];
    size_t g = 16 / es, c;
    unsigned i;

    tilecopy_shuffle_masks(tilecopy_shuffle(0, k, es), mask, k);
    for (c = c0; c + g <= cols; c += g) {
        __m128i *o = (__m128i *)(dst + c * k * es);

        for (i = 0; i < k; i++) {
            in[i] = _mm_loadu_si128((const __m128i *)(row[i] + c * es));
        }
        tilecopy_shuffle_group((const __m128i (*)[TC_SHUF_MAX])mask, in, out,
                               k);
        for (i = 0; i < k; i++) {
            _mm_stream_si128(o + i, out[i]);
        }
    }
    return c;
}

__attribute__((target("ssse3")))
static size_t tilecopy_interleave_simd(uint8_t *dst, const uint8_t *const *row,
                                       size_t rows, size_t c0, size_t cols,
                                       unsigned es)
{
    switch (rows) {
    case 2:
        return tilecopy_interleave_k(dst, row, 2, c0, cols, es);
    case 3:
        return tilecopy_interleave_k(dst, row, 3, c0, cols, es);
    case 4:
        return tilecopy_interleave_k(dst, row, 4, c0, cols, es);
    default:
        return tilecopy_interleave_k(dst, row, rows, c0, cols, es);
    }
}

/*
 * Four groups from row @r0 make one line of each destination row, streamed
 * whole when the rows are equally aligned, else stored as they are.
 * Returns the first row not done.
 */
__attribute__((target("ssse3"), always_inline))
static inline size_t tilecopy_deinterleave_k(uint8_t *const *drow,
                                             const uint8_t *src, size_t r0,
                                             size_t rows, unsigned k,
                                             unsigned es, bool aligned)
{
    __m128i mask[TC_SHUF_MAX][TC_SHUF_MAX], in[TC_SHUF_MAX];
    __m128i out[TC_SHUF_MAX], line[TC_SHUF_MAX][4];
    size_t g = 16 / es, r, q, i, o;

    tilecopy_shuffle_masks(tilecopy_shuffle(1, k, es), mask, k);
    for (r = r0; r + 4 * g <= rows; r += 4 * g) {
        for (q = 0; q < 4; q++) {
            const __m128i *p = (const __m128i *)(src + (r + q * g) * k * es);

            for (i = 0; i < k; i++) {
                in[i] = _mm_loadu_si128(p + i);
            }
            tilecopy_shuffle_group((const __m128i (*)[TC_SHUF_MAX])mask, in,
                                   out, k);
            for (o = 0; o < k; o++) {
                line[o][q] = out[o];
            }
        }
        if (aligned) {
            tilecopy_stream_lines(drow, r * es, line, k);
            continue;
        }
        for (o = 0; o < k; o++) {
            for (q = 0; q < 4; q++) {
                _mm_storeu_si128((__m128i *)(drow[o] + r * es) + q,
                                 line[o][q]);
            }
        }
    }
    return r;
}

__attribute__((target("ssse3")))
static size_t tilecopy_deinterleave_simd(uint8_t *const *drow,
                                         const uint8_t *src, size_t r0,
                                         size_t rows, size_t cols,
                                         unsigned es, bool aligned)
{
    switch (cols) {
    case 2:
        return tilecopy_deinterleave_k(drow, src, r0, rows, 2, es, aligned);
    case 3:
        return tilecopy_deinterleave_k(drow, src, r0, rows, 3, es, aligned);
    case 4:
        return tilecopy_deinterleave_k(drow, src, r0, rows, 4, es, aligned);
    default:
        return tilecopy_deinterleave_k(drow, src, r0, rows, cols, es, aligned);
    }
}
#endif

/* Rows or columns the shuffles take: 2 up to a SIMD block's, at most 15. */
static bool tilecopy_few(size_t count, size_t block)
{
    return count >= 2 && count < block && count <= TC_SHUF_MAX &&
           tilecopy_has_ssse3();
}

bool tilecopy_interleave(uint8_t *dst, const uint8_t *const *row,
                         size_t rows, size_t cols, unsigned es)
{
    const TilecopyKernel *k = tilecopy_kernel(es);
    size_t g = 16 / es, c0, c = 0, r, i;

    if (!k || !tilecopy_few(rows, k->rows) || cols < 2 * g) {
        return false;
    }
    /* the first column whose output starts 16-byte aligned */
    for (c0 = 0; c0 < g; c0++) {
        if (!((uintptr_t)(dst + c0 * rows * es) & 15)) {
            break;
        }
    }
    if (c0 == g) {
        return false;
    }
#ifdef TILECOPY_X86
    c = tilecopy_interleave_simd(dst, row, rows, c0, cols, es);
#endif
    for (r = 0; r < rows; r++) {
        for (i = 0; i < c0; i++) {
            tilecopy_elem(dst + (i * rows + r) * es, row[r] + i * es, es);
        }
        for (i = c; i < cols; i++) {
            tilecopy_elem(dst + (i * rows + r) * es, row[r] + i * es, es);
        }
    }
    return true;
}

bool tilecopy_deinterleave(uint8_t *const *drow, const uint8_t *src,
                           size_t rows, size_t cols, unsigned es)
{
    const TilecopyKernel *k = tilecopy_kernel(es);
    size_t head = 0, r = 0, c, i;
    bool aligned;

    if (!k || !tilecopy_few(cols, k->cols)) {
        return false;
    }
    aligned = tilecopy_head(drow, cols, es, &head);
    if (!aligned) {
        head = 0;
    }
    if (rows < head + 64 / es) {
        return false;
    }
#ifdef TILECOPY_X86
    r = tilecopy_deinterleave_simd(drow, src, head, rows, cols, es, aligned);
#endif
    for (c = 0; c < cols; c++) {
        for (i = 0; i < head; i++) {
            tilecopy_elem(drow[c] + i * es, src + (i * cols + c) * es, es);
        }
        for (i = r; i < rows; i++) {
            tilecopy_elem(drow[c] + i * es, src + (i * cols + c) * es, es);
        }
    }
    return true;
}

/* The block at source row @r, column @c. */
static inline void tilecopy_direct_block(const TilecopyKernel *k,
                                         uint8_t *const *drow,
                                         const uint8_t *const *row, size_t r,
                                         size_t c, unsigned es)
{
    const uint8_t *in[64];
    size_t i;

    for (i = 0; i < k->rows; i++) {
        in[i] = row[r + i] + c * es;
    }
    k->fn(drow + c, r * es, in);
}

/*
 * Rows a page or more apart on both sides (a large 2-D transpose): read
 * where they lie, the blocks take 16 or 32 bytes of each of R source rows
 * at a time, R streams at once (64 for bytes), and rows a power of two
 * apart share one L1 set. Copying only a block column's lines into an L1
 * buffer did not help (docs/performance.md); what did: the tile's source
 * rows @r0..@r1 copied one after another (each a sequential run) into
 * @stage, the blocks reading the copy, and meanwhile the next tile's
 * source (the same rows, continued past @cend columns) prefetched, a few
 * lines after each block, so that its copy finds it in the caches. The
 * bands of R rows walked inside a column of blocks give each destination
 * row consecutive lines. 1- and 2-byte elements without AVX-512, and
 * 4-byte ones without AVX2; the others take the macro tiles below.
 */
static void tilecopy_direct_staged(const TilecopyKernel *k,
                                   uint8_t *const *drow,
                                   const uint8_t *const *row, size_t r0,
                                   size_t r1, size_t cend, unsigned es,
                                   uint8_t *stage)
{
    const uint8_t *in[64];
    size_t len = cend * es, lines = len / 64;
    size_t blocks = cend / k->cols * ((r1 - r0) / k->rows);
    size_t npf = (r1 - r0) * lines, per = DIV_ROUND_UP(npf, blocks);
    size_t pf = 0, r, c, i;

    for (r = r0; r < r1; r++) {
        uint8_t *d = stage + (r - r0) * len;

        /*
         * Whole lines in fixed-size copies (inlined SIMD moves). An early
         * version staged 4 KiB rows of f64, for which glibc's memcpy took
         * `rep movsb` at half the speed on an AMD EPYC host; the rows
         * staged now are at most 512 bytes (8-byte elements are not
         * copied).
         */
        for (i = 0; i + 64 <= len; i += 64) {
            memcpy(d + i, row[r] + i, 64);
        }
        memcpy(d + i, row[r] + i, len - i);
    }
    for (c = 0; c < cend; c += k->cols) {
        for (r = r0; r < r1; r += k->rows) {
            for (i = 0; i < k->rows; i++) {
                in[i] = stage + (r - r0 + i) * len + c * es;
            }
            k->fn(drow + c, r * es, in);
            /* a hint: past the end of a mapping it reads nothing */
            for (i = 0; i < per && pf < npf; i++, pf++) {
                uintptr_t next = (uintptr_t)row[r0 + pf / lines] + len +
                                 pf % lines * 64;

                __builtin_prefetch((const void *)next);
            }
        }
    }
}

/*
 * A macro tile's stage rows out: @n bytes (whole 64-byte lines) from
 * @src to the aligned @dst in streaming stores, lines back to back. (Only
 * the AVX2 and AVX-512 kernels have stage tiles.)
 */
#ifdef TILECOPY_X86
__attribute__((target("avx2")))
static void tilecopy_stream_run(uint8_t *dst, const uint8_t *src, size_t n)
{
    size_t i;

    for (i = 0; i < n; i += 32) {
        _mm256_stream_si256((__m256i *)(dst + i),
                            _mm256_loadu_si256((const __m256i *)(src + i)));
    }
}
#else
static void tilecopy_stream_run(uint8_t *dst, const uint8_t *src, size_t n)
{
    memcpy(dst, src, n);
}
#endif

/*
 * Rows a page or more apart on both sides, 4- and 8-byte elements (with
 * AVX-512 1- and 2-byte ones too): a macro tile, as the library's CPU
 * executors do (TC_DEFINE_MACRO_TILES in libuser/cpu/pattern.h). The
 * stage tiles read the tile's source rows @r0..@r1 where they lie, 8 rows
 * (16 for bytes) at a time across the tile's @cend columns (each row's
 * lines in order), into @stage: one row of
 * (@r1 - @r0) * es bytes (a burst of up to 4 lines) per destination row.
 * Each stage row is then streamed out whole, lines back to back, and
 * between rows the next tile's source (the same rows continued past
 * @cend columns) is prefetched towards L2, a row at a time.
 *
 * On an AMD EPYC Zen 5 host (fast memory), against its memcpy: 8-byte
 * elements read where they lie (each block one line into each of 4
 * destination rows, a tile one line into each of 512) 0.23-0.27x, the
 * copied source above 0.32-0.40x, macro tiles 0.39-0.46x; 4-byte elements
 * 0.40-0.46x copied, 0.44-0.53x in macro tiles (0.34-0.43x with 32-byte
 * loads in the stage tile). For 1- and 2-byte elements stage tiles of 8
 * rows by 32 bytes (AVX2) measured no better than the copy; the AVX-512
 * ones of whole lines (16 or 8 rows by 64 bytes) did, by half again.
 * docs/performance.md, "AMD EPYC Zen 5", has the figures. Without AVX2
 * (no stage tiles) 4-byte elements take the copy, 8-byte ones are read
 * where they lie; without AVX-512 1- and 2-byte ones take the copy.
 */
static void tilecopy_direct_macro(const TilecopyKernel *k,
                                  uint8_t *const *drow,
                                  const uint8_t *const *row, size_t r0,
                                  size_t r1, size_t cend, unsigned es,
                                  uint8_t *stage)
{
    size_t nr = r1 - r0, burst = nr * es, len = cend * es;
    size_t c, j = 0, acc = 0, b;

    k->fill(stage, burst, row + r0, nr, cend);
    for (c = 0; c < cend; c++) {
        tilecopy_stream_run(drow[c] + r0 * es, stage + c * burst, burst);
        /*
         * A hint: past the end of a mapping it reads nothing (addresses
         * as integers: pointers past the row's end would be undefined).
         * Rows nr * c / cend to nr * (c + 1) / cend, counted rather than
         * divided (two divisions a destination row cost f32 a few
         * percent).
         */
        for (acc += nr; acc >= cend; acc -= cend, j++) {
            uintptr_t next = (uintptr_t)row[r0 + j] + len;

            for (b = 0; b < len; b += 64) {
                __builtin_prefetch((const void *)(next + b), 0, 2);
            }
            __builtin_prefetch((const void *)(next + len - 1), 0, 2);
        }
    }
}

bool tilecopy_transpose_direct(uint8_t *const *drow,
                               const uint8_t *const *row, size_t rows,
                               size_t cols, unsigned es, uint8_t *stage,
                               size_t stage_size, bool *staged)
{
    const TilecopyKernel *k = tilecopy_kernel(es);
    size_t head, rend, cend, r, c;

    *staged = false;
    if (!k) {
        return false;
    }
    if (rows < k->rows || cols < k->cols ||
        !tilecopy_head(drow, cols, es, &head) || rows < head + k->rows) {
        return false;
    }
    rend = head + (rows - head) / k->rows * k->rows;
    cend = cols / k->cols * k->cols;
    /*
     * Destination rows far apart: K of them at a time, each written from
     * start to end, long runs of whole lines as a DMA engine's bursts;
     * the tile's source (at most half the tile buffer) stays in the host's
     * cache meanwhile. Rows adjacent (one run, such as NHWC rows of C
     * elements): a band of R source rows at a time, read from start to
     * end, each band writing a line of every destination row.
     */
    if (cols > 1 && drow[1] == drow[0] + rows * es) {
        for (r = head; r < rend; r += k->rows) {
            for (c = 0; c < cend; c += k->cols) {
                tilecopy_direct_block(k, drow, row, r, c, es);
            }
        }
    } else if (stage && k->fill && (rend - head) * cols * es <= stage_size) {
        size_t bend = cend;

        cend = cols / k->stage_cols * k->stage_cols;
        tilecopy_direct_macro(k, drow, row, head, rend, cend, es, stage);
        /* (a tile narrower than a stage tile goes to the blocks alone) */
        *staged = cend > 0;
        /*
         * Columns short of a stage tile (up to 63 bytes, 31 16-bit
         * elements) but whole blocks: the blocks, read where they lie.
         * (4- and 8-byte stage tiles are narrower than their blocks:
         * nothing left here.)
         */
        for (c = cend; c + k->cols <= bend; c += k->cols) {
            for (r = head; r < rend; r += k->rows) {
                tilecopy_direct_block(k, drow, row, r, c, es);
            }
        }
        cend = c;
    } else if (stage && !k->fill && es < 8 &&
               (rend - head) * cend * es <= stage_size) {
        tilecopy_direct_staged(k, drow, row, head, rend, cend, es, stage);
        *staged = true;
    } else {
        for (c = 0; c < cend; c += k->cols) {
            for (r = head; r < rend; r += k->rows) {
                tilecopy_direct_block(k, drow, row, r, c, es);
            }
        }
    }
    tilecopy_direct_scalar(drow, row, 0, head, 0, cols, es);
    tilecopy_direct_scalar(drow, row, rend, rows, 0, cols, es);
    tilecopy_direct_scalar(drow, row, head, rend, cend, cols, es);
    return true;
}

/* ---- blocks of more than 8 bytes ---------------------------------------- */

#ifdef TILECOPY_X86
/* One destination row of @rows blocks of @units 16-byte units, streamed. */
static inline void tilecopy_blocks_row_sse2(uint8_t *d,
                                            const uint8_t *const *row,
                                            size_t rows, size_t off,
                                            size_t units)
{
    size_t r, u;

    for (r = 0; r < rows; r++) {
        const __m128i *in = (const __m128i *)(row[r] + off);

        for (u = 0; u < units; u++) {
            _mm_stream_si128((__m128i *)d + u, _mm_loadu_si128(in + u));
        }
        d += units * 16;
    }
}
#endif

void tilecopy_transpose_blocks(uint8_t *const *drow, const uint8_t *const *row,
                               size_t rows, size_t cols, size_t bsize)
{
    size_t r, c;

#ifdef TILECOPY_X86
    if (!(bsize % 16)) {
        bool aligned = true;

        for (c = 0; c < cols && aligned; c++) {
            aligned = !((uintptr_t)drow[c] & 15);
        }
        if (aligned) {
            for (c = 0; c < cols; c++) {
                switch (bsize) {
                case 16:
                    tilecopy_blocks_row_sse2(drow[c], row, rows, c * 16, 1);
                    break;
                case 32:
                    tilecopy_blocks_row_sse2(drow[c], row, rows, c * 32, 2);
                    break;
                case 64:
                    tilecopy_blocks_row_sse2(drow[c], row, rows, c * 64, 4);
                    break;
                default:
                    tilecopy_blocks_row_sse2(drow[c], row, rows, c * bsize,
                                             bsize / 16);
                    break;
                }
            }
            return;
        }
    }
#endif
    for (c = 0; c < cols; c++) {
        for (r = 0; r < rows; r++) {
            memcpy(drow[c] + r * bsize, row[r] + c * bsize, bsize);
        }
    }
}

/* ---- writing the tile buffer out ---------------------------------------- */

void tilecopy_store(uint8_t *dst, const uint8_t *src, size_t n)
{
#ifdef TILECOPY_X86
    if (n >= 2 * KiB) {
        size_t head = (16 - ((uintptr_t)dst & 15)) & 15, i;

        memcpy(dst, src, head);
        dst += head;
        src += head;
        n -= head;
        for (i = 0; i + 64 <= n; i += 64) {
            __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
            __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
            __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
            __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));

            _mm_stream_si128((__m128i *)(dst + i), a);
            _mm_stream_si128((__m128i *)(dst + i + 16), b);
            _mm_stream_si128((__m128i *)(dst + i + 32), c);
            _mm_stream_si128((__m128i *)(dst + i + 48), d);
        }
        memcpy(dst + i, src + i, n - i);
        return;
    }
#endif
    memcpy(dst, src, n);
}

void tilecopy_store_fence(void)
{
#ifdef TILECOPY_X86
    _mm_sfence();
#endif
}
