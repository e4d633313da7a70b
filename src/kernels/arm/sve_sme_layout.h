/* The packed layouts shared by the SVE and SME int8 families (plain C: the
 * packers and GET_ROWS readers; the kernels live in their own files).
 *
 * Why a fixed 16-row weight panel whatever the vector length: a packed blob
 * is stored with the family name and may be loaded on another CPU, and the
 * descriptor's n_step is a constant, so the layout must not depend on the
 * (SVE or streaming) vector length. 16 rows of int32 lanes is one 512-bit
 * vector, the common SVL (Apple M4) and a 16x16 int32 ZA tile there. Kernels
 * cover a panel in ceil(16 / lanes) chunks at 128/256 bits and predicate the
 * lanes past 16 off at 1024/2048 bits (correct, not fast: no such hardware is
 * common), so any VL from 128 to 2048 bits reads the same blob.
 *
 * Weight panel (16 rows, zero rows pad the last), per 32-element block:
 *   16 x fp16 scales (32 bytes, converted exactly in the kernels), then
 *   Q8_0: 8 groups g of [16 rows x 4 int8] = weights k = 4g..4g+3 of row r
 *         at byte 64 g + 4 r: one vector load gives a 4-way dot product
 *         operand per row lane (SDOT lanes, SMOPA columns);
 *   Q4_0: 4 groups g of [16 rows x 4 bytes], the GGUF bytes qs[4g..4g+3]
 *         xor 0x88: low nibbles hold k = 4g.., high nibbles k = 16 + 4g..,
 *         and a nibble s stores q ^ 8, whose signed 4-bit value is q - 8,
 *         so two shifts (lsl+asr, asr) yield the signed weights.
 */
#ifndef QMM_SVE_SME_LAYOUT_H
#define QMM_SVE_SME_LAYOUT_H

#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

#define QMM_SVESME_NP     16                  /* weight panel rows */
#define QMM_SVESME_SCALES (QMM_SVESME_NP * 2) /* fp16 scale bytes per panel block */
#define QMM_SVESME_GROUP  (QMM_SVESME_NP * 4) /* bytes of one 4-k group of a panel */
#define QMM_SVESME_Q8_BLK (QMM_SVESME_SCALES + 8 * QMM_SVESME_GROUP)
#define QMM_SVESME_Q4_BLK (QMM_SVESME_SCALES + 4 * QMM_SVESME_GROUP)

static inline int64_t qmm_svesme_panels(int64_t n) { return (n + QMM_SVESME_NP - 1) / QMM_SVESME_NP; }

static inline size_t qmm_svesme_w_size_q8(int64_t k, int64_t n) {
    return (size_t)qmm_svesme_panels(n) * (size_t)(k / QMM_QK) * QMM_SVESME_Q8_BLK;
}
static inline size_t qmm_svesme_w_offset_q8(int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_SVESME_NP) * (size_t)(k / QMM_QK) * QMM_SVESME_Q8_BLK;
}
static inline size_t qmm_svesme_w_size_q4(int64_t k, int64_t n) {
    return (size_t)qmm_svesme_panels(n) * (size_t)(k / QMM_QK) * QMM_SVESME_Q4_BLK;
}
static inline size_t qmm_svesme_w_offset_q4(int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_SVESME_NP) * (size_t)(k / QMM_QK) * QMM_SVESME_Q4_BLK;
}

/* Rows [n0, n1) cover whole panels (n0 % 16 == 0; n1 % 16 == 0 or n1 == n). */
static inline void qmm_svesme_w_pack_q8(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset_q8(p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)nb * QMM_SVESME_Q8_BLK);
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_q8_0 *row = (const qmm_block_q8_0 *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q8_BLK;
                memcpy(blk + 2 * r, &row[b].d, 2);
                for (int g = 0; g < 8; g++)
                    memcpy(blk + QMM_SVESME_SCALES + g * QMM_SVESME_GROUP + 4 * r, row[b].qs + 4 * g, 4);
            }
        }
    }
}

