/* A bounded text buffer for the describe/format functions: appends never
 * overrun, the text stays NUL-terminated, and len counts what would have been
 * written, so len >= cap says the text was cut. */
#ifndef QMM_BASE_STRBUF_H
#define QMM_BASE_STRBUF_H

#include <stddef.h>

#include "base/error.h"

typedef struct qmm_strbuf {
    char *buf;
    size_t cap, len;
} qmm_strbuf;

static inline qmm_strbuf qmm_strbuf_make(char *buf, size_t cap) {
    if (buf && cap)
        buf[0] = 0;
    return (qmm_strbuf){buf, cap, 0};
}
void qmm_strbuf_put(qmm_strbuf *b, const char *s, size_t n);
void qmm_strbuf_printf(qmm_strbuf *b, const char *fmt, ...) QMM_PRINTF(2, 3);

#endif
