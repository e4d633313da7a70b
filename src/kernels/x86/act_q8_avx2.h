/* AVX2 activation packer shared by the int8 AVX2 / AVX-VNNI families. It
 * writes the reference activation layout (rows of qmm_act_block, m_step 1),
 * reproducing qmm_act_quantize_block bit for bit, 32 values per block at a
 * time. Defined in act_q8_avx2.c (built with -mavx2 -mfma -mf16c). */
#ifndef QMM_ACT_Q8_AVX2_H
#define QMM_ACT_Q8_AVX2_H

#include <stddef.h>
#include <stdint.h>

void qmm_avx2_act_q8_pack(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst);

/* The same layout, except that each block's sum is replaced by its two
 * 16-element sums as int16 (low: elements 0..15, high: 16..31; |sum16| <=
 * 2032), computed once per row and call instead of per panel in a float step:
 * for the formats with per-16 scales (Q2_K, Q3_K, Q6_K). */
void qmm_avx2_act_q8_pack_sum16(int64_t m, int64_t k, const float *x, size_t x_row_stride, void *dst);

#endif
