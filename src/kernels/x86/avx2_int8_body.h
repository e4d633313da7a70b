/* The AVX2 / AVX-VNNI int8 driver: the loops every 256-bit int8 family
 * shares (panel x row-group tiling, the tile-height switch, the GEMV
 * multi-panel walk, the column-tail store, the prefetch), the dispatch to
 * the format bodies, and the descriptor. Every function takes the weight
 * kind (a qmm_type) and the isa (avx2_int8_types.h) as constants: a family
 * file (matmul_<type>_avx2.c, matmul_<type>_avxvnni.c) defines its dot step
 * (dot_step, dot_finish), includes this header, and writes out its entry
 * points as calls with its constants.
 *
 * A panel is 8 weight rows (n_step 8); one int32 lane per row, so the float
 * step is one vector op for 8 outputs, the reference's order exactly.
 * Activations: the reference layout (qmm_act_block rows), by the AVX2
 * packer (the per-16 formats: its variant with the two 16-element sums). */
#ifndef QMM_X86_AVX2_INT8_BODY_H
#define QMM_X86_AVX2_INT8_BODY_H

#include <immintrin.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/x86/act_q8_avx2.h"
#include "kernels/x86/avx2_int8_types.h"
#include "kernels/x86/avx2_legacy_body.h"
#include "kernels/x86/avx2_q23_k_body.h"
#include "kernels/x86/avx2_q4_0_body.h"
#include "kernels/x86/avx2_q4_k_body.h"
#include "kernels/x86/avx2_q6_k_body.h"
#include "kernels/x86/avx2_q8_0_body.h"
#include "kernels/x86/avx2_table_body.h"

#define QMM_AVX2_NR 8
#define QMM_AVX2_MR 4
#define QMM_AVX2_PF 1024 /* software prefetch distance per panel stream, bytes (measured) */
#define QMM_AVX2_KB 16   /* expanded k slice, in 32-blocks (IQ4_NL: 2 panels x 8 KiB of levels, in L1) */
#define QMM_AVX2_SB 8    /* 32-blocks per super-block, for the formats that decode its scales at once */
/* The expanded slice's vectors, the largest kind's: IQ4_NL / IQ4_XS, 2 panels
 * x QMM_AVX2_KB blocks x (4 chunks x 4 vectors of levels + 2 of scales). */
#define QMM_AVX2_X_VECS (2 * QMM_AVX2_KB * 18)

/* ------------------------------------------------------ the kinds' traits */

QMM_AVX2_INLINE size_t qmm_avx2_int8_panel_bytes(qmm_type kind, int64_t nb) {
    if (kind == QMM_TYPE_Q4_0)
        return qmm_avx2_q4_0_panel_bytes(nb);
    if (kind == QMM_TYPE_Q8_0)
        return qmm_avx2_q8_0_panel_bytes(nb);
    if (qmm_avx2_q4_k_kind(kind))
        return qmm_avx2_q4_k_panel_bytes(kind, nb);
    if (kind == QMM_TYPE_Q6_K)
        return qmm_avx2_q6_k_panel_bytes(nb);
    if (qmm_avx2_q23_k_kind(kind))
        return qmm_avx2_q23_k_panel_bytes(kind, nb);
    if (qmm_avx2_table_kind(kind))
        return qmm_avx2_table_panel_bytes(kind, nb);
    return qmm_avx2_legacy_panel_bytes(kind, nb);
}

/* Byte offset, in a panel, of block b's quants (the prefetch's stream). */
QMM_AVX2_INLINE size_t qmm_avx2_int8_quants(qmm_type kind, int64_t nb, int64_t b) {
    if (kind == QMM_TYPE_Q4_0)
        return qmm_avx2_q4_0_quants(nb, b);
    if (kind == QMM_TYPE_Q8_0)
        return qmm_avx2_q8_0_quants(nb, b);
    if (qmm_avx2_q4_k_kind(kind))
        return qmm_avx2_q4_k_quants(kind, b);
    if (kind == QMM_TYPE_Q6_K)
        return qmm_avx2_q6_k_quants(b);
    if (qmm_avx2_q23_k_kind(kind))
        return qmm_avx2_q23_k_quants(kind, b);
    if (qmm_avx2_table_kind(kind))
        return qmm_avx2_table_quants(kind, nb, b);
    return qmm_avx2_legacy_quants(kind, b);
}

/* 64 B lines per block the prefetch runs ahead by */
QMM_AVX2_INLINE int qmm_avx2_int8_pf_lines(qmm_type kind) {
    switch (kind) {
    case QMM_TYPE_Q2_K: return 1;
    case QMM_TYPE_Q8_0: return 4;
    case QMM_TYPE_Q4_1:
    case QMM_TYPE_Q5_0:
    case QMM_TYPE_Q5_1:
    case QMM_TYPE_Q5_K:
    case QMM_TYPE_Q6_K: return 3;
    default: return 2;
    }
}

/* dot steps per block */
QMM_AVX2_INLINE int qmm_avx2_int8_chunks(qmm_type kind) { return kind == QMM_TYPE_Q8_0 ? 8 : kind == QMM_TYPE_MXFP4 ? 2 : 4; }

