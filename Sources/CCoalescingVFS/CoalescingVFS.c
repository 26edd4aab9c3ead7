// A SQLite VFS over the default one that turns page-sized reads and writes into large ones
// while its connection holds the database exclusively: an in-place rekey.
//
// A rekey through the WAL reads every page of the database, writes every page to the WAL
// (a 24-byte frame header and the page: two writes), reads them back in the checkpoint and
// writes them into the database: about five system calls per page, 1.25 million for a 1 GB
// database, where the kernel spent as long as the crypto. Here, for the main database and
// its WAL:
// - writes that continue the previous one are gathered in a 120 KiB buffer and written as one;
//   anything else done to the file (a read, a sync, a size, a truncation, a lock change, a
//   file control, closing) writes the buffer first, so SQLite sees the file it wrote, and a
//   sync still means what it says;
// - a read that continues the previous one (give or take a frame header) is served from a
//   120 KiB read-ahead; the read-ahead is dropped by any write, truncation or lock change.
// Other reads (a B-tree search) go straight through. What is buffered is what SQLite would
// have written anyway: page images as stored (ciphertext for an encrypted database).
//
// Both happen only while the connection holds an EXCLUSIVE lock on the database file (for
// the WAL: on its database), as a connection in exclusive locking mode does for its whole
// rekey, WAL and checkpoint included. No other connection, in any process, can then read or
// change either file, so nothing can read around the buffers or change what a read-ahead
// holds. When the lock goes below EXCLUSIVE both files' buffers are written first and their
// read-aheads dropped; at any other time every call goes straight through. So the VFS is
// safe for any connection with synchronous NORMAL or FULL (SQLite's default, and what
// CipherKit keeps): SQLite orders its journal and database writes with syncs, and a sync
// writes the buffer first. With synchronous OFF a journal could be finished while database
// writes are still buffered. A write error is reported by the call that writes the buffer
// (often the sync that commits), which fails the transaction as the original write would
// have; a process killed with writes buffered leaves files that stop where an earlier kill
// would have stopped them, since what is buffered always continues what was written.
//
// A failed write, sync or truncation of a database or WAL poisons that file until it
// closes: every later read, write, sync, size, truncation and file control on it fails with
// the first error. SQLite ignores what some calls return (SQLITE_FCNTL_CKPT_DONE after a
// checkpoint's writes, an unlock, a close); a buffer written by one of those and lost would
// otherwise be followed by a sync that succeeds, and the checkpoint would reset a WAL whose
// pages never reached the database. An fsync that failed may have dropped dirty pages (the
// kernel marks them clean), so it poisons the file too. COALESCINGVFS_FCNTL_FIRST_ERROR
// reads the first error of a database or its WAL.

#include "CoalescingVFS.h"

#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
#include <string.h>

// The unix VFS reads and writes at most 128 KiB - 1 bytes per call (it masks the length with
// 0x1ffff): 120 KiB holds 30 pages, or 29 WAL frames.
enum { COALESCE_CHUNK = 120 * 1024, COALESCE_GAP = 512 };

typedef struct coalesce_file coalesce_file;
struct coalesce_file {
    sqlite3_file base;
    sqlite3_file *real;          // the default VFS's file, allocated just after this struct
    unsigned char *write_buffer; // NULL for files that are passed straight through
    sqlite3_int64 write_offset;
    int write_length;
    unsigned char *read_buffer;
    sqlite3_int64 read_offset;
    int read_length;
    sqlite3_int64 last_read_end;
    int error;                   // the first failed write, sync or truncation; sticky
    int lock;                    // a main database: the lock SQLite holds on it
    sqlite3_filename name;       // a main database: the name SQLite opened it with
    coalesce_file *database;     // a WAL: its database's file (NULL once that closes)
    coalesce_file *wal;          // a main database: its open WAL
    coalesce_file *next;         // the open main databases, to find a WAL's
};

static sqlite3_vfs coalesce_vfs;
// The same functions at io_methods versions 1 to 3, set once at registration: a file gets
// the version of the default VFS's file beneath it.
static sqlite3_io_methods coalesce_methods[3];
static coalesce_file *coalesce_databases;  // under SQLITE_MUTEX_STATIC_VFS1

static sqlite3_vfs *coalesce_base(void) {
    return (sqlite3_vfs *)coalesce_vfs.pAppData;
}

