// PBKDF2 (two compressions an iteration) against RFC 6070's vectors and OpenSSL's
// PKCS5_PBKDF2_HMAC, and the settings search against a page 1 encrypted with a known count.

#include "CTest.h"
#include "CipherProvider.h"
#include "AESBlock.h"
#include "PageCodec.h"
#include "CPUFeatures.h"

#include <stdint.h>
#include <stdlib.h>
#include <openssl/evp.h>

static void hex(const unsigned char *bytes, int count, char *out) {
    for (int i = 0; i < count; i++) sprintf(out + 2 * i, "%02x", bytes[i]);
}

static void rfc6070(const char *pass, const char *salt, int iterations, int length, const char *expected) {
    unsigned char out[64];
    char text[129];
    const cipherprovider_kdf kdf = {pass, (int)strlen(pass), (const unsigned char *)salt, (int)strlen(salt), iterations, 1};
    CHECK(cipherprovider_pbkdf2(&kdf, out, length) == 1);
    hex(out, length, text);
    CHECK(strcmp(text, expected) == 0);
}

static const EVP_MD *digest_for(int digest) {
    return digest == 1 ? EVP_sha1() : digest == 256 ? EVP_sha256() : EVP_sha512();
}

// Every digest, with passphrases shorter and longer than a hash block, no salt and a salt,
// and outputs that end inside the first, second and third block.
static void against_openssl(void) {
    static const int digests[] = {1, 256, 512}, passes[] = {0, 1, 32, 64, 129, 200}, iterations[] = {1, 2, 3, 1000};
    static const int lengths[] = {1, 21, 32, 40, 64, 100};
    unsigned char pass[200], salt[16], ours[100], theirs[100];
    ctest_random(pass, sizeof pass);
    ctest_random(salt, sizeof salt);
    for (int d = 0; d < 3; d++)
        for (int p = 0; p < 6; p++)
            for (int i = 0; i < 4; i++)
                for (int l = 0; l < 6; l++) {
                    int salt_length = (p + l) % 2 ? 16 : 0;
                    const cipherprovider_kdf kdf = {pass, passes[p], salt, salt_length, iterations[i], digests[d]};
                    CHECK(cipherprovider_pbkdf2(&kdf, ours, lengths[l]) == 1);
                    CHECK(PKCS5_PBKDF2_HMAC((const char *)pass, passes[p], salt, salt_length, iterations[i], digest_for(digests[d]),
                                            lengths[l], theirs) == 1);
                    CHECK(memcmp(ours, theirs, (size_t)lengths[l]) == 0);
                }
}

// SQLCipher's HMAC key: PBKDF2 of the page key over the salt XOR the mask, for every mask
// (0x3a unless the file was written under PRAGMA cipher_hmac_salt_mask), against OpenSSL.
static void hmac_key_under_every_mask(void) {
    unsigned char key[32], salt[16], masked[16], ours[32], theirs[32];
    ctest_random(key, sizeof key);
    ctest_random(salt, sizeof salt);
    for (int mask = 0; mask < 256; mask++) {
        for (int i = 0; i < 16; i++) masked[i] = salt[i] ^ (unsigned char)mask;
        CHECK(cipherpage_hmac_key_masked(key, salt, 2, 512, (unsigned char)mask, ours) == 1);
        CHECK(PKCS5_PBKDF2_HMAC((const char *)key, 32, masked, 16, 2, EVP_sha512(), 32, theirs) == 1);
        CHECK(memcmp(ours, theirs, 32) == 0);
    }
    CHECK(cipherpage_hmac_key(key, salt, 2, 512, ours) == 1);
    CHECK(cipherpage_hmac_key_masked(key, salt, 2, 512, 0x3a, theirs) == 1);
    CHECK(memcmp(ours, theirs, 32) == 0);
}

