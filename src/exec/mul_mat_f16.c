/* MUL_MAT with F16 weights that change every call (the KV cache). */
#include "exec/exec_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

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
 * once a call (fp_attention.h's `wide`), where the family says widening once
 * pays on this CPU (`widen_once`; AVX2 on AMD: no, and measured no different
 * there, the history of docs/performance.md (git log -p), stop 36): prefill attention of 512 and 2048 rows
 * (32 / 8 heads, head dim 64 and 128) ran 1.6-5.9% faster so (AVX2 1-5%);
 * 64 rows (256 and 192 group rows) 5-16% slower on 2 threads, twice the
 * packed bytes crossing between the cores for items of ~10 us. */
#ifndef QMM_F16_WIDE_MIN_ROWS
#define QMM_F16_WIDE_MIN_ROWS 512
#endif
#define F16_TMP_COLS 256 /* columns of a thread's block when y rows are unevenly spaced */

typedef struct f16_plan {
    const qmm_family *kf;        /* the family that runs the items */
    const qmm_family *packer;    /* the F16 family chosen (kf, or its wide sibling's source) */
    const qmm_fp_attention *att; /* kf's attention extras (fp_attention.h), or NULL */
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
        fp->chunk_rows = qmm_exec_ceil_div(qmm_exec_ceil_div(fp->g, per_wb), ms) * ms;
    }
    fp->cpw = qmm_exec_ceil_div(fp->n, fp->chunk_cols);
    fp->rpw = qmm_exec_ceil_div(fp->g, fp->chunk_rows);
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
     * has an F32 sibling (fp_attention.h) and the group has the rows of
     * several m blocks, each of which would widen them again; that sibling
     * then runs every item */
    fp->w_pack = kf->w_pack;
    fp->packer = kf;
    const qmm_fp_attention *att = qmm_registry_fp_attention(kf);
    if (!fp->local && fp->g >= QMM_F16_WIDE_MIN_ROWS && att && att->wide && att->w_pack_wide &&
        (!att->widen_once || att->widen_once())) {
        fp->w_pack = att->w_pack_wide;
        kf = att->wide;
        att = qmm_registry_fp_attention(kf);
    }
    fp->kf = kf;
    fp->att = att;
    fp->al = qmm_family_act_layout(kf, fp->gemv);
    /* about mult items per thread over the whole call */
    const int64_t step = kf->n_step;
    const int mult = nth == 1 ? 1 : (cfg->chunk_multiplier < 1 ? 1 : cfg->chunk_multiplier);
    const int64_t per_wb = qmm_exec_ceil_div((int64_t)nth * mult, fp->nwb);
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
    fp->act_group = qmm_exec_align_up(fp->al->packed_size(fp->g, fp->k), QMM_EXEC_ALIGN);
    fp->tmp_cols = qmm_exec_ceil_div(F16_TMP_COLS, step) * step;
    const size_t staging = (size_t)fp->al->m_step * (size_t)fp->k * 4;
    const size_t out_block = fp->gemv ? 0 : (size_t)qmm_exec_m_block(fp->al) * (size_t)fp->tmp_cols * 4;
    size_t thr = 0;
    fp->direct = fp->local && att && att->direct;
    if (fp->direct) { /* the group's rows, gathered when uneven; y rows through a block when uneven */
        fp->thr_act = qmm_exec_take(&thr, (size_t)fp->g * (size_t)fp->k * 4);
        fp->thr_tmp = qmm_exec_take(&thr, (size_t)fp->g * (size_t)fp->tmp_cols * 4);
    } else if (fp->local) {
        const size_t panel = kf->w_packed_size(fp->k, step);
        const int64_t panels = panel ? (int64_t)(QMM_F16_SLICE_BYTES / panel) : 1;
        fp->slice_cols = (panels < 1 ? 1 : panels) * step;
        fp->thr_act = qmm_exec_take(&thr, fp->act_group);
        fp->thr_slice = qmm_exec_take(&thr, kf->w_packed_size(fp->k, fp->slice_cols));
    }
    fp->act_local = !fp->local && (fp->cpw == 1 || fp->act_group > QMM_F16_SHARED_ACT_MAX);
    fp->rows_in_place = fp->act_local && att && att->gemm_rows && fp->chunk_cols <= QMM_F16_ROWS_MAX_COLS;
    if (fp->act_local) { /* an m block of the group's rows, packed right before use */
        const int64_t mb = qmm_exec_m_block(fp->al), rows = fp->g < mb ? fp->g : mb;
        fp->thr_act = qmm_exec_take(&thr, fp->al->packed_size(rows, fp->k));
    }
    if (!fp->direct)
        fp->thr_tmp = qmm_exec_take(&thr, staging > out_block ? staging : out_block);
    fp->thr_stride = qmm_exec_align_up(thr, QMM_EXEC_ALIGN);
    size_t off = 0;
    if (!fp->local) {
        fp->w_batch = qmm_exec_align_up(kf->w_packed_size(fp->k, fp->n), QMM_EXEC_ALIGN);
        fp->w_off = qmm_exec_take(&off, fp->w_batch * (size_t)fp->nwb);
        if (!fp->act_local)
            fp->act_off = qmm_exec_take(&off, fp->act_group * (size_t)fp->nwb);
    }
    fp->thr_off = qmm_exec_take(&off, fp->thr_stride * (size_t)nth);
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
 * read in place: rows xr, xs bytes apart, by the family's gemm_rows
 * (fp_attention.h)), times
 * the columns [0, cols) of the panels wp, into y columns [n0, n0 + cols); y
 * rows spread unevenly over the heads go through the thread's block tmp. */
