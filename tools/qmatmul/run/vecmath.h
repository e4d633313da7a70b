/* The element-wise steps of the forward pass, written as plain loops the
 * compiler vectorises (-O3; on x86 also cloned for AVX2 and AVX-512 and
 * chosen at load time). No step reorders a floating-point reduction behind
 * the compiler's back: sums run in a fixed number of lanes, combined in a
 * fixed order, so a row's result is the same on every ISA clone and at
 * every thread count. Included by model.c only (static functions). */
#ifndef QMM_RUN_VECMATH_H
#define QMM_RUN_VECMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__ELF__) && (defined(__GNUC__) || defined(__clang__))
#define RUN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RUN_CLONES
#endif

#define RUN_LANES 16 /* partial sums per reduction: one AVX-512 vector, four SSE/NEON ones */

static inline uint32_t run_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float run_bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* exp(x) by range reduction and a polynomial, branch-free so that loops of
 * it vectorise. x = k ln2 + r, k = round(x / ln2) (by the 1.5 * 2^23 trick:
 * needs round-to-nearest, which qmm_parallel_run guarantees), ln2 split in
 * two (its high part has 15 bits: k * ln2_hi is exact), |r| <= ln2 / 2 (a
 * little more from the rounded x / ln2), exp(r) = 1 + r + r^2 P(r), P of
 * degree 4 fitted to (exp(r) - 1 - r) / r^2 on that interval (polynomial
 * error 4e-9), then scaled by 2^k built in the exponent bits.
 * Domain: x < -87.33654 (exp below FLT_MIN) gives 0, x > 88 gives +inf (the
 * true values up to 88.72 are finite, below 3.4e38: no caller here needs
 * them), NaN gives NaN. Measured against double exp over every float in
 * [-87.33654, 88]: max relative error 8.0e-8 (at 5.199). */
static inline float run_expf(float x) {
    const float lo = -87.33654f, hi = 88.0f;
    const float shifter = 0x1.8p23f;
    const float kf = x * 0x1.715476p+0f + shifter;
    const float k = kf - shifter;
    const uint32_t ki = run_f32_bits(kf) - run_f32_bits(shifter);
    float r = x - k * 0x1.62e4p-1f;
    r = r - k * 0x1.7f7d1cp-20f;
    float p = 0x1.685950p-10f;
    p = p * r + 0x1.124790p-7f;
    p = p * r + 0x1.555bd4p-5f;
    p = p * r + 0x1.55547ep-3f;
    p = p * r + 0x1.fffff8p-2f;
    p = (r * r) * p + r;
    p = p + 1.0f;
    /* Outside the domain the above is garbage (no undefined behaviour: all
     * in floats and unsigned bits), replaced by 0 or inf; a NaN stays NaN.
     * Selected by bit masks, not ?: on floats, which gcc (with its default
     * -ftrapping-math) keeps as branches and does not vectorise without
     * AVX-512's masks. */
    const uint32_t y = run_f32_bits(p * run_bits_f32((ki + 127u) << 23));
    const uint32_t under = 0u - (uint32_t)(x < lo), over = 0u - (uint32_t)(x > hi);
    return run_bits_f32((y & ~(under | over)) | (over & 0x7f800000u));
}

/* The largest of x[0..n), n >= 1, compared as integers: the float's bits
 * with the magnitude bits flipped when negative order like the floats (-0
 * below +0, a NaN above everything). Float compares in a ?: are branches for
 * gcc (-ftrapping-math), not vectorised (5-10x slower). */
static inline int32_t run_order_key(float f) {
    const int32_t b = (int32_t)run_f32_bits(f);
    return b ^ ((b >> 31) & 0x7fffffff);
}

static inline float run_row_max(const float *restrict x, int n) {
    int32_t mx[RUN_LANES];
    for (int j = 0; j < RUN_LANES; j++)
        mx[j] = INT32_MIN;
    int i = 0;
    for (; i + RUN_LANES <= n; i += RUN_LANES)
        for (int j = 0; j < RUN_LANES; j++) {
            const int32_t key = run_order_key(x[i + j]);
            mx[j] = key > mx[j] ? key : mx[j];
        }
    for (; i < n; i++) {
        const int32_t key = run_order_key(x[i]);
        mx[0] = key > mx[0] ? key : mx[0];
    }
    int32_t m = mx[0];
    for (int j = 1; j < RUN_LANES; j++)
        m = mx[j] > m ? mx[j] : m;
    return run_bits_f32((uint32_t)(m ^ ((m >> 31) & 0x7fffffff)));
}

/* y[i] = silu(g[i]) * u[i] = g / (1 + exp(-g)) * u. */
RUN_CLONES static void run_swiglu(float *restrict y, const float *restrict g, const float *restrict u, int n) {
    for (int i = 0; i < n; i++)
        y[i] = g[i] / (1.0f + run_expf(-g[i])) * u[i];
}

