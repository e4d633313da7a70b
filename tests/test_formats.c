/* Block formats and the reference path.
 *  1. fp16 conversions: exhaustive fp16 -> fp32 -> fp16; fp32 -> fp16 against
 *     the F16C instruction where the CPU has it.
 *  2. Q4_0 / Q4_1 / Q5_0 / Q5_1 / Q8_0 / F16 bytes against vectors written
 *     by the `gguf` Python package (argv[1], from gen_format_vectors.py), and
 *     the dequantization and GET_ROWS of every packable quantized type (K-quants
 *     included) on random valid blocks against the package's.
 *  3. The packers' inverse helpers (qmm_k_scale_min_put, qmm_q4_nibbles_get /
 *     _put, qmm_q5_high_bits_put, qmm_iq4_xs_scale_put) against the accessors.
 *  4. The activation quantizer on hand-checked cases (ties, NaN, inf, clamp).
 *  5. The reference mul_mat path against double-precision ground truth on odd
 *     shapes, within error bounds derived below. */
#include <math.h>

#include "cpu/cpu.h"
#include "format_vectors_file.h"
#include "formats/formats.h"
#include "qmatmul.h"
#include "test_act_blocks.h"
#include "test_util.h"
#include "test_weights.h"

static uint64_t seed = 99;

static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

#if defined(__x86_64__)
#include <immintrin.h>
__attribute__((target("f16c"))) static uint16_t hw_f32_to_f16(float f) {
    return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT);
}
__attribute__((target("f16c"))) static float hw_f16_to_f32(uint16_t h) { return _cvtsh_ss(h); }
#define HW_F16_NAME    "F16C"
#define HW_F16_PRESENT (qmm_cpu_detect()->features & QMM_CPU_F16C)
#elif defined(__aarch64__)
#include <arm_neon.h>
/* fcvtn / fcvtl: base AArch64 Advanced SIMD, rounding to nearest even (the default FPCR). */
static uint16_t hw_f32_to_f16(float f) { return vget_lane_u16(vreinterpret_u16_f16(vcvt_f16_f32(vdupq_n_f32(f))), 0); }
static float hw_f16_to_f32(uint16_t h) { return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0); }
#define HW_F16_NAME    "fcvt"
#define HW_F16_PRESENT 1
#endif

static void test_fp16(void) {
    long bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        const float f = qmm_fp16_to_fp32((uint16_t)h);
        const uint16_t back = qmm_fp32_to_fp16(f);
        const int is_nan = ((h & 0x7c00) == 0x7c00) && (h & 0x3ff);
        if (is_nan)
            bad += !(f != f) || ((back & 0x7c00) != 0x7c00) || !(back & 0x3ff);
        else
            bad += back != h;
    }
    CHECK(bad == 0, "fp16 round trip: %ld of 65536 differ", bad);
#if defined(HW_F16_NAME)
    if (HW_F16_PRESENT) {
        bad = 0;
        for (uint32_t h = 0; h < 65536; h++) {
            const int is_nan = ((h & 0x7c00) == 0x7c00) && (h & 0x3ff);
            if (!is_nan)
                bad += fbits(hw_f16_to_f32((uint16_t)h)) != fbits(qmm_fp16_to_fp32((uint16_t)h));
        }
        CHECK(bad == 0, "fp16 -> fp32 differs from " HW_F16_NAME " in %ld cases", bad);
        bad = 0;
        for (long i = 0; i < 4000000; i++) {
            uint32_t u = (uint32_t)qmm_test_rand_u64(&seed);
            if (i % 4 == 0) /* concentrate on the half range and its edges */
                u = (u & 0x807fffffu) | ((uint32_t)(101 + (u >> 23) % 45) << 23);
            float f;
            memcpy(&f, &u, 4);
            if (f != f)
                continue;
            bad += hw_f32_to_f16(f) != qmm_fp32_to_fp16(f);
        }
        CHECK(bad == 0, "fp32 -> fp16 differs from " HW_F16_NAME " in %ld of 4M cases", bad);
        printf("fp16: checked against " HW_F16_NAME "\n");
    }
#endif
}

#define RANDOM_BLOCKS 0x100u /* gen_format_vectors.py: random valid blocks, not a quantization of the input */

/* GET_ROWS of packed weights (every row, in reverse order) against the gguf
 * package's dequantization `want`. */
