#ifndef RWSECRET_CBOTAN_SHIM_H
#define RWSECRET_CBOTAN_SHIM_H
// Botan 2's bcrypt-pbkdf, for OpenSSH private keys protected by a passphrase
// whose key libssh cannot hand over (RSA keys: libssh 0.10 under OpenSSL 3
// keeps only n, e and d). OpenSSL 3.0 has no bcrypt-pbkdf; Botan's FFI
// (botan/ffi.h, Botan 2.12 and later) has it as the "Bcrypt-PBKDF" password hash.
//
// As libssh (Sources/CLibSSH), Botan is loaded with dlopen only when such a key
// is read: linking it would cost every process start. The one entry point used
// is declared here as botan/ffi.h defines it, so the package builds without
// libbotan-2-dev.
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int (*_Nonnull botan_pwdhash)(const char *algo, size_t param1, size_t param2, size_t param3,
        uint8_t *out, size_t out_len, const char *passphrase, size_t passphrase_len,
        const uint8_t *salt, size_t salt_len);
} rws_botan;

/// Loads libbotan-2 once and returns its entry points, or NULL with `*missing`
/// naming what could not be found. Called once (RWSecretKit's LoadedLibraries).
static inline const rws_botan *rws_botan_load(const char **missing) {
    static rws_botan table;
    rws_botan *api = &table;
    void *handle = dlopen("libbotan-2.so.19", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) { *missing = "libbotan-2.so.19: apt install libbotan-2-19"; return NULL; }
#define RWS_BOTAN_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_BOTAN_LOAD(botan_pwdhash)
#undef RWS_BOTAN_LOAD
    return api;
}

#endif
