/* The AVX-512 activation quantizer of the avx512vnni_* families against
 * qmm_act_quantize_block, bit for bit, on the inputs the oracle test does
 * not make: NaN, infinities, denormal and underflowing block maxima (where
 * 1 / d overflows to inf), signed zeros, exact ties, huge values, and the
 * tiny, subnormal and mixed blocks of test_act_blocks.h (blocks 12..22: the
 * scaled path, d rounded upward). Reads the
 * families' own activation layout (src/kernels/x86/avx512_int8.h): per block
 * of a group of G rows, d[G], bias[G] = -zp * sum (the other types: the
 * two int16 per-16 sums), q[G][32]. */
#include <float.h>
#include <math.h>

#include "cpu/cpu.h"
#include "formats/formats.h"
#include "registry/registry.h"
#include "test_act_blocks.h"
#include "test_util.h"

#define NBLK 24
_Static_assert(12 + QMM_TEST_TINY_KINDS <= NBLK, "room for the tiny blocks");

/* Block b of row r: a different special pattern per block. */
static void fill(float *x, int r, uint64_t *seed) {
    for (int b = 0; b < NBLK; b++) {
        float *v = x + b * 32;
        for (int j = 0; j < 32; j++)
            v[j] = qmm_test_rand_f(seed) * (float)(r + 1);
        switch (b) {
        case 0: memset(v, 0, 32 * sizeof(float)); break;
        case 1:
            for (int j = 0; j < 32; j++)
                v[j] = -0.0f;
            break;
        case 2: v[5] = NAN; break;
        case 3:
            for (int j = 0; j < 32; j++)
                v[j] = NAN;
            break;
        case 4: v[7] = INFINITY; break;
        case 5:
            v[31] = -INFINITY;
            v[0] = NAN;
            break;
        case 6: /* maximum a denormal: d underflows to 0 */
            for (int j = 0; j < 32; j++)
                v[j] = (j % 3) ? 1e-45f : -1e-45f;
            break;
        case 7: /* maximum 1e-38: d is denormal and 1 / d overflows to inf */
            for (int j = 0; j < 32; j++)
                v[j] = (j % 4 == 0) ? 0.0f : ((j & 1) ? 1e-38f : -3e-39f);
            break;
        case 8: /* ties: x * id lands on k + 0.5 */
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
                v[j] = (j & 1) ? 1e-40f : 1e-41f;
            break;
        case 11:
            v[9] = -INFINITY;
            v[10] = INFINITY;
            break;
        default:
            if (b - 12 < QMM_TEST_TINY_KINDS)
                qmm_test_tiny_block(v, b - 12, seed);
            break;
        }
    }
}

static void check_layout(const qmm_family *kf, const qmm_act_layout *al, int g, int32_t zp, int64_t m) {
    const int64_t k = NBLK * 32;
    uint64_t seed = 777;
    float *x = malloc((size_t)(m * k) * sizeof(float));
    for (int64_t r = 0; r < m; r++)
        fill(x + r * k, (int)r, &seed);
    const size_t sz = al->packed_size(m, k);
    uint8_t *p = qmm_test_alloc(sz);
    al->pack(m, k, x, (size_t)k * sizeof(float), p);
    long bad = 0;
    for (int64_t r = 0; r < m; r++)
        for (int b = 0; b < NBLK; b++) {
            int8_t q[32];
            float d;
            int32_t sum;
            qmm_act_quantize_block(x + r * k + b * 32, q, &d, &sum);
            const uint8_t *blk = p + al->packed_offset(r - r % g, k) + (size_t)b * (size_t)g * 40;
            const int i = (int)(r % g);
            float pd;
            int32_t pbias;
            memcpy(&pd, blk + 4 * i, 4);
            memcpy(&pbias, blk + 4 * (g + i), 4);
            int32_t want = -zp * sum;
            if (zp == 0) { /* the x-families (Q4_1 ... Q6_K): int16 sums of elements 0..15 and 16..31 */
                int32_t sa = 0;
                for (int l = 0; l < 16; l++)
                    sa += q[l];
                want = (int32_t)((uint32_t)(uint16_t)(int16_t)sa | (uint32_t)(uint16_t)(int16_t)(sum - sa) << 16);
            }
            const int ok = memcmp(&pd, &d, 4) == 0 && pbias == want && memcmp(blk + 8 * g + 32 * i, q, 32) == 0;
            if (!ok && bad++ < 5)
                fprintf(stderr, "  %s g=%d row %" PRId64 " block %d: d %g/%g bias %d/%d\n", kf->name, g, r, b, pd, d, pbias,
                        want);
        }
    CHECK(bad == 0, "%s: %ld activation blocks differ from qmm_act_quantize_block (g=%d m=%" PRId64 ")", kf->name, bad, g, m);
    free(x);
    free(p);
}

int main(void) {
    const uint64_t features = qmm_cpu_detect()->features;
    int tested = 0;
    for (int i = 0; i < qmm_registry_count(); i++) {
        const qmm_family *kf = qmm_registry_at(i);
        if (strncmp(kf->name, "avx512vnni_", 11) != 0)
            continue;
        if (qmm_type_is_iq_grid(kf->wtype)) { /* iq_grid_x86.h: the reference activation rows, test_kernels checks them */
            printf("skip %-28s (reference activation layout)\n", kf->name);
            continue;
        }
        if ((kf->required & ~features) != 0) {
            printf("skip %-28s (CPU lacks its features)\n", kf->name);
            continue;
        }
        /* the table families (IQ4_NL, MXFP4, IQ4_XS: level + 128) bias as Q8_0 */
        const int table = kf->wtype == QMM_TYPE_IQ4_NL || kf->wtype == QMM_TYPE_MXFP4 || kf->wtype == QMM_TYPE_IQ4_XS;
        const int32_t zp = kf->wtype == QMM_TYPE_Q4_0 ? 8 : kf->wtype == QMM_TYPE_Q8_0 || table ? 128 : 0;
        for (int64_t m = 1; m <= 11; m += 5)
            check_layout(kf, &kf->act, kf->act.m_step, zp, m);
        check_layout(kf, qmm_family_act_layout(kf, 1), 1, zp, 1);
        printf("ok   %-28s\n", kf->name);
        tested++;
    }
    if (!tested)
        printf("no avx512vnni family runs here: nothing tested\n");
    return qmm_test_summary();
}
