/* Q6_K weights x int8 activations with AMX (TDPBSUD): the AMX GEMM of
 * amx_int8.h on the Q6_K panels of avx512x_units.h (GEMV and GET_ROWS as the
 * AVX-512 VNNI family's). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

QMM_AMX_X_FAMILY(amx_q6_k, QMM_TYPE_Q6_K, QMM_AVX512X_Q6_K, qmm_avx512x_put_q6_k, qmm_avx512x_get_q6_k)
