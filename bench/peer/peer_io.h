/* What every program of bench/peer shares, whichever library it drives (qmatmul
 * or ggml): exact-size file reads and writes, the list files the accuracy checks
 * hand over (one case a line), a monotonic clock, the median of samples, and the
 * last-level cache size. Header only (each peer is one translation unit, built by
 * bench/peer/build.sh); static inline, so a program that uses part of it gets no
 * unused-function warning. PEER_PROG names the program in messages. */
#ifndef QMM_PEER_IO_H
#define QMM_PEER_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PEER_PROG
#error "define PEER_PROG (the program's name, for messages) before including peer_io.h"
#endif

/* The whole of `path`, which must hold exactly `want` bytes (a size mismatch is
 * a generator/consumer disagreement: refuse it rather than read garbage). */
static inline void *peer_read_exact(const char *path, size_t want) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, PEER_PROG ": cannot open %s\n", path);
        return NULL;
    }
    void *p = malloc(want ? want : 1);
    const size_t got = p ? fread(p, 1, want, f) : 0;
    const int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != want || extra) {
        fprintf(stderr, PEER_PROG ": %s: expected exactly %zu bytes\n", path, want);
        free(p);
        return NULL;
    }
    return p;
}

/* 0 on success; a message on failure. */
static inline int peer_write_exact(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok)
        fprintf(stderr, PEER_PROG ": cannot write %s\n", path);
    return !ok;
}

/* The next case line of a list file into `line` (comments '#' and blank lines
 * skipped): 1, or 0 at the end. */
static inline int peer_list_next(FILE *f, char *line, size_t size) {
    while (fgets(line, (int)size, f))
        if (line[0] != '#' && line[strspn(line, " \t\r\n")] != 0)
            return 1;
    return 0;
}

static inline double peer_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int peer_cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts s and returns its median. */
static inline double peer_median(double *s, int n) {
    qsort(s, (size_t)n, sizeof *s, peer_cmp_double);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The largest cache of cpu0 (sysfs), 32 MiB if unknown: what decode timings
 * must rotate well past to read weights from memory. */
static inline size_t peer_detect_llc(void) {
    size_t best = 0;
    for (int i = 0; i < 8; i++) {
        char path[96], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        FILE *fp = fopen(path, "r");
        if (!fp)
            continue;
        if (fgets(buf, sizeof buf, fp)) {
            char *end;
            size_t v = strtoull(buf, &end, 10);
            if (*end == 'K')
                v <<= 10;
            else if (*end == 'M')
                v <<= 20;
            if (v > best)
                best = v;
        }
        fclose(fp);
    }
    return best ? best : (size_t)32 << 20;
}

/* xorshift64, uniform in [-1, 1): the bench inputs (values do not change kernel time). */
static inline float peer_rngf(uint64_t *state) {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (float)((double)(*state >> 40) * 0x1p-24 * 2.0 - 1.0);
}

#endif
