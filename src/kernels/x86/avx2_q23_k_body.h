/* Q2_K and Q3_K x int8 activations, 256-bit integer dot products: the format
 * code shared by the AVX2 families (matmul_q2_k_avx2.c, matmul_q3_k_avx2.c)
 * and the AVX-VNNI families (matmul_q2_k_avxvnni.c, matmul_q3_k_avxvnni.c),
 * on the AVX2 int8 driver (avx2_int8_body.h), every function taking the kind
 * (QMM_TYPE_Q2_K or QMM_TYPE_Q3_K) and, where they differ, the isa as
 * constants. On AVX2 the dot steps leave int16 pair sums (vpmaddubsw), which
 * the float steps widen by vpmaddwd against the scales (Q2_K everywhere,
 * Q3_K in the expanded GEMM), not dot_finish and vpmulld. Both have
 * 2-bit low quants and a scale per 16 elements; Q3_K adds a third bit and
 * signed 6-bit scales, Q2_K has 4-bit scales and 4-bit mins.
 *
 * The dot runs over the unsigned u (Q2_K: q, 0..3; Q3_K: q + 4, 0..7), one
 * int32 lane per row and two chains per block (elements 0..15 and 16..31,
 * each 4 steps: AVX2's int16 pair sums stay below 4 * 2 * 7 * 127 = 7112).
 *
 * Packed panel of 8 weight rows, per super-block of 256, the GGUF size exactly
 * (Q2_K 672 B, Q3_K 880 B):
 *   Q2_K: [8 fp16 d][8 fp16 dmin]                                       32 B
 *         [16 x 8 u8 GGUF scale bytes (sc | m << 4): sub-block s, row j
 *          at 8 s + j]                                                   128 B
 *   Q3_K: [8 fp16 d]                                                     16 B
 *         [8 x 8 u8: 32-block i, row j at 8 i + j: low 4 bits of stored
 *          scale 2i | those of 2i+1 << 4]                                64 B
 *         [4 x 8 u8: row j at 8 (i / 2) + j, nibble i % 2: top 2 bits of
 *          stored scale 2i | those of 2i+1 << 2]                         32 B
 *   (the scales stay 6-bit packed: as bytes they would be +3.6% over GGUF);
 *   then per 32-block i, [L 32 B][H 32 B], byte j * 4 + t bits 2c..2c+1: the
 *   low two bits of element 4c+t (L) / 16+4c+t (H) of row j, and for Q3_K
 *   [T 32 B]: byte j * 4 + t, bit c: bit 2 of u (GGUF's hmask bit) of element
 *   4c+t, bit 4+c of element 16+4c+t.
 * Float step, the reference's exactly, with sa / sb the activation's sums of
 * elements 0..15 / 16..31 and da / db the two dots:
 *   Q2_K: isum = sc_a da + sc_b db, acc = fma((float)isum, d * x_d, acc),
 *         imin = -(m_a sa + m_b sb), acc = fma((float)imin, dmin * x_d, acc);
 *   Q3_K: isum = sc_a (da - 4 sa) + sc_b (db - 4 sb) (sc = stored - 32),
 *         acc = fma((float)isum, d * x_d, acc);
 * every integer exact in int32 (|isum| <= 520192). */
#ifndef QMM_X86_AVX2_Q23_K_BODY_H
#define QMM_X86_AVX2_Q23_K_BODY_H

#include "kernels/x86/avx2_int8_types.h"
#include "kernels/x86/avx2_pair16.h"

QMM_AVX2_INLINE int qmm_avx2_q23_k_kind(qmm_type kind) { return kind == QMM_TYPE_Q2_K || kind == QMM_TYPE_Q3_K; }

QMM_AVX2_INLINE int qmm_avx2_q23_k_q3(qmm_type kind) { return kind == QMM_TYPE_Q3_K; }

/* Q2_K on AVX2: every float step multiplies the int16 pair sums by the
 * scales as int16 pairs (vpmaddwd), so its block scales are only those */
QMM_AVX2_INLINE int qmm_avx2_q23_k_pair_float(qmm_type kind, qmm_avx2_isa isa) {
    return kind == QMM_TYPE_Q2_K && isa == QMM_AVX2_ISA_AVX2;
}

/* Where a super-block's quants start, a 32-block's quant bytes, a
 * super-block's bytes. */