static void check_get_rows(qmm_context *ctx, qmm_type t, const void *src, size_t nbytes, int64_t rows, int64_t k,
                           const float *want) {
    qmm_weights *w = NULL;
    CHECK_OK(qmm_weights_pack(ctx, t, k, rows, src, nbytes, &w));
    if (!w)
        return;
    int32_t *ids = malloc((size_t)rows * 4);
    float *out = malloc((size_t)(rows * k) * 4);
    for (int64_t r = 0; r < rows; r++)
        ids[r] = (int32_t)(rows - 1 - r);
    qmm_tensor it, ot;
    const int64_t ine[1] = {rows}, one[2] = {k, rows};
    qmm_tensor_init(&it, QMM_TYPE_I32, 1, ine, ids);
    qmm_tensor_init(&ot, QMM_TYPE_F32, 2, one, out);
    CHECK_OK(qmm_get_rows(ctx, w, &it, &ot));
    long bad = 0;
    for (int64_t r = 0; r < rows; r++)
        bad += memcmp(out + r * k, want + (rows - 1 - r) * k, (size_t)k * 4) != 0;
    CHECK(bad == 0, "%s: GET_ROWS (%s): %ld of %lld rows differ from the gguf package's dequantization", qmm_type_name(t),
          qmm_weights_kernel(w), bad, (long long)rows);
    qmm_weights_free(w);
    free(ids);
    free(out);
}

static void test_vectors(const char *path) {
    qmm_test_records file;
    const int whole = qmm_test_records_read(path, "tests/gen_format_vectors.py", 999, &file);
    CHECK(!whole || (file.n >= 3 && file.n % 2 == 1), "vectors file: %u records, expected the input and pairs", file.n);
    const uint32_t got = file.got;
    const qmm_test_record *r = file.r;
    if (got < 3) {
        qmm_test_records_free(&file);
        return;
    }
    qmm_context *ctx = NULL;
    CHECK_OK(qmm_context_create(NULL, &ctx));
    const float *x = (const float *)r[0].data;
    int seen_random = 0;
    for (uint32_t i = 1; i + 1 < got; i += 2) {
        const int random = (r[i].type & RANDOM_BLOCKS) != 0;
        const qmm_type t = (qmm_type)(r[i].type & ~RANDOM_BLOCKS);
        const int64_t rows = r[i].rows, k = r[i].k;
        const size_t sz = qmm_row_size(t, k) * (size_t)rows;
        CHECK(sz == r[i].nbytes && r[i + 1].nbytes == (size_t)(rows * k) * 4, "%s: %zu bytes, the gguf package wrote %u",
              qmm_type_name(t), sz, r[i].nbytes);
        if (sz != r[i].nbytes || r[i + 1].nbytes != (size_t)(rows * k) * 4)
            continue;
        if (!random) {
            uint8_t *q = malloc(sz);
            CHECK_OK(qmm_quantize(t, x, q, rows, k));
            long bad = 0;
            for (size_t b = 0; b < sz; b++)
                bad += q[b] != r[i].data[b];
            CHECK(bad == 0, "%s: %ld bytes differ from the gguf package's reference quantizer", qmm_type_name(t), bad);
            free(q);
        }
        seen_random += random;
        float *d = malloc((size_t)(rows * k) * 4);
        CHECK_OK(qmm_dequantize(t, r[i].data, d, rows, k));
        long bad = 0;
        for (int64_t e = 0; e < rows * k; e++)
            bad += fbits(d[e]) != fbits(((const float *)r[i + 1].data)[e]);
        CHECK(bad == 0, "%s%s: %ld dequantized values differ from the gguf package's", qmm_type_name(t),
              random ? " (random blocks)" : "", bad);
        if (t != QMM_TYPE_F16)
            check_get_rows(ctx, t, r[i].data, sz, rows, k, (const float *)r[i + 1].data);
        printf("%s%s: %s identical to the gguf package's\n", qmm_type_name(t), random ? " random blocks" : "",
               random ? "dequantization and GET_ROWS" : "bytes and dequantization");
        free(d);
    }
    CHECK(seen_random >= 30, "vectors file: %d random-block records, expected every packable quantized type", seen_random);
    qmm_context_free(ctx);
    qmm_test_records_free(&file);
}

/* qmm_dequantize_row_tail (GET_ROWS of every family: the row's bytes in the
 * tail of its output, dequantized in place) gives the bits of
 * qmm_dequantize_row on a separate buffer, whatever the bytes (NaN and
 * infinite scales included: both run the same dequantizer), for every type
 * it serves; and it serves every packable type but F32, whose rows need no
 * dequantizing, so GET_ROWS never answers UNSUPPORTED for a packed matrix. */
