import RWSecretKit
import SystemPackage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A whole message of another kind (age, Ansible Vault) from one input, opened with the chain's
/// passwords (in chain order, the last winner first) and, for age, the identities (the store's
/// and the run's `--identity` files, `IdentityChain`); the
/// plaintext goes to a private unnamed file and is released to its destination (the `--binary`
/// rules) only once everything that authenticates it has been checked.
struct KindDecryption {
    let session: DecryptSession
    let identities: IdentityChain
    /// What a message was offered: the passwords and identities tried or ready to try.
    typealias Offered = Decryption.Offered

    /// Opens `input`, of `kind`, with what the run was given first (run-only passwords,
    /// `--identity` files: identities only to    /// Opens `input`, of `kind`, with what the run was given first (run-only passwords,
    /// `--identity` files: identities only to an age file); only when none of those opens it is
    /// the store opened (the first time) and its passwords and identities tried too
    /// (`Decryption.openLazily`). A store that cannot be opened then throws (69), as before.
    func openLazily<K: MessageKind>(_ kind: K.Type, input: KindInput, into sink: some PlaintextSink,
                              offered: inout Offered) throws -> Result<MessageKinds.Decrypted, KindFailure> {
        do {
            return try session.decryption.openLazily(kind, input: input, identities: identities, budget: budget, into: sink, offered: &offered)
        } catch let error as StoreError {
            throw CommandFailure(error)
        }
    }

    /// The identities a message of `kind` is offered (`Decryption.fitting`).
    static func fitting(_ identities: [NamedIdentity], to kind: any MessageKind.Type) -> [NamedIdentity] {
        Decryption.fitting(identities, to: kind)
    }

    var budget: TryBudget {
        TryBudget(jobs: session.jobs, memory: MemoryBudget.resolve(option: session.memoryOption).bytes, kdfWork: session.kdfWork)
    }

    /// Why a message whose regular input changed while it was read released nothing.
    static let inputChanged = "the input changed while it was read"

    /// Whether the regular file `input` changed (size, modification or change time) since its
    /// status was `before`: VerifiedStream's rule for RNCryptor messages.
    static func changed(_ input: InputFile, since before: stat) -> Bool {
        guard let after = try? input.status() else { return true }
        return before.st_size != after.st_size || before.st_mtim.tv_sec != after.st_mtim.tv_sec || before.st_mtim.tv_nsec != after.st_mtim.tv_nsec
            || before.st_ctim.tv_sec != after.st_ctim.tv_sec || before.st_ctim.tv_nsec != after.st_ctim.tv_nsec
    }

    /// Whether `failure` is a password-based message that no password opened (the case that
    /// asks on a terminal): an Ansible Vault, an age file with an scrypt stanza, an OpenPGP
    /// message that passwords were tried on.
    static func asks(after failure: KindFailure) -> Bool {
        guard case .noMatch(let types) = failure.error else { return false }
        switch failure.kind {
        case .age: return types.contains("scrypt")
        case .openpgp: return failure.tried > 0
        default: return true
        }
    }

    /// After the chain failed on `failure`'s message: the password asked for on a terminal,
    /// tried alone on the message read `again` (nil: it cannot be read again, a pipe).
    func retryAsked<K: MessageKind>(_ kind: K.Type, after failure: KindFailure, what: String, tried: [ChainPassword],
                                    again: (() -> KindInput)?, into sink: some PlaintextSink) -> MessageKinds.Decrypted? {
        guard let again, Self.asks(after: failure),
              let password = session.decryption.askedPassword(after: what), !tried.contains(where: { $0.name == password.name }) else { return nil }
        return try? Self.counted(kind, input: again(), passwords: [password], identities: [], budget: budget, into: sink)
    }

    /// Counts the password tries of one `MessageKinds.open` as key derivations (the library's
    /// `Decryption.keyDerivations`, `--verbose`'s "key derivations").
    static func count<K: MessageKind>(_ kind: K.Type, _ result: Result<MessageKinds.Decrypted, KindFailure>) {
        Decryption.count(kind, result)
    }

