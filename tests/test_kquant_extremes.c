/* Every K-quant family (Q2_K..Q6_K) the CPU runs, against its type's reference family, bit for bit, on weights
 * and activations the random oracle (test_kernels) rarely meets: sub-scales and mins at both ends (Q3_K's -32 and
 * 31, Q4_K/Q5_K's 63, Q2_K's 15, Q6_K's -128 / 127), all-max and all-zero quants (Q3_K q = -4 with scale -32: its
 * largest product), activation blocks of +-127 everywhere, of opposite halves (the two 16-sub-block sums of the
 * mins), zero halves; k = 256 and multiples (9 super-blocks: an odd count), m and n off the tiles. Then the same
 * through the public API at 1..5 threads and several chunkings, against the forced reference family. And the
 * issue's size rule: a packed K-quant panel is at most 3% above the GGUF bytes. QMM_TEST_KERNEL=<name> runs one. */
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_compare.h"
#include "test_util.h"
#include "test_weights.h"

static uint64_t seed = 9001;

static int is_k_quant(qmm_type t) {
    return t == QMM_TYPE_Q2_K || t == QMM_TYPE_Q3_K || t == QMM_TYPE_Q4_K || t == QMM_TYPE_Q5_K || t == QMM_TYPE_Q6_K;
}

/* The bytes of a super-block that hold sub-scales (and mins). */
static void scale_bytes(qmm_type t, int *off, int *len) {
    switch (t) {
    case QMM_TYPE_Q2_K: *off = 0, *len = 16; break;
    case QMM_TYPE_Q3_K: *off = 96, *len = 12; break;
    case QMM_TYPE_Q6_K: *off = 192, *len = 16; break;
    default: *off = 4, *len = 12; break; /* Q4_K, Q5_K */
    }
}

/* Super-block s of row j: one (scale byte, quant byte) pattern per (j + s), fp16 fields from a list of extremes. */
static void make_weights(qmm_type t, int64_t k, int64_t n, uint8_t *w) {
    static const uint8_t pat[][2] = {{0x00, 0x00}, {0xff, 0xff}, {0x00, 0xff}, {0xff, 0x00}, {0xaa, 0x55}, {0x55, 0xaa}, {0, 0}};
    static const uint16_t halves[] = {0x3c00, 0xb800, 0x7bff, 0x0001, 0x8400, 0x3555, 0x0000};
    const int npat = (int)(sizeof pat / sizeof pat[0]), nh = (int)(sizeof halves / sizeof halves[0]);
    const size_t bb = qmm_type_block_bytes(t);
    const int64_t nsb = k / QMM_QK_K;
    int soff, slen;
    scale_bytes(t, &soff, &slen);
    const int *f16 = qmm_test_fp16_fields(t);
    for (int64_t j = 0; j < n; j++)
        for (int64_t s = 0; s < nsb; s++) {
            uint8_t *b = w + (size_t)(j * nsb + s) * bb;
            const int p = (int)((j + s) % npat);
            for (size_t i = 0; i < bb; i++) {
                const int in_scales = (int)i >= soff && (int)i < soff + slen;
                b[i] = p == npat - 1 ? (uint8_t)qmm_test_rand_u64(&seed) : pat[p][in_scales ? 0 : 1];
            }
            for (int i = 0; i < 2 && f16[i] >= 0; i++) {
                const uint16_t h = halves[(j * 3 + s + 2 * i) % nh];
                memcpy(b + f16[i], &h, 2);
            }
        }
}

/* Per 32-block a pattern: all +c, all -c, alternating, +c / -c halves, a zero half, zero, random. */
static void make_acts(int64_t m, int64_t k, float *x) {
    static const float mags[] = {1.0f, 1000.0f, 1e-3f, 3e-38f};
    for (int64_t i = 0; i < m; i++)
        for (int64_t b = 0; b < k / 32; b++) {
            const int p = (int)((i * 5 + b) % 8);
            const float c = mags[(i + b) % 4];
            for (int l = 0; l < 32; l++) {
                float v;
                switch (p) {
                case 0: v = c; break;
                case 1: v = -c; break;
                case 2: v = l % 2 ? c : -c; break;
                case 3: v = l < 16 ? c : -c; break;
                case 4: v = l < 16 ? 0.0f : c; break;
                case 5: v = l < 16 ? -c : 0.0f; break;
                case 6: v = 0.0f; break;
                default: v = qmm_test_rand_f(&seed) * c; break;
                }
                x[i * k + b * 32 + l] = v;
            }
        }
}

