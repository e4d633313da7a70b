/* F32 weights x fp32 activations with NEON fmla: 16 weight rows x up to 4 activation rows per tile (the body,
 * shared with neon_f16, is in neon_fp_body.h). */
#include <arm_neon.h>

typedef float wtype_t;
#define NEON_FP_WIDEN(e) (e)

/* The 16 weights of element l of the panel, as fp32. */
static inline __attribute__((always_inline)) void load_w(const wtype_t *p, float32x4_t w[4]) {
    for (int v = 0; v < 4; v++)
        w[v] = vld1q_f32(p + 4 * v);
}

#define NEON_FP_SYM  qmm_family_neon_f32
#define NEON_FP_NAME "neon_f32"
#define NEON_FP_TYPE QMM_TYPE_F32
#include "kernels/arm/neon_fp_body.h"