/* Vectors of an unpacked chunk. */
QMM_AVX2_INLINE int qmm_avx2_int8_wv_vecs(qmm_type kind) {
    return kind == QMM_TYPE_IQ4_NL || kind == QMM_TYPE_MXFP4 || kind == QMM_TYPE_IQ4_XS ? 4 : 2;
}

/* 1: the GEMV unpacks and uses one panel's chunk at a time; 0: all panels'
 * chunk first, as the GEMM. */
QMM_AVX2_INLINE int qmm_avx2_int8_gemv_fused(qmm_type kind) {
    return kind != QMM_TYPE_Q2_K; /* Q2_K's GEMV 3% faster unpacking all panels first (Zen 3) */
}

/* 1: at m >= 8 the GEMM unpacks each pair of panels once per k slice into a
 * stack buffer that every row group then reads (BLIS's packed B). */
QMM_AVX2_INLINE int qmm_avx2_int8_gemm_expand(qmm_type kind) {
    return kind != QMM_TYPE_Q8_0; /* the panel is int8 already: expanding it gained nothing (Zen 3) */
}

/* 1: the expanded tile keeps its float accumulators in memory, so its 8
 * integer states keep their registers. */
QMM_AVX2_INLINE int qmm_avx2_int8_x_acc_in_memory(qmm_type kind) {
    /* the table types but MXFP4: gcc spilled the integer states instead
     * (IQ4_NL m = 512, 2 threads: 2-3% faster; MXFP4's four-pair dot 9%
     * slower so) */
    return kind == QMM_TYPE_IQ4_NL || kind == QMM_TYPE_IQ4_XS;
}

/* 1: the expanded tile has its own block scales, dot and float steps (the
 * AVX2 K-quants multiply by their sub-scales inside vpmaddwd, prepared once
 * per slice). */
QMM_AVX2_INLINE int qmm_avx2_int8_x_scaled(qmm_type kind, qmm_avx2_isa isa) {
    return isa == QMM_AVX2_ISA_AVX2 &&
           (kind == QMM_TYPE_Q4_K || kind == QMM_TYPE_Q5_K || kind == QMM_TYPE_Q6_K || kind == QMM_TYPE_Q3_K);
}

/* 1: the GEMV / small-m tile decodes a super-block's scales at its first
 * block (qmm_avx2_int8_sb_scales) and takes each block's from them. */
QMM_AVX2_INLINE int qmm_avx2_int8_sb_decode(qmm_type kind, qmm_avx2_isa isa) {
    return kind == QMM_TYPE_Q3_K || qmm_avx2_q23_k_pair_float(kind, isa);
}

/* ------------------------------------------------ the steps, per kind */

QMM_AVX2_INLINE void qmm_avx2_int8_zero(qmm_avx2_iacc *is) { is->a = is->b = _mm256_setzero_si256(); }

