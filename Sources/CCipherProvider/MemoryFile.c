#define _GNU_SOURCE
#include "MemoryFile.h"

#include <errno.h>
#include <sys/mman.h>

#ifdef __linux__

int cipherfile_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}

#else

// Refused elsewhere (macOS has no memfd_create): a shm_open object takes no write() there,
// and a temporary file, even unlinked at once, puts plaintext on a disk, which is what this
// file exists to avoid. The caller reports the errno.
int cipherfile_memory_file(const char *name) {
    (void)name;
    errno = ENOSYS;
    return -1;
}

#endif
