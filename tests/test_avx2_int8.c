/* The AVX2-level int8 paths where the oracle test's random data does not go:
 *  - the AVX2 activation packer against qmm_act_quantize_block on NaN, inf,
 *    huge, subnormal, signed zero and tie inputs, and the tiny, subnormal and
 *    mixed blocks of test_act_blocks.h (the scaled path), byte for byte;
 *  - every int8 family the CPU runs, and the AVX-VNNI bodies with vpdpbusd
 *    emulated (avxvnni_emu_avx2.c), on the extreme quants that bound the
 *    16-bit pair sums: Q4_0 / Q4_K nibbles 0 / 15, Q8_0 -128 / 127, Q6_K
 *    -32 / 31 with sub-scales -128 / 127, Q5_0 / Q5_1 quants 0 / 31 (nibbles
 *    and fifth bits all set or all clear), Q4_1 nibbles 0 / 15, Q5_K quants
 *    0 / 31 with 6-bit scales and mins 0 / 63, Q3_K scales -32 / 31 with
 *    hmask all clear / all set (q -4 / 3), Q2_K scales and mins 0 / 15 (the
 *    largest mins alone, and with q 0 and 3), IQ4_NL / MXFP4 / IQ4_XS nibbles
 *    0 / 15 (levels -127 / 113, 0 / -12) with IQ4_XS sub-scales -32 / 31 (the
 *    largest |isum|, 16516096) and MXFP4 E8M0 bytes 0, 1, 2 and 100..140,
 *    against activations quantized to +-127, bit for bit against the reference,
 *    and each packed row unpacked back to its source bytes. */
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "kernels/ref/ref_kernels.h"
#include "kernels/x86/act_q8_avx2.h"
#include "registry/registry.h"
#include "test_act_blocks.h"
#include "test_util.h"
#include "test_weights.h"

extern const qmm_family qmm_test_avxvnni_emu_q4_0, qmm_test_avxvnni_emu_q8_0, qmm_test_avxvnni_emu_q4_k,
    qmm_test_avxvnni_emu_q6_k, qmm_test_avxvnni_emu_q5_0, qmm_test_avxvnni_emu_q4_1, qmm_test_avxvnni_emu_q5_1,
    qmm_test_avxvnni_emu_q5_k, qmm_test_avxvnni_emu_q2_k, qmm_test_avxvnni_emu_q3_k, qmm_test_avxvnni_emu_iq4_nl,
    qmm_test_avxvnni_emu_mxfp4, qmm_test_avxvnni_emu_iq4_xs;

static uint64_t seed = 4242;

static void test_act_packer(void) {
    const int64_t k = 32 * 12;
    float x[32 * 12];
    for (int pass = 0; pass < 200; pass++) {
        for (int64_t l = 0; l < k; l++)
            x[l] = qmm_test_rand_f(&seed) * ((pass % 3) ? 1.0f : 1e-3f);
        const int b = pass % 12;
        float *xb = x + b * 32;
        switch (pass % 10) {
        case 0: xb[pass % 32] = NAN; break;
        case 1: xb[3] = INFINITY; break; /* d = inf, id = 0: inf * 0 = NaN -> 0 */
        case 2: xb[5] = -INFINITY, xb[6] = NAN; break;
        case 3: /* all NaN: amax 0, d 0 */
            for (int j = 0; j < 32; j++)
                xb[j] = NAN;
            break;
        case 4: xb[0] = 3e38f, xb[1] = -3e38f; break;
        case 5: /* subnormals only */
            for (int j = 0; j < 32; j++)
                xb[j] = (float)(j - 16) * 1e-41f;
            break;
        case 6: /* -0 and +0 */
            for (int j = 0; j < 32; j++)
                xb[j] = (j & 1) ? -0.0f : 0.0f;
            break;
        case 7: /* x * id lands on .5 ties: amax 127 gives id = 1 */
            for (int j = 0; j < 32; j++)
                xb[j] = (float)(j - 16) + 0.5f;
            xb[31] = 127.0f;
            break;
        case 8: /* one large value among tiny ones */ xb[17] = -1e30f; break;
        default: /* tiny blocks, in every position of the row */
            for (int t = 0; t < 12; t++)
                qmm_test_tiny_block(x + t * 32, (pass / 10 + t) % QMM_TEST_TINY_KINDS, &seed);
            break;
        }
        qmm_act_block got[12], want[12];
        memset(got, 0x55, sizeof got);
        qmm_avx2_act_q8_pack(1, k, x, (size_t)k * sizeof(float), got);
        qmm_ref_act_q8_pack(1, k, x, (size_t)k * sizeof(float), want);
        CHECK(memcmp(got, want, sizeof got) == 0, "AVX2 activation packer differs from the reference (pass %d)", pass);
    }
}

/* A random fp16 scale, finite. */
static void put_scale(uint8_t *p) {
    const uint16_t d = qmm_fp32_to_fp16(qmm_test_rand_f(&seed) * 4.0f);
    memcpy(p, &d, 2);
}

