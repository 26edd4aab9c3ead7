#ifndef CIPHER_AESCBCX16_H
#define CIPHER_AESCBCX16_H

#include <stddef.h>

// AES-256-CBC encryption of sixteen pages at once with VAES on AVX-512 registers
// (AESCBCx16.c). CBC encryption is serial within a page: each block waits for the one
// before it, so one page keeps the CPU's AES units mostly idle. Sixteen pages, four in each
// of four registers, keep them busy.

// 1 when this CPU runs the sixteen-page code (AVX-512 F and VAES, and AES-NI).
int cipherpage_aes_lanes_available(void);

// AES-256's fifteen round keys for `key` (only when available).
void cipherpage_aes256_round_keys(const unsigned char *key, unsigned char round_keys[15][16]);

// Encrypts `length` bytes (a multiple of 16) from each in[i] into out[i], each chained
// from its own 16-byte ivs[i]. Only when available.
void cipherpage_aes256cbc_encrypt_x16(const unsigned char round_keys[15][16], const unsigned char *const in[16], unsigned char *const out[16],
                                      const unsigned char *const ivs[16], size_t length);

#endif
