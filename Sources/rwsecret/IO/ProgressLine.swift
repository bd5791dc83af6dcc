import RWSecretKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The progress line of long runs, on stderr, only when stderr is a terminal.
///
/// Rules (SPEC "decrypt"): it shows after a second (`RWSECRET_PROGRESS_DELAY`
/// seconds; 0 draws from the first update on), at most five times a second; it
/// is erased before anything else is written to a terminal (`Output` calls
/// `eraseBeforeWriting(to:)`, so a result on stdout never lands after it on the
/// same line); and it is not drawn while the tool waits for interactive input
/// (`Terminal` calls `suspend`/`resume` around a prompt; a run that reads its
/// messages from a terminal never draws it).
///
/// API for a run (one line per process, the latest made; thread-safe):
/// - `ProgressLine(unit: .messages)` or `(unit: .bytes)` — nil when stderr is not a terminal
///   (make none under `--quiet`);
/// - messages: `expectInputs(_:)` once, `startInput(_:)` per input, `update(done:)` per result
///   ("3,025 messages, 41% of 12.0 MiB, 1,512/s, 7 s left" — the share of the input read,
///   since how many messages a file holds is not known before it is read);
/// - bytes (`decrypt --binary`): `update(bytesDone:total:)`, total nil when unknown
///   ("412.0 MiB of 1.0 GiB (40%), 1.5 GiB/s, 1 s left");
/// - `clear()` — erase it at the end of the run (writes through `Output` erase it anyway).
final class ProgressLine: Sendable {
    enum Unit: Sendable { case messages, bytes }

    private struct State {
        var visible = false
        var suspended = 0
        var lastDrawn = -1_000_000
        var text = ""
        var readsTerminalInput = false
        /// Messages mode: the inputs' total size (nil when one is not a regular file), the
        /// sizes of the inputs finished, and the input being read.
        var totalBytes: Int64?
        var finishedBytes: Int64 = 0
        var currentInput: (fd: Int32, size: Int64)?
    }

    let unit: Unit
    private let started = Clock.now
    private let delay: Int
    private let interval: Int
    private let state = Mutex(State())

    /// The line on screen now, if any (what `Output` and `Terminal` erase).
    private static let current = Mutex<ProgressLine?>(nil)

    /// nil unless stderr is a terminal (callers also pass nil under `--quiet`).
    init?(unit: Unit) {
        guard isatty(STDERR_FILENO) == 1 else { return nil }
        self.unit = unit
        delay = Self.delayFromEnvironment()
        interval = delay == 0 ? 0 : 200
        Self.current.withLock { $0 = self }
    }

    /// `RWSECRET_PROGRESS_DELAY`: seconds before the line first shows (default 1).
    private static func delayFromEnvironment() -> Int {
        guard let value = getenv("RWSECRET_PROGRESS_DELAY"), let seconds = Double(String(cString: value)),
              seconds >= 0, seconds < 1_000_000 else { return 1000 }
        return Int(seconds * 1000)
    }

    /// Messages mode: the inputs of the run (`-` is stdin), for "how much of the input".
    func expectInputs(_ names: [String]) {
        var total: Int64? = 0
        for name in names {
            var info = stat()
            if name != "-", stat(name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                total? += Int64(info.st_size)
            } else {
                total = nil
            }
        }
        state.withLock { $0.totalBytes = total }
    }

    /// Messages mode: the next input is read from `fd`. One that is a terminal (a person
    /// typing messages) stops the line for the rest of the run. The line keeps its own
    /// duplicate of `fd` (same file offset), so the position can be read after the input
    /// itself is closed.
    func startInput(_ fd: Int32) {
        var info = stat()
        let regular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        let terminal = isatty(fd) == 1
        let copy = regular ? fcntl(fd, F_DUPFD_CLOEXEC, 3) : -1
        state.withLock { state in
            if let previous = state.currentInput {
                state.finishedBytes += previous.size
                close(previous.fd)
            }
            state.currentInput = copy >= 0 ? (copy, Int64(info.st_size)) : nil
            if terminal { state.readsTerminalInput = true }
        }
        if terminal { clear() }
    }

    /// Messages done (and how much of the input is read, when `expectInputs` knew its size).
    func update(done: Int) {
        let (bytes, total) = state.withLock { state -> (Int64?, Int64?) in
            guard let total = state.totalBytes else { return (nil, nil) }
            var position: Int64 = 0
            if let input = state.currentInput { position = max(0, min(Int64(lseek(input.fd, 0, SEEK_CUR)), input.size)) }
            return (state.finishedBytes + position, total)
        }
        update(done: done, bytes: bytes, total: total)
    }

