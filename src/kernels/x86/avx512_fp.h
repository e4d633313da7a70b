/* Shared pieces of the AVX-512 F32, F16 and BF16 weight families. Included
 * by exactly the translation units compiled with AVX-512 flags.
 *
 * Weight panel: 16 weight rows (n_step = 16, a partial last panel padded
 * with zero rows); for each l in ascending k, the 16 rows' values at l
 * (F32: 64 bytes, F16: 32 bytes kept as fp16 and widened by vcvtph2ps, which
 * is exact; BF16: 32 bytes widened by a zero extension and a 16-bit shift,
 * exact too). One panel is one linear stream, padded to 64 bytes. Each zmm
 * lane is one output row, so acc = fma(w, x, acc) runs in ascending l per
 * output: the reference order.
 *
 * Activation layout: GEMM, groups of MR = 12 rows interleaved by l (x[l][12],
 * so a tile's 12 broadcasts come from one 48-byte run); GEMV, the plain row. A
 * partial last group is padded with zero rows. */
#ifndef QMM_X86_AVX512_FP_H
#define QMM_X86_AVX512_FP_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/family.h"
#include "kernels/x86/fp_pack16.h"

#define QMM_AVX512FP_NR 16 /* weight rows per panel */
/* Activation rows per group and GEMM tile: 12 rows x 2 panels = 24 zmm
 * accumulators + 2 weights + 1 broadcast of the 32 registers; per l, 2 weight
 * loads and 12 broadcasts feed 24 FMAs (8 x 32 needed 2 + 8 per 16). */
#ifndef QMM_AVX512FP_MR
#define QMM_AVX512FP_MR 12
#endif
/* k slice of the GEMM: the partial sums wait in a contiguous block between
 * slices (qmm_avx512fp_scratch). F16 / BF16: 256, their widened block (NC16 x
 * KC16 fp32) 256 KiB: against 128, every F16 / BF16 prefill matrix 3% faster
 * on Zen 4 (1-1.5% on the Xeon), and 512 another 1.5% but 644 KiB of scratch
 * a thread, more than two SMT threads sharing a 1 MiB L2 can hold. F32 (no
 * widened block): 512 measured 1% faster, not worth a 24 KiB activation
 * slice in a 32 KiB L1. Overridable (-D) only to measure other values
 * (docs/performance.md). */
#ifndef QMM_AVX512FP_KC
#define QMM_AVX512FP_KC 256
#endif
#ifndef QMM_AVX512FP_KC16
#define QMM_AVX512FP_KC16 256
#endif
/* The k slice of element kind esz. */
#define QMM_AVX512FP_KC_OF(esz) ((esz) == 4 ? QMM_AVX512FP_KC : QMM_AVX512FP_KC16)
/* Columns per block of the GEMM (a multiple of 2 x NR): the partial sums of
 * a block (MB x NC fp32, 132 KiB) stay in L2 while the k slices pass. 256 for
 * every kind: each activation slice then serves twice the columns of 128
 * (F32 1-2.5% faster on prefill shapes), and where y comes from memory
 * (attention's QK^T, k = 64) each y row gets 1 KiB a block: 128 measured 21%
 * (F32) and 25% (F16) slower there. */
#ifndef QMM_AVX512FP_NC
#define QMM_AVX512FP_NC 256
#endif
#ifndef QMM_AVX512FP_NC16
#define QMM_AVX512FP_NC16 256
#endif
#define QMM_AVX512FP_NC_OF(esz) ((esz) == 4 ? QMM_AVX512FP_NC : QMM_AVX512FP_NC16)
/* Rows per block of the GEMM, whole groups: exec hands at most 128 rows
 * rounded up to groups per call (132 = 11 groups); the partial-sum buffer
 * holds MB x NC floats. */
#define QMM_AVX512FP_MB ((128 + QMM_AVX512FP_MR - 1) / QMM_AVX512FP_MR * QMM_AVX512FP_MR)
/* Software prefetch distance in the tile's weight streams, bytes (0: none). */
#ifndef QMM_AVX512FP_PF
#define QMM_AVX512FP_PF 1024
#endif

/* The GEMM's per-thread scratch, one for the three families (a thread runs
 * one GEMM at a time): the block's partial sums (MB x NC fp32), then, for F16 /
 * BF16, the block's weights widened to fp32 (NC16 x KC16). Thread-local: 388
 * KiB is too much for the stack of a host's thread. Defined in
 * matmul_f32_avx512.c. */
#define QMM_AVX512FP_SCRATCH_16 (QMM_AVX512FP_MB * QMM_AVX512FP_NC16 + QMM_AVX512FP_NC16 * QMM_AVX512FP_KC16)
#define QMM_AVX512FP_SCRATCH                                                                                                     \
    (QMM_AVX512FP_MB * QMM_AVX512FP_NC > QMM_AVX512FP_SCRATCH_16 ? QMM_AVX512FP_MB * QMM_AVX512FP_NC : QMM_AVX512FP_SCRATCH_16)
extern _Thread_local float qmm_avx512fp_scratch[QMM_AVX512FP_SCRATCH];

#define QMM_AVX512FP_INLINE static inline __attribute__((always_inline))

