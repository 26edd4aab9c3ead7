// A SQLite VFS over the default one for reads that must see the last committed state of a
// database and change nothing beside it. SQLite itself writes to read in three cases, and
// a read-only connection that may not write then fails or reads less than was committed:
// - a WAL database whose -wal has no -shm: SQLite creates the -shm to index the WAL (and a
//   read-only open that cannot create it fails); `immutable=1` reads the file alone and
//   misses every committed frame;
// - a hot journal (a writer died mid-transaction): SQLite rolls the database back on disk
//   (and a read-only open fails with SQLITE_READONLY_ROLLBACK);
// - a WAL database whose -wal is missing: SQLite creates an empty -wal.
// Here:
// - xShmMap answers SQLITE_READONLY_CANTINIT while no -shm exists. That is SQLite's own
//   answer for a -shm it may not write and no writer keeps: the WAL is then indexed in heap
//   memory from the -wal itself, up to its last valid commit frame, and rechecked at every
//   read transaction (wal.c, walBeginShmUnreliable). Once a -shm exists (a writer), the
//   default VFS maps it read-only (the URI's readonly_shm=1), and SQLite's own checks decide.
// - A hot journal is rolled back in memory: when the connection takes its SHARED lock, the
//   journal is read as SQLite's rollback reads it (pager.c, pager_playback), and its pages,
//   ciphertext as stored, are served in place of the database's; the size is the size the
//   journal records. The journal is hidden from SQLite (xAccess), so the pager never tries to
//   roll back on disk. The in-memory image is kept while the file is open and the journal
//   unchanged, for reads of raw pages between statements.
// - A missing -wal is replaced by an empty, read-only stand-in, and a -wal of its header alone
//   is shown as empty.
// - The database and a -wal are opened read-only; xWrite, xTruncate, xDelete and locks above
//   SHARED fail. Temporary files (sorts, temp tables) go straight to the default VFS.
// See https://www.sqlite.org/walformat.html#readonly and
// https://www.sqlite.org/fileformat2.html#rollbackjournal

#include "SnapshotVFS.h"
#include "PageCodec.h"

#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

enum { SNAPSHOT_MAIN = 1, SNAPSHOT_WAL_STAND_IN = 2, SNAPSHOT_WAL = 3 };

// One page a hot journal puts back: its number, and where the journal holds its bytes as
// stored (read when asked for, so memory stays small whatever the journal's size).
typedef struct snapshot_page {
    unsigned int number;
    unsigned int position; // its record's place in the journal
    off_t offset;
} snapshot_page;

// What a hot journal restores: pages sorted by number, the page size, and the database's
// size before the interrupted transaction.
typedef struct snapshot_rollback {
    snapshot_page *pages;
    int count;
    int page_size;
    sqlite3_int64 size;
    int descriptor;      // the journal, open while the rollback is kept
    struct stat journal; // the journal it was read from, to see it change
} snapshot_rollback;

typedef struct snapshot_file snapshot_file;
struct snapshot_file {
    sqlite3_file base;
    sqlite3_file *real;          // the default VFS's file, just after this struct; NULL for a stand-in
    int kind;
    int lock;
    int held;                    // a main database inside the caller's own reader lock (snapshot_locked=1)
    int encrypted;               // a main database read with a key (snapshot_encrypted=1)
    int shm_mapped;              // the default VFS's -shm was mapped: it answers from then on
    const char *journal;         // SQLite's name of the rollback journal
    char *shm;                   // the -shm's path
    snapshot_rollback *rollback; // while SHARED is held over a hot journal
};

static sqlite3_vfs snapshot_vfs;
static sqlite3_io_methods snapshot_methods;

static sqlite3_vfs *snapshot_base(void) {
    return (sqlite3_vfs *)snapshot_vfs.pAppData;
}

static unsigned int snapshot_u32(const unsigned char *bytes) {
    return ((unsigned int)bytes[0] << 24) | ((unsigned int)bytes[1] << 16) | ((unsigned int)bytes[2] << 8) | bytes[3];
}

static int snapshot_exists(const char *path) {
    struct stat status;
    return path != NULL && stat(path, &status) == 0;
}

// --- The hot journal, read as pager.c's rollback reads it ---------------------------------

static const unsigned char snapshot_journal_magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};

static void snapshot_free_rollback(snapshot_rollback *rollback) {
    if (rollback == NULL) return;
    if (rollback->descriptor >= 0) close(rollback->descriptor);
    sqlite3_free(rollback->pages);
    sqlite3_free(rollback);
}

