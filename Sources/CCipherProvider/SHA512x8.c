// SHA-512 (FIPS 180-4) in eight lanes: each AVX-512 register holds one 64-bit state or
// message word of eight independent messages, so every instruction advances all eight.
// Only HMAC is built on it, for messages of equal length (SQLCipher pages of one size).
// The code is compiled for AVX-512 alone and is called only after
// cipherpage_sha512x8_available says the CPU has it; tests compare it with OpenSSL.
// Elsewhere than x86 none of it is compiled: the check answers 0 and HMACs go through
// OpenSSL one page at a time (on arm64 OpenSSL uses the CPU's SHA-512 instructions).

#include "SHA512x8.h"
#include "CPUFeatures.h"

#if defined(__x86_64__) || defined(__i386__)

#include <string.h>
#include <immintrin.h>
#include <openssl/crypto.h>

#define X8 __attribute__((target("avx512f,avx512bw")))

// The round constants and initial state: the first 64 bits of the fractional parts of the
// cube roots of the first 80 primes and of the square roots of the first 8 (FIPS 180-4).
static const uint64_t round_constants[80] = {
    0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL,
    0x3956c25bf348b538ULL, 0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL,
    0xd807aa98a3030242ULL, 0x12835b0145706fbeULL, 0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL,
    0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL, 0xc19bf174cf692694ULL,
    0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
    0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL,
    0x983e5152ee66dfabULL, 0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL,
    0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL, 0x06ca6351e003826fULL, 0x142929670a0e6e70ULL,
    0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL, 0x53380d139d95b3dfULL,
    0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
    0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL,
    0xd192e819d6ef5218ULL, 0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL,
    0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL, 0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL,
    0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL, 0x682e6ff3d6b2b8a3ULL,
    0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
    0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL,
    0xca273eceea26619cULL, 0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL,
    0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL, 0x113f9804bef90daeULL, 0x1b710b35131c471bULL,
    0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL, 0x431d67c49c100d4cULL,
    0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL
};
static const uint64_t initial_state[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

#define ROR(x, n) _mm512_ror_epi64((x), (n))
#define XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)
#define CH(e, f, g) _mm512_ternarylogic_epi64((e), (f), (g), 0xca)
#define MAJ(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0xe8)
#define BIG_SIGMA0(a) XOR3(ROR(a, 28), ROR(a, 34), ROR(a, 39))
#define BIG_SIGMA1(e) XOR3(ROR(e, 14), ROR(e, 18), ROR(e, 41))
#define SMALL_SIGMA0(w) XOR3(ROR(w, 1), ROR(w, 8), _mm512_srli_epi64(w, 7))
#define SMALL_SIGMA1(w) XOR3(ROR(w, 19), ROR(w, 61), _mm512_srli_epi64(w, 6))
#define ADD(a, b) _mm512_add_epi64((a), (b))

int cipherpage_sha512x8_available(void) {
    return cipherprovider_cpu_has(CPU_FEATURE_AVX512F | CPU_FEATURE_AVX512BW);
}

// One block of 16 message words into each lane's state.
X8 static void compress(__m512i state[8], __m512i w[16]) {
    __m512i a = state[0], b = state[1], c = state[2], d = state[3], e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 80; t++) {
        if (t >= 16) {
            w[t & 15] = ADD(ADD(SMALL_SIGMA1(w[(t - 2) & 15]), w[(t - 7) & 15]), ADD(SMALL_SIGMA0(w[(t - 15) & 15]), w[t & 15]));
        }
        __m512i t1 = ADD(ADD(ADD(h, BIG_SIGMA1(e)), ADD(CH(e, f, g), _mm512_set1_epi64((long long)round_constants[t]))), w[t & 15]);
        __m512i t2 = ADD(BIG_SIGMA0(a), MAJ(a, b, c));
        h = g, g = f, f = e, e = ADD(d, t1), d = c, c = b, b = a, a = ADD(t1, t2);
    }
    state[0] = ADD(state[0], a), state[1] = ADD(state[1], b), state[2] = ADD(state[2], c), state[3] = ADD(state[3], d);
    state[4] = ADD(state[4], e), state[5] = ADD(state[5], f), state[6] = ADD(state[6], g), state[7] = ADD(state[7], h);
}

