import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// `decrypt --binary`: one raw message of any size through the library's
/// `VerifiedStream`, which releases no byte before the HMAC verifies. This
/// type only picks the destination, and words the outcome.
struct BinaryDecryption {
    let session: DecryptSession
    /// `-o`: nil or `-` is stdout.
    let output: String?
    /// `-o` without `--binary`: an input of base64 lines is bad usage (64), not a failed message.
    var linesRefused = false
    /// The other files the run uses (vault, locks, key and password files): never OUT.
    var runFiles = RunFiles()
    /// The identities for age messages: the store's and `--identity` files'.
    var identities = IdentityChain(files: [])

    /// What a regular input that is no raw RNCryptor message is, when it is text that says
    /// so (a YAML file of `!vault` values, prose): better than "unknown version 97".
    static func notRNCryptor(_ input: InputFile) -> String? {
        var head = [UInt8](repeating: 0, count: 32)
        let got = head.withUnsafeMutableBytes { pread(input.fd, $0.baseAddress!, $0.count, 0) }
        if got > 0, KindRegistry.isDamagedAgeFirstLine(head[..<got]) {
            return "an age file whose first line is damaged (age-encryption.org/v1 expected)"
        }
        guard input.isRegularFile, let size = try? input.status().st_size, size <= KindDecryption.yamlLimit else { return nil }
        var text = [UInt8](repeating: 0, count: Int(size))
        let n = text.withUnsafeMutableBytes { pread(input.fd, $0.baseAddress!, $0.count, 0) }
        guard n == Int(size), MessageRows.kind(of: text.prefix(1 << 16)) == .text else { return nil }
        if Decryption.WholeMessage.mayBeYAML(text) {
            return Decryption.WholeMessage.vaultValues(inYAML: text).isEmpty
                ? NotAMessage.yamlWithoutVault.description
                : "a YAML file with `!vault` values: they open without --binary, one record each"
        }
        return "text, not a raw message: drop --binary (base64 messages are read one per line)"
    }

    /// The input's first `detectionLength` bytes (fewer at its end) for the registry, and those
    /// of them taken from the input (a stream's; none of a regular file's, read with pread).
    static func firstBytes(_ input: InputFile) throws(Errno) -> (head: [UInt8], taken: [UInt8]) {
        var head = [UInt8](repeating: 0, count: KindDecryption.lookLength)
        var done = 0
        if input.isRegularFile {
            while done < head.count {
                let n = try retryingEINTR { head.withUnsafeMutableBytes { pread(input.fd, $0.baseAddress! + done, $0.count - done, off_t(done)) } }
                if n == 0 { break }
                done += n
            }
            return (Array(head[..<done]), [])
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: head.count, alignment: 1)
        defer { buffer.deallocate() }
        while done < head.count {
            let n = try input.read(into: buffer.baseAddress! + done, count: head.count - done)
            if n == 0 { break }
            done += n
        }
        head = Array(buffer[..<done])
        let taken = Array(head[..<done])
        return (taken, taken)
    }

