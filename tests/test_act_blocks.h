/* Activation blocks at the bottom of the float range, for the tests that check
 * qmm_act_quantize_block's tiny-block path (amax > 0, amax / 127 <= 2^-128:
 * 1 / d would overflow, or d underflow) and the SIMD packers against it. */
#ifndef QMM_TEST_ACT_BLOCKS_H
#define QMM_TEST_ACT_BLOCKS_H

#include <math.h>

#include "test_util.h"

#define QMM_TEST_TINY_KINDS 11

/* Fills v[32] with a block of kind `kind` (0 <= kind < QMM_TEST_TINY_KINDS). */
static inline void qmm_test_tiny_block(float *v, int kind, uint64_t *seed) {
    for (int j = 0; j < 32; j++)
        v[j] = qmm_test_rand_f(seed);
    switch (kind) {
    case 0: /* normal values, 1 / d overflows: the 7.8x case of ggml's formula */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1p-124f;
        break;
    case 1: /* subnormal values: d underflows to a few ulps or 0 */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1p-140f;
        break;
    case 2: /* integer multiples of the smallest subnormal: stored d rounded up */
        for (int j = 0; j < 32; j++)
            v[j] = (float)(j - 16) * 0x1p-149f;
        break;
    case 3: /* magnitudes spread over 2^-149 .. 2^-122 within one block */
        for (int j = 0; j < 32; j++)
            v[j] = ldexpf(v[j], -(int)(qmm_test_rand_u64(seed) % 28) - 122);
        break;
    case 4: /* amax / 127 == 2^-128 exactly: the top of the tiny path */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1.fcp-122f;
        v[(int)(qmm_test_rand_u64(seed) % 32)] = -0x1.fcp-122f;
        break;
    case 5: /* d just above 2^-128 (subnormal, 1 / d finite): ggml's formula */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1.fcp-122f;
        v[(int)(qmm_test_rand_u64(seed) % 32)] = 0x1.fc04p-122f;
        break;
    case 6: /* mixed magnitudes: one normal value among subnormal ones */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1p-135f;
        v[(int)(qmm_test_rand_u64(seed) % 32)] = 3.5f;
        break;
    case 7: /* tiny with a NaN (skipped, quantizes to 0) and signed zeros */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1p-130f;
        v[3] = NAN;
        v[4] = -0.0f;
        v[5] = 0.0f;
        break;
    case 8: /* one smallest subnormal: d = 2^-149, q = 1 */
        for (int j = 0; j < 32; j++)
            v[j] = 0.0f;
        v[(int)(qmm_test_rand_u64(seed) % 32)] = 0x1p-149f;
        break;
    case 9: /* exact ties: d = 2^-141, x / d = k + 1/2 */
        for (int j = 0; j < 32; j++)
            v[j] = (float)(2 * (j - 16) + 1) * 0x1p-142f;
        v[0] = 127.0f * 0x1p-141f;
        break;
    default: /* just below the threshold, negative maximum */
        for (int j = 0; j < 32; j++)
            v[j] *= 0x1.fbp-122f;
        v[31] = -0x1.fbp-122f;
        break;
    }
}

#endif
