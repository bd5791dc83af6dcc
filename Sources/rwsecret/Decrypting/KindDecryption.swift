import RWSecretKit
import SystemPackage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A whole message of another kind (age, OpenPGP, Ansible Vault) from one input, opened by the
/// library's `Decryption.open` with the chain's passwords (in chain order, the last winner
/// first) and the identities (the store's and the run's `--identity` files, `IdentityChain`);
/// the plaintext goes to a private unnamed file and is released to its destination (the
/// `--binary` rules) only once everything that authenticates it has been checked. This type
/// words the outcome and gives the run's status.
struct KindDecryption {
    let session: DecryptSession
    let identities: IdentityChain

    /// The memory the costly tries of one message may use (`--memory`).
    var memory: Int { MemoryBudget.resolve(option: session.memoryOption).bytes }

    /// Opens `message` into memory (`Decryption.open`): at `position` on the pipeline, walking
    /// the chain in the run's order with `threads` and `memory`; else alone, asking on a
    /// terminal after none opened it (naming `what`). A store that cannot be opened throws (69).
    func open(_ message: Decryption.WholeMessage, position: Int? = nil, threads: Int? = nil, memory: Int? = nil,
              askingAfter what: String?) throws -> Result<Decryption.Opened, Decryption.NotOpened> {
        do {
            return try session.decryption.open(message, identities: identities, memory: memory ?? self.memory, threads: threads ?? session.jobs,
                                               position: position, plaintextLimit: Self.lineModeLimit, askingAfter: what)
        } catch let error as StoreError {
            throw CommandFailure(error)
        }
    }

    /// The folder of the private file for a destination that is not a file: `$TMPDIR` when set
    /// and not empty, else `/tmp`.
    static var temporaryFolder: String {
        if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
        return "/tmp"
    }

    /// Why a message whose regular input changed while it was read released nothing.
    static let inputChanged = "the input changed while it was read"

    /// The one line for an OpenPGP message that no kind takes (not a gpg -c message).
    static let openPGPHint = "an OpenPGP message of a form rwsecret does not open (use gpg -d)"

