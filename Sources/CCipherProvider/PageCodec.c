// SQLCipher's page format, read directly (no SQLite pager), so that every page can be
// checked on its own: SQLite's pager stops at the first page that fails its HMAC, and a
// SQLCipher connection is unusable after it.
//
// A page holds its ciphertext, then a reserve of `reserve` bytes: the 16-byte IV and the
// HMAC. The HMAC covers the ciphertext and the IV, then the page number (4 bytes, little-
// endian unless the format says big-endian). Page 1 leaves its first 16 bytes (the salt)
// or its plaintext header out of both. An all-zero page passes, as SQLCipher lets it.

#include "PageCodec.h"
#include "PageCodecInternal.h"
#include "CipherProvider.h"

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

int cipherpage_hmac_key(const unsigned char *key, const unsigned char *salt, int kdf_digest, unsigned char *out) {
    unsigned char hmac_salt[16];
    for (int i = 0; i < 16; i++) hmac_salt[i] = salt[i] ^ 0x3a;
    return cipherprovider_pbkdf2(key, 32, hmac_salt, 16, 2, kdf_digest, out, 32);
}

static const char *cipherpage_digest_name(int digest) {
    switch (digest) {
    case 1: return "SHA1";
    case 256: return "SHA256";
    case 512: return "SHA512";
    default: return NULL;
    }
}

// Stops at the first nonzero byte: a page on disk is ciphertext, nonzero almost at once.
int cipherpage_all_zero(const unsigned char *bytes, int length) {
    for (int i = 0; i < length; i++) {
        if (bytes[i] != 0) return 0;
    }
    return 1;
}

static void cipherpage_pgno_bytes(uint32_t pgno, int big_endian, unsigned char *out) {
    for (int i = 0; i < 4; i++) {
        int shift = big_endian ? 8 * (3 - i) : 8 * i;
        out[i] = (unsigned char)(pgno >> shift);
    }
}

EVP_MAC_CTX *cipherpage_keyed_mac(const cipherpage_codec *codec) {
    const char *name = cipherpage_digest_name(codec->hmac_digest);
    if (name == NULL || codec->hmac_key == NULL) return NULL;
    EVP_MAC *hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *mac = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    EVP_MAC_free(hmac);  // the context holds its own reference
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string("digest", (char *)name, 0), OSSL_PARAM_construct_end()};
    if (mac != NULL && !EVP_MAC_init(mac, codec->hmac_key, 32, params)) {
        EVP_MAC_CTX_free(mac);
        return NULL;
    }
    return mac;
}

int cipherpage_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno, unsigned char *out,
                   size_t *length) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    int size = codec->page_size - codec->reserve - offset;
    unsigned char pgno_raw[4];
    cipherpage_pgno_bytes(pgno, codec->big_endian_pgno, pgno_raw);
    return EVP_MAC_init(mac, NULL, 0, NULL) && EVP_MAC_update(mac, page + offset, size + 16) && EVP_MAC_update(mac, pgno_raw, 4)
        && EVP_MAC_final(mac, out, length, 64);
}

int cipherpage_verify_mac(const cipherpage_codec *codec, EVP_MAC_CTX *mac, const unsigned char *page, uint32_t pgno) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    unsigned char out[64];
    size_t length = 0;
    if (!cipherpage_mac(codec, mac, page, pgno, out, &length)) return -1;
    if (CRYPTO_memcmp(out, page + codec->page_size - codec->reserve + 16, length) == 0) return 1;
    return cipherpage_all_zero(page + offset, codec->page_size - offset);
}

int cipherpage_check(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *bad) {
    EVP_MAC_CTX *mac = cipherpage_keyed_mac(codec);
    if (mac == NULL) return -1;
    int found = 0;
    for (int i = 0; i < count; i++) {
        int matches = cipherpage_verify_mac(codec, mac, pages + (size_t)i * codec->page_size, first_pgno + (uint32_t)i);
        if (matches < 0) {
            found = -1;
            break;
        }
        bad[i] = !matches;
        found += bad[i];
    }
    EVP_MAC_CTX_free(mac);
    return found;
}

int cipherpage_cipher_init(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *iv, int encrypt) {
    // A context that already has the cipher is not given it again (OpenSSL would fetch it
    // from its provider, which costs more than a small page), and one that holds this key
    // only takes the IV (no new key schedule). The key's address identifies it.
    if (EVP_CIPHER_CTX_get0_cipher(cipher) == NULL) {
        if (!EVP_CipherInit_ex(cipher, EVP_aes_256_cbc(), NULL, NULL, NULL, encrypt) || !EVP_CIPHER_CTX_set_padding(cipher, 0)) return 0;
    }
    int keyed = EVP_CIPHER_CTX_get_app_data(cipher) == (void *)key;
    if (!EVP_CipherInit_ex(cipher, NULL, NULL, keyed ? NULL : key, iv, encrypt)) return 0;
    EVP_CIPHER_CTX_set_app_data(cipher, (void *)key);
    return 1;
}

int cipherpage_decrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, const unsigned char *page, uint32_t pgno,
                            unsigned char *out) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    int size = codec->page_size - codec->reserve - offset;
    memcpy(out, page, codec->page_size);
    if (pgno == 1 && offset == 16) memcpy(out, "SQLite format 3", 16);
    if (cipherpage_all_zero(page + offset, codec->page_size - offset)) return 1;
    int written = 0, last = 0;
    return cipherpage_cipher_init(cipher, codec->key, page + offset + size, 0) && EVP_DecryptUpdate(cipher, out + offset, &written, page + offset, size)
        && EVP_DecryptFinal_ex(cipher, out + offset + written, &last) && written + last == size;
}

int cipherpage_decrypt(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno, unsigned char *out) {
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    int ok = cipher != NULL && cipherpage_decrypt_with(codec, cipher, page, pgno, out);
    EVP_CIPHER_CTX_free(cipher);
    return ok;
}

void cipherpage_wal_checksum(const unsigned char *data, int length, int big_endian, uint32_t *s) {
    uint32_t s0 = s[0], s1 = s[1];
    for (int i = 0; i + 8 <= length; i += 8) {
        uint32_t x0, x1;
        if (big_endian) {
            x0 = (uint32_t)data[i] << 24 | (uint32_t)data[i + 1] << 16 | (uint32_t)data[i + 2] << 8 | data[i + 3];
            x1 = (uint32_t)data[i + 4] << 24 | (uint32_t)data[i + 5] << 16 | (uint32_t)data[i + 6] << 8 | data[i + 7];
        } else {
            x0 = (uint32_t)data[i + 3] << 24 | (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 1] << 8 | data[i];
            x1 = (uint32_t)data[i + 7] << 24 | (uint32_t)data[i + 6] << 16 | (uint32_t)data[i + 5] << 8 | data[i + 4];
        }
        s0 += x0 + s1;
        s1 += x1 + s0;
    }
    s[0] = s0;
    s[1] = s1;
}
