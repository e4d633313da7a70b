/* F16 weights x fp32 activations with NEON fmla: 16 weight rows x up to 4 activation rows per tile.
 *
 * As neon_f32 (the shared body is neon_fp_body.h), with the panel kept in fp16 (half the bytes to stream) and
 * widened to fp32 by fcvtl, which is exact; all arithmetic is fp32, never fp16. */
#include <arm_neon.h>
#include <stdint.h>

#include "formats/formats.h"

typedef uint16_t wtype_t;                    /* IEEE half bits */
#define NEON_FP_WIDEN(e) qmm_fp16_to_fp32(e) /* GGUF's exact widening, NaN payloads too */

/* The 16 weights of element l of the panel, widened exactly to fp32. */
static inline __attribute__((always_inline)) void load_w(const wtype_t *p, float32x4_t w[4]) {
    const float16x8_t h0 = vreinterpretq_f16_u16(vld1q_u16(p)), h1 = vreinterpretq_f16_u16(vld1q_u16(p + 8));
    w[0] = vcvt_f32_f16(vget_low_f16(h0));
    w[1] = vcvt_high_f32_f16(h0);
    w[2] = vcvt_f32_f16(vget_low_f16(h1));
    w[3] = vcvt_high_f32_f16(h1);
}

#define NEON_FP_SYM  qmm_family_neon_f16
#define NEON_FP_NAME "neon_f16"
#define NEON_FP_TYPE QMM_TYPE_F16
#include "kernels/arm/neon_fp_body.h"
