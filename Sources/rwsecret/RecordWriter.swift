import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Writes what became of each input row, in input order: plaintexts (text mode), JSON
/// objects (`--json`), or one JSON record per row (`--in-band`); failures, hints and
/// unreadable inputs on stderr as the mode wants. Keeps the run's exit status.
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
    }

    let mode: Mode
    private(set) var status = RunStatus()
    private(set) var counts = (decrypted: 0, failed: 0, skipped: 0)
    private let progress: ProgressLine?
    /// The hints already given for the current input.
    private var hintsGiven: (input: Int, hints: Set<FormatHint>) = (-1, [])

    init(mode: Mode, progress: ProgressLine?) {
        self.mode = mode
        self.progress = progress
    }

    /// A message's result.
    func message(_ place: Place, _ result: Result<Decrypted, RowFailure>, hint: FormatHint?) {
        if let hint { give(hint, for: place) }
        switch result {
        case .success(let decrypted):
            counts.decrypted += 1
            var plaintext = decrypted.plaintext
            defer { Crypto.cleanse(&plaintext) }
            if mode.json {
                let text = String(validating: plaintext, as: UTF8.self)
                var members = head(place)
                members.append(("status", .string("decrypted")))
                members.append(text.map { ("plaintext", .string($0)) } ?? ("plaintext_base64", .string(Base64.encode(plaintext))))
                members.append(("password", .string(decrypted.openedBy.words)))
                Output.standardOutput.line(JSON.object(members))
            } else {
                if mode.idColumn {
                    Output.standardOutput.write(bytes: place.id ?? [])
                    Output.standardOutput.write("\t")
                }
                Output.standardOutput.write(bytes: plaintext)
                Output.standardOutput.write("\n")
            }
            Output.standardOutput.flush()
        case .failure(let failure):
            counts.failed += 1
            if !mode.inBand { status.record(.failure) }
            if mode.json {
                Output.standardOutput.line(JSON.object(head(place) + [("status", .string("failed")), ("error", .string(failure.description))]))
                Output.standardOutput.flush()
            } else {
                errorLine("\(Output.escaped(place.source)):\(place.line): \(failure)")
            }
        }
        progress?.update(done: counts.decrypted + counts.failed)
        checkStandardOutput()
    }

    /// A row with no message (blank, `#`, an ID alone, a wrapped message's later row): a record under `--in-band` only.
    func skipped(_ place: Place) {
        counts.skipped += 1
        guard mode.inBand else { return }
        Output.standardOutput.line(JSON.object(head(place) + [("status", .string("skipped"))]))
        Output.standardOutput.flush()
        checkStandardOutput()
    }

    /// An input that could not be opened or read to its end.
    func unreadable(_ source: String, _ error: SystemError) {
        errorLine("\(Output.escaped(source)): \(error)")
        status.record(error.isMissingInput ? .noInput : .ioError)
    }

    /// An input that holds a raw message, not base64 lines.
    func rawMessage(_ source: String) {
        errorLine("\(Output.escaped(source)): a raw message, not base64 lines; use --binary")
        status.record(.failure)
    }

    /// The inputs of the run (their total size, when known, gives the progress line a total).
    func expectInputs(_ files: [String]) { progress?.expectInputs(files) }

    /// A new input starts: the progress line measures it (its size, when known).
    func startInput(_ fd: Int32) { progress?.startInput(fd) }

    /// A run-level line on stderr (not about one message), in order with the results.
    func runLine(_ text: String) { errorLine(text) }

    /// Clears the progress line at the end of the run.
    func finish() { progress?.clear() }

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

    /// The members every JSON object starts with.
    private func head(_ place: Place) -> [(String, JSON.Value)] {
        var members: [(String, JSON.Value)] = [("source", .string(place.source)), ("line", .int(place.line))]
        if mode.idColumn {
            if let id = place.id {
                if let text = String(validating: id, as: UTF8.self) {
                    members.append(("id", .string(text)))
                } else {
                    members.append(("id", .null))
                    members.append(("id_base64", .string(Base64.encode(id))))
                }
            } else {
                members.append(("id", .null))
            }
        }
        return members
    }

    private func checkStandardOutput() {
        if Output.standardOutput.failed { standardOutputFailed() }
    }

    /// The reader closed stdout (quietly ends the run, like other filters) or writing failed (74).
    private func standardOutputFailed() -> Never {
        if Output.standardOutput.brokenPipe { ProcessHardening.exit(status.exitStatus.rawValue) }
        Output.standardError.line("rwsecret: stdout: \(SystemError(code: Output.standardOutput.errorCode))")
        ProcessHardening.exit(ExitStatus.ioError.rawValue)
    }
}
