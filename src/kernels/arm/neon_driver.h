/* The NEON int8 families (dotprod: sdot on ROWS4 panels; i8mm: smmla on PAIRS panels) of every weight kind: the
 * entry points with the kind (a qmm_type) and the arrangement as constant arguments, the GEMM driver, and the
 * descriptor. A family file (matmul_<type>_neon_dotprod.c, _i8mm.c) writes out its entry points as one-line calls
 * of the qmm_neon_int8_* functions with its constants, and its descriptor with QMM_NEON_FAMILY. The kinds' panel
 * formats and tiles: neon_common.h and neon_legacy_body.h (Q4_0, Q8_0, Q4_1, Q5_0, Q5_1), neon_k_quant.h and
 * neon_k_quant_body.h (Q2_K, Q3_K, Q4_K, Q5_K), neon_q6_k_body.h (Q6_K), neon_table.h (IQ4_NL, MXFP4, IQ4_XS). */
#ifndef QMM_NEON_DRIVER_H
#define QMM_NEON_DRIVER_H

#include "kernels/arm/neon_common.h"
#include "kernels/arm/neon_k_quant_body.h"
#include "kernels/arm/neon_legacy_body.h"
#include "kernels/arm/neon_q6_k_body.h"
#include "kernels/arm/neon_table.h"

/* Bytes per 32-block of a panel of the kind (a super-block's panel bytes / 8 for the 256-element kinds). */
static inline size_t qmm_neon_w_blk(qmm_type kind) {
    switch (kind) {
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_MXFP4:
    case QMM_TYPE_IQ4_XS: return qmm_neon_table_blk(kind);
    case QMM_TYPE_Q2_K:
    case QMM_TYPE_Q3_K:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: return qmm_neon_kq_blk(kind);
    case QMM_TYPE_Q6_K: return QMM_NEON_Q6_K_BLK;
    default: return qmm_neon_legacy_blk(kind);
    }
}

/* Whether the kind takes the activation layout with sums (neon_act_sums.h): the kinds with a min. */
static inline int qmm_neon_act_with_sums(qmm_type kind) {
    return qmm_neon_legacy_has_min(kind) || kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q4_K || kind == QMM_TYPE_Q5_K;
}

static inline size_t qmm_neon_int8_w_size(qmm_type kind, int64_t k, int64_t n) {
    return qmm_neon_w_size(qmm_neon_w_blk(kind), k, n);
}

static inline size_t qmm_neon_int8_w_offset(qmm_type kind, int64_t n_idx, int64_t k) {
    return qmm_neon_w_offset(qmm_neon_w_blk(kind), n_idx, k);
}

static inline void qmm_neon_int8_w_pack(qmm_type kind, int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1,
                                        const void *src, size_t stride, void *dst) {
    switch (kind) {
    case QMM_TYPE_Q8_0: qmm_neon_pack_q8_0(arrangement, k, n, n0, n1, src, stride, dst); break;
    case QMM_TYPE_Q4_0: qmm_neon_pack_q4_0(arrangement, k, n, n0, n1, src, stride, dst); break;
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_MXFP4: qmm_neon_table_pack(kind, arrangement, k, n, n0, n1, src, stride, dst); break;
    case QMM_TYPE_IQ4_XS: qmm_neon_pack_iq4_xs(arrangement, k, n, n0, n1, src, stride, dst); break;
    case QMM_TYPE_Q2_K:
    case QMM_TYPE_Q3_K:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: qmm_neon_kq_pack(kind, arrangement, k, n, n0, n1, src, stride, dst); break;
    case QMM_TYPE_Q6_K: qmm_neon_q6_k_pack(arrangement, k, n, n0, n1, src, stride, dst); break;
    default: qmm_neon_legacy_pack(kind, arrangement, k, n, n0, n1, src, stride, dst); break;
    }
}

static inline void qmm_neon_int8_w_unpack_row(qmm_type kind, int arrangement, const void *packed, int64_t k, int64_t n,
                                              int64_t row, void *dst) {
    (void)n;
    switch (kind) {
    case QMM_TYPE_Q8_0: qmm_neon_unpack_q8_0(arrangement, packed, k, row, dst); break;
    case QMM_TYPE_Q4_0: qmm_neon_unpack_q4_0(arrangement, packed, k, row, dst); break;
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_MXFP4: qmm_neon_table_unpack(kind, arrangement, packed, k, row, dst); break;
    case QMM_TYPE_IQ4_XS: qmm_neon_unpack_iq4_xs(arrangement, packed, k, row, dst); break;
    case QMM_TYPE_Q2_K:
    case QMM_TYPE_Q3_K:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: qmm_neon_kq_unpack(kind, arrangement, packed, k, row, dst); break;
    case QMM_TYPE_Q6_K: qmm_neon_q6_k_unpack_row(arrangement, packed, k, row, dst); break;
    default: qmm_neon_legacy_unpack_row(kind, arrangement, packed, k, row, dst); break;
    }
}

static inline size_t qmm_neon_int8_act_size(qmm_type kind, int64_t m, int64_t k) {
    return qmm_neon_act_layout_size(qmm_neon_act_with_sums(kind), m, k);
}

