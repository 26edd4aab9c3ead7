// AES-256 decryption of one block under each of four keys (FIPS 197, section 5.3.5's
// equivalent inverse cipher) with AES-NI: the encryption round keys, InvMixColumns on the
// middle ones, then fourteen rounds. About 20 ns a key, against about 250 ns through
// EVP_DecryptInit_ex, whose provider looks its parameters up by name on every key. Tests compare it with OpenSSL. Elsewhere than x86,
// or without AES-NI, the search stays on EVP (on arm64 OpenSSL uses the CPU's own AES).

#include "AESBlock.h"
#include "CPUFeatures.h"
#include "PageCodecInternal.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#define AESNI __attribute__((target("aes,sse4.1")))

int cipherprovider_aes_block_available(void) {
    return cipherprovider_cpu_has(CPU_FEATURE_AES | CPU_FEATURE_SSE41) && cipherpage_aes_lanes_wanted();
}

// One step of the key expansion, as in AESCBCx16.c (that file's is compiled for AVX-512).
AESNI static __m128i expand(__m128i previous, __m128i assist, int odd) {
    assist = odd ? _mm_shuffle_epi32(assist, 0xaa) : _mm_shuffle_epi32(assist, 0xff);
    previous = _mm_xor_si128(previous, _mm_slli_si128(previous, 4));
    previous = _mm_xor_si128(previous, _mm_slli_si128(previous, 8));
    return _mm_xor_si128(previous, assist);
}

// Four keys' expansions and decryptions interleaved: each step of one key waits for the
// step before it, and the other three fill the wait. The round keys live in the caller's
// `schedule`, not on this function's stack, so that the one copy left behind is the one the
// caller wipes.
#define KEY(j, i) _mm_loadu_si128((const __m128i *)schedule[j][i])
#define SET(j, i, value) _mm_storeu_si128((__m128i *)schedule[j][i], value)
#define EVEN(i, rcon) for (int j = 0; j < 4; j++) SET(j, i, expand(KEY(j, (i) - 2), _mm_aeskeygenassist_si128(KEY(j, (i) - 1), rcon), 0))
#define ODD(i) for (int j = 0; j < 4; j++) SET(j, i, expand(KEY(j, (i) - 2), _mm_aeskeygenassist_si128(KEY(j, (i) - 1), 0), 1))

AESNI void cipherprovider_aes256_decrypt_block_x4(const unsigned char keys[4][32], const unsigned char *in, unsigned char out[4][16],
                                                  unsigned char schedule[4][15][16]) {
    for (int j = 0; j < 4; j++) {
        SET(j, 0, _mm_loadu_si128((const __m128i *)keys[j]));
        SET(j, 1, _mm_loadu_si128((const __m128i *)(keys[j] + 16)));
    }
    EVEN(2, 0x01); ODD(3); EVEN(4, 0x02); ODD(5); EVEN(6, 0x04); ODD(7); EVEN(8, 0x08); ODD(9);
    EVEN(10, 0x10); ODD(11); EVEN(12, 0x20); ODD(13); EVEN(14, 0x40);
    __m128i block[4];
    for (int j = 0; j < 4; j++) block[j] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)in), KEY(j, 14));
    for (int round = 13; round >= 1; round--) {
        for (int j = 0; j < 4; j++) block[j] = _mm_aesdec_si128(block[j], _mm_aesimc_si128(KEY(j, round)));
    }
    for (int j = 0; j < 4; j++) _mm_storeu_si128((__m128i *)out[j], _mm_aesdeclast_si128(block[j], KEY(j, 0)));
}

#else

#include <stdlib.h>

int cipherprovider_aes_block_available(void) {
    return 0;
}

// Never called: callers ask cipherprovider_aes_block_available first, and it answers 0 here.
void cipherprovider_aes256_decrypt_block_x4(const unsigned char keys[4][32], const unsigned char *in, unsigned char out[4][16],
                                            unsigned char schedule[4][15][16]) {
    (void)keys, (void)in, (void)out, (void)schedule;
    abort();
}

#endif
