/* The per-process floor of a C program that uses OpenSSL: it is linked with libcrypto
   (so the dynamic loader maps and relocates it, as for any OpenSSL tool) and loads
   OpenSSL's configuration, then exits. scripts/side-by-side.sh builds it under .build/. */
#include <openssl/crypto.h>

int main(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, NULL) ? 0 : 1;
}