static int snapshot_read_all(int descriptor, void *out, size_t amount, off_t offset) {
    size_t done = 0;
    while (done < amount) {
        ssize_t got = pread(descriptor, (char *)out + done, amount - done, offset + (off_t)done);
        if (got <= 0) return 0;
        done += (size_t)got;
    }
    return 1;
}

// Whether a super-journal named at the journal's end is missing: then the multi-database
// transaction committed and the journal is not played back (pager.c, readSuperJournal).
static int snapshot_super_journal_missing(int descriptor, off_t size) {
    unsigned char tail[16];
    if (size < 16 || !snapshot_read_all(descriptor, tail, 16, size - 16)) return 0;
    if (memcmp(tail + 8, snapshot_journal_magic, 8) != 0) return 0;
    unsigned int length = snapshot_u32(tail), checksum = snapshot_u32(tail + 4);
    if (length == 0 || length > 4096 || (off_t)length > size - 16) return 0;
    char name[4097];
    if (!snapshot_read_all(descriptor, name, length, size - 16 - length)) return 0;
    unsigned int sum = 0;
    for (unsigned int index = 0; index < length; index++) sum += (unsigned char)name[index];
    if (sum != checksum) return 0;
    name[length] = 0;
    return name[0] != 0 && !snapshot_exists(name);
}

static int snapshot_find_page(const snapshot_rollback *rollback, unsigned int number) {
    int low = 0, high = rollback->count - 1;
    while (low <= high) {
        int middle = (low + high) / 2;
        if (rollback->pages[middle].number == number) return middle;
        if (rollback->pages[middle].number < number) low = middle + 1; else high = middle - 1;
    }
    return -1;
}

// Appends page `number`, held at `offset`, in journal order; `snapshot_sort_pages` orders them.
static int snapshot_keep_page(snapshot_rollback *rollback, unsigned int number, off_t offset, int *capacity) {
    if (rollback->count == *capacity) {
        int grown = *capacity ? *capacity * 2 : 64;
        snapshot_page *pages = sqlite3_realloc64(rollback->pages, (sqlite3_uint64)grown * sizeof(snapshot_page));
        if (pages == NULL) return SQLITE_NOMEM;
        rollback->pages = pages;
        *capacity = grown;
    }
    rollback->pages[rollback->count] = (snapshot_page){number, (unsigned int)rollback->count, offset};
    rollback->count++;
    return SQLITE_OK;
}

static int snapshot_compare_pages(const void *left, const void *right) {
    const snapshot_page *a = left, *b = right;
    if (a->number != b->number) return a->number < b->number ? -1 : 1;
    return a->position < b->position ? -1 : a->position > b->position;
}

// Sorts the pages by number for the binary search. A page the journal holds twice is
// restored from its later record, which the rollback writes last.
static void snapshot_sort_pages(snapshot_rollback *rollback) {
    snapshot_page *pages = rollback->pages;
    if (rollback->count < 2) return;
    qsort(pages, (size_t)rollback->count, sizeof(snapshot_page), snapshot_compare_pages);
    int kept = 0;
    for (int index = 0; index < rollback->count; index++) {
        if (kept > 0 && pages[kept - 1].number == pages[index].number) {
            pages[kept - 1] = pages[index];
        } else {
            pages[kept++] = pages[index];
        }
    }
    rollback->count = kept;
}

// The header at `offset`: 0 when none can be read there, which ends the rollback.
static int snapshot_read_header(int descriptor, off_t size, off_t offset, int sector, unsigned char header[28]) {
    if (offset + sector > size) return 0;
    if (!snapshot_read_all(descriptor, header, 28, offset)) return 0;
    return memcmp(header, snapshot_journal_magic, 8) == 0;
}

static int snapshot_valid_sizes(unsigned int sector, unsigned int page_size) {
    return page_size >= 512 && page_size <= 65536 && (page_size & (page_size - 1)) == 0 && sector >= 32 && sector <= 65536 &&
        (sector & (sector - 1)) == 0;
}

// Where the reading of a journal stands: its file and size, the next record's offset, the
// database's size in pages before the transaction, the rollback's room for pages, and the
// SQLite error that stopped it.
typedef struct {
    int descriptor;
    off_t size, offset;
    unsigned int original_pages;
    int capacity;
    int failed;
} snapshot_journal_reader;

