/* MUL_MAT: the plans every operation shares (which slots run on which
 * threads, column chunks, activation packing) and the MUL_MAT compute. The
 * result never depends on the schedule: no output's sum is split, so every
 * thread count, chunking and split gives the same bits. All partition
 * arithmetic is int64_t / size_t: correct for any thread count and any n. */
#include "exec/exec_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

int64_t qmm_chunk_cols(int64_t n, int nth, int mult, int64_t step) {
    const int64_t divisor = (int64_t)nth * (nth == 1 ? 1 : (mult < 1 ? 1 : mult));
    int64_t c = qmm_exec_ceil_div(n, divisor);
    if (c < 1)
        c = 1;
    c = qmm_exec_ceil_div(c, step) * step;
    return c;
}

/* ------------------------------------------------------------------ plans */

/* Which slots run, on which threads: the reference design's rules. With a
 * capped primary and a fallback slot, hybrid runs when there are more threads
 * than the cap and enough rows and columns to share; small work runs on one
 * family: the fallback when threads exceed the cap, else the primary. */
void qmm_exec_plan_slots(const qmm_exec_config *cfg, const qmm_family *const *kf, const uint8_t *const *data, int nslots,
                         int64_t m, int64_t n, int nth, mm_plan *p) {
    const int cap = qmm_dispatch_cap(cfg->dispatch, kf[0]);
    int use = 0; /* slot index when single */
    int hybrid = 0;
    if (nslots > 1 && cap > 0 && nth > cap) {
        const int64_t cols_per_thread = n / nth > 1 ? n / nth : 1;
        const int too_small = cols_per_thread < 2 || m < 128;
        if (too_small)
            use = 1;
        else
            hybrid = 1;
    }
    if (hybrid) {
        p->nslots = 2;
        for (int i = 0; i < 2; i++) {
            p->s[i].kf = kf[i];
            p->s[i].w = data[i];
        }
        p->s[0].t0 = 0;
        p->s[0].t1 = cap;
        p->s[1].t0 = cap;
        p->s[1].t1 = nth;
    } else {
        p->nslots = 1;
        p->s[0].kf = kf[use];
        p->s[0].w = data[use];
        p->s[0].t0 = 0;
        p->s[0].t1 = nth;
    }
}

/* Column chunks of the n columns: about mult per thread, starting on every
 * slot's panel (the lcm of their n_step). */
void qmm_exec_plan_chunks(mm_plan *p, int nth, int mult) {
    int64_t step = 1;
    for (int i = 0; i < p->nslots; i++)
        step = qmm_exec_lcm64(step, p->s[i].kf->n_step);
    p->chunk_cols = qmm_chunk_cols(p->n, nth, mult, step);
    p->nchunk = qmm_exec_ceil_div(p->n, p->chunk_cols);
}

static void plan_acts(mm_plan *p, int nth, int mult, size_t base) {
    size_t off = qmm_exec_align_up(base, QMM_EXEC_ALIGN);
    for (int i = 0; i < p->nslots; i++) {
        slot_plan *s = &p->s[i];
        s->al = qmm_family_act_layout(s->kf, p->gemv);
        s->act_batch = qmm_exec_align_up(s->al->packed_size(p->m, p->k), QMM_EXEC_ALIGN);
        s->act_off = off;
        off += s->act_batch * (size_t)p->nbatch;
    }
    p->work = off;
    qmm_exec_plan_chunks(p, nth, mult);
}

/* An fp GEMM chunk re-reads all its activation rows (up to an m block: 128
 * rows x k fp32, 1 MiB at k = 2048) for the chunk's columns, FMA-bound work
 * that keeps up only if the chunk reuses them over enough weight panels: 64
 * columns (n = 512 on 2 threads) ran k/v at ~60% of the FMA limit, 128 at
 * 75-80% (F32, stop 27). At least FP_GEMM_MIN_COLS columns (the AVX-512 F32
 * column block), but never fewer chunks than threads. The int8 families
 * (activations a quarter of the bytes) and GEMV keep the plain chunking. */
