import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// The terminal: prompts without echo. The only file that touches the TTY.
enum Terminal {
    /// Whether stdin is a terminal: `password add` then asks twice without echo (on
    /// `/dev/tty`) instead of reading its one line from stdin — also with stderr
    /// redirected, where reading stdin would echo the password as it is typed.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Set by shell completion: it must never stop to ask for a passphrase.
    nonisolated(unsafe) static var promptsForbidden = false

    /// Whether a person can be asked: the controlling terminal (`/dev/tty`) can be opened,
    /// whatever stdin, stdout and stderr are — `cat msgs | rwsecret decrypt` still asks
    /// for the vault passphrase there, as gpg, ssh and sudo do.
    static var canAsk: Bool {
        if promptsForbidden { return false }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return false }
        defer { close(tty) }
        return isatty(tty) == 1
    }

    /// Asks on the controlling terminal (`/dev/tty`) with echo off and reads one line.
    ///
    /// The terminal, not stdin, is used so that messages can still arrive on stdin.
    /// Echo is restored whatever happens (also on Ctrl-C, via the saved settings). The
    /// progress line is erased first and not drawn until the answer is in.
    static func readSecret(prompt: String) throws -> SecretBytes {
        if promptsForbidden { throw CommandFailure(.usage, "cannot ask for a password here") }
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { throw CommandFailure(.usage, "cannot ask for a password: there is no terminal") }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { throw CommandFailure(.usage, "cannot ask for a password: there is no terminal") }
        ProgressLine.suspend()
        defer { ProgressLine.resume() }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        // Ctrl-C (or a TERM/HUP/QUIT) at the prompt must not leave the terminal without echo.
        let previous = installRestoringHandlers(tty: tty, saved: saved)
        defer { restoreHandlers(previous) }
        // Ctrl-Z at the prompt gives the shell its terminal back with echo on; `fg` turns echo
        // off again and prints the prompt's last line again, as ssh and gpg do.
        let previousStop = installSuspendHandler(silent: silent, prompt: prompt)
        defer { restoreSuspendHandler(previousStop) }
        // Echo off first (dropping typeahead), then the prompt: an answer typed as soon
        // as the prompt shows is never discarded. Restored without discarding anything.
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer { tcsetattr(tty, TCSANOW, &saved) }
        _ = prompt.withCString { Glibc.write(tty, $0, strlen($0)) }
        return readLine(from: tty)
    }

    /// `--ask-password`: one password, asked once, checked by the default validators.
    static func readRunPassword() throws -> SecretBytes {
        let secret = try readSecret(prompt: "Password: ")
        try RunPasswords.check(secret, name: "prompt")
        return secret
    }

    /// `encrypt --ask-password`: asked twice, as `password add`, gpg -c and age -p do (a typo
    /// would make the message impossible to open); a mismatch asks again, three tries in all.
    static func readNewRunPassword() throws -> SecretBytes {
        var note = ""
        for _ in 0..<3 {
            let first = try readSecret(prompt: note + "Password: ")
            try RunPasswords.check(first, name: "prompt")
            let second = try readSecret(prompt: "Again: ")
            if first.isEqual(to: second) { return first }
            note = "rwsecret: the two passwords differ; try again.\n"
        }
        throw CommandFailure(.dataError, "the two passwords differed three times; nothing was encrypted")
    }
}

/// What the signal handler puts back: the prompt's terminal and its settings.
nonisolated(unsafe) private var restoreFD: Int32 = -1
// Allocated memory, not a global of type termios: Swift 6.3 emits that global 57 bytes long
// (the struct is 60), and copying the settings into it overflowed it (AddressSanitizer).
nonisolated(unsafe) private let restoreSettings: UnsafeMutablePointer<termios> = {
    let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    pointer.initialize(to: termios())
    return pointer
}()
private let restoredSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

/// Puts the terminal's settings back, then dies of `signal` as if it had not been caught.
private func restoreTerminalAndDie(_ signal: Int32) {
    if restoreFD >= 0 { tcsetattr(restoreFD, TCSANOW, restoreSettings) }
    Glibc.signal(signal, SIG_DFL)
    raise(signal)
}

/// What the SIGTSTP handler puts back after `fg`: the settings without echo, and the prompt's last line.
nonisolated(unsafe) private let silentSettings: UnsafeMutablePointer<termios> = {
    let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    pointer.initialize(to: termios())
    return pointer
}()
nonisolated(unsafe) private var reprompt: UnsafeMutablePointer<CChar>?

