#ifndef RWSECRET_CZLIB_SHIM_H
#define RWSECRET_CZLIB_SHIM_H
/* zlib: the tests inflate the compressed vectors of the C2SP age test kit. */
#include <zlib.h>
#endif
