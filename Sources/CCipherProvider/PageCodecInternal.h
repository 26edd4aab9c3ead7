#ifndef CIPHER_PAGE_CODEC_INTERNAL_H
#define CIPHER_PAGE_CODEC_INTERNAL_H

// Shared by PageCodec.c (reading) and PageConvert.c (writing): the pieces that take OpenSSL
// contexts kept by the caller, so that a run of pages creates them once.

#include "PageCodec.h"

#include <stddef.h>
#include <openssl/evp.h>

// 1 when all `length` bytes are zero.
int cipherpage_all_zero(const unsigned char *bytes, int length);

// An HMAC context keyed with the codec's HMAC key and digest; NULL without HMAC or when
// OpenSSL fails. Free it with EVP_MAC_CTX_free.
EVP_MAC_CTX *cipherpage_keyed_mac(const cipherpage_codec *codec);

// The HMAC of the page on disk `page` (its ciphertext, IV and page number) into `out` (64
// bytes), its length into `length`. Returns 1 on success.
int cipherpage_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno, unsigned char *out,
                   size_t *length);

// 1 when the page's HMAC matches (or the page is all zeros, which SQLCipher lets pass), 0
// when it does not, -1 when OpenSSL fails.
int cipherpage_verify_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno);

// Readies `cipher` (kept by the caller, for one direction only) for AES-256-CBC without
// padding with `key` and `iv`; the key schedule is made again only when the key changes.
int cipherpage_cipher_init(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *iv, int encrypt);

// cipherpage_decrypt with a cipher context kept by the caller.
int cipherpage_decrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, const unsigned char *page, uint32_t pgno,
                            unsigned char *out);

#endif
