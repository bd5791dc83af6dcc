#if canImport(Glibc)
import Glibc
#endif
import RWSecretKit

/// Buffered writing to a file descriptor, with explicit flushes (stdout is flushed per message).
final class Output: @unchecked Sendable {
    // Used from the main thread only (results are written in order there).
    static let standardOutput = Output(fd: STDOUT_FILENO)
    static let standardError = Output(fd: STDERR_FILENO, unbuffered: true)

    let fd: Int32
    private let unbuffered: Bool
    private var buffer: [UInt8] = []
    /// Set when a write failed; `brokenPipe` when the reader went away.
    private(set) var failed = false
    private(set) var brokenPipe = false
    /// The errno of the failed write ("No space left on device").
    private(set) var errorCode: Int32 = 0

    init(fd: Int32, unbuffered: Bool = false) {
        self.fd = fd
        self.unbuffered = unbuffered
        buffer.reserveCapacity(1 << 16)
    }

    func write(_ string: String) {
        buffer.append(contentsOf: string.utf8)
        if unbuffered || buffer.count >= 1 << 16 { flush() }
    }

    func write(bytes: some Collection<UInt8>) {
        buffer.append(contentsOf: bytes)
        if unbuffered || buffer.count >= 1 << 16 { flush() }
    }

    func line(_ string: String) { write(string + "\n") }

    /// Writes out everything buffered. A closed pipe is remembered, not fatal.
    func flush() {
        // Plaintexts pass through this buffer: wipe it, not just forget it.
        defer { wipe(); buffer.removeAll(keepingCapacity: true) }
        guard !failed, !buffer.isEmpty else { return }
        ProgressLine.eraseBeforeWriting(to: fd)  // never text after the progress line on one terminal line
        var offset = 0
        while offset < buffer.count {
            let n = buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                failed = true
                errorCode = errno
                brokenPipe = errno == EPIPE
                return
            }
            offset += n
        }
    }

    private func wipe() {
        buffer.withUnsafeMutableBytes { Crypto.cleanse($0) }
    }
}
