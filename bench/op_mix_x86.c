/* op_mix_x86: the throughput of the AVX2 int8 dot products' instruction
 * mixes on this core, ns and cycles per group of 32 products (one ymm). Not a
 * test and not a limit of `qmatmul bench`: a measuring tool for the question
 * "which exact formulation of a dot can be faster here?" (docs/performance.md,
 * stop 37: IQ4_NL's dot against Q4_0's).
 *
 *   ./build/op_mix_x86   (a CMake target on x86; or cc -O2 bench/op_mix_x86.c)
 *
 * Each mix runs in inline asm (the compiler cannot hoist or fuse it): four
 * accumulator chains, each group's temporaries written fresh, 8 groups per
 * iteration, best of 5 runs of 50 M iterations. The clock comes from a chain
 * of dependent scalar adds (one a cycle). */
#include <stdio.h>
#include <time.h>

#include "cycle_clock.h"

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define ITERS 50000000L

/* registers: ymm0-3 weights, ymm4-7 temporaries, ymm8-11 accumulators,
 * ymm12 the activation, ymm13 the int16 ones; %1 a 64-byte buffer */
#define T_0   "4"
#define T_1   "5"
#define T_2   "6"
#define T_3   "7"
#define A_0   "8"
#define A_1   "9"
#define A_2   "10"
#define A_3   "11"
#define W(i)  "%%ymm" #i
#define T(i)  "%%ymm" T_##i
#define A(i)  "%%ymm" A_##i
#define X     "%%ymm12"
#define ONES  "%%ymm13"
#define OP(s) s "\n\t"

/* the groups (i: the chain) */
#define Q4_0_DOT(i) OP("vpmaddubsw " X ", " W(i) ", " T(i)) OP("vpaddw " T(i) ", " A(i) ", " A(i))
#define WIDEN_DOT(i)                                                                                                             \
    OP("vpmaddubsw " X ", " W(i) ", " T(i)) OP("vpmaddwd " ONES ", " T(i) ", " T(i)) OP("vpaddd " T(i) ", " A(i) ", " A(i))
#define IQ4_NL_DOT(i)                                                                                                            \
    OP("vpsignb " X ", " W(i) ", " T(i))                                                                                         \
    OP("vpmaddubsw " T(i) ", " W(i) ", " T(i)) OP("vpmaddwd " ONES ", " T(i) ", " T(i)) OP("vpaddd " T(i) ", " A(i) ", " A(i))
#define XOR_SIGN_DOT(i)                                                                                                          \
    OP("vpxor " X ", " W(i) ", " T(i))                                                                                           \
    OP("vpsubb " W(i) ", " T(i) ", " T(i))                                                                                       \
    OP("vpmaddubsw " T(i) ", " W(i) ", " T(i)) OP("vpmaddwd " ONES ", " T(i) ", " T(i)) OP("vpaddd " T(i) ", " A(i) ", " A(i))
#define TWO_MUL_DOT(i)                                                                                                           \
    OP("vpmaddubsw " X ", " W(i) ", " T(i))                                                                                      \
    OP("vpaddw " T(i) ", " A(i) ", " A(i)) OP("vpmaddwd " ONES ", " W(i) ", " T(i)) OP("vpaddd " T(i) ", " A(i) ", " A(i))
#define BCAST_DOT(i) IQ4_NL_DOT(i) OP("vpbroadcastd (%1), " T(i))
#define LOAD_DOT(i)  IQ4_NL_DOT(i) OP("vmovdqu (%1), " T(i))

/* One line: a mix's best time over ITERS iterations of 8 groups. */
static void report(const char *name, double best_s, double ghz) {
    const double ns = best_s / ITERS / 8 * 1e9;
    printf("%-58s %6.3f ns %5.2f cycles\n", name, ns, ns * ghz);
}

#define FOUR(g) g(0) g(1) g(2) g(3)
#define RUN(name, g)                                                                                                             \
    do {                                                                                                                         \
        double best = 1e30;                                                                                                      \
        for (int r = 0; r < 5; r++) {                                                                                            \
            long n = ITERS;                                                                                                      \
            const double t0 = now_s();                                                                                           \
            __asm__ volatile("1:\n\t" FOUR(g) FOUR(g) "dec %0\n\tjnz 1b"                                                         \
                             : "+r"(n)                                                                                           \
                             : "r"(buf)                                                                                          \
                             : "memory", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9", "ymm10", "ymm11");                      \
            const double t = now_s() - t0;                                                                                       \
            best = t < best ? t : best;                                                                                          \
        }                                                                                                                        \
        report(name, best, ghz);                                                                                                 \
    } while (0)

int main(void) {
    static int buf[16] __attribute__((aligned(64)));
    const double ghz = cycle_clock_ghz();
    printf("clock %.2f GHz (dependent adds); per group of 32 int8 products:\n", ghz);
    RUN("vpmaddubsw + vpaddw (Q4_0: int16 accumulation)", Q4_0_DOT);
    RUN("vpmaddubsw + vpmaddwd + vpaddd", WIDEN_DOT);
    RUN("vpsignb + vpmaddubsw + vpmaddwd + vpaddd (IQ4_NL)", IQ4_NL_DOT);
    RUN("vpxor + vpsubb + vpmaddubsw + vpmaddwd + vpaddd", XOR_SIGN_DOT);
    RUN("vpmaddubsw + vpaddw + vpmaddwd + vpaddd", TWO_MUL_DOT);
    RUN("IQ4_NL's + vpbroadcastd from memory", BCAST_DOT);
    RUN("IQ4_NL's + vmovdqu from memory", LOAD_DOT);
    return 0;
}
