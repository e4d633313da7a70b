/* The micro-kernel family contract.
 *
 * A family is one descriptor: stateless queries, packers and compute entry
 * points for one weight type on one ISA. Families know nothing of threads,
 * tensors or the environment: they get pointers, sizes and strides, and
 * compute a step-aligned sub-rectangle. The exec layer cuts the work into
 * such rectangles; the registry picks families by CPU features.
 *
 * Numerics (binding for every family, see src/kernels/ref/ref_kernels.c):
 *  - Quantized weights (Q4_0, Q8_0): activations are quantized per row in
 *    blocks of 32 by qmm_act_quantize_block (src/formats/formats.h): per
 *    block, qmm_act_block_scale(amax) gives the stored d, pre and id, and
 *    q = clamp(round_half_even((x * pre) * id), -127, 127) (NaN -> 0). A SIMD
 *    packer calls qmm_act_block_scale itself and multiplies the block by pre
 *    when pre != 1 (tiny blocks, amax < ~3.7e-37: pre = 2^64, d a subnormal
 *    rounded upward; every other block is ggml's d = amax / 127, id = 1 / d).
 *    Each output starts at 0.0f and accumulates its blocks in ascending k:
 *        acc = fmaf((float)isum_b, w_scale_b * x_scale_b, acc)
 *    with isum_b the exact int32 block dot product (Q4_0: sum (qw - 8) * qx),
 *    w_scale_b the block's fp16 d converted to fp32, x_scale_b the stored d
 *    as is (possibly subnormal), the product rounded to fp32 (gradual
 *    underflow, never flushed) before the fma.
 *  - Q4_1, Q5_0, Q5_1, Q2_K..Q6_K (src/kernels/ref/ref_quant_kernels.c): the
 *    same activation blocks; per 32-block b in ascending k (for K-quants the
 *    32-block b % 8 of super-block b / 8):
 *        acc = fmaf((float)isum_b, s_b * x_d, acc)
 *    and, for the types with a min (Q4_1, Q5_1, Q2_K, Q4_K, Q5_K), then
 *        acc = fmaf((float)imin_b, t_b * x_d, acc)
 *    Q4_1/Q5_1: isum = sum q qx, s = d, imin = the block's qx sum, t = m.
 *    Q5_0: isum = sum (q - 16) qx, s = d. Q4_K/Q5_K: isum = sc_j sum q qx,
 *    s = d, imin = -m_j sum qx, t = dmin. Q3_K/Q6_K: the two 16-sub-blocks:
 *    isum = sc_a sum_a q qx + sc_b sum_b q qx (q signed: Q3_K -4..3, Q6_K
 *    q - 32), s = d. Q2_K: isum as Q3_K with 4-bit sc, s = d,
 *    imin = -(m_a sum_a qx + m_b sum_b qx), t = dmin. Integer sums are exact
 *    in int32 and below 2^24 in magnitude (so (float) is exact); fp16 values
 *    are widened exactly; each product s * x_d is rounded to fp32.
 *  - IQ4_NL, IQ4_XS, MXFP4 (ref_quant_kernels.c): as above with no min;
 *    isum = sum kv[q] qx over the int8 table levels of the nibbles (IQ4_XS:
 *    times the 32-block's sub-scale ls_j, -32..31), s = d (fp16), MXFP4:
 *    s = 2^(e - 128) from the E8M0 byte (exact; the levels doubled).
 *  - The i-quant grid and ternary types (IQ1_S..IQ3_S, TQ1_0, TQ2_0;
 *    src/formats/iq_quants.h): isum = sc_a sum_a w qx + sc_b sum_b w qx over
 *    the 16-element halves of the 32-block with w the exact integer level and
 *    sc the integer sub-scale, s = the super-block's exact factor; no min.
 *  - F32 / F16 / BF16 weights (converted exactly to fp32): acc = fmaf(w, x, acc)
 *    per element, ascending k, starting at 0.0f.
 *  So a SIMD family vectorises across outputs (rows of W, rows of x), never
 *  across k, and reproduces the reference bit for bit.
 */
