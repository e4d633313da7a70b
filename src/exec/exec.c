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
        step = lcm64(step, p->s[i].kf->n_step);
    }
    const int64_t one_per_thread = qmm_chunk_cols(p->n, nth, 1, step);
    int64_t cols = ceil_div(FP_GEMM_MIN_COLS, step) * step;
    if (cols > one_per_thread)
        cols = one_per_thread;
    if (cols > p->chunk_cols) {
        p->chunk_cols = cols;
        p->nchunk = ceil_div(p->n, cols);
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
    plan_slots(cfg, w->kf, w->data, w->nslots, p->m, p->n, nth, p);
    plan_acts(p, nth, cfg->chunk_multiplier, 0);
    widen_fp_gemm_chunks(p, nth);
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

/* ggml's broadcast runs x batch (i2, i3) against weight batch (i2 / r2,
 * i3 / r3): the r2 r3 query heads that share a KV head multiply the same
 * weights, so they run as one group of g = m r2 r3 rows per weight batch
 * (group row ((j3 r2 + j2) m + r) is row r of x batch (w2 r2 + j2, w3 r3 +
 * j3)), and the items are (weight batch, column chunk): each panel streams
 * once per KV head, not once per query head. Two ways to run the items:
 *  - local (g <= QMM_F16_LOCAL_ROWS: decode): a thread packs its group's rows,
 *    then each slice of its chunk's weights into its own buffer right before
 *    using it (a slice stays in L2); items split statically: no shared copy,
 *    no barrier, no second read of a packed K or V;
 *  - shared (prefill, where the product dwarfs the packing): all threads
 *    pack every weight batch (and, when several items reuse them and they
 *    are small, every group's rows), barrier, then take the items from the
 *    queue; otherwise each item packs its rows an m block at a time.
 * Every output is one gemm/gemv sum of one family (the same bits by
 * contract), whatever the grouping, slicing, mode or schedule. */
#ifndef QMM_F16_LOCAL_ROWS
#define QMM_F16_LOCAL_ROWS 16
#endif
#ifndef QMM_F16_SLICE_BYTES
#define QMM_F16_SLICE_BYTES (128 * 1024) /* local: packed weights per slice */
#endif
/* Shared mode packs every group's rows once before the items when several
 * items (column chunks) reuse them and they are small enough to stay in
 * cache (QK^T of 9 / 3 heads: 3 chunks a KV head, 1.5 MiB: 2-3.5% faster than
 * packing per item); otherwise each item packs its m blocks right before
 * using them: PV (k = kv = 2048, 48-64 MiB of rows a KV head) ran 1.45x
 * faster so, and nothing packed waits in memory for the barrier. */
#ifndef QMM_F16_SHARED_ACT_MAX
#define QMM_F16_SHARED_ACT_MAX (4u << 20)
#endif
/* Items of at most this many columns read their rows in place (the family's
 * gemm_rows) rather than packed: PV (64 columns, k = kv) ran 1.12x faster so,
 * PV of head dim 128 1.03x, but QK^T (kv columns, k = 64) 7-10% slower: the
 * in-place tiles run below the packed ones, which many columns repay. */
#ifndef QMM_F16_ROWS_MAX_COLS
#define QMM_F16_ROWS_MAX_COLS 128
#endif
/* Groups of at least this many rows (4 m blocks) get their weights widened
 * once a call (family.h's `wide`), where the family says widening once pays
 * on this CPU (`widen_once`; AVX2 on AMD: no, and measured no different
 * there, docs/performance.md stop 36): prefill attention of 512 and 2048 rows
 * (32 / 8 heads, head dim 64 and 128) ran 1.6-5.9% faster so (AVX2 1-5%);
 * 64 rows (256 and 192 group rows) 5-16% slower on 2 threads, twice the
 * packed bytes crossing between the cores for items of ~10 us. */
#ifndef QMM_F16_WIDE_MIN_ROWS
#define QMM_F16_WIDE_MIN_ROWS 512
#endif
#define F16_TMP_COLS 256 /* columns of a thread's block when y rows are unevenly spaced */

typedef struct f16_plan {
    const qmm_family *kf;     /* the family that runs the items */
    const qmm_family *packer; /* the F16 family chosen (kf, or its wide sibling's source) */
    /* shared mode's weight packer: packer's w_pack, or w_pack_wide into kf's layout */
    void (*w_pack)(int64_t k, int64_t n, int64_t n0, int64_t n1, const void *src, size_t src_row_stride, void *dst);
    const qmm_act_layout *al;
    int64_t k, n, m, g; /* g: rows per group, m r2 r3 */
    int64_t bw2, nwb, r2, r3;
    int gemv, local, direct;         /* direct: local, the family reads w in place */
    int act_local;                   /* shared mode: each item takes its m blocks of rows itself */
    int rows_in_place;               /* act_local and few columns: evenly spaced rows through gemm_rows */
    int64_t chunk_cols, cpw, nitems; /* items: nwb x rpw x cpw (row chunk, column chunk) */
    int64_t chunk_rows, rpw;         /* shared mode: rows of a group by chunks (few columns), else one */
    int64_t slice_cols, tmp_cols;
    size_t act_group;               /* packed bytes of one group's rows */
    size_t w_off, w_batch, act_off; /* shared mode */
    size_t thr_off, thr_stride;     /* per thread: */
    size_t thr_act, thr_slice;      /* local mode: the group's rows, a weight slice */
    size_t thr_tmp;                 /* staging rows or an output block */
    size_t work;
} f16_plan;

static size_t f16_take(size_t *off, size_t bytes) {
    const size_t at = *off;
    *off = align_up(at + bytes, ALIGN);
    return at;
}

/* The items of a call asking for per_wb of them per weight batch: column
 * chunks, or for few columns (PV) chunks of the group's rows, so that each
 * row is read once and the tiles keep their width (9 / 3 heads' PV: 2 chunks
 * of 32 columns read P twice). */
static void f16_cut(f16_plan *fp, int64_t per_wb, int64_t step) {
    fp->chunk_cols = qmm_chunk_cols(fp->n, (int)per_wb, 1, step);
    fp->chunk_rows = fp->g;
    if (!fp->local && fp->n <= QMM_F16_ROWS_MAX_COLS && per_wb > 1) {
        fp->chunk_cols = fp->n;
        const int64_t ms = fp->al->m_step;
        fp->chunk_rows = ceil_div(ceil_div(fp->g, per_wb), ms) * ms;
    }
    fp->cpw = ceil_div(fp->n, fp->chunk_cols);
    fp->rpw = ceil_div(fp->g, fp->chunk_rows);
    fp->nitems = fp->cpw * fp->rpw * fp->nwb;
}

static void plan_f16(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, int nth, f16_plan *fp) {
    memset(fp, 0, sizeof *fp);
    const qmm_chain *ch = qmm_dispatch_chain(cfg->dispatch, QMM_TYPE_F16);
    /* one family: weights packed per call are not worth two layouts */
    const qmm_family *kf = ch->primary;
    const int cap = qmm_dispatch_cap(cfg->dispatch, kf);
    if (cap > 0 && nth > cap && ch->fallback)
        kf = ch->fallback;
    fp->k = w->ne[0];
    fp->n = w->ne[1];
    fp->m = x->ne[1];
    fp->bw2 = w->ne[2];
    fp->nwb = w->ne[2] * w->ne[3];
    fp->r2 = x->ne[2] / w->ne[2];
    fp->r3 = x->ne[3] / w->ne[3];
    fp->g = fp->m * fp->r2 * fp->r3;
    fp->gemv = fp->g == 1;
    fp->local = fp->g <= QMM_F16_LOCAL_ROWS;
    /* shared mode packs the weights once a call: widened, where the family
     * has an F32 sibling (family.h) and the group has the rows of several m
     * blocks, each of which would widen them again; that sibling then runs
     * every item */
    fp->w_pack = kf->w_pack;
    fp->packer = kf;
    if (!fp->local && fp->g >= QMM_F16_WIDE_MIN_ROWS && kf->wide && kf->w_pack_wide && (!kf->widen_once || kf->widen_once())) {
        fp->w_pack = kf->w_pack_wide;
        kf = kf->wide;
    }
    fp->kf = kf;
    fp->al = qmm_family_act_layout(kf, fp->gemv);
    /* about mult items per thread over the whole call */
    const int64_t step = kf->n_step;
    const int mult = nth == 1 ? 1 : (cfg->chunk_multiplier < 1 ? 1 : cfg->chunk_multiplier);
    const int64_t per_wb = ceil_div((int64_t)nth * mult, fp->nwb);
    /* items of one size, in a multiple of the threads where up to nth - 1
     * more asked per weight batch make one (the chunks as cut, rounded to
     * the steps): 3 KV heads x 3 chunks on 2 threads left one thread idle a
     * ninth of the call (SmolLM2's 9 / 3 heads) */
    for (int64_t more = 0; more < (nth > 1 ? nth : 1); more++) {
        f16_cut(fp, per_wb + more, step);
        if (fp->nitems % nth == 0)
            break;
    }
    if (fp->nitems % nth != 0)
        f16_cut(fp, per_wb, step);
    fp->act_group = align_up(fp->al->packed_size(fp->g, fp->k), ALIGN);
    fp->tmp_cols = ceil_div(F16_TMP_COLS, step) * step;
    const size_t staging = (size_t)fp->al->m_step * (size_t)fp->k * 4;
    const size_t out_block = fp->gemv ? 0 : (size_t)m_block(fp->al) * (size_t)fp->tmp_cols * 4;
    size_t thr = 0;
    fp->direct = fp->local && kf->direct;
    if (fp->direct) { /* the group's rows, gathered when uneven; y rows through a block when uneven */
        fp->thr_act = f16_take(&thr, (size_t)fp->g * (size_t)fp->k * 4);
        fp->thr_tmp = f16_take(&thr, (size_t)fp->g * (size_t)fp->tmp_cols * 4);
    } else if (fp->local) {
        const size_t panel = kf->w_packed_size(fp->k, step);
        const int64_t panels = panel ? (int64_t)(QMM_F16_SLICE_BYTES / panel) : 1;
        fp->slice_cols = (panels < 1 ? 1 : panels) * step;
        fp->thr_act = f16_take(&thr, fp->act_group);
        fp->thr_slice = f16_take(&thr, kf->w_packed_size(fp->k, fp->slice_cols));
    }
    fp->act_local = !fp->local && (fp->cpw == 1 || fp->act_group > QMM_F16_SHARED_ACT_MAX);
    fp->rows_in_place = fp->act_local && kf->gemm_rows && fp->chunk_cols <= QMM_F16_ROWS_MAX_COLS;
    if (fp->act_local) { /* an m block of the group's rows, packed right before use */
        const int64_t mb = m_block(fp->al), rows = fp->g < mb ? fp->g : mb;
        fp->thr_act = f16_take(&thr, fp->al->packed_size(rows, fp->k));
    }
    if (!fp->direct)
        fp->thr_tmp = f16_take(&thr, staging > out_block ? staging : out_block);
    fp->thr_stride = align_up(thr, ALIGN);
    size_t off = 0;
    if (!fp->local) {
        fp->w_batch = align_up(kf->w_packed_size(fp->k, fp->n), ALIGN);
        fp->w_off = f16_take(&off, fp->w_batch * (size_t)fp->nwb);
        if (!fp->act_local)
            fp->act_off = f16_take(&off, fp->act_group * (size_t)fp->nwb);
    }
    fp->thr_off = f16_take(&off, fp->thr_stride * (size_t)nth);
    fp->work = off;
}

size_t qmm_exec_mul_mat_f16_work_size(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, int nth) {
    f16_plan fp;
    plan_f16(cfg, w, x, nth, &fp);
    return fp.work;
}

/* Byte offset of group row gr of weight batch wbi in x or y (same ne[1..3]). */
static size_t f16_row_off(const f16_plan *fp, const qmm_tensor *t, int64_t wbi, int64_t gr) {
    const int64_t w2 = wbi % fp->bw2, w3 = wbi / fp->bw2, r = gr % fp->m, j = gr / fp->m;
    const int64_t i2 = w2 * fp->r2 + j % fp->r2, i3 = w3 * fp->r3 + j / fp->r2;
    return (size_t)i2 * t->nb[2] + (size_t)i3 * t->nb[3] + (size_t)r * t->nb[1];
}

/* 1 and the stride when group rows [g0, g0 + cnt) of t are evenly spaced in
 * ascending order (a kernel then reads or writes them in place), else 0.
 * Inside a head rows are nb[1] apart, so only the steps between heads need
 * a look: one per head spanned, not one per row (row by row, with the
 * divisions of f16_row_off, this took 15% of a 64-row attention call). */
static int f16_even_rows(const f16_plan *fp, const qmm_tensor *t, int64_t wbi, int64_t g0, int64_t cnt, size_t *stride) {
    *stride = t->nb[1];
    if (g0 % fp->m + cnt <= fp->m) /* within one head */
        return 1;
    size_t s = 0, last = 0; /* the common step once seen; the previous head's last row */
    int seen = 0;
    for (int64_t r = g0; r < g0 + cnt;) {
        const int64_t end = (r / fp->m + 1) * fp->m < g0 + cnt ? (r / fp->m + 1) * fp->m : g0 + cnt;
        const size_t first = f16_row_off(fp, t, wbi, r);
        if (r > g0) { /* the step from the previous head */
            if (first < last || (seen && first - last != s))
                return 0;
            s = first - last;
            seen = 1;
        }
        if (end - r > 1) { /* the steps inside this head */
            if (seen && t->nb[1] != s)
                return 0;
            s = t->nb[1];
            seen = 1;
        }
        last = first + (size_t)(end - r - 1) * t->nb[1];
        r = end;
    }
    *stride = s;
    return 1;
}

/* Packs group rows [g0, g0 + cnt) (g0 on a group of the layout, cnt at most
 * its m_step) into dst, where the packed layout puts them; unevenly spaced
 * rows are gathered in staging first. */
static void f16_pack_rows(const f16_plan *fp, const qmm_tensor *x, int64_t wbi, int64_t g0, int64_t cnt, uint8_t *dst,
                          float *staging) {
    size_t xs;
    if (f16_even_rows(fp, x, wbi, g0, cnt, &xs)) {
        fp->al->pack(cnt, fp->k, (const float *)((const char *)x->data + f16_row_off(fp, x, wbi, g0)), xs, dst);
        return;
    }
    for (int64_t j = 0; j < cnt; j++)
        memcpy(staging + j * fp->k, (const char *)x->data + f16_row_off(fp, x, wbi, g0 + j), (size_t)fp->k * 4);
    fp->al->pack(cnt, fp->k, staging, (size_t)fp->k * 4, dst);
}

/* Group rows [g0, g0 + rows) (at most an m block), packed at a (or, a NULL,
 * read in place: rows xr, xs bytes apart, by the family's gemm_rows), times
 * the columns [0, cols) of the panels wp, into y columns [n0, n0 + cols); y
 * rows spread unevenly over the heads go through the thread's block tmp. */
static void f16_run_block(const f16_plan *fp, const qmm_tensor *y, int64_t wbi, int64_t g0, int64_t rows, const uint8_t *a,
                          const float *xr, size_t xs, const uint8_t *wp, int64_t n0, int64_t cols, float *tmp) {
    const qmm_family *kf = fp->kf;
    size_t ys;
    if (f16_even_rows(fp, y, wbi, g0, rows, &ys)) {
        float *yp = (float *)((char *)y->data + f16_row_off(fp, y, wbi, g0)) + n0;
        if (a)
            run_rows(kf, fp->al, fp->gemv, rows, fp->k, a, wp, cols, yp, ys);
        else
            kf->gemm_rows(rows, cols, fp->k, xr, xs, wp, yp, ys);
        return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += fp->tmp_cols) {
        const int64_t cc = cols - c0 < fp->tmp_cols ? cols - c0 : fp->tmp_cols;
        const uint8_t *wc = wp + kf->w_packed_offset(c0, fp->k);
        if (a)
            kf->gemm(rows, cc, fp->k, a, wc, tmp, (size_t)cc * 4);
        else
            kf->gemm_rows(rows, cc, fp->k, xr, xs, wc, tmp, (size_t)cc * 4);
        for (int64_t j = 0; j < rows; j++)
            memcpy((float *)((char *)y->data + f16_row_off(fp, y, wbi, g0 + j)) + n0 + c0, tmp + j * cc, (size_t)cc * 4);
    }
}

static const char *f16_batch(const f16_plan *fp, const qmm_tensor *w, int64_t wbi) {
    return (const char *)w->data + (size_t)(wbi % fp->bw2) * w->nb[2] + (size_t)(wbi / fp->bw2) * w->nb[3];
}

static void f16_run_local(const f16_plan *fp, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith, int nth,
                          uint8_t *wb) {
    uint8_t *mine = wb + fp->thr_off + fp->thr_stride * (size_t)ith;
    uint8_t *act = mine + fp->thr_act, *slice = mine + fp->thr_slice;
    float *tmp = (float *)(void *)(mine + fp->thr_tmp);
    const int64_t ms = fp->al->m_step, mb = m_block(fp->al);
    int64_t packed = -1; /* the weight batch whose group act holds */
    for (int64_t it = fp->nitems * ith / nth; it < fp->nitems * (ith + 1) / nth; it++) {
        const int64_t wbi = it / fp->cpw, n0 = (it % fp->cpw) * fp->chunk_cols;
        const int64_t n1 = fp->n - n0 < fp->chunk_cols ? fp->n : n0 + fp->chunk_cols;
        if (wbi != packed) {
            for (int64_t g0 = 0; g0 < fp->g; g0 += ms)
                f16_pack_rows(fp, x, wbi, g0, fp->g - g0 < ms ? fp->g - g0 : ms, act + fp->al->packed_offset(g0, fp->k), tmp);
            packed = wbi;
        }
        const char *src = f16_batch(fp, w, wbi);
        for (int64_t s0 = n0; s0 < n1; s0 += fp->slice_cols) {
            /* the slice packed as a matrix of its own rows: the same panels */
            const int64_t sc = n1 - s0 < fp->slice_cols ? n1 - s0 : fp->slice_cols;
            fp->w_pack(fp->k, sc, 0, sc, src + (size_t)s0 * w->nb[1], w->nb[1], slice);
            for (int64_t r0 = 0; r0 < fp->g; r0 += mb)
                f16_run_block(fp, y, wbi, r0, fp->g - r0 < mb ? fp->g - r0 : mb, act + fp->al->packed_offset(r0, fp->k), NULL, 0,
                              slice, s0, sc, tmp);
        }
    }
}

/* Local items of a family with a direct product: the group's rows (in place
 * when evenly spaced, else gathered) times the chunk's rows of w read where
 * they are, in the order they lie: each byte of K or V^T read once. */
static void f16_run_direct(const f16_plan *fp, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith, int nth,
                           uint8_t *wb) {
    uint8_t *mine = wb + fp->thr_off + fp->thr_stride * (size_t)ith;
    float *act = (float *)(void *)(mine + fp->thr_act), *tmp = (float *)(void *)(mine + fp->thr_tmp);
    int64_t gathered = -1; /* the weight batch whose group act holds */
    for (int64_t it = fp->nitems * ith / nth; it < fp->nitems * (ith + 1) / nth; it++) {
        const int64_t wbi = it / fp->cpw, n0 = (it % fp->cpw) * fp->chunk_cols;
        const int64_t cols = fp->n - n0 < fp->chunk_cols ? fp->n - n0 : fp->chunk_cols;
        const float *xa;
        size_t xs;
        if (f16_even_rows(fp, x, wbi, 0, fp->g, &xs)) {
            xa = (const float *)(const void *)((const char *)x->data + f16_row_off(fp, x, wbi, 0));
        } else {
            if (wbi != gathered)
                for (int64_t j = 0; j < fp->g; j++)
                    memcpy(act + j * fp->k, (const char *)x->data + f16_row_off(fp, x, wbi, j), (size_t)fp->k * 4);
            gathered = wbi;
            xa = act;
            xs = (size_t)fp->k * 4;
        }
        const char *src = f16_batch(fp, w, wbi) + (size_t)n0 * w->nb[1];
        size_t ys;
        if (f16_even_rows(fp, y, wbi, 0, fp->g, &ys)) {
            float *yp = (float *)(void *)((char *)y->data + f16_row_off(fp, y, wbi, 0)) + n0;
            fp->kf->direct(fp->g, cols, fp->k, xa, xs, src, w->nb[1], yp, ys);
            continue;
        }
        for (int64_t c0 = 0; c0 < cols; c0 += fp->tmp_cols) {
            const int64_t cc = cols - c0 < fp->tmp_cols ? cols - c0 : fp->tmp_cols;
            fp->kf->direct(fp->g, cc, fp->k, xa, xs, src + (size_t)c0 * w->nb[1], w->nb[1], tmp, (size_t)cc * 4);
            for (int64_t j = 0; j < fp->g; j++)
                memcpy((float *)(void *)((char *)y->data + f16_row_off(fp, y, wbi, j)) + n0 + c0, tmp + j * cc, (size_t)cc * 4);
        }
    }
}

static void f16_run_shared(const f16_plan *fp, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith, int nth,
                           uint8_t *wb, const qmm_sync *sync) {
    const qmm_family *kf = fp->kf;
    uint8_t *mine = wb + fp->thr_off + fp->thr_stride * (size_t)ith, *thr_act = mine + fp->thr_act;
    float *tmp = (float *)(void *)(mine + fp->thr_tmp);
    /* every weight batch, in row ranges of ~256, in parallel */
    const int64_t rows_per_unit = ceil_div(256, kf->n_step) * kf->n_step;
    const int64_t wunits_per_wb = ceil_div(fp->n, rows_per_unit), wunits = wunits_per_wb * fp->nwb;
    for (int64_t u = wunits * ith / nth; u < wunits * (ith + 1) / nth; u++) {
        const int64_t b = u / wunits_per_wb, r0 = (u % wunits_per_wb) * rows_per_unit;
        const int64_t r1 = r0 + rows_per_unit < fp->n ? r0 + rows_per_unit : fp->n;
        fp->w_pack(fp->k, fp->n, r0, r1, f16_batch(fp, w, b), w->nb[1], wb + fp->w_off + fp->w_batch * (size_t)b);
    }
    /* every group's rows, in the layout's row groups, in parallel */
    const int64_t ms = fp->al->m_step, gpw = ceil_div(fp->g, ms), aunits = fp->act_local ? 0 : gpw * fp->nwb;
    for (int64_t u = aunits * ith / nth; u < aunits * (ith + 1) / nth; u++) {
        const int64_t b = u / gpw, g0 = (u % gpw) * ms;
        f16_pack_rows(fp, x, b, g0, fp->g - g0 < ms ? fp->g - g0 : ms,
                      wb + fp->act_off + fp->act_group * (size_t)b + fp->al->packed_offset(g0, fp->k), tmp);
    }
    if (ith == 0)
        sync->counter_store(sync->user, nth);
    sync->barrier(sync->user); /* publishes the packed weights, rows and the queue */
    const int64_t mb = m_block(fp->al);
    for (int64_t c = ith; c < fp->nitems; c = sync->counter_fetch_add(sync->user, 1)) {
        const int64_t per_b = fp->cpw * fp->rpw, b = c / per_b;
        const int64_t n0 = (c % per_b % fp->cpw) * fp->chunk_cols, g0 = (c % per_b / fp->cpw) * fp->chunk_rows;
        const int64_t cols = fp->n - n0 < fp->chunk_cols ? fp->n - n0 : fp->chunk_cols;
        const int64_t g1 = fp->g - g0 < fp->chunk_rows ? fp->g : g0 + fp->chunk_rows;
        const uint8_t *wp = wb + fp->w_off + fp->w_batch * (size_t)b + kf->w_packed_offset(n0, fp->k);
        for (int64_t r0 = g0; r0 < g1; r0 += mb) {
            const int64_t rows = g1 - r0 < mb ? g1 - r0 : mb;
            const uint8_t *act = NULL;
            const float *xr = NULL;
            size_t xs = 0;
            if (!fp->act_local) {
                act = wb + fp->act_off + fp->act_group * (size_t)b + fp->al->packed_offset(r0, fp->k);
            } else if (fp->rows_in_place && f16_even_rows(fp, x, b, r0, rows, &xs)) {
                /* few columns (PV): read in place (views are element-aligned: xs too), nothing to pack, the rows'
                 * memory reads overlap the FMAs */
                xr = (const float *)(const void *)((const char *)x->data + f16_row_off(fp, x, b, r0));
            } else { /* the block's rows, packed as rows [0, rows) of the thread's buffer */
                for (int64_t j = 0; j < rows; j += ms)
                    f16_pack_rows(fp, x, b, r0 + j, rows - j < ms ? rows - j : ms, thr_act + fp->al->packed_offset(j, fp->k),
                                  tmp);
                act = thr_act;
            }
            f16_run_block(fp, y, b, r0, rows, act, xr, xs, wp, n0, cols, tmp);
        }
    }
}

void qmm_exec_mul_mat_f16(const qmm_exec_config *cfg, const qmm_tensor *w, const qmm_tensor *x, const qmm_tensor *y, int ith,
                          int nth, void *work, const qmm_sync *sync) {
    f16_plan fp;
    plan_f16(cfg, w, x, nth, &fp);
    if (ith == 0 && qmm_log_level() >= QMM_LOG_DEBUG)
        qmm_log(QMM_LOG_DEBUG,
                "mul_mat_f16 %lld x %lld x %lld, %lld weight batches of %lld rows (r2 %lld, r3 %lld): %s%s%s, %s, %lld items of "
                "%lld rows x %lld columns",
                (long long)fp.m, (long long)fp.n, (long long)fp.k, (long long)fp.nwb, (long long)fp.g, (long long)fp.r2,
                (long long)fp.r3, fp.packer->name, fp.kf != fp.packer ? " widened for " : "",
                fp.kf != fp.packer ? fp.kf->name : "",
                fp.direct  ? "direct"
                : fp.local ? "local"
                           : "shared",
                (long long)fp.nitems, (long long)fp.chunk_rows, (long long)fp.chunk_cols);
    if (fp.direct)
        f16_run_direct(&fp, w, x, y, ith, nth, work);
    else if (fp.local)
        f16_run_local(&fp, w, x, y, ith, nth, work);
    else
        f16_run_shared(&fp, w, x, y, ith, nth, work, sync);
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
    /* The chosen experts already give the schedule its slack: MUL_MAT's
     * chunk multiplier is shared out among as many experts as the call can
     * choose (at least one chunk per thread and expert). Decode with 8
     * experts on 2 threads: 16 items, each a long run of one expert's
     * weights, not 64 short ones (Qwen3's 768-row experts: 0.238 -> 0.206 ms,
     * docs/performance.md, stop 20). The bits never depend on the chunks. */
    const int64_t choosable = ip->ne < ip->pairs ? ip->ne : ip->pairs;
    plan_chunks(p, nth, (int)ceil_div(cfg->chunk_multiplier, choosable > 0 ? choosable : 1));
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
