/* IQ4_NL x int8 activations with sdot (Armv8.2 dotprod): 4 weight rows x up to 4 activation rows per tile; the
 * nibbles become int8 levels by tbl (neon_table.h), then sdot by lane as neon_dotprod_q4_0. */
#include "kernels/arm/neon_table.h"

static inline __attribute__((always_inline)) void tile(const int mc, int64_t nb, const uint8_t *a, const uint8_t *w,
                                                       float32x4_t out[QMM_NEON_MR]) {
    qmm_neon_table_tile_sdot(QMM_NEON_T_IQ4_NL, mc, nb, a, w, out);
}

/* fallback_hides: masked off for QMM_CAP hybrid runs, whose fallback is then the reference */
QMM_NEON_INT8_FAMILY(neon_dotprod_iq4_nl, QMM_TYPE_IQ4_NL, iq4_nl, QMM_NEON_IQ4_NL_BLK, QMM_NEON_ROWS4, 4,
                     QMM_CPU_NEON | QMM_CPU_DOTPROD, QMM_CPU_DOTPROD, tile)