static void bad_arguments(void) {
    unsigned char out[32];
    const cipherprovider_kdf sha384 = {"k", 1, (const unsigned char *)"s", 1, 10, 384};
    const cipherprovider_kdf no_iterations = {"k", 1, (const unsigned char *)"s", 1, 0, 512};
    const cipherprovider_kdf no_pass = {NULL, 4, (const unsigned char *)"s", 1, 10, 512};
    CHECK(cipherprovider_pbkdf2(&sha384, out, 32) == 0);
    CHECK(cipherprovider_pbkdf2(&no_iterations, out, 32) == 0);
    CHECK(cipherprovider_pbkdf2(&no_pass, out, 32) == 0);
    CHECK(cipherprovider_pbkdf2(NULL, out, 32) == 0);
}

// A SQLCipher page 1 (salt, then the encrypted header) of a 4096-byte page with an 80-byte
// reserve, keyed with PBKDF2 of `pass` over `digest` at `count` iterations.
static void make_page1_with(const char *pass, int digest, int count, unsigned char *page1, unsigned char *key) {
    unsigned char salt[16], hmac_key[32], plain[4096];
    ctest_random(salt, sizeof salt);
    ctest_random(plain, sizeof plain);
    static const unsigned char header[24] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', 0,
                                             0x10, 0x00, 1, 1, 80, 64, 32, 32};
    memcpy(plain, header, sizeof header);
    const cipherprovider_kdf kdf = {pass, (int)strlen(pass), salt, 16, count, digest};
    CHECK(cipherprovider_pbkdf2(&kdf, key, 32) == 1);
    CHECK(cipherpage_hmac_key(key, salt, 2, 512, hmac_key) == 1);
    const cipherpage_codec codec = {key, hmac_key, 4096, 80, 512, 16, 0, salt};
    CHECK(cipherpage_encrypt(&codec, plain, 1, page1) == 1);
}

// A SQLCipher page 1 (salt, then the encrypted header) of a 4096-byte page with an 80-byte
// reserve, keyed with PBKDF2-HMAC-SHA512 of `pass` at `count` iterations.
static void make_page1(const char *pass, int count, unsigned char *page1, unsigned char *key) {
    make_page1_with(pass, 512, count, page1, key);
}

// Found at its own count whatever the count's place in a batch of candidates, and not found
// when the search stops one count short (the last batch is then a short one).
static void search_finds(int count) {
    unsigned char page1[4096], key[32], found_key[32];
    int iterations = 0;
    cipherprovider_block_match match;
    make_page1("the passphrase", count, page1, key);
    cipherprovider_search request = {"the passphrase", 14, page1, sizeof page1, 512, count, NULL};
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 1);
    CHECK(iterations == count);
    CHECK(memcmp(found_key, key, 32) == 0);
    CHECK(match.page_size == 4096 && match.reserve == 80 && match.header_reserve == 80);
    request.max_iterations = count + 7;
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 1 && iterations == count);
    request.max_iterations = count - 1;
    CHECK(count == 1 || cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 0);
}

static void search(void) {
    static const int counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 1100};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) search_finds(counts[i]);
    unsigned char page1[4096], key[32], found_key[32];
    int iterations = 0;
    cipherprovider_block_match match;
    make_page1("the passphrase", 1100, page1, key);
    cipherprovider_search request = {"another passphrase", 18, page1, sizeof page1, 512, 1200, NULL};
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 0);
    // A stop flag already set ends the search at its first check, before 1100.
    volatile int stop = 1;
    cipherprovider_search stopped = {"the passphrase", 14, page1, sizeof page1, 512, 1200, &stop};
    CHECK(cipherprovider_pbkdf2_search(&stopped, &iterations, found_key, &match) == 0);
}

