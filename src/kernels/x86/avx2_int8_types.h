/* The state every AVX2 / AVX-VNNI int8 format body and the driver
 * (avx2_int8_body.h) pass between them. One struct per role covers all
 * formats: each format fills the fields it needs, and since every function
 * taking them is always inlined with the weight kind (a qmm_type) a
 * constant, the unused fields cost nothing. The formats' own field names
 * are given at each struct.
 *
 * The one instruction that differs between an AVX2 family and its AVX-VNNI
 * twin, the dot step, is the family file's: it defines, before including
 * the driver,
 *   dot_step(acc, w_u8, x_s8)   adds, per int32 lane, the four u8 x s8
 *                               products of that lane (any exact partial
 *                               form: AVX2's int16 pair sums, or int32),
 *   dot_finish(acc)             the int32 lane sums of such a state.
 * What else an AVX2 family does differently (the expanded GEMM's scaled
 * vpmaddwd, MXFP4's four-pair int16 sums) follows from the isa argument.
 * The headers are included once per unit, so a unit of several families
 * (the AVX-VNNI emulation test) runs them all on the first one's dot step:
 * only families of one isa, whose steps are the same, may share a unit. */
#ifndef QMM_X86_AVX2_INT8_TYPES_H
#define QMM_X86_AVX2_INT8_TYPES_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

#define QMM_AVX2_INLINE static inline __attribute__((always_inline))

typedef enum {
    QMM_AVX2_ISA_AVX2,    /* vpmaddubsw + vpmaddwd: the steps may leave int16 pair sums */
    QMM_AVX2_ISA_AVXVNNI, /* vpdpbusd: every step sums into int32 */
} qmm_avx2_isa;

/* A panel's unpacked chunk: the low / high elements (lo, hi) in v[0], v[1];
 * Q8_0 the quants and their magnitudes; IQ4_NL / IQ4_XS the low and high
 * levels and their magnitudes; MXFP4 four level vectors. */
typedef struct {
    __m256i v[4];
} qmm_avx2_wv;

/* A row's activation chunk: the broadcast dwords the chunk's dot takes
 * (xl, xh in v[0], v[1]; Q8_0 v[0]; MXFP4 v[0..3]). */
typedef struct {
    __m256i v[4];
} qmm_avx2_xv;

/* A (panel, row) integer state: one chain (a), or two (a: elements 0..15 of
 * the block, b: 16..31). */
typedef struct {
    __m256i a, b;
} qmm_avx2_iacc;

/* A panel's block scales, lane j for row j:
 *   d     the float scale (d; MXFP4's 2^e)
 *   m     the second float scale (Q4_1 / Q5_1 m, the K-quants' dmin)
 *   sa sb the integer (sub-)scales of the block or of its two halves
 *         (Q4_K / Q5_K sc in sa; IQ4_XS ls in sa)
 *   ma mb the integer mins (Q4_K / Q5_K m in ma)
 *   sa16 sb16 sp  the AVX2 expanded tiles' int16 pairs for vpmaddwd.
 * The expanded GEMM keeps, per block, only the fields its kind uses, in this
 * order (qmm_avx2_xs_put). */
typedef struct {
    __m256 d, m;
    __m256i sa, sb, ma, mb, sa16, sb16, sp;
} qmm_avx2_ws;

/* A super-block's scales decoded at its first block (Q3_K: the 16
 * sub-block scales of 8 rows as signed bytes, block i, row j at a / b
 * [8 i + j]; Q2_K on AVX2: d, dmin and where its scale bytes are). */
typedef struct {
    __m256 d, m;
    const uint8_t *sb;
    int8_t a[64], b[64];
} qmm_avx2_sbs;

static inline __m256i qmm_avx2_bcast4(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

#endif