static void test_dequantize_tail(void) {
    for (int t = 0; t < QMM_TYPE_COUNT; t++) {
        if (qmm_type_packable((qmm_type)t) && t != QMM_TYPE_F32)
            CHECK(qmm_type_dequantizes_in_place((qmm_type)t), "%s: packable, but its rows cannot be dequantized in place",
                  qmm_type_name((qmm_type)t));
        if (!qmm_type_dequantizes_in_place((qmm_type)t))
            continue;
        const int64_t k = 5 * qmm_type_block_elems((qmm_type)t);
        const size_t rb = qmm_row_size((qmm_type)t, k);
        float *row = malloc((size_t)k * 4), *want = malloc((size_t)k * 4);
        uint8_t *bytes = malloc(rb);
        long bad = 0;
        for (int it = 0; it < 50; it++) {
            for (size_t b = 0; b < rb; b++)
                bytes[b] = (uint8_t)qmm_test_rand_u64(&seed);
            memcpy((uint8_t *)row + (size_t)k * 4 - rb, bytes, rb);
            CHECK(qmm_dequantize_row((qmm_type)t, bytes, want, k) == 0 && qmm_dequantize_row_tail((qmm_type)t, row, k) == 0,
                  "%s: a dequantizer failed", qmm_type_name((qmm_type)t));
            for (int64_t l = 0; l < k; l++)
                bad += fbits(row[l]) != fbits(want[l]);
        }
        CHECK(bad == 0, "%s: %ld values dequantized in place differ from a separate buffer's", qmm_type_name((qmm_type)t), bad);
        free(row);
        free(want);
        free(bytes);
    }
    CHECK(!qmm_type_dequantizes_in_place(QMM_TYPE_F32) && !qmm_type_dequantizes_in_place(QMM_TYPE_I32),
          "F32 / I32: no dequantizer, so not in place either");
}

/* BF16: the quantizer's special cases (ggml's ggml_compute_fp32_to_bf16),
 * by hand, and the exact widening of every bf16 bit pattern. */
static void test_bf16(void) {
    static const uint32_t in[] = {0x7f800001u, 0xffc00001u, 0x7f800000u, 0xff800000u, 0x3f808000u, 0x3f818000u,
                                  0x3f808001u, 0x7f7fffffu, 0x00018000u, 0x00008000u, 0x80000000u, 0x007fffffu};
    static const uint16_t want[] = {0x7fc0u, 0xffc0u, 0x7f80u, 0xff80u, 0x3f80u, 0x3f82u,
                                    0x3f81u, 0x7f80u, 0x0002u, 0x0000u, 0x8000u, 0x0080u};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        float f;
        memcpy(&f, &in[i], 4);
        CHECK(qmm_fp32_to_bf16(f) == want[i], "bf16(0x%08x) = 0x%04x, want 0x%04x", in[i], qmm_fp32_to_bf16(f), want[i]);
    }
    long bad = 0;
    for (uint32_t h = 0; h < 65536; h++)
        bad += fbits(qmm_bf16_to_fp32((uint16_t)h)) != h << 16;
    CHECK(bad == 0, "bf16 -> fp32: %ld of 65536 not the bits shifted", bad);
}

