/* tile_budget_amx: where the cycles of the AMX GEMM's tile step go, per
 * weight type, on this core. Not a test and not a limit of `qmatmul bench`:
 * a measuring tool for issue 47's question "where does each cycle of a tile
 * step go?" (docs/performance.md has the table and the command).
 *
 *   tile_budget_amx   (a CMake target on x86: build/tile_budget_amx; needs AMX-INT8 to run)
 *
 * The tile step of src/kernels/x86/amx_int8.h, per 16-row activation group,
 * 16-column panel and 32-block ("a block": 16 x 16 x 32 = 8192 multiply-adds):
 * load the A tile (16 rows x 32 bytes) and the B tile (8 x 64), TDPBSSD /
 * TDPBSUD into a zeroed C tile, TILESTORED its 16 x 16 int32 to a buffer,
 * then per row the reference's float step on the 16 dot products. This
 * program runs that mix on L1-resident data, one part at a time and whole,
 * and reports cycles per block:
 *   tile          the tile loads and the product (no store)
 *   + store       and TILESTORED right behind it, as the GEMM issues it
 *   + store late  the store a product later (the other C tile)
 *   float         the float steps alone, reading stored dot products
 *   batched       the whole step as the GEMM runs it now: 16 blocks' tile
 *                 instructions, then their float steps (signed B tiles)
 *   interleaved   the whole step as before e8e4a44: block t + 1's tile
 *                 instructions before block t's float steps, unsigned B tiles
 *                 and the zero point's vpaddd per row (Q4_0, Q8_0, IQ4_XS;
 *                 Q6_K also its vpmulld sub-scales and vpmaddwd zero point)
 * and, for the overlap question, TDPBSSD beside 32 independent register FMAs
 * against each alone. The clock comes from a chain of dependent scalar adds.
 * The roof: TDPBSSD with K = 64 does 16 x 16 x 64 in 16 cycles, 8 cycles per
 * block; an exact per-32 step uses K = 32 (each block's dot products apart).
 *
 * The mix is a copy, written from src/kernels/x86/amx_int8.h's tile (bench/
 * sees include/ only, so nothing ties the two). Change the tile, change its
 * mix here, and measure again before quoting the table. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cycle_clock.h"

#define BUDGET_ISA    "avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8"
#define BUDGET_TARGET __attribute__((target(BUDGET_ISA), always_inline)) static inline
#define BUDGET_NB     16 /* blocks per pass: the GEMM's k chunk */
#define BUDGET_PASSES 40000

typedef enum { BUDGET_Q4_0, BUDGET_Q4_K, BUDGET_Q6_K, BUDGET_IQ4_XS, BUDGET_KINDS } budget_kind;
typedef enum {
    BUDGET_TILE,
    BUDGET_STORE,
    BUDGET_STORE_LATE,
    BUDGET_FLOAT,
    BUDGET_BATCHED,
    BUDGET_INTERLEAVED,
    BUDGET_STAGES
} budget_stage;

/* Q8_0 runs Q4_0's tile step (its unpacking, once per panel and block for all
 * groups, is not in the step) */
static const char *const kind_names[BUDGET_KINDS] = {"Q4_0, Q8_0", "Q4_K", "Q6_K", "IQ4_XS"};

static uint8_t a_buf[BUDGET_NB][2][16 * 32] __attribute__((aligned(64))); /* A tiles (Q6_K: halves of 16 bytes) */
static uint8_t b_buf[BUDGET_NB][512] __attribute__((aligned(64)));        /* B tiles */
static int32_t c_buf[BUDGET_NB][2][256] __attribute__((aligned(64)));     /* dot products (Q6_K: two halves) */
static float xd_buf[BUDGET_NB][16] __attribute__((aligned(64)));          /* the rows' activation scales */
static float sum_buf[BUDGET_NB][16] __attribute__((aligned(64)));         /* the rows' block sums, as floats */
static float s_buf[BUDGET_NB][4][16] __attribute__((aligned(64)));        /* s, t, sub-scale(s) as floats */
static int32_t sc_buf[BUDGET_NB][2][16] __attribute__((aligned(64)));     /* Q6_K's integer sub-scales */

typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} budget_tilecfg;

