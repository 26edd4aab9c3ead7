// The cheap test at the heart of the settings search: does a candidate key decrypt the first
// encrypted block of page 1 to the bytes SQLite always writes there?
//
// Page 1 of a SQLCipher file holds the 16-byte salt where SQLite's "SQLite format 3\0" would
// be, then the page encrypted with AES-256-CBC from byte 16, with the IV at the start of the
// reserved bytes at the end of the page. Its first block decrypts to header bytes 16 to 31:
// the page size (big-endian, 1 for 65536), the write and read versions (1 or 2), the reserved
// bytes, and the payload fractions 64, 32, 32. One AES block decryption per key serves every
// page size and reserve: only the XOR with the IV differs. About 46 bits must agree, so a
// wrong key passes about once in 10^13 tries; the caller confirms a match with a real open.
// See https://www.sqlite.org/fileformat2.html#the_database_header

#include "AESBlock.h"
#include "BlockTest.h"
#include "OwnCrypto.h"
#include "SettingsSearch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

static int header_matches(const unsigned char *plain, int page_size) {
    int stored = (plain[0] << 8) | plain[1];
    if ((stored == 1 ? 65536 : stored) != page_size) return 0;
    return (plain[2] == 1 || plain[2] == 2) && (plain[3] == 1 || plain[3] == 2)
        && plain[5] == 64 && plain[6] == 32 && plain[7] == 32;
}

// Tries every page size and reserve with the decrypted (not yet XORed) block `decrypted`.
static int match_block(const unsigned char *decrypted, const unsigned char *page1, size_t length,
                       cipherprovider_block_match *match) {
    unsigned char plain[16];
    for (int page_size = 512; page_size <= 65536 && (size_t)page_size <= length; page_size *= 2) {
        for (int reserve = 16; reserve <= 96; reserve += 16) {
            const unsigned char *iv = page1 + page_size - reserve;
            // The fixed bytes first: most candidates fail on the first of them.
            if ((decrypted[5] ^ iv[5]) != 64 || (decrypted[6] ^ iv[6]) != 32) continue;
            for (int i = 0; i < 16; i++) plain[i] = decrypted[i] ^ iv[i];
            if (header_matches(plain, page_size)) {
                match->page_size = page_size;
                match->reserve = reserve;
                match->header_reserve = plain[4];
                OPENSSL_cleanse(plain, sizeof(plain));
                return 1;
            }
        }
    }
    OPENSSL_cleanse(plain, sizeof(plain));
    return 0;
}

struct cipherprovider_block_test {
    EVP_CIPHER_CTX *cipher;  // NULL when AES-NI decrypts
    unsigned char schedule[BLOCK_TEST_BATCH][15][16];
    unsigned char decrypted[BLOCK_TEST_BATCH][16];
    const unsigned char *page1;
    size_t length;
    // One bit for each value of decrypted bytes 5 and 6 that some page size and reserve
    // accepts: one lookup turns away all but about 1 in 1400 wrong keys.
    uint64_t pairs[1024];
};

static void note_pairs(cipherprovider_block_test *test, const unsigned char *page1, size_t length) {
    for (int page_size = 512; page_size <= 65536 && (size_t)page_size <= length; page_size *= 2) {
        for (int reserve = 16; reserve <= 96; reserve += 16) {
            const unsigned char *iv = page1 + page_size - reserve;
            unsigned pair = (unsigned)((iv[5] ^ 64) << 8 | (iv[6] ^ 32));
            test->pairs[pair >> 6] |= 1ULL << (pair & 63);
        }
    }
}

static int pair_possible(const cipherprovider_block_test *test, const unsigned char *decrypted) {
    unsigned pair = (unsigned)(decrypted[5] << 8 | decrypted[6]);
    return (test->pairs[pair >> 6] >> (pair & 63)) & 1;
}

// An AES-256-ECB decryption context without padding and without a key yet, rekeyed for
// every candidate: naming the cipher again on each call would fetch it from the provider
// again, which cost as much as the PBKDF2 iterations themselves.
static EVP_CIPHER_CTX *block_cipher_new(void) {
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    if (cipher != NULL
        && (!EVP_DecryptInit_ex(cipher, EVP_aes_256_ecb(), NULL, NULL, NULL) || !EVP_CIPHER_CTX_set_padding(cipher, 0))) {
        EVP_CIPHER_CTX_free(cipher);
        return NULL;
    }
    return cipher;
}

cipherprovider_block_test *cipherprovider_block_test_new(const unsigned char *page1, size_t length) {
    cipherprovider_block_test *test = calloc(1, sizeof *test);
    if (test == NULL) return NULL;
    test->page1 = page1;
    test->length = length;
    note_pairs(test, page1, length);
    if (cipherprovider_aes_block_available()) {
        cipherprovider_note_own_crypto();
        return test;
    }
    test->cipher = block_cipher_new();
    if (test->cipher == NULL) {
        free(test);
        return NULL;
    }
    return test;
}

// The first block of page 1 decrypted under each of the first `count` keys.
static int decrypt_blocks(cipherprovider_block_test *test, const unsigned char keys[BLOCK_TEST_BATCH][32], int count,
                          const unsigned char *in) {
    if (test->cipher == NULL) {
        cipherprovider_aes256_decrypt_block_x4(keys, in, test->decrypted, test->schedule);
        return 1;
    }
    for (int j = 0; j < count; j++) {
        int written = 0;
        if (!EVP_DecryptInit_ex(test->cipher, NULL, NULL, keys[j], NULL) || !EVP_DecryptUpdate(test->cipher, test->decrypted[j], &written, in, 16)
            || written != 16) return 0;
    }
    return 1;
}

int cipherprovider_block_test_run(cipherprovider_block_test *test, const unsigned char keys[BLOCK_TEST_BATCH][32], int count,
                                  cipherprovider_block_match *match, int *which) {
    if (!decrypt_blocks(test, keys, count, test->page1 + 16)) return -1;
    for (int j = 0; j < count; j++) {
        if (pair_possible(test, test->decrypted[j]) && match_block(test->decrypted[j], test->page1, test->length, match)) {
            *which = j;
            return 1;
        }
    }
    return 0;
}

void cipherprovider_block_test_free(cipherprovider_block_test *test) {
    if (test == NULL) return;
    EVP_CIPHER_CTX_free(test->cipher);
    OPENSSL_cleanse(test, sizeof *test);
    free(test);
}

int cipherprovider_block_matches(const unsigned char *key, const unsigned char *page1, size_t length,
                                 cipherprovider_block_match *match) {
    if (key == NULL || page1 == NULL || match == NULL || length < 512) return -1;
    unsigned char keys[BLOCK_TEST_BATCH][32] = {{0}};
    memcpy(keys[0], key, 32);
    int which = 0;
    cipherprovider_block_test *test = cipherprovider_block_test_new(page1, length);
    int found = test == NULL ? -1 : cipherprovider_block_test_run(test, keys, 1, match, &which);
    cipherprovider_block_test_free(test);
    OPENSSL_cleanse(keys, sizeof(keys));
    return found;
}
