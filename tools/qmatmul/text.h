/* Text read from files (GGUF keys, tensor names, cache family names) shown on
 * a terminal: control characters and backslashes escaped as GGUF string
 * values already are (\xNN, \\), so a crafted name cannot move the cursor,
 * clear the screen or forge a line of output. */
#ifndef QMM_TOOL_TEXT_H
#define QMM_TOOL_TEXT_H

#include <stdio.h>
#include <string.h>

/* s escaped into buf (cut with "..." when it does not fit); returns buf. */
static inline const char *qmm_tool_escape(const char *s, char *buf, size_t size) {
    size_t n = 0;
    for (; s && *s; s++) {
        const unsigned char c = (unsigned char)*s;
        char piece[8];
        const int len = c == '\\'               ? snprintf(piece, sizeof piece, "\\\\")
                        : c < 0x20 || c == 0x7f ? snprintf(piece, sizeof piece, "\\x%02x", c)
                                                : snprintf(piece, sizeof piece, "%c", c);
        if (n + (size_t)len + 4 > size) {
            if (size >= 4)
                memcpy(buf + (n < size - 4 ? n : size - 4), "...", 4);
            return buf;
        }
        memcpy(buf + n, piece, (size_t)len);
        n += (size_t)len;
    }
    if (size)
        buf[n] = 0;
    return buf;
}

#endif
