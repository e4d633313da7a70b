/* The i-quant grid types and the ternary types: each element as exact
 * integers (the reference products' terms) and ggml's dequantization, bit
 * for bit. Portable scalar C, written for clarity: the oracle. */
#include <string.h>

#include "base/bytes.h"
#include "formats/formats.h"

int qmm_type_is_iq_grid(qmm_type t) {
    switch (t) {
    case QMM_TYPE_IQ1_S:
    case QMM_TYPE_IQ1_M:
    case QMM_TYPE_IQ2_XXS:
    case QMM_TYPE_IQ2_XS:
    case QMM_TYPE_IQ2_S:
    case QMM_TYPE_IQ3_XXS:
    case QMM_TYPE_IQ3_S:
    case QMM_TYPE_TQ1_0:
    case QMM_TYPE_TQ2_0: return 1;
    default: return 0;
    }
}

/* The sign (+1 / -1) of element l from a 7-bit sign code. */
static int code_sign(unsigned code7, int l) { return (qmm_iq_sign_bits(code7) >> l) & 1 ? -1 : 1; }

/* TQ1_0: byte `byte` holds 5 (or 4) trits; trit n is the top base-3 digit of
 * byte * 3^n modulo 256, read as ((byte * 3^n mod 256) * 3) >> 8. */
static int tq1_trit(uint8_t byte, int n) {
    static const uint8_t pow3[5] = {1, 3, 9, 27, 81};
    const uint8_t q = (uint8_t)(byte * pow3[n]);
    return ((unsigned)q * 3u) >> 8;
}

/* IQ1_S / IQ1_M: the grid value g (-1, 0, 1) of element l, and in *neg whether
 * its group's delta is negative. */
static int iq1_grid(qmm_type t, const void *block, int l, int *neg) {
    const int gi = l / 8; /* the 8-element group */
    unsigned idx;
    if (t == QMM_TYPE_IQ1_S) {
        const qmm_block_iq1_s *b = block;
        const unsigned qh = b->qh[gi / 4];
        idx = b->qs[gi] | ((qh >> (3 * (gi % 4))) & 7u) << 8;
        *neg = (qh & 0x8000u) != 0;
    } else {
        const qmm_block_iq1_m *b = block;
        const unsigned nib = ((unsigned)b->qh[gi / 2] >> (4 * (gi % 2))) & 15u;
        idx = b->qs[gi] | (nib & 7u) << 8;
        *neg = (nib & 8u) != 0;
    }
    return qmm_grid_iq1s[idx][l % 8];
}

int qmm_iq_level(qmm_type t, const void *block, int l) {
    const int ib = l / 32, r = l % 32, g = r / 8;
    switch (t) {
    case QMM_TYPE_IQ2_XXS: {
        const qmm_block_iq2_xxs *b = block;
        const uint32_t aux = qmm_get32(b->qs + 8 * ib + 4);
        return qmm_grid_iq2xxs[b->qs[8 * ib + g]][r % 8] * code_sign(aux >> (7 * g), r % 8);
    }
    case QMM_TYPE_IQ2_XS: {
        const qmm_block_iq2_xs *b = block;
        const unsigned q = b->qs[4 * ib + g];
        return qmm_grid_iq2xs[q & 511u][r % 8] * code_sign(q >> 9, r % 8);
    }
    case QMM_TYPE_IQ2_S: {
        const qmm_block_iq2_s *b = block;
        const unsigned idx = b->qs[4 * ib + g] | (((unsigned)b->qh[ib] >> (2 * g)) & 3u) << 8;
        return qmm_grid_iq2s[idx][r % 8] * ((b->signs[4 * ib + g] >> (r % 8)) & 1 ? -1 : 1);
    }
    case QMM_TYPE_IQ3_XXS: {
        const qmm_block_iq3_xxs *b = block;
        const uint32_t aux = qmm_get32(b->signs + 4 * ib);
        return qmm_grid_iq3xxs[b->qs[l / 4]][l % 4] * code_sign(aux >> (7 * g), r % 8);
    }
    case QMM_TYPE_IQ3_S: {
        const qmm_block_iq3_s *b = block;
        const unsigned idx = b->qs[l / 4] | (((unsigned)b->qh[ib] >> ((l / 4) % 8)) & 1u) << 8;
        return qmm_grid_iq3s[idx][l % 4] * ((b->signs[l / 8] >> (l % 8)) & 1 ? -1 : 1);
    }
    case QMM_TYPE_IQ1_S:
    case QMM_TYPE_IQ1_M: {
        int neg;
        const int gv = iq1_grid(t, block, l, &neg);
        return 8 * gv + (neg ? -1 : 1);
    }
    case QMM_TYPE_TQ1_0: {
        const qmm_block_tq1_0 *b = block;
        if (l < 160)
            return tq1_trit(b->qs[l % 32], l / 32) - 1;
        if (l < 240)
            return tq1_trit(b->qs[32 + (l - 160) % 16], (l - 160) / 16) - 1;
        return tq1_trit(b->qh[(l - 240) % 4], (l - 240) / 4) - 1;
    }
    case QMM_TYPE_TQ2_0: {
        const qmm_block_tq2_0 *b = block;
        return ((b->qs[32 * (l / 128) + l % 32] >> (2 * ((l / 32) % 4))) & 3) - 1;
    }
    default: return 0;
    }
}

