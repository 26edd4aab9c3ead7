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

#include "SettingsSearch.h"

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

// An AES-256-ECB decryption context without padding and without a key yet. The search
// rekeys it for every candidate: naming the cipher again on each call would fetch it from the
// provider again, which cost as much as the PBKDF2 iterations themselves.
EVP_CIPHER_CTX *cipherprovider_block_cipher_new(void) {
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    if (cipher != NULL
        && (!EVP_DecryptInit_ex(cipher, EVP_aes_256_ecb(), NULL, NULL, NULL) || !EVP_CIPHER_CTX_set_padding(cipher, 0))) {
        EVP_CIPHER_CTX_free(cipher);
        return NULL;
    }
    return cipher;
}

// The test with a context from cipherprovider_block_cipher_new that the caller keeps.
int cipherprovider_block_matches_in(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *page1, size_t length,
                                    cipherprovider_block_match *match) {
    unsigned char decrypted[16];
    int written = 0, found = -1;
    if (EVP_DecryptInit_ex(cipher, NULL, NULL, key, NULL)
        && EVP_DecryptUpdate(cipher, decrypted, &written, page1 + 16, 16) && written == 16) {
        found = match_block(decrypted, page1, length, match);
    }
    OPENSSL_cleanse(decrypted, sizeof(decrypted));
    return found;
}

int cipherprovider_block_matches(const unsigned char *key, const unsigned char *page1, size_t length,
                                 cipherprovider_block_match *match) {
    if (key == NULL || page1 == NULL || match == NULL || length < 512) return -1;
    EVP_CIPHER_CTX *cipher = cipherprovider_block_cipher_new();
    int found = cipher == NULL ? -1 : cipherprovider_block_matches_in(cipher, key, page1, length, match);
    EVP_CIPHER_CTX_free(cipher);
    return found;
}
