/* Run-time CPU feature detection: x86 cpuid + xgetbv (the OS must enable the
 * register state too), Arm Linux hwcaps (Apple: sysctl). Detected once. */
#include "cpu/cpu.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

static const struct {
    uint64_t bit;
    const char *name;
} feature_names[] = {
    {QMM_CPU_SSE42, "sse4_2"},
    {QMM_CPU_AVX, "avx"},
    {QMM_CPU_AVX2, "avx2"},
    {QMM_CPU_FMA, "fma"},
    {QMM_CPU_F16C, "f16c"},
    {QMM_CPU_AVX512F, "avx512f"},
    {QMM_CPU_AVX512BW, "avx512bw"},
    {QMM_CPU_AVX512VL, "avx512vl"},
    {QMM_CPU_AVX512DQ, "avx512dq"},
    {QMM_CPU_AVX512VNNI, "avx512_vnni"},
    {QMM_CPU_AVX512BF16, "avx512_bf16"},
    {QMM_CPU_AVXVNNI, "avx_vnni"},
    {QMM_CPU_AMX_TILE, "amx_tile"},
    {QMM_CPU_AMX_INT8, "amx_int8"},
    {QMM_CPU_AMX_BF16, "amx_bf16"},
    {QMM_CPU_NEON, "neon"},
    {QMM_CPU_DOTPROD, "dotprod"},
    {QMM_CPU_I8MM, "i8mm"},
    {QMM_CPU_FP16, "fp16"},
    {QMM_CPU_BF16, "bf16"},
    {QMM_CPU_SVE, "sve"},
    {QMM_CPU_SVE2, "sve2"},
    {QMM_CPU_SVE_I8MM, "svei8mm"},
    {QMM_CPU_SME, "sme"},
    {QMM_CPU_SME2, "sme2"},
};

const char *qmm_cpu_feature_name(uint64_t bit) {
    for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
        if (feature_names[i].bit == bit)
            return feature_names[i].name;
    return NULL;
}

uint64_t qmm_cpu_feature_from_name(const char *name) {
    if (!name)
        return 0;
    for (size_t i = 0; i < sizeof(feature_names) / sizeof(feature_names[0]); i++)
        if (strcmp(feature_names[i].name, name) == 0)
            return feature_names[i].bit;
    return 0;
}

static int count_cores(void) {
#if defined(__linux__)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#else
    return 1;
#endif
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
    uint32_t eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((uint64_t)edx << 32) | eax;
}

/* Linux hands a process the AMX tile state only on request (5.16+:
 * arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA); without it the first tile
 * instruction faults. A refusal (an older kernel, a too-small sigaltstack)
 * means no AMX. The permission is process-wide and idempotent. */
static int os_grants_amx(void) {
#if defined(__linux__) && defined(SYS_arch_prctl)
    enum { ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18 };
    return syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
#else
    return 0;
#endif
}

static void detect_x86(qmm_cpu_info *ci) {
    unsigned a, b, c, d;
    snprintf(ci->arch, sizeof ci->arch, "x86_64");
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return;
    const unsigned max_leaf = a;
    memcpy(ci->vendor, &b, 4); /* EBX, EDX, ECX spell the vendor */
    memcpy(ci->vendor + 4, &d, 4);
    memcpy(ci->vendor + 8, &c, 4);
    ci->vendor[12] = 0;
    unsigned c1 = 0, d1 = 0, b7 = 0, c7 = 0, d7 = 0, a7_1 = 0;
    __cpuid(1, a, b, c1, d1);
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b7, c7, d7);
        const unsigned max7 = a;
        if (max7 >= 1)
            __cpuid_count(7, 1, a7_1, b, c, d);
    }
    const int osxsave = (c1 >> 27) & 1;
    const uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    const int os_avx = (xcr0 & 0x6) == 0x6;                /* XMM | YMM */
    const int os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0; /* opmask | ZMM_Hi256 | Hi16_ZMM */
    const int os_amx = (xcr0 & 0x60000) == 0x60000;        /* XTILECFG | XTILEDATA */
    uint64_t f = 0;
    if ((c1 >> 20) & 1)
        f |= QMM_CPU_SSE42;
    if (os_avx) {
        if ((c1 >> 28) & 1)
            f |= QMM_CPU_AVX;
        if ((b7 >> 5) & 1)
            f |= QMM_CPU_AVX2;
        if ((c1 >> 12) & 1)
            f |= QMM_CPU_FMA;
        if ((c1 >> 29) & 1)
            f |= QMM_CPU_F16C;
        if ((a7_1 >> 4) & 1)
            f |= QMM_CPU_AVXVNNI;
    }
    if (os_avx512) {
        if ((b7 >> 16) & 1)
            f |= QMM_CPU_AVX512F;
        if ((b7 >> 17) & 1)
            f |= QMM_CPU_AVX512DQ;
        if ((b7 >> 30) & 1)
            f |= QMM_CPU_AVX512BW;
        if ((b7 >> 31) & 1)
            f |= QMM_CPU_AVX512VL;
        if ((c7 >> 11) & 1)
            f |= QMM_CPU_AVX512VNNI;
        if ((a7_1 >> 5) & 1)
            f |= QMM_CPU_AVX512BF16;
    }
    if (os_amx && ((d7 >> 24) & 1) && os_grants_amx()) {
        if ((d7 >> 24) & 1)
            f |= QMM_CPU_AMX_TILE;
        if ((d7 >> 25) & 1)
            f |= QMM_CPU_AMX_INT8;
        if ((d7 >> 22) & 1)
            f |= QMM_CPU_AMX_BF16;
    }
    ci->features = f;
    /* brand string */
    unsigned ext;
    __cpuid(0x80000000u, ext, b, c, d);
    if (ext >= 0x80000004u) {
        unsigned regs[12];
        for (unsigned i = 0; i < 3; i++)
            __cpuid(0x80000002u + i, regs[i * 4], regs[i * 4 + 1], regs[i * 4 + 2], regs[i * 4 + 3]);
        char brand[49];
        memcpy(brand, regs, 48);
        brand[48] = 0;
        const char *s = brand;
        while (*s == ' ')
            s++;
        snprintf(ci->model, sizeof ci->model, "%s", s);
        size_t n = strlen(ci->model);
        while (n > 0 && ci->model[n - 1] == ' ')
            ci->model[--n] = 0;
    }
}
#endif

#if defined(__aarch64__)
#include "cpu/cpu_arm.h"
#endif

static qmm_cpu_info g_info;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void detect_once(void) {
    memset(&g_info, 0, sizeof g_info);
    g_info.n_cores = count_cores();
    g_info.numa_nodes = 1;
#if defined(__x86_64__) || defined(__i386__)
    detect_x86(&g_info);
#elif defined(__aarch64__)
    qmm_cpu_detect_arm(&g_info);
#else
    snprintf(g_info.arch, sizeof g_info.arch, "unknown");
#endif
#if defined(__linux__)
    /* NUMA: count /sys/devices/system/node/nodeN */
    int nodes = 0;
    for (int i = 0; i < 1024; i++) {
        char p[64];
        snprintf(p, sizeof p, "/sys/devices/system/node/node%d", i);
        if (access(p, F_OK) != 0)
            break;
        nodes++;
    }
    if (nodes > 0)
        g_info.numa_nodes = nodes;
#endif
}

const qmm_cpu_info *qmm_cpu_detect(void) {
    pthread_once(&g_once, detect_once);
    return &g_info;
}