static inline size_t qmm_neon_int8_act_offset(qmm_type kind, int64_t m_idx, int64_t k) {
    return qmm_neon_act_layout_offset(qmm_neon_act_with_sums(kind), m_idx, k);
}

static inline void qmm_neon_int8_act_pack(qmm_type kind, int arrangement, int64_t m, int64_t k, const float *x, size_t xs,
                                          void *dst) {
    qmm_neon_act_layout_pack(qmm_neon_act_with_sums(kind), arrangement, m, k, x, xs, dst);
}

/* mc activation rows of the 4-row group a x the 4 rows of panel w, all nb 32-blocks, into out[0..mc): the kind's
 * tile. */
static inline __attribute__((always_inline)) void qmm_neon_int8_tile(qmm_type kind, int arrangement, const int mc, int64_t nb,
                                                                     const uint8_t *a, const uint8_t *w,
                                                                     float32x4_t out[QMM_NEON_MR]) {
    switch (kind) {
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_MXFP4:
    case QMM_TYPE_IQ4_XS: qmm_neon_table_tile(kind, arrangement, mc, nb, a, w, out); break;
    case QMM_TYPE_Q2_K:
    case QMM_TYPE_Q3_K:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: qmm_neon_kq_tile(kind, arrangement, mc, nb, a, w, out); break;
    case QMM_TYPE_Q6_K: qmm_neon_q6_k_tile(arrangement, mc, nb, a, w, out); break;
    default: qmm_neon_legacy_tile(kind, arrangement, mc, nb, a, w, out); break;
    }
}

/* The qmm_family gemm. Panel outer, activation groups inner, so a panel stays in L1 while the groups stream past;
 * the tile is inlined once per constant tile height mc (the switch: the loops over blocks and rows are then fully
 * unrolled for each), a short last panel stores only its nc columns. A GEMV is the GEMM with one row: the 4-row
 * tile wastes nothing there. */
static inline __attribute__((always_inline)) void qmm_neon_int8_gemm(qmm_type kind, int arrangement, int64_t m, int64_t n,
                                                                     int64_t k, const void *a, const void *w, float *y,
                                                                     size_t ys) {
    const int64_t nb = k / QMM_QK;
    const size_t panel_bytes = (size_t)nb * qmm_neon_w_blk(kind);
    const size_t group_bytes = (size_t)nb * qmm_neon_act_blk_bytes(qmm_neon_act_with_sums(kind));
    for (int64_t j0 = 0; j0 < n; j0 += QMM_NEON_NR) {
        const uint8_t *wp = (const uint8_t *)w + (size_t)(j0 / QMM_NEON_NR) * panel_bytes;
        const int64_t nc = n - j0 < QMM_NEON_NR ? n - j0 : QMM_NEON_NR;
        for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR) {
            const uint8_t *ap = (const uint8_t *)a + (size_t)(i0 / QMM_NEON_MR) * group_bytes;
            const int64_t mc = m - i0 < QMM_NEON_MR ? m - i0 : QMM_NEON_MR;
            float32x4_t out[QMM_NEON_MR];
            switch (mc) {
            case 1: qmm_neon_int8_tile(kind, arrangement, 1, nb, ap, wp, out); break;
            case 2: qmm_neon_int8_tile(kind, arrangement, 2, nb, ap, wp, out); break;
            case 3: qmm_neon_int8_tile(kind, arrangement, 3, nb, ap, wp, out); break;
            default: qmm_neon_int8_tile(kind, arrangement, 4, nb, ap, wp, out); break;
            }
            for (int64_t i = 0; i < mc; i++)
                qmm_neon_store_cols((float *)((char *)y + (size_t)(i0 + i) * ys) + j0, out[i], nc);
        }
    }
}

/* The descriptor of family name_ (its qmm_family_<name_> is what the registry refers to) for weights of type wtype_
 * in the arrangement (ROWS4: dotprod, its fallback the reference; PAIRS: i8mm, its fallback the dotprod family:
 * fallback_hides masks the feature off for QMM_CAP hybrid runs), with its entry points. */
#define QMM_NEON_FAMILY(name_, wtype_, arrangement, w_size_, w_offset_, w_pack_, w_unpack_row_, act_size_, act_offset_,          \
                        act_pack_, gemm_)                                                                                        \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_,                                                                                          \
        .required =                                                                                                              \
            (arrangement) == QMM_NEON_PAIRS ? QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM : QMM_CPU_NEON | QMM_CPU_DOTPROD,    \
        .fallback_hides = (arrangement) == QMM_NEON_PAIRS ? QMM_CPU_I8MM : QMM_CPU_DOTPROD, .flags = 0, .layout_id = 1,          \
        .mr = QMM_NEON_MR, .nr = QMM_NEON_NR, .kr = (arrangement) == QMM_NEON_PAIRS ? 8 : 4, .sr = 1, .n_step = QMM_NEON_NR,     \
        .w_packed_size = w_size_, .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                \
        .act = {QMM_NEON_MR, act_size_, act_offset_, act_pack_}, .act_gemv = {0, NULL, NULL, NULL}, .gemm = gemm_, .gemv = NULL, \
    }

#endif