/* C 0 / 6 (Q6_K: 0, 1 / 6, 7), A 2 (Q6_K: 2, 3), B 4 (Q6_K: 4, 5), as amx_int8.h */
__attribute__((target(BUDGET_ISA))) static void budget_configure(budget_kind kind) {
    budget_tilecfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    const int split = kind == BUDGET_Q6_K;
    for (int t = 0; t < (split ? 2 : 1); t++) {
        cfg.rows[t] = cfg.rows[6 + t] = 16;
        cfg.colsb[t] = cfg.colsb[6 + t] = 64;
        cfg.rows[2 + t] = 16;
        cfg.colsb[2 + t] = split ? 16 : 32;
        cfg.rows[4 + t] = split ? 4 : 8;
        cfg.colsb[4 + t] = 64;
    }
    __asm__ volatile("" : : "m"(cfg) : "memory"); /* GCC 12's _tile_loadconfig declares 8 bytes read: all 64 are */
    _tile_loadconfig(&cfg);
}

/* The tile instructions of block t into C set `set`; signed: TDPBSSD. */
BUDGET_TARGET void budget_mul(budget_kind kind, int set, int t, int is_signed) {
    const int split = kind == BUDGET_Q6_K;
    _tile_loadd(4, b_buf[t], 64);
    _tile_loadd(2, a_buf[t][0], split ? 16 : 32);
    if (split) {
        _tile_loadd(5, b_buf[t] + 256, 64);
        _tile_loadd(3, a_buf[t][1], 16);
    }
    if (set == 0 && is_signed) {
        _tile_zero(0);
        _tile_dpbssd(0, 2, 4);
        if (split) {
            _tile_zero(1);
            _tile_dpbssd(1, 3, 5);
        }
    } else if (is_signed) {
        _tile_zero(6);
        _tile_dpbssd(6, 2, 4);
        if (split) {
            _tile_zero(7);
            _tile_dpbssd(7, 3, 5);
        }
    } else if (set == 0) {
        _tile_zero(0);
        _tile_dpbsud(0, 2, 4);
        if (split) {
            _tile_zero(1);
            _tile_dpbsud(1, 3, 5);
        }
    } else {
        _tile_zero(6);
        _tile_dpbsud(6, 2, 4);
        if (split) {
            _tile_zero(7);
            _tile_dpbsud(7, 3, 5);
        }
    }
}

BUDGET_TARGET void budget_store(budget_kind kind, int set, int t) {
    if (set == 0) {
        _tile_stored(0, c_buf[t][0], 64);
        if (kind == BUDGET_Q6_K)
            _tile_stored(1, c_buf[t][1], 64);
    } else {
        _tile_stored(6, c_buf[t][0], 64);
        if (kind == BUDGET_Q6_K)
            _tile_stored(7, c_buf[t][1], 64);
    }
}

/* Block t's float steps for the 16 rows (amx_int8.h's qmm_amx_x_row /
 * qmm_amx_split_row; before: the zero point's vpaddd, Q6_K's integer
 * sub-scales). */
