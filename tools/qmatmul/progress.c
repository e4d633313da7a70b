/* One updating progress line on stderr (see progress.h). */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int shown = -1; /* -1: not decided yet (then: a terminal, not quiet) */
static int dirty;      /* a line is on the screen */

void progress_init(int quiet) { shown = !quiet && isatty(2); }

void progress_line(const char *fmt, ...) {
    if (shown < 0)
        progress_init(0);
    if (!shown)
        return;
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r%-100.100s", buf);
    fflush(stderr);
    dirty = 1;
}

void progress_done(void) {
    if (shown > 0 && dirty)
        fprintf(stderr, "\r%100s\r", "");
    dirty = 0;
}