QMM_AVX2_INLINE void qmm_avx2_int8_unpack(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_wv *wv, const uint8_t *panel, int64_t nb,
                                          int64_t b, int c) {
    (void)isa;
    if (kind == QMM_TYPE_Q4_0)
        qmm_avx2_q4_0_unpack(wv, panel, nb, b, c);
    else if (kind == QMM_TYPE_Q8_0)
        qmm_avx2_q8_0_unpack(wv, panel, nb, b, c);
    else if (qmm_avx2_legacy_kind(kind))
        qmm_avx2_legacy_unpack(kind, wv, panel, b, c);
    else if (qmm_avx2_q4_k_kind(kind))
        qmm_avx2_q4_k_unpack(kind, wv, panel, b, c);
    else if (kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_unpack(wv, panel, b, c);
    else if (qmm_avx2_q23_k_kind(kind))
        qmm_avx2_q23_k_unpack(kind, wv, panel, b, c);
    else if (qmm_avx2_table_kind(kind))
        qmm_avx2_table_unpack(kind, wv, panel, nb, b, c);
}

/* Chunk c of a block: the dwords of elements 4c.. and 16 + 4c.. broadcast. */
QMM_AVX2_INLINE void qmm_avx2_int8_xload(qmm_type kind, qmm_avx2_xv *xv, const qmm_act_block *xb, int c) {
    if (kind == QMM_TYPE_Q8_0) { /* elements 4c.. only */
        xv->v[0] = qmm_avx2_bcast4(xb->q + 4 * c);
        return;
    }
    if (kind == QMM_TYPE_MXFP4) {
        qmm_avx2_table_mx_xload(xv, xb, c);
        return;
    }
    xv->v[0] = qmm_avx2_bcast4(xb->q + 4 * c);
    xv->v[1] = qmm_avx2_bcast4(xb->q + 16 + 4 * c);
}

/* One chain over the low and the high elements. */
QMM_AVX2_INLINE void qmm_avx2_int8_dot_chain(qmm_avx2_iacc *is, const qmm_avx2_wv *wv, const qmm_avx2_xv *xv) {
    is->a = dot_step(is->a, wv->v[0], xv->v[0]);
    is->a = dot_step(is->a, wv->v[1], xv->v[1]);
    /* keep the chain: gcc would reassociate the exact integer sums into a
     * tree and spill the products it holds */
    __asm__("" : "+x"(is->a));
}

/* Two chains: the low elements (a) and the high ones (b). */
QMM_AVX2_INLINE void qmm_avx2_int8_dot_halves(qmm_avx2_iacc *is, const qmm_avx2_wv *wv, const qmm_avx2_xv *xv) {
    is->a = dot_step(is->a, wv->v[0], xv->v[0]);
    is->b = dot_step(is->b, wv->v[1], xv->v[1]);
}

QMM_AVX2_INLINE void qmm_avx2_int8_dot(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_iacc *is, const qmm_avx2_wv *wv,
                                       const qmm_avx2_xv *xv) {
    if (kind == QMM_TYPE_Q8_0)
        qmm_avx2_q8_0_dot(is, wv, xv);
    else if (qmm_avx2_table_kind(kind))
        qmm_avx2_table_dot(kind, isa, is, wv, xv);
    else if (kind == QMM_TYPE_Q6_K || kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q3_K)
        qmm_avx2_int8_dot_halves(is, wv, xv);
    else
        qmm_avx2_int8_dot_chain(is, wv, xv);
}

QMM_AVX2_INLINE void qmm_avx2_int8_scales(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_ws *ws, const uint8_t *panel, int64_t nb,
                                          int64_t b) {
    (void)nb;
    if (kind == QMM_TYPE_Q4_0 || kind == QMM_TYPE_Q8_0)
        ws->d = qmm_avx2_d_panel_scales(panel, b);
    else if (qmm_avx2_legacy_kind(kind))
        qmm_avx2_legacy_scales(kind, ws, panel, b);
    else if (qmm_avx2_q4_k_kind(kind))
        qmm_avx2_q4_k_scales(kind, ws, panel, b);
    else if (kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_scales(ws, panel, b);
    else if (qmm_avx2_q23_k_kind(kind))
        qmm_avx2_q23_k_scales(kind, isa, ws, panel, b);
    else if (qmm_avx2_table_kind(kind))
        qmm_avx2_table_scales(kind, ws, panel, b);
}

QMM_AVX2_INLINE void qmm_avx2_int8_sb_scales(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_sbs *s, const uint8_t *panel, int64_t nb,
                                             int64_t b) {
    (void)isa, (void)nb;
    if (kind == QMM_TYPE_Q3_K)
        qmm_avx2_q3_k_sb_scales(s, panel, b);
    else if (kind == QMM_TYPE_Q2_K)
        qmm_avx2_q2_k_sb_scales(s, panel, b);
}

QMM_AVX2_INLINE void qmm_avx2_int8_scales_sb(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_ws *ws, const qmm_avx2_sbs *s, int i) {
    (void)isa;
    if (kind == QMM_TYPE_Q3_K)
        qmm_avx2_q3_k_scales_sb(ws, s, i);
    else if (kind == QMM_TYPE_Q2_K)
        qmm_avx2_q2_k_scales_sb(ws, s, i);
}

QMM_AVX2_INLINE __m256 qmm_avx2_int8_float(qmm_type kind, qmm_avx2_isa isa, __m256 acc, const qmm_avx2_iacc *is,
                                           const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    if (kind == QMM_TYPE_Q4_0)
        return qmm_avx2_q4_0_float(acc, is, ws, xb);
    if (kind == QMM_TYPE_Q8_0)
        return qmm_avx2_q8_0_float(acc, is, ws, xb);
    if (qmm_avx2_q4_k_kind(kind))
        return qmm_avx2_q4_k_float(acc, is, ws, xb);
    if (kind == QMM_TYPE_Q6_K)
        return qmm_avx2_q6_k_float(acc, is, ws, xb);
    if (qmm_avx2_q23_k_kind(kind))
        return qmm_avx2_q23_k_float(kind, isa, acc, is, ws, xb);
    if (qmm_avx2_table_kind(kind))
        return qmm_avx2_table_float(kind, acc, is, ws, xb);
    return qmm_avx2_legacy_float(kind, acc, is, ws, xb);
}

/* The expanded tile's steps: the kind's own (qmm_avx2_int8_x_scaled), or
 * the others'. */
QMM_AVX2_INLINE void qmm_avx2_int8_scales_x(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_ws *ws, const uint8_t *panel, int64_t nb,
                                            int64_t b) {
    if (qmm_avx2_int8_x_scaled(kind, isa) && qmm_avx2_q4_k_kind(kind))
        qmm_avx2_q4_k_scales_x(kind, ws, panel, b);
    else if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_scales_x(ws, panel, b);
    else if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q3_K)
        qmm_avx2_q3_k_scales_x(ws, panel, b);
    else
        qmm_avx2_int8_scales(kind, isa, ws, panel, nb, b);
}

QMM_AVX2_INLINE void qmm_avx2_int8_dot_x(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_iacc *is, const qmm_avx2_wv *wv,
                                         const qmm_avx2_xv *xv, const qmm_avx2_ws *ws) {
    if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q5_K)
        qmm_avx2_q4_k_dot_x(is, wv, xv, ws);
    else if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_dot_x(is, wv, xv, ws);
    else
        qmm_avx2_int8_dot(kind, isa, is, wv, xv);
}

