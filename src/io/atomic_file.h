/* Crash-safe file replacement: a new file is written under a temporary name
 * next to its destination, synced, then renamed over it, so the destination
 * is always either the old file or the complete new one.
 *
 * The temporary is "<out>.tmp.<pid>.<n>", flock()ed for as long as it is
 * open: the mark of a live writer. It begins with QMM_ATOMIC_TEMP_MARKER
 * until the header is written at commit. Beginning a write removes the
 * temporaries of earlier writers to the same destination whose lock can be
 * taken (they were killed before renaming) and that begin with the marker:
 * a user's file that only has such a name is never touched. The destination must be a new path or a
 * regular file (a device, FIFO, socket or directory is refused before
 * anything is written; a symbolic link is replaced, not followed), and never
 * the writer's own source file (compared by device and inode). */
#ifndef QMM_ATOMIC_FILE_H
#define QMM_ATOMIC_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "qmatmul.h"

/* The first bytes of a temporary until its header is written. */
#define QMM_ATOMIC_TEMP_MARKER     "QMM~TEMP"
#define QMM_ATOMIC_TEMP_MARKER_LEN 8

typedef struct qmm_atomic_file {
    int fd;
    char *tmp;              /* the temporary's path */
    const char *out_path;   /* the destination */
    const struct stat *src; /* the source file (never replaced), or NULL */
    const char *src_path;
} qmm_atomic_file;

/* Whether out_path may be replaced (see above); src may be NULL. */
qmm_status qmm_atomic_file_check(const char *out_path, const struct stat *src, const char *src_path);
/* Checks the destination, removes stale temporaries, creates and locks the
 * temporary. On failure nothing is left behind. */
qmm_status qmm_atomic_file_begin(qmm_atomic_file *f, const char *out_path, const struct stat *src, const char *src_path);
/* pwrite of n bytes at off, whole (retries short writes and EINTR). */
qmm_status qmm_atomic_file_write(qmm_atomic_file *f, const void *buf, size_t n, uint64_t off);
/* Sizes the file, syncs the body, writes the header bytes at offset 0 last
 * (a file whose header is complete is complete), syncs, checks the
 * destination again, renames, and syncs the directory. Always ends f. */
qmm_status qmm_atomic_file_commit(qmm_atomic_file *f, uint64_t size, const void *header, size_t header_size);
/* Removes the temporary and ends f. */
void qmm_atomic_file_abort(qmm_atomic_file *f);

#endif
