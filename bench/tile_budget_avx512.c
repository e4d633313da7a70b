/* tile_budget_avx512: where the cycles of the AVX-512 VNNI GEMM tile step go,
 * per weight type, on this core. Not a test and not a limit of `qmatmul
 * bench`: a measuring tool for issue 47's question "how close to the int8 roof
 * can an exact tile get here?" (docs/performance.md has the table and the
 * command).
 *
 *   tile_budget_avx512   (a CMake target on x86: build/tile_budget_avx512; needs AVX-512 VNNI to run)
 *
 * The tile of src/kernels/x86/avx512_int8.h multiplies 8 activation rows by a
 * 16-row weight panel, one 32-block at a time: per block it unpacks the
 * panel's 8 weight vectors once, then per row ("a row-block") runs 8 vpdpbusd
 * and the reference's exact integer and float steps. This program runs the
 * same instruction mix per type on L1-resident data, adding one part at a
 * time, and reports cycles per row-block (one activation row x 16 columns x
 * 32 k: 512 multiply-adds):
 *   dots     8 vpdpbusd from broadcast activation words, two chains per row
 *            (the tile's qmm_avx512_block_dot);
 *   + int    the int32 step: the zero point's bias start or vpmaddwd, the
 *            integer sub-scales' vpmulld (Q4_K, Q6_K, IQ4_XS);
 *   + float  the reference's float step: vcvtdq2ps, the scale product, the
 *            fma (Q4_K: twice, its min);
 *   + weights  the weight loads and unpacking and the block's scales, once
 *            per block for the 8 rows (the whole tile step).
 * 8 cycles per row-block is one vpdpbusd a cycle: the int8 roof of a core
 * that retires one 512-bit vpdpbusd a cycle (Zen 4; `qmatmul bench`'s
 * vpdpbusd-zmm probe measures the roof). The clock comes from a chain of
 * dependent scalar adds (one a cycle).
 *
 * The mix is a copy, written from src/kernels/x86/avx512_int8.h's tiles (the
 * block dot, each kind's unpacking and integer / float steps): bench/ sees
 * include/ only, so nothing ties the two. Change a tile, change its mix here,
 * and measure again before quoting the table. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cycle_clock.h"

#define BUDGET_ISA    "avx512f,avx512bw,avx512vl,avx512vnni,f16c"
#define BUDGET_TARGET __attribute__((target(BUDGET_ISA), always_inline)) static inline
#define BUDGET_BLOCKS 24 /* 32-blocks per pass: 8 act rows x 40 B + <= 416 weight bytes each, in L1 */
#define BUDGET_PASSES 40000

typedef enum { BUDGET_Q4_0, BUDGET_Q8_0, BUDGET_Q4_K, BUDGET_Q6_K, BUDGET_IQ4_XS, BUDGET_KINDS } budget_kind;
typedef enum { BUDGET_DOTS, BUDGET_INT, BUDGET_FLOAT, BUDGET_WEIGHTS, BUDGET_STAGES } budget_stage;

static const char *const kind_names[BUDGET_KINDS] = {"Q4_0", "Q8_0", "Q4_K", "Q6_K", "IQ4_XS"};

/* weight bytes per 32-block and panel as the tiles read them (quants, then the
 * per-block scale bytes) */
static int budget_wbytes(budget_kind kind) { return kind == BUDGET_Q8_0 ? 512 + 32 : kind == BUDGET_Q6_K ? 384 + 64 : 256 + 64; }

static uint8_t act_buf[BUDGET_BLOCKS * 8 * 40] __attribute__((aligned(64)));
static uint8_t w_buf[BUDGET_BLOCKS * 576] __attribute__((aligned(64)));

