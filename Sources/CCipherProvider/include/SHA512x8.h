#ifndef CIPHER_SHA512X8_H
#define CIPHER_SHA512X8_H

#include <stddef.h>
#include <stdint.h>

// HMAC-SHA512 of eight messages at once, one in each 64-bit lane of AVX-512 registers
// (SHA512x8.c). SHA-512 is a chain of dependent rounds over 64-bit words, so one message
// keeps a core's vector units mostly idle; eight equally long messages, one a lane, fill
// them. SQLCipher 4 computes two HMAC-SHA512 a page, which are most of a page's crypto.

// The HMAC key's inner and outer states after their first block, for each lane.
typedef struct {
    uint64_t inner[8][8], outer[8][8];  // [word][lane]
} cipherpage_hmac512_key;

// 1 when this CPU runs the eight-lane code (AVX-512 F and BW).
int cipherpage_sha512x8_available(void);

// Readies `state` for the 32-byte `key` (only when available).
void cipherpage_hmac512x8_init(cipherpage_hmac512_key *state, const unsigned char *key);

// The HMAC of each lane's message: `length` bytes at bodies[i] then the 4 bytes at
// suffixes[i]; out[i] receives 64 bytes. Only when available.
void cipherpage_hmac512x8(const cipherpage_hmac512_key *state, const unsigned char *const bodies[8], size_t length,
                          const unsigned char suffixes[8][4], unsigned char *const out[8]);

// PBKDF2-HMAC-SHA512's iterations after the first, for eight derivations at once, one a lane:
// `keys` holds each lane's HMAC key states, `first` each lane's first U (its digest as
// words), `out` receives the XOR of a lane's `iterations` U's. [word][lane] throughout.
// Only when available.
void cipherpage_pbkdf2_sha512x8(const cipherpage_hmac512_key *keys, const uint64_t first[8][8], int iterations, uint64_t out[8][8]);

#endif
