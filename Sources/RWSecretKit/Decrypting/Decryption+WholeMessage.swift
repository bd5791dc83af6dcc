public import SystemPackage
#if canImport(Glibc)
internal import Glibc
#endif

extension Decryption {
    /// A whole message of another kind (age, OpenPGP, Ansible Vault, a YAML file's `!vault`
    /// value): its kind, found from its first bytes, and where its bytes are read from.
    ///
    /// Bytes in memory and a regular file (read with `pread` from its start, its descriptor's
    /// offset untouched) can be read again: a password asked for after none opened it is tried
    /// on it. A stream is read once, by one thread (sendable as the run's pipeline hands a
    /// message to one thread at a time; bytes and a file's `pread`s are read by any number).
    public struct WholeMessage: @unchecked Sendable {
        /// Its kind: ``MessageOpener/Kind/age``, ``MessageOpener/Kind/openPGP`` or
        /// ``MessageOpener/Kind/ansibleVault``.
        public let kind: MessageOpener.Kind
        package let type: any MessageKind.Type
        /// A fresh reading of it from its start (the first reading, then `again`).
        private let first: () -> KindInput
        private let again: (() -> KindInput)?
        /// A regular file's status when it was first read, when its changing fails it.
        private let before: (file: HeldDescriptor, status: stat)?

        /// Whether it can be read again from its start (bytes, a regular file).
        public var canBeReadAgain: Bool { again != nil }

        private init?(head: some Collection<UInt8>, first: @escaping () -> KindInput, again: (() -> KindInput)?, before: (HeldDescriptor, stat)? = nil) {
            guard let type = KindRegistry.wholeInputKind(ArraySlice(head.prefix(detectionLength))) else { return nil }
            self.type = type
            kind = MessageOpener.Kind(type.name)
            self.first = first
            self.again = again
            self.before = before
        }

        /// The whole message `bytes` hold; nil when they hold no whole message of another kind
        /// (an OpenPGP message of a form not opened here, text, an RNCryptor message).
        public init?(bytes: [UInt8]) {
            self.init(head: bytes, first: { KindInput(bytes: bytes) }, again: { KindInput(bytes: bytes) })
        }

        /// The `!vault` value `text` (its vault text, `$ANSIBLE_VAULT;…` and its hex lines).
        package init(vaultText text: [UInt8]) {
            kind = .ansibleVault
            type = AnsibleVaultKind.self
            first = { KindInput(bytes: text) }
            again = first
            before = nil
        }

        /// The whole message the regular file `file` holds, read with `pread` from its start;
        /// nil when it holds none. `progress` is told the bytes read so far, on the first reading.
        /// With `failsIfChanged`, a file whose size, modification or change time differs once it
        /// was read releases nothing: the failure's code is `inputChanged`. The message reads a
        /// duplicate of `file` (closed with the message's last copy): `file` may be closed.
        public init?(file: FileDescriptor, progress: ((Int) -> Void)? = nil, failsIfChanged: Bool = false) {
            guard let held = try? HeldDescriptor(duplicating: file.rawValue) else { return nil }
            let fd = held.fd
            var head = [UInt8](repeating: 0, count: detectionLength)
            var done = 0
            while done < head.count {
                let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            self.init(held: held, head: head[..<done], progress: progress, failsIfChanged: failsIfChanged)
        }

        /// `init(file:progress:failsIfChanged:)` whose first bytes, `head`, were read already (`RawInput`).
        package init?(held: HeldDescriptor, head: some Collection<UInt8>, progress: ((Int) -> Void)?, failsIfChanged: Bool) {
            var status = stat()
            let before = failsIfChanged && fstat(held.fd, &status) == 0 ? (held, status) : nil
            self.init(head: head, first: { KindInput(PreadSource(held, progress: progress)) }, again: { KindInput(PreadSource(held)) }, before: before)
        }

        /// The whole message of a stream whose first bytes, `prefix`, were read already; `read`
        /// reads on (into the buffer, 0 at the end). Nil when `prefix` begins no whole message.
        public init?(prefix: [UInt8], read: @escaping (UnsafeMutableRawBufferPointer) throws(Errno) -> Int) {
            let rest = ReadingSource(read)
            self.init(head: prefix, first: { KindInput(PrefixedSource(prefix: prefix, rest: rest)) }, again: nil)
        }

        /// The memory one password try on it takes, when its key derivation is costly (age's
        /// scrypt, OpenPGP's Argon2): several are tried at once within a memory budget. Nil for a
        /// cheap one, one that takes no password, or one whose header does not parse. Reads it
        /// (call it only on one that can be read again).
        public var memoryPerTry: Int? {
            let kind: any MessageKind.Type = type
            return Self.perTry(kind, input: input())
        }

        private static func perTry<K: MessageKind>(_ kind: K.Type, input: KindInput) -> Int? {
            MessageKinds.memoryPerTry(kind, input: input)
        }

        /// A reading from its start: the first, then a fresh one each time.
        package func input() -> KindInput { again?() ?? first() }
        package func firstInput() -> KindInput { first() }
        package func againInput() -> KindInput? { again?() }

        /// Whether it was a regular file that changed since its first reading.
        package var changed: Bool {
            guard let before else { return false }
            var after = stat()
            guard fstat(before.file.fd, &after) == 0 else { return true }
            let was = before.status
            return was.st_size != after.st_size || was.st_mtim.tv_sec != after.st_mtim.tv_sec || was.st_mtim.tv_nsec != after.st_mtim.tv_nsec
                || was.st_ctim.tv_sec != after.st_ctim.tv_sec || was.st_ctim.tv_nsec != after.st_ctim.tv_nsec
        }
    }

