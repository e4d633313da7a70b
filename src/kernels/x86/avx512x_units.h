/* Each x kind's GGUF unit (block or super-block) <-> lane of a panel chunk of
 * the x-family layout (avx512_int8.h): put packs GGUF unit u of a source row
 * into lane r of a zeroed chunk, get writes lane r back as the GGUF unit's
 * bytes (put's exact inverse: the lane keeps every bit of the unit), which
 * GET_ROWS dequantizes (ggml's values exactly). Shared by the AVX-512 VNNI
 * families (matmul_<type>_avx512vnni.c) and the AMX ones
 * (matmul_<type>_amx.c), which read the same panels. */
#ifndef QMM_X86_AVX512X_UNITS_H
#define QMM_X86_AVX512X_UNITS_H

#include "kernels/x86/avx512_int8.h"

/* GGUF's 16 nibble bytes of a 32-block <-> lane r of the block's quant bytes
 * qb (the kinds whose q is a nibble: Q4_0, Q4_1, the table kinds). */
static inline void qmm_avx512x_put_nibbles(qmm_avx512x_kind kind, const uint8_t qs[QMM_QK / 2], uint8_t *qb, int r) {
    uint8_t q[QMM_QK];
    qmm_q4_nibbles_get(qs, q);
    qmm_avx512x_put_q(kind, qb, r, q);
}

static inline void qmm_avx512x_get_nibbles(qmm_avx512x_kind kind, const uint8_t *qb, int r, uint8_t qs[QMM_QK / 2]) {
    uint8_t q[QMM_QK];
    qmm_avx512x_get_q(kind, qb, r, q);
    qmm_q4_nibbles_put(q, qs);
}

/* Q4_0: the x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (288 bytes = 16 x 18, GGUF's own bytes): fp16 d[16], the
 * unsigned q (0..15) as Q4_0-form nibbles. The zero point 8 is the dot chain's
 * start, -8 sum qx, so the int32 sum is exactly sum (q - 8) qx, as the
 * reference's. Used by the AMX family (amx_q4_0); the AVX-512 VNNI family
 * avx512vnni_q4_0 keeps its own panels (avx512_int8.h's Q4 kind). */
static inline void qmm_avx512x_put_q4_0(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q4_0 *blk = (const qmm_block_q4_0 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    qmm_avx512x_put_nibbles(QMM_AVX512X_Q4_0, blk->qs, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_0), r);
}

static inline void qmm_avx512x_get_q4_0(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q4_0 blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    qmm_avx512x_get_nibbles(QMM_AVX512X_Q4_0, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_0), r, blk.qs);
    memcpy(dst, &blk, sizeof blk);
}

/* Q8_0: the x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (544 bytes = 16 x 34, GGUF's size): fp16 d[16], then u = q + 128
 * (0..255) as whole bytes, vector c holding elements 4c..4c+3 of each row (the
 * unsigned operand of vpdpbusd / TDPBSUD). The zero point 128 is the dot
 * chain's start, -128 sum qx, so the int32 sum is exactly sum q qx. Used by the
 * AMX family (amx_q8_0); avx512vnni_q8_0, its fallback, keeps its own panels. */
static inline void qmm_avx512x_put_q8_0(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q8_0 *blk = (const qmm_block_q8_0 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    uint8_t q[QMM_QK];
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)(blk->qs[l] + 128);
    qmm_avx512x_put_q(QMM_AVX512X_Q8_0, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q8_0), r, q);
}

static inline void qmm_avx512x_get_q8_0(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q8_0 blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    uint8_t q[QMM_QK];
    qmm_avx512x_get_q(QMM_AVX512X_Q8_0, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q8_0), r, q);
    for (int l = 0; l < QMM_QK; l++)
        blk.qs[l] = (int8_t)(q[l] - 128);
    memcpy(dst, &blk, sizeof blk);
}

/* Q4_1: the x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (320 bytes = 16 x 20): fp16 d[16], fp16 m[16], the nibbles in
 * Q4_0's form. isum = sum q qx (no bias: q is unsigned); the min step's
 * imin is the activation block's sum (one vpmaddwd of its int16 halves). */
static inline void qmm_avx512x_put_q4_1(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q4_1 *blk = (const qmm_block_q4_1 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    memcpy(chunk + 32 + 2 * r, &blk->m, 2);
    uint8_t q[QMM_QK];
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)qmm_q4_1_q(blk, l);
    qmm_avx512x_put_q(QMM_AVX512X_Q4_1, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_1), r, q);
}