// Plays one segment's records into `rollback`; 0 when the rollback stops here.
static int snapshot_play_segment(snapshot_journal_reader *reader, snapshot_rollback *rollback, unsigned int records, unsigned int nonce) {
    int descriptor = reader->descriptor, page_size = rollback->page_size, played = 1;
    off_t size = reader->size, *offset = &reader->offset;
    unsigned int lock_page = (unsigned int)(0x40000000 / page_size) + 1;
    unsigned char *bytes = sqlite3_malloc(page_size);
    if (bytes == NULL) { reader->failed = SQLITE_NOMEM; return 0; }
    for (unsigned int record = 0; record < records && played; record++) {
        unsigned char number_bytes[4], checksum_bytes[4];
        int whole = *offset + 8 + page_size <= size && snapshot_read_all(descriptor, number_bytes, 4, *offset) &&
            snapshot_read_all(descriptor, bytes, (size_t)page_size, *offset + 4) &&
            snapshot_read_all(descriptor, checksum_bytes, 4, *offset + 4 + page_size);
        unsigned int number = snapshot_u32(number_bytes);
        unsigned int checksum = nonce;
        for (int index = page_size - 200; index > 0; index -= 200) checksum += bytes[index];
        *offset += 8 + page_size;
        // A short record (a torn journal), page 0, the lock-byte page or a wrong checksum end
        // the rollback; a page past the original size is skipped (truncation removes it).
        if (!whole || number == 0 || number == lock_page || checksum != snapshot_u32(checksum_bytes)) {
            played = 0;
        } else if (number <= reader->original_pages) {
            reader->failed = snapshot_keep_page(rollback, number, *offset - 4 - page_size, &reader->capacity);
            played = reader->failed == SQLITE_OK;
        }
    }
    sqlite3_free(bytes);
    return played;
}

// Reads the hot journal at `path` into a rollback, which keeps it open; NULL with *failed
// SQLITE_OK when it restores nothing (an unreadable header, a committed multi-database
// transaction).
static snapshot_rollback *snapshot_read_journal(const char *path, int *failed) {
    *failed = SQLITE_OK;
    int descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (descriptor < 0) return NULL;
    struct stat status;
    unsigned char header[28];
    snapshot_rollback *rollback = NULL;
    if (fstat(descriptor, &status) != 0 || !S_ISREG(status.st_mode) || snapshot_super_journal_missing(descriptor, status.st_size) ||
        !snapshot_read_all(descriptor, header, 28, 0) || memcmp(header, snapshot_journal_magic, 8) != 0) {
        close(descriptor);
        return NULL;
    }
    unsigned int sector = snapshot_u32(header + 20), page_size = snapshot_u32(header + 24);
    rollback = sqlite3_malloc(sizeof(snapshot_rollback));
    if (rollback == NULL || !snapshot_valid_sizes(sector, page_size)) {
        // SQLite's rollback refuses such a journal as corrupt, and so does this one.
        *failed = rollback == NULL ? SQLITE_NOMEM : SQLITE_CORRUPT;
        sqlite3_free(rollback);
        close(descriptor);
        return NULL;
    }
    memset(rollback, 0, sizeof(*rollback));
    rollback->descriptor = descriptor;
    rollback->journal = status;
    rollback->page_size = (int)page_size;
    snapshot_journal_reader reader = {descriptor, status.st_size, 0, snapshot_u32(header + 16), 0, SQLITE_OK};
    rollback->size = (sqlite3_int64)reader.original_pages * page_size;
    while (snapshot_read_header(descriptor, reader.size, reader.offset, (int)sector, header)) {
        unsigned int records = snapshot_u32(header + 8), nonce = snapshot_u32(header + 12);
        int first = reader.offset == 0;
        reader.offset += sector;
        // Written without syncs (synchronous OFF): the pages fill the rest of the file.
        if (first && records == 0xffffffff) records = (unsigned int)((reader.size - reader.offset) / (page_size + 8));
        if (!snapshot_play_segment(&reader, rollback, records, nonce)) break;
        reader.offset = ((reader.offset + sector - 1) / sector) * sector;
    }
    *failed = reader.failed;
    if (*failed != SQLITE_OK) {
        snapshot_free_rollback(rollback);
        return NULL;
    }
    snapshot_sort_pages(rollback);
    return rollback;
}

