// Keys derived ahead of their use, for batches: a SQLCipher 4 key is PBKDF2-HMAC-SHA512 with
// 256,000 iterations, a chain of dependent hash compressions that keeps one core's vector
// units mostly idle. A batch of databases knows its passphrases and, from each file's first
// 16 bytes, its salts before it opens any; derived eight at a time in the SHA-512 lanes, a
// key costs about a quarter of the time. Each is kept here until cipherprovider_pbkdf2 is asked for
// it, by CipherKit or by SQLCipher, which then gets the same bytes without deriving again.
//
// An entry is named by a SHA-512 of what the derivation depends on (digest, iterations,
// passphrase, salt), so no passphrase is copied; the derived bytes are kept in locked memory
// (best effort) and wiped when forgotten or moved.

#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "CipherProvider.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

typedef struct {
    unsigned char name[SHA512_DIGEST_LENGTH];
    unsigned char key[64];
} prepared_key;

static pthread_mutex_t prepared_lock = PTHREAD_MUTEX_INITIALIZER;
static prepared_key *prepared = NULL;
static int prepared_count = 0, prepared_capacity = 0;
// Read without the lock, so that a process that prepared nothing pays one load a derivation.
static atomic_int prepared_any = 0;

static void append_int(SHA512_CTX *hash, int value) {
    const unsigned char bytes[4] = {(unsigned char)(value >> 24), (unsigned char)(value >> 16), (unsigned char)(value >> 8), (unsigned char)value};
    SHA512_Update(hash, bytes, sizeof bytes);
}

static void name_of(const cipherprovider_kdf *kdf, unsigned char name[SHA512_DIGEST_LENGTH]) {
    SHA512_CTX hash;
    SHA512_Init(&hash);
    append_int(&hash, kdf->digest);
    append_int(&hash, kdf->iterations);
    append_int(&hash, kdf->pass_length);
    if (kdf->pass_length > 0) SHA512_Update(&hash, kdf->pass, (size_t)kdf->pass_length);
    append_int(&hash, kdf->salt_length);
    if (kdf->salt_length > 0) SHA512_Update(&hash, kdf->salt, (size_t)kdf->salt_length);
    SHA512_Final(name, &hash);
    OPENSSL_cleanse(&hash, sizeof hash);
}

static void release(prepared_key *entries, int capacity) {
    if (entries == NULL) return;
    OPENSSL_cleanse(entries, sizeof(prepared_key) * (size_t)capacity);
    munlock(entries, sizeof(prepared_key) * (size_t)capacity);
    free(entries);
}

// Room for `more` entries; 0 when memory runs out. Under the lock.
static int reserve(int more) {
    if (prepared_count + more <= prepared_capacity) return 1;
    int capacity = prepared_capacity == 0 ? 64 : prepared_capacity;
    while (capacity < prepared_count + more) capacity *= 2;
    prepared_key *entries = calloc((size_t)capacity, sizeof(prepared_key));
    if (entries == NULL) return 0;
    mlock(entries, sizeof(prepared_key) * (size_t)capacity);
    if (prepared_count > 0) memcpy(entries, prepared, sizeof(prepared_key) * (size_t)prepared_count);
    release(prepared, prepared_capacity);
    prepared = entries;
    prepared_capacity = capacity;
    return 1;
}

int cipherprovider_pbkdf2_prepare(const cipherprovider_kdf *kdfs, int count) {
    unsigned char keys[8][64], names[8][SHA512_DIGEST_LENGTH];
    if (count < 1 || count > 8 || !cipherprovider_pbkdf2_sha512_lanes(kdfs, count, keys)) return 0;
    for (int i = 0; i < count; i++) name_of(&kdfs[i], names[i]);
    pthread_mutex_lock(&prepared_lock);
    int kept = reserve(count) ? count : 0;
    for (int i = 0; i < kept; i++) {
        memcpy(prepared[prepared_count].name, names[i], sizeof names[i]);
        memcpy(prepared[prepared_count].key, keys[i], sizeof keys[i]);
        prepared_count++;
    }
    if (kept > 0) atomic_store(&prepared_any, 1);
    pthread_mutex_unlock(&prepared_lock);
    OPENSSL_cleanse(keys, sizeof keys);
    return kept;
}

int cipherprovider_pbkdf2_prepared(const cipherprovider_kdf *kdf, unsigned char *out, int out_length) {
    if (!atomic_load(&prepared_any) || kdf == NULL || out == NULL || out_length < 1 || out_length > 64 || kdf->digest != 512) return 0;
    unsigned char name[SHA512_DIGEST_LENGTH];
    name_of(kdf, name);
    int found = 0;
    pthread_mutex_lock(&prepared_lock);
    for (int i = 0; i < prepared_count && !found; i++) {
        if (CRYPTO_memcmp(prepared[i].name, name, sizeof name) == 0) {
            memcpy(out, prepared[i].key, (size_t)out_length);
            found = 1;
        }
    }
    pthread_mutex_unlock(&prepared_lock);
    return found;
}

void cipherprovider_pbkdf2_forget(void) {
    pthread_mutex_lock(&prepared_lock);
    release(prepared, prepared_capacity);
    prepared = NULL;
    prepared_count = prepared_capacity = 0;
    atomic_store(&prepared_any, 0);
    pthread_mutex_unlock(&prepared_lock);
}
