/* Random valid GGUF blocks of the quantized types the library only
 * dequantizes and multiplies (random bytes, every fp16 field finite), the
 * weight generator of the kernel and mul_mat tests. */
#ifndef QMM_TEST_WEIGHTS_H
#define QMM_TEST_WEIGHTS_H

#include "formats/formats.h"
#include "test_util.h"

/* Byte offsets of a block's fp16 fields (at most 2, -1 ends), or NULL when
 * the type is not one of these. */
static inline const int *qmm_test_fp16_fields(qmm_type t) {
    static const int d0[] = {0, -1}, dm0[] = {0, 2}, q2k[] = {80, 82}, q3k[] = {108, -1}, q6k[] = {208, -1};
    switch (t) {
    case QMM_TYPE_Q4_0:
    case QMM_TYPE_Q8_0:
    case QMM_TYPE_Q5_0: return d0;
    case QMM_TYPE_Q4_1:
    case QMM_TYPE_Q5_1:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: return dm0;
    case QMM_TYPE_Q2_K: return q2k;
    case QMM_TYPE_Q3_K: return q3k;
    case QMM_TYPE_Q6_K: return q6k;
    default: return NULL;
    }
}

/* Fills n rows of k elements of type t with random valid blocks. moderate:
 * fp16 fields of magnitude in [2^-12, 2^1) (positive for the d of types with
 * a min, as real models have), for error-bound tests; else any finite value
 * (zero, subnormal, 65504, either sign). */
static inline void qmm_test_random_blocks(qmm_type t, int64_t k, int64_t n, void *dst, int moderate, uint64_t *seed) {
    const size_t bb = qmm_type_block_bytes(t), nblk = (size_t)(k / qmm_type_block_elems(t)) * (size_t)n;
    const int *f = qmm_test_fp16_fields(t);
    uint8_t *p = (uint8_t *)dst;
    for (size_t b = 0; b < nblk; b++) {
        uint8_t *blk = p + b * bb;
        for (size_t i = 0; i < bb; i++)
            blk[i] = (uint8_t)qmm_test_rand_u64(seed);
        for (int i = 0; f && i < 2 && f[i] >= 0; i++) {
            uint16_t h = (uint16_t)qmm_test_rand_u64(seed);
            if (moderate)
                h = (uint16_t)((h & (i == 0 ? 0x03ffu : 0x83ffu)) | ((3u + (h >> 10) % 13u) << 10));
            else if ((h & 0x7c00u) == 0x7c00u)
                h &= 0xbfffu; /* inf / NaN -> finite */
            memcpy(blk + f[i], &h, 2);
        }
    }
}

#endif
