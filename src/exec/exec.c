/* Scheduling: per-slot activation packing, the dynamic column-chunk queue,
 * and the hybrid split of threads between a capped primary family and its
 * fallback. All partition arithmetic is int64_t/size_t: correct for any
 * thread count and any n (both broke the reference design's users). The
 * result never depends on the schedule: no output's sum is split, so every
 * thread count, chunking and split gives the same bits. */
#include "exec/exec.h"

#include <stdlib.h>
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

/* Column chunks of the n columns: about mult per thread, starting on every
 * slot's panel (the lcm of their n_step). */
static void plan_chunks(mm_plan *p, int nth, int mult) {
    int64_t step = 1;
    for (int i = 0; i < p->nslots; i++)
        step = lcm64(step, p->s[i].kf->n_step);
    p->chunk_cols = qmm_chunk_cols(p->n, nth, mult, step);
    p->nchunk = ceil_div(p->n, p->chunk_cols);
}

static void plan_acts(mm_plan *p, int nth, int mult, size_t base) {
    size_t off = align_up(base, ALIGN);
    for (int i = 0; i < p->nslots; i++) {
        slot_plan *s = &p->s[i];
        s->al = qmm_family_act_layout(s->kf, p->gemv);
        s->act_batch = align_up(s->al->packed_size(p->m, p->k), ALIGN);
        s->act_off = off;
        off += s->act_batch * (size_t)p->nbatch;
    }
    p->work = off;
    plan_chunks(p, nth, mult);
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

/* Activation rows per GEMM call for layout al: M_BLOCK, whole groups. */
static int64_t m_block(const qmm_act_layout *al) { return (int64_t)align_up(M_BLOCK, (size_t)al->m_step); }

/* m packed activation rows (layout al: the GEMV one when gemv) times the
 * columns [0, cols) of the weight panel wp, into y (column 0 of row 0; rows
 * y_nb1 bytes apart). MUL_MAT's chunks and MUL_MAT_ID's items both run here. */
static void run_rows(const qmm_family *kf, const qmm_act_layout *al, int gemv, int64_t m, int64_t k, const uint8_t *act,
                     const uint8_t *wp, int64_t cols, float *y, size_t y_nb1) {
    if (gemv) {
        if (kf->gemv)
            kf->gemv(cols, k, act, wp, y);
        else
            kf->gemm(1, cols, k, act, wp, y, y_nb1);
        return;
    }
    const int64_t mb = m_block(al);
    for (int64_t r0 = 0; r0 < m; r0 += mb) {
        const int64_t rows = m - r0 < mb ? m - r0 : mb;
        kf->gemm(rows, cols, k, act + al->packed_offset(r0, k), wp, (float *)((char *)y + (size_t)r0 * y_nb1), y_nb1);
    }
}

/* One column chunk of one batch on one slot. */
static void run_chunk(const mm_plan *p, const slot_plan *s, const uint8_t *act, int64_t n0, int64_t cols, float *y_batch,
                      size_t y_nb1) {
    run_rows(s->kf, s->al, p->gemv, p->m, p->k, act, s->w + s->kf->w_packed_offset(n0, p->k), cols, y_batch + n0, y_nb1);
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
    const int experts = w->n_expert > 1; /* ids [r, n_expert, b2]: row of expert i1 */
    const int64_t nr = ids->ne[0] * ids->ne[1] * ids->ne[2];
    const int64_t r0 = nr * ith / nth, r1 = nr * (ith + 1) / nth;
    for (int64_t r = r0; r < r1; r++) {
        const int64_t i0 = r % ids->ne[0], i1 = (r / ids->ne[0]) % ids->ne[1], i2 = r / (ids->ne[0] * ids->ne[1]);
        const int32_t id = *(const int32_t *)((const char *)ids->data + (size_t)i0 * ids->nb[0] + (size_t)i1 * ids->nb[1] +
                                              (size_t)i2 * ids->nb[2]);
        float *dst = (float *)((char *)out->data + (size_t)i0 * out->nb[1] + (size_t)i1 * out->nb[2] + (size_t)i2 * out->nb[3]);
        kf->w_read_row(w->data[0] + (experts ? (size_t)i1 * w->expert_stride[0] : 0), w->k, w->n, id, dst);
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

/* ------------------------------------------------------------ MUL_MAT_ID */

/* The (u, t) pairs of a call are grouped by expert: thread 0 counting-sorts
 * ids into the work buffer (per expert its list of pairs, the chosen experts
 * ordered by row count, largest first), then every thread
 *  1. quantizes its share of the distinct activation rows once each into a
 *     row table (m = 1 images, the GEMV layout): experts with one row run on
 *     it directly, and where the GEMM layout is that same layout (m_step 1),
 *     the rows of the other experts are copied from it, never requantized;
 *  2. packs its share of the row groups of the experts with several rows
 *     (interleaved GEMM layouts: gathered from x, m_step rows at a time);
 *  3. takes (expert, column chunk) items from one shared counter: each chosen
 *     expert is cut in MUL_MAT's column chunks and the items run heaviest
 *     expert first, so uneven routing leaves no thread idle; an expert's rows
 *     run as one GEMM (its weights stream once) into a per-thread block that
 *     is scattered to the rows of y. Unchosen experts are never read.
 * Each output is one kernel call's sum, as in MUL_MAT: the bits never depend
 * on the grouping, the schedule or the slot. */

typedef struct id_plan {
    mm_plan mm;          /* slots, k, n, column chunks; mm.m = the pairs */
    int64_t ne, nu, nt;  /* experts, slots per token U, tokens T */
    int64_t xr;          /* x rows per token: 1 (shared) or U */
    int64_t pairs, rows; /* U T, distinct x rows xr T */
    size_t cnt_off, start_off, list_off, eid_off, key_off, order_off, need_off, eoff_off, hdr_off;
    size_t row_off[QMM_MAX_SLOTS], row_stride[QMM_MAX_SLOTS]; /* the row table */
    size_t exp_off[QMM_MAX_SLOTS];                            /* GEMM activations of the experts with several rows */
    int copy_rows[QMM_MAX_SLOTS];                             /* GEMM layout == row layout: copy rows from the table */
    size_t tmp_off, tmp_stride;                               /* per thread: an output block, or a staging block */
} id_plan;

/* Written by thread 0 in the work buffer, read by all after the barrier. */
typedef struct id_routing {
    int64_t nchosen; /* experts with rows */
    int64_t ngemm;   /* of them, those with two or more (a prefix of the order) */
} id_routing;

static size_t take(size_t *off, size_t bytes) {
    const size_t at = *off;
    *off = align_up(at + bytes, ALIGN);
    return at;
}

static void plan_mul_mat_id(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids, int nth,
                            id_plan *ip) {
    memset(ip, 0, sizeof *ip);
    mm_plan *p = &ip->mm;
    ip->ne = w->n_expert;
    ip->nu = ids->ne[0];
    ip->nt = ids->ne[1];
    ip->xr = x->ne[1];
    ip->pairs = ip->nu * ip->nt;
    ip->rows = ip->xr * ip->nt;
    p->k = w->k;
    p->n = w->n;
    p->m = ip->pairs;
    p->nbatch = 1;
    p->b2 = 1;
    plan_slots(cfg, w->kf, w->data, w->nslots, p->m, p->n, nth, p);
    plan_chunks(p, nth, cfg->chunk_multiplier);
    size_t off = 0;
    ip->hdr_off = take(&off, sizeof(id_routing));
    ip->cnt_off = take(&off, (size_t)ip->ne * 4);
    ip->start_off = take(&off, (size_t)ip->ne * 4);
    ip->order_off = take(&off, (size_t)ip->ne * 4);
    ip->key_off = take(&off, (size_t)ip->ne * 8);
    ip->eoff_off = take(&off, (size_t)ip->ne * 8 * (size_t)p->nslots);
    ip->list_off = take(&off, (size_t)ip->pairs * 4);
    ip->eid_off = take(&off, (size_t)ip->pairs * 4);
    ip->need_off = take(&off, (size_t)ip->rows);
    /* the most experts that can have two rows or more */
    const int64_t multi = ip->ne < ip->pairs / 2 ? ip->ne : ip->pairs / 2;
    size_t stage = 0;
    for (int i = 0; i < p->nslots; i++) {
        slot_plan *s = &p->s[i];
        const qmm_act_layout *l1 = qmm_family_act_layout(s->kf, 1);
        s->al = &s->kf->act;
        ip->copy_rows[i] = l1 == s->al && s->al->m_step == 1;
        ip->row_stride[i] = align_up(l1->packed_size(1, p->k), ALIGN);
        ip->row_off[i] = take(&off, ip->row_stride[i] * (size_t)ip->rows);
        /* Packed sizes grow by whole groups of m_step rows: however the
         * pairs split among the experts, theirs sum to at most the size of
         * all pairs plus one group (and the alignment) per expert. */
        if (multi > 0)
            ip->exp_off[i] = take(&off, align_up(s->al->packed_size(ip->pairs, p->k), ALIGN) +
                                            (size_t)multi * (align_up(s->al->packed_size(s->al->m_step, p->k), ALIGN) + ALIGN));
        const size_t out_block = (size_t)m_block(s->al) * (size_t)p->chunk_cols * 4;
        const size_t staging = s->al->m_step > 1 && !ip->copy_rows[i] ? (size_t)s->al->m_step * (size_t)p->k * 4 : 0;
        stage = stage > out_block ? stage : out_block;
        stage = stage > staging ? stage : staging;
    }
    if (multi > 0) {
        ip->tmp_stride = align_up(stage, ALIGN);
        ip->tmp_off = take(&off, ip->tmp_stride * (size_t)nth);
    }
    p->work = off;
}

size_t qmm_exec_mul_mat_id_work_size(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                                     int nth) {
    id_plan ip;
    plan_mul_mat_id(cfg, w, x, ids, nth, &ip);
    return ip.mm.work;
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Pair p = u + U t: its x row (in the row table) and its place in x. */
static int64_t pair_xrow(const id_plan *ip, int64_t p) {
    const int64_t u = p % ip->nu, t = p / ip->nu;
    return t * ip->xr + (ip->xr == 1 ? 0 : u);
}
static const float *xrow_ptr(const id_plan *ip, const qmm_tensor *x, int64_t r) {
    return (const float *)((const char *)x->data + (size_t)(r / ip->xr) * x->nb[2] + (size_t)(r % ip->xr) * x->nb[1]);
}
static float *pair_y(const id_plan *ip, const qmm_tensor *y, int64_t p) {
    return (float *)((char *)y->data + (size_t)(p % ip->nu) * y->nb[1] + (size_t)(p / ip->nu) * y->nb[2]);
}

/* Thread 0: the counting sort of the pairs by expert, the order of the
 * chosen experts, which x rows the row table needs, and where each expert
 * with several rows packs its activations. */
static void route(const id_plan *ip, const qmm_tensor *ids, uint8_t *wb) {
    const mm_plan *p = &ip->mm;
    id_routing *rt = (id_routing *)(wb + ip->hdr_off);
    int32_t *cnt = (int32_t *)(wb + ip->cnt_off), *start = (int32_t *)(wb + ip->start_off);
    int32_t *order = (int32_t *)(wb + ip->order_off), *list = (int32_t *)(wb + ip->list_off);
    int32_t *eid = (int32_t *)(wb + ip->eid_off);
    uint64_t *key = (uint64_t *)(wb + ip->key_off), *eoff = (uint64_t *)(wb + ip->eoff_off);
    uint8_t *need = wb + ip->need_off;
    memset(cnt, 0, (size_t)ip->ne * 4);
    memset(need, 0, (size_t)ip->rows);
    for (int64_t q = 0; q < ip->pairs; q++) {
        const int32_t e =
            *(const int32_t *)((const char *)ids->data + (size_t)(q % ip->nu) * ids->nb[0] + (size_t)(q / ip->nu) * ids->nb[1]);
        /* read once (checked by the api layer): a caller changing ids
         * meanwhile gets wrong rows, never a write out of bounds */
        eid[q] = e >= 0 && e < ip->ne ? e : 0;
        cnt[eid[q]]++;
    }
    int64_t sum = 0, nchosen = 0, ngemm = 0;
    for (int64_t e = 0; e < ip->ne; e++) {
        start[e] = (int32_t)sum;
        order[e] = (int32_t)sum; /* the fill cursor, until the order is written */
        sum += cnt[e];
        if (cnt[e]) /* largest count first, then the lower expert */
            key[nchosen++] = (uint64_t)(ip->pairs - cnt[e]) << 32 | (uint64_t)e;
        ngemm += cnt[e] >= 2;
    }
    for (int64_t q = 0; q < ip->pairs; q++) /* ascending pairs within an expert */
        list[order[eid[q]]++] = (int32_t)q;
    qsort(key, (size_t)nchosen, sizeof *key, cmp_u64);
    for (int64_t i = 0; i < nchosen; i++)
        order[i] = (int32_t)(key[i] & 0xffffffffu);
    for (int si = 0; si < p->nslots; si++) {
        uint64_t at = 0;
        for (int64_t i = 0; i < nchosen; i++) {
            const int32_t e = order[i];
            const int single = cnt[e] == 1;
            if (!single) {
                eoff[(size_t)si * (size_t)ip->ne + (size_t)e] = at;
                at += align_up(p->s[si].al->packed_size(cnt[e], p->k), ALIGN);
            }
            if (single || ip->copy_rows[si])
                for (int32_t j = 0; j < cnt[e]; j++)
                    need[pair_xrow(ip, list[start[e] + j])] |= (uint8_t)(1u << si);
        }
    }
    rt->nchosen = nchosen;
    rt->ngemm = ngemm;
}

/* Rows j0 .. j0 + m - 1 of expert e's list into its GEMM activations on slot s. */
static void pack_expert_rows(const id_plan *ip, const qmm_tensor *x, uint8_t *wb, int si, int32_t e, int64_t j0, int64_t m,
                             float *staging) {
    const mm_plan *p = &ip->mm;
    const qmm_act_layout *al = p->s[si].al;
    const int32_t *start = (const int32_t *)(wb + ip->start_off), *list = (const int32_t *)(wb + ip->list_off);
    const uint64_t *eoff = (const uint64_t *)(wb + ip->eoff_off);
    uint8_t *dst = wb + ip->exp_off[si] + eoff[(size_t)si * (size_t)ip->ne + (size_t)e];
    const int32_t *rows = list + start[e] + j0;
    if (ip->copy_rows[si]) { /* quantized once, in the row table */
        const size_t rb = al->packed_size(1, p->k);
        for (int64_t j = 0; j < m; j++)
            memcpy(dst + al->packed_offset(j0 + j, p->k),
                   wb + ip->row_off[si] + ip->row_stride[si] * (size_t)pair_xrow(ip, rows[j]), rb);
    } else if (al->m_step == 1) {
        for (int64_t j = 0; j < m; j++)
            al->pack(1, p->k, xrow_ptr(ip, x, pair_xrow(ip, rows[j])), x->nb[1], dst + al->packed_offset(j0 + j, p->k));
    } else { /* an interleaved group: its rows gathered first */
        for (int64_t j = 0; j < m; j++)
            memcpy(staging + j * p->k, xrow_ptr(ip, x, pair_xrow(ip, rows[j])), (size_t)p->k * 4);
        al->pack(m, p->k, staging, (size_t)p->k * 4, dst + al->packed_offset(j0, p->k));
    }
}

void qmm_exec_mul_mat_id(const qmm_exec_config *cfg, const qmm_weights *w, const qmm_tensor *x, const qmm_tensor *ids,
                         const qmm_tensor *y, int ith, int nth, void *work, const qmm_sync *sync) {
    id_plan ip;
    plan_mul_mat_id(cfg, w, x, ids, nth, &ip);
    const mm_plan *p = &ip.mm;
    uint8_t *wb = work;
    if (ith == 0)
        route(&ip, ids, wb);
    sync->barrier(sync->user); /* publishes the routing */
    const id_routing *rt = (const id_routing *)(wb + ip.hdr_off);
    const int32_t *cnt = (const int32_t *)(wb + ip.cnt_off), *start = (const int32_t *)(wb + ip.start_off);
    const int32_t *order = (const int32_t *)(wb + ip.order_off), *list = (const int32_t *)(wb + ip.list_off);
    const uint64_t *eoff = (const uint64_t *)(wb + ip.eoff_off);
    const uint8_t *need = wb + ip.need_off;
    float *mine = ip.tmp_stride ? (float *)(wb + ip.tmp_off + ip.tmp_stride * (size_t)ith) : NULL;
    if (ith == 0 && qmm_log_level() >= QMM_LOG_DEBUG)
        qmm_log(QMM_LOG_DEBUG,
                "mul_mat_id %lld pairs x %lld x %lld, %lld of %lld experts (%lld with several rows): %s%s%s, %lld chunks of %lld "
                "columns each",
                (long long)ip.pairs, (long long)p->n, (long long)p->k, (long long)rt->nchosen, (long long)ip.ne,
                (long long)rt->ngemm, p->s[0].kf->name, p->nslots > 1 ? " + " : "", p->nslots > 1 ? p->s[1].kf->name : "",
                (long long)p->nchunk, (long long)p->chunk_cols);
    /* 1. the row table: each needed x row quantized once per slot */
    for (int si = 0; si < p->nslots; si++) {
        const qmm_act_layout *l1 = qmm_family_act_layout(p->s[si].kf, 1);
        for (int64_t r = ip.rows * ith / nth; r < ip.rows * (ith + 1) / nth; r++)
            if (need[r] >> si & 1)
                l1->pack(1, p->k, xrow_ptr(&ip, x, r), x->nb[1], wb + ip.row_off[si] + ip.row_stride[si] * (size_t)r);
    }
    /* 2. the GEMM activations of the experts with several rows, in row
     * groups split evenly over the threads (after the table when copied) */
    if (rt->ngemm > 0) {
        int copies = 0;
        for (int si = 0; si < p->nslots; si++)
            copies |= ip.copy_rows[si];
        if (copies)
            sync->barrier(sync->user);
        for (int si = 0; si < p->nslots; si++) {
            const int64_t ms = p->s[si].al->m_step;
            int64_t groups = 0;
            for (int64_t i = 0; i < rt->ngemm; i++)
                groups += ceil_div(cnt[order[i]], ms);
            const int64_t g0 = groups * ith / nth, g1 = groups * (ith + 1) / nth;
            int64_t g = 0;
            for (int64_t i = 0; i < rt->ngemm && g < g1; i++) {
                const int32_t e = order[i];
                const int64_t eg = ceil_div(cnt[e], ms);
                for (int64_t j = g0 > g ? g0 - g : 0; j < eg && g + j < g1; j++) {
                    const int64_t j0 = j * ms, m = cnt[e] - j0 < ms ? cnt[e] - j0 : ms;
                    pack_expert_rows(&ip, x, wb, si, e, j0, m, mine);
                }
                g += eg;
            }
        }
    }
    if (ith == 0)
        sync->counter_store(sync->user, nth);
    sync->barrier(sync->user); /* publishes the activations and the queue */
    /* 3. (expert, column chunk) items, heaviest expert first */
    const int si = slot_of(p, ith);
    const slot_plan *s = &p->s[si];
    const qmm_act_layout *l1 = qmm_family_act_layout(s->kf, 1);
    /* of the slot's family (a plan slot may run the weights' slot 1) */
    const size_t expert_stride = qmm_blob_expert_stride(s->kf, p->k, p->n);
    const int64_t nitems = rt->nchosen * p->nchunk;
    for (int64_t it = ith; it < nitems; it = sync->counter_fetch_add(sync->user, 1)) {
        const int32_t e = order[it / p->nchunk];
        const int64_t n0 = (it % p->nchunk) * p->chunk_cols;
        const int64_t cols = p->n - n0 < p->chunk_cols ? p->n - n0 : p->chunk_cols;
        const uint8_t *wp = s->w + (size_t)e * expert_stride + s->kf->w_packed_offset(n0, p->k);
        const int32_t *rows = list + start[e];
        if (cnt[e] == 1) {
            const uint8_t *act = wb + ip.row_off[si] + ip.row_stride[si] * (size_t)pair_xrow(&ip, rows[0]);
            run_rows(s->kf, l1, 1, 1, p->k, act, wp, cols, pair_y(&ip, y, rows[0]) + n0, y->nb[1]);
            continue;
        }
        const uint8_t *act = wb + ip.exp_off[si] + eoff[(size_t)si * (size_t)ip.ne + (size_t)e];
        const int64_t mb = m_block(s->al);
        for (int64_t r0 = 0; r0 < cnt[e]; r0 += mb) {
            const int64_t m = cnt[e] - r0 < mb ? cnt[e] - r0 : mb;
            /* the rows of y an expert gets are scattered: a block here, then copied */
            run_rows(s->kf, s->al, 0, m, p->k, act + s->al->packed_offset(r0, p->k), wp, cols, mine, (size_t)cols * 4);
            for (int64_t j = 0; j < m; j++)
                memcpy(pair_y(&ip, y, rows[r0 + j]) + n0, mine + j * cols, (size_t)cols * 4);
        }
    }
}
