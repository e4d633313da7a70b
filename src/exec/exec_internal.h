/* What the operations of src/exec/ share: the plan of a MUL_MAT-like call
 * (which slots run on which threads, the column chunks, the activation
 * buffers) and the kernel calls over packed rows. Internal to exec/. */
#ifndef QMM_EXEC_INTERNAL_H
#define QMM_EXEC_INTERNAL_H

#include "exec/exec.h"

#define QMM_EXEC_ALIGN   64
#define QMM_EXEC_M_BLOCK 128 /* activation rows per kernel call: keeps them in L2 */

static inline size_t qmm_exec_align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
static inline int64_t qmm_exec_ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
/* Reserves bytes at *off in a work buffer (64-byte aligned pieces). */
static inline size_t qmm_exec_take(size_t *off, size_t bytes) {
    const size_t at = *off;
    *off = qmm_exec_align_up(at + bytes, QMM_EXEC_ALIGN);
    return at;
}
static inline int64_t qmm_exec_lcm64(int64_t a, int64_t b) {
    int64_t x = a, y = b;
    while (y) {
        const int64_t t = x % y;
        x = y;
        y = t;
    }
    return a / x * b;
}

typedef struct slot_plan {
    const qmm_family *kf;
    const qmm_act_layout *al;
    const uint8_t *w; /* packed weights of this slot */
    int t0, t1;       /* threads [t0, t1) run this slot */
    size_t act_off;   /* in the work buffer */
    size_t act_batch; /* bytes per activation batch */
} slot_plan;

typedef struct mm_plan {
    int nslots;
    slot_plan s[QMM_MAX_SLOTS];
    int64_t m, n, k, nbatch, b2;
    int gemv;
    int64_t chunk_cols, nchunk;
    size_t work;
} mm_plan;

/* Activation rows per GEMM call for layout al: QMM_EXEC_M_BLOCK, whole groups. */
static inline int64_t qmm_exec_m_block(const qmm_act_layout *al) {
    return (int64_t)qmm_exec_align_up(QMM_EXEC_M_BLOCK, (size_t)al->m_step);
}

/* mul_mat.c */
void qmm_exec_plan_slots(const qmm_exec_config *cfg, const qmm_family *const *kf, const uint8_t *const *data, int nslots,
                         int64_t m, int64_t n, int nth, mm_plan *p);
void qmm_exec_plan_chunks(mm_plan *p, int nth, int mult);
int qmm_exec_slot_of(const mm_plan *p, int ith);
void qmm_exec_run_rows(const qmm_family *kf, const qmm_act_layout *al, int gemv, int64_t m, int64_t k, const uint8_t *act,
                       const uint8_t *wp, int64_t cols, float *y, size_t y_nb1);

#endif
