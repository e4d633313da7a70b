/* Panel formats of the NEON K-quant families (Q2_K, Q3_K, Q4_K, Q5_K; dotprod and i8mm): packers and GET_ROWS
 * readers. Static inline, so each family's translation unit compiles them with its own target flags.
 *
 * A panel holds 4 weight rows (n_step = 4, as neon_common.h). Per 256-element super-block, a header, then the 8
 * 32-blocks' quants ("units"). Every element is stored as an unsigned u (Q2_K, Q4_K, Q5_K: q itself; Q3_K:
 * q + 4, 0..7) at the place the 8-vector int8 image of a 32-block would give it: element t of row r is byte
 * pos = qmm_neon_pos(arrangement, r, t) of 128, i.e. vector c = pos / 16, byte b = pos % 16 (ROWS4: vector c =
 * elements 4c..4c+3 of the 4 rows; PAIRS: smmla operands; in both, vectors 0..3 are elements 0..15, the first
 * 16-sub-block, and 4..7 elements 16..31). A unit holds the low B bits (B = 4: Q4_K/Q5_K, B = 2: Q2_K/Q3_K) of u
 * in B vectors, vector c's at vector c % B, bits B * (c / B); then, for Q5_K/Q3_K, bit B of u as a 16-byte bit
 * plane (byte b, bit c). So the kernel gets vector c by one shift and mask, plus one shift and mask of the plane.
 *
 * Headers (fp16 values kept as they are, widened exactly by fcvtl in the kernel; [r] = row r of the panel):
 *   Q4_K, Q5_K: d[4], dmin[4] (fp16), then per 32-block j 8 bytes: sc_j[4], m_j[4] (the 6-bit values unpacked)
 *   Q2_K:       d[4], dmin[4] (fp16), then per 32-block j 8 bytes: the GGUF scale bytes of 16-sub-blocks 2j [4]
 *               and 2j + 1 [4] (low nibble sc, high nibble m)
 *   Q3_K:       d[4] (fp16), then the 12 GGUF scale bytes, byte i at 4 i + r (the packed 6-bit scales, decoded
 *               in the kernel: bytes 0..3, 4..7 and 8..11 are each one 16-byte vector)
 * Sizes per super-block and panel (GGUF: 4 rows x 144 / 176 / 84 / 110): Q4_K 592 (+2.8%), Q5_K 720 (+2.3%),
 * Q2_K 336 and Q3_K 440 (the GGUF size). */
#ifndef QMM_NEON_K_QUANT_H
#define QMM_NEON_K_QUANT_H

#include "kernels/arm/neon_common.h"

/* Per kind (Q2_K, Q3_K, Q4_K, Q5_K): header bytes, low bits per element, whether a bit plane follows them, unit
 * bytes, super-block bytes of a panel, and bytes per 32-block (the driver's; a super-block is 8 of them). */
static inline int qmm_neon_kq_hdr(qmm_type kind) { return kind == QMM_TYPE_Q3_K ? 56 : 80; }
static inline int qmm_neon_kq_bits(qmm_type kind) { return kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q3_K ? 2 : 4; }
static inline int qmm_neon_kq_plane(qmm_type kind) { return kind == QMM_TYPE_Q3_K || kind == QMM_TYPE_Q5_K; }
static inline int qmm_neon_kq_unit(qmm_type kind) { return 16 * qmm_neon_kq_bits(kind) + 16 * qmm_neon_kq_plane(kind); }
static inline size_t qmm_neon_kq_sb(qmm_type kind) { return (size_t)(qmm_neon_kq_hdr(kind) + 8 * qmm_neon_kq_unit(kind)); }
static inline size_t qmm_neon_kq_blk(qmm_type kind) { return qmm_neon_kq_sb(kind) / 8; }

static inline void qmm_neon_kq_put(qmm_type kind, int arrangement, uint8_t *unit, int r, int t, unsigned u) {
    const int bits = qmm_neon_kq_bits(kind);
    const size_t pos = qmm_neon_pos(arrangement, r, t);
    const int c = (int)(pos / 16), b = (int)(pos % 16);
    unit[16 * (c % bits) + b] |= (uint8_t)((u & ((1u << bits) - 1u)) << (bits * (c / bits)));
    if (qmm_neon_kq_plane(kind))
        unit[16 * bits + b] |= (uint8_t)(((u >> bits) & 1u) << c);
}

static inline unsigned qmm_neon_kq_get(qmm_type kind, int arrangement, const uint8_t *unit, int r, int t) {
    const int bits = qmm_neon_kq_bits(kind);
    const size_t pos = qmm_neon_pos(arrangement, r, t);
    const int c = (int)(pos / 16), b = (int)(pos % 16);
    unsigned u = (unit[16 * (c % bits) + b] >> (bits * (c / bits))) & ((1u << bits) - 1u);
    if (qmm_neon_kq_plane(kind))
        u |= ((unit[16 * bits + b] >> c) & 1u) << bits;
    return u;
}

