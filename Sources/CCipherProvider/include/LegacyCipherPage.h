#ifndef CIPHER_LEGACY_CIPHER_PAGE_H
#define CIPHER_LEGACY_CIPHER_PAGE_H

#include <stdint.h>

// SQLCipher 1 to 3 files written under a `PRAGMA cipher` other than AES-256-CBC, which
// SQLCipher 4 no longer reads, decrypted page by page without SQLite's pager (see
// LegacyCipherPage.c). Reading only.

#define LEGACYPAGE_AES128_CBC 1
#define LEGACYPAGE_AES192_CBC 2
#define LEGACYPAGE_AES256_CFB 3
#define LEGACYPAGE_AES128_CFB 4

// The page key and the HMAC key from a passphrase: PBKDF2-HMAC-SHA1 over the salt with
// `iterations`, then over the salt XOR 0x3a with 2, each as long as the cipher's key. Returns
// the key length (16, 24 or 32), or 0 when OpenSSL fails or the cipher is unknown.
int legacypage_keys(int cipher, const unsigned char *passphrase, int length, const unsigned char salt[16], int iterations,
                    unsigned char keys[64]);

// The HMAC key under HMAC salt mask `mask` (0x3a unless the file was written under the
// deprecated `PRAGMA cipher_hmac_salt_mask`): PBKDF2-HMAC-SHA1 of the page key over the salt
// XOR the mask, 2 iterations. Returns the key length, or 0 as legacypage_keys does.
int legacypage_hmac_key(int cipher, const unsigned char *key, const unsigned char salt[16], int mask, unsigned char hmac_key[32]);

// What a page codec needs; the keys are held by the caller in zeroed memory.
typedef struct {
    int cipher;                   // LEGACYPAGE_*
    const unsigned char *key;     // legacypage_keys' output
    const unsigned char *hmac_key;
    int use_hmac;                 // 0 for SQLCipher 1: a reserve of the IV alone
    int page_size;
    int big_endian_pgno;          // 1 for SQLCipher 2.0 files written on a big-endian machine
} legacypage_codec;

// Decrypts `count` whole pages at `in`, the first page 1, into `out` (page 1 beginning with
// "SQLite format 3\0", every reserve zeroed). Returns 0 when every page holds, -1 when
// OpenSSL fails, else the number of the first page that fails its HMAC, or 1 for a page 1
// whose decrypted header does not show its page size and reserve (a wrong key or cipher).
// Whether page `pgno` (one page at `page`) passes its HMAC; 0 without one.
int legacypage_mac_holds(const legacypage_codec *codec, const unsigned char *page, uint32_t pgno);

int64_t legacypage_decrypt_run(const legacypage_codec *codec, const unsigned char *in, int count, unsigned char *out);

// Whether page 1 at `page1` decrypts to a header that shows its page size and reserve, its
// HMAC unchecked: the right key and cipher under another HMAC salt mask. 1 or 0; -1 when
// OpenSSL fails or the cipher is unknown.
int legacypage_header_decrypts(const legacypage_codec *codec, const unsigned char *page1);

#endif
