#ifndef RWSECRET_CLIBSECRET_SHIM_H
#define RWSECRET_CLIBSECRET_SHIM_H
#include <libsecret/secret.h>
#endif
