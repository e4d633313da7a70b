/* Every kernel family the CPU can run, against the reference family of its
 * weight type, bit for bit: GEMM and GEMV on odd shapes and on step-aligned
 * sub-rectangles, weight packing split in row ranges, GET_ROWS readers, and
 * the packer/kernel offset agreement. No writes outside the output. */
#include <math.h>

#include "cpu/cpu.h"
#include "exec/exec.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_act_blocks.h"
#include "test_util.h"
#include "test_weights.h"

#if (defined(__x86_64__) || defined(__i386__)) && !defined(QMM_PORTABLE_ONLY)
#include "kernels/x86/avx2_fp_widen.h"
#include "kernels/x86/avx512_gemv_streams.h"
#endif

#define CANARY 0xA5

static uint64_t seed = 12345;

/* A random n x k weight matrix in GGUF layout of the family's type. */
static void *make_weights(qmm_type t, int64_t k, int64_t n, size_t *row_bytes) {
    float *f = malloc((size_t)k * sizeof(float));
    size_t rb = qmm_row_size(t, k);
    uint8_t *w = malloc(rb * (size_t)n);
    if (t != QMM_TYPE_F32 && t != QMM_TYPE_F16 && t != QMM_TYPE_BF16 && t != QMM_TYPE_Q4_0 && t != QMM_TYPE_Q8_0) {
        /* the other quantized types: random valid blocks, every bit pattern */
        qmm_test_random_blocks(t, k, n, w, 0, &seed);
        free(f);
        *row_bytes = rb;
        return w;
    }
    for (int64_t i = 0; i < n; i++) {
        /* vary magnitudes per row so scales differ widely */
        const float mag = (i % 5 == 0) ? 100.0f : (i % 5 == 1) ? 0.001f : 1.0f;
        for (int64_t l = 0; l < k; l++)
            f[l] = qmm_test_rand_f(&seed) * mag;
        if (i % 7 == 3) /* an all-zero block */
            memset(f, 0, 32 * sizeof(float));
        void *row = w + (size_t)i * rb;
        switch (t) {
        case QMM_TYPE_F32: memcpy(row, f, rb); break;
        case QMM_TYPE_F16:
            for (int64_t l = 0; l < k; l++)
                ((uint16_t *)row)[l] = qmm_fp32_to_fp16(f[l]);
            break;
        case QMM_TYPE_BF16:
            for (int64_t l = 0; l < k; l++)
                ((uint16_t *)row)[l] = qmm_fp32_to_bf16(f[l]);
            break;
        case QMM_TYPE_Q4_0: qmm_quantize_row_q4_0(f, row, k); break;
        default:
            qmm_quantize_row_q8_0(f, row, k);
            /* GGUF allows q = -128, which ggml's quantizer never writes: one
             * row in 3 holds it (every family must take any int8) */
            for (int64_t b = 0; i % 3 == 2 && b < k / 32; b++)
                ((qmm_block_q8_0 *)row)[b].qs[(i + b) % 32] = -128;
            break;
        }
    }
    free(f);
    *row_bytes = rb;
    return w;
}

static float *make_acts(int64_t m, int64_t k) {
    float *x = malloc((size_t)(m * k) * sizeof(float));
    for (int64_t i = 0; i < m; i++)
        for (int64_t l = 0; l < k; l++) {
            float v = qmm_test_rand_f(&seed);
            if (i % 4 == 1)
                v *= 1000.0f;
            if (i % 4 == 2 && l < 32)
                v = 0.0f; /* a zero block: d = 0 */
            if (i % 9 == 5 && l % 33 == 0)
                v = 0.5f * (float)((int)(l % 7) - 3); /* exact ties for rounding */
            x[i * k + l] = v;
        }
    /* tiny, subnormal and mixed-magnitude blocks (the activation quantizer's
     * scaled path), in every row from its second block on and in every block
     * of rows 3 mod 4 */
    for (int64_t i = 0; i < m; i++)
        for (int64_t b = 0; b < k / 32; b++)
            if ((i % 4 == 3 || (b + i) % 3 == 1) && !(i % 4 == 2 && b == 0))
                qmm_test_tiny_block(x + i * k + b * 32, (int)((b * 7 + i) % QMM_TEST_TINY_KINDS), &seed);
    for (int64_t i = 0; i < m * k; i++)
        x[i] = x[i] == x[i] ? x[i] : 0.0f; /* no NaN: F32 / F16 outputs would carry payloads */
    return x;
}