    /// `MessageKinds.open`, counting its password tries as key derivations.
    static func counted<K: MessageKind>(_ kind: K.Type, input: KindInput, passwords: [ChainPassword], identities: [NamedIdentity],
                                        budget: TryBudget, into sink: some PlaintextSink) throws(KindFailure) -> MessageKinds.Decrypted {
        let result: Result<MessageKinds.Decrypted, KindFailure>
        do { result = .success(try MessageKinds.open(kind, input: input, passwords: passwords, identities: identities, budget: budget, into: sink)) } catch {
            result = .failure(error)
        }
        count(kind, result)
        return try result.get()
    }

    /// The one line for an OpenPGP message that no kind takes (not a gpg -c message).
    static let openPGPHint = "an OpenPGP message of a form rwsecret does not open (use gpg -d)"

    /// Loads `--identity` files: age identity files (`AGE-SECRET-KEY-1…` lines, `#` comments).
    static func loadIdentities(_ paths: [String]) throws -> [NamedIdentity] {
        var named: [NamedIdentity] = []
        for path in paths {
            var bytes = try readSmallFile(path, what: "identity file", limit: 1 << 20)
            defer { Crypto.cleanse(&bytes) }
            // `age -p` of an identity file: the identity file inside, once its passphrase opens it.
            if let inside = try EncryptedIdentityFile.open(bytes, path: path) {
                Crypto.cleanse(&bytes)
                bytes = inside  // the same storage, wiped by the defer
            }
            if OpenPGPTransferableKey.looksLikeKey(bytes) {
                IdentityFiles.warnIfLoose(path)
                for key in try OpenPGPIdentityFiles.secretKeys(bytes, path: path, passphraseFile: nil) {
                    named.append(NamedIdentity(name: path, openPGP: key))
                }
                continue
            }
            if let ssh = try IdentityFiles.openSSHKey(bytes, path: path) {
                named.append(NamedIdentity(name: path, ssh: ssh))
                continue
            }
            let parsed: [AgeX25519Identity]
            var skipped: [AgeX25519Identity.ParseError] = []
            do { parsed = try AgeX25519Identity.parseFile(String(decoding: bytes, as: UTF8.self), skipped: &skipped) } catch {
                throw CommandFailure(.dataError, "\(Output.escaped(path)): \(error)")
            }
            for reason in skipped {
                Output.standardError.line("rwsecret: warning: \(Output.escaped(path)): \(reason): skipped; its X25519 identities are used")
            }
            IdentityFiles.warnIfLoose(path)
            for (index, identity) in parsed.enumerated() {
                named.append(NamedIdentity(name: parsed.count == 1 ? path : "\(path)#\(index + 1)", identity: identity))
            }
        }
        return named
    }

    /// Opens the message that `input` holds (`kind` recognised it), writing the plaintext to
    /// `destination` once verified; reports the outcome and returns the run's status.
    /// `inputChanged` says, once the message has verified, whether the input changed while it
    /// was read (then nothing is released: 74, as for an RNCryptor message).
    func run(kind: any MessageKind.Type, input: KindInput, source name: String, destination: VerifiedStream.Destination,
             outputName: String, inputChanged: () -> Bool = { false }, again: (() -> KindInput)? = nil) throws -> ExitStatus {
        let folder: String
        if case .file(let path) = destination { folder = RWSecretKit.folder(of: path.string) } else { folder = temporaryFolder }
        let file: PrivateFile
        do { file = try PrivateFile(in: folder, needsName: { if case .file = destination { true } else { false } }()) } catch {
            return report(outputName, "cannot create: \(error)", .cannotCreate)
        }
        var offered = Offered()
        let opened: MessageKinds.Decrypted
        switch try openLazily(kind, input: input, into: PrivateFilePlaintext(file: file), offered: &offered) {
        case .success(let value): opened = value
        case .failure(let error):
            if inputChanged() { return report(name, Self.inputChanged, .ioError) }
            if let retried = retryAsked(kind, after: error, what: name, tried: session.client.runOnlyPasswords, again: again, into: PrivateFilePlaintext(file: file)) {
                opened = retried
            } else {
                let (reason, status) = words(error, identities: offered.identities)
                return report(name, reason, status)
            }
        }
        if inputChanged() { return report(name, Self.inputChanged, .ioError) }
        switch opened.openedBy {
        case .identity(let name): identities.finished(openedBy: name)
        default: session.client.messageFinished(openedBy: opened.openedBy)
        }
        session.global.verboseLine("kind: \(opened.kind.rawValue)")
        if let cost = opened.cost { session.global.verboseLine(cost.words) }
        session.global.verboseLine("opened by: \(Output.escaped(opened.openedBy.words)) (tried \(opened.tried))")
        // Signatures are checked now, the message having verified (Signatures+OpenPGP.swift).
        let literal = opened.literal?.checkingSignatures(with: identities.signatureKeys())
        if let literal { session.global.verboseLine("literal data: \(literal.words) (not used as a path)") }
        for line in literal?.signatureLines ?? [] { session.global.verboseLine(line) }
        do {
            switch destination {
            case .file(let path):
                try file.link(as: path.string)
            case .descriptor(let fd):
                try file.copy(to: fd.rawValue)
            case .openedLater(let path):
                let fd = try retryingOnInterrupt { open(path.string, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0o600) }
                defer { close(fd) }
                var info = stat()
                if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { _ = ftruncate(fd, 0) }
                try file.copy(to: fd)
            }
        } catch {
            if error.isBrokenPipe, case .descriptor = destination { return .success }
            return report(outputName, "\(error)", .ioError)
        }
        if let bad = literal?.badSignatureLine { return report(name, bad, .failure) }
        return .success
    }

