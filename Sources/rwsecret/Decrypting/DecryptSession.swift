import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// One `rwsecret decrypt` run over text input: rows in, results out in input order.
final class DecryptSession: @unchecked Sendable {
    // `client` and `writer` are used under the pipeline's lock once work runs on other threads.
    let client: PasswordClient
    let json: Bool
    let global: Globals
    let jobs: Int
    private let jobsReason: String
    private let writer: RecordWriter
    /// The library's run over `client`'s chain: messages in flight divide the chain between
    /// them and share each winner, whole files of other kinds on the pipeline's threads too
    /// (`Decryption.walk`); on a terminal, `asker` gives one more password when none opens.
    let decryption: Decryption
    /// Set by the command: the run-level line for an empty chain (said once, then cleared).
    var emptyChainHint: (() -> String)?
    /// Set by the command: the records of an input that holds messages of another kind (a whole
    /// age or Ansible Vault file, a YAML file of `!vault` values), nil when it holds lines.
    /// Work items (a regular file's values or whole message) run in the pipeline, on up to --jobs threads.
    var otherKinds: ((InputFile, _ index: Int, inout MessageRows) throws -> KindWork?)?
    /// `--memory`: the budget of costly password tries at once (`MemoryBudget`), resolved only
    /// when a message needs it.
    var memoryOption: String?
    /// `--max-kdf-cost`: the key-derivation work a message may ask of each password.
    var kdfWork: Int { decryption.options.kdfWork }
    /// The status a run with nothing to try stops with: 69 when the store is the reason, else 1.
    var emptyChainStatus = ExitStatus.failure
    /// Set by the other kinds' look at an input (`KindDecryption.records`): its first line of
    /// text looks like YAML, so an input of no messages is "a YAML file with no `!vault` value".
    var inputLooksLikeYAML = false
    /// Set likewise: the YAML input has `!vault` tags whose values could not be read.
    var inputVaultUnread = false
    /// Given by the command on a terminal: asks once for another password when the chain fails.
    let asker: AskWhenNothingOpens?

    init(client: PasswordClient, json: Bool, global: Globals, jobs: Int,
         jobsReason: String = "--jobs", mode: RecordWriter.Mode? = nil,
         kdfWork: Int = Decryption.Options.defaultKDFWork, asker: AskWhenNothingOpens? = nil) {
        self.client = client
        self.asker = asker
        decryption = Decryption(client: client, options: Decryption.Options(jobs: jobs, kdfWork: kdfWork), reporter: asker)
        self.json = json
        self.global = global
        self.jobs = max(1, jobs)
        self.jobsReason = jobsReason
        writer = RecordWriter(mode: mode ?? RecordWriter.Mode(json: json), progress: global.quiet ? nil : ProgressLine(unit: .messages))
    }

    /// What the pipeline delivers, in input order.
    enum Outcome {
        /// What became of one message row.
        case message(RecordWriter.Place, RowResult, hint: FormatHint?)
        /// A row with no message.
        case skipped(RecordWriter.Place)
        /// An input that could not be opened, or read to its end.
        case unreadable(source: String, error: Errno)
        /// An input that holds a raw message, not lines.
        case rawMessage(source: String)
        /// An input that holds binary data (maybe another format's raw message), not lines.
        case binary(source: String, hint: FormatHint?)
        /// The messages of another kind an input holds.
        case otherKinds([KindRecord])
        /// A text input in which no row is a message: what it is, said once (`NotMessages`).
        case notMessages(source: String, what: String)
    }

    /// Decrypts every message of `files` (`-` is stdin); returns the run's exit status.
    func run(files: [String]) throws -> ExitStatus {
        let started = Clock.now
        global.verboseLine("jobs: \(jobs) (\(jobsReason))")
        let pipeline = OrderedPipeline<Outcome>(jobs: jobs, stretches: true) { [self] outcome in write(outcome) }
        writer.expectInputs(files)
        do {
            for (index, name) in files.enumerated() where !stopped(pipeline) { try read(name, index: index, into: pipeline) }
        } catch {
            pipeline.drain()
            throw error
        }
        pipeline.drain()
        pipeline.synchronized { writer.finish() }
        if let stopped = pipeline.synchronized({ writer.stopped }) { return stopped }
        Output.standardOutput.flush()
        let counts = pipeline.synchronized { writer.counts }
        global.verboseLine("messages: \(counts.decrypted) decrypted, \(counts.failed) failed in \(Clock.millisecondsSince(started)) ms")
        return pipeline.synchronized { writer.status.exitStatus }
    }