#ifndef QMM_FAMILY_H
#define QMM_FAMILY_H

#include <stddef.h>
#include <stdint.h>

#include "qmatmul.h"

/* Family flags. */
enum {
    /* Threads running this family are capped (SME: the units are shared and
     * few); the cap comes from the SME unit count or QMM_SME. */
    QMM_FAMILY_CAPPED = 1u << 0,
};

/* An activation layout: how m rows of k fp32 values are packed for a family. */
typedef struct qmm_act_layout {
    /* Rows are packed in groups of m_step; a pack call starts on a group. */
    int m_step;
    size_t (*packed_size)(int64_t m, int64_t k);
    /* Byte offset of packed row m_idx (a multiple of m_step). */
    size_t (*packed_offset)(int64_t m_idx, int64_t k);
    /* Packs m rows of x (row j at x + j * x_row_stride bytes) into dst, which
     * is the packed buffer at packed_offset(m0). Pads a partial last group. */
    void (*pack)(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst);
} qmm_act_layout;

typedef struct qmm_family {
    const char *name;  /* unique, at most 23 chars, e.g. "avx512vnni_q4_0"; stored in packed blobs */
    qmm_type wtype;    /* the weight type it multiplies */
    uint64_t required; /* QMM_CPU_* features it needs, all of them */
    /* Features masked off the CPU's to select this family's fallback in a
     * chain (SME families: SME | SME2). 0: no fallback is ever chained. */
    uint64_t fallback_hides;
    unsigned flags;     /* QMM_FAMILY_* */
    uint32_t layout_id; /* bump when the packed weight layout changes */

    /* Geometry, informational except the steps: mr x nr output tile, kr/sr
     * interleave of k. */
    int mr, nr, kr, sr;
    /* Any column chunk starts at a multiple of n_step (a weight panel). */
    int n_step;

    /* Packed weights for an n x k matrix. */
    size_t (*w_packed_size)(int64_t k, int64_t n);
    /* Byte offset of the panel holding row n_idx (a multiple of n_step). */
    size_t (*w_packed_offset)(int64_t n_idx, int64_t k);
    /* Packs source rows [n0, n1) into the packed buffer dst (its base, not
     * an offset). n0 is a multiple of n_step; n1 too, or n1 == n. src points
     * at source row 0, rows src_row_stride bytes apart, in GGUF block layout.
     * Disjoint row ranges may be packed concurrently. */
    void (*w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t src_row_stride, void *dst);
    /* Writes packed row `row` back as the GGUF bytes w_pack read for it
     * (qmm_row_size(wtype, k) bytes at dst): w_pack's exact inverse, for
     * every source whose fp16 / bf16 fields are finite (qmm_weights_unpack,
     * the ggml plugin's get_tensor). GET_ROWS reads rows through it too
     * (qmm_exec_read_row): no family dequantizes by itself. */
    void (*w_unpack_row)(const void *packed, int64_t k, int64_t n, int64_t row, void *dst);

    /* Activation layout for GEMM (m >= 2), and for GEMV (m == 1); a GEMV
     * layout with pack == NULL means the GEMM layout. */
    qmm_act_layout act;
    qmm_act_layout act_gemv;

    /* y[i][j] for rows i < m of the packed activations `a` (at a row that is a
     * multiple of act.m_step) and columns j < n of the packed weights `w` (at
     * a panel, w_packed_offset). n need not be a multiple of n_step; m need
     * not be a multiple of mr. y rows are y_row_stride bytes apart. */
    void (*gemm)(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t y_row_stride);
    /* One activation row (act_gemv layout), columns j < n. NULL: gemm. */
    void (*gemv)(int64_t n, int64_t k, const void *a, const void *w, float *y);
    /* What only qmm_mul_mat_f16 uses of a family (rows read in place, the
     * direct product, the widened sibling): kernels/fp_attention.h. */
} qmm_family;

static inline const qmm_act_layout *qmm_family_act_layout(const qmm_family *kf, int gemv) {
    return (gemv && kf->act_gemv.pack) ? &kf->act_gemv : &kf->act;
}

#endif
