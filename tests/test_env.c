/* Settings from the environment: each variable's effect, malformed values
 * ignored with one warning, and options overriding the environment. */
#include <stdlib.h>
#include <unistd.h>

#include "cpu/env.h"
#include "qmatmul.h"
#include "test_util.h"

static char desc[8192];

static const char *describe(void) {
    qmm_context *ctx = NULL;
    qmm_status st = qmm_context_create(NULL, &ctx);
    CHECK(st == QMM_OK, "context: %s", qmm_last_error());
    desc[0] = 0;
    if (ctx)
        qmm_context_describe(ctx, 1, desc, sizeof desc);
    qmm_context_free(ctx);
    return desc;
}

static void clear_env(void) {
    const char *vars[] = {"QMM_SME", "QMM_THREADS", "QMM_CHUNK_MULTIPLIER", "QMM_KERNEL",
                          "QMM_LOG", "QMM_CAP",     "QMM_HIDE_FEATURES"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i]);
}

/* Counts lines containing `needle` that stderr received while fn ran. */
static int count_stderr(void (*fn)(void), const char *needle) {
    char path[] = "/tmp/qmm_test_env_XXXXXX";
    int fd = mkstemp(path);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    lseek(fd, 0, SEEK_SET);
    char buf[8192];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    unlink(path);
    buf[n > 0 ? n : 0] = 0;
    int count = 0;
    for (char *p = buf; (p = strstr(p, needle)); p++)
        count++;
    return count;
}

static void two_contexts(void) {
    describe();
    describe();
}

