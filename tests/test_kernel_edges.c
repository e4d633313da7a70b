/* Every family the CPU can run, against its type's reference family, on
 * values the random oracle test rarely meets: subnormals, huge magnitudes
 * (overflow to inf, cancellation), infinities and NaN, in weights (F32/F16/BF16;
 * the other types: random valid blocks, MXFP4 E8M0 and IQ4_XS sub-scale extremes)
 * and activations (all types). Outputs must match bit for bit, except that
 * a NaN matches any NaN (payloads are not promised: e.g. SME ZA arithmetic
 * returns the default NaN). QMM_TEST_KERNEL=<name> runs one family. */
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_util.h"
#include "test_weights.h"

static uint64_t seed = 777;
static long n_special; /* reference outputs that are NaN, inf or subnormal */

static float special(int64_t i, int64_t l, int with_nonfinite) {
    const float r = qmm_test_rand_f(&seed);
    switch ((i * 7 + l * 3) % 11) {
    case 0: return r * 1e-40f;    /* subnormal */
    case 1: return r * 3e38f;     /* sums overflow */
    case 2: return -r * 3e38f;    /* and cancel */
    case 3: return 0x1p-126f * r; /* around the smallest normal */
    case 4: return with_nonfinite && l % 37 == 5 ? INFINITY : r;
    case 5: return with_nonfinite && l % 41 == 7 ? NAN : r * 1e20f;
    case 6: return -0.0f;
    default: return r;
    }
}

static int same(float a, float b) {
    if (a != a && b != b)
        return 1;
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}

static uint64_t edge_seed = 4242;

static void test_one(const qmm_family *kf, const qmm_family *ref, int64_t m, int64_t n, int64_t k, int nonfinite) {
    const qmm_type t = kf->wtype;
    const size_t rb = qmm_row_size(t, k);
    uint8_t *src = malloc(rb * (size_t)n);
    const int random_blocks =
        t != QMM_TYPE_F32 && t != QMM_TYPE_F16 && t != QMM_TYPE_BF16 && t != QMM_TYPE_Q4_0 && t != QMM_TYPE_Q8_0;
    if (random_blocks) /* no quantizer: random valid blocks, fp16 extremes included */
        qmm_test_random_blocks(t, k, n, src, 0, &edge_seed);
    float *f = malloc((size_t)k * 4);
    for (int64_t j = 0; !random_blocks && j < n; j++) {
        for (int64_t l = 0; l < k; l++)
            f[l] = special(j, l, nonfinite && t != QMM_TYPE_Q4_0 && t != QMM_TYPE_Q8_0);
        uint8_t *row = src + (size_t)j * rb;
        if (t == QMM_TYPE_F32)
            memcpy(row, f, rb);
        else if (t == QMM_TYPE_F16)
            for (int64_t l = 0; l < k; l++) { /* bring the classes into f16 range: subnormals, near-max */
                const float v = f[l], av = fabsf(v);
                ((uint16_t *)row)[l] = qmm_fp32_to_fp16(av > 1e5f ? v * 2e-34f : (av < 1e-30f ? v * 1e34f : v));
            }
        else if (t == QMM_TYPE_BF16) /* fp32's range: subnormals, near-max, inf and NaN as they are */
            for (int64_t l = 0; l < k; l++)
                ((uint16_t *)row)[l] = qmm_fp32_to_bf16(f[l]);
        else if (t == QMM_TYPE_Q4_0)
            qmm_quantize_row_q4_0(f, (qmm_block_q4_0 *)row, k);
        else
            qmm_quantize_row_q8_0(f, (qmm_block_q8_0 *)row, k);
    }
    float *x = malloc((size_t)(m * k) * 4);
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++)
            x[i * k + l] = special(i + 3, l, nonfinite);

    void *wp = qmm_test_alloc(kf->w_packed_size(k, n));
    void *wr = qmm_test_alloc(ref->w_packed_size(k, n));
    kf->w_pack(k, n, 0, n, src, rb, wp);
    ref->w_pack(k, n, 0, n, src, rb, wr);
    const int gemv = m == 1;
    const qmm_act_layout *al = qmm_family_act_layout(kf, gemv), *rl = qmm_family_act_layout(ref, gemv);
    void *a = qmm_test_alloc(al->packed_size(m, k));
    void *ar = qmm_test_alloc(rl->packed_size(m, k));
    al->pack(m, k, x, (size_t)k * 4, a);
    rl->pack(m, k, x, (size_t)k * 4, ar);
    float *y = qmm_test_alloc((size_t)(m * n) * 4), *yr = qmm_test_alloc((size_t)(m * n) * 4);
    ref->gemm(m, n, k, ar, wr, yr, (size_t)n * 4);
    if (gemv && kf->gemv)
        kf->gemv(n, k, a, wp, y);
    else
        kf->gemm(m, n, k, a, wp, y, (size_t)n * 4);
    long bad = 0;
    for (int64_t i = 0; i < m * n; i++) {
        const int c = fpclassify(yr[i]);
        n_special += c == FP_NAN || c == FP_INFINITE || c == FP_SUBNORMAL;
    }
    for (int64_t i = 0; i < m * n; i++)
        if (!same(y[i], yr[i]) && bad++ < 3)
            fprintf(stderr, "  %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " y[%" PRId64 "] = %a, ref %a\n", kf->name, m, n, k, i,
                    y[i], yr[i]);
    CHECK(bad == 0, "%s: %ld edge-value outputs differ (m=%" PRId64 " nonfinite=%d)", kf->name, bad, m, nonfinite);

    float *r1 = malloc((size_t)k * 4), *r2 = malloc((size_t)k * 4);
    for (int64_t j = 0; j < n; j++) {
        kf->w_read_row(wp, k, n, j, r1);
        ref->w_read_row(wr, k, n, j, r2);
        int ok = 1;
        for (int64_t l = 0; l < k; l++)
            ok &= same(r1[l], r2[l]);
        CHECK(ok, "%s: w_read_row(%" PRId64 ") differs on edge values", kf->name, j);
    }
    free(r1);
    free(r2);
    free(src);
    free(f);
    free(x);
    free(wp);
    free(wr);
    free(a);
    free(ar);
    free(y);
    free(yr);
}

static int tested;

static void visit(const qmm_family *kf, void *user) {
    const uint64_t features = *(const uint64_t *)user;
    const qmm_family *ref = qmm_registry_reference(kf->wtype);
    if (!ref || (kf->required & ~features) != 0)
        return;
    static const int64_t ms[] = {1, 2, 5, 17};
    for (int nf = 0; nf < 2; nf++)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            test_one(kf, ref, ms[mi], 37, qmm_type_block_elems(kf->wtype) == 256 ? 256 : 96, nf);
    tested++;
    printf("ok   %-24s (%ld special outputs so far)\n", kf->name, n_special);
}

int main(void) {
    uint64_t features = qmm_cpu_detect()->features;
    const char *only = getenv("QMM_TEST_KERNEL");
    if (only) {
        const qmm_family *kf = qmm_registry_find(only);
        CHECK(kf != NULL, "no family named %s", only);
        if (kf)
            visit(kf, &features);
    } else {
        qmm_kernels_foreach(visit, &features);
    }
    CHECK(tested > 0, "no family tested");
    return qmm_test_summary();
}
