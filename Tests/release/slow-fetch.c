/* LD_PRELOAD shim: delays OpenSSL's EVP_CIPHER_fetch by RWS_FETCH_DELAY_US
   microseconds (default 3000), so that background set-up is still inside
   OpenSSL when a quick run ends. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

void *EVP_CIPHER_fetch(void *context, const char *algorithm, const char *properties) {
    static void *(*real)(void *, const char *, const char *);
    if (!real) real = (void *(*)(void *, const char *, const char *))dlsym(RTLD_NEXT, "EVP_CIPHER_fetch");
    const char *delay = getenv("RWS_FETCH_DELAY_US");
    usleep(delay ? (useconds_t)atoi(delay) : 3000);
    return real(context, algorithm, properties);
}
