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
        let progress = session.global.quiet ? nil : ProgressLine(unit: .bytes)
        defer { progress?.clear() }
        // The library reads the input's first bytes once and asks its kind registry what it is.
        let raw: Decryption.RawInput
        do {
            raw = try Decryption.RawInput(FileDescriptor(rawValue: input.fd), progress: progress.map { progress in
                { done, total in progress.update(bytesDone: Int64(done), total: total.map(Int64.init)) }
            })
        } catch { return report(shown, "\(error)", .ioError) }
        if raw.isOtherKind {
            guard let message = raw.wholeMessage else { return report(shown, KindDecryption.openPGPHint, .failure) }
            return try KindDecryption(session: session, identities: identities)
                .run(message, source: shown, destination: destination, outputName: output ?? "-")
        }
        // On a terminal, a regular file that no password opened is tried once more with the
        // password the person is asked for (AskWhenNothingOpens), read again from its start.
        let result: Result<VerifiedStream.Decrypted, Decryption.RawNotOpened>
        do { result = try session.decryption.open(raw, threads: session.jobs, to: destination, askingAfter: shown) } catch {
            progress?.clear()
            if let error = error as? StoreError { throw CommandFailure(error) }
            throw error
        }
        switch result {
        case .success(let opened):
            session.global.verboseLine("opened by: \(Output.escaped(opened.openedBy.words))")
            return .success
        case .failure(let notOpened):
            progress?.clear()
            return try words(notOpened, shown, destination: destination)
        }
    }

    /// Reports why a raw input did not open; the run's status.
    private func words(_ notOpened: Decryption.RawNotOpened, _ shown: String, destination: VerifiedStream.Destination) throws -> ExitStatus {
        let failure = notOpened.failure
        if let instead = notOpened.instead {
            if instead == .base64Text && linesRefused {
                throw CommandFailure(.usage, "-o writes one whole message (an age, OpenPGP or Ansible Vault file, or a raw RNCryptor message with --binary): \(Output.escaped(shown)) holds lines; redirect stdout instead")
            }
            if let what = Self.insteadWords[instead] { return report(shown, what, .failure) }
        }
        let errno = failure.errno ?? .ioError
        switch failure.code {
        case .inputChanged: return report(shown, KindDecryption.inputChanged, .ioError)
        case .readFailed: return report(shown, "\(errno)", .ioError)
        case .createFailed where errno == .notSupported:
            let name = output ?? "-"
            return report(name, Self.noUnnamedFile(name), .cannotCreate)
        case .createFailed: return report(output ?? "-", OutputPath.createFailure(output ?? "-", errno), .cannotCreate)
        case .temporaryFileFailed:
            return report(failure.temporaryFolder ?? "-", "the temporary file (TMPDIR) that holds the message until it is verified: \(errno)", .ioError)
        case .writeFailed:
            // A reader that closes stdout early ends the run quietly, as other filters do.
            if errno == .brokenPipe, case .descriptor = destination { Output.stdoutReaderGone = true; return .success }
            return report(output.map { $0 == "-" ? "stdout" : $0 } ?? "stdout", "\(errno)", .ioError)  // `-` names stdin
        // A format error, or no password opened it (the chain's failure when the asked one failed too).
        default: return report(shown, failure.words, .failure)
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

    /// What a raw input holds instead of a raw RNCryptor message, said so.
    static let insteadWords: [Decryption.RawInput.Instead: String] = [
        .otherKind: KindDecryption.openPGPHint,  // (not reached: sent on to KindDecryption)
        .base64Text: "base64 text, not a raw message (drop --binary)",
        .damagedAgeFile: "an age file whose first line is damaged (age-encryption.org/v1 expected)",
        .yamlWithoutVault: NotAMessage.yamlWithoutVault.description,
        .yamlWithVaultValues: "a YAML file with `!vault` values: they open without --binary, one record each",
        .text: "text, not a raw message: drop --binary (base64 messages are read one per line)",
    ]

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

