/* Arm CPU detection.
 *
 * Linux: features from getauxval(AT_HWCAP / AT_HWCAP2), the kernel's view (what user space may execute);
 * vector lengths from prctl, else rdvl / rdsvl, each only once its feature is known present so a CPU without
 * SVE or SME never sees those instructions; the SME unit count from each CPU's SMIDR_EL1 in sysfs; the model
 * from /proc/cpuinfo or MIDR_EL1 in sysfs. Apple: sysctl. Elsewhere: NEON only (it is mandatory on aarch64).
 * The SMIDR parser is plain C and built on every target so it can be tested anywhere. */
#include "cpu/cpu_arm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ SMIDR_EL1 */

/* SMIDR_EL1 fields (Arm ARM): Affinity [11:0], SH [14:13], Affinity2 [51:32], NSMC [59:56]. */
#define SMIDR_SH(v)       ((unsigned)(((v) >> 13) & 0x3u))
#define SMIDR_NSMC(v)     ((unsigned)(((v) >> 56) & 0xfu))
#define SMIDR_AFFINITY(v) ((uint32_t)((((v) >> 32) & 0xfffffu) << 12 | ((v)&0xfffu)))

int qmm_smidr_count_units(const uint64_t *smidr, int n) {
    int private_units = 0, total = 0;
    /* Shared units: one entry per distinct affinity, keeping the largest count. Affinities seen are at most n. */
    uint32_t *aff = n > 0 ? malloc((size_t)n * sizeof *aff) : NULL;
    int *cnt = n > 0 ? malloc((size_t)n * sizeof *cnt) : NULL;
    int n_aff = 0;
    if (n > 0 && (!aff || !cnt)) {
        free(aff);
        free(cnt);
        return 0; /* unknown */
    }
    for (int i = 0; i < n; i++) {
        const uint64_t v = smidr[i];
        const unsigned sh = SMIDR_SH(v), nsmc = SMIDR_NSMC(v);
        const uint32_t id = SMIDR_AFFINITY(v);
        const int units = nsmc == 0xfu ? 1 : (int)nsmc + 1;
        int shared;
        if (sh == 2u)
            shared = 0;
        else if (sh == 3u)
            shared = 1;
        else if (sh == 0u)
            shared = id != 0; /* implementation defined: only a zero affinity is taken as private */
        else
            continue;
        if (!shared) {
            private_units++;
            continue;
        }
        int j = 0;
        while (j < n_aff && aff[j] != id)
            j++;
        if (j == n_aff) {
            aff[n_aff] = id;
            cnt[n_aff++] = units;
        } else if (cnt[j] < units) {
            cnt[j] = units;
        }
    }
    total = private_units;
    for (int j = 0; j < n_aff; j++)
        total += cnt[j];
    free(aff);
    free(cnt);
    return total;
}

int qmm_parse_hex_u64(const char *s, uint64_t *out) {
    while (*s == ' ' || *s == '\t')
        s++;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t v = 0;
    int digits = 0;
    for (;; s++, digits++) {
        const char c = *s;
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        if (digits >= 16)
            return -1;
        v = v << 4 | d;
    }
    if (digits == 0 || (*s != 0 && *s != '\n' && *s != ' ' && *s != '\r'))
        return -1;
    *out = v;
    return 0;
}

#if defined(__aarch64__)

/* A few MIDR part numbers, for a readable model string. */
__attribute__((unused)) static const char *part_name(unsigned implementer, unsigned part) {
    static const struct {
        unsigned impl, part;
        const char *name;
    } parts[] = {
        {0x41, 0xd03, "Arm Cortex-A53"},
        {0x41, 0xd05, "Arm Cortex-A55"},
        {0x41, 0xd07, "Arm Cortex-A57"},
        {0x41, 0xd08, "Arm Cortex-A72"},
        {0x41, 0xd0b, "Arm Cortex-A76"},
        {0x41, 0xd0c, "Arm Neoverse-N1"},
        {0x41, 0xd40, "Arm Neoverse-V1"},
        {0x41, 0xd44, "Arm Cortex-X1"},
        {0x41, 0xd46, "Arm Cortex-A510"},
        {0x41, 0xd47, "Arm Cortex-A710"},
        {0x41, 0xd48, "Arm Cortex-X2"},
        {0x41, 0xd49, "Arm Neoverse-N2"},
        {0x41, 0xd4f, "Arm Neoverse-V2"},
        {0x41, 0xd80, "Arm Cortex-A520"},
        {0x41, 0xd81, "Arm Cortex-A720"},
        {0x41, 0xd82, "Arm Cortex-X4"},
        {0x41, 0xd84, "Arm Neoverse-V3"},
        {0x41, 0xd8e, "Arm Neoverse-N3"},
        {0x41, 0xd85, "Arm Cortex-X925"},
        {0x41, 0xd87, "Arm Cortex-A725"},
        {0x61, 0x0, "Apple"},
        {0x46, 0x001, "Fujitsu A64FX"},
        {0xc0, 0xac3, "Ampere-1"},
        {0x51, 0x0, "Qualcomm"},
        {0x48, 0xd01, "HiSilicon TSV110"},
        {0x00, 0x0, "QEMU"},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].impl == implementer && (parts[i].part == part || parts[i].part == 0))
            return parts[i].name;
    return NULL;
}