    /// Refuses what must be refused before anything is read: raw plaintext to a
    /// terminal (no `-o`) or to a stdout closed at start; an OUT that is the input,
    /// another file the run uses, a folder, a link, FIFO or file planted by another
    /// user in a sticky world-writable folder, or on a filesystem without `O_TMPFILE`.
    func run(file name: String) throws -> ExitStatus {
        let shown = name == "-" ? "-" : name
        let input: InputFile
        do { input = try InputFile(name) } catch {
            return report(shown, "\(error)", error.meansNoInput ? .noInput : .ioError)
        }
        let destination: VerifiedStream.Destination
        switch try self.destination(input: input) {
        case .chosen(let chosen): destination = chosen
        case .refused(let status): return status
        }
        // A plaintext file is made private (0600): replacing a file of another mode says so.
        let replacedMode = Self.replacedMode(output)
        defer { if let replacedMode, Self.replacedMode(output) == nil { Self.sayModeChanged(output!, from: replacedMode) } }
        // A regular input that changes while it is read fails, whatever kind it holds.
        let before = input.isRegularFile ? try? input.status() : nil
        var stream = VerifiedStream(jobs: session.jobs)
        let progress = session.global.quiet ? nil : ProgressLine(unit: .bytes)
        stream.progress = progress.map { progress in { done, total in progress.update(bytesDone: Int64(done), total: total.map(Int64.init)) } }
        defer { progress?.clear() }
        // The registry says what the input is, from its first bytes: a regular file's read with
        // pread (its offset stays at 0), a stream's read here and handed on, never read twice.
        let read: (head: [UInt8], taken: [UInt8])
        do { read = try Self.firstBytes(input) } catch { return report(shown, "\(error)", .ioError) }
        if KindRegistry.isOtherKind(read.head[...]) {
            // The progress line goes on over the kind's reads.
            let total = input.isRegularFile ? (try? input.status()).map { Int64($0.st_size) } : nil
            let counted = progress.map { progress in { (done: Int) in progress.update(bytesDone: Int64(done), total: total) } }
            // A regular file is read with pread from its start (again for a password asked for on a
            // terminal), and fails if it changes while it is read; a stream goes on after its first bytes.
            let message: Decryption.WholeMessage?
            if input.isRegularFile {
                message = Decryption.WholeMessage(file: FileDescriptor(rawValue: input.fd), progress: counted, failsIfChanged: before != nil)
            } else {
                var done = read.taken.count
                message = Decryption.WholeMessage(prefix: read.taken, read: { buffer throws(Errno) in
                    let n = try input.read(into: buffer.baseAddress!, count: buffer.count)
                    done += n
                    counted?(done)
                    return n
                })
            }
            guard let message else { return report(shown, KindDecryption.openPGPHint, .failure) }
            return try KindDecryption(session: session, identities: identities)
                .run(message, source: shown, destination: destination, outputName: output ?? "-")
        }
        // On a terminal, a message no password opened is tried once more with the password the
        // person is asked for (AskWhenNothingOpens), read again from the start: a regular file only
        // (the registry read its first bytes with pread, so its offset is still the start).
        let start = input.isRegularFile ? lseek(input.fd, 0, SEEK_CUR) : -1
        var tried: (any DecryptionHandler)?, asked: (any DecryptionHandler)?
        var notOpened: DecryptionFailure?
        while true {
            do {
                let client = session.client
                let opened = try stream.decrypt(input: input.fd, read: asked == nil ? read.taken : [], legacyFormats: client.legacyFormats, chain: { header in
                    if let asked { return asked }
                    tried = try client.chainHead(for: header)
                    return tried
                }, to: destination)
                session.global.verboseLine("opened by: \(Output.escaped(opened.openedBy.words))")
                return .success
            } catch {
                progress?.clear()
                if case .notOpened(let failure) = error, notOpened == nil, start >= 0, AskWhenNothingOpens.isNoPasswordOpened(failure),
                   let handler = session.decryption.askedHandler(after: shown, chain: tried), lseek(input.fd, start, SEEK_SET) == start {
                    notOpened = failure
                    asked = handler
                    continue
                }
                switch error {
                case .chainUnavailable(let error as StoreError): throw CommandFailure(error)
                case .chainUnavailable(let error): throw error
                case .notAHeader(let read, _) where KindRegistry.isOtherKind(read[...]):
                    // Not reached: the registry sent another kind's input on above.
                    return report(shown, KindDecryption.openPGPHint, .failure)
                case .notAHeader(let read, _) where KindRegistry.looksLikeBase64Text(Array(read.prefix(64))):
                    if linesRefused {
                        throw CommandFailure(.usage, "-o writes one whole message (an age, OpenPGP or Ansible Vault file, or a raw RNCryptor message with --binary): \(Output.escaped(shown)) holds lines; redirect stdout instead")
                    }
                    return report(shown, "base64 text, not a raw message (drop --binary)", .failure)
                case .notAHeader(_, let error), .format(let error):
                    if let what = Self.notRNCryptor(input) { return report(shown, what, .failure) }
                    return report(shown, error.words, .failure)
                // The asked password failed too: the chain's failure, as without asking.
                case .notOpened(let failure): return report(shown, (notOpened ?? failure).words, .failure)
                case .inputChanged: return report(shown, KindDecryption.inputChanged, .ioError)
                case .read(let error): return report(shown, "\(error)", .ioError)
                case .create(let error) where error.code == EOPNOTSUPP:
                    let name = output ?? "-"
                    return report(name, Self.noUnnamedFile(name), .cannotCreate)
                case .create(let error): return report(output ?? "-", OutputPath.createFailure(output ?? "-", error), .cannotCreate)
                case .temporaryFile(let error, let folder):
                    return report(folder, "the temporary file (TMPDIR) that holds the message until it is verified: \(error)", .ioError)
                case .write(let error):
                    // A reader that closes stdout early ends the run quietly, as other filters do.
                    if error.isBrokenPipe, case .descriptor = destination { Output.stdoutReaderGone = true; return .success }
                    return report(output.map { $0 == "-" ? "stdout" : $0 } ?? "stdout", "\(error)", .ioError)  // `-` names stdin
                }
            }
        }
    }