static void test_act_quantizer(void) {
    float x[32];
    int8_t q[32];
    float d;
    int32_t s;
    /* amax 127: id 1 exactly, so x * id = x and rounding is visible */
    for (int j = 0; j < 32; j++)
        x[j] = 0.0f;
    x[0] = 127.0f, x[1] = 0.5f, x[2] = 1.5f, x[3] = 2.5f, x[4] = -0.5f, x[5] = -1.5f, x[6] = -126.5f, x[7] = 3.49f;
    qmm_act_quantize_block(x, q, &d, &s);
    CHECK(d == 1.0f, "d = %g", d);
    CHECK(q[0] == 127 && q[1] == 0 && q[2] == 2 && q[3] == 2 && q[4] == 0 && q[5] == -2 && q[6] == -126 && q[7] == 3,
          "round half to even: %d %d %d %d %d %d %d %d", q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]);
    CHECK(s == 127 + 2 + 2 - 2 - 126 + 3, "block sum %d", s);
    /* all zero: d = 0, q = 0 */
    memset(x, 0, sizeof x);
    qmm_act_quantize_block(x, q, &d, &s);
    CHECK(d == 0.0f && s == 0, "zero block");
    /* NaN is skipped by amax and quantizes to 0 */
    for (int j = 0; j < 32; j++)
        x[j] = (float)(j - 16);
    x[5] = NAN;
    qmm_act_quantize_block(x, q, &d, &s);
    CHECK(d == 16.0f / 127.0f && q[5] == 0 && q[0] == -127, "NaN: d=%g q5=%d q0=%d", d, q[5], q[0]);
    /* inf: d = inf, id = 0, every q is 0 (inf * 0 is NaN -> 0) */
    x[5] = INFINITY;
    qmm_act_quantize_block(x, q, &d, &s);
    int all0 = 1;
    for (int j = 0; j < 32; j++)
        all0 &= q[j] == 0;
    CHECK(isinf(d) && all0 && s == 0, "inf block");
    /* Tiny blocks (amax / 127 <= 2^-128), where ggml's 1 / d overflows to inf
     * (every q +-127) or d underflows to 0 (every q 0). amax = 127 * 2^-140:
     * d = 2^-140 exactly, q = x / d exactly. */
    for (int j = 0; j < 32; j++)
        x[j] = (float)(j - 16) * 0x1p-140f;
    x[0] = 127.0f * 0x1p-140f;
    qmm_act_quantize_block(x, q, &d, &s);
    int exact = d == 0x1p-140f && q[0] == 127;
    for (int j = 1; j < 32; j++)
        exact &= q[j] == j - 16;
    CHECK(exact && s == 127, "tiny block: d = %a (want 0x1p-140), q1 = %d, sum %d", d, q[1], s);
    /* ties in the scaled block: d = 2^-141, x / d = k + 1/2, half to even */
    qmm_test_tiny_block(x, 9, &seed);
    qmm_act_quantize_block(x, q, &d, &s);
    exact = d == 0x1p-141f && q[0] == 127;
    for (int j = 1; j < 32; j++)
        exact &= q[j] == (int)nearbyint((2 * (j - 16) + 1) / 2.0);
    CHECK(exact, "tiny ties: d = %a, q1 = %d q16 = %d q17 = %d", d, q[1], q[16], q[17]);
    /* integer multiples of 2^-149, amax 16 * 2^-149: d = amax / 127 is not
     * representable and is rounded up to 2^-149, so q = x / 2^-149 exactly */
    qmm_test_tiny_block(x, 2, &seed);
    qmm_act_quantize_block(x, q, &d, &s);
    exact = d == 0x1p-149f && s == -16;
    for (int j = 0; j < 32; j++)
        exact &= q[j] == j - 16;
    CHECK(exact, "subnormal multiples: d = %a, q0 = %d, sum %d", d, q[0], s);
    /* one smallest subnormal */
    qmm_test_tiny_block(x, 8, &seed);
    qmm_act_quantize_block(x, q, &d, &s);
    CHECK(d == 0x1p-149f && s == 1, "a lone 2^-149: d = %a, sum %d", d, s);
    /* d just above 2^-128 (subnormal, 1 / d finite): ggml's arithmetic, bits */
    qmm_test_tiny_block(x, 5, &seed);
    qmm_act_quantize_block(x, q, &d, &s);
    {
        const float gd = 0x1.fc04p-122f / 127.0f, gid = 1.0f / gd;
        int same = memcmp(&d, &gd, 4) == 0 && d > 0x1p-128f;
        for (int j = 0; j < 32; j++)
            same &= q[j] == (int8_t)fmaxf(-127.0f, fminf(127.0f, nearbyintf(x[j] * gid)));
        CHECK(same, "d just above 2^-128: d = %a, want %a and ggml's q", d, gd);
    }
    /* |q| <= 127 always, q * d within 0.5 d + 2.0001 u |x| of x (the bound of
     * docs/formats.md), at every magnitude down to subnormal and in blocks
     * mixing magnitudes */
    for (int it = 0; it < 30000; it++) {
        const int kind = it % (QMM_TEST_TINY_KINDS + 2);
        if (kind < QMM_TEST_TINY_KINDS) {
            qmm_test_tiny_block(x, kind, &seed);
        } else {
            const float mag = ldexpf(1.0f, (int)(qmm_test_rand_u64(&seed) % 190) - 160);
            for (int j = 0; j < 32; j++)
                x[j] = qmm_test_rand_f(&seed) * mag * (kind == QMM_TEST_TINY_KINDS ? 1.0f : ldexpf(1.0f, -(j % 24)));
        }
        qmm_act_quantize_block(x, q, &d, &s);
        int ok = 1, sum = 0;
        for (int j = 0; j < 32; j++) {
            ok &= q[j] >= -127; /* q is int8: only -128 is out of range */
            if (x[j] == x[j])
                ok &= fabs((double)q[j] * d - x[j]) <= 0.5 * d + fabs(x[j]) * 2.0001 * 0x1p-24;
            else
                ok &= q[j] == 0;
            sum += q[j];
        }
        CHECK(ok && sum == s, "activation quantization bound, iteration %d (kind %d, d = %a)", it, kind, d);
        if (!ok)
            break;
    }
}

/* Ground truth for the reference path, in double.
 * Quantized weights: y = sum_b fl(fl(I_b * s_b) + acc) with s_b = fl(dw_b dx_b)
 * (fmaf: one rounding per block step). With u = 2^-24 and gamma_n = n u / (1 - n u),
 * |y - sum_b I_b dw_b dx_b| <= gamma_{nb+1} sum_b |I_b dw_b dx_b|
 *                              + (1 + gamma_nb) 2^-150 sum_b |I_b|
 * (scale product plus accumulation; the last term is the underflow of a
 * subnormal s_b, half an ulp of 2^-149 each; the fma adds none: I_b s_b and
 * acc are multiples of 2^-149, so a subnormal sum is exact). Against the
 * unquantized activations, each x_l is off by at most 0.5 d_b + |x_l| 2.0001 u
 * (rounding of x * id, tiny blocks included), so
 * |y - sum_l w_l x_l| <= that + sum_l |w_l| (0.5 d_b + 2.0001 u |x_l|).
 * F32 / F16 weights: |y - sum_l w_l x_l| <= gamma_k sum_l |w_l x_l| + (1 + gamma_k) k 2^-150.
 * Rows of tiny, subnormal and mixed-magnitude blocks (qmm_test_tiny_block)
 * alternate with normal rows so that every shape has both. */
