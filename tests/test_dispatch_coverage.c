/* Dispatch coverage: on every CPU feature set the kernel tables know, every
 * packable weight type runs on a SIMD family wherever Q4_0 does, as primary
 * and as the chain's fallback (what a capped, hybrid run uses). A type left on
 * the reference family on such a CPU is a missing family.
 *
 * The feature sets are those of real CPUs, built from the QMM_CPU_* masks the
 * family descriptors require (x86: AVX2 only, AVX2 + AVX-VNNI, AVX-512 VNNI
 * with and without AVX-VNNI; Arm: NEON, dotprod, i8mm, SVE, SVE + i8mm, SME,
 * SME2, SME without SVE). Only the tables matter, not this CPU: each ISA's
 * half is checked where the build has its table, and is vacuous elsewhere.
 *
 * Also: no family packs more than 3% over the GGUF bytes. */
#include "cpu/cpu.h"
#include "formats/formats.h"
#include "registry/dispatch.h"
#include "registry/registry.h"
#include "test_util.h"

#define X86_AVX2    (QMM_CPU_SSE42 | QMM_CPU_AVX | QMM_CPU_AVX2 | QMM_CPU_FMA | QMM_CPU_F16C)
#define X86_AVX512  (X86_AVX2 | QMM_CPU_AVX512F | QMM_CPU_AVX512BW | QMM_CPU_AVX512VL | QMM_CPU_AVX512DQ | QMM_CPU_AVX512VNNI)
#define ARM_DOT     (QMM_CPU_NEON | QMM_CPU_FP16 | QMM_CPU_DOTPROD)
#define ARM_I8MM    (ARM_DOT | QMM_CPU_I8MM | QMM_CPU_BF16)
#define ARM_SVEI8MM (ARM_I8MM | QMM_CPU_SVE | QMM_CPU_SVE2 | QMM_CPU_SVE_I8MM)

typedef struct feature_set {
    const char *name;
    uint64_t features;
} feature_set;

static const feature_set x86_sets[] = {
    {"x86 AVX2 (Haswell, Zen 1-3)", X86_AVX2},
    {"x86 AVX2 + AVX-VNNI (Alder Lake)", X86_AVX2 | QMM_CPU_AVXVNNI},
    {"x86 AVX-512 VNNI (Ice Lake, Zen 4)", X86_AVX512 | QMM_CPU_AVX512BF16},
    {"x86 AVX-512 VNNI + AVX-VNNI (Sapphire Rapids)",
     X86_AVX512 | QMM_CPU_AVX512BF16 | QMM_CPU_AVXVNNI | QMM_CPU_AMX_TILE | QMM_CPU_AMX_INT8 | QMM_CPU_AMX_BF16},
};

static const feature_set arm_sets[] = {
    {"Arm NEON (Cortex-A72)", QMM_CPU_NEON},
    {"Arm NEON dotprod (Neoverse N1)", ARM_DOT},
    {"Arm NEON i8mm", ARM_I8MM},
    {"Arm SVE dotprod", ARM_DOT | QMM_CPU_SVE},
    {"Arm SVE i8mm (Neoverse V1/N2)", ARM_SVEI8MM},
    {"Arm SME", ARM_SVEI8MM | QMM_CPU_SME},
    {"Arm SME2", ARM_SVEI8MM | QMM_CPU_SME | QMM_CPU_SME2},
    {"Arm SME2 without SVE (Apple M4)", ARM_I8MM | QMM_CPU_SME | QMM_CPU_SME2},
};

static int is_ref(const qmm_family *kf) { return !kf || kf == qmm_registry_reference(kf->wtype); }

/* Whether type t runs on a SIMD family under `features` wherever Q4_0 does;
 * prints the gap. what: "runs on" (primary) or "falls back to" (fallback). */
static int gap(const char *set, const char *what, qmm_type t, const qmm_family *kf, uint64_t features) {
    const qmm_family *q4 = qmm_registry_select(QMM_TYPE_Q4_0, features);
    if (is_ref(q4) || !is_ref(kf))
        return 0;
    printf("     %s: %s %s %s, Q4_0 on %s\n", set, qmm_type_name(t), what, kf ? kf->name : "nothing", q4->name);
    return 1;
}

