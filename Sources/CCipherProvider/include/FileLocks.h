#ifndef CIPHERCTL_FILE_LOCKS_H
#define CIPHERCTL_FILE_LOCKS_H

// SQLite's lock bytes, taken as Linux open-file-description (OFD) locks: they belong to the
// descriptor, so closing another descriptor on the same file (an immutable SQLite connection,
// a probe) does not drop them, as it drops POSIX locks; and they conflict with the POSIX
// locks every SQLite process takes. See https://www.sqlite.org/lockingv3.html and fcntl(2).
// Where the system has no OFD locks (macOS) they are POSIX locks (FileLocks.c says what that
// costs).

// Takes a reader's SHARED lock on the database open at `fd`, as SQLite's unix VFS does
// (a read lock on the PENDING byte while the SHARED range is read-locked): writers then wait
// until the descriptor is closed or the lock released. Never waits. Returns 0 when held,
// 1 when a writer holds or is about to take the file (try again), -1 on another error (errno).
// `gated` 0 skips the PENDING byte, for a file the caller holds a SHARED lock on already: a
// writer holding PENDING waits for that lock, and would never let the new one pass.
int cipherfile_shared_lock(int fd, int gated);

// Whether another process holds SQLite's RESERVED lock on the database open at `fd`: a
// writer is in a transaction, so its journal is live, not hot. 1 held, 0 not, -1 on error.
int cipherfile_reserved_lock_held(int fd);

// Takes a writer's EXCLUSIVE lock on the database open at `fd`, as SQLite's unix VFS holds it
// while it writes the file (PENDING, RESERVED and the whole SHARED range, write-locked): no
// SQLite process can read or write until the descriptor is closed. Never waits. Returns 0
// when held, 1 when another process holds any lock on the file (try again), -1 on another
// error (errno).
int cipherfile_exclusive_lock(int fd);

#endif
