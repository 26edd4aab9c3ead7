// PBKDF2 (two compressions an iteration) against RFC 6070's vectors and OpenSSL's
// PKCS5_PBKDF2_HMAC, and the settings search against a page 1 encrypted with a known count.

#include "CTest.h"
#include "CipherProvider.h"
#include "PageCodec.h"

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
    static const int lengths[] = {1, 32, 64, 100};
    unsigned char pass[200], salt[16], ours[100], theirs[100];
    ctest_random(pass, sizeof pass);
    ctest_random(salt, sizeof salt);
    for (int d = 0; d < 3; d++)
        for (int p = 0; p < 6; p++)
            for (int i = 0; i < 4; i++)
                for (int l = 0; l < 4; l++) {
                    int salt_length = (p + l) % 2 ? 16 : 0;
                    const cipherprovider_kdf kdf = {pass, passes[p], salt, salt_length, iterations[i], digests[d]};
                    CHECK(cipherprovider_pbkdf2(&kdf, ours, lengths[l]) == 1);
                    CHECK(PKCS5_PBKDF2_HMAC((const char *)pass, passes[p], salt, salt_length, iterations[i], digest_for(digests[d]),
                                            lengths[l], theirs) == 1);
                    CHECK(memcmp(ours, theirs, (size_t)lengths[l]) == 0);
                }
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
// reserve, keyed with PBKDF2-HMAC-SHA512 of `pass` at `count` iterations.
static void make_page1(const char *pass, int count, unsigned char *page1, unsigned char *key) {
    unsigned char salt[16], hmac_key[32], plain[4096];
    ctest_random(salt, sizeof salt);
    ctest_random(plain, sizeof plain);
    static const unsigned char header[24] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f', 'o', 'r', 'm', 'a', 't', ' ', '3', 0,
                                             0x10, 0x00, 1, 1, 80, 64, 32, 32};
    memcpy(plain, header, sizeof header);
    const cipherprovider_kdf kdf = {pass, (int)strlen(pass), salt, 16, count, 512};
    CHECK(cipherprovider_pbkdf2(&kdf, key, 32) == 1);
    CHECK(cipherpage_hmac_key(key, salt, 512, hmac_key) == 1);
    const cipherpage_codec codec = {key, hmac_key, 4096, 80, 512, 16, 0, salt};
    CHECK(cipherpage_encrypt(&codec, plain, 1, page1) == 1);
}

static void search(void) {
    unsigned char page1[4096], key[32], found_key[32];
    int iterations = 0;
    cipherprovider_block_match match;
    make_page1("the passphrase", 1100, page1, key);
    cipherprovider_search request = {"the passphrase", 14, page1, sizeof page1, 512, 1200, NULL};
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 1);
    CHECK(iterations == 1100);
    CHECK(memcmp(found_key, key, 32) == 0);
    CHECK(match.page_size == 4096 && match.reserve == 80 && match.header_reserve == 80);
    request.max_iterations = 1099;
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 0);
    request.pass = "another passphrase";
    request.pass_length = 18;
    request.max_iterations = 1200;
    CHECK(cipherprovider_pbkdf2_search(&request, &iterations, found_key, &match) == 0);
    // A stop flag already set ends the search at its first check (count 1024), before 1100.
    volatile int stop = 1;
    cipherprovider_search stopped = {"the passphrase", 14, page1, sizeof page1, 512, 1200, &stop};
    CHECK(cipherprovider_pbkdf2_search(&stopped, &iterations, found_key, &match) == 0);
}

int main(void) {
    rfc6070("password", "salt", 1, 20, "0c60c80f961f0e71f3a9b524af6012062fe037a6");
    rfc6070("password", "salt", 2, 20, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957");
    rfc6070("password", "salt", 4096, 20, "4b007901b765489abead49d926f721d065a429c1");
    rfc6070("passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 25, "3d2eec4fe41c849b80c8d83662c0e44a8b291a964cf2f07038");
    against_openssl();
    bad_arguments();
    search();
    return ctest_finish("pbkdf2");
}
