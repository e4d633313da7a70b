/* AVX-512 probes (compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vnni):
 * the instructions the AVX-512 kernel families are built from. */
#include <immintrin.h>

#include "probe.h"
#include "qmatmul.h"

/* The eight lanes summed as unsigned (wrapping) integers: the bytes read are
 * any bit patterns, and gcc's _mm512_reduce_add_epi64 adds them as signed
 * long long, an overflow UBSan reports. */
static inline uint64_t probe_fold_u64(__m512i v) {
    uint64_t lane[8], sum = 0;
    _mm512_storeu_si512((void *)lane, v);
    for (int i = 0; i < 8; i++)
        sum += lane[i];
    return sum;
}

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
    return probe_fold_u64(_mm512_add_epi64(_mm512_add_epi64(s0, s1), _mm512_add_epi64(s2, s3)));
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
    return probe_fold_u64(_mm512_add_epi64(_mm512_add_epi64(s[0], s[1]), _mm512_add_epi64(s[2], s[3])));
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
    uint32_t lane[16], sum = 0; /* wrapping, as the chains do (not gcc's signed reduce) */
    _mm512_storeu_si512((void *)lane, s);
    for (int i = 0; i < 16; i++)
        sum += lane[i];
    return sum;
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

/* The register tile of the AVX-512 fp GEMM families (src/kernels/x86/
 * avx512_fp.h): 12 activation rows x 2 weight vectors = 24 zmm accumulators;
 * per k step, 2 weight vectors loaded and 12 activations broadcast from
 * memory, 24 FMAs. Its data (TILE_L steps: 8 KiB of weights, 3 KiB of
 * activations) stays in L1, so what it measures is the loop itself: the
 * ceiling of an exact fp32 GEMM here, whose every FMA needs operands loaded
 * (32 registers bound the reuse). An iteration is one k step. */
#define TILE_L 64
static uint64_t fma_tile_zmm(uint64_t iters) {
    float w[2 * TILE_L * 16] __attribute__((aligned(64))), x[TILE_L * 12];
    for (int i = 0; i < 2 * TILE_L * 16; i++)
        w[i] = (float)((iters + (uint64_t)i) & 7) * 1e-3f;
    for (int i = 0; i < TILE_L * 12; i++)
        x[i] = (float)(i & 3) * 1e-3f;
    __m512 acc[12][2];
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++)
        acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    /* one k step an iteration, the TILE_L steps of the buffers in a ring */
    const float *wl = w, *xl = x;
    for (uint64_t it = 0; it < iters; it++) {
        const __m512 w0 = _mm512_load_ps(wl), w1 = _mm512_load_ps(wl + 16);
#pragma GCC unroll 12
        for (int r = 0; r < 12; r++) {
            const __m512 xb = _mm512_set1_ps(xl[r]);
            acc[r][0] = _mm512_fmadd_ps(w0, xb, acc[r][0]);
            acc[r][1] = _mm512_fmadd_ps(w1, xb, acc[r][1]);
        }
        wl += 32;
        xl += 12;
        if (wl == w + TILE_L * 32) {
            wl = w;
            xl = x;
        }
    }
    __m512 s = _mm512_setzero_ps();
#pragma GCC unroll 12
    for (int r = 0; r < 12; r++)
        s = _mm512_add_ps(s, _mm512_add_ps(acc[r][0], acc[r][1]));
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
const qmm_probe qmm_probe_fma_tile_avx512 = {"vfmadd-zmm-tile",
                                             QMM_PROBE_FMA_TILE,
                                             QMM_CPU_AVX512F,
                                             "not a limit: the AVX-512 fp GEMM register tile, 12 rows x 2 zmm, 2 loads + 12 "
                                             "broadcasts from L1 per 24 FMAs",
                                             NULL,
                                             fma_tile_zmm,
                                             24 * 16 * 2,
                                             NULL};
