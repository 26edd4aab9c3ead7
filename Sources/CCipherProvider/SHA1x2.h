#ifndef CIPHER_SHA1X2_H
#define CIPHER_SHA1X2_H

#include <stdint.h>

// One PBKDF2-HMAC-SHA1 iteration of two chains at once with the CPU's SHA instructions
// (SHA1x2.c). A 32-byte key takes two SHA1 blocks, whose chains are independent; each SHA
// instruction waits for the one before it, and the other chain fills the wait.

// 1 when this CPU has the SHA and SSE4.1 instructions and the search may use them
// (cipherpage_use_hmac_lanes(0) turns them off, so that tests can compare both paths).
int cipherprovider_sha1x2_available(void);

// For each chain b: u[b] becomes HMAC(key, u[b]) and t[b] ^= the new u[b]. `inner` and
// `outer` are the chaining values of SHA1 after the key's inner and outer blocks; all
// values are SHA1's 32-bit words (h0 first). Only when available.
void cipherprovider_sha1x2_pbkdf2_step(const uint32_t inner[5], const uint32_t outer[5], uint32_t u[2][5], uint32_t t[2][5]);

#endif
