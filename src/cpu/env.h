/* Settings from the environment. Each is documented in docs/ENVIRONMENT.md.
 * A malformed value is warned about once and ignored. */
#ifndef QMM_ENV_H
#define QMM_ENV_H

/* Longest option string (QMM_KERNEL, QMM_HIDE_FEATURES and their qmm_options
 * fields): a longer one is refused, never cut. */
#define QMM_OPTION_STRING_MAX 255

typedef struct qmm_env {
    int sme;                                /* QMM_SME: -1 unset, 0 disables SME families, N caps SME threads */
    int threads;                            /* QMM_THREADS: thread-count hint at pack time, 0 unset */
    int chunk_multiplier;                   /* QMM_CHUNK_MULTIPLIER: 0 unset */
    int cap;                                /* QMM_CAP: cap every chain primary at N threads (hybrid testing), 0 unset */
    int log_level;                          /* QMM_LOG: -1 unset */
    char kernel[QMM_OPTION_STRING_MAX + 1]; /* QMM_KERNEL: "" unset; comma-separated family names */
    char hide[QMM_OPTION_STRING_MAX + 1];   /* QMM_HIDE_FEATURES: "" unset */
} qmm_env;

/* Reads QMM_* once per call (cheap); warnings are printed once per variable
 * and value per process. */
void qmm_env_read(qmm_env *env);

/* Parses a non-negative decimal integer <= max; returns 0 on success. */
int qmm_parse_uint(const char *s, int max, int *out);

#endif
