import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Standard descriptors (0–2) that were closed when the process started.
///
/// A closed 0, 1 or 2 is the lowest free number: the next file the process opens
/// (an input, the private file) would take it, and "stdout" would then be that
/// file — `decrypt --binary >&-` once `sendfile`d the plaintext into its own
/// private file and exited 0. So at start each closed one is held with
/// `/dev/null` (no file can take its number), and remembered: stdin that was
/// closed reads as EBADF, stdout that was closed fails the run (74) where
/// output would go there. A closed stderr just loses the error lines, as before.
enum StandardStreams {
    /// Which of 0, 1, 2 were closed at start (index = descriptor).
    private static let closedAtStart: [Bool] = (0...2).map { fd in
        guard fcntl(Int32(fd), F_GETFD) == -1 && errno == EBADF else { return false }
        // open returns the lowest free number: this one (the lower ones are open or held already).
        let held = open("/dev/null", O_RDWR | O_NOCTTY)
        if held >= 0 && held != Int32(fd) {
            _ = dup2(held, Int32(fd))
            close(held)
        }
        return true
    }

    /// Holds every closed standard descriptor with `/dev/null`. Call first thing at start.
    static func holdClosed() { _ = closedAtStart }

    /// Closes again the descriptors held since the start: a program this process becomes
    /// (`execv`, the front's `WholeTool`) must find them closed, as this one did.
    static func closeHeld() {
        for fd in 0...2 where closedAtStart[fd] { close(Int32(fd)) }
    }

    /// Whether `fd` (0, 1 or 2) was closed when the process started.
    static func wasClosed(_ fd: Int32) -> Bool { (0...2).contains(fd) && closedAtStart[Int(fd)] }

    /// Whether `path` names this process's stdout (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`).
    static func namesStandardOutput(_ path: String) -> Bool {
        ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", "/proc/\(getpid())/fd/1"].contains(path)
    }
}
