#ifndef CIPHER_PAGE_CODEC_H
#define CIPHER_PAGE_CODEC_H

#include <stdint.h>

// SQLCipher's page format read directly, without SQLite's pager (see PageCodec.c): the HMAC
// check of a page, its decryption, and the WAL checksum. Page numbers start at 1.

// What a page codec needs to know about a database; the keys are held by the caller in
// locked, zeroed memory and only borrowed here.
typedef struct {
    const unsigned char *key;        // the 32-byte page key
    const unsigned char *hmac_key;   // the 32-byte HMAC key (cipherpage_hmac_key), or NULL without HMAC
    int page_size;
    int reserve;                     // IV and HMAC bytes at the end of each page
    int hmac_digest;                 // 1, 256 or 512; 0 without HMAC
    int page1_offset;                // bytes of page 1 left unencrypted: 16 (the salt) or the plaintext header size
    int big_endian_pgno;             // 1 when the page number goes into the HMAC big-endian
} cipherpage_codec;

// SQLCipher's HMAC key: PBKDF2 of the page key with the salt XOR 0x3a, 2 iterations, the
// KDF digest (1, 256 or 512). Returns 1 on success.
int cipherpage_hmac_key(const unsigned char *key, const unsigned char *salt, int kdf_digest, unsigned char *out);

// Checks the HMACs of `count` whole pages at `pages`, the first numbered `first_pgno`:
// sets bad[i] to 1 for each page whose HMAC does not match (an all-zero page passes, as in
// SQLCipher). Returns the number of bad pages, or -1 when OpenSSL fails.
int cipherpage_check(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *bad);

// Decrypts one page into `out` (page_size bytes): page 1 begins with "SQLite format 3\0"
// (or its plaintext header). Returns 1 on success, 0 when OpenSSL fails.
int cipherpage_decrypt(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno, unsigned char *out);

// SQLite's WAL checksum over `length` bytes (a multiple of 8), continuing from s[0], s[1].
void cipherpage_wal_checksum(const unsigned char *data, int length, int big_endian, uint32_t *s);

#endif
