// Two PBKDF2-HMAC-SHA1 iterations at once with the x86 SHA extensions (FIPS 180-4's SHA-1).
// Each hashed block is an HMAC step's: the 20-byte digest before it, then SHA1's padding for
// a 84-byte message (one key block and the digest), so the message words are built from the
// digest's words directly, with no byte order to convert. Tests compare the chains with
// PKCS5_PBKDF2_HMAC. Elsewhere than x86, or without the extensions, the search stays on
// OpenSSL's SHA1_Transform.

#include "SHA1x2.h"
#include "CPUFeatures.h"
#include "PageCodecInternal.h"

#if defined(__x86_64__) || defined(__i386__)

#include <immintrin.h>

#define SHANI __attribute__((target("sha,sse4.1")))

int cipherprovider_sha1x2_available(void) {
    return cipherprovider_cpu_has(CPU_FEATURE_SHA | CPU_FEATURE_SSE41) && cipherpage_hmac_lanes_wanted();
}

// The message schedule's next four words from the four before (FIPS 180-4, 6.1.2 step 1).
#define SCHEDULE(g, b) \
    m[b][(g) & 3] = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(m[b][(g) & 3], m[b][((g) + 1) & 3]), m[b][((g) + 2) & 3]), \
                                       m[b][((g) + 3) & 3])

// Four rounds of both chains with round function `f`; `e` carries each chain's E.
#define ROUNDS(g, f)                                                                                      \
    for (int b = 0; b < 2; b++) {                                                                         \
        if ((g) >= 4) SCHEDULE(g, b);                                                                     \
        __m128i we = (g) == 0 ? _mm_add_epi32(e[b], m[b][0]) : _mm_sha1nexte_epu32(e[b], m[b][(g) & 3]); \
        e[b] = abcd[b];                                                                                   \
        abcd[b] = _mm_sha1rnds4_epu32(abcd[b], we, f);                                                    \
    }

// SHA1 of one padded block per chain, from the chaining value `h`, over the 20-byte message
// `words[b]`; the digest replaces words[b].
SHANI static void compress_x2(const uint32_t h[5], uint32_t words[2][5]) {
    __m128i abcd[2], e[2], m[2][4];
    const __m128i start = _mm_set_epi32((int)h[0], (int)h[1], (int)h[2], (int)h[3]), start_e = _mm_set_epi32((int)h[4], 0, 0, 0);
    for (int b = 0; b < 2; b++) {
        abcd[b] = start;
        e[b] = start_e;
        m[b][0] = _mm_set_epi32((int)words[b][0], (int)words[b][1], (int)words[b][2], (int)words[b][3]);
        m[b][1] = _mm_set_epi32((int)words[b][4], (int)0x80000000u, 0, 0);
        m[b][2] = _mm_setzero_si128();
        m[b][3] = _mm_set_epi32(0, 0, 0, (64 + 20) * 8);
    }
    for (int g = 0; g < 5; g++) ROUNDS(g, 0)
    for (int g = 5; g < 10; g++) ROUNDS(g, 1)
    for (int g = 10; g < 15; g++) ROUNDS(g, 2)
    for (int g = 15; g < 20; g++) ROUNDS(g, 3)
    for (int b = 0; b < 2; b++) {
        __m128i sum = _mm_add_epi32(abcd[b], start);
        words[b][0] = (uint32_t)_mm_extract_epi32(sum, 3);
        words[b][1] = (uint32_t)_mm_extract_epi32(sum, 2);
        words[b][2] = (uint32_t)_mm_extract_epi32(sum, 1);
        words[b][3] = (uint32_t)_mm_extract_epi32(sum, 0);
        words[b][4] = (uint32_t)_mm_extract_epi32(_mm_sha1nexte_epu32(e[b], start_e), 3);
    }
}

SHANI void cipherprovider_sha1x2_pbkdf2_step(const uint32_t inner[5], const uint32_t outer[5], uint32_t u[2][5], uint32_t t[2][5]) {
    compress_x2(inner, u);
    compress_x2(outer, u);
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 5; i++) t[b][i] ^= u[b][i];
}

#else

#include <stdlib.h>

int cipherprovider_sha1x2_available(void) {
    return 0;
}

// Never called: callers ask cipherprovider_sha1x2_available first, and it answers 0 here.
void cipherprovider_sha1x2_pbkdf2_step(const uint32_t inner[5], const uint32_t outer[5], uint32_t u[2][5], uint32_t t[2][5]) {
    (void)inner, (void)outer, (void)u, (void)t;
    abort();
}

#endif