/* Gaps of one feature set (printed). The fallback of a capped primary's chain
 * is selected with the primary's fallback_hides masked off: the same rule on
 * that feature set (an SME primary's fallback must be a SIMD family where
 * Q4_0's NEON one would run). Sets simd_q4_0 when Q4_0 itself has a SIMD
 * family here. */
static int gaps_of(const feature_set *fs, int *simd_q4_0) {
    *simd_q4_0 = !is_ref(qmm_registry_select(QMM_TYPE_Q4_0, fs->features));
    int gaps = 0;
    for (int i = 0; i < QMM_N_WTYPES; i++) {
        const qmm_type t = qmm_packable_types[i];
        const qmm_chain c = qmm_chain_select(t, fs->features, NULL);
        CHECK(c.primary != NULL, "%s: no family at all for %s", fs->name, qmm_type_name(t));
        if (!c.primary)
            continue;
        gaps += gap(fs->name, "runs on", t, c.primary, fs->features);
        /* Hybrid runs by default only under a capped primary (SME units): there
         * the fallback must be SIMD too. (A QMM_CAP run of an uncapped family
         * may fall back to the reference, as the NEON fp families do by design.) */
        const uint64_t fb_features = fs->features & ~c.primary->fallback_hides;
        if ((c.primary->flags & QMM_FAMILY_CAPPED) && c.primary->fallback_hides)
            gaps += gap(fs->name, "falls back to", t, c.fallback ? c.fallback : c.primary, fb_features);
    }
    return gaps;
}

/* One ISA's half: every feature set must have no gap. */
static void check_half(const char *isa, const qmm_family *const *table, const feature_set *sets, size_t nsets) {
    if (!table[0]) {
        printf("skip %s: the build has no %s families\n", isa, isa);
        return;
    }
    int simd_sets = 0;
    for (size_t s = 0; s < nsets; s++) {
        int simd;
        const int g = gaps_of(&sets[s], &simd);
        simd_sets += simd;
        printf("%s %s\n", g ? "FAIL " : "ok   ", sets[s].name);
        CHECK(g == 0, "%s: %d dispatch gaps", sets[s].name, g);
    }
    /* not vacuous: the table's own Q4_0 families must be reached by some set */
    CHECK(simd_sets > 0, "%s: no feature set selects a SIMD Q4_0 family (the feature sets are out of date)", isa);
}

/* What a type gains must not cost memory: every family of the build packs
 * whole panels within 3% of the GGUF bytes. Known exceptions, older than the
 * bound: the NEON Q4_0 / Q8_0 panels keep fp32 scales (+11.1% / +5.9%). */
static int size_exception(const char *name) {
    static const char *const known[] = {"neon_dotprod_q4_0", "neon_dotprod_q8_0", "neon_i8mm_q4_0", "neon_i8mm_q8_0"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i]) == 0)
            return 1;
    return 0;
}

static void check_packed_sizes(void) {
    const int64_t k = 4096;
    for (int i = 0; i < qmm_registry_count(); i++) {
        const qmm_family *kf = qmm_registry_at(i);
        if (size_exception(kf->name))
            continue;
        const int64_t n = kf->n_step * 8;
        const size_t packed = kf->w_packed_size(k, n), gguf = qmm_row_size(kf->wtype, k) * (size_t)n;
        CHECK(packed * 100 <= gguf * 103, "%s: packed %zu bytes for %zu GGUF bytes (+%.2f%%, the bound is 3%%)", kf->name, packed,
              gguf, 100.0 * ((double)packed / (double)gguf - 1.0));
    }
}

int main(void) {
    check_packed_sizes();
    check_half("x86", qmm_x86_kernels, x86_sets, sizeof x86_sets / sizeof x86_sets[0]);
    check_half("Arm", qmm_arm_kernels, arm_sets, sizeof arm_sets / sizeof arm_sets[0]);
    /* and this CPU, as detected */
    const feature_set here = {"this CPU", qmm_cpu_detect()->features};
    int simd;
    const int g = gaps_of(&here, &simd);
    printf("%s this CPU\n", g ? "FAIL " : "ok   ");
    CHECK(g == 0, "this CPU: %d dispatch gaps", g);
    return qmm_test_summary();
}
