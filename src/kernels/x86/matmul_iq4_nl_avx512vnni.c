/* IQ4_NL weights x int8 activations with AVX-512 VNNI: Q4_0's one-stream
 * group panels (avx512_int8.h, layout 2: per group of 8 blocks their fp16 d,
 * then their nibbles, 256 bytes per block in 4 vectors, vector j holding for
 * row r the GGUF bytes qs[4j..4j+3]), the nibbles looked up by vpshufb into
 * level + 128 and vpdpbusd from the -128 sum(q_x) bias. Packed = the GGUF
 * bytes (+ < 64 B of padding per panel when k / 32 is not a multiple of 2). */
#include "kernels/x86/avx512_int8.h"

#define QBYTES 256 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, the 16 qs bytes as 4 dwords, one per vector j. */
static void put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_iq4_nl *blk = (const qmm_block_iq4_nl *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int j = 0; j < 4; j++)
        memcpy(quants + 64 * j + 4 * r, blk->qs + 4 * j, 4);
}

/* Lane r back as the GGUF block put_block read: its exact inverse. */
static void get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_iq4_nl blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int j = 0; j < 4; j++)
        memcpy(blk.qs + 4 * j, quants + 64 * j + 4 * r, 4);
    memcpy(dst, &blk, sizeof blk);
}

QMM_AVX512_INT8_FAMILY(avx512vnni_iq4_nl, QMM_TYPE_IQ4_NL, QMM_AVX512_W_IQ4_NL, QBYTES, 128, put_block, get_block)