    /// Where the plaintext goes, or the status of a refusal already reported.
    private func destination(input: InputFile) throws -> DestinationChoice {
        // A stdout closed at start holds /dev/null: the plaintext would vanish with exit 0.
        if StandardStreams.wasClosed(STDOUT_FILENO) && (output == nil || output == "-" || output.map(StandardStreams.namesStandardOutput) == true) {
            return .refused(report("-", "stdout is closed", .ioError))
        }
        guard let output, output != "-" else {
            if output == nil && isatty(STDOUT_FILENO) == 1 {
                throw CommandFailure(.usage, "refusing to write raw plaintext to a terminal: give -o FILE (or -o - to insist), or redirect stdout")
            }
            return .chosen(.descriptor(FileDescriptor(rawValue: STDOUT_FILENO)))
        }
        let kind: OutputPath.Kind
        do { kind = try OutputPath.kind(of: output) } catch {
            return .refused(report(output, "cannot create: \(error)", .cannotCreate))
        }
        // OUT that is the input would be destroyed by its own decryption.
        var target = stat()
        if stat(output, &target) == 0, let source = try? input.status(),
           (source.st_mode & S_IFMT) == S_IFREG, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
            return .refused(report(output, "cannot create: it is the input file", .cannotCreate))
        }
        // Nor any other file the run uses: the vault, a lock, the key, passwords.
        if let used = runFiles.conflict(with: output) {
            return .refused(report(output, "cannot create: it is \(used)", .cannotCreate))
        }
        switch kind {
        case .replaceable:
            // Refused before anything is read (a password asked): see `noUnnamedFiles`.
            if !PrivateFile.canBeUnnamed(in: FilePath(folderPart(of: output))) {
                return .refused(report(output, Self.noUnnamedFile(output), .cannotCreate))
            }
            return .chosen(.file(FilePath(output)))
        case .directory, .symbolicLink, .plantedLink, .plantedFile:
            return .refused(report(output, OutputPath.refusal(kind) ?? "cannot create", .cannotCreate))
        // A FIFO, a device (or a link to one): opened only once verified.
        case .openedThrough: return .chosen(.openedLater(FilePath(output)))
        }
    }

    /// Why OUT is refused on a filesystem without `O_TMPFILE` (FUSE, some network
    /// filesystems): plaintext there would need a name before it is complete, and a
    /// SIGKILL would leave it behind.
    /// Why OUT, whose folder made no unnamed file, is refused: a pseudo filesystem (proc,
    /// sysfs) takes no new file at all; any other lacks `O_TMPFILE`.
    static func noUnnamedFile(_ output: String) -> String {
        OutputPath.inPseudoFilesystem(output) ? OutputPath.createFailure(output, Errno.noSuchFileOrDirectory) : noUnnamedFiles
    }

    static let noUnnamedFiles = "cannot create: its folder's filesystem cannot make unnamed files (O_TMPFILE), and a killed run would leave plaintext there under a temporary name; write OUT on another filesystem, or to stdout"

    private enum DestinationChoice {
        case chosen(VerifiedStream.Destination)
        /// Refused and reported, with this status.
        case refused(ExitStatus)
    }

    /// The permission bits of the regular file at OUT when they are not 0600, else nil.
    private static func replacedMode(_ output: String?) -> mode_t? {
        guard let output, output != "-" else { return nil }
        var info = stat()
        guard stat(output, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let mode = info.st_mode & 0o7777
        return mode == 0o600 ? nil : mode
    }

    /// One line when a decrypted OUT replaced a file of another mode (it is now 0600).
    private static func sayModeChanged(_ output: String, from mode: mode_t) {
        Output.standardError.line("rwsecret: \(Output.escaped(output)): now mode 0600, as every plaintext rwsecret writes (it was \(Self.octal(mode)))")
    }

    /// `mode` in octal with a leading 0, as `ls -l` users write it (0644).
    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return "0" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    private func report(_ name: String, _ reason: String, _ status: ExitStatus) -> ExitStatus {
        Output.standardError.line("rwsecret: \(Output.escaped(name)): \(reason)")
        return status
    }
}

