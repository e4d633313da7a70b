/* The NEON activation quantizer of the neon_dotprod_* / neon_i8mm_* families against qmm_act_quantize_block, bit
 * for bit, on inputs the oracle test does not make: NaN (one, all), infinities, blocks whose maximum is denormal
 * (d underflows to 0) or tiny (d denormal, 1 / d = inf), signed zeros, exact ties, values near FLT_MAX, and from block
 * 14 on the tiny, subnormal and mixed blocks of test_act_blocks.h (the scaled path, d rounded upward). Reads the
 * families' layout (src/kernels/arm/neon_common.h): groups of 4 rows, per block float d[4] then 128 quants,
 * ROWS4 (dotprod: row r at r * 32) or PAIRS (i8mm: piece g of row r at g * 32 + (r / 2) * 16 + (r % 2) * 8);
 * or the layout with sums (neon_act_sums.h: 160-byte blocks, int16 per-16 sums of row r at 16 + 4 r, quants at 32),
 * whose sums must be the exact sums of the quants. Rows past m in the last group must be zero. */
#include <float.h>
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_act_blocks.h"
#include "test_util.h"

#define NBLK (14 + QMM_TEST_TINY_KINDS)

static void fill_block(float *v, int b, int r, uint64_t *seed) {
    for (int j = 0; j < 32; j++)
        v[j] = qmm_test_rand_f(seed) * (float)(1 + r * 3);
    switch (b) {
    case 0: memset(v, 0, 32 * sizeof(float)); break;
    case 1:
        for (int j = 0; j < 32; j++)
            v[j] = (j & 1) ? -0.0f : 0.0f;
        break;
    case 2: v[r % 32] = NAN; break;
    case 3:
        for (int j = 0; j < 32; j++)
            v[j] = NAN;
        break;
    case 4: v[(r * 5) % 32] = INFINITY; break;
    case 5:
        v[0] = -INFINITY;
        v[1] = NAN;
        v[2] = INFINITY;
        break;
    case 6: /* all denormal: amax / 127 underflows to 0 */
        for (int j = 0; j < 32; j++)
            v[j] = (j % 3) ? 1.4e-45f : -2.8e-45f;
        break;
    case 7: /* maximum ~1e-38: d is denormal and 1 / d overflows to inf */
        for (int j = 0; j < 32; j++)
            v[j] = (j % 4 == 0) ? 0.0f : ((j & 1) ? 1e-38f : -3e-39f);
        break;
    case 8: /* x * id exactly on k + 0.5: round half to even */
        for (int j = 0; j < 32; j++)
            v[j] = 0.5f * (float)(j - 16);
        v[0] = 127.0f;
        break;
    case 9:
        for (int j = 0; j < 32; j++)
            v[j] *= 3e38f;
        v[3] = FLT_MAX;
        v[4] = -FLT_MAX;
        break;
    case 10:
        for (int j = 0; j < 32; j++)
            v[j] = (j & 1) ? 1e-40f : -1e-41f;
        break;
    case 11: /* a signalling NaN pattern */
    {
        const uint32_t snan = 0x7f800001u;
        memcpy(&v[17], &snan, 4);
        break;
    }
    default:
        if (b >= 14)
            qmm_test_tiny_block(v, b - 14, seed);
        break;
    }
}

static void check(const qmm_family *kf, int pairs, int64_t m) {
    const int64_t k = NBLK * 32;
    uint64_t seed = 4242 + (uint64_t)m;
    float *x = malloc((size_t)(m * k) * sizeof(float));
    for (int64_t r = 0; r < m; r++)
        for (int b = 0; b < NBLK; b++)
            fill_block(x + r * k + b * 32, b, (int)r, &seed);
    const qmm_act_layout *al = &kf->act;
    const size_t bb = al->packed_size(4, 32), qoff = bb == 160 ? 32 : 16; /* bytes per block, offset of the quants */
    CHECK(bb == 144 || bb == 160, "%s: activation blocks of %zu bytes, neither layout", kf->name, bb);
    const size_t sz = al->packed_size(m, k);
    uint8_t *p = qmm_test_alloc(sz);
    memset(p, 0x5a, sz);
    al->pack(m, k, x, (size_t)k * sizeof(float), p);
    long bad = 0;
    const int64_t rows = (m + 3) / 4 * 4;
    for (int64_t r = 0; r < rows; r++)
        for (int b = 0; b < NBLK; b++) {
            int8_t q[32] = {0};
            float d = 0.0f;
            int32_t sum;
            if (r < m)
                qmm_act_quantize_block(x + r * k + b * 32, q, &d, &sum);
            const uint8_t *blk = p + al->packed_offset(r - r % 4, k) + (size_t)b * bb;
            const int i = (int)(r % 4);
            int8_t pq[32];
            for (int t = 0; t < 32; t++)
                pq[t] = (int8_t)blk[qoff + (pairs ? (t / 8) * 32 + (i / 2) * 16 + (i % 2) * 8 + t % 8 : i * 32 + t)];
            int ok = memcmp(blk + 4 * i, &d, 4) == 0 && memcmp(pq, q, 32) == 0;
            if (bb == 160) {
                int16_t ps[2];
                memcpy(ps, blk + 16 + 4 * i, 4);
                for (int h = 0; h < 2; h++) {
                    int32_t want = 0;
                    for (int t = 16 * h; t < 16 * h + 16; t++)
                        want += q[t];
                    ok &= ps[h] == want;
                }
            }
            if (!ok && bad++ < 5) {
                float pd;
                memcpy(&pd, blk + 4 * i, 4);
                fprintf(stderr, "  %s row %" PRId64 " block %d: d %g, want %g\n", kf->name, r, b, pd, d);
            }
        }
    CHECK(bad == 0, "%s: %ld activation blocks differ from qmm_act_quantize_block (m=%" PRId64 ")", kf->name, bad, m);
    free(x);
    free(p);
}

int main(void) {
    const uint64_t features = qmm_cpu_detect()->features;
    int tested = 0;
    for (int i = 0; i < qmm_registry_count(); i++) {
        const qmm_family *kf = qmm_registry_at(i);
        const int dotprod = strncmp(kf->name, "neon_dotprod_", 13) == 0, i8mm = strncmp(kf->name, "neon_i8mm_", 10) == 0;
        if (!dotprod && !i8mm)
            continue;
        if ((kf->required & ~features) != 0) {
            printf("skip %-28s (CPU lacks its features)\n", kf->name);
            continue;
        }
        for (int64_t m = 1; m <= 9; m += 2)
            check(kf, i8mm, m);
        printf("ok   %-28s\n", kf->name);
        tested++;
    }
    if (!tested)
        printf("no NEON int8 family runs here: nothing tested\n");
    return qmm_test_summary();
}
