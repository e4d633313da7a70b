/* MUL_MAT_ID: expert-routed rows, grouped by expert. */
#include "exec/exec_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

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
    qmm_exec_plan_slots(cfg, w->kf, w->data, w->nslots, p->m, p->n, nth, p);
    /* The chosen experts already give the schedule its slack: MUL_MAT's
     * chunk multiplier is shared out among as many experts as the call can
     * choose (at least one chunk per thread and expert). Decode with 8
     * experts on 2 threads: 16 items, each a long run of one expert's
     * weights, not 64 short ones (Qwen3's 768-row experts: 0.238 -> 0.206 ms,
     * the history of docs/performance.md (git log -p), stop 20). The bits never depend on the chunks. */
    const int64_t choosable = ip->ne < ip->pairs ? ip->ne : ip->pairs;
    qmm_exec_plan_chunks(p, nth, (int)qmm_exec_ceil_div(cfg->chunk_multiplier, choosable > 0 ? choosable : 1));
    size_t off = 0;
    ip->hdr_off = qmm_exec_take(&off, sizeof(id_routing));
    ip->cnt_off = qmm_exec_take(&off, (size_t)ip->ne * 4);
    ip->start_off = qmm_exec_take(&off, (size_t)ip->ne * 4);
    ip->order_off = qmm_exec_take(&off, (size_t)ip->ne * 4);
    ip->key_off = qmm_exec_take(&off, (size_t)ip->ne * 8);
    ip->eoff_off = qmm_exec_take(&off, (size_t)ip->ne * 8 * (size_t)p->nslots);
    ip->list_off = qmm_exec_take(&off, (size_t)ip->pairs * 4);
    ip->eid_off = qmm_exec_take(&off, (size_t)ip->pairs * 4);
    ip->need_off = qmm_exec_take(&off, (size_t)ip->rows);
    /* the most experts that can have two rows or more */
    const int64_t multi = ip->ne < ip->pairs / 2 ? ip->ne : ip->pairs / 2;
    size_t stage = 0;
    for (int i = 0; i < p->nslots; i++) {
        slot_plan *s = &p->s[i];
        const qmm_act_layout *l1 = qmm_family_act_layout(s->kf, 1);
        s->al = &s->kf->act;
        ip->copy_rows[i] = l1 == s->al && s->al->m_step == 1;
        ip->row_stride[i] = qmm_exec_align_up(l1->packed_size(1, p->k), QMM_EXEC_ALIGN);
        ip->row_off[i] = qmm_exec_take(&off, ip->row_stride[i] * (size_t)ip->rows);
        /* Packed sizes grow by whole groups of m_step rows: however the
         * pairs split among the experts, theirs sum to at most the size of
         * all pairs plus one group (and the alignment) per expert. */
        if (multi > 0)
            ip->exp_off[i] = qmm_exec_take(
                &off, qmm_exec_align_up(s->al->packed_size(ip->pairs, p->k), QMM_EXEC_ALIGN) +
                          (size_t)multi *
                              (qmm_exec_align_up(s->al->packed_size(s->al->m_step, p->k), QMM_EXEC_ALIGN) + QMM_EXEC_ALIGN));
        const size_t out_block = (size_t)qmm_exec_m_block(s->al) * (size_t)p->chunk_cols * 4;
        const size_t staging = s->al->m_step > 1 && !ip->copy_rows[i] ? (size_t)s->al->m_step * (size_t)p->k * 4 : 0;
        stage = stage > out_block ? stage : out_block;
        stage = stage > staging ? stage : staging;
    }
    if (multi > 0) {
        ip->tmp_stride = qmm_exec_align_up(stage, QMM_EXEC_ALIGN);
        ip->tmp_off = qmm_exec_take(&off, ip->tmp_stride * (size_t)nth);
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
                at += qmm_exec_align_up(p->s[si].al->packed_size(cnt[e], p->k), QMM_EXEC_ALIGN);
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
                groups += qmm_exec_ceil_div(cnt[order[i]], ms);
            const int64_t g0 = groups * ith / nth, g1 = groups * (ith + 1) / nth;
            int64_t g = 0;
            for (int64_t i = 0; i < rt->ngemm && g < g1; i++) {
                const int32_t e = order[i];
                const int64_t eg = qmm_exec_ceil_div(cnt[e], ms);
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
    const int si = qmm_exec_slot_of(p, ith);
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
            qmm_exec_run_rows(s->kf, l1, 1, 1, p->k, act, wp, cols, pair_y(&ip, y, rows[0]) + n0, y->nb[1]);
            continue;
        }
        const uint8_t *act = wb + ip.exp_off[si] + eoff[(size_t)si * (size_t)ip.ne + (size_t)e];
        const int64_t mb = qmm_exec_m_block(s->al);
        for (int64_t r0 = 0; r0 < cnt[e]; r0 += mb) {
            const int64_t m = cnt[e] - r0 < mb ? cnt[e] - r0 : mb;
            /* the rows of y an expert gets are scattered: a block here, then copied */
            qmm_exec_run_rows(s->kf, s->al, 0, m, p->k, act + s->al->packed_offset(r0, p->k), wp, cols, mine, (size_t)cols * 4);
            for (int64_t j = 0; j < m; j++)
                memcpy(pair_y(&ip, y, rows[r0 + j]) + n0, mine + j * cols, (size_t)cols * 4);
        }
    }
}
