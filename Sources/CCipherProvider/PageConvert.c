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
#include "AESCBCx16.h"
#include "OwnCrypto.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

enum {
    CIPHERPAGE_MAX_RESERVE = 255,  // the reserve is one byte of SQLite's header
    AES_LANES = 16,                // pages encrypted together where the CPU has VAES (AESCBCx16.c)
    // The lanes read and write sixteen pages at the same offset at once; pages a whole page
    // apart all fall in the same few sets of the L1 cache and evict each other (the lanes ran
    // at a third of their speed). Lane buffers are laid a page and a cache line apart.
    LANE_SKEW = 64,
};

// Encrypts with a context kept by the caller, leaving the HMAC out: runs of pages compute
// their HMACs together afterwards (store_macs). `random` holds the reserve's fresh random
// bytes (drawn by the caller, for many pages at once).
static int encrypt_with(const cipherpage_codec *codec, EVP_CIPHER_CTX *cipher, const unsigned char *plain, uint32_t pgno,
                        const unsigned char *random, unsigned char *out) {
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
    return cipherpage_cipher_init(cipher, codec->key, reserve, 1) && EVP_EncryptUpdate(cipher, out + offset, &written, plain + offset, size)
        && EVP_EncryptFinal_ex(cipher, out + offset + written, &last) && written + last == size;
}

// Computes the HMACs of `count` written pages and puts each after its IV; `macs` has room
// for 64 bytes a page. Returns 1 on success (at once without HMAC).
static int store_macs(const cipherpage_codec *codec, const cipherpage_mac_state *state, unsigned char *pages, uint32_t first_pgno, int count,
                      unsigned char *macs) {
    if (state->mac == NULL) return 1;
    if (!cipherpage_macs(codec, state, pages, first_pgno, count, macs)) return 0;
    size_t at = (size_t)(codec->page_size - codec->reserve + 16);
    for (int i = 0; i < count; i++) memcpy(pages + (size_t)i * (size_t)codec->page_size + at, macs + 64 * (size_t)i, (size_t)cipherpage_mac_length(codec));
    return 1;
}

// Every page's random reserve at once: one call to the generator instead of one a page.
static unsigned char *random_reserves(const cipherpage_codec *codec, int count) {
    unsigned char *random = OPENSSL_malloc((size_t)count * (size_t)codec->reserve + 1);
    if (random != NULL && RAND_bytes(random, count * codec->reserve) != 1) {
        OPENSSL_free(random);
        return NULL;
    }
    return random;
}

int cipherpage_encrypt(const cipherpage_codec *codec, const unsigned char *plain, uint32_t pgno, unsigned char *out) {
    unsigned char random[CIPHERPAGE_MAX_RESERVE], mac[64];
    if (codec->reserve < 16 || codec->reserve > CIPHERPAGE_MAX_RESERVE || RAND_bytes(random, codec->reserve) != 1) return 0;
    EVP_CIPHER_CTX *cipher = EVP_CIPHER_CTX_new();
    cipherpage_mac_state state;
    int ok = cipherpage_mac_state_init(&state, codec) && cipher != NULL && encrypt_with(codec, cipher, plain, pgno, random, out)
        && store_macs(codec, &state, out, pgno, 1, mac);
    cipherpage_mac_state_free(&state);
    EVP_CIPHER_CTX_free(cipher);
    return ok;
}

// What one run of pages keeps: both sides' HMAC states and every page's HMAC, a decryption
// and an encryption context, two plaintext buffers, and the random reserves; where the CPU
// has VAES, also the new key's round keys and sixteen pages' plaintext and ciphertext.
typedef struct {
    cipherpage_mac_state from_mac, to_mac;
    EVP_CIPHER_CTX *decrypt_from, *decrypt_to, *encrypt;  // one per key and direction: no key schedule per page
    unsigned char *plain, *back, *macs, *random;
    unsigned char (*round_keys)[16];  // NULL when pages are encrypted one at a time
    unsigned char *plains;            // AES_LANES plaintext pages, lane_stride apart
    unsigned char *ciphers;           // AES_LANES pages as the lanes encrypt them, lane_stride apart
    size_t lane_stride;
    int page_size;
    const cipherpage_codec *from, *to;  // NULL for a plaintext source or output
} run_state;