/* The element kind `esz` of the helpers below, a constant in each caller:
 * the values of F32 (4) and F16 (2) are their element sizes; BF16, 2 bytes
 * too, is told apart as 3. */
enum { QMM_AVX512FP_F16 = 2, QMM_AVX512FP_BF16 = 3, QMM_AVX512FP_F32 = 4 };
#define QMM_AVX512FP_EB(esz) ((esz) == 4 ? 4 : 2) /* bytes per element */

static inline size_t qmm_avx512fp_panel_bytes(int64_t k, int esz) {
    return ((size_t)k * QMM_AVX512FP_NR * (size_t)QMM_AVX512FP_EB(esz) + 63) & ~(size_t)63;
}

/* ------------------------------------------------------------ activations */

static inline size_t qmm_avx512fp_act_size(int64_t m, int64_t k) {
    return (size_t)((m + QMM_AVX512FP_MR - 1) / QMM_AVX512FP_MR) * QMM_AVX512FP_MR * (size_t)k * sizeof(float);
}

static inline size_t qmm_avx512fp_act_offset(int64_t m_idx, int64_t k) {
    return (size_t)(m_idx / QMM_AVX512FP_MR) * QMM_AVX512FP_MR * (size_t)k * sizeof(float);
}

/* 8 rows x 8 l of a group, transposed in registers: out + l * stride gets
 * rows 0-7 at l (a scalar transposing loop cost about as much as the GEMM at
 * short n, e.g. attention's PV with n = head dim). */
