// PBKDF2-HMAC-SHA1/256/512 (RFC 8018) with each iteration cut down to its two hash
// compressions.
//
// OpenSSL 3's PKCS5_PBKDF2_HMAC copies an HMAC context for every iteration (three digest
// contexts, each duplicated through its provider, with allocations) and finalises each hash
// with its padding. Here the HMAC key's inner and outer blocks are hashed once; each
// iteration then runs OpenSSL's own compression function (its assembly) on one block that
// already holds the padding and the length: one compression for the inner hash, one for
// the outer. The result is the same bytes (the tests compare it with PKCS5_PBKDF2_HMAC); a
// SQLCipher 4 key derivation (256,000 iterations of HMAC-SHA512) takes two thirds to four
// fifths of the time.
//
// The low-level SHA functions are deprecated in OpenSSL 3 but still part of its API and ABI
// (Debian 12 and 13, Ubuntu 24.04); they are the only public way to reach the compression
// function. Everything derived from the key is wiped before returning.

#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "CipherProvider.h"
#include "SettingsSearch.h"

#include <stdint.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

enum { PBKDF2_MAX_BLOCK = 128, PBKDF2_MAX_DIGEST = 64 };

typedef union {
    SHA_CTX sha1;
    SHA256_CTX sha256;
    SHA512_CTX sha512;
} pbkdf2_state;

typedef struct {
    size_t block;   // bytes per compression block
    size_t digest;  // bytes per digest
    void (*init)(pbkdf2_state *state);
    void (*update)(pbkdf2_state *state, const unsigned char *data, size_t size);
    void (*final)(unsigned char *out, pbkdf2_state *state);
    void (*transform)(pbkdf2_state *state, const unsigned char *block);
    void (*digest_of)(const pbkdf2_state *state, unsigned char *out);  // the chaining value, big-endian
} pbkdf2_hash;

static void sha1_init(pbkdf2_state *s) { SHA1_Init(&s->sha1); }
static void sha1_update(pbkdf2_state *s, const unsigned char *d, size_t n) { SHA1_Update(&s->sha1, d, n); }
static void sha1_final(unsigned char *o, pbkdf2_state *s) { SHA1_Final(o, &s->sha1); }
static void sha1_transform(pbkdf2_state *s, const unsigned char *b) { SHA1_Transform(&s->sha1, b); }
static void sha1_digest(const pbkdf2_state *s, unsigned char *o) {
    const SHA_LONG h[5] = {s->sha1.h0, s->sha1.h1, s->sha1.h2, s->sha1.h3, s->sha1.h4};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) o[i * 4 + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

static void sha256_init(pbkdf2_state *s) { SHA256_Init(&s->sha256); }
static void sha256_update(pbkdf2_state *s, const unsigned char *d, size_t n) { SHA256_Update(&s->sha256, d, n); }
static void sha256_final(unsigned char *o, pbkdf2_state *s) { SHA256_Final(o, &s->sha256); }
static void sha256_transform(pbkdf2_state *s, const unsigned char *b) { SHA256_Transform(&s->sha256, b); }
static void sha256_digest(const pbkdf2_state *s, unsigned char *o) {
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) o[i * 4 + j] = (unsigned char)(s->sha256.h[i] >> (24 - 8 * j));
}

static void sha512_init(pbkdf2_state *s) { SHA512_Init(&s->sha512); }
static void sha512_update(pbkdf2_state *s, const unsigned char *d, size_t n) { SHA512_Update(&s->sha512, d, n); }
static void sha512_final(unsigned char *o, pbkdf2_state *s) { SHA512_Final(o, &s->sha512); }
static void sha512_transform(pbkdf2_state *s, const unsigned char *b) { SHA512_Transform(&s->sha512, b); }
static void sha512_digest(const pbkdf2_state *s, unsigned char *o) {
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) o[i * 8 + j] = (unsigned char)(s->sha512.h[i] >> (56 - 8 * j));
}

static const pbkdf2_hash pbkdf2_sha1 = {64, 20, sha1_init, sha1_update, sha1_final, sha1_transform, sha1_digest};
static const pbkdf2_hash pbkdf2_sha256 = {64, 32, sha256_init, sha256_update, sha256_final, sha256_transform, sha256_digest};
static const pbkdf2_hash pbkdf2_sha512 = {128, 64, sha512_init, sha512_update, sha512_final, sha512_transform, sha512_digest};

