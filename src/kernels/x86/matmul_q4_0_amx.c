/* Q4_0 weights x int8 activations with AMX (TDPBSUD): the AMX GEMM of
 * amx_int8.h on the Q4_0 x-family panels of avx512x_units.h (GEMV and
 * GET_ROWS as the x families'; the AVX-512 VNNI family avx512vnni_q4_0, its
 * fallback, packs its own panels). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

QMM_AMX_X_FAMILY(amx_q4_0, QMM_TYPE_Q4_0, QMM_AVX512X_Q4_0, qmm_avx512x_put_q4_0, qmm_avx512x_get_q4_0)
