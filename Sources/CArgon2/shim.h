#ifndef RWSECRET_CARGON2_SHIM_H
#define RWSECRET_CARGON2_SHIM_H
// libargon2: OpenPGP's Argon2 S2K (RFC 9580 3.7.1.4); OpenSSL 3.0 has no Argon2.
// Loaded with dlopen on first use as zlib is (Sources/CZlib/shim.h): argon2.h
// gives the types and status codes, the table below the entry points.
#include <dlfcn.h>
#include <argon2.h>

typedef struct {
    int (*_Nonnull argon2id_hash_raw)(const uint32_t t_cost, const uint32_t m_cost, const uint32_t parallelism,
        const void *pwd, const size_t pwdlen, const void *salt, const size_t saltlen, void *hash, const size_t hashlen);
    const char *(*_Nonnull argon2_error_message)(int error_code);
} rws_argon2;

/// Loads libargon2 once and returns its entry points, or NULL with `*missing`
/// naming what could not be found. Called once (RWSecretKit's LoadedLibraries).
static inline const rws_argon2 *rws_argon2_load(const char **missing) {
    static rws_argon2 table;
    rws_argon2 *api = &table;
    void *handle = dlopen("libargon2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) { *missing = "libargon2.so.1: apt install libargon2-1"; return NULL; }
#define RWS_A2_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_A2_LOAD(argon2id_hash_raw)
    RWS_A2_LOAD(argon2_error_message)
#undef RWS_A2_LOAD
    return api;
}

#endif
