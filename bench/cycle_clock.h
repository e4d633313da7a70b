/* The core clock the cycle-counting tools (op_mix_x86.c, tile_budget_avx512.c,
 * tile_budget_amx.c) divide by: a chain of dependent register adds, one a
 * cycle, 4 an iteration, best of 5. Register adds, not add of an immediate:
 * Golden Cove folds immediate-add chains at rename (they read 14 GHz). */
#ifndef QMM_BENCH_CYCLE_CLOCK_H
#define QMM_BENCH_CYCLE_CLOCK_H

#include <time.h>

static inline double cycle_clock_ghz(void) {
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        long n = 100000000L, x = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        __asm__ volatile("1:\n\tadd %1, %1\n\tadd %1, %1\n\tadd %1, %1\n\tadd %1, %1\n\tdec %0\n\tjnz 1b" : "+r"(n), "+r"(x));
        clock_gettime(CLOCK_MONOTONIC, &t1);
        const double t = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        best = t < best ? t : best;
    }
    return 4.0 * 100000000.0 / best / 1e9;
}

#endif
