#ifndef CTEST_H
#define CTEST_H

// The C tests' few helpers: a check that counts, a closing line Scripts/ctest adds up, and
// the random bytes tests feed the code (OpenSSL's generator, so no seed to carry around).

#include <stdio.h>
#include <string.h>
#include <openssl/rand.h>

static int ctest_passed, ctest_failed;

#define CHECK(condition) ctest_check((condition) != 0, __FILE__, __LINE__, #condition)

static inline void ctest_check(int ok, const char *file, int line, const char *what) {
    if (ok) {
        ctest_passed += 1;
        return;
    }
    ctest_failed += 1;
    fprintf(stderr, "%s:%d: failed: %s\n", file, line, what);
}

// Prints "NAME: N passed, N failed" and gives the program's exit status.
static inline int ctest_finish(const char *name) {
    printf("%s: %d passed, %d failed\n", name, ctest_passed, ctest_failed);
    return ctest_failed == 0 && ctest_passed > 0 ? 0 : 1;
}

static inline void ctest_random(unsigned char *bytes, size_t count) {
    if (RAND_bytes(bytes, (int)count) != 1) {
        fprintf(stderr, "ctest: OpenSSL's generator failed\n");
        memset(bytes, 0x5a, count);
        ctest_failed += 1;
    }
}

static inline int ctest_on_x86(void) {
#if defined(__x86_64__) || defined(__i386__)
    return 1;
#else
    return 0;
#endif
}

#endif