static void test_ground_truth(void) {
    static const int64_t ks[] = {32, 96, 512, 4096};
    static const int64_t ns[] = {1, 3, 17, 77};
    static const int64_t ms[] = {1, 3, 17};
    static const qmm_type ts[] = {QMM_TYPE_Q4_0, QMM_TYPE_Q8_0, QMM_TYPE_F32, QMM_TYPE_F16};
    static const char *refs[] = {"ref_q4_0", "ref_q8_0", "ref_f32", "ref_f16"};
    const double u = 0x1p-24;
    for (int ti = 0; ti < 4; ti++) {
        qmm_options o;
        memset(&o, 0, sizeof o);
        o.n_threads = 1;
        o.kernel = refs[ti];
        o.flags = QMM_IGNORE_ENV;
        qmm_context *ctx;
        CHECK_OK(qmm_context_create(&o, &ctx));
        long bad = 0, checked = 0;
        for (size_t ki = 0; ki < 4; ki++)
            for (size_t ni = 0; ni < 4; ni++)
                for (size_t mi = 0; mi < 3; mi++) {
                    const int64_t k = ks[ki], n = ns[ni], m = ms[mi], nb = k / 32;
                    const qmm_type t = ts[ti];
                    float *wf = malloc((size_t)(n * k) * 4), *x = malloc((size_t)(m * k) * 4), *y = malloc((size_t)(m * n) * 4);
                    for (int64_t i = 0; i < n * k; i++)
                        wf[i] = qmm_test_rand_f(&seed);
                    for (int64_t i = 0; i < m * k; i++)
                        x[i] = qmm_test_rand_f(&seed) * ((i / 32) % 3 == 0 ? 50.0f : 1.0f);
                    for (int64_t j = 0; j < m; j++) {
                        const int64_t kind = (j + (int64_t)ni) % 3; /* 0: normal, 1: tiny, 2: tiny and normal */
                        for (int64_t b = 0; kind && b < nb; b++)
                            if (kind == 1 || b % 2)
                                qmm_test_tiny_block(x + j * k + b * 32, (int)((b + j) % QMM_TEST_TINY_KINDS), &seed);
                    }
                    for (int64_t i = 0; i < m * k; i++)
                        x[i] = x[i] == x[i] ? x[i] : 0.0f; /* finite inputs only here */
                    const size_t rb = qmm_row_size(t, k);
                    void *ws = malloc(rb * (size_t)n);
                    if (t == QMM_TYPE_F32)
                        memcpy(ws, wf, rb * (size_t)n);
                    else
                        qmm_quantize(t, wf, ws, n, k);
                    float *wd = malloc((size_t)(n * k) * 4); /* weights as stored */
                    if (t == QMM_TYPE_F32)
                        memcpy(wd, wf, (size_t)(n * k) * 4);
                    else
                        qmm_dequantize(t, ws, wd, n, k);
                    qmm_weights *w;
                    CHECK_OK(qmm_weights_pack(ctx, t, k, n, ws, rb * (size_t)n, &w));
                    const int64_t xne[2] = {k, m}, yne[2] = {n, m};
                    qmm_tensor xt, yt;
                    qmm_tensor_init(&xt, QMM_TYPE_F32, 2, xne, x);
                    qmm_tensor_init(&yt, QMM_TYPE_F32, 2, yne, y);
                    CHECK_OK(qmm_mul_mat(ctx, w, &xt, &yt));
                    for (int64_t j = 0; j < m; j++)
                        for (int64_t i = 0; i < n; i++) {
                            const float *wr = wd + i * k, *xr = x + j * k;
                            double exact = 0, absum = 0, bound;
                            if (t == QMM_TYPE_F32 || t == QMM_TYPE_F16) {
                                for (int64_t l = 0; l < k; l++) {
                                    exact += (double)wr[l] * xr[l];
                                    absum += fabs((double)wr[l] * xr[l]);
                                }
                                bound = (double)k * u / (1 - (double)k * u) * absum +
                                        (1 + (double)k * u / (1 - (double)k * u)) * (double)k * 0x1p-150;
                            } else {
                                double qexact = 0, qabs = 0, qerr = 0, isums = 0;
                                for (int64_t b = 0; b < nb; b++) {
                                    int8_t q[32];
                                    float d;
                                    int32_t s;
                                    qmm_act_quantize_block(xr + b * 32, q, &d, &s);
                                    int64_t isum = 0; /* I_b from the GGUF block */
                                    for (int l = 0; l < 32; l++) {
                                        const int wq =
                                            t == QMM_TYPE_Q8_0
                                                ? ((const qmm_block_q8_0 *)ws)[i * nb + b].qs[l]
                                                : ((((const qmm_block_q4_0 *)ws)[i * nb + b].qs[l % 16] >> (l < 16 ? 0 : 4)) &
                                                   15) -
                                                      8;
                                        isum += (int64_t)wq * q[l];
                                    }
                                    isums += fabs((double)isum);
                                    for (int l = 0; l < 32; l++) {
                                        const double wv = wr[b * 32 + l], xv = xr[b * 32 + l];
                                        qexact += wv * q[l] * (double)d;
                                        qabs += fabs(wv * q[l] * (double)d);
                                        exact += wv * xv;
                                        qerr += fabs(wv) * (0.5 * d + 2.0001 * u * fabs(xv));
                                    }
                                }
                                const double under = (1 + (double)nb * u / (1 - (double)nb * u)) * 0x1p-150 * isums;
                                bound = (double)(nb + 1) * u / (1 - (double)(nb + 1) * u) * qabs + under + qerr;
                                /* the integer path, against its own exact value: a sharp check */
                                const double e2 = fabs((double)y[j * n + i] - qexact);
                                const double b2 = (double)(nb + 1) * u / (1 - (double)(nb + 1) * u) * qabs + under;
                                if (!(e2 <= b2 + 1e-300)) {
                                    if (bad < 3)
                                        fprintf(stderr, "  %s k=%lld: |y - exact(quantized)| = %g > %g\n", qmm_type_name(t),
                                                (long long)k, e2, b2);
                                    bad++;
                                }
                            }
                            const double err = fabs((double)y[j * n + i] - exact);
                            if (!(err <= bound + 1e-300)) {
                                if (bad < 3)
                                    fprintf(stderr, "  %s k=%lld n=%lld m=%lld: |y - exact| = %g > bound %g\n", qmm_type_name(t),
                                            (long long)k, (long long)n, (long long)m, err, bound);
                                bad++;
                            }
                            checked++;
                        }
                    qmm_weights_free(w);
                    free(wf), free(x), free(y), free(ws), free(wd);
                }
        CHECK(bad == 0, "%s reference path: %ld of %ld outputs outside the ground-truth bound", qmm_type_name(ts[ti]), bad,
              checked);
        printf("%s: %ld outputs within the ground-truth bound\n", qmm_type_name(ts[ti]), checked);
        qmm_context_free(ctx);
    }
}

