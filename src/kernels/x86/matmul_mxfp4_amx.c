/* MXFP4 weights x int8 activations with AMX (TDPBSUD): the AMX GEMM of
 * amx_int8.h on the MXFP4 x-family panels of avx512x_units.h (the E2M1 codes
 * looked up into kv2[q] + 128 once per k chunk, the E8M0 scale widened to
 * fp32 exactly; GEMV and GET_ROWS as the x families'; the AVX-512 VNNI family
 * avx512vnni_mxfp4, its fallback, packs its own panels). */
#include "kernels/x86/amx_int8.h"
#include "kernels/x86/avx512x_units.h"

QMM_AMX_X_FAMILY(amx_mxfp4, QMM_TYPE_MXFP4, QMM_AVX512X_MXFP4, qmm_avx512x_put_mxfp4, qmm_avx512x_get_mxfp4)
