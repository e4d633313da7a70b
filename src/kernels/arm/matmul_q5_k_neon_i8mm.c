/* Q5_K x int8 activations with smmla (i8mm): 4 weight rows x up to 4 activation rows per tile, the K-quant body
 * (neon_k_quant_body.h) on PAIRS panels (neon_k_quant.h) in the NEON int8 driver. GEMV runs the same tile. */
#define KQ_KIND QMM_NEON_KQ_Q5_K
#define KQ_I8MM 1
#include "kernels/arm/neon_k_quant_body.h"

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the dotprod family */
KQ_FAMILY(neon_i8mm_q5_k, QMM_TYPE_Q5_K, q5_k, QMM_NEON_KQ_BLK(KQ_KIND), QMM_NEON_PAIRS, 8,
          QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM, QMM_CPU_I8MM, tile)