    /// Loads `--identity` files: age identity files (`AGE-SECRET-KEY-1…` lines, `#` comments),
    /// OpenSSH keys, OpenPGP secret keys (each named by its file), an `age -p` of any of these.
    static func loadIdentities(_ paths: [String]) throws -> [any Identity] {
        var named: [any Identity] = []
        for path in paths {
            var bytes = try readSmallFile(path, what: "identity file", limit: 1 << 20)
            defer { SecretBytes.cleanse(&bytes) }
            // `age -p` of an identity file: the identity file inside, once its passphrase opens it.
            if let inside = try EncryptedIdentityFile.open(bytes, path: path) {
                SecretBytes.cleanse(&bytes)
                bytes = inside  // the same storage, wiped by the defer
            }
            if OpenPGP.looksLikeKey(bytes) {
                IdentityFiles.warnIfLoose(path)
                for key in try OpenPGPIdentityFiles.secretKeys(bytes, path: path, passphraseFile: nil) {
                    named.append(key.renamed(path))
                }
                continue
            }
            if let ssh = try IdentityFiles.openSSHKey(bytes, path: path) {
                named.append(ssh)
                continue
            }
            let parsed: [Age.Identity]
            var skipped: [String] = []
            do { parsed = try Age.Identity.parseX25519(String(decoding: bytes, as: UTF8.self), name: path, skipped: &skipped) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
            for reason in skipped {
                Output.standardError.line("rwsecret: warning: \(Output.escaped(path)): \(reason): skipped; its X25519 identities are used")
            }
            IdentityFiles.warnIfLoose(path)
            named += parsed
        }
        return named
    }

    /// Opens `message`, writing the plaintext to `destination` once verified; reports the
    /// outcome and returns the run's status. A message made with `failsIfChanged` whose input
    /// changed while it was read releases nothing (74, as for an RNCryptor message).
    func run(_ message: Decryption.WholeMessage, source name: String, destination: VerifiedStream.Destination, outputName: String) throws -> ExitStatus {
        let folder: String
        if case .file(let path) = destination { folder = folderPart(of: path.string) } else { folder = Self.temporaryFolder }
        let file: PrivateFile
        do { file = try PrivateFile(in: FilePath(folder), needsName: { if case .file = destination { true } else { false } }()) } catch {
            return report(outputName, "cannot create: \(error)", .cannotCreate)
        }
        let opened: Decryption.Opened
        do {
            switch try session.decryption.open(message, identities: identities, memory: memory, to: file, askingAfter: name) {
            case .success(let value): opened = value
            case .failure(let notOpened) where notOpened.failure.code == .inputChanged:
                return report(name, Self.inputChanged, .ioError)
            case .failure(let notOpened):
                let (reason, status) = words(notOpened)
                return report(name, reason, status)
            }
        } catch let error as StoreError {
            throw CommandFailure(error)
        }
        // An identity goes first from now on already (`Decryption.open`).
        if case .identity = opened.openedBy {} else { session.decryption.finished(openedBy: opened.openedBy) }
        session.global.verboseLine("kind: \(opened.kind)")
        if let cost = opened.cost { session.global.verboseLine(cost) }
        session.global.verboseLine("opened by: \(Output.escaped(opened.openedBy.words)) (tried \(opened.tried))")
        // Signatures are checked now, the message having verified (Signatures+OpenPGP.swift).
        let literal = opened.literal?.checkingSignatures(with: identities.signatureKeys())
        if let literal { session.global.verboseLine("literal data: \(literal.words) (not used as a path)") }
        for line in literal?.signatureLines ?? [] { session.global.verboseLine(line) }
        do {
            switch destination {
            case .file(let path):
                try file.link(as: path)
            case .descriptor(let fd):
                try file.move(to: fd)
            case .openedLater(let path):
                let fd = try retryingEINTR { Glibc.open(path.string, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o600) }
                defer { close(fd) }
                var info = stat()
                if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { _ = ftruncate(fd, 0) }
                try file.move(to: FileDescriptor(rawValue: fd))
            }
        } catch {
            if error == .brokenPipe, case .descriptor = destination { return .success }
            return report(outputName, "\(error)", .ioError)
        }
        if let bad = literal?.badSignatureLine { return report(name, bad, .failure) }
        return .success
    }

    /// The reason a message of another kind did not open, and the run's status for it.
    func words(_ notOpened: Decryption.NotOpened) -> (String, ExitStatus) {
        let failure = notOpened.failure
        let identities = notOpened.identitiesOffered
        let tried = failure.tried ?? 0
        let what = switch failure.kind {
        case .age: "age file"
        case .openPGP: "OpenPGP message"
        default: "Ansible Vault"
        }
        switch failure.code {
        case .noCredentialOpened where failure.kind == .age:
            let types = failure.recipients
            let ours = types.filter { $0 == "scrypt" || $0 == "X25519" || $0 == "ssh-ed25519" || $0 == "ssh-rsa" }
            if ours.isEmpty {
                return ("an age file for recipients that are not ours (\(types.joined(separator: ", "))): nothing here can open it", .failure)
            }
            var unique: [String] = []
            for type in ours where !unique.contains(type) { unique.append(type) }
            if ours.contains(where: { $0 != "scrypt" }) && identities == 0 {
                return ("an age file for \(unique.joined(separator: ", ")) recipients: no identity given opens it (give --identity FILE, or store one: rwsecret identity import)", .failure)
            }
            if ours.contains(where: { $0 != "scrypt" }) {
                return ("an age file for \(types.joined(separator: ", ")) recipients: none of the \(identities) identities opens it"
                        + " (give the key it was made for with --identity FILE)", .failure)
            }
            return ("no password opened this age file (tried \(tried))", .failure)
        case .noCredentialOpened where failure.kind == .openPGP && !failure.recipients.isEmpty:
            // As gpg names them: the key IDs in 16 hex digits.
            let keyIDs = failure.recipients
            let keys = (keyIDs.count == 1 ? "key " : "keys ") + keyIDs.joined(separator: ", ")
            let holder = identities == 0 ? "which no identity holds (import its secret key: rwsecret identity import KEYFILE)" : "which none of the \(identities) identities holds"
            return ("an OpenPGP message encrypted to \(keys), \(holder)" + (tried > 0 ? "; no password opened it (tried \(tried))" : ""), .failure)
        case .noCredentialOpened:
            return ("no password opened this \(what) (tried \(tried))", .failure)
        case .readFailed:
            let error = failure.errno ?? .ioError
            return ("\(error)", error.meansNoInput ? .noInput : .ioError)
        case .tooLarge:
            return ("\(what) whose plaintext is larger than \((failure.plaintextLimit ?? 0) >> 20) MiB: use --binary -o FILE", .failure)
        case .badPadding where failure.kind == .ansibleVault:
            // Ansible checks the HMAC first: the bytes are authentic, the file was made wrongly.
            return ("Ansible Vault: its HMAC verifies but its padding is bad (made by a faulty writer, not changed on the way); nothing released", .failure)
        default:
            return ("\(failure)", .failure)
        }
    }

    private func report(_ name: String, _ reason: String, _ status: ExitStatus) -> ExitStatus {
        Output.standardError.line("rwsecret: \(Output.escaped(name)): \(reason)")
        return status
    }
}

extension LiteralData {
    /// `file name "NAME", date 2026-11-27T05:53:00Z` (the name escaped; "no date" for 0).
    var words: String {
        "file name \"\(Output.escaped(String(decoding: name, as: UTF8.self)))\", " + (date == 0 ? "no date" : "date \(isoDate)")
    }