QMM_AVX2_INLINE int qmm_avx2_q23_k_qs_off(qmm_type kind) { return qmm_avx2_q23_k_q3(kind) ? 112 : 160; }
QMM_AVX2_INLINE int qmm_avx2_q23_k_qb(qmm_type kind) { return qmm_avx2_q23_k_q3(kind) ? 96 : 64; }
QMM_AVX2_INLINE int qmm_avx2_q23_k_sb_bytes(qmm_type kind) { return qmm_avx2_q23_k_qs_off(kind) + 8 * qmm_avx2_q23_k_qb(kind); }

QMM_AVX2_INLINE size_t qmm_avx2_q23_k_panel_bytes(qmm_type kind, int64_t nb) {
    return (size_t)nb / 8 * (size_t)qmm_avx2_q23_k_sb_bytes(kind);
}

QMM_AVX2_INLINE size_t qmm_avx2_q23_k_quants(qmm_type kind, int64_t b) {
    return (size_t)b / 8 * (size_t)qmm_avx2_q23_k_sb_bytes(kind) + (size_t)qmm_avx2_q23_k_qs_off(kind) +
           (size_t)(b % 8) * (size_t)qmm_avx2_q23_k_qb(kind);
}

QMM_AVX2_INLINE void qmm_avx2_q23_k_unpack(qmm_type kind, qmm_avx2_wv *wv, const uint8_t *panel, int64_t b, int c) {
    const uint8_t *q = panel + qmm_avx2_q23_k_quants(kind, b);
    const __m256i m2 = _mm256_set1_epi8(0x03);
    /* 16-bit shifts: what crosses a byte lands outside the masks */
    wv->v[0] = _mm256_and_si256(_mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)q), 2 * c), m2);
    wv->v[1] = _mm256_and_si256(_mm256_srli_epi16(_mm256_loadu_si256((const __m256i *)(q + 32)), 2 * c), m2);
    if (qmm_avx2_q23_k_q3(kind)) {
        /* bit c to bit 2 (low elements), bit 4+c to bit 2 (high ones) */
        const __m256i t = _mm256_loadu_si256((const __m256i *)(q + 64)), b2 = _mm256_set1_epi8(0x04);
        const __m256i tl = c <= 2 ? _mm256_slli_epi16(t, 2 - c) : _mm256_srli_epi16(t, c - 2);
        wv->v[0] = _mm256_or_si256(wv->v[0], _mm256_and_si256(tl, b2));
        wv->v[1] = _mm256_or_si256(wv->v[1], _mm256_and_si256(_mm256_srli_epi16(t, 2 + c), b2));
    }
}

/* The GEMV's scales (Q3_K, both isas): the 16 sub-block scales of a
 * super-block's 8 rows decoded at once, 32 bytes a vector, into signed
 * bytes (block i, row j: a[8 i + j] for 2i, b[8 i + j] for 2i + 1), where
 * per 32-block they took 12 vector ops for 16 scales. */
QMM_AVX2_INLINE void qmm_avx2_q3_k_sb_scales(qmm_avx2_sbs *s, const uint8_t *panel, int64_t b) {
    const uint8_t *sb = panel + (size_t)(b / 8) * (size_t)qmm_avx2_q23_k_sb_bytes(QMM_TYPE_Q3_K);
    s->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    const __m256i l0 = _mm256_loadu_si256((const __m256i *)(sb + 16)), l1 = _mm256_loadu_si256((const __m256i *)(sb + 48));
    const __m256i h = _mm256_loadu_si256((const __m256i *)(sb + 80)); /* 8 B per pair of blocks: nibble i % 2 */
    const __m256i m4 = _mm256_set1_epi8(0x0f), m2 = _mm256_set1_epi8(0x03), off = _mm256_set1_epi8(32);
    const __m256i hn0 = _mm256_and_si256(h, m4), hn1 = _mm256_and_si256(_mm256_srli_epi16(h, 4), m4);
    /* blocks (0, 1 | 4, 5) and (2, 3 | 6, 7), the low and high bits alike */
    const __m256i lo[2] = {_mm256_permute2x128_si256(l0, l1, 0x20), _mm256_permute2x128_si256(l0, l1, 0x31)};
    const __m256i hi[2] = {_mm256_unpacklo_epi64(hn0, hn1), _mm256_unpackhi_epi64(hn0, hn1)};
    __m256i sa[2], sb2[2];
    for (int t = 0; t < 2; t++) {
        /* 16-bit shifts: the masks keep each byte's own bits */
        sa[t] =
            _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(lo[t], m4), _mm256_slli_epi16(_mm256_and_si256(hi[t], m2), 4)), off);
        sb2[t] = _mm256_sub_epi8(_mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(lo[t], 4), m4),
                                                 _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(hi[t], 2), m2), 4)),
                                 off);
    }
    /* (0, 1 | 4, 5), (2, 3 | 6, 7) -> (0, 1, 2, 3), (4, 5, 6, 7) */
    _mm256_storeu_si256((__m256i *)(void *)s->a, _mm256_permute2x128_si256(sa[0], sa[1], 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(s->a + 32), _mm256_permute2x128_si256(sa[0], sa[1], 0x31));
    _mm256_storeu_si256((__m256i *)(void *)s->b, _mm256_permute2x128_si256(sb2[0], sb2[1], 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(s->b + 32), _mm256_permute2x128_si256(sb2[0], sb2[1], 0x31));
}

/* Q3_K: block i's d (also as m), sc_a, sc_b (sa, sb), no mins. */
QMM_AVX2_INLINE void qmm_avx2_q3_k_scales_sb(qmm_avx2_ws *ws, const qmm_avx2_sbs *s, int i) {
    ws->d = ws->m = s->d;
    ws->sa = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s->a + 8 * i)));
    ws->sb = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(s->b + 8 * i)));
    ws->ma = ws->mb = _mm256_setzero_si256();
}

