#ifndef CIPHER_WX_PAGE_H
#define CIPHER_WX_PAGE_H

#include <stdint.h>

// The unauthenticated schemes SQLite3 Multiple Ciphers took over from wxSQLite3 (AES-128-CBC
// and AES-256-CBC) and System.Data.SQLite (RC4), read page by page without SQLite's pager
// (see WxPage.c). Reading only: cipherctl converts such files into SQLCipher, never writes one.

#define WXPAGE_AES128 1
#define WXPAGE_AES256 2
#define WXPAGE_RC4 3

// The scheme's key from a passphrase (of which the AES schemes read at most 32 bytes) into
// `out`. Returns the key's length (16 or 32), or 0 when OpenSSL fails or the scheme is unknown.
int wxpage_key(int scheme, const unsigned char *passphrase, int length, unsigned char out[32]);

// What a page codec of these schemes needs; the key is held by the caller in locked, zeroed memory.
typedef struct {
    int scheme;                 // WXPAGE_AES128, WXPAGE_AES256 or WXPAGE_RC4
    const unsigned char *key;   // wxpage_key's output
    int legacy;                 // page 1 encrypted whole (RC4 always); else its bytes 16 to 23 are plain
    int page_size;
} wxpage_codec;

// Decrypts `count` whole pages at `in`, the first numbered `first_pgno`, into `out`. Page 1
// decrypts to "SQLite format 3\0" first (outside legacy mode, its encrypted bytes 16 to 23
// stand at 8 to 15). With a page size of 32, page 1 of a legacy file decrypts its header
// alone: the page size of a file that shows none. Returns 1, or 0 when page 1 is among the
// pages and does not decrypt to a header (a wrong key or scheme), or -1 when OpenSSL fails.
int wxpage_decrypt_run(const wxpage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out);

#endif