    /// The date as ISO 8601 UTC (`1970-01-01T00:00:00Z`).
    var isoDate: String {
        let seconds = Int(date)
        let days = seconds / 86_400
        let rest = seconds % 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))Z"
    }
}

/// A record made on the reading thread, handed to the pipeline as an item already done.
private final class MadeRecord: @unchecked Sendable {
    let record: KindRecord
    init(_ record: KindRecord) { self.record = record }
}

/// One record of another kind, for the line-mode writer.
struct KindRecord {
    let place: RecordWriter.Place
    let result: RowResult
    /// The chain password that opened it (it goes first from now on).
    let winner: ChainPassword?
    /// It needed a password and the chain had none: the run stops with the empty-chain line
    /// (SPEC "Nothing to try"), as at an RNCryptor message.
    var emptyChain = false
    /// The --verbose lines about it, said when it is written (in input order, whichever thread opened it).
    var notes: [String] = []
    /// Lines said on stderr after it whatever --verbose says (a bad signature), each failing the run (1).
    var warnings: [String] = []
}

/// What an input of another kind holds, for line mode: records made already (a stream, an
/// input whose chain is empty), or work items that make one record each, for the run's
/// pipeline to run on up to --jobs threads in input order (issue 36).
enum KindWork {
    case records([KindRecord])
    /// Made on the reading thread once every item before it is done (the pipeline drained).
    case alone(() throws -> [KindRecord])
    /// Each with the bytes its record may hold (the pipeline's byte budget); `make` is told the
    /// threads it may use and its place in the pipeline (`OrderedPipeline.Work`).
    /// `inOrder`: taken by the threads in input order (`OrderedPipeline.submit`), not in stretches.
    case items([(bytes: Int, make: @Sendable (_ threads: Int, _ position: Int) -> KindRecord, inOrder: Bool)])
}

extension KindDecryption {
    /// A whole file's plaintext is kept in memory in line mode up to this size (larger: --binary).
    static let lineModeLimit = 64 << 20
    /// The first bytes of an input looked at for YAML (those the library finds a kind from).
    static let lookLength = 1024
    /// A YAML file is searched for `!vault` values up to this size.
    static let yamlLimit = 16 << 20

