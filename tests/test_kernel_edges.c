/* Every family the CPU can run, against its type's reference family, on
 * values the random oracle test rarely meets: subnormals, huge magnitudes
 * (overflow to inf, cancellation), infinities and NaN, in weights (F32/F16/BF16;
 * the other types: random valid blocks, MXFP4 E8M0 and IQ4_XS sub-scale extremes)
 * and activations (all types), and quants at the ends of their ranges
 * (test_extremes). Outputs must match bit for bit, except that a NaN
 * matches any NaN (payloads are not promised: e.g. SME ZA arithmetic
 * returns the default NaN). QMM_TEST_KERNEL=<name> runs one family. */
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "qmatmul.h"
#include "registry/registry.h"
#include "test_compare.h"
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

static uint64_t edge_seed = 4242;

/* kf against ref (test_compare.h): outputs bit for bit, any NaN matching any NaN, and GET_ROWS. */
static void compare_family(const qmm_family *kf, const qmm_family *ref, int64_t m, int64_t n, int64_t k, const void *src,
                           const float *x, const char *what) {
    qmm_test_compare_family(kf, ref, m, n, k, src, x, what, QMM_TEST_NAN_ANY, &n_special);
}

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
    char what[32];
    snprintf(what, sizeof what, "nonfinite=%d", nonfinite);
    compare_family(kf, ref, m, n, k, src, x, what);
    free(src);
    free(f);
    free(x);
}

/* ------------------------------------------------------ integer extremes */

/* Element l of a Q4_1 / Q5_0 / Q5_1 block set to the unsigned q (0..15 / 0..31), of a Q6_K block to u = q + 32. */
static void set_q(qmm_type t, void *blk, int l, unsigned q) {
    uint8_t *qs = t == QMM_TYPE_Q4_1   ? ((qmm_block_q4_1 *)blk)->qs
                  : t == QMM_TYPE_Q5_0 ? ((qmm_block_q5_0 *)blk)->qs
                                       : ((qmm_block_q5_1 *)blk)->qs;
    uint8_t *qh = t == QMM_TYPE_Q5_0 ? ((qmm_block_q5_0 *)blk)->qh : ((qmm_block_q5_1 *)blk)->qh;
    if (t == QMM_TYPE_Q6_K) {
        qmm_block_q6_k *b = blk;
        const int h = l / 128, r = l % 128;
        uint8_t *lo = &b->ql[64 * h + r % 64], *hi = &b->qh[32 * h + r % 32];
        *lo = (uint8_t)((*lo & ~(0x0fu << (4 * (r / 64)))) | (q & 15u) << (4 * (r / 64)));
        *hi = (uint8_t)((*hi & ~(0x03u << (2 * (r / 32)))) | (q >> 4) << (2 * (r / 32)));
        return;
    }
    uint8_t *byte = &qs[l % 16];
    *byte = (uint8_t)(l < 16 ? (*byte & 0xf0u) | (q & 15u) : (*byte & 0x0fu) | (q & 15u) << 4);
    if (t != QMM_TYPE_Q4_1)
        qh[l / 8] = (uint8_t)((qh[l / 8] & ~(1u << (l % 8))) | ((q >> 4) & 1u) << (l % 8));
}

/* Row j of n of type t whose quants sit at the ends of their range, in one of 4 patterns by j % 4 (all the top, all
 * the bottom, per 16 elements, alternating), Q6_K's int8 scales at -128 or 127; the fp16 scales by j / 4: 1, 65504,
 * the smallest subnormal (mins -1 or 1). */
static void extreme_row(qmm_type t, int64_t j, int64_t k, uint8_t *row) {
    const unsigned top = t == QMM_TYPE_Q4_1 ? 15 : t == QMM_TYPE_Q6_K ? 63 : 31;
    const int kind = (int)(j % 4);
    const uint16_t d = (const uint16_t[]){0x3c00, 0x7bff, 0x0001}[(j / 4) % 3], mn = j % 2 ? 0xbc00 : 0x3c00;
    const int be = qmm_type_block_elems(t);
    const size_t bb = qmm_type_block_bytes(t);
    for (int64_t b = 0; b < k / be; b++) {
        uint8_t *blk = row + (size_t)b * bb;
        memset(blk, 0, bb);
        for (int l = 0; l < be; l++) {
            const int hi = kind == 0 || (kind == 2 && (l / 16) % 2 == 0) || (kind == 3 && l % 2 == 0);
            set_q(t, blk, l, hi ? top : 0);
        }
        if (t == QMM_TYPE_Q6_K) {
            qmm_block_q6_k *q6 = (qmm_block_q6_k *)blk;
            for (int u = 0; u < 16; u++)
                q6->scales[u] = (int8_t)(kind < 2 || u % 2 ? -128 : 127);
            q6->d = d;
        } else {
            memcpy(blk, &d, 2); /* d first in every 32-element block */
            if (t != QMM_TYPE_Q5_0)
                memcpy(blk + 2, &mn, 2);
        }
    }
}