/* Q2_K / Q3_K blocks of the targeted modes 4 and 5 (after the byte fill):
 * Q3_K every scale -32 (stored 0) with hmask and low bits all set (q 3), then
 * with hmask all clear (q -4 - 0..3 random low bits: -4..-1); Q2_K every
 * scale 0 with every min 15 (the mins alone), then scales and mins 15 with q 0. */
static void targeted_k(qmm_type t, uint8_t *blk, int mode) {
    if (t == QMM_TYPE_Q3_K) {
        qmm_block_q3_k *b = (qmm_block_q3_k *)blk;
        memset(b->scales, 0, sizeof b->scales);
        memset(b->hmask, mode == 4 ? 0xff : 0x00, sizeof b->hmask);
        if (mode == 4)
            memset(b->qs, 0xff, sizeof b->qs);
    } else {
        qmm_block_q2_k *b = (qmm_block_q2_k *)blk;
        memset(b->scales, mode == 4 ? 0xf0 : 0xff, sizeof b->scales);
        if (mode == 5)
            memset(b->qs, 0x00, sizeof b->qs);
    }
}

/* Weights of extreme quants with random fp16 scales, in GGUF layout. */
static void *make_extreme_weights(qmm_type t, int64_t k, int64_t n, size_t *rb) {
    const int64_t nb = k / qmm_type_block_elems(t);
    const size_t bs = qmm_type_block_bytes(t);
    const int modes = t == QMM_TYPE_Q2_K || t == QMM_TYPE_Q3_K ? 6 : 4;
    *rb = (size_t)nb * bs;
    uint8_t *w = malloc(*rb * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t b = 0; b < nb; b++) {
            uint8_t *blk = w + (size_t)i * *rb + (size_t)b * bs;
            const int mode = (int)((i + b) % modes);
            for (size_t j = 0; j < bs; j++) {
                const uint8_t r = (uint8_t)qmm_test_rand_u64(&seed);
                uint8_t v;
                if (t == QMM_TYPE_Q8_0) /* all -128, all 127, -128 / 127 mixed, random */
                    v = mode == 0 ? 0x80 : mode == 1 ? 0x7f : mode == 2 ? ((r & 1) ? 0x80 : 0x7f) : r;
                else /* nibbles (and Q5_0's fifth bits, Q6_K's 2-bit planes, Q4_K's 6-bit scales, Q3_K's hmask):
                        all ones, all zeros, mixed, random */
                    v = mode == 0 ? 0xff : mode == 1 ? 0x00 : mode == 2 ? ((r & 1) ? 0xf0 : 0x0f) : r;
                blk[j] = v;
            }
            if (mode >= 4)
                targeted_k(t, blk, mode);
            if (t == QMM_TYPE_Q6_K)
                for (int s = 0; s < 16; s++) /* the int8 sub-scales at their extremes */
                    blk[192 + s] = mode == 3 ? blk[192 + s] : (mode + s) % 2 ? 0x80 : 0x7f;
            if (t == QMM_TYPE_MXFP4) /* the subnormal and smallest normal scales, or moderate ones */
                blk[0] = (uint8_t)(mode < 3 ? (uint64_t)mode : 100 + qmm_test_rand_u64(&seed) % 41);
            else {
                const int *f = qmm_test_fp16_fields(t); /* d (and m / dmin) */
                for (int fi = 0; fi < 2 && f[fi] >= 0; fi++)
                    put_scale(blk + f[fi]);
            }
        }
    return w;
}

/* Activations whose blocks quantize to +-127 everywhere (equal magnitudes),
 * in all-positive, all-negative and random-sign rows. */
static float *make_extreme_acts(int64_t m, int64_t k) {
    float *x = malloc((size_t)(m * k) * sizeof(float));
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            const float mag = 0.75f;
            const int mode = (int)((i + l / 32) % 3);
            x[i * k + l] = mode == 0 ? mag : mode == 1 ? -mag : ((qmm_test_rand_u64(&seed) & 1) ? mag : -mag);
        }
    return x;
}

