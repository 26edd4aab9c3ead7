#ifndef COALESCING_VFS_H
#define COALESCING_VFS_H

// A VFS that gathers page-sized reads and writes of the main database and its WAL into
// 120 KiB ones while the connection holds the database EXCLUSIVE, as one in exclusive
// locking mode does (see CoalescingVFS.c). Needs synchronous NORMAL or FULL.

// Registers the VFS (not as the default) on the first call. Returns its name, to pass to
// sqlite3_open_v2, or NULL when it cannot be registered.
const char *coalescingvfs_register(void);

// sqlite3_file_control(db, "main", COALESCINGVFS_FCNTL_FIRST_ERROR, &code) sets code to the
// first failed write, sync or truncation of the database or its open WAL (SQLITE_OK: none).
// After one, every call that reads or changes that file fails with it until it closes.
#define COALESCINGVFS_FCNTL_FIRST_ERROR 0x43564653

#endif
