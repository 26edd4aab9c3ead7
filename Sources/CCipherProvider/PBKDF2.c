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

#include <stdatomic.h>
#include "BlockTest.h"
#include "OwnCrypto.h"
#include "CipherProvider.h"
#include "SHA1x2.h"
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

// HMAC's inner and outer states with the key absorbed, and the block every iteration after
// the first hashes.
typedef struct {
    const pbkdf2_hash *hash;
    pbkdf2_state inner, outer;
    unsigned char block[PBKDF2_MAX_BLOCK];
} pbkdf2_keyed;

// The key is hashed first when longer than a block, then zero-padded to one. The block holds
// the previous digest, 0x80, zeros, and the length of key block plus digest in bits,
// big-endian (the same for inner and outer).
static void pbkdf2_prepare(pbkdf2_keyed *keyed, const pbkdf2_hash *hash, const void *pass, int pass_length) {
    unsigned char key[PBKDF2_MAX_BLOCK] = {0}, pad[PBKDF2_MAX_BLOCK];
    pbkdf2_state state;
    keyed->hash = hash;
    if ((size_t)pass_length > hash->block) {
        hash->init(&state);
        hash->update(&state, pass, (size_t)pass_length);
        hash->final(key, &state);
    } else if (pass_length > 0) {
        memcpy(key, pass, (size_t)pass_length);
    }
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x36;
    hash->init(&keyed->inner);
    hash->update(&keyed->inner, pad, hash->block);
    for (size_t i = 0; i < hash->block; i++) pad[i] = key[i] ^ 0x5c;
    hash->init(&keyed->outer);
    hash->update(&keyed->outer, pad, hash->block);
    memset(keyed->block, 0, PBKDF2_MAX_BLOCK);
    keyed->block[hash->digest] = 0x80;
    uint64_t bits = (uint64_t)(hash->block + hash->digest) * 8;
    for (size_t i = 0; i < 8; i++) keyed->block[hash->block - 1 - i] = (unsigned char)(bits >> (8 * i));
    OPENSSL_cleanse(key, sizeof(key));
    OPENSSL_cleanse(pad, sizeof(pad));
    OPENSSL_cleanse(&state, sizeof(state));
}

// U1 = HMAC(pass, salt || INT(index)), through the ordinary update and final.
static void pbkdf2_first(const pbkdf2_keyed *keyed, const unsigned char *salt, int salt_length, uint32_t index, unsigned char *u) {
    const pbkdf2_hash *hash = keyed->hash;
    const unsigned char counter[4] = {(unsigned char)(index >> 24), (unsigned char)(index >> 16), (unsigned char)(index >> 8),
                                      (unsigned char)index};
    pbkdf2_state state = keyed->inner;
    hash->update(&state, salt, (size_t)salt_length);
    hash->update(&state, counter, sizeof(counter));
    hash->final(u, &state);
    state = keyed->outer;
    hash->update(&state, u, hash->digest);
    hash->final(u, &state);
    OPENSSL_cleanse(&state, sizeof(state));
}

// U(i+1) from U(i) in `u`: one compression each for the inner and the outer hash.
static void pbkdf2_next(pbkdf2_keyed *keyed, unsigned char *u) {
    const pbkdf2_hash *hash = keyed->hash;
    pbkdf2_state state;
    memcpy(keyed->block, u, hash->digest);
    state = keyed->inner;
    hash->transform(&state, keyed->block);
    hash->digest_of(&state, keyed->block);
    state = keyed->outer;
    hash->transform(&state, keyed->block);
    hash->digest_of(&state, u);
}

static void words_of(const unsigned char *bytes, uint32_t *words, int count) {
    for (int i = 0; i < count; i++)
        words[i] = (uint32_t)bytes[4 * i] << 24 | (uint32_t)bytes[4 * i + 1] << 16 | (uint32_t)bytes[4 * i + 2] << 8 | bytes[4 * i + 3];
}

static void bytes_of(const uint32_t *words, unsigned char *bytes, int count) {
    for (int i = 0; i < count; i++)
        for (int j = 0; j < 4; j++) bytes[4 * i + j] = (unsigned char)(words[i] >> (24 - 8 * j));
}

// SHA1's chaining value as words, h0 first.
static void sha1_chaining(const pbkdf2_state *state, uint32_t words[5]) {
    const SHA_CTX *sha1 = &state->sha1;
    words[0] = sha1->h0, words[1] = sha1->h1, words[2] = sha1->h2, words[3] = sha1->h3, words[4] = sha1->h4;
}