// Whether the file's reads and writes may be gathered now: its connection holds the
// database EXCLUSIVE.
static int coalesce_active(const coalesce_file *file) {
    if (file->write_buffer == NULL) return 0;
    const coalesce_file *database = file->database != NULL ? file->database : file;
    return database->lock == SQLITE_LOCK_EXCLUSIVE;
}

// Records the first error of a call that changes a database or WAL (the files it buffers);
// returns `rc`.
static int coalesce_note(coalesce_file *file, int rc) {
    if (rc != SQLITE_OK && file->error == SQLITE_OK && file->write_buffer != NULL) file->error = rc;
    return rc;
}

static int coalesce_flush(coalesce_file *file) {
    if (file->error != SQLITE_OK) return file->error;
    if (file->write_length == 0) return SQLITE_OK;
    int length = file->write_length;
    file->write_length = 0;
    return coalesce_note(file, file->real->pMethods->xWrite(file->real, file->write_buffer, length, file->write_offset));
}

static void coalesce_forget_reads(coalesce_file *file) {
    file->read_length = 0;
    file->last_read_end = -1;
}

// Writes both files' buffers and drops their read-aheads: before the database's lock drops.
static int coalesce_settle(coalesce_file *database) {
    int rc = coalesce_flush(database);
    coalesce_forget_reads(database);
    if (database->wal != NULL) {
        int wal = coalesce_flush(database->wal);
        coalesce_forget_reads(database->wal);
        if (rc == SQLITE_OK) rc = wal;
    }
    return rc;
}

static int coalesce_close(sqlite3_file *handle) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = SQLITE_OK;
    if (file->write_buffer != NULL) {
        // A database closing before its WAL writes the WAL's buffer too: that WAL goes
        // straight through from now on, and nothing may be left behind it.
        rc = file->database == NULL ? coalesce_settle(file) : coalesce_flush(file);
        sqlite3_mutex *mutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS1);
        sqlite3_mutex_enter(mutex);
        if (file->database != NULL) {
            if (file->database->wal == file) file->database->wal = NULL;
        } else {
            for (coalesce_file **link = &coalesce_databases; *link != NULL; link = &(*link)->next) {
                if (*link == file) {
                    *link = file->next;
                    break;
                }
            }
            if (file->wal != NULL) file->wal->database = NULL;
        }
        sqlite3_mutex_leave(mutex);
    }
    int closed = file->real->pMethods != NULL ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
    sqlite3_free(file->write_buffer);
    sqlite3_free(file->read_buffer);
    file->write_buffer = file->read_buffer = NULL;
    return rc != SQLITE_OK ? rc : closed;
}

static int coalesce_read(sqlite3_file *handle, void *out, int amount, sqlite3_int64 offset) {
    coalesce_file *file = (coalesce_file *)handle;
    if (file->error != SQLITE_OK) return file->error;
    if (!coalesce_active(file)) return file->real->pMethods->xRead(file->real, out, amount, offset);
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    if (file->read_length > 0 && offset >= file->read_offset
        && offset + amount <= file->read_offset + file->read_length) {
        memcpy(out, file->read_buffer + (offset - file->read_offset), (size_t)amount);
        file->last_read_end = offset + amount;
        return SQLITE_OK;
    }
    int sequential = file->last_read_end >= 0 && offset >= file->last_read_end && offset - file->last_read_end <= COALESCE_GAP;
    file->last_read_end = offset + amount;
    if (sequential && amount < COALESCE_CHUNK / 4) {
        sqlite3_int64 size = 0;
        rc = file->real->pMethods->xFileSize(file->real, &size);
        if (rc != SQLITE_OK) return rc;
        sqlite3_int64 available = size - offset;
        int chunk = available < COALESCE_CHUNK ? (int)available : COALESCE_CHUNK;
        if (chunk >= amount) {
            file->read_length = 0;
            rc = file->real->pMethods->xRead(file->real, file->read_buffer, chunk, offset);
            if (rc == SQLITE_OK) {
                file->read_offset = offset;
                file->read_length = chunk;
                memcpy(out, file->read_buffer, (size_t)amount);
                return SQLITE_OK;
            }
            if (rc != SQLITE_IOERR_SHORT_READ) return rc;
        }
    }
    return file->real->pMethods->xRead(file->real, out, amount, offset);
}

