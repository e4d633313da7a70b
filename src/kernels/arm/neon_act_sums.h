/* The NEON int8 activation layout with block sums, for the families whose
 * weights have a min or a zero point that needs sum q_x (neon_legacy_body.h:
 * Q4_1, Q5_1; neon_k_quant_body.h: Q2_K, Q4_K, Q5_K). Groups of 4 rows as
 * neon_common.h's layout (m_step = 4; a short group is padded with zero
 * rows); per 32-block, QMM_NEON_ACT_SUMS_BLK = 160 bytes:
 * - float d[4]: the blocks' d, row r at 4 r (as neon_common.h);
 * - int16 sum16[8]: the sum of q over elements 16 h .. 16 h + 15 of row r at
 *   2 (2 r + h), exact (|.| <= 2032);
 * - 128 bytes of int8 quants at 32, in the arrangement (ROWS4 or PAIRS) of
 *   neon_common.h.
 * The sums are computed once per activation block here, not once per weight
 * panel in the tile. Per-16 halves so that a type with per-16 mins (Q2_K)
 * can use them too; adding the two gives the per-32 sums. The packer is
 * neon_common.h's (qmm_neon_act_layout_pack with with_sums = 1). */
#ifndef QMM_NEON_ACT_SUMS_H
#define QMM_NEON_ACT_SUMS_H

#include "kernels/arm/neon_common.h"

#define QMM_NEON_ACT_SUMS_BLK 160 /* bytes per block of an activation group: 16 + 16 + 128 */
#define QMM_NEON_ACT_SUMS_Q   32  /* offset of the quants in a block */

_Static_assert(QMM_NEON_ACT_SUMS_BLK == 160, "the with_sums layout of neon_common.h's packer");

#endif
