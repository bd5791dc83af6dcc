#if canImport(Glibc)
import Glibc
#endif

/// The progress line of long runs: on stderr, only when stderr is a terminal, after a second.
final class Progress {
    private let started = Clock.now
    private var shown = false
    private var lastUpdate = 0

    /// nil unless stderr is a terminal.
    init?() {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
    }

    func update(done: Int) {
        let elapsed = Clock.millisecondsSince(started)
        guard elapsed >= 1000, elapsed - lastUpdate >= 200 else { return }
        lastUpdate = elapsed
        shown = true
        Output.standardError.write("\r\u{1B}[Krwsecret: \(done) messages, \(elapsed / 1000) s")
    }

    /// Removes the line before other output goes to stderr.
    func clear() {
        guard shown else { return }
        shown = false
        Output.standardError.write("\r\u{1B}[K")
    }
}