    /// Whether stdout failed (the run reads nothing more).
    private func stopped(_ pipeline: OrderedPipeline<Outcome>) -> Bool { pipeline.synchronized { writer.stopped != nil } }

    private func read(_ name: String, index: Int, into pipeline: OrderedPipeline<Outcome>) throws {
        pipeline.startDeferred()  // this input may be a pipe: reading it may block
        let input: InputFile
        var rows: MessageRows
        do {
            input = try InputFile(name)
            rows = try MessageRows(input, idColumn: writer.mode.idColumn, joinsWrapped: !writer.mode.inBand)
        } catch {
            pipeline.submit(result: .unreadable(source: name, error: error))
            return
        }
        inputLooksLikeYAML = false
        inputVaultUnread = false
        if let work = try otherKinds?(input, index, &rows) {
            // The progress line counts the whole input done: read to its end by the kind.
            writer.startInput(input.fd)
            if input.isRegularFile { _ = lseek(input.fd, 0, SEEK_END) }
            let made: [KindRecord]
            switch work {
            case .records(let records): made = records
            case .alone(let make):
                // Opened here once everything before it is written (its whole budget, its winner
                // first for the files after it).
                pipeline.drain()
                guard !stopped(pipeline) else { return }  // stdout failed meanwhile: no key derived
                made = try make()
            case .items(let items):
                // One record each, in input order; the winner of each goes first for those after it.
                for item in items where !stopped(pipeline) {
                    pipeline.submitDeferred({ [self, weak pipeline] threads, position in
                        guard let pipeline, !stopped(pipeline) else { return .otherKinds([]) }
                        return .otherKinds([item.make(threads, position)])
                    }, bytes: 2 * item.bytes, inOrder: item.inOrder)
                }
                return
            }
            let records = made
            if let stop = records.firstIndex(where: \.emptyChain), let hint = emptyChainHint {
                pipeline.submit(result: .otherKinds(Array(records[..<stop])))
                try stopForEmptyChain(pipeline, hint: hint)
            }
            pipeline.submit(result: .otherKinds(records))
            return
        }
        // --in-band and --id-column promise a record per row: control bytes or a NUL in the first
        // rows make a row fail, not the whole input (a raw RNCryptor message, which starts with
        // its version byte, is still said once: it is never rows).
        let rowsPromised = writer.mode.inBand || writer.mode.idColumn
        switch rows.kind {
        case .text: break
        case .rawForeign where rowsPromised, .binary where rowsPromised: break
        case .rawMessage:
            pipeline.submit(result: .rawMessage(source: name))
            return
        case .rawForeign(let hint):
            pipeline.submit(result: .binary(source: name, hint: FormatHint(hint)))
            return
        case .binary:
            pipeline.submit(result: .binary(source: name, hint: nil))
            return
        }
        writer.startInput(input.fd)
        // A regular file's next line is read at once, so its latest message can wait
        // for it; a pipe's next line may take a while, so its messages start at once.
        let queue: (@escaping OrderedPipeline<Outcome>.Work, Int) -> Void = input.isRegularFile
            ? { pipeline.submitDeferred($0, bytes: $1) } : { pipeline.submit($0, bytes: $1) }
        // Text mode: the rows that are no message are held until a message shows the input
        // holds messages; an input with none is said once (plain text, YAML with no !vault).
        var held = writer.mode.json || rowsPromised ? nil : NotMessages(looksLikeYAML: inputLooksLikeYAML, vaultUnread: inputVaultUnread)
        defer { if var holding = held { for outcome in holding.verdict(source: name) { pipeline.submit(result: outcome) } } }
        while !stopped(pipeline) {
            let row: MessageRows.Row?
            do { row = try rows.next() } catch {
                if var holding = held { for outcome in holding.release() { pipeline.submit(result: outcome) } }
                held = nil
                pipeline.submit(result: .unreadable(source: name, error: error))
                return
            }
            guard let row else { return }
            if var holding = held {
                held = nil
                switch row.content {
                case .failure(let failure, let hint) where holding.hold(row, failure: RowFailure(failure), hint: FormatHint(hint), source: name, input: index):
                    held = holding
                    continue
                case .skipped:
                    held = holding
                    continue
                default:
                    for outcome in holding.release() { pipeline.submit(result: outcome) }
                }
            }
            var place = RecordWriter.Place(input: index, source: name, line: row.line, id: row.id)
            let message: MessageRows.Message
            switch row.content {
            case .skipped, .continuation:
                // A record only under --in-band (other modes write nothing for these rows).
                if writer.mode.inBand { pipeline.submit(result: .skipped(place)) }
                continue
            case .failure(let failure, let hint):
                pipeline.submit(result: .message(place, .failure(RowFailure(failure)), hint: FormatHint(hint)))
                continue
            case .message(let parsed): message = parsed
            }
            // A legacy version without --allow-legacy: refused before any store or key is touched.
            if let refusal = decryption.refusal(of: message) {
                pipeline.submit(result: .message(place, .failure(.message(refusal)), hint: nil))
                continue
            }
            place.ciphertextOnly = !message.authenticatesHeader
            if message.isPasswordBased {
                // The previous message goes first (at --jobs 1 it runs here and now), so that the
                // password that opened it leads the chain this message gets.
                pipeline.startDeferred()
            }
            // One call for every message: the key's handler for a key-based one, the whole chain
            // (the store opened by the first message that needs it; failing to open it stops
            // the run, 69) for a password-based one.
            let attempt: Decryption.Attempt
            do { attempt = try pipeline.synchronized { try decryption.attempt(message) } } catch {
                pipeline.drain()
                Output.standardOutput.flush()
                if let error = error as? StoreError { throw CommandFailure(error) }  // --password-label's unknown label
                throw error
            }
            if let failure = attempt.failure {
                if attempt.chainIsEmpty, message.isPasswordBased, let hint = emptyChainHint { try stopForEmptyChain(pipeline, hint: hint) }
                pipeline.submit(result: .message(place, .failure(.message(failure)), hint: nil))
                continue
            }
            // The message and its plaintext stay until the result is written. Once stdout has
            // failed, the messages read ahead (up to 128 a job) are dropped without a key derived.
            queue({ [self, place, weak pipeline] threads, position in
                guard let pipeline, !stopped(pipeline) else { return .skipped(place) }
                // When no password opens it, on a terminal the person is asked once (`asker`).
                let result = attempt.open(threads: threads, position: position, naming: "\(place.source):\(place.line)")
                return .message(place, RowResult(result), hint: nil)
            }, 2 * message.bytes.count)
        }
    }

