import RWSecretKit

// A consumer's code, written against the public API alone: `OpenPGPIdentityTests` runs it, and
// typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`), so what runs here is what a consumer can write. Nothing in it is
// cast from one credential type to another.

/// What a program does with OpenPGP keys and a mixed chain of credentials.
enum ConsumerChain {
    /// Opens `message` (an OpenPGP message to a key) with the secret key in `keyFile`
    /// (armored or binary; read with `passphrase` when it is protected): the plaintext and
    /// the name of what opened it.
    static func open(_ message: [UInt8], keyFile: [UInt8], name: String, passphrase: String? = nil) throws -> (plaintext: [UInt8], openedBy: String) {
        let identity = try OpenPGP.Identity(keyFile, name: name, passphrase: passphrase.map { SecretBytes(utf8: $0) })
        let opened = try MessageOpener(passwords: [], identities: [identity]).open(message)
        return (opened.plaintext, opened.openedBy.name.description)
    }

    /// Reads a key file asking for its passphrase only when a key in it is protected (as a
    /// prompt would): the keys' names and fingerprints, and how many times it asked.
    static func readAsking(_ keyFile: [UInt8], passphrase: String?) throws -> (keys: [String], asked: Int) {
        var asked = 0
        let keys = try OpenPGP.Identity.parse(keyFile, name: "asked.key", asking: {
            asked += 1
            return passphrase.map { SecretBytes(utf8: $0) }
        })
        return (keys.map { "\($0.name) \($0.fingerprint)" }, asked)
    }

    /// The code a key file that cannot be read gives (nil: it was read).
    static func keyFileRefusal(_ keyFile: [UInt8], passphrase: String? = nil) -> OpenPGP.KeyError.Code? {
        do {
            _ = try OpenPGP.Identity.parse(keyFile, name: "key", passphrase: passphrase.map { SecretBytes(utf8: $0) })
            return nil
        } catch {
            return error.code
        }
    }

    /// An OpenPGP key held elsewhere (a card, a service): it is given the message's packets
    /// and asks the holder.
    struct OpenPGPToken: Identity {
        let name: String
        let held: OpenPGP.Identity
        func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? { try held.unwrap(packets) }
    }

    /// An age key held elsewhere, written before OpenPGP identities were: age stanzas only.
    struct AgeToken: Identity {
        let name: String
        let held: Age.Identity
        func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { try held.unwrap(stanzas) }
    }

    /// One chain, in the order a program holds it: a password, a key file's keys, an age
    /// identity file, an OpenPGP secret key file, and the program's own identities.
    static func chain(password: (name: String, secret: [UInt8]), keyFile: [UInt8], ageIdentities: String, openPGPKey: [UInt8],
                      own: [any Identity] = []) throws -> [any ChainCredential] {
        guard let keys = MessageKeys(concatenated: SecretBytes(keyFile)) else { return [] }
        var chain: [any ChainCredential] = [ChainPassword(name: password.name, secret: SecretBytes(password.secret)), keys]
        chain += try Age.Identity.parse(ageIdentities, name: "age-identity.txt")
        chain += try OpenPGP.Identity.parse(openPGPKey, name: "rsa.sec.asc")
        return chain + own
    }

    /// Opens each message with `chain` (one opener, as a server keeps it): for each, its kind
    /// and what opened it (`LABEL`, `key-file`, `identity NAME`), or why none did.
    static func open(_ messages: [[UInt8]], with chain: [any ChainCredential]) -> [String] {
        let opener = MessageOpener(chain: chain)
        return messages.map { message in
            do {
                let opened = try opener.open(message)
                return "\(opened.kind): \(opened.openedBy.name)"
            } catch {
                return "failed: \(error)"
            }
        }
    }

    /// The names a chain's credentials go by, before anything is opened (never a secret).
    static func names(_ chain: [any ChainCredential]) -> [String] { chain.map(\.credentialName.description) }

    /// The stored password labelled `label` alone opens `message` (the name of what opened it).
    static func openWithStored(_ message: [UInt8], label: String, store: any PasswordStore) throws -> String? {
        let client = PasswordClient(runOnly: []) { store }
        client.onlyStored(labels: [label])
        return try client.decrypt(message).openedBy.passwordName
    }
}
