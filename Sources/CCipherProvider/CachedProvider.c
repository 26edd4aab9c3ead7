// A crypto provider for SQLCipher 4.6 that does the same work as its OpenSSL provider
// (AES-256-CBC without padding, HMAC-SHA1/256/512, and everything else handed to the
// OpenSSL provider itself) but keeps its OpenSSL objects between pages.
//
// SQLCipher's OpenSSL provider, built against OpenSSL 3, looks up the HMAC implementation
// by name, allocates a MAC context, sets up the key (two hash blocks) and frees it all again
// for every page it authenticates, and does the same with a cipher context for every page
// it encrypts or decrypts. Here each codec context keeps one cipher context per direction
// and one MAC context per digest; they are set up again only when the key changes (a
// constant-time comparison with a copy of the key held in SQLCipher's locked, wiped memory).
// The bytes written are the same: only the cost of preparing OpenSSL changes. Key
// derivations go through PBKDF2.c, which gives the same bytes as OpenSSL's PBKDF2 faster.
//
// The provider interface is SQLCipher's (sqlcipher_register_provider, exported by
// libsqlcipher but declared only in its internal sqlcipher.h); its layout is the one of
// SQLCipher 4.6, and CipherKit installs this provider only when the linked library says it
// is 4.6 with the OpenSSL provider. SQLCipher frees the registered provider when its last
// keyed connection closes and registers its own again at the next one, so installing keeps
// one keyed in-memory connection (never used, never derives a key) open for the process.
//
// This is a C target of its own, not a header of CSQLCipher: its state must exist once in
// the process, and static functions in an imported header are copied into every Swift
// module that inlines a caller (release builds did, so the provider it registered and the
// one it checked for were different copies).

#include "CipherProvider.h"

#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

typedef struct {
    int (*activate)(void *ctx);
    int (*deactivate)(void *ctx);
    const char *(*get_provider_name)(void *ctx);
    int (*add_random)(void *ctx, void *buffer, int length);
    int (*random)(void *ctx, void *buffer, int length);
    int (*hmac)(void *ctx, int algorithm, unsigned char *hmac_key, int key_sz, unsigned char *in, int in_sz,
                unsigned char *in2, int in2_sz, unsigned char *out);
    int (*kdf)(void *ctx, int algorithm, const unsigned char *pass, int pass_sz, unsigned char *salt, int salt_sz,
               int workfactor, int key_sz, unsigned char *key);
    int (*cipher)(void *ctx, int mode, unsigned char *key, int key_sz, unsigned char *iv, unsigned char *in, int in_sz,
                  unsigned char *out);
    const char *(*get_cipher)(void *ctx);
    int (*get_key_sz)(void *ctx);
    int (*get_iv_sz)(void *ctx);
    int (*get_block_sz)(void *ctx);
    int (*get_hmac_sz)(void *ctx, int algorithm);
    int (*ctx_init)(void **ctx);
    int (*ctx_free)(void **ctx);
    int (*fips_status)(void *ctx);
    const char *(*get_provider_version)(void *ctx);
} csqlcipher_provider_v46;

extern int sqlcipher_register_provider(void *provider);
extern void *sqlcipher_get_provider(void);
extern void *sqlcipher_malloc(sqlite3_uint64 size);
extern void sqlcipher_free(void *pointer, sqlite3_uint64 size);

enum { CSQLCIPHER_MAX_KEY = 64, CSQLCIPHER_DIGESTS = 3 };

typedef struct {
    EVP_CIPHER_CTX *cipher[2];
    unsigned char cipher_key[2][CSQLCIPHER_MAX_KEY];
    int cipher_key_size[2];
    EVP_MAC_CTX *mac[CSQLCIPHER_DIGESTS];
    unsigned char mac_key[CSQLCIPHER_DIGESTS][CSQLCIPHER_MAX_KEY];
    int mac_key_size[CSQLCIPHER_DIGESTS];
} csqlcipher_cached_state;

typedef struct {
    csqlcipher_provider_v46 openssl;  // SQLCipher's own functions, for all the rest
    EVP_CIPHER *aes_256_cbc;  // fetched at the first page (a fetch loads OpenSSL's provider:
    EVP_MAC *hmac;            // about a millisecond that `--version` does not need)
    sqlite3 *anchor;
    int installed;
} csqlcipher_cached_globals;

// Set once, under CipherKit's lock, before the provider is registered.
static csqlcipher_cached_globals csqlcipher_globals;

static csqlcipher_cached_globals *csqlcipher_cached(void) {
    return &csqlcipher_globals;
}

static void csqlcipher_cached_fetch(void) {
    csqlcipher_cached()->aes_256_cbc = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
    csqlcipher_cached()->hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
}

static pthread_once_t csqlcipher_fetch_once = PTHREAD_ONCE_INIT;

// Whether AES-256-CBC and HMAC are fetched (once per process, on the first call).
static int csqlcipher_cached_algorithms(void) {
    pthread_once(&csqlcipher_fetch_once, csqlcipher_cached_fetch);
    return csqlcipher_cached()->aes_256_cbc != NULL && csqlcipher_cached()->hmac != NULL;
}