    /// A whole message opened (`Decryption.open(_:identities:memory:…)`).
    public struct Opened: Sendable {
        /// Its kind.
        public let kind: MessageOpener.Kind
        /// What opened it: a password of the chain (or asked for), an identity (by name), a key.
        public let openedBy: Opener
        /// The passwords and identities tried, the one that opened it included.
        public let tried: Int
        /// What its costly key derivations cost (age's scrypt tries at once), in words; nil for none.
        public let cost: String?
        /// The file name and date an OpenPGP message carries, its signatures not checked yet.
        public let literal: LiteralData?
        /// The plaintext, for an open into memory; empty for one into a ``/RWSecretCore/PrivateFile``.
        public let plaintext: [UInt8]
    }

    /// Why a whole message did not open: the ``failure`` (its code and facts: the kind, the
    /// recipients, how many were tried) and what it was offered.
    public struct NotOpened: Error, Sendable {
        /// What went wrong.
        public let failure: DecryptionFailure
        /// The passwords it was offered (the run's, and the store's when it was opened).
        public let passwordsOffered: Int
        /// The identities it was offered (the run's files', and the store's when it was opened).
        public let identitiesOffered: Int

        /// Whether it is a password-based message that no password opened (an Ansible Vault, an
        /// age file with an scrypt stanza, an OpenPGP message that passwords were tried on): the
        /// case where a password may be asked for.
        public var isPasswordBased: Bool {
            guard failure.code == .noCredentialOpened else { return false }
            switch failure.kind {
            case .age: return failure.recipients.contains("scrypt")
            case .openPGP: return (failure.tried ?? 0) > 0
            default: return true
            }
        }

        /// Whether it needed a password and none was there to try: no password offered, none
        /// tried, and for an age file an scrypt stanza, for another kind no recipient at all.
        public var chainWasEmpty: Bool {
            guard passwordsOffered == 0, failure.tried == 0, failure.code == .noCredentialOpened else { return false }
            return failure.kind == .age ? failure.recipients.contains("scrypt") : failure.recipients.isEmpty
        }
    }

    /// Opens `message` with the run's chain: what the run was given first (its passwords, the
    /// `files` identities of `identities`: identities only to a kind that takes them), then,
    /// only when none of those opens it, the store's (opened the first time) passwords and
    /// identities. The plaintext is kept in memory, up to `plaintextLimit` bytes (else the
    /// failure's code is `tooLarge`), and returned only once the message verified.
    ///
    /// - Parameters:
    ///   - message: the message, and where its bytes are read from.
    ///   - identities: the run's identities: its files' first, the store's (read the first
    ///     time they are needed) after; one that opens it goes first from now on.
    ///   - memory: the bytes the costly tries at once may use (a share of a run's budget).
    ///   - threads: the threads they may use.
    ///   - position: on a run's pipeline (``OrderedPipeline``), its place: the chain is walked
    ///     in the run's order (the latest winner first, then the nearest neighbours'), as
    ///     messages in flight share it. Nil: one message alone, in chain order.
    ///   - plaintextLimit: the most plaintext kept in memory, in bytes.
    ///   - what: when given and no password opened a password-based message that can be read
    ///     again, the run's reporter is asked (naming `what`) and its password tried alone.
    /// - Throws: what opening the store threw (a `StoreError`).
    public func open(_ message: WholeMessage, identities: IdentityChain, memory: Int, threads: Int = 1, position: Int? = nil,
                     plaintextLimit: Int = 64 << 20, askingAfter what: String? = nil) throws -> Result<Opened, NotOpened> {
        let sink = MemoryPlaintext(limit: plaintextLimit)
        let retrySink = MemoryPlaintext(limit: plaintextLimit)
        var usedRetry = false
        let result = try open(message, identities: identities, memory: memory, threads: threads, position: position, sink: sink,
                              retrySink: { usedRetry = true; return retrySink }, what: what)
        return result.map { opened in opened.with(plaintext: usedRetry ? retrySink.bytes : sink.bytes) }
    }

