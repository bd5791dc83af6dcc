#ifndef RWSECRET_CARGON2_SHIM_H
#define RWSECRET_CARGON2_SHIM_H
/* libargon2: OpenPGP's Argon2 S2K (RFC 9580 3.7.1.4); OpenSSL 3.0 has no Argon2. */
#include <argon2.h>
#endif