QMM_AVX512FP_INLINE void qmm_avx512fp_transpose8(const __m256 r[8], float *out, size_t stride) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
    const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
    const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
    const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
    _mm256_storeu_ps(out + 0 * stride, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(out + 1 * stride, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(out + 2 * stride, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(out + 3 * stride, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(out + 4 * stride, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(out + 5 * stride, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(out + 6 * stride, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(out + 7 * stride, _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* 4 rows x 8 l: out + l * stride gets rows 0-3 at l. */
QMM_AVX512FP_INLINE void qmm_avx512fp_transpose4(const __m256 r[4], float *out, size_t stride) {
    const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    const __m256 u[4] = {_mm256_shuffle_ps(t0, t2, 0x44), _mm256_shuffle_ps(t0, t2, 0xee), _mm256_shuffle_ps(t1, t3, 0x44),
                         _mm256_shuffle_ps(t1, t3, 0xee)}; /* l j in the low half, l j + 4 in the high one */
    for (int j = 0; j < 4; j++) {
        _mm_storeu_ps(out + (size_t)j * stride, _mm256_castps256_ps128(u[j]));
        _mm_storeu_ps(out + (size_t)(j + 4) * stride, _mm256_extractf128_ps(u[j], 1));
    }
}

_Static_assert(QMM_AVX512FP_MR % 4 == 0 && QMM_AVX512FP_MR <= 12, "the group transposes go by 8 and 4 rows");

static inline void qmm_avx512fp_act_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    enum { MR = QMM_AVX512FP_MR };
    float *out = (float *)dst;
    for (int64_t r0 = 0; r0 < m; r0 += MR) {
        float *grp = out + (size_t)(r0 / MR) * MR * (size_t)k;
        const float *row[MR];
        for (int i = 0; i < MR; i++)
            row[i] = r0 + i < m ? (const float *)((const char *)x + (size_t)(r0 + i) * xs) : NULL; /* NULL: a zero row */
        int64_t l = 0;
        for (; l + 8 <= k; l += 8) {
            __m256 r[MR];
            for (int i = 0; i < MR; i++)
                r[i] = row[i] ? _mm256_loadu_ps(row[i] + l) : _mm256_setzero_ps();
            int i = 0;
            for (; i + 8 <= MR; i += 8)
                qmm_avx512fp_transpose8(r + i, grp + l * MR + i, MR);
            for (; i < MR; i += 4)
                qmm_avx512fp_transpose4(r + i, grp + l * MR + i, MR);
        }
        for (; l < k; l++)
            for (int i = 0; i < MR; i++)
                grp[l * MR + i] = row[i] ? row[i][l] : 0.0f;
    }
}

static inline size_t qmm_avx512fp_act1_size(int64_t m, int64_t k) { return (size_t)m * (size_t)k * sizeof(float); }
static inline size_t qmm_avx512fp_act1_offset(int64_t m_idx, int64_t k) { return (size_t)m_idx * (size_t)k * sizeof(float); }
static inline void qmm_avx512fp_act1_pack(int64_t m, int64_t k, const float *x, size_t xs, void *dst) {
    for (int64_t i = 0; i < m; i++)
        memcpy((float *)dst + i * k, (const char *)x + (size_t)i * xs, (size_t)k * sizeof(float));
}

/* ---------------------------------------------------------------- weights */

/* Packs rows [n0, n1) of 16-bit weights (F16, BF16: the bits as they are)
 * into panels; padding rows and the panel tail are zero. */
static inline void qmm_avx512fp_pack16(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst,
                                       int esz) {
    qmm_x86fp_pack16(k, n, n0, n1, src, stride, dst, qmm_avx512fp_panel_bytes(k, esz), 0);
}

/* Row r of a panel back as its source row: every packer stores element l of
 * row r at l * 16 + r with the source's bits as they are. */
static inline void qmm_avx512fp_unpack_row(const uint8_t *panel, int64_t k, int r, void *dst, int esz) {
    const size_t eb = QMM_AVX512FP_EB(esz);
    for (int64_t l = 0; l < k; l++)
        memcpy((uint8_t *)dst + (size_t)l * eb, panel + ((size_t)l * QMM_AVX512FP_NR + (size_t)r) * eb, eb);
}

/* ------------------------------------------------------------------ tiles */

/* 16 weights at l of a panel, as fp32 (esz 4: F32, 2: F16, 3: BF16). */
QMM_AVX512FP_INLINE __m512 qmm_avx512fp_w(const uint8_t *p, int64_t l, int esz) {
    if (esz == 4)
        return _mm512_loadu_ps((const float *)(const void *)(p + (size_t)l * 64));
    if (esz == QMM_AVX512FP_BF16)
        return _mm512_castsi512_ps(_mm512_slli_epi32(
            _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(p + (size_t)l * 32))), 16));
    return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(p + (size_t)l * 32)));
}

/* The next block's weights, fetched into L2 while this block computes: the
 * first activation group of a block otherwise waits on them (it ran at half
 * the speed of the others, which find them in L2), so each tile of a block
 * prefetches its share: lines [a, b) of the next slices of its panels (p1 NULL:
 * one panel; p0 NULL: nothing to fetch), one line per panel every 8 l. Likewise
 * the activation slice the next row step reads, which comes from L3 or memory
 * (a call's activations outgrow L2): the bytes [x0, x1) (x0 NULL: none), two
 * lines every 8 l; 512 x 256 x 8192 ran 10-11% faster with it (F32, F16).
 * Rows read in place (DX): the next group's rows from x0, xs bytes apart, each
 * a segment of cpr 128-byte chunks; this tile's share is chunks [j0, j1) in
 * row order (x1 unused). */
typedef struct qmm_avx512fp_next {
    const uint8_t *p0, *p1;
    int64_t a, b;
    const uint8_t *x0, *x1;
    size_t xs;
    int64_t cpr, j0, j1;
} qmm_avx512fp_next;

/* Tiles of F32 (own weights or a widened block) prefetch; the widening tiles of
 * F16 / BF16 (one row step of a block) do not. */
#ifndef QMM_AVX512FP_NEXT_16
#define QMM_AVX512FP_NEXT_16 0
#endif
#define QMM_AVX512FP_NEXT_FOR(esz) ((esz) == 4 || QMM_AVX512FP_NEXT_16)

/* The tiles' k loop runs 8 l a step (QMM_AVX512FP_STEP_L) and issues the next
 * block's prefetches once a step, branch-free: a cursor per panel that stops
 * at the share's end (prefetching its last line again costs a load slot, not
 * a branch). A test and branch per l, as before, cost 4-5% of the tile: the
 * scalar work shares ports 0 and 5 with the FMAs (the history of docs/performance.md (git log -p), stop 27). */
#define QMM_AVX512FP_STEP_L 8
#ifndef QMM_AVX512FP_DX_CHUNKS
#define QMM_AVX512FP_DX_CHUNKS 3
#endif
typedef struct qmm_avx512fp_cursor {
    const uint8_t *c0, *c1, *end; /* weights */
    const uint8_t *x, *x_end;     /* activations: x_end, the last pair of lines */
    /* DX: x walks the rows' chunks: x_left chunks to go, x_end the end of the
     * current row's chunks, then x_skip to the next row's first */
    int64_t x_left;
    ptrdiff_t x_skip;
    size_t x_stride;
} qmm_avx512fp_cursor;

QMM_AVX512FP_INLINE qmm_avx512fp_cursor qmm_avx512fp_cursor_of(int esz, int DX, const qmm_avx512fp_next *nx,
                                                               const uint8_t *idle) {
    qmm_avx512fp_cursor c = {idle, idle, idle, idle, idle + 1, 0, 0, 0};
    if (QMM_AVX512FP_NEXT_FOR(esz) && DX && nx->x0 && nx->j0 < nx->j1) {
        const uint8_t *row = nx->x0 + (size_t)(nx->j0 / nx->cpr) * nx->xs;
        c.x = row + (size_t)(nx->j0 % nx->cpr) * 128;
        c.x_end = row + (size_t)nx->cpr * 128;
        c.x_left = nx->j1 - nx->j0;
        c.x_skip = (ptrdiff_t)nx->xs - (ptrdiff_t)nx->cpr * 128;
        c.x_stride = nx->xs;
    } else if (QMM_AVX512FP_NEXT_FOR(esz) && !DX && nx->x0 && nx->x0 < nx->x1) {
        c.x = nx->x0;
        c.x_end = nx->x1 - nx->x0 > 128 ? nx->x1 - 128 : nx->x0;
    }
    if (QMM_AVX512FP_NEXT_FOR(esz) && nx->p0 && nx->a < nx->b) {
        c.c0 = nx->p0 + (size_t)nx->a * 64;
        c.c1 = nx->p1 ? nx->p1 + (size_t)nx->a * 64 : c.c0;
        c.end = nx->p0 + (size_t)(nx->b - 1) * 64; /* the last line of the share */
    }
    return c;
}

QMM_AVX512FP_INLINE void qmm_avx512fp_cursor_step(int esz, int DX, qmm_avx512fp_cursor *c) {
    if (QMM_AVX512FP_NEXT_FOR(esz)) {
        _mm_prefetch((const char *)c->c0, _MM_HINT_T1);
        _mm_prefetch((const char *)c->c1, _MM_HINT_T1);
        if (DX) {
            /* QMM_AVX512FP_DX_CHUNKS chunks a step: a tile of 128 l (16 steps)
             * then covers a group's 12 row segments of 512 B (48 chunks)
             * even when it is the row step's only tile (n = 32) */
            for (int q = 0; q < QMM_AVX512FP_DX_CHUNKS; q++) {
                _mm_prefetch((const char *)c->x, _MM_HINT_T1);
                _mm_prefetch((const char *)c->x + 64, _MM_HINT_T1);
                const int64_t more = c->x_left > 1;
                c->x_left -= more;
                c->x += more ? 128 : 0;
                const int wrap = c->x >= c->x_end;
                c->x += wrap ? c->x_skip : 0;
                c->x_end += wrap ? c->x_stride : 0;
            }
        } else {
            _mm_prefetch((const char *)c->x, _MM_HINT_T1);
            _mm_prefetch((const char *)c->x + 64, _MM_HINT_T1);
            c->x += c->x < c->x_end ? 128 : 0;
        }
        const size_t adv = c->c0 < c->end ? 64 : 0;
        c->c0 += adv;
        c->c1 += adv;
    }
}

/* One l of the tile: the weights at l (and the stream prefetch PF bytes
 * ahead, one line per prefetch), MR broadcasts, MR x NP FMAs. F16 / BF16
 * tiles also store the widened weights at wo + 16 (l - l0) (panel 1: KC16 x 16
 * floats further), the block the following row steps read as F32. */
QMM_AVX512FP_INLINE void qmm_avx512fp_tile_l(int esz, int DX, int MR, int NP, int64_t l, int64_t l0, const float *act, size_t xs,
                                             const uint8_t *p0, const uint8_t *p1, float *wo, __m512 acc[][2]) {
    const float *xl = DX ? act + l : act + l * QMM_AVX512FP_MR; /* DX: row i at xl + i xs */
    if (QMM_AVX512FP_PF) {                                      /* the slices come from L2 */
        const size_t lb = (size_t)l * 16 * QMM_AVX512FP_EB(esz);
        if (esz == 4 || (l & 1) == 0) {
            _mm_prefetch((const char *)(p0 + lb) + QMM_AVX512FP_PF, _MM_HINT_T0);
            if (NP == 2)
                _mm_prefetch((const char *)(p1 + lb) + QMM_AVX512FP_PF, _MM_HINT_T0);
        }
    }
    const __m512 w0 = qmm_avx512fp_w(p0, l, esz);
    const __m512 w1 = NP == 2 ? qmm_avx512fp_w(p1, l, esz) : w0;
    if (esz != 4) {
        _mm512_store_ps(wo + (l - l0) * 16, w0);
        if (NP == 2)
            _mm512_store_ps(wo + (QMM_AVX512FP_KC16 + l - l0) * 16, w1);
    }
    /* DX: rows 6.. from a second base, so that the two halves share the offsets
     * of rows 1..5 (12 offsets needed more registers than there are: two
     * reloads from the stack per l; 4-7% faster without) */
    const float *xh = DX ? xl + 6 * xs : xl;
    for (int i = 0; i < MR; i++) {
        const __m512 xb = _mm512_set1_ps(DX ? (i < 6 ? xl : xh)[(size_t)(i % 6) * xs] : xl[i]);
        acc[i][0] = _mm512_fmadd_ps(w0, xb, acc[i][0]);
        if (NP == 2)
            acc[i][1] = _mm512_fmadd_ps(w1, xb, acc[i][1]);
    }
}

/* MR rows of an activation group x NP panels (1 or 2), k range [l0, l1).
 * The rows are packed (DX 0: act, the group's packed rows) or in place (DX 1:
 * row i at act + i xs, from its column 0).
 * The accumulators start at 0 (first k slice) or at the partial sums of the
 * previous slice in cb (row i at cb + 32 i), and go to y
 * (last slice; nc0 / nc1 valid columns) or back to cb. Partial sums are fp32
 * stored and reloaded: exact, the order of the fmaf chain is unchanged. They
 * live in cb, not in y: y rows are n floats apart, so for n = 2048 or 8192
 * the rows of a y block fall into a few cache sets and the block did not stay
 * in L2 (k slices of 128 measured 8 points below 256: the round trips went to
 * L3). */
QMM_AVX512FP_INLINE void qmm_avx512fp_tile(int esz, int DX, int MR, int NP, int64_t l0, int64_t l1, int first, int last,
                                           const float *act, size_t xs, const uint8_t *p0, const uint8_t *p1, float *y, size_t ys,
                                           int nc0, int nc1, float *cb, const qmm_avx512fp_next *nx, float *wo) {
    const __mmask16 m0 = (__mmask16)((1u << nc0) - 1u), m1 = (__mmask16)((1u << nc1) - 1u);
    __m512 acc[QMM_AVX512FP_MR][2];
    for (int i = 0; i < MR; i++) {
        acc[i][0] = first ? _mm512_setzero_ps() : _mm512_load_ps(cb + i * 32);
        if (NP == 2)
            acc[i][1] = first ? _mm512_setzero_ps() : _mm512_load_ps(cb + i * 32 + QMM_AVX512FP_NR);
    }
    if (last) /* the y lines this tile stores: their page walks and misses overlap the FMAs (prefetchw: the same) */
        for (int i = 0; i < MR; i++) {
            const float *yr = (const float *)(const void *)((const char *)y + (size_t)i * ys);
            _mm_prefetch((const char *)yr, _MM_HINT_T0);
            _mm_prefetch((const char *)(yr + 15), _MM_HINT_T0);
            if (NP == 2)
                _mm_prefetch((const char *)(yr + 31), _MM_HINT_T0);
        }
    qmm_avx512fp_cursor cur = qmm_avx512fp_cursor_of(esz, DX, nx, p0);
    int64_t l = l0;
    for (; l + QMM_AVX512FP_STEP_L <= l1; l += QMM_AVX512FP_STEP_L) {
        qmm_avx512fp_cursor_step(esz, DX, &cur);
#pragma GCC unroll 1
        for (int u = 0; u < QMM_AVX512FP_STEP_L; u++)
            qmm_avx512fp_tile_l(esz, DX, MR, NP, l + u, l0, act, xs, p0, p1, wo, acc);
    }
    for (; l < l1; l++)
        qmm_avx512fp_tile_l(esz, DX, MR, NP, l, l0, act, xs, p0, p1, wo, acc);
    for (int i = 0; i < MR; i++) {
        if (!last) {
            _mm512_store_ps(cb + i * 32, acc[i][0]);
            if (NP == 2)
                _mm512_store_ps(cb + i * 32 + QMM_AVX512FP_NR, acc[i][1]);
            continue;
        }
        float *yr = (float *)((char *)y + (size_t)i * ys);
        _mm512_mask_storeu_ps(yr, m0, acc[i][0]);
        if (NP == 2)
            _mm512_mask_storeu_ps(yr + QMM_AVX512FP_NR, m1, acc[i][1]);
    }
}

/* The tiles of one element kind and row source (DX), by row count mr (1..MR)
 * and panels np (1, 2): a switch to the tile with constant mr and np. Each
 * router is a named function (qmm_avx512fp_f32_tile, ...) calling this with
 * its constants. */
QMM_AVX512FP_INLINE void qmm_avx512fp_tile_route(int esz, int DX, int mr, int np, int64_t l0, int64_t l1, int first, int last,
                                                 const float *a, size_t xs, const uint8_t *p0, const uint8_t *p1, float *y,
                                                 size_t ys, int nc0, int nc1, float *cb, const qmm_avx512fp_next *nx, float *wo) {
    _Static_assert(QMM_AVX512FP_MR == 12, "a case per row count");
    if (np == 1) {
        switch (mr) {
        case 1: qmm_avx512fp_tile(esz, DX, 1, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 2: qmm_avx512fp_tile(esz, DX, 2, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 3: qmm_avx512fp_tile(esz, DX, 3, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 4: qmm_avx512fp_tile(esz, DX, 4, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 5: qmm_avx512fp_tile(esz, DX, 5, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 6: qmm_avx512fp_tile(esz, DX, 6, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 7: qmm_avx512fp_tile(esz, DX, 7, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 8: qmm_avx512fp_tile(esz, DX, 8, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 9: qmm_avx512fp_tile(esz, DX, 9, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 10: qmm_avx512fp_tile(esz, DX, 10, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 11: qmm_avx512fp_tile(esz, DX, 11, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        case 12: qmm_avx512fp_tile(esz, DX, 12, 1, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
        default: break;
        }
        return;
    }
    switch (mr) {
    case 1: qmm_avx512fp_tile(esz, DX, 1, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 2: qmm_avx512fp_tile(esz, DX, 2, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 3: qmm_avx512fp_tile(esz, DX, 3, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 4: qmm_avx512fp_tile(esz, DX, 4, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 5: qmm_avx512fp_tile(esz, DX, 5, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 6: qmm_avx512fp_tile(esz, DX, 6, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 7: qmm_avx512fp_tile(esz, DX, 7, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 8: qmm_avx512fp_tile(esz, DX, 8, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 9: qmm_avx512fp_tile(esz, DX, 9, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 10: qmm_avx512fp_tile(esz, DX, 10, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 11: qmm_avx512fp_tile(esz, DX, 11, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    case 12: qmm_avx512fp_tile(esz, DX, 12, 2, l0, l1, first, last, a, xs, p0, p1, y, ys, nc0, nc1, cb, nx, wo); break;
    default: break;
    }
}

/* A router's signature (qmm_avx512fp_tile_route's after esz and DX). */
typedef void (*qmm_avx512fp_tile_fn)(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                                     const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                                     const qmm_avx512fp_next *nx, float *wo);

/* The F32 tiles, rows packed and rows in place, which every family runs
 * (F16 / BF16 on their widened block): defined once, in matmul_f32_avx512.c. */
void qmm_avx512fp_f32_tile(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                           const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                           const qmm_avx512fp_next *nx, float *wo);
void qmm_avx512fp_f32_tile_dx(int mr, int np, int64_t l0, int64_t l1, int first, int last, const float *a, size_t xs,
                              const uint8_t *p0, const uint8_t *p1, float *y, size_t ys, int nc0, int nc1, float *cb,
                              const qmm_avx512fp_next *nx, float *wo);

/* The GEMM of every element kind: BLIS-style blocking. Row blocks of MB
 * (exec hands at most that many rows per call anyway), column blocks of NC,
 * then k slices; inside a slice, activation groups outer (a group's slice
 * stays in L1) and the block's panel pairs inner (their slices come from L2,
 * prefetched in the tile). The block's partial sums (MB x NC fp32, in the
 * thread's scratch) stay in L2 between slices. tile: the F32 tiles' router
 * (rows packed or in place, as a). F16 / BF16 (wtile set, their router):
 * the first row step of a block runs their widening tiles, which also store
 * the block's weights as fp32 in the scratch, and the other row steps run the
 * F32 tiles on that copy: a weight vector is widened once per block, not once
 * per row step (the widening takes ports 0 and 5 from the FMAs). */
QMM_AVX512FP_INLINE void qmm_avx512fp_gemm(int esz, qmm_avx512fp_tile_fn tile, qmm_avx512fp_tile_fn wtile, int64_t m, int64_t n,
                                           int64_t k, const void *a, size_t xs, const void *w, float *y, size_t ys) {
    enum { NR = QMM_AVX512FP_NR, MR = QMM_AVX512FP_MR, MB = QMM_AVX512FP_MB };
    const int64_t KC = QMM_AVX512FP_KC_OF(esz), NC = QMM_AVX512FP_NC_OF(esz), EB = QMM_AVX512FP_EB(esz);
    const size_t pb = qmm_avx512fp_panel_bytes(k, esz);
    const int widen = wtile != NULL;
    float *const cbuf = qmm_avx512fp_scratch;
    float *const wbuf = qmm_avx512fp_scratch + MB * QMM_AVX512FP_NC16; /* widened block, panel j at j KC16 x 16 */
    for (int64_t m0 = 0; m0 < m; m0 += MB) {
        const int64_t mb = m - m0 < MB ? m - m0 : MB;
        /* xs 0: the packed rows; else rows in place, xs floats apart (the tiles given are the DX ones) */
        const uint8_t *am =
            xs ? (const uint8_t *)((const float *)a + (size_t)m0 * xs) : (const uint8_t *)a + qmm_avx512fp_act_offset(m0, k);
        float *ym = (float *)((char *)y + (size_t)m0 * ys);
        const int64_t steps = (mb + MR - 1) / MR;
        /* row steps that prefetch the next block: all, or all but the widening one */
        const int64_t fsteps = widen ? steps - 1 : steps;
        for (int64_t c0 = 0; c0 < n; c0 += NC) {
            const int64_t c1 = n - c0 < NC ? n : c0 + NC;
            const uint8_t *wc = (const uint8_t *)w + (size_t)(c0 / NR) * pb;
            const int64_t npairs = (c1 - c0 + 2 * NR - 1) / (2 * NR);
            for (int64_t l0 = 0; l0 < k || l0 == 0; l0 += KC) {
                const int64_t l1 = k - l0 < KC ? k : l0 + KC;
                const int first = l0 == 0, last = l1 == k;
                /* the next block: this column block's next slice, or the next column block's first */
                const uint8_t *nxw = NULL;
                int64_t nx_np = 0, nx_lines = 0; /* its panels, lines per panel */
                if (l1 < k) {
                    nxw = wc + (size_t)l1 * NR * EB;
                    nx_np = (c1 - c0 + NR - 1) / NR;
                    nx_lines = ((k - l1 < KC ? k - l1 : KC) * NR * EB + 63) / 64;
                } else if (c1 < n) {
                    nxw = (const uint8_t *)w + (size_t)(c1 / NR) * pb;
                    nx_np = ((n - c1 < NC ? n - c1 : NC) + NR - 1) / NR;
                    nx_lines = ((k < KC ? k : KC) * NR * EB + 63) / 64;
                }
                const int64_t per = fsteps > 0 ? (nx_lines + fsteps - 1) / fsteps : 0; /* lines per panel and row step */
                for (int64_t step = 0; step < steps; step++) {
                    const int64_t r0 = step * MR;
                    const int mr = (int)(mb - r0 < MR ? mb - r0 : MR);
                    const float *ag = xs ? (const float *)(const void *)am + (size_t)r0 * xs
                                         : (const float *)(const void *)(am + qmm_avx512fp_act_offset(r0, k));
                    float *yg = (float *)((char *)ym + (size_t)r0 * ys);
                    const int widening = widen && step == 0;
                    const int64_t share = widen ? step - 1 : step; /* of the next block's lines */
                    const int64_t la = share * per, lb = (share + 1) * per < nx_lines ? (share + 1) * per : nx_lines;
                    /* the activation slice of the next row step: the next group's, or the first group's next slice */
                    const uint8_t *xn = NULL;
                    size_t xbytes = 0;
                    int64_t xcpr = 1, xchunks = 0; /* rows in place: 128-byte chunks per row, in all */
                    if (xs) {
                        const int64_t nrows = r0 + MR < mb ? (mb - r0 - MR < MR ? mb - r0 - MR : MR)
                                              : l1 < k     ? (mb < MR ? mb : MR)
                                                           : 0;
                        const int64_t seg = r0 + MR < mb ? l1 - l0 : (k - l1 < KC ? k - l1 : KC);
                        xn = nrows ? (const uint8_t *)(r0 + MR < mb ? ag + (size_t)MR * xs + l0
                                                                    : (const float *)(const void *)am + l1)
                                   : NULL;
                        xcpr = (seg * 4 + 127) / 128;
                        xchunks = nrows * xcpr;
                    } else if (r0 + MR < mb) {
                        xn = am + qmm_avx512fp_act_offset(r0 + MR, k) + (size_t)l0 * MR * 4;
                        xbytes = (size_t)(l1 - l0) * MR * 4;
                    } else if (l1 < k) {
                        xn = am + (size_t)l1 * MR * 4;
                        xbytes = (size_t)(k - l1 < KC ? k - l1 : KC) * MR * 4;
                    }
                    const size_t xshare = (xbytes / 64 + (size_t)npairs - 1) / (size_t)npairs * 64; /* per pair tile */
                    const int64_t cshare = (xchunks + npairs - 1) / npairs;
                    for (int64_t pr = 0; pr < npairs; pr++) {
                        const int64_t n0 = c0 + pr * 2 * NR, rest = n - n0;
                        const int nc0 = (int)(rest < NR ? rest : NR);
                        const int nc1 = rest > NR ? (int)(rest - NR < NR ? rest - NR : NR) : 0;
                        /* this tile's partial sums: pair pr's MB x 32 block, row r0 */
                        float *cp = cbuf + (size_t)pr * MB * 2 * NR + (size_t)r0 * 2 * NR;
                        float *wo = wbuf + (size_t)(2 * pr) * QMM_AVX512FP_KC16 * NR;
                        const qmm_avx512fp_next nx = {!widening && 2 * pr < nx_np ? nxw + (size_t)(2 * pr) * pb : NULL,
                                                      2 * pr + 1 < nx_np ? nxw + (size_t)(2 * pr + 1) * pb : NULL,
                                                      la,
                                                      lb,
                                                      xs   ? xn
                                                      : xn ? xn + (xshare * pr < xbytes ? xshare * pr : xbytes)
                                                           : NULL,
                                                      xn && !xs ? xn + (xshare * (pr + 1) < xbytes ? xshare * (pr + 1) : xbytes)
                                                                : NULL,
                                                      xs * 4,
                                                      xcpr,
                                                      cshare * pr < xchunks ? cshare * pr : xchunks,
                                                      cshare * (pr + 1) < xchunks ? cshare * (pr + 1) : xchunks};
                        if (widening) {
                            const uint8_t *q0 = wc + (size_t)(2 * pr) * pb;
                            wtile(mr, nc1 ? 2 : 1, l0, l1, first, last, ag, xs, q0, q0 + pb, yg + n0, ys, nc0, nc1, cp, &nx, wo);
                        } else if (widen) { /* the F32 tiles on the widened block: k range [0, l1 - l0) */
                            const uint8_t *q0 = (const uint8_t *)wo;
                            tile(mr, nc1 ? 2 : 1, 0, l1 - l0, first, last, ag + (xs ? l0 : l0 * MR), xs, q0,
                                 q0 + QMM_AVX512FP_KC16 * 64, yg + n0, ys, nc0, nc1, cp, &nx, NULL);
                        } else {
                            const uint8_t *q0 = wc + (size_t)(2 * pr) * pb;
                            tile(mr, nc1 ? 2 : 1, l0, l1, first, last, ag, xs, q0, q0 + pb, yg + n0, ys, nc0, nc1, cp, &nx, NULL);
                        }
                    }
                }
                if (k == 0)
                    break;
            }
        }
    }
}

/* GEMV: NP panels (1..4) at once, one accumulator chain each, whole k. */
QMM_AVX512FP_INLINE void qmm_avx512fp_gemv_tile(int esz, int NP, int64_t k, const float *x, const uint8_t *p, size_t pb, float *y,
                                                int nc_last) {
    __m512 acc[4];
    for (int j = 0; j < NP; j++)
        acc[j] = _mm512_setzero_ps();
    /* software prefetch distance per stream: 2 KiB read F32 and F16 from
     * memory ~5% faster than 1 KiB at 2 threads here (BF16 level), 4 KiB slower
     * (the history of docs/performance.md (git log -p), stop 43) */
    const size_t ahead = 2048;
    for (int64_t l = 0; l < k; l++) {
        const __m512 xb = _mm512_set1_ps(x[l]);
        for (int j = 0; j < NP; j++) {
            const uint8_t *pj = p + (size_t)j * pb;
            if (esz == 4 || (l & 1) == 0)
                _mm_prefetch((const char *)(pj + (size_t)l * 16 * (size_t)QMM_AVX512FP_EB(esz) + ahead), _MM_HINT_T0);
            acc[j] = _mm512_fmadd_ps(qmm_avx512fp_w(pj, l, esz), xb, acc[j]);
        }
    }
    for (int j = 0; j < NP; j++) {
        if (j == NP - 1)
            _mm512_mask_storeu_ps(y + j * QMM_AVX512FP_NR, (__mmask16)((1u << nc_last) - 1u), acc[j]);
        else
            _mm512_storeu_ps(y + j * QMM_AVX512FP_NR, acc[j]);
    }
}

/* GEMV: 4 panels at a time, then one by one. */
QMM_AVX512FP_INLINE void qmm_avx512fp_gemv(int esz, int64_t n, int64_t k, const void *a, const void *w, float *y) {
    const size_t pb = qmm_avx512fp_panel_bytes(k, esz);
    int64_t n0 = 0;
    for (; n - n0 >= 4 * QMM_AVX512FP_NR; n0 += 4 * QMM_AVX512FP_NR)
        qmm_avx512fp_gemv_tile(esz, 4, k, (const float *)a, (const uint8_t *)w + (size_t)(n0 / QMM_AVX512FP_NR) * pb, pb, y + n0,
                               QMM_AVX512FP_NR);
    for (; n0 < n; n0 += QMM_AVX512FP_NR)
        qmm_avx512fp_gemv_tile(esz, 1, k, (const float *)a, (const uint8_t *)w + (size_t)(n0 / QMM_AVX512FP_NR) * pb, pb, y + n0,
                               (int)(n - n0 < QMM_AVX512FP_NR ? n - n0 : QMM_AVX512FP_NR));
}

/* ------------------------------------------------------ family entry points */

static inline size_t qmm_avx512fp_w_size(int esz, int64_t k, int64_t n) {
    return (size_t)((n + QMM_AVX512FP_NR - 1) / QMM_AVX512FP_NR) * qmm_avx512fp_panel_bytes(k, esz);
}

static inline size_t qmm_avx512fp_w_offset(int esz, int64_t n_idx, int64_t k) {
    return (size_t)(n_idx / QMM_AVX512FP_NR) * qmm_avx512fp_panel_bytes(k, esz);
}

/* Rows [n0, n1) into panels: F32 element by element, F16 / BF16 by the
 * 16-bit packer; padding rows and the panel tail are zero. */
static inline void qmm_avx512fp_w_pack(int esz, int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride,
                                       void *dst) {
    if (esz != QMM_AVX512FP_F32) {
        qmm_avx512fp_pack16(k, n, n0, n1, src, stride, dst, esz);
        return;
    }
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512FP_NR) {
        uint8_t *panel = (uint8_t *)dst + qmm_avx512fp_w_offset(esz, p0, k);
        memset(panel, 0, qmm_avx512fp_panel_bytes(k, esz)); /* padding rows and tail */
        float *pf = (float *)(void *)panel;
        for (int r = 0; r < QMM_AVX512FP_NR && p0 + r < n; r++) {
            const float *row = (const float *)((const char *)src + (size_t)(p0 + r) * stride);
            for (int64_t l = 0; l < k; l++)
                pf[l * QMM_AVX512FP_NR + r] = row[l];
        }
    }
}

static inline void qmm_avx512fp_w_unpack_row(int esz, const void *packed, int64_t k, int64_t row, void *dst) {
    qmm_avx512fp_unpack_row((const uint8_t *)packed + qmm_avx512fp_w_offset(esz, row, k), k, (int)(row % QMM_AVX512FP_NR), dst,
                            esz);
}

/* The descriptor of an AVX-512 fp family from its entry points. GEMM tile:
 * 12 activation rows x 2 panels (nr 32); activations: the 12-row groups
 * (GEMM), the plain row (GEMV). */
#define QMM_AVX512FP_DESCRIPTOR(name_, wtype_, w_size_, w_offset_, w_pack_, w_unpack_row_, gemm_, gemv_)                         \
    {                                                                                                                            \
        .name = name_, .wtype = wtype_,                                                                                          \
        .required = QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_FMA | QMM_CPU_F16C,       \
        .fallback_hides = QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ, .flags = 0, .layout_id = 1,  \
        .mr = QMM_AVX512FP_MR, .nr = 2 * QMM_AVX512FP_NR, .kr = 1, .sr = 1, .n_step = QMM_AVX512FP_NR, .w_packed_size = w_size_, \
        .w_packed_offset = w_offset_, .w_pack = w_pack_, .w_unpack_row = w_unpack_row_,                                          \
        .act = {QMM_AVX512FP_MR, qmm_avx512fp_act_size, qmm_avx512fp_act_offset, qmm_avx512fp_act_pack},                         \
        .act_gemv = {1, qmm_avx512fp_act1_size, qmm_avx512fp_act1_offset, qmm_avx512fp_act1_pack}, .gemm = gemm_, .gemv = gemv_, \
    }

#endif
