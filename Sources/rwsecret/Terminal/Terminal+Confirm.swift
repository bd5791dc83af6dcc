#if canImport(Glibc)
import Glibc
#endif

extension Terminal {
    /// Asks a yes/no question on the controlling terminal (`/dev/tty`, echo on, as gpg asks
    /// before deleting a secret key): true only for `y` or `yes` (any case). Nil when there is
    /// no terminal to ask on.
    static func confirm(_ question: String) -> Bool? {
        guard !promptsForbidden else { return nil }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        guard isatty(tty) == 1 else { return nil }
        ProgressLine.suspend()
        defer { ProgressLine.resume() }
        _ = question.withCString { Glibc.write(tty, $0, strlen($0)) }
        var answer: [UInt8] = []
        var byte: UInt8 = 0
        while answer.count < 64 {
            let n = read(tty, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == 0x0a { break }
            answer.append(byte)
        }
        let word = String(decoding: answer.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0d }, as: UTF8.self).lowercased()
        return word == "y" || word == "yes"
    }
}