static void test_family(const qmm_family *kf) {
    const qmm_family *ref = qmm_registry_reference(kf->wtype);
    const int kq = qmm_type_block_elems(kf->wtype) == QMM_QK_K;
    /* m = 9 and k of 24 or 25 blocks: the expanded GEMM (m >= 8) over two k slices */
    const int64_t ks[] = {kq ? 256 : 32, kq ? 512 : 64, 256, kq ? 768 : 800};
    static const int64_t ns[] = {1, 8, 17, 40};
    static const int64_t ms[] = {1, 2, 5, 9};
    long bad = 0, unpack_bad = 0;
    for (size_t ki = 0; ki < 4; ki++)
        for (size_t ni = 0; ni < 4; ni++)
            for (size_t mi = 0; mi < 4; mi++) {
                const int64_t k = ks[ki], n = ns[ni], m = ms[mi];
                size_t rb;
                void *src = make_extreme_weights(kf->wtype, k, n, &rb);
                float *x = make_extreme_acts(m, k);
                void *wp = qmm_test_alloc(kf->w_packed_size(k, n));
                void *wr = qmm_test_alloc(ref->w_packed_size(k, n));
                kf->w_pack(k, n, 0, n, src, rb, wp);
                ref->w_pack(k, n, 0, n, src, rb, wr);
                const qmm_act_layout *al = qmm_family_act_layout(kf, m == 1), *rl = qmm_family_act_layout(ref, m == 1);
                void *a = qmm_test_alloc(al->packed_size(m, k)), *ar = qmm_test_alloc(rl->packed_size(m, k));
                al->pack(m, k, x, (size_t)k * sizeof(float), a);
                rl->pack(m, k, x, (size_t)k * sizeof(float), ar);
                float *y = qmm_test_alloc((size_t)(m * n) * sizeof(float)), *yr = qmm_test_alloc((size_t)(m * n) * sizeof(float));
                ref->gemm(m, n, k, ar, wr, yr, (size_t)n * sizeof(float));
                if (m == 1 && kf->gemv)
                    kf->gemv(n, k, a, wp, y);
                else
                    kf->gemm(m, n, k, a, wp, y, (size_t)n * sizeof(float));
                if (memcmp(y, yr, (size_t)(m * n) * sizeof(float)) != 0 && bad++ < 3)
                    fprintf(stderr, "  %s differs on extreme quants m=%" PRId64 " n=%" PRId64 " k=%" PRId64 "\n", kf->name, m, n,
                            k);
                /* packing is lossless on the extremes too (w_unpack_row) */
                uint8_t *row = malloc(rb);
                for (int64_t r = 0; r < n; r++) {
                    kf->w_unpack_row(wp, k, n, r, row);
                    if (memcmp(row, (const uint8_t *)src + (size_t)r * rb, rb) != 0 && unpack_bad++ < 3)
                        fprintf(stderr, "  %s: row %" PRId64 " unpacks to other bytes (n=%" PRId64 " k=%" PRId64 ")\n", kf->name,
                                r, n, k);
                }
                free(row);
                free(src), free(x), free(wp), free(wr), free(a), free(ar), free(y), free(yr);
            }
    CHECK(bad == 0, "%s: %ld shapes differ from the reference on extreme quants", kf->name, bad);
    CHECK(unpack_bad == 0, "%s: %ld rows do not unpack to their source bytes", kf->name, unpack_bad);
    printf("ok   %-28s (extreme quants)\n", kf->name);
}

static void visit(const qmm_family *kf, void *user) {
    const uint64_t features = *(const uint64_t *)user;
    const int int8 = kf->wtype == QMM_TYPE_Q4_0 || kf->wtype == QMM_TYPE_Q8_0 || kf->wtype == QMM_TYPE_Q4_K ||
                     kf->wtype == QMM_TYPE_Q6_K || kf->wtype == QMM_TYPE_Q5_0 || kf->wtype == QMM_TYPE_Q4_1 ||
                     kf->wtype == QMM_TYPE_Q5_1 || kf->wtype == QMM_TYPE_Q2_K || kf->wtype == QMM_TYPE_Q3_K ||
                     kf->wtype == QMM_TYPE_Q5_K || kf->wtype == QMM_TYPE_IQ4_NL || kf->wtype == QMM_TYPE_MXFP4 ||
                     kf->wtype == QMM_TYPE_IQ4_XS;
    if (int8 && (kf->required & ~features) == 0)
        test_family(kf);
}

int main(void) {
    uint64_t features = qmm_cpu_detect()->features;
    const uint64_t avx2 = QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C;
    if ((features & avx2) != avx2) {
        printf("skip: the CPU lacks AVX2 / FMA / F16C\n");
        return qmm_test_summary();
    }
    test_act_packer();
    qmm_kernels_foreach(visit, &features);
    test_family(&qmm_test_avxvnni_emu_q4_0);
    test_family(&qmm_test_avxvnni_emu_q8_0);
    test_family(&qmm_test_avxvnni_emu_q4_k);
    test_family(&qmm_test_avxvnni_emu_q6_k);
    test_family(&qmm_test_avxvnni_emu_q5_0);
    test_family(&qmm_test_avxvnni_emu_q4_1);
    test_family(&qmm_test_avxvnni_emu_q5_1);
    test_family(&qmm_test_avxvnni_emu_q5_k);
    test_family(&qmm_test_avxvnni_emu_q2_k);
    test_family(&qmm_test_avxvnni_emu_q3_k);
    test_family(&qmm_test_avxvnni_emu_iq4_nl);
    test_family(&qmm_test_avxvnni_emu_mxfp4);
    test_family(&qmm_test_avxvnni_emu_iq4_xs);
    return qmm_test_summary();
}
