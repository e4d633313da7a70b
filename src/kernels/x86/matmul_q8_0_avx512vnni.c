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

static size_t w_size(int64_t k, int64_t n) { return (size_t)((n + QMM_A5_NR - 1) / QMM_A5_NR) * qmm_a5_panel_bytes(k, QBYTES); }

static size_t w_offset(int64_t n_idx, int64_t k) { return (size_t)(n_idx / QMM_A5_NR) * qmm_a5_panel_bytes(k, QBYTES); }

static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_A5_NR) {
        uint8_t *panel = (uint8_t *)dst + w_offset(p0, k);
        uint8_t *qw = panel + qmm_a5_scale_bytes(nb);
        memset(panel, 0, qmm_a5_panel_bytes(k, QBYTES)); /* padding rows and the scale tail */
        for (int r = 0; r < QMM_A5_NR && p0 + r < n; r++) {
            const qmm_block_q8_0 *row = (const qmm_block_q8_0 *)((const char *)src + (size_t)(p0 + r) * stride);
            for (int64_t b = 0; b < nb; b++) {
                memcpy(panel + (size_t)b * 32 + 2 * r, &row[b].d, 2);
                for (int c = 0; c < 8; c++)
                    for (int t = 0; t < 4; t++)
                        qw[(size_t)b * QBYTES + 64 * c + 4 * r + t] = (uint8_t)row[b].qs[4 * c + t] ^ 0x80u;
            }
        }
    }
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + w_offset(row, k);
    const uint8_t *qw = panel + qmm_a5_scale_bytes(nb);
    const int r = (int)(row % QMM_A5_NR);
    for (int64_t b = 0; b < nb; b++) {
        qmm_block_q8_0 blk; /* rebuild the GGUF block: ggml's values exactly */
        memcpy(&blk.d, panel + (size_t)b * 32 + 2 * r, 2);
        for (int c = 0; c < 8; c++)
            for (int t = 0; t < 4; t++)
                blk.qs[4 * c + t] = (int8_t)(qw[(size_t)b * QBYTES + 64 * c + 4 * r + t] ^ 0x80u);
        qmm_dequantize_row_q8_0(&blk, dst + b * QMM_QK, QMM_QK);
    }
}

static size_t act_size(int64_t m, int64_t k) { return qmm_a5_act_size(m, k, QMM_A5_MR); }
static size_t act_offset(int64_t m_idx, int64_t k) { return qmm_a5_act_offset(m_idx, k, QMM_A5_MR); }
static void act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    qmm_a5_act_pack(m, k, x, xs, dst, QMM_A5_MR, 128);
}
static size_t act1_size(int64_t m, int64_t k) { return qmm_a5_act_size(m, k, 1); }
static size_t act1_offset(int64_t m_idx, int64_t k) { return qmm_a5_act_offset(m_idx, k, 1); }
static void act1_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) { qmm_a5_act_pack(m, k, x, xs, dst, 1, 128); }

QMM_A5_TILES(QMM_A5_W_Q8, QBYTES)

const qmm_kernel qmm_kernel_avx512vnni_q8_0 = {
    .name = "avx512vnni_q8_0",
    .wtype = QMM_TYPE_Q8_0,
    .required = QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI | QMM_CPU_F16C,
    .exclusive = QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI,
    .flags = 0,
    .layout_id = 1,
    .mr = QMM_A5_MR,
    .nr = QMM_A5_NR,
    .kr = 4,
    .sr = 1,
    .n_step = QMM_A5_NR,
    .w_packed_size = w_size,
    .w_packed_offset = w_offset,
    .w_pack = w_pack,
    .w_read_row = w_read_row,
    .act = {QMM_A5_MR, act_size, act_offset, act_pack},
    .act_gemv = {1, act1_size, act1_offset, act1_pack},
    .gemm = gemm,
    .gemv = gemv,
};
