import ArgumentParser
import RWSecretKit
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
                Every message gets fresh random salts and IV.
                """
        )

        @OptionGroup var global: GlobalOptions
        @ParentCommand var root: RWSecret

        @Argument(help: ArgumentHelp("Files of plaintext lines (\"-\" is stdin).", valueName: "file"), completion: .file())
        var files: [String] = []

        @Flag(help: "Turn the whole input (one FILE or stdin) into one raw message.")
        var binary = false

        @Option(name: .customShort("o"), help: ArgumentHelp("With --binary: write the message to this file.", valueName: "out"), completion: .file())
        var output: String?

        @Option(help: ArgumentHelp("Encrypt under the stored password with this label.", valueName: "label"),
                completion: .custom(LabelCompletion.complete))
        var passwordLabel: String?

        @Option(help: ArgumentHelp("Encrypt under the one password in this file.", valueName: "file"), completion: .file())
        var passwordFile: String?

        @Flag(help: "Ask for the password, without echo.")
        var askPassword = false

        @Option(help: ArgumentHelp("Make key-based messages with this key: 64 raw bytes or 128 hex characters.", valueName: "file"), completion: .file())
        var keyFile: String?

        @Option(help: ArgumentHelp("PBKDF2 iterations (default 10,000); only rwsecret and a few RNCryptor implementations open such messages.", valueName: "n"))
        var iterations: Int?

        func validate() throws {
            // Single-valued options: the parser would let a repeat's last value win.
            for name in ["--password-label", "--password-file", "--key-file"] where OptionOccurrences.count(name) > 1 {
                throw ValidationError("\(name) can be given only once")
            }
            let sources = [passwordLabel, passwordFile, keyFile].compactMap { $0 }.count + (askPassword ? 1 : 0)
            if sources > 1 {
                throw ValidationError("give the password one way only: --password-label, --password-file, --ask-password or --key-file")
            }
            if output != nil && !binary { throw ValidationError("-o needs --binary") }
            try validateIterations()
        }

        /// `--iterations`: in range, and only for passwords (key-based messages use no PBKDF2).
        private func validateIterations() throws {
            guard let iterations else { return }
            if !(1...KeyDerivation.maximumIterations).contains(iterations) {
                throw ValidationError("--iterations must be between 1 and \(KeyDerivation.maximumIterations)")
            }
            if given(keyFile) { throw ValidationError("--iterations cannot be combined with --key-file (key-based messages use no PBKDF2)") }
        }
        private func given(_ option: [String]) -> Bool { !option.isEmpty }
        private func given(_ option: String?) -> Bool { option != nil }

        private enum Credential {
            case password(SecretBytes)
            case keys(MessageKeys)
        }

        func run() throws {
            // Here, not in validate(): the parser reports an unknown option only after validate() passes.
            if binary && files.count > 1 { throw ValidationError("--binary makes one message: give at most one FILE") }
            let global = try self.global.merged(with: root.global)
            let credential = try loadCredential(global)
            if let iterations, iterations != KeyDerivation.iterations, !global.quiet {
                Output.standardError.line("rwsecret: warning: --iterations \(iterations): only rwsecret (decrypt --iterations \(iterations)) and a few RNCryptor implementations read such messages")
            }
            if binary {
                throw CommandFailure.silent(try encryptBinary(file: files.first ?? "-", credential: credential))
            }
            throw CommandFailure.silent(try encryptLines(files: files.isEmpty ? ["-"] : files, credential: credential))
        }

        /// The one password (or key) of the run, checked before anything is read.
        private func loadCredential(_ global: GlobalOptions) throws -> Credential {
            let password: SecretBytes
            let name: String
            if let path = keyFile {
                return .keys(try KeyFile.load(path))
            } else if let path = passwordFile {
                let passwords = try RunPasswords.load(file: path)
                guard passwords.count == 1 else {
                    throw CommandFailure(.dataError, "\(Output.escaped(path)): a password file for encrypt must hold exactly one password (it holds \(passwords.count))")
                }
                return .password(passwords[0].secret)
            } else if askPassword {
                password = try Terminal.readRunPassword()
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
            } else if let fromEnvironment = try RunPasswords.fromEnvironment() {
                return .password(fromEnvironment.secret)
            } else {
                throw CommandFailure(.usage, "encrypt needs a password: --password-label, --password-file, --ask-password, --key-file or RWSECRET_PASSWORD")
            }
            try RunPasswords.check(password, name: name)
            return .password(password)
        }

        private func makeEncryptor(_ credential: Credential) -> Encryptor {
            switch credential {
            case .password(let password): try! Encryptor(password: password, iterations: iterations ?? KeyDerivation.iterations)  // validate() checked the range
            case .keys(let keys): Encryptor(keys: keys)
            }
        }

        /// Each line (without its LF and a trailing CR; blank lines included) becomes one base64 message line.
        private func encryptLines(files: [String], credential: Credential) throws -> ExitStatus {
            var status = RunStatus()
            for name in files {
                let input: InputFile
                do { input = try InputFile(name) } catch {
                    Output.standardError.line("rwsecret: \(Output.escaped(name)): \(error)")
                    status.record(error.isMissingInput ? .noInput : .ioError)
                    continue
                }
                var lines = LineReader(input, maximumLength: .max)
                do {
                    while let line = try lines.next() {
                        guard case .text(var bytes) = line else { continue }
                        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
                        let encryptor = makeEncryptor(credential)
                        let message = encryptor.update(bytes) + encryptor.finalize()
                        Crypto.cleanse(&bytes)
                        Output.standardOutput.line(Base64.encode(message))
                        Output.standardOutput.flush()
                        if Output.standardOutput.failed {
                            if Output.standardOutput.brokenPipe { return status.exitStatus }
                            throw CommandFailure(.ioError, "stdout: \(SystemError(code: Output.standardOutput.errorCode))")
                        }
                    }
                } catch let error as SystemError {
                    Output.standardError.line("rwsecret: \(Output.escaped(name)): \(error)")
                    status.record(.ioError)
                }
            }
            return status.exitStatus
        }

        /// The whole input becomes one raw message, streamed.
        private func encryptBinary(file name: String, credential: Credential) throws -> ExitStatus {
            let input: InputFile
            do { input = try InputFile(name) } catch {
                throw CommandFailure(error.isMissingInput ? .noInput : .ioError, "\(name): \(error)")
            }
            let destination: OutputFile
            if let output {
                do { destination = try OutputFile(replacing: output) } catch {
                    throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: \(error)")
                }
            } else {
                destination = OutputFile()
            }
            let encryptor = makeEncryptor(credential)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            defer { Crypto.cleanse(&buffer) }
            do {
                while true {
                    let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
                    if n == 0 { break }
                    try encryptor.update(buffer[0..<n]).withUnsafeBytes { try destination.write($0) }
                }
                try encryptor.finalize().withUnsafeBytes { try destination.write($0) }
                try destination.commit()
            } catch let error as SystemError {
                throw CommandFailure(.ioError, "\(Output.escaped(output ?? "-")): \(error)")
            }
            return .success
        }
    }
}
