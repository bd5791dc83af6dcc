import Foundation
import RWSecretKit
import Synchronization
import Testing

/// Issue 33, item 2, continued: OpenPGP secret keys are identities of the public protocol, and
/// passwords and key files are credentials of the same chain. A program loads an OpenPGP key
/// (armored or binary, protected or not) as `OpenPGP.Identity` and opens a message to it through
/// `MessageOpener`, as it opens an age file with `Age.Identity`; one `[any ChainCredential]`,
/// in the program's order, opens every kind and names what opened each. The calls are
/// `ConsumerChain`'s, which typechecks as a consumer's file. Before, OpenPGP keys conformed
/// inside the package only (`NamedIdentity`), `MessageOpener` offered identities to age files
/// alone (a message to a key failed with "no credential opened" even with its key), and there
/// was no chain of mixed credentials.
@Suite("Credentials: OpenPGP keys, passwords and key files in one chain", .serialized)
struct OpenPGPIdentityTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
    }

    /// The plaintext of every message of Fixtures/kinds/openpgp-librepgp-keys (its manifest).
    static let keyPlaintext = Array("to a key, sealed with LibrePGP's AEAD ✓\n".utf8)

    @Test("ConsumerChain.swift typechecks as a consumer's file: OpenPGP keys and the chain are public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerChain.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    // Issue 33, item 4: `rwsecret decrypt --password-label` on public API; before,
    // `PasswordClient.onlyStored(labels:)` was `package` (ConsumerChain did not typecheck).
    @Test("PasswordClient.onlyStored(labels:): only the labelled stored password is tried; an unknown label is a store error")
    func onlyStoredLabels() throws {
        let message = RNCryptor.encrypt(Array("labelled\n".utf8), password: SecretBytes(utf8: "second"))
        let store = MemoryPasswordStore([StoredPassword(label: "one", secret: SecretBytes(utf8: "first")),
                                         StoredPassword(label: "two", secret: SecretBytes(utf8: "second"))])
        #expect(try ConsumerChain.openWithStored(message, label: "two", store: store) == "two")
        #expect(throws: DecryptionFailure.self) { try ConsumerChain.openWithStored(message, label: "one", store: store) }
        do { _ = try ConsumerChain.openWithStored(message, label: "none", store: store); Issue.record("an unknown label opened") } catch {
            #expect("\(error)".contains("none"), "\(error)")
        }
    }

    @Test("a gpg-made RSA or cv25519 secret key opens the messages to it through MessageOpener, armored key and binary",
          arguments: ["rsa", "cv25519"])
    func committedKeys(_ name: String) throws {
        let key = try Self.fixture("kinds/openpgp-librepgp-keys/\(name).sec.asc")
        for message in ["\(name)-ocb.pgp", "\(name)-eax.pgp"] {
            let opened = try ConsumerChain.open(try Self.fixture("kinds/openpgp-librepgp-keys/\(message)"), keyFile: key, name: "\(name).sec.asc")
            #expect(opened.plaintext == Self.keyPlaintext, "\(message)")
            #expect(opened.openedBy == "identity \(name).sec.asc")
        }
        // The other key is no identity of these messages: none opened, nothing released.
        let other = try Self.fixture("kinds/openpgp-librepgp-keys/\(name == "rsa" ? "cv25519" : "rsa").sec.asc")
        #expect(throws: DecryptionFailure.self) { try ConsumerChain.open(try Self.fixture("kinds/openpgp-librepgp-keys/\(name)-ocb.pgp"), keyFile: other, name: "other") }
    }

    @Test("a key protected by a passphrase (gpg's export) reads with the passphrase the program gives, and opens gpg -e's message; none or a wrong one is said")
    func protectedGPGKey() throws {
        let peer = OpenPGPKeyPeerTests()
        defer { peer.stopAgent() }
        let fingerprint = try peer.makeKey("Carol", primary: "ed25519", subkey: "cv25519", passphrase: "carol's passphrase")
        let plaintext = Array("to Carol, by gpg -e\n".utf8)
        let message = try peer.encrypt(to: [fingerprint], plaintext, extra: ["--armor"])
        for armor in [true, false] {
            let key = try peer.exportSecret(fingerprint, armor: armor, passphrase: "carol's passphrase")
            let opened = try ConsumerChain.open(message, keyFile: key, name: "carol.key", passphrase: "carol's passphrase")
            #expect(opened.plaintext == plaintext)
            #expect(opened.openedBy == "identity carol.key")
            #expect(ConsumerChain.keyFileRefusal(key) == .needsPassphrase)
            #expect(ConsumerChain.keyFileRefusal(key, passphrase: "not it") == .wrongPassphrase)
            // Asked for when a protected key is met, once for the whole file; nil (cancelled) refuses it.
            let asked = try ConsumerChain.readAsking(key, passphrase: "carol's passphrase")
            #expect(asked.keys == ["asked.key \(fingerprint)"] && asked.asked == 1, "\(asked)")
            do {
                _ = try ConsumerChain.readAsking(key, passphrase: nil)
                Issue.record("read without its passphrase")
            } catch let error as OpenPGP.KeyError {
                #expect(error.code == .needsPassphrase)
            }
        }
        // An unprotected key never asks.
        #expect(try ConsumerChain.readAsking(try Self.fixture("kinds/openpgp-librepgp-keys/rsa.sec.asc"), passphrase: nil).asked == 0)
        let certificate = try peer.gpg(["--armor", "--export", fingerprint])
        #expect(ConsumerChain.keyFileRefusal(certificate.stdout) == .publicKey)
        #expect(ConsumerChain.keyFileRefusal(Array("not a key".utf8)) == .malformed)
    }

    /// How often an `asking` closure was called (on whichever thread).
    final class Asked: Sendable {
        let count = Mutex(0)
    }

    // Issue 33, item 6: reading a protected key derives its S2K; before, there was no async
    // form (this did not compile).
    @Test("OpenPGP.Identity's async forms read a protected key with its S2K derived on the library's scheduler pool")
    func asyncFormsDeriveOnThePool() async throws {
        let peer = OpenPGPKeyPeerTests()
        defer { peer.stopAgent() }
        // A passphrase no other test derives from: the witness matches derivations by bytes.
        let words = "pool-\(UInt64.random(in: 0...UInt64.max))"
        let fingerprint = try peer.makeKey("Dave", primary: "ed25519", subkey: "cv25519", passphrase: words)
        let key = try peer.exportSecret(fingerprint, armor: true, passphrase: words)
        let passphrase = SecretBytes(utf8: words)
        DerivationWitness.watch(passphrase)
        #expect(try await OpenPGP.Identity.parse(key, name: "dave.key", passphrase: passphrase).map(\.fingerprint) == [fingerprint])
        #expect(try await OpenPGP.Identity(key, name: "dave.key", passphrase: passphrase).fingerprint == fingerprint)
        let asked = Asked()
        let read = try await OpenPGP.Identity.parse(key, name: "dave.key", asking: {
            asked.count.withLock { $0 += 1 }
            return passphrase
        })
        #expect(read.map(\.fingerprint) == [fingerprint])
        let onPool = DerivationWitness.seen(passphrase)
        #expect(onPool.count >= 3 && onPool.allSatisfy { $0 }, "\(onPool)")
        #expect(asked.count.withLock { $0 } == 1)
        await #expect(throws: OpenPGP.KeyError.self) { try await OpenPGP.Identity.parse(key, name: "dave.key", passphrase: SecretBytes(utf8: "not it")) }
    }

    @Test("a program's own OpenPGP identity (a key held elsewhere) is given the message's packets and opens it; the result names it")
    func ownOpenPGPIdentity() throws {
        let held = try OpenPGP.Identity(try Self.fixture("kinds/openpgp-librepgp-keys/rsa.sec.asc"), name: "held")
        let token = ConsumerChain.OpenPGPToken(name: "card", held: held)
        for message in ["rsa-ocb.pgp", "rsa-ocb-zlib.asc"] {
            let opened = try MessageOpener(passwords: [], identities: [token]).open(try Self.fixture("kinds/openpgp-librepgp-keys/\(message)"))
            #expect(opened.kind == .openPGP)
            #expect(opened.plaintext == Self.keyPlaintext)
            #expect(opened.openedBy.name.description == "identity card")
        }
        // The packets it is given are the message's: one v3 PKESK, RSA, to the key's encryption subkey.
        struct Recorder: Identity {
            let name = "recorder"
            let seen = Seen()
            func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? {
                seen.packets.withLock { $0 = packets }
                return nil
            }
        }
        let recorder = Recorder()
        #expect(throws: DecryptionFailure.self) {
            try MessageOpener(passwords: [], identities: [recorder]).open(try Self.fixture("kinds/openpgp-librepgp-keys/rsa-ocb.pgp"))
        }
        let packets = recorder.seen.packets.withLock { $0 }
        #expect(packets.map(\.version) == [3] && packets.map(\.algorithm) == [1])
        #expect(packets.first?.keyID.count == 8 && packets.first?.isHidden == false)
        // A session key that is not the message's opens nothing: the message decides.
        struct Liar: Identity {
            let name = "liar"
            func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? {
                OpenPGP.SessionKey(algorithm: 9, key: SecretBytes([UInt8](repeating: 7, count: 32)))
            }
        }
        #expect(throws: DecryptionFailure.self) {
            try MessageOpener(passwords: [], identities: [Liar()]).open(try Self.fixture("kinds/openpgp-librepgp-keys/rsa-ocb.pgp"))
        }
    }

    final class Seen: Sendable {
        let packets = Mutex<[OpenPGP.EncryptedSessionKey]>([])
    }

    @Test("an OpenPGP identity that throws refuses the message, saying which identity and why")
    func throwingOpenPGPIdentity() throws {
        struct Unplugged: Identity {
            struct Down: Error, CustomStringConvertible { var description: String { "the card is not plugged in" } }
            let name = "card"
            func unwrap(_ packets: [OpenPGP.EncryptedSessionKey]) throws -> OpenPGP.SessionKey? { throw Down() }
        }
        do {
            _ = try MessageOpener(passwords: [], identities: [Unplugged()]).open(try Self.fixture("kinds/openpgp-librepgp-keys/cv25519-ocb.pgp"))
            Issue.record("opened")
        } catch let error as DecryptionFailure {
            #expect(error.kind == .openPGP)
            #expect("\(error)".contains("identity card: the card is not plugged in"), "\(error)")
        }
    }

    @Test("one mixed chain [password, key file, age identity, OpenPGP identity] opens every kind and names the credential that opened each")
    func mixedChain() throws {
        let keyFile = [UInt8](repeating: 1, count: 32) + [UInt8](repeating: 2, count: 32)
        let keys = try MessageKeys(encryptionKey: SecretBytes(Array(keyFile[..<32])), hmacKey: SecretBytes(Array(keyFile[32...])))
        // gpg -c's fixture's passphrase (Fixtures/kinds/openpgp/manifest.tsv) is the chain's password.
        let password = Hex.decode("33643364765e5d2d4426384059")
        let ageToken = ConsumerChain.AgeToken(name: "age-token", held: Age.Identity.generate(name: "unused").identity)
        let chain = try ConsumerChain.chain(password: ("app", password), keyFile: keyFile,
                                            ageIdentities: String(decoding: try Self.fixture("kinds/age-identity.txt"), as: UTF8.self),
                                            openPGPKey: try Self.fixture("kinds/openpgp-librepgp-keys/rsa.sec.asc"), own: [ageToken])
        #expect(ConsumerChain.names(chain) == ["app", "key-file", "identity age-identity.txt", "identity rsa.sec.asc", "identity age-token"])
        let messages = [
            RNCryptor.encrypt(Array("by password".utf8), password: SecretBytes(password)),
            RNCryptor.encrypt(Array("by key".utf8), keys: keys),
            try Self.fixture("kinds/age-x25519.age"),
            try Self.fixture("kinds/openpgp-librepgp-keys/rsa-ocb.pgp"),
            try Self.fixture("kinds/openpgp/aes256-sha256-zlib.gpg"),
            try Self.fixture("kinds/openpgp-librepgp-keys/cv25519-ocb.pgp"),
        ]
        let results = ConsumerChain.open(messages, with: chain)
        #expect(Array(results.prefix(5)) == [
            "rncryptor: app",
            "rncryptor: key-file",
            "age: identity age-identity.txt",
            "openpgp: identity rsa.sec.asc",
            "openpgp: app",
        ])
        // A message to a key the chain does not hold: one line, nothing released.
        #expect(results.last?.hasPrefix("failed: no credential opened this OpenPGP message") == true, "\(results.last ?? "")")
    }
}