    /// For line mode: the records of `input` when it holds messages of another kind (a whole
    /// age or Ansible Vault file, or, in a regular file, YAML with `!vault` values); nil when it
    /// holds lines. A regular file is read with `pread` from its start, so the line reader is
    /// not disturbed; a stream (a pipe, a terminal) is looked at through `rows`, which reads
    /// no further than its first line, and then read on from there: no byte is read twice.
    func work(of input: InputFile, index: Int, rows: inout MessageRows) throws -> KindWork? {
        // A stream is read here, once; on a terminal (where a password may be asked when none
        // opens a message) the records are made here too, in order.
        guard input.isRegularFile, session.asker == nil else { return try records(of: input, index: index, rows: &rows).map(KindWork.records) }
        typealias Item = (bytes: Int, place: RecordWriter.Place, make: @Sendable () throws -> KindRecord)
        let items: [Item]
        nonisolated(unsafe) let input = input  // read with pread only, by one item at a time
        let prefix = try readAt(input, count: Self.lookLength)
        // A whole file: at --jobs 1 opened here; else on the pipeline's threads, walking the
        // chain in the run's `SearchGate` order (`wholeFile(_:input:index:)`).
        if let message = Decryption.WholeMessage(file: FileDescriptor(rawValue: input.fd)) {
            guard session.jobs > 1 else { return try records(of: input, index: index, rows: &rows).map(KindWork.records) }
            return try wholeFile(message, input: input, index: index)
        }
        guard let values = try vaultValues(of: input, index: index, prefix: prefix) else { return nil }
        items = values.map { value in (value.size, value.place, { [self] in try record(value) }) }
        // On a pipeline thread a store that fails (it opened already, or opens lazily for a
        // later record) fails that record.
        @Sendable func onPipeline(_ item: Item) -> (bytes: Int, make: @Sendable (Int, Int) -> KindRecord, inOrder: Bool) {
            (item.bytes, { _, _ in
                do { return try item.make() } catch {
                    let reason = (error as? CommandFailure)?.message ?? "\(error)"
                    return KindRecord(place: item.place, result: .failure(.otherKind(reason)), winner: nil)
                }
            }, false)
        }
        guard session.decryption.hasOwnCredentials(identities: identities) else {
            // The store opens here (a failure stops the run, 69); with nothing in the chain, the
            // run stops at the first record that needs a password: made here, in order.
            let empty: Bool
            do { empty = try session.decryption.chainHasNoPassword() } catch let error as StoreError {
                throw CommandFailure(error)
            }
            if empty { return .records(try items.map { try $0.make() }) }
            return .items(items.map { onPipeline($0) })
        }
        // With what the run was given (passwords, --identity files), the store opens only when
        // those do not open a message (openLazily): the first record is made here, so a store
        // it needs and cannot open stops the run (69, naming --no-store); the rest run on the
        // pipeline's threads.
        let first = MadeRecord(try items[0].make())
        let done: @Sendable (Int, Int) -> KindRecord = { _, _ in first.record }
        return .items([(items[0].bytes, done, false)] + items.dropFirst().map { onPipeline($0) })
    }

