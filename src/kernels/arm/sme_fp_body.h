/* F32 / F16 / BF16 weights with SME FMOPA, shared by matmul_f32_sme.c,
 * matmul_f16_sme.c and matmul_bf16_sme.c (define QMM_SMEFP_ELT as
 * QMM_SMEFP_F32, _F16 or _BF16 before including, then invoke
 * QMM_SMEFP_FAMILY(id, wtype) once).
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
#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/ref/ref_kernels.h"

#define QMM_SMEFP_NP   16
#define QMM_SMEFP_MP   16
#define QMM_SMEFP_F32  0
#define QMM_SMEFP_F16  1
#define QMM_SMEFP_BF16 2
#if !defined(QMM_SMEFP_ELT)
#error "define QMM_SMEFP_ELT (QMM_SMEFP_F32, _F16 or _BF16) before including sme_fp_body.h"
#endif
#if QMM_SMEFP_ELT != QMM_SMEFP_F32
typedef uint16_t qmm_smefp_welt;
#else
typedef float qmm_smefp_welt;
#endif

static size_t smefp_w_size(int64_t k, int64_t n) {
    return (size_t)((n + QMM_SMEFP_NP - 1) / QMM_SMEFP_NP) * (size_t)k * QMM_SMEFP_NP * sizeof(qmm_smefp_welt);
}
static size_t smefp_w_offset(int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_SMEFP_NP) * (size_t)k * QMM_SMEFP_NP * sizeof(qmm_smefp_welt);
}
static void smefp_w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    for (int64_t p = n0 / QMM_SMEFP_NP; p < (n1 + QMM_SMEFP_NP - 1) / QMM_SMEFP_NP; p++) {
        qmm_smefp_welt *panel = (qmm_smefp_welt *)((uint8_t *)dst + smefp_w_offset(p * QMM_SMEFP_NP, k));
        memset(panel, 0, (size_t)k * QMM_SMEFP_NP * sizeof(qmm_smefp_welt));
        for (int r = 0; r < QMM_SMEFP_NP && p * QMM_SMEFP_NP + r < n; r++) {
            const qmm_smefp_welt *row = (const qmm_smefp_welt *)((const uint8_t *)src + (size_t)(p * QMM_SMEFP_NP + r) * stride);
            for (int64_t l = 0; l < k; l++)
                panel[l * QMM_SMEFP_NP + r] = row[l];
        }
    }
}
static void smefp_w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const qmm_smefp_welt *panel = (const qmm_smefp_welt *)((const uint8_t *)packed + smefp_w_offset(row, k));
    const int r = (int)(row % QMM_SMEFP_NP);
    for (int64_t l = 0; l < k; l++)
#if QMM_SMEFP_ELT == QMM_SMEFP_F16
        dst[l] = qmm_fp16_to_fp32(panel[l * QMM_SMEFP_NP + r]);
#elif QMM_SMEFP_ELT == QMM_SMEFP_BF16
        dst[l] = qmm_bf16_to_fp32(panel[l * QMM_SMEFP_NP + r]);
#else
        dst[l] = panel[l * QMM_SMEFP_NP + r];
#endif
}

/* w_unpack_row: the row's elements back, bits as they are (dst need not be aligned). */
static void smefp_w_unpack_row(const void *packed, int64_t k, int64_t n, int64_t row, void *dst) {
    const qmm_smefp_welt *panel = (const qmm_smefp_welt *)((const uint8_t *)packed + smefp_w_offset(row, k));
    const int r = (int)(row % QMM_SMEFP_NP);
    for (int64_t l = 0; l < k; l++)
        memcpy((uint8_t *)dst + (size_t)l * sizeof(qmm_smefp_welt), &panel[l * QMM_SMEFP_NP + r], sizeof(qmm_smefp_welt));
}

