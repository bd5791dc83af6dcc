import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// One `rwsecret decrypt` run over text input: lines in, results out in input order.
final class DecryptSession: @unchecked Sendable {
    // `client` and `status` are used under the pipeline's lock once work runs on other threads.
    let client: PasswordClient
    let keys: MessageKeys?
    let json: Bool
    let global: GlobalOptions
    let jobs: Int
    private var status = RunStatus()
    private var counts = (decrypted: 0, failed: 0)
    private let progress: ProgressLine?
    /// Set by the command: the run-level line for an empty chain (said once, then cleared).
    var emptyChainHint: (() -> String)?

    init(client: PasswordClient, keys: MessageKeys?, json: Bool, global: GlobalOptions, jobs: Int) {
        self.client = client
        self.keys = keys
        self.json = json
        self.global = global
        self.jobs = max(1, jobs)
        progress = global.quiet ? nil : ProgressLine(unit: .messages)
    }

    /// What the pipeline delivers, in input order.
    enum Outcome {
        /// What became of one line.
        case message(source: String, line: Int, result: Result<Decrypted, DecryptionFailure>)
        /// An input that could not be opened, or read to its end.
        case unreadable(source: String, error: SystemError)
    }

    /// Decrypts every message of `files` (`-` is stdin); returns the run's exit status.
    func run(files: [String]) throws -> ExitStatus {
        let started = Clock.now
        global.verboseLine("jobs: \(jobs)")
        let pipeline = OrderedPipeline<Outcome>(jobs: jobs) { [self] outcome in write(outcome) }
        progress?.expectInputs(files)
        do {
            for name in files { try read(name, into: pipeline) }
        } catch {
            pipeline.drain()
            throw error
        }
        pipeline.drain()
        progress?.clear()
        Output.standardOutput.flush()
        global.verboseLine("messages: \(counts.decrypted) decrypted, \(counts.failed) failed in \(Clock.millisecondsSince(started)) ms")
        return pipeline.synchronized { status.exitStatus }
    }

    private func read(_ name: String, into pipeline: OrderedPipeline<Outcome>) throws {
        pipeline.startDeferred()  // this input may be a pipe: reading it may block
        let input: InputFile
        do { input = try InputFile(name) } catch {
            pipeline.submit(result: .unreadable(source: name, error: error))
            return
        }
        progress?.startInput(input.fd)
        // A regular file's next line is read at once, so its latest message can wait
        // for it; a pipe's next line may take a while, so its messages start at once.
        let queue = input.isRegularFile ? pipeline.submitDeferred : pipeline.submit(_:)
        var lines = LineReader(input)
        while true {
            let line: LineReader.Line?
            do { line = try lines.next() } catch {
                pipeline.submit(result: .unreadable(source: name, error: error as? SystemError ?? SystemError(code: EIO)))
                return
            }
            guard let line else { return }
            let number = lines.lineNumber
            let message: Message
            switch Self.parse(line) {
            case .skip: continue
            case .failure(let failure):
                pipeline.submit(result: .message(source: name, line: number, result: .failure(failure)))
                continue
            case .message(let parsed): message = parsed
            }
            if !message.header.isPasswordBased {
                let keys = self.keys
                queue { _ in .message(source: name, line: number, result: Self.decrypt(message, keys: keys)) }
                continue
            }
            // The previous message goes first (at --jobs 1 it runs here and now), so that the
            // password that opened it leads the chain this message gets.
            pipeline.startDeferred()
            // The store is opened by the first message that needs it; failing to open it stops the run (69).
            let head: DecryptionHandler?
            do { head = try pipeline.synchronized { try client.chainHead() } } catch {
                pipeline.drain()
                Output.standardOutput.flush()
                throw error
            }
            guard let head else {
                if let hint = emptyChainHint {
                    emptyChainHint = nil
                    pipeline.synchronized { Output.standardError.line("rwsecret: " + hint()) }
                }
                pipeline.submit(result: .message(source: name, line: number, result: .failure(.noPasswordOpened(tried: 0))))
                continue
            }
            queue { threads in .message(source: name, line: number, result: head.handle(message, parallelism: threads)) }
        }
    }

