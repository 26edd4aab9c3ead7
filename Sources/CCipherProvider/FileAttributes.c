#include "FileAttributes.h"

#include <stddef.h>
#include <sys/types.h>
#include <sys/xattr.h>

int cipherfile_has_extended_attributes(const char *path) {
    // The size of the list of names; -1 (no support, no file) counts as none.
#ifdef __APPLE__
    return listxattr(path, NULL, 0, XATTR_NOFOLLOW) > 0;
#else
    return llistxattr(path, NULL, 0) > 0;
#endif
}
