/* F32 / F16 / BF16 weights with SME FMOPA, shared by matmul_f32_sme.c,
 * matmul_f16_sme.c and matmul_bf16_sme.c: every function takes the weight
 * type `kind` (QMM_TYPE_F32, _F16 or _BF16) as a constant first argument.
 *
 * Why this is bit-exact: the non-widening single-precision FMOPA computes
 * every ZA element as a fused multiply-add, ZA[i][j] = ZA[i][j] + x_i * w_j
 * with one rounding (the Arm ARM's FPMulAdd per element), i.e. exactly
 * fmaf(w, x, acc). One FMOPA per k, in ascending k, from a zeroed tile, is
 * the reference's fmaf chain per output. F16 weights are widened exactly
 * (FCVT h->s) before, BF16 ones by a 16-bit shift (their bits are the top
 * half of the fp32 ones). (The widening FMOPA f16->f32 is a 2-way dot product
 * with a different rounding: not used.) NaN payloads are not promised: ZA
 * arithmetic may return the default NaN where fmaf propagates an operand.
 *
 * Layouts (independent of the vector length, like sve_sme_layout.h):
 *   weights: 16-row panels, k-major: for each k, the 16 rows' values
 *            (fp32, or the fp16 / bf16 bits), zero rows pad the last panel;
 *   GEMM activations: 16-row groups, k-major: for each k, 16 fp32;
 *   GEMV activations: the reference rows (contiguous fp32). */
#ifndef QMM_ARM_SME_FP_BODY_H
#define QMM_ARM_SME_FP_BODY_H

#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SMEFP_NP 16
#define QMM_SMEFP_MP 16

#define QMM_SMEFP_INLINE static inline __attribute__((always_inline))

/* Bytes per packed weight. */
QMM_SMEFP_INLINE size_t smefp_esz(qmm_type kind) __arm_streaming_compatible { return kind == QMM_TYPE_F32 ? 4 : 2; }

static inline size_t smefp_w_size(qmm_type kind, int64_t k, int64_t n) {
    return (size_t)((n + QMM_SMEFP_NP - 1) / QMM_SMEFP_NP) * (size_t)k * QMM_SMEFP_NP * smefp_esz(kind);
}
static inline size_t smefp_w_offset(qmm_type kind, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_SMEFP_NP) * (size_t)k * QMM_SMEFP_NP * smefp_esz(kind);
}
static inline void smefp_w_pack(qmm_type kind, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                void *dst) {
    const size_t esz = smefp_esz(kind);
    for (int64_t p = n0 / QMM_SMEFP_NP; p < (n1 + QMM_SMEFP_NP - 1) / QMM_SMEFP_NP; p++) {
        uint8_t *panel = (uint8_t *)dst + smefp_w_offset(kind, p * QMM_SMEFP_NP, k);
        memset(panel, 0, (size_t)k * QMM_SMEFP_NP * esz);
        for (int r = 0; r < QMM_SMEFP_NP && p * QMM_SMEFP_NP + r < n; r++) {
            const uint8_t *row = (const uint8_t *)src + (size_t)(p * QMM_SMEFP_NP + r) * stride;
            for (int64_t l = 0; l < k; l++)
                memcpy(panel + (size_t)(l * QMM_SMEFP_NP + r) * esz, row + (size_t)l * esz, esz);
        }
    }
}

/* w_unpack_row: the row's elements back, bits as they are (dst need not be aligned). */
static inline void smefp_w_unpack_row(qmm_type kind, const void *packed, int64_t k, int64_t row, void *dst) {
    const size_t esz = smefp_esz(kind);
    const uint8_t *panel = (const uint8_t *)packed + smefp_w_offset(kind, row, k);
    const int r = (int)(row % QMM_SMEFP_NP);
    for (int64_t l = 0; l < k; l++)
        memcpy((uint8_t *)dst + (size_t)l * esz, panel + (size_t)(l * QMM_SMEFP_NP + r) * esz, esz);
}

static inline size_t smefp_act_size(int64_t m, int64_t k) {
    return (size_t)((m + QMM_SMEFP_MP - 1) / QMM_SMEFP_MP) * (size_t)k * QMM_SMEFP_MP * sizeof(float);
}
static inline size_t smefp_act_offset(int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_SMEFP_MP) * (size_t)k * QMM_SMEFP_MP * sizeof(float);
}
static inline void smefp_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SMEFP_MP) {
        float *grp = (float *)((uint8_t *)dst + smefp_act_offset(m0, k));
        memset(grp, 0, (size_t)k * QMM_SMEFP_MP * sizeof(float));
        for (int i = 0; i < QMM_SMEFP_MP && m0 + i < m; i++) {
            const float *row = (const float *)((const char *)x + (size_t)(m0 + i) * x_row_stride);
            for (int64_t l = 0; l < k; l++)
                grp[l * QMM_SMEFP_MP + i] = row[l];
        }
    }
}

