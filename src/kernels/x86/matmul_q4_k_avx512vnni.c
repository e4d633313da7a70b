/* Q4_K weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * The x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (2368 bytes = 16 x 148, the GGUF block is 144): fp16 d[16],
 * fp16 dmin[16], the 6-bit sc and m of the 8 32-blocks as bytes
 * (u8 sc[8][16], u8 m[8][16]), then per 32-block the nibbles in Q4_0's form
 * (the GGUF super-block keeps 32-block 2c + h in nibble h of qs[32c..]).
 * Per 32-block j: isum = sc_j * (sum q qx) by one vpmulld, imin = -m_j sum qx
 * by one vpmaddwd against the block's two int16 sums. */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q4_K

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q4_k *blk = (const qmm_block_q4_k *)src_row + u;
    qmm_avx512x_put_k_header(chunk, r, blk->d, blk->dmin, blk->scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q4_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
    }
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q4_k blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    qmm_avx512x_get_k_header(chunk, r, &blk.d, &blk.dmin, blk.scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND) + j * QMM_AVX512X_QB(KIND), r, q);
        for (int l = 0; l < QMM_QK; l++)
            blk.qs[32 * (j / 2) + l] |= (uint8_t)(q[l] << (4 * (j % 2)));
    }
    qmm_dequantize_row_q4_k(&blk, dst, QMM_QK_K);
}

QMM_AVX512X_FAMILY(avx512vnni_q4_k, QMM_TYPE_Q4_K, KIND, put_unit, get_unit)
