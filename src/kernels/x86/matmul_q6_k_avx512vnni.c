/* Q6_K weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * The x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (3392 bytes = 16 x 210 + 32 zero bytes aligning the
 * quants): fp16 d[16], 32 zero bytes, the int8 scales as GGUF has them per
 * 16 elements (int8 sc[8][16][2]: 32-block j, row r, half a/b), then per
 * 32-block the unsigned q (0..63) as Q4_0-form nibbles plus two 2-bit
 * planes for bits 4-5. Per 32-block, two dot chains (elements 0..15 and
 * 16..31), each times its int8 scale by vpmulld, and the zero point 32 as
 * one vpmaddwd of the int16 activation sums by (-32 sc_a, -32 sc_b):
 * isum = sc_a sum_a (q - 32) qx + sc_b sum_b (q - 32) qx exactly. */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q6_K

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q6_k *blk = (const qmm_block_q6_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++) {
        chunk[64 + 32 * j + 2 * r] = (uint8_t)blk->scales[2 * j];
        chunk[64 + 32 * j + 2 * r + 1] = (uint8_t)blk->scales[2 * j + 1];
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)(qmm_q6_k_q(blk, 32 * j + l) + 32);
        qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
    }
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q6_k blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        blk.scales[2 * j] = (int8_t)chunk[64 + 32 * j + 2 * r];
        blk.scales[2 * j + 1] = (int8_t)chunk[64 + 32 * j + 2 * r + 1];
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, rr = e % 128;
            blk.ql[64 * h + rr % 64] |= (uint8_t)((q[l] & 0x0f) << (4 * (rr / 64)));
            blk.qh[32 * h + rr % 32] |= (uint8_t)((q[l] >> 4) << (2 * (rr / 32)));
        }
    }
    qmm_dequantize_row_q6_k(&blk, dst, QMM_QK_K);
}

QMM_AVX512X_FAMILY(avx512vnni_q6_k, QMM_TYPE_Q6_K, KIND, put_unit, get_unit)