    private enum Parsed { case skip, failure(DecryptionFailure), message(Message) }

    /// Trims, skips blank and `#` lines, decodes base64 and checks the message's structure.
    private static func parse(_ line: LineReader.Line) -> Parsed {
        guard case .text(let bytes) = line else { return .failure(.lineTooLong) }
        let isBlank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") }
        guard let first = bytes.firstIndex(where: { !isBlank($0) }) else { return .skip }
        let last = bytes.lastIndex(where: { !isBlank($0) })!
        let text = bytes[first...last]
        if text.first == UInt8(ascii: "#") { return .skip }
        guard let raw = Base64.decodeLenient(text) else { return .failure(.badBase64) }
        do { return .message(try Message(raw)) } catch { return .failure(.format(error)) }
    }

    private static func decrypt(_ message: Message, keys: MessageKeys?) -> Result<Decrypted, DecryptionFailure> {
        guard let keys else { return .failure(.needsKey) }
        do throws(RNCryptorError) {
            return .success(Decrypted(plaintext: try message.decrypt(keys: keys), password: ChainPassword.keyFile))
        } catch .hmacMismatch {
            return .failure(.keyDidNotOpen)
        } catch {
            return .failure(error == .badPadding ? .badPadding : .format(error))
        }
    }

    /// Writes one outcome (called in input order, under the pipeline's lock).
    private func write(_ outcome: Outcome) {
        let source: String, line: Int, result: Result<Decrypted, DecryptionFailure>
        switch outcome {
        case .unreadable(let name, let error):
            Output.standardOutput.flush()
            progress?.clear()
            Output.standardError.line("rwsecret: \(name): \(error)")
            status.record(error.isMissingInput ? .noInput : .ioError)
            return
        case .message(let name, let number, let outcome):
            (source, line, result) = (name, number, outcome)
        }
        switch result {
        case .success(let decrypted):
            counts.decrypted += 1
            if decrypted.password.name != ChainPassword.keyFile.name { client.messageFinished(openedBy: decrypted.password) }
            var plaintext = decrypted.plaintext
            defer { Crypto.cleanse(&plaintext) }
            if json {
                let text = String(validating: plaintext, as: UTF8.self)
                Output.standardOutput.line(JSON.object([
                    ("source", .string(source)), ("line", .int(line)), ("status", .string("decrypted")),
                    text.map { ("plaintext", .string($0)) } ?? ("plaintext_base64", .string(Base64.encode(plaintext))),
                    ("password", .string(decrypted.password.name)),
                ]))
            } else {
                Output.standardOutput.write(bytes: plaintext)
                Output.standardOutput.write("\n")
            }
            Output.standardOutput.flush()
        case .failure(let failure):
            counts.failed += 1
            status.record(.failure)
            if json {
                Output.standardOutput.line(JSON.object([
                    ("source", .string(source)), ("line", .int(line)),
                    ("status", .string("failed")), ("error", .string(failure.description)),
                ]))
                Output.standardOutput.flush()
            } else {
                Output.standardOutput.flush()
                progress?.clear()
                Output.standardError.line("rwsecret: \(source):\(line): \(failure)")
            }
        }
        progress?.update(done: counts.decrypted + counts.failed)
        if Output.standardOutput.failed { stdoutFailed() }
    }

    /// The reader closed stdout (quietly ends the run, like other filters) or writing failed (74).
    private func stdoutFailed() -> Never {
        if Output.standardOutput.brokenPipe { exit(status.exitStatus.rawValue) }
        Output.standardError.line("rwsecret: stdout: \(SystemError(code: Output.standardOutput.errorCode))")
        exit(ExitStatus.ioError.rawValue)
    }
}

extension ChainPassword {
    /// The name JSON output gives a message opened with `--key-file`.
    static let keyFile = ChainPassword(name: "key-file", secret: SecretBytes([]))
}
