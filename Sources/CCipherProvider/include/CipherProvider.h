#ifndef CIPHER_PROVIDER_H
#define CIPHER_PROVIDER_H

// SQLCipher's page crypto with OpenSSL contexts kept between pages (see CachedProvider.c).

// The settings search's PBKDF2 pass and page-1 test. Included here too, so that a build
// folder made before that header existed rebuilds this module (clang does not notice a new
// file in an umbrella directory).
#include "SettingsSearch.h"
#include "FileAttributes.h"
#include "FileLocks.h"
#include "MemoryFile.h"
#include "SHA512x8.h"
#include "AESCBCx16.h"
#include "DirectFile.h"

// Registers the provider with SQLCipher. Call once per process, after memory security is
// set and before the connections that should use it are keyed; only with SQLCipher 4.6,
// whose provider layout it has. Returns 1 when installed, 0 when SQLCipher's provider is
// not its OpenSSL one (nothing is changed then).
int cipherprovider_install(void);

// 1 when the provider SQLCipher gives newly keyed connections is this one.
int cipherprovider_active(void);

// While `map` is set (NULL: off), on the calling thread only, a page SQLCipher reads whose
// number `map` marks (map[pgno] != 0, for pgno 1 to `pages`) has its stored HMAC taken as
// computed; any other page's HMAC is computed and checked as ever. The page number is read
// from what SQLCipher hashes after the page, in the byte order it writes it (big-endian when
// `big_endian_pgno`). For a check that runs while the pass proving the pages runs, under a
// lock that keeps the file unchanged: a page is marked only once proven.
void cipherprovider_trust_proven_pages(const unsigned char *map, unsigned pages, int big_endian_pgno);

// Marks page `pgno` of `map` proven; other threads see it at once (a release store).
void cipherprovider_mark_proven(unsigned char *map, unsigned pgno);

// What PBKDF2 derives from: the passphrase, the salt, the iteration count, and the digest
// of its HMAC (1, 256 or 512 for SHA1, SHA256, SHA512).
typedef struct {
    const void *pass;
    int pass_length;
    const unsigned char *salt;
    int salt_length;
    int iterations;
    int digest;
} cipherprovider_kdf;

// PBKDF2 with HMAC-SHA1, -SHA256 or -SHA512, the same bytes as OpenSSL's
// PKCS5_PBKDF2_HMAC with two hash compressions per iteration (see PBKDF2.c). The provider
// derives SQLCipher's keys with it too. Returns 1 on success, 0 on a bad argument.
int cipherprovider_pbkdf2(const cipherprovider_kdf *kdf, unsigned char *out, int out_length);
// How many PBKDF2 key derivations (1000 iterations or more) this process ran, through
// cipherprovider_pbkdf2 in either mode, or ahead of their use.
unsigned long cipherprovider_key_derivations(void);
// Up to eight PBKDF2-HMAC-SHA512 derivations with one iteration count at once, in the SHA-512
// lanes; out[i] receives derivation i's first 64 bytes. Returns 1, or 0 without the lanes
// (FIPS mode, a CPU without AVX-512) or on a bad argument.
int cipherprovider_pbkdf2_sha512_lanes(const cipherprovider_kdf *kdfs, int count, unsigned char out[][64]);

// Keys derived ahead of their use (PreparedKeys.c), for a batch whose databases' salts are
// known before it opens them: a derivation that cipherprovider_pbkdf2 is later asked for
// with the same passphrase, salt, iteration count and digest (and at most 64 bytes) is taken
// from here. Derives `count` PBKDF2-HMAC-SHA512 keys of one iteration count (at most 8) in
// the lanes and keeps them; returns how many it kept (0 without the lanes).
int cipherprovider_pbkdf2_prepare(const cipherprovider_kdf *kdfs, int count);
// 1 when `kdf`'s key was derived ahead, with its first `out_length` bytes in `out`.
int cipherprovider_pbkdf2_prepared(const cipherprovider_kdf *kdf, unsigned char *out, int out_length);
// Wipes and drops every key derived ahead.
void cipherprovider_pbkdf2_forget(void);

// FIPS mode and the own-crypto count (CryptoMode.c).
#include "CryptoMode.h"

#endif