/* Integer extremes: weights from extreme_row against activation rows whose quants are all +-127 (constant rows of
 * either sign, signs per 16 elements or alternating), so that isum and imin reach the bounds of docs/formats.md
 * (Q6_K: 16646144, just below 2^24) where a kernel with a narrower intermediate (int16 partial sums, a scaled sum
 * that overflows int32, a float product) loses bits, which random blocks almost never show. */
static void test_extremes(const qmm_family *kf, const qmm_family *ref) {
    const qmm_type t = kf->wtype;
    if (t != QMM_TYPE_Q4_1 && t != QMM_TYPE_Q5_0 && t != QMM_TYPE_Q5_1 && t != QMM_TYPE_Q6_K)
        return;
    const int64_t k = 512, n = 13;
    const size_t rb = qmm_row_size(t, k);
    uint8_t *src = malloc(rb * (size_t)n);
    for (int64_t j = 0; j < n; j++)
        extreme_row(t, j, k, src + (size_t)j * rb);
    /* row 0 is at the top: d * 15 + 1, (31 - 16) d, d * 31 + 1, (d * -128) * (63 - 32), with d = 1 (row 1 is at
     * the bottom: Q6_K's largest magnitude, -128 * -32) */
    const float want = t == QMM_TYPE_Q4_1 ? 16.0f : t == QMM_TYPE_Q5_0 ? 15.0f : t == QMM_TYPE_Q5_1 ? 32.0f : -3968.0f;
    float *w0 = malloc((size_t)k * 4);
    qmm_dequantize_row(t, src, w0, k);
    int top = 1;
    for (int64_t l = 0; l < k; l++)
        top &= w0[l] == want;
    CHECK(top, "%s: extreme row 0 is not at the top of the range", kf->name);
    free(w0);
    static const int64_t ms[] = {1, 10};
    for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
        const int64_t m = ms[mi];
        float *x = malloc((size_t)(m * k) * 4);
        for (int64_t i = 0; i < m; i++)
            for (int64_t l = 0; l < k; l++) {
                const int kind = (int)(i % 4);
                const float sign = kind == 1 || (kind == 2 && (l / 16) % 2) || (kind == 3 && l % 2) ? -1.0f : 1.0f;
                x[i * k + l] = sign * (i < 4 ? 1.0f : 3e-5f);
            }
        compare_family(kf, ref, m, n, k, src, x, "extreme quants");
        free(x);
    }
    free(src);
}

/* ------------------------------------------------ IQ4_XS integer extremes */

/* IQ4_XS weights at the ends of their ranges: per super-block s of row j one of 5 patterns by (j + s) (every
 * sub-scale -32 or 31 (stored 0 / 63), every index 0 or 15 (levels -127 / 113), both crossed; then sub-scales
 * alternating -32 / 31 per 32-block with indices alternating 0 / 15 per element), d by j / 5 from 1, -1, 65504 and
 * the smallest subnormal. Against activation rows of +-127 quants (constant of either sign, signs per 16, alternating),
 * |isum| reaches 32 * 32 * 127 * 127 = 16516096 (docs/formats.md), where a narrower intermediate (an int16 dot, a
 * sub-scale read unsigned) loses bits that random blocks rarely show; k up to 2304 (9 super-blocks: an odd count),
 * then the public API at 1..5 threads and several chunkings with the family forced, against the forced reference. */
static void iq4_xs_extreme_rows(int64_t k, int64_t n, uint8_t *src) {
    static const uint16_t ds[] = {0x3c00, 0xbc00, 0x7bff, 0x0001};
    for (int64_t j = 0; j < n; j++)
        for (int64_t s = 0; s < k / QMM_QK_K; s++) {
            qmm_block_iq4_xs *b = (qmm_block_iq4_xs *)(src + (size_t)j * qmm_row_size(QMM_TYPE_IQ4_XS, k)) + s;
            const int p = (int)((j + s) % 5);
            const uint8_t sc = p == 0 || p == 2 ? 0x00 : 0xff, q = p == 0 || p == 3 ? 0x00 : 0xff;
            b->d = ds[(j / 5) % 4];
            b->scales_h = p == 4 ? 0xcccc : (uint16_t)(sc * 0x0101u); /* p = 4: blocks 2i + 1 stored 63, 2i stored 0 */
            memset(b->scales_l, p == 4 ? 0xf0 : sc, 4);
            memset(b->qs, p == 4 ? 0xf0 : q, sizeof b->qs); /* p = 4: elements 0..15 index 0, 16..31 index 15 */
        }
}