/* Row r of a panel super-block hdr + units from one GGUF super-block (NULL: a padding row, all zero). */
static inline void qmm_neon_kq_put_row(qmm_type kind, int arrangement, uint8_t *sb, int r, const void *gb) {
    uint8_t *unit0 = sb + qmm_neon_kq_hdr(kind);
    if (!gb)
        return; /* the panel was zeroed */
    uint16_t d, dmin = 0;
    switch (kind) {
    case QMM_TYPE_Q2_K: {
        const qmm_block_q2_k *b = (const qmm_block_q2_k *)gb;
        d = b->d;
        dmin = b->dmin;
        for (int j = 0; j < 8; j++) {
            sb[16 + 8 * j + r] = b->scales[2 * j];
            sb[16 + 8 * j + 4 + r] = b->scales[2 * j + 1];
        }
        for (int l = 0; l < QMM_QK_K; l++)
            qmm_neon_kq_put(kind, arrangement, unit0 + (l / 32) * qmm_neon_kq_unit(kind), r, l % 32, (unsigned)qmm_q2_k_q(b, l));
        break;
    }
    case QMM_TYPE_Q3_K: {
        const qmm_block_q3_k *b = (const qmm_block_q3_k *)gb;
        d = b->d;
        for (int i = 0; i < 12; i++)
            sb[8 + 4 * i + r] = b->scales[i];
        for (int l = 0; l < QMM_QK_K; l++)
            qmm_neon_kq_put(kind, arrangement, unit0 + (l / 32) * qmm_neon_kq_unit(kind), r, l % 32,
                            (unsigned)(qmm_q3_k_q(b, l) + 4));
        break;
    }
    default: { /* Q4_K, Q5_K: the same header */
        const uint8_t *scales =
            kind == QMM_TYPE_Q4_K ? ((const qmm_block_q4_k *)gb)->scales : ((const qmm_block_q5_k *)gb)->scales;
        d = kind == QMM_TYPE_Q4_K ? ((const qmm_block_q4_k *)gb)->d : ((const qmm_block_q5_k *)gb)->d;
        dmin = kind == QMM_TYPE_Q4_K ? ((const qmm_block_q4_k *)gb)->dmin : ((const qmm_block_q5_k *)gb)->dmin;
        for (int j = 0; j < 8; j++) {
            int sc, m;
            qmm_k_scale_min(scales, j, &sc, &m);
            sb[16 + 8 * j + r] = (uint8_t)sc;
            sb[16 + 8 * j + 4 + r] = (uint8_t)m;
        }
        for (int l = 0; l < QMM_QK_K; l++) {
            const int q =
                kind == QMM_TYPE_Q4_K ? qmm_q4_k_q((const qmm_block_q4_k *)gb, l) : qmm_q5_k_q((const qmm_block_q5_k *)gb, l);
            qmm_neon_kq_put(kind, arrangement, unit0 + (l / 32) * qmm_neon_kq_unit(kind), r, l % 32, (unsigned)q);
        }
        break;
    }
    }
    memcpy(sb + 2 * r, &d, 2);
    if (kind != QMM_TYPE_Q3_K)
        memcpy(sb + 8 + 2 * r, &dmin, 2);
}

static inline void qmm_neon_kq_pack(qmm_type kind, int arrangement, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src,
                                    size_t src_row_stride, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    const size_t gbytes = kind == QMM_TYPE_Q2_K   ? sizeof(qmm_block_q2_k)
                          : kind == QMM_TYPE_Q3_K ? sizeof(qmm_block_q3_k)
                          : kind == QMM_TYPE_Q4_K ? sizeof(qmm_block_q4_k)
                                                  : sizeof(qmm_block_q5_k);
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_NEON_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_neon_w_offset(qmm_neon_kq_blk(kind), p0, k);
        memset(panel, 0, (size_t)nsb * qmm_neon_kq_sb(kind));
        for (int64_t s = 0; s < nsb; s++)
            for (int r = 0; r < QMM_NEON_NR; r++) {
                const void *gb = p0 + r < n ? (const char *)src + (size_t)(p0 + r) * src_row_stride + (size_t)s * gbytes : NULL;
                qmm_neon_kq_put_row(kind, arrangement, panel + (size_t)s * qmm_neon_kq_sb(kind), r, gb);
            }
    }
}

/* Element l's u (qmm_neon_kq_put's: Q3_K q + 4, else q) ORed into a zeroed GGUF super-block: the bit placement of
 * qmm_q2_k_q ... qmm_q5_k_q. */
