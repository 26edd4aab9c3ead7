// SQLCipher pages written, checked, converted and decrypted by the page codec, each page
// checked against OpenSSL used directly on the format (AES-256-CBC with the IV from the
// reserve, HMAC-SHA512 over ciphertext, IV and page number), with the lanes on, off and each
// alone; where the CPU has them, the lanes' AES and HMAC against OpenSSL's byte for byte.

#include "CTest.h"
#include "CipherProvider.h"
#include "PageCodec.h"

#include <stdint.h>
#include <stdlib.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/hmac.h>
#include <openssl/params.h>

enum { PAGE = 4096, RESERVE = 80, PAGES = 41, CONTENT = PAGE - RESERVE };

typedef struct {
    unsigned char key[32], hmac_key[32], salt[16];
    cipherpage_codec codec;
} keyed_codec;

static void make_codec(keyed_codec *keyed) {
    ctest_random(keyed->key, 32);
    ctest_random(keyed->salt, 16);
    CHECK(cipherpage_hmac_key(keyed->key, keyed->salt, 2, 512, keyed->hmac_key) == 1);
    keyed->codec = (cipherpage_codec){keyed->key, keyed->hmac_key, PAGE, RESERVE, 512, 16, 0, keyed->salt};
}

// 1 when OpenSSL, given only the format, decrypts `page` to `plain` and finds its HMAC right.
static int reference_ok(const keyed_codec *keyed, const unsigned char *page, uint32_t pgno, const unsigned char *plain) {
    int offset = pgno == 1 ? 16 : 0, size = CONTENT - offset, written = 0, last = 0;
    unsigned char decrypted[PAGE], message[PAGE], mac[64];
    unsigned int mac_length = 0;
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    int ok = cipher && EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, keyed->key, page + CONTENT) && EVP_CIPHER_CTX_set_padding(cipher, 0)
        && EVP_DecryptUpdate(cipher, decrypted, &written, page + offset, size) && EVP_DecryptFinal_ex(cipher, decrypted + written, &last);
    EVP_CIPHER_CTX_free(cipher);
    memcpy(message, page + offset, (size_t)size + 16);
    for (int i = 0; i < 4; i++) message[size + 16 + i] = (unsigned char)(pgno >> (8 * i));
    ok = ok && HMAC(EVP_sha512(), keyed->hmac_key, 32, message, (size_t)size + 20, mac, &mac_length) != NULL;
    ok = ok && memcmp(decrypted, plain + offset, (size_t)size) == 0 && memcmp(mac, page + CONTENT + 16, 64) == 0;
    return ok && (pgno != 1 || memcmp(page, keyed->salt, 16) == 0);
}

static int all_reference_ok(const keyed_codec *keyed, const unsigned char *pages, const unsigned char *plain) {
    int ok = 1;
    for (uint32_t i = 0; i < PAGES; i++) ok &= reference_ok(keyed, pages + i * PAGE, i + 1, plain + i * PAGE);
    return ok;
}

static int none_bad(const unsigned char *bad) {
    for (int i = 0; i < PAGES; i++) {
        if (bad[i] != CIPHERPAGE_OK) return 0;
    }
    return 1;
}

static void one_page_round_trip(const keyed_codec *keyed, const unsigned char *plain) {
    unsigned char page[PAGE], back[PAGE];
    for (uint32_t pgno = 1; pgno <= 3; pgno++) {
        CHECK(cipherpage_encrypt(&keyed->codec, plain + (pgno - 1) * PAGE, pgno, page) == 1);
        CHECK(reference_ok(keyed, page, pgno, plain + (pgno - 1) * PAGE));
        CHECK(cipherpage_decrypt(&keyed->codec, page, pgno, back) == 1);
        CHECK(memcmp(back, plain + (pgno - 1) * PAGE, CONTENT) == 0);
    }
}

// A run written, converted to another key and decrypted, each step checked page by page.
static void run_round_trip(const keyed_codec *from, const keyed_codec *to, const unsigned char *plain, unsigned char *work) {
    unsigned char *first = work, *second = work + PAGES * PAGE, *back = work + 2 * PAGES * PAGE, bad[PAGES];
    CHECK(cipherpage_encrypt_run(&from->codec, plain, 1, PAGES, first, bad) == 0 && none_bad(bad));
    CHECK(all_reference_ok(from, first, plain));
    const cipherpage_pages pages = {first, 1, PAGES, second, bad};
    CHECK(cipherpage_convert(&from->codec, &to->codec, &pages) == 0 && none_bad(bad));
    CHECK(all_reference_ok(to, second, plain));
    CHECK(cipherpage_decrypt_run(&to->codec, second, 1, PAGES, back, bad) == 0 && none_bad(bad));
    int same = 1;
    for (int i = 0; i < PAGES; i++) {
        unsigned char zeros[RESERVE] = {0};
        same &= memcmp(back + i * PAGE + (i == 0 ? 16 : 0), plain + i * PAGE + (i == 0 ? 16 : 0), CONTENT - (i == 0 ? 16 : 0)) == 0;
        same &= memcmp(back + i * PAGE + CONTENT, zeros, RESERVE) == 0;
    }
    CHECK(same);
}