static void run_state_free(run_state *state) {
    cipherpage_mac_state_free(&state->from_mac);
    cipherpage_mac_state_free(&state->to_mac);
    EVP_CIPHER_CTX_free(state->decrypt_from);
    EVP_CIPHER_CTX_free(state->decrypt_to);
    EVP_CIPHER_CTX_free(state->encrypt);
    if (state->plain) OPENSSL_clear_free(state->plain, (size_t)state->page_size);
    if (state->back) OPENSSL_clear_free(state->back, (size_t)state->page_size);
    OPENSSL_free(state->macs);
    OPENSSL_free(state->random);
    if (state->round_keys) OPENSSL_secure_clear_free(state->round_keys, 15 * 16);
    if (state->plains) OPENSSL_clear_free(state->plains, (size_t)AES_LANES * state->lane_stride);
    if (state->ciphers) OPENSSL_clear_free(state->ciphers, (size_t)AES_LANES * state->lane_stride);
}

// The round keys and the lanes' buffers that let runs encrypt AES_LANES pages at once; 1 also
// when the CPU cannot, 0 when memory runs out.
static int run_state_lanes(run_state *state) {
    const cipherpage_codec *to = state->to;
    if (to == NULL || !cipherpage_aes_lanes_wanted() || !cipherpage_aes_lanes_available()) return 1;
    state->lane_stride = (size_t)state->page_size + LANE_SKEW;
    state->round_keys = OPENSSL_secure_malloc(15 * 16);
    state->plains = OPENSSL_malloc((size_t)AES_LANES * state->lane_stride);
    state->ciphers = OPENSSL_malloc((size_t)AES_LANES * state->lane_stride);
    if (state->round_keys == NULL || state->plains == NULL || state->ciphers == NULL) return 0;
    cipherprovider_note_own_crypto();
    cipherpage_aes256_round_keys(to->key, state->round_keys);
    return 1;
}

// `from` is NULL when the source is plaintext, `to` when the output is.
static int run_state_init(run_state *state, const cipherpage_codec *from, const cipherpage_codec *to, int count) {
    memset(state, 0, sizeof *state);
    state->from = from;
    state->to = to;
    state->page_size = (from ? from : to)->page_size;
    state->decrypt_from = EVP_CIPHER_CTX_new();
    state->decrypt_to = EVP_CIPHER_CTX_new();
    state->encrypt = EVP_CIPHER_CTX_new();
    state->plain = OPENSSL_malloc((size_t)state->page_size);
    state->back = OPENSSL_malloc((size_t)state->page_size);
    state->macs = OPENSSL_malloc((size_t)count * 64 + 1);
    state->random = to ? random_reserves(to, count) : NULL;
    return (from == NULL || cipherpage_mac_state_init(&state->from_mac, from)) && (to == NULL || cipherpage_mac_state_init(&state->to_mac, to))
        && state->decrypt_from && state->decrypt_to && state->encrypt && state->plain && state->back && state->macs && (to == NULL || state->random)
        && run_state_lanes(state);
}

// The source pages' HMACs, checked before anything else: sets bad[i] for a page that fails.
// Returns the number of bad pages, or -1 when OpenSSL fails.
static int check_sources(run_state *state, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *bad) {
    const cipherpage_codec *from = state->from;
    memset(bad, CIPHERPAGE_OK, (size_t)count);
    if (state->from_mac.mac == NULL) return 0;
    if (!cipherpage_macs(from, &state->from_mac, in, first_pgno, count, state->macs)) return -1;
    int found = 0;
    for (int i = 0; i < count; i++) {
        uint32_t pgno = first_pgno + (uint32_t)i;
        if (!cipherpage_mac_matches(from, in + (size_t)i * (size_t)from->page_size, pgno, state->macs + 64 * (size_t)i)) {
            bad[i] = CIPHERPAGE_SOURCE_HMAC;
            found += 1;
        }
    }
    return found;
}