/* Column chunk c (tw wide, tw divides 16) of the panels from w: its values
 * for k = l are at smefp_at(kind, smefp_col(...), l). */
QMM_SMEFP_INLINE const uint8_t *smefp_col(qmm_type kind, const void *w, int64_t col, int64_t k) __arm_streaming {
    const uint8_t *panel = (const uint8_t *)w + smefp_w_offset(kind, col, k);
    if (kind == QMM_TYPE_F32)
        return (const uint8_t *)((const float *)(const void *)panel + col % QMM_SMEFP_NP);
    return (const uint8_t *)((const uint16_t *)(const void *)panel + col % QMM_SMEFP_NP);
}

/* Store predicate: the chunk's lanes (pw) that are columns < n. */
QMM_SMEFP_INLINE svbool_t smefp_pst(svbool_t pw, int64_t c, int64_t n) __arm_streaming {
    return svand_b_z(pw, pw, svwhilelt_b32_s64(c, n));
}

/* The chunk's values at k = l. */
QMM_SMEFP_INLINE const void *smefp_at(qmm_type kind, const uint8_t *c, int64_t l) __arm_streaming {
    if (kind == QMM_TYPE_F32)
        return (const float *)(const void *)c + l * QMM_SMEFP_NP;
    return (const uint16_t *)(const void *)c + l * QMM_SMEFP_NP;
}

/* The weights of one chunk at k = l (p: smefp_at) as fp32 lanes (exact widening for F16, BF16). */
QMM_SMEFP_INLINE svfloat32_t smefp_wvec(qmm_type kind, svbool_t pw, const void *p) __arm_streaming {
    if (kind == QMM_TYPE_F16)
        return svcvt_f32_f16_x(pw, svreinterpret_f16_u32(svld1uh_u32(pw, (const uint16_t *)p)));
    if (kind == QMM_TYPE_BF16)
        return svreinterpret_f32_u32(svlsl_n_u32_x(pw, svld1uh_u32(pw, (const uint16_t *)p), 16));
    return svld1_f32(pw, (const float *)p);
}

/* GEMM: per activation sub-tile of tw = min(SVL/32, 16) rows, up to four
 * column chunks at once in ZA0..ZA3.S, one FMOPA per chunk per k. */
QMM_SMEFP_INLINE void smefp_mopa_gemm(qmm_type kind, int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y,
                                      size_t ys) __arm_streaming __arm_inout("za") {
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SMEFP_NP ? lanes : QMM_SMEFP_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw);
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SMEFP_MP) {
        const float *ag = (const float *)((const uint8_t *)a + smefp_act_offset(m0, k));
        for (int64_t r0 = 0; r0 < QMM_SMEFP_MP && m0 + r0 < m; r0 += tw) {
            const uint32_t rows = (uint32_t)(m - m0 - r0 < tw ? m - m0 - r0 : tw);
            const float *xr = ag + r0;
            for (int64_t c = 0; c < n; c += 4 * tw) {
                const int64_t nt = (n - c + tw - 1) / tw; /* chunks left */
                const uint8_t *w0 = smefp_col(kind, w, c, k);
                const uint8_t *w1 = nt > 1 ? smefp_col(kind, w, c + tw, k) : w0;
                const uint8_t *w2 = nt > 2 ? smefp_col(kind, w, c + 2 * tw, k) : w0;
                const uint8_t *w3 = nt > 3 ? smefp_col(kind, w, c + 3 * tw, k) : w0;
                svzero_za();
                if (nt >= 4) {
                    for (int64_t l = 0; l < k; l++) {
                        const svfloat32_t xv = svld1_f32(pw, xr + l * QMM_SMEFP_MP);
                        svmopa_za32_f32_m(0, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w0, l)));
                        svmopa_za32_f32_m(1, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w1, l)));
                        svmopa_za32_f32_m(2, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w2, l)));
                        svmopa_za32_f32_m(3, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w3, l)));
                    }
                } else {
                    for (int64_t l = 0; l < k; l++) {
                        const svfloat32_t xv = svld1_f32(pw, xr + l * QMM_SMEFP_MP);
                        svmopa_za32_f32_m(0, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w0, l)));
                        if (nt > 1)
                            svmopa_za32_f32_m(1, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w1, l)));
                        if (nt > 2)
                            svmopa_za32_f32_m(2, pw, pw, xv, smefp_wvec(kind, pw, smefp_at(kind, w2, l)));
                    }
                }
                for (uint32_t i = 0; i < rows; i++) {
                    float *yr = (float *)((char *)y + (size_t)(m0 + r0 + i) * ys) + c;
                    const svfloat32_t z = svdup_n_f32(0.0f);
                    svst1_f32(smefp_pst(pw, c, n), yr, svread_hor_za32_f32_m(z, pw, 0, i));
                    if (nt > 1)
                        svst1_f32(smefp_pst(pw, c + tw, n), yr + tw, svread_hor_za32_f32_m(z, pw, 1, i));
                    if (nt > 2)
                        svst1_f32(smefp_pst(pw, c + 2 * tw, n), yr + 2 * tw, svread_hor_za32_f32_m(z, pw, 2, i));
                    if (nt > 3)
                        svst1_f32(smefp_pst(pw, c + 3 * tw, n), yr + 3 * tw, svread_hor_za32_f32_m(z, pw, 3, i));
                }
            }
        }
    }
}

