/* Q6_K x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile, ROWS4 panels.
 * Layout, unpacking and numerics: neon_q6_k_body.h. */
#define Q6N_ID   neon_dotprod_q6_k
#define Q6N_I8MM 0
#include "kernels/arm/neon_q6_k_body.h"
