#ifndef CIPHERCTL_FILE_ATTRIBUTES_H
#define CIPHERCTL_FILE_ATTRIBUTES_H

// Whether the file at `path` (not following a symbolic link) has any extended attribute: an
// ACL, a security label, a user attribute. 0 when it has none or the file system keeps none.
// In C because Swift's Glibc module does not reach <sys/xattr.h>.
int cipherfile_has_extended_attributes(const char *path);

#endif