static inline void qmm_avx512x_get_q4_1(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q4_1 blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    memcpy(&blk.m, chunk + 32 + 2 * r, 2);
    qmm_avx512x_get_nibbles(QMM_AVX512X_Q4_1, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_1), r, blk.qs);
    memcpy(dst, &blk, sizeof blk);
}

/* Q5_0: the x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (352 bytes = 16 x 22): fp16 d[16], the unsigned q (0..31) as
 * Q4_0-form nibbles and a bit-4 plane. The zero point 16 is the dot chain's
 * start, -16 sum qx (one vpmaddwd of the activation's int16 sums), so the
 * int32 sum is exactly sum (q - 16) qx. */
static inline void qmm_avx512x_put_q5_0(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q5_0 *blk = (const qmm_block_q5_0 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    uint8_t q[QMM_QK];
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)(qmm_q5_0_q(blk, l) + 16);
    qmm_avx512x_put_q(QMM_AVX512X_Q5_0, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_0), r, q);
}

static inline void qmm_avx512x_get_q5_0(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q5_0 blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    uint8_t q[QMM_QK];
    qmm_avx512x_get_q(QMM_AVX512X_Q5_0, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_0), r, q);
    qmm_q4_nibbles_put(q, blk.qs);
    qmm_q5_high_bits_put(q, blk.qh);
    memcpy(dst, &blk, sizeof blk);
}

/* Q5_1: the x-family layout of avx512_int8.h, one unit per 32-element block and
 * 16-row panel (384 bytes = 16 x 24): fp16 d[16], fp16 m[16], the unsigned q
 * (0..31) as Q4_0-form nibbles and a bit-4 plane. isum = sum q qx; the min
 * step's imin is the activation block's sum. */
static inline void qmm_avx512x_put_q5_1(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q5_1 *blk = (const qmm_block_q5_1 *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    memcpy(chunk + 32 + 2 * r, &blk->m, 2);
    uint8_t q[QMM_QK];
    for (int l = 0; l < QMM_QK; l++)
        q[l] = (uint8_t)qmm_q5_1_q(blk, l);
    qmm_avx512x_put_q(QMM_AVX512X_Q5_1, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_1), r, q);
}

static inline void qmm_avx512x_get_q5_1(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q5_1 blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    memcpy(&blk.m, chunk + 32 + 2 * r, 2);
    uint8_t q[QMM_QK];
    qmm_avx512x_get_q(QMM_AVX512X_Q5_1, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_1), r, q);
    qmm_q4_nibbles_put(q, blk.qs);
    qmm_q5_high_bits_put(q, blk.qh);
    memcpy(dst, &blk, sizeof blk);
}

/* Q2_K: the x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (1344 bytes = 16 x 84, the GGUF size): fp16 d[16], fp16
 * dmin[16], GGUF's scale bytes (sc | m << 4 per 16 elements) as
 * u8 [8][16][2] (32-block j, row r, half a/b), then per 32-block two 2-bit
 * planes of q. Per 32-block: two dot chains (elements 0..15, 16..31), each
 * times its 4-bit scale by vpmulld; the min step's imin = -(m_a sum_a qx +
 * m_b sum_b qx) is one vpmaddwd of the activation's int16 sums by (-m_a, -m_b). */
static inline void qmm_avx512x_put_q2_k(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q2_k *blk = (const qmm_block_q2_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    memcpy(chunk + 32 + 2 * r, &blk->dmin, 2);
    for (int j = 0; j < 8; j++) {
        chunk[64 + 32 * j + 2 * r] = blk->scales[2 * j];
        chunk[64 + 32 * j + 2 * r + 1] = blk->scales[2 * j + 1];
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q2_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(QMM_AVX512X_Q2_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q2_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q2_K), r,
                          q);
    }
}

static inline void qmm_avx512x_get_q2_k(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q2_k blk; /* put's exact inverse: the GGUF block */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    memcpy(&blk.dmin, chunk + 32 + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        blk.scales[2 * j] = chunk[64 + 32 * j + 2 * r];
        blk.scales[2 * j + 1] = chunk[64 + 32 * j + 2 * r + 1];
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(QMM_AVX512X_Q2_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q2_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q2_K), r,
                          q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, s = (e % 128) / 32;
            blk.qs[32 * h + l] |= (uint8_t)(q[l] << (2 * s));
        }
    }
    memcpy(dst, &blk, sizeof blk);
}