__attribute__((unused)) static void set_model(qmm_cpu_info *ci, unsigned implementer, unsigned part) {
    const char *name = part_name(implementer, part);
    if (name)
        snprintf(ci->model, sizeof ci->model, "%s (0x%02x:0x%03x)", name, implementer, part);
    else
        snprintf(ci->model, sizeof ci->model, "implementer 0x%02x part 0x%03x", implementer, part);
}

#if defined(__linux__)
#include <dirent.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

/* hwcap bits (arch/arm64/include/uapi/asm/hwcap.h), spelled here so older headers do not matter. */
#define QMM_HWCAP_FPHP     (1ull << 9)
#define QMM_HWCAP_ASIMD    (1ull << 1)
#define QMM_HWCAP_ASIMDHP  (1ull << 10)
#define QMM_HWCAP_ASIMDDP  (1ull << 20)
#define QMM_HWCAP_SVE      (1ull << 22)
#define QMM_HWCAP2_SVE2    (1ull << 1)
#define QMM_HWCAP2_SVEI8MM (1ull << 9)
#define QMM_HWCAP2_I8MM    (1ull << 13)
#define QMM_HWCAP2_BF16    (1ull << 14)
#define QMM_HWCAP2_SME     (1ull << 23)
#define QMM_HWCAP2_SME2    (1ull << 37)
#ifndef AT_HWCAP2
#define AT_HWCAP2 26
#endif
#define QMM_PR_SVE_GET_VL  51
#define QMM_PR_SME_GET_VL  64
#define QMM_PR_VL_LEN_MASK 0xffff

/* rdvl x0, #1 and rdsvl x0, #1 as raw encodings: no target flags needed, and only executed when the hwcaps say
 * the instruction exists. */
static int read_sve_vl(void) {
    long r = prctl(QMM_PR_SVE_GET_VL, 0, 0, 0, 0);
    if (r > 0)
        return (int)(r & QMM_PR_VL_LEN_MASK);
    register uint64_t x0 __asm__("x0");
    __asm__ volatile(".inst 0x04bf5020" : "=r"(x0));
    return (int)x0;
}

static int read_sme_svl(void) {
    long r = prctl(QMM_PR_SME_GET_VL, 0, 0, 0, 0);
    if (r > 0)
        return (int)(r & QMM_PR_VL_LEN_MASK);
    register uint64_t x0 __asm__("x0");
    __asm__ volatile(".inst 0x04bf5820" : "=r"(x0));
    return (int)x0;
}

static int read_text(const char *path, char *buf, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = 0;
    return 0;
}

static int sme_units_sysfs(void) {
    DIR *dir = opendir("/sys/devices/system/cpu");
    if (!dir)
        return 0;
    int cap = 64, n = 0;
    uint64_t *vals = malloc((size_t)cap * sizeof *vals);
    struct dirent *e;
    while (vals && (e = readdir(dir)) != NULL) {
        const char *s = e->d_name;
        if (strncmp(s, "cpu", 3) != 0 || s[3] < '0' || s[3] > '9')
            continue;
        const char *p = s + 3;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p)
            continue;
        char path[320], text[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/regs/identification/smidr_el1", s);
        uint64_t v;
        if (read_text(path, text, sizeof text) != 0 || qmm_parse_hex_u64(text, &v) != 0)
            continue;
        if (n == cap) {
            uint64_t *nv = realloc(vals, (size_t)cap * 2 * sizeof *vals);
            if (!nv)
                break;
            vals = nv;
            cap *= 2;
        }
        vals[n++] = v;
    }
    closedir(dir);
    const int units = vals ? qmm_smidr_count_units(vals, n) : 0;
    free(vals);
    return units;
}

static void model_linux(qmm_cpu_info *ci) {
    unsigned implementer = 0, part = 0;
    int have = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[256];
        int got_impl = 0, got_part = 0;
        while (fgets(line, sizeof line, f) && !(got_impl && got_part)) {
            const char *c = strchr(line, ':');
            if (!c)
                continue;
            if (!got_impl && strncmp(line, "CPU implementer", 15) == 0)
                got_impl = sscanf(c + 1, "%x", &implementer) == 1;
            else if (!got_part && strncmp(line, "CPU part", 8) == 0)
                got_part = sscanf(c + 1, "%x", &part) == 1;
        }
        fclose(f);
        have = got_impl && got_part;
    }
    if (!have) {
        char text[64];
        uint64_t midr;
        if (read_text("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", text, sizeof text) == 0 &&
            qmm_parse_hex_u64(text, &midr) == 0) {
            implementer = (unsigned)(midr >> 24) & 0xffu;
            part = (unsigned)(midr >> 4) & 0xfffu;
            have = 1;
        }
    }
    if (have)
        set_model(ci, implementer, part);
}