/* GEMV (one activation row, reference layout): FMLA across weight rows,
 * acc = acc + w * x (fused) per k, four chunks at once. */
QMM_SMEFP_INLINE void smefp_gemv(qmm_type kind, int64_t n, int64_t k, const float *x, const void *w, float *y) __arm_streaming {
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SMEFP_NP ? lanes : QMM_SMEFP_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw);
    for (int64_t c = 0; c < n; c += 4 * tw) {
        const int64_t nt = (n - c + tw - 1) / tw;
        const uint8_t *w0 = smefp_col(kind, w, c, k);
        const uint8_t *w1 = nt > 1 ? smefp_col(kind, w, c + tw, k) : w0;
        const uint8_t *w2 = nt > 2 ? smefp_col(kind, w, c + 2 * tw, k) : w0;
        const uint8_t *w3 = nt > 3 ? smefp_col(kind, w, c + 3 * tw, k) : w0;
        svfloat32_t acc0 = svdup_n_f32(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        for (int64_t l = 0; l < k; l++) {
            const float xl = x[l];
            acc0 = svmla_n_f32_x(pw, acc0, smefp_wvec(kind, pw, smefp_at(kind, w0, l)), xl);
            acc1 = svmla_n_f32_x(pw, acc1, smefp_wvec(kind, pw, smefp_at(kind, w1, l)), xl);
            acc2 = svmla_n_f32_x(pw, acc2, smefp_wvec(kind, pw, smefp_at(kind, w2, l)), xl);
            acc3 = svmla_n_f32_x(pw, acc3, smefp_wvec(kind, pw, smefp_at(kind, w3, l)), xl);
        }
        svst1_f32(smefp_pst(pw, c, n), y + c, acc0);
        if (nt > 1)
            svst1_f32(smefp_pst(pw, c + tw, n), y + c + tw, acc1);
        if (nt > 2)
            svst1_f32(smefp_pst(pw, c + 2 * tw, n), y + c + 2 * tw, acc2);
        if (nt > 3)
            svst1_f32(smefp_pst(pw, c + 3 * tw, n), y + c + 3 * tw, acc3);
    }
}

/* The descriptor of an SME fp family from its entry points (the GEMM and
 * the GEMV run streaming, ZA live only inside the GEMM). */
#define QMM_SMEFP_DESCRIPTOR(name_, wtype_, w_size_, w_offset_, w_pack_, w_unpack_row_, gemm_, gemv_)                            \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_, .required = QMM_CPU_SME, .fallback_hides = QMM_CPU_SME | QMM_CPU_SME2,                   \
        .flags = QMM_FAMILY_CAPPED, .layout_id = 1, .mr = QMM_SMEFP_MP, .nr = QMM_SMEFP_NP, .kr = 1, .sr = 1,                    \
        .n_step = QMM_SMEFP_NP, .w_packed_size = w_size_, .w_packed_offset = w_offset_, .w_pack = w_pack_,                       \
        .w_unpack_row = w_unpack_row_, .act = {QMM_SMEFP_MP, smefp_act_size, smefp_act_offset, smefp_act_pack},                  \
        .act_gemv = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack}, .gemm = gemm_, .gemv = gemv_,       \
    }

#endif