QMM_AVX2_INLINE __m256 qmm_avx2_int8_float_x(qmm_type kind, qmm_avx2_isa isa, __m256 acc, const qmm_avx2_iacc *is,
                                             const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    if (qmm_avx2_int8_x_scaled(kind, isa) && qmm_avx2_q4_k_kind(kind))
        return qmm_avx2_q4_k_float_x(kind, isa, acc, is, ws, xb);
    if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q6_K)
        return qmm_avx2_q6_k_float_x(acc, is, ws, xb);
    if (qmm_avx2_int8_x_scaled(kind, isa) && kind == QMM_TYPE_Q3_K)
        return qmm_avx2_q3_k_float_x(acc, is, ws, xb);
    return qmm_avx2_int8_float(kind, isa, acc, is, ws, xb);
}

/* The fields of qmm_avx2_ws the expanded slice keeps per block, in the
 * struct's order: bit 0 d, 1 m, 2 sa, 3 sb, 4 ma, 5 mb, 6 sa16, 7 sb16, 8 sp. */
QMM_AVX2_INLINE unsigned qmm_avx2_int8_xs_fields(qmm_type kind, qmm_avx2_isa isa) {
    const int avx2 = isa == QMM_AVX2_ISA_AVX2;
    switch (kind) {
    case QMM_TYPE_Q4_1:
    case QMM_TYPE_Q5_0:
    case QMM_TYPE_Q5_1: return 0x3; /* d, m */
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: return avx2 ? 0x57 : 0x17;  /* d, m, sa, ma (, sa16) */
    case QMM_TYPE_Q6_K: return avx2 ? 0x1c1 : 0xd;  /* d, sa16, sb16, sp; or d, sa, sb */
    case QMM_TYPE_Q2_K: return avx2 ? 0x1c3 : 0x3f; /* d, m, sa16, sb16, sp; or d, m, sa, sb, ma, mb */
    case QMM_TYPE_Q3_K: return avx2 ? 0x1ff : 0x3f; /* all; or d, m, sa, sb, ma, mb */
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_MXFP4:
    case QMM_TYPE_IQ4_XS: return 0x5; /* d, sa */
    default: return 0x1;              /* d */
    }
}

QMM_AVX2_INLINE int qmm_avx2_int8_xs_vecs(qmm_type kind, qmm_avx2_isa isa) {
    return __builtin_popcount(qmm_avx2_int8_xs_fields(kind, isa));
}

QMM_AVX2_INLINE void qmm_avx2_int8_xs_put(qmm_type kind, qmm_avx2_isa isa, __m256i *s, const qmm_avx2_ws *ws) {
    /* only the kind's fields: the others were never set */
    const unsigned f = qmm_avx2_int8_xs_fields(kind, isa);
    if (f & 0x001)
        *s++ = _mm256_castps_si256(ws->d);
    if (f & 0x002)
        *s++ = _mm256_castps_si256(ws->m);
    if (f & 0x004)
        *s++ = ws->sa;
    if (f & 0x008)
        *s++ = ws->sb;
    if (f & 0x010)
        *s++ = ws->ma;
    if (f & 0x020)
        *s++ = ws->mb;
    if (f & 0x040)
        *s++ = ws->sa16;
    if (f & 0x080)
        *s++ = ws->sb16;
    if (f & 0x100)
        *s++ = ws->sp;
}

QMM_AVX2_INLINE void qmm_avx2_int8_xs_get(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_ws *ws, const __m256i *s) {
    const unsigned f = qmm_avx2_int8_xs_fields(kind, isa);
    __m256i v[9];
    for (int i = 0; i < 9; i++)
        v[i] = f & (1u << i) ? *s++ : _mm256_setzero_si256();
    ws->d = _mm256_castsi256_ps(v[0]), ws->m = _mm256_castsi256_ps(v[1]);
    ws->sa = v[2], ws->sb = v[3], ws->ma = v[4], ws->mb = v[5], ws->sa16 = v[6], ws->sb16 = v[7], ws->sp = v[8];
}

/* ------------------------------------------------------------- the loops */

QMM_AVX2_INLINE size_t qmm_avx2_int8_w_size(qmm_type kind, int64_t k, int64_t n) {
    return (size_t)((n + QMM_AVX2_NR - 1) / QMM_AVX2_NR) * qmm_avx2_int8_panel_bytes(kind, k / QMM_QK);
}

QMM_AVX2_INLINE size_t qmm_avx2_int8_w_offset(qmm_type kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_AVX2_NR) * qmm_avx2_int8_panel_bytes(kind, k / QMM_QK);
}

static inline size_t qmm_avx2_int8_act_size(int64_t m, int64_t k) {
    return (size_t)m * (size_t)(k / QMM_QK) * sizeof(qmm_act_block);
}