static void *pack_weights(const qmm_family *kf, int64_t k, int64_t n, const void *src, size_t rb, int split, size_t *size) {
    const size_t sz = kf->w_packed_size(k, n);
    uint8_t *p = qmm_test_alloc(sz + 64);
    memset(p, 0, sz);
    memset(p + sz, CANARY, 64);
    if (!split) {
        kf->w_pack(k, n, 0, n, src, rb, p);
    } else {
        /* pack in row ranges of varying panel counts, back to front */
        int64_t step = kf->n_step;
        int64_t starts[64];
        int cnt = 0;
        for (int64_t s = 0; s < n && cnt < 63; s += step * (1 + cnt % 3))
            starts[cnt++] = s;
        starts[cnt] = n;
        for (int c = cnt - 1; c >= 0; c--)
            kf->w_pack(k, n, starts[c], starts[c + 1], src, rb, p);
    }
    for (int i = 0; i < 64; i++)
        CHECK(p[sz + i] == CANARY, "%s w_pack wrote past packed size k=%" PRId64 " n=%" PRId64, kf->name, k, n);
    *size = sz;
    return p;
}

static void *pack_acts(const qmm_act_layout *al, int64_t m, int64_t k, const float *x, int split, const char *name) {
    const size_t sz = al->packed_size(m, k);
    uint8_t *p = qmm_test_alloc(sz + 64);
    memset(p, 0, sz);
    memset(p + sz, CANARY, 64);
    if (!split) {
        al->pack(m, k, x, (size_t)k * sizeof(float), p);
    } else {
        for (int64_t m0 = 0; m0 < m; m0 += al->m_step) {
            int64_t cnt = m - m0 < al->m_step ? m - m0 : al->m_step;
            al->pack(cnt, k, x + m0 * k, (size_t)k * sizeof(float), p + al->packed_offset(m0, k));
        }
    }
    for (int i = 0; i < 64; i++)
        CHECK(p[sz + i] == CANARY, "%s act pack wrote past packed size m=%" PRId64 " k=%" PRId64, name, m, k);
    return p;
}

static int bits_equal(float a, float b) {
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}

/* Outputs of rows [0, m) x columns [0, n + 3) (the padding too) whose bits differ. */
static long count_diff(const float *yr, const float *yk, int64_t m, int64_t n, size_t ys) {
    long bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n + 3; j++)
            bad += !bits_equal(*(const float *)((const char *)yr + i * ys + j * 4),
                               *(const float *)((const char *)yk + i * ys + j * 4));
    return bad;
}

static void run(const qmm_family *kf, int gemv, int64_t m, int64_t n, int64_t k, const void *act, const void *w, float *y,
                size_t ys) {
    if (gemv && kf->gemv)
        kf->gemv(n, k, act, w, y);
    else
        kf->gemm(m, n, k, act, w, y, ys);
}

/* Every row read from packed weights wp of family kf equals the reference's
 * (wr, family ref), bit for bit. */
