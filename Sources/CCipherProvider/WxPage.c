// wxSQLite3's AES-128-CBC and AES-256-CBC schemes and System.Data.SQLite's RC4, as SQLite3
// Multiple Ciphers documents and writes them. No MAC, no reserve, no salt:
//   - AES-128: the passphrase padded to 32 bytes with the PDF padding string, turned into a key
//     by PDF's owner/user steps (MD5 50 times over, RC4 20 times); AES-256: SHA-256 of the padded
//     passphrase, then 4001 more SHA-256 rounds.
//   - Each AES page under its own key, a hash (MD5 for AES-128, SHA-256 for AES-256) of the key,
//     the page number (4 bytes, little-endian) and "sAlT", with an IV that is the MD5 of 16
//     bytes of a Park-Miller generator seeded with the page number. Page 1 outside legacy mode:
//     its first 16 bytes encrypted alone, the rest apart, the encrypted bytes 16 to 23 moved
//     to 8 to 15 and the plain ones kept.
//   - RC4: the first 16 bytes of SHA-1 of the passphrase, a fresh RC4 stream over each page.
// See https://utelle.github.io/SQLite3MultipleCiphers/docs/ciphers/cipher_overview/
//
// Hashes and AES go through OpenSSL's EVP interface; RC4, which OpenSSL 3 keeps in its legacy
// provider, is a few lines here. FIPS mode refuses these schemes before any of this runs.

#include "WxPage.h"

#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

static const unsigned char sqlite_magic[16] = "SQLite format 3";
static const unsigned char pdf_padding[32] = {
    0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
    0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
};

static void rc4(const unsigned char *key, int key_length, const unsigned char *in, int length, unsigned char *out) {
    unsigned char state[256];
    for (int i = 0; i < 256; i++) state[i] = (unsigned char)i;
    for (int i = 0, j = 0; i < 256; i++) {
        j = (j + state[i] + key[i % key_length]) & 0xff;
        unsigned char t = state[i];
        state[i] = state[j];
        state[j] = t;
    }
    for (int n = 0, a = 0, b = 0; n < length; n++) {
        a = (a + 1) & 0xff;
        b = (b + state[a]) & 0xff;
        unsigned char t = state[a];
        state[a] = state[b];
        state[b] = t;
        out[n] = in[n] ^ state[(state[a] + state[b]) & 0xff];
    }
    memset(state, 0, sizeof state);
}

static int digest(const EVP_MD *md, const unsigned char *in, size_t length, unsigned char *out) {
    return EVP_Digest(in, length, out, NULL, md, NULL) == 1;
}

static void pad(const unsigned char *passphrase, int length, unsigned char out[32]) {
    int used = length < 32 ? length : 32;
    memcpy(out, passphrase, (size_t)used);
    memcpy(out + used, pdf_padding, (size_t)(32 - used));
}

// MD5 of `in`, then of its own 16 bytes 50 times more.
static int md5_rounds(const unsigned char *in, size_t length, unsigned char out[16]) {
    int ok = digest(EVP_md5(), in, length, out);
    for (int k = 0; ok && k < 50; k++) ok = digest(EVP_md5(), out, 16, out);
    return ok;
}

static int aes128_key(const unsigned char *passphrase, int length, unsigned char out[32]) {
    unsigned char user[64], owner[32], hashed[16], round_key[16];
    pad(passphrase, length, user);
    int ok = md5_rounds(pdf_padding, 32, hashed);
    memcpy(owner, user, 32);
    for (int i = 0; ok && i < 20; i++) {
        for (int j = 0; j < 16; j++) round_key[j] = hashed[j] ^ (unsigned char)i;
        rc4(round_key, 16, owner, 32, owner);
    }
    memcpy(user + 32, owner, 32);
    ok = ok && md5_rounds(user, 64, out);
    memset(user, 0, sizeof user);
    memset(owner, 0, sizeof owner);
    memset(round_key, 0, sizeof round_key);
    return ok ? 16 : 0;
}

static int aes256_key(const unsigned char *passphrase, int length, unsigned char out[32]) {
    unsigned char padded[32];
    pad(passphrase, length, padded);
    int ok = digest(EVP_sha256(), padded, 32, out);
    for (int k = 0; ok && k < 4001; k++) ok = digest(EVP_sha256(), out, 32, out);
    memset(padded, 0, sizeof padded);
    return ok ? 32 : 0;
}

