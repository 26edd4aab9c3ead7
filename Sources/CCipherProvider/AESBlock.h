#ifndef CIPHER_AES_BLOCK_H
#define CIPHER_AES_BLOCK_H

// One AES-256 block decrypted under keys used once (AESBlock.c): the settings search's
// test of a million candidate keys, where OpenSSL's EVP spends more on setting each key up
// than on the decryption itself.

// 1 when this CPU has AES-NI and the search may use it (cipherpage_use_aes_lanes(0) turns
// it off, so that tests can compare both paths).
int cipherprovider_aes_block_available(void);

// Decrypts the 16 bytes `in` under each of the four 32-byte `keys` into `out`. `schedule` is
// the caller's scratch for the round keys, wiped by the caller. Only when available.
void cipherprovider_aes256_decrypt_block_x4(const unsigned char keys[4][32], const unsigned char *in, unsigned char out[4][16],
                                            unsigned char schedule[4][15][16]);

#endif
