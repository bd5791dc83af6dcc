import Foundation

/// `LD_PRELOAD` shims, compiled with the system's C compiler when a test needs one:
/// real interposition of libc/OpenSSL calls to make races happen on demand.
enum Shim {
    /// Flips one byte of the file `RWS_FLIP_FILE` at `RWS_FLIP_OFFSET` just before
    /// the process first writes 4 KiB or more anywhere but stderr (or calls
    /// sendfile): the moment an implementation that reads its input twice starts
    /// releasing plaintext, or one that reads it once starts its private file.
    static let flipOnFirstWrite = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdlib.h>
        #include <unistd.h>
        #include <sys/types.h>
        static int done;
        static void flip(void) {
            if (done) return;
            done = 1;
            const char *path = getenv("RWS_FLIP_FILE"), *offset = getenv("RWS_FLIP_OFFSET");
            if (!path || !offset) return;
            int fd = open(path, O_RDWR);
            if (fd < 0) return;
            unsigned char byte;
            off_t at = (off_t)atoll(offset);
            if (pread(fd, &byte, 1, at) == 1) { byte ^= 0x01; (void)pwrite(fd, &byte, 1, at); }
            close(fd);
        }
        ssize_t write(int fd, const void *buffer, size_t count) {
            static ssize_t (*real)(int, const void *, size_t);
            if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
            if (fd != 2 && count >= 4096) flip();
            return real(fd, buffer, count);
        }
        ssize_t sendfile(int out, int in, off_t *offset, size_t count) {
            static ssize_t (*real)(int, int, off_t *, size_t);
            if (!real) real = (ssize_t (*)(int, int, off_t *, size_t))dlsym(RTLD_NEXT, "sendfile");
            if (out != 2) flip();
            return real(out, in, offset, count);
        }
        """

    /// Appends one line to the file `RWS_THREAD_LOG` for every `pthread_create` of the
    /// process (Dispatch's workers and every other thread start there): a count of the
    /// threads a run started, whatever it did with them, independent of timing.
    static let countThreads = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <pthread.h>
        #include <stdlib.h>
        #include <unistd.h>
        int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
            static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
            if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
            const char *log = getenv("RWS_THREAD_LOG");
            if (log) {
                int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
                if (fd >= 0) { (void)write(fd, "thread\\n", 7); close(fd); }
            }
            return real(thread, attributes, start, argument);
        }
        """

    /// Compiles `source` into a shared object in `folder`; returns its path.
    static func build(_ source: String, named name: String, in folder: URL) throws -> String {
        let c = folder.appendingPathComponent("\(name).c")
        let so = folder.appendingPathComponent("\(name).so")
        try source.write(to: c, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        cc.arguments = ["cc", "-shared", "-fPIC", "-O2", "-o", so.path, c.path, "-ldl"]
        try cc.runCheckingDescriptors()
        cc.waitUntilExit()
        guard cc.terminationStatus == 0 else { throw ShimError.compileFailed(name) }
        return so.path
    }

    /// Compiles the shim `Tests/release/NAME.c` (one source with scripts/check-startup.sh, which
    /// builds it for the release binary) into `folder`; returns its path.
    static func buildRelease(_ name: String, in folder: URL) throws -> String {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try build(String(contentsOf: tests.appendingPathComponent("release/\(name).c"), encoding: .utf8), named: name, in: folder)
    }

    enum ShimError: Error { case compileFailed(String) }
}
