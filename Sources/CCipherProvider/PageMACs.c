// Page HMACs for runs of pages. Each HMAC-SHA512 (SQLCipher 4) costs about as much as the
// rest of a page's crypto together, and OpenSSL computes one message at a time; eight pages
// of the same length go through SHA512x8.c instead when the CPU has AVX-512. Page 1 (its
// salt or plaintext header left out) and the pages that do not fill a group of eight go
// through OpenSSL, as do SHA1 and SHA256, which the CPU's SHA extensions already speed up.

#include "PageCodecInternal.h"
#include "AESCBCx16.h"
#include "OwnCrypto.h"

#include <stdatomic.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

static atomic_int hmac_lanes_wanted = 1;
static atomic_int aes_lanes_wanted = 1;

int cipherpage_use_lanes(int enabled) {
    cipherpage_use_aes_lanes(enabled);
    return cipherpage_use_hmac_lanes(enabled);
}

int cipherpage_use_hmac_lanes(int enabled) {
    atomic_store(&hmac_lanes_wanted, enabled);
    return enabled && cipherpage_sha512x8_available();
}

int cipherpage_use_aes_lanes(int enabled) {
    atomic_store(&aes_lanes_wanted, enabled);
    return enabled && cipherpage_aes_lanes_available();
}

int cipherpage_hmac_lanes_wanted(void) {
    return atomic_load(&hmac_lanes_wanted);
}

int cipherpage_aes_lanes_wanted(void) {
    return atomic_load(&aes_lanes_wanted);
}

int cipherpage_mac_state_init(cipherpage_mac_state *state, const cipherpage_codec *codec) {
    memset(state, 0, sizeof *state);
    if (codec->hmac_digest == 0) return 1;
    state->mac = cipherpage_keyed_mac(codec);
    if (state->mac == NULL) return 0;
    if (codec->hmac_digest == 512 && cipherpage_hmac_lanes_wanted() && cipherpage_sha512x8_available()) {
        state->lanes = OPENSSL_secure_malloc(sizeof *state->lanes);
        if (state->lanes == NULL) return 0;
        cipherprovider_note_own_crypto();
        cipherpage_hmac512x8_init(state->lanes, codec->hmac_key);
    }
    return 1;
}

void cipherpage_mac_state_free(cipherpage_mac_state *state) {
    EVP_MAC_CTX_free(state->mac);
    if (state->lanes != NULL) OPENSSL_secure_clear_free(state->lanes, sizeof *state->lanes);
    memset(state, 0, sizeof *state);
}

int cipherpage_mac_length(const cipherpage_codec *codec) {
    switch (codec->hmac_digest) {
    case 1: return 20;
    case 256: return 32;
    default: return 64;
    }
}

static void pgno_bytes(uint32_t pgno, int big_endian, unsigned char *out) {
    for (int i = 0; i < 4; i++) out[i] = (unsigned char)(pgno >> (big_endian ? 8 * (3 - i) : 8 * i));
}

static const char *cipherpage_digest_name(int digest) {
    switch (digest) {
    case 1: return "SHA1";
    case 256: return "SHA256";
    case 512: return "SHA512";
    default: return NULL;
    }
}

EVP_MAC_CTX *cipherpage_keyed_mac(const cipherpage_codec *codec) {
    const char *name = cipherpage_digest_name(codec->hmac_digest);
    if (name == NULL || codec->hmac_key == NULL) return NULL;
    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *mac = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    EVP_MAC_free(hmac);  // the context holds its own reference
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", (char *)name, 0), OSSL_PARAM_construct_end()};
    if (mac != NULL && !EVP_MAC_init(mac, codec->hmac_key, 32, params)) {
        EVP_MAC_CTX_free(mac);
        return NULL;
    }
    return mac;
}

int cipherpage_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno, unsigned char *out,
                   size_t *length) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    int size = codec->page_size - codec->reserve - offset;
    unsigned char pgno_raw[4];
    pgno_bytes(pgno, codec->big_endian_pgno, pgno_raw);
    return EVP_MAC_init(mac, NULL, 0, NULL) && EVP_MAC_update(mac, page + offset, size + 16) && EVP_MAC_update(mac, pgno_raw, 4)
        && EVP_MAC_final(mac, out, length, 64);
}


// Eight pages from `pages`, none of them page 1.
static void macs_in_lanes(const cipherpage_codec *codec, const cipherpage_hmac512_key *lanes, const unsigned char *pages, uint32_t first_pgno,
                          unsigned char *macs) {
    const unsigned char *bodies[8];
    unsigned char suffixes[8][4];
    unsigned char *out[8];
    for (int lane = 0; lane < 8; lane++) {
        bodies[lane] = pages + (size_t)lane * (size_t)codec->page_size;
        pgno_bytes(first_pgno + (uint32_t)lane, codec->big_endian_pgno, suffixes[lane]);
        out[lane] = macs + 64 * lane;
    }
    cipherpage_hmac512x8(lanes, bodies, (size_t)(codec->page_size - codec->reserve + 16), (const unsigned char(*)[4])suffixes, out);
}

int cipherpage_macs(const cipherpage_codec *codec, const cipherpage_mac_state *state, const unsigned char *pages, uint32_t first_pgno,
                    int count, unsigned char *macs) {
    int i = 0;
    while (i < count) {
        uint32_t pgno = first_pgno + (uint32_t)i;
        const unsigned char *page = pages + (size_t)i * (size_t)codec->page_size;
        if (state->lanes != NULL && count - i >= 8 && pgno > 1) {
            macs_in_lanes(codec, state->lanes, page, pgno, macs + 64 * (size_t)i);
            i += 8;
            continue;
        }
        size_t length = 0;
        if (!cipherpage_mac(codec, state->mac, page, pgno, macs + 64 * (size_t)i, &length)) return 0;
        i += 1;
    }
    return 1;
}

int cipherpage_mac_matches(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno, const unsigned char *mac) {
    if (CRYPTO_memcmp(mac, page + codec->page_size - codec->reserve + 16, (size_t)cipherpage_mac_length(codec)) == 0) return 1;
    return cipherpage_empty_lock_page(codec, page, pgno);
}

int cipherpage_page_macs(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *macs) {
    cipherpage_mac_state state = {0};
    int ok = codec->hmac_digest != 0 && cipherpage_mac_state_init(&state, codec) && cipherpage_macs(codec, &state, pages, first_pgno, count, macs);
    cipherpage_mac_state_free(&state);
    return ok;
}