/// Ctrl-Z at a prompt: the terminal's own settings back, stop; once continued, echo off
/// again and the prompt again (only async-signal-safe calls).
private func suspendAtPrompt(_ signal: Int32) {
    let savedErrno = errno
    if restoreFD >= 0 { tcsetattr(restoreFD, TCSANOW, restoreSettings) }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&action.sa_mask)
    var ours = sigaction()
    sigaction(SIGTSTP, &action, &ours)
    var unblock = sigset_t()
    sigemptyset(&unblock)
    sigaddset(&unblock, SIGTSTP)
    sigprocmask(SIG_UNBLOCK, &unblock, nil)
    raise(SIGTSTP)  // stops here until SIGCONT
    sigaction(SIGTSTP, &ours, nil)
    if restoreFD >= 0 {
        tcsetattr(restoreFD, TCSANOW, silentSettings)
        if let reprompt { _ = Glibc.write(restoreFD, reprompt, strlen(reprompt)) }
    }
    errno = savedErrno
}

extension Terminal {
    fileprivate static func installSuspendHandler(silent: termios, prompt: String) -> sigaction {
        silentSettings.pointee = silent
        let lastLine = prompt.split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? prompt
        reprompt = strdup("\n" + lastLine)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = suspendAtPrompt
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        sigaction(SIGTSTP, &action, &old)
        return old
    }

    fileprivate static func restoreSuspendHandler(_ previous: sigaction) {
        var previous = previous
        sigaction(SIGTSTP, &previous, nil)
        let text = reprompt
        reprompt = nil
        free(text)
    }

    fileprivate static func installRestoringHandlers(tty: Int32, saved: termios) -> [sigaction] {
        restoreFD = tty
        restoreSettings.pointee = saved
        return restoredSignals.map { signal in
            var action = sigaction()
            action.__sigaction_handler.sa_handler = restoreTerminalAndDie
            sigemptyset(&action.sa_mask)
            var old = sigaction()
            sigaction(signal, &action, &old)
            return old
        }
    }

    fileprivate static func restoreHandlers(_ previous: [sigaction]) {
        for (signal, old) in zip(restoredSignals, previous) {
            var old = old
            sigaction(signal, &old, nil)
        }
        restoreFD = -1
    }
}

extension Terminal {
    /// The longest line `readStandardInputLine` keeps (far above the 1024-byte password limit).
    static let maximumLineLength = 1 << 16

    /// Reads one line from stdin (for `password add` when not on a terminal):
    /// its LF and a trailing CR are dropped. A longer line is cut at
    /// `maximumLineLength + 1` bytes, which the length validator then rejects.
    static func readStandardInputLine() -> SecretBytes {
        readLine(from: STDIN_FILENO)
    }

    /// `readStandardInputLine`, and stdin must end after that line: a second line is
    /// bad data (65). Chosen over ignoring it: a file of several passwords piped in by
    /// mistake would otherwise store its first line and silently drop the rest.
    static func readOnlyStandardInputLine(
        refusal: String = "stdin holds more than one line; password add stores one password, given alone on one line (nothing was stored)"
    ) throws -> SecretBytes {
        let line = readLine(from: STDIN_FILENO)
        var byte: UInt8 = 0
        let n = (try? retryingEINTR { Glibc.read(STDIN_FILENO, &byte, 1) }) ?? -1
        byte = 0
        if n > 0 { throw CommandFailure(.dataError, refusal) }
        return line
    }

    /// One line from `fd`, a byte at a time (nothing past the LF is consumed), without
    /// its LF and a trailing CR, kept to `maximumLineLength + 1` bytes, in a wiped buffer.
    private static func readLine(from fd: Int32) -> SecretBytes {
        var line: [UInt8] = []
        defer { SecretBytes.cleanse(&line) }
        line.reserveCapacity(maximumLineLength + 1)  // no reallocation leaves unwiped copies
        var byte: UInt8 = 0
        while true {
            let n = (try? retryingEINTR { Glibc.read(fd, &byte, 1) }) ?? -1
            if n <= 0 || byte == UInt8(ascii: "\n") { break }
            if line.count <= maximumLineLength { line.append(byte) }
        }
        byte = 0
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return SecretBytes(line)
    }
}