static void check_rows(const qmm_family *ref, const void *wr, const qmm_family *kf, const void *wp, int64_t k, int64_t n,
                       const char *what) {
    float *r1 = malloc((size_t)k * 4), *r2 = malloc((size_t)k * 4);
    for (int64_t i = 0; i < n; i++) {
        int same = qmm_exec_read_row(ref, wr, k, n, i, r1) == 0 && qmm_exec_read_row(kf, wp, k, n, i, r2) == 0;
        for (int64_t l = 0; l < k; l++)
            same &= bits_equal(r1[l], r2[l]);
        CHECK(same, "%s: %s row %" PRId64 " differs (k=%" PRId64 " n=%" PRId64 ")", kf->name, what, i, k, n);
    }
    free(r1);
    free(r2);
}

/* w_unpack_row gives back every source byte (the packing is lossless), and
 * writes no byte past the row. */
static void check_unpack(const qmm_family *kf, const void *src, size_t rb, const void *wp, int64_t k, int64_t n) {
    CHECK(kf->w_unpack_row != NULL, "%s: no w_unpack_row", kf->name);
    if (!kf->w_unpack_row)
        return;
    uint8_t *row = malloc(rb + 16);
    for (int64_t r = 0; r < n; r++) {
        memset(row, CANARY, rb + 16);
        kf->w_unpack_row(wp, k, n, r, row);
        const uint8_t *want = (const uint8_t *)src + (size_t)r * rb;
        size_t at = 0;
        while (at < rb && row[at] == want[at])
            at++;
        CHECK(at == rb, "%s: w_unpack_row row %" PRId64 " of %" PRId64 " (k=%" PRId64 ") differs from the source at byte %zu",
              kf->name, r, n, k, at);
        for (int i = 0; i < 16; i++)
            CHECK(row[rb + i] == CANARY, "%s: w_unpack_row wrote past the row (k=%" PRId64 ")", kf->name, k);
        if (at != rb)
            break;
    }
    free(row);
}