int qmm_iq_subscale(qmm_type t, const void *block, int i) {
    const int ib = i / 2, half = i % 2;
    switch (t) {
    case QMM_TYPE_IQ2_XXS: return 2 * (int)(qmm_get32(((const qmm_block_iq2_xxs *)block)->qs + 8 * ib + 4) >> 28) + 1;
    case QMM_TYPE_IQ2_XS: return 2 * ((((const qmm_block_iq2_xs *)block)->scales[ib] >> (4 * half)) & 15) + 1;
    case QMM_TYPE_IQ2_S: return 2 * ((((const qmm_block_iq2_s *)block)->scales[ib] >> (4 * half)) & 15) + 1;
    case QMM_TYPE_IQ3_XXS: return 2 * (int)(qmm_get32(((const qmm_block_iq3_xxs *)block)->signs + 4 * ib) >> 28) + 1;
    case QMM_TYPE_IQ3_S: return 2 * ((((const qmm_block_iq3_s *)block)->scales[ib / 2] >> (4 * (ib % 2))) & 15) + 1;
    case QMM_TYPE_IQ1_S: return 2 * ((((const qmm_block_iq1_s *)block)->qh[ib] >> 12) & 7) + 1;
    case QMM_TYPE_IQ1_M:
        return 2 * ((qmm_get16(((const qmm_block_iq1_m *)block)->scales + 2 * (i / 4)) >> (3 * (i % 4))) & 7) + 1;
    default: return 1; /* TQ1_0, TQ2_0 */
    }
}

/* ggml's float formulas, per super-block: the scale of each element's group
 * first (one rounding), then times the level (one more), the sign exact. */
static void dequantize_block(qmm_type t, const void *block, float *y) {
    const float d = qmm_fp16_to_fp32(qmm_iq_d_bits(t, block));
    for (int l = 0; l < 256; l++) {
        const int w = qmm_iq_level(t, block, l), sc = qmm_iq_subscale(t, block, l / 16);
        const float sign = w < 0 ? -1.0f : 1.0f;
        const int mag = w < 0 ? -w : w;
        switch (t) {
        case QMM_TYPE_IQ2_XXS:
        case QMM_TYPE_IQ2_XS:
        case QMM_TYPE_IQ2_S: /* d * (0.5 + ls) * 0.25, ls = (sc - 1) / 2 */
            y[l] = d * (0.5f + (float)((sc - 1) / 2)) * 0.25f * (float)mag * sign;
            break;
        case QMM_TYPE_IQ3_XXS: y[l] = d * (0.5f + (float)((sc - 1) / 2)) * 0.5f * (float)mag * sign; break;
        case QMM_TYPE_IQ3_S: y[l] = d * (float)sc * (float)mag * sign; break;
        case QMM_TYPE_IQ1_S:
        case QMM_TYPE_IQ1_M: { /* d * (2 s + 1) * (g + delta), delta = +-0.125 */
            int neg;
            const int g = iq1_grid(t, block, l, &neg);
            y[l] = d * (float)sc * ((float)g + (neg ? -0.125f : 0.125f));
            break;
        }
        default: y[l] = (float)w * d; break; /* TQ1_0, TQ2_0 */
        }
    }
}

void qmm_dequantize_row_iq(qmm_type t, const void *src, float *dst, int64_t k) {
    const size_t bytes = qmm_type_block_bytes(t);
    for (int64_t b = 0; b < k / 256; b++)
        dequantize_block(t, (const char *)src + (size_t)b * bytes, dst + b * 256);
}
