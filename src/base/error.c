#include "base/error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

static _Thread_local char last_error[512];
static atomic_int log_level = QMM_LOG_WARN;

/* The callback and its user pointer change together: a mutex keeps the pair
 * consistent; the callback runs outside it (it may call back into us). */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static qmm_log_fn log_fn;
static void *log_user;

void qmm_set_log_callback(qmm_log_fn fn, void *user) {
    pthread_mutex_lock(&log_lock);
    log_fn = fn;
    log_user = fn ? user : NULL;
    pthread_mutex_unlock(&log_lock);
}

/* Messages name things read from files (tensor names, keys): a control
 * character there would reach the host's terminal or log as is. */
static void scrub_controls(char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

static void vset(const char *fmt, va_list ap) {
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    scrub_controls(last_error);
}

void qmm_set_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset(fmt, ap);
    va_end(ap);
}

qmm_status qmm_fail(qmm_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vset(fmt, ap);
    va_end(ap);
    qmm_log(QMM_LOG_DEBUG, "%s: %s", qmm_status_str(status), last_error);
    return status;
}

qmm_status qmm_fail_prefixed(qmm_status status, const char *fmt, const char *what) {
    char detail[sizeof last_error];
    snprintf(detail, sizeof detail, "%s", last_error);
    return qmm_fail(status, fmt, what, detail);
}

qmm_status qmm_check_reserved(const uint64_t *reserved, int n, const char *what) {
    for (int i = 0; i < n; i++)
        if (reserved[i])
            return qmm_fail(QMM_ERR_INVALID_ARG,
                            "%s: reserved[%d] is not zero (initialise the struct with {0} or designated fields)", what, i);
    return QMM_OK;
}

void qmm_clear_error(void) { last_error[0] = 0; }

const char *qmm_last_error(void) { return last_error; }

void qmm_log_set_level(int level) { atomic_store(&log_level, level); }
int qmm_log_level(void) { return atomic_load(&log_level); }

void qmm_log(int level, const char *fmt, ...) {
    if (level > atomic_load(&log_level))
        return;
    static const char *names[] = {"", "error", "warn", "info", "debug"};
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    scrub_controls(buf);
    pthread_mutex_lock(&log_lock);
    const qmm_log_fn fn = log_fn;
    void *const user = log_user;
    pthread_mutex_unlock(&log_lock);
    if (fn)
        fn(level, buf, user);
    else
        fprintf(stderr, "qmatmul %s: %s\n", names[level < 0 ? 0 : level > 4 ? 4 : level], buf);
}

const char *qmm_status_str(qmm_status status) {
    switch (status) {
    case QMM_OK: return "ok";
    case QMM_ERR_INVALID_ARG: return "invalid argument";
    case QMM_ERR_UNSUPPORTED: return "unsupported type or operation";
    case QMM_ERR_BAD_BLOB: return "packed weights failed validation";
    case QMM_ERR_BAD_FILE: return "malformed file";
    case QMM_ERR_NO_MEMORY: return "out of memory";
    case QMM_ERR_IO: return "I/O error";
    case QMM_ERR_INCOMPATIBLE: return "incompatible (made for another CPU, version or source)";
    }
    return "unknown status";
}
