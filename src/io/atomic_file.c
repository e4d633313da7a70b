#include "io/atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/error.h"

static qmm_status write_all(int fd, const void *buf, size_t n, uint64_t off, const char *path) {
    const uint8_t *p = buf;
    while (n) {
        const size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        const ssize_t w = pwrite(fd, p, chunk, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return qmm_fail(QMM_ERR_IO, "writing '%s': %s", path, w < 0 ? strerror(errno) : "no progress");
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return QMM_OK;
}

static atomic_uint tmp_counter;

static const char *file_kind(mode_t m) {
    return S_ISDIR(m)    ? "directory"
           : S_ISCHR(m)  ? "character device"
           : S_ISBLK(m)  ? "block device"
           : S_ISFIFO(m) ? "FIFO"
           : S_ISSOCK(m) ? "socket"
                         : "special file";
}

/* The rename replaces whatever is at out_path; stat() follows symbolic
 * links, so a link to a device is refused too, and links to the source (hard
 * or symbolic) are the source. */
qmm_status qmm_atomic_file_check(const char *out_path, const struct stat *src, const char *src_path) {
    struct stat sb;
    if (stat(out_path, &sb) != 0) {
        if (errno == ENOENT)
            return QMM_OK; /* a new file (or a dangling link, which the rename replaces) */
        return qmm_fail(QMM_ERR_IO, "cannot check the output path '%s': %s", out_path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return qmm_fail(QMM_ERR_INVALID_ARG, "output '%s' is a %s, not a regular file: refusing to replace it", out_path,
                        file_kind(sb.st_mode));
    if (src && sb.st_dev == src->st_dev && sb.st_ino == src->st_ino)
        return qmm_fail(QMM_ERR_INVALID_ARG,
                        "output '%s' is the source GGUF '%s' itself (the same file): refusing to overwrite the model", out_path,
                        src_path);
    return QMM_OK;
}

/* Whether name is "<base>.tmp.<digits>.<digits>", the writer's temporary
 * name for a destination of basename base. */
static int is_temp_name(const char *name, const char *base, size_t blen) {
    if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp.", 5) != 0)
        return 0;
    const char *p = name + blen + 5;
    for (int part = 0; part < 2; part++) {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (part == 0 && *p++ != '.')
            return 0;
    }
    return *p == 0;
}

static int same_file(const struct stat *a, const struct stat *b) { return a->st_dev == b->st_dev && a->st_ino == b->st_ino; }

/* Removes the temporaries of earlier writers to out_path that died (killed,
 * crashed) before renaming: a live writer holds an flock on its temporary,
 * so a temporary whose lock can be taken is abandoned. Best effort: what
 * cannot be checked (no lock support, no permission) is left alone. */
static void remove_stale_temps(const char *out_path, const struct stat *src) {
    const char *slash = strrchr(out_path, '/');
    const char *base = slash ? slash + 1 : out_path;
    const size_t blen = strlen(base);
    char *dpath = !slash ? strdup(".") : slash == out_path ? strdup("/") : strndup(out_path, (size_t)(slash - out_path));
    DIR *d = blen && dpath ? opendir(dpath) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!is_temp_name(de->d_name, base, blen))
            continue;
        const size_t tlen = strlen(dpath) + strlen(de->d_name) + 2;
        char *tp = malloc(tlen);
        if (!tp)
            break;
        snprintf(tp, tlen, "%s/%s", dpath, de->d_name);
        struct stat ls, fs;
        /* O_NONBLOCK: never wait on a FIFO that took a temporary's name */
        const int fd = lstat(tp, &ls) == 0 && S_ISREG(ls.st_mode) && !(src && same_file(&ls, src))
                           ? open(tp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
                           : -1;
        char head[QMM_ATOMIC_TEMP_MARKER_LEN];
        if (fd >= 0) {
            /* locked by us, still the file under that name, and one of ours
             * (the marker): abandoned */
            if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &fs) == 0 && lstat(tp, &ls) == 0 && same_file(&fs, &ls) &&
                S_ISREG(fs.st_mode) && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
                memcmp(head, QMM_ATOMIC_TEMP_MARKER, sizeof head) == 0 && unlink(tp) == 0)
                qmm_log(QMM_LOG_INFO, "removed '%s', the temporary file of a writer that did not finish", tp);
            close(fd);
        }
        free(tp);
    }
    if (d)
        closedir(d);
    free(dpath);
}

/* Creates the temporary file next to out_path (so rename is atomic) and
 * flock()s it for as long as it is open: the mark of a live writer. */
static int create_temp(const char *out_path, char *tmp, size_t tmp_size) {
    for (int tries = 0; tries < 100; tries++) {
        snprintf(tmp, tmp_size, "%s.tmp.%ld.%u", out_path, (long)getpid(), atomic_fetch_add(&tmp_counter, 1));
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            if (errno == EEXIST)
                continue;
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            if (errno == EWOULDBLOCK) { /* a cleaner holds it and removes it: another name */
                close(fd);
                continue;
            }
            return fd; /* no locks on this file system: write unlocked (never cleaned as stale) */
        }
        /* a cleaner may have removed it between the create and the lock */
        struct stat fs, ls;
        if (fstat(fd, &fs) == 0 && lstat(tmp, &ls) == 0 && same_file(&fs, &ls)) {
            /* the mark of a temporary of ours, for a later cleaner */
            if (write_all(fd, QMM_ATOMIC_TEMP_MARKER, QMM_ATOMIC_TEMP_MARKER_LEN, 0, tmp) == QMM_OK)
                return fd;
            const int err = errno ? errno : EIO; /* the write's, for the caller's message */
            unlink(tmp);
            close(fd);
            errno = err;
            return -1;
        }
        close(fd);
    }
    errno = EEXIST;
    return -1;
}