static const pbkdf2_hash *pbkdf2_hash_for(int digest) {
    return digest == 1 ? &pbkdf2_sha1 : digest == 256 ? &pbkdf2_sha256 : digest == 512 ? &pbkdf2_sha512 : NULL;
}

// HMAC's inner and outer states with the key absorbed (the key hashed first when longer
// than a block, then zero-padded to one), and the block every iteration after the first
// hashes: the previous digest, 0x80, zeros, and the length of key block plus digest in bits,
// big-endian (the same for inner and outer).
static void pbkdf2_prepare(const pbkdf2_hash *hash, const void *pass, int pass_length, pbkdf2_state *inner, pbkdf2_state *outer,
                           unsigned char *block) {
    unsigned char key[PBKDF2_MAX_BLOCK] = {0}, pad[PBKDF2_MAX_BLOCK];
    pbkdf2_state state;
    if ((size_t)pass_length > hash->block) {
        hash->init(&state);
        hash->update(&state, pass, (size_t)pass_length);
        hash->final(key, &state);
    } else if (pass_length > 0) {
        memcpy(key, pass, (size_t)pass_length);
    }
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x36;
    hash->init(inner);
    hash->update(inner, pad, hash->block);
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x5c;
    hash->init(outer);
    hash->update(outer, pad, hash->block);
    memset(block, 0, PBKDF2_MAX_BLOCK);
    block[hash->digest] = 0x80;
    uint64_t bits = (uint64_t)(hash->block + hash->digest) * 8;
    for (size_t i = 0; i < 8; i++) block[hash->block - 1 - i] = (unsigned char)(bits >> (8 * i));
    OPENSSL_cleanse(key, sizeof(key));
    OPENSSL_cleanse(pad, sizeof(pad));
    OPENSSL_cleanse(&state, sizeof(state));
}

// U1 = HMAC(pass, salt || INT(index)), through the ordinary update and final.
static void pbkdf2_first(const pbkdf2_hash *hash, const pbkdf2_state *inner, const pbkdf2_state *outer, const unsigned char *salt,
                         int salt_length, uint32_t index, unsigned char *u) {
    const unsigned char counter[4] = {(unsigned char)(index >> 24), (unsigned char)(index >> 16), (unsigned char)(index >> 8),
                                      (unsigned char)index};
    pbkdf2_state state = *inner;
    hash->update(&state, salt, (size_t)salt_length);
    hash->update(&state, counter, sizeof(counter));
    hash->final(u, &state);
    state = *outer;
    hash->update(&state, u, hash->digest);
    hash->final(u, &state);
    OPENSSL_cleanse(&state, sizeof(state));
}

// U(i+1) from U(i) in `u`: one compression each for the inner and the outer hash.
static void pbkdf2_next(const pbkdf2_hash *hash, const pbkdf2_state *inner, const pbkdf2_state *outer, unsigned char *block,
                        unsigned char *u) {
    pbkdf2_state state;
    memcpy(block, u, hash->digest);
    state = *inner;
    hash->transform(&state, block);
    hash->digest_of(&state, block);
    state = *outer;
    hash->transform(&state, block);
    hash->digest_of(&state, u);
}