static inline void qmm_svesme_w_pack_q4(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t p = n0 / QMM_SVESME_NP; p < qmm_svesme_panels(n1); p++) {
        uint8_t *panel = (uint8_t *)dst + qmm_svesme_w_offset_q4(p * QMM_SVESME_NP, k);
        memset(panel, 0, (size_t)nb * QMM_SVESME_Q4_BLK); /* pad rows: nibbles 0 = weight 0, d = 0 */
        for (int r = 0; r < QMM_SVESME_NP && p * QMM_SVESME_NP + r < n; r++) {
            const qmm_block_q4_0 *row = (const qmm_block_q4_0 *)((const uint8_t *)src + (size_t)(p * QMM_SVESME_NP + r) * stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q4_BLK;
                memcpy(blk + 2 * r, &row[b].d, 2);
                for (int g = 0; g < 4; g++)
                    for (int t = 0; t < 4; t++)
                        blk[QMM_SVESME_SCALES + g * QMM_SVESME_GROUP + 4 * r + t] = (uint8_t)(row[b].qs[4 * g + t] ^ 0x88);
            }
        }
    }
}

/* GET_ROWS: the ggml values, computed as the reference dequantizer does. */
static inline void qmm_svesme_w_read_row_q8(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_svesme_w_offset_q8(row, k);
    const int r = (int)(row % QMM_SVESME_NP);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q8_BLK;
        uint16_t h;
        memcpy(&h, blk + 2 * r, 2);
        const float d = qmm_fp16_to_fp32(h);
        for (int l = 0; l < QMM_QK; l++)
            dst[b * QMM_QK + l] = (float)(int8_t)blk[QMM_SVESME_SCALES + (l / 4) * QMM_SVESME_GROUP + 4 * r + l % 4] * d;
    }
}

static inline void qmm_svesme_w_read_row_q4(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const int64_t nb = k / QMM_QK;
    const uint8_t *panel = (const uint8_t *)packed + qmm_svesme_w_offset_q4(row, k);
    const int r = (int)(row % QMM_SVESME_NP);
    for (int64_t b = 0; b < nb; b++) {
        const uint8_t *blk = panel + (size_t)b * QMM_SVESME_Q4_BLK;
        uint16_t h;
        memcpy(&h, blk + 2 * r, 2);
        const float d = qmm_fp16_to_fp32(h);
        for (int l = 0; l < QMM_QK / 2; l++) {
            const uint8_t s = (uint8_t)(blk[QMM_SVESME_SCALES + (l / 4) * QMM_SVESME_GROUP + 4 * r + l % 4] ^ 0x88);
            dst[b * QMM_QK + l] = (float)((s & 0x0f) - 8) * d;
            dst[b * QMM_QK + l + QMM_QK / 2] = (float)((s >> 4) - 8) * d;
        }
    }
}

/* SME GEMM activations: groups of 16 rows (zero rows pad the last), per
 * block: 16 fp32 scales d (64 bytes), then 8 groups of [16 rows x 4 int8]
 * (row i's q[4g..4g+3] at 64 + 64 g + 4 i): the SMOPA row operand. The int8
 * values and d are exactly qmm_act_quantize_block's (it is called here). */
#define QMM_SVESME_MP      16
#define QMM_SVESME_ACT_BLK (QMM_SVESME_MP * 4 + 8 * QMM_SVESME_MP * 4)

static inline size_t qmm_svesme_act_size(int64_t m, int64_t k) {
    return (size_t)((m + QMM_SVESME_MP - 1) / QMM_SVESME_MP) * (size_t)(k / QMM_QK) * QMM_SVESME_ACT_BLK;
}
static inline size_t qmm_svesme_act_offset(int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_SVESME_MP) * (size_t)(k / QMM_QK) * QMM_SVESME_ACT_BLK;
}
static inline void qmm_svesme_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    const int64_t nb = k / QMM_QK;
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SVESME_MP) {
        uint8_t *grp = (uint8_t *)dst + qmm_svesme_act_offset(m0, k);
        memset(grp, 0, (size_t)nb * QMM_SVESME_ACT_BLK);
        for (int i = 0; i < QMM_SVESME_MP && m0 + i < m; i++) {
            const float *row = (const float *)((const char *)x + (size_t)(m0 + i) * x_row_stride);
            for (int64_t b = 0; b < nb; b++) {
                uint8_t *blk = grp + (size_t)b * QMM_SVESME_ACT_BLK;
                int8_t q[QMM_QK];
                float d;
                int32_t sum;
                qmm_act_quantize_block(row + b * QMM_QK, q, &d, &sum);
                memcpy(blk + 4 * i, &d, 4);
                for (int g = 0; g < 8; g++)
                    memcpy(blk + QMM_SVESME_MP * 4 + g * QMM_SVESME_MP * 4 + 4 * i, q + 4 * g, 4);
            }
        }
    }
}

#endif
