#define _GNU_SOURCE 1  // O_DIRECT, fallocate

#include "DirectFile.h"

#include <errno.h>
#include <fcntl.h>

int cipherfile_open_direct(const char *path) {
#if defined(__linux__) && defined(O_DIRECT)
    return open(path, O_WRONLY | O_CLOEXEC | O_DIRECT);
#else
    (void)path;
    return -1;
#endif
}

int cipherfile_preallocate(int descriptor, int64_t length) {
#ifdef __linux__
    return fallocate(descriptor, 0, 0, (off_t)length) == 0 ? 0 : errno;
#else
    (void)descriptor, (void)length;
    return EOPNOTSUPP;
#endif
}
