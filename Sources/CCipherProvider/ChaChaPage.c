// SQLite3 Multiple Ciphers' ChaCha20 scheme, the format sqleet introduced, read and written
// page by page. A page holds its ciphertext, then a 16-byte nonce and a 16-byte Poly1305 tag.
// The nonce's last four bytes (little-endian) XOR the page number give a block counter: the
// ChaCha20 block at that counter, under the master key and the nonce's first twelve bytes,
// is two one-time keys, the first for Poly1305, the second for ChaCha20 over the page from
// the next block on. The tag covers the page as stored, nonce included. Page 1 begins with
// the salt, and keeps its bytes 16 to 23 plain unless in legacy mode.
// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_chacha20/
//
// Only OpenSSL's EVP interface is used, so that a FIPS mode can refuse the scheme as a whole.

#include "ChaChaPage.h"

#include <string.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

static const unsigned char sqlite_magic[16] = "SQLite format 3";

int chachapage_master_key(const unsigned char *passphrase, int length, const unsigned char *salt, int iterations, unsigned char *out) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "PBKDF2", NULL);
    EVP_KDF_CTX *context = kdf != NULL ? EVP_KDF_CTX_new(kdf) : NULL;
    unsigned int count = (unsigned int)iterations;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)passphrase, (size_t)length),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, 16),
        OSSL_PARAM_construct_uint(OSSL_KDF_PARAM_ITER, &count),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0),
        OSSL_PARAM_construct_end(),
    };
    int ok = context != NULL && EVP_KDF_derive(context, out, 32, params) == 1;
    EVP_KDF_CTX_free(context);
    EVP_KDF_free(kdf);
    return ok;
}

// The OpenSSL objects a run of pages reuses: one cipher context, one Poly1305 context.
typedef struct {
    EVP_CIPHER_CTX *cipher;
    EVP_MAC *mac;
    EVP_MAC_CTX *poly1305;
} run_state;

static void run_state_free(run_state *state) {
    EVP_CIPHER_CTX_free(state->cipher);
    EVP_MAC_CTX_free(state->poly1305);
    EVP_MAC_free(state->mac);
}

static int run_state_init(run_state *state) {
    state->cipher = EVP_CIPHER_CTX_new();
    state->mac = EVP_MAC_fetch(NULL, "POLY1305", NULL);
    state->poly1305 = state->mac != NULL ? EVP_MAC_CTX_new(state->mac) : NULL;
    return state->cipher != NULL && state->poly1305 != NULL && EVP_EncryptInit_ex(state->cipher, EVP_chacha20(), NULL, NULL, NULL);
}

// XORs `length` bytes with the keystream of `key` and the nonce's first twelve bytes from
// block `counter` on. A counter that overflows inside a page carries into the nonce's first
// word, in OpenSSL as in SQLite3 Multiple Ciphers (ChaChaPageTests places such a page).
static int chacha_xor(run_state *state, const unsigned char *key, const unsigned char *nonce, uint32_t counter, unsigned char *data, int length) {
    unsigned char iv[16] = {(unsigned char)counter, (unsigned char)(counter >> 8), (unsigned char)(counter >> 16), (unsigned char)(counter >> 24)};
    memcpy(iv + 4, nonce, 12);
    int written = 0;
    return EVP_EncryptInit_ex(state->cipher, NULL, NULL, key, iv) && EVP_EncryptUpdate(state->cipher, data, &written, data, length);
}

static int poly1305(run_state *state, const unsigned char *key, const unsigned char *data, int length, unsigned char *tag) {
    size_t written = 0;
    return EVP_MAC_init(state->poly1305, key, 32, NULL) && EVP_MAC_update(state->poly1305, data, (size_t)length)
        && EVP_MAC_final(state->poly1305, tag, &written, 16) && written == 16;
}

// The page's two one-time keys (Poly1305's, then ChaCha20's) into `keys`, and the counter
// they were made at into `counter`.
static int one_time_keys(run_state *state, const unsigned char *key, const unsigned char *nonce, uint32_t pgno, unsigned char *keys,
                         uint32_t *counter) {
    *counter = ((uint32_t)nonce[12] | (uint32_t)nonce[13] << 8 | (uint32_t)nonce[14] << 16 | (uint32_t)nonce[15] << 24) ^ pgno;
    memset(keys, 0, 64);
    return chacha_xor(state, key, nonce, *counter, keys, 64);
}

// 1 when the page's tag matches (and `out` holds its plaintext), 0 when not, -1 when OpenSSL fails.
static int decrypt_page(run_state *state, const chachapage_codec *codec, const unsigned char *page, uint32_t pgno, unsigned char *out) {
    const int used = codec->page_size - CHACHAPAGE_RESERVE;
    const int skip = pgno == 1 ? codec->skip : 0;
    const unsigned char *nonce = page + used;
    unsigned char keys[64], tag[16];
    uint32_t counter = 0;
    int ok = one_time_keys(state, codec->key, nonce, pgno, keys, &counter) && poly1305(state, keys, page, used + 16, tag);
    int matches = ok && CRYPTO_memcmp(tag, page + used + 16, 16) == 0;
    if (matches) {
        memcpy(out, page, (size_t)used);
        memset(out + used, 0, CHACHAPAGE_RESERVE);
        ok = chacha_xor(state, keys + 32, nonce, counter + 1, out + skip, used - skip);
        if (pgno == 1) memcpy(out, sqlite_magic, 16);
    }
    OPENSSL_cleanse(keys, sizeof keys);
    return ok ? matches : -1;
}

static int encrypt_page(run_state *state, const chachapage_codec *codec, const unsigned char *plain, uint32_t pgno, unsigned char *out) {
    const int used = codec->page_size - CHACHAPAGE_RESERVE;
    const int skip = pgno == 1 ? codec->skip : 0;
    unsigned char *nonce = out + used;
    unsigned char keys[64];
    uint32_t counter = 0;
    memcpy(out, plain, (size_t)used);
    if (codec->nonce != NULL) memcpy(nonce, codec->nonce, 16);
    int ok = (codec->nonce != NULL || RAND_bytes(nonce, 16) == 1) && one_time_keys(state, codec->key, nonce, pgno, keys, &counter)
        && chacha_xor(state, keys + 32, nonce, counter + 1, out + skip, used - skip);
    if (ok && pgno == 1) memcpy(out, codec->salt, 16);
    ok = ok && poly1305(state, keys, out, used + 16, out + used + 16);
    OPENSSL_cleanse(keys, sizeof keys);
    return ok;
}

int chachapage_decrypt_run(const chachapage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad) {
    run_state state = {0};
    int found = run_state_init(&state) ? 0 : -1;
    for (int i = 0; i < count && found >= 0; i++) {
        size_t offset = (size_t)i * (size_t)codec->page_size;
        int result = decrypt_page(&state, codec, in + offset, first_pgno + (uint32_t)i, out + offset);
        bad[i] = result == 0;
        found = result < 0 ? -1 : found + bad[i];
    }
    run_state_free(&state);
    return found;
}

int chachapage_encrypt_run(const chachapage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out) {
    run_state state = {0};
    int ok = run_state_init(&state);
    for (int i = 0; i < count && ok; i++) {
        size_t offset = (size_t)i * (size_t)codec->page_size;
        ok = encrypt_page(&state, codec, in + offset, first_pgno + (uint32_t)i, out + offset);
    }
    run_state_free(&state);
    return ok;
}
