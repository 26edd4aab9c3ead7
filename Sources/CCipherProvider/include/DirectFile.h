#ifndef CIPHERCTL_DIRECT_FILE_H
#define CIPHERCTL_DIRECT_FILE_H

#include <stdint.h>

// A second descriptor of the existing file at `path`, for writing around the page cache
// (Linux's O_DIRECT: the data goes from the caller's buffer to the disk, and each write then
// needs its buffer, offset and length aligned to the file system's block). -1 where the
// system or the file system has no such writes. In C because Swift's Glibc module does not
// define O_DIRECT.
int cipherfile_open_direct(const char *path);

// Reserves `length` bytes of the file's blocks at once (Linux's fallocate, which never writes
// zeros in their place): a file written by several threads in large pieces is laid out in
// one run, and a disk too small says so before anything is written. 0 on success, else the
// errno (EOPNOTSUPP where the file system cannot).
int cipherfile_preallocate(int descriptor, int64_t length);

#endif