// Whether the journal beside this database is hot, as pager.c's hasHotJournal decides: it
// exists, no connection holds RESERVED, the database is not empty, its first byte is not 0.
static int snapshot_journal_is_hot(snapshot_file *file) {
    struct stat status;
    if (file->journal == NULL || stat(file->journal, &status) != 0 || status.st_size == 0) return 0;
    int reserved = 0;
    if (file->real->pMethods->xCheckReservedLock(file->real, &reserved) != SQLITE_OK || reserved) return 0;
    sqlite3_int64 size = 0;
    if (file->real->pMethods->xFileSize(file->real, &size) != SQLITE_OK || size == 0) return 0;
    int descriptor = open(file->journal, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (descriptor < 0) return 0;
    unsigned char first = 0;
    ssize_t got = read(descriptor, &first, 1);
    close(descriptor);
    return got == 1 && first != 0;
}

// --- The main database's methods ----------------------------------------------------------

static int snapshot_close(sqlite3_file *handle) {
    snapshot_file *file = (snapshot_file *)handle;
    int rc = SQLITE_OK;
    snapshot_free_rollback(file->rollback);
    file->rollback = NULL;
    sqlite3_free(file->shm);
    file->shm = NULL;
    if (file->real != NULL && file->real->pMethods != NULL) rc = file->real->pMethods->xClose(file->real);
    return rc;
}

// Reads page by page, each from the rollback when it holds the page; past the original
// size, zeros and a short read.
static int snapshot_read_rolled_back(snapshot_file *file, unsigned char *out, int amount, sqlite3_int64 offset) {
    snapshot_rollback *rollback = file->rollback;
    sqlite3_int64 end = offset + amount;
    while (offset < end) {
        sqlite3_int64 page_start = (offset / rollback->page_size) * rollback->page_size;
        int within = (int)(offset - page_start);
        int length = (int)((end < page_start + rollback->page_size ? end : page_start + rollback->page_size) - offset);
        if (offset >= rollback->size) {
            memset(out, 0, (size_t)(end - offset));
            return SQLITE_IOERR_SHORT_READ;
        }
        int found = snapshot_find_page(rollback, (unsigned int)(page_start / rollback->page_size) + 1);
        if (found >= 0) {
            if (!snapshot_read_all(rollback->descriptor, out, (size_t)length, rollback->pages[found].offset + within)) return SQLITE_IOERR_READ;
        } else {
            int rc = file->real->pMethods->xRead(file->real, out, length, offset);
            // The interrupted transaction may have truncated the file: what it cut is zeros.
            if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return rc;
        }
        out += length;
        offset += length;
    }
    return SQLITE_OK;
}

// Every page SQLCipher writes is ciphertext, so a whole page of zeros read from inside an
// encrypted file is damage, except SQLite's lock-byte page, which no one writes. SQLCipher's
// pager would serve it as a page of zeros (its allowance for a read past the end, which
// comes back short instead and stays SQLite's), and the rows on it would read as zeros.
static int snapshot_zero_page(const snapshot_file *file, const unsigned char *page, int amount, sqlite3_int64 offset) {
    if (!file->encrypted || amount < 512 || (amount & (amount - 1)) != 0 || offset % amount != 0 || offset == 0x40000000) return 0;
    for (int i = 0; i < amount; i++) {
        if (page[i] != 0) return 0;
    }
    return 1;
}

static int snapshot_read(sqlite3_file *handle, void *out, int amount, sqlite3_int64 offset) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL) {
        memset(out, 0, (size_t)amount);
        return SQLITE_IOERR_SHORT_READ;
    }
    if (file->rollback != NULL) return snapshot_read_rolled_back(file, out, amount, offset);
    int rc = file->real->pMethods->xRead(file->real, out, amount, offset);
    return rc == SQLITE_OK && snapshot_zero_page(file, out, amount, offset) ? SQLITE_CORRUPT : rc;
}

static int snapshot_write(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    (void)handle; (void)data; (void)amount; (void)offset;
    return SQLITE_READONLY;
}

static int snapshot_truncate(sqlite3_file *handle, sqlite3_int64 size) {
    (void)handle; (void)size;
    return SQLITE_READONLY;
}

static int snapshot_sync(sqlite3_file *handle, int flags) {
    (void)handle; (void)flags;
    return SQLITE_OK;
}

