#include "CSHA1Kernel.h"
int rw_sha1ni_available(void) { return 0; }