static void f16_run_block(const f16_plan *fp, const qmm_tensor *y, int64_t wbi, int64_t g0, int64_t rows, const uint8_t *a,
                          const float *xr, size_t xs, const uint8_t *wp, int64_t n0, int64_t cols, float *tmp) {
    const qmm_family *kf = fp->kf;
    size_t ys;
    if (f16_even_rows(fp, y, wbi, g0, rows, &ys)) {
        float *yp = (float *)((char *)y->data + f16_row_off(fp, y, wbi, g0)) + n0;
        if (a)
            qmm_exec_run_rows(kf, fp->al, fp->gemv, rows, fp->k, a, wp, cols, yp, ys);
        else
            fp->att->gemm_rows(rows, cols, fp->k, xr, xs, wp, yp, ys);
        return;
    }
    for (int64_t c0 = 0; c0 < cols; c0 += fp->tmp_cols) {
        const int64_t cc = cols - c0 < fp->tmp_cols ? cols - c0 : fp->tmp_cols;
        const uint8_t *wc = wp + kf->w_packed_offset(c0, fp->k);
        if (a)
            kf->gemm(rows, cc, fp->k, a, wc, tmp, (size_t)cc * 4);
        else
            fp->att->gemm_rows(rows, cc, fp->k, xr, xs, wc, tmp, (size_t)cc * 4);
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
    const int64_t ms = fp->al->m_step, mb = qmm_exec_m_block(fp->al);
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
            fp->att->direct(fp->g, cols, fp->k, xa, xs, src, w->nb[1], yp, ys);
            continue;
        }
        for (int64_t c0 = 0; c0 < cols; c0 += fp->tmp_cols) {
            const int64_t cc = cols - c0 < fp->tmp_cols ? cols - c0 : fp->tmp_cols;
            fp->att->direct(fp->g, cc, fp->k, xa, xs, src + (size_t)c0 * w->nb[1], w->nb[1], tmp, (size_t)cc * 4);
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
    const int64_t rows_per_unit = qmm_exec_ceil_div(256, kf->n_step) * kf->n_step;
    const int64_t wunits_per_wb = qmm_exec_ceil_div(fp->n, rows_per_unit), wunits = wunits_per_wb * fp->nwb;
    for (int64_t u = wunits * ith / nth; u < wunits * (ith + 1) / nth; u++) {
        const int64_t b = u / wunits_per_wb, r0 = (u % wunits_per_wb) * rows_per_unit;
        const int64_t r1 = r0 + rows_per_unit < fp->n ? r0 + rows_per_unit : fp->n;
        fp->w_pack(fp->k, fp->n, r0, r1, f16_batch(fp, w, b), w->nb[1], wb + fp->w_off + fp->w_batch * (size_t)b);
    }
    /* every group's rows, in the layout's row groups, in parallel */
    const int64_t ms = fp->al->m_step, gpw = qmm_exec_ceil_div(fp->g, ms), aunits = fp->act_local ? 0 : gpw * fp->nwb;
    for (int64_t u = aunits * ith / nth; u < aunits * (ith + 1) / nth; u++) {
        const int64_t b = u / gpw, g0 = (u % gpw) * ms;
        f16_pack_rows(fp, x, b, g0, fp->g - g0 < ms ? fp->g - g0 : ms,
                      wb + fp->act_off + fp->act_group * (size_t)b + fp->al->packed_offset(g0, fp->k), tmp);
    }
    if (ith == 0)
        sync->counter_store(sync->user, nth);
    sync->barrier(sync->user); /* publishes the packed weights, rows and the queue */
    const int64_t mb = qmm_exec_m_block(fp->al);
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