/* Q2_K on AVX2, every tile's scales: d and dmin once a super-block (the
 * GEMV's and the small-m tile's; the expanded GEMM's runs both steps once a
 * slice); per 32-block its 16 scale bytes (sc | m << 4, row j of the two
 * sub-blocks at j and 8 + j) in both lanes, whose nibbles vpshufb puts into
 * lane j as the int16 pairs vpmaddwd multiplies the dot's int16 pair sums by
 * (sa16, sb16; and the mins (m_a, m_b) by the activation's (sum_a, sum_b):
 * sp): no vpmulld. */
QMM_AVX2_INLINE void qmm_avx2_q2_k_sb_scales(qmm_avx2_sbs *s, const uint8_t *panel, int64_t b) {
    s->sb = panel + (size_t)(b / 8) * (size_t)qmm_avx2_q23_k_sb_bytes(QMM_TYPE_Q2_K);
    s->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)s->sb));
    s->m = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s->sb + 16)));
}

QMM_AVX2_INLINE void qmm_avx2_q2_k_scales_sb(qmm_avx2_ws *ws, const qmm_avx2_sbs *s, int i) {
    const __m256i v = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(s->sb + 32 + 16 * i)));
    const __m256i m4 = _mm256_set1_epi8(0x0f);
    const __m256i sc = _mm256_and_si256(v, m4), mn = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
    /* lane j (j < 4 in the low half, 4..7 in the high one, each half holding
     * all 16 bytes): byte j (sub-block a) or 8 + j (b), zero-extended (-128:
     * vpshufb's zero) */
    const __m256i pa = _mm256_setr_epi8(0, -128, 0, -128, 1, -128, 1, -128, 2, -128, 2, -128, 3, -128, 3, -128, 4, -128, 4, -128,
                                        5, -128, 5, -128, 6, -128, 6, -128, 7, -128, 7, -128);
    const __m256i pm = _mm256_setr_epi8(0, -128, 8, -128, 1, -128, 9, -128, 2, -128, 10, -128, 3, -128, 11, -128, 4, -128, 12,
                                        -128, 5, -128, 13, -128, 6, -128, 14, -128, 7, -128, 15, -128);
    ws->d = s->d;
    ws->m = s->m;
    ws->sa16 = _mm256_shuffle_epi8(sc, pa);
    ws->sb16 = _mm256_shuffle_epi8(sc, _mm256_add_epi8(pa, _mm256_set1_epi8(8))); /* -128 + 8 keeps bit 7: still a zero */
    ws->sp = _mm256_shuffle_epi8(mn, pm);
}

