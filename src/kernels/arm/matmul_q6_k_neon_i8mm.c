/* Q6_K x int8 activations with smmla (Armv8.6 i8mm): 4 weight rows x up to 4 activation rows per tile, PAIRS panels.
 * Layout, unpacking and numerics: neon_q6_k_body.h. */
#define Q6N_ID   neon_i8mm_q6_k
#define Q6N_I8MM 1
#include "kernels/arm/neon_q6_k_body.h"