static void test_shape(const qmm_family *kf, const qmm_family *ref, int64_t m, int64_t n, int64_t k) {
    size_t rb, wsz, rsz;
    void *src = make_weights(kf->wtype, k, n, &rb);
    float *x = make_acts(m, k);
    void *wp = pack_weights(kf, k, n, src, rb, 0, &wsz);
    void *wp2 = pack_weights(kf, k, n, src, rb, 1, &wsz);
    CHECK(memcmp(wp, wp2, wsz) == 0, "%s: packing in row ranges differs from packing at once (k=%" PRId64 " n=%" PRId64 ")",
          kf->name, k, n);
    void *wr = pack_weights(ref, k, n, src, rb, 0, &rsz);
    const int gemv = (m == 1);
    const qmm_act_layout *al = qmm_family_act_layout(kf, gemv);
    const qmm_act_layout *rl = qmm_family_act_layout(ref, gemv);
    void *a = pack_acts(al, m, k, x, 0, kf->name);
    void *a2 = pack_acts(al, m, k, x, 1, kf->name);
    CHECK(memcmp(a, a2, al->packed_size(m, k)) == 0, "%s: activation packing in row groups differs (m=%" PRId64 ")", kf->name, m);
    void *ar = pack_acts(rl, m, k, x, 0, ref->name);

    const size_t ys = (size_t)(n + 3) * sizeof(float); /* a padded row stride */
    float *yr = qmm_test_alloc(ys * (size_t)m + 64);
    float *yk = qmm_test_alloc(ys * (size_t)m + 64);
    memset(yr, 0x7f, ys * (size_t)m + 64);
    memset(yk, 0x7f, ys * (size_t)m + 64);
    ref->gemm(m, n, k, ar, wr, yr, ys);
    run(kf, gemv, m, n, k, a, wp, yk, ys);
    long bad = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n + 3; j++) {
            float r = *(float *)((char *)yr + i * ys + j * 4), v = *(float *)((char *)yk + i * ys + j * 4);
            if (!bits_equal(r, v)) {
                if (bad++ < 3)
                    fprintf(stderr,
                            "  %s m=%" PRId64 " n=%" PRId64 " k=%" PRId64 " y[%" PRId64 "][%" PRId64 "] = %.9g, ref %.9g%s\n",
                            kf->name, m, n, k, i, j, v, r, j >= n ? " (outside the output)" : "");
            }
        }
    CHECK(bad == 0, "%s: %ld outputs differ from %s (m=%" PRId64 " n=%" PRId64 " k=%" PRId64 ")", kf->name, bad, ref->name, m, n,
          k);

    /* gemm_rows: the same rows read in place, at a padded stride */
    const qmm_fp_attention *att = qmm_registry_fp_attention(kf);
    if (!gemv && att && att->gemm_rows) {
        const int64_t xr = k + 5;
        float *xp = qmm_test_alloc((size_t)(xr * m) * 4);
        for (int64_t i = 0; i < m; i++)
            memcpy(xp + i * xr, x + i * k, (size_t)k * 4);
        memset(yk, 0x7f, ys * (size_t)m + 64);
        att->gemm_rows(m, n, k, xp, (size_t)xr * 4, wp, yk, ys);
        bad = count_diff(yr, yk, m, n, ys);
        CHECK(bad == 0, "%s: gemm_rows differs in %ld outputs (m=%" PRId64 " n=%" PRId64 " k=%" PRId64 ")", kf->name, bad, m, n,
              k);
        free(xp);
    }

    /* Sub-rectangles: columns from panel starts with odd widths, rows from
     * group starts; each must reproduce the reference's bits there. */
    if (!gemv) {
        memset(yk, 0x7f, ys * (size_t)m + 64);
        const int64_t ms = al->m_step;
        for (int64_t m0 = 0; m0 < m; m0 += ms * 2) {
            int64_t mc = m - m0 < ms * 2 ? m - m0 : ms * 2;
            for (int64_t n0 = 0; n0 < n; n0 += kf->n_step * 2) {
                int64_t nc = n - n0 < kf->n_step * 2 ? n - n0 : kf->n_step * 2;
                kf->gemm(mc, nc, k, (char *)a + al->packed_offset(m0, k), (char *)wp + kf->w_packed_offset(n0, k),
                         (float *)((char *)yk + m0 * ys) + n0, ys);
            }
        }
        bad = count_diff(yr, yk, m, n, ys);
        CHECK(bad == 0, "%s: sub-rectangle runs differ in %ld outputs (m=%" PRId64 " n=%" PRId64 " k=%" PRId64 ")", kf->name, bad,
              m, n, k);
    }

    /* Offsets agree with sizes. */
    for (int64_t n0 = 0; n0 < n; n0 += kf->n_step)
        CHECK(kf->w_packed_offset(n0, k) < wsz, "%s: w_packed_offset(%" PRId64 ") beyond size", kf->name, n0);
    CHECK(al->packed_offset(0, k) == 0, "%s: act offset of row 0", kf->name);

    /* GET_ROWS readers */
    check_rows(ref, wr, kf, wp, k, n, "row read (GET_ROWS)");
    check_unpack(kf, src, rb, wp, k, n);
    /* The widening packer (F16 families): the same values in the F32
     * sibling's layout, packed in row ranges, and that sibling's products
     * on them: the reference's bits. */
    if (att && att->w_pack_wide) {
        const qmm_family *wf = att->wide;
        CHECK(wf && wf->wtype == QMM_TYPE_F32 && (wf->required & ~kf->required) == 0 && wf->n_step == kf->n_step,
              "%s: w_pack_wide needs an F32 sibling it can run with", kf->name);
        const size_t wwsz = wf->w_packed_size(k, n);
        uint8_t *ww = qmm_test_alloc(wwsz + 64);
        memset(ww, 0, wwsz);
        memset(ww + wwsz, CANARY, 64);
        for (int64_t n1 = n; n1 > 0;) { /* back to front, two panels at a time */
            const int64_t n0 = (n1 - 1) / (2 * kf->n_step) * (2 * kf->n_step);
            att->w_pack_wide(k, n, n0, n1, src, rb, ww);
            n1 = n0;
        }
        for (int i = 0; i < 64; i++)
            CHECK(ww[wwsz + i] == CANARY, "%s w_pack_wide wrote past the packed size k=%" PRId64 " n=%" PRId64, kf->name, k, n);
        check_rows(ref, wr, wf, ww, k, n, "w_pack_wide");
        const qmm_act_layout *wl = qmm_family_act_layout(wf, gemv);
        void *aw = pack_acts(wl, m, k, x, 0, wf->name);
        memset(yk, 0x7f, ys * (size_t)m + 64);
        run(wf, gemv, m, n, k, aw, ww, yk, ys);
        bad = count_diff(yr, yk, m, n, ys);
        CHECK(bad == 0, "%s: %s on the widened weights differs in %ld outputs (m=%" PRId64 " n=%" PRId64 " k=%" PRId64 ")",
              kf->name, wf->name, bad, m, n, k);
        free(aw);
        free(ww);
    }
    free(src);
    free(x);
    free(wp);
    free(wp2);
    free(wr);
    free(a);
    free(a2);
    free(ar);
    free(yr);
    free(yk);
}

