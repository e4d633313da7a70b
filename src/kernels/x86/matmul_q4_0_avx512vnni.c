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
#include "kernels/x86/avx512_gemm.h"
#include "kernels/x86/avx512_int8.h"

#define QBYTES 256 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, the 16 qs bytes as 4 dwords, one per vector j. */
static void avx512vnni_q4_0_put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_q4_0 *blk = (const qmm_block_q4_0 *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int j = 0; j < 4; j++)
        memcpy(quants + 64 * j + 4 * r, blk->qs + 4 * j, 4);
}

/* Lane r back as the GGUF block avx512vnni_q4_0_put_block read: its exact inverse. */
static void avx512vnni_q4_0_get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_q4_0 blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int j = 0; j < 4; j++)
        memcpy(blk.qs + 4 * j, quants + 64 * j + 4 * r, 4);
    memcpy(dst, &blk, sizeof blk);
}

static size_t avx512vnni_q4_0_w_size(int64_t k, int64_t n) {
    return qmm_avx512_w_size(QMM_AVX512_SB(QMM_AVX512_W_Q4), QBYTES, k, n);
}
static size_t avx512vnni_q4_0_w_offset(int64_t n_idx, int64_t k) {
    return qmm_avx512_w_offset(QMM_AVX512_SB(QMM_AVX512_W_Q4), QBYTES, n_idx, k);
}
static void avx512vnni_q4_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512_w_pack(k, n, n0, n1, src, stride, dst, QMM_AVX512_SB(QMM_AVX512_W_Q4), QBYTES, avx512vnni_q4_0_put_block);
}
static void avx512vnni_q4_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512_w_unpack_row(packed, k, row, dst, QMM_AVX512_SB(QMM_AVX512_W_Q4), QBYTES, QMM_TYPE_Q4_0,
                            avx512vnni_q4_0_get_block);
}
static void avx512vnni_q4_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512_gemm(QMM_AVX512_PANELS_BLOCK, QMM_AVX512_W_Q4, QBYTES, m, n, k, a, w, y, ys);
}
static void avx512vnni_q4_0_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512_gemv(QMM_AVX512_W_Q4, QBYTES, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_q4_0 = {
    .name = "avx512vnni_q4_0",
    .wtype = QMM_TYPE_Q4_0,
    .layout_id = 2,
    QMM_AVX512_VNNI_GEOMETRY,
    .w_packed_size = avx512vnni_q4_0_w_size,
    .w_packed_offset = avx512vnni_q4_0_w_offset,
    .w_pack = avx512vnni_q4_0_w_pack,
    .w_unpack_row = avx512vnni_q4_0_w_unpack_row,
    .act = QMM_AVX512_ACT8_ZP8,
    .act_gemv = QMM_AVX512_ACT1_ZP8,
    .gemm = avx512vnni_q4_0_gemm,
    .gemv = avx512vnni_q4_0_gemv,
};
