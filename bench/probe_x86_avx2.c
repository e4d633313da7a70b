/* AVX2 / FMA probes (compiled with -mavx2 -mfma, and not -mavxvnni: a
 * compiler may fuse vpmaddwd + vpaddd into an AVX-VNNI vpdpwssd): the
 * instructions of the 256-bit kernel families. */
#include <immintrin.h>

#include "probe.h"
#include "qmatmul.h"

/* 4 interleaved streams per thread (see probe_x86_avx512.c), each
 * prefetched pf bytes ahead when pf > 0. */
static inline __attribute__((always_inline)) uint64_t read_avx2_streams(const void *p, size_t bytes, const size_t pf) {
    const size_t part = bytes / 4 / 32;
    const __m256i *v = (const __m256i *)p;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < part; i += 2) {
        if (pf)
            for (int q = 0; q < 4; q++)
                _mm_prefetch((const char *)(v + (size_t)q * part + i) + pf, _MM_HINT_T0);
        s0 = _mm256_add_epi64(s0, _mm256_add_epi64(_mm256_load_si256(v + i), _mm256_load_si256(v + i + 1)));
        s1 = _mm256_add_epi64(s1, _mm256_add_epi64(_mm256_load_si256(v + part + i), _mm256_load_si256(v + part + i + 1)));
        s2 = _mm256_add_epi64(s2, _mm256_add_epi64(_mm256_load_si256(v + 2 * part + i), _mm256_load_si256(v + 2 * part + i + 1)));
        s3 = _mm256_add_epi64(s3, _mm256_add_epi64(_mm256_load_si256(v + 3 * part + i), _mm256_load_si256(v + 3 * part + i + 1)));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    uint64_t t[4];
    _mm256_storeu_si256((__m256i *)t, s);
    return t[0] + t[1] + t[2] + t[3];
}

static uint64_t read_avx2_x4(const void *p, size_t bytes) { return read_avx2_streams(p, bytes, 0); }

static uint64_t read_avx2(const void *p, size_t bytes) {
    const __m256i *v = (const __m256i *)p;
    __m256i s0 = _mm256_setzero_si256(), s1 = s0, s2 = s0, s3 = s0;
    for (size_t i = 0; i < bytes / 32; i += 8) {
        s0 = _mm256_add_epi64(s0, _mm256_add_epi64(_mm256_load_si256(v + i), _mm256_load_si256(v + i + 4)));
        s1 = _mm256_add_epi64(s1, _mm256_add_epi64(_mm256_load_si256(v + i + 1), _mm256_load_si256(v + i + 5)));
        s2 = _mm256_add_epi64(s2, _mm256_add_epi64(_mm256_load_si256(v + i + 2), _mm256_load_si256(v + i + 6)));
        s3 = _mm256_add_epi64(s3, _mm256_add_epi64(_mm256_load_si256(v + i + 3), _mm256_load_si256(v + i + 7)));
    }
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(s0, s1), _mm256_add_epi64(s2, s3));
    uint64_t t[4];
    _mm256_storeu_si256((__m256i *)t, s);
    return t[0] + t[1] + t[2] + t[3];
}

/* 4 interleaved streams per thread, each prefetched 512 bytes ahead, as the
 * AVX2 fp decode kernels read four panels at once: on a Zen 3 guest, F32
 * decode rows ran 36.5-37.7 GB/s against a 32.8 GB/s plain-load limit in one
 * bench run (111-115%); in three `--probes` runs this probe's best was 38-46
 * GB/s against 34-38 for the plain ones (medians 32-34 against 25-32). */
static uint64_t read_avx2_x4_pf(const void *p, size_t bytes) { return read_avx2_streams(p, bytes, 512); }

#define CHAINS 12

static uint64_t hsum32(__m256i s) {
    int32_t t[8];
    _mm256_storeu_si256((__m256i *)t, s);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r += (uint32_t)t[i];
    return r;
}

/* vpmaddubsw alone: the instruction that bounds any exact AVX2 int8 dot
 * product (each u8*s8 product of a kernel passes through one of its 32
 * lanes; the widening vpmaddwd + vpaddd that finish the sum run on other
 * ports or not). Each chain feeds its result back as the unsigned operand,
 * so nothing is loop-invariant; 12 chains cover latency x ports. Counted as
 * 32 MACs (64 ops) per instruction: an upper bound for 2 m n k / time. */
#define CHAINS2 12
static uint64_t int8_avx2(uint64_t iters) {
    const __m256i b = _mm256_set1_epi8((char)((iters & 3) + 1));
    __m256i acc[CHAINS2];
    for (int j = 0; j < CHAINS2; j++)
        acc[j] = _mm256_set1_epi32(j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS2; j++)
            acc[j] = _mm256_maddubs_epi16(acc[j], b);
    __m256i s = acc[0];
    for (int j = 1; j < CHAINS2; j++)
        s = _mm256_add_epi32(s, acc[j]);
    return hsum32(s);
}