BUDGET_TARGET void budget_float(budget_kind kind, int t, int before, __m512 acc[16]) {
    const __m512 s = _mm512_load_ps(s_buf[t][0]), tm = _mm512_load_ps(s_buf[t][1]), sca = _mm512_load_ps(s_buf[t][2]),
                 scb = _mm512_load_ps(s_buf[t][3]);
    const __m512i sia = _mm512_load_si512((const void *)sc_buf[t][0]), sib = _mm512_load_si512((const void *)sc_buf[t][1]);
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) {
        const __m512 vxd = _mm512_set1_ps(xd_buf[t][i]);
        const __m512i da = _mm512_load_si512((const void *)(c_buf[t][0] + 16 * i));
        if (kind == BUDGET_Q6_K) {
            const __m512i db = _mm512_load_si512((const void *)(c_buf[t][1] + 16 * i));
            __m512 isum;
            if (before) {
                __m512i is = _mm512_add_epi32(_mm512_mullo_epi32(sia, da), _mm512_mullo_epi32(sib, db));
                is = _mm512_add_epi32(is, _mm512_madd_epi16(_mm512_set1_epi32((int)sum_buf[t][i]), sia));
                isum = _mm512_cvtepi32_ps(is);
            } else {
                isum = _mm512_fmadd_ps(_mm512_cvtepi32_ps(da), sca, _mm512_mul_ps(_mm512_cvtepi32_ps(db), scb));
            }
            acc[i] = _mm512_fmadd_ps(isum, _mm512_mul_ps(s, vxd), acc[i]);
            continue;
        }
        const int zp = kind != BUDGET_Q4_K && before; /* Q4_0, Q8_0, IQ4_XS before: + (-zp sum qx) */
        __m512 fi = _mm512_cvtepi32_ps(zp ? _mm512_add_epi32(da, _mm512_set1_epi32((int)sum_buf[t][i])) : da);
        if (kind != BUDGET_Q4_0)
            fi = _mm512_mul_ps(fi, sca);
        acc[i] = _mm512_fmadd_ps(fi, _mm512_mul_ps(s, vxd), acc[i]);
        if (kind == BUDGET_Q4_K)
            acc[i] = _mm512_fmadd_ps(_mm512_mul_ps(scb, _mm512_set1_ps(sum_buf[t][i])), _mm512_mul_ps(tm, vxd), acc[i]);
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

BUDGET_TARGET double budget_stage_time(budget_kind kind, budget_stage stage, float *sink) {
    __m512 acc[16];
    for (int i = 0; i < 16; i++)
        acc[i] = _mm512_setzero_ps();
    const int is_signed = stage != BUDGET_INTERLEAVED || kind == BUDGET_Q4_K ? kind != BUDGET_Q4_K : 0;
    const double t0 = now_s();
    for (int p = 0; p < BUDGET_PASSES; p++) {
        if (stage == BUDGET_TILE || stage == BUDGET_STORE) {
#pragma GCC unroll 1
            for (int t = 0; t < BUDGET_NB; t++) {
                budget_mul(kind, t & 1, t, is_signed);
                if (stage == BUDGET_STORE)
                    budget_store(kind, t & 1, t);
            }
        } else if (stage == BUDGET_STORE_LATE) {
            budget_mul(kind, 0, 0, is_signed);
#pragma GCC unroll 1
            for (int t = 1; t < BUDGET_NB; t++) {
                budget_mul(kind, t & 1, t, is_signed);
                budget_store(kind, (t - 1) & 1, t - 1);
            }
            budget_store(kind, (BUDGET_NB - 1) & 1, BUDGET_NB - 1);
        } else if (stage == BUDGET_FLOAT) {
            for (int t = 0; t < BUDGET_NB; t++)
                budget_float(kind, t, 0, acc);
        } else if (stage == BUDGET_BATCHED) {
#pragma GCC unroll 1
            for (int t = 0; t < BUDGET_NB; t++) {
                budget_mul(kind, t & 1, t, is_signed);
                budget_store(kind, t & 1, t);
            }
            for (int t = 0; t < BUDGET_NB; t++)
                budget_float(kind, t, 0, acc);
        } else { /* interleaved, as before (Q4_K: batched then too) */
            if (kind == BUDGET_Q4_K) {
#pragma GCC unroll 1
                for (int t = 0; t < BUDGET_NB; t++) {
                    budget_mul(kind, t & 1, t, 0);
                    budget_store(kind, t & 1, t);
                }
                for (int t = 0; t < BUDGET_NB; t++)
                    budget_float(kind, t, 1, acc);
                continue;
            }
            budget_mul(kind, 0, 0, 0);
            budget_store(kind, 0, 0);
            for (int t = 0; t < BUDGET_NB; t++) {
                if (t + 1 < BUDGET_NB) {
                    budget_mul(kind, (t + 1) & 1, t + 1, 0);
                    budget_store(kind, (t + 1) & 1, t + 1);
                }
                budget_float(kind, t, 1, acc);
            }
        }
    }
    const double dt = now_s() - t0;
    __m512 z = acc[0];
    for (int i = 1; i < 16; i++)
        z = _mm512_add_ps(z, acc[i]);
    *sink += _mm512_reduce_add_ps(z);
    return dt;
}

__attribute__((target(BUDGET_ISA), noinline)) static double budget_time(budget_kind kind, budget_stage stage, float *sink) {
    switch (kind) {
    case BUDGET_Q4_0: return budget_stage_time(BUDGET_Q4_0, stage, sink);
    case BUDGET_Q4_K: return budget_stage_time(BUDGET_Q4_K, stage, sink);
    case BUDGET_Q6_K: return budget_stage_time(BUDGET_Q6_K, stage, sink);
    default: return budget_stage_time(BUDGET_IQ4_XS, stage, sink);
    }
}

/* The overlap question: TDPBSSD (4 C tiles, no dependence) beside 32
 * independent register FMAs a block, against each alone. */
__attribute__((target(BUDGET_ISA), noinline)) static double budget_overlap(int tiles, int fmas, float *sink) {
    __m512 acc[16];
    for (int i = 0; i < 16; i++)
        acc[i] = _mm512_set1_ps(1.0f + (float)i);
    const __m512 mul = _mm512_set1_ps(0.999f), add = _mm512_set1_ps(0.001f);
    const double t0 = now_s();
    for (int p = 0; p < BUDGET_PASSES; p++)
#pragma GCC unroll 1
        for (int t = 0; t < BUDGET_NB; t++) {
            if (tiles) {
                if (t & 1)
                    _tile_dpbssd(6, 2, 4);
                else
                    _tile_dpbssd(0, 2, 4);
            }
            if (fmas)
#pragma GCC unroll 32
                for (int j = 0; j < 32; j++)
                    acc[j & 15] = _mm512_fmadd_ps(acc[j & 15], mul, add);
        }
    const double dt = now_s() - t0;
    __m512 z = acc[0];
    for (int i = 1; i < 16; i++)
        z = _mm512_add_ps(z, acc[i]);
    *sink += _mm512_reduce_add_ps(z);
    return dt;
}

__attribute__((target(BUDGET_ISA))) static void budget_release(void) { _tile_release(); }

int main(void) {
    __builtin_cpu_init();
    /* the kernel's permission for the tile data (Linux); without AMX-INT8 it fails or the check below does */
    const int perm = (int)syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */, 18 /* XTILEDATA */);
    unsigned eax, ebx, ecx, edx;
    __asm__("cpuid" : "=a"(eax), "=b"(ebx), "=c"(ecx), "=d"(edx) : "a"(7), "c"(0));
    if (perm != 0 || !(edx & (1u << 25)) || !__builtin_cpu_supports("avx512vnni")) { /* CPUID.7.0:EDX[25] AMX-INT8 */
        printf("tile_budget_amx: this CPU (or kernel) has no AMX-INT8; nothing to measure\n");
        return 0;
    }
    uint32_t s = 1; /* small activations and weights, scales 2^-10: no overflow, denormals or NaN */
    for (int t = 0; t < BUDGET_NB; t++) {
        for (int h = 0; h < 2; h++)
            for (size_t i = 0; i < sizeof a_buf[t][h]; i++) {
                s = s * 1664525u + 1013904223u;
                a_buf[t][h][i] = (uint8_t)((s >> 24) & 0x3f);
            }
        for (size_t i = 0; i < sizeof b_buf[t]; i++) {
            s = s * 1664525u + 1013904223u;
            b_buf[t][i] = (uint8_t)((s >> 24) & 0x3f);
        }
        for (int i = 0; i < 16; i++) {
            xd_buf[t][i] = 0x1p-10f;
            sum_buf[t][i] = (float)(i - 8);
        }
        for (int l = 0; l < 16; l++) {
            for (int j = 0; j < 4; j++)
                s_buf[t][j][l] = 0x1p-10f;
            sc_buf[t][0][l] = sc_buf[t][1][l] = 3;
        }
    }
    const double ghz = cycle_clock_ghz();
    float sink = 0;
    const double per_block = (double)BUDGET_PASSES * BUDGET_NB / (ghz * 1e9);
    printf("clock %.2f GHz (dependent adds). Cycles per block (16 rows x 16 columns x 32 k, L1-resident); the roof, one\n"
           "TDPBSSD of K = 64 in 16 cycles, is 8.0 a block; %% = 8.0 / cycles of the batched step.\n\n",
           ghz);
    printf("| type | tile | + store | + store late | float | interleaved (before) | batched (now) | batched %% of the roof |\n");
    printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (int k = 0; k < BUDGET_KINDS; k++) {
        double cyc[BUDGET_STAGES];
        budget_configure((budget_kind)k);
        for (int st = 0; st < BUDGET_STAGES; st++)
            cyc[st] = budget_time((budget_kind)k, (budget_stage)st, &sink) / per_block;
        printf("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f%% |\n", kind_names[k], cyc[BUDGET_TILE], cyc[BUDGET_STORE],
               cyc[BUDGET_STORE_LATE], cyc[BUDGET_FLOAT], cyc[BUDGET_INTERLEAVED], cyc[BUDGET_BATCHED],
               800.0 / cyc[BUDGET_BATCHED]);
    }
    budget_configure(BUDGET_Q4_0);
    const double both = budget_overlap(1, 1, &sink) / per_block, tiles = budget_overlap(1, 0, &sink) / per_block,
                 fmas = budget_overlap(0, 1, &sink) / per_block;
    printf("\nOverlap: TDPBSSD alone %.1f, 32 register FMAs alone %.1f, both %.1f cycles a block (sum %.1f).\n", tiles, fmas,
           both, tiles + fmas);
    budget_release();
    if (sink == 1.0f) /* keeps the results live */
        printf("\n");
    return 0;
}