    /// `open(_:identities:memory:threads:position:plaintextLimit:askingAfter:)` into the
    /// private file `file`, of any size in bounded memory: nothing in it is to be released
    /// unless this returns ``Opened`` (a failure may leave part of it written).
    public func open(_ message: WholeMessage, identities: IdentityChain, memory: Int, to file: PrivateFile,
                     askingAfter what: String? = nil) throws -> Result<Opened, NotOpened> {
        let sink = PrivateFilePlaintext(file: file)
        return try open(message, identities: identities, memory: memory, threads: options.jobs, position: nil, sink: sink, retrySink: { sink }, what: what)
    }

    private func open(_ message: WholeMessage, identities: IdentityChain, memory: Int, threads: Int, position: Int?,
                      sink: some PlaintextSink, retrySink: () -> some PlaintextSink, what: String?) throws -> Result<Opened, NotOpened> {
        try open(message.type, message, identities: identities, memory: memory, threads: threads, position: position, sink: sink, retrySink: retrySink, what: what)
    }

    private func open<K: MessageKind>(_ kind: K.Type, _ message: WholeMessage, identities: IdentityChain, memory: Int, threads: Int, position: Int?,
                                      sink: some PlaintextSink, retrySink: () -> some PlaintextSink, what: String?) throws -> Result<Opened, NotOpened> {
        do {
            let budget = TryBudget(jobs: threads, memory: memory, kdfWork: options.kdfWork)
            var offered = Offered()
            var result: Result<MessageKinds.Decrypted, KindFailure>
            if let position, let memorySink = sink as? MemoryPlaintext {
                let costly = message.memoryPerTry != nil
                result = try walk(kind, input: { message.input() }, identities: identities, position: position, budget: budget,
                                  costly: costly, into: memorySink, offered: &offered)
            } else {
                result = try openLazily(kind, input: message.firstInput(), identities: identities, budget: budget, into: sink, offered: &offered)
            }
            func notOpened(_ failure: DecryptionFailure) -> NotOpened {
                NotOpened(failure: failure, passwordsOffered: offered.passwords, identitiesOffered: offered.identities)
            }
            if message.changed { return .failure(notOpened(.inputChanged)) }
            if case .failure(let failure) = result {
                let first = notOpened(DecryptionFailure(.kind(failure.kind, failure.error, tried: failure.tried)))
                // What the run tried, before the reporter's password joins it.
                let tried = client.runOnlyPasswords
                guard let what, first.isPasswordBased, let again = message.againInput(),
                      let password = askedPassword(after: what), !tried.contains(where: { $0.name == password.name }) else {
                    return .failure(first)
                }
                do {
                    let opened = try MessageKinds.open(kind, input: again, passwords: [password], identities: [], budget: budget, into: retrySink())
                    Self.count(kind, .success(opened))
                    result = .success(opened)
                } catch {
                    Self.count(kind, .failure(error))
                    return .failure(first)
                }
                if message.changed { return .failure(notOpened(.inputChanged)) }
            }
            let opened = try result.get()
            // An identity that opened it goes first from now on (a password: `finished(openedBy:)`).
            if case .identity(let name) = opened.openedBy { identities.finished(openedBy: name, at: position) }
            return .success(Opened(kind: MessageOpener.Kind(opened.kind), openedBy: opened.openedBy, tried: opened.tried, cost: opened.cost?.words,
                                   literal: opened.literal, plaintext: []))
        }
    }
}

extension Decryption.Opened {
    fileprivate func with(plaintext: [UInt8]) -> Decryption.Opened {
        Decryption.Opened(kind: kind, openedBy: openedBy, tried: tried, cost: cost, literal: literal, plaintext: plaintext)
    }
}

/// A regular file read from its start with `pread`, whatever its descriptor's offset;
/// `progress` is told the bytes read so far after each read.
package final class PreadSource: ByteSource {
    private let file: HeldDescriptor
    private var fd: Int32 { file.fd }
    private var offset = 0
    private let progress: ((Int) -> Void)?

    package init(_ file: HeldDescriptor, progress: ((Int) -> Void)? = nil) {
        self.file = file
        self.progress = progress
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do {
            let n = try retryingOnInterrupt { pread(fd, buffer.baseAddress!, buffer.count, off_t(offset)) }
            offset += n
            progress?(offset)
            return n
        } catch { throw .io(error) }
    }
}

/// A stream read by a caller's function.
private final class ReadingSource: ByteSource {
    private let reading: (UnsafeMutableRawBufferPointer) throws(Errno) -> Int

