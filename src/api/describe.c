/* qmm_cpu_describe: the detected CPU (src/cpu) as the public description,
 * with the last-level cache size the OS reports. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/internal.h"
#include "base/error.h"

/* Parses a sysfs cache size ("32K", "1024K", "32M"); 0 if malformed. */
static int64_t parse_size(const char *s) {
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v <= 0)
        return 0;
    if (*end == 'K')
        v *= 1024;
    else if (*end == 'M')
        v *= 1024 * 1024;
    else if (*end == 'G')
        v *= 1024ll * 1024 * 1024;
    return v;
}

static int read_line(const char *path, char *buf, size_t n) {
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    const int ok = fgets(buf, (int)n, f) != NULL;
    fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = 0;
    return ok;
}

static int64_t llc_bytes;
static pthread_once_t llc_once = PTHREAD_ONCE_INIT;

/* The largest data or unified cache of the highest level cpu0 reports. */
static void detect_llc(void) {
    int best_level = 0;
    for (int i = 0; i < 16; i++) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (!read_line(path, buf, sizeof buf))
            break;
        const int level = atoi(buf);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (read_line(path, buf, sizeof buf) && strcmp(buf, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!read_line(path, buf, sizeof buf))
            continue;
        const int64_t size = parse_size(buf);
        if (size > 0 && (level > best_level || (level == best_level && size > llc_bytes))) {
            best_level = level;
            llc_bytes = size;
        }
    }
#if defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    if (llc_bytes == 0) { /* no sysfs: what the C library knows */
        long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (v <= 0)
            v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        llc_bytes = v > 0 ? v : 0;
    }
#endif
}

qmm_status qmm_cpu_describe(const qmm_context *ctx, qmm_cpu_desc *out) {
    if (!out)
        return qmm_fail(QMM_ERR_INVALID_ARG, "qmm_cpu_describe: out is NULL");
    const qmm_cpu_info *ci = qmm_cpu_detect();
    pthread_once(&llc_once, detect_llc);
    memset(out, 0, sizeof *out);
    snprintf(out->arch, sizeof out->arch, "%s", ci->arch);
    snprintf(out->model, sizeof out->model, "%s", ci->model);
    out->n_cores = ci->n_cores;
    out->numa_nodes = ci->numa_nodes;
    out->llc_bytes = llc_bytes;
    out->sve_vl_bytes = ci->sve_vl_bytes;
    out->sme_svl_bytes = ci->sme_svl_bytes;
    out->sme_units = ci->sme_units;
    out->features_detected = ci->features;
    out->features = ctx ? ctx->dispatch.features : ci->features;
    return QMM_OK;
}