static int coalesce_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    coalesce_file *file = (coalesce_file *)handle;
    if (file->error != SQLITE_OK) return file->error;
    if (!coalesce_active(file)) return coalesce_note(file, file->real->pMethods->xWrite(file->real, data, amount, offset));
    if (file->read_length > 0 && offset < file->read_offset + file->read_length && offset + amount > file->read_offset) {
        file->read_length = 0;
    }
    if (file->write_length > 0 && offset == file->write_offset + file->write_length
        && file->write_length + amount <= COALESCE_CHUNK) {
        memcpy(file->write_buffer + file->write_length, data, (size_t)amount);
        file->write_length += amount;
        return SQLITE_OK;
    }
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    if (amount >= COALESCE_CHUNK / 4) return coalesce_note(file, file->real->pMethods->xWrite(file->real, data, amount, offset));
    memcpy(file->write_buffer, data, (size_t)amount);
    file->write_offset = offset;
    file->write_length = amount;
    return SQLITE_OK;
}

// The calls below write the buffer first; for a file passed straight through it is empty.

static int coalesce_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    coalesce_forget_reads(file);
    return coalesce_note(file, file->real->pMethods->xTruncate(file->real, size));
}

static int coalesce_sync(sqlite3_file *handle, int flags) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    return coalesce_note(file, file->real->pMethods->xSync(file->real, flags));
}

static int coalesce_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFileSize(file->real, size);
}

// Below EXCLUSIVE nothing is buffered or read ahead (coalesce_unlock settled both files),
// so raising the lock only records it.
static int coalesce_lock(sqlite3_file *handle, int level) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = file->real->pMethods->xLock(file->real, level);
    if (rc == SQLITE_OK && level > file->lock) file->lock = level;
    return rc;
}

static int coalesce_unlock(sqlite3_file *handle, int level) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = SQLITE_OK;
    if (file->database == NULL) {
        rc = coalesce_settle(file);
        file->lock = level;
    }
    int unlocked = file->real->pMethods->xUnlock(file->real, level);
    return rc != SQLITE_OK ? rc : unlocked;
}

static int coalesce_check_reserved_lock(sqlite3_file *handle, int *result) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int coalesce_file_control(sqlite3_file *handle, int op, void *argument) {
    coalesce_file *file = (coalesce_file *)handle;
    if (op == COALESCINGVFS_FCNTL_FIRST_ERROR) {
        int first = file->error;
        if (first == SQLITE_OK && file->wal != NULL) first = file->wal->error;
        *(int *)argument = first;
        return SQLITE_OK;
    }
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    if (op == SQLITE_FCNTL_VFSNAME) {
        rc = file->real->pMethods->xFileControl(file->real, op, argument);
        if (rc == SQLITE_OK && *(char **)argument != NULL) {
            char *below = *(char **)argument;
            *(char **)argument = sqlite3_mprintf("%s/%s", coalesce_vfs.zName, below);
            sqlite3_free(below);
        }
        return rc;
    }
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int coalesce_sector_size(sqlite3_file *handle) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xSectorSize(file->real);
}

static int coalesce_device_characteristics(sqlite3_file *handle) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int coalesce_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **pointer) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, pointer);
}

static int coalesce_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void coalesce_shm_barrier(sqlite3_file *handle) {
    coalesce_file *file = (coalesce_file *)handle;
    file->real->pMethods->xShmBarrier(file->real);
}

static int coalesce_shm_unmap(sqlite3_file *handle, int delete_flag) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xShmUnmap(file->real, delete_flag);
}

static int coalesce_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    coalesce_file *file = (coalesce_file *)handle;
    int rc = coalesce_flush(file);
    if (rc != SQLITE_OK) return rc;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int coalesce_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    coalesce_file *file = (coalesce_file *)handle;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

static void coalesce_free_buffers(coalesce_file *file) {
    sqlite3_free(file->write_buffer);
    sqlite3_free(file->read_buffer);
    file->write_buffer = file->read_buffer = NULL;
}

// Enters a database file in the list of open ones, or ties a WAL to its database's file.
static void coalesce_register(coalesce_file *file, sqlite3_filename name, int flags) {
    sqlite3_mutex *mutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS1);
    sqlite3_mutex_enter(mutex);
    if (flags & SQLITE_OPEN_MAIN_DB) {
        file->name = name;
        file->next = coalesce_databases;
        coalesce_databases = file;
    } else {
        // SQLite names a WAL inside the same allocation as its database's name: the
        // database's file is the open one with exactly that name pointer.
        sqlite3_filename database = sqlite3_filename_database(name);
        for (coalesce_file *candidate = coalesce_databases; candidate != NULL; candidate = candidate->next) {
            if (candidate->name == database && candidate->wal == NULL) {
                file->database = candidate;
                candidate->wal = file;
                break;
            }
        }
    }
    sqlite3_mutex_leave(mutex);
}

