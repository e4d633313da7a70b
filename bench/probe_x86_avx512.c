/* AVX-512 probes (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni):
 * the instructions the AVX-512 kernel families are built from. */
#include <immintrin.h>

#include "probe.h"
#include "qmatmul.h"

/* Four 64-byte loads per step into four independent adds: the loads, not the
 * adds, are the bottleneck. */
static uint64_t read_avx512(const void *p, size_t bytes) {
    const __m512i *v = (const __m512i *)p;
    __m512i s0 = _mm512_setzero_si512(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < bytes / 64; i += 4) {
        s0 = _mm512_add_epi64(s0, _mm512_load_si512(v + i));
        s1 = _mm512_add_epi64(s1, _mm512_load_si512(v + i + 1));
        s2 = _mm512_add_epi64(s2, _mm512_load_si512(v + i + 2));
        s3 = _mm512_add_epi64(s3, _mm512_load_si512(v + i + 3));
    }
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
}

/* S interleaved streams (the chunk cut in S parts read side by side, as a
 * kernel reads several weight rows): more pages and prefetch streams in
 * flight than one sequential stream. */
static inline uint64_t read_streams(const void *p, size_t bytes, int S) {
    const size_t part = bytes / (size_t)S / 64; /* vectors per stream */
    const __m512i *v = (const __m512i *)p;
    __m512i s[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    for (size_t i = 0; i < part; i += 2)
        for (int k = 0; k < S; k++) {
            s[k] = _mm512_add_epi64(s[k], _mm512_load_si512(v + (size_t)k * part + i));
            s[(k + 1) & 3] = _mm512_add_epi64(s[(k + 1) & 3], _mm512_load_si512(v + (size_t)k * part + i + 1));
        }
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(s[0], s[1]), _mm512_add_epi64(s[2], s[3])));
}
static uint64_t read_avx512_x2(const void *p, size_t bytes) { return read_streams(p, bytes, 2); }
static uint64_t read_avx512_x4(const void *p, size_t bytes) { return read_streams(p, bytes, 4); }

/* 12 independent vpdpbusd chains: enough to cover the latency (4-5 cycles)
 * times the issue width on current cores. 64 u8 x s8 products per
 * instruction, 2 ops each. */
#define CHAINS 12
static uint64_t int8_vnni(uint64_t iters) {
    const __m512i a = _mm512_set1_epi32((int)(iters | 0x01010101u)), b = _mm512_set1_epi8(3);
    __m512i acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = _mm512_set1_epi32(j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = _mm512_dpbusd_epi32(acc[j], a, b);
    __m512i s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = _mm512_add_epi32(s, acc[j]);
    return (uint64_t)(uint32_t)_mm512_reduce_add_epi32(s);
}

/* 12 independent vfmadd231ps zmm chains, 16 lanes x 2 flops. */
static uint64_t fma_zmm(uint64_t iters) {
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps((float)(iters & 1) * 1e-7f + 1e-7f);
    __m512 acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = _mm512_set1_ps((float)j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = _mm512_fmadd_ps(acc[j], a, b);
    __m512 s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = _mm512_add_ps(s, acc[j]);
    return (uint64_t)_mm512_reduce_add_ps(s);
}

const qmm_probe qmm_probe_read_avx512 = {"zmm-load",
                                         QMM_PROBE_READ,
                                         QMM_CPU_AVX512F,
                                         "streaming read: 64-byte aligned zmm loads summed with vpaddq, 4 independent sums",
                                         read_avx512,
                                         NULL,
                                         0,
                                         NULL};
const qmm_probe qmm_probe_read_avx512_x2 = {"zmm-load-x2",
                                            QMM_PROBE_READ,
                                            QMM_CPU_AVX512F,
                                            "streaming read: zmm loads from 2 interleaved streams per thread",
                                            read_avx512_x2,
                                            NULL,
                                            0,
                                            NULL};
const qmm_probe qmm_probe_read_avx512_x4 = {"zmm-load-x4",
                                            QMM_PROBE_READ,
                                            QMM_CPU_AVX512F,
                                            "streaming read: zmm loads from 4 interleaved streams per thread",
                                            read_avx512_x4,
                                            NULL,
                                            0,
                                            NULL};
const qmm_probe qmm_probe_int8_avx512vnni = {
    "vpdpbusd-zmm",
    QMM_PROBE_INT8,
    QMM_CPU_AVX512F | QMM_CPU_AVX512VNNI,
    "vpdpbusd zmm alone, 12 independent accumulator chains; 64 u8*s8 multiplies + 64 adds = 128 ops per instruction",
    NULL,
    int8_vnni,
    CHAINS * 64 * 2,
    NULL};
const qmm_probe qmm_probe_fma_avx512 = {"vfmadd-zmm",
                                        QMM_PROBE_FMA,
                                        QMM_CPU_AVX512F,
                                        "vfmadd231ps zmm, 12 independent chains; 16 fp32 FMAs per instruction, 2 flops each",
                                        NULL,
                                        fma_zmm,
                                        CHAINS * 16 * 2,
                                        NULL};