static void damaged_pages(const keyed_codec *from, const keyed_codec *to, const unsigned char *plain, unsigned char *work) {
    unsigned char *pages = work, *out = work + PAGES * PAGE, bad[PAGES];
    CHECK(cipherpage_encrypt_run(&from->codec, plain, 1, PAGES, pages, bad) == 0);
    CHECK(cipherpage_check(&from->codec, pages, 1, PAGES, bad) == 0 && none_bad(bad));
    pages[9 * PAGE + 100] ^= 1;             // page 10's ciphertext
    pages[CONTENT + 16] ^= 0x80;            // page 1's HMAC
    memset(pages + 20 * PAGE, 0, PAGE);     // page 21 all zeros: damage, as cipher_integrity_check says
    CHECK(cipherpage_check(&from->codec, pages, 1, PAGES, bad) == 3 && bad[0] == 1 && bad[9] == 1 && bad[20] == 1);
    // SQLite's lock-byte page, which no one writes, passes all zeros; any other page does not.
    const uint32_t lock_page = 0x40000000 / PAGE + 1;
    CHECK(cipherpage_check(&from->codec, pages + 20 * PAGE, lock_page, 1, bad) == 0 && bad[0] == 0);
    CHECK(cipherpage_check(&from->codec, pages + 20 * PAGE, lock_page + 1, 1, bad) == 1 && bad[0] == 1);
    memset(out, 0, PAGES * PAGE);
    const cipherpage_pages run = {pages, 1, PAGES, out, bad};
    CHECK(cipherpage_convert(&from->codec, &to->codec, &run) == 3 && bad[0] == CIPHERPAGE_SOURCE_HMAC && bad[9] == CIPHERPAGE_SOURCE_HMAC
          && bad[20] == CIPHERPAGE_SOURCE_HMAC);
    unsigned char *zeros = calloc(PAGES, PAGE);
    CHECK(zeros != NULL && memcmp(out, zeros, PAGES * PAGE) == 0);  // a bad source stops the run before any write
    free(zeros);
}

static void macs_agree(const keyed_codec *keyed, const unsigned char *plain, unsigned char *work) {
    unsigned char bad[PAGES], *with = malloc(PAGES * 64), *without = malloc(PAGES * 64);
    CHECK(cipherpage_encrypt_run(&keyed->codec, plain, 1, PAGES, work, bad) == 0);
    cipherpage_use_hmac_lanes(1);
    CHECK(cipherpage_page_macs(&keyed->codec, work, 1, PAGES, with) == 1);
    cipherpage_use_hmac_lanes(0);
    CHECK(cipherpage_page_macs(&keyed->codec, work, 1, PAGES, without) == 1);
    CHECK(memcmp(with, without, PAGES * 64) == 0);
    cipherpage_use_hmac_lanes(1);
    free(with);
    free(without);
}

// Sixteen pages through the AES lanes and through OpenSSL, from the same IVs.
static void aes_lanes_agree(const unsigned char *plain) {
    unsigned char key[32], round_keys[15][16], ivs_bytes[16][16], *lanes = malloc(16 * CONTENT), *openssl = malloc(16 * CONTENT);
    const unsigned char *in[16], *ivs[16];
    unsigned char *out[16];
    ctest_random(key, 32);
    ctest_random(&ivs_bytes[0][0], sizeof ivs_bytes);
    for (int i = 0; i < 16; i++) in[i] = plain + (i + 1) * PAGE, ivs[i] = ivs_bytes[i], out[i] = lanes + i * CONTENT;
    cipherpage_aes256_round_keys(key, round_keys);
    cipherpage_aes256cbc_encrypt_x16((const unsigned char(*)[16])round_keys, in, out, ivs, CONTENT);
    int ok = 1;
    for (int i = 0; i < 16; i++) {
        int written = 0;
        EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
        ok &= cipher && EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, key, ivs[i]) && EVP_CIPHER_CTX_set_padding(cipher, 0)
            && EVP_EncryptUpdate(cipher, openssl + i * CONTENT, &written, in[i], CONTENT) && written == CONTENT;
        EVP_CIPHER_CTX_free(cipher);
    }
    CHECK(ok && memcmp(lanes, openssl, 16 * CONTENT) == 0);
    free(lanes);
    free(openssl);
}