/* The new types' error, against ggml's: for each type, the normalised squared
 * error sum (y - exact)^2 / sum exact^2 of the reference path (per-32
 * activation blocks) against the double product of the dequantized weights
 * and the fp32 activations must be no worse than what ggml's activation
 * quantization for these types gives, emulated here in double: Q8_K for the
 * K-quants, IQ4_XS, the i-quant grid and ternary types (per 256, iscale = -127 / max with max the signed value
 * of largest magnitude, q = min(127, round(iscale * x)), d = 1 / iscale);
 * (Q4_1, Q5_0, Q5_1 too, coarser than their ggml Q8_0 / Q8_1); Q8_0 for IQ4_NL and
 * MXFP4 (per 32, d = amax / 127 stored as
 * fp16, q = round(x / d)); BF16 activations for BF16. Q8_0 quantizes to the
 * same q as ours (bar ties), so there the two errors differ only by ggml's
 * fp16 rounding of d: ours must be no worse, and within 5e-4 of ggml's. */
enum { GGML_Q8_K, GGML_Q8_0, GGML_BF16 };

static void ggml_acts(int kind, const float *x, float *xg, int64_t len) {
    if (kind == GGML_BF16) {
        for (int64_t i = 0; i < len; i++)
            xg[i] = qmm_bf16_to_fp32(qmm_fp32_to_bf16(x[i]));
        return;
    }
    if (kind == GGML_Q8_0) {
        for (int64_t s = 0; s < len; s += 32) {
            float amax = 0;
            for (int l = 0; l < 32; l++)
                amax = fmaxf(amax, fabsf(x[s + l]));
            const float d = amax / 127.0f, id = d ? 1.0f / d : 0.0f, dh = qmm_fp16_to_fp32(qmm_fp32_to_fp16(d));
            for (int l = 0; l < 32; l++)
                xg[s + l] = (float)((double)roundf(x[s + l] * id) * (double)dh);
        }
        return;
    }
    for (int64_t s = 0; s < len; s += 256) {
        float amax = 0, max = 0;
        for (int l = 0; l < 256; l++)
            if (fabsf(x[s + l]) > amax) {
                amax = fabsf(x[s + l]);
                max = x[s + l];
            }
        const float iscale = amax ? -127.0f / max : 0.0f;
        for (int l = 0; l < 256; l++) {
            const long q = lrintf(iscale * x[s + l]);
            xg[s + l] = amax ? (float)((double)(q > 127 ? 127 : q) * (double)(1.0f / iscale)) : 0.0f;
        }
    }
}

