// SQLCipher 1 to 3 under `PRAGMA cipher` AES-128-CBC, AES-192-CBC, AES-128-CFB or AES-256-CFB,
// as SQLCipher 3.4.1 writes them (checked against it):
//   - page 1 begins with the 16-byte salt; the key is PBKDF2-HMAC-SHA1 of the passphrase over
//     it, as long as the cipher's key; the HMAC key PBKDF2-HMAC-SHA1 of that key over the salt
//     XOR 0x3a (another byte under the deprecated `PRAGMA cipher_hmac_salt_mask`), 2
//     iterations, the same length.
//   - each page: its data (from byte 16 on page 1) encrypted up to the reserve, which is 48
//     bytes with HMAC (SQLCipher 3 sizes it for AES-256-CBC whatever the cipher) and 16 without
//     (SQLCipher 1); the IV at the reserve's start, then HMAC-SHA1 of ciphertext, IV and the
//     page number (4 bytes, little-endian).
// Everything goes through OpenSSL's EVP interface and one-shot HMAC.

#include "LegacyCipherPage.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

static const unsigned char sqlite_magic[16] = "SQLite format 3";

static const EVP_CIPHER *legacy_cipher(int cipher) {
    switch (cipher) {
    case LEGACYPAGE_AES128_CBC: return EVP_aes_128_cbc();
    case LEGACYPAGE_AES192_CBC: return EVP_aes_192_cbc();
    case LEGACYPAGE_AES256_CFB: return EVP_aes_256_cfb128();
    case LEGACYPAGE_AES128_CFB: return EVP_aes_128_cfb128();
    default: return NULL;
    }
}

int legacypage_keys(int cipher, const unsigned char *passphrase, int length, const unsigned char salt[16], int iterations,
                    unsigned char keys[64]) {
    const EVP_CIPHER *evp = legacy_cipher(cipher);
    if (evp == NULL) return 0;
    int key_length = EVP_CIPHER_get_key_length(evp);
    int ok = PKCS5_PBKDF2_HMAC_SHA1((const char *)passphrase, length, salt, 16, iterations, key_length, keys)
        && legacypage_hmac_key(cipher, keys, salt, 0x3a, keys + 32) > 0;
    return ok ? key_length : 0;
}

int legacypage_hmac_key(int cipher, const unsigned char *key, const unsigned char salt[16], int mask, unsigned char hmac_key[32]) {
    const EVP_CIPHER *evp = legacy_cipher(cipher);
    if (evp == NULL) return 0;
    int key_length = EVP_CIPHER_get_key_length(evp);
    unsigned char masked[16];
    for (int i = 0; i < 16; i++) masked[i] = salt[i] ^ (unsigned char)mask;
    return PKCS5_PBKDF2_HMAC_SHA1((const char *)key, key_length, masked, 16, 2, key_length, hmac_key) ? key_length : 0;
}

// Whether page `pgno`'s HMAC holds: over its ciphertext and IV (contiguous), then the number.
static int page_mac_holds(const legacypage_codec *codec, const unsigned char *page, uint32_t pgno, int reserve) {
    int offset = pgno == 1 ? 16 : 0, covered = codec->page_size - reserve - offset + 16;
    int key_length = EVP_CIPHER_get_key_length(legacy_cipher(codec->cipher));
    unsigned char number[4] = {(unsigned char)pgno, (unsigned char)(pgno >> 8), (unsigned char)(pgno >> 16), (unsigned char)(pgno >> 24)};
    if (codec->big_endian_pgno) {
        unsigned char swapped[4] = {number[3], number[2], number[1], number[0]};
        memcpy(number, swapped, 4);
    }
    unsigned char mac[EVP_MAX_MD_SIZE];
    size_t mac_length = 0;
    char digest[] = "SHA1";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *context = hmac != NULL ? EVP_MAC_CTX_new(hmac) : NULL;
    int ok = context != NULL && EVP_MAC_init(context, codec->hmac_key, (size_t)key_length, params)
        && EVP_MAC_update(context, page + offset, (size_t)covered) && EVP_MAC_update(context, number, 4)
        && EVP_MAC_final(context, mac, &mac_length, sizeof mac) && mac_length == 20;
    EVP_MAC_CTX_free(context);
    EVP_MAC_free(hmac);
    return ok && CRYPTO_memcmp(mac, page + codec->page_size - reserve + 16, 20) == 0;
}

// Decrypts page `pgno`'s data area; 1, or 0 when OpenSSL fails.
static int page_decrypt(EVP_CIPHER_CTX *context, const legacypage_codec *codec, const unsigned char *page, uint32_t pgno,
                        int reserve, unsigned char *out) {
    int offset = pgno == 1 ? 16 : 0, length = codec->page_size - reserve - offset, written = 0, last = 0;
    memset(out, 0, (size_t)codec->page_size);
    if (pgno == 1) memcpy(out, sqlite_magic, 16);
    return EVP_DecryptInit_ex(context, legacy_cipher(codec->cipher), NULL, codec->key, page + codec->page_size - reserve) == 1
        && EVP_CIPHER_CTX_set_padding(context, 0) == 1 && EVP_DecryptUpdate(context, out + offset, &written, page + offset, length) == 1
        && EVP_DecryptFinal_ex(context, out + offset + written, &last) == 1 && written + last == length;
}

// A page 1 that decrypts to its own page size and reserve: without HMAC the only check of
// the key, with it the check of the cipher's mode (an HMAC key is the same for CBC and CFB).
static int header_holds(const legacypage_codec *codec, const unsigned char *plain, int reserve) {
    int size = plain[16] << 8 | plain[17];
    if (size == 1) size = 65536;
    return size == codec->page_size && plain[20] == reserve && plain[21] == 64 && plain[22] == 32 && plain[23] == 32;
}

int legacypage_mac_holds(const legacypage_codec *codec, const unsigned char *page, uint32_t pgno) {
    return codec->use_hmac && page_mac_holds(codec, page, pgno, 48);
}

int legacypage_header_decrypts(const legacypage_codec *codec, const unsigned char *page1) {
    if (legacy_cipher(codec->cipher) == NULL) return -1;
    int reserve = codec->use_hmac ? 48 : 16;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    unsigned char *plain = malloc((size_t)codec->page_size);
    int result = -1;
    if (context != NULL && plain != NULL && page_decrypt(context, codec, page1, 1, reserve, plain)) {
        result = header_holds(codec, plain, reserve);
    }
    if (plain != NULL) OPENSSL_cleanse(plain, (size_t)codec->page_size);
    free(plain);
    EVP_CIPHER_CTX_free(context);
    return result;
}

int64_t legacypage_decrypt_run(const legacypage_codec *codec, const unsigned char *in, int count, unsigned char *out) {
    if (legacy_cipher(codec->cipher) == NULL) return -1;
    int reserve = codec->use_hmac ? 48 : 16;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return -1;
    int64_t result = 0;
    size_t page_size = (size_t)codec->page_size;
    for (int i = 0; i < count && result == 0; i++) {
        uint32_t pgno = (uint32_t)i + 1;
        const unsigned char *page = in + i * page_size;
        if (codec->use_hmac && !page_mac_holds(codec, page, pgno, reserve)) {
            result = pgno;
        } else if (!page_decrypt(context, codec, page, pgno, reserve, out + i * page_size)) {
            result = -1;
        } else if (pgno == 1 && !header_holds(codec, out, reserve)) {
            result = 1;
        }
    }
    EVP_CIPHER_CTX_free(context);
    return result;
}
