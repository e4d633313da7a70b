/* Q5_K weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * As Q4_K (matmul_q4_k_avx512vnni.c), with a bit-4 plane after each
 * 32-block's nibbles: one unit per super-block and 16-row panel is 2880 bytes
 * = 16 x 180 (the GGUF block is 176). */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q5_K

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q5_k *blk = (const qmm_block_q5_k *)src_row + u;
    qmm_avx512x_put_k_header(chunk, r, blk->d, blk->dmin, blk->scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q5_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
    }
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q5_k blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    qmm_avx512x_get_k_header(chunk, r, &blk.d, &blk.dmin, blk.scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
        for (int l = 0; l < QMM_QK; l++) {
            blk.qs[32 * (j / 2) + l] |= (uint8_t)((q[l] & 0x0f) << (4 * (j % 2)));
            blk.qh[l] |= (uint8_t)(((q[l] >> 4) & 1) << j);
        }
    }
    qmm_dequantize_row_q5_k(&blk, dst, QMM_QK_K);
}

QMM_AVX512X_FAMILY(avx512vnni_q5_k, QMM_TYPE_Q5_K, KIND, put_unit, get_unit)