static void iq4_xs_extreme_acts(int64_t m, int64_t k, float *x) {
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            const int kind = (int)((i + l / QMM_QK_K) % 4);
            const float sign = kind == 1 || (kind == 2 && (l / 16) % 2) || (kind == 3 && l % 2) ? -1.0f : 1.0f;
            x[i * k + l] = sign * (i % 3 == 2 ? 3e-5f : 1.0f);
        }
}

static void test_iq4_xs_extremes(const qmm_family *kf, const qmm_family *ref) {
    if (kf->wtype != QMM_TYPE_IQ4_XS)
        return;
    static const int64_t ks[] = {256, 2304}, ms[] = {1, 3, 4, 5, 10};
    const int64_t n = 13;
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        const int64_t k = ks[ki];
        const size_t rb = qmm_row_size(QMM_TYPE_IQ4_XS, k);
        uint8_t *src = malloc(rb * (size_t)n);
        iq4_xs_extreme_rows(k, n, src);
        /* row 0, super-block 0: d = 1, ls = -32, index 0: every value (1 * -32) * -127 = 4064 */
        float *w0 = malloc((size_t)k * 4);
        qmm_dequantize_row(QMM_TYPE_IQ4_XS, src, w0, k);
        CHECK(w0[0] == 4064.0f && w0[255] == 4064.0f, "%s: extreme row 0 is %g, not 4064", kf->name, w0[0]);
        free(w0);
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
            float *x = malloc((size_t)(ms[mi] * k) * 4);
            iq4_xs_extreme_acts(ms[mi], k, x);
            compare_family(kf, ref, ms[mi], n, k, src, x, "IQ4_XS extremes");
            free(x);
        }
        free(src);
    }
    /* through the public API: threads and chunkings */
    const int64_t k = 2304, m = 11, nn = 45;
    const size_t rb = qmm_row_size(QMM_TYPE_IQ4_XS, k);
    uint8_t *src = malloc(rb * (size_t)nn);
    iq4_xs_extreme_rows(k, nn, src);
    float *x = malloc((size_t)(m * k) * 4), *expect = NULL;
    iq4_xs_extreme_acts(m, k, x);
    for (int run = 0; run < 8; run++) {
        qmm_options o;
        memset(&o, 0, sizeof o);
        o.n_threads = run == 0 ? 1 : 1 + run % 5;
        o.chunk_multiplier = 1 + run % 3;
        o.flags = QMM_IGNORE_ENV;
        o.kernel = run == 0 ? ref->name : kf->name;
        qmm_context *ctx = NULL;
        qmm_weights *w = NULL;
        CHECK_OK(qmm_context_create(&o, &ctx));
        if (ctx)
            CHECK_OK(qmm_weights_pack(ctx, QMM_TYPE_IQ4_XS, k, nn, src, rb * (size_t)nn, &w));
        float *y = calloc((size_t)(m * nn), 4);
        qmm_tensor xt, yt;
        CHECK_OK(qmm_tensor_init(&xt, QMM_TYPE_F32, 2, (int64_t[]){k, m}, x));
        CHECK_OK(qmm_tensor_init(&yt, QMM_TYPE_F32, 2, (int64_t[]){nn, m}, y));
        if (w) {
            CHECK(strcmp(qmm_weights_kernel(w), o.kernel) == 0, "%s: weights packed for %s", o.kernel, qmm_weights_kernel(w));
            CHECK_OK(qmm_mul_mat(ctx, w, &xt, &yt));
        }
        if (run == 0) {
            expect = y;
        } else {
            int ok = expect != NULL;
            for (int64_t i = 0; ok && i < m * nn; i++)
                ok &= qmm_test_same_float(y[i], expect[i], QMM_TEST_NAN_ANY);
            CHECK(ok, "%s: threads=%d multiplier=%d differ from %s on IQ4_XS extremes", kf->name, o.n_threads, o.chunk_multiplier,
                  ref->name);
            free(y);
        }
        qmm_weights_free(w);
        qmm_context_free(ctx);
    }
    free(expect);
    free(x);
    free(src);
}

static int tested;

