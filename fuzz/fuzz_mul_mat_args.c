/* libFuzzer target: argument validation of qmm_mul_mat, qmm_get_rows,
 * qmm_mul_mat_f16, qmm_mul_mat_id (on experts weights, ids in and out of
 * range) and their work-size / bring-your-own-threads forms.
 *
 * The input chooses weights (packed once), tensor types, dims, byte strides,
 * misaligned data pointers, thread ids and work buffers. The harness computes
 * each view's byte span itself (exact 128-bit arithmetic):
 *  - a view that is invalid by the API's rules (a dim < 1, more than 2^40
 *    elements, a span past the address space) must be refused;
 *  - a view that fits the harness's buffers is passed for real: buffers are
 *    canary-filled, and afterwards inputs must be unchanged, and outputs may
 *    differ only at the view's own elements (all unchanged on an error);
 *  - any other view (valid, but larger than the buffers) is not passed. */
#include <stdio.h>

#include "../tests/test_pool.h"
#include "fuzz_common.h"

#define BUF       (64 * 1024)
#define CANARY    0xa5
#define MAX_ELEMS ((int64_t)1 << 40)

static const qmm_type wtypes[4] = {QMM_TYPE_F32, QMM_TYPE_F16, QMM_TYPE_Q4_0, QMM_TYPE_Q8_0};
static const int64_t wk[3] = {32, 64, 96}, wn[3] = {1, 3, 17};
static qmm_weights *weights[4][3];
static qmm_weights *experts[4][3]; /* 3 experts of the same shapes */
static uint8_t *bufs[4];           /* x / ids / w16, y / out, spare, work */
static uint8_t *shadow[4];         /* copies to compare with */
static uint8_t *mask;              /* 1 where an output element may be written */

static void init(void) {
    qmm_context *ctx = fuzz_ctx(2);
    for (int t = 0; t < 4; t++)
        for (int s = 0; s < 3; s++) {
            const size_t rb = qmm_row_size(wtypes[t], wk[s]);
            uint8_t *src = calloc((size_t)wn[s], rb);
            float *f = malloc(sizeof(float) * (size_t)(wk[s] * wn[s]));
            if (!src || !f)
                abort();
            for (int64_t i = 0; i < wk[s] * wn[s]; i++)
                f[i] = (float)((i * 37) % 19) * 0.25f - 2.0f;
            if (wtypes[t] == QMM_TYPE_F32)
                memcpy(src, f, sizeof(float) * (size_t)(wk[s] * wn[s]));
            else if (qmm_quantize(wtypes[t], f, src, wn[s], wk[s]) != QMM_OK)
                abort();
            if (qmm_weights_pack(ctx, wtypes[t], wk[s], wn[s], src, rb * (size_t)wn[s], &weights[t][s]) != QMM_OK)
                abort();
            uint8_t *src3 = malloc(rb * (size_t)wn[s] * 3);
            if (!src3)
                abort();
            for (int e = 0; e < 3; e++)
                memcpy(src3 + rb * (size_t)wn[s] * (size_t)e, src, rb * (size_t)wn[s]);
            if (qmm_experts_pack(ctx, wtypes[t], wk[s], wn[s], 3, src3, rb * (size_t)wn[s] * 3, &experts[t][s]) != QMM_OK)
                abort();
            free(src3);
            free(src);
            free(f);
        }
    for (int i = 0; i < 4; i++) {
        if (posix_memalign((void **)&bufs[i], 64, BUF) || posix_memalign((void **)&shadow[i], 64, BUF))
            abort();
    }
    mask = malloc(BUF);
    if (!mask)
        abort();
}

/* A dim: mostly small and valid, sometimes the shape the weights need,
 * sometimes hostile. */
static int64_t pick_dim(fuzz_in *in, int64_t want) {
    const unsigned c = fuzz_u8(in);
    switch (c % 16) {
    case 0: return 0;
    case 1: return -(int64_t)(fuzz_u8(in) + 1);
    case 2: return MAX_ELEMS + (int64_t)(fuzz_u8(in) % 3) - 1;
    case 3: return INT64_MAX - (int64_t)fuzz_u8(in);
    case 4: return INT64_MIN;
    case 5: return (int64_t)fuzz_bytes(in, 8);
    case 6:
    case 7:
    case 8: return 1 + (int64_t)(fuzz_u8(in) % 5);
    default: return want;
    }
}

