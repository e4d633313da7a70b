/* The packer of the AVX2 panel that Q4_0 and Q8_0 share (avx2_q4_0_body.h,
 * avx2_q8_0_body.h): 8 weight rows, per block of the GGUF row (fp16 d, then
 * the quant bytes) its 8 fp16 d (row j at 2j, 16 B), then in the block's
 * quants region the rows' quant bytes as dwords, dword c of every row side
 * by side (byte c * 32 + j * 4 + t is source byte 4c + t of row j). */
#ifndef QMM_AVX2_D_PANEL_H
#define QMM_AVX2_D_PANEL_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

#define QMM_AVX2_D_PANEL_NR 8

/* Rows [n0, n1) of a k-column matrix of GGUF blocks (block_bytes each:
 * 2 B of d, then 4 * dwords B of quants) into whole panels (rows from n1
 * to the panel's end zeroed: zero scale, zero quants). */
static inline void qmm_avx2_d_panel_pack(int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst,
                                         size_t block_bytes, int dwords) {
    const int64_t nb = k / QMM_QK;
    const size_t qbytes = (size_t)dwords * 32; /* a block's quants in the panel */
    const size_t panel_bytes = (size_t)nb * (16 + qbytes);
    for (int64_t p = n0 / QMM_AVX2_D_PANEL_NR; p * QMM_AVX2_D_PANEL_NR < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * panel_bytes;
        uint8_t *qs = panel + (size_t)nb * 16;
        for (int j = 0; j < QMM_AVX2_D_PANEL_NR; j++) {
            const int64_t row = p * QMM_AVX2_D_PANEL_NR + j;
            const uint8_t *blk = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t b = 0; b < nb; b++, blk += block_bytes) {
                if (row < n1) {
                    memcpy(panel + b * 16 + j * 2, blk, 2); /* fp16 d */
                    for (int c = 0; c < dwords; c++)
                        memcpy(qs + (size_t)b * qbytes + c * 32 + j * 4, blk + 2 + 4 * c, 4);
                } else {
                    memset(panel + b * 16 + j * 2, 0, 2);
                    for (int c = 0; c < dwords; c++)
                        memset(qs + (size_t)b * qbytes + c * 32 + j * 4, 0, 4);
                }
            }
        }
    }
}

/* Row j of a panel (k columns) back as the GGUF blocks packed into it. */
static inline void qmm_avx2_d_panel_unpack_row(const uint8_t *panel, int64_t k, int j, void *dst, size_t block_bytes,
                                               int dwords) {
    const int64_t nb = k / QMM_QK;
    const size_t qbytes = (size_t)dwords * 32;
    const uint8_t *qs = panel + (size_t)nb * 16;
    uint8_t *blk = (uint8_t *)dst;
    for (int64_t b = 0; b < nb; b++, blk += block_bytes) {
        memcpy(blk, panel + b * 16 + j * 2, 2);
        for (int c = 0; c < dwords; c++)
            memcpy(blk + 2 + 4 * c, qs + (size_t)b * qbytes + c * 32 + j * 4, 4);
    }
}

/* Block b's 8 scales, lane j for row j (vcvtph2ps: exact). */
static inline __attribute__((always_inline)) __m256 qmm_avx2_d_panel_scales(const uint8_t *panel, int64_t b) {
    return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + b * 16)));
}

#endif