void qmm_cpu_detect_arm(qmm_cpu_info *ci) {
    snprintf(ci->arch, sizeof ci->arch, "aarch64");
    const uint64_t hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
    uint64_t f = 0;
    if (hw & QMM_HWCAP_ASIMD)
        f |= QMM_CPU_NEON;
    if (hw & QMM_HWCAP_ASIMDDP)
        f |= QMM_CPU_DOTPROD;
    if ((hw & QMM_HWCAP_FPHP) && (hw & QMM_HWCAP_ASIMDHP))
        f |= QMM_CPU_FP16;
    if (hw2 & QMM_HWCAP2_I8MM)
        f |= QMM_CPU_I8MM;
    if (hw2 & QMM_HWCAP2_BF16)
        f |= QMM_CPU_BF16;
    if (hw & QMM_HWCAP_SVE) {
        f |= QMM_CPU_SVE;
        if (hw2 & QMM_HWCAP2_SVE2)
            f |= QMM_CPU_SVE2;
        if (hw2 & QMM_HWCAP2_SVEI8MM)
            f |= QMM_CPU_SVE_I8MM;
    }
    if (hw2 & QMM_HWCAP2_SME) {
        f |= QMM_CPU_SME;
        if (hw2 & QMM_HWCAP2_SME2)
            f |= QMM_CPU_SME2;
    }
    ci->features = f;
    ci->sve_vl_bytes = (f & QMM_CPU_SVE) ? read_sve_vl() : 0;
    ci->sme_svl_bytes = (f & QMM_CPU_SME) ? read_sme_svl() : 0;
    ci->sme_units = (f & QMM_CPU_SME) ? sme_units_sysfs() : 0;
    model_linux(ci);
}

#elif defined(__APPLE__)
#include <sys/sysctl.h>

static int sysctl_int(const char *name) {
    int v = 0;
    size_t size = sizeof v;
    if (sysctlbyname(name, &v, &size, NULL, 0) != 0 || size != sizeof v)
        return 0;
    return v;
}

static int read_sme_svl(void) {
    register uint64_t x0 __asm__("x0");
    __asm__ volatile(".inst 0x04bf5820" : "=r"(x0));
    return (int)x0;
}

/* SME units: one per L2 cluster of the performance levels that run SME at full rate (P / "Super" cores). */
static int sme_units_apple(void) {
    const int levels = sysctl_int("hw.nperflevels");
    int units = 0;
    for (int i = 0; i < levels; i++) {
        char key[64], name[64] = {0};
        snprintf(key, sizeof key, "hw.perflevel%d.physicalcpu", i);
        const int cpus = sysctl_int(key);
        snprintf(key, sizeof key, "hw.perflevel%d.cpusperl2", i);
        const int per_l2 = sysctl_int(key);
        snprintf(key, sizeof key, "hw.perflevel%d.name", i);
        size_t size = sizeof name - 1;
        if (cpus <= 0 || per_l2 <= 0 || sysctlbyname(key, name, &size, NULL, 0) != 0)
            continue;
        for (char *p = name; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        if (strstr(name, "super") || strstr(name, "performance"))
            units += (cpus + per_l2 - 1) / per_l2;
    }
    return units;
}

void qmm_cpu_detect_arm(qmm_cpu_info *ci) {
    snprintf(ci->arch, sizeof ci->arch, "aarch64");
    uint64_t f = QMM_CPU_NEON;
    if (sysctl_int("hw.optional.arm.FEAT_DotProd"))
        f |= QMM_CPU_DOTPROD;
    if (sysctl_int("hw.optional.arm.FEAT_I8MM"))
        f |= QMM_CPU_I8MM;
    if (sysctl_int("hw.optional.arm.FEAT_FP16"))
        f |= QMM_CPU_FP16;
    if (sysctl_int("hw.optional.arm.FEAT_BF16"))
        f |= QMM_CPU_BF16;
    if (sysctl_int("hw.optional.arm.FEAT_SME")) {
        f |= QMM_CPU_SME;
        if (sysctl_int("hw.optional.arm.FEAT_SME2"))
            f |= QMM_CPU_SME2;
    }
    ci->features = f;
    ci->sme_svl_bytes = (f & QMM_CPU_SME) ? read_sme_svl() : 0;
    ci->sme_units = (f & QMM_CPU_SME) ? sme_units_apple() : 0;
    char brand[64] = {0};
    size_t size = sizeof brand - 1;
    if (sysctlbyname("machdep.cpu.brand_string", brand, &size, NULL, 0) == 0)
        snprintf(ci->model, sizeof ci->model, "%s", brand);
}

#else

void qmm_cpu_detect_arm(qmm_cpu_info *ci) {
    snprintf(ci->arch, sizeof ci->arch, "aarch64");
    ci->features = QMM_CPU_NEON; /* Advanced SIMD is part of the AArch64 base */
}

#endif /* OS */
#endif /* __aarch64__ */