static void test_new_types_error(void) {
    static const qmm_type ts[] = {
        QMM_TYPE_Q4_1,    QMM_TYPE_Q5_0,   QMM_TYPE_Q5_1,   QMM_TYPE_Q2_K,    QMM_TYPE_Q3_K,  QMM_TYPE_Q4_K,  QMM_TYPE_Q5_K,
        QMM_TYPE_Q6_K,    QMM_TYPE_IQ4_NL, QMM_TYPE_IQ4_XS, QMM_TYPE_MXFP4,   QMM_TYPE_BF16,  QMM_TYPE_IQ1_S, QMM_TYPE_IQ1_M,
        QMM_TYPE_IQ2_XXS, QMM_TYPE_IQ2_XS, QMM_TYPE_IQ2_S,  QMM_TYPE_IQ3_XXS, QMM_TYPE_IQ3_S, QMM_TYPE_TQ1_0, QMM_TYPE_TQ2_0};
    const int64_t k = 1024, n = 24, m = 6;
    qmm_context *ctx = NULL;
    CHECK_OK(qmm_context_create(NULL, &ctx));
    float *x = malloc((size_t)(m * k) * 4), *xg = malloc((size_t)(m * k) * 4);
    for (int64_t i = 0; i < m * k; i++) /* mixed magnitudes within a 256: per-32 scales help */
        x[i] = qmm_test_rand_f(&seed) * ((i / 32) % 5 == 0 ? 20.0f : (i / 32) % 5 == 1 ? 0.05f : 1.0f);
    for (size_t ti = 0; ti < sizeof ts / sizeof ts[0]; ti++) {
        const qmm_type t = ts[ti];
        const int kind = t == QMM_TYPE_BF16                            ? GGML_BF16
                         : qmm_type_block_elems(t) == 256              ? GGML_Q8_K
                         : t == QMM_TYPE_IQ4_NL || t == QMM_TYPE_MXFP4 ? GGML_Q8_0
                                                                       : GGML_Q8_K;
        ggml_acts(kind, x, xg, m * k);
        const size_t rb = qmm_row_size(t, k);
        uint8_t *ws = malloc(rb * (size_t)n);
        float *wd = malloc((size_t)(n * k) * 4), *y = malloc((size_t)(m * n) * 4);
        qmm_test_random_blocks(t, k, n, ws, 1, &seed);
        CHECK_OK(qmm_dequantize(t, ws, wd, n, k));
        qmm_weights *w = NULL;
        CHECK_OK(qmm_weights_pack(ctx, t, k, n, ws, rb * (size_t)n, &w));
        const int64_t xne[2] = {k, m}, yne[2] = {n, m};
        qmm_tensor xt, yt;
        qmm_tensor_init(&xt, QMM_TYPE_F32, 2, xne, x);
        qmm_tensor_init(&yt, QMM_TYPE_F32, 2, yne, y);
        CHECK_OK(qmm_mul_mat(ctx, w, &xt, &yt));
        double e_ours = 0, e_ggml = 0, e_diff = 0, norm = 0;
        for (int64_t j = 0; j < m; j++)
            for (int64_t i = 0; i < n; i++) {
                double exact = 0, g = 0;
                for (int64_t l = 0; l < k; l++) {
                    exact += (double)wd[i * k + l] * x[j * k + l];
                    g += (double)wd[i * k + l] * xg[j * k + l];
                }
                const double yo = y[j * n + i];
                e_ours += (yo - exact) * (yo - exact);
                e_ggml += (g - exact) * (g - exact);
                e_diff += (yo - g) * (yo - g);
                norm += exact * exact;
            }
        static const char *kname[] = {"Q8_K", "Q8_0", "BF16"};
        /* Where ggml quantizes activations as we do (Q8_0 per 32), g is the
         * double-precision sum of the very products we sum in fp32: ours can
         * only add fp32 rounding, so it gets the peer stage's 2% slack. */
        const double slack = kind == GGML_Q8_0 ? 1.02 : 1.0;
        CHECK(norm > 0 && e_ours <= e_ggml * slack && e_diff <= 5e-4 * norm,
              "%s: normalised squared error %.3g, ggml's (%s activations) %.3g, ours vs ggml's %.3g", qmm_type_name(t),
              e_ours / norm, kname[kind], e_ggml / norm, e_diff / norm);
        printf("%s: normalised squared error %.3g (ggml with %s activations: %.3g; ours vs ggml's %.3g)\n", qmm_type_name(t),
               e_ours / norm, kname[kind], e_ggml / norm, e_diff / norm);
        qmm_weights_free(w);
        free(ws), free(wd), free(y);
    }
    free(x), free(xg);
    qmm_context_free(ctx);
}

/* qmm_k_scale_min_put is the inverse of qmm_k_scale_min: every (j, sc, m)
 * reads back, and 12 random bytes rebuilt from their 8 (sc, m) pairs come
 * back byte for byte (the 96 bits are exactly the 8 x 12 of the pairs). */
