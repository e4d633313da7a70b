/* IQ4_XS x int8 activations with smmla (Armv8.6 i8mm): 4 weight rows x up to 4 activation rows per tile; per
 * super-block the fp16 d and the 8 sub-scales as int8, the nibbles become int8 levels by tbl (neon_table.h), smmla
 * as neon_i8mm_iq4_nl, then the sub-scale times the exact block dot. */
#include "kernels/arm/neon_table.h"

static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    qmm_neon_table_tile_smmla(QMM_NEON_T_IQ4_XS, mc, nb, a, w, out);
}

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the dotprod family */
QMM_NEON_INT8_FAMILY(neon_i8mm_iq4_xs, QMM_TYPE_IQ4_XS, iq4_xs, QMM_NEON_IQ4_XS_BLK, QMM_NEON_PAIRS, 8,
                     QMM_CPU_NEON | QMM_CPU_DOTPROD | QMM_CPU_I8MM, QMM_CPU_I8MM, tile)
