/* Q2_K weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * The x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (1344 bytes = 16 x 84, the GGUF size): fp16 d[16], fp16
 * dmin[16], GGUF's scale bytes (sc | m << 4 per 16 elements) as
 * u8 [8][16][2] (32-block j, row r, half a/b), then per 32-block two 2-bit
 * planes of q. Per 32-block: two dot chains (elements 0..15, 16..31), each
 * times its 4-bit scale by vpmulld; the min step's imin = -(m_a sum_a qx +
 * m_b sum_b qx) is one vpmaddwd of the activation's int16 sums by (-m_a, -m_b). */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q2_K

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q2_k *blk = (const qmm_block_q2_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    memcpy(chunk + 32 + 2 * r, &blk->dmin, 2);
    for (int j = 0; j < 8; j++) {
        chunk[64 + 32 * j + 2 * r] = blk->scales[2 * j];
        chunk[64 + 32 * j + 2 * r + 1] = blk->scales[2 * j + 1];
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q2_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
    }
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q2_k blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    memcpy(&blk.dmin, chunk + 32 + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        blk.scales[2 * j] = chunk[64 + 32 * j + 2 * r];
        blk.scales[2 * j + 1] = chunk[64 + 32 * j + 2 * r + 1];
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, s = (e % 128) / 32;
            blk.qs[32 * h + l] |= (uint8_t)(q[l] << (2 * s));
        }
    }
    qmm_dequantize_row_q2_k(&blk, dst, QMM_QK_K);
}

QMM_AVX512X_FAMILY(avx512vnni_q2_k, QMM_TYPE_Q2_K, KIND, put_unit, get_unit)