static inline size_t qmm_avx2_int8_act_offset(int64_t m_idx, int64_t k) { return qmm_avx2_int8_act_size(m_idx, k); }

/* The mask of the first ncols of a panel's 8 lanes (a partial last panel
 * reads and writes nothing beyond n). */
QMM_AVX2_INLINE __m256i qmm_avx2_int8_lanes(int ncols) {
    static const int32_t lanes[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(lanes + QMM_AVX2_NR - ncols));
}

/* Stores the first ncols lanes. */
QMM_AVX2_INLINE void qmm_avx2_int8_store(float *y, __m256 v, int ncols) {
    if (ncols == QMM_AVX2_NR)
        _mm256_storeu_ps(y, v);
    else
        _mm256_maskstore_ps(y, qmm_avx2_int8_lanes(ncols), v);
}

QMM_AVX2_INLINE __m256 qmm_avx2_int8_load(const float *y, int ncols) {
    if (ncols == QMM_AVX2_NR)
        return _mm256_loadu_ps(y);
    return _mm256_maskload_ps(y, qmm_avx2_int8_lanes(ncols));
}

/* mr activation rows (a, nb blocks apart) x np consecutive panels (np * mr
 * <= 4 float accumulators): each weight chunk is loaded and unpacked once for
 * all mr rows, each activation chunk made once for all np panels. ncols: the
 * last panel's valid columns. */
QMM_AVX2_INLINE void qmm_avx2_int8_tile(qmm_type kind, qmm_avx2_isa isa, const int np, const int mr, int64_t nb,
                                        const qmm_act_block *a, const uint8_t *panel, float *y, size_t ys, int ncols) {
    const size_t pb = qmm_avx2_int8_panel_bytes(kind, nb);
    const int chunks = qmm_avx2_int8_chunks(kind), sb_decode = qmm_avx2_int8_sb_decode(kind, isa);
    __m256 acc[4][QMM_AVX2_MR];
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            acc[p][r] = _mm256_setzero_ps();
    qmm_avx2_sbs sbs[4]; /* the first super-block's here, the others' at their first block */
    if (sb_decode)
        for (int p = 0; p < np; p++)
            qmm_avx2_int8_sb_scales(kind, isa, &sbs[p], panel + p * pb, nb, 0);
    for (int64_t b = 0; b < nb; b++) {
        qmm_avx2_iacc is[4][QMM_AVX2_MR];
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++)
                qmm_avx2_int8_zero(&is[p][r]);
        if (sb_decode && b > 0 && b % QMM_AVX2_SB == 0)
            for (int p = 0; p < np; p++)
                qmm_avx2_int8_sb_scales(kind, isa, &sbs[p], panel + p * pb, nb, b);
        for (int p = 0; p < np; p++) { /* memory bound at small m: run ahead across 4 KiB pages */
            const uint8_t *qw = panel + p * pb + qmm_avx2_int8_quants(kind, nb, b);
            for (int l = 0; l < qmm_avx2_int8_pf_lines(kind); l++)
                _mm_prefetch((const char *)(qw + QMM_AVX2_PF + 64 * l), _MM_HINT_T0);
        }
        if (mr == 1 && qmm_avx2_int8_gemv_fused(kind)) {
            /* GEMV: each panel's chunk is used as soon as it is unpacked.
             * Unpacking all np panels first (as below) kept 4 x 4 vectors
             * live for the table types and gcc spilled them: MXFP4 and
             * IQ4_NL decode from L2 1.55x and 1.14x slower (Zen 3). */
            for (int c = 0; c < chunks; c++) {
                qmm_avx2_xv xv;
                qmm_avx2_int8_xload(kind, &xv, a + b, c);
                for (int p = 0; p < np; p++) {
                    qmm_avx2_wv wv;
                    qmm_avx2_int8_unpack(kind, isa, &wv, panel + p * pb, nb, b, c);
                    qmm_avx2_int8_dot(kind, isa, &is[p][0], &wv, &xv);
                }
            }
        } else {
            for (int c = 0; c < chunks; c++) {
                qmm_avx2_wv wv[4];
                for (int p = 0; p < np; p++)
                    qmm_avx2_int8_unpack(kind, isa, &wv[p], panel + p * pb, nb, b, c);
                for (int r = 0; r < mr; r++) {
                    qmm_avx2_xv xv;
                    qmm_avx2_int8_xload(kind, &xv, &a[r * nb + b], c);
                    for (int p = 0; p < np; p++)
                        qmm_avx2_int8_dot(kind, isa, &is[p][r], &wv[p], &xv);
                }
            }
        }
        for (int p = 0; p < np; p++) {
            qmm_avx2_ws ws;
            if (sb_decode)
                qmm_avx2_int8_scales_sb(kind, isa, &ws, &sbs[p], (int)(b % QMM_AVX2_SB));
            else
                qmm_avx2_int8_scales(kind, isa, &ws, panel + p * pb, nb, b);
            for (int r = 0; r < mr; r++)
                acc[p][r] = qmm_avx2_int8_float(kind, isa, acc[p][r], &is[p][r], &ws, &a[r * nb + b]);
        }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            qmm_avx2_int8_store((float *)((char *)y + (size_t)r * ys) + p * QMM_AVX2_NR, acc[p][r],
                                p == np - 1 ? ncols : QMM_AVX2_NR);
}