BUDGET_TARGET int32_t budget_ld32(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The block's 8 weight vectors and scales, as the kind's tile unpacks them. */
typedef struct {
    __m512i w[8];
    __m512 s, t;
    __m512i sc, sca, scb, zpair, mpair;
} budget_wblock;

BUDGET_TARGET void budget_unpack(budget_kind kind, const uint8_t *qb, budget_wblock *b) {
    const __m512i m4 = _mm512_set1_epi8(0x0f);
    if (kind == BUDGET_Q8_0) {
        for (int c = 0; c < 8; c++)
            b->w[c] = _mm512_loadu_si512((const void *)(qb + 64 * c));
    } else {
        for (int j = 0; j < 4; j++) {
            const __m512i p = _mm512_loadu_si512((const void *)(qb + 64 * j));
            b->w[j] = _mm512_and_si512(p, m4);
            b->w[j + 4] = _mm512_and_si512(_mm512_srli_epi16(p, 4), m4);
        }
    }
    const uint8_t *sb = qb + (kind == BUDGET_Q8_0 ? 512 : kind == BUDGET_Q6_K ? 384 : 256);
    b->s = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)sb));
    b->t = b->s;
    if (kind == BUDGET_IQ4_XS) {
        const __m512i table = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)(sb + 48)));
        for (int c = 0; c < 8; c++)
            b->w[c] = _mm512_shuffle_epi8(table, b->w[c]);
        b->sc = _mm512_cvtepi16_epi32(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(sb + 32))));
    } else if (kind == BUDGET_Q4_K) {
        b->t = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(sb + 32)));
        b->sc = _mm512_cvtepi16_epi32(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(sb + 16))));
        const __m512i m = _mm512_cvtepi16_epi32(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(sb + 48))));
        b->mpair = _mm512_sub_epi16(_mm512_setzero_si512(), _mm512_or_si512(m, _mm512_slli_epi32(m, 16)));
    } else if (kind == BUDGET_Q6_K) {
        const __m512i b45 = _mm512_set1_epi8(0x30);
        for (int p = 0; p < 2; p++) {
            const __m512i h = _mm512_loadu_si512((const void *)(qb + 256 + 64 * p));
            b->w[4 * p + 0] = _mm512_ternarylogic_epi32(b->w[4 * p + 0], _mm512_slli_epi16(h, 4), b45, 0xf8);
            b->w[4 * p + 1] = _mm512_ternarylogic_epi32(b->w[4 * p + 1], _mm512_slli_epi16(h, 2), b45, 0xf8);
            b->w[4 * p + 2] = _mm512_ternarylogic_epi32(b->w[4 * p + 2], h, b45, 0xf8);
            b->w[4 * p + 3] = _mm512_ternarylogic_epi32(b->w[4 * p + 3], _mm512_srli_epi16(h, 2), b45, 0xf8);
        }
        const __m512i pair = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)(sb + 32)));
        b->sca = _mm512_srai_epi32(_mm512_slli_epi32(pair, 16), 16);
        b->scb = _mm512_srai_epi32(pair, 16);
        b->zpair = _mm512_mullo_epi16(pair, _mm512_set1_epi16(-32));
    }
}

/* One row-block: the dots, then as much of the integer and float steps as the stage asks. */
BUDGET_TARGET __m512 budget_row(budget_kind kind, budget_stage stage, const budget_wblock *b, const uint8_t *ar, __m512 acc) {
    const uint8_t *aq = ar + 8;
    const int with_int = stage >= BUDGET_INT, with_float = stage >= BUDGET_FLOAT;
    const int bias_start = with_int && (kind == BUDGET_Q4_0 || kind == BUDGET_Q8_0 || kind == BUDGET_IQ4_XS);
    __m512i s0 = bias_start ? _mm512_set1_epi32(budget_ld32(ar + 4)) : _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    if (kind == BUDGET_Q6_K) { /* two halves of 16 elements, each a chain */
        for (int c = 0; c < 4; c++) {
            s0 = _mm512_dpbusd_epi32(s0, b->w[c], _mm512_set1_epi32(budget_ld32(aq + 4 * c)));
            s1 = _mm512_dpbusd_epi32(s1, b->w[c + 4], _mm512_set1_epi32(budget_ld32(aq + 16 + 4 * c)));
        }
    } else {
        for (int c = 0; c < 8; c += 2) {
            s0 = _mm512_dpbusd_epi32(s0, b->w[c], _mm512_set1_epi32(budget_ld32(aq + 4 * c)));
            s1 = _mm512_dpbusd_epi32(s1, b->w[c + 1], _mm512_set1_epi32(budget_ld32(aq + 4 * c + 4)));
        }
    }
    __m512i isum = _mm512_add_epi32(s0, s1), imin = isum;
    if (with_int) {
        const __m512i sums = _mm512_set1_epi32(budget_ld32(ar + 4));
        if (kind == BUDGET_IQ4_XS)
            isum = _mm512_mullo_epi32(b->sc, isum);
        if (kind == BUDGET_Q4_K) {
            isum = _mm512_mullo_epi32(b->sc, isum);
            imin = _mm512_madd_epi16(sums, b->mpair);
        }
        if (kind == BUDGET_Q6_K)
            isum = _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(b->sca, s0), _mm512_mullo_epi32(b->scb, s1)),
                                    _mm512_madd_epi16(sums, b->zpair));
    }
    if (!with_float) /* keep the integer results live at the cost of one cheap op */
        return _mm512_castsi512_ps(
            _mm512_xor_si512(_mm512_castps_si512(acc), kind == BUDGET_Q4_K && with_int ? _mm512_xor_si512(isum, imin) : isum));
    float xd;
    memcpy(&xd, ar, 4);
    const __m512 vxd = _mm512_set1_ps(xd);
    acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(isum), _mm512_mul_ps(b->s, vxd), acc);
    if (kind == BUDGET_Q4_K)
        acc = _mm512_fmadd_ps(_mm512_cvtepi32_ps(imin), _mm512_mul_ps(b->t, vxd), acc);
    return acc;
}

/* BUDGET_PASSES passes over BUDGET_BLOCKS blocks of 8 rows; stages before
 * BUDGET_WEIGHTS unpack one block once and reuse it. Returns seconds. */