// Eight messages through the HMAC-SHA512 lanes and through OpenSSL's HMAC, at lengths that
// end a block early, exactly, and late.
static void hmac_lanes_agree(const unsigned char *plain) {
    static const size_t lengths[] = {0, 1, 107, 108, 128, 1000, CONTENT + 16};
    unsigned char key[32], suffixes[8][4], outs[8][64], expected[64], message[PAGE + 4];
    unsigned char *out[8];
    const unsigned char *bodies[8];
    cipherpage_hmac512_key state;
    ctest_random(key, 32);
    ctest_random(&suffixes[0][0], sizeof suffixes);
    cipherpage_hmac512x8_init(&state, key);
    for (int i = 0; i < 8; i++) bodies[i] = plain + i * PAGE, out[i] = outs[i];
    for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
        cipherpage_hmac512x8(&state, bodies, lengths[l], (const unsigned char(*)[4])suffixes, out);
        int ok = 1;
        for (int i = 0; i < 8; i++) {
            memcpy(message, bodies[i], lengths[l]);
            memcpy(message + lengths[l], suffixes[i], 4);
            ok &= HMAC(EVP_sha512(), key, 32, message, lengths[l] + 4, expected, NULL) != NULL && memcmp(expected, outs[i], 64) == 0;
        }
        CHECK(ok);
    }
}

static void lanes_direct(const unsigned char *plain) {
    if (!ctest_on_x86()) {
        // Not compiled here: the checks must say so, and switching the lanes on must not help.
        CHECK(cipherpage_aes_lanes_available() == 0 && cipherpage_sha512x8_available() == 0);
        CHECK(cipherpage_use_lanes(1) == 0 && cipherpage_use_aes_lanes(1) == 0);
        printf("lanes: not compiled for this architecture; pages go through OpenSSL\n");
        return;
    }
    // Asked twice, answered the same: the probe ran once.
    CHECK(cipherpage_aes_lanes_available() == cipherpage_aes_lanes_available());
    if (cipherpage_aes_lanes_available()) aes_lanes_agree(plain);
    if (cipherpage_sha512x8_available()) hmac_lanes_agree(plain);
    printf("lanes: AES x16 %s, HMAC-SHA512 x8 %s\n", cipherpage_aes_lanes_available() ? "compared with OpenSSL" : "not on this CPU",
           cipherpage_sha512x8_available() ? "compared with OpenSSL" : "not on this CPU");
}

// Page 1 encrypted from byte 24 (SQLite3 Multiple Ciphers' SQLCipher scheme): the region is
// no whole number of blocks, and OpenSSL's own AES-256-CBC-CTS in mode CS3 writes it; the
// codec decrypts it back, for every tail length and for a region of two blocks and a tail.
static void stolen_tail(const keyed_codec *keyed, const unsigned char *plain) {
    char mode[] = "CS3";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, mode, 0), OSSL_PARAM_construct_end()};
    EVP_CIPHER *cts = EVP_CIPHER_fetch(NULL, "AES-256-CBC-CTS", NULL);
    CHECK(cts != NULL);
    for (int offset = 17; cts != NULL && offset <= 31; offset++) {
        for (int reserve = RESERVE; reserve <= PAGE - offset - 40; reserve += PAGE - offset - 40 - RESERVE) {
            unsigned char page[PAGE], back[PAGE];
            int size = PAGE - reserve - offset, written = 0;
            cipherpage_codec codec = keyed->codec;
            codec.page1_offset = offset;
            codec.reserve = reserve;
            memcpy(page, plain, PAGE);
            ctest_random(page + PAGE - reserve, 16);
            EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
            CHECK(EVP_EncryptInit_ex2(cipher, cts, keyed->key, page + PAGE - reserve, params) == 1);
            CHECK(EVP_EncryptUpdate(cipher, page + offset, &written, plain + offset, size) == 1 && written == size);
            EVP_CIPHER_CTX_free(cipher);
            CHECK(cipherpage_decrypt(&codec, page, 1, back) == 1);
            CHECK(memcmp(back + offset, plain + offset, (size_t)size) == 0);
        }
    }
    EVP_CIPHER_free(cts);
}

int main(void) {
    keyed_codec from, to;
    unsigned char *plain = malloc(PAGES * PAGE), *work = malloc(3 * PAGES * PAGE);
    if (plain == NULL || work == NULL) return 2;
    ctest_random(plain, PAGES * PAGE);
    memcpy(plain, "SQLite format 3", 16);
    make_codec(&from);
    make_codec(&to);
    one_page_round_trip(&from, plain);
    // Both lanes, neither, and each alone: every combination a CPU or a test may choose.
    static const int modes[4][2] = {{1, 1}, {0, 0}, {1, 0}, {0, 1}};
    for (int m = 0; m < 4; m++) {
        cipherpage_use_hmac_lanes(modes[m][0]);
        cipherpage_use_aes_lanes(modes[m][1]);
        run_round_trip(&from, &to, plain, work);
        damaged_pages(&from, &to, plain, work);
    }
    cipherpage_use_lanes(1);
    macs_agree(&from, plain, work);
    lanes_direct(plain);
    stolen_tail(&from, plain);
    free(plain);
    free(work);
    return ctest_finish("page codec");
}
