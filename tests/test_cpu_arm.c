/* Arm CPU detection: the SMIDR_EL1 unit counting on synthetic register values, the sysfs text parser, and (on
 * aarch64) that detection is self-consistent: vector lengths exactly when their feature is present. */
#include "cpu/cpu_arm.h"
#include "test_util.h"

/* An SMIDR_EL1 value from its fields. */
static uint64_t smidr(unsigned sh, unsigned nsmc, uint32_t affinity2, uint32_t affinity) {
    return (uint64_t)(nsmc & 0xfu) << 56 | (uint64_t)(affinity2 & 0xfffffu) << 32 | (uint64_t)(sh & 3u) << 13 |
           (affinity & 0xfffu) | 0x41ull << 24 /* implementer, ignored */;
}

static void test_smidr(void) {
    CHECK(qmm_smidr_count_units(NULL, 0) == 0, "no CPUs: 0 units");
    /* 4 CPUs with private units */
    uint64_t p[4];
    for (int i = 0; i < 4; i++)
        p[i] = smidr(2, 0, 0, (uint32_t)i);
    CHECK(qmm_smidr_count_units(p, 4) == 4, "private units: %d", qmm_smidr_count_units(p, 4));
    /* 8 CPUs sharing 2 clusters of one unit each (SH = 3), affinities 1 and 2 */
    uint64_t s[8];
    for (int i = 0; i < 8; i++)
        s[i] = smidr(3, 0, 0, i < 4 ? 1 : 2);
    CHECK(qmm_smidr_count_units(s, 8) == 2, "two shared clusters: %d", qmm_smidr_count_units(s, 8));
    /* one cluster whose CPUs report NSMC 1 and 3: the largest count (4) wins */
    uint64_t m[3] = {smidr(3, 1, 5, 7), smidr(3, 3, 5, 7), smidr(3, 0, 5, 7)};
    CHECK(qmm_smidr_count_units(m, 3) == 4, "largest NSMC: %d", qmm_smidr_count_units(m, 3));
    /* Affinity2 distinguishes clusters with the same low affinity */
    uint64_t a2[2] = {smidr(3, 0, 1, 7), smidr(3, 0, 2, 7)};
    CHECK(qmm_smidr_count_units(a2, 2) == 2, "Affinity2 separates clusters: %d", qmm_smidr_count_units(a2, 2));
    /* NSMC = 0xF is reserved: one unit */
    uint64_t r[2] = {smidr(3, 0xf, 0, 3), smidr(3, 0xf, 0, 3)};
    CHECK(qmm_smidr_count_units(r, 2) == 1, "reserved NSMC: %d", qmm_smidr_count_units(r, 2));
    /* SH = 0: zero affinity is private, non-zero is shared */
    uint64_t z[4] = {smidr(0, 0, 0, 0), smidr(0, 0, 0, 0), smidr(0, 1, 0, 9), smidr(0, 1, 0, 9)};
    CHECK(qmm_smidr_count_units(z, 4) == 4, "SH=0: 2 private + 2 shared: %d", qmm_smidr_count_units(z, 4));
    /* SH = 1 counts nothing; mixed with others */
    uint64_t x[3] = {smidr(1, 3, 0, 1), smidr(2, 0, 0, 0), smidr(3, 1, 0, 4)};
    CHECK(qmm_smidr_count_units(x, 3) == 3, "SH=1 ignored: %d", qmm_smidr_count_units(x, 3));
    /* Apple-M4-like: 10 CPUs, 4 P-cores sharing one unit and 6 E-cores sharing another */
    uint64_t ap[10];
    for (int i = 0; i < 10; i++)
        ap[i] = smidr(3, 0, 0, i < 4 ? 0x100 : 0x200);
    CHECK(qmm_smidr_count_units(ap, 10) == 2, "two clusters of ten CPUs: %d", qmm_smidr_count_units(ap, 10));
}

static void test_parse(void) {
    uint64_t v = 0;
    CHECK(qmm_parse_hex_u64("0x0000000041000000\n", &v) == 0 && v == 0x41000000ull, "0x-prefixed with newline");
    CHECK(qmm_parse_hex_u64("ffffFFFF00000001", &v) == 0 && v == 0xffffffff00000001ull, "bare hex");
    CHECK(qmm_parse_hex_u64("", &v) != 0, "empty");
    CHECK(qmm_parse_hex_u64("0x", &v) != 0, "prefix only");
    CHECK(qmm_parse_hex_u64("12g", &v) != 0, "junk");
    CHECK(qmm_parse_hex_u64("0x10000000000000000", &v) != 0, "too long");
}

static void test_detect(void) {
    const qmm_cpu_info *ci = qmm_cpu_detect();
    printf("arch %s, model '%s', features:", ci->arch, ci->model);
    for (int b = 0; b < 64; b++)
        if (ci->features & (1ull << b))
            printf(" %s", qmm_cpu_feature_name(1ull << b));
    printf("\nsve_vl_bytes %d, sme_svl_bytes %d, sme_units %d\n", ci->sve_vl_bytes, ci->sme_svl_bytes, ci->sme_units);
#if defined(__aarch64__)
    CHECK(ci->features & QMM_CPU_NEON, "aarch64 without NEON");
    const int sve = (ci->features & QMM_CPU_SVE) != 0, sme = (ci->features & QMM_CPU_SME) != 0;
    CHECK(sve ? (ci->sve_vl_bytes >= 16 && ci->sve_vl_bytes <= 256 && ci->sve_vl_bytes % 16 == 0) : ci->sve_vl_bytes == 0,
          "SVE VL %d with sve=%d", ci->sve_vl_bytes, sve);
    CHECK(sme ? (ci->sme_svl_bytes >= 16 && ci->sme_svl_bytes <= 256) : ci->sme_svl_bytes == 0, "SME SVL %d with sme=%d",
          ci->sme_svl_bytes, sme);
    CHECK(sme || ci->sme_units == 0, "SME units without SME");
    CHECK(!(ci->features & QMM_CPU_SME2) || sme, "SME2 without SME");
    CHECK(!(ci->features & QMM_CPU_SVE2) || sve, "SVE2 without SVE");
#endif
}

int main(void) {
    test_smidr();
    test_parse();
    test_detect();
    return qmm_test_summary();
}
