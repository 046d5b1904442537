/* An LD_PRELOAD shim that makes a disk fail for a window: while the file named
 * by $KEYSTAND_EIO_SWITCH exists, write(2) and friends and/or fsync(2) and
 * fdatasync(2) on descriptors of files under $KEYSTAND_EIO_DIR fail with EIO.
 *
 * The switch file's first word says what fails:
 *   fsync   fsync and fdatasync fail (the data written stays in the page cache
 *           and reaches the disk later: a failed write's bytes may be there)
 *   write   write, pwrite, writev fail before writing anything
 *   both    all of them
 * Anything else (or an empty file): both. No switch file: nothing fails.
 * If $KEYSTAND_EIO_COUNT names a file, each call failed adds one byte to it: a
 * test waits on it for the stand's next try instead of sleeping.
 *
 * Used by soak/edges.py and tests/test_journal_recovery.py (issue 35): built with
 * `gcc -shared -fPIC -O2 -o eio_shim.so eio_shim.c -ldl`. Only the stand's own
 * state dir is hit: its terminal, its pipes and the shown log write as usual. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { FAIL_WRITE = 1, FAIL_FSYNC = 2 };

/* What fails now for `fd`: 0 (nothing), FAIL_WRITE and/or FAIL_FSYNC. */
static int failing(int fd) {
    const char *dir = getenv("KEYSTAND_EIO_DIR");
    const char *switch_path = getenv("KEYSTAND_EIO_SWITCH");
    if (dir == NULL || switch_path == NULL || dir[0] == '\0') {
        return 0;
    }
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) {
        return 0;
    }
    target[n] = '\0';
    size_t len = strlen(dir);
    if (strncmp(target, dir, len) != 0 || (target[len] != '/' && target[len] != '\0')) {
        return 0;
    }
    int sw = open(switch_path, O_RDONLY | O_CLOEXEC);
    if (sw < 0) {
        return 0; /* the window is closed */
    }
    char word[16] = {0};
    ssize_t got = read(sw, word, sizeof word - 1);
    close(sw);
    if (got > 0 && strncmp(word, "fsync", 5) == 0) {
        return FAIL_FSYNC;
    }
    if (got > 0 && strncmp(word, "write", 5) == 0) {
        return FAIL_WRITE;
    }
    return FAIL_WRITE | FAIL_FSYNC;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*sync_fn)(int);

/* The libc function this one stands in front of. */
static void *real(const char *name) {
    return dlsym(RTLD_NEXT, name);
}

/* One call failed: a byte more in $KEYSTAND_EIO_COUNT (if set), then EIO. */
static int failed(void) {
    const char *path = getenv("KEYSTAND_EIO_COUNT");
    if (path != NULL && path[0] != '\0') {
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
        if (fd >= 0) {
            write_fn next = (write_fn)real("write");
            (void)next(fd, "x", 1);
            close(fd);
        }
    }
    errno = EIO;
    return -1;
}

ssize_t write(int fd, const void *buf, size_t count) {
    static write_fn next = NULL;
    if (next == NULL) {
        next = (write_fn)real("write");
    }
    if (failing(fd) & FAIL_WRITE) {
        return failed();
    }
    return next(fd, buf, count);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    static pwrite_fn next = NULL;
    if (next == NULL) {
        next = (pwrite_fn)real("pwrite");
    }
    if (failing(fd) & FAIL_WRITE) {
        return failed();
    }
    return next(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset) {
    static pwrite_fn next = NULL;
    if (next == NULL) {
        next = (pwrite_fn)real("pwrite64");
    }
    if (failing(fd) & FAIL_WRITE) {
        return failed();
    }
    return next(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    static writev_fn next = NULL;
    if (next == NULL) {
        next = (writev_fn)real("writev");
    }
    if (failing(fd) & FAIL_WRITE) {
        return failed();
    }
    return next(fd, iov, iovcnt);
}

int fsync(int fd) {
    static sync_fn next = NULL;
    if (next == NULL) {
        next = (sync_fn)real("fsync");
    }
    if (failing(fd) & FAIL_FSYNC) {
        return failed();
    }
    return next(fd);
}

int fdatasync(int fd) {
    static sync_fn next = NULL;
    if (next == NULL) {
        next = (sync_fn)real("fdatasync");
    }
    if (failing(fd) & FAIL_FSYNC) {
        return failed();
    }
    return next(fd);
}
