#ifndef RWSECRET_COPENSSL_SHIM_H
#define RWSECRET_COPENSSL_SHIM_H

/* SHA1_Init / SHA1_Transform are deprecated in OpenSSL 3 but exported; the
   portable PBKDF2 kernel needs the raw block function. */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>

#endif
