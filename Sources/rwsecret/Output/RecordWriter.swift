import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Writes what became of each input row, in input order, through the run's
/// `ResultFormat` (text, `--json`, `--in-band`); failures the format does not record,
/// hints and unreadable inputs go to stderr. Keeps the run's counts, exit status and
/// progress line.
///
/// Used under the pipeline's lock only (results arrive in order, from any thread).
final class RecordWriter {
    /// How results are written.
    struct Mode {
        var json = false
        /// One record per input row, message failures in the stream only (implies `json`).
        var inBand = false
        /// Rows are `ID<TAB>MESSAGE`; the ID goes into every record.
        var idColumn = false
    }

    /// Where a result belongs: the input (its index among the run's inputs, and name), the line, the row's ID.
    struct Place {
        let input: Int
        let source: String
        let line: Int
        let id: [UInt8]?
        /// A v0 or v1 message (opened with `--allow-legacy`): its HMAC covers the ciphertext only.
        var ciphertextOnly = false
        /// The kind of message (JSON `"kind"`).
        var kind: MessageOpener.Kind = .rncryptor
        /// The YAML key of an Ansible `!vault` value (JSON `"key"`).
        var key: String? = nil
        /// A whole file's plaintext: written as it is, with no newline added.
        var wholeFile = false
        /// The file name and date an OpenPGP message carries (JSON `"literal_name"`, `"literal_date"`).
        var literal: LiteralData? = nil
    }

    let mode: Mode
    private(set) var status = RunStatus()
    private(set) var counts = (decrypted: 0, failed: 0, skipped: 0)
    /// Set when stdout failed: the run reads no more and ends with this status; later results are dropped.
    private(set) var stopped: ExitStatus?
    private let progress: ProgressLine?
    /// The hints already given for the current input.
    private var hintsGiven: (input: Int, hints: Set<FormatHint>) = (-1, [])

    /// How results are written on stdout (a new output format is one new `ResultFormat`).
    private let format: any ResultFormat

    init(mode: Mode, progress: ProgressLine?) {
        self.mode = mode
        self.progress = progress
        format = mode.json ? JSONFormat(idColumn: mode.idColumn, inBand: mode.inBand) : TextFormat(idColumn: mode.idColumn)
    }

    /// A message's result.
    func message(_ place: Place, _ result: RowResult, hint: FormatHint?) {
        guard stopped == nil else { return }
        if let hint { give(hint, for: place) }
        switch result {
        case .success(let decrypted):
            counts.decrypted += 1
            // Wiped where it is, once written: `var copy` + `cleanse(&copy)` wiped a copy made
            // on write (the result shares the storage) and left the plaintext in memory.
            defer { SecretBytes.cleanseShared(decrypted.plaintext) }
            format.decrypted(place, decrypted.plaintext, openedBy: decrypted.openedBy)
            Output.standardOutput.flush()
        case .failure(let failure):
            counts.failed += 1
            if !mode.inBand { status.record(.failure) }
            if format.failed(place, failure) {
                Output.standardOutput.flush()
            } else {
                errorLine("\(Output.escaped(place.source)):\(place.line): \(failure)")
            }
        }
        progress?.update(done: counts.decrypted + counts.failed, line: place.line)
        checkStandardOutput()
    }

    /// A row with no message (blank, `#`, an ID alone, a wrapped message's later row): a record under `--in-band` only.
    func skipped(_ place: Place) {
        guard stopped == nil else { return }
        counts.skipped += 1
        guard format.skipped(place) else { return }
        Output.standardOutput.flush()
        checkStandardOutput()
    }

    /// An input that could not be opened or read to its end.
    func unreadable(_ source: String, _ error: Errno) {
        inputFailed(source, "\(error)")
        status.record(error.meansMissingInput ? .noInput : .ioError)
    }

    /// An input that holds a raw message, not base64 lines.
    func rawMessage(_ source: String) {
        inputFailed(source, "a raw message, not base64 lines; use --binary")
        status.record(.failure)
    }

    /// What an input of binary data is said to be (the words of the registry's `.binaryData`).
    static let binaryData = "not a secret message (binary data)"

    /// An input that holds binary data, not base64 lines: one line for the whole input
    /// (with what it is when it starts like another known format).
    func binary(_ source: String, hint: FormatHint?) {
        inputFailed(source, Self.binaryData + (hint.map { "; \($0.rawDescription)" } ?? ""))
        status.record(.failure)
    }

    /// A text input none of whose rows is a message: one line for the whole input.
    func notMessages(_ source: String, _ what: String) {
        inputFailed(source, what)
        status.record(.failure)
    }

    /// A whole input failed: its line on stderr, and its record (`--json`).
    private func inputFailed(_ source: String, _ reason: String) {
        guard stopped == nil else { return }
        errorLine("\(Output.escaped(source)): \(reason)")
        format.inputFailed(source, reason)
        Output.standardOutput.flush()
        checkStandardOutput()
    }

    /// The inputs of the run (their total size, when known, gives the progress line a total).
    func expectInputs(_ files: [String]) { progress?.expectInputs(files) }

    /// A new input starts: the progress line measures it (its size, when known).
    func startInput(_ fd: Int32) { progress?.startInput(fd) }

    /// A line about the record just written that fails the run (1; not under --in-band, whose
    /// records say it): a bad signature on a message that decrypted.
    func warning(_ text: String) {
        guard stopped == nil else { return }
        errorLine(text)
        if !mode.inBand { status.record(.failure) }
    }

    /// A run-level line on stderr (not about one message), in order with the results.
    func runLine(_ text: String) { errorLine(text) }

    /// Clears the progress line at the end of the run.
    func finish() {
        // The whole input is done now (lines after the last message included): said, then erased.
        if stopped == nil { progress?.update(done: counts.decrypted + counts.failed) }
        progress?.clear()
    }

    /// Says once per input that its messages look like another format.
    private func give(_ hint: FormatHint, for place: Place) {
        if hintsGiven.input != place.input { hintsGiven = (place.input, []) }
        guard hintsGiven.hints.insert(hint).inserted else { return }
        errorLine("\(Output.escaped(place.source)): \(hint.description)")
    }

    /// A line on stderr, after everything before it on stdout and with the progress line out of the way.
    private func errorLine(_ text: String) {
        Output.standardOutput.flush()
        progress?.clear()
        Output.standardError.line("rwsecret: " + text)
    }

    /// Once stdout fails, the run stops: the reader closed it (the run ends quietly with
    /// the status so far, like other filters) or writing failed (74, said once).
    private func checkStandardOutput() {
        guard stopped == nil, Output.standardOutput.failed else { return }
        if Output.standardOutput.brokenPipe {
            stopped = status.exitStatus
        } else {
            Output.standardError.line("rwsecret: stdout: \(Errno(rawValue: Output.standardOutput.errorCode))")
            stopped = .ioError
        }
    }
}