/* Q3_K: the x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (1792 bytes = 16 x 110 + 32 zero bytes aligning the
 * quants: +1.8%): fp16 d[16], the 16 stored 6-bit scales (signed + 32) kept
 * 6-bit, regrouped so that a 32-block's two scales of all 16 rows are two
 * 16-byte loads (decoded per block in the tile: as bytes they would be +3.6%),
 * then per 32-block the unsigned u = q + 4 (0..7) as Q2_K's two 2-bit planes
 * plus a bit-2 plane (GGUF's hmask). Per 32-block, two dot chains (elements
 * 0..15 and 16..31), each times its scale by vpmulld, and the zero point 4 as
 * one vpmaddwd of the int16 activation sums by (-4 sc_a, -4 sc_b):
 * isum = sc_a sum_a q qx + sc_b sum_b q qx exactly. */
static inline void qmm_avx512x_put_q3_k(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q3_k *blk = (const qmm_block_q3_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++) {
        const int sa = qmm_q3_k_scale(blk->scales, 2 * j) + 32, sb = qmm_q3_k_scale(blk->scales, 2 * j + 1) + 32;
        chunk[32 + 16 * j + r] = (uint8_t)((sa & 0x0f) | (sb & 0x0f) << 4);
        chunk[160 + 16 * (j / 2) + r] |= (uint8_t)(((sa >> 4) | (sb >> 4) << 2) << (4 * (j % 2)));
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)(qmm_q3_k_q(blk, 32 * j + l) + 4);
        qmm_avx512x_put_q(QMM_AVX512X_Q3_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q3_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q3_K), r,
                          q);
    }
}

static inline void qmm_avx512x_get_q3_k(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q3_k blk; /* put's exact inverse: the GGUF block */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        const int lo = chunk[32 + 16 * j + r], hi = chunk[160 + 16 * (j / 2) + r] >> (4 * (j % 2));
        for (int h = 0; h < 2; h++) { /* the inverse of qmm_q3_k_scale */
            const int i = 2 * j + h, st = ((lo >> (4 * h)) & 0x0f) | ((hi >> (2 * h)) & 3) << 4;
            blk.scales[i % 8] |= (uint8_t)((st & 0x0f) << (4 * (i / 8)));
            blk.scales[8 + i % 4] |= (uint8_t)((st >> 4) << (2 * (i / 4)));
        }
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(QMM_AVX512X_Q3_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q3_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q3_K), r,
                          q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, s = (e % 128) / 32;
            blk.qs[32 * h + l] |= (uint8_t)((q[l] & 3) << (2 * s));
            blk.hmask[l] |= (uint8_t)(((q[l] >> 2) & 1) << j);
        }
    }
    memcpy(dst, &blk, sizeof blk);
}

/* Q4_K: the x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (2368 bytes = 16 x 148, the GGUF block is 144): fp16 d[16],
 * fp16 dmin[16], the 6-bit sc and m of the 8 32-blocks as bytes
 * (u8 sc[8][16], u8 m[8][16]), then per 32-block the nibbles in Q4_0's form
 * (the GGUF super-block keeps 32-block 2c + h in nibble h of qs[32c..]).
 * Per 32-block j: isum = sc_j * (sum q qx) by one vpmulld, imin = -m_j sum qx
 * by one vpmaddwd against the block's two int16 sums. */
static inline void qmm_avx512x_put_q4_k(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q4_k *blk = (const qmm_block_q4_k *)src_row + u;
    qmm_avx512x_put_k_header(chunk, r, blk->d, blk->dmin, blk->scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q4_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(QMM_AVX512X_Q4_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q4_K), r,
                          q);
    }
}

static inline void qmm_avx512x_get_q4_k(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q4_k blk; /* put's exact inverse: the GGUF block */
    memset(&blk, 0, sizeof blk);
    qmm_avx512x_get_k_header(chunk, r, &blk.d, &blk.dmin, blk.scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(QMM_AVX512X_Q4_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q4_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q4_K), r,
                          q);
        for (int l = 0; l < QMM_QK; l++)
            blk.qs[32 * (j / 2) + l] |= (uint8_t)(q[l] << (4 * (j % 2)));
    }
    memcpy(dst, &blk, sizeof blk);
}

