/* Q6_K weights x int8 activations with AVX-512 VNNI (vpdpbusd): the x-family
 * tiles of avx512_int8.h on the Q6_K panels of avx512x_units.h. */
#include "kernels/x86/avx512x_units.h"

QMM_AVX512X_FAMILY(avx512vnni_q6_k, QMM_TYPE_Q6_K, QMM_AVX512X_Q6_K, qmm_avx512x_put_q6_k, qmm_avx512x_get_q6_k)
