/* Q4_1 weights x int8 activations with AVX-512 VNNI (vpdpbusd): the x-family
 * tiles of avx512_int8.h on the Q4_1 panels of avx512x_units.h. */
#include "kernels/x86/avx512x_units.h"

QMM_AVX512X_FAMILY(avx512vnni_q4_1, QMM_TYPE_Q4_1, QMM_AVX512X_Q4_1, qmm_avx512x_put_q4_1, qmm_avx512x_get_q4_1)
