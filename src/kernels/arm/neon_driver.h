/* The GEMM driver and the descriptor of the NEON int8 families (dotprod, i8mm; Q4_0, Q8_0; Q4_1, Q5_0, Q5_1, Q6_K
 * through the bodies neon_legacy_body.h, neon_q6_k_body.h): everything of such a family but its tile function and
 * its panel format (neon_common.h, or the body's). A family file (or body) defines
 *     static inline __attribute__((always_inline))
 *     void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w, float32x4_t out[QMM_NEON_MR]);
 * (mc activation rows of the 4-row group a x the 4 rows of panel w, all nb blocks, into out[0..mc)) and invokes
 * QMM_NEON_INT8_FAMILY once. The driver is a macro, not a function taking a pointer, so that the tile is inlined
 * once per constant mc (the switch below) whatever the compiler: the loops over blocks and rows are then fully
 * unrolled for each tile height. */
#ifndef QMM_NEON_DRIVER_H
#define QMM_NEON_DRIVER_H

#include "kernels/arm/neon_common.h"

/* static void fn(m, n, k, a, w, y, ys): the qmm_family gemm entry. Panel outer, activation groups inner, so a
 * panel (nb * blk bytes) stays in L1 while the groups stream past; a short last group (mc < 4) gets its own
 * inlined tile, a short last panel stores only its nc columns. act_blk: bytes per block of an activation group. */
#define QMM_NEON_GEMM(fn, tile, blk, act_blk)                                                                                    \
    static void fn(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) {                         \
        const int64_t nb = k / QMM_QK;                                                                                           \
        const size_t panel_bytes = (size_t)nb * (blk), group_bytes = (size_t)nb * (act_blk);                                     \
        for (int64_t j0 = 0; j0 < n; j0 += QMM_NEON_NR) {                                                                        \
            const uint8_t *wp = (const uint8_t *)w + (size_t)(j0 / QMM_NEON_NR) * panel_bytes;                                   \
            const int64_t nc = n - j0 < QMM_NEON_NR ? n - j0 : QMM_NEON_NR;                                                      \
            for (int64_t i0 = 0; i0 < m; i0 += QMM_NEON_MR) {                                                                    \
                const uint8_t *ap = (const uint8_t *)a + (size_t)(i0 / QMM_NEON_MR) * group_bytes;                               \
                const int64_t mc = m - i0 < QMM_NEON_MR ? m - i0 : QMM_NEON_MR;                                                  \
                float32x4_t out[QMM_NEON_MR];                                                                                    \
                switch (mc) {                                                                                                    \
                case 1: tile(1, nb, ap, wp, out); break;                                                                         \
                case 2: tile(2, nb, ap, wp, out); break;                                                                         \
                case 3: tile(3, nb, ap, wp, out); break;                                                                         \
                default: tile(4, nb, ap, wp, out); break;                                                                        \
                }                                                                                                                \
                for (int64_t i = 0; i < mc; i++)                                                                                 \
                    qmm_neon_store_cols((float *)((char *)y + (size_t)(i0 + i) * ys) + j0, out[i], nc);                          \
            }                                                                                                                    \
        }                                                                                                                        \
    }

/* Defines `const qmm_family qmm_family_<id>` (name "<id>") for weights of type wtype packed in the neon_common.h
 * panel format fmt (q4_0 or q8_0: qmm_neon_pack_<fmt>, _read_<fmt>, _unpack_<fmt>; blk its bytes per block) in the given
 * arrangement (QMM_NEON_ROWS4 or QMM_NEON_PAIRS, the activations likewise), computed by tile; kr is the k
 * interleave of one dot step. A GEMV is the GEMM with one row: the 4-row tile wastes nothing there. */
#define QMM_NEON_INT8_FAMILY(id, wtype_, fmt, blk, arrangement, kr_, required_, fallback_hides_, tile)                           \
    QMM_NEON_INT8_FAMILY_ACT(id, wtype_, fmt, blk, arrangement, kr_, required_, fallback_hides_, tile, act, QMM_NEON_ACT_BLK)

/* The same with the activation layout named: actfmt is the prefix of its qmm_neon_<actfmt>_size / _offset / _pack
 * (act: neon_common.h's; act_sums: neon_act_sums.h's, which also stores per-16 sums), act_blk its bytes per block. */
#define QMM_NEON_INT8_FAMILY_ACT(id, wtype_, fmt, blk, arrangement, kr_, required_, fallback_hides_, tile, actfmt, act_blk)      \
    static size_t w_size(int64_t k, int64_t n) { return qmm_neon_w_size(blk, k, n); }                                            \
    static size_t w_offset(int64_t n_idx, int64_t k) { return qmm_neon_w_offset(blk, n_idx, k); }                                \
    static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {                \
        qmm_neon_pack_##fmt(arrangement, k, n, n0, n1, src, stride, dst);                                                        \
    }                                                                                                                            \
    static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {                                  \
        qmm_neon_read_##fmt(arrangement, packed, k, row, dst);                                                                   \
    }                                                                                                                            \
    static void w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {                                 \
        qmm_neon_unpack_##fmt(arrangement, packed, k, row, dst);                                                                 \
    }                                                                                                                            \
    static void act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {                                 \
        qmm_neon_##actfmt##_pack(arrangement, m, k, x, x_row_stride, dst);                                                       \
    }                                                                                                                            \
    QMM_NEON_GEMM(gemm, tile, blk, act_blk)                                                                                      \
    const qmm_family qmm_family_##id = {                                                                                         \
        .name = #id,                                                                                                             \
        .wtype = wtype_,                                                                                                         \
        .required = required_,                                                                                                   \
        .fallback_hides = fallback_hides_,                                                                                       \
        .flags = 0,                                                                                                              \
        .layout_id = 1,                                                                                                          \
        .mr = QMM_NEON_MR,                                                                                                       \
        .nr = QMM_NEON_NR,                                                                                                       \
        .kr = kr_,                                                                                                               \
        .sr = 1,                                                                                                                 \
        .n_step = QMM_NEON_NR,                                                                                                   \
        .w_packed_size = w_size,                                                                                                 \
        .w_packed_offset = w_offset,                                                                                             \
        .w_pack = w_pack,                                                                                                        \
        .w_read_row = w_read_row,                                                                                                \
        .w_unpack_row = w_unpack_row,                                                                                            \
        .act = {QMM_NEON_MR, qmm_neon_##actfmt##_size, qmm_neon_##actfmt##_offset, act_pack},                                    \
        .act_gemv = {0, NULL, NULL, NULL},                                                                                       \
        .gemm = gemm,                                                                                                            \
        .gemv = NULL,                                                                                                            \
    };

#endif
