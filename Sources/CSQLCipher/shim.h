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

#endif
