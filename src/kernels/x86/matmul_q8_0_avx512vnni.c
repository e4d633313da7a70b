/* Q8_0 weights x int8 activations with AVX-512 VNNI (vpdpbusd).
 *
 * vpdpbusd multiplies unsigned by signed bytes, so the packer stores each
 * weight as q + 128 (q ^ 0x80, exact for every int8 including -128) and the
 * activation bias -128 * sum(q_x) restores sum q_w * q_x exactly. Panel of
 * 16 weight rows, per k block of 32 (scale stream in avx512_int8.h): 512
 * bytes = 8 zmm, vector c holding for row r (lane r) elements 4c..4c+3.
 * GEMM tile: 8 activation rows x 16 weight rows, as for Q4_0. */
#include "kernels/x86/avx512_gemm.h"
#include "kernels/x86/avx512_int8.h"

#define QBYTES 512 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, element 4c + t at byte 64c + 4r + t, stored q ^ 0x80. */
static void avx512vnni_q8_0_put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_q8_0 *blk = (const qmm_block_q8_0 *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++)
            quants[64 * c + 4 * r + t] = (uint8_t)blk->qs[4 * c + t] ^ 0x80u;
}

/* Lane r back as the GGUF block avx512vnni_q8_0_put_block read: its exact inverse. */
static void avx512vnni_q8_0_get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_q8_0 blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int c = 0; c < 8; c++)
        for (int t = 0; t < 4; t++)
            blk.qs[4 * c + t] = (int8_t)(quants[64 * c + 4 * r + t] ^ 0x80u);
    memcpy(dst, &blk, sizeof blk);
}

static size_t avx512vnni_q8_0_w_size(int64_t k, int64_t n) {
    return qmm_avx512_w_size(QMM_AVX512_SB(QMM_AVX512_W_Q8), QBYTES, k, n);
}
static size_t avx512vnni_q8_0_w_offset(int64_t n_idx, int64_t k) {
    return qmm_avx512_w_offset(QMM_AVX512_SB(QMM_AVX512_W_Q8), QBYTES, n_idx, k);
}
static void avx512vnni_q8_0_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512_w_pack(k, n, n0, n1, src, stride, dst, QMM_AVX512_SB(QMM_AVX512_W_Q8), QBYTES, avx512vnni_q8_0_put_block);
}
static void avx512vnni_q8_0_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512_w_unpack_row(packed, k, row, dst, QMM_AVX512_SB(QMM_AVX512_W_Q8), QBYTES, QMM_TYPE_Q8_0,
                            avx512vnni_q8_0_get_block);
}
static void avx512vnni_q8_0_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512_gemm(QMM_AVX512_PANELS_BLOCK, QMM_AVX512_W_Q8, QBYTES, m, n, k, a, w, y, ys);
}
static void avx512vnni_q8_0_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512_gemv(QMM_AVX512_W_Q8, QBYTES, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_q8_0 = {
    .name = "avx512vnni_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .layout_id = 2,
    QMM_AVX512_VNNI_GEOMETRY,
    .w_packed_size = avx512vnni_q8_0_w_size,
    .w_packed_offset = avx512vnni_q8_0_w_offset,
    .w_pack = avx512vnni_q8_0_w_pack,
    .w_unpack_row = avx512vnni_q8_0_w_unpack_row,
    .act = QMM_AVX512_ACT8_ZP128,
    .act_gemv = QMM_AVX512_ACT1_ZP128,
    .gemm = avx512vnni_q8_0_gemm,
    .gemv = avx512vnni_q8_0_gemv,
};