qmm_status qmm_atomic_file_begin(qmm_atomic_file *f, const char *out_path, const struct stat *src, const char *src_path) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    qmm_status st = qmm_atomic_file_check(out_path, src, src_path);
    if (st)
        return st;
    const size_t tmp_size = strlen(out_path) + 64;
    f->tmp = malloc(tmp_size);
    if (!f->tmp)
        return qmm_fail(QMM_ERR_NO_MEMORY, "temporary file name");
    f->out_path = out_path;
    f->src = src;
    f->src_path = src_path;
    remove_stale_temps(out_path, src);
    f->fd = create_temp(out_path, f->tmp, tmp_size);
    if (f->fd < 0) {
        st = qmm_fail(QMM_ERR_IO, "cannot create '%s': %s", f->tmp, strerror(errno));
        free(f->tmp);
        f->tmp = NULL;
        return st;
    }
    return QMM_OK;
}

qmm_status qmm_atomic_file_write(qmm_atomic_file *f, const void *buf, size_t n, uint64_t off) {
    return write_all(f->fd, buf, n, off, f->tmp);
}

void qmm_atomic_file_abort(qmm_atomic_file *f) {
    if (f->tmp)
        unlink(f->tmp);
    if (f->fd >= 0)
        close(f->fd);
    free(f->tmp);
    f->tmp = NULL;
    f->fd = -1;
}

static void sync_parent_dir(const char *path) {
    char *dir = strdup(path);
    if (!dir)
        return;
    char *slash = strrchr(dir, '/');
    const char *d = slash ? (slash == dir ? "/" : (*slash = 0, dir)) : ".";
    const int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(dir);
}

qmm_status qmm_atomic_file_commit(qmm_atomic_file *f, uint64_t size, const void *header, size_t header_size) {
    qmm_status st = QMM_OK;
    if (ftruncate(f->fd, (off_t)size) != 0)
        st = qmm_fail(QMM_ERR_IO, "sizing '%s': %s", f->tmp, strerror(errno));
    else if (fdatasync(f->fd) != 0)
        st = qmm_fail(QMM_ERR_IO, "syncing '%s': %s", f->tmp, strerror(errno));
    else if ((st = write_all(f->fd, header, header_size, 0, f->tmp)))
        ;
    else if (fsync(f->fd) != 0)
        st = qmm_fail(QMM_ERR_IO, "syncing '%s': %s", f->tmp, strerror(errno));
    /* again: the destination may have changed during the write */
    else if ((st = qmm_atomic_file_check(f->out_path, f->src, f->src_path)))
        ;
    /* renamed while still open, so locked: a cleaner never takes a finished
     * temporary for an abandoned one */
    else if (rename(f->tmp, f->out_path) != 0)
        st = qmm_fail(QMM_ERR_IO, "renaming '%s' to '%s': %s", f->tmp, f->out_path, strerror(errno));
    if (st) {
        qmm_atomic_file_abort(f);
        return st;
    }
    close(f->fd); /* fsync reported any write-back error already */
    f->fd = -1;
    free(f->tmp);
    f->tmp = NULL;
    sync_parent_dir(f->out_path); /* makes the rename durable */
    return QMM_OK;
}