/* mr rows x np panels (1 or 2) over blocks b0 .. b1 - 1, the panels'
 * chunks and scales read from the expanded slice (xw: panel p's chunk c of
 * block b at ((p * QMM_AVX2_KB + b - b0) * chunks + c) * wv_vecs; xs: its
 * scales at (p * QMM_AVX2_KB + b - b0) * xs_vecs). Two panels share each
 * activation broadcast. The float accumulators start at zero (b0 = 0) or
 * from y, where the previous slice left them: the same fma sequence per
 * output as one pass over k. ncols: the last panel's valid columns. */
QMM_AVX2_INLINE void qmm_avx2_int8_tile_x(qmm_type kind, qmm_avx2_isa isa, const int np, const int mr, int64_t nb, int64_t b0,
                                          int64_t b1, const qmm_act_block *a, const __m256i *xw, const __m256i *xs, float *y,
                                          size_t ys, int ncols) {
    const int chunks = qmm_avx2_int8_chunks(kind), nv = qmm_avx2_int8_wv_vecs(kind), nf = qmm_avx2_int8_xs_vecs(kind, isa);
    const int in_memory = qmm_avx2_int8_x_acc_in_memory(kind);
    __m256 acc[2][QMM_AVX2_MR];
    volatile __m256 acc_m[2][QMM_AVX2_MR]; /* acc, where the kind keeps it in memory */
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++) {
            const __m256 v = b0 == 0 ? _mm256_setzero_ps()
                                     : qmm_avx2_int8_load((const float *)((const char *)y + (size_t)r * ys) + p * QMM_AVX2_NR,
                                                          p == np - 1 ? ncols : QMM_AVX2_NR);
            if (in_memory)
                acc_m[p][r] = v;
            else
                acc[p][r] = v;
        }
    for (int64_t b = b0; b < b1; b++) {
        qmm_avx2_iacc is[2][QMM_AVX2_MR];
        qmm_avx2_ws ws[2];
        for (int p = 0; p < np; p++) {
            qmm_avx2_int8_xs_get(kind, isa, &ws[p], xs + (p * QMM_AVX2_KB + b - b0) * nf);
            for (int r = 0; r < mr; r++)
                qmm_avx2_int8_zero(&is[p][r]);
        }
#pragma GCC unroll 8
        for (int c = 0; c < chunks; c++) {
            qmm_avx2_wv wv[2];
            for (int p = 0; p < np; p++)
                for (int i = 0; i < nv; i++)
                    wv[p].v[i] = xw[((p * QMM_AVX2_KB + b - b0) * chunks + c) * nv + i];
            for (int r = 0; r < mr; r++) {
                qmm_avx2_xv xv;
                qmm_avx2_int8_xload(kind, &xv, &a[r * nb + b], c);
                for (int p = 0; p < np; p++)
                    qmm_avx2_int8_dot_x(kind, isa, &is[p][r], &wv[p], &xv, &ws[p]);
            }
        }
        for (int p = 0; p < np; p++)
            for (int r = 0; r < mr; r++) {
                const __m256 prev = in_memory ? acc_m[p][r] : acc[p][r];
                const __m256 next = qmm_avx2_int8_float_x(kind, isa, prev, &is[p][r], &ws[p], &a[r * nb + b]);
                if (in_memory)
                    acc_m[p][r] = next;
                else
                    acc[p][r] = next;
            }
    }
    for (int p = 0; p < np; p++)
        for (int r = 0; r < mr; r++)
            qmm_avx2_int8_store((float *)((char *)y + (size_t)r * ys) + p * QMM_AVX2_NR, in_memory ? acc_m[p][r] : acc[p][r],
                                p == np - 1 ? ncols : QMM_AVX2_NR);
}

/* Rows i.. of the row tail (fewer than QMM_AVX2_MR): both panels on each
 * activation broadcast too. */
QMM_AVX2_INLINE void qmm_avx2_int8_tile_x_rows(qmm_type kind, qmm_avx2_isa isa, const int np, const int mr, int64_t nb,
                                               int64_t b0, int64_t b1, const qmm_act_block *a, const __m256i *xw,
                                               const __m256i *xs, float *y, size_t ys, int ncols) {
    if (np == 2)
        qmm_avx2_int8_tile_x(kind, isa, 2, mr, nb, b0, b1, a, xw, xs, y, ys, ncols);
    else
        qmm_avx2_int8_tile_x(kind, isa, 1, mr, nb, b0, b1, a, xw, xs, y, ys, ncols);
}

/* The GEMM for m >= 2 QMM_AVX2_MR: per pair of panels and k slice, unpack
 * once (QMM_AVX2_KB blocks), then every row group of the call runs on the
 * unpacked slice. */
