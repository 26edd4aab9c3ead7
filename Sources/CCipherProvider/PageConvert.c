// SQLCipher pages written directly: a page encrypted with a fresh IV and its HMAC, and a run
// of pages moved from one key (or salt, or KDF) to another with a proof for each page.
// SQLCipher fills the whole reserve with random bytes and then writes the HMAC after the IV;
// so does this.
//
// The proof is by construction: every page written is decrypted back with the new key, and
// its plaintext must equal the source page's, byte for byte. The reserve (IV, HMAC, and
// random fill when the reserve is larger) is the only part that differs. The new HMAC is
// not computed a second time over the same bytes (it would cost a third of the work and
// prove only that the function is deterministic); SQLCipher's open of the copy checks it on
// the pages it reads, and `--verify full` on every page.

#define _GNU_SOURCE 1  // sync_file_range

#include "PageCodec.h"
#include "PageCodecInternal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

enum { CIPHERPAGE_MAX_RESERVE = 255 };  // the reserve is one byte of SQLite's header

// Encrypts with contexts kept by the caller; `mac` is NULL without HMAC. `random` holds the
// reserve's fresh random bytes (drawn by the caller, for many pages at once).
static int encrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, EVP_MAC_CTX *mac, const unsigned char *plain,
                        uint32_t pgno, const unsigned char *random, unsigned char *out) {
    int offset = pgno == 1 ? codec->page1_offset : 0;
    int size = codec->page_size - codec->reserve - offset;
    unsigned char *reserve = out + codec->page_size - codec->reserve;
    if (pgno == 1 && offset == 16) {
        if (codec->salt == NULL) return 0;
        memcpy(out, codec->salt, 16);
    } else if (offset > 0) {
        memcpy(out, plain, (size_t)offset);  // the plaintext header stays as it is
    }
    memcpy(reserve, random, (size_t)codec->reserve);
    int written = 0, last = 0;
    if (!cipherpage_cipher_init(cipher, codec->key, reserve, 1) || !EVP_EncryptUpdate(cipher, out + offset, &written, plain + offset, size)
        || !EVP_EncryptFinal_ex(cipher, out + offset + written, &last) || written + last != size) {
        return 0;
    }
    if (mac == NULL) return 1;
    size_t length = 0;
    return cipherpage_mac(codec, mac, out, pgno, reserve + 16, &length);
}

int cipherpage_encrypt(const cipherpage_codec *codec, const unsigned char *plain, uint32_t pgno, unsigned char *out) {
    unsigned char random[CIPHERPAGE_MAX_RESERVE];
    if (codec->reserve < 16 || codec->reserve > CIPHERPAGE_MAX_RESERVE || RAND_bytes(random, codec->reserve) != 1) return 0;
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    EVP_MAC_CTX *mac = codec->hmac_digest != 0 ? cipherpage_keyed_mac(codec) : NULL;
    int ok = cipher != NULL && (codec->hmac_digest == 0 || mac != NULL) && encrypt_with(codec, cipher, mac, plain, pgno, random, out);
    EVP_MAC_CTX_free(mac);
    EVP_CIPHER_CTX_free(cipher);
    return ok;
}

// The OpenSSL state one run of pages keeps: both sides' MACs, a decryption and an
// encryption context, and two plaintext buffers.
typedef struct {
    EVP_MAC_CTX *from_mac, *to_mac;
    EVP_CIPHER_CTX *decrypt_from, *decrypt_to, *encrypt;  // one per key and direction: no key schedule per page
    unsigned char *plain, *back;
} convert_state;

static void convert_state_free(convert_state *state, int page_size) {
    EVP_MAC_CTX_free(state->from_mac);
    EVP_MAC_CTX_free(state->to_mac);
    EVP_CIPHER_CTX_free(state->decrypt_from);
    EVP_CIPHER_CTX_free(state->decrypt_to);
    EVP_CIPHER_CTX_free(state->encrypt);
    if (state->plain) OPENSSL_clear_free(state->plain, (size_t)page_size);
    if (state->back) OPENSSL_clear_free(state->back, (size_t)page_size);
}

static int convert_state_init(convert_state *state, const cipherpage_codec *from, const cipherpage_codec *to) {
    memset(state, 0, sizeof *state);
    state->from_mac = from->hmac_digest != 0 ? cipherpage_keyed_mac(from) : NULL;
    state->to_mac = to->hmac_digest != 0 ? cipherpage_keyed_mac(to) : NULL;
    state->decrypt_from = EVP_CIPHER_CTX_new();
    state->decrypt_to = EVP_CIPHER_CTX_new();
    state->encrypt = EVP_CIPHER_CTX_new();
    state->plain = OPENSSL_malloc((size_t)from->page_size);
    state->back = OPENSSL_malloc((size_t)from->page_size);
    return (from->hmac_digest == 0 || state->from_mac) && (to->hmac_digest == 0 || state->to_mac) && state->decrypt_from && state->decrypt_to
        && state->encrypt
        && state->plain && state->back;
}

