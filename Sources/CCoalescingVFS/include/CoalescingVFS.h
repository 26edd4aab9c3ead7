#ifndef COALESCING_VFS_H
#define COALESCING_VFS_H

// A VFS that gathers page-sized reads and writes of the main database and its WAL into
// 120 KiB ones while the connection holds the database EXCLUSIVE, as one in exclusive
// locking mode does (see CoalescingVFS.c). Needs synchronous NORMAL or FULL.

// Registers the VFS (not as the default) on the first call. Returns its name, to pass to
// sqlite3_open_v2, or NULL when it cannot be registered.
const char *coalescingvfs_register(void);

#endif
