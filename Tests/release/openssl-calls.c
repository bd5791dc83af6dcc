/* LD_PRELOAD shim: appends the name of each call to OpenSSL 3's table builders (a provider
 * fetch; an addition to the legacy name table) to the file $RWS_OPENSSL_CALLS, one line a call.
 * libcrypto calls its own exported functions through its PLT, so its internal calls are seen
 * too (SHA1() -> EVP_Q_digest -> EVP_MD_fetch). Used by OpenSSLCallsTests and
 * scripts/check-startup.sh: a one-message RNCryptor decrypt must write nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static char path[4096];
__attribute__((constructor)) static void start(void) {
    const char *log = getenv("RWS_OPENSSL_CALLS");
    if (log) strncpy(path, log, sizeof path - 1);
}
static void note(const char *name) {
    if (!path[0]) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    (void)!write(fd, name, strlen(name));
    (void)!write(fd, "\n", 1);
    close(fd);
}
#define PASS(ret, name, params, args) \
    ret name params { \
        static ret (*real) params; \
        if (!real) *(void **)&real = dlsym(RTLD_NEXT, #name); \
        note(#name); \
        return real args; \
    }
PASS(void *, EVP_MD_fetch, (void *c, const char *a, const char *p), (c, a, p))
PASS(void *, EVP_CIPHER_fetch, (void *c, const char *a, const char *p), (c, a, p))
PASS(int, EVP_add_cipher, (const void *c), (c))
PASS(int, EVP_add_digest, (const void *c), (c))