typedef struct view {
    qmm_tensor t;
    int verdict; /* 1 must be refused, 0 fits the buffer (passed), -1 not passed */
    size_t off;  /* offset of data in the buffer */
    __int128 span;
} view;

/* Builds a view of ne/nb chosen by the input; natural strides for elem. */
static void pick_view(fuzz_in *in, view *v, qmm_type want_type, size_t elem, const int64_t want[4], uint8_t *buf) {
    memset(v, 0, sizeof *v);
    const unsigned tsel = fuzz_u8(in);
    v->t.type = tsel < 240 ? want_type : (qmm_type)(tsel % 45);
    for (int i = 0; i < 4; i++)
        v->t.ne[i] = pick_dim(in, want[i]);
    size_t nat = elem;
    for (int i = 0; i < 4; i++) {
        const unsigned c = fuzz_u8(in);
        size_t nb;
        switch (c % 12) {
        case 0: nb = 0; break;
        case 1: nb = nat + (size_t)(fuzz_u8(in) % 9); break; /* padding, maybe misaligned */
        case 2: nb = (size_t)fuzz_bytes(in, 8); break;
        case 3: nb = SIZE_MAX - (size_t)fuzz_u8(in); break;
        case 4: nb = nat > elem ? nat - elem : nat; break; /* overlapping */
        case 5: nb = (size_t)(fuzz_u8(in) % 64) * elem; break;
        default: nb = nat; break;
        }
        if (i == 0 && c % 12 >= 6)
            nb = elem;
        v->t.nb[i] = nb;
        const int64_t ne = v->t.ne[i] > 0 && v->t.ne[i] < (1 << 20) ? v->t.ne[i] : 1;
        nat = nb * (size_t)ne;
        if (nat == 0 || nat > ((size_t)1 << 40))
            nat = elem;
    }
    const unsigned dsel = fuzz_u8(in);
    v->off = dsel < 200 ? (size_t)(dsel % 4) * 64 : (size_t)(dsel % 8);
    v->t.data = dsel == 255 ? NULL : buf + v->off;

    /* the verdict */
    __int128 total = 1, span = (__int128)elem;
    int refuse = 0;
    for (int i = 0; i < 4; i++) {
        if (v->t.ne[i] < 1 || v->t.ne[i] > MAX_ELEMS) {
            refuse = 1;
            break;
        }
        total *= v->t.ne[i]; /* <= 2^40 * 2^40 */
        if (total > MAX_ELEMS) {
            refuse = 1;
            break;
        }
        span += (__int128)(v->t.ne[i] - 1) * (__int128)v->t.nb[i];
    }
    if (refuse || total > MAX_ELEMS || span > (__int128)PTRDIFF_MAX)
        v->verdict = 1;
    else if (v->t.data && span + (__int128)v->off <= BUF && total <= (1 << 14))
        v->verdict = 0;
    else
        v->verdict = -1;
    v->span = span;
}

