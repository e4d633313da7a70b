/* Q8_0 weights x int8 activations with AMX (TDPBSUD): the AMX GEMM of
 * amx_int8.h on the Q8_0 x-family panels of avx512x_units.h (weights stored
 * as q + 128; GEMV and GET_ROWS as the x families'; the AVX-512 VNNI family
 * avx512vnni_q8_0, its fallback, packs its own panels). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

QMM_AMX_X_FAMILY(amx_q8_0, QMM_TYPE_Q8_0, QMM_AVX512X_Q8_0, qmm_avx512x_put_q8_0, qmm_avx512x_get_q8_0)