int wxpage_key(int scheme, const unsigned char *passphrase, int length, unsigned char out[32]) {
    unsigned char sha1[20];
    switch (scheme) {
    case WXPAGE_AES128: return aes128_key(passphrase, length, out);
    case WXPAGE_AES256: return aes256_key(passphrase, length, out);
    case WXPAGE_RC4:
        if (!digest(EVP_sha1(), passphrase, (size_t)length, sha1)) return 0;
        memcpy(out, sha1, 16);
        memset(sha1, 0, sizeof sha1);
        return 16;
    default: return 0;
    }
}

// The IV of a page: MD5 of four steps of a Park-Miller generator (Schrage's method, 32-bit
// arithmetic as the original's), seeded with the page number plus one.
static int page_iv(uint32_t pgno, unsigned char iv[16]) {
    unsigned char seed[16];
    int32_t z = (int32_t)(pgno + 1);
    for (int j = 0; j < 4; j++) {
        int32_t q = z / 52774;
        z = 40692 * (z - 52774 * q) - 3791 * q;
        if (z < 0) z += 2147483399;
        for (int b = 0; b < 4; b++) seed[4 * j + b] = (unsigned char)((uint32_t)z >> (8 * b));
    }
    return digest(EVP_md5(), seed, 16, iv);
}

// Decrypts `length` bytes (whole AES blocks) of page `pgno` under its own key and IV.
static int aes_page(EVP_CIPHER_CTX *context, const wxpage_codec *codec, uint32_t pgno, const unsigned char *in, int length,
                    unsigned char *out) {
    int scheme = codec->scheme;
    const unsigned char *key = codec->key;
    int key_length = scheme == WXPAGE_AES128 ? 16 : 32;
    unsigned char material[40], page_key[32], iv[16];
    memcpy(material, key, (size_t)key_length);
    for (int b = 0; b < 4; b++) material[key_length + b] = (unsigned char)(pgno >> (8 * b));
    memcpy(material + key_length + 4, "sAlT", 4);
    const EVP_MD *md = scheme == WXPAGE_AES128 ? EVP_md5() : EVP_sha256();
    const EVP_CIPHER *cipher = scheme == WXPAGE_AES128 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
    int written = 0;
    int ok = digest(md, material, (size_t)key_length + 8, page_key) && page_iv(pgno, iv)
        && EVP_DecryptInit_ex(context, cipher, NULL, page_key, iv) == 1 && EVP_CIPHER_CTX_set_padding(context, 0) == 1
        && EVP_DecryptUpdate(context, out, &written, in, length) == 1 && written == length;
    memset(material, 0, sizeof material);
    memset(page_key, 0, sizeof page_key);
    return ok;
}

// Page 1 outside legacy mode: its ciphertext from byte 16 on, with the encrypted bytes 16 to
// 23 put back from 8 to 15, decrypted, and its bytes 16 to 23 compared with the plain ones.
static int aes_first_page(EVP_CIPHER_CTX *context, const wxpage_codec *codec, const unsigned char *in, unsigned char *out) {
    int page_size = codec->page_size;
    unsigned char *rest = malloc((size_t)page_size - 16);
    if (rest == NULL) return -1;
    memcpy(rest, in + 8, 8);
    memcpy(rest + 8, in + 24, (size_t)page_size - 24);
    int ok = aes_page(context, codec, 1, rest, page_size - 16, out + 16);
    free(rest);
    if (!ok) return -1;
    if (memcmp(out + 16, in + 16, 8) != 0) return 0;
    memcpy(out, sqlite_magic, 16);
    return 1;
}

int wxpage_decrypt_run(const wxpage_codec *codec, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out) {
    size_t page_size = (size_t)codec->page_size;
    if (codec->scheme == WXPAGE_RC4) {
        for (int i = 0; i < count; i++) rc4(codec->key, 16, in + i * page_size, (int)page_size, out + i * page_size);
        return first_pgno != 1 || memcmp(out, sqlite_magic, 16) == 0;
    }
    if (codec->scheme != WXPAGE_AES128 && codec->scheme != WXPAGE_AES256) return -1;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    if (context == NULL) return -1;
    int result = 1;
    for (int i = 0; i < count && result == 1; i++) {
        uint32_t pgno = first_pgno + (uint32_t)i;
        const unsigned char *page = in + i * page_size;
        unsigned char *plain = out + i * page_size;
        if (pgno == 1 && !codec->legacy) {
            result = aes_first_page(context, codec, page, plain);
        } else if (!aes_page(context, codec, pgno, page, (int)page_size, plain)) {
            result = -1;
        } else if (pgno == 1 && memcmp(plain, sqlite_magic, 16) != 0) {
            result = 0;
        }
    }
    EVP_CIPHER_CTX_free(context);
    return result;
}