    init(_ reading: @escaping (UnsafeMutableRawBufferPointer) throws(Errno) -> Int) { self.reading = reading }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        guard buffer.count > 0 else { return 0 }
        do { return try reading(buffer) } catch { throw .io(error) }
    }
}

extension Decryption.Opened {
    /// The message opened into memory as a ``/RWSecretCore/Decrypted``: its plaintext, what opened it, its
    /// kind and its literal data (signatures not checked).
    public var decrypted: Decrypted { Decrypted(plaintext: plaintext, openedBy: openedBy, kind: kind, literal: literal) }
}

extension Decryption.WholeMessage {
    /// A `!vault` value of a YAML file (`key: !vault |` and its indented vault lines, as
    /// `ansible-vault encrypt_string` writes them): where it stands, and the Ansible Vault.
    public struct VaultValue: Sendable {
        /// The 1-based line of its key.
        public let line: Int
        /// The mapping key it belongs to; nil for a list item.
        public let key: String?
        /// The Ansible Vault it holds (read again as often as asked).
        public let message: Decryption.WholeMessage
        /// The bytes of its vault text.
        public let size: Int
    }

    /// The `!vault` values of the YAML document `text`, in order; none when it holds none (only
    /// the block-scalar shape above is recognised).
    public static func vaultValues(inYAML text: [UInt8]) -> [VaultValue] {
        AnsibleVaultKind.vaultValues(inYAML: text).map { VaultValue(line: $0.line, key: $0.key, message: Decryption.WholeMessage(vaultText: $0.text), size: $0.text.count) }
    }

    /// Whether an input whose first bytes are `prefix` may be YAML (its first significant line
    /// looks like a YAML document's): worth reading on for `!vault` values.
    public static func mayBeYAML(_ prefix: [UInt8]) -> Bool { KindRegistry.mayBeYAML(prefix) }

    /// Whether the YAML `text` has a `!vault` tag at all (one that ``vaultValues(inYAML:)``
    /// does not read says the values are of a shape not read).
    public static func mentionsVault(_ text: [UInt8]) -> Bool { KindRegistry.mentionsVault(text) }
}

/// A descriptor of its own (a duplicate), closed when the last reference goes.
package final class HeldDescriptor: Sendable {
    package let fd: Int32

    package init(duplicating fd: Int32) throws(Errno) {
        self.fd = try retryingOnInterrupt { fcntl(fd, F_DUPFD_CLOEXEC, 0) }
    }

    deinit { close(fd) }
}

extension Decryption {
    /// Whether the run was given something of its own to try (its passwords, or `identities`'
    /// files): then the store opens only when those do not open a message.
    public func hasOwnCredentials(identities: IdentityChain) -> Bool {
        !client.runOnlyPasswords.isEmpty || !identities.fileIdentities().isEmpty
    }

    /// Whether the chain holds no password at all, the store's included (opened now, the first
    /// time). Throws what opening the store threw (a `StoreError`).
    public func chainHasNoPassword() throws -> Bool {
        try client.chainHead()?.chainPasswords().isEmpty ?? true
    }

    /// How a whole file is opened in a run of `--jobs` N (``placement(of:identities:memory:)``).
    public struct Placement: Sendable {
        /// Opened alone, with the whole memory budget, once every message before it is done (on
        /// the reading thread): tell the run what opened it (``openedAlone(by:)``).
        public let alone: Bool
        /// The memory its costly tries may use on the pipeline (its share of the budget).
        public let memory: Int
    }

    /// How the whole file `message` is opened at `--jobs` N with a `memory` budget: alone
    /// when it is the run's first (it opens the store when it needs it and finds the first
    /// winner, which the files after it try first), when its one costly try needs more than its
    /// share (the budget over the jobs), when the run's own credentials are only identity files
    /// (the store may be needed still) or the chain holds no password (its record may stop the
    /// run); else on the pipeline, N at a time within the budget. Opens the store when the
    /// run was given nothing of its own; throws what that threw.
    public func placement(of message: WholeMessage, identities: IdentityChain, memory: Int) throws -> Placement {
        let perTry = message.memoryPerTry
        // The memory each file in flight may use (read only for a costly kind: cheap ones try one at a time).
        let share = perTry == nil ? 0 : memory / options.jobs
        var alone = wholeFiles.first() || (perTry ?? 0) > share
        if !alone && client.runOnlyPasswords.isEmpty {
            // With `--identity` files the store may not be open yet (it opens only when they
            // fail): one at a time. Else the first file opened it.
            alone = !identities.fileIdentities().isEmpty ? true : try chainHasNoPassword()
        }
        return Placement(alone: alone, memory: share)
    }

    /// A whole file opened alone (``Placement/alone``) was opened by `opener`: the walks of
    /// the files after it try its password first.
    public func openedAlone(by opener: Opener) {
        if case .password(let password) = opener { gate.opened(password.name) }
    }
}
