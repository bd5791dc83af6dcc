#if canImport(Glibc)
import Glibc
#endif
import RWSecretKit
import SystemPackage

/// Buffered writing to a file descriptor, with explicit flushes (stdout is flushed per message).
final class Output: @unchecked Sendable {
    // Used from the main thread only (results are written in order there).
    static let standardOutput = Output(fd: STDOUT_FILENO, closedAtStart: StandardStreams.wasClosed(STDOUT_FILENO))
    static let standardError = Output(fd: STDERR_FILENO, unbuffered: true)

    let fd: Int32
    private let unbuffered: Bool
    private var buffer: [UInt8] = []
    /// Set when a write failed; `brokenPipe` when the reader went away.
    private(set) var failed = false
    private(set) var brokenPipe = false
    /// The errno of the failed write ("No space left on device").
    private(set) var errorCode: Int32 = 0
    /// The descriptor was closed when the process started (`StandardStreams`).
    private let closedAtStart: Bool

    /// `closedAtStart`: the descriptor was closed when the process started (it holds
    /// /dev/null now): the first write fails with EBADF, as it would have.
    init(fd: Int32, unbuffered: Bool = false, closedAtStart: Bool = false) {
        self.fd = fd
        self.unbuffered = unbuffered
        self.closedAtStart = closedAtStart
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
        do throws(Errno) {
            if closedAtStart { throw Errno(rawValue: EBADF) }
            try writeFully(fd, buffer)
        } catch {
            failed = true
            errorCode = error.rawValue
            brokenPipe = error.rawValue == EPIPE
        }
    }

    /// Set where stdout is written without `standardOutput` (`--binary`) and its reader went away.
    nonisolated(unsafe) static var stdoutReaderGone = false

    /// `name` with control characters escaped (`\n`, `\t`, `\x1b`, …), bidirectional-override
    /// and zero-width characters too (`\x{202e}`), and
    /// invalid UTF-8 shown as `\xNN`, so that a file name or label can never
    /// forge an output line or drive the terminal.
    static func escaped(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            switch scalar.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            // Controls, line separators, and the invisible characters that reorder or hide
            // text (bidirectional embeddings, overrides and isolates, zero-width characters).
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029,
                 0x061C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x2069, 0xFEFF:
                out += "\\x" + (scalar.value < 0x100 ? hex2(scalar.value) : "{" + String(scalar.value, radix: 16) + "}")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex2(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(value >> 4)], digits[Int(value & 15)]])
    }

    private func wipe() {
        buffer.withUnsafeMutableBytes { SecretBytes.cleanse($0) }
    }
}
