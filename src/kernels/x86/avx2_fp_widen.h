/* The AVX2 F16 / BF16 GEMM's one choice by micro-architecture: widen each
 * weight panel once into a thread-local fp32 copy that every row tile reads
 * (avx2_fp_body.h), or widen in the tiles at each use. Measured (fp_gemm_bench
 * --preset llama-3.2-1b, 2 threads, docs/performance.md):
 *  - Intel (a Sapphire Rapids running the AVX2 families, stop 29): vcvtph2ps
 *    takes a uop of the FMAs' port: the copy ran 4-9% faster at 128 rows;
 *  - AMD Zen 3 (stop 35): the conversions run on pipes the FMAs do not use
 *    and the tiles then read half the bytes from L2: widening in the tiles
 *    ran F16 at 94-98% of the FMA peak against 85-91% with the copy (BF16
 *    89-92% against 84-91%), m = 64 and 512.
 * Dispatch decides by CPU (src/registry/dispatch.c: the copy, but not on AMD
 * or Hygon processors) and hands the answer down here. */
#ifndef QMM_AVX2_FP_WIDEN_H
#define QMM_AVX2_FP_WIDEN_H

/* 1: widen each panel once into the copy (GEMMs of at least two row tiles,
 * k <= 4096); 0: widen in the tiles. */
int qmm_avx2fp_widen_copy(void);

/* Dispatch's answer for this CPU (until it gives one: 1). */
void qmm_avx2fp_set_widen_copy(int on);

/* For tests (both paths bit for bit on any x86 host): 0 or 1 forces the
 * choice, -1 restores dispatch's. Not for concurrent GEMMs. */
void qmm_avx2fp_force_widen_copy(int mode);

#endif