// A database or its WAL gets the buffers that gather its reads and writes; SQLITE_NOMEM
// when they cannot be had.
static int coalesce_buffer(coalesce_file *file, sqlite3_filename name, int flags) {
    file->write_buffer = sqlite3_malloc(COALESCE_CHUNK);
    file->read_buffer = sqlite3_malloc(COALESCE_CHUNK);
    if (file->write_buffer == NULL || file->read_buffer == NULL) {
        coalesce_free_buffers(file);
        return SQLITE_NOMEM;
    }
    coalesce_register(file, name, flags);
    // A WAL without a database of this VFS to follow passes everything through.
    if ((flags & SQLITE_OPEN_WAL) && file->database == NULL) coalesce_free_buffers(file);
    return SQLITE_OK;
}

static int coalesce_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    coalesce_file *file = (coalesce_file *)handle;
    memset(file, 0, sizeof(*file));
    file->real = (sqlite3_file *)(file + 1);
    file->last_read_end = -1;
    int rc = coalesce_base()->xOpen(coalesce_base(), name, file->real, flags, out_flags);
    if (rc != SQLITE_OK) {
        // SQLite calls xClose only when pMethods is set; the base file closes itself on failure.
        if (file->real->pMethods != NULL) file->real->pMethods->xClose(file->real);
        file->base.pMethods = NULL;
        return rc;
    }
    if (name != NULL && (flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL)) && coalesce_buffer(file, name, flags) != SQLITE_OK) {
        file->real->pMethods->xClose(file->real);
        file->base.pMethods = NULL;
        return SQLITE_NOMEM;
    }
    int version = file->real->pMethods->iVersion;
    file->base.pMethods = &coalesce_methods[(version < 1 ? 1 : version > 3 ? 3 : version) - 1];
    return SQLITE_OK;
}

static int coalesce_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs;
    return coalesce_base()->xDelete(coalesce_base(), name, sync_dir);
}

static int coalesce_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return coalesce_base()->xAccess(coalesce_base(), name, flags, result);
}

static int coalesce_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return coalesce_base()->xFullPathname(coalesce_base(), name, size, out);
}

static void *coalesce_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return coalesce_base()->xDlOpen(coalesce_base(), name);
}

static void coalesce_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    coalesce_base()->xDlError(coalesce_base(), size, out);
}

static void (*coalesce_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return coalesce_base()->xDlSym(coalesce_base(), library, symbol);
}

static void coalesce_dl_close(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    coalesce_base()->xDlClose(coalesce_base(), library);
}

static int coalesce_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return coalesce_base()->xRandomness(coalesce_base(), size, out);
}

static int coalesce_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return coalesce_base()->xSleep(coalesce_base(), microseconds);
}

static int coalesce_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return coalesce_base()->xCurrentTime(coalesce_base(), now);
}

static int coalesce_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return coalesce_base()->xGetLastError(coalesce_base(), size, out);
}

static int coalesce_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return coalesce_base()->xCurrentTimeInt64(coalesce_base(), now);
}

const char *coalescingvfs_register(void) {
    if (coalesce_vfs.zName != NULL) return coalesce_vfs.zName;
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (base == NULL || base->iVersion < 2) return NULL;
    for (int version = 1; version <= 3; version++) coalesce_methods[version - 1] = (sqlite3_io_methods){
        version, coalesce_close, coalesce_read, coalesce_write, coalesce_truncate, coalesce_sync, coalesce_file_size,
        coalesce_lock, coalesce_unlock, coalesce_check_reserved_lock, coalesce_file_control, coalesce_sector_size,
        coalesce_device_characteristics, coalesce_shm_map, coalesce_shm_lock, coalesce_shm_barrier, coalesce_shm_unmap,
        coalesce_fetch, coalesce_unfetch};
    coalesce_vfs = (sqlite3_vfs){
        2, (int)sizeof(coalesce_file) + base->szOsFile, base->mxPathname, NULL, "cipherctl-coalescing", base,
        coalesce_open, coalesce_delete, coalesce_access, coalesce_full_pathname, coalesce_dl_open, coalesce_dl_error,
        coalesce_dl_sym, coalesce_dl_close, coalesce_randomness, coalesce_sleep, coalesce_current_time,
        coalesce_get_last_error, coalesce_current_time_int64};
    if (sqlite3_vfs_register(&coalesce_vfs, 0) != SQLITE_OK) {
        coalesce_vfs.zName = NULL;
        return NULL;
    }
    return coalesce_vfs.zName;
}