static size_t smefp_act_size(int64_t m, int64_t k) {
    return (size_t)((m + QMM_SMEFP_MP - 1) / QMM_SMEFP_MP) * (size_t)k * QMM_SMEFP_MP * sizeof(float);
}
static size_t smefp_act_offset(int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_SMEFP_MP) * (size_t)k * QMM_SMEFP_MP * sizeof(float);
}
static void smefp_act_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst) {
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

#define QMM_SMEFP_INLINE static inline __attribute__((always_inline))

/* Column chunk c (tw wide, tw divides 16) of the panels from w: its values
 * for k = l are at smefp_col(...) + l * 16. */
QMM_SMEFP_INLINE const qmm_smefp_welt *smefp_col(const void *w, int64_t col, int64_t k) __arm_streaming {
    return (const qmm_smefp_welt *)((const uint8_t *)w + smefp_w_offset(col, k)) + col % QMM_SMEFP_NP;
}

/* Store predicate: the chunk's lanes (pw) that are columns < n. */
QMM_SMEFP_INLINE svbool_t smefp_pst(svbool_t pw, int64_t c, int64_t n) __arm_streaming {
    return svand_b_z(pw, pw, svwhilelt_b32_s64(c, n));
}

/* The weights of one chunk at k = l as fp32 lanes (exact widening for F16, BF16). */
QMM_SMEFP_INLINE svfloat32_t smefp_wvec(svbool_t pw, const qmm_smefp_welt *p) __arm_streaming {
#if QMM_SMEFP_ELT == QMM_SMEFP_F16
    return svcvt_f32_f16_x(pw, svreinterpret_f16_u32(svld1uh_u32(pw, p)));
#elif QMM_SMEFP_ELT == QMM_SMEFP_BF16
    return svreinterpret_f32_u32(svlsl_n_u32_x(pw, svld1uh_u32(pw, p), 16));
#else
    return svld1_f32(pw, p);
#endif
}

/* GEMM: per activation sub-tile of tw = min(SVL/32, 16) rows, up to four
 * column chunks at once in ZA0..ZA3.S, one FMOPA per chunk per k. */
static void smefp_mopa_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w, float *y, size_t ys) __arm_streaming
    __arm_inout("za") {
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SMEFP_NP ? lanes : QMM_SMEFP_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw);
    for (int64_t m0 = 0; m0 < m; m0 += QMM_SMEFP_MP) {
        const float *ag = (const float *)((const uint8_t *)a + smefp_act_offset(m0, k));
        for (int64_t r0 = 0; r0 < QMM_SMEFP_MP && m0 + r0 < m; r0 += tw) {
            const uint32_t rows = (uint32_t)(m - m0 - r0 < tw ? m - m0 - r0 : tw);
            const float *xr = ag + r0;
            for (int64_t c = 0; c < n; c += 4 * tw) {
                const int64_t nt = (n - c + tw - 1) / tw; /* chunks left */
                const qmm_smefp_welt *w0 = smefp_col(w, c, k);
                const qmm_smefp_welt *w1 = nt > 1 ? smefp_col(w, c + tw, k) : w0;
                const qmm_smefp_welt *w2 = nt > 2 ? smefp_col(w, c + 2 * tw, k) : w0;
                const qmm_smefp_welt *w3 = nt > 3 ? smefp_col(w, c + 3 * tw, k) : w0;
                svzero_za();
                if (nt >= 4) {
                    for (int64_t l = 0; l < k; l++) {
                        const svfloat32_t xv = svld1_f32(pw, xr + l * QMM_SMEFP_MP);
                        svmopa_za32_f32_m(0, pw, pw, xv, smefp_wvec(pw, w0 + l * QMM_SMEFP_NP));
                        svmopa_za32_f32_m(1, pw, pw, xv, smefp_wvec(pw, w1 + l * QMM_SMEFP_NP));
                        svmopa_za32_f32_m(2, pw, pw, xv, smefp_wvec(pw, w2 + l * QMM_SMEFP_NP));
                        svmopa_za32_f32_m(3, pw, pw, xv, smefp_wvec(pw, w3 + l * QMM_SMEFP_NP));
                    }
                } else {
                    for (int64_t l = 0; l < k; l++) {
                        const svfloat32_t xv = svld1_f32(pw, xr + l * QMM_SMEFP_MP);
                        svmopa_za32_f32_m(0, pw, pw, xv, smefp_wvec(pw, w0 + l * QMM_SMEFP_NP));
                        if (nt > 1)
                            svmopa_za32_f32_m(1, pw, pw, xv, smefp_wvec(pw, w1 + l * QMM_SMEFP_NP));
                        if (nt > 2)
                            svmopa_za32_f32_m(2, pw, pw, xv, smefp_wvec(pw, w2 + l * QMM_SMEFP_NP));
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
static void smefp_gemv(int64_t n, int64_t k, const float *x, const void *w, float *y) __arm_streaming {
    const int64_t lanes = (int64_t)svcntw(), tw = lanes < QMM_SMEFP_NP ? lanes : QMM_SMEFP_NP;
    const svbool_t pw = svwhilelt_b32_s64(0, tw);
    for (int64_t c = 0; c < n; c += 4 * tw) {
        const int64_t nt = (n - c + tw - 1) / tw;
        const qmm_smefp_welt *w0 = smefp_col(w, c, k);
        const qmm_smefp_welt *w1 = nt > 1 ? smefp_col(w, c + tw, k) : w0;
        const qmm_smefp_welt *w2 = nt > 2 ? smefp_col(w, c + 2 * tw, k) : w0;
        const qmm_smefp_welt *w3 = nt > 3 ? smefp_col(w, c + 3 * tw, k) : w0;
        svfloat32_t acc0 = svdup_n_f32(0.0f), acc1 = acc0, acc2 = acc0, acc3 = acc0;
        for (int64_t l = 0; l < k; l++) {
            const float xl = x[l];
            acc0 = svmla_n_f32_x(pw, acc0, smefp_wvec(pw, w0 + l * QMM_SMEFP_NP), xl);
            acc1 = svmla_n_f32_x(pw, acc1, smefp_wvec(pw, w1 + l * QMM_SMEFP_NP), xl);
            acc2 = svmla_n_f32_x(pw, acc2, smefp_wvec(pw, w2 + l * QMM_SMEFP_NP), xl);
            acc3 = svmla_n_f32_x(pw, acc3, smefp_wvec(pw, w3 + l * QMM_SMEFP_NP), xl);
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

/* The entry points: ZA is live only inside the GEMM; both run streaming. */
__arm_locally_streaming __arm_new("za") static void sme_gemm(int64_t m, int64_t n, int64_t k, const void *a, const void *w,
                                                             float *y, size_t ys) {
    smefp_mopa_gemm(m, n, k, a, w, y, ys);
}

__arm_locally_streaming static void sme_gemv(int64_t n, int64_t k, const void *a, const void *w, float *y) {
    smefp_gemv(n, k, (const float *)a, w, y);
}

#define QMM_SMEFP_FAMILY(id, wtype_)                                                                                             \
    const qmm_family qmm_family_##id = {                                                                                         \
        .name = #id,                                                                                                             \
        .wtype = wtype_,                                                                                                         \
        .required = QMM_CPU_SME,                                                                                                 \
        .fallback_hides = QMM_CPU_SME | QMM_CPU_SME2,                                                                            \
        .flags = QMM_FAMILY_CAPPED,                                                                                              \
        .layout_id = 1,                                                                                                          \
        .mr = QMM_SMEFP_MP,                                                                                                      \
        .nr = QMM_SMEFP_NP,                                                                                                      \
        .kr = 1,                                                                                                                 \
        .sr = 1,                                                                                                                 \
        .n_step = QMM_SMEFP_NP,                                                                                                  \
        .w_packed_size = smefp_w_size,                                                                                           \
        .w_packed_offset = smefp_w_offset,                                                                                       \
        .w_pack = smefp_w_pack,                                                                                                  \
        .w_read_row = smefp_w_read_row,                                                                                          \
        .w_unpack_row = smefp_w_unpack_row,                                                                                      \
        .act = {QMM_SMEFP_MP, smefp_act_size, smefp_act_offset, smefp_act_pack},                                                 \
        .act_gemv = {1, qmm_ref_act_f32_size, qmm_ref_act_f32_offset, qmm_ref_act_f32_pack},                                     \
        .gemm = sme_gemm,                                                                                                        \
        .gemv = sme_gemv,                                                                                                        \
    };
