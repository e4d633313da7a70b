/* Q5_1 weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * The x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (384 bytes = 16 x 24): fp16 d[16], fp16 m[16], the unsigned q
 * (0..31) as Q4_0-form nibbles and a bit-4 plane. isum = sum q qx; the min
 * step's imin is the activation block's sum. */
#include "kernels/x86/avx512_int8.h"

#define KIND QMM_AVX512X_Q5_1

static void put_unit(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q5_1 *blk = (const qmm_block_q5_1 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    memcpy(chunk + 32 + 2 * r, &blk->m, 2);
    uint8_t q[QMM_QK];
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)qmm_q5_1_q(blk, l);
    qmm_avx512x_put_q(KIND, chunk + QMM_AVX512X_HDR(KIND), r, q);
}

static void get_unit(const uint8_t *chunk, int r, float *dst) {
    qmm_block_q5_1 blk; /* rebuild the GGUF block: ggml's values exactly */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    memcpy(&blk.m, chunk + 32 + 2 * r, 2);
    uint8_t q[QMM_QK];
    qmm_avx512x_get_q(KIND, chunk + QMM_AVX512X_HDR(KIND), r, q);
    for (int l = 0; l < QMM_QK; l++) {
        blk.qs[l % 16] |= (uint8_t)((q[l] & 0x0f) << (4 * (l / 16)));
        blk.qh[l / 8] |= (uint8_t)(((q[l] >> 4) & 1) << (l % 8));
    }
    qmm_dequantize_row_q5_1(&blk, dst, QMM_QK);
}

QMM_AVX512X_FAMILY(avx512vnni_q5_1, QMM_TYPE_Q5_1, KIND, put_unit, get_unit)
