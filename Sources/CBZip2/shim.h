#ifndef RWSECRET_CBZIP2_SHIM_H
#define RWSECRET_CBZIP2_SHIM_H
// libbz2: the BZip2 compressed data packets of OpenPGP messages, loaded with
// dlopen on first use as zlib is (Sources/CZlib/shim.h): bzlib.h gives the
// types, the table below the entry points.
#include <dlfcn.h>
#include <bzlib.h>

typedef struct {
    int (*_Nonnull BZ2_bzDecompressInit)(bz_stream *strm, int verbosity, int small);
    int (*_Nonnull BZ2_bzDecompress)(bz_stream *strm);
    int (*_Nonnull BZ2_bzDecompressEnd)(bz_stream *strm);
} rws_bzip2;

/// Loads libbz2 once and returns its entry points, or NULL with `*missing`
/// naming what could not be found. Called once (RWSecretKit's LoadedLibraries).
static inline const rws_bzip2 *rws_bzip2_load(const char **missing) {
    static rws_bzip2 table;
    rws_bzip2 *api = &table;
    void *handle = dlopen("libbz2.so.1.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) { handle = dlopen("libbz2.so.1", RTLD_NOW | RTLD_LOCAL); }
    if (handle == NULL) { *missing = "libbz2.so.1.0: apt install libbz2-1.0"; return NULL; }
#define RWS_BZ_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_BZ_LOAD(BZ2_bzDecompressInit)
    RWS_BZ_LOAD(BZ2_bzDecompress)
    RWS_BZ_LOAD(BZ2_bzDecompressEnd)
#undef RWS_BZ_LOAD
    return api;
}

#endif