// AES-NI's decryption of a block under four keys against OpenSSL's, over random keys and
// blocks.
static void aes_block_against_openssl(void) {
    if (!cipherprovider_aes_block_available()) {
        printf("skip: aes block: no AES-NI here, the search uses OpenSSL's EVP\n");
        return;
    }
    unsigned char keys[4][32], in[16], ours[4][16], theirs[16], schedule[4][15][16];
    for (int round = 0; round < 250; round++) {
        ctest_random((unsigned char *)keys, sizeof keys);
        ctest_random(in, sizeof in);
        cipherprovider_aes256_decrypt_block_x4((const unsigned char(*)[32])keys, in, ours, schedule);
        for (int j = 0; j < 4; j++) {
            EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
            int written = 0;
            CHECK(EVP_DecryptInit_ex(cipher, EVP_aes_256_ecb(), NULL, keys[j], NULL) == 1 && EVP_CIPHER_CTX_set_padding(cipher, 0) == 1);
            CHECK(EVP_DecryptUpdate(cipher, theirs, &written, in, 16) == 1 && written == 16);
            EVP_CIPHER_CTX_free(cipher);
            CHECK(memcmp(ours[j], theirs, 16) == 0);
        }
    }
}

// Three digests on one thread find the digest and count the page was keyed with, whichever
// of them it is and wherever it stands among them.
static void lockstep(void) {
    static const int digests[] = {1, 256, 512}, counts[] = {1027, 5, 1};
    for (int d = 0; d < 3; d++) {
        unsigned char page1[4096], key[32], found_key[32];
        int iterations = 0, which = -1;
        cipherprovider_block_match match;
        make_page1_with("the passphrase", digests[d], counts[d], page1, key);
        cipherprovider_search searches[3];
        for (int s = 0; s < 3; s++) searches[s] = (cipherprovider_search){"the passphrase", 14, page1, sizeof page1, digests[(s + d + 1) % 3], 1100, NULL};
        CHECK(cipherprovider_pbkdf2_search_lockstep(searches, 3, &which, &iterations, found_key, &match) == 1);
        CHECK(which >= 0 && searches[which].digest == digests[d] && iterations == counts[d]);
        CHECK(memcmp(found_key, key, 32) == 0);
        searches[0].pass = "another passphrase";
        searches[1].pass = searches[2].pass = "another passphrase";
        searches[0].pass_length = searches[1].pass_length = searches[2].pass_length = 18;
        CHECK(cipherprovider_pbkdf2_search_lockstep(searches, 3, &which, &iterations, found_key, &match) == 0);
    }
}

// SHA1's two chains (through the SHA instructions where the CPU has them) give the key of
// every count, for passphrases shorter and longer than a hash block.
static void sha1_chains(void) {
    static const char *passes[] = {"", "p", "a passphrase of exactly 64 bytes, no more and no less, for SHA1.",
                                   "a passphrase longer than one SHA1 block, which HMAC hashes first to a key of twenty bytes"};
    static const int counts[] = {2, 3, 4, 63};
    for (int p = 0; p < 4; p++)
        for (int c = 0; c < 4; c++) {
            unsigned char page1[4096], key[32], found_key[32];
            int iterations = 0, which = -1;
            cipherprovider_block_match match;
            make_page1_with(passes[p], 1, counts[c], page1, key);
            cipherprovider_search request = {passes[p], (int)strlen(passes[p]), page1, sizeof page1, 1, 100, NULL};
            CHECK(cipherprovider_pbkdf2_search_lockstep(&request, 1, &which, &iterations, found_key, &match) == 1);
            CHECK(iterations == counts[c] && memcmp(found_key, key, 32) == 0);
        }
}

// The search finds the same count, key and match through AES-NI and through EVP.
static void search_on_both_paths(void) {
    for (int lanes = 1; lanes >= 0; lanes--) {
        cipherpage_use_lanes(lanes);
        search();
        lockstep();
        sha1_chains();
    }
    cipherpage_use_lanes(1);
}