struct visit_ctx {
    uint64_t features;
    int tested;
};

static void visit_family(const qmm_family *kf, struct visit_ctx *vc);

#if (defined(__x86_64__) || defined(__i386__)) && !defined(QMM_PORTABLE_ONLY)
/* The families whose GEMV is avx512_int8.h's (qmm_avx512_gemv, qmm_avx512x_gemv). */
static int gemv_reads_streams(const qmm_family *kf) {
    static const qmm_type types[] = {QMM_TYPE_Q4_0,   QMM_TYPE_Q8_0,  QMM_TYPE_Q4_1,  QMM_TYPE_Q5_0, QMM_TYPE_Q5_1,
                                     QMM_TYPE_Q2_K,   QMM_TYPE_Q3_K,  QMM_TYPE_Q4_K,  QMM_TYPE_Q5_K, QMM_TYPE_Q6_K,
                                     QMM_TYPE_IQ4_NL, QMM_TYPE_MXFP4, QMM_TYPE_IQ4_XS};
    const int amx = strncmp(kf->name, "amx_", 4) == 0;
    if (!amx && strncmp(kf->name, "avx512vnni_", 11) != 0)
        return 0;
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (kf->wtype == types[i])
            return types[i] != QMM_TYPE_IQ4_XS || amx; /* avx512vnni_iq4_xs has a GEMV of its own */
    return 0;
}
#endif

static void visit(const qmm_family *kf, void *user) {
    struct visit_ctx *vc = user;
    if (!qmm_test_family_wanted(kf->name))
        return;
#if (defined(__x86_64__) || defined(__i386__)) && !defined(QMM_PORTABLE_ONLY)
    /* the AVX2 16-bit GEMMs widen their panels once or in the tiles, by CPU
     * (avx2_fp_widen.h, the families' `widen_once`): both ways, whatever
     * this host's default */
    const qmm_fp_attention *att = qmm_registry_fp_attention(kf);
    if (att && att->widen_once == qmm_avx2fp_widen_copy && (kf->required & ~vc->features) == 0) {
        for (int mode = 0; mode <= 1; mode++) {
            qmm_avx2fp_force_widen_copy(mode);
            printf("     %s with the widened copy %s\n", kf->name, mode ? "on" : "off");
            visit_family(kf, vc);
        }
        qmm_avx2fp_force_widen_copy(-1);
        return;
    }
    /* the AVX-512 int8 GEMVs read one weight stream or two, by CPU
     * (avx512_gemv_streams.h): both ways, whatever this host's default */
    if (gemv_reads_streams(kf) && (kf->required & ~vc->features) == 0) {
        for (int streams = 1; streams <= 2; streams++) {
            qmm_avx512_force_gemv_streams(streams);
            printf("     %s reading %d weight stream%s\n", kf->name, streams, streams > 1 ? "s" : "");
            visit_family(kf, vc);
        }
        qmm_avx512_force_gemv_streams(0);
        return;
    }
#endif
    visit_family(kf, vc);
}