// A key of 21 to 40 bytes from SHA1: its two blocks' chains stepped together on the SHA
// instructions (SHA1x2.c), half the time of one after the other (SQLCipher 1 to 3's keys).
static void pbkdf2_sha1_pair(const pbkdf2_keyed *keyed, const cipherprovider_kdf *kdf, unsigned char *out, int out_length) {
    unsigned char first[2][PBKDF2_MAX_DIGEST], bytes[40];
    uint32_t inner[5], outer[5], u[2][5], t[2][5];
    sha1_chaining(&keyed->inner, inner);
    sha1_chaining(&keyed->outer, outer);
    for (int b = 0; b < 2; b++) {
        pbkdf2_first(keyed, kdf->salt, kdf->salt_length, (uint32_t)(b + 1), first[b]);
        words_of(first[b], u[b], 5);
        memcpy(t[b], u[b], sizeof(t[b]));
    }
    for (int i = 1; i < kdf->iterations; i++) cipherprovider_sha1x2_pbkdf2_step(inner, outer, u, t);
    bytes_of(t[0], bytes, 5);
    bytes_of(t[1], bytes + 20, 5);
    memcpy(out, bytes, (size_t)out_length);
    OPENSSL_cleanse(first, sizeof(first));
    OPENSSL_cleanse(bytes, sizeof(bytes));
    OPENSSL_cleanse(u, sizeof(u));
    OPENSSL_cleanse(t, sizeof(t));
}

static int pbkdf2_arguments_valid(const cipherprovider_kdf *kdf, const unsigned char *out, int out_length) {
    return kdf->pass_length >= 0 && kdf->salt_length >= 0 && kdf->iterations >= 1 && out_length >= 0
        && (kdf->pass_length == 0 || kdf->pass != NULL) && (kdf->salt_length == 0 || kdf->salt != NULL) && (out_length == 0 || out != NULL);
}

// Key derivations (1000 iterations or more: SQLCipher's HMAC keys take 2), for the tests
// that prove an open derives a passphrase once.
static atomic_ulong key_derivations = 0;

unsigned long cipherprovider_key_derivations(void) {
    return atomic_load(&key_derivations);
}

int cipherprovider_pbkdf2(const cipherprovider_kdf *kdf, unsigned char *out, int out_length) {
    // Derived ahead in the lanes (PreparedKeys.c), and counted then.
    if (kdf != NULL && kdf->iterations >= 1000 && cipherprovider_pbkdf2_prepared(kdf, out, out_length)) return 1;
    if (kdf != NULL && kdf->iterations >= 1000) atomic_fetch_add_explicit(&key_derivations, 1, memory_order_relaxed);
    if (cipherprovider_fips()) return cipherprovider_evp_pbkdf2(kdf, out, out_length);
    const pbkdf2_hash *hash = kdf == NULL ? NULL : pbkdf2_hash_for(kdf->digest);
    if (hash == NULL || !pbkdf2_arguments_valid(kdf, out, out_length)) return 0;
    cipherprovider_note_own_crypto();
    unsigned char u[PBKDF2_MAX_DIGEST], t[PBKDF2_MAX_DIGEST];
    pbkdf2_keyed keyed;
    pbkdf2_prepare(&keyed, hash, kdf->pass, kdf->pass_length);
    if (hash == &pbkdf2_sha1 && out_length > 20 && out_length <= 40 && cipherprovider_sha1x2_available()) {
        pbkdf2_sha1_pair(&keyed, kdf, out, out_length);
        out_length = 0;
    }
    for (uint32_t index = 1; out_length > 0; index++) {
        pbkdf2_first(&keyed, kdf->salt, kdf->salt_length, index, u);
        memcpy(t, u, hash->digest);
        for (int i = 1; i < kdf->iterations; i++) {
            pbkdf2_next(&keyed, u);
            for (size_t j = 0; j < hash->digest; j++) t[j] ^= u[j];
        }
        size_t take = (size_t)out_length < hash->digest ? (size_t)out_length : hash->digest;
        memcpy(out, t, take);
        out += take;
        out_length -= (int)take;
    }
    OPENSSL_cleanse(u, sizeof(u));
    OPENSSL_cleanse(t, sizeof(t));
    OPENSSL_cleanse(&keyed, sizeof(keyed));
    return 1;
}

