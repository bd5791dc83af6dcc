/// Opens a message of any kind the library reads — RNCryptor, age (to a passphrase or to
/// X25519 and SSH identities), OpenPGP (to a password, `gpg -c`, or to secret keys) and
/// Ansible Vault — with a client's chain of passwords (and key) and identities.
///
/// The kind is detected from the message's content alone, through the one registry of
/// kinds (``kind(of:)``); a message of no known kind is tried as RNCryptor, whose failure
/// then says what the bytes are not. The chain's order is the client's (the password that
/// opened the last message first, then the store's passwords, then the run-only ones);
/// identities are offered to age files and OpenPGP messages after the passwords, in the order
/// given. The first credential that fits wins, and only a message that authenticated whole is
/// returned. ``init(chain:legacyFormats:)`` takes passwords, the key and identities as one chain.
///
/// `open` blocks the calling thread for the key derivations (PBKDF2, scrypt, Argon2); its
/// `async` form runs them on a thread of its own, so no Swift concurrency thread waits.
///
/// `Sendable`: one opener may serve every task of a server, as its client may.
public struct MessageOpener: Sendable {
    /// The chain of passwords (and the key) every kind is offered.
    public let client: PasswordClient
    /// The identities age files and OpenPGP messages are offered, in order: the library's
    /// (``Age/Identity``, ``OpenPGP/Identity``) or the program's own (any ``Identity``).
    public let identities: [any Identity]
    /// Threads that costly password tries (age's scrypt, OpenPGP's Argon2) may use at once.
    public var jobs: Int = 1
    /// Bytes of memory those tries may use at once (0: one try at a time, whatever it costs).
    public var memory: Int = 0
    /// The largest plaintext an in-memory open returns (larger: ``/RWSecretCore/DecryptionFailure/Code/tooLarge``).
    public var plaintextLimit: Int = 64 << 20

    /// An opener over `client`'s chain, offering `identities` to age files and OpenPGP messages.
    public init(client: PasswordClient, identities: [any Identity] = []) {
        self.client = client
        self.identities = identities
    }

    /// An opener over `passwords` (and `keys`, for key-based RNCryptor messages), with no store.
    public init(passwords: [ChainPassword], identities: [any Identity] = [], keys: MessageKeys? = nil,
                legacyFormats: LegacyFormats = .refused) {
        self.init(client: PasswordClient(runOnly: passwords, keys: keys, legacyFormats: legacyFormats) { nil }, identities: identities)
    }

    /// The kind of message whose first bytes are `prefix` (up to a kilobyte is looked at);
    /// nil when it is none the library reads.
    public static func kind(of prefix: some Collection<UInt8>) -> Kind? {
        KindRegistry.openableKind(Array(prefix.prefix(detectionLength))[...]).map { Kind($0) }
    }

    /// Opens `message` (the whole file, raw or armored as its kind allows), whatever its kind,
    /// and returns its verified plaintext, what opened it and its kind.
    ///
    /// Blocks for the key derivations; `await open(_:)` does not hold a concurrency thread.
    ///
    /// - Throws: ``/RWSecretCore/DecryptionFailure``: `format` (malformed, or no kind the library reads),
    ///   `noPasswordOpened`/`needsKey`/`keyDidNotOpen`/`badPadding` (RNCryptor),
    ///   `noCredentialOpened`/`notAuthentic`/`tooLarge` (the other kinds), `store`.
    public func open(_ message: some RandomAccessCollection<UInt8>) throws(DecryptionFailure) -> Decrypted {
        let bytes = Array(message)
        guard let kind = KindRegistry.wholeInputKind(bytes.prefix(detectionLength)) else { return try client.decrypt(bytes) }
        return try open(kind, bytes)
    }

    private func open<K: MessageKind>(_ kind: K.Type, _ bytes: [UInt8]) throws(DecryptionFailure) -> Decrypted {
        let passwords: [ChainPassword]
        do { passwords = try client.chainHead()?.chainPasswords() ?? [] } catch let error as StoreError { throw .store(error) } catch {
            throw .store(.unavailable(reason: String(describing: error), advice: ""))
        }
        // Each kind with a place for identities is offered them all: one not its type is not applicable there.
        let offered = K.needs.identities.isEmpty ? [] : identities
        let sink = MemoryPlaintext(limit: plaintextLimit)
        let opened: MessageKinds.Decrypted
        do {
            opened = try MessageKinds.open(kind, input: KindInput(bytes: bytes), passwords: passwords, identities: offered,
                                           budget: TryBudget(jobs: jobs, memory: memory), into: sink)
        } catch {
            throw DecryptionFailure(DecryptionFailure.Reason.kind(error.kind, error.error, tried: error.tried))
        }
        client.messageFinished(openedBy: opened.openedBy)
        return Decrypted(plaintext: sink.bytes, openedBy: opened.openedBy, kind: Kind(K.name), literal: opened.literal)
    }
}
