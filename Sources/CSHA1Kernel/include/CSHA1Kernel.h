#ifndef RWSECRET_CSHA1KERNEL_H
#define RWSECRET_CSHA1KERNEL_H
/* PBKDF2-HMAC-SHA1 inner-loop kernel with the x86 SHA extensions (SHA-NI).

   The caller (Swift, over OpenSSL's SHA-1) computes, per output block of
   PBKDF2, the HMAC inner and outer SHA-1 states of the password (the state
   after compressing key^ipad resp. key^opad) and U1; this kernel runs the
   remaining iterations, two compressions each, interleaving up to three
   independent chains, and leaves T = U1 ^ U2 ^ ... ^ Uc in `u`.

   This kernel is the one place the project computes SHA-1 itself; it is
   checked against OpenSSL before first use (see KeyDerivation.swift). */

#include <stddef.h>
#include <stdint.h>

/* One PBKDF2 output block in progress. Words are SHA-1 state words h0..h4
   (native integers, as in OpenSSL's SHA_CTX), not bytes. */
typedef struct rw_pbkdf2_chain {
    uint32_t inner[5];  /* SHA-1 state after (HMAC key ^ ipad) */
    uint32_t outer[5];  /* SHA-1 state after (HMAC key ^ opad) */
    uint32_t u[5];      /* in: U1; out: T */
} rw_pbkdf2_chain;

/* 1 when this CPU (and this build) can run rw_pbkdf2_sha1ni: SHA, SSE4.1, SSSE3. */
int rw_sha1ni_available(void);

/* Runs iterations 2...`iterations` of every chain. Returns 0, or -1 (chains
   untouched) when the SHA extensions are unavailable. */
int rw_pbkdf2_sha1ni(rw_pbkdf2_chain *chains, size_t count, uint32_t iterations);

/* Zeroes `n` bytes in a way the compiler keeps. */
void rw_secure_zero(void *p, size_t n);

#endif