static void test_k_scale_min_put(void) {
    long bad = 0;
    for (int j = 0; j < 8; j++)
        for (int sc = 0; sc < 64; sc++)
            for (int m = 0; m < 64; m++) {
                uint8_t s[12] = {0};
                qmm_k_scale_min_put(s, j, sc, m);
                int gsc, gm;
                qmm_k_scale_min(s, j, &gsc, &gm);
                bad += gsc != sc || gm != m;
            }
    uint64_t rs = 7; /* its own stream: the other tests' data stay as they were */
    for (int it = 0; it < 10000; it++) {
        uint8_t s[12], r[12] = {0};
        for (int i = 0; i < 12; i++)
            s[i] = (uint8_t)(qmm_test_rand_u64(&rs) >> 56);
        for (int j = 0; j < 8; j++) {
            int sc, m;
            qmm_k_scale_min(s, j, &sc, &m);
            qmm_k_scale_min_put(r, j, sc, m);
        }
        bad += memcmp(s, r, 12) != 0;
    }
    CHECK(bad == 0, "qmm_k_scale_min_put: %ld cases not the inverse of qmm_k_scale_min", bad);
}

/* qmm_q4_nibbles_get / _put and qmm_q5_high_bits_put against the element
 * accessors: random Q4_0 and Q5_1 blocks read out as q and written back
 * come back byte for byte (the puts write every byte: the targets start as
 * garbage), and Q5_1's nibbles read by _get are its q's low 4 bits. */
static void test_nibbles_put(void) {
    long bad = 0;
    uint64_t rs = 11;
    for (int it = 0; it < 10000; it++) {
        qmm_block_q4_0 a;
        qmm_block_q5_1 b;
        for (int i = 0; i < QMM_QK / 2; i++) {
            a.qs[i] = (uint8_t)(qmm_test_rand_u64(&rs) >> 56);
            b.qs[i] = (uint8_t)(qmm_test_rand_u64(&rs) >> 56);
        }
        for (int i = 0; i < 4; i++)
            b.qh[i] = (uint8_t)(qmm_test_rand_u64(&rs) >> 56);
        uint8_t qa[QMM_QK], qb[QMM_QK], ra[QMM_QK / 2], rb[QMM_QK / 2], rh[4];
        uint8_t nb[QMM_QK];
        qmm_q4_nibbles_get(a.qs, qa);
        qmm_q4_nibbles_get(b.qs, nb);
        for (int l = 0; l < QMM_QK; l++) {
            qb[l] = (uint8_t)qmm_q5_1_q(&b, l);
            bad += nb[l] != (qb[l] & 0x0f) || qa[l] > 15;
        }
        memset(ra, 0xa5, sizeof ra);
        memset(rb, 0x5a, sizeof rb);
        memset(rh, 0xff, sizeof rh);
        qmm_q4_nibbles_put(qa, ra);
        qmm_q4_nibbles_put(qb, rb);
        qmm_q5_high_bits_put(qb, rh);
        bad += memcmp(ra, a.qs, sizeof ra) != 0 || memcmp(rb, b.qs, sizeof rb) != 0 || memcmp(rh, b.qh, 4) != 0;
    }
    CHECK(bad == 0, "qmm_q4_nibbles_put / qmm_q5_high_bits_put: %ld blocks not rebuilt", bad);
}

/* qmm_iq4_xs_scale_put is the inverse of qmm_iq4_xs_scale: every (j, ls)
 * reads back, and random scale bytes come back from their 8 ls. */
static void test_iq4_xs_scale_put(void) {
    long bad = 0;
    uint64_t rs = 13;
    for (int j = 0; j < 8; j++)
        for (int ls = -32; ls < 32; ls++) {
            qmm_block_iq4_xs x;
            memset(&x, 0, sizeof x);
            qmm_iq4_xs_scale_put(&x, j, ls);
            bad += qmm_iq4_xs_scale(&x, j) != ls;
        }
    for (int it = 0; it < 10000; it++) {
        qmm_block_iq4_xs x, y;
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        x.scales_h = (uint16_t)(qmm_test_rand_u64(&rs) >> 48);
        for (int i = 0; i < 4; i++)
            x.scales_l[i] = (uint8_t)(qmm_test_rand_u64(&rs) >> 56);
        for (int j = 0; j < 8; j++)
            qmm_iq4_xs_scale_put(&y, j, qmm_iq4_xs_scale(&x, j));
        bad += x.scales_h != y.scales_h || memcmp(x.scales_l, y.scales_l, 4) != 0;
    }
    CHECK(bad == 0, "qmm_iq4_xs_scale_put: %ld cases not the inverse of qmm_iq4_xs_scale", bad);
}

int main(int argc, char **argv) {
    test_fp16();
    if (argc > 1)
        test_vectors(argv[1]);
    else
        CHECK(0, "usage: test_formats VECTORS_FILE");
    test_bf16();
    test_dequantize_tail();
    test_k_scale_min_put();
    test_nibbles_put();
    test_iq4_xs_scale_put();
    test_act_quantizer();
    test_ground_truth();
    test_new_types_error();
    return qmm_test_summary();
}
