#ifndef RWSECRET_CBZIP2_SHIM_H
#define RWSECRET_CBZIP2_SHIM_H
/* libbz2: the BZip2 compressed data packets of OpenPGP messages. */
#include <bzlib.h>
#endif