static uint64_t fma_ymm(uint64_t iters) {
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps((float)(iters & 1) * 1e-7f + 1e-7f);
    __m256 acc[CHAINS];
    for (int j = 0; j < CHAINS; j++)
        acc[j] = _mm256_set1_ps((float)j);
    for (uint64_t i = 0; i < iters; i++)
#pragma GCC unroll 16
        for (int j = 0; j < CHAINS; j++)
            acc[j] = _mm256_fmadd_ps(acc[j], a, b);
    __m256 s = acc[0];
    for (int j = 1; j < CHAINS; j++)
        s = _mm256_add_ps(s, acc[j]);
    float t[8];
    _mm256_storeu_ps(t, s);
    return (uint64_t)(t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]);
}

/* The register tile of the AVX2 fp GEMM families (avx2_fp_body.h): 6
 * activation rows x 2 weight vectors (one 16-row panel) = 12 ymm
 * accumulators; per k step 2 weight loads, 6 broadcasts, 12 FMAs, data in L1
 * (see fma_tile_zmm in probe_x86_avx512.c). An iteration is one k step. */
#define TILE_L 64
static uint64_t fma_tile_ymm(uint64_t iters) {
    float w[TILE_L * 16] __attribute__((aligned(32))), x[TILE_L * 6];
    for (int i = 0; i < TILE_L * 16; i++)
        w[i] = (float)((iters + (uint64_t)i) & 7) * 1e-3f;
    for (int i = 0; i < TILE_L * 6; i++)
        x[i] = (float)(i & 3) * 1e-3f;
    __m256 acc[6][2];
#pragma GCC unroll 6
    for (int r = 0; r < 6; r++)
        acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    /* one k step an iteration, the TILE_L steps of the buffers in a ring */
    const float *wl = w, *xl = x;
    for (uint64_t it = 0; it < iters; it++) {
        const __m256 w0 = _mm256_load_ps(wl), w1 = _mm256_load_ps(wl + 8);
#pragma GCC unroll 6
        for (int r = 0; r < 6; r++) {
            const __m256 xb = _mm256_broadcast_ss(xl + r);
            acc[r][0] = _mm256_fmadd_ps(w0, xb, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(w1, xb, acc[r][1]);
        }
        wl += 16;
        xl += 6;
        if (wl == w + TILE_L * 16) {
            wl = w;
            xl = x;
        }
    }
    __m256 s = _mm256_setzero_ps();
#pragma GCC unroll 6
    for (int r = 0; r < 6; r++)
        s = _mm256_add_ps(s, _mm256_add_ps(acc[r][0], acc[r][1]));
    float t[8];
    _mm256_storeu_ps(t, s);
    return (uint64_t)(t[0] + t[1] + t[2] + t[3] + t[4] + t[5] + t[6] + t[7]);
}

const qmm_probe qmm_probe_read_avx2 = {"ymm-load",
                                       QMM_PROBE_READ,
                                       QMM_CPU_AVX2,
                                       "streaming read: 32-byte aligned ymm loads summed with vpaddq, 8 per step",
                                       read_avx2,
                                       NULL,
                                       0,
                                       NULL};
const qmm_probe qmm_probe_read_avx2_x4 = {"ymm-load-x4",
                                          QMM_PROBE_READ,
                                          QMM_CPU_AVX2,
                                          "streaming read: ymm loads from 4 interleaved streams per thread",
                                          read_avx2_x4,
                                          NULL,
                                          0,
                                          NULL};
const qmm_probe qmm_probe_read_avx2_pf = {
    "ymm-load-x4-pf",
    QMM_PROBE_READ,
    QMM_CPU_AVX2,
    "streaming read: ymm loads from 4 interleaved streams per thread, each prefetched 512 bytes ahead (prefetcht0)",
    read_avx2_x4_pf,
    NULL,
    0,
    NULL};
const qmm_probe qmm_probe_int8_avx2 = {
    "vpmaddubsw-ymm",
    QMM_PROBE_INT8,
    QMM_CPU_AVX2,
    "vpmaddubsw ymm alone, 12 independent chains; 32 u8*s8 products per instruction, counted as 32 MACs = 64 ops",
    NULL,
    int8_avx2,
    CHAINS2 * 32 * 2,
    NULL};
const qmm_probe qmm_probe_fma_avx2 = {"vfmadd-ymm",
                                      QMM_PROBE_FMA,
                                      QMM_CPU_AVX2 | QMM_CPU_FMA,
                                      "vfmadd231ps ymm, 12 independent chains; 8 fp32 FMAs per instruction, 2 flops each",
                                      NULL,
                                      fma_ymm,
                                      CHAINS * 8 * 2,
                                      NULL};
const qmm_probe qmm_probe_fma_tile_avx2 = {"vfmadd-ymm-tile",
                                           QMM_PROBE_FMA_TILE,
                                           QMM_CPU_AVX2 | QMM_CPU_FMA,
                                           "not a limit: the AVX2 fp GEMM register tile, 6 rows x 2 ymm, 2 loads + 6 broadcasts "
                                           "from L1 per 12 FMAs",
                                           NULL,
                                           fma_tile_ymm,
                                           12 * 8 * 2,
                                           NULL};
