/* Known answers from ggml itself (tests/data/ggml_known_answers.bin, written by
 * tests/gen_known_answers.py with Debian's libggml): blocks of the i-quant grid
 * and ternary types made by ggml's own quantizers, and ggml's dequantization of
 * them. On every platform and CPU this test runs on (qemu's too):
 *  - qmm_dequantize and every family's GET_ROWS (its w_unpack_row, then the dequantizer) give ggml's values
 *    bit for bit;
 *  - every family the CPU runs gives the reference family's products bit for bit
 *    (m = 1, through gemv, and m = 3);
 *  - the reference's products are within the activation quantization's bound of
 *    the double product of ggml's values: per 32-block the rounding error of an
 *    activation is at most d / 2, so |y - exact| <= sum_b (d_b / 2) sum_l |w_l|,
 *    plus 1e-5 of sum |w x| for the fp32 steps (at most 16 fmaf per output). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "format_vectors_file.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_compare.h"
#include "test_util.h"

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

typedef struct known {
    qmm_type t;
    const uint8_t *blocks;
    const float *deq;
    int64_t rows, k;
    const float *x; /* activations: m x k */
    int64_t m;
    int families;
} known;

static void visit(const qmm_family *kf, void *user) {
    known *kn = user;
    const qmm_family *ref = qmm_registry_reference(kn->t);
    if (kf->wtype != kn->t || (kf->required & ~qmm_cpu_detect()->features) != 0)
        return;
    const int64_t n = kn->rows, k = kn->k;
    void *wp = qmm_test_alloc(kf->w_packed_size(k, n));
    kf->w_pack(k, n, 0, n, kn->blocks, qmm_row_size(kn->t, k), wp);
    float *row = malloc((size_t)k * 4);
    long bad = 0;
    for (int64_t j = 0; j < n; j++) {
        CHECK(qmm_exec_read_row(kf, wp, k, n, j, row) == 0, "%s: row %" PRId64 " cannot be read", kf->name, j);
        for (int64_t l = 0; l < k; l++)
            bad += bits(row[l]) != bits(kn->deq[j * k + l]);
    }
    CHECK(bad == 0, "%s: GET_ROWS differs from ggml's dequantization in %ld values", kf->name, bad);
    free(row);
    free(wp);
    if (kf != ref) {
        qmm_test_compare_family(kf, ref, 1, n, k, kn->blocks, kn->x, "ggml's blocks, m = 1", 0, NULL);
        qmm_test_compare_family(kf, ref, kn->m, n, k, kn->blocks, kn->x, "ggml's blocks", 0, NULL);
    }
    kn->families++;
    printf("ok   %-24s ggml's %s blocks: GET_ROWS %s\n", kf->name, qmm_type_name(kn->t),
           kf == ref ? "exact" : "exact, products the reference's");
}

/* The reference's products against the double product of ggml's values. */
static void check_bound(const known *kn) {
    const qmm_family *ref = qmm_registry_reference(kn->t);
    const int64_t n = kn->rows, k = kn->k, m = kn->m;
    void *wr = qmm_test_alloc(ref->w_packed_size(k, n)), *a = qmm_test_alloc(ref->act.packed_size(m, k));
    float *y = qmm_test_alloc((size_t)(m * n) * 4);
    ref->w_pack(k, n, 0, n, kn->blocks, qmm_row_size(kn->t, k), wr);
    ref->act.pack(m, k, kn->x, (size_t)k * 4, a);
    ref->gemm(m, n, k, a, wr, y, (size_t)n * 4);
    long bad = 0;
    double worst = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double exact = 0, wx = 0, bound = 0;
            for (int64_t b = 0; b < k / 32; b++) {
                int8_t q[32];
                float d;
                int32_t s;
                qmm_act_quantize_block(kn->x + i * k + 32 * b, q, &d, &s);
                double wsum = 0;
                for (int l = 0; l < 32; l++) {
                    const double w = kn->deq[j * k + 32 * b + l], xv = kn->x[i * k + 32 * b + l];
                    exact += w * xv;
                    wx += fabs(w * xv);
                    wsum += fabs(w);
                }
                bound += 0.5 * d * wsum;
            }
            bound += 1e-5 * wx + 1e-30;
            const double err = fabs((double)y[i * n + j] - exact);
            bad += !(err <= bound);
            worst = fmax(worst, err / bound);
        }
    CHECK(bad == 0, "%s: %ld reference outputs outside the activation-quantization bound", qmm_type_name(kn->t), bad);
    printf("ok   %s: the reference within the bound (worst error / bound %.3f)\n", qmm_type_name(kn->t), worst);
    free(wr), free(a), free(y);
}

int main(int argc, char **argv) {
    qmm_test_records file = {0, 0, NULL};
    CHECK(argc >= 2, "usage: %s KNOWN_ANSWERS_FILE (written by tests/gen_known_answers.py; ctest passes it)", argv[0]);
    if (argc < 2 || !qmm_test_records_read(argv[1], "tests/gen_known_answers.py", 64, &file)) {
        qmm_test_records_free(&file);
        qmm_test_summary();
        return 1; /* no file, no test: never a pass */
    }
    const qmm_test_record *recs = file.r;
    const uint32_t nrec = file.got;
    CHECK(nrec == 19 && recs[0].type == 0, "%u records, expected the input and 9 pairs", nrec);
    if (nrec != 19) {
        qmm_test_records_free(&file);
        return qmm_test_summary();
    }
    const float *x = (const float *)recs[0].data;
    const int64_t k = recs[0].k, m = 3;
    /* activations: the input rows themselves, scaled, as hidden states of about 1 */
    float *acts = malloc((size_t)(m * k) * 4);
    for (int64_t i = 0; i < m * k; i++)
        acts[i] = x[i % (recs[0].rows * k)] * 50.0f;
    int types = 0;
    for (uint32_t r = 1; r + 1 < nrec; r += 2) {
        known kn = {(qmm_type)recs[r].type, recs[r].data, (const float *)recs[r + 1].data, recs[r].rows, recs[r].k, acts, m, 0};
        const size_t rb = qmm_row_size(kn.t, kn.k);
        CHECK(rb * (size_t)kn.rows == recs[r].nbytes && recs[r + 1].nbytes == (uint32_t)(kn.rows * kn.k * 4) && kn.k == k,
              "%s: record sizes", qmm_type_name(kn.t) ? qmm_type_name(kn.t) : "?");
        if (rb * (size_t)kn.rows != recs[r].nbytes || kn.k != k)
            continue;
        float *d = malloc((size_t)(kn.rows * kn.k) * 4);
        CHECK_OK(qmm_dequantize(kn.t, kn.blocks, d, kn.rows, kn.k));
        long bad = 0;
        for (int64_t i = 0; i < kn.rows * kn.k; i++)
            bad += bits(d[i]) != bits(kn.deq[i]);
        CHECK(bad == 0, "%s: qmm_dequantize differs from ggml's in %ld values", qmm_type_name(kn.t), bad);
        free(d);
        qmm_kernels_foreach(visit, &kn);
        CHECK(kn.families >= 1, "%s: no family", qmm_type_name(kn.t));
        check_bound(&kn);
        types++;
    }
    CHECK(types == 9, "%d types checked", types);
    free(acts);
    qmm_test_records_free(&file);
    return qmm_test_summary();
}