    /// The reason a message of another kind did not open, and the run's status for it.
    /// - Parameter identities: how many identities it was offered.
    func words(_ failure: KindFailure, identities: Int) -> (String, ExitStatus) {
        let what = switch failure.kind {
        case .age: "age file"
        case .openpgp: "OpenPGP message"
        default: "Ansible Vault"
        }
        switch failure.error {
        case .noMatch(let types) where failure.kind == .age:
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
            return ("no password opened this age file (tried \(failure.tried))", .failure)
        case .noMatch(let keyIDs) where failure.kind == .openpgp && !keyIDs.isEmpty:
            // As gpg names them: the key IDs in 16 hex digits.
            let keys = (keyIDs.count == 1 ? "key " : "keys ") + keyIDs.joined(separator: ", ")
            let holder = identities == 0 ? "which no identity holds (import its secret key: rwsecret identity import KEYFILE)" : "which none of the \(identities) identities holds"
            return ("an OpenPGP message encrypted to \(keys), \(holder)" + (failure.tried > 0 ? "; no password opened it (tried \(failure.tried))" : ""), .failure)
        case .noMatch:
            return ("no password opened this \(what) (tried \(failure.tried))", .failure)
        case .io(let error):
            return ("\(error)", error.isMissingInput ? .noInput : .ioError)
        case .tooLarge(let limit):
            return ("\(what) whose plaintext is larger than \(limit >> 20) MiB: use --binary -o FILE", .failure)
        case .payload("bad padding") where failure.kind == .ansibleVault:
            // Ansible checks the HMAC first: the bytes are authentic, the file was made wrongly.
            return ("Ansible Vault: its HMAC verifies but its padding is bad (made by a faulty writer, not changed on the way); nothing released", .failure)
        case .armor, .header, .workFactorTooHigh, .headerMAC, .payload, .packetInside, .refused, .outOfMemory:
            return ("\(what): \(failure.error)", .failure)
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
    let result: Result<Decrypted, RowFailure>
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
        let prefix = try readAt(input, count: detectionLength)
        // A whole file: at --jobs 1 opened here; else on the pipeline's threads, walking the
        // chain in the run's `SearchGate` order (`wholeFile(_:input:index:)`).
        if let kind = KindRegistry.wholeInputKind(prefix[...]) {
            guard session.jobs > 1 else { return try records(of: input, index: index, rows: &rows).map(KindWork.records) }
            return try wholeFile(kind, input: input, index: index)
        }
        guard let values = try vaultValues(of: input, index: index, prefix: prefix) else { return nil }
        items = values.map { value in (value.text.count, value.place, { [self] in try record(value) }) }
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
        guard !session.client.runOnlyPasswords.isEmpty || !identities.fileIdentities().isEmpty else {
            // The store opens here (a failure stops the run, 69); with nothing in the chain, the
            // run stops at the first record that needs a password: made here, in order.
            let passwords: [ChainPassword]
            do { passwords = try session.client.chainHead()?.chainPasswords() ?? [] } catch let error as StoreError {
                throw CommandFailure(error)
            }
            if passwords.isEmpty { return .records(try items.map { try $0.make() }) }
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
            session.inputLooksLikeYAML = KindRegistry.mayBeYAML(Array(read.prefix(detectionLength)))
            if let kind = KindRegistry.wholeInputKind(read.prefix(detectionLength)) {
                let place = RecordWriter.Place(input: index, source: input.name, line: 1, id: nil, kind: MessageOpener.Kind(kind.name), wholeFile: true)
                // On a terminal (where a password may be asked when none opens it) a pipe's file
                // is held, up to line mode's limit, so that the typed password can read it again.
                if session.asker != nil, let whole = try? Self.readAll(input, after: read, limit: Self.lineModeLimit) {
                    return [try record(kind, KindInput(bytes: whole), place: place, again: { KindInput(bytes: whole) })]
                }
                return [try record(kind, KindInput(PrefixedSource(prefix: read, rest: DescriptorSource(input))), place: place)]
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
        let prefix = try readAt(input, count: detectionLength)
        if let kind = KindRegistry.wholeInputKind(prefix[...]) {
            let place = RecordWriter.Place(input: index, source: input.name, line: 1, id: nil, kind: MessageOpener.Kind(kind.name), wholeFile: true)
            return [try record(kind, KindInput(PreadSource(input)), place: place, again: { KindInput(PreadSource(input)) })]
        }
        guard let values = try vaultValues(of: input, index: index, prefix: prefix) else { return nil }
        return try values.map(record)
    }

    /// A `!vault` value of a YAML input: where it stands, and its vault text.
    typealias VaultValue = (place: RecordWriter.Place, text: [UInt8])

    /// The `!vault` values of the regular file `input`, read with `pread` from its start when
    /// `prefix` (its first bytes) may begin YAML and it is within the YAML limit; nil when it
    /// holds none (its lines are read then).
    private func vaultValues(of input: InputFile, index: Int, prefix: [UInt8]) throws -> [VaultValue]? {
        session.inputLooksLikeYAML = KindRegistry.mayBeYAML(prefix)
        guard KindRegistry.mayBeYAML(prefix), let size = try? input.status().st_size, size <= Self.yamlLimit else { return nil }
        let values = vaultValues(in: try readAt(input, count: Int(size)), input: input, index: index)
        return values.isEmpty ? nil : values
    }

    /// The `!vault` values of the YAML `text` of `input`, each with its place. When there are
    /// none but it mentions `!vault`, the input's not-a-message line says so (`inputVaultUnread`).
    private func vaultValues(in text: [UInt8], input: InputFile, index: Int) -> [VaultValue] {
        let values = AnsibleVaultKind.vaultValues(inYAML: text)
        if values.isEmpty, KindRegistry.mentionsVault(text) { session.inputVaultUnread = true }
        return values.map { value in
            (RecordWriter.Place(input: index, source: input.name, line: value.line, id: nil, kind: .ansibleVault, key: value.key), value.text)
        }
    }

    /// The record of the `!vault` value `value` (opened again with a password typed on a terminal).
    private func record(_ value: VaultValue) throws -> KindRecord {
        try record(AnsibleVaultKind.self, KindInput(bytes: value.text), place: value.place, again: { KindInput(bytes: value.text) })
    }

    /// `opening`, when given, opens the message instead of `openLazily` (`walk`: a whole file on
    /// the pipeline's threads), into the sink it is handed.
    func record<K: MessageKind>(_ kind: K.Type, _ input: KindInput, place: RecordWriter.Place, again: (() -> KindInput)? = nil,
                                opening: ((MemoryPlaintext, inout Offered) throws -> Result<MessageKinds.Decrypted, KindFailure>)? = nil) throws -> KindRecord {
        var sink = MemoryPlaintext(limit: Self.lineModeLimit)
        var offered = Offered()
        let outcome = try opening?(sink, &offered) ?? openLazily(kind, input: input, into: sink, offered: &offered)
        do throws(KindFailure) {
            let opened: MessageKinds.Decrypted
            do { opened = try outcome.get() } catch {
                let retrySink = MemoryPlaintext(limit: Self.lineModeLimit)
                guard let retried = retryAsked(kind, after: error, what: "\(place.source):\(place.line)", tried: session.client.runOnlyPasswords,
                                               again: again, into: retrySink) else { throw error }
                sink = retrySink
                opened = retried
            }
            var notes: [String] = []
            // Signatures are checked now, the message having verified (Signatures+OpenPGP.swift).
            let literal = opened.literal?.checkingSignatures(with: identities.signatureKeys())
            if session.global.verbose {
                if let cost = opened.cost { notes.append("\(Output.escaped(place.source)):\(place.line): \(cost.words)") }
                notes.append("\(Output.escaped(place.source)):\(place.line): \(K.name.rawValue), opened by \(Output.escaped(opened.openedBy.words)) (tried \(opened.tried))"
                             + (literal.map { "; literal data: \($0.words)" } ?? "")
                             + (literal?.signatureLines ?? []).map { "; \($0)" }.joined())
            }
            var place = place
            place.literal = literal
            var winner: ChainPassword?
            switch opened.openedBy {
            case .password(let password): winner = password
            case .identity(let name): identities.finished(openedBy: name)
            case .key: break
            }
            if place.wholeFile && !session.json && isatty(STDOUT_FILENO) == 1 && String(validating: sink.bytes, as: UTF8.self) == nil {
                return KindRecord(place: place, result: .failure(.otherKind("binary plaintext, not written to a terminal: use --binary -o FILE")), winner: winner, notes: notes)
            }
            var made = KindRecord(place: place, result: .success(Decrypted(plaintext: sink.bytes, openedBy: opened.openedBy, kind: MessageOpener.Kind(K.name))),
                                  winner: winner, notes: notes)
            if let bad = literal?.badSignatureLine { made.warnings = ["\(Output.escaped(place.source)):\(place.line): \(bad)"] }
            return made
        } catch {
            var record = KindRecord(place: place, result: .failure(.otherKind(words(error, identities: offered.identities).0)), winner: nil)
            // An age file for identities only is not a password's to open.
            if offered.passwords == 0, error.tried == 0, case .noMatch(let types) = error.error, K.name == .age ? types.contains("scrypt") : types.isEmpty {
                record.emptyChain = true
            }
            return record
        }
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

    /// Whether YAML `text` has a `!vault` tag (`KindRegistry.mentionsVault`).
    static func mentionsVault(_ text: [UInt8]) -> Bool { KindRegistry.mentionsVault(text) }

    /// Whether the first significant line looks like YAML (`KindRegistry.mayBeYAML`).
    static func mayBeYAML(_ prefix: [UInt8]) -> Bool { KindRegistry.mayBeYAML(prefix) }

    private func readAt(_ input: InputFile, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = bytes.withUnsafeMutableBytes { pread(input.fd, $0.baseAddress! + done, count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw CommandFailure(.ioError, "\(Output.escaped(input.name)): \(SystemError(code: errno))") }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(count - done)
        return bytes
    }
}

/// A regular file read from its start with `pread`, whatever its descriptor's offset.
final class PreadSource: ByteSource {
    private let file: InputFile
    private var offset = 0

    init(_ file: InputFile) { self.file = file }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do {
            let n = try retryingOnInterrupt { pread(file.fd, buffer.baseAddress!, buffer.count, off_t(offset)) }
            offset += n
            return n
        } catch { throw .io(error) }
    }
}

/// The rest of an input read through its descriptor; `progress` is told the bytes of the
/// input read so far (`counted` of them before this source) after each read.
final class DescriptorSource: ByteSource {
    private let file: InputFile
    private var done: Int
    private let progress: ((Int) -> Void)?

    init(_ file: InputFile, counted: Int = 0, progress: ((Int) -> Void)? = nil) {
        self.file = file
        done = counted
        self.progress = progress
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        let n: Int
        do { n = try file.read(into: buffer.baseAddress!, count: buffer.count) } catch { throw .io(error) }
        done += n
        progress?(done)
        return n
    }
}
