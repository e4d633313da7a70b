/* Q4_0 weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * Panel of 16 weight rows, per k block of 32 (see avx512_int8.h for the
 * scale stream): 256 quant bytes = 4 zmm, vector j holding for row r (lane r)
 * the GGUF bytes qs[4j..4j+3]. Masking the low nibbles gives elements 4j..4j+3
 * as u8 0..15, shifting gives elements 16+4j..16+4j+3: one vpdpbusd per 4
 * k-values for all 16 rows, with the activation bytes broadcast. The bias
 * -8 * sum(q_x) makes each block's int32 sum exactly sum (q_w - 8) * q_x.
 * GEMM tile: 8 activation rows x 16 weight rows (16 accumulators + 8 weight
 * vectors in registers; each unpacked weight vector feeds 8 vpdpbusd). */
#include "kernels/x86/avx512_int8.h"

#define QBYTES 256 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, the 16 qs bytes as 4 dwords, one per vector j. */
static void put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_q4_0 *blk = (const qmm_block_q4_0 *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int j = 0; j < 4; j++)
        memcpy(quants + 64 * j + 4 * r, blk->qs + 4 * j, 4);
}

/* Lane r back as the GGUF block put_block read: its exact inverse. */
static void get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_q4_0 blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int j = 0; j < 4; j++)
        memcpy(blk.qs + 4 * j, quants + 64 * j + 4 * r, 4);
    memcpy(dst, &blk, sizeof blk);
}

QMM_AVX512_INT8_FAMILY(avx512vnni_q4_0, QMM_TYPE_Q4_0, QMM_AVX512_W_Q4, QBYTES, 8, put_block, get_block)
