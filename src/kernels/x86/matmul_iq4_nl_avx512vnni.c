/* IQ4_NL weights x int8 activations with AVX-512 VNNI: Q4_0's one-stream
 * group panels (avx512_int8.h, layout 2: per group of 8 blocks their fp16 d,
 * then their nibbles, 256 bytes per block in 4 vectors, vector j holding for
 * row r the GGUF bytes qs[4j..4j+3]), the nibbles looked up by vpshufb into
 * level + 128 and vpdpbusd from the -128 sum(q_x) bias. Packed = the GGUF
 * bytes (+ < 64 B of padding per panel when k / 32 is not a multiple of 2). */
#include "kernels/x86/avx512_gemm.h"
#include "kernels/x86/avx512_int8.h"

#define QBYTES 256 /* quant bytes per block and panel */

/* Block b of a GGUF row into lane r: the fp16 d as is, the 16 qs bytes as 4 dwords, one per vector j. */
static void avx512vnni_iq4_nl_put_block(const void *src_row, int64_t b, int r, uint8_t *scales, uint8_t *quants) {
    const qmm_block_iq4_nl *blk = (const qmm_block_iq4_nl *)src_row + b;
    memcpy(scales + 2 * r, &blk->d, 2);
    for (int j = 0; j < 4; j++)
        memcpy(quants + 64 * j + 4 * r, blk->qs + 4 * j, 4);
}

/* Lane r back as the GGUF block avx512vnni_iq4_nl_put_block read: its exact inverse. */
static void avx512vnni_iq4_nl_get_block(const uint8_t *scales, const uint8_t *quants, int r, void *dst) {
    qmm_block_iq4_nl blk;
    memcpy(&blk.d, scales + 2 * r, 2);
    for (int j = 0; j < 4; j++)
        memcpy(blk.qs + 4 * j, quants + 64 * j + 4 * r, 4);
    memcpy(dst, &blk, sizeof blk);
}

static size_t avx512vnni_iq4_nl_w_size(int64_t k, int64_t n) {
    return qmm_avx512_w_size(QMM_AVX512_SB(QMM_AVX512_W_IQ4_NL), QBYTES, k, n);
}
static size_t avx512vnni_iq4_nl_w_offset(int64_t n_idx, int64_t k) {
    return qmm_avx512_w_offset(QMM_AVX512_SB(QMM_AVX512_W_IQ4_NL), QBYTES, n_idx, k);
}
static void avx512vnni_iq4_nl_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_avx512_w_pack(k, n, n0, n1, src, stride, dst, QMM_AVX512_SB(QMM_AVX512_W_IQ4_NL), QBYTES, avx512vnni_iq4_nl_put_block);
}
static void avx512vnni_iq4_nl_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    qmm_avx512_w_unpack_row(packed, k, row, dst, QMM_AVX512_SB(QMM_AVX512_W_IQ4_NL), QBYTES, QMM_TYPE_IQ4_NL,
                            avx512vnni_iq4_nl_get_block);
}
static void avx512vnni_iq4_nl_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {
    qmm_avx512_gemm(QMM_AVX512_PANELS_BLOCK, QMM_AVX512_W_IQ4_NL, QBYTES, m, n, k, a, w, y, ys);
}
static void avx512vnni_iq4_nl_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    qmm_avx512_gemv(QMM_AVX512_W_IQ4_NL, QBYTES, n, k, a, w, y);
}

const qmm_family qmm_family_avx512vnni_iq4_nl = {
    .name = "avx512vnni_iq4_nl",
    .wtype = QMM_TYPE_IQ4_NL,
    .layout_id = 2,
    QMM_AVX512_VNNI_GEOMETRY,
    .w_packed_size = avx512vnni_iq4_nl_w_size,
    .w_packed_offset = avx512vnni_iq4_nl_w_offset,
    .w_pack = avx512vnni_iq4_nl_w_pack,
    .w_unpack_row = avx512vnni_iq4_nl_w_unpack_row,
    .act = QMM_AVX512_ACT8_ZP128,
    .act_gemv = QMM_AVX512_ACT1_ZP128,
    .gemm = avx512vnni_iq4_nl_gemm,
    .gemv = avx512vnni_iq4_nl_gemv,
};
