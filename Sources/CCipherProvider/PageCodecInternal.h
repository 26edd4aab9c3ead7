#ifndef CIPHER_PAGE_CODEC_INTERNAL_H
#define CIPHER_PAGE_CODEC_INTERNAL_H

// Shared by PageCodec.c (reading) and PageConvert.c (writing): the pieces that take OpenSSL
// contexts kept by the caller, so that a run of pages creates them once.

#include "PageCodec.h"
#include "SHA512x8.h"

#include <stddef.h>
#include <openssl/evp.h>

// 1 when all `length` bytes are zero.
int cipherpage_all_zero(const unsigned char *bytes, int length);
int cipherpage_empty_lock_page(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno);

// An HMAC context keyed with the codec's HMAC key and digest; NULL without HMAC or when
// OpenSSL fails. Free it with EVP_MAC_CTX_free.
EVP_MAC_CTX *cipherpage_keyed_mac(const cipherpage_codec *codec);

// The HMAC of the page on disk `page` (its ciphertext, IV and page number) into `out` (64
// bytes), its length into `length`. Returns 1 on success.
int cipherpage_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno, unsigned char *out,
                   size_t *length);

// How one run of pages computes its HMACs: OpenSSL's context, and for HMAC-SHA512 on a CPU
// with AVX-512 also the eight-lane key (PageMACs.c).
typedef struct {
    EVP_MAC_CTX *mac;                 // NULL without HMAC
    cipherpage_hmac512_key *lanes;    // NULL when pages go one at a time
} cipherpage_mac_state;

// 1 unless cipherpage_use_hmac_lanes (or cipherpage_use_aes_lanes) turned those lanes off.
int cipherpage_hmac_lanes_wanted(void);
int cipherpage_aes_lanes_wanted(void);

// Readies `state` for the codec's HMAC; returns 0 when OpenSSL fails.
int cipherpage_mac_state_init(cipherpage_mac_state *state, const cipherpage_codec *codec);

// Frees the state and wipes its keyed words.
void cipherpage_mac_state_free(cipherpage_mac_state *state);

// The HMAC digest's length in bytes: 20, 32 or 64.
int cipherpage_mac_length(const cipherpage_codec *codec);

// The HMACs of `count` whole pages at `pages`, the first numbered `first_pgno`, into `macs`
// (64 bytes a page); eight pages at a time where the state has lanes. Returns 1 on success.
int cipherpage_macs(const cipherpage_codec *codec, const cipherpage_mac_state *state, const unsigned char *pages, uint32_t first_pgno,
                    int count, unsigned char *macs);

// 1 when `mac` is the page's stored HMAC (or the page is all zeros, which SQLCipher lets pass).
int cipherpage_mac_matches(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno, const unsigned char *mac);

// Readies `cipher` (kept by the caller, for one direction only) for AES-256-CBC without
// padding with `key` and `iv`; the key schedule is made again only when the key changes.
int cipherpage_cipher_init(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *iv, int encrypt);

// cipherpage_decrypt with a cipher context kept by the caller.
int cipherpage_decrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, const unsigned char *page, uint32_t pgno,
                            unsigned char *out);

#endif