int cipherprovider_pbkdf2(const void *pass, int pass_length, const unsigned char *salt, int salt_length,
                          int iterations, int digest, unsigned char *out, int out_length) {
    const pbkdf2_hash *hash = pbkdf2_hash_for(digest);
    if (hash == NULL || pass_length < 0 || salt_length < 0 || iterations < 1 || out_length < 0
        || (pass_length > 0 && pass == NULL) || (salt_length > 0 && salt == NULL) || (out_length > 0 && out == NULL)) {
        return 0;
    }
    unsigned char block[PBKDF2_MAX_BLOCK];
    unsigned char u[PBKDF2_MAX_DIGEST], t[PBKDF2_MAX_DIGEST];
    pbkdf2_state inner, outer;
    pbkdf2_prepare(hash, pass, pass_length, &inner, &outer, block);

    for (uint32_t index = 1; out_length > 0; index++) {
        pbkdf2_first(hash, &inner, &outer, salt, salt_length, index, u);
        memcpy(t, u, hash->digest);
        for (int i = 1; i < iterations; i++) {
            pbkdf2_next(hash, &inner, &outer, block, u);
            for (size_t j = 0; j < hash->digest; j++) t[j] ^= u[j];
        }
        size_t take = (size_t)out_length < hash->digest ? (size_t)out_length : hash->digest;
        memcpy(out, t, take);
        out += take;
        out_length -= (int)take;
    }

    OPENSSL_cleanse(block, sizeof(block));
    OPENSSL_cleanse(u, sizeof(u));
    OPENSSL_cleanse(t, sizeof(t));
    OPENSSL_cleanse(&inner, sizeof(inner));
    OPENSSL_cleanse(&outer, sizeof(outer));
    return 1;
}

// Defined in SettingsSearch.c: the page-1 block test with a cipher context kept by the caller.
EVP_CIPHER_CTX *cipherprovider_block_cipher_new(void);
int cipherprovider_block_matches_in(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *page1, size_t length,
                                    cipherprovider_block_match *match);

enum { SEARCH_KEY = 32, SEARCH_BLOCKS = 2 };  // a 32-byte key: two blocks of SHA1, one of the others

int cipherprovider_pbkdf2_search(const void *pass, int pass_length, const unsigned char *page1, size_t length,
                                 int digest, int max_iterations, volatile int *stop,
                                 int *iterations, unsigned char *key, cipherprovider_block_match *match) {
    const pbkdf2_hash *hash = pbkdf2_hash_for(digest);
    if (hash == NULL || pass_length < 0 || (pass_length > 0 && pass == NULL) || page1 == NULL || length < 512 || max_iterations < 1
        || iterations == NULL || key == NULL || match == NULL) {
        return -1;
    }
    EVP_CIPHER_CTX *cipher = cipherprovider_block_cipher_new();
    if (cipher == NULL) return -1;
    int blocks = (int)((SEARCH_KEY + hash->digest - 1) / hash->digest);
    unsigned char block[PBKDF2_MAX_BLOCK], candidate[SEARCH_KEY];
    unsigned char u[SEARCH_BLOCKS][PBKDF2_MAX_DIGEST], t[SEARCH_BLOCKS][PBKDF2_MAX_DIGEST];
    pbkdf2_state inner, outer;
    pbkdf2_prepare(hash, pass, pass_length, &inner, &outer, block);
    for (int b = 0; b < blocks; b++) {
        pbkdf2_first(hash, &inner, &outer, page1, 16, (uint32_t)(b + 1), u[b]);
        memcpy(t[b], u[b], hash->digest);
    }
    int found = 0;
    for (int count = 1; count <= max_iterations && found == 0; count++) {
        if (count > 1) {
            for (int b = 0; b < blocks; b++) {
                pbkdf2_next(hash, &inner, &outer, block, u[b]);
                for (size_t j = 0; j < hash->digest; j++) t[b][j] ^= u[b][j];
            }
        }
        for (int b = 0, at = 0; at < SEARCH_KEY; b++) {
            size_t take = SEARCH_KEY - at < (int)hash->digest ? (size_t)(SEARCH_KEY - at) : hash->digest;
            memcpy(candidate + at, t[b], take);
            at += (int)take;
        }
        found = cipherprovider_block_matches_in(cipher, candidate, page1, length, match);
        if (found == 1) {
            *iterations = count;
            memcpy(key, candidate, SEARCH_KEY);
        }
        // Checked now and then: reading a flag another thread writes is not free.
        if ((count & 1023) == 0 && stop != NULL && *stop) break;
    }
    EVP_CIPHER_CTX_free(cipher);
    OPENSSL_cleanse(block, sizeof(block));
    OPENSSL_cleanse(candidate, sizeof(candidate));
    OPENSSL_cleanse(u, sizeof(u));
    OPENSSL_cleanse(t, sizeof(t));
    OPENSSL_cleanse(&inner, sizeof(inner));
    OPENSSL_cleanse(&outer, sizeof(outer));
    return found;
}
