#ifndef RWSECRET_CZLIB_SHIM_H
#define RWSECRET_CZLIB_SHIM_H
// zlib: OpenPGP's ZIP and ZLIB compressed data (and, in the tests, which link -lz
// themselves, the compressed vectors of the C2SP age test kit).
//
// As libsecret and libssh, zlib is loaded with dlopen on first use (a compressed
// OpenPGP packet): linked, every process mapped it, and a one-message RNCryptor
// run never inflates anything (issue 36). zlib.h gives the types; the entry
// points come from the table below, never from a link.
#include <dlfcn.h>
#include <zlib.h>

typedef struct {
    int (*_Nonnull inflateInit2_)(z_streamp strm, int windowBits, const char *version, int stream_size);
    int (*_Nonnull inflate)(z_streamp strm, int flush);
    int (*_Nonnull inflateEnd)(z_streamp strm);
    const char *(*_Nonnull zlibVersion)(void);
} rws_zlib;

/// Loads zlib once and returns its entry points, or NULL with `*missing` naming
/// what could not be found. Called once (RWSecretKit's LoadedLibraries).
static inline const rws_zlib *rws_zlib_load(const char **missing) {
    static rws_zlib table;
    rws_zlib *api = &table;
    void *handle = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) { *missing = "libz.so.1: apt install zlib1g"; return NULL; }
#define RWS_Z_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_Z_LOAD(inflateInit2_)
    RWS_Z_LOAD(inflate)
    RWS_Z_LOAD(inflateEnd)
    RWS_Z_LOAD(zlibVersion)
#undef RWS_Z_LOAD
    return api;
}

#endif
