#ifndef CIPHER_CHACHA_PAGE_H
#define CIPHER_CHACHA_PAGE_H

#include <stdint.h>

// SQLite3 Multiple Ciphers' ChaCha20 scheme (sqleet's format), read and written page by page
// without SQLite's pager (see ChaChaPage.c). Every operation goes through OpenSSL's EVP
// interface: ChaCha20 as an EVP cipher, Poly1305 as an EVP MAC, PBKDF2 as an EVP KDF.

// What a ChaCha20 page codec needs; the key is held by the caller in locked, zeroed memory.
typedef struct {
    const unsigned char *key;   // the 32-byte master key (PBKDF2-HMAC-SHA256 of the passphrase)
    const unsigned char *salt;  // the 16 bytes page 1 begins with (writing only)
    int page_size;
    int skip;                   // bytes of page 1 left unencrypted: 24 (bytes 16 to 23 plain) or 0 (legacy)
} chachapage_codec;

// Bytes at the end of each page: a 16-byte nonce and a 16-byte Poly1305 tag.
#define CHACHAPAGE_RESERVE 32

// The master key: PBKDF2-HMAC-SHA256 of `passphrase` with the file's 16-byte salt. Returns 1
// on success, 0 when OpenSSL fails.
int chachapage_master_key(const unsigned char *passphrase, int length, const unsigned char *salt, int iterations, unsigned char *out);

// Checks page `pgno`'s tag and decrypts it into `out` (page_size bytes; page 1 begins with
// "SQLite format 3\0", its reserve is kept as zeros). Returns 1 when the tag matches, 0
// when it does not (a wrong key, or a damaged page), -1 when OpenSSL fails.
int chachapage_decrypt(const chachapage_codec *codec, const unsigned char *page, uint32_t pgno, unsigned char *out);

// Encrypts page `pgno` of a plaintext database (page_size bytes) into `out` with a fresh
// random nonce and its tag. Returns 1 on success, 0 when OpenSSL fails.
int chachapage_encrypt(const chachapage_codec *codec, const unsigned char *plain, uint32_t pgno, unsigned char *out);

#endif
