#ifndef RWSECRET_CLINUXSYSCALLS_SHIM_H
#define RWSECRET_CLINUXSYSCALLS_SHIM_H
// Linux calls and constants Swift's Glibc module does not give: the kernel key
// retention service (keyrings(7)) through syscall(2) — Swift cannot call the
// variadic `syscall`, and libkeyutils would be one more library to link — and the
// GNU-only open/link flags. Each wrapper returns the syscall's result (-1 with
// errno set on failure).
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/prctl.h>

/// prctl(PR_SET_DUMPABLE, value): 0 makes the process non-dumpable (prctl is variadic).
static inline int rws_set_dumpable(int value) { return prctl(PR_SET_DUMPABLE, value, 0, 0, 0); }

/// open(2)'s O_TMPFILE (__O_TMPFILE | O_DIRECTORY; GNU-only in <fcntl.h>).
static inline int rws_o_tmpfile(void) { return 020000000 | O_DIRECTORY; }
/// linkat(2)'s AT_EMPTY_PATH (GNU-only in <fcntl.h>).
static inline int rws_at_empty_path(void) { return 0x1000; }

/// fcntl(fd, F_SETPIPE_SZ, size): the pipe's capacity (fcntl is variadic; F_SETPIPE_SZ is GNU-only).
static inline int rws_set_pipe_size(int fd, int size) { return fcntl(fd, 1031 /* F_SETPIPE_SZ */, size); }

/// statfs(2)'s f_type of the filesystem holding `path` (<sys/vfs.h> is not in Swift's Glibc
/// module); 0 when statfs fails.
#include <sys/vfs.h>
static inline long rws_filesystem_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (long)info.f_type : 0;
}

/// copy_file_range(2), splice(2) and fallocate(2)'s hole punch through syscall(2): declared by
/// glibc only under _GNU_SOURCE. Each returns the syscall's result (-1 with errno set).
static inline long rws_copy_file_range(int in, int64_t *in_offset, int out, size_t length) {
    return syscall(SYS_copy_file_range, in, in_offset, out, NULL, length, 0);
}
/// splice(2) from `in` at `*in_offset` (a file) to the pipe `out` (1: SPLICE_F_MOVE).
static inline long rws_splice_to_pipe(int in, int64_t *in_offset, int out, size_t length) {
    return syscall(SYS_splice, in, in_offset, out, NULL, length, 1);
}
/// fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length): frees the range's
/// pages and blocks (they read as zeros); the size is unchanged.
static inline long rws_punch_hole(int fd, int64_t offset, int64_t length) {
    return syscall(SYS_fallocate, fd, 0x02 | 0x01, offset, length);
}

typedef int32_t rws_key_serial;

/// The calling process's session keyring (`KEY_SPEC_SESSION_KEYRING`).
static const rws_key_serial rws_session_keyring = -3;
/// The calling process's own keyring (`KEY_SPEC_PROCESS_KEYRING`), which no other process possesses.
static const rws_key_serial rws_process_keyring = -2;
/// The user keyring of the caller's UID (`KEY_SPEC_USER_KEYRING`, `@u`).
static const rws_key_serial rws_user_keyring = -4;
/// The user's default session keyring (`KEY_SPEC_USER_SESSION_KEYRING`, `_uid_ses.UID`), the
/// one a process without a session keyring of its own is given.
static const rws_key_serial rws_user_session_keyring = -5;

/// add_key(2): creates or updates the key `type`/`description` in `keyring`.
static inline long rws_add_key(const char *type, const char *description, const void *payload, size_t length,
                               rws_key_serial keyring) {
    return syscall(SYS_add_key, type, description, payload, length, keyring);
}

/// KEYCTL_SEARCH (10): the key `type`/`description` in `keyring` or below it.
static inline long rws_keyctl_search(rws_key_serial keyring, const char *type, const char *description) {
    return syscall(SYS_keyctl, 10, keyring, type, description, 0);
}

/// KEYCTL_READ (11): copies up to `length` bytes of the payload; returns its full size.
static inline long rws_keyctl_read(rws_key_serial key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, 11, key, buffer, length, 0);
}

/// KEYCTL_SET_TIMEOUT (15): the key expires `seconds` from now.
static inline long rws_keyctl_set_timeout(rws_key_serial key, unsigned int seconds) {
    return syscall(SYS_keyctl, 15, key, seconds, 0, 0);
}

/// KEYCTL_INVALIDATE (21): the key is gone at once.
static inline long rws_keyctl_invalidate(rws_key_serial key) {
    return syscall(SYS_keyctl, 21, key, 0, 0, 0);
}

/// KEYCTL_UNLINK (9): removes `key` from `keyring`.
static inline long rws_keyctl_unlink(rws_key_serial key, rws_key_serial keyring) {
    return syscall(SYS_keyctl, 9, key, keyring, 0, 0);
}

/// KEYCTL_SETPERM (5): the key's permission mask (possessor, user, group, other bytes).
static inline long rws_keyctl_setperm(rws_key_serial key, uint32_t permissions) {
    return syscall(SYS_keyctl, 5, key, permissions, 0, 0);
}

/// KEYCTL_LINK (8): links `key` into `keyring` (replacing a key of the same type and description there).
static inline long rws_keyctl_link(rws_key_serial key, rws_key_serial keyring) {
    return syscall(SYS_keyctl, 8, key, keyring, 0, 0);
}

/// KEYCTL_REVOKE (3): the key (or keyring) refuses every use from now on (what pam_keyinit's
/// `revoke` does to a session keyring at logout).
static inline long rws_keyctl_revoke(rws_key_serial key) {
    return syscall(SYS_keyctl, 3, key, 0, 0, 0);
}

/// KEYCTL_DESCRIBE (6): "type;uid;gid;perm;description".
static inline long rws_keyctl_describe(rws_key_serial key, char *buffer, size_t length) {
    return syscall(SYS_keyctl, 6, key, buffer, length, 0);
}

/// KEYCTL_GET_KEYRING_ID (0): the id of a special keyring, created when `create` is 1.
static inline long rws_keyctl_get_keyring_id(rws_key_serial keyring, int create) {
    return syscall(SYS_keyctl, 0, keyring, create, 0, 0);
}

/// KEYCTL_JOIN_SESSION_KEYRING (1): a new anonymous session keyring when `name` is NULL.
static inline long rws_keyctl_join_session_keyring(const char *name) {
    return syscall(SYS_keyctl, 1, name, 0, 0, 0);
}

#endif
