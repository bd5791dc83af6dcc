#ifndef RWSECRET_COPENSSL_SHIM_H
#define RWSECRET_COPENSSL_SHIM_H

/* SHA1_Init / SHA1_Transform are deprecated in OpenSSL 3 but exported; the
   portable PBKDF2 kernel needs the raw block function. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/bn.h>
#include <openssl/rsa.h>
#include <openssl/param_build.h>
#include <openssl/provider.h>
#include <openssl/pem.h>
#include <openssl/ec.h>

/* OpenSSL's built-in AES-256 and SHA implementations reached through their legacy method
   tables, without a provider fetch. A fetch in OpenSSL 3.0 builds the name table and
   every algorithm of its operation (~150 ciphers, all MACs and digests): about 6 M
   instructions, a quarter of a small message's whole run. A copy of the static method
   (EVP_*_meth_dup) is marked as an application method, so EVP_CipherInit_ex2 and
   EVP_DigestInit_ex use it directly: the same code as the provider's (AES-NI, SHA-NI /
   AVX2 block functions), the same results. The digest copies need their state size set:
   OpenSSL 3.0's static legacy digests declare none. NULL where the build lacks the legacy
   tables (then the caller fetches). */
static inline EVP_CIPHER *rws_legacy_cipher(const EVP_CIPHER *builtin) {
#if OPENSSL_VERSION_MAJOR == 3 && !defined(OPENSSL_NO_DEPRECATED_3_0)
    if (builtin == NULL || EVP_CIPHER_get0_provider(builtin) != NULL) return NULL;
    return EVP_CIPHER_meth_dup(builtin);
#else
    (void)builtin;
    return NULL;
/* EVP_PKEY_fromdata selections (composite macros Swift does not import). */
static inline int rws_select_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int rws_select_keypair(void) { return EVP_PKEY_KEYPAIR; }

#endif
}

static inline EVP_MD *rws_legacy_digest(const EVP_MD *builtin, int state_size) {
#if OPENSSL_VERSION_MAJOR == 3 && !defined(OPENSSL_NO_DEPRECATED_3_0)
    if (builtin == NULL || EVP_MD_get0_provider(builtin) != NULL) return NULL;
    EVP_MD *md = EVP_MD_meth_dup(builtin);
    if (md != NULL && EVP_MD_meth_set_app_datasize(md, state_size) != 1) { EVP_MD_meth_free(md); return NULL; }
    return md;
#else
    (void)builtin; (void)state_size;
    return NULL;
/* EVP_PKEY_fromdata selections (composite macros Swift does not import). */
static inline int rws_select_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int rws_select_keypair(void) { return EVP_PKEY_KEYPAIR; }

#endif
}

static inline EVP_MD *rws_legacy_sha256(void) { return rws_legacy_digest(EVP_sha256(), (int)sizeof(SHA256_CTX)); }
static inline EVP_MD *rws_legacy_sha1(void) { return rws_legacy_digest(EVP_sha1(), (int)sizeof(SHA_CTX)); }

/* EVP_PKEY_fromdata selections (composite macros Swift does not import). */
static inline int rws_select_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int rws_select_keypair(void) { return EVP_PKEY_KEYPAIR; }

/* Whether an error of OpenSSL's queue is an allocation failure (ERR_R_MALLOC_FAILURE: a
   composite macro Swift does not import). */
static inline int rws_err_is_malloc_failure(unsigned long error) {
    return ERR_GET_REASON(error) == ERR_GET_REASON(ERR_R_MALLOC_FAILURE);
}

#endif
