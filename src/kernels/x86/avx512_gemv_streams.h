/* How many weight streams the AVX-512 int8 GEMVs (avx512_int8.h) read at once
 * per thread: 2 (QMM_AVX512_GEMV_NP panels interleaved, each prefetched by
 * software) or 1 (one panel at a time; the plain layouts leave prefetching
 * to the hardware, the x layouts keep theirs and prefetch a short panel's
 * successor into L2: QMM_AVX512_GEMV_FAR_MAX). A choice per CPU that
 * selection by features cannot make: dispatch tells it. */
#ifndef QMM_KERNELS_X86_AVX512_GEMV_STREAMS_H
#define QMM_KERNELS_X86_AVX512_GEMV_STREAMS_H

/* 1 or 2: the forced count if any, else dispatch's (until it gives one: 2). */
int qmm_avx512_gemv_streams(void);

/* Dispatch's answer for this CPU: 1, or 2 for anything else. */
void qmm_avx512_set_gemv_streams(int streams);

/* For tests (both ways bit for bit on any host): 1 or 2 forces the count,
 * 0 restores dispatch's. Not for concurrent GEMVs. */
void qmm_avx512_force_gemv_streams(int streams);

#endif
