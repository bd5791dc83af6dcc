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

/// The Python that imports the PyPI `rncryptor` package (a peer implementation): the one
/// $RWSECRET_PYPI_PYTHON names (`make test` and `make bench` find or install it with
/// scripts/pypi-python.sh), else python3 from PATH. The command's first words.
enum PeerPython {
    static let command: [String] = ProcessInfo.processInfo.environment["RWSECRET_PYPI_PYTHON"]
        .flatMap { $0.isEmpty ? nil : [$0] } ?? ["/usr/bin/env", "python3"]
}

/// Foundation's `Process.run()` on Linux lists /proc/self/fd and copies 256 bytes of every
/// entry's name whatever the entry's length (swift-corelibs-foundation #5472, in Swift 6.3.1).
/// While the listing fits well inside glibc's 32 KiB directory buffer the over-read stays
/// inside that buffer; with ~1,350 descriptors open the buffer fills, the last entry's copy
/// runs past its end, and where the next page is unmapped the whole test process dies
/// (SIGSEGV; AddressSanitizer reports the heap-buffer-overflow). Every spawn through
/// `Process` goes through `runCheckingDescriptors()`, which refuses, with that reason, to
/// spawn from a process holding more than `descriptorLimit` descriptors: a leak shows up as
/// a failed test instead of a crash of the whole run.
extension Process {
    /// Far below where the over-read leaves the buffer (~1,350), far above what the suite
    /// holds when nothing leaks (a few dozen, plus a few per child running in parallel).
    static let descriptorLimit = 600

    /// This process's open descriptors, counted without reading any entry's name.
    static func openDescriptorCount() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return max(count - 3, 0)  // ".", "..", and the listing's own descriptor
    }

    struct TooManyDescriptors: Error, CustomStringConvertible {
        let count: Int
        var description: String {
            "the test process holds \(count) descriptors (limit \(Process.descriptorLimit)): a leak; Foundation's Process.run over-reads /proc/self/fd and can crash the whole run (swift-corelibs-foundation #5472)"
        }
    }

    /// `run()`, unless this process holds so many descriptors that `run()` could crash it.
    func runCheckingDescriptors() throws {
        let count = Self.openDescriptorCount()
        guard count <= Self.descriptorLimit else { throw TooManyDescriptors(count: count) }
        try run()
    }
}