// Up to eight PBKDF2-HMAC-SHA512 derivations of one iteration count in the SHA-512 lanes
// (SHA512x8.c): each lane's keyed states and first U as above, then every later iteration in
// all lanes at once, about a quarter of the time per key of one derivation after another.
int cipherprovider_pbkdf2_sha512_lanes(const cipherprovider_kdf *kdfs, int count, unsigned char out[][64]) {
    if (cipherprovider_fips() || !cipherpage_sha512x8_available() || kdfs == NULL || out == NULL || count < 1 || count > 8) return 0;
    for (int lane = 0; lane < count; lane++) {
        if (kdfs[lane].digest != 512 || kdfs[lane].iterations != kdfs[0].iterations || !pbkdf2_arguments_valid(&kdfs[lane], out[lane], 64)) return 0;
    }
    cipherprovider_note_own_crypto();
    cipherpage_hmac512_key keys;
    uint64_t first[8][8], sums[8][8];
    memset(&keys, 0, sizeof keys);
    memset(first, 0, sizeof first);
    for (int lane = 0; lane < count; lane++) {
        pbkdf2_keyed keyed;
        unsigned char u[PBKDF2_MAX_DIGEST];
        pbkdf2_prepare(&keyed, &pbkdf2_sha512, kdfs[lane].pass, kdfs[lane].pass_length);
        pbkdf2_first(&keyed, kdfs[lane].salt, kdfs[lane].salt_length, 1, u);
        for (int i = 0; i < 8; i++) {
            keys.inner[i][lane] = keyed.inner.sha512.h[i];
            keys.outer[i][lane] = keyed.outer.sha512.h[i];
            for (int j = 0; j < 8; j++) first[i][lane] = first[i][lane] << 8 | u[8 * i + j];
        }
        OPENSSL_cleanse(&keyed, sizeof keyed);
        OPENSSL_cleanse(u, sizeof u);
        if (kdfs[lane].iterations >= 1000) atomic_fetch_add_explicit(&key_derivations, 1, memory_order_relaxed);
    }
    cipherpage_pbkdf2_sha512x8(&keys, first, kdfs[0].iterations, sums);
    for (int lane = 0; lane < count; lane++) {
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++) out[lane][8 * i + j] = (unsigned char)(sums[i][lane] >> (56 - 8 * j));
    }
    OPENSSL_cleanse(&keys, sizeof keys);
    OPENSSL_cleanse(first, sizeof first);
    OPENSSL_cleanse(sums, sizeof sums);
    return 1;
}

enum { SEARCH_KEY = 32, SEARCH_BLOCKS = 2 };  // a 32-byte key: two blocks of SHA1, one of the others

// The running PBKDF2 of every block of the 32-byte key, one iteration count at a time.
typedef struct {
    pbkdf2_keyed keyed;
    int blocks;
    unsigned char u[SEARCH_BLOCKS][PBKDF2_MAX_DIGEST], t[SEARCH_BLOCKS][PBKDF2_MAX_DIGEST];
    unsigned char candidates[BLOCK_TEST_BATCH][SEARCH_KEY];
    // SHA1's two chains as words, stepped together by the SHA instructions (SHA1x2.c).
    int sha1x2;
    uint32_t inner[5], outer[5], u_words[SEARCH_BLOCKS][5], t_words[SEARCH_BLOCKS][5];
    int which;  // the candidate that matched, in the last batch
} search_state;

static void sha1x2_start(search_state *state) {
    sha1_chaining(&state->keyed.inner, state->inner);
    sha1_chaining(&state->keyed.outer, state->outer);
    for (int b = 0; b < SEARCH_BLOCKS; b++) {
        words_of(state->u[b], state->u_words[b], 5);
        words_of(state->t[b], state->t_words[b], 5);
    }
}

static void search_start(search_state *state, const pbkdf2_hash *hash, const cipherprovider_search *search) {
    pbkdf2_prepare(&state->keyed, hash, search->pass, search->pass_length);
    state->blocks = (int)((SEARCH_KEY + hash->digest - 1) / hash->digest);
    for (int b = 0; b < state->blocks; b++) {
        pbkdf2_first(&state->keyed, search->page1, 16, (uint32_t)(b + 1), state->u[b]);
        memcpy(state->t[b], state->u[b], hash->digest);
    }
    state->sha1x2 = hash == &pbkdf2_sha1 && cipherprovider_sha1x2_available();
    if (state->sha1x2) sha1x2_start(state);
}

// SHA1's candidate for one more iteration, through the SHA instructions.
static void sha1x2_step(search_state *state, int count, unsigned char *candidate) {
    if (count > 1) cipherprovider_sha1x2_pbkdf2_step(state->inner, state->outer, state->u_words, state->t_words);
    unsigned char second[20];
    bytes_of(state->t_words[0], candidate, 5);
    bytes_of(state->t_words[1], second, 5);
    memcpy(candidate + 20, second, SEARCH_KEY - 20);
    OPENSSL_cleanse(second, sizeof(second));
}

