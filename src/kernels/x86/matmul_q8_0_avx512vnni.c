/* Q8_0 weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * vpdpbusd multiplies unsigned by signed bytes, so the packer stores each
 * weight as q + 128 (q ^ 0x80, exact for every int8 including -128) and the
 * activation bias -128 * sum(q_x) restores sum q_w * q_x exactly. Panel of
 * 16 weight rows, per k block of 32 (scale stream in avx512_int8.h): 512
 * bytes = 8 zmm, vector c holding for row r (lane r) elements 4c..4c+3.
 * GEMM tile: 8 activation rows x 16 weight rows, as for Q4_0. */
#include "kernels/x86/avx512_int8.h"

#define QBYTES 512 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, element 4c + t at byte 64c + 4r + t, stored q ^ 0x80. */
static void put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_q8_0 *blk = (const qmm_block_q8_0 *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++)
            quants[64 * c + 4 * r + t] = (uint8_t)blk->qs[4 * c + t] ^ 0x80u;
}

/* Lane r back as the GGUF block put_block read: its exact inverse. */
static void get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_q8_0 blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++)
            blk.qs[4 * c + t] = (int8_t)(quants[64 * c + 4 * r + t] ^ 0x80u);
    memcpy(dst, &blk, sizeof blk);
}

QMM_AVX512_INT8_FAMILY(avx512vnni_q8_0, QMM_TYPE_Q8_0, QMM_AVX512_W_Q8, QBYTES, 128, put_block, get_block)
