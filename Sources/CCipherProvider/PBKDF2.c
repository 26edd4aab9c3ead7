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

#include <stdint.h>
#include <string.h>
#include <openssl/crypto.h>
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

int cipherprovider_pbkdf2(const void *pass, int pass_length, const unsigned char *salt, int salt_length,
                          int iterations, int digest, unsigned char *out, int out_length) {
    const pbkdf2_hash *hash = digest == 1 ? &pbkdf2_sha1 : digest == 256 ? &pbkdf2_sha256 : digest == 512 ? &pbkdf2_sha512 : NULL;
    if (hash == NULL || pass_length < 0 || salt_length < 0 || iterations < 1 || out_length < 0
        || (pass_length > 0 && pass == NULL) || (salt_length > 0 && salt == NULL) || (out_length > 0 && out == NULL)) {
        return 0;
    }
    unsigned char key[PBKDF2_MAX_BLOCK] = {0}, pad[PBKDF2_MAX_BLOCK], block[PBKDF2_MAX_BLOCK];
    unsigned char u[PBKDF2_MAX_DIGEST], t[PBKDF2_MAX_DIGEST];
    pbkdf2_state inner, outer, state;

    // HMAC's key: hashed first when longer than a block, then zero-padded to one.
    if ((size_t)pass_length > hash->block) {
        hash->init(&state);
        hash->update(&state, pass, (size_t)pass_length);
        hash->final(key, &state);
    } else if (pass_length > 0) {
        memcpy(key, pass, (size_t)pass_length);
    }
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x36;
    hash->init(&inner);
    hash->update(&inner, pad, hash->block);
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x5c;
    hash->init(&outer);
    hash->update(&outer, pad, hash->block);

    // The block every later iteration hashes: the previous digest, 0x80, zeros, and the
    // length of key block plus digest in bits, big-endian (the same for inner and outer).
    memset(block, 0, sizeof(block));
    block[hash->digest] = 0x80;
    uint64_t bits = (uint64_t)(hash->block + hash->digest) * 8;
    for (size_t i = 0; i < 8; i++) block[hash->block - 1 - i] = (unsigned char)(bits >> (8 * i));

    for (uint32_t index = 1; out_length > 0; index++) {
        const unsigned char counter[4] = {(unsigned char)(index >> 24), (unsigned char)(index >> 16),
                                          (unsigned char)(index >> 8), (unsigned char)index};
        // U1 = HMAC(pass, salt || INT(index)), through the ordinary update and final.
        state = inner;
        hash->update(&state, salt, (size_t)salt_length);
        hash->update(&state, counter, sizeof(counter));
        hash->final(u, &state);
        state = outer;
        hash->update(&state, u, hash->digest);
        hash->final(u, &state);
        memcpy(t, u, hash->digest);
        // U2 ... Uc: one compression each for the inner and the outer hash.
        for (int i = 1; i < iterations; i++) {
            memcpy(block, u, hash->digest);
            state = inner;
            hash->transform(&state, block);
            hash->digest_of(&state, block);
            state = outer;
            hash->transform(&state, block);
            hash->digest_of(&state, u);
            for (size_t j = 0; j < hash->digest; j++) t[j] ^= u[j];
        }
        size_t take = (size_t)out_length < hash->digest ? (size_t)out_length : hash->digest;
        memcpy(out, t, take);
        out += take;
        out_length -= (int)take;
    }

    OPENSSL_cleanse(key, sizeof(key));
    OPENSSL_cleanse(pad, sizeof(pad));
    OPENSSL_cleanse(block, sizeof(block));
    OPENSSL_cleanse(u, sizeof(u));
    OPENSSL_cleanse(t, sizeof(t));
    OPENSSL_cleanse(&inner, sizeof(inner));
    OPENSSL_cleanse(&outer, sizeof(outer));
    OPENSSL_cleanse(&state, sizeof(state));
    return 1;
}
