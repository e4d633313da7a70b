/* Progress of long work (qmatmul bench, pack): one line on stderr, rewritten
 * in place, shown only when stderr is a terminal and not --quiet, so logs and
 * pipes get none of it. */
#ifndef QMM_TOOL_PROGRESS_H
#define QMM_TOOL_PROGRESS_H

/* Decides once per command whether progress is shown (before any line). */
void progress_init(int quiet);
/* Replaces the line with the formatted text (cut to the terminal line). */
void progress_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Clears the line, before other output on stderr or at the end. */
void progress_done(void);

#endif
