#define _GNU_SOURCE
#include "FileLocks.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

// SQLite's lock bytes (os_unix.c): PENDING, then RESERVED, then the 510-byte SHARED range.
static const off_t pending_byte = 0x40000000;
static const off_t reserved_byte = pending_byte + 1;
static const off_t shared_first = pending_byte + 2;
static const off_t shared_size = 510;

#ifdef F_OFD_SETLK
#define SET_LOCK F_OFD_SETLK
#define GET_LOCK F_OFD_GETLK
#else
// Without open-file-description locks (macOS): POSIX locks. They conflict with SQLite's in
// the same way, but this process's close of any other descriptor of the file drops them, so
// the reader's lock is weaker there (see docs/platforms.md). Testing another process's
// RESERVED lock is the same with either.
#define SET_LOCK F_SETLK
#define GET_LOCK F_GETLK
#endif

static int ofd_lock(int fd, short type, off_t start, off_t length) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = start;
    lock.l_len = length;
    return fcntl(fd, SET_LOCK, &lock);
}

static int busy(void) {
    return errno == EAGAIN || errno == EACCES;
}

int cipherfile_shared_lock(int fd, int gated) {
    // The PENDING byte first, as SQLite's readers do, so a writer waiting for readers to
    // finish is not starved by new ones.
    if (gated && ofd_lock(fd, F_RDLCK, pending_byte, 1) != 0) return busy() ? 1 : -1;
    int held = ofd_lock(fd, F_RDLCK, shared_first, shared_size);
    int saved = errno;
    if (gated) ofd_lock(fd, F_UNLCK, pending_byte, 1);
    errno = saved;
    if (held != 0) return busy() ? 1 : -1;
    return 0;
}

int cipherfile_reserved_lock_held(int fd) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = reserved_byte;
    lock.l_len = 1;
    if (fcntl(fd, GET_LOCK, &lock) != 0) return -1;
    return lock.l_type != F_UNLCK;
}

int cipherfile_exclusive_lock(int fd) {
    // PENDING first, as SQLite's writers do: new readers stop coming while the others leave.
    if (ofd_lock(fd, F_WRLCK, pending_byte, 1) != 0) return busy() ? 1 : -1;
    if (ofd_lock(fd, F_WRLCK, reserved_byte, 1) == 0 && ofd_lock(fd, F_WRLCK, shared_first, shared_size) == 0) return 0;
    int saved = errno;
    ofd_lock(fd, F_UNLCK, pending_byte, 2);
    errno = saved;
    return busy() ? 1 : -1;
}
