#define _GNU_SOURCE
#include "MemoryFile.h"

#include <sys/mman.h>

int cipherfile_memory_file(const char *name) {
    return memfd_create(name, MFD_CLOEXEC);
}
