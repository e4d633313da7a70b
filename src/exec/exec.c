/* Scheduling: per-slot activation packing, the dynamic column-chunk queue,
 * and the hybrid split of threads between a capped primary family and its
 * fallback. All partition arithmetic is int64_t/size_t: correct for any
 * thread count and any n (both broke the reference design's users). The
 * result never depends on the schedule: no output's sum is split, so every
 * thread count, chunking and split gives the same bits. */
#include "exec/exec.h"

#include <string.h>

#include "base/error.h"

#define ALIGN   64
#define M_BLOCK 128 /* activation rows per kernel call: keeps them in L2 */

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
static int64_t lcm64(int64_t a, int64_t b) { return a / gcd64(a, b) * b; }

int64_t qmm_chunk_cols(int64_t n, int nth, int mult, int64_t step) {
    const int64_t divisor = (int64_t)nth * (nth == 1 ? 1 : (mult < 1 ? 1 : mult));
    int64_t c = ceil_div(n, divisor);
    if (c < 1)
        c = 1;
    c = ceil_div(c, step) * step;
    return c;
}

/* ------------------------------------------------------------------ plans */

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

/* Which slots run, on which threads: the reference design's rules. With a
 * capped primary and a fallback slot, hybrid runs when there are more threads
 * than the cap and enough rows and columns to share; small work runs on one
 * family: the fallback when threads exceed the cap, else the primary. */