int main(void) {
    int v = -1;
    CHECK(qmm_parse_uint("0", 10, &v) == 0 && v == 0, "parse 0");
    CHECK(qmm_parse_uint("10", 10, &v) == 0 && v == 10, "parse 10");
    const char *bad[] = {"", "-1", "1x", " 5", "5 ", "11", "99999999999999999999", "0x10", "+3", "1.5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(qmm_parse_uint(bad[i], 10, &v) != 0, "'%s' parsed as a number", bad[i]);

    clear_env();
    CHECK(strstr(describe(), "\"chunk_multiplier\": 4") != NULL, "default chunk multiplier 4");

    setenv("QMM_CHUNK_MULTIPLIER", "7", 1);
    CHECK(strstr(describe(), "\"chunk_multiplier\": 7") != NULL, "QMM_CHUNK_MULTIPLIER=7");
    setenv("QMM_CHUNK_MULTIPLIER", "seven", 1);
    CHECK(strstr(describe(), "\"chunk_multiplier\": 4") != NULL, "malformed QMM_CHUNK_MULTIPLIER ignored");
    setenv("QMM_CHUNK_MULTIPLIER", "sevenish", 1);
    CHECK(count_stderr(two_contexts, "QMM_CHUNK_MULTIPLIER") == 1, "a malformed value is warned about exactly once");
    clear_env();

    setenv("QMM_KERNEL", "ref_q4_0,ref_f16", 1);
    const char *d = describe();
    CHECK(strstr(d, "\"Q4_0\": {\"primary\": \"ref_q4_0\"") != NULL, "QMM_KERNEL forces Q4_0: %s", d);
    CHECK(strstr(d, "\"F16\": {\"primary\": \"ref_f16\"") != NULL, "QMM_KERNEL forces F16");
    setenv("QMM_KERNEL", "no_such_family", 1);
    CHECK(count_stderr(two_contexts, "no_such_family") >= 1, "unknown QMM_KERNEL is warned about");
    clear_env();

    setenv("QMM_HIDE_FEATURES", "avx2,fma,f16c,neon,dotprod", 1);
    d = describe();
    CHECK(strstr(d, "\"avx2\"") == NULL && strstr(d, "\"dotprod\"") == NULL, "hidden features are not reported");
    clear_env();

    setenv("QMM_LOG", "loud", 1);
    CHECK(count_stderr(two_contexts, "QMM_LOG") == 1, "malformed QMM_LOG warned once");
    setenv("QMM_LOG", "debug", 1);
    CHECK(count_stderr(two_contexts, "primary") >= 4, "QMM_LOG=debug logs the selected chains");
    clear_env();

    setenv("QMM_SME", "-3", 1);
    CHECK(count_stderr(two_contexts, "QMM_SME") == 1, "malformed QMM_SME warned once");
    clear_env();

    /* options override the environment: options.kernel replaces QMM_KERNEL */
    qmm_options o;
    memset(&o, 0, sizeof o);
    qmm_context *ctx;
    const char *p = NULL, *f = NULL, *auto_q4 = NULL;
    CHECK_OK(qmm_context_create(&o, &ctx));
    qmm_context_chain(ctx, QMM_TYPE_Q4_0, &auto_q4, &f);
    qmm_context_free(ctx);
    setenv("QMM_KERNEL", "ref_q4_0", 1);
    o.kernel = "ref_q8_0";
    CHECK_OK(qmm_context_create(&o, &ctx));
    qmm_context_chain(ctx, QMM_TYPE_Q8_0, &p, &f);
    CHECK(p && strcmp(p, "ref_q8_0") == 0, "options.kernel");
    qmm_context_chain(ctx, QMM_TYPE_Q4_0, &p, &f);
    CHECK(p && auto_q4 && strcmp(p, auto_q4) == 0, "QMM_KERNEL applied although options.kernel is set");
    qmm_context_free(ctx);
    o.kernel = "bogus";
    CHECK(qmm_context_create(&o, &ctx) == QMM_ERR_INVALID_ARG, "options.kernel unknown is an error");
    o.kernel = NULL;
    o.hide_features = "avx9000";
    CHECK(qmm_context_create(&o, &ctx) == QMM_ERR_INVALID_ARG, "options.hide_features unknown is an error");
    o.hide_features = NULL;

    /* option strings are taken whole or refused, never cut: 255 characters
     * are the most (empty tokens pad them here) */
    char longs[400];
    const char *p8 = NULL;
    unsetenv("QMM_KERNEL");
    char *defaults = strdup(describe()); /* the chains this CPU gets without QMM_KERNEL */
    memset(longs, ',', sizeof longs);
    memcpy(longs, "ref_q4_0", 8);
    memcpy(longs + 255 - 8, "ref_q8_0", 8);
    longs[255] = 0;
    o.kernel = longs;
    CHECK_OK(qmm_context_create(&o, &ctx));
    qmm_context_chain(ctx, QMM_TYPE_Q8_0, &p8, &f);
    CHECK(p8 && strcmp(p8, "ref_q8_0") == 0, "options.kernel of 255 characters: its last name is not applied");
    qmm_context_free(ctx);
    memset(longs, ',', sizeof longs);
    memcpy(longs, "ref_q4_0", 8);
    memcpy(longs + 256, "ref_q8_0", 9); /* past what a 255-character cut keeps */
    ctx = NULL;
    CHECK(qmm_context_create(&o, &ctx) == QMM_ERR_INVALID_ARG && ctx == NULL, "options.kernel of 264 characters accepted");
    CHECK(strstr(qmm_last_error(), "255") != NULL, "no limit in the message: %s", qmm_last_error());
    qmm_context_free(ctx);
    o.kernel = NULL;
    memset(longs, ',', sizeof longs);
    memcpy(longs, "fma", 3);
    memcpy(longs + 256, "avx2,dotprod", 13);
    o.hide_features = longs;
    ctx = NULL;
    CHECK(qmm_context_create(&o, &ctx) == QMM_ERR_INVALID_ARG && ctx == NULL, "options.hide_features of 268 characters accepted");
    qmm_context_free(ctx);
    memcpy(longs + 255 - 12, "avx2,dotprod", 13);
    CHECK_OK(qmm_context_create(&o, &ctx));
    if (ctx) {
        qmm_context_describe(ctx, 1, desc, sizeof desc);
        CHECK(strstr(desc, "\"avx2\"") == NULL && strstr(desc, "\"dotprod\"") == NULL,
              "options.hide_features of 255 characters: its last names are not applied");
    }
    qmm_context_free(ctx);
    o.hide_features = NULL;
    /* the environment's forms: the same 255 characters accepted; longer
     * refused with a warning that names the limit */
    memset(longs, ',', sizeof longs);
    memcpy(longs, "ref_q4_0", 8);
    memcpy(longs + 255 - 8, "ref_q8_0", 8);
    longs[255] = 0;
    setenv("QMM_KERNEL", longs, 1);
    d = describe();
    CHECK(strstr(d, "\"Q8_0\": {\"primary\": \"ref_q8_0\"") != NULL, "QMM_KERNEL of 255 characters not applied");
    longs[255] = ',';
    longs[256] = 0;
    setenv("QMM_KERNEL", longs, 1);
    CHECK(count_stderr(two_contexts, "QMM_KERNEL='(too long)': expected at most 255 characters") == 1,
          "QMM_KERNEL of 256 characters: one warning naming the limit");
    d = describe();
    /* ignored whole: every chain as without it (on a CPU whose Q8_0 primary is
     * the reference anyway, only the comparison with the defaults tells) */
    CHECK(defaults && strcmp(d, defaults) == 0, "QMM_KERNEL of 256 characters applied in part");
    free(defaults);
    clear_env();
    memset(longs, ',', sizeof longs);
    memcpy(longs + 256, "avx2,dotprod", 13);
    setenv("QMM_HIDE_FEATURES", longs, 1);
    CHECK(count_stderr(two_contexts, "QMM_HIDE_FEATURES='(too long)': expected at most 255 characters") == 1,
          "QMM_HIDE_FEATURES of 268 characters: one warning naming the limit");
    clear_env();

    o.n_threads = -1;
    CHECK(qmm_context_create(&o, &ctx) == QMM_ERR_INVALID_ARG, "negative threads");
    clear_env();
    return qmm_test_summary();
}
