import RWSecretKit
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

    /// `--binary`: bytes read so far, of `total` when the input's size is known.
    func update(bytes done: Int, of total: Int?) {
        let elapsed = Clock.millisecondsSince(started)
        guard elapsed >= 1000, elapsed - lastUpdate >= 200 else { return }
        lastUpdate = elapsed
        shown = true
        let mib = { (bytes: Int) in "\(bytes >> 20) MiB" }
        let rate = done / max(1, elapsed) * 1000
        var line = "\r\u{1B}[Krwsecret: \(mib(done))"
        if let total, total > 0 {
            line += " of \(mib(total)) (\(done * 100 / total)%)"
            if rate > 0 { line += ", \((total - done) / rate) s left" }
        }
        line += ", \(mib(rate))/s"
        Output.standardError.write(line)
    }

    /// Removes the line before other output goes to stderr.
    func clear() {
        guard shown else { return }
        shown = false
        Output.standardError.write("\r\u{1B}[K")
    }
}
