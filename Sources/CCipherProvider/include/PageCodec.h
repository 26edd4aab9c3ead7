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
    const unsigned char *salt;       // the 16 bytes page 1 begins with when page1_offset is 16 (writing only):
                                     // the salt, or SQLite's magic under a 16-byte plaintext header
} cipherpage_codec;

// SQLCipher's HMAC key: PBKDF2 of the page key with the salt XOR 0x3a, `iterations` of it (2,
// unless the file was written under PRAGMA fast_kdf_iter), the KDF digest (1, 256 or 512).
// Returns 1 on success.
int cipherpage_hmac_key(const unsigned char *key, const unsigned char *salt, int iterations, int kdf_digest, unsigned char *out);

// The same with the salt XOR `mask` instead of 0x3a, for files written under SQLCipher's
// deprecated PRAGMA cipher_hmac_salt_mask.
int cipherpage_hmac_key_masked(const unsigned char *key, const unsigned char *salt, int iterations, int kdf_digest, unsigned char mask,
                               unsigned char *out);

// Checks the HMACs of `count` whole pages at `pages`, the first numbered `first_pgno`:
// sets bad[i] to 1 for each page whose HMAC does not match (an all-zero page passes, as in
// SQLCipher). Returns the number of bad pages, or -1 when OpenSSL fails.
int cipherpage_check(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *bad);

// Decrypts one page into `out` (page_size bytes): page 1 begins with "SQLite format 3\0"
// (or its plaintext header). Returns 1 on success, 0 when OpenSSL fails.
int cipherpage_decrypt(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno, unsigned char *out);

// Writes page `pgno` encrypted: `plain` is its plaintext (page_size bytes; page 1 begins with
// "SQLite format 3\0"), `out` receives the page as it goes on disk, with a fresh random IV
// and the HMAC in its reserve. Returns 1 on success, 0 when OpenSSL fails.
int cipherpage_encrypt(const cipherpage_codec *codec, const unsigned char *plain, uint32_t pgno, unsigned char *out);

// What cipherpage_convert found wrong with a page.
enum {
    CIPHERPAGE_OK = 0,
    CIPHERPAGE_SOURCE_HMAC = 1,  // the source page fails its HMAC
    CIPHERPAGE_ROUND_TRIP = 2,   // the written page does not decrypt back to the source's plaintext
};

// A run of whole pages: `count` pages at `input`, the first numbered `first_pgno`, written
// to `output`, with what was wrong with each page in bad[i].
typedef struct {
    const unsigned char *input;
    uint32_t first_pgno;
    int count;
    unsigned char *output;
    unsigned char *bad;
} cipherpage_pages;

// Re-encrypts the run's pages (read with `from`) into its output (written with `to`). Each
// page's HMAC is checked, the page decrypted and encrypted again; the written page is then
// decrypted back, and its plaintext must equal the source's byte for byte (the reserve
// aside). Sets bad[i] to a CIPHERPAGE_ value. Both codecs must have the same page size and
// reserve. Returns the number of bad pages, or -1 when OpenSSL fails.
int cipherpage_convert(const cipherpage_codec *from, const cipherpage_codec *to, const cipherpage_pages *pages);

// Decrypts `count` whole pages from `in` into `out` as a plaintext SQLite database's pages
// (the reserve kept as zeros, so the page layout and header stay valid), checking each
// page's HMAC first; sets bad[i] to CIPHERPAGE_SOURCE_HMAC for a page that fails it. Returns
// the number of bad pages, or -1 when OpenSSL fails.
int cipherpage_decrypt_run(const cipherpage_codec *from, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad);

// Encrypts `count` whole pages of a plaintext database from `in` into `out` (page 1 begins
// with "SQLite format 3\0" or the plaintext header), each with a fresh random IV and its
// HMAC; each written page is decrypted back and must equal its source page byte for byte,
// the reserve aside. Sets bad[i] to CIPHERPAGE_ROUND_TRIP for a page that does not. Returns
// the number of bad pages, or -1 when OpenSSL fails.
int cipherpage_encrypt_run(const cipherpage_codec *to, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad);

// Whether runs of HMAC-SHA512 pages may go eight at a time on AVX-512, and runs of pages be
// encrypted sixteen at a time with VAES (both the default; tests turn them off, together or
// each alone, to compare with OpenSSL's one page at a time). Each returns 1 when its lanes
// will run: cipherpage_use_lanes sets both and answers for the HMAC lanes.
int cipherpage_use_lanes(int enabled);
int cipherpage_use_hmac_lanes(int enabled);
int cipherpage_use_aes_lanes(int enabled);

// The HMACs of `count` whole pages at `pages`, the first numbered `first_pgno`, into `macs`
// (64 bytes a page, the digest's length used), as the runs above compute them. Returns 1 on
// success, 0 without HMAC or when OpenSSL fails.
int cipherpage_page_macs(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *macs);

// Starts writing back `length` bytes of the file at `offset` without waiting (Linux's
// sync_file_range; nothing elsewhere), so that a later fsync has little left to wait for. Only
// a hint: the fsync is what makes the bytes durable.
void cipherpage_start_writeback(int descriptor, int64_t offset, int64_t length);

// SQLite's WAL checksum over `length` bytes (a multiple of 8), continuing from s[0], s[1].
void cipherpage_wal_checksum(const unsigned char *data, int length, int big_endian, uint32_t *s);

#endif