// The lanes for one to eight derivations at once, each lane with its own passphrase (empty,
// shorter and longer than a block) and salt, against OpenSSL one at a time.
static void lanes_against_openssl(void) {
    if (!cipherpage_sha512x8_available()) {
        printf("pbkdf2: the SHA-512 lanes are not on this CPU; their derivations are not compared\n");
        return;
    }
    static const int passes[] = {0, 1, 32, 64, 128, 129, 200, 15}, iterations[] = {1, 2, 1000, 4001};
    unsigned char pass[8][200], salt[8][16], ours[8][64], theirs[64];
    ctest_random((unsigned char *)pass, sizeof pass);
    ctest_random((unsigned char *)salt, sizeof salt);
    for (int i = 0; i < 4; i++)
        for (int count = 1; count <= 8; count++) {
            cipherprovider_kdf kdfs[8];
            for (int lane = 0; lane < count; lane++) {
                kdfs[lane] = (cipherprovider_kdf){pass[lane], passes[(lane + count) % 8], salt[lane], lane % 3 ? 16 : 0, iterations[i], 512};
            }
            CHECK(cipherprovider_pbkdf2_sha512_lanes(kdfs, count, ours) == 1);
            for (int lane = 0; lane < count; lane++) {
                CHECK(PKCS5_PBKDF2_HMAC((const char *)kdfs[lane].pass, kdfs[lane].pass_length, kdfs[lane].salt, kdfs[lane].salt_length,
                                        iterations[i], EVP_sha512(), 64, theirs) == 1);
                CHECK(memcmp(ours[lane], theirs, 64) == 0);
            }
        }
    cipherprovider_kdf mixed[2] = {{"a", 1, salt[0], 16, 1000, 512}, {"b", 1, salt[1], 16, 1001, 512}};
    CHECK(cipherprovider_pbkdf2_sha512_lanes(mixed, 2, ours) == 0);
    mixed[1].iterations = 1000, mixed[1].digest = 256;
    CHECK(cipherprovider_pbkdf2_sha512_lanes(mixed, 2, ours) == 0);
    CHECK(cipherprovider_pbkdf2_sha512_lanes(mixed, 9, ours) == 0 && cipherprovider_pbkdf2_sha512_lanes(mixed, 0, ours) == 0);
}

// Keys derived ahead: counted once when derived, then given by cipherprovider_pbkdf2 (the
// same bytes as OpenSSL) for exactly the passphrase, salt, count and digest they were derived
// with, and no more once forgotten.
static void prepared_keys(void) {
    if (!cipherpage_sha512x8_available()) return;
    unsigned char salt[16], other[16], ours[64], theirs[64];
    ctest_random(salt, sizeof salt);
    memcpy(other, salt, sizeof other);
    other[15] ^= 1;
    const cipherprovider_kdf kdfs[3] = {{"alpha", 5, salt, 16, 4000, 512}, {"bravo", 5, salt, 16, 4000, 512}, {"alpha", 5, other, 16, 4000, 512}};
    unsigned long before = cipherprovider_key_derivations();
    CHECK(cipherprovider_pbkdf2_prepare(kdfs, 3) == 3);
    CHECK(cipherprovider_key_derivations() == before + 3);
    for (int i = 0; i < 3; i++) {
        CHECK(cipherprovider_pbkdf2(&kdfs[i], ours, 32) == 1);
        CHECK(PKCS5_PBKDF2_HMAC((const char *)kdfs[i].pass, 5, kdfs[i].salt, 16, 4000, EVP_sha512(), 32, theirs) == 1);
        CHECK(memcmp(ours, theirs, 32) == 0);
    }
    CHECK(cipherprovider_key_derivations() == before + 3);
    const cipherprovider_kdf unprepared[3] = {{"alphb", 5, salt, 16, 4000, 512}, {"alpha", 5, salt, 16, 4001, 512}, {"alpha", 5, salt, 16, 4000, 256}};
    for (int i = 0; i < 3; i++) CHECK(cipherprovider_pbkdf2_prepared(&unprepared[i], ours, 32) == 0);
    CHECK(cipherprovider_pbkdf2_prepared(&kdfs[0], ours, 65) == 0);
    cipherprovider_pbkdf2_forget();
    CHECK(cipherprovider_pbkdf2_prepared(&kdfs[0], ours, 32) == 0);
    CHECK(cipherprovider_pbkdf2(&kdfs[0], ours, 32) == 1 && cipherprovider_key_derivations() == before + 4);
    // More than the first allocation holds: the kept keys move, and stay right.
    for (int round = 0; round < 20; round++) CHECK(cipherprovider_pbkdf2_prepare(kdfs, 3) == 3);
    CHECK(cipherprovider_pbkdf2(&kdfs[2], ours, 64) == 1);
    CHECK(PKCS5_PBKDF2_HMAC("alpha", 5, other, 16, 4000, EVP_sha512(), 64, theirs) == 1 && memcmp(ours, theirs, 64) == 0);
    cipherprovider_pbkdf2_forget();
}

