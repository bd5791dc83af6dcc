import RWSecretKit

// A consumer's code, written against the public API alone: `IdentityPublicAPITests` runs it,
// and typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`). What `rwsecret identity …` does with a store's identities, a
// program does here: keep age and OpenPGP identities, list them, and open files with them.

/// What a program does with the identities a store keeps.
enum ConsumerIdentities {
    /// Makes an age identity and keeps it in `store` under `label`; its recipient (`age1…`).
    static func make(in store: any IdentityStore, label: String?) throws -> String {
        let made = Age.Identity.generate(name: label ?? "new")
        try store.addIdentities([IdentityToAdd(label: label, secret: made.secretKey)])
        return made.recipient.description
    }

    /// Keeps the X25519 identities of an age identity file (`age-keygen`'s) and the secret
    /// keys of an OpenPGP key file (read with `passphrase`); the labels used.
    static func importFiles(ageFile: String, openPGPFile: [UInt8], passphrase: String?, into store: any IdentityStore) throws -> [String] {
        let ages = try Age.Identity.parseX25519(ageFile, name: "age-keygen")
        let keys = try OpenPGP.Identity.parse(openPGPFile, name: "gpg", passphrase: passphrase.map { SecretBytes(utf8: $0) })
        var adding = ages.compactMap { IdentityToAdd(label: nil, age: $0) }
        adding += keys.map { IdentityToAdd(label: "gpg-\($0.fingerprint.suffix(8))", openPGP: $0) }
        return try store.addIdentities(adding)
    }

    /// What `identity list` shows of each: label, kind, and the recipient (age) or the
    /// fingerprint and user ID (OpenPGP).
    static func list(_ store: any IdentityStore) throws -> [String] {
        try store.identities().map { stored -> String in
            if stored.kind == .openPGP, let key = stored.openPGP {
                return "\(stored.label) \(stored.kind) \(key.fingerprint) \(key.userID ?? "-")"
            }
            return "\(stored.label) \(stored.kind) \(stored.age?.recipient?.description ?? "damaged")"
        }
    }

    /// The armored secret key of the stored OpenPGP identity `label` (`identity export`).
    static func export(_ label: String, from store: any IdentityStore) throws -> [UInt8]? {
        guard let key = try store.identities().first(where: { $0.label == label })?.openPGP else { return nil }
        return key.armoredSecretKey().withUnsafeBytes { Array($0) }
    }

    /// Opens `message` (an age file or an OpenPGP message) with every identity of `store`:
    /// the plaintext and what opened it.
    static func open(_ message: [UInt8], with store: any IdentityStore) throws -> (plaintext: [UInt8], openedBy: String) {
        let identities = try store.identities().compactMap(\.identity)
        let opened = try MessageOpener(passwords: [], identities: identities).open(message)
        return (opened.plaintext, opened.openedBy.name.description)
    }

    /// The stored kinds a program can name: a kind this version does not know is nil.
    static func kind(named name: String) -> IdentityKind? { IdentityKind(rawValue: name) }
}