// Whether a -wal's 32-byte header is one SQLite takes: its magic (whose last bit says the
// checksums' byte order), format version 3007000, a page size, and its own checksum.
// See https://www.sqlite.org/fileformat2.html#walformat
static int snapshot_wal_header_valid(const unsigned char header[32]) {
    unsigned int magic = snapshot_u32(header), page_size = snapshot_u32(header + 8);
    if ((magic & 0xFFFFFFFE) != 0x377F0682 || snapshot_u32(header + 4) != 3007000) return 0;
    if (page_size == 1) page_size = 65536;
    if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) return 0;
    uint32_t sums[2] = {0, 0};
    cipherpage_wal_checksum(header, 24, (int)(magic & 1), sums);
    return sums[0] == snapshot_u32(header + 24) && sums[1] == snapshot_u32(header + 28);
}

static int snapshot_file_size(sqlite3_file *handle, sqlite3_int64 *size) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL) { *size = 0; return SQLITE_OK; }
    if (file->rollback != NULL) { *size = file->rollback->size; return SQLITE_OK; }
    int rc = file->real->pMethods->xFileSize(file->real, size);
    if (rc != SQLITE_OK || file->kind != SNAPSHOT_WAL) return rc;
    // A -wal of its header alone (a writer killed before its first frame), or one whose header
    // SQLite does not take (damage), holds no commit SQLite reads. Read without a -shm, SQLite
    // indexes it without taking its salts and then finds them changed at every try, up to
    // SQLITE_PROTOCOL (wal.c, walIndexRecover and walBeginShmUnreliable): it is shown as
    // empty, which is what it holds for SQLite.
    unsigned char header[32];
    if (*size <= 32 || file->real->pMethods->xRead(file->real, header, 32, 0) != SQLITE_OK || !snapshot_wal_header_valid(header)) *size = 0;
    return rc;
}

static int snapshot_same_journal(const struct stat *seen, const char *path) {
    struct stat now;
    return stat(path, &now) == 0 && now.st_ino == seen->st_ino && now.st_dev == seen->st_dev && now.st_size == seen->st_size &&
        now.st_mtim.tv_sec == seen->st_mtim.tv_sec && now.st_mtim.tv_nsec == seen->st_mtim.tv_nsec;
}

// Reads the journal when it is hot and was not read as it is now; drops the rollback when it
// is not hot. The rollback outlives the lock, for reads of the raw pages between statements:
// a hot journal changes only when a writer rolls it back, under an EXCLUSIVE lock, which the
// caller's reader lock keeps away, and the next SHARED lock sees any change.
static int snapshot_follow_journal(snapshot_file *file) {
    if (!snapshot_journal_is_hot(file)) {
        snapshot_free_rollback(file->rollback);
        file->rollback = NULL;
        return SQLITE_OK;
    }
    if (file->rollback != NULL && snapshot_same_journal(&file->rollback->journal, file->journal)) return SQLITE_OK;
    snapshot_free_rollback(file->rollback);
    int failed = SQLITE_OK;
    file->rollback = snapshot_read_journal(file->journal, &failed);
    return failed;
}

// SHARED is the only lock a reader takes; each time it is taken the journal is looked at.
// Inside the caller's reader lock none is taken: the default VFS would pass the PENDING byte
// first, which a writer waiting for the caller's lock to go holds.
static int snapshot_lock(sqlite3_file *handle, int level) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL) return SQLITE_OK;
    if (level > SQLITE_LOCK_SHARED) return SQLITE_BUSY;
    int rc = file->held ? SQLITE_OK : file->real->pMethods->xLock(file->real, level);
    if (rc != SQLITE_OK) return rc;
    int first = file->lock == SQLITE_LOCK_NONE;
    file->lock = level;
    if (file->kind != SNAPSHOT_MAIN || !first) return SQLITE_OK;
    rc = snapshot_follow_journal(file);
    if (rc != SQLITE_OK) {
        if (!file->held) file->real->pMethods->xUnlock(file->real, SQLITE_LOCK_NONE);
        file->lock = SQLITE_LOCK_NONE;
    }
    return rc;
}

static int snapshot_unlock(sqlite3_file *handle, int level) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL) return SQLITE_OK;
    file->lock = level < file->lock ? level : file->lock;
    return file->held ? SQLITE_OK : file->real->pMethods->xUnlock(file->real, level);
}

static int snapshot_check_reserved_lock(sqlite3_file *handle, int *result) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL) { *result = 0; return SQLITE_OK; }
    return file->real->pMethods->xCheckReservedLock(file->real, result);
}

