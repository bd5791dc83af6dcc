#ifndef RWSECRET_CLIBSSH_SHIM_H
#define RWSECRET_CLIBSSH_SHIM_H
// libssh's private key import, for OpenSSH keys protected by a passphrase
// (bcrypt-pbkdf and the key's cipher are libssh's, not rwsecret's own code).
//
// As for libsecret (Sources/CLibSecret), libssh is loaded with dlopen only when
// an --identity file holds a passphrase-protected key: linking it would cost
// every process start, and most runs never read such a key. The four entry
// points used are declared here as libssh 0.9-0.11 define them (libssh.h), so
// the package builds with no header search path. The tests open keys that
// ssh-keygen wrote with a passphrase.
#include <dlfcn.h>
#include <stddef.h>

typedef struct ssh_key_struct *rws_ssh_key;
typedef int (*rws_ssh_auth_callback)(const char *prompt, char *buf, size_t len, int echo, int verify, void *userdata);

typedef struct {
    int (*_Nonnull ssh_pki_import_privkey_base64)(const char *b64_key, const char *passphrase,
        rws_ssh_auth_callback auth_fn, void *auth_data, rws_ssh_key *pkey);
    int (*_Nonnull ssh_pki_export_privkey_base64)(const rws_ssh_key privkey, const char *passphrase,
        rws_ssh_auth_callback auth_fn, void *auth_data, char **b64_key);
    void (*_Nonnull ssh_key_free)(rws_ssh_key key);
    void (*_Nonnull ssh_string_free_char)(char *s);
} rws_libssh;

/// Loads libssh once and returns its entry points, or NULL with `*missing`
/// naming what could not be found. Call from one thread.
static inline const rws_libssh *rws_libssh_load(const char **missing) {
    static rws_libssh table;
    static int loaded;
    rws_libssh *api = &table;
    if (loaded) { return api; }
    void *handle = dlopen("libssh.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) { *missing = "libssh.so.4 (apt install libssh-4)"; return NULL; }
#define RWS_SSH_LOAD(name) if ((*(void **)&api->name = dlsym(handle, #name)) == NULL) { *missing = #name; return NULL; }
    RWS_SSH_LOAD(ssh_pki_import_privkey_base64)
    RWS_SSH_LOAD(ssh_pki_export_privkey_base64)
    RWS_SSH_LOAD(ssh_key_free)
    RWS_SSH_LOAD(ssh_string_free_char)
#undef RWS_SSH_LOAD
    loaded = 1;
    return api;
}

#endif
