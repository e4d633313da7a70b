/* Q5_K x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile, the
 * K-quant body (neon_k_quant_body.h) on ROWS4 panels (neon_k_quant.h) in the NEON int8 driver. */
#define KQ_KIND QMM_NEON_KQ_Q5_K
#define KQ_I8MM 0
#include "kernels/arm/neon_k_quant_body.h"

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
KQ_FAMILY(neon_dotprod_q5_k, QMM_TYPE_Q5_K, q5_k, QMM_NEON_KQ_BLK(KQ_KIND), QMM_NEON_ROWS4, 4, QMM_CPU_NEON | QMM_CPU_DOTPROD,
          QMM_CPU_DOTPROD, tile)
