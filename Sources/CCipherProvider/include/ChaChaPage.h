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
    const unsigned char *nonce; // NULL: a fresh random nonce a page; else these 16 bytes (tests placing the block counter)
} chachapage_codec;

// Bytes at the end of each page: a 16-byte nonce and a 16-byte Poly1305 tag.
#define CHACHAPAGE_RESERVE 32

// The master key: PBKDF2-HMAC-SHA256 of `passphrase` with the file's 16-byte salt. Returns 1
// on success, 0 when OpenSSL fails.
int chachapage_master_key(const unsigned char *passphrase, int length, const unsigned char *salt, int iterations, unsigned char *out);

// Checks the tags of `count` whole pages at `in`, the first numbered `first_pgno`, and
// decrypts them into `out` (page 1 begins with "SQLite format 3\0"; each reserve is kept as
// zeros); bad[i] is 1 for a page whose tag does not match (a wrong key, or damage), and its
// output is left as it was. Returns the number of bad pages, or -1 when OpenSSL fails.
int chachapage_decrypt_run(const chachapage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad);

// Encrypts `count` whole pages of a plaintext database from `in` into `out`, each with a
// fresh random nonce and its tag. Returns 1 on success, 0 when OpenSSL fails.
int chachapage_encrypt_run(const chachapage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out);

#endif
