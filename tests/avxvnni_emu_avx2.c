/* The AVX-VNNI families' code built for plain AVX2, with vpdpbusd emulated
 * exactly (u8 and s8 widened to int16, vpmaddwd: no saturation anywhere), so
 * that test_avx2_int8 can run everything but the one instruction on any AVX2
 * CPU. Compiled with -mavx2 -mfma -mf16c. */
#include <immintrin.h>

#include "kernels/family.h"

static inline __m256i emu_dpbusd(__m256i acc, __m256i u8, __m256i s8) {
    const __m256i u_even = _mm256_and_si256(u8, _mm256_set1_epi16(0x00ff)), u_odd = _mm256_srli_epi16(u8, 8);
    const __m256i s_even = _mm256_srai_epi16(_mm256_slli_epi16(s8, 8), 8), s_odd = _mm256_srai_epi16(s8, 8);
    return _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_madd_epi16(u_even, s_even), _mm256_madd_epi16(u_odd, s_odd)));
}

#undef _mm256_dpbusd_avx_epi32
#define _mm256_dpbusd_avx_epi32 emu_dpbusd

/* The two bodies in one unit: rename what they both define. */
#define dot_step                q4_dot_step
#define dot_finish              q4_dot_finish
#define qmm_family_avxvnni_q4_0 qmm_test_avxvnni_emu_q4_0
#include "kernels/x86/matmul_q4_0_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q8_dot_step
#define dot_finish              q8_dot_finish
#define qmm_family_avxvnni_q8_0 qmm_test_avxvnni_emu_q8_0
#include "kernels/x86/matmul_q8_0_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q4k_dot_step
#define dot_finish              q4k_dot_finish
#define qmm_family_avxvnni_q4_k qmm_test_avxvnni_emu_q4_k
#include "kernels/x86/matmul_q4_k_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q6k_dot_step
#define dot_finish              q6k_dot_finish
#define qmm_family_avxvnni_q6_k qmm_test_avxvnni_emu_q6_k
#include "kernels/x86/matmul_q6_k_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q50_dot_step
#define dot_finish              q50_dot_finish
#define qmm_family_avxvnni_q5_0 qmm_test_avxvnni_emu_q5_0
#include "kernels/x86/matmul_q5_0_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q41_dot_step
#define dot_finish              q41_dot_finish
#define qmm_family_avxvnni_q4_1 qmm_test_avxvnni_emu_q4_1
#include "kernels/x86/matmul_q4_1_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q51_dot_step
#define dot_finish              q51_dot_finish
#define qmm_family_avxvnni_q5_1 qmm_test_avxvnni_emu_q5_1
#include "kernels/x86/matmul_q5_1_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q5k_dot_step
#define dot_finish              q5k_dot_finish
#define qmm_family_avxvnni_q5_k qmm_test_avxvnni_emu_q5_k
#include "kernels/x86/matmul_q5_k_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q2k_dot_step
#define dot_finish              q2k_dot_finish
#define qmm_family_avxvnni_q2_k qmm_test_avxvnni_emu_q2_k
#include "kernels/x86/matmul_q2_k_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                q3k_dot_step
#define dot_finish              q3k_dot_finish
#define qmm_family_avxvnni_q3_k qmm_test_avxvnni_emu_q3_k
#include "kernels/x86/matmul_q3_k_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                  iq4_nl_dot_step
#define dot_finish                iq4_nl_dot_finish
#define qmm_family_avxvnni_iq4_nl qmm_test_avxvnni_emu_iq4_nl
#include "kernels/x86/matmul_iq4_nl_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                 mxfp4_dot_step
#define dot_finish               mxfp4_dot_finish
#define qmm_family_avxvnni_mxfp4 qmm_test_avxvnni_emu_mxfp4
#include "kernels/x86/matmul_mxfp4_avxvnni.c"
#undef dot_step
#undef dot_finish
#define dot_step                  iq4_xs_dot_step
#define dot_finish                iq4_xs_dot_finish
#define qmm_family_avxvnni_iq4_xs qmm_test_avxvnni_emu_iq4_xs
#include "kernels/x86/matmul_iq4_xs_avxvnni.c"
