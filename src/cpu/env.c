#include "cpu/env.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

int qmm_parse_uint(const char *s, int max, int *out) {
    if (!s || !*s)
        return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < 0 || v > max)
        return -1;
    *out = (int)v;
    return 0;
}

/* Warn once per (variable, value) pair: a process that creates many
 * contexts does not repeat itself. */
static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static char warned[8][160];
static int n_warned;

static void warn_once(const char *name, const char *value, const char *expect) {
    char key[160];
    snprintf(key, sizeof key, "%s=%s", name, value);
    pthread_mutex_lock(&warn_lock);
    for (int i = 0; i < n_warned; i++)
        if (strcmp(warned[i], key) == 0) {
            pthread_mutex_unlock(&warn_lock);
            return;
        }
    if (n_warned < 8)
        snprintf(warned[n_warned++], sizeof warned[0], "%s", key);
    pthread_mutex_unlock(&warn_lock);
    qmm_log(QMM_LOG_WARN, "ignoring %s='%s': expected %s", name, value, expect);
}

static int read_uint(const char *name, int min, int max, int unset) {
    const char *s = getenv(name);
    if (!s)
        return unset;
    int v;
    if (qmm_parse_uint(s, max, &v) != 0 || v < min) {
        char expect[64];
        snprintf(expect, sizeof expect, "an integer from %d to %d", min, max);
        warn_once(name, s, expect);
        return unset;
    }
    return v;
}

static int parse_log_level(const char *s) {
    static const char *names[] = {"none", "error", "warn", "info", "debug"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    int v;
    if (qmm_parse_uint(s, 4, &v) == 0)
        return v;
    return -1;
}

static void read_str(const char *name, char *dst, size_t cap) {
    dst[0] = 0;
    const char *s = getenv(name);
    if (!s)
        return;
    size_t n = strlen(s);
    if (n >= cap) {
        char expect[64];
        snprintf(expect, sizeof expect, "at most %zu characters", cap - 1);
        warn_once(name, "(too long)", expect);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ',')) {
            warn_once(name, s, "names of letters, digits and '_', separated by ','");
            return;
        }
    }
    memcpy(dst, s, n + 1);
}

void qmm_env_read(qmm_env *env) {
    memset(env, 0, sizeof *env);
    env->sme = read_uint("QMM_SME", 0, 4096, -1);
    env->threads = read_uint("QMM_THREADS", 1, 4096, 0);
    env->chunk_multiplier = read_uint("QMM_CHUNK_MULTIPLIER", 1, 1024, 0);
    env->cap = read_uint("QMM_CAP", 1, 4096, 0);
    env->log_level = -1;
    const char *lv = getenv("QMM_LOG");
    if (lv) {
        env->log_level = parse_log_level(lv);
        if (env->log_level < 0)
            warn_once("QMM_LOG", lv, "none, error, warn, info, debug or 0..4");
    }
    read_str("QMM_KERNEL", env->kernel, sizeof env->kernel);
    read_str("QMM_HIDE_FEATURES", env->hide, sizeof env->hide);
}