// The written page decrypted back with the new key: CIPHERPAGE_OK when its plaintext equals
// `plain` (the reserve aside), CIPHERPAGE_ROUND_TRIP when not, -1 when OpenSSL fails.
static int round_trip(run_state *state, const unsigned char *out, uint32_t pgno, const unsigned char *plain) {
    const cipherpage_codec *to = state->to;
    if (!cipherpage_decrypt_with(to, state->decrypt_to, out, pgno, state->back)) return -1;
    // Plaintext against plaintext, both ours: no secret to time, so the fast comparison.
    return memcmp(plain, state->back, (size_t)(to->page_size - to->reserve)) == 0 ? CIPHERPAGE_OK : CIPHERPAGE_ROUND_TRIP;
}

// One page whose source passed: decrypted, encrypted with the new key, decrypted back and
// compared. CIPHERPAGE_OK or CIPHERPAGE_ROUND_TRIP, or -1 when OpenSSL fails.
static int convert_one(run_state *state, const unsigned char *in, uint32_t pgno, const unsigned char *random, unsigned char *out) {
    if (!cipherpage_decrypt_with(state->from, state->decrypt_from, in, pgno, state->plain)) return -1;
    if (!encrypt_with(state->to, state->encrypt, state->plain, pgno, random, out)) return -1;
    return round_trip(state, out, pgno, state->plain);
}

// AES_LANES pages after page 1, from their plaintexts `plain` into `out`: each reserve filled
// from `random`, the pages encrypted together (into the lanes' own buffers, then copied to
// `out`), then each decrypted back from `out` and compared. Sets bad[i]; returns the number
// of bad pages, or -1 when OpenSSL fails.
static int encrypt_in_lanes(run_state *state, const unsigned char *const plain[AES_LANES], uint32_t first_pgno, const unsigned char *random,
                            unsigned char *out, unsigned char *bad) {
    const cipherpage_codec *to = state->to;
    size_t page = (size_t)to->page_size, content = page - (size_t)to->reserve;
    unsigned char *encrypted[AES_LANES];
    const unsigned char *ivs[AES_LANES];
    for (int i = 0; i < AES_LANES; i++) {
        encrypted[i] = state->ciphers + (size_t)i * state->lane_stride;
        memcpy(encrypted[i] + content, random + (size_t)i * (size_t)to->reserve, (size_t)to->reserve);
        ivs[i] = encrypted[i] + content;
    }
    cipherpage_aes256cbc_encrypt_x16((const unsigned char(*)[16])state->round_keys, plain, encrypted, ivs, content);
    int found = 0;
    for (int i = 0; i < AES_LANES; i++) {
        unsigned char *written = out + (size_t)i * page;
        memcpy(written, encrypted[i], page);
        int result = round_trip(state, written, first_pgno + (uint32_t)i, plain[i]);
        if (result < 0) return -1;
        bad[i] = (unsigned char)result;
        found += result != CIPHERPAGE_OK;
    }
    return found;
}

// Whether pages i.. of a run go AES_LANES at a time: the CPU can, enough are left, and page 1
// (its salt or header kept out of the encryption) is not among them.
static int lanes_fit(const run_state *state, uint32_t first_pgno, int i, int count) {
    return state->round_keys != NULL && count - i >= AES_LANES && first_pgno + (uint32_t)i > 1;
}

// AES_LANES pages whose sources passed, converted together (see encrypt_in_lanes).
static int convert_in_lanes(run_state *state, const unsigned char *in, uint32_t first_pgno, const unsigned char *random, unsigned char *out,
                            unsigned char *bad) {
    const cipherpage_codec *from = state->from;
    const unsigned char *plain[AES_LANES];
    for (int i = 0; i < AES_LANES; i++) {
        unsigned char *decrypted = state->plains + (size_t)i * state->lane_stride;
        if (!cipherpage_decrypt_with(from, state->decrypt_from, in + (size_t)i * (size_t)from->page_size, first_pgno + (uint32_t)i, decrypted)) return -1;
        plain[i] = decrypted;
    }
    return encrypt_in_lanes(state, plain, first_pgno, random, out, bad);
}

// Converts the run's pages once their sources passed, AES_LANES at a time where they fit.
// Returns 0, or -1 when OpenSSL fails.
static int convert_pages(run_state *state, const cipherpage_pages *pages) {
    size_t page = (size_t)state->page_size;
    int step = 0;
    for (int i = 0; i < pages->count && step >= 0; ) {
        size_t at = (size_t)i * page;
        uint32_t pgno = pages->first_pgno + (uint32_t)i;
        const unsigned char *random = state->random + (size_t)i * (size_t)state->to->reserve;
        if (lanes_fit(state, pages->first_pgno, i, pages->count)) {
            step = convert_in_lanes(state, pages->input + at, pgno, random, pages->output + at, pages->bad + i);
            i += AES_LANES;
        } else {
            step = convert_one(state, pages->input + at, pgno, random, pages->output + at);
            if (step >= 0) pages->bad[i] = (unsigned char)step;
            i += 1;
        }
    }
    return step < 0 ? -1 : 0;
}