/* F32 / F16 / BF16 families at the edges of their blocking (the AVX-512 GEMM
 * slices k by 256 and carries partial sums across slices, walks columns in
 * blocks of 128 and rows in blocks of 132; its tiles are 12 rows x 2 panels
 * and, for F16 / BF16, 24 rows (two groups) x 1 panel; the activation packer
 * transposes 8 and 4 rows x 8 l with scalar tails, the F16/BF16 weight packer
 * 8 x 8; the AVX2 tile is 6 x 16, 1 x 64 / 2 x 32 for leftover rows): k around the slice and the transpose
 * width, n around panels and column blocks, m from 1 to past a row block, bit
 * for bit against the reference. */
static void test_fp_blocking(const qmm_family *kf, const qmm_family *ref) {
    static const int64_t ks[] = {1, 7, 9, 255, 257, 520};
    static const int64_t ns[] = {1, 15, 17, 33, 129, 161};
    static const int64_t ms[] = {2, 3, 6, 7, 8, 9, 13, 16, 17};
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
                if ((ki + ni + mi) % 3 == 0) /* a third of the grid: every value of each axis is met */
                    test_one(kf, ref, ms[mi], ns[ni], ks[ki], 0);
    test_one(kf, ref, 1, 161, 520, 0);
    test_one(kf, ref, 137, 40, 257, 0); /* two row blocks of the AVX-512 GEMM */
    /* every row count of a 12-row group and its tiles (1..13), around two
     * groups (23..25: the 24-row tile and what is left beside it), three and
     * four groups; n off the panel pair, k off the slice and below 8 */
    static const int64_t ks2[] = {5, 263};
    static const int64_t ns2[] = {17, 47};
    for (int64_t m = 1; m <= 49; m++) {
        if (m > 13 && !(m >= 23 && m <= 25) && m != 36 && m != 37 && m != 48 && m != 49)
            continue;
        for (size_t i = 0; i < 2; i++)
            test_one(kf, ref, m, ns2[((size_t)m % 2) ^ i], ks2[i], 0);
    }
    /* The AVX2 GEMM's tiles (1 to MR + 1 rows: the leftover rows' 4- and
     * 2-panel tiles), n = 145 / 200 (past a 128-column block, a 4-panel
     * group cut short), k at and off a 256 slice (blocked kernels carry
     * partial sums across it) and below a vector step. */
    static const int64_t ks3[] = {3, 256, 512, 777};
    for (int64_t m = 1; m <= 7; m++)
        for (size_t i = 0; i < sizeof ks3 / sizeof ks3[0]; i++)
            test_one(kf, ref, m, (m + (int64_t)i) % 2 ? 145 : 200, ks3[i], 0);
    test_one(kf, ref, 128, 145, 777, 0); /* exec's whole m block: 21 groups + 2 rows */
}

/* Int8 families at the edges of their blocking (the AMX GEMM: 16-row
 * activation groups, groups with < 9 rows on the VNNI tile, two panels per A
 * tile and a lone last panel, k chunks of 16 blocks with the partial sums in
 * y between chunks; exec's 128-row blocks): m around groups, n around panel
 * pairs, k around chunks, bit for bit against the reference. */
static void test_int8_blocking(const qmm_family *kf, const qmm_family *ref) {
    const int64_t be = qmm_type_block_elems(kf->wtype);
    const int64_t nbs[] = {15, 16, 17, 33}; /* 32-blocks per row; K-quants: the nearest whole super-blocks */
    static const int64_t ms[] = {9, 15, 16, 24, 25, 41};
    static const int64_t ns[] = {16, 31, 48, 33};
    for (size_t ki = 0; ki < sizeof nbs / sizeof nbs[0]; ki++) {
        const int64_t k = (nbs[ki] * QMM_QK + be - 1) / be * be;
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            test_one(kf, ref, ms[mi], ns[(ki + mi) % 4], k, 0);
    }
    test_one(kf, ref, 137, 33, be == 256 ? 768 : 544, 0); /* past exec's 128-row block: 8 groups + 9 rows */
}

static void visit(const qmm_family *kf, void *user) {
    const uint64_t features = *(const uint64_t *)user;
    const qmm_family *ref = qmm_registry_reference(kf->wtype);
    if (!ref || (kf->required & ~features) != 0 || !qmm_test_family_wanted(kf->name))
        return;
    static const int64_t ms[] = {1, 2, 5, 17};
    for (int nf = 0; nf < 2; nf++)
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            test_one(kf, ref, ms[mi], 37, qmm_type_block_elems(kf->wtype) == 256 ? 256 : 96, nf);
    test_extremes(kf, ref);
    test_iq4_xs_extremes(kf, ref);
    if (kf != ref && (kf->wtype == QMM_TYPE_F32 || kf->wtype == QMM_TYPE_F16 || kf->wtype == QMM_TYPE_BF16))
        test_fp_blocking(kf, ref);
    else if (kf != ref)
        test_int8_blocking(kf, ref);
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