#define FP_GEMM_MIN_COLS 256
#define FP_GEMM_MIN_ROWS 32 /* below, the weights' stream dominates: more chunks balance it better */

static void widen_fp_gemm_chunks(mm_plan *p, int nth) {
    if (p->gemv || p->m < FP_GEMM_MIN_ROWS || p->chunk_cols >= FP_GEMM_MIN_COLS)
        return;
    int64_t step = 1;
    for (int i = 0; i < p->nslots; i++) {
        const qmm_type t = p->s[i].kf->wtype;
        if (t != QMM_TYPE_F32 && t != QMM_TYPE_F16 && t != QMM_TYPE_BF16)
            return;
        step = qmm_exec_lcm64(step, p->s[i].kf->n_step);
    }
    const int64_t one_per_thread = qmm_chunk_cols(p->n, nth, 1, step);
    int64_t cols = qmm_exec_ceil_div(FP_GEMM_MIN_COLS, step) * step;
    if (cols > one_per_thread)
        cols = one_per_thread;
    if (cols > p->chunk_cols) {
        p->chunk_cols = cols;
        p->nchunk = qmm_exec_ceil_div(p->n, cols);
    }
}

static void plan_mul_mat(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, int nth, mm_plan *p) {
    memset(p, 0, sizeof *p);
    p->k = w->k;
    p->n = w->n;
    p->m = x->ne[1];
    p->b2 = x->ne[2];
    p->nbatch = x->ne[2] * x->ne[3];
    p->gemv = (p->m == 1);
    qmm_exec_plan_slots(cfg, w->kf, w->data, w->nslots, p->m, p->n, nth, p);
    plan_acts(p, nth, cfg->chunk_multiplier, 0);
    widen_fp_gemm_chunks(p, nth);
}

/* Packs this thread's share of every slot's activations: units are row groups
 * (of the layout's m_step) over all batches, split evenly over all threads. */
static void pack_acts(const mm_plan *p, const qmm_tensor *x, uint8_t *work, int ith, int nth) {
    for (int si = 0; si < p->nslots; si++) {
        const slot_plan *s = &p->s[si];
        const int64_t ms = s->al->m_step;
        const int64_t groups = qmm_exec_ceil_div(p->m, ms);
        const int64_t units = groups * p->nbatch;
        const int64_t u0 = units * ith / nth, u1 = units * (ith + 1) / nth;
        for (int64_t u = u0; u < u1; u++) {
            const int64_t b = u / groups, g = u % groups;
            const int64_t i2 = b % p->b2, i3 = b / p->b2;
            const int64_t r0 = g * ms;
            const int64_t rows = p->m - r0 < ms ? p->m - r0 : ms;
            const float *src =
                (const float *)((const char *)x->data + (size_t)i2 * x->nb[2] + (size_t)i3 * x->nb[3] + (size_t)r0 * x->nb[1]);
            uint8_t *dst = work + s->act_off + s->act_batch * (size_t)b + s->al->packed_offset(r0, p->k);
            s->al->pack(rows, p->k, src, x->nb[1], dst);
        }
    }
}

int qmm_exec_slot_of(const mm_plan *p, int ith) {
    for (int i = 0; i < p->nslots; i++)
        if (ith >= p->s[i].t0 && ith < p->s[i].t1)
            return i;
    return 0;
}

/* m packed activation rows (layout al: the GEMV one when gemv) times the
 * columns [0, cols) of the weight panel wp, into y (column 0 of row 0; rows
 * y_nb1 bytes apart). MUL_MAT's chunks and MUL_MAT_ID's items both run here. */
void qmm_exec_run_rows(const qmm_family *kf, const qmm_act_layout *al, int gemv, int64_t m, int64_t k, const uint8_t *act,
                       const uint8_t *wp, int64_t cols, float *y, size_t y_nb1) {
    if (gemv) {
        if (kf->gemv)
            kf->gemv(cols, k, act, wp, y);
        else
            kf->gemm(1, cols, k, act, wp, y, y_nb1);
        return;
    }
    const int64_t mb = qmm_exec_m_block(al);
    for (int64_t r0 = 0; r0 < m; r0 += mb) {
        const int64_t rows = m - r0 < mb ? m - r0 : mb;
        kf->gemm(rows, cols, k, act + al->packed_offset(r0, k), wp, (float *)((char *)y + (size_t)r0 * y_nb1), y_nb1);
    }
}