QMM_AVX2_INLINE void qmm_avx2_q23_k_scales(qmm_type kind, qmm_avx2_isa isa, qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    if (qmm_avx2_q23_k_pair_float(kind, isa)) {
        qmm_avx2_sbs s;
        qmm_avx2_q2_k_sb_scales(&s, panel, b);
        qmm_avx2_q2_k_scales_sb(ws, &s, (int)(b % 8));
        return;
    }
    const uint8_t *sb = panel + (size_t)(b / 8) * (size_t)qmm_avx2_q23_k_sb_bytes(kind);
    const int i = (int)(b % 8);
    const __m256i m4 = _mm256_set1_epi32(0x0f);
    ws->d = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)sb));
    if (qmm_avx2_q23_k_q3(kind)) {
        ws->m = ws->d;
        const __m256i lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 16 + 8 * i)));
        const __m256i hi =
            _mm256_srli_epi32(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 80 + 8 * (i / 2)))), 4 * (i % 2));
        const __m256i m2 = _mm256_set1_epi32(3), off = _mm256_set1_epi32(32);
        ws->sa = _mm256_sub_epi32(_mm256_or_si256(_mm256_and_si256(lo, m4), _mm256_slli_epi32(_mm256_and_si256(hi, m2), 4)), off);
        ws->sb = _mm256_sub_epi32(
            _mm256_or_si256(_mm256_srli_epi32(lo, 4), _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(hi, 2), m2), 4)), off);
        ws->ma = ws->mb = _mm256_setzero_si256();
    } else {
        ws->m = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(sb + 16)));
        const __m256i pa = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 16 * i)));
        const __m256i pb = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(sb + 32 + 16 * i + 8)));
        ws->sa = _mm256_and_si256(pa, m4), ws->ma = _mm256_srli_epi32(pa, 4);
        ws->sb = _mm256_and_si256(pb, m4), ws->mb = _mm256_srli_epi32(pb, 4);
    }
}

QMM_AVX2_INLINE __m256 qmm_avx2_q23_k_float(qmm_type kind, qmm_avx2_isa isa, __m256 acc, const qmm_avx2_iacc *is,
                                            const qmm_avx2_ws *ws, const qmm_act_block *xb) {
    const int32_t sa = (int16_t)(uint16_t)((uint32_t)xb->sum & 0xffffu);
    const int32_t sb = (int16_t)(uint16_t)((uint32_t)xb->sum >> 16);
    const __m256 xd = _mm256_set1_ps(xb->d);
    if (qmm_avx2_q23_k_q3(kind)) {
        const __m256i da = _mm256_sub_epi32(dot_finish(is->a), _mm256_set1_epi32(4 * sa));
        const __m256i db = _mm256_sub_epi32(dot_finish(is->b), _mm256_set1_epi32(4 * sb));
        const __m256i isum = _mm256_add_epi32(_mm256_mullo_epi32(ws->sa, da), _mm256_mullo_epi32(ws->sb, db));
        return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    }
    if (qmm_avx2_q23_k_pair_float(kind, isa)) {
        /* the int16 pair sums times (sc, sc): sc_a da + sc_b db; the mins (m_a, m_b) times (sum_a, sum_b) */
        const __m256i isum = _mm256_add_epi32(_mm256_madd_epi16(is->a, ws->sa16), _mm256_madd_epi16(is->b, ws->sb16));
        acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
        const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_madd_epi16(ws->sp, _mm256_set1_epi32(xb->sum)));
        return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->m, xd), acc);
    }
    const __m256i isum =
        _mm256_add_epi32(_mm256_mullo_epi32(ws->sa, dot_finish(is->a)), _mm256_mullo_epi32(ws->sb, dot_finish(is->b)));
    acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
    const __m256i mins =
        _mm256_add_epi32(_mm256_mullo_epi32(ws->ma, _mm256_set1_epi32(sa)), _mm256_mullo_epi32(ws->mb, _mm256_set1_epi32(sb)));
    const __m256i imin = _mm256_sub_epi32(_mm256_setzero_si256(), mins);
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(imin), _mm256_mul_ps(ws->m, xd), acc);
}

/* Q3_K's expanded GEMM's block scales and float step (AVX2): the int16
 * chains are widened by vpmaddwd against the scales as int16 pairs (no
 * vpmulld), and the sums' share is one more vpmaddwd against the packer's
 * (sa, sb) pair: the same integers. Prepared once per slice, so only there:
 * in the GEMV the extra preparation per block cost more than it saved (Q3_K
 * from L2 8.8 -> 10.0 us). Lane j, int16 pairs: (sc_a, sc_a), (sc_b, sc_b),
 * (4 sc_a, 4 sc_b) (sa16, sb16, sp). */
