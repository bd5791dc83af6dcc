#ifndef RWSECRET_CSYSTEM_SHIM_H
#define RWSECRET_CSYSTEM_SHIM_H
// What Swift's Glibc module cannot import: prctl (variadic) and the flag
// macros built from other macros. Nothing is linked: every call is libc's.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sys/prctl.h>

/// prctl(PR_SET_DUMPABLE, value): 0 makes the process non-dumpable.
static inline int rws_set_dumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }

/// prctl(PR_GET_DUMPABLE).
static inline int rws_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/// O_TMPFILE (it includes O_DIRECTORY), or 0 where the headers lack it.
static inline int rws_o_tmpfile(void) {
#ifdef O_TMPFILE
    return O_TMPFILE;
#else
    return 0;
#endif
}

/// AT_EMPTY_PATH for linkat on a descriptor.
static inline int rws_at_empty_path(void) { return AT_EMPTY_PATH; }
#endif
