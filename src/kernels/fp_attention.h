/* The F16 attention path's extras: what qmm_mul_mat_f16 (the KV cache's
 * products, weights packed per call) uses of a family beyond the family
 * contract (family.h). One entry per family that has any, naming the family
 * it extends; the registry finds a family's entry (qmm_registry_fp_attention,
 * NULL when it has none). Every member is optional (NULL: exec does without
 * it), and each computes the same bits as the family's gemm / gemv. */
#ifndef QMM_FP_ATTENTION_H
#define QMM_FP_ATTENTION_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/family.h"

typedef struct qmm_fp_attention {
    const qmm_family *family; /* the family these extend */
    /* gemm with the activations as plain fp32 rows x (row i at x + i * xs
     * bytes, xs a multiple of 4), read in place instead of packed: for
     * products whose few columns would not repay packing the rows (PV: n =
     * head dim, k = kv length). NULL: exec packs the rows. */
    void (*gemm_rows)(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, float *y, size_t y_row_stride);
    /* F16 families: y[i][j] for rows i < m of plain fp32 rows x (xs bytes
     * apart) and rows j < n of F16 source rows w (GGUF layout, ws bytes
     * apart), read in place: no packed copy (decode). NULL: exec packs w. */
    void (*direct)(int64_t m, int64_t n, int64_t k, const float *x, size_t xs, const void *w, size_t ws, float *y, size_t ys);
    /* F16 families: `wide`, an F32 family of the same ISA (its required
     * features a subset of this one's), and w_pack_wide, which packs F16
     * source rows (w_pack's contract) into wide's layout, each value widened
     * exactly. The prefill packs its weights so, once a call, and runs wide's
     * gemm on them: the F32 arithmetic on the same fp32 values, without
     * widening each block again in every m block and item. NULL: exec packs
     * with w_pack. */
    const qmm_family *wide;
    void (*w_pack_wide)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t src_row_stride, void *dst);
    /* 16-bit families: whether widening the weights once (into a copy the
     * tiles read, or through `wide`) beats widening them at each use on this
     * CPU: the answer dispatch handed the kernels (src/registry/dispatch.c).
     * The family's gemm follows it, and exec asks it before taking `wide`:
     * one answer for both. NULL: widening once pays wherever it is done. */
    int (*widen_once)(void);
} qmm_fp_attention;

#endif