static void plan_slots(const qmm_exec_config *cfg, const qmm_family *const *kf, const uint8_t *const *data, int nslots, int64_t m,
                       int64_t n, int nth, mm_plan *p) {
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

static void plan_acts(mm_plan *p, int nth, int mult, size_t base) {
    size_t off = align_up(base, ALIGN);
    int64_t step = 1;
    for (int i = 0; i < p->nslots; i++) {
        slot_plan *s = &p->s[i];
        s->al = qmm_family_act_layout(s->kf, p->gemv);
        s->act_batch = align_up(s->al->packed_size(p->m, p->k), ALIGN);
        s->act_off = off;
        off += s->act_batch * (size_t)p->nbatch;
        step = lcm64(step, s->kf->n_step);
    }
    p->work = off;
    p->chunk_cols = qmm_chunk_cols(p->n, nth, mult, step);
    p->nchunk = ceil_div(p->n, p->chunk_cols);
}

static void plan_mul_mat(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, int nth, mm_plan *p) {
    memset(p, 0, sizeof *p);
    p->k = w->k;
    p->n = w->n;
    p->m = x->ne[1];
    p->b2 = x->ne[2];
    p->nbatch = x->ne[2] * x->ne[3];
    p->gemv = (p->m == 1);
    plan_slots(cfg, w->kf, w->data, w->nslots, p->m, p->n, nth, p);
    plan_acts(p, nth, cfg->chunk_multiplier, 0);
}

/* Packs this thread's share of every slot's activations: units are row groups
 * (of the layout's m_step) over all batches, split evenly over all threads. */
static void pack_acts(const mm_plan *p, const qmm_tensor *x, uint8_t *work, int ith, int nth) {
    for (int si = 0; si < p->nslots; si++) {
        const slot_plan *s = &p->s[si];
        const int64_t ms = s->al->m_step;
        const int64_t groups = ceil_div(p->m, ms);
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

static int slot_of(const mm_plan *p, int ith) {
    for (int i = 0; i < p->nslots; i++)
        if (ith >= p->s[i].t0 && ith < p->s[i].t1)
            return i;
    return 0;
}

/* One column chunk of one batch on one slot. */
static void run_chunk(const mm_plan *p, const slot_plan *s, const uint8_t *act, int64_t n0, int64_t cols, float *y_batch,
                      size_t y_nb1) {
    const qmm_family *kf = s->kf;
    const uint8_t *wp = s->w + kf->w_packed_offset(n0, p->k);
    if (p->gemv) {
        if (kf->gemv)
            kf->gemv(cols, p->k, act, wp, y_batch + n0);
        else
            kf->gemm(1, cols, p->k, act, wp, y_batch + n0, y_nb1);
        return;
    }
    const int64_t mb = (int64_t)align_up(M_BLOCK, (size_t)s->al->m_step);
    for (int64_t r0 = 0; r0 < p->m; r0 += mb) {
        const int64_t rows = p->m - r0 < mb ? p->m - r0 : mb;
        kf->gemm(rows, cols, p->k, act + s->al->packed_offset(r0, p->k), wp, (float *)((char *)y_batch + (size_t)r0 * y_nb1) + n0,
                 y_nb1);
    }
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
    const slot_plan *s = &p.s[slot_of(&p, ith)];
    for (int64_t c = ith; c < p.nchunk; c = sync->counter_fetch_add(sync->user, 1)) {
        const int64_t n0 = c * p.chunk_cols;
        const int64_t cols = p.n - n0 < p.chunk_cols ? p.n - n0 : p.chunk_cols;
        for (int64_t b = 0; b < p.nbatch; b++) {
            const int64_t i2 = b % p.b2, i3 = b / p.b2;
            float *yb = (float *)((char *)y->data + (size_t)i2 * y->nb[2] + (size_t)i3 * y->nb[3]);
            run_chunk(&p, s, wb + s->act_off + s->act_batch * (size_t)b, n0, cols, yb, y->nb[1]);
        }
    }
}

/* -------------------------------------------------------------- GET_ROWS */

void qmm_exec_get_rows(const qmm_weights *w, const qmm_tensor *ids, const qmm_tensor *out, int ith, int nth) {
    const qmm_family *kf = w->kf[0];
    const int64_t nr = ids->ne[0] * ids->ne[1] * ids->ne[2];
    const int64_t r0 = nr * ith / nth, r1 = nr * (ith + 1) / nth;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i0 = r % ids->ne[0], i1 = (r / ids->ne[0]) % ids->ne[1], i2 = r / (ids->ne[0] * ids->ne[1]);
        const int32_t id = *(const int32_t *)((const char *)ids->data + (size_t)i0 * ids->nb[0] + (size_t)i1 * ids->nb[1] +
                                              (size_t)i2 * ids->nb[2]);
        float *dst = (float *)((char *)out->data + (size_t)i0 * out->nb[1] + (size_t)i1 * out->nb[2] + (size_t)i2 * out->nb[3]);
        kf->w_read_row(w->data[0], w->k, w->n, id, dst);
    }
}

/* ---------------------------------------------------- F16, packed per call */

typedef struct f16_plan {
    mm_plan mm;
    int64_t nwb, bw2, r2, r3; /* weight batches, broadcast ratios */
    size_t w_off, w_batch;    /* packed weights in the work buffer */
    int64_t panels_per_unit;
} f16_plan;

static void plan_f16(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, int nth, f16_plan *fp) {
    memset(fp, 0, sizeof *fp);
    mm_plan *p = &fp->mm;
    const qmm_chain *ch = qmm_dispatch_chain(cfg->dispatch, QMM_TYPE_F16);
    /* one family: weights packed per call are not worth two layouts */
    const qmm_family *kf = ch->primary;
    const int cap = qmm_dispatch_cap(cfg->dispatch, kf);
    if (cap > 0 && nth > cap && ch->fallback)
        kf = ch->fallback;
    p->k = w->ne[0];
    p->n = w->ne[1];
    p->m = x->ne[1];
    p->b2 = x->ne[2];
    p->nbatch = x->ne[2] * x->ne[3];
    p->gemv = (p->m == 1);
    p->nslots = 1;
    p->s[0].kf = kf;
    p->s[0].t0 = 0;
    p->s[0].t1 = nth;
    fp->bw2 = w->ne[2];
    fp->nwb = w->ne[2] * w->ne[3];
    fp->r2 = x->ne[2] / w->ne[2];
    fp->r3 = x->ne[3] / w->ne[3];
    fp->w_batch = align_up(kf->w_packed_size(p->k, p->n), ALIGN);
    fp->w_off = 0;
    plan_acts(p, nth, cfg->chunk_multiplier, fp->w_batch * (size_t)fp->nwb);
    /* chunks run over (x batch, columns): size them by the whole work */
    const int64_t step = kf->n_step;
    const int64_t per_batch = ceil_div((int64_t)nth * (nth == 1 ? 1 : cfg->chunk_multiplier), p->nbatch);
    p->chunk_cols = qmm_chunk_cols(p->n, (int)(per_batch < 1 ? 1 : per_batch), 1, step);
    p->nchunk = ceil_div(p->n, p->chunk_cols) * p->nbatch;
    fp->panels_per_unit = ceil_div(256, step) > 0 ? ceil_div(256, step) : 1; /* ~256 rows per packing unit */
}

size_t qmm_exec_mul_mat_f16_work_size(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, int nth) {
    f16_plan fp;
    plan_f16(cfg, w, x, nth, &fp);
    return fp.mm.work;
}

void qmm_exec_mul_mat_f16(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                          int nth, void *work, const qmm_sync *sync) {
    f16_plan fp;
    plan_f16(cfg, w, x, nth, &fp);
    mm_plan *p = &fp.mm;
    const qmm_family *kf = p->s[0].kf;
    uint8_t *wb = work;
    /* pack the weights of every weight batch, in row ranges, in parallel */
    const int64_t rows_per_unit = fp.panels_per_unit * kf->n_step;
    const int64_t units_per_wb = ceil_div(p->n, rows_per_unit);
    const int64_t units = units_per_wb * fp.nwb;
    for (int64_t u = units * ith / nth; u < units * (ith + 1) / nth; u++) {
        const int64_t b = u / units_per_wb, r0 = (u % units_per_wb) * rows_per_unit;
        const int64_t r1 = r0 + rows_per_unit < p->n ? r0 + rows_per_unit : p->n;
        const int64_t i2 = b % fp.bw2, i3 = b / fp.bw2;
        const char *src = (const char *)w->data + (size_t)i2 * w->nb[2] + (size_t)i3 * w->nb[3];
        kf->w_pack(p->k, p->n, r0, r1, src, w->nb[1], wb + fp.w_off + fp.w_batch * (size_t)b);
    }
    pack_acts(p, x, wb, ith, nth);
    if (ith == 0)
        sync->counter_store(sync->user, nth);
    sync->barrier(sync->user);
    const slot_plan *s = &p->s[0];
    const int64_t cpb = ceil_div(p->n, p->chunk_cols); /* chunks per x batch */
    for (int64_t c = ith; c < p->nchunk; c = sync->counter_fetch_add(sync->user, 1)) {
        const int64_t b = c / cpb, n0 = (c % cpb) * p->chunk_cols;
        const int64_t cols = p->n - n0 < p->chunk_cols ? p->n - n0 : p->chunk_cols;
        const int64_t i2 = b % p->b2, i3 = b / p->b2;
        const int64_t wbi = (i2 / fp.r2) + (i3 / fp.r3) * fp.bw2;
        slot_plan sw = *s;
        sw.w = wb + fp.w_off + fp.w_batch * (size_t)wbi;
        float *yb = (float *)((char *)y->data + (size_t)i2 * y->nb[2] + (size_t)i3 * y->nb[3]);
        run_chunk(p, &sw, wb + s->act_off + s->act_batch * (size_t)b, n0, cols, yb, y->nb[1]);
    }
}