BUDGET_TARGET double budget_run(budget_kind kind, budget_stage stage, float *sink) {
    const int wb = budget_wbytes(kind);
    __m512 acc[8];
    for (int i = 0; i < 8; i++)
        acc[i] = _mm512_setzero_ps();
    budget_wblock fixed;
    budget_unpack(kind, w_buf, &fixed);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int p = 0; p < BUDGET_PASSES; p++) {
        for (int blk = 0; blk < BUDGET_BLOCKS; blk++) {
            budget_wblock b;
            if (stage == BUDGET_WEIGHTS)
                budget_unpack(kind, w_buf + (size_t)blk * (size_t)wb, &b);
            else
                b = fixed;
            const uint8_t *ab = act_buf + (size_t)blk * 8 * 40;
            for (int i = 0; i < 8; i++)
                acc[i] = budget_row(kind, stage, &b, ab + 40 * i, acc[i]);
        }
        __asm__ volatile("" ::: "memory"); /* the passes are not one loop to the compiler */
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    for (int i = 0; i < 8; i++)
        *sink += _mm512_reduce_add_ps(acc[i]);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* Best of 5 runs of one mix: kind and stage constants in every instance. */
BUDGET_TARGET double budget_best_of(budget_kind kind, budget_stage stage, float *sink) {
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        const double t = budget_run(kind, stage, sink);
        best = t < best ? t : best;
    }
    return best;
}

BUDGET_TARGET double budget_stage_time(budget_kind kind, budget_stage stage, float *sink) {
    switch (stage) {
    case BUDGET_DOTS: return budget_best_of(kind, BUDGET_DOTS, sink);
    case BUDGET_INT: return budget_best_of(kind, BUDGET_INT, sink);
    case BUDGET_FLOAT: return budget_best_of(kind, BUDGET_FLOAT, sink);
    default: return budget_best_of(kind, BUDGET_WEIGHTS, sink);
    }
}

__attribute__((target(BUDGET_ISA), noinline)) static double budget_time(budget_kind kind, budget_stage stage, float *sink) {
    switch (kind) {
    case BUDGET_Q4_0: return budget_stage_time(BUDGET_Q4_0, stage, sink);
    case BUDGET_Q8_0: return budget_stage_time(BUDGET_Q8_0, stage, sink);
    case BUDGET_Q4_K: return budget_stage_time(BUDGET_Q4_K, stage, sink);
    case BUDGET_Q6_K: return budget_stage_time(BUDGET_Q6_K, stage, sink);
    default: return budget_stage_time(BUDGET_IQ4_XS, stage, sink);
    }
}

int main(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vl")) {
        printf("tile_budget_avx512: this CPU has no AVX-512 VNNI; nothing to measure\n");
        return 0;
    }
    /* small activations and scales: no overflow, no denormals, no NaN */
    uint32_t s = 1;
    for (size_t i = 0; i < sizeof act_buf; i++) {
        s = s * 1664525u + 1013904223u;
        act_buf[i] = (uint8_t)((s >> 24) & 0x3f);
    }
    for (size_t i = 0; i < sizeof w_buf; i++) {
        s = s * 1664525u + 1013904223u;
        w_buf[i] = (uint8_t)(s >> 24);
    }
    for (size_t b = 0; b < BUDGET_BLOCKS * 8; b++) { /* every row's xd: 2^-10 */
        const float xd = 0x1p-10f;
        memcpy(act_buf + 40 * b, &xd, 4);
    }
    for (size_t o = 0; o + 64 <= sizeof w_buf; o += 32) /* fp16 scales where any kind reads them: 2^-10 */
        for (int l = 0; l < 32; l += 2) {
            w_buf[o + (size_t)l] = 0x00;
            w_buf[o + (size_t)l + 1] = 0x14;
        }
    const double ghz = cycle_clock_ghz();
    float sink = 0;
    printf("clock %.2f GHz (dependent adds). Cycles per row-block (one row x 16 columns x 32 k: 8 vpdpbusd); the int8 roof\n"
           "of one 512-bit vpdpbusd a cycle is 8.0; %% = 8.0 / cycles.\n\n",
           ghz);
    printf("| type | dots | + int | + float | + weights (the tile step) | tile step %% of the roof |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < BUDGET_KINDS; k++) {
        double cyc[BUDGET_STAGES];
        for (int st = 0; st < BUDGET_STAGES; st++)
            cyc[st] =
                budget_time((budget_kind)k, (budget_stage)st, &sink) * ghz * 1e9 / ((double)BUDGET_PASSES * BUDGET_BLOCKS * 8);
        printf("| %s | %.2f | %.2f | %.2f | %.2f | %.0f%% |\n", kind_names[k], cyc[0], cyc[1], cyc[2], cyc[3], 800.0 / cyc[3]);
    }
    if (sink == 1.0f) /* keeps the results live */
        printf("\n");
    return 0;
}