static int snapshot_file_control(sqlite3_file *handle, int op, void *argument) {
    snapshot_file *file = (snapshot_file *)handle;
    if (op == SNAPSHOTVFS_FCNTL_READ_JOURNAL && file->kind == SNAPSHOT_MAIN) {
        int rc = snapshot_follow_journal(file);
        *(int *)argument = file->rollback != NULL;
        return rc;
    }
    if (file->real == NULL) return SQLITE_NOTFOUND;
    return file->real->pMethods->xFileControl(file->real, op, argument);
}

static int snapshot_sector_size(sqlite3_file *handle) {
    snapshot_file *file = (snapshot_file *)handle;
    return file->real == NULL ? 512 : file->real->pMethods->xSectorSize(file->real);
}

static int snapshot_device_characteristics(sqlite3_file *handle) {
    snapshot_file *file = (snapshot_file *)handle;
    return file->real == NULL ? 0 : file->real->pMethods->xDeviceCharacteristics(file->real);
}

// No -shm: SQLite's answer for a -shm that no writer keeps, so it indexes the WAL in heap
// memory. Once the default VFS has mapped a -shm, it alone answers, as wal.c requires.
static int snapshot_shm_map(sqlite3_file *handle, int region, int size, int extend, void volatile **pointer) {
    snapshot_file *file = (snapshot_file *)handle;
    *pointer = NULL;
    if (file->real == NULL || file->real->pMethods->iVersion < 2) return SQLITE_READONLY_CANTINIT;
    if (!file->shm_mapped && !snapshot_exists(file->shm)) return SQLITE_READONLY_CANTINIT;
    file->shm_mapped = 1;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, pointer);
}

static int snapshot_shm_lock(sqlite3_file *handle, int offset, int count, int flags) {
    snapshot_file *file = (snapshot_file *)handle;
    if (!file->shm_mapped) return SQLITE_OK;
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void snapshot_shm_barrier(sqlite3_file *handle) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->shm_mapped) file->real->pMethods->xShmBarrier(file->real);
    else __sync_synchronize();
}

// Never deletes the -shm: that belongs to its writer.
static int snapshot_shm_unmap(sqlite3_file *handle, int delete_flag) {
    (void)delete_flag;
    snapshot_file *file = (snapshot_file *)handle;
    if (!file->shm_mapped) return SQLITE_OK;
    file->shm_mapped = 0;
    return file->real->pMethods->xShmUnmap(file->real, 0);
}

// Memory-mapped pages would bypass the rollback: while one is active, SQLite reads instead.
static int snapshot_fetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **pointer) {
    snapshot_file *file = (snapshot_file *)handle;
    *pointer = NULL;
    if (file->real == NULL || file->rollback != NULL || file->real->pMethods->iVersion < 3) return SQLITE_OK;
    return file->real->pMethods->xFetch(file->real, offset, amount, pointer);
}

static int snapshot_unfetch(sqlite3_file *handle, sqlite3_int64 offset, void *pointer) {
    snapshot_file *file = (snapshot_file *)handle;
    if (file->real == NULL || file->real->pMethods->iVersion < 3) return SQLITE_OK;
    return file->real->pMethods->xUnfetch(file->real, offset, pointer);
}

// --- The VFS ------------------------------------------------------------------------------

static char *snapshot_shm_path(sqlite3_filename name) {
    const char *database = sqlite3_filename_database(name);
    return database == NULL ? NULL : sqlite3_mprintf("%s-shm", database);
}

