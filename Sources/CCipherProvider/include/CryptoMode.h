#ifndef CIPHER_CRYPTO_MODE_H
#define CIPHER_CRYPTO_MODE_H

#include "CipherProvider.h"

// FIPS mode (see CryptoMode.c): every cryptographic operation through OpenSSL's EVP
// interface, so that all of it runs inside whatever provider OpenSSL uses (its FIPS provider
// where configured). Set once, before the first key is derived or page encrypted.
void cipherprovider_set_fips(int enabled);
// 1 in FIPS mode.
int cipherprovider_fips(void);
// Fills `out` with `count` bytes from OpenSSL's DRBG (RAND_bytes), which runs inside the
// provider OpenSSL is configured with; 1, or 0 when it fails.
int cipherprovider_random_bytes(unsigned char *out, int count);
// 1 when OpenSSL's default properties ask for the FIPS provider (fips=yes in openssl.cnf).
int cipherprovider_fips_default(void);
// 1 when OpenSSL's FIPS provider is loaded (or loadable through its configuration).
int cipherprovider_fips_provider_loaded(void);
// How many times an entry point of the project's own crypto code ran in this process (its
// PBKDF2, AES-NI block test, SHA1 pair, SHA-512 and AES lanes): for the tests that prove
// FIPS mode runs none of it.
unsigned long cipherprovider_own_crypto_runs(void);
// PBKDF2 through OpenSSL's EVP_KDF, as cipherprovider_pbkdf2 (which calls it in FIPS mode).
// Below 1000 iterations (SQLCipher's HMAC key, derived from a key with 2) the KDF's SP 800-132
// lower-bound checks are turned off for that call; callers refuse passphrases below 1000.
int cipherprovider_evp_pbkdf2(const cipherprovider_kdf *kdf, unsigned char *out, int out_length);

#endif
