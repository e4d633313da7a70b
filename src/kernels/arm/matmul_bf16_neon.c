/* BF16 weights x fp32 activations with NEON fmla: 16 weight rows x up to 4 activation rows per tile.
 *
 * As neon_f16 (the shared body is neon_fp_body.h), with the panel kept in BF16 and widened to fp32 by ushll #16
 * (the bf16 bits are the top half of the fp32 ones: exact, NaN payloads kept); all arithmetic is F32's. */
#include <arm_neon.h>
#include <stdint.h>

#include "formats/formats.h"

typedef uint16_t wtype_t;                    /* bf16 bits */
#define NEON_FP_WIDEN(e) qmm_bf16_to_fp32(e) /* the exact widening */

/* The 16 weights of element l of the panel, widened exactly to fp32. */
static inline __attribute__((always_inline)) void load_w(const wtype_t *p, float32x4_t w[4]) {
    const uint16x8_t h0 = vld1q_u16(p), h1 = vld1q_u16(p + 8);
    w[0] = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h0), 16));
    w[1] = vreinterpretq_f32_u32(vshll_high_n_u16(h0, 16));
    w[2] = vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h1), 16));
    w[3] = vreinterpretq_f32_u32(vshll_high_n_u16(h1, 16));
}

#define NEON_FP_SYM  qmm_family_neon_bf16
#define NEON_FP_NAME "neon_bf16"
#define NEON_FP_TYPE QMM_TYPE_BF16
#include "kernels/arm/neon_fp_body.h"
