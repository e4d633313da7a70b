#include "base/strbuf.h"

#include <stdarg.h>
#include <stdio.h>

void qmm_strbuf_put(qmm_strbuf *b, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++, b->len++)
        if (b->len + 1 < b->cap)
            b->buf[b->len] = s[i];
    if (b->cap)
        b->buf[b->len < b->cap ? b->len : b->cap - 1] = 0;
}

void qmm_strbuf_printf(qmm_strbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const size_t room = b->len < b->cap ? b->cap - b->len : 0;
    const int n = vsnprintf(room ? b->buf + b->len : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}