QMM_AVX2_INLINE void qmm_avx2_q3_k_scales_x(qmm_avx2_ws *ws, const uint8_t *panel, int64_t b) {
    qmm_avx2_q23_k_scales(QMM_TYPE_Q3_K, QMM_AVX2_ISA_AVX2, ws, panel, b);
    ws->sa16 = qmm_avx2_pair16(ws->sa);
    ws->sb16 = qmm_avx2_pair16(ws->sb);
    ws->sp = qmm_avx2_pack16x2(_mm256_slli_epi32(ws->sa, 2), _mm256_slli_epi32(ws->sb, 2));
}

QMM_AVX2_INLINE __m256 qmm_avx2_q3_k_float_x(__m256 acc, const qmm_avx2_iacc *is, const qmm_avx2_ws *ws,
                                             const qmm_act_block *xb) {
    const __m256 xd = _mm256_set1_ps(xb->d);
    const __m256i dots = _mm256_add_epi32(_mm256_madd_epi16(is->a, ws->sa16), _mm256_madd_epi16(is->b, ws->sb16));
    const __m256i isum = _mm256_sub_epi32(dots, _mm256_madd_epi16(ws->sp, _mm256_set1_epi32(xb->sum)));
    return _mm256_fmadd_ps(_mm256_cvtepi32_ps(isum), _mm256_mul_ps(ws->d, xd), acc);
}

/* The GGUF super-block: its size, and the unsigned u of element l. */
QMM_AVX2_INLINE size_t qmm_avx2_q23_k_src_bytes(qmm_type kind) {
    return qmm_avx2_q23_k_q3(kind) ? sizeof(qmm_block_q3_k) : sizeof(qmm_block_q2_k);
}

static inline int qmm_avx2_q23_k_u(qmm_type kind, const void *blk, int l) {
    return qmm_avx2_q23_k_q3(kind) ? qmm_q3_k_q((const qmm_block_q3_k *)blk, l) + 4 : qmm_q2_k_q((const qmm_block_q2_k *)blk, l);
}

static inline void qmm_avx2_q23_k_w_pack(qmm_type kind, int64_t k, int64_t n0, int64_t n1, const void *src, size_t stride,
                                         void *dst) {
    const int64_t nsb = k / QMM_QK_K;
    const int q3 = qmm_avx2_q23_k_q3(kind), qs_off = qmm_avx2_q23_k_qs_off(kind), qb = qmm_avx2_q23_k_qb(kind);
    for (int64_t p = n0 / 8; p * 8 < n1; p++) {
        uint8_t *panel = (uint8_t *)dst + (size_t)p * qmm_avx2_q23_k_panel_bytes(kind, k / QMM_QK);
        for (int j = 0; j < 8; j++) {
            const int64_t row = p * 8 + j;
            const uint8_t *blk = (const uint8_t *)src + (size_t)row * stride;
            for (int64_t s = 0; s < nsb; s++) {
                uint8_t *sb = panel + (size_t)s * (size_t)qmm_avx2_q23_k_sb_bytes(kind);
                const uint8_t *wb = blk + (size_t)s * qmm_avx2_q23_k_src_bytes(kind);
                const qmm_block_q2_k *w2 = (const qmm_block_q2_k *)(const void *)wb;
                const qmm_block_q3_k *w3 = (const qmm_block_q3_k *)(const void *)wb;
                const int pad = row >= n1; /* padding rows: zero scales, zero quants */
                if (pad)
                    memset(sb + 2 * j, 0, 2);
                else
                    memcpy(sb + 2 * j, q3 ? (const void *)&w3->d : (const void *)&w2->d, 2);
                if (q3) {
                    for (int i = 0; i < 8; i++) {
                        /* padding rows: stored 32, a zero scale */
                        const int sa = (pad ? 0 : qmm_q3_k_scale(w3->scales, 2 * i)) + 32;
                        const int sbb = (pad ? 0 : qmm_q3_k_scale(w3->scales, 2 * i + 1)) + 32;
                        sb[16 + 8 * i + j] = (uint8_t)((sa & 0x0f) | (sbb & 0x0f) << 4);
                        uint8_t *hi = sb + 80 + 8 * (i / 2) + j;
                        *hi = (uint8_t)((*hi & (0xf0 >> 4 * (i % 2))) | ((sa >> 4) | (sbb >> 4) << 2) << 4 * (i % 2));
                    }
                } else {
                    if (pad)
                        memset(sb + 16 + 2 * j, 0, 2);
                    else
                        memcpy(sb + 16 + 2 * j, &w2->dmin, 2);
                    for (int u = 0; u < 16; u++)
                        sb[32 + 8 * u + j] = pad ? 0 : w2->scales[u];
                }
                for (int i = 0; i < 8; i++) {
                    uint8_t *q = sb + qs_off + qb * i;
                    for (int t = 0; t < 4; t++) {
                        uint8_t l2 = 0, h2 = 0, top = 0;
                        for (int c = 0; c < 4; c++) {
                            const int ul = pad ? 0 : qmm_avx2_q23_k_u(kind, wb, 32 * i + 4 * c + t);
                            const int uh = pad ? 0 : qmm_avx2_q23_k_u(kind, wb, 32 * i + 16 + 4 * c + t);
                            l2 = (uint8_t)(l2 | (ul & 3) << (2 * c));
                            h2 = (uint8_t)(h2 | (uh & 3) << (2 * c));
                            top = (uint8_t)(top | (ul >> 2) << c | (uh >> 2) << (4 + c));
                        }
                        q[4 * j + t] = l2;
                        q[32 + 4 * j + t] = h2;
                        if (q3)
                            q[64 + 4 * j + t] = top;
                    }
                }
            }
        }
    }
}

