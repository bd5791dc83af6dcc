#ifndef RWSECRET_CSHA1KERNEL_H
#define RWSECRET_CSHA1KERNEL_H
/* PBKDF2-HMAC-SHA1 inner-loop kernels. Filled in by the performance work. */
int rw_sha1ni_available(void);
#endif