static int csqlcipher_cached_ctx_init(void **ctx) {
    int rc = csqlcipher_cached()->openssl.ctx_init(ctx);
    if (rc != SQLITE_OK) return rc;
    csqlcipher_cached_state *state = sqlcipher_malloc(sizeof(csqlcipher_cached_state));
    if (state == NULL) {
        csqlcipher_cached()->openssl.ctx_free(ctx);
        return SQLITE_NOMEM;
    }
    *ctx = state;  // sqlcipher_malloc returns zeroed memory
    return SQLITE_OK;
}

static int csqlcipher_cached_ctx_free(void **ctx) {
    csqlcipher_cached_state *state = *ctx;
    if (state != NULL) {
        for (int i = 0; i < 2; i++) EVP_CIPHER_CTX_free(state->cipher[i]);
        for (int i = 0; i < CSQLCIPHER_DIGESTS; i++) EVP_MAC_CTX_free(state->mac[i]);
        OPENSSL_cleanse(state, sizeof(*state));
        sqlcipher_free(state, sizeof(*state));
    }
    *ctx = NULL;
    return csqlcipher_cached()->openssl.ctx_free(ctx);
}

static int csqlcipher_cached_cipher(void *ctx, int mode, unsigned char *key, int key_sz, unsigned char *iv,
                                    unsigned char *in, int in_sz, unsigned char *out) {
    csqlcipher_cached_state *state = ctx;
    if (state == NULL || key_sz <= 0 || key_sz > CSQLCIPHER_MAX_KEY || !csqlcipher_cached_algorithms()) {
        return csqlcipher_cached()->openssl.cipher(ctx, mode, key, key_sz, iv, in, in_sz, out);
    }
    int direction = mode ? 1 : 0, written = 0, last = 0;
    EVP_CIPHER_CTX *cipher = state->cipher[direction];
    if (cipher == NULL) {
        cipher = state->cipher[direction] = EVP_CIPHER_CTX_new();
        if (cipher == NULL) return SQLITE_ERROR;
    }
    if (state->cipher_key_size[direction] == key_sz && CRYPTO_memcmp(state->cipher_key[direction], key, key_sz) == 0) {
        if (!EVP_CipherInit_ex2(cipher, NULL, NULL, iv, direction, NULL)) return SQLITE_ERROR;
    } else {
        state->cipher_key_size[direction] = 0;
        if (!EVP_CipherInit_ex2(cipher, csqlcipher_cached()->aes_256_cbc, key, iv, direction, NULL)) return SQLITE_ERROR;
        if (!EVP_CIPHER_CTX_set_padding(cipher, 0)) return SQLITE_ERROR;
        memcpy(state->cipher_key[direction], key, key_sz);
        state->cipher_key_size[direction] = key_sz;
    }
    if (!EVP_CipherUpdate(cipher, out, &written, in, in_sz)) return SQLITE_ERROR;
    if (!EVP_CipherFinal_ex(cipher, out + written, &last)) return SQLITE_ERROR;
    return written + last == in_sz ? SQLITE_OK : SQLITE_ERROR;
}

// Set on this thread only by cipherprovider_trust_proven_pages.
static _Thread_local const unsigned char *csqlcipher_proven;
static _Thread_local unsigned csqlcipher_proven_count;
static _Thread_local int csqlcipher_proven_big_endian;

void cipherprovider_trust_proven_pages(const unsigned char *map, unsigned pages, int big_endian_pgno) {
    csqlcipher_proven = map;
    csqlcipher_proven_count = pages;
    csqlcipher_proven_big_endian = big_endian_pgno != 0;
}

void cipherprovider_mark_proven(unsigned char *map, unsigned pgno) {
    __atomic_store_n(&map[pgno], 1, __ATOMIC_RELEASE);
}

// Whether the page whose number SQLCipher hashes after its bytes (`in2`) is one the map on
// this thread marks proven.
static int csqlcipher_page_proven(const unsigned char *in2, int in2_sz) {
    if (csqlcipher_proven == NULL || in2 == NULL || in2_sz != 4) return 0;
    unsigned pgno = csqlcipher_proven_big_endian
        ? (unsigned)in2[0] << 24 | (unsigned)in2[1] << 16 | (unsigned)in2[2] << 8 | in2[3]
        : (unsigned)in2[3] << 24 | (unsigned)in2[2] << 16 | (unsigned)in2[1] << 8 | in2[0];
    return pgno >= 1 && pgno <= csqlcipher_proven_count && __atomic_load_n(&csqlcipher_proven[pgno], __ATOMIC_ACQUIRE) != 0;
}

