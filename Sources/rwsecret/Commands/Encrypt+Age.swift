import ArgumentParser
import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `encrypt --format`: the kind of message written.
enum MessageFormat: String, ExpressibleByArgument, CaseIterable {
    case rncryptor
    case age
}

/// `encrypt --to`, `--to-file`, `--format age`: the whole input becomes one age file, to
/// recipients or under a password (scrypt). Line mode has no age form: an age message is a
/// whole file (as `age` writes it), and `decrypt` opens age files as whole files.
extension RWSecret.Encrypt {
    /// Whether this run writes an age file.
    var writesAge: Bool { format == .age || toRecipients }

    /// Whether recipients are given (`--to`, `--to-file`, `--to-self`).
    var toRecipients: Bool { !recipients.isEmpty || !recipientFiles.isEmpty || toSelf }

    /// The rules of the age options, checked before anything is read.
    func validateAge() throws {
        if format == .rncryptor && toRecipients {
            throw ValidationError("--to, --to-file and --to-self write age files: they cannot be combined with --format rncryptor")
        }
        if armor && !writesAge { throw ValidationError("--armor is for age files (--to, --to-file, --to-self or --format age)") }
        guard writesAge else { return }
        let passwordSources = [passwordLabel, passwordFile].compactMap { $0 }.count + (askPassword ? 1 : 0)
        if toRecipients && passwordSources > 0 {
            throw ValidationError("an age file is written to recipients or under a password, not both")
        }
        if keyFile != nil { throw ValidationError("--key-file makes RNCryptor messages: it cannot be combined with age files") }
        if iterations != nil { throw ValidationError("--iterations is for RNCryptor messages: age files use scrypt") }
    }

    /// Reads the whole input (one FILE or stdin) and writes one age file to stdout or `-o`.
    func encryptAge(_ global: Globals) throws -> ExitStatus {
        if files.count > 1 { throw ValidationError("an age file holds one input: give at most one FILE") }
        if !armor && output == nil && isatty(STDOUT_FILENO) == 1 {
            throw CommandFailure(.usage, "refusing to write a binary age file to a terminal: use --armor or -o FILE")
        }
        let encryptor = try makeAgeEncryptor(global)
        let name = files.first ?? "-"
        let input: InputFile
        do { input = try InputFile(name) } catch {
            throw CommandFailure(error.meansNoInput ? .noInput : .ioError, "\(Output.escaped(name)): \(error)")
        }
        let destination: OutputFile
        if let output, output != "-" {
            // Never over a file the run reads: the input, a --to-file, the password file.
            var target = stat()
            if stat(output, &target) == 0, let source = try? input.status(),
               (source.st_mode & S_IFMT) == S_IFREG, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is the input file")
            }
            var runFiles = RunFiles.of(global: global, keyFile: nil, passwordFiles: passwordFile.map { [$0] } ?? [])
            for path in recipientFiles where path != "-" { runFiles.add("a --to-file", path: path) }
            if let used = runFiles.conflict(with: output) {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is \(used)")
            }
            try OutputPath.checkWritable(output)
            do { destination = try OutputFile(replacing: output) } catch {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: \(error)")
            }
        } else {
            if StandardStreams.wasClosed(STDOUT_FILENO) { throw CommandFailure(.ioError, "stdout: \(Errno.badFileDescriptor) (stdout is closed)") }
            destination = OutputFile()
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        defer { SecretBytes.cleanse(&buffer) }
        // Which side failed: a write names OUT (or stdout), a read the input.
        var reading = false
        do {
            while true {
                reading = true
                let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
                reading = false
                if n == 0 { break }
                try encryptor.update(buffer[0..<n]).withUnsafeBytes { try destination.write($0) }
            }
            try encryptor.finalize().withUnsafeBytes { try destination.write($0) }
            try destination.commit()
        } catch let error as Errno {
            if error == .brokenPipe && (output == nil || output == "-") { return .success }
            let failed = reading ? name : output.map { $0 == "-" ? "stdout" : $0 } ?? "stdout"
            throw CommandFailure(.ioError, "\(Output.escaped(failed)): \(error)")
        }
        return .success
    }

    /// To the recipients given, or else under the run's one password (scrypt): the library's
    /// streaming age writer (`Age.Writer`).
    private func makeAgeEncryptor(_ global: Globals) throws -> Age.Writer {
        let parsed = try loadRecipients(global)
        if !parsed.isEmpty {
            do { return try Age.Writer(to: parsed, armor: armor) } catch {
                throw CommandFailure(.dataError, "\(error)")
            }
        }
        let password: SecretBytes
        if askPassword {
            // A new password for a file: asked twice, as age -p does.
            let first = try Terminal.readRunPassword()
            let second = try Terminal.readSecret(prompt: "Again: ")
            guard first.isEqual(to: second) else { throw CommandFailure(.dataError, "the two passwords differ; nothing was written") }
            password = first
        } else {
            guard case .password(let loaded) = try loadCredential(global) else {
                throw CommandFailure(.usage, "an age file needs recipients or a password")
            }
            password = loaded
        }
        return Age.Writer(passphrase: password, armor: armor)
    }

    /// `--to` values, then the recipients of each `--to-file`, then with `--to-self` those of
    /// the store's identities, in order.
    private func loadRecipients(_ global: Globals) throws -> [Age.Recipient] {
        var parsed: [Age.Recipient] = []
        for text in recipients {
            do { parsed.append(try Age.Recipient(text)) } catch {
                throw CommandFailure(.dataError, "--to \(Output.escaped(Self.shortened(text))): \(error)")
            }
        }
        for path in recipientFiles {
            let bytes = try readSmallFile(path, what: "recipients file", limit: 1 << 20)
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): not UTF-8 text")
            }
            var skipped: [(line: Int, type: String)] = []
            do { parsed += try Age.Recipient.parseFile(text, skipped: &skipped) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
            for (line, type) in skipped {
                Output.standardError.line("rwsecret: warning: \(Output.escaped(path)):\(line): \(Output.escaped(type)) keys are not age recipients: skipped (as age -R does)")
            }
        }
        if toSelf {
            let stored = try CommandFailure.identityErrors { try global.openIdentityStore().identities() }
            guard !stored.isEmpty else {
                throw CommandFailure(.dataError, "--to-self: the store holds no identity (make one: rwsecret identity new)")
            }
            for identity in stored {
                let recipient = try identity.ageRecipient()
                do { parsed.append(try Age.Recipient(recipient)) } catch { throw CommandFailure(.dataError, "\(error)") }
                global.verboseLine("--to-self: identity \(Output.escaped(identity.label)) (\(recipient))")
            }
        }
        return parsed
    }

    /// A recipient as an error names it: at most 24 characters (never a whole secret key
    /// given by mistake).
    static func shortened(_ text: String) -> String {
        if text.uppercased().hasPrefix("AGE-SECRET-KEY-") { return "AGE-SECRET-KEY-1…" }
        return text.count > 24 ? String(text.prefix(20)) + "…" : text
    }
}
