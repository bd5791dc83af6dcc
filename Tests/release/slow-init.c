/* LD_PRELOAD shim: delays rwsecret's own OPENSSL_init_crypto call (the one that passes
   OPENSSL_INIT_NO_LOAD_CONFIG, made on the set-up thread) by 50 ms, so that the main
   thread reaches its first OpenSSL use first. Any OpenSSL call that initialises the
   library implicitly before that would then read openssl.cnf; check-startup.sh fails
   if it does. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <unistd.h>
#include <openssl/crypto.h>

int OPENSSL_init_crypto(uint64_t opts, const OPENSSL_INIT_SETTINGS *settings) {
    static int (*real)(uint64_t, const OPENSSL_INIT_SETTINGS *);
    if (!real) real = (int (*)(uint64_t, const OPENSSL_INIT_SETTINGS *))dlsym(RTLD_NEXT, "OPENSSL_init_crypto");
    if (opts & OPENSSL_INIT_NO_LOAD_CONFIG) usleep(50000);
    return real(opts, settings);
}
