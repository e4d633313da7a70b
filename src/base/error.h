/* Error messages (per thread) and logging. */
#ifndef QMM_BASE_ERROR_H
#define QMM_BASE_ERROR_H

#include "qmatmul.h"

#if defined(__GNUC__)
#define QMM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define QMM_PRINTF(a, b)
#endif

/* Records a message for qmm_last_error() and returns status. */
qmm_status qmm_fail(qmm_status status, const char *fmt, ...) QMM_PRINTF(2, 3);
void qmm_set_error(const char *fmt, ...) QMM_PRINTF(1, 2);
void qmm_clear_error(void);
/* Re-raises the last error with context: fmt has two %s, what and then the
 * previous message (copied first: the message buffer is reused). */
qmm_status qmm_fail_prefixed(qmm_status status, const char *fmt, const char *what);
/* QMM_OK if the n words of a public struct's reserved tail are zero, else
 * QMM_ERR_INVALID_ARG naming the struct (what). */
qmm_status qmm_check_reserved(const uint64_t *reserved, int n, const char *what);

/* Levels: QMM_LOG_* (qmatmul.h). Messages go to the qmm_set_log_callback
 * callback, or stderr. */
void qmm_log_set_level(int level);
int qmm_log_level(void);
void qmm_log(int level, const char *fmt, ...) QMM_PRINTF(2, 3);

#endif
