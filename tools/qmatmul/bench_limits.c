/* qmatmul bench: the machine limits each row is read against. Probes run
 * on demand, once each (bench/probe.h). */
#include "bench_internal.h"
#include "progress.h"

const qmm_probe_result *bench_probe_get(bench *b, const qmm_probe *p) {
    if (!p)
        return NULL;
    for (int i = 0; i < b->n_probe_done; i++)
        if (b->probe_done[i] == p)
            return &b->probe_res[i];
    if (b->n_probe_done == BENCH_MAX_PROBES)
        return NULL;
    progress_line("probing this machine: %s on %d threads", p->name, b->nth);
    qmm_probe_result *r = &b->probe_res[b->n_probe_done];
    const double llc = b->rep->llc_bytes;
    size_t bytes = (size_t)256 << 20;
    if (llc * 8 > (double)bytes)
        bytes = (size_t)(llc * 8);
    if (qmm_probe_run(p, b->nth, b->probe_reps, 0.001, bytes, r) != 0)
        return NULL;
    b->probe_done[b->n_probe_done++] = p;
    return r;
}

/* The machine's best of each kind, first: the machine is quiet then. */
void bench_measure_machine_limits(bench *b, uint64_t features) {
    const qmm_probe_result *p;
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_READ, features))))
        b->rep->read = *p;
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, features))))
        b->rep->int8 = *p;
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, features))))
        b->rep->fma = *p;
}

/* The portable probes, to read the reference rows against. */
void bench_measure_reference_limits(bench *b) {
    const qmm_probe_result *p;
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, 0))))
        b->rep->ref_int8 = *p;
    if ((p = bench_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, 0))))
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
    } else if (w->type == QMM_TYPE_Q4_0 || w->type == QMM_TYPE_Q8_0) {
        pr = bench_probe_get(b, qmm_probe_best(QMM_PROBE_INT8, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "int8";
    } else {
        pr = bench_probe_get(b, qmm_probe_best(QMM_PROBE_FMA, feats));
        w->limit_name = pr && pr->probe ? pr->probe->name : "fma";
    }
    w->limit = pr ? pr->median : 0;
    w->pct = w->limit > 0 ? 100.0 * w->rate / w->limit : 0;
}
