/* MXFP4 weights x int8 activations with AVX-512 VNNI: the table lookup of
 * avx512_table.h (vpshufb of the nibbles into level + 128, vpdpbusd from the
 * -128 sum(q_x) bias). */
#include "kernels/x86/avx512_table.h"

QMM_AVX512T_FAMILY(avx512vnni_mxfp4, QMM_TYPE_MXFP4, QMM_AVX512T_MXFP4)
