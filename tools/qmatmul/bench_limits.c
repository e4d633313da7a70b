/* qmatmul bench: the machine limits each row is read against. Probes run
 * on demand, once each (bench/probe.h). */
#include <stdatomic.h>
#include <string.h>

#include "bench_internal.h"
#include "progress.h"

/* READ: a buffer of the rotation's size, so every run reads memory. */
static size_t probe_bytes(const bench *b) { return (size_t)bench_rotation_bytes(b); }

const qmm_probe_result *bench_probe_get(bench *b, const qmm_probe *p) {
    if (!p)
        return NULL;
    for (int i = 0; i < b->n_probe_done; i++)
        if (b->probe_done[i] == p)
            return &b->probe_res[i];
    if (b->n_probe_done == BENCH_MAX_PROBES)
        return NULL;
    progress_line("probing this machine: %s on %d threads, %d runs", p->name, b->nth, b->probe_reps);
    qmm_probe_result *r = &b->probe_res[b->n_probe_done];
    if (qmm_probe_run(p, b->nth, b->probe_reps, 0.001, probe_bytes(b), r) != 0)
        return NULL;
    b->probe_is_limit[b->n_probe_done] = 0;
    b->probe_done[b->n_probe_done++] = p;
    return r;
}

/* bench_probe_get for a probe some row is read against: marked, so the
 * samples between prefill rows run it (and not the reference probes of a
 * run without reference rows, nor the fp tile ceiling). */
static const qmm_probe_result *limit_probe_get(bench *b, const qmm_probe *p) {
    const qmm_probe_result *r = bench_probe_get(b, p);
    if (r)
        b->probe_is_limit[r - b->probe_res] = 1;
    return r;
}

/* A second round of every probe run so far, after the rows: on a shared
 * machine one round can fall entirely in a time another process held a
 * core. Each probe keeps the round with the better best run (its median
 * with it), and the lower minimum. */
void bench_refresh_limits(bench *b) {
    for (int i = 0; i < b->n_probe_done; i++) {
        qmm_probe_result r, *old = &b->probe_res[i];
        progress_line("probing this machine again: %s on %d threads, %d runs", old->probe->name, b->nth, b->probe_reps);
        if (qmm_probe_run(b->probe_done[i], b->nth, b->probe_reps, 0.001, probe_bytes(b), &r) != 0)
            continue;
        const double lo = r.min < old->min ? r.min : old->min;
        if (r.max > old->max)
            *old = r;
        old->min = lo;
    }
    const uint64_t feats = b->machine_features;
    memset(&b->rep->read, 0, sizeof b->rep->read);
    bench_measure_machine_limits(b, feats);
}

/* Runs of each probe per sample between passes. */
#define SAMPLE_REPS 9

/* A short round of every probe run so far of one side (read: between decode
 * passes; the int8 / FMA limits: between prefill rows), each probe's best run
 * kept where it beats the probe's (the median stays the full round's). On a
 * shared machine what this one gets swings with its neighbours' load (a
 * Zen 3 guest: decode rows from 26 to 50 GB/s between runs of minutes; the
 * FMA peak of a 61-run round 187 against 204 GFLOP/s a minute later), and
 * rows measured in a quieter minute than both full rounds ran up to 115% of
 * the limit; sampled through the passes, the limits see the minutes the rows
 * saw. */
static void sample_limits(bench *b, int read) {
    int any = 0;
    for (int i = 0; i < b->n_probe_done; i++) {
        qmm_probe_result r, *old = &b->probe_res[i];
        if (read ? old->probe->kind != QMM_PROBE_READ : !b->probe_is_limit[i])
            continue;
        if (qmm_probe_run(b->probe_done[i], b->nth, SAMPLE_REPS, 0.001, probe_bytes(b), &r) != 0)
            continue;
        old->reps += r.reps;
        old->min = r.min < old->min ? r.min : old->min;
        old->max = r.max > old->max ? r.max : old->max;
        any = 1;
    }
    if (!any)
        return;
    memset(&b->rep->read, 0, sizeof b->rep->read);
    bench_measure_machine_limits(b, b->machine_features); /* the best read variant again; nothing reruns */
}

void bench_sample_read_limit(bench *b) { sample_limits(b, 1); }

void bench_sample_compute_limits(bench *b) { sample_limits(b, 0); }

void bench_sample_read_limit_every(bench *b, double *last) {
    if (qmm_bench_now() - *last > 1.0) {
        progress_line("sampling the read limit between decode passes");
        bench_sample_read_limit(b);
        *last = qmm_bench_now();
    }
}

/* The machine's best of each kind, first: the machine is quiet then. The
 * memory limit is the best of every read variant the CPU has (one stream or
 * several interleaved streams per thread): whichever the memory system
 * serves fastest. */
