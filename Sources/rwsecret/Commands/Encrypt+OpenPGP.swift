import ArgumentParser
import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `encrypt --to-key FILE`: the whole input becomes one OpenPGP message to the keys in the
/// files (armored or binary public keys, or the public part of a secret key): v4 keys get
/// PKESK v3 and SEIPD v1 (AES-256 with the MDC, which gpg 2.2 reads), v6 keys PKESK v6 and
/// SEIPD v2 (AES-256 OCB). One literal data packet ('b', the input file's name, its date), not
/// compressed.
extension RWSecret.Encrypt {
    /// Whether this run writes an OpenPGP message.
    var writesOpenPGP: Bool { !keyRecipientFiles.isEmpty }

    /// The rules of `--to-key`, checked before anything is read.
    func validateOpenPGP() throws {
        guard writesOpenPGP else { return }
        if toRecipients || format == .age { throw ValidationError("--to-key writes an OpenPGP message: it cannot be combined with age recipients or --format age") }
        if format == .rncryptor { throw ValidationError("--to-key writes an OpenPGP message: it cannot be combined with --format rncryptor") }
        let passwordSources = [passwordLabel, passwordFile, keyFile].compactMap { $0 }.count + (askPassword ? 1 : 0)
        if passwordSources > 0 { throw ValidationError("--to-key encrypts to public keys: it cannot be combined with a password or --key-file") }
        if iterations != nil { throw ValidationError("--iterations is for RNCryptor messages") }
    }

    /// Reads the whole input (one FILE or stdin) and writes one OpenPGP message to stdout or `-o`.
    func encryptOpenPGP(_ global: Globals) throws -> ExitStatus {
        if files.count > 1 { throw ValidationError("an OpenPGP message holds one input: give at most one FILE") }
        if !armor && output == nil && isatty(STDOUT_FILENO) == 1 {
            throw CommandFailure(.usage, "refusing to write a binary OpenPGP message to a terminal: use --armor or -o FILE")
        }
        let now = UInt64(max(0, time(nil)))
        var recipients: [OpenPGP.Recipient] = []
        for path in keyRecipientFiles {
            let bytes = try readSmallFile(path, what: "key file", limit: 16 << 20)
            let keys: [OpenPGP.Certificate]
            // Public keys only: a secret key's secret fields are not read (nor asked for).
            do { keys = try OpenPGP.Certificate.parse(bytes) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
            for key in keys {
                do { recipients.append(try OpenPGP.Recipient(key, now: now)) } catch {
                    throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
                }
                global.verboseLine("--to-key: \(key) (encryption key \(recipients.last!.keyFingerprint), v\(recipients.last!.version))")
            }
        }
        let name = files.first ?? "-"
        let input: InputFile
        do { input = try InputFile(name) } catch {
            throw CommandFailure(error.meansMissingInput ? .noInput : .ioError, "\(Output.escaped(name)): \(error)")
        }
        // The literal packet: the input's base name (none for stdin) and the time of writing.
        let fileName = name == "-" ? [] : Array((name.split(separator: "/").last.map(String.init) ?? "").utf8)
        let writer: OpenPGP.Writer
        do { writer = try OpenPGP.Writer(to: recipients, armor: armor, fileName: fileName, date: UInt32(truncatingIfNeeded: now)) } catch {
            throw CommandFailure(.dataError, "\(error)")
        }
        let destination: OutputFile
        // OUT that is the input would be replaced by its own encryption.
        var target = stat()
        if let output, output != "-", stat(output, &target) == 0, let source = try? input.status(),
           (source.st_mode & S_IFMT) == S_IFREG, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
            throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is the input file")
        }
        // Never over a key file, the vault or its locks (as encrypt --binary).
        var runFiles = RunFiles.of(global: global, keyFile: nil, passwordFiles: [])
        for path in keyRecipientFiles { runFiles.add("a --to-key file", path: path) }
        if let output, output != "-", let used = runFiles.conflict(with: output) {
            throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): cannot create: it is \(used)")
        }
        if let output, output != "-" {
            do { destination = try OutputFile(replacing: output) } catch {
                throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(OutputPath.createFailure(output, error))")
            }
        } else {
            if StandardStreams.wasClosed(STDOUT_FILENO) { throw CommandFailure(.ioError, "-: stdout is closed") }
            destination = OutputFile()
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        defer { SecretBytes.cleanse(&buffer) }
        do {
            while true {
                let n = try buffer.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
                if n == 0 { break }
                try writer.update(buffer[0..<n]).withUnsafeBytes { try destination.write($0) }
            }
            try writer.finalize().withUnsafeBytes { try destination.write($0) }
            try destination.commit()
        } catch let error as Errno {
            if error.rawValue == EPIPE && (output == nil || output == "-") { return .success }
            throw CommandFailure(.ioError, "\(output.map { $0 == "-" ? "stdout" : Output.escaped($0) } ?? "stdout"): \(error)")
        }
        return .success
    }
}
