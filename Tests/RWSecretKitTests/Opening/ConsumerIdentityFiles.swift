import RWSecretKit

// A consumer's code, written against the public API alone: `IdentityFilesPublicTests` runs it,
// and typechecks this very file as a program that depends on RWSecretKit does (no `package`
// symbols, no `@testable`). What `rwsecret decrypt --identity FILE` and `identity import` do
// with identity files, a program does here; the passphrases are the program's to ask.

/// Reading identity files: OpenSSH keys, age identity files (encrypted with age -p or not).
enum ConsumerIdentityFiles {
    /// The identities of the file `bytes` (named `name`), asking `passphrases` in turn when a
    /// key or the file is protected (none left: it is refused), and the lines skipped.
    static func read(_ bytes: [UInt8], name: String, passphrases: [String]) throws -> (identities: [any Identity], skipped: [String], asked: Int) {
        let asker = Asker(passphrases)
        var contents = bytes
        if let file = try Age.EncryptedIdentityFile(bytes) {
            contents = try openEncrypted(file, asker)
        }
        if OpenPGP.looksLikeKey(contents) {
            let keys = try OpenPGP.Identity.parse(contents, name: name, asking: { asker.next() })
            return (keys, [], asker.asked)
        }
        let text = String(decoding: contents, as: UTF8.self)
        if let ssh = try readSSH(text, name: name, asker) { return ([ssh], [], asker.asked) }
        var skipped: [String] = []
        let identities = try Age.Identity.parseX25519(text, name: name, skipped: &skipped)
        return (identities, skipped, asker.asked)
    }

    /// The passphrases a program has to give, in turn (a prompt's tries).
    final class Asker {
        let passphrases: [String]
        var asked = 0
        init(_ passphrases: [String]) { self.passphrases = passphrases }
        var left: Bool { asked < passphrases.count }
        func next() -> SecretBytes? {
            guard left else { return nil }
            asked += 1
            return SecretBytes(utf8: passphrases[asked - 1])
        }
    }

    private static func openEncrypted(_ file: Age.EncryptedIdentityFile, _ asker: Asker) throws -> [UInt8] {
        while let passphrase = asker.next() {
            if let inside = try file.open(passphrase: passphrase) { return inside }
        }
        throw NoPassphraseOpened()
    }

    /// An OpenSSH key, asked for its passphrase when it has one; nil when `text` is none.
    private static func readSSH(_ text: String, name: String, _ asker: Asker) throws -> Age.Identity? {
        var passphrase: SecretBytes? = nil
        while true {
            do {
                return try Age.Identity.parseSSH(text, name: name, passphrase: passphrase)
            } catch {
                // Asked again while passphrases are left; the last refusal (or needsPassphrase) ends it.
                guard error.code == .needsPassphrase || error.code == .wrongPassphrase, let next = asker.next() else { throw error }
                passphrase = next
            }
        }
    }

    /// Opens `message` with a chain of the files' identities and a store's, read only when
    /// needed; the plaintext and what opened it.
    static func open(_ message: [UInt8], files: [any Identity], store: any IdentityStore) throws -> (plaintext: [UInt8], openedBy: String, chain: IdentityChain) {
        let chain = IdentityChain(files: files) { try store.identities().compactMap(\.identity) }
        let opened = try MessageOpener(passwords: [], identities: files + (try store.identities().compactMap(\.identity))).open(message)
        return (opened.plaintext, opened.openedBy.name.description, chain)
    }

    /// The secret keys of an OpenPGP key file, every one named `name` (as `rwsecret decrypt
    /// --identity` names them by the file), and the keys a chain of them and `signers` checks
    /// signatures with (signers first).
    static func keysNamedByFile(_ bytes: [UInt8], name: String, signers: [OpenPGP.Certificate]) throws -> (identities: [any Identity], signatureKeys: [OpenPGP.Certificate]) {
        let keys: [any Identity] = try OpenPGP.Identity.parse(bytes, name: name).map { $0.renamed(name) }
        let chain = IdentityChain(files: keys)
        chain.signerKeys = signers
        return (keys, chain.signatureKeys())
    }

    /// The code reading `bytes` is refused with, and its words (nil: it was read).
    static func refusal(_ bytes: [UInt8], passphrases: [String] = []) -> (code: Age.KeyError.Code?, words: String)? {
        do { _ = try read(bytes, name: "refused", passphrases: passphrases) } catch let error as Age.KeyError {
            return (error.code, error.description)
        } catch { return (nil, "\(error)") }
        return nil
    }

    /// No passphrase given opened an encrypted identity file.
    struct NoPassphraseOpened: Error, CustomStringConvertible {
        var description: String { "no passphrase given opens this identity file" }
    }
}