/* Q5_K: as Q4_K (above), with a bit-4 plane after each
 * 32-block's nibbles: one unit per super-block and 16-row panel is 2880 bytes
 * = 16 x 180 (the GGUF block is 176). */
static inline void qmm_avx512x_put_q5_k(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q5_k *blk = (const qmm_block_q5_k *)src_row + u;
    qmm_avx512x_put_k_header(chunk, r, blk->d, blk->dmin, blk->scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)qmm_q5_k_q(blk, 32 * j + l);
        qmm_avx512x_put_q(QMM_AVX512X_Q5_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q5_K), r,
                          q);
    }
}

static inline void qmm_avx512x_get_q5_k(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q5_k blk; /* put's exact inverse: the GGUF block */
    memset(&blk, 0, sizeof blk);
    qmm_avx512x_get_k_header(chunk, r, &blk.d, &blk.dmin, blk.scales);
    for (int j = 0; j < 8; j++) {
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(QMM_AVX512X_Q5_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q5_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q5_K), r,
                          q);
        for (int l = 0; l < QMM_QK; l++) {
            blk.qs[32 * (j / 2) + l] |= (uint8_t)((q[l] & 0x0f) << (4 * (j % 2)));
            blk.qh[l] |= (uint8_t)(((q[l] >> 4) & 1) << j);
        }
    }
    memcpy(dst, &blk, sizeof blk);
}

/* Q6_K: the x-family layout of avx512_int8.h, one unit per 256-element super-block
 * and 16-row panel (3392 bytes = 16 x 210 + 32 zero bytes aligning the
 * quants): fp16 d[16], 32 zero bytes, the int8 scales as GGUF has them per
 * 16 elements (int8 sc[8][16][2]: 32-block j, row r, half a/b), then per
 * 32-block the unsigned q (0..63) as Q4_0-form nibbles plus two 2-bit
 * planes for bits 4-5. Per 32-block, two dot chains (elements 0..15 and
 * 16..31), each times its int8 scale by vpmulld, and the zero point 32 as
 * one vpmaddwd of the int16 activation sums by (-32 sc_a, -32 sc_b):
 * isum = sc_a sum_a (q - 32) qx + sc_b sum_b (q - 32) qx exactly. */
static inline void qmm_avx512x_put_q6_k(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_q6_k *blk = (const qmm_block_q6_k *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++) {
        chunk[64 + 32 * j + 2 * r] = (uint8_t)blk->scales[2 * j];
        chunk[64 + 32 * j + 2 * r + 1] = (uint8_t)blk->scales[2 * j + 1];
        uint8_t q[QMM_QK];
        for (int l = 0; l < QMM_QK; l++)
            q[l] = (uint8_t)(qmm_q6_k_q(blk, 32 * j + l) + 32);
        qmm_avx512x_put_q(QMM_AVX512X_Q6_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q6_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q6_K), r,
                          q);
    }
}

static inline void qmm_avx512x_get_q6_k(const uint8_t *chunk, int r, void *dst) {
    qmm_block_q6_k blk; /* put's exact inverse: the GGUF block */
    memset(&blk, 0, sizeof blk);
    memcpy(&blk.d, chunk + 2 * r, 2);
    for (int j = 0; j < 8; j++) {
        blk.scales[2 * j] = (int8_t)chunk[64 + 32 * j + 2 * r];
        blk.scales[2 * j + 1] = (int8_t)chunk[64 + 32 * j + 2 * r + 1];
        uint8_t q[QMM_QK];
        qmm_avx512x_get_q(QMM_AVX512X_Q6_K, chunk + QMM_AVX512X_HDR(QMM_AVX512X_Q6_K) + j * QMM_AVX512X_QB(QMM_AVX512X_Q6_K), r,
                          q);
        for (int l = 0; l < QMM_QK; l++) {
            const int e = 32 * j + l, h = e / 128, rr = e % 128;
            blk.ql[64 * h + rr % 64] |= (uint8_t)((q[l] & 0x0f) << (4 * (rr / 64)));
            blk.qh[32 * h + rr % 32] |= (uint8_t)((q[l] >> 4) << (2 * (rr / 32)));
        }
    }
    memcpy(dst, &blk, sizeof blk);
}