QMM_AVX2_INLINE void qmm_avx2_int8_gemm_x(qmm_type kind, qmm_avx2_isa isa, int64_t m, int64_t n, int64_t nb,
                                          const qmm_act_block *act, const void *w, float *y, size_t ys) {
    const int chunks = qmm_avx2_int8_chunks(kind), nv = qmm_avx2_int8_wv_vecs(kind), nf = qmm_avx2_int8_xs_vecs(kind, isa);
    __m256i buf[QMM_AVX2_X_VECS]; /* the levels (xw), then the scales (xs) */
    /* on the caller's stack (a host's pool threads may have small ones) */
    _Static_assert(sizeof buf <= 24 * 1024, "the expanded slice outgrew its stack budget");
    __m256i *xw = buf, *xs = buf + 2 * QMM_AVX2_KB * chunks * nv;
    for (int64_t j0 = 0; j0 < n; j0 += 2 * QMM_AVX2_NR) {
        const int np = n - j0 > QMM_AVX2_NR ? 2 : 1;
        const int64_t jl = j0 + (np - 1) * QMM_AVX2_NR; /* the last panel's first column */
        const int ncols = (int)(n - jl < QMM_AVX2_NR ? n - jl : QMM_AVX2_NR);
        for (int64_t b0 = 0; b0 < nb; b0 += QMM_AVX2_KB) {
            const int64_t b1 = nb - b0 < QMM_AVX2_KB ? nb : b0 + QMM_AVX2_KB;
            for (int p = 0; p < np; p++) {
                const uint8_t *panel = (const uint8_t *)w + qmm_avx2_int8_w_offset(kind, j0 + p * QMM_AVX2_NR, nb * QMM_QK);
                for (int64_t b = b0; b < b1; b++) {
                    for (int c = 0; c < chunks; c++) {
                        qmm_avx2_wv wv;
                        qmm_avx2_int8_unpack(kind, isa, &wv, panel, nb, b, c);
                        for (int i = 0; i < nv; i++)
                            xw[((p * QMM_AVX2_KB + b - b0) * chunks + c) * nv + i] = wv.v[i];
                    }
                    qmm_avx2_ws ws;
                    qmm_avx2_int8_scales_x(kind, isa, &ws, panel, nb, b);
                    qmm_avx2_int8_xs_put(kind, isa, xs + (p * QMM_AVX2_KB + b - b0) * nf, &ws);
                }
            }
            int64_t i = 0;
            for (; i + QMM_AVX2_MR <= m; i += QMM_AVX2_MR)
                qmm_avx2_int8_tile_x_rows(kind, isa, np, QMM_AVX2_MR, nb, b0, b1, act + i * nb, xw, xs,
                                          (float *)((char *)y + (size_t)i * ys) + j0, ys, ncols);
            float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
            switch (m - i) {
            case 3: qmm_avx2_int8_tile_x_rows(kind, isa, np, 3, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols); break;
            case 2: qmm_avx2_int8_tile_x_rows(kind, isa, np, 2, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols); break;
            case 1: qmm_avx2_int8_tile_x_rows(kind, isa, np, 1, nb, b0, b1, act + i * nb, xw, xs, yi, ys, ncols); break;
            default: break;
            }
        }
    }
}

