/* Q5_0 weights x int8 activations with AVX-512 VNNI (vpdpbusd): the x-family
 * tiles of avx512_int8.h on the Q5_0 panels of avx512x_units.h. */
#include "kernels/x86/avx512x_units.h"

QMM_AVX512X_FAMILY(avx512vnni_q5_0, QMM_TYPE_Q5_0, QMM_AVX512X_Q5_0, qmm_avx512x_put_q5_0, qmm_avx512x_get_q5_0)