// Row i of `out` is word i of the eight rows of `r`: an 8 by 8 matrix of 64-bit words transposed.
X8 static void transpose8(const __m512i r[8], __m512i out[8]) {
    __m512i t[8], u[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);
    }
    const __m512i a = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), b = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int half = 0; half < 2; half++) {
        __m512i *v = u + 4 * half, *s = t + 4 * half;
        v[0] = _mm512_permutex2var_epi64(s[0], a, s[2]);
        v[1] = _mm512_permutex2var_epi64(s[0], b, s[2]);
        v[2] = _mm512_permutex2var_epi64(s[1], a, s[3]);
        v[3] = _mm512_permutex2var_epi64(s[1], b, s[3]);
    }
    const __m512i low = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0), high = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    // u[0]: words 0 and 4 of lanes 0-3; u[1]: 2 and 6; u[2]: 1 and 5; u[3]: 3 and 7 (u[4..7]: lanes 4-7).
    const int word_of[4] = {0, 2, 1, 3};
    for (int k = 0; k < 4; k++) {
        out[word_of[k]] = _mm512_permutex2var_epi64(u[k], low, u[k + 4]);
        out[word_of[k] + 4] = _mm512_permutex2var_epi64(u[k], high, u[k + 4]);
    }
}

// Word i of each lane's 128-byte block at blocks[lane], big-endian as SHA-512 reads it: each
// lane's block loaded whole, then the two 8 by 8 matrices of words transposed (sixteen
// gathers of a word from each lane cost an eighth more of the whole HMAC on AMD's Zen 4).
X8 static void load_block(const unsigned char *const blocks[8], __m512i w[16]) {
    const __m512i swap = _mm512_set_epi64(0x08090a0b0c0d0e0fLL, 0x0001020304050607LL, 0x08090a0b0c0d0e0fLL, 0x0001020304050607LL,
                                          0x08090a0b0c0d0e0fLL, 0x0001020304050607LL, 0x08090a0b0c0d0e0fLL, 0x0001020304050607LL);
    __m512i first[8], second[8];
    for (int lane = 0; lane < 8; lane++) {
        first[lane] = _mm512_loadu_si512((const void *)blocks[lane]);
        second[lane] = _mm512_loadu_si512((const void *)(blocks[lane] + 64));
    }
    transpose8(first, w);
    transpose8(second, w + 8);
    for (int i = 0; i < 16; i++) w[i] = _mm512_shuffle_epi8(w[i], swap);
}

X8 static void load_state(__m512i state[8], const uint64_t words[8][8]) {
    for (int i = 0; i < 8; i++) state[i] = _mm512_loadu_si512((const void *)words[i]);
}

X8 static void store_state(uint64_t words[8][8], const __m512i state[8]) {
    for (int i = 0; i < 8; i++) _mm512_storeu_si512((void *)words[i], state[i]);
}

// The state after one block that is the same in every lane: the key XOR a pad byte.
X8 static void keyed_state(uint64_t words[8][8], const unsigned char *key, unsigned char pad) {
    unsigned char block[128];
    for (int i = 0; i < 128; i++) block[i] = (unsigned char)((i < 32 ? key[i] : 0) ^ pad);
    const unsigned char *blocks[8] = {block, block, block, block, block, block, block, block};
    __m512i state[8], w[16];
    for (int i = 0; i < 8; i++) state[i] = _mm512_set1_epi64((long long)initial_state[i]);
    load_block(blocks, w);
    compress(state, w);
    store_state(words, state);
    OPENSSL_cleanse(block, sizeof block);  // the key XOR its pad: a plain memset could be dropped
}

X8 void cipherpage_hmac512x8_init(cipherpage_hmac512_key *state, const unsigned char *key) {
    keyed_state(state->inner, key, 0x36);
    keyed_state(state->outer, key, 0x5c);
}

// Each lane's last body bytes, its suffix and SHA-512's padding, in one or two blocks;
// returns how many. The length counts the key's block, which the state already holds.
static int tail_blocks(const unsigned char *body_end, size_t rest, const unsigned char suffix[4], size_t length, unsigned char tail[256]) {
    memset(tail, 0, 256);
    memcpy(tail, body_end, rest);
    memcpy(tail + rest, suffix, 4);
    tail[rest + 4] = 0x80;
    int blocks = rest + 4 + 1 + 16 <= 128 ? 1 : 2;
    uint64_t bits = (uint64_t)(128 + length + 4) * 8;
    for (int i = 0; i < 8; i++) tail[blocks * 128 - 1 - i] = (unsigned char)(bits >> (8 * i));
    return blocks;
}