static inline void qmm_neon_kq_gguf_put(qmm_type kind, void *gb, int l, unsigned u) {
    if (kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q3_K) {
        uint8_t *qs = kind == QMM_TYPE_Q2_K ? ((qmm_block_q2_k *)gb)->qs : ((qmm_block_q3_k *)gb)->qs;
        qs[32 * (l / 128) + l % 32] |= (uint8_t)((u & 3u) << (2 * ((l / 32) % 4)));
        if (kind == QMM_TYPE_Q3_K) /* a set hmask bit is q >= 0, i.e. u >= 4 */
            ((qmm_block_q3_k *)gb)->hmask[l % 32] |= (uint8_t)((u >> 2) << (l / 32));
    } else {
        uint8_t *qs = kind == QMM_TYPE_Q4_K ? ((qmm_block_q4_k *)gb)->qs : ((qmm_block_q5_k *)gb)->qs;
        qs[32 * (l / 64) + l % 32] |= (uint8_t)((u & 15u) << (4 * ((l / 32) % 2)));
        if (kind == QMM_TYPE_Q5_K)
            ((qmm_block_q5_k *)gb)->qh[l % 32] |= (uint8_t)((u >> 4) << (l / 32));
    }
}

/* Row r of a panel super-block back as its GGUF super-block gb (zeroed by the caller): qmm_neon_kq_put_row's
 * inverse. Every field survives packing: Q2_K's and Q3_K's scale bytes as they are, Q4_K's / Q5_K's 6-bit sc and m
 * unpacked into bytes, whose 12-byte packing qmm_k_scale_min_put redoes bit for bit. */
static inline void qmm_neon_kq_get_row(qmm_type kind, int arrangement, const uint8_t *sb, int r, void *gb) {
    const uint8_t *unit0 = sb + qmm_neon_kq_hdr(kind);
    switch (kind) {
    case QMM_TYPE_Q2_K: {
        qmm_block_q2_k *b = (qmm_block_q2_k *)gb;
        memcpy(&b->d, sb + 2 * r, 2);
        memcpy(&b->dmin, sb + 8 + 2 * r, 2);
        for (int j = 0; j < 8; j++) {
            b->scales[2 * j] = sb[16 + 8 * j + r];
            b->scales[2 * j + 1] = sb[16 + 8 * j + 4 + r];
        }
        break;
    }
    case QMM_TYPE_Q3_K: {
        qmm_block_q3_k *b = (qmm_block_q3_k *)gb;
        memcpy(&b->d, sb + 2 * r, 2);
        for (int i = 0; i < 12; i++)
            b->scales[i] = sb[8 + 4 * i + r];
        break;
    }
    case QMM_TYPE_Q4_K: {
        qmm_block_q4_k *b = (qmm_block_q4_k *)gb;
        memcpy(&b->d, sb + 2 * r, 2);
        memcpy(&b->dmin, sb + 8 + 2 * r, 2);
        for (int j = 0; j < 8; j++)
            qmm_k_scale_min_put(b->scales, j, sb[16 + 8 * j + r], sb[16 + 8 * j + 4 + r]);
        break;
    }
    default: {
        qmm_block_q5_k *b = (qmm_block_q5_k *)gb;
        memcpy(&b->d, sb + 2 * r, 2);
        memcpy(&b->dmin, sb + 8 + 2 * r, 2);
        for (int j = 0; j < 8; j++)
            qmm_k_scale_min_put(b->scales, j, sb[16 + 8 * j + r], sb[16 + 8 * j + 4 + r]);
        break;
    }
    }
    for (int l = 0; l < QMM_QK_K; l++)
        qmm_neon_kq_gguf_put(kind, gb, l,
                             qmm_neon_kq_get(kind, arrangement, unit0 + (l / 32) * qmm_neon_kq_unit(kind), r, l % 32));
}

/* w_unpack_row: the row's GGUF super-blocks back, as bytes. */
static inline void qmm_neon_kq_unpack(qmm_type kind, int arrangement, const void *packed, int64_t k, int64_t row, void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    const uint8_t *panel = (const uint8_t *)packed + qmm_neon_w_offset(qmm_neon_kq_blk(kind), row, k);
    union {
        qmm_block_q2_k q2;
        qmm_block_q3_k q3;
        qmm_block_q4_k q4;
        qmm_block_q5_k q5;
    } g;
    const size_t gbytes = kind == QMM_TYPE_Q2_K   ? sizeof g.q2
                          : kind == QMM_TYPE_Q3_K ? sizeof g.q3
                          : kind == QMM_TYPE_Q4_K ? sizeof g.q4
                                                  : sizeof g.q5;
    for (int64_t s = 0; s < nsb; s++) {
        memset(&g, 0, sizeof g);
        qmm_neon_kq_get_row(kind, arrangement, panel + (size_t)s * qmm_neon_kq_sb(kind), (int)(row % QMM_NEON_NR), &g);
        memcpy((uint8_t *)dst + (size_t)s * gbytes, &g, gbytes);
    }
}

#endif
