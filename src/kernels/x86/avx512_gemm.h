/* The GEMM loop nest of the AVX-512 VNNI int8 families, one for their three
 * panel layouts (the block panels of avx512_int8.h, its x panels, the IQ4_XS
 * panels of avx512_table.h), and the tile choice by row count the AMX
 * families also take for a last group of few rows. Panel-outer: one panel
 * stays in L1/L2 while the activation groups stream past it, so the weights
 * are read once. */
#ifndef QMM_X86_AVX512_GEMM_H
#define QMM_X86_AVX512_GEMM_H

#include "kernels/x86/avx512_table.h"

typedef enum {
    QMM_AVX512_PANELS_BLOCK, /* kind: a qmm_avx512_wkind, with the family's quant bytes per block */
    QMM_AVX512_PANELS_X,     /* kind: a qmm_avx512x_kind */
    QMM_AVX512_PANELS_T,     /* kind: a qmm_avx512t_kind */
} qmm_avx512_panels;

/* Bytes of one 16-row panel of k columns. */
QMM_AVX512_INLINE size_t qmm_avx512_panels_bytes(qmm_avx512_panels panels, int kind, int qbytes, int64_t k) {
    if (panels == QMM_AVX512_PANELS_BLOCK)
        return qmm_avx512_panel_bytes(k, QMM_AVX512_SB((qmm_avx512_wkind)kind), qbytes);
    if (panels == QMM_AVX512_PANELS_X)
        return qmm_avx512x_panel_bytes(k, QMM_AVX512X_CHUNK((qmm_avx512x_kind)kind), QMM_AVX512X_UE((qmm_avx512x_kind)kind));
    return qmm_avx512t_panel_bytes(k, (qmm_avx512t_kind)kind);
}

/* The first MR rows of a group of G x one panel (hb: a T panel's header
 * bytes), all k. */
QMM_AVX512_INLINE void qmm_avx512_tile_of(qmm_avx512_panels panels, int kind, int qbytes, int MR, int G, int64_t nb,
                                          const uint8_t *a, const uint8_t *p, size_t hb, float *y, size_t ys, int nc) {
    if (panels == QMM_AVX512_PANELS_BLOCK)
        qmm_avx512_tile((qmm_avx512_wkind)kind, MR, G, nb, a, p, qbytes, y, ys, nc);
    else if (panels == QMM_AVX512_PANELS_X)
        qmm_avx512x_tile((qmm_avx512x_kind)kind, MR, G, nb, a, p, y, ys, nc);
    else
        qmm_avx512t_tile((qmm_avx512t_kind)kind, MR, G, nb, a, p, hb, y, ys, nc);
}

/* The tile of the first mr (1..8) rows of a group of G: each case MR as a
 * constant (the compiler keeps acc[] in registers). */
QMM_AVX512_INLINE void qmm_avx512_tile_rows(qmm_avx512_panels panels, int kind, int qbytes, int G, int mr, int64_t nb,
                                            const uint8_t *a, const uint8_t *p, size_t hb, float *y, size_t ys, int nc) {
    switch (mr) {
    case 1: qmm_avx512_tile_of(panels, kind, qbytes, 1, G, nb, a, p, hb, y, ys, nc); break;
    case 2: qmm_avx512_tile_of(panels, kind, qbytes, 2, G, nb, a, p, hb, y, ys, nc); break;
    case 3: qmm_avx512_tile_of(panels, kind, qbytes, 3, G, nb, a, p, hb, y, ys, nc); break;
    case 4: qmm_avx512_tile_of(panels, kind, qbytes, 4, G, nb, a, p, hb, y, ys, nc); break;
    case 5: qmm_avx512_tile_of(panels, kind, qbytes, 5, G, nb, a, p, hb, y, ys, nc); break;
    case 6: qmm_avx512_tile_of(panels, kind, qbytes, 6, G, nb, a, p, hb, y, ys, nc); break;
    case 7: qmm_avx512_tile_of(panels, kind, qbytes, 7, G, nb, a, p, hb, y, ys, nc); break;
    default: qmm_avx512_tile_of(panels, kind, qbytes, 8, G, nb, a, p, hb, y, ys, nc); break;
    }
}

/* A family's gemm (family.h): every panel, every group of QMM_AVX512_MR
 * activation rows against it. */
QMM_AVX512_INLINE void qmm_avx512_gemm(qmm_avx512_panels panels, int kind, int qbytes, int64_t m, int64_t n, int64_t k,
                                       const void *a, const void *w, float *y, size_t ys) {
    const int64_t nb = k / QMM_QK;
    const size_t pb = qmm_avx512_panels_bytes(panels, kind, qbytes, k);
    const size_t hb = panels == QMM_AVX512_PANELS_T ? qmm_avx512t_hdr_bytes(k, (qmm_avx512t_kind)kind) : 0;
    const size_t gb = (size_t)nb * QMM_AVX512_MR * QMM_AVX512_ACT_BLK;
    for (int64_t n0 = 0; n0 < n; n0 += QMM_AVX512_NR) {
        const uint8_t *p = (const uint8_t *)w + (size_t)(n0 / QMM_AVX512_NR) * pb;
        const int nc = (int)(n - n0 < QMM_AVX512_NR ? n - n0 : QMM_AVX512_NR);
        for (int64_t m0 = 0; m0 < m; m0 += QMM_AVX512_MR) {
            const int mr = (int)(m - m0 < QMM_AVX512_MR ? m - m0 : QMM_AVX512_MR);
            const uint8_t *ag = (const uint8_t *)a + (size_t)(m0 / QMM_AVX512_MR) * gb;
            qmm_avx512_tile_rows(panels, kind, qbytes, QMM_AVX512_MR, mr, nb, ag, p, hb,
                                 (float *)((char *)y + (size_t)m0 * ys) + n0, ys, nc);
        }
    }
}

#endif
