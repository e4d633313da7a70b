/* Q3_K weights x int8 activations with AVX-512 VNNI (vpdpbusd): the x-family
 * tiles of avx512_int8.h on the Q3_K panels of avx512x_units.h. */
#include "kernels/x86/avx512x_units.h"

QMM_AVX512X_FAMILY(avx512vnni_q3_k, QMM_TYPE_Q3_K, QMM_AVX512X_Q3_K, qmm_avx512x_put_q3_k, qmm_avx512x_get_q3_k)
