/* LD_PRELOAD shim: appends the size of each allocation of 60,000 bytes or more (malloc,
 * calloc, realloc, posix_memalign, aligned_alloc) to the file $RWS_BIG_ALLOCATIONS, one line
 * each. glibc's own entry points (__libc_malloc...) do the allocating: no dlsym, which may
 * itself allocate. Used by OneMessageStartupTests: the 64 KiB buffers of a one-message decrypt. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
static char path[4096];
__attribute__((constructor)) static void start(void) {
    const char *log = getenv("RWS_BIG_ALLOCATIONS");
    if (log) strncpy(path, log, sizeof path - 1);
}
static void note(size_t size) {
    if (!path[0] || size < 60000) return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    char line[32];
    int n = 0;
    size_t k = size; char digits[24]; int d = 0;
    do { digits[d++] = (char)('0' + k % 10); k /= 10; } while (k);
    while (d) line[n++] = digits[--d];
    line[n++] = '\n';
    (void)!write(fd, line, (size_t)n);
    close(fd);
}
void *malloc(size_t size) { note(size); return __libc_malloc(size); }
void *calloc(size_t count, size_t size) { note(count * size); return __libc_calloc(count, size); }
void *realloc(void *p, size_t size) { note(size); return __libc_realloc(p, size); }
int posix_memalign(void **out, size_t alignment, size_t size) { note(size); void *p = __libc_memalign(alignment, size); if (!p) return 12; *out = p; return 0; }
void *aligned_alloc(size_t alignment, size_t size) { note(size); return __libc_memalign(alignment, size); }
