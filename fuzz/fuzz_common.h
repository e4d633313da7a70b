/* Shared by the libFuzzer targets: a context made once, a byte reader, and
 * exactly-sized aligned copies of the input (so ASan sees any over-read). */
#ifndef QMM_FUZZ_COMMON_H
#define QMM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qmatmul.h"

/* Stops the run with a crash libFuzzer reports (and saves the input). */
#define FUZZ_ASSERT(cond)                                                                                                        \
    do {                                                                                                                         \
        if (!(cond))                                                                                                             \
            __builtin_trap();                                                                                                    \
    } while (0)

/* Reads go here so they are not optimised away. */
static volatile uint8_t fuzz_sink;

static inline qmm_context *fuzz_ctx(int threads) {
    static qmm_context *ctx;
    if (!ctx) {
        qmm_options o;
        memset(&o, 0, sizeof o);
        o.n_threads = threads;
        o.flags = QMM_IGNORE_ENV;
        if (qmm_context_create(&o, &ctx) != QMM_OK)
            abort();
    }
    return ctx;
}

/* A 64-byte aligned copy of exactly size bytes (freed with free). */
static inline void *fuzz_copy(const uint8_t *data, size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? size : 1) != 0)
        abort();
    /* posix_memalign under ASan poisons exactly [p, p + size) */
    if (size)
        memcpy(p, data, size);
    return p;
}

typedef struct fuzz_in {
    const uint8_t *p;
    size_t n;
} fuzz_in;

static inline uint64_t fuzz_bytes(fuzz_in *in, int nbytes) {
    uint64_t v = 0;
    for (int i = 0; i < nbytes; i++) {
        v |= (uint64_t)(in->n ? *in->p : 0) << (8 * i);
        if (in->n) {
            in->p++;
            in->n--;
        }
    }
    return v;
}
static inline unsigned fuzz_u8(fuzz_in *in) { return (unsigned)fuzz_bytes(in, 1); }

#endif
