import ArgumentParser
import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

extension RWSecret {
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "encrypt",
            abstract: "Encrypt each input line into one base64 message line (stdin when no FILE or \"-\").",
            discussion: """
                The password comes from exactly one of --password-label, --password-file, \
                --ask-password or --key-file; with none of them, from $RWSECRET_PASSWORD. \
                Every message gets fresh random salts and IV. A line whose message would be over \
                decrypt's 1 MiB line limit (a plaintext line over 786,351 bytes) stops the run \
                (exit 1): use --binary for it. \
                With --to, --to-file or --to-self (or --format age) the whole input becomes one \
                age file for those recipients (or under the password, with scrypt), which age opens. \
                With --to-key the whole input becomes one OpenPGP message to those keys, which gpg, \
                sq and rnp open.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        @Argument(help: ArgumentHelp("Files of plaintext lines (\"-\" is stdin).", valueName: "file"), completion: .file())
        var files: [String] = []

        @Flag(help: "Turn the whole input (one FILE or stdin) into one raw message.")
        var binary = false

        @Option(name: .customShort("o"), help: ArgumentHelp("With --binary: write the message to this file (\"-\": stdout, even a terminal).", valueName: "out"), completion: .file())
        var output: String?

        @Option(help: ArgumentHelp("Encrypt under the stored password with this label.", valueName: "label"),
                completion: .custom(LabelCompletion.complete))
        var passwordLabel: String?

        @Option(help: ArgumentHelp("Encrypt under the one password in this file.", valueName: "file"), completion: .file())
        var passwordFile: String?

        @Flag(help: "Ask for the password twice, without echo (a mismatch asks again).")
        var askPassword = false

        @Option(help: ArgumentHelp("Make key-based messages with this key: 64 raw bytes or 128 hex characters.", valueName: "file"), completion: .file())
        var keyFile: String?

        // Unconditional: `--jobs -1` is a (bad) number, not a missing value.
        @Option(parsing: .unconditional, help: ArgumentHelp("Encrypt this many lines at once (default: $RWSECRET_JOBS, else the CPUs this process may run on); the output keeps the input's order.", valueName: "n"))
        var jobs: Int?

        @Option(help: ArgumentHelp("PBKDF2 iterations (default 10,000); only rwsecret and a few RNCryptor implementations open such messages.", valueName: "n"))
        var iterations: Int?

        @Option(name: .customLong("to"), help: ArgumentHelp("Write one age file to this recipient: age1..., or an ssh-ed25519 / ssh-rsa public key (repeatable).", valueName: "recipient"))
        var recipients: [String] = []

        @Option(name: .customLong("to-file"), help: ArgumentHelp("Write one age file to the recipients listed in this file (age's syntax: one a line, # comments; repeatable).", valueName: "file"),
                completion: .file())
        var recipientFiles: [String] = []

        @Flag(name: .customLong("to-self"), help: "Write one age file to every identity in the store (their recipients), so that this store opens it.")
        var toSelf = false

        @Option(name: .customLong("to-key"), help: ArgumentHelp("Write one OpenPGP message to the public key in this file (armored or binary; repeatable).", valueName: "file"),
                completion: .file())
        var keyRecipientFiles: [String] = []

        @Flag(help: "Write the age file or OpenPGP message as ASCII armor (-----BEGIN AGE ENCRYPTED FILE----- / -----BEGIN PGP MESSAGE-----).")
        var armor = false

        @Option(help: ArgumentHelp("rncryptor (the default) or age (with a password: an scrypt age file of the whole input).", valueName: "format"))
        var format: MessageFormat?

        func validate() throws {
            // Single-valued options: the parser would let a repeat's last value win.
            for name in ["--password-label", "--password-file", "--key-file", "--format"] where OptionOccurrences.count(name) > 1 {
                throw ValidationError("\(name) can be given only once")
            }
            let sources = [passwordLabel, passwordFile, keyFile].compactMap { $0 }.count + (askPassword ? 1 : 0)
            if sources > 1 {
                throw ValidationError("give the password one way only: --password-label, --password-file, --ask-password or --key-file")
            }
            try validateOpenPGP()
            if !writesOpenPGP { try validateAge() }
            if output != nil && !binary && !writesAge && !writesOpenPGP { throw ValidationError("-o needs --binary") }
            if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
            try validateIterations()
        }

        /// `--iterations`: in range, and only for passwords (key-based messages use no PBKDF2).
        private func validateIterations() throws {
            guard let iterations else { return }
            if !(1...Encryptor.maximumIterations).contains(iterations) {
                throw ValidationError("--iterations must be between 1 and \(Encryptor.maximumIterations)")
            }
            if given(keyFile) { throw ValidationError("--iterations cannot be combined with --key-file (key-based messages use no PBKDF2)") }
        }
        private func given(_ option: [String]) -> Bool { !option.isEmpty }
        private func given(_ option: String?) -> Bool { option != nil }

        enum Credential {
            case password(SecretBytes)
            case keys(MessageKeys)

            var isKeyBased: Bool { if case .keys = self { true } else { false } }
        }

        func run() throws {
            // Here, not in validate(): the parser reports an unknown option only after validate() passes.
            if binary && files.count > 1 { throw ValidationError("--binary makes one message: give at most one FILE") }
            let global = try self.global.merged(with: root.global)
            // The files the run uses: -o never replaces one.
            let runFiles = RunFiles.of(global: global, keyFile: keyFile, passwordFiles: passwordFile.map { [$0] } ?? [])
            // Before the password is asked: raw ciphertext would wreck the terminal (as decrypt --binary).
            if binary && output == nil && isatty(STDOUT_FILENO) == 1 {
                throw CommandFailure(.usage, "refusing to write raw ciphertext to a terminal: give -o FILE (or -o - to insist), or redirect stdout")
            }
            if writesOpenPGP { throw CommandFailure.silent(try encryptOpenPGP(global)) }
            if writesAge { throw CommandFailure.silent(try encryptAge(global)) }
            let credential = try loadCredential(global)
            if let iterations, iterations != Encryptor.defaultIterations, !global.quiet {
                Output.standardError.line("rwsecret: warning: --iterations \(iterations): only rwsecret (decrypt --iterations \(iterations)) and a few RNCryptor implementations read such messages")
            }
            if binary {
                throw CommandFailure.silent(try encryptBinary(file: files.first ?? "-", credential: credential, runFiles: runFiles, quiet: global.quiet))
            }
            let jobCount = try JobCount.resolve(option: jobs)
            global.verboseLine("jobs: \(jobCount.jobs) (\(jobCount.reason))")
            throw CommandFailure.silent(try encryptLines(files: files.isEmpty ? ["-"] : files, credential: credential,
                                                         jobs: jobCount.jobs, quiet: global.quiet))
        }

        /// The one password (or key) of the run, checked before anything is read.
        func loadCredential(_ global: Globals) throws -> Credential {
            let password: SecretBytes
            let name: String
            if let path = keyFile {
                return .keys(try KeyFile.load(path))
            } else if let path = passwordFile {
                let passwords = try RunPasswords.loadSecrets(file: path)
                guard passwords.count == 1 else {
                    throw CommandFailure(.dataError, "\(Output.escaped(path)): a password file for encrypt must hold exactly one password (it holds \(passwords.count))")
                }
                return .password(passwords[0].secret)
            } else if askPassword {
                password = try Terminal.readNewRunPassword()
                name = "prompt"
            } else if let label = passwordLabel {
                do { try PasswordLabel.validate(label) } catch { throw CommandFailure(error) }
                let store = try global.openStore()
                let stored: [StoredPassword]
                do throws(StoreError) { stored = try store.passwords() } catch { throw CommandFailure(error) }
                guard let match = stored.first(where: { $0.label == label }) else {
                    throw CommandFailure(.dataError, "no password labelled '\(Output.escaped(label))'")
                }
                password = match.secret
                name = "label \(label)"
            } else if let fromEnvironment = try RunPasswords.secretFromEnvironment() {
                return .password(fromEnvironment)
            } else {
                throw CommandFailure(.usage, "encrypt needs a password: --password-label, --password-file, --ask-password, --key-file or RWSECRET_PASSWORD")
            }
            try RunPasswords.check(password, name: name)
            return .password(password)
        }

        private func makeEncryptor(_ credential: Credential) -> Encryptor {
            switch credential {
            case .password(let password): try! Encryptor(password: password, iterations: iterations ?? Encryptor.defaultIterations)  // validate() checked the range
            case .keys(let keys): Encryptor(keys: keys)
            }
        }

        /// Each line (without its LF and a trailing CR; blank lines included) becomes one base64
        /// message line, in input order, on up to `--jobs` threads (each message's two key
        /// derivations are the work), with the progress line on a terminal.
        private func encryptLines(files: [String], credential: Credential, jobs: Int, quiet: Bool) throws -> ExitStatus {
            var status = RunStatus()
            let progress = quiet ? nil : ProgressLine(unit: .messages)
            progress?.expectInputs(files)
            defer { progress?.clear() }
            let run = EncryptRun(credential: credential, iterations: iterations ?? Encryptor.defaultIterations)
            let pipeline = OrderedPipeline<[UInt8]>(jobs: jobs) { line in
                guard !run.stopped else { return }
                Output.standardOutput.write(bytes: line)
                Output.standardOutput.write("\n")
                Output.standardOutput.flush()
                run.done += 1
                progress?.update(done: run.done)
                if Output.standardOutput.failed { run.stopped = true }
            }
            func stdoutFailure() throws -> ExitStatus? {
                pipeline.drain()
                guard Output.standardOutput.failed else { return nil }
                if Output.standardOutput.brokenPipe { return status.exitStatus }
                throw CommandFailure(.ioError, "stdout: \(Errno(rawValue: Output.standardOutput.errorCode))")
            }
            for name in files {
                let input: InputFile
                do { input = try InputFile(name) } catch {
                    pipeline.drain()
                    Output.standardError.line("rwsecret: \(Output.escaped(name)): \(error)")
                    status.record(error.meansMissingInput ? .noInput : .ioError)
                    continue
                }
                progress?.startInput(input.fd)
                // What encrypt writes, decrypt reads: a line whose message line would be over
                // decrypt's limit is refused (its bytes are dropped as they are read, as decrypt does).
                let longest = Self.longestLine(keyBased: credential.isKeyBased)
                var lines = LineReader(input, maximumLength: longest + 1)
                do {
                    while !pipeline.synchronized({ run.stopped }), let line = try lines.next() {
                        var bytes: [UInt8]
                        switch line {
                        case .text(let text): bytes = text
                        case .tooLong: bytes = []
                        }
                        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
                        if case .tooLong = line { bytes = [UInt8](repeating: 0, count: longest + 1) }
                        if bytes.count > longest {
                            SecretBytes.cleanse(&bytes)
                            if let stopped = try stdoutFailure() { return stopped }
                            return Self.refuseLongLine(name, lines.lineNumber, longest)
                        }
                        let plaintext = PlaintextBox(bytes)
                        SecretBytes.cleanse(&bytes)
                        pipeline.submit { _, _ in run.encrypt(plaintext) }
                    }
                } catch let error as Errno {
                    pipeline.drain()
                    Output.standardError.line("rwsecret: \(Output.escaped(name)): \(error)")
                    status.record(.ioError)
                }
                if let stopped = try stdoutFailure() { return stopped }
            }
            return status.exitStatus
        }

        /// The longest plaintext line whose base64 message line fits decrypt's line limit
        /// (header, one more block of padding, HMAC; base64 makes 4 characters of 3 bytes).
        static func longestLine(keyBased: Bool) -> Int {
            // RNCryptor v3's headers: version, options, [two 8-byte salts,] a 16-byte IV.
            let header = keyBased ? 18 : 34
            let bytes = LineReader.defaultMaximumLength / 4 * 3 - header - 32  // ciphertext room
            return bytes / 16 * 16 - 1
        }

        /// Stops the run at a line too long for decrypt: said with the limit and what to do (1).
        private static func refuseLongLine(_ name: String, _ line: Int, _ longest: Int) -> ExitStatus {
            Output.standardOutput.flush()
            Output.standardError.line("""
                rwsecret: \(Output.escaped(name)):\(line): line too long: its message would be over decrypt's line limit \
                (1 MiB of base64, a plaintext line of at most \(longest) bytes); encrypt it with --binary (one raw message, \
                any size; decrypt --binary opens it); nothing after this line was encrypted
                """)
            return .failure
        }

        /// The whole input becomes one raw message, streamed.
        private func encryptBinary(file name: String, credential: Credential, runFiles: RunFiles, quiet: Bool) throws -> ExitStatus {
            let input: InputFile
            do { input = try InputFile(name) } catch {
                throw CommandFailure(error.meansMissingInput ? .noInput : .ioError, "\(name): \(error)")
            }
            let destination: OutputFile
            // OUT that is the input would be replaced by its own encryption (decrypt refuses it too).
            var target = stat()
            if let output, output != "-", stat(output, &target) == 0, let source = try? input.status(),
               (source.st_mode & S_IFMT) == S_IFREG, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is the input file")
            }
            if let output, output != "-", !(StandardStreams.wasClosed(STDOUT_FILENO) && StandardStreams.namesStandardOutput(output)) {
                // Never over the key, password file or vault the run uses (it would be lost).
                if let used = runFiles.conflict(with: output) {
                    throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is \(used)")
                }
                try OutputPath.checkWritable(output)
                do { destination = try OutputFile(replacing: output) } catch {
                    throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(OutputPath.createFailure(output, error))")
                }
            } else {
                // A stdout closed at start holds /dev/null: the message would vanish with exit 0.
                if StandardStreams.wasClosed(STDOUT_FILENO) { throw CommandFailure(.ioError, "-: stdout is closed") }
                destination = OutputFile()
            }
            let encryptor = makeEncryptor(credential)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            defer { SecretBytes.cleanse(&buffer) }
            // The progress line: bytes read of the input's size (when it is a regular file).
            let progress = quiet ? nil : ProgressLine(unit: .bytes)
            defer { progress?.clear() }
            let size = (try? input.status()).flatMap { ($0.st_mode & S_IFMT) == S_IFREG ? Int64($0.st_size) : nil }
            var read: Int64 = 0
            do {
                while true {
                    let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
                    if n == 0 { break }
                    read += Int64(n)
                    progress?.update(bytesDone: read, total: size)
                    try encryptor.update(buffer[0..<n]).withUnsafeBytes { try destination.write($0) }
                }
                try encryptor.finalize().withUnsafeBytes { try destination.write($0) }
                try destination.commit()
            } catch let error as Errno {
                if error.rawValue == EPIPE && (output == nil || output == "-") { Output.stdoutReaderGone = true; return .success }
                // stdout is named so: `-` names stdin (SPEC "Output").
                throw CommandFailure(.ioError, "\(output.map { $0 == "-" ? "stdout" : Output.escaped($0) } ?? "stdout"): \(error)")
            }
            return .success
        }
    }
}

/// What the threads of one `encrypt` run share: the credential (read only) and, under the
/// pipeline's lock, how many lines are written and whether stdout failed.
private final class EncryptRun: @unchecked Sendable {
    private let credential: RWSecret.Encrypt.Credential
    private let iterations: Int
    var done = 0
    var stopped = false

    init(credential: RWSecret.Encrypt.Credential, iterations: Int) {
        self.credential = credential
        self.iterations = iterations
    }

    /// One line's base64 message (the plaintext is wiped once encrypted).
    func encrypt(_ plaintext: PlaintextBox) -> [UInt8] {
        let encryptor: Encryptor
        switch credential {
        case .password(let password): encryptor = try! Encryptor(password: password, iterations: iterations)  // validate() checked the range
        case .keys(let keys): encryptor = Encryptor(keys: keys)
        }
        let message = encryptor.update(plaintext.bytes) + encryptor.finalize()
        plaintext.wipe()
        return Array(RNCryptor.Base64.encode(message).utf8)
    }
}

/// A line's plaintext, handed to a worker thread and wiped there.
private final class PlaintextBox: @unchecked Sendable {
    private(set) var bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    func wipe() { SecretBytes.cleanse(&bytes) }
    deinit { SecretBytes.cleanse(&bytes) }
}
