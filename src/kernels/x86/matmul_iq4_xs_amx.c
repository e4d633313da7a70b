/* IQ4_XS weights x int8 activations with AMX (TDPBSUD): the AMX GEMM of
 * amx_int8.h on the IQ4_XS x-family panels of avx512x_units.h (the nibbles
 * looked up into kv[q] + 128 once per k chunk, the signed sub-scale a float
 * factor of the exact sum; GEMV and GET_ROWS as the x families'; the AVX-512
 * VNNI family avx512vnni_iq4_xs, its fallback, packs its own panels). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

QMM_AMX_X_FAMILY(amx_iq4_xs, QMM_TYPE_IQ4_XS, QMM_AVX512X_IQ4_XS, qmm_avx512x_put_iq4_xs, qmm_avx512x_get_iq4_xs)