/* qmm_avx2_q23_k_w_pack's inverse: Q3_K's stored 6-bit scales back into
 * GGUF's bit places (qmm_q3_k_scale's), element e's two low bits of u into
 * bits 2 ((e / 32) % 4) of qs[32 (e / 128) + e % 32] and Q3_K's bit 2
 * (hmask) into bit e / 32 of hmask[e % 32]. */
static inline void qmm_avx2_q23_k_w_unpack_row(qmm_type kind, const void *w, int64_t k, int64_t row, void *dst) {
    const uint8_t *panel = (const uint8_t *)w + (size_t)(row / 8) * qmm_avx2_q23_k_panel_bytes(kind, k / QMM_QK);
    const int j = (int)(row % 8), q3 = qmm_avx2_q23_k_q3(kind);
    for (int64_t s = 0; s < k / QMM_QK_K; s++) {
        const uint8_t *sb = panel + (size_t)s * (size_t)qmm_avx2_q23_k_sb_bytes(kind);
        union {
            qmm_block_q2_k q2;
            qmm_block_q3_k q3;
        } wb;
        memset(&wb, 0, sizeof wb); /* the scales and quants are ORed in */
        uint8_t *qs = q3 ? wb.q3.qs : wb.q2.qs;
        if (q3) {
            memcpy(&wb.q3.d, sb + 2 * j, 2);
            for (int i = 0; i < 16; i++) { /* 16-block i: nibble i % 2 of the low byte, bit pair i % 4 of the high */
                const int lo = (sb[16 + 8 * (i / 2) + j] >> (4 * (i % 2))) & 0x0f,
                          hi = (sb[80 + 8 * (i / 4) + j] >> (2 * (i % 4))) & 3;
                wb.q3.scales[i % 8] |= (uint8_t)(lo << (4 * (i / 8)));
                wb.q3.scales[8 + i % 4] |= (uint8_t)(hi << (2 * (i / 4)));
            }
        } else {
            memcpy(&wb.q2.d, sb + 2 * j, 2);
            memcpy(&wb.q2.dmin, sb + 16 + 2 * j, 2);
            for (int u = 0; u < 16; u++)
                wb.q2.scales[u] = sb[32 + 8 * u + j];
        }
        for (int i = 0; i < 8; i++) {
            const uint8_t *q = sb + qmm_avx2_q23_k_qs_off(kind) + qmm_avx2_q23_k_qb(kind) * i;
            for (int c = 0; c < 4; c++)
                for (int t = 0; t < 4; t++)
                    for (int half = 0; half < 2; half++) {
                        const int two = (q[32 * half + 4 * j + t] >> (2 * c)) & 3, e = 32 * i + 16 * half + 4 * c + t;
                        qs[32 * (e / 128) + e % 32] |= (uint8_t)(two << (2 * ((e / 32) % 4)));
                        if (q3)
                            wb.q3.hmask[e % 32] |= (uint8_t)(((q[64 + 4 * j + t] >> (4 * half + c)) & 1) << (e / 32));
                    }
        }
        const size_t bytes = qmm_avx2_q23_k_src_bytes(kind);
        memcpy((uint8_t *)dst + (size_t)s * bytes, &wb, bytes);
    }
}

#endif