void bench_measure_machine_limits(bench *b, uint64_t features) {
    const qmm_probe_result *p;
    b->machine_features = features;
    for (const qmm_probe *const *v = qmm_probes(); *v; v++)
        if ((*v)->kind == QMM_PROBE_READ && ((*v)->required & ~features) == 0 && (p = bench_probe_get(b, *v)) &&
            p->max > b->rep->read.max)
            b->rep->read = *p;
    if ((p = limit_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, features))))
        b->rep->int8 = *p;
    if ((p = limit_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, features))))
        b->rep->fma = *p;
    /* not a limit: the fp families' register tile, read beside the FMA limit */
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_FMA_TILE, features))))
        b->rep->fma_tile = *p;
}

/* The portable probes, to read the reference rows against. */
void bench_measure_reference_limits(bench *b) {
    const qmm_probe_result *p;
    if ((p = limit_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, 0))))
        b->rep->ref_int8 = *p;
    if ((p = limit_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, 0))))
        b->rep->ref_fma = *p;
    b->rep->have_ref_probes = 1;
}

/* The limit a row is measured against: the read bandwidth for decode; for
 * prefill the peak of the instruction its family is built from (the best
 * probe its required features allow). */
void bench_set_limit(bench *b, bench_row *w) {
    const int fi = qmm_family_find(w->kernel);
    qmm_family_desc kf;
    const uint64_t feats = fi >= 0 && qmm_family_info(fi, &kf) == QMM_OK ? kf.required : 0;
    const qmm_probe_result *pr;
    if (w->phase == PHASE_DECODE) {
        pr = &b->rep->read;
        w->limit_name = "read";
    } else if (w->type != QMM_TYPE_F32 && w->type != QMM_TYPE_F16 && w->type != QMM_TYPE_BF16) { /* int8 activations */
        pr = limit_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "int8";
    } else {
        pr = limit_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "fma";
    }
    w->limit = pr ? pr->max : 0; /* the best run: the roof */
    w->pct = w->limit > 0 ? 100.0 * w->rate / w->limit : 0;
}

/* bench --probes: every probe this CPU can run, again, as the bench runs
 * them: a check that the limits a bench run used were the machine's peaks. */
int bench_print_probes(bench *b, uint64_t features, FILE *f) {
    fprintf(f, "probes (%d threads; best and median of %d runs; methods: qmatmul bench --help):\n", b->nth, b->probe_reps);
    int rc = 0;
    for (const qmm_probe *const *v = qmm_probes(); *v; v++) {
        if (((*v)->required & ~features) != 0)
            continue;
        const qmm_probe_result *p = bench_probe_get(b, *v);
        progress_done();
        if (!p) {
            fprintf(stderr, "qmatmul bench: probe %s could not run (memory or threads)\n", (*v)->name);
            rc = 1;
            continue;
        }
        fprintf(f, "  %-5s %-15s best %8.1f %-7s median %8.1f\n", qmm_probe_kind_label((*v)->kind), (*v)->name, p->max,
                qmm_probe_kind_unit((*v)->kind), p->median);
    }
    return rc;
}

/* The paired read: right after a decode call, the same pool reads as many
 * cold bytes (the caller's choice) with the best read probe's loop, one
 * contiguous part a thread. The call's rate over that read's is its share of
 * what memory gave at that moment: on a shared host whose bandwidth halves
 * and doubles within minutes (a Zen 4 guest: read probes from 38 to 74 GB/s
 * in one run), the best probe run and the median call come from different
 * minutes. */
typedef struct paired_read {
    uint64_t (*read)(const void *p, size_t bytes);
    const uint8_t *base;
    size_t part; /* bytes a task reads: a multiple of 4096 */
    _Atomic uint64_t sink;
} paired_read;

static void paired_read_task(void *user, int64_t task, int ith) {
    (void)ith;
    paired_read *pr = user;
    atomic_fetch_add_explicit(&pr->sink, pr->read(pr->base + (size_t)task * pr->part, pr->part), memory_order_relaxed);
}

double bench_paired_read(bench *b, const qmm_weights *w, size_t offset, size_t bytes) {
    const qmm_probe *p = b->rep->read.probe;
    size_t size;
    const uint8_t *blob = qmm_weights_blob(w, &size);
    offset &= ~(size_t)4095; /* the probe loops load aligned vectors */
    if (!p || !p->read || !blob || offset >= size)
        return 0;
    const size_t n = bytes < size - offset ? bytes : size - offset;
    paired_read pr = {p->read, blob + offset, n / (size_t)b->nth / 4096 * 4096, 0};
    if (pr.part == 0)
        return 0;
    const double t0 = qmm_bench_now();
    if (qmm_parallel_run(b->ctx, b->nth, paired_read_task, &pr) != QMM_OK)
        return 0;
    const double t = qmm_bench_now() - t0;
    return t > 0 ? (double)pr.part * (double)b->nth / t * 1e-9 : 0;
}
