import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The terminal: prompts without echo. The only file that touches the TTY.
enum Terminal {
    /// Whether stdin and stderr are both terminals (so a person can be asked).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    /// Asks on the controlling terminal (`/dev/tty`) with echo off and reads one line.
    ///
    /// The terminal, not stdin, is used so that messages can still arrive on stdin.
    /// Echo is restored whatever happens (also on Ctrl-C, via the saved settings).
    static func readSecret(prompt: String) throws -> SecretBytes {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { throw CommandFailure(.usage, "cannot ask for a password: there is no terminal") }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw CommandFailure(.usage, "cannot ask for a password: there is no terminal") }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { Glibc.write(tty, $0, strlen($0)) }
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer { tcsetattr(tty, TCSAFLUSH, &saved) }
        var line: [UInt8] = []
        defer { Crypto.cleanse(&line) }
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(tty, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            line.append(byte)
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(line)
    }

    /// `--ask-password`: one password, asked once, checked by the default validators.
    static func readRunPassword() throws -> SecretBytes {
        let secret = try readSecret(prompt: "Password: ")
        try RunPasswords.check(secret, name: "prompt")
        return secret
    }
}

extension Terminal {
    /// The longest line `readStandardInputLine` keeps (far above the 1024-byte password limit).
    static let maximumLineLength = 1 << 16

    /// Reads one line from stdin (for `password add` when not on a terminal):
    /// its LF and a trailing CR are dropped. A longer line is cut at
    /// `maximumLineLength + 1` bytes, which the length validator then rejects.
    static func readStandardInputLine() -> SecretBytes {
        var line: [UInt8] = []
        defer { Crypto.cleanse(&line) }
        line.reserveCapacity(maximumLineLength + 1)  // no reallocation leaves unwiped copies
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(STDIN_FILENO, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            if line.count <= maximumLineLength { line.append(byte) }
        }
        byte = 0
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(line)
    }
}
