/* F16 weights x fp32 activations with AVX-512 FMA. The panel keeps the fp16
 * bits (half the bytes of F32 to stream); vcvtph2ps widens 16 of them exactly
 * per l (GEMV), or once per k slice of a panel pair into an fp32 scratch that
 * every activation group then reuses (GEMM: the F32 8 x 32 tile). Layout and
 * tiles in avx512_fp.h. */
#include "kernels/x86/avx512_fp.h"

#define ESZ 2

QMM_AVX512FP_FAMILY(ESZ)

/* Run on every call of the F16 path (the KV cache, every token), so the
 * transpose is vectorised: for a full panel one gather takes the 32-bit pair
 * (l, l + 1) of each of its 16 rows (as floats: a move, the bits kept), one
 * word permutation puts the l halves then the l + 1 halves, one store writes
 * both panel rows (a copy: the same bits as element by element). Partial
 * panels, an odd last l, strides too large for 32-bit gather offsets go
 * element by element. (Intrinsics SIMDe emulates: the avx512-emu stage.) */
static void w_pack(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t stride, void *dst) {
    static const uint16_t split_pairs[32] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30,
                                             1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31};
    const __m512i split = _mm512_loadu_si512((const void *)split_pairs);
    const int gather = stride <= (size_t)INT32_MAX / QMM_AVX512FP_NR;
    const __m512i offsets = _mm512_mullo_epi32(_mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                                               _mm512_set1_epi32(gather ? (int)stride : 0));
    for (int64_t p0 = n0; p0 < n1; p0 += QMM_AVX512FP_NR) {
        uint8_t *panel = (uint8_t *)dst + w_offset(p0, k);
        memset(panel, 0, qmm_avx512fp_panel_bytes(k, ESZ)); /* padding rows and tail */
        uint16_t *ph = (uint16_t *)(void *)panel;
        const int nr = n - p0 < QMM_AVX512FP_NR ? (int)(n - p0) : QMM_AVX512FP_NR;
        const char *base = (const char *)src + (size_t)p0 * stride;
        int64_t l = 0;
        if (gather && nr == QMM_AVX512FP_NR)
            for (; l + 1 < k; l += 2) {
                const __m512i pairs = _mm512_castps_si512(_mm512_i32gather_ps(offsets, base + (size_t)l * 2, 1));
                _mm512_storeu_si512((void *)(ph + l * QMM_AVX512FP_NR), _mm512_permutexvar_epi16(split, pairs));
            }
        for (int r = 0; r < nr; r++) {
            const uint16_t *row = (const uint16_t *)(const void *)(base + (size_t)r * stride);
            for (int64_t t = l; t < k; t++)
                ph[t * QMM_AVX512FP_NR + r] = row[t];
        }
    }
}

static void w_read_row(const void *packed, int64_t k, int64_t n, int64_t row, float *dst) {
    const uint16_t *ph = (const uint16_t *)(const void *)((const uint8_t *)packed + w_offset(row, k));
    const int r = (int)(row % QMM_AVX512FP_NR);
    for (int64_t l = 0; l < k; l++)
        dst[l] = qmm_fp16_to_fp32(ph[l * QMM_AVX512FP_NR + r]);
}

QMM_AVX512FP_KERNEL(avx512_f16, QMM_TYPE_F16)
