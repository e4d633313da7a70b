/* qmatmul bench: random weights in GGUF layout (the presets have no file). */
#include <stdlib.h>
#include <string.h>

#include "bench_internal.h"

uint64_t bench_rng(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

float bench_rngf(uint64_t *s) { return (float)((double)(bench_rng(s) >> 40) * 0x1p-24 * 2.0 - 1.0); }

/* Quantized blocks get plausible scales (around 0.01) over random codes,
 * which is all a kernel sees. */
static void fix_blocks(qmm_type t, uint8_t *p, size_t size, uint64_t *seed) {
    const size_t bb = qmm_type_block_bytes(t), nb = size / bb;
    /* byte offsets of the block's fp16 fields: d, and dmin / m where there is one */
    int f0 = 0, f1 = -1;
    if (t == QMM_TYPE_Q4_1 || t == QMM_TYPE_Q5_1 || t == QMM_TYPE_Q4_K || t == QMM_TYPE_Q5_K)
        f1 = 2;
    else if (t == QMM_TYPE_Q2_K)
        f0 = 80, f1 = 82;
    else if (t == QMM_TYPE_Q3_K)
        f0 = 108;
    else if (t == QMM_TYPE_Q6_K)
        f0 = 208;
    else if (t == QMM_TYPE_TQ1_0)
        f0 = 52;
    else if (t == QMM_TYPE_TQ2_0)
        f0 = 64;
    const float base = t == QMM_TYPE_Q4_0 || t == QMM_TYPE_Q8_0 ? 0.005f : 0.0005f; /* others: sub-scales or mins add up */
    for (size_t i = 0; i < nb; i++) {
        for (int f = 0; f < 2; f++) {
            const int off = f ? f1 : f0;
            if (off < 0)
                continue;
            const uint16_t d = qmm_fp32_to_fp16(base + 2 * base * (float)(bench_rng(seed) >> 40) * 0x1p-24f);
            memcpy(p + i * bb + off, &d, 2);
        }
        if (t == QMM_TYPE_Q8_0)
            for (size_t j = 2; j < bb; j++)
                if (p[i * bb + j] == 0x80) /* keep q in [-127, 127], as quantizers do */
                    p[i * bb + j] = 0x81;
    }
}

void *bench_make_source(qmm_type t, int64_t k, int64_t n, uint64_t *seed, size_t *size) {
    const size_t rb = qmm_row_size(t, k);
    *size = rb * (size_t)n;
    uint8_t *p = malloc(*size ? *size : 1);
    if (!p)
        return NULL;
    const size_t words = *size / 8;
    uint64_t *w = (uint64_t *)p;
    for (size_t i = 0; i < words; i++)
        w[i] = bench_rng(seed);
    for (size_t i = words * 8; i < *size; i++)
        p[i] = (uint8_t)bench_rng(seed);
    if (t == QMM_TYPE_Q4_0 || t == QMM_TYPE_Q8_0 || t == QMM_TYPE_IQ1_S || t == QMM_TYPE_IQ2_XXS || t == QMM_TYPE_IQ2_XS ||
        t == QMM_TYPE_IQ2_S || t == QMM_TYPE_IQ3_XXS || t == QMM_TYPE_IQ3_S || t == QMM_TYPE_TQ1_0 || t == QMM_TYPE_TQ2_0) {
        fix_blocks(t, p, *size, seed); /* IQ1_M's d is scattered over its scales: random bits do */
    } else if (t == QMM_TYPE_F16) {
        uint16_t *h = (uint16_t *)p;
        for (size_t i = 0; i < *size / 2; i++)
            h[i] = qmm_fp32_to_fp16(bench_rngf(seed));
    } else if (t == QMM_TYPE_BF16) { /* the top half of an fp32 in [-1, 1): no NaN, inf or subnormal */
        uint16_t *h = (uint16_t *)p;
        for (size_t i = 0; i < *size / 2; i++) {
            const float f = bench_rngf(seed);
            uint32_t u;
            memcpy(&u, &f, 4);
            h[i] = (uint16_t)(u >> 16);
        }
    } else if (t == QMM_TYPE_MXFP4) { /* E8M0 scales 2^-10..2^-7 over random codes */
        for (size_t i = 0; i < *size; i += 17)
            p[i] = (uint8_t)(118 + bench_rng(seed) % 4);
    } else if (t == QMM_TYPE_F32) {
        float *f = (float *)p;
        for (size_t i = 0; i < *size / 4; i++)
            f[i] = bench_rngf(seed);
    }
    return p;
}