static int snapshot_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *handle, int flags, int *out_flags) {
    (void)vfs;
    sqlite3_vfs *base = snapshot_base();
    int is_main = (flags & SQLITE_OPEN_MAIN_DB) != 0, is_wal = (flags & SQLITE_OPEN_WAL) != 0;
    if (!is_main && !is_wal) {
        // Temporary files and anything else go to the default VFS as asked, in this handle.
        if (flags & SQLITE_OPEN_MAIN_JOURNAL) return SQLITE_CANTOPEN;
        return base->xOpen(base, name, handle, flags, out_flags);
    }
    snapshot_file *file = (snapshot_file *)handle;
    memset(file, 0, sizeof(*file));
    int read_only = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE)) | SQLITE_OPEN_READONLY;
    if (out_flags) *out_flags = read_only;
    if (is_wal) {
        int exists = 0;
        if (base->xAccess(base, name, SQLITE_ACCESS_EXISTS, &exists) != SQLITE_OK || !exists) {
            file->kind = SNAPSHOT_WAL_STAND_IN;
            file->base.pMethods = &snapshot_methods;
            return SQLITE_OK;
        }
    }
    file->real = (sqlite3_file *)(file + 1);
    int rc = base->xOpen(base, name, file->real, read_only, NULL);
    if (rc != SQLITE_OK) {
        file->real = NULL;
        return rc;
    }
    if (is_wal) file->kind = SNAPSHOT_WAL;
    if (is_main) {
        file->kind = SNAPSHOT_MAIN;
        file->held = sqlite3_uri_boolean(name, "snapshot_locked", 0);
        file->encrypted = sqlite3_uri_boolean(name, "snapshot_encrypted", 0);
        file->journal = sqlite3_filename_journal(name);
        file->shm = snapshot_shm_path(name);
    }
    file->base.pMethods = &snapshot_methods;
    return SQLITE_OK;
}

static int snapshot_delete(sqlite3_vfs *vfs, const char *name, int sync_dir) {
    (void)vfs; (void)name; (void)sync_dir;
    return SQLITE_IOERR_DELETE;
}

static int snapshot_ends_with(const char *name, const char *suffix) {
    size_t length = strlen(name), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(name + length - suffix_length, suffix) == 0;
}

// The rollback journal is never shown: a hot one is rolled back in memory instead.
static int snapshot_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    if (snapshot_ends_with(name, "-journal")) { *result = 0; return SQLITE_OK; }
    sqlite3_vfs *base = snapshot_base();
    return base->xAccess(base, name, flags, result);
}

static int snapshot_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return snapshot_base()->xFullPathname(snapshot_base(), name, size, out);
}

static void *snapshot_dl_open(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return snapshot_base()->xDlOpen(snapshot_base(), name);
}

static void snapshot_dl_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    snapshot_base()->xDlError(snapshot_base(), size, out);
}

static void (*snapshot_dl_sym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return snapshot_base()->xDlSym(snapshot_base(), library, symbol);
}

static void snapshot_dl_close(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    snapshot_base()->xDlClose(snapshot_base(), library);
}

static int snapshot_randomness(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return snapshot_base()->xRandomness(snapshot_base(), size, out);
}

static int snapshot_sleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return snapshot_base()->xSleep(snapshot_base(), microseconds);
}

static int snapshot_current_time(sqlite3_vfs *vfs, double *now) {
    (void)vfs;
    return snapshot_base()->xCurrentTime(snapshot_base(), now);
}

static int snapshot_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return snapshot_base()->xGetLastError ? snapshot_base()->xGetLastError(snapshot_base(), size, out) : 0;
}

static int snapshot_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return snapshot_base()->xCurrentTimeInt64(snapshot_base(), now);
}

const char *snapshotvfs_register(void) {
    static const char *registered = NULL;
    sqlite3_mutex *mutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS2);
    sqlite3_mutex_enter(mutex);
    if (registered == NULL) {
        sqlite3_vfs *base = sqlite3_vfs_find(NULL);
        if (base != NULL && base->iVersion >= 2) {
            snapshot_methods = (sqlite3_io_methods){
                3, snapshot_close, snapshot_read, snapshot_write, snapshot_truncate, snapshot_sync, snapshot_file_size,
                snapshot_lock, snapshot_unlock, snapshot_check_reserved_lock, snapshot_file_control, snapshot_sector_size,
                snapshot_device_characteristics, snapshot_shm_map, snapshot_shm_lock, snapshot_shm_barrier, snapshot_shm_unmap,
                snapshot_fetch, snapshot_unfetch};
            snapshot_vfs = (sqlite3_vfs){
                2, (int)sizeof(snapshot_file) + base->szOsFile, base->mxPathname, NULL, "cipherctl-snapshot", base,
                snapshot_open, snapshot_delete, snapshot_access, snapshot_full_pathname, snapshot_dl_open, snapshot_dl_error,
                snapshot_dl_sym, snapshot_dl_close, snapshot_randomness, snapshot_sleep, snapshot_current_time,
                snapshot_get_last_error, snapshot_current_time_int64, NULL, NULL, NULL};
            if (sqlite3_vfs_register(&snapshot_vfs, 0) == SQLITE_OK) registered = snapshot_vfs.zName;
        }
    }
    sqlite3_mutex_leave(mutex);
    return registered;
}
