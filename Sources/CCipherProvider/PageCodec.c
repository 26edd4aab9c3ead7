// SQLCipher's page format, read directly (no SQLite pager), so that every page can be
// checked on its own: SQLite's pager stops at the first page that fails its HMAC, and a
// SQLCipher connection is unusable after it.
//
// A page holds its ciphertext, then a reserve of `reserve` bytes: the 16-byte IV and the
// HMAC. The HMAC covers the ciphertext and the IV, then the page number (4 bytes, little-
// endian unless the format says big-endian). Page 1 leaves its first 16 bytes (the salt)
// or its plaintext header out of both. An all-zero page fails, as SQLCipher's
// cipher_integrity_check fails it (its pager reads one as zeros): SQLCipher writes none.
// Only SQLite's lock-byte page, which no one writes, may be all zeros.

#include "PageCodec.h"
#include "PageCodecInternal.h"
#include "CipherProvider.h"

#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

int cipherpage_hmac_key(const unsigned char *key, const unsigned char *salt, int iterations, int kdf_digest, unsigned char *out) {
    return cipherpage_hmac_key_masked(key, salt, iterations, kdf_digest, 0x3a, out);
}

int cipherpage_hmac_key_masked(const unsigned char *key, const unsigned char *salt, int iterations, int kdf_digest, unsigned char mask,
                               unsigned char *out) {
    unsigned char hmac_salt[16];
    for (int i = 0; i < 16; i++) hmac_salt[i] = salt[i] ^ mask;
    const cipherprovider_kdf kdf = {key, 32, hmac_salt, 16, iterations, kdf_digest};
    return cipherprovider_pbkdf2(&kdf, out, 32);
}

// Stops at the first nonzero byte: a page on disk is ciphertext, nonzero almost at once.
int cipherpage_all_zero(const unsigned char *bytes, int length) {
    for (int i = 0; i < length; i++) {
        if (bytes[i] != 0) return 0;
    }
    return 1;
}

// Whether `page` is SQLite's lock-byte page (the one holding byte 0x40000000) and all
// zeros, as SQLite leaves it: it holds nothing, and no one writes it.
int cipherpage_empty_lock_page(const cipherpage_codec *codec, const unsigned char *page, uint32_t pgno) {
    return pgno == (uint32_t)(0x40000000 / codec->page_size) + 1 && cipherpage_all_zero(page, codec->page_size);
}

int cipherpage_check(const cipherpage_codec *codec, const unsigned char *pages, uint32_t first_pgno, int count, unsigned char *bad) {
    cipherpage_mac_state state = {0};
    unsigned char *macs = OPENSSL_malloc((size_t)(count > 0 ? count : 1) * 64);
    int found = codec->hmac_digest != 0 && count >= 0 && macs != NULL && cipherpage_mac_state_init(&state, codec)
        && cipherpage_macs(codec, &state, pages, first_pgno, count, macs) ? 0 : -1;
    for (int i = 0; i < count && found >= 0; i++) {
        uint32_t pgno = first_pgno + (uint32_t)i;
        bad[i] = !cipherpage_mac_matches(codec, pages + (size_t)i * codec->page_size, pgno, macs + 64 * (size_t)i);
        found += bad[i];
    }
    cipherpage_mac_state_free(&state);
    OPENSSL_free(macs);
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

// A region that is no whole number of blocks (page 1 of SQLite3 Multiple Ciphers' SQLCipher
// scheme, encrypted from byte 24): CBC with ciphertext stealing, the last two blocks swapped
// (CS3), as its Rijndael writes it. All full blocks but the last decrypt as CBC; the last
// full one stored decrypts alone to the partial plaintext XOR the partial ciphertext, and its
// tail completes the ciphertext of the block before, which decrypts against the one before it.
static int decrypt_stolen(EVP_CIPHER_CTX *cipher, const unsigned char *key, const unsigned char *iv, const unsigned char *in, int size,
                          unsigned char *out) {
    int tail = size % 16, full = size - tail, head = full - 16, written = 0;
    if (head < 0) return 0;
    if (head > 0 && !(cipherpage_cipher_init(cipher, key, iv, 0) && EVP_DecryptUpdate(cipher, out, &written, in, head) && written == head)) return 0;
    const unsigned char *before = head > 0 ? in + head - 16 : iv;
    unsigned char stolen[16], block[16];
    EVP_CIPHER_CTX *single = EVP_CIPHER_CTX_new();
    int ok = single != NULL && EVP_DecryptInit_ex(single, EVP_aes_256_ecb(), NULL, key, NULL) && EVP_CIPHER_CTX_set_padding(single, 0)
        && EVP_DecryptUpdate(single, stolen, &written, in + head, 16) && written == 16;
    if (ok) {
        for (int i = 0; i < tail; i++) out[full + i] = stolen[i] ^ in[full + i];
        memcpy(block, in + full, (size_t)tail);
        memcpy(block + tail, stolen + tail, (size_t)(16 - tail));
        ok = EVP_DecryptUpdate(single, out + head, &written, block, 16) && written == 16;
        for (int i = 0; ok && i < 16; i++) out[head + i] ^= before[i];
    }
    EVP_CIPHER_CTX_free(single);
    memset(stolen, 0, sizeof stolen);
    return ok;
}

int cipherpage_decrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, const unsigned char *page, uint32_t pgno,
                            unsigned char *out) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    int size = codec->page_size - codec->reserve - offset;
    memcpy(out, page, codec->page_size);
    if (pgno == 1 && offset == 16) memcpy(out, "SQLite format 3", 16);
    if (cipherpage_empty_lock_page(codec, page, pgno)) return 1;
    if (size % 16 != 0) return decrypt_stolen(cipher, codec->key, page + offset + size, page + offset, size, out + offset);
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