/* IQ4_NL: the x-family layout of avx512_int8.h, one unit per 32-element block
 * and 16-row panel (288 bytes = 16 x 18, GGUF's size): fp16 d[16], the table
 * indices q (0..15) as Q4_0-form nibbles. qmm_avx512x_load_w looks them up
 * into kv[q] + 128; the zero point 128 starts the dot chain, so the int32 sum
 * is exactly sum kv[q] qx. */
static inline void qmm_avx512x_put_iq4_nl(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_iq4_nl *blk = (const qmm_block_iq4_nl *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    qmm_avx512x_put_nibbles(QMM_AVX512X_IQ4_NL, blk->qs, chunk + QMM_AVX512X_HDR(QMM_AVX512X_IQ4_NL), r);
}

static inline void qmm_avx512x_get_iq4_nl(const uint8_t *chunk, int r, void *dst) {
    qmm_block_iq4_nl blk; /* put's exact inverse: the GGUF block */
    memcpy(&blk.d, chunk + 2 * r, 2);
    qmm_avx512x_get_nibbles(QMM_AVX512X_IQ4_NL, chunk + QMM_AVX512X_HDR(QMM_AVX512X_IQ4_NL), r, blk.qs);
    memcpy(dst, &blk, sizeof blk);
}

/* MXFP4: the x-family layout of avx512_int8.h, one unit per 32-element block
 * and 16-row panel (272 bytes = 16 x 17, GGUF's size): u8 e[16] (the E8M0
 * bytes), the E2M1 codes q (0..15) as Q4_0-form nibbles. qmm_avx512x_load_w
 * looks them up into kv2[q] + 128 (the doubled E2M1 values); the zero point
 * 128 starts the dot chain, so the int32 sum is exactly sum kv2[q] qx, then
 * fma((float)isum, 2^(e - 128) x_d, acc) as the reference. */
static inline void qmm_avx512x_put_mxfp4(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_mxfp4 *blk = (const qmm_block_mxfp4 *)src_row + u;
    chunk[r] = blk->e;
    qmm_avx512x_put_nibbles(QMM_AVX512X_MXFP4, blk->qs, chunk + QMM_AVX512X_HDR(QMM_AVX512X_MXFP4), r);
}

static inline void qmm_avx512x_get_mxfp4(const uint8_t *chunk, int r, void *dst) {
    qmm_block_mxfp4 blk; /* put's exact inverse: the GGUF block */
    blk.e = chunk[r];
    qmm_avx512x_get_nibbles(QMM_AVX512X_MXFP4, chunk + QMM_AVX512X_HDR(QMM_AVX512X_MXFP4), r, blk.qs);
    memcpy(dst, &blk, sizeof blk);
}

/* IQ4_XS: the x-family layout of avx512_int8.h, one unit per 256-element
 * super-block and 16-row panel (2208 bytes = 16 x 138, +1.5% on GGUF's 136):
 * fp16 d[16], int8 ls[8][16] (32-block j, row r: the signed sub-scale
 * -32..31), then per 32-block the table indices as Q4_0-form nibbles. Per
 * 32-block isum = ls_j (sum (kv[q] + 128) qx - 128 sum qx) = ls_j sum kv[q] qx,
 * exact, then the reference's one step fma((float)isum, d x_d, acc). */
static inline void qmm_avx512x_put_iq4_xs(const void *src_row, int64_t u, int r, uint8_t *chunk) {
    const qmm_block_iq4_xs *blk = (const qmm_block_iq4_xs *)src_row + u;
    memcpy(chunk + 2 * r, &blk->d, 2);
    for (int j = 0; j < 8; j++) {
        chunk[32 + 16 * j + r] = (uint8_t)(int8_t)qmm_iq4_xs_scale(blk, j);
        qmm_avx512x_put_nibbles(QMM_AVX512X_IQ4_XS, blk->qs + 16 * j, chunk + 160 + 256 * j, r);
    }
}

static inline void qmm_avx512x_get_iq4_xs(const uint8_t *chunk, int r, void *dst) {
    qmm_block_iq4_xs blk; /* put's exact inverse: the GGUF block */
    qmm_iq4_xs_header_put(&blk, chunk + 2 * r, chunk + 32 + r, 16);
    for (int j = 0; j < 8; j++)
        qmm_avx512x_get_nibbles(QMM_AVX512X_IQ4_XS, chunk + 160 + 256 * j, r, blk.qs + 16 * j);
    memcpy(dst, &blk, sizeof blk);
}

#endif