int cipherpage_convert(const cipherpage_codec *from, const cipherpage_codec *to, const cipherpage_pages *pages) {
    if (from->page_size != to->page_size || from->reserve != to->reserve || from->reserve < 16) return -1;
    if (from->reserve > CIPHERPAGE_MAX_RESERVE || pages->count < 0) return -1;
    run_state state;
    int found = run_state_init(&state, from, to, pages->count) ? check_sources(&state, pages->input, pages->first_pgno, pages->count, pages->bad) : -1;
    // A source page that fails its HMAC stops the run: nothing is written for any page.
    if (found == 0) found = convert_pages(&state, pages);
    if (found == 0) {
        for (int i = 0; i < pages->count; i++) found += pages->bad[i] != CIPHERPAGE_OK;
        if (!store_macs(to, &state.to_mac, pages->output, pages->first_pgno, pages->count, state.macs)) found = -1;
    }
    run_state_free(&state);
    return found;
}

int cipherpage_encrypt_run(const cipherpage_codec *to, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad) {
    if (to->reserve < 16 || to->reserve > CIPHERPAGE_MAX_RESERVE || count < 0) return -1;
    run_state state;
    int found = run_state_init(&state, NULL, to, count) ? 0 : -1;
    for (int i = 0; i < count && found >= 0; ) {
        size_t at = (size_t)i * (size_t)to->page_size;
        uint32_t pgno = first_pgno + (uint32_t)i;
        const unsigned char *random = state.random + (size_t)i * (size_t)to->reserve;
        int result;
        if (lanes_fit(&state, first_pgno, i, count)) {
            const unsigned char *plain[AES_LANES];
            for (int lane = 0; lane < AES_LANES; lane++) {
                unsigned char *copy = state.plains + (size_t)lane * state.lane_stride;
                memcpy(copy, in + at + (size_t)lane * (size_t)to->page_size, (size_t)to->page_size);
                plain[lane] = copy;
            }
            result = encrypt_in_lanes(&state, plain, pgno, random, out + at, bad + i);
            i += AES_LANES;
        } else {
            int one = encrypt_with(to, state.encrypt, in + at, pgno, random, out + at) ? round_trip(&state, out + at, pgno, in + at) : -1;
            if (one >= 0) bad[i] = (unsigned char)one;
            result = one < 0 ? -1 : one != CIPHERPAGE_OK;
            i += 1;
        }
        found = result < 0 ? -1 : found + result;
    }
    if (found >= 0 && !store_macs(to, &state.to_mac, out, first_pgno, count, state.macs)) found = -1;
    run_state_free(&state);
    return found;
}

int cipherpage_decrypt_run(const cipherpage_codec *from, const unsigned char *in, uint32_t first_pgno, int count, unsigned char *out,
                           unsigned char *bad) {
    if (from->reserve < 16 || count < 0) return -1;
    run_state state;
    int found = run_state_init(&state, from, NULL, count) ? check_sources(&state, in, first_pgno, count, bad) : -1;
    for (int i = 0; i < count && found >= 0; i++) {
        size_t at = (size_t)i * (size_t)from->page_size;
        if (bad[i] == CIPHERPAGE_OK && !cipherpage_decrypt_with(from, state.decrypt_from, in + at, first_pgno + (uint32_t)i, out + at)) {
            found = -1;
            break;
        }
        // The reserve held the IV and HMAC: a plaintext page keeps the space, not the bytes.
        memset(out + at + from->page_size - from->reserve, 0, (size_t)from->reserve);
    }
    run_state_free(&state);
    return found;
}

void cipherpage_start_writeback(int descriptor, int64_t offset, int64_t length) {
#ifdef SYNC_FILE_RANGE_WRITE
    (void)sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
#else
    (void)descriptor, (void)offset, (void)length;
#endif
}
