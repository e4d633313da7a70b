/* The floating-point environment every computation runs in: round to
 * nearest, no flushing of subnormals (inputs or results). The caller's
 * thread, the pool's workers (created with whatever environment the creating
 * thread had) and the threads of a caller's own pool may each be in another
 * mode; every entry point that computes switches its thread into this one
 * and gives the thread's own back, so results never depend on it.
 *
 * Only the control bits are touched: the exception masks stay as the caller
 * set them, and exception flags raised during the call stay raised (as if
 * the caller had computed in this environment). */
#ifndef QMM_FPENV_H
#define QMM_FPENV_H

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
/* MXCSR: rounding control (bits 13-14), flush-to-zero (15), denormals-are-zero (6) */
#define QMM_FPENV_MASK 0xe040u
typedef unsigned qmm_fpenv_word;
static inline qmm_fpenv_word qmm_fpenv_read(void) { return _mm_getcsr(); }
static inline void qmm_fpenv_write(qmm_fpenv_word v) { _mm_setcsr(v); }
#elif defined(__aarch64__)
/* FPCR: RMode (bits 22-23), FZ (24), FZ16 (19), AH (1) and FIZ (0) of FEAT_AFP
 * (RES0 without it: writing 0 there is always allowed) */
#define QMM_FPENV_MASK ((3ull << 22) | (1ull << 24) | (1ull << 19) | 3ull)
typedef uint64_t qmm_fpenv_word;
static inline qmm_fpenv_word qmm_fpenv_read(void) {
    uint64_t v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v));
    return v;
}
static inline void qmm_fpenv_write(qmm_fpenv_word v) { __asm__ volatile("msr fpcr, %0" : : "r"(v) : "memory"); }
#else
/* elsewhere: the rounding mode through <fenv.h> (no flushing modes known) */
#include <fenv.h>
#define QMM_FPENV_PORTABLE 1
#endif

typedef struct qmm_fpenv {
    int changed;
#ifdef QMM_FPENV_PORTABLE
    int round;
#else
    qmm_fpenv_word saved;
#endif
} qmm_fpenv;

/* Switches this thread to the library's environment; saves the caller's. */
static inline void qmm_fpenv_enter(qmm_fpenv *e) {
#ifdef QMM_FPENV_PORTABLE
    e->round = fegetround();
    e->changed = e->round != FE_TONEAREST;
    if (e->changed)
        fesetround(FE_TONEAREST);
#else
    e->saved = qmm_fpenv_read();
    e->changed = (e->saved & QMM_FPENV_MASK) != 0;
    if (e->changed)
        qmm_fpenv_write(e->saved & ~(qmm_fpenv_word)QMM_FPENV_MASK);
#endif
}

/* Gives this thread its caller's control bits back (flags raised stay). */
static inline void qmm_fpenv_leave(const qmm_fpenv *e) {
    if (!e->changed)
        return;
#ifdef QMM_FPENV_PORTABLE
    fesetround(e->round);
#else
    qmm_fpenv_write((qmm_fpenv_read() & ~(qmm_fpenv_word)QMM_FPENV_MASK) | (e->saved & QMM_FPENV_MASK));
#endif
}

#endif
