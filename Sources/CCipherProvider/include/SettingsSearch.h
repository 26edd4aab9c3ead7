#ifndef CIPHER_SETTINGS_SEARCH_H
#define CIPHER_SETTINGS_SEARCH_H

#include <stddef.h>

// The search for the settings a SQLCipher file was written with, from the file and the key
// alone (see SettingsSearch.c and PBKDF2.c).

// Where a candidate key decrypted page 1's first encrypted block to SQLite's fixed header
// bytes: the page size and reserve whose IV did it, and what the header itself says.
typedef struct {
    int page_size;
    int reserve;         // bytes from the IV to the end of the page
    int header_reserve;  // byte 20 of the decrypted header
} cipherprovider_block_match;

// Whether the 32-byte `key` decrypts the block at offset 16 of `page1` (the first `length`
// bytes of the file, salt first) to SQLite's header bytes 16 to 23 for some page size from
// 512 to 65536 that fits in `length` and some reserve from 16 to 96; fills `match` with the
// first that does. Returns 1 on a match, 0 without one, -1 when OpenSSL fails.
int cipherprovider_block_matches(const unsigned char *key, const unsigned char *page1, size_t length,
                                 cipherprovider_block_match *match);

// What the search is given: the passphrase, the file's first `length` bytes (salt first),
// the digest (1, 256 or 512) and the highest iteration count to try; `stop` (may be NULL)
// is a flag another thread may set to end the search early.
typedef struct {
    const void *pass;
    int pass_length;
    const unsigned char *page1;
    size_t length;
    int digest;
    int max_iterations;
    volatile int *stop;
} cipherprovider_search;

// PBKDF2 over the passphrase with the salt page1[0..16) and HMAC-SHA1, -SHA256 or -SHA512,
// testing the 32-byte key of every iteration count from 1 to max_iterations with
// cipherprovider_block_matches, in one pass (the key for c iterations is the XOR of the
// first c blocks). Stops at the first count that matches (into `iterations`, `key` and
// `match`), or when `*stop` becomes nonzero. Returns 1 on a match, 0 without one, -1 on a bad
// argument or an OpenSSL failure. Every buffer derived from the key is wiped.
int cipherprovider_pbkdf2_search(const cipherprovider_search *search, int *iterations, unsigned char *key, cipherprovider_block_match *match);

enum { SEARCH_LOCKSTEP_MAX = 3 };

// Up to SEARCH_LOCKSTEP_MAX searches (other digests over the same passphrase and page) on
// one thread, a few counts of each in turn, so that they advance together: where there are
// fewer cores than digests, a match is found at the same count as with a thread each,
// without switching between threads. The first search's `stop` stops all. `which` tells
// which search matched; otherwise as cipherprovider_pbkdf2_search.
int cipherprovider_pbkdf2_search_lockstep(const cipherprovider_search *searches, int count, int *which, int *iterations, unsigned char *key,
                                          cipherprovider_block_match *match);

#endif