/* Activation row blocks per (chunk, batch). A GEMM's work items are (chunk,
 * batch, row block): a chunk of 256 columns at m = 512 is four kernel calls,
 * and handed out one call at a time they keep every thread busy to the end,
 * where whole chunks left one idle (k / v: 4 chunks for 2 threads). Hybrid
 * plans keep whole chunks: their slots' row blocks may differ. */
static int64_t row_blocks(const mm_plan *p) {
    if (p->gemv || p->nslots > 1)
        return 1;
    const int64_t mb = qmm_exec_m_block(p->s[0].al);
    return (p->m + mb - 1) / mb;
}

/* Item it of the plan: its chunk of columns, batch and row block. */
static void run_item(const mm_plan *p, const slot_plan *s, const uint8_t *work, int64_t nrb, int64_t it, const qmm_tensor *y) {
    const int64_t per_chunk = p->nbatch * nrb;
    const int64_t c = it / per_chunk, b = it % per_chunk / nrb, rb = it % nrb;
    const int64_t n0 = c * p->chunk_cols;
    const int64_t cols = p->n - n0 < p->chunk_cols ? p->n - n0 : p->chunk_cols;
    const int64_t i2 = b % p->b2, i3 = b / p->b2;
    const uint8_t *act = work + s->act_off + s->act_batch * (size_t)b;
    float *yb = (float *)((char *)y->data + (size_t)i2 * y->nb[2] + (size_t)i3 * y->nb[3]) + n0;
    const uint8_t *wp = s->w + s->kf->w_packed_offset(n0, p->k);
    if (nrb == 1) { /* GEMV or hybrid: the whole chunk */
        qmm_exec_run_rows(s->kf, s->al, p->gemv, p->m, p->k, act, wp, cols, yb, y->nb[1]);
        return;
    }
    const int64_t mb = qmm_exec_m_block(s->al), r0 = rb * mb, rows = p->m - r0 < mb ? p->m - r0 : mb;
    s->kf->gemm(rows, cols, p->k, act + s->al->packed_offset(r0, p->k), wp, (float *)((char *)yb + (size_t)r0 * y->nb[1]),
                y->nb[1]);
}

size_t qmm_exec_mul_mat_work_size(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, int nth) {
    mm_plan p;
    plan_mul_mat(cfg, w, x, nth, &p);
    return p.work;
}

void qmm_exec_mul_mat(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                      int nth, void *work, const qmm_sync *sync) {
    mm_plan p;
    plan_mul_mat(cfg, w, x, nth, &p);
    uint8_t *wb = work;
    if (ith == 0 && qmm_log_level() >= QMM_LOG_DEBUG)
        qmm_log(QMM_LOG_DEBUG, "mul_mat %lld x %lld x %lld (x%lld): %s on threads [%d, %d)%s%s%s, %lld chunks of %lld columns",
                (long long)p.m, (long long)p.n, (long long)p.k, (long long)p.nbatch, p.s[0].kf->name, p.s[0].t0, p.s[0].t1,
                p.nslots > 1 ? " + " : "", p.nslots > 1 ? p.s[1].kf->name : "", p.nslots > 1 ? " (hybrid)" : "",
                (long long)p.nchunk, (long long)p.chunk_cols);
    pack_acts(&p, x, wb, ith, nth);
    if (ith == 0)
        sync->counter_store(sync->user, nth);
    sync->barrier(sync->user); /* publishes the packed activations and the queue */
    const slot_plan *s = &p.s[qmm_exec_slot_of(&p, ith)];
    const int64_t nrb = row_blocks(&p), nitem = p.nchunk * p.nbatch * nrb;
    for (int64_t it = ith; it < nitem; it = sync->counter_fetch_add(sync->user, 1))
        run_item(&p, s, wb, nrb, it, y);
}
