#ifndef CIPHER_BLOCK_TEST_H
#define CIPHER_BLOCK_TEST_H

// The page-1 block test for a run of candidate keys (SettingsSearch.c), with what it keeps
// between candidates: AES-NI's round-key scratch, or an EVP context where AES-NI is absent.

#include "SettingsSearch.h"

#include <stddef.h>

typedef struct cipherprovider_block_test cipherprovider_block_test;

// A test of candidates against `page1` (the file's first `length` bytes, salt first; at least
// 512), which must outlive the test. NULL when OpenSSL fails or memory runs out.
cipherprovider_block_test *cipherprovider_block_test_new(const unsigned char *page1, size_t length);

enum { BLOCK_TEST_BATCH = 4 };

// As cipherprovider_block_matches, for the first `count` (1 to BLOCK_TEST_BATCH) of `keys`:
// 1 when one matches, with the first that does in `which` and its match in `match`.
int cipherprovider_block_test_run(cipherprovider_block_test *test, const unsigned char keys[BLOCK_TEST_BATCH][32], int count,
                                  cipherprovider_block_match *match, int *which);

// Wipes what the test kept of the keys, and frees it.
void cipherprovider_block_test_free(cipherprovider_block_test *test);

#endif