// The candidate key for one more iteration than the last (for the first, none is added),
// into `candidate`.
static void search_step(search_state *state, int count, unsigned char *candidate) {
    if (state->sha1x2) {
        sha1x2_step(state, count, candidate);
        return;
    }
    size_t digest = state->keyed.hash->digest;
    if (count > 1) {
        for (int b = 0; b < state->blocks; b++) {
            pbkdf2_next(&state->keyed, state->u[b]);
            for (size_t j = 0; j < digest; j++) state->t[b][j] ^= state->u[b][j];
        }
    }
    for (int b = 0, at = 0; at < SEARCH_KEY; b++) {
        size_t take = SEARCH_KEY - at < (int)digest ? (size_t)(SEARCH_KEY - at) : digest;
        memcpy(candidate + at, state->t[b], take);
        at += (int)take;
    }
}

static int search_valid(const cipherprovider_search *search, const int *iterations, const unsigned char *key,
                        const cipherprovider_block_match *match) {
    return search->pass_length >= 0 && (search->pass_length == 0 || search->pass != NULL) && search->page1 != NULL && search->length >= 512
        && search->max_iterations >= 1 && iterations != NULL && key != NULL && match != NULL;
}

// The candidates for `count` and the counts after it, up to a batch and the last count; 1
// when one matched (its place in the batch into state->which), 0 when none did.
static int search_batch(search_state *state, cipherprovider_block_test *test, const cipherprovider_search *search, int count,
                        cipherprovider_block_match *match) {
    int size = 0;
    for (; size < BLOCK_TEST_BATCH && count + size <= search->max_iterations; size++)
        search_step(state, count + size, state->candidates[size]);
    return cipherprovider_block_test_run(test, state->candidates, size, match, &state->which);
}

// Whether any of the `number` searches still has counts to try from `next`, and none has been
// told to stop.
static int searches_go_on(const cipherprovider_search *searches, int number, int next) {
    int going = 0;
    for (int s = 0; s < number; s++) going |= next <= searches[s].max_iterations;
    // Checked now and then: reading a flag another thread writes is not free.
    if ((next - 1) % 1024 == 0 && searches[0].stop != NULL && *searches[0].stop) return 0;
    return going;
}

int cipherprovider_pbkdf2_search_lockstep(const cipherprovider_search *searches, int count, int *which, int *iterations, unsigned char *key,
                                          cipherprovider_block_match *match) {
    // One chain tested at every count is PBKDF2 taken apart, which no EVP call offers.
    if (searches == NULL || count < 1 || count > SEARCH_LOCKSTEP_MAX || which == NULL || cipherprovider_fips()) return -1;
    cipherprovider_note_own_crypto();
    const pbkdf2_hash *hashes[SEARCH_LOCKSTEP_MAX];
    for (int s = 0; s < count; s++) {
        hashes[s] = pbkdf2_hash_for(searches[s].digest);
        if (hashes[s] == NULL || !search_valid(&searches[s], iterations, key, match)) return -1;
        if (searches[s].page1 != searches[0].page1 || searches[s].length != searches[0].length) return -1;
    }
    cipherprovider_block_test *test = cipherprovider_block_test_new(searches[0].page1, searches[0].length);
    if (test == NULL) return -1;
    search_state states[SEARCH_LOCKSTEP_MAX];
    for (int s = 0; s < count; s++) search_start(&states[s], hashes[s], &searches[s]);
    int found = 0;
    for (int at = 1; found == 0 && searches_go_on(searches, count, at); at += BLOCK_TEST_BATCH) {
        for (int s = 0; s < count && found == 0; s++) {
            if (at > searches[s].max_iterations) continue;
            found = search_batch(&states[s], test, &searches[s], at, match);
            if (found == 1) {
                *which = s;
                *iterations = at + states[s].which;
                memcpy(key, states[s].candidates[states[s].which], SEARCH_KEY);
            }
        }
    }
    cipherprovider_block_test_free(test);
    OPENSSL_cleanse(states, sizeof(states));
    return found;
}

int cipherprovider_pbkdf2_search(const cipherprovider_search *search, int *iterations, unsigned char *key, cipherprovider_block_match *match) {
    int which = 0;
    return cipherprovider_pbkdf2_search_lockstep(search, 1, &which, iterations, key, match);
}
