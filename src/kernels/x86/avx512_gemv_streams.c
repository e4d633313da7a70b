/* The AVX-512 int8 GEMVs' stream count (avx512_int8.h), chosen per CPU by
 * dispatch (src/registry/dispatch.c), forced by tests. */
#include <stdatomic.h>

#include "kernels/x86/avx512_gemv_streams.h"

static atomic_int gemv_streams_forced = -1;
static atomic_int gemv_streams_told = 2; /* dispatch's answer */

int qmm_avx512_gemv_streams(void) {
    const int forced = atomic_load_explicit(&gemv_streams_forced, memory_order_relaxed);
    return forced > 0 ? forced : atomic_load_explicit(&gemv_streams_told, memory_order_relaxed);
}

void qmm_avx512_set_gemv_streams(int streams) {
    atomic_store_explicit(&gemv_streams_told, streams == 1 ? 1 : 2, memory_order_relaxed);
}

void qmm_avx512_force_gemv_streams(int streams) {
    atomic_store_explicit(&gemv_streams_forced, streams < 1 ? -1 : streams == 1 ? 1 : 2, memory_order_relaxed);
}
