#ifndef SNAPSHOT_VFS_H
#define SNAPSHOT_VFS_H

// A VFS for reads that must see the last committed state of a database and write nothing
// at all, whatever lies beside it (see SnapshotVFS.c): a -wal without its -shm, a hot
// journal, a read-only folder. Open read-only, with a `file:` URI that has readonly_shm=1.

// Registers the VFS (not as the default) on the first call. Returns its name, to pass to
// sqlite3_open_v2, or NULL when it cannot be registered.
const char *snapshotvfs_register(void);

// sqlite3_file_control(db, "main", SNAPSHOTVFS_FCNTL_READ_JOURNAL, &hot) reads a hot journal
// beside the database now, as the connection's next read would, so that reads of its raw
// pages through SQLITE_FCNTL_FILE_POINTER see the state the journal restores; sets hot to 1
// when there is one. For a caller that holds a reader's lock on the file itself.
#define SNAPSHOTVFS_FCNTL_READ_JOURNAL 0x53565346

#endif
