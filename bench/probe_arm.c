/* Arm probes for every AArch64 CPU (baseline flags): NEON loads and fmla.
 * sdot is in probe_arm_dotprod.c, compiled with +dotprod. */
#include <arm_neon.h>

#include "probe.h"
#include "qmatmul.h"

static uint64_t read_neon(const void *p, size_t bytes) {
    const uint64_t *v = (const uint64_t *)p;
    uint64x2_t s0 = vdupq_n_u64(0), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < bytes / 8; i += 8) {
        s0 = vaddq_u64(s0, vld1q_u64(v + i));
        s1 = vaddq_u64(s1, vld1q_u64(v + i + 2));
        s2 = vaddq_u64(s2, vld1q_u64(v + i + 4));
        s3 = vaddq_u64(s3, vld1q_u64(v + i + 6));
    }
    uint64x2_t s = vaddq_u64(vaddq_u64(s0, s1), vaddq_u64(s2, s3));
    return vgetq_lane_u64(s, 0) + vgetq_lane_u64(s, 1);
}

/* 4 interleaved streams per thread (see probe_x86_avx512.c). */
static uint64_t read_neon_x4(const void *p, size_t bytes) {
    const size_t part = bytes / 4 / 8; /* u64 per stream */
    const uint64_t *v = (const uint64_t *)p;
    uint64x2_t s0 = vdupq_n_u64(0), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < part; i += 4) {
        s0 = vaddq_u64(s0, vaddq_u64(vld1q_u64(v + i), vld1q_u64(v + i + 2)));
        s1 = vaddq_u64(s1, vaddq_u64(vld1q_u64(v + part + i), vld1q_u64(v + part + i + 2)));
        s2 = vaddq_u64(s2, vaddq_u64(vld1q_u64(v + 2 * part + i), vld1q_u64(v + 2 * part + i + 2)));
        s3 = vaddq_u64(s3, vaddq_u64(vld1q_u64(v + 3 * part + i), vld1q_u64(v + 3 * part + i + 2)));
    }
    uint64x2_t s = vaddq_u64(vaddq_u64(s0, s1), vaddq_u64(s2, s3));
    return vgetq_lane_u64(s, 0) + vgetq_lane_u64(s, 1);
}

#define CHAINS 12

static uint64_t fma_neon(uint64_t iters) {
    const float32x4_t a = vdupq_n_f32(0.999999f), b = vdupq_n_f32((float)(iters & 1) * 1e-7f + 1e-7f);
    float32x4_t acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = vdupq_n_f32((float)j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = vfmaq_f32(acc[j], a, b);
    float32x4_t s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = vaddq_f32(s, acc[j]);
    return (uint64_t)vaddvq_f32(s);
}

const qmm_probe qmm_probe_read_neon = {"neon-load",
                                       QMM_PROBE_READ,
                                       QMM_CPU_NEON,
                                       "streaming read: 16-byte ld1 loads summed with add, 4 independent sums",
                                       read_neon,
                                       NULL,
                                       0,
                                       NULL};
const qmm_probe qmm_probe_read_neon_x4 = {"neon-load-x4",
                                          QMM_PROBE_READ,
                                          QMM_CPU_NEON,
                                          "streaming read: ld1 loads from 4 interleaved streams per thread",
                                          read_neon_x4,
                                          NULL,
                                          0,
                                          NULL};
const qmm_probe qmm_probe_fma_neon = {
    "fmla", QMM_PROBE_FMA, QMM_CPU_NEON,   "fmla .4s, 12 independent chains; 4 fp32 FMAs per instruction, 2 flops each",
    NULL,   fma_neon,      CHAINS * 4 * 2, NULL};