/* Marks the bytes of every element of an output view. */
static void mark_view(const view *v, size_t elem) {
    memset(mask, 0, BUF);
    for (int64_t i3 = 0; i3 < v->t.ne[3]; i3++)
        for (int64_t i2 = 0; i2 < v->t.ne[2]; i2++)
            for (int64_t i1 = 0; i1 < v->t.ne[1]; i1++)
                for (int64_t i0 = 0; i0 < v->t.ne[0]; i0++) {
                    const size_t o = v->off + (size_t)i0 * v->t.nb[0] + (size_t)i1 * v->t.nb[1] + (size_t)i2 * v->t.nb[2] +
                                     (size_t)i3 * v->t.nb[3];
                    memset(mask + o, 1, elem);
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int inited;
    if (!inited) {
        init();
        inited = 1;
    }
    qmm_context *ctx = fuzz_ctx(2);
    fuzz_in in = {data, size};
    const unsigned op = fuzz_u8(&in) % 4;   /* mul_mat, get_rows, f16, mul_mat_id */
    const unsigned form = fuzz_u8(&in) % 3; /* pooled, work size, compute */
    const unsigned wsel = fuzz_u8(&in);
    const qmm_weights *w = (op == 3 ? experts : weights)[wsel % 4][(wsel / 4) % 3];
    const int64_t k = qmm_weights_k(w), n = qmm_weights_n(w);
    const int64_t m = 1 + fuzz_u8(&in) % 4, b2 = 1 + fuzz_u8(&in) % 3, b3 = 1 + fuzz_u8(&in) % 2;

    view a, b, c; /* mul_mat: x, y; get_rows: ids, out; f16: w16, x, y; mul_mat_id: x, y, ids */
    for (int i = 0; i < 3; i++) {
        memset(bufs[i], CANARY, BUF);
    }
    if (op == 0) {
        const int64_t wx[4] = {k, m, b2, b3}, wy[4] = {n, m, b2, b3};
        pick_view(&in, &a, QMM_TYPE_F32, 4, wx, bufs[0]);
        pick_view(&in, &b, QMM_TYPE_F32, 4, wy, bufs[1]);
        /* finite inputs where x is */
        for (size_t i = 0; i + 4 <= BUF; i += 4) {
            const float f = (float)((i / 4) % 7) - 3.0f;
            memcpy(bufs[0] + i, &f, 4);
        }
    } else if (op == 1) {
        const int64_t wi[4] = {m, b2, b3, 1}, wo[4] = {k, m, b2, b3};
        pick_view(&in, &a, QMM_TYPE_I32, 4, wi, bufs[0]);
        pick_view(&in, &b, QMM_TYPE_F32, 4, wo, bufs[1]);
        /* ids: in range mostly, some out of range */
        const unsigned bad = fuzz_u8(&in);
        for (size_t i = 0; i + 4 <= BUF; i += 4) {
            int32_t id = (int32_t)((i / 4) % (size_t)n);
            if (bad < 40 && (i / 4) % 97 == bad % 97)
                id = bad & 1 ? (int32_t)n : -1;
            memcpy(bufs[0] + i, &id, 4);
        }
    } else if (op == 3) {
        /* m slots per token, b2 tokens; x rows per token 1, m, or another count */
        const unsigned xs = fuzz_u8(&in) % 8;
        const int64_t xr = xs < 3 ? 1 : xs < 6 ? m : 1 + xs % 5;
        const int64_t wx[4] = {k, xr, b2, 1}, wy[4] = {n, m, b2, 1}, wi[4] = {m, b2, 1, 1};
        pick_view(&in, &a, QMM_TYPE_F32, 4, wx, bufs[0]);
        pick_view(&in, &b, QMM_TYPE_F32, 4, wy, bufs[1]);
        pick_view(&in, &c, QMM_TYPE_I32, 4, wi, bufs[2]);
        for (size_t i = 0; i + 4 <= BUF; i += 4) {
            const float f = (float)((i / 4) % 7) - 3.0f;
            memcpy(bufs[0] + i, &f, 4);
        }
        /* expert ids: in range mostly, some out of range */
        const unsigned bad = fuzz_u8(&in);
        for (size_t i = 0; i + 4 <= BUF; i += 4) {
            int32_t id = (int32_t)((i / 4 + bad) % 3);
            if (bad < 40 && (i / 4) % 13 == bad % 13)
                id = bad & 1 ? 3 : -1;
            memcpy(bufs[2] + i, &id, 4);
        }
    } else {
        const int64_t kb = 32 * (1 + fuzz_u8(&in) % 3), nb = 1 + fuzz_u8(&in) % 9;
        const int64_t ww[4] = {kb, nb, 1 + (b2 > 1 && fuzz_u8(&in) % 2 ? b2 - 1 : 0), 1};
        const int64_t wx[4] = {kb, m, b2, b3}, wy[4] = {nb, m, b2, b3};
        pick_view(&in, &c, QMM_TYPE_F16, 2, ww, bufs[2]);
        pick_view(&in, &a, QMM_TYPE_F32, 4, wx, bufs[0]);
        pick_view(&in, &b, QMM_TYPE_F32, 4, wy, bufs[1]);
        for (size_t i = 0; i + 2 <= BUF; i += 2) {
            const uint16_t h = (uint16_t)(0x3c00 + (i % 64)); /* finite halves */
            memcpy(bufs[2] + i, &h, 2);
        }
        for (size_t i = 0; i + 4 <= BUF; i += 4) {
            const float f = (float)((i / 4) % 5) - 2.0f;
            memcpy(bufs[0] + i, &f, 4);
        }
    }
    const int three = op >= 2;
    const int must_refuse = a.verdict == 1 || b.verdict == 1 || (three && c.verdict == 1);
    const int passable = a.verdict == 0 && b.verdict == 0 && (!three || c.verdict == 0);
    if (!must_refuse && !passable)
        return 0;
    for (int i = 0; i < 3; i++)
        memcpy(shadow[i], bufs[i], BUF);

    const int nth = (int)(fuzz_u8(&in) % 4) - 1; /* -1 .. 2 */
    const int ith = (int)(fuzz_u8(&in) % 4) - 1;
    static int64_t solo_counter;
    qmm_sync sync = QMM_TEST_SOLO_SYNC(&solo_counter);
    const unsigned ssel = fuzz_u8(&in);
    if (ssel % 8 == 0)
        sync.barrier = NULL;
    qmm_status st;
    if (form == 0) {
        st = op == 0   ? qmm_mul_mat(ctx, w, &a.t, &b.t)
             : op == 1 ? qmm_get_rows(ctx, w, &a.t, &b.t)
             : op == 2 ? qmm_mul_mat_f16(ctx, &c.t, &a.t, &b.t)
                       : qmm_mul_mat_id(ctx, w, &a.t, &c.t, &b.t);
    } else {
        size_t need = 0;
        /* the size for the nth passed: it is not monotonic in nth (more
         * threads can take narrower chunks and need less) */
        const int nt = form == 1 || nth >= 1 ? nth : 1;
        st = op == 0   ? qmm_mul_mat_work_size(ctx, w, &a.t, &b.t, nt, &need)
             : op == 1 ? qmm_get_rows_work_size(ctx, w, &a.t, &b.t, nt, &need)
             : op == 2 ? qmm_mul_mat_f16_work_size(ctx, &c.t, &a.t, &b.t, nt, &need)
                       : qmm_mul_mat_id_work_size(ctx, w, &a.t, &c.t, &b.t, nt, &need);
        if (form == 1) {
            if (nt < 1)
                FUZZ_ASSERT(st != QMM_OK);
        } else if (st == QMM_OK) {
            /* one thread of nth: only nth == 1, ith == 0 runs (others would
             * wait at the barrier); the rest must be refused */
            const int run = nth == 1 && ith == 0 && sync.barrier;
            size_t wsize = need;
            const unsigned short_work = fuzz_u8(&in);
            if (short_work < 30 && wsize > 0)
                wsize -= 1 + short_work % wsize;
            const int fits = wsize <= BUF;
            if (!fits)
                return 0;
            if (!run && !(nth < 1 || ith < 0 || ith >= nth || !sync.barrier || wsize < need))
                return 0; /* valid, but would wait for threads that do not exist */
            memset(bufs[3], 0, BUF);
            st = op == 0   ? qmm_mul_mat_compute(ctx, w, &a.t, &b.t, ith, nth, bufs[3], wsize, &sync)
                 : op == 1 ? qmm_get_rows_compute(ctx, w, &a.t, &b.t, ith, nth, bufs[3], wsize, &sync)
                 : op == 2 ? qmm_mul_mat_f16_compute(ctx, &c.t, &a.t, &b.t, ith, nth, bufs[3], wsize, &sync)
                           : qmm_mul_mat_id_compute(ctx, w, &a.t, &c.t, &b.t, ith, nth, bufs[3], wsize, &sync);
            if (!run || wsize < need)
                FUZZ_ASSERT(st != QMM_OK);
        }
    }
    if (must_refuse) {
        FUZZ_ASSERT(st != QMM_OK);
    }
    FUZZ_ASSERT(st == QMM_OK || st == QMM_ERR_INVALID_ARG || st == QMM_ERR_UNSUPPORTED || st == QMM_ERR_INCOMPATIBLE);
    /* inputs untouched; outputs only at their elements, and only on success */
    FUZZ_ASSERT(memcmp(bufs[0], shadow[0], BUF) == 0);
    if (three)
        FUZZ_ASSERT(memcmp(bufs[2], shadow[2], BUF) == 0);
    if (passable && st == QMM_OK && form != 1) {
        mark_view(&b, 4);
        for (size_t i = 0; i < BUF; i++)
            if (!mask[i])
                FUZZ_ASSERT(bufs[1][i] == shadow[1][i]);
    } else {
        FUZZ_ASSERT(memcmp(bufs[1], shadow[1], BUF) == 0);
    }
    return 0;
}
