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
    static const int tq1[] = {52, -1}, tq2[] = {64, -1};
    switch (t) {
    case QMM_TYPE_IQ1_S:
    case QMM_TYPE_IQ2_XXS:
    case QMM_TYPE_IQ2_XS:
    case QMM_TYPE_IQ2_S:
    case QMM_TYPE_IQ3_XXS:
    case QMM_TYPE_IQ3_S:
    case QMM_TYPE_Q4_0:
    case QMM_TYPE_Q8_0:
    case QMM_TYPE_Q5_0:
    case QMM_TYPE_IQ4_NL:
    case QMM_TYPE_IQ4_XS: return d0;
    case QMM_TYPE_Q4_1:
    case QMM_TYPE_Q5_1:
    case QMM_TYPE_Q4_K:
    case QMM_TYPE_Q5_K: return dm0;
    case QMM_TYPE_Q2_K: return q2k;
    case QMM_TYPE_Q3_K: return q3k;
    case QMM_TYPE_Q6_K: return q6k;
    case QMM_TYPE_TQ1_0: return tq1;
    case QMM_TYPE_TQ2_0: return tq2;
    default: return NULL; /* IQ1_M: its d is scattered, qmm_test_iq1_m_d */
    }
}

/* IQ1_M's fp16 d lives in the top nibbles of its 4 little-endian scale words
 * (bytes 48..55): set it to h. */
static inline void qmm_test_iq1_m_set_d(uint8_t *blk, uint16_t h) {
    for (int i = 0; i < 4; i++)
        blk[49 + 2 * i] = (uint8_t)((blk[49 + 2 * i] & 0x0fu) | (((h >> (4 * i)) & 0x0fu) << 4));
}

/* A quarter of the grid types' super-blocks with every sub-scale at its
 * largest (the integer sums' extremes). */
static inline void qmm_test_iq_max_scales(qmm_type t, uint8_t *blk) {
    switch (t) {
    case QMM_TYPE_IQ2_XXS:
        for (int j = 0; j < 8; j++)
            blk[2 + 8 * j + 7] |= 0xf0u;
        break;
    case QMM_TYPE_IQ3_XXS:
        for (int j = 0; j < 8; j++)
            blk[66 + 4 * j + 3] |= 0xf0u;
        break;
    case QMM_TYPE_IQ2_XS: memset(blk + 66, 0xff, 8); break;
    case QMM_TYPE_IQ2_S: memset(blk + 74, 0xff, 8); break;
    case QMM_TYPE_IQ3_S: memset(blk + 106, 0xff, 4); break;
    case QMM_TYPE_IQ1_S:
        for (int j = 0; j < 8; j++)
            blk[34 + 2 * j + 1] |= 0x70u;
        break;
    case QMM_TYPE_IQ1_M:
        for (int i = 0; i < 4; i++) {
            blk[48 + 2 * i] = 0xff;
            blk[49 + 2 * i] |= 0x0fu;
        }
        break;
    default: break;
    }
}

/* Fills n rows of k elements of type t with random valid blocks. moderate:
 * fp16 fields of magnitude in [2^-12, 2^1) (positive for the d of types with
 * a min, as real models have), MXFP4 scales 2^-13..2^0, BF16 values of
 * magnitude 2^-20..2^4, for error-bound tests; else any finite value (zero,
 * subnormal, 65504, either sign; every E8M0 byte, a quarter of the blocks at
 * its extremes 0, 1, 254, 255; IQ4_XS: a quarter of the super-blocks with every
 * sub-scale -32 or 31; the i-quant grid types: a quarter with every sub-scale
 * at its largest; BF16: every finite bit pattern). */
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
        const uint64_t r = qmm_test_rand_u64(seed);
        if (t == QMM_TYPE_MXFP4) {
            static const uint8_t ext[4] = {0, 1, 254, 255};
            blk[0] = moderate ? (uint8_t)(127 - 12 + r % 14) : r % 4 == 0 ? ext[(r >> 8) % 4] : blk[0];
        } else if (t == QMM_TYPE_IQ4_XS && !moderate && r % 4 == 0) {
            const int hi = (r >> 8) & 1; /* sub-scales all 31 (stored 63) or all -32 (stored 0) */
            memset(blk + 2, hi ? 0xff : 0x00, 6);
        } else if (t == QMM_TYPE_IQ1_M) {
            uint16_t h = (uint16_t)r;
            if (moderate)
                h = (uint16_t)((h & 0x03ffu) | ((3u + (h >> 10) % 13u) << 10));
            else if ((h & 0x7c00u) == 0x7c00u)
                h &= 0xbfffu;
            qmm_test_iq1_m_set_d(blk, h);
            if (!moderate && (r >> 16) % 4 == 0)
                qmm_test_iq_max_scales(t, blk);
        } else if (qmm_type_is_iq_grid(t) && !moderate && r % 4 == 0) {
            qmm_test_iq_max_scales(t, blk);
        } else if (t == QMM_TYPE_BF16) {
            uint16_t h;
            memcpy(&h, blk, 2);
            if (moderate)
                h = (uint16_t)((h & 0x807fu) | ((107u + (h >> 7) % 24u) << 7));
            else if ((h & 0x7f80u) == 0x7f80u)
                h &= 0xbfffu; /* inf / NaN -> finite */
            memcpy(blk, &h, 2);
        }
    }
}

#endif