    /// SPEC "Nothing to try": what came before is written, then one line, and the run stops
    /// (never one `tried 0` line per message).
    private func stopForEmptyChain(_ pipeline: OrderedPipeline<Outcome>, hint: () -> String) throws -> Never {
        emptyChainHint = nil
        pipeline.drain()
        pipeline.synchronized { writer.finish(); writer.runLine(hint()) }
        Output.standardOutput.flush()
        throw CommandFailure.silent(emptyChainStatus)
    }

    /// Writes one outcome (called in input order, under the pipeline's lock).
    private func write(_ outcome: Outcome) {
        switch outcome {
        case .unreadable(let name, let error):
            writer.unreadable(name, error)
        case .rawMessage(let name):
            writer.rawMessage(name)
        case .binary(let name, let hint):
            writer.binary(name, hint: hint)
        case .otherKinds(let records):
            for record in records {
                for note in record.notes { global.verboseLine(note) }
                if let winner = record.winner { decryption.finished(openedBy: .password(winner)) }
                writer.message(record.place, record.result, hint: nil)
                for warning in record.warnings { writer.warning(warning) }
            }
        case .notMessages(let name, let what):
            writer.notMessages(name, what)
        case .skipped(let place):
            writer.skipped(place)
        case .message(let place, let result, let hint):
            if case .success(let decrypted) = result { decryption.finished(openedBy: decrypted.openedBy) }
            writer.message(place, result, hint: hint)
        }
    }
}