QMM_AVX2_INLINE void qmm_avx2_int8_gemm(qmm_type kind, qmm_avx2_isa isa, int64_t m, int64_t n, int64_t k, const void *a,
                                        const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    if (qmm_avx2_int8_gemm_expand(kind) && m >= 2 * QMM_AVX2_MR) {
        qmm_avx2_int8_gemm_x(kind, isa, m, n, nb, act, w, y, ys);
        return;
    }
    /* Panel outer: one panel stays in L1/L2 while every row group streams
     * past it, so weights come from memory once. */
    for (int64_t j0 = 0; j0 < n; j0 += QMM_AVX2_NR) {
        const uint8_t *panel = (const uint8_t *)w + qmm_avx2_int8_w_offset(kind, j0, k);
        const int ncols = (int)(n - j0 < QMM_AVX2_NR ? n - j0 : QMM_AVX2_NR);
        int64_t i = 0;
        for (; i + QMM_AVX2_MR <= m; i += QMM_AVX2_MR)
            qmm_avx2_int8_tile(kind, isa, 1, QMM_AVX2_MR, nb, act + i * nb, panel, (float *)((char *)y + (size_t)i * ys) + j0, ys,
                               ncols);
        float *yi = (float *)((char *)y + (size_t)i * ys) + j0;
        switch (m - i) {
        case 3: qmm_avx2_int8_tile(kind, isa, 1, 3, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 2: qmm_avx2_int8_tile(kind, isa, 1, 2, nb, act + i * nb, panel, yi, ys, ncols); break;
        case 1: qmm_avx2_int8_tile(kind, isa, 1, 1, nb, act + i * nb, panel, yi, ys, ncols); break;
        default: break;
        }
    }
}

/* Four panels at a time: the activation chunks serve 32 rows, and four
 * streams run ahead in memory at once (measured: ~10-20% over two). */
QMM_AVX2_INLINE void qmm_avx2_int8_gemv(qmm_type kind, qmm_avx2_isa isa, int64_t n, int64_t k, const void *a, const void *w,
                                        float *y) {
    const int64_t nb = k / QMM_QK;
    const qmm_act_block *act = (const qmm_act_block *)a;
    int64_t j0 = 0;
    for (; j0 + 3 * QMM_AVX2_NR < n; j0 += 4 * QMM_AVX2_NR) {
        const int ncols = (int)(n - j0 - 3 * QMM_AVX2_NR < QMM_AVX2_NR ? n - j0 - 3 * QMM_AVX2_NR : QMM_AVX2_NR);
        qmm_avx2_int8_tile(kind, isa, 4, 1, nb, act, (const uint8_t *)w + qmm_avx2_int8_w_offset(kind, j0, k), y + j0, 0, ncols);
    }
    for (; j0 < n; j0 += QMM_AVX2_NR)
        qmm_avx2_int8_tile(kind, isa, 1, 1, nb, act, (const uint8_t *)w + qmm_avx2_int8_w_offset(kind, j0, k), y + j0, 0,
                           (int)(n - j0 < QMM_AVX2_NR ? n - j0 : QMM_AVX2_NR));
}

/* ------------------------------------------- packing, GET_ROWS, unpacking */

static inline void qmm_avx2_int8_w_pack(qmm_type kind, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride,
                                        void *dst) {
    if (kind == QMM_TYPE_Q4_0)
        qmm_avx2_d_panel_pack(k, n0, n1, src, stride, dst, sizeof(qmm_block_q4_0), 4);
    else if (kind == QMM_TYPE_Q8_0)
        qmm_avx2_d_panel_pack(k, n0, n1, src, stride, dst, sizeof(qmm_block_q8_0), 8);
    else if (qmm_avx2_legacy_kind(kind))
        qmm_avx2_legacy_w_pack(kind, k, n0, n1, src, stride, dst);
    else if (qmm_avx2_q4_k_kind(kind))
        qmm_avx2_q4_k_w_pack(kind, k, n0, n1, src, stride, dst);
    else if (kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_w_pack(k, n0, n1, src, stride, dst);
    else if (qmm_avx2_q23_k_kind(kind))
        qmm_avx2_q23_k_w_pack(kind, k, n0, n1, src, stride, dst);
    else if (qmm_avx2_table_kind(kind))
        qmm_avx2_table_w_pack(kind, k, n0, n1, src, stride, dst);
}

static inline void qmm_avx2_int8_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)w + qmm_avx2_int8_w_offset(kind, row, k);
    if (kind == QMM_TYPE_Q4_0)
        qmm_avx2_d_panel_unpack_row(panel, k, (int)(row % QMM_AVX2_NR), dst, sizeof(qmm_block_q4_0), 4);
    else if (kind == QMM_TYPE_Q8_0)
        qmm_avx2_d_panel_unpack_row(panel, k, (int)(row % QMM_AVX2_NR), dst, sizeof(qmm_block_q8_0), 8);
    else if (qmm_avx2_legacy_kind(kind))
        qmm_avx2_legacy_w_unpack_row(kind, w, k, row, dst);
    else if (qmm_avx2_q4_k_kind(kind))
        qmm_avx2_q4_k_w_unpack_row(kind, w, k, row, dst);
    else if (kind == QMM_TYPE_Q6_K)
        qmm_avx2_q6_k_w_unpack_row(w, k, row, dst);
    else if (qmm_avx2_q23_k_kind(kind))
        qmm_avx2_q23_k_w_unpack_row(kind, w, k, row, dst);
    else if (qmm_avx2_table_kind(kind))
        qmm_avx2_table_w_unpack_row(kind, w, k, row, dst);
}

/* ------------------------------------------------------------ descriptor */

#define QMM_AVX2_INT8_REQUIRED    (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#define QMM_AVXVNNI_INT8_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C | QMM_CPU_AVXVNNI)

/* A family's descriptor from its name, type, features and entry points.
 * fallback_hides: masked off to choose the fallback (QMM_CAP hybrid runs):
 * AVX-VNNI falls back to AVX2, AVX2 to the reference. */
#define QMM_AVX2_INT8_FAMILY(name_, wtype_, required_, w_size_, w_offset_, w_pack_, w_unpack_row_, act_pack_, gemm_, gemv_)      \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = required_,                                                                   \
        .fallback_hides = ((required_)&QMM_CPU_AVXVNNI) ? QMM_CPU_AVXVNNI : (required_), .flags = 0, .layout_id = 1,             \
        .mr = QMM_AVX2_MR, .nr = QMM_AVX2_NR, .kr = 4, .sr = 1, .n_step = QMM_AVX2_NR, .w_packed_size = w_size_,                 \
        .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                                          \
        .act = {1, qmm_avx2_int8_act_size, qmm_avx2_int8_act_offset, act_pack_}, .act_gemv = {0, NULL, NULL, NULL},              \
        .gemm = gemm_, .gemv = gemv_,                                                                                            \
    }

#endif