// HMAC's one-block message after a SHA-512 digest, in w: the digest's words (already in
// lanes), 0x80, zeros, and the length of the key's block and the digest in bits.
X8 static void digest_block(__m512i w[16], const __m512i digest[8]) {
    for (int i = 0; i < 8; i++) w[i] = digest[i];
    w[8] = _mm512_set1_epi64((long long)0x8000000000000000ULL);
    for (int i = 9; i < 15; i++) w[i] = _mm512_setzero_si512();
    w[15] = _mm512_set1_epi64((128 + 64) * 8);
}

X8 void cipherpage_hmac512x8(const cipherpage_hmac512_key *key, const unsigned char *const bodies[8], size_t length,
                             const unsigned char suffixes[8][4], unsigned char *const out[8]) {
    __m512i state[8], w[16];
    const unsigned char *blocks[8];
    load_state(state, key->inner);
    size_t whole = length / 128;
    for (size_t block = 0; block < whole; block++) {
        for (int lane = 0; lane < 8; lane++) blocks[lane] = bodies[lane] + block * 128;
        load_block(blocks, w);
        compress(state, w);
    }
    unsigned char tails[8][256];
    int count = 0;
    for (int lane = 0; lane < 8; lane++) count = tail_blocks(bodies[lane] + whole * 128, length % 128, suffixes[lane], length, tails[lane]);
    for (int block = 0; block < count; block++) {
        for (int lane = 0; lane < 8; lane++) blocks[lane] = tails[lane] + block * 128;
        load_block(blocks, w);
        compress(state, w);
    }
    // The outer hash's one block: the inner digest (already words), padding, 192 bytes' length.
    digest_block(w, state);
    load_state(state, key->outer);
    compress(state, w);
    uint64_t digest[8][8];
    store_state(digest, state);
    for (int lane = 0; lane < 8; lane++) {
        for (int i = 0; i < 8; i++) {
            for (int byte = 0; byte < 8; byte++) out[lane][8 * i + byte] = (unsigned char)(digest[i][lane] >> (56 - 8 * byte));
        }
    }
}

// Each iteration is HMAC of the previous U, a 64-byte message: one block for the inner hash
// and one for the outer, as PBKDF2.c's pbkdf2_next, here in eight lanes at once.
X8 void cipherpage_pbkdf2_sha512x8(const cipherpage_hmac512_key *keys, const uint64_t first[8][8], int iterations, uint64_t out[8][8]) {
    __m512i u[8], t[8], state[8], w[16];
    load_state(u, first);
    for (int i = 0; i < 8; i++) t[i] = u[i];
    for (int n = 1; n < iterations; n++) {
        digest_block(w, u);
        load_state(state, keys->inner);
        compress(state, w);
        digest_block(w, state);
        load_state(state, keys->outer);
        compress(state, w);
        for (int i = 0; i < 8; i++) u[i] = state[i], t[i] = _mm512_xor_si512(t[i], state[i]);
    }
    store_state(out, t);
    // What spilled to the stack derives from the keys.
    OPENSSL_cleanse(u, sizeof u);
    OPENSSL_cleanse(t, sizeof t);
    OPENSSL_cleanse(state, sizeof state);
    OPENSSL_cleanse(w, sizeof w);
}

#else

#include <stdlib.h>

int cipherpage_sha512x8_available(void) {
    return 0;
}

// Never called: callers ask cipherpage_sha512x8_available first, and it answers 0 here.
// Reaching them is a bug in our own code, so they stop the process rather than return an
// HMAC that was never computed.
void cipherpage_hmac512x8_init(cipherpage_hmac512_key *state, const unsigned char *key) {
    (void)state, (void)key;
    abort();
}

void cipherpage_hmac512x8(const cipherpage_hmac512_key *key, const unsigned char *const bodies[8], size_t length,
                          const unsigned char suffixes[8][4], unsigned char *const out[8]) {
    (void)key, (void)bodies, (void)length, (void)suffixes, (void)out;
    abort();
}

void cipherpage_pbkdf2_sha512x8(const cipherpage_hmac512_key *keys, const uint64_t first[8][8], int iterations, uint64_t out[8][8]) {
    (void)keys, (void)first, (void)iterations, (void)out;
    abort();
}

#endif
