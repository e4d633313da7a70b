/* F16 weights x fp32 activations, AVX2 + FMA + F16C: the panel keeps F16
 * (half the bytes of F32 for the memory-bound GEMV), widened exactly by
 * vcvtph2ps at use. The body is avx2_fp_body.h. */
#include <immintrin.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/x86/fp_pack16.h"

#define FP_ELEM uint16_t

static inline __m256 fp_load8(const uint16_t *p) { return _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)); }

/* The reference's conversion, so that GET_ROWS keeps even NaN payloads. */
static inline float fp_to_f32(uint16_t v) { return qmm_fp16_to_fp32(v); }

#include "kernels/x86/avx2_f16_direct.h"
#include "kernels/x86/avx2_fp_widen.h"

#include <stdatomic.h>

static atomic_int avx2fp_widen_forced = -1;
static atomic_int avx2fp_widen_told = 1; /* dispatch's answer (src/registry/dispatch.c) */

int qmm_avx2fp_widen_copy(void) {
    const int forced = atomic_load_explicit(&avx2fp_widen_forced, memory_order_relaxed);
    return forced >= 0 ? forced : atomic_load_explicit(&avx2fp_widen_told, memory_order_relaxed);
}

void qmm_avx2fp_set_widen_copy(int on) { atomic_store_explicit(&avx2fp_widen_told, on != 0, memory_order_relaxed); }

void qmm_avx2fp_force_widen_copy(int mode) {
    atomic_store_explicit(&avx2fp_widen_forced, mode < 0 ? -1 : mode != 0, memory_order_relaxed);
}

#define FP_DIRECT      qmm_f16d2_direct /* decode reads K / V^T in place */
#define FP_DEFINE_WIDE                  /* the widened panel's thread-local copy (avx2_fp_body.h) */

/* prefill of qmm_mul_mat_f16: the weights widened once into avx2_f32's panels (the same layout) */
extern const qmm_family qmm_family_avx2_f32;
static void fp_w_pack_wide(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    qmm_x86fp_pack16_wide(k, n, n0, n1, src, stride, dst);
}
#define FP_WIDE      (&qmm_family_avx2_f32)
#define FP_PACK_WIDE fp_w_pack_wide

#define FP_SYM      qmm_family_avx2_f16
#define FP_ATT_SYM  qmm_fp_attention_avx2_f16
#define FP_NAME     "avx2_f16"
#define FP_WTYPE    QMM_TYPE_F16
#define FP_REQUIRED (QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#include "kernels/x86/avx2_fp_body.h"
