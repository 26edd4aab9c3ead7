#ifndef CIPHERCTL_MEMORY_FILE_H
#define CIPHERCTL_MEMORY_FILE_H

// A file that lives in memory only (memfd_create, Linux): no name in any file system, gone
// when its last descriptor closes. For plaintext that must never touch a disk. The
// descriptor is close-on-exec; a child gets it through an explicit dup2. Returns the
// descriptor, or -1 with errno set (ENOSYS on systems other than Linux: see MemoryFile.c). In C because Swift's Glibc module does not declare it.
int cipherfile_memory_file(const char *name);

#endif
