/* The start-up floor of a C program over libcrypto: OPENSSL_init_crypto (no configuration file
 * read, as rwsecret), print one line, exit. `make bench-goals` times it beside `openssl version`. */
#include <openssl/crypto.h>
#include <stdio.h>
int main(void) {
    if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL) != 1) return 1;
    puts("hello");
    return 0;
}