    func records(of input: InputFile, index: Int, rows: inout MessageRows) throws -> [KindRecord]? {
        guard input.isRegularFile else {
            let read: [UInt8]?
            do { read = try rows.otherKindPrefix() } catch { return nil }  // the line reader reports it
            guard let read else { return nil }
            session.inputLooksLikeYAML = Decryption.WholeMessage.mayBeYAML(Array(read.prefix(1024)))
            if let message = Decryption.WholeMessage(prefix: read, read: { buffer throws(Errno) in try input.read(into: buffer.baseAddress!, count: buffer.count) }) {
                let place = RecordWriter.Place(input: index, source: input.name, line: 1, id: nil, kind: message.kind, wholeFile: true)
                // On a terminal (where a password may be asked when none opens it) a pipe's file
                // is held, up to line mode's limit, so that the typed password can read it again.
                if session.asker != nil, let whole = try? Self.readAll(input, after: read, limit: Self.lineModeLimit), let held = Decryption.WholeMessage(bytes: whole) {
                    return [try record(held, place: place)]
                }
                return [try record(message, place: place)]
            }
            // It may be YAML: read on (up to the YAML limit) for its `!vault` values, as from a
            // regular file. Anything else goes back to the line reader, unread.
            var text = read
            text.reserveCapacity(min(Self.yamlLimit + 1, 1 << 20))
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while text.count <= Self.yamlLimit {
                let n: Int
                do { n = try chunk.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) } } catch {
                    input.unread(text)
                    rows = try MessageRows(input, idColumn: false)
                    return nil
                }
                if n == 0 {
                    let values = vaultValues(in: text, input: input, index: index)
                    if values.isEmpty { break }
                    return try values.map(record)
                }
                text += chunk[..<n]
            }
            input.unread(text)
            rows = try MessageRows(input, idColumn: false)
            return nil
        }
        let prefix = try readAt(input, count: Self.lookLength)
        if let message = Decryption.WholeMessage(file: FileDescriptor(rawValue: input.fd)) {
            let place = RecordWriter.Place(input: index, source: input.name, line: 1, id: nil, kind: message.kind, wholeFile: true)
            return [try record(message, place: place)]
        }
        guard let values = try vaultValues(of: input, index: index, prefix: prefix) else { return nil }
        return try values.map(record)
    }

    /// A `!vault` value of a YAML input: where it stands, and its vault text.
    typealias VaultValue = (place: RecordWriter.Place, message: Decryption.WholeMessage, size: Int)

    /// The `!vault` values of the regular file `input`, read with `pread` from its start when
    /// `prefix` (its first bytes) may begin YAML and it is within the YAML limit; nil when it
    /// holds none (its lines are read then).
    private func vaultValues(of input: InputFile, index: Int, prefix: [UInt8]) throws -> [VaultValue]? {
        session.inputLooksLikeYAML = Decryption.WholeMessage.mayBeYAML(prefix)
        guard Decryption.WholeMessage.mayBeYAML(prefix), let size = try? input.status().st_size, size <= Self.yamlLimit else { return nil }
        let values = vaultValues(in: try readAt(input, count: Int(size)), input: input, index: index)
        return values.isEmpty ? nil : values
    }

    /// The `!vault` values of the YAML `text` of `input`, each with its place. When there are
    /// none but it mentions `!vault`, the input's not-a-message line says so (`inputVaultUnread`).
    private func vaultValues(in text: [UInt8], input: InputFile, index: Int) -> [VaultValue] {
        let values = Decryption.WholeMessage.vaultValues(inYAML: text)
        if values.isEmpty, Decryption.WholeMessage.mentionsVault(text) { session.inputVaultUnread = true }
        return values.map { value in
            (RecordWriter.Place(input: index, source: input.name, line: value.line, id: nil, kind: .ansibleVault, key: value.key), value.message, value.size)
        }
    }

    /// The record of the `!vault` value `value` (opened again with a password typed on a terminal).
    private func record(_ value: VaultValue) throws -> KindRecord {
        try record(value.message, place: value.place)
    }

    /// The record of `message`: opened alone (`position` nil: a password typed on a terminal
    /// after none opened it is tried on one that can be read again), or on the pipeline's
    /// threads at `position`, walking the chain in the run's order with `threads` and `memory`.
    func record(_ message: Decryption.WholeMessage, place: RecordWriter.Place, position: Int? = nil, threads: Int? = nil, memory: Int? = nil) throws -> KindRecord {
        let opened: Decryption.Opened
        switch try open(message, position: position, threads: threads, memory: memory, askingAfter: position == nil ? "\(place.source):\(place.line)" : nil) {
        case .success(let value): opened = value
        case .failure(let notOpened):
            var record = KindRecord(place: place, result: .failure(.otherKind(words(notOpened).0)), winner: nil)
            // An age file for identities only is not a password's to open.
            record.emptyChain = notOpened.chainWasEmpty
            return record
        }
        var notes: [String] = []
        // Signatures are checked now, the message having verified (Signatures+OpenPGP.swift).
        let literal = opened.literal?.checkingSignatures(with: identities.signatureKeys())
        if session.global.verbose {
            if let cost = opened.cost { notes.append("\(Output.escaped(place.source)):\(place.line): \(cost)") }
            notes.append("\(Output.escaped(place.source)):\(place.line): \(opened.kind), opened by \(Output.escaped(opened.openedBy.words)) (tried \(opened.tried))"
                         + (literal.map { "; literal data: \($0.words)" } ?? "")
                         + (literal?.signatureLines ?? []).map { "; \($0)" }.joined())
        }
        var place = place
        place.literal = literal
        // An identity goes first from now on already (`Decryption.open`); a password once written.
        let winner: ChainPassword? = if case .password(let password) = opened.openedBy { password } else { nil }
        if place.wholeFile && !session.json && isatty(STDOUT_FILENO) == 1 && String(validating: opened.plaintext, as: UTF8.self) == nil {
            return KindRecord(place: place, result: .failure(.otherKind("binary plaintext, not written to a terminal: use --binary -o FILE")), winner: winner, notes: notes)
        }
        var made = KindRecord(place: place, result: .success(opened.decrypted), winner: winner, notes: notes)
        if let bad = literal?.badSignatureLine { made.warnings = ["\(Output.escaped(place.source)):\(place.line): \(bad)"] }
        return made
    }

    /// `read` and the rest of the stream `input`, when it ends within `limit` bytes; nil (the
    /// bytes read handed back to `input`) when it does not.
    static func readAll(_ input: InputFile, after read: [UInt8], limit: Int) throws -> [UInt8]? {
        var bytes = read
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= limit {
            let n = try chunk.withUnsafeMutableBytes { try input.read(into: $0.baseAddress!, count: $0.count) }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
        }
        input.unread(Array(bytes[read.count...]))
        return nil
    }

    private func readAt(_ input: InputFile, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(input.fd, $0.baseAddress! + done, count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw CommandFailure(.ioError, "\(Output.escaped(input.name)): \(Errno(rawValue: errno))") }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }
}