static int same_bits(const float *a, const float *b, size_t count) { return memcmp(a, b, count * sizeof(float)) == 0; }

static void test_shape(const qmm_family *kf, const qmm_family *ref, int64_t m, int64_t n, int64_t k) {
    const qmm_type t = kf->wtype;
    const size_t rb = qmm_row_size(t, k);
    uint8_t *src = malloc(rb * (size_t)n);
    make_weights(t, k, n, src);
    float *x = malloc((size_t)(m * k) * sizeof(float));
    make_acts(m, k, x);
    qmm_test_compare_family(kf, ref, m, n, k, src, x, "extremes", QMM_TEST_POISON_PACK, NULL);
    free(src);
    free(x);
}

/* The public API at several thread counts and chunkings, the family forced, against the forced reference. */
static void test_threads(const qmm_family *kf, const qmm_family *ref) {
    const int64_t k = 768, n = 45, m = 11;
    const qmm_type t = kf->wtype;
    const size_t rb = qmm_row_size(t, k);
    uint8_t *src = malloc(rb * (size_t)n);
    make_weights(t, k, n, src);
    float *x = malloc((size_t)(m * k) * sizeof(float));
    make_acts(m, k, x);
    float *expect = NULL;
    for (int run = 0; run < 8; run++) {
        qmm_options o;
        memset(&o, 0, sizeof o);
        o.n_threads = run == 0 ? 1 : 1 + run % 5;
        o.chunk_multiplier = 1 + run % 3;
        o.flags = QMM_IGNORE_ENV;
        o.kernel = run == 0 ? ref->name : kf->name;
        qmm_context *ctx = NULL;
        CHECK_OK(qmm_context_create(&o, &ctx));
        if (!ctx)
            break;
        qmm_weights *w = NULL;
        CHECK_OK(qmm_weights_pack(ctx, t, k, n, src, rb * (size_t)n, &w));
        float *y = calloc((size_t)(m * n), sizeof(float));
        qmm_tensor xt, yt;
        CHECK_OK(qmm_tensor_init(&xt, QMM_TYPE_F32, 2, (int64_t[]){k, m}, x));
        CHECK_OK(qmm_tensor_init(&yt, QMM_TYPE_F32, 2, (int64_t[]){n, m}, y));
        if (w) {
            CHECK(strcmp(qmm_weights_kernel(w), o.kernel) == 0, "%s: weights packed for %s", o.kernel, qmm_weights_kernel(w));
            CHECK_OK(qmm_mul_mat(ctx, w, &xt, &yt));
        }
        if (run == 0)
            expect = y;
        else {
            CHECK(expect && same_bits(y, expect, (size_t)(m * n)), "%s: threads=%d multiplier=%d differ from %s", kf->name,
                  o.n_threads, o.chunk_multiplier, ref->name);
            free(y);
        }
        qmm_weights_free(w);
        qmm_context_free(ctx);
    }
    free(expect);
    free(src);
    free(x);
}

static int tested;

static void visit(const qmm_family *kf, void *user) {
    const uint64_t features = *(const uint64_t *)user;
    const qmm_family *ref = qmm_registry_reference(kf->wtype);
    if (!is_k_quant(kf->wtype) || !ref || (kf->required & ~features) != 0)
        return;
    /* the size rule, on whole panels (a short last panel is padding, not format overhead) */
    const int64_t k = 4096, n = 64 * kf->n_step;
    const double gguf = (double)qmm_row_size(kf->wtype, k) * (double)n;
    CHECK((double)kf->w_packed_size(k, n) <= 1.03 * gguf, "%s: packed %zu bytes, more than 3%% over the GGUF %.0f", kf->name,
          kf->w_packed_size(k, n), gguf);
    static const int64_t ks[] = {256, 512, 2304};
    static const int64_t ns[] = {1, 2, 5, 8, 13, 36};
    static const int64_t ms[] = {1, 2, 3, 5, 6, 7, 9};
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
                if (kf != ref || (ki + ni + mi) % 5 == 0)
                    test_shape(kf, ref, ms[mi], ns[ni], ks[ki]);
    test_threads(kf, ref);
    tested++;
    printf("ok   %-24s\n", kf->name);
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
    CHECK(tested > 0, "no K-quant family tested");
    return qmm_test_summary();
}
