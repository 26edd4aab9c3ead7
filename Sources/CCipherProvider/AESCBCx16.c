// AES-256-CBC encryption (FIPS 197, SP 800-38A) of sixteen messages at once: each VAES
// instruction runs one AES round on four blocks, one from each of four pages, and four
// registers in flight hide the instruction's latency. The code is compiled for these
// instructions alone and is called only after cipherpage_aes_lanes_available says the CPU
// has them; tests compare it with OpenSSL. Elsewhere than x86 none of it is compiled: the
// check answers 0 and pages go through OpenSSL's EVP one at a time (on arm64 OpenSSL uses
// the CPU's own AES instructions).

#include "AESCBCx16.h"
#include "CPUFeatures.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#define LANES __attribute__((target("avx512f,vaes,aes")))

int cipherpage_aes_lanes_available(void) {
    return cipherprovider_cpu_has(CPU_FEATURE_AVX512F | CPU_FEATURE_VAES | CPU_FEATURE_AES);
}

// One step of the key expansion: `previous` XOR its own running prefix, XOR the word that
// the key-generation assist gives (its last word, or its third when `odd`).
LANES static __m128i expand(__m128i previous, __m128i assist, int odd) {
    assist = odd ? _mm_shuffle_epi32(assist, 0xaa) : _mm_shuffle_epi32(assist, 0xff);
    previous = _mm_xor_si128(previous, _mm_slli_si128(previous, 4));
    previous = _mm_xor_si128(previous, _mm_slli_si128(previous, 8));
    return _mm_xor_si128(previous, assist);
}

#define EVEN(i, rcon) rk[i] = expand(rk[(i) - 2], _mm_aeskeygenassist_si128(rk[(i) - 1], rcon), 0)
#define ODD(i) rk[i] = expand(rk[(i) - 2], _mm_aeskeygenassist_si128(rk[(i) - 1], 0), 1)

LANES void cipherpage_aes256_round_keys(const unsigned char *key, unsigned char round_keys[15][16]) {
    __m128i rk[15];
    rk[0] = _mm_loadu_si128((const __m128i *)key);
    rk[1] = _mm_loadu_si128((const __m128i *)(key + 16));
    EVEN(2, 0x01); ODD(3); EVEN(4, 0x02); ODD(5); EVEN(6, 0x04); ODD(7); EVEN(8, 0x08); ODD(9);
    EVEN(10, 0x10); ODD(11); EVEN(12, 0x20); ODD(13); EVEN(14, 0x40);
    for (int i = 0; i < 15; i++) _mm_storeu_si128((__m128i *)round_keys[i], rk[i]);
}

// Block `at` of four messages in one register (message j in 128-bit lane j).
LANES static __m512i gather(const unsigned char *const from[4], size_t at) {
    __m512i block = _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(from[0] + at)));
    block = _mm512_inserti32x4(block, _mm_loadu_si128((const __m128i *)(from[1] + at)), 1);
    block = _mm512_inserti32x4(block, _mm_loadu_si128((const __m128i *)(from[2] + at)), 2);
    return _mm512_inserti32x4(block, _mm_loadu_si128((const __m128i *)(from[3] + at)), 3);
}

LANES static void scatter(__m512i block, unsigned char *const to[4], size_t at) {
    _mm_storeu_si128((__m128i *)(to[0] + at), _mm512_extracti32x4_epi32(block, 0));
    _mm_storeu_si128((__m128i *)(to[1] + at), _mm512_extracti32x4_epi32(block, 1));
    _mm_storeu_si128((__m128i *)(to[2] + at), _mm512_extracti32x4_epi32(block, 2));
    _mm_storeu_si128((__m128i *)(to[3] + at), _mm512_extracti32x4_epi32(block, 3));
}

LANES void cipherpage_aes256cbc_encrypt_x16(const unsigned char round_keys[15][16], const unsigned char *const in[16], unsigned char *const out[16],
                                            const unsigned char *const ivs[16], size_t length) {
    __m512i rk[15], chain[4];
    for (int i = 0; i < 15; i++) rk[i] = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)round_keys[i]));
    for (int g = 0; g < 4; g++) chain[g] = gather(ivs + 4 * g, 0);
    for (size_t at = 0; at < length; at += 16) {
        __m512i x[4];
        for (int g = 0; g < 4; g++) x[g] = _mm512_xor_si512(_mm512_xor_si512(gather(in + 4 * g, at), chain[g]), rk[0]);
        for (int round = 1; round < 14; round++) {
            for (int g = 0; g < 4; g++) x[g] = _mm512_aesenc_epi128(x[g], rk[round]);
        }
        for (int g = 0; g < 4; g++) {
            chain[g] = _mm512_aesenclast_epi128(x[g], rk[14]);
            scatter(chain[g], out + 4 * g, at);
        }
    }
}

#else

#include <stdlib.h>

int cipherpage_aes_lanes_available(void) {
    return 0;
}

// Never called: callers ask cipherpage_aes_lanes_available first, and it answers 0 here.
// Reaching them is a bug in our own code, so they stop the process rather than write
// unencrypted bytes.
void cipherpage_aes256_round_keys(const unsigned char *key, unsigned char round_keys[15][16]) {
    (void)key, (void)round_keys;
    abort();
}

void cipherpage_aes256cbc_encrypt_x16(const unsigned char round_keys[15][16], const unsigned char *const in[16], unsigned char *const out[16],
                                      const unsigned char *const ivs[16], size_t length) {
    (void)round_keys, (void)in, (void)out, (void)ivs, (void)length;
    abort();
}

#endif
