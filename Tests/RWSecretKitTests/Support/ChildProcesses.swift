// Shared by RWSecretKitTests, rwsecretTests and rwsecret-bench (Tests/rwsecretTests/Support/ChildProcesses.swift and Sources/rwsecret-bench/ChildProcesses.swift are symlinks).
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing a child's stdin, the one way every test does it.
///
/// A child may exit, or close its stdin, before it has read all it was given (`--version`, a
/// command that fails early, a daemon that dies). The write then fails with EPIPE and the
/// kernel raises SIGPIPE, whose default action kills the writer: the whole test process
/// (`swift test`: "exited with unexpected signal code 13"). And once SIGPIPE no longer kills,
/// `FileHandle.write(_:)` crashes instead: it `try!`s the EPIPE. So:
/// - SIGPIPE is *caught*, by a handler that does nothing, installed once per test process
///   before the first write. A caught signal, unlike an ignored one, goes back to its default
///   action when a child execs; SIG_IGN would be inherited through Foundation's `Process`
///   (it does not reset it), and the programs under test would run with SIGPIPE ignored.
/// - EPIPE ends the input as a normal outcome: the child did not want the rest.
enum ChildInput {
    /// Catches SIGPIPE with a handler that does nothing, unless it already is. Called before
    /// every spawn and every write to a child: GLib's GDBus, which the in-process keyring
    /// tests load, sets SIGPIPE to SIG_IGN when it finds the default, and an ignored SIGPIPE
    /// would be inherited by every child started after that (the order of tests decided it).
    static func catchBrokenPipes() {
        var current = sigaction()
        guard sigaction(SIGPIPE, nil, &current) == 0 else { return }
        let disposition = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
        guard disposition == 0 || disposition == 1 else { return }  // SIG_DFL, SIG_IGN
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        precondition(sigaction(SIGPIPE, &action, nil) == 0, "cannot catch SIGPIPE")
    }

    /// Writes all of `bytes` to `fd` (retrying short writes and EINTR) unless the reader has
    /// gone. Returns false when it had (EPIPE): the rest was not written, which is normal.
    /// Any other error is a bug in the test: it stops with the errno.
    @discardableResult
    static func write(_ bytes: some Foundation.ContiguousBytes, to fd: Int32) -> Bool {
        catchBrokenPipes()
        return bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE { return false }
                    preconditionFailure("writing a child's stdin: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
            return true
        }
    }
}

extension FileHandle {
    /// Writes `data` to the child reading this pipe; see `ChildInput` (EPIPE is normal, returns false).
    @discardableResult
    func writeToChild(_ data: Data) -> Bool {
        ChildInput.write(data, to: fileDescriptor)
    }
}

/// The sanitizer options of this process, for a child's environment: under `make sanitize`
/// the `rwsecret` the tests run is sanitized too, and its reports go where the tests' go.
enum SanitizerOptions {
    static var environment: [String: String] {
        ProcessInfo.processInfo.environment.filter { ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"].contains($0.key) }
    }
}
