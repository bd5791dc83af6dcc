/// The identities a run of many messages offers each age file and OpenPGP message, in order:
/// the one that opened the last message first (as a ``/RWSecretCore/PasswordClient`` puts its last winning
/// password first), then the X25519 identities (the store's in stored order, then the run's
/// files'), then the others (SSH keys, OpenPGP keys, a program's own).
///
/// The store's identities are read once, when the first message that takes identities needs
/// them: a run of messages to passwords alone never reads them (nor asks for a vault's
/// passphrase). A program reads a store's with ``/RWSecretCore/IdentityStore/identities()`` and
/// ``RWSecretCore/StoredIdentity/identity`` (named by their labels; nil for a damaged item, which it may
/// warn of). `Sendable`: one chain serves every thread of a run.
public final class IdentityChain: @unchecked Sendable {
    private let files: [NamedIdentity]
    private let loadStored: () throws -> [NamedIdentity]
    private var stored: [NamedIdentity]?
    /// The identity that opened the latest message, whatever its place.
    private var winner: String?
    /// The identities that opened messages, by the message's place in the run (a pipeline
    /// position; a message opened alone sits after every place seen before it), in order of
    /// place, the last `remembered` at most; and the highest place seen.
    private var placed: [(place: Double, name: String)] = []
    private var highest = -1.0
    private static let remembered = 4096
    private let lock = ThreadLock()

    /// A chain of `files` (the identities read from files given for the run: ``Age/Identity``,
    /// ``OpenPGP/Identity``, a program's own) and the store's, which `loadStored` reads (called
    /// at most once, when a message first needs identities; what it throws ends that message).
    public init(files: [any Identity], loadStored: @escaping () throws -> [any Identity] = { [] }) {
        self.files = files.map(NamedIdentity.init(identity:))
        self.loadStored = { try loadStored().map(NamedIdentity.init(identity:)) }
    }

    /// The identities in the order they are offered now, to the message at `position` in the
    /// run's pipeline (nil: a message opened alone, or at `--jobs 1`).
    package func identities(at position: Int? = nil) throws -> [NamedIdentity] {
        try lock.withLock {
            if stored == nil { stored = try loadStored() }
            return ordered((stored ?? []) + files, at: position)
        }
    }

    /// The `--identity` files' alone, in the order offered (the store is not read).
    package func fileIdentities(at position: Int? = nil) -> [NamedIdentity] {
        lock.withLock { ordered(files, at: position) }
    }

    /// The store's alone, in the order offered (read now, the first time).
    package func storedIdentities(at position: Int? = nil) throws -> [NamedIdentity] {
        try lock.withLock {
            if stored == nil { stored = try loadStored() }
            return ordered(stored ?? [], at: position)
        }
    }

    /// X25519 first, then the SSH keys; before all, the identity that opened the latest
    /// message (`position` nil) or the nearest message before `position` that one opened.
    ///
    /// By place, not by time: at `--jobs` 2 and more, a later file opened first must not
    /// reorder the identities of an earlier one still to walk them. Its `tried` count would
    /// then depend on which thread ran first (a file to `b` after one opened by `b` tried `a`
    /// first when the file after it, to `a`, had opened meanwhile): at `--jobs 1` it is 1.
    private func ordered(_ all: [NamedIdentity], at position: Int?) -> [NamedIdentity] {
        var ordered = all.filter { if case .ageX25519 = $0.credential { true } else { false } }
            + all.filter { if case .ageX25519 = $0.credential { false } else { true } }
        let first: String?
        if let position {
            let place = Double(position)
            highest = max(highest, place)
            first = placed.last { $0.place < place }?.name
        } else {
            first = winner
        }
        if let first, let index = ordered.firstIndex(where: { $0.name == first }) {
            ordered.insert(ordered.remove(at: index), at: 0)
        }
        return ordered
    }

    /// Known signers of OpenPGP messages (the tool's `--signer-key` files' keys), first among
    /// ``signatureKeys()``: set before the chain is shared with a run (it is not locked).
    public var signerKeys: [OpenPGP.Certificate] = []

    /// The OpenPGP keys a signature is checked with: `--signer-key` files', then the OpenPGP
    /// `--identity` files' and the store's identities' (their public parts). The store's only
    /// when it was read already: checking a signature never opens a store by itself.
    /// (``OpenPGPSignature/checked(with:)`` takes them, once the message has verified.)
    public func signatureKeys() -> [OpenPGP.Certificate] {
        lock.withLock {
            signerKeys + (files + (stored ?? [])).compactMap { identity in
                if case .openPGPKey(let key) = identity.credential { return OpenPGP.Certificate(key: key) }
                return nil
            }
        }
    }

    /// The identity named `name` opened the message at `position` in the run's pipeline (nil:
    /// opened alone, or at `--jobs 1`): it goes first for the messages after it.
    package func finished(openedBy name: String, at position: Int? = nil) {
        lock.withLock {
            winner = name
            // Opened alone: every message before it was done, every one after it comes later.
            let place = position.map(Double.init) ?? highest + 0.5
            highest = max(highest, place)
            let index = placed.firstIndex { $0.place > place } ?? placed.endIndex
            placed.insert((place, name), at: index)
            if placed.count > Self.remembered { placed.removeFirst() }
        }
    }
}

extension NamedIdentity {
    /// `identity` as the kinds are offered it: the library's own as they are, a program's own
    /// called through its `unwrap`.
    package init(identity: any Identity) {
        if let named = identity as? NamedIdentity {
            self = named
        } else {
            name = identity.name
            credential = identity.asCredential
        }
    }
}
