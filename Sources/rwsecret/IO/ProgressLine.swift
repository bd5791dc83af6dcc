import Dispatch
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
        /// What the line reader of the current input has handed out: lines, and the bytes
        /// through the end of the last one (not what it read ahead).
        var linesReturned = 0
        var consumed: Int64 = 0
        /// The line reader is waiting in read() (since when, in ms of the run).
        var readingSince: Int?
        /// The smoothed rate of work (bytes, or messages, per ms), for the time left.
        var rate = RateEstimate()
        /// The text of the last update, and when it came (the idle notice is added to it).
        var lastText = ""
        var lastUpdate = 0
        var saysWaiting = false
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
        startIdleWatch()
    }

    /// An input that sends nothing (an idle `tail -f`) would freeze the line at its last rate:
    /// after a second of waiting in read() with no update, the line says "waiting for input".
    private func startIdleWatch() {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [weak self] in self?.showIdle() }
        timer.resume()
        Self.idleTimer = timer  // kept for the life of the process (one line per run)
    }

    nonisolated(unsafe) private static var idleTimer: DispatchSourceTimer?

    private func showIdle() {
        let elapsed = Clock.millisecondsSince(started)
        guard elapsed >= delay else { return }
        state.withLock { state in
            guard let since = state.readingSince, elapsed - since >= Self.idleAfter, elapsed - state.lastUpdate >= Self.idleAfter,
                  !state.lastText.isEmpty, !state.saysWaiting, state.suspended == 0, !state.readsTerminalInput else { return }
            state.saysWaiting = true
            state.text = Self.fitted(Self.waiting(state.lastText))
            state.visible = true
            Self.writeToStderr("\r\u{1B}[K" + state.text)
        }
    }

    /// How long a wait for input is before the line says so (ms).
    static let idleAfter = 1000

    /// The line while the input sends nothing: the counts stay, the rate and time left go.
    static func waiting(_ text: String) -> String {
        // Parts are joined by ", " (a number's own commas have no space after them).
        // The counts come first; then a rate (`/s`), a time left or the time so far (`12 s`, `3 min`, `2 h`).
        let counts = TextSearch.split(text, separator: ", ").prefix { part in
            !part.hasSuffix("/s") && !part.hasSuffix(" s") && !part.hasSuffix(" min") && !part.hasSuffix(" h") && !part.hasSuffix(" left")
        }.joined(separator: ", ")
        return counts + ", waiting for input"
    }

    // MARK: - The line reader's part (called for every line; cheap when no line shows)

    /// A line was handed out: `number` lines of the current input, `consumed` bytes through its end.
    static func lineRead(_ number: Int, consumed: Int64) {
        guard let line = current.withLock({ $0 }) else { return }
        line.state.withLock { state in
            state.linesReturned = number
            state.consumed = consumed
        }
    }

    /// The line reader starts (true) or stops (false) waiting for the input.
    static func reading(_ waiting: Bool) {
        guard let line = current.withLock({ $0 }) else { return }
        let elapsed = Clock.millisecondsSince(line.started)
        line.state.withLock { $0.readingSince = waiting ? elapsed : nil }
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
            state.linesReturned = 0
            state.consumed = 0
            if terminal { state.readsTerminalInput = true }
        }
        if terminal { clear() }
    }

    /// Messages done (and how much of the input they account for, when `expectInputs` knew its
    /// size). `line`: the input line of the latest message done, when known. Work done is
    /// counted, not bytes read ahead: the bytes the line reader has handed out, in the share
    /// of its lines that are done.
    func update(done: Int, line: Int? = nil) {
        let (bytes, total) = state.withLock { state -> (Int64?, Int64?) in
            guard let total = state.totalBytes else { return (nil, nil) }
            var position: Int64 = 0
            if state.linesReturned > 0 {
                position = Self.workDone(consumed: state.consumed, linesReturned: state.linesReturned, doneLine: line)
            } else if let input = state.currentInput {
                position = max(0, min(Int64(lseek(input.fd, 0, SEEK_CUR)), input.size))
            }
            return (state.finishedBytes + position, total)
        }
        update(done: done, bytes: bytes, total: total)
    }

    /// The bytes of the current input that the messages done account for: of the `consumed`
    /// bytes of `linesReturned` lines, the share up to `doneLine` (0 when that line is of an
    /// earlier input, counted in the finished inputs already).
    static func workDone(consumed: Int64, linesReturned: Int, doneLine: Int?) -> Int64 {
        guard let doneLine else { return consumed }
        guard doneLine <= linesReturned, linesReturned > 0 else { return 0 }
        return consumed * Int64(doneLine) / Int64(linesReturned)
    }

    /// Messages done; `bytes` = input bytes read so far of `total` when the input's size is known.
    func update(done: Int, bytes: Int64?, total: Int64?) {
        draw { elapsed, rate in Self.messagesText(done: done, bytes: bytes, total: total, elapsed: elapsed, rate: &rate) }
    }

    /// The line for `done` messages after `elapsed` ms: `rwsecret: 3,025 messages, 41% of 12.0 MiB,
    /// 1,512/s, 7 s left`; no rate before the first message is done, and below one a second a
    /// fraction (`0.3/s`), never `0/s`.
    static func messagesText(done: Int, bytes: Int64?, total: Int64?, elapsed: Int, rate: inout RateEstimate) -> String {
        var text = "rwsecret: \(grouped(done)) \(done == 1 ? "message" : "messages")"
        let perSecond = perSecond(Double(done) * 1000 / Double(max(elapsed, 1)))
        if let bytes, let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            text += ", \(Int(fraction * 100))% of \(size(total))"
            if let perSecond { text += ", \(perSecond)" }
            if fraction > 0 && fraction < 1, let perMs = rate.sample(elapsed: elapsed, work: Double(bytes)), perMs > 0 {
                text += ", \(duration(Double(total - bytes) / perMs)) left"
            }
        } else {
            if let perSecond { text += ", \(perSecond)" }
            text += ", \(duration(Double(elapsed)))"
        }
        return text
    }

    /// Bytes done of `total` (nil when unknown), e.g. for `decrypt --binary`.
    func update(bytesDone: Int64, total: Int64?) {
        draw { elapsed, smoothed in Self.bytesText(bytesDone: bytesDone, total: total, elapsed: elapsed, rate: &smoothed) }
    }

    /// The line for `bytesDone` bytes after `elapsed` ms: `rwsecret: 412.0 MiB of 1.0 GiB (40%),
    /// 1.5 GiB/s, 1 s left`; no rate below a byte a second (never `0 B/s`).
    static func bytesText(bytesDone: Int64, total: Int64?, elapsed: Int, rate smoothed: inout RateEstimate) -> String {
        let rate = Double(bytesDone) * 1000 / Double(max(elapsed, 1))
        var text = "rwsecret: \(size(bytesDone))"
        if let total, total > 0 {
            let fraction = min(1, Double(bytesDone) / Double(total))
            text += " of \(size(total)) (\(Int(fraction * 100))%)"
            if rate >= 1 { text += ", \(size(Int64(rate)))/s" }
            if fraction > 0 && fraction < 1, let perMs = smoothed.sample(elapsed: elapsed, work: Double(bytesDone)), perMs > 0 {
                text += ", \(duration(Double(total - bytesDone) / perMs)) left"
            }
        } else {
            if rate >= 1 { text += ", \(size(Int64(rate)))/s" }
            text += ", \(duration(Double(elapsed)))"
        }
        return text
    }

    /// Erases the line (if shown); the next update draws it again.
    func clear() {
        state.withLock { state in
            guard state.visible else { return }
            state.visible = false
            Self.writeToStderr("\r\u{1B}[K")
        }
    }

    private func draw(_ text: (Int, inout RateEstimate) -> String) {
        let elapsed = Clock.millisecondsSince(started)
        state.withLock { state in
            state.lastUpdate = elapsed
            state.saysWaiting = false
            guard elapsed >= delay else { return }
            guard state.suspended == 0, !state.readsTerminalInput, elapsed - state.lastDrawn >= interval else { return }
            state.lastDrawn = elapsed
            state.lastText = text(elapsed, &state.rate)
            state.text = Self.fitted(state.lastText)
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
        text.withUTF8 { bytes in try? writeFully(STDERR_FILENO, UnsafeRawBufferPointer(bytes)) }
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

    /// A rate of messages: `1,512/s`, `3/s`, and below one a second `0.4/s`, `0.05/s`, `<0.01/s`
    /// (never `0/s`, which reads as stuck); nil when nothing is done yet (the line says no rate).
    static func perSecond(_ rate: Double) -> String? {
        guard rate > 0, rate.isFinite else { return nil }
        if rate >= 0.95 { return "\(grouped(Int(rate.rounded())))/s" }
        let tenths = Int((rate * 10).rounded())
        if tenths >= 1 { return "0.\(tenths)/s" }
        let hundredths = Int((rate * 100).rounded())
        return hundredths >= 1 ? "0.0\(hundredths)/s" : "<0.01/s"
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

/// The rate of work for the time left, smoothed (an exponential moving average of the rate
/// between samples at least half a second apart), so that bursts and stalls do not throw the
/// estimate about: the time left no longer climbs from seconds to minutes and back.
struct RateEstimate {
    private var last: (elapsed: Int, work: Double)?
    private var smoothed: Double?

    /// Adds a sample (work done so far at `elapsed` ms); returns the smoothed work per ms.
    mutating func sample(elapsed: Int, work: Double) -> Double? {
        guard let last else {
            self.last = (elapsed, work)
            smoothed = elapsed > 0 ? work / Double(elapsed) : nil
            return smoothed
        }
        guard elapsed - last.elapsed >= 500 else { return smoothed }
        let recent = (work - last.work) / Double(elapsed - last.elapsed)
        smoothed = smoothed.map { 0.7 * $0 + 0.3 * recent } ?? recent
        self.last = (elapsed, work)
        return smoothed
    }
}