static int csqlcipher_cached_hmac(void *ctx, int algorithm, unsigned char *hmac_key, int key_sz, unsigned char *in,
                                  int in_sz, unsigned char *in2, int in2_sz, unsigned char *out) {
    static const char *const digests[CSQLCIPHER_DIGESTS] = {"SHA1", "SHA256", "SHA512"};
    static const size_t sizes[CSQLCIPHER_DIGESTS] = {20, 32, 64};
    // SQLCipher keeps a page's HMAC right after the bytes it covers. On a write it computes
    // it into that place; on a read into a buffer of its own, to compare with the stored one.
    // A read of a page this thread has already checked takes the stored HMAC as computed.
    if (csqlcipher_page_proven(in2, in2_sz) && in != NULL && in_sz > 0 && out != in + in_sz
        && algorithm >= 0 && algorithm < CSQLCIPHER_DIGESTS) {
        memcpy(out, in + in_sz, sizes[algorithm]);
        return SQLITE_OK;
    }
    csqlcipher_cached_state *state = ctx;
    if (state == NULL || algorithm < 0 || algorithm >= CSQLCIPHER_DIGESTS || key_sz <= 0 || key_sz > CSQLCIPHER_MAX_KEY
        || !csqlcipher_cached_algorithms()) {
        return csqlcipher_cached()->openssl.hmac(ctx, algorithm, hmac_key, key_sz, in, in_sz, in2, in2_sz, out);
    }
    if (in == NULL) return SQLITE_ERROR;
    EVP_MAC_CTX *mac = state->mac[algorithm];
    if (mac == NULL) {
        mac = state->mac[algorithm] = EVP_MAC_CTX_new(csqlcipher_cached()->hmac);
        if (mac == NULL) return SQLITE_ERROR;
    }
    if (state->mac_key_size[algorithm] == key_sz && CRYPTO_memcmp(state->mac_key[algorithm], hmac_key, key_sz) == 0) {
        // Same key: back to the state just after the key was set up.
        if (!EVP_MAC_init(mac, NULL, 0, NULL)) return SQLITE_ERROR;
    } else {
        state->mac_key_size[algorithm] = 0;
        OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", (char *)digests[algorithm], 0), OSSL_PARAM_construct_end()};
        if (!EVP_MAC_init(mac, hmac_key, key_sz, params)) return SQLITE_ERROR;
        memcpy(state->mac_key[algorithm], hmac_key, key_sz);
        state->mac_key_size[algorithm] = key_sz;
    }
    size_t length = 0;
    if (!EVP_MAC_update(mac, in, in_sz)) return SQLITE_ERROR;
    if (in2 != NULL && !EVP_MAC_update(mac, in2, in2_sz)) return SQLITE_ERROR;
    if (!EVP_MAC_final(mac, out, &length, sizes[algorithm])) return SQLITE_ERROR;
    return length == sizes[algorithm] ? SQLITE_OK : SQLITE_ERROR;
}

// SQLCipher's key derivations (the passphrase's and the HMAC key's) through the faster
// PBKDF2; `algorithm` is SQLCipher's HMAC index (0 SHA1, 1 SHA256, 2 SHA512).
static int csqlcipher_cached_kdf(void *ctx, int algorithm, const unsigned char *pass, int pass_sz, unsigned char *salt,
                                 int salt_sz, int workfactor, int key_sz, unsigned char *key) {
    static const int digests[CSQLCIPHER_DIGESTS] = {1, 256, 512};
    if (algorithm < 0 || algorithm >= CSQLCIPHER_DIGESTS) {
        return csqlcipher_cached()->openssl.kdf(ctx, algorithm, pass, pass_sz, salt, salt_sz, workfactor, key_sz, key);
    }
    const cipherprovider_kdf kdf = {pass, pass_sz, salt, salt_sz, workfactor, digests[algorithm]};
    return cipherprovider_pbkdf2(&kdf, key, key_sz) == 1 ? SQLITE_OK : SQLITE_ERROR;
}

int cipherprovider_install(void) {
    csqlcipher_cached_globals *globals = csqlcipher_cached();
    if (globals->installed) return 1;
    sqlite3 *anchor = NULL;
    if (sqlite3_open_v2(":memory:", &anchor, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK
        || sqlite3_key_v2(anchor, "main", "anchor", 6) != SQLITE_OK) {
        sqlite3_close_v2(anchor);
        return 0;
    }
    csqlcipher_provider_v46 *current = sqlcipher_get_provider();
    csqlcipher_provider_v46 *provider = sqlcipher_malloc(sizeof(csqlcipher_provider_v46));
    int openssl = current != NULL && current->get_provider_name != NULL && strcmp(current->get_provider_name(NULL), "openssl") == 0;
    if (!openssl || provider == NULL) {
        if (provider != NULL) sqlcipher_free(provider, sizeof(csqlcipher_provider_v46));
        sqlite3_close_v2(anchor);
        return 0;
    }
    globals->openssl = *current;
    *provider = *current;
    provider->ctx_init = csqlcipher_cached_ctx_init;
    provider->ctx_free = csqlcipher_cached_ctx_free;
    provider->cipher = csqlcipher_cached_cipher;
    provider->hmac = csqlcipher_cached_hmac;
    provider->kdf = csqlcipher_cached_kdf;
    sqlcipher_register_provider(provider);
    globals->anchor = anchor;
    globals->installed = 1;
    return 1;
}

int cipherprovider_active(void) {
    csqlcipher_provider_v46 *current = sqlcipher_get_provider();
    return current != NULL && current->cipher == csqlcipher_cached_cipher && current->hmac == csqlcipher_cached_hmac;
}