static void visit_family(const qmm_family *kf, struct visit_ctx *vc) {
    const qmm_family *ref = qmm_registry_reference(kf->wtype);
    CHECK(ref != NULL, "%s: no reference family for its type", kf->name);
    if (!ref)
        return;
    if ((kf->required & ~vc->features) != 0) {
        printf("skip %-28s (CPU lacks its features)\n", kf->name);
        return;
    }
    CHECK(kf->n_step > 0 && kf->act.m_step > 0, "%s: steps must be positive", kf->name);
    if (kf->wtype == QMM_TYPE_IQ4_NL || kf->wtype == QMM_TYPE_IQ4_XS || kf->wtype == QMM_TYPE_MXFP4 ||
        kf->wtype == QMM_TYPE_BF16) {
        /* issue 14: a packed 4096 x 4096 matrix at most 3% above its GGUF bytes (k = 2880 too) */
        for (int64_t k = 2880; k <= 4096; k += 1216) {
            if (k % qmm_type_block_elems(kf->wtype) != 0)
                continue;
            const double gguf = (double)qmm_row_size(kf->wtype, k) * 4096, packed = (double)kf->w_packed_size(k, 4096);
            CHECK(packed <= 1.03 * gguf, "%s: packed %.0f bytes for %.0f of GGUF at k = %" PRId64 " (+%.2f%%)", kf->name, packed,
                  gguf, k, 100.0 * (packed / gguf - 1.0));
        }
    }
    static const int64_t ks[] = {32, 64, 96, 160, 256, 1024, 2880}; /* 2880: gpt-oss, not a multiple of 256 */
    static const int64_t ns[] = {1, 3, 17, 31, 64, 77, 130};
    static const int64_t ms[] = {1, 2, 3, 4, 5, 7, 8, 13, 17, 33};
    const int slow = (kf == ref), vl = qmm_test_vl_shapes();
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0] && !(vl && ks[ki] > 256); ki++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                if (slow && (mi + ni + ki) % 4 != 0)
                    continue; /* the reference against itself: a sample is enough */
                if (ks[ki] >= 1024 && (ns[ni] > 64 || ms[mi] > 8 || (ks[ki] > 1024 && (ni + mi) % 3 != 0)))
                    continue;
                if (ks[ki] % qmm_type_block_elems(kf->wtype) != 0)
                    continue; /* K-quants: k % 256 */
                test_shape(kf, ref, ms[mi], ns[ni], ks[ki]);
            }
    /* m >= 8 over several k slices (the AVX2 table families' expanded GEMM
     * carries its accumulators through y between 32-block slices: 72 blocks
     * = 32 + 32 + 8), with each row-group tail and a column tail */
    for (int64_t m = 17; m <= 19; m++)
        if ((m - 17) % 2 == 0 || !slow)
            test_shape(kf, ref, m, 45, vl ? 512 : 2304);
    if (qmm_registry_fp_attention(kf) &&
        qmm_registry_fp_attention(kf)->gemm_rows) /* rows in place over more than one row block and k slice */
        test_shape(kf, ref, 150, 45, 300);
    vc->tested++;
    printf("ok   %-28s\n", kf->name);
}

int main(void) {
    struct visit_ctx vc = {qmm_cpu_detect()->features, 0};
    const char *only = getenv("QMM_TEST_KERNEL"); /* run one family */
    if (only) {
        const qmm_family *kf = qmm_registry_find(only);
        CHECK(kf != NULL, "no family named %s", only);
        if (kf)
            visit(kf, &vc);
    } else {
        qmm_kernels_foreach(visit, &vc);
    }
    CHECK(vc.tested > 0, "no family tested");
    return qmm_test_summary();
}