    /// Messages done; `bytes` = input bytes read so far of `total` when the input's size is known.
    func update(done: Int, bytes: Int64?, total: Int64?) {
        draw { elapsed in
            var text = "rwsecret: \(Self.grouped(done)) \(done == 1 ? "message" : "messages")"
            if let bytes, let total, total > 0 {
                let fraction = min(1, Double(bytes) / Double(total))
                text += ", \(Int(fraction * 100))% of \(Self.size(total))"
                text += ", \(Self.grouped(Int(Double(done) * 1000 / Double(max(elapsed, 1)))))/s"
                if fraction > 0 && fraction < 1 { text += ", \(Self.duration(Double(elapsed) * (1 - fraction) / fraction)) left" }
            } else {
                text += ", \(Self.grouped(Int(Double(done) * 1000 / Double(max(elapsed, 1)))))/s, \(Self.duration(Double(elapsed)))"
            }
            return text
        }
    }

    /// Bytes done of `total` (nil when unknown), e.g. for `decrypt --binary`.
    func update(bytesDone: Int64, total: Int64?) {
        draw { elapsed in
            let rate = Double(bytesDone) * 1000 / Double(max(elapsed, 1))
            var text = "rwsecret: \(Self.size(bytesDone))"
            if let total, total > 0 {
                let fraction = min(1, Double(bytesDone) / Double(total))
                text += " of \(Self.size(total)) (\(Int(fraction * 100))%), \(Self.size(Int64(rate)))/s"
                if fraction > 0 && fraction < 1 { text += ", \(Self.duration(Double(elapsed) * (1 - fraction) / fraction)) left" }
            } else {
                text += ", \(Self.size(Int64(rate)))/s, \(Self.duration(Double(elapsed)))"
            }
            return text
        }
    }

    /// Erases the line (if shown); the next update draws it again.
    func clear() {
        state.withLock { state in
            guard state.visible else { return }
            state.visible = false
            Self.writeToStderr("\r\u{1B}[K")
        }
    }

    private func draw(_ text: (Int) -> String) {
        let elapsed = Clock.millisecondsSince(started)
        guard elapsed >= delay else { return }
        state.withLock { state in
            guard state.suspended == 0, !state.readsTerminalInput, elapsed - state.lastDrawn >= interval else { return }
            state.lastDrawn = elapsed
            state.text = Self.fitted(text(elapsed))
            state.visible = true
            Self.writeToStderr("\r\u{1B}[K" + state.text)
        }
    }

    /// Cut to the terminal's width: a line that wraps could not be erased with `\r ESC[K`.
    private static func fitted(_ text: String) -> String {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 1, text.count >= Int(size.ws_col) else { return text }
        return String(text.prefix(Int(size.ws_col) - 1))
    }

    private static func writeToStderr(_ text: String) {
        var text = text
        text.withUTF8 { bytes in try? writeAll(STDERR_FILENO, UnsafeRawBufferPointer(bytes)) }
    }

    // MARK: - Other writers

    /// Called before anything is written to `fd`: when that is a terminal, the progress
    /// line is erased first, so the text starts on a clean line. (Cheap when no line shows.)
    static func eraseBeforeWriting(to fd: Int32) {
        guard let line = current.withLock({ $0 }) else { return }
        guard line.state.withLock({ $0.visible }), isatty(fd) == 1 else { return }
        line.clear()
    }

    /// Around an interactive prompt: erased, and not drawn until `resume()`.
    static func suspend() {
        guard let line = current.withLock({ $0 }) else { return }
        line.state.withLock { $0.suspended += 1 }
        line.clear()
    }

    static func resume() {
        guard let line = current.withLock({ $0 }) else { return }
        line.state.withLock { $0.suspended -= 1 }
    }

    // MARK: - Formatting

    /// 12,345
    static func grouped(_ n: Int) -> String {
        var digits = String(n)
        var index = digits.endIndex
        while digits.distance(from: digits.startIndex, to: index) > 3 {
            index = digits.index(index, offsetBy: -3)
            digits.insert(",", at: index)
        }
        return digits
    }

    /// 512 B, 1.5 KiB, 12.0 MiB, 1.00 GiB
    static func size(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        if unit == 0 { return "\(bytes) B" }
        let rounded = (value * 10).rounded() / 10
        return "\(rounded) \(units[unit])"
    }

    /// 42 s, 3 min 5 s, 2 h 10 min
    static func duration(_ milliseconds: Double) -> String {
        let seconds = Int((milliseconds / 1000).rounded(.up))
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min \(seconds % 60) s" }
        return "\(seconds / 3600) h \(seconds % 3600 / 60) min"
    }
}
