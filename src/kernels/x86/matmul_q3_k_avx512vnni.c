/* Q3_K weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * The x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (1792 bytes = 16 x 110 + 32 zero bytes aligning the
 * quants: +1.8%): fp16 d[16], the 16 stored 6-bit scales (signed + 32) kept
 * 6-bit, regrouped so that a 32-block's two scales of all 16 rows are two
 * 16-byte loads (decoded per block in the tile: as bytes they would be +3.6%),
 * then per 32-block the unsigned u = q + 4 (0..7) as Q2_K's two 2-bit planes
 * plus a bit-2 plane (GGUF's hmask). Per 32-block, two dot chains (elements
 * 0..15 and 16..31), each times its scale by vpmulld, and the zero point 4 as
 * one vpmaddwd of the int16 activation sums by (-4 sc_a, -4 sc_b):
 * isum = sc_a sum_a q qx + sc_b sum_b q qx exactly. */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q3_K

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q3_k *blk = (const qmm_block_q3_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++) {
        const int sa = qmm_q3_k_scale(blk->scales, 2 * j) + 32, sb = qmm_q3_k_scale(blk->scales, 2 * j + 1) + 32;
        chunk[32 + 16 * j + r] = (uint8_t)((sa & 0x0f) | (sb & 0x0f) << 4);
        chunk[160 + 16 * (j / 2) + r] |= (uint8_t)(((sa >> 4) | (sb >> 4) << 2) << (4 * (j % 2)));
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)(qmm_q3_k_q(blk, 32 * j + l) + 4);
        qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
    }
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q3_k blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        const int lo = chunk[32 + 16 * j + r], hi = chunk[160 + 16 * (j / 2) + r] >> (4 * (j % 2));
        for (int h = 0; h < 2; h++) { /* the inverse of qmm_q3_k_scale */
            const int i = 2 * j + h, st = ((lo >> (4 * h)) & 0x0f) | ((hi >> (2 * h)) & 3) << 4;
            blk.scales[i % 8] |= (uint8_t)((st & 0x0f) << (4 * (i / 8)));
            blk.scales[8 + i % 4] |= (uint8_t)((st >> 4) << (2 * (i / 4)));
        }
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, s = (e % 128) / 32;
            blk.qs[32 * h + l] |= (uint8_t)((q[l] & 3) << (2 * s));
            blk.hmask[l] |= (uint8_t)(((q[l] >> 2) & 1) << j);
        }
    }
    qmm_dequantize_row_q3_k(&blk, dst, QMM_QK_K);
}

QMM_AVX512X_FAMILY(avx512vnni_q3_k, QMM_TYPE_Q3_K, KIND, put_unit, get_unit)