// FIPS mode: the same bytes as OpenSSL through EVP_KDF (below 1000 iterations with its
// SP 800-132 checks off, as SQLCipher's HMAC key needs), the search refused, the page-1 test
// through EVP, no CPU feature offered, and no own crypto entry point run.
static void fips_mode(void) {
    static const int digests[] = {1, 256, 512}, iterations[] = {1, 2, 3, 1000, 4000};
    unsigned char pass[40], salt[16], ours[64], theirs[64], page1[4096], key[32], found[32];
    ctest_random(pass, sizeof pass);
    ctest_random(salt, sizeof salt);
    make_page1_with("the passphrase", 512, 7, page1, key);
    cipherprovider_set_fips(1);
    unsigned long before = cipherprovider_own_crypto_runs();
    CHECK(cipherprovider_fips() == 1 && cipherprovider_cpu_has(CPU_FEATURE_AES) == 0);
    for (int d = 0; d < 3; d++)
        for (int i = 0; i < 5; i++) {
            const cipherprovider_kdf kdf = {pass, (int)sizeof pass, salt, 16, iterations[i], digests[d]};
            CHECK(cipherprovider_pbkdf2(&kdf, ours, 64) == 1);
            CHECK(PKCS5_PBKDF2_HMAC((const char *)pass, (int)sizeof pass, salt, 16, iterations[i], digest_for(digests[d]), 64, theirs) == 1);
            CHECK(memcmp(ours, theirs, 64) == 0);
        }
    cipherprovider_block_match match;
    CHECK(cipherprovider_block_matches(key, page1, sizeof page1, &match) == 1);
    int count = 0;
    cipherprovider_search request = {"the passphrase", 14, page1, sizeof page1, 512, 100, NULL};
    CHECK(cipherprovider_pbkdf2_search(&request, &count, found, &match) == -1);
    const cipherprovider_kdf lane = {pass, (int)sizeof pass, salt, 16, 1000, 512};
    CHECK(cipherprovider_pbkdf2_prepare(&lane, 1) == 0);
    CHECK(cipherprovider_own_crypto_runs() == before);
    cipherprovider_set_fips(0);
    CHECK(cipherprovider_pbkdf2_search(&request, &count, found, &match) == 1 && count == 7);
    CHECK(cipherprovider_own_crypto_runs() > before);
}

int main(void) {
    rfc6070("password", "salt", 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6");
    rfc6070("password", "salt", 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957");
    rfc6070("password", "salt", 4096, 20, "4b007901b765489abead49d926f721d065a429c1");
    rfc6070("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038");
    against_openssl();
    // SHA1's keys of two blocks go through the SHA instructions where the CPU has them.
    cipherpage_use_lanes(0);
    against_openssl();
    cipherpage_use_lanes(1);
    bad_arguments();
    hmac_key_under_every_mask();
    aes_block_against_openssl();
    search_on_both_paths();
    lanes_against_openssl();
    prepared_keys();
    fips_mode();
    return ctest_finish("pbkdf2");
}
