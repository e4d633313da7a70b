/* Q5_0 (value d * (q - 16)) x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile,
 * ROWS4 panels. Layout, unpacking and numerics: neon_legacy_body.h. */
#define NL_ID      neon_dotprod_q5_0
#define NL_WTYPE   QMM_TYPE_Q5_0
#define NL_BLOCK   qmm_block_q5_0
#define NL_DEQUANT qmm_dequantize_row_q5_0
#define NL_HAS_MIN 0
#define NL_HAS_QH  1
#define NL_I8MM    0
#include "kernels/arm/neon_legacy_body.h"
