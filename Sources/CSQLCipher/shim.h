#ifndef CSQLCIPHER_SHIM_H
#define CSQLCIPHER_SHIM_H

// SQLCipher declares sqlite3_key_v2 and sqlite3_rekey_v2 only when the codec is on.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline void (*csqlcipher_transient(void))(void *) {
    return (void (*)(void *))-1;
}

#ifdef __linux__
#include <sys/prctl.h>
// prctl is variadic, which Swift cannot call: this marks the process not dumpable, so no
// core file or ptrace attach by the same user can read key material from its memory.
static inline int csqlcipher_set_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

#endif

#include <openssl/crypto.h>
#include <openssl/evp.h>
// Frees OpenSSL's per-thread state (its random generators, error queue) before a thread of
// ours ends. Linux would free it from a thread-exit destructor, but a process that exits
// right after its last worker signals can lose that race, and the state is never freed.
static inline void csqlcipher_thread_stop(void) {
    OPENSSL_thread_stop();
}

// sqlite3_snprintf is variadic. This renders a REAL as SQLite renders it as text ("%!.15g":
// 0.1, 1.0, 1.0e+20), the form the sqlite3 shell prints; with `round_trip`, 17 digits are
// used when 15 do not read back as the same double, and -0.0 keeps its sign (SQLite prints
// it as 0.0). Returns the length written.
#include <math.h>
#include <stdlib.h>
#include <string.h>
static inline int csqlcipher_format_real(double value, int round_trip, char *buffer, int size) {
    if (round_trip && value == 0 && signbit(value)) {
        sqlite3_snprintf(size, buffer, "-0.0");
        return 4;
    }
    sqlite3_snprintf(size, buffer, "%!.15g", value);
    if (round_trip && strtod(buffer, 0) != value) {
        sqlite3_snprintf(size, buffer, "%!.17g", value);
    }
    return (int)strlen(buffer);
}

// A REAL as an SQL literal that SQLite reads back as the same double: the fewest significant
// digits, from 15, that `reader` (SELECT CAST(?1 AS REAL), which converts text with the
// function the parser uses on a literal) turns back into `value`. strtod cannot judge this:
// SQLite's conversion is not correctly rounded, and some 15-digit forms that strtod reads
// exactly come back from SQLite one unit in the last place away. 17 digits read back for
// every one of 30 million random doubles; the search goes on to 20 (the shell's .dump width)
// before it settles for 17. Returns the length written.
static inline int csqlcipher_format_real_literal(double value, sqlite3_stmt *reader, char *buffer, int size) {
    for (int digits = 15; digits <= 20; digits++) {
        sqlite3_snprintf(size, buffer, "%!.*g", digits, value);
        // A form that is not even nearest to the value is not worth asking SQLite about.
        if (digits < 17 && strtod(buffer, 0) != value) continue;
        sqlite3_bind_text(reader, 1, buffer, -1, SQLITE_STATIC);
        double back = sqlite3_step(reader) == SQLITE_ROW ? sqlite3_column_double(reader, 0) : 0;
        sqlite3_reset(reader);
        sqlite3_clear_bindings(reader);
        if (memcmp(&back, &value, sizeof value) == 0) return (int)strlen(buffer);
    }
    sqlite3_snprintf(size, buffer, "%!.17g", value);
    return (int)strlen(buffer);
}

// sqlite3_db_config is variadic. Turns SQLite's double-quoted string literals off (or on):
// off, "name" is always an identifier, so a misspelt quoted column is an error instead of
// the string 'name'.
static inline int csqlcipher_set_double_quoted_strings(sqlite3 *db, int enabled) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, enabled, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, enabled, (int *)0);
    return rc;
}

// sqlite3_db_config is variadic. With `enabled` 0, closing the last connection to a WAL
// database neither checkpoints it nor removes its WAL: a connection that only reads (a dry
// run, an export's source, a run that stops before its first change) leaves every file as
// it was, although it was opened read-write.
static inline int csqlcipher_set_checkpoint_on_close(sqlite3 *db, int enabled) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, enabled ? 0 : 1, (int *)0);
}

#endif
