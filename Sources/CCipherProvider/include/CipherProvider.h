#ifndef CIPHER_PROVIDER_H
#define CIPHER_PROVIDER_H

// SQLCipher's page crypto with OpenSSL contexts kept between pages (see CachedProvider.c).

// Registers the provider with SQLCipher. Call once per process, after memory security is
// set and before the connections that should use it are keyed; only with SQLCipher 4.6,
// whose provider layout it has. Returns 1 when installed, 0 when SQLCipher's provider is
// not its OpenSSL one (nothing is changed then).
int cipherprovider_install(void);

// 1 when the provider SQLCipher gives newly keyed connections is this one.
int cipherprovider_active(void);

#endif
