import RWSecretKit

/// The identities an age message is offered, in order: the one that opened the last message
/// first (as the chain puts its last winning password first), then the X25519 identities (the
/// store's in stored order, then `--identity` files'), then the SSH keys of `--identity` files.
///
/// The store's identities are read once, when the first age message needs them (a file for
/// passwords alone, or a run with no age file, never reads them); `--no-store` has none.
/// An identity is named, in `--verbose` and in JSON's `password`, `identity LABEL` when stored
/// and `identity FILE` when given with `--identity`.
final class IdentityChain: @unchecked Sendable {
    private let files: [NamedIdentity]
    private let loadStored: () throws -> [NamedIdentity]
    private var stored: [NamedIdentity]?
    private var winner: String?
    private let lock = Lock()

    /// `files` from `--identity`; `loadStored` reads the store's (called at most once).
    init(files: [NamedIdentity], loadStored: @escaping () throws -> [NamedIdentity] = { [] }) {
        self.files = files
        self.loadStored = loadStored
    }

    /// The identities in the order they are offered now.
    func identities() throws -> [NamedIdentity] {
        try lock.withLock {
            if stored == nil { stored = try loadStored() }
            return ordered((stored ?? []) + files)
        }
    }

    /// The `--identity` files' alone, in the order offered (the store is not read).
    func fileIdentities() -> [NamedIdentity] {
        lock.withLock { ordered(files) }
    }

    /// The store's alone, in the order offered (read now, the first time).
    func storedIdentities() throws -> [NamedIdentity] {
        try lock.withLock {
            if stored == nil { stored = try loadStored() }
            return ordered(stored ?? [])
        }
    }

    /// X25519 first, then the SSH keys; the last winner before all.
    private func ordered(_ all: [NamedIdentity]) -> [NamedIdentity] {
        var ordered = all.filter { if case .ageX25519 = $0.credential { true } else { false } }
            + all.filter { if case .ageX25519 = $0.credential { false } else { true } }
        if let winner, let index = ordered.firstIndex(where: { $0.name == winner }) {
            ordered.insert(ordered.remove(at: index), at: 0)
        }
        return ordered
    }

    /// `--signer-key` files' keys: known signers of OpenPGP messages (set before the run reads).
    var signerKeys: [OpenPGPTransferableKey] = []

    /// The OpenPGP keys a signature is checked with: `--signer-key` files', then the OpenPGP
    /// `--identity` files' and the store's identities' (their public parts). The store's only
    /// when it was read already: checking a signature never opens a store by itself.
    func signatureKeys() -> [OpenPGPTransferableKey] {
        lock.withLock {
            signerKeys + (files + (stored ?? [])).compactMap { identity in
                if case .openPGPKey(let key) = identity.credential { return key }
                return nil
            }
        }
    }

    /// The identity named `name` opened a message: it goes first from now on.
    func finished(openedBy name: String) {
        lock.withLock { winner = name }
    }

    /// The store's identities as the chain offers them (a damaged item is left out, and said once).
    static func stored(in store: (any PasswordStore)?, global: GlobalOptions) throws -> [NamedIdentity] {
        guard let store = store as? any IdentityStore else { return [] }
        let identities: [StoredIdentity]
        do { identities = try store.identities() } catch { throw CommandFailure(error) }
        var named: [NamedIdentity] = []
        for identity in identities {
            if identity.kind == .openPGP {
                guard let key = identity.openPGPKey else {
                    Output.standardError.line("rwsecret: warning: the stored identity '\(Output.escaped(identity.label))' is not a valid \(identity.kind.rawValue) identity; not used")
                    continue
                }
                named.append(NamedIdentity(name: identity.label, openPGP: key))
                continue
            }
            guard let age = identity.ageIdentity else {
                Output.standardError.line("rwsecret: warning: the stored identity '\(Output.escaped(identity.label))' is not a valid \(identity.kind.rawValue) identity; not used")
                continue
            }
            named.append(NamedIdentity(name: identity.label, identity: age))
        }
        global.verboseLine("identities: \(named.count) stored")
        return named
    }
}
