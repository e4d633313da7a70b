/* Numbers on the command line: the whole string is the number (no sign,
 * blank, suffix or empty string), in range; else a message naming the
 * option and what it takes, and the command exits with status 2. */
#ifndef QMM_TOOL_ARGS_H
#define QMM_TOOL_ARGS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* A decimal integer in [min, max] (min >= 0); 0 if parsed, else -1. */
static inline int qmm_arg_int(const char *cmd, const char *opt, const char *s, long long min, long long max, long long *out) {
    int ok = s && *s;
    for (const char *p = s; ok && *p; p++)
        ok = *p >= '0' && *p <= '9';
    long long v = 0;
    if (ok) {
        errno = 0;
        char *end = NULL;
        v = strtoll(s, &end, 10);
        ok = !errno && *end == 0 && v >= min && v <= max;
    }
    if (!ok) {
        fprintf(stderr, "qmatmul %s: %s takes an integer from %lld to %lld, not '%s'\n", cmd, opt, min, max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

/* A decimal number x with lo < x <= hi; 0 if parsed, else -1. */
static inline int qmm_arg_double(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    int ok = s && ((*s >= '0' && *s <= '9') || *s == '.');
    double v = 0;
    if (ok) {
        errno = 0;
        char *end = NULL;
        v = strtod(s, &end);
        ok = !errno && *end == 0 && isfinite(v) && v > lo && v <= hi;
    }
    if (!ok) {
        fprintf(stderr, "qmatmul %s: %s takes a number in (%g, %g], not '%s'\n", cmd, opt, lo, hi, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

#endif