/* softmax(x * scale) over the first n entries (n >= 1); the rest up to total
 * (masked) become 0. */
RUN_CLONES static void run_softmax(float *restrict x, int n, int total, float scale) {
    /* Plain passes over the row (in L1): each a loop the compiler vectorises
     * whole, the reductions in RUN_LANES lanes. */
    for (int i = 0; i < n; i++)
        x[i] *= scale;
    const float max = run_row_max(x, n);
    int i;
    for (i = 0; i < n; i++)
        x[i] = run_expf(x[i] - max);
    float acc[RUN_LANES] = {0};
    for (i = 0; i + RUN_LANES <= n; i += RUN_LANES)
        for (int j = 0; j < RUN_LANES; j++)
            acc[j] += x[i + j];
    for (; i < n; i++)
        acc[0] += x[i];
    double sum = 0;
    for (int j = 0; j < RUN_LANES; j++)
        sum += acc[j];
    const float inv = (float)(1.0 / sum);
    for (i = 0; i < n; i++)
        x[i] *= inv;
    for (; i < total; i++)
        x[i] = 0.0f;
}

/* With r non-NULL, first x += r (the residual); then y = x / sqrt(mean(x^2)
 * + eps) * w, the squares summed in RUN_LANES float lanes, combined in
 * double. y may be r (the residual's buffer reused for the norm). */
RUN_CLONES static void run_add_rms_norm(float *y, float *restrict x, const float *r, const float *restrict w, int n, float eps) {
    if (r)
        for (int i = 0; i < n; i++)
            x[i] += r[i];
    float acc[RUN_LANES] = {0};
    int i = 0;
    for (; i + RUN_LANES <= n; i += RUN_LANES)
        for (int j = 0; j < RUN_LANES; j++)
            acc[j] += x[i + j] * x[i + j];
    for (; i < n; i++)
        acc[0] += x[i] * x[i];
    double sum = 0;
    for (int j = 0; j < RUN_LANES; j++)
        sum += acc[j];
    const float scale = 1.0f / sqrtf((float)(sum / n) + eps);
    for (i = 0; i < n; i++)
        y[i] = (x[i] * scale) * w[i];
}

/* fp32 -> fp16, rounding to nearest even: bit for bit qmm_fp32_to_fp16
 * (checked over all 2^32 floats), branch-free. Half subnormals by the float
 * addition |f| + 0.5, whose ulp (2^-24) is the half subnormal step: the FPU
 * rounds (to nearest, as qmm_parallel_run guarantees). */
static inline uint16_t run_f16(float f) {
    const uint32_t u = run_f32_bits(f);
    const uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    const uint32_t normal = ((a + 0xfffu + ((a >> 13) & 1u)) >> 13) - (112u << 10);
    const uint32_t sub = run_f32_bits(run_bits_f32(a) + 0.5f) - 0x3f000000u;
    const uint32_t is_sub = 0u - (uint32_t)(a < 0x38800000u), is_inf = 0u - (uint32_t)(a >= 0x477ff000u),
                   is_nan = 0u - (uint32_t)(a > 0x7f800000u);
    uint32_t h = (sub & is_sub) | (normal & ~is_sub); /* masks, as run_expf's */
    h = (0x7c00u & is_inf) | (h & ~is_inf);
    h = ((0x7e00u | ((a >> 13) & 0x3ffu)) & is_nan) | (h & ~is_nan);
    return (uint16_t)(sign | h);
}

RUN_CLONES static void run_f16_row(uint16_t *restrict h, const float *restrict x, int n) {
    for (int i = 0; i < n; i++)
        h[i] = run_f16(x[i]);
}

/* Rotary embedding of n_heads heads of head_dim in place: pairs (x[2i],
 * x[2i+1]) rotated by the angle whose cosine and sine are cs[2i], cs[2i+1].
 * Each output is one product rounded, then one fused step (fmaf): written
 * as x0 * c - x1 * s, GCC 12 -O3 turned the pair into a complex multiply with
 * vfmaddsub231ps despite -ffp-contract=off, so x86 (gcc) and Arm (clang)
 * runs of the same model differed; with the fused step stated, every
 * compiler must give these bits. */
RUN_CLONES static void run_rope(float *restrict x, int n_heads, int head_dim, const float *restrict cs) {
    for (int h = 0; h < n_heads; h++) {
        float *p = x + (size_t)h * head_dim;
        for (int i = 0; i < head_dim; i += 2) {
            const float c = cs[i], s = cs[i + 1], x0 = p[i], x1 = p[i + 1];
            p[i] = fmaf(x0, c, -(x1 * s));
            p[i + 1] = fmaf(x0, s, x1 * c);
        }
    }
}

#endif