// One page: CIPHERPAGE_OK or what was wrong with it, or -1 when OpenSSL fails.
static int convert_one(const cipherpage_codec *from, const cipherpage_codec *to, convert_state *state, const unsigned char *in,
                       uint32_t pgno, const unsigned char *random, unsigned char *out) {
    if (state->from_mac != NULL) {
        int matches = cipherpage_verify_mac(from, state->from_mac, in, pgno);
        if (matches <= 0) return matches < 0 ? -1 : CIPHERPAGE_SOURCE_HMAC;
    }
    if (!cipherpage_decrypt_with(from, state->decrypt_from, in, pgno, state->plain)) return -1;
    if (!encrypt_with(to, state->encrypt, state->to_mac, state->plain, pgno, random, out)) return -1;
    if (!cipherpage_decrypt_with(to, state->decrypt_to, out, pgno, state->back)) return -1;
    int content = to->page_size - to->reserve;
    // Plaintext against plaintext, both ours: no secret to time, so the fast comparison.
    return memcmp(state->plain, state->back, (size_t)content) == 0 ? CIPHERPAGE_OK : CIPHERPAGE_ROUND_TRIP;
}

int cipherpage_convert(const cipherpage_codec *from, const cipherpage_codec *to, const unsigned char *in, uint32_t first_pgno, int count,
                       unsigned char *out, unsigned char *bad) {
    if (from->page_size != to->page_size || from->reserve != to->reserve || from->reserve < 16) return -1;
    if (from->reserve > CIPHERPAGE_MAX_RESERVE || count < 0) return -1;
    convert_state state;
    // Every page's random reserve at once: one call to the generator instead of one a page.
    unsigned char *random = OPENSSL_malloc((size_t)count * (size_t)to->reserve + 1);
    int found = convert_state_init(&state, from, to) && random != NULL && RAND_bytes(random, count * to->reserve) == 1 ? 0 : -1;
    for (int i = 0; i < count && found >= 0; i++) {
        size_t at = (size_t)i * (size_t)from->page_size;
        int result = convert_one(from, to, &state, in + at, first_pgno + (uint32_t)i, random + (size_t)i * (size_t)to->reserve, out + at);
        if (result < 0) {
            found = -1;
        } else {
            bad[i] = (unsigned char)result;
            found += result != CIPHERPAGE_OK;
        }
    }
    convert_state_free(&state, from->page_size);
    OPENSSL_free(random);
    return found;
}

int cipherpage_encrypt_run(const cipherpage_codec *to, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad) {
    if (to->reserve < 16 || to->reserve > CIPHERPAGE_MAX_RESERVE || count < 0) return -1;
    EVP_MAC_CTX *mac = to->hmac_digest != 0 ? cipherpage_keyed_mac(to) : NULL;
    EVP_CIPHER_CTX *encrypt = EVP_CIPHER_CTX_new(), *decrypt = EVP_CIPHER_CTX_new();
    unsigned char *back = OPENSSL_malloc((size_t)to->page_size);
    unsigned char *random = OPENSSL_malloc((size_t)count * (size_t)to->reserve + 1);
    int found = encrypt && decrypt && back && random && (to->hmac_digest == 0 || mac != NULL) && RAND_bytes(random, count * to->reserve) == 1
        ? 0 : -1;
    size_t content = (size_t)(to->page_size - to->reserve);
    for (int i = 0; i < count && found >= 0; i++) {
        size_t at = (size_t)i * (size_t)to->page_size;
        uint32_t pgno = first_pgno + (uint32_t)i;
        if (!encrypt_with(to, encrypt, mac, in + at, pgno, random + (size_t)i * (size_t)to->reserve, out + at)
            || !cipherpage_decrypt_with(to, decrypt, out + at, pgno, back)) {
            found = -1;
            break;
        }
        bad[i] = memcmp(in + at, back, content) == 0 ? CIPHERPAGE_OK : CIPHERPAGE_ROUND_TRIP;
        found += bad[i] != CIPHERPAGE_OK;
    }
    EVP_MAC_CTX_free(mac);
    EVP_CIPHER_CTX_free(encrypt);
    EVP_CIPHER_CTX_free(decrypt);
    if (back) OPENSSL_clear_free(back, (size_t)to->page_size);
    OPENSSL_free(random);
    return found;
}

int cipherpage_decrypt_run(const cipherpage_codec *from, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad) {
    if (from->reserve < 16 || count < 0) return -1;
    EVP_MAC_CTX *mac = from->hmac_digest != 0 ? cipherpage_keyed_mac(from) : NULL;
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    int found = cipher != NULL && (from->hmac_digest == 0 || mac != NULL) ? 0 : -1;
    for (int i = 0; i < count && found >= 0; i++) {
        size_t at = (size_t)i * (size_t)from->page_size;
        uint32_t pgno = first_pgno + (uint32_t)i;
        int matches = mac != NULL ? cipherpage_verify_mac(from, mac, in + at, pgno) : 1;
        if (matches < 0 || (matches == 1 && !cipherpage_decrypt_with(from, cipher, in + at, pgno, out + at))) {
            found = -1;
            break;
        }
        // The reserve held the IV and HMAC: a plaintext page keeps the space, not the bytes.
        memset(out + at + from->page_size - from->reserve, 0, (size_t)from->reserve);
        bad[i] = matches == 1 ? CIPHERPAGE_OK : CIPHERPAGE_SOURCE_HMAC;
        found += matches != 1;
    }
    EVP_MAC_CTX_free(mac);
    EVP_CIPHER_CTX_free(cipher);
    return found;
}

void cipherpage_start_writeback(int descriptor, int64_t offset, int64_t length) {
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
    (void)descriptor, (void)offset, (void)length;
#endif
}
