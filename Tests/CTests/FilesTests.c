// The file helpers on the running system: a memory file with no name, SQLite's reader lock
// taken as a lock that survives the close of another descriptor, the writer's RESERVED lock
// seen from outside, and extended attributes.

#define _GNU_SOURCE
#include "CTest.h"
#include "CipherProvider.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

enum { PENDING = 0x40000000, RESERVED = PENDING + 1, SHARED_FIRST = PENDING + 2 };

static void memory_file(void) {
    unsigned char data[10000], back[10000];
    struct stat status;
    ctest_random(data, sizeof data);
#ifndef __linux__
    // Refused elsewhere, with the errno the caller reports (see MemoryFile.c).
    CHECK(cipherfile_memory_file("ctest") == -1 && errno == ENOSYS);
    return;
#endif
    int fd = cipherfile_memory_file("ctest");
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(write(fd, data, sizeof data) == (ssize_t)sizeof data);
    CHECK(pread(fd, back, sizeof back, 0) == (ssize_t)sizeof back && memcmp(data, back, sizeof data) == 0);
    CHECK(fstat(fd, &status) == 0 && status.st_nlink == 0 && status.st_size == (off_t)sizeof data);  // no name anywhere
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    close(fd);
}

// A child that takes a POSIX write lock on [start, start + length) of `path`, as another
// SQLite process would, and holds it until killed. Returns its pid once the lock is held
// (or refused: then the child writes 0), -1 on failure.
static pid_t hold_lock(const char *path, off_t start, off_t length, int *taken) {
    int ready[2];
    if (pipe(ready) != 0) return -1;
    pid_t child = fork();
    if (child == 0) {
        int fd = open(path, O_RDWR);
        struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = start, .l_len = length};
        char held = fd >= 0 && fcntl(fd, F_SETLK, &lock) == 0;
        if (write(ready[1], &held, 1) != 1) _exit(1);
        pause();
        _exit(0);
    }
    char held = 0;
    *taken = child > 0 && read(ready[0], &held, 1) == 1 && held;
    close(ready[0]);
    close(ready[1]);
    return child;
}

static void release(pid_t child) {
    if (child <= 0) return;
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
}

static void locks(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), taken = 0;
    CHECK(fd >= 0 && cipherfile_reserved_lock_held(fd) == 0);
    pid_t writer = hold_lock(path, RESERVED, 1, &taken);
    CHECK(taken && cipherfile_reserved_lock_held(fd) == 1);
    release(writer);
    writer = hold_lock(path, PENDING, 1, &taken);  // a writer about to take the file
    CHECK(taken && cipherfile_shared_lock(fd, 1) == 1);
    // Ungated (the caller holds the file already), the writer's PENDING does not stop it.
    int second = open(path, O_RDONLY);
    CHECK(second >= 0 && cipherfile_shared_lock(second, 0) == 0);
    close(second);
    release(writer);
    CHECK(cipherfile_shared_lock(fd, 1) == 0);
#ifdef F_OFD_SETLK
    // Another descriptor on the file opened and closed: a POSIX lock would be gone now.
    close(open(path, O_RDONLY));
#endif
    writer = hold_lock(path, SHARED_FIRST, 510, &taken);
    CHECK(!taken);
    release(writer);
    close(fd);
    writer = hold_lock(path, SHARED_FIRST, 510, &taken);
    CHECK(taken);  // closing the lock's own descriptor releases it
    release(writer);
}

// The rotation's EXCLUSIVE lock: refused while another process holds any byte of the SHARED
// range (and leaves nothing held then), and, once held, keeps writers out until its
// descriptor is closed.
static void exclusive_lock(const char *path) {
    int fd = open(path, O_RDWR), taken = 0;
    pid_t other = hold_lock(path, SHARED_FIRST + 7, 1, &taken);
    CHECK(fd >= 0 && taken && cipherfile_exclusive_lock(fd) == 1);
    release(other);
    other = hold_lock(path, PENDING, 2, &taken);
    CHECK(taken);  // the refused attempt let go of PENDING and RESERVED
    release(other);
    CHECK(cipherfile_exclusive_lock(fd) == 0);
    other = hold_lock(path, RESERVED, 1, &taken);
    CHECK(!taken);
    release(other);
    close(fd);
    other = hold_lock(path, SHARED_FIRST, 510, &taken);
    CHECK(taken);
    release(other);
}

static void attributes(const char *path) {
    CHECK(cipherfile_has_extended_attributes("/nonexistent/ctest") == 0);
    int before = cipherfile_has_extended_attributes(path);
    if (setxattr(path, "user.ctest", "x", 1, 0) != 0) {
        printf("files: this file system keeps no user attributes (%s); that check skipped\n", strerror(errno));
        return;
    }
    CHECK(cipherfile_has_extended_attributes(path) == 1);
    CHECK(removexattr(path, "user.ctest") == 0 && cipherfile_has_extended_attributes(path) == before);
}

int main(int argc, char **argv) {
    char path[4096];
    snprintf(path, sizeof path, "%s/ctest-files-%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    memory_file();
    locks(path);
    exclusive_lock(path);
    attributes(path);
    unlink(path);
    return ctest_finish("files");
}
