// FIPS mode. In it, every cryptographic operation goes through OpenSSL's EVP interface: the
// own PBKDF2 becomes EVP_KDF's, and the CPU-specific code (the AES-NI block test, SHA1's
// paired chains, the SHA-512 and AES lanes) is never chosen, because cipherprovider_cpu_has
// answers no. The settings search, which needs one PBKDF2 chain tested at every count, is
// refused. What runs then is OpenSSL's provider code: its FIPS provider's where OpenSSL is
// configured to use it.
// See https://docs.openssl.org/3.0/man7/fips_module/ and
// https://docs.openssl.org/3.0/man7/EVP_KDF-PBKDF2/

#include "OwnCrypto.h"
#include "CryptoMode.h"

#include <stdatomic.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/rand.h>

static atomic_int fips_mode = 0;
static atomic_ulong own_crypto_runs = 0;

void cipherprovider_set_fips(int enabled) {
    atomic_store(&fips_mode, enabled != 0);
}

int cipherprovider_fips(void) {
    return atomic_load_explicit(&fips_mode, memory_order_relaxed);
}

int cipherprovider_fips_default(void) {
    return EVP_default_properties_is_fips_enabled(NULL);
}

int cipherprovider_fips_provider_loaded(void) {
    return OSSL_PROVIDER_available(NULL, "fips");
}

void cipherprovider_note_own_crypto(void) {
    atomic_fetch_add_explicit(&own_crypto_runs, 1, memory_order_relaxed);
}

unsigned long cipherprovider_own_crypto_runs(void) {
    return atomic_load(&own_crypto_runs);
}

static const char *evp_digest_name(int digest) {
    switch (digest) {
    case 1: return "SHA1";
    case 256: return "SHA256";
    case 512: return "SHA512";
    default: return NULL;
    }
}

int cipherprovider_evp_pbkdf2(const cipherprovider_kdf *kdf, unsigned char *out, int out_length) {
    const char *digest = kdf == NULL ? NULL : evp_digest_name(kdf->digest);
    if (digest == NULL || kdf->iterations < 1 || kdf->pass_length < 0 || kdf->salt_length < 0 || out_length <= 0 || out == NULL) return 0;
    EVP_KDF *method = EVP_KDF_fetch(NULL, "PBKDF2", NULL);
    EVP_KDF_CTX *context = method == NULL ? NULL : EVP_KDF_CTX_new(method);
    EVP_KDF_free(method);  // the context holds its own reference
    if (context == NULL) return 0;
    unsigned iterations = (unsigned)kdf->iterations;
    int unchecked = kdf->iterations < 1000;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PASSWORD, (void *)kdf->pass, (size_t)kdf->pass_length),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)kdf->salt, (size_t)kdf->salt_length),
        OSSL_PARAM_construct_uint(OSSL_KDF_PARAM_ITER, &iterations),
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)digest, 0),
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_PKCS5, &unchecked),
        OSSL_PARAM_construct_end(),
    };
    int ok = EVP_KDF_derive(context, out, (size_t)out_length, params) == 1;
    EVP_KDF_CTX_free(context);
    return ok;
}

int cipherprovider_random_bytes(unsigned char *out, int count) {
    return RAND_bytes(out, count) == 1;
}
