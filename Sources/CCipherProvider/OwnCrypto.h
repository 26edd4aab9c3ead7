#ifndef CIPHER_OWN_CRYPTO_H
#define CIPHER_OWN_CRYPTO_H

// Called at each entry point of the project's own crypto code (see CryptoMode.c).
void cipherprovider_note_own_crypto(void);

#endif
