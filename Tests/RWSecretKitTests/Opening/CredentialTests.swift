import Foundation
import RWSecretKit
import Synchronization
import Testing

/// Issue 33, item 2: credentials as an open protocol, in age's shape. A program's own
/// identity (one that holds its key elsewhere) opens an age file through `MessageOpener`,
/// as `age.Decrypt(r, identities...)` takes any `Identity`; its own recipient wraps the file
/// key for `Age.encrypt`; and what opened a message is a credential's name, never a password
/// made up for an identity. Before, `MessageOpener` took `[Age.Identity]` alone (a closed
/// set) and none of these typechecked.
@Suite("Credentials: identities and recipients of a program's own")
struct CredentialTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
    }

    static func identityFile() throws -> [Age.Identity] {
        try Age.Identity.parse(String(decoding: try fixture("kinds/age-identity.txt"), as: UTF8.self), name: "age-identity.txt")
    }

    /// An identity whose key is held elsewhere (a token, a service): it sees the stanzas and
    /// asks the holder, counting the calls.
    struct HeldElsewhere: Identity {
        let name: String
        let holder: Age.Identity
        let calls = Counter()

        init(name: String, holder: Age.Identity) {
            self.name = name
            self.holder = holder
        }

        func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? {
            calls.value.add(1, ordering: .relaxed)
            return try holder.unwrap(stanzas)
        }
    }

    final class Counter: Sendable { let value = Atomic<Int>(0) }

    /// An identity whose holder cannot be reached.
    struct Unreachable: Identity {
        struct Down: Error, CustomStringConvertible { var description: String { "the token is not plugged in" } }
        let name = "token"
        func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { throw Down() }
    }

    @Test("a program's own identity opens an age file; the result names it, with no password")
    func ownIdentityOpens() throws {
        let holder = try #require(try Self.identityFile().first)
        let own = HeldElsewhere(name: "token", holder: holder)
        let opened = try MessageOpener(passwords: [ChainPassword(name: "unrelated", secret: SecretBytes(utf8: "pw"))], identities: [own])
            .open(try Self.fixture("kinds/age-x25519.age"))
        #expect(opened.kind == .age)
        #expect(sha256Hex(opened.plaintext) == "71bc859958f0f01cf9cecee01f13a9b8de111200007a7c0d3dbaf0cf9847a889")
        #expect(opened.openedBy.identityName == "token")
        #expect(opened.openedBy.passwordName == nil, "an identity is not a password")
        #expect(opened.openedBy.name == CredentialName(kind: .identity, label: "token"))
        #expect(opened.openedBy.name.description == "identity token")
        #expect(own.calls.value.load(ordering: .relaxed) == 1)
    }

    @Test("identities in the order given: the first that unwraps wins, the one after is not asked")
    func orderGiven() throws {
        let holder = try #require(try Self.identityFile().first)
        let stranger = Age.Identity.generate(name: "stranger").identity
        let first = HeldElsewhere(name: "first", holder: stranger)
        let second = HeldElsewhere(name: "second", holder: holder)
        let third = HeldElsewhere(name: "third", holder: holder)
        let opened = try MessageOpener(passwords: [], identities: [first, second, third]).open(try Self.fixture("kinds/age-x25519.age"))
        #expect(opened.openedBy.identityName == "second")
        #expect([first, second, third].map { $0.calls.value.load(ordering: .relaxed) } == [1, 1, 0])
    }

    @Test("a file to a passphrase never asks an identity (it costs no key derivation, and has no stanza of its)")
    func passphraseFileAsksNoIdentity() throws {
        let holder = try #require(try Self.identityFile().first)
        let own = HeldElsewhere(name: "token", holder: holder)
        let age = ChainPassword(name: "age", secret: SecretBytes(Hex.decode("5af09f98807165cc81ed959c6be697a5e69cacc39f4f57e697a5d096")))
        let opened = try MessageOpener(passwords: [age], identities: [own]).open(try Self.fixture("kinds/age-scrypt-unicode.age"))
        #expect(opened.openedBy.passwordName == "age")
        #expect(opened.openedBy.name.description == "age" && opened.openedBy.name.kind == .password)
        #expect(own.calls.value.load(ordering: .relaxed) == 0)
    }

    @Test("an identity that throws refuses the file, saying which identity and why")
    func throwingIdentity() throws {
        do {
            _ = try MessageOpener(passwords: [], identities: [Unreachable()]).open(try Self.fixture("kinds/age-x25519.age"))
            Issue.record("opened")
        } catch let error as DecryptionFailure {
            #expect(error.kind == .age)
            #expect("\(error)".contains("identity token: the token is not plugged in"), "\(error)")
        }
    }

    @Test("an identity that unwraps a wrong key opens nothing: the header MAC decides")
    func wrongKey() throws {
        struct Liar: Identity {
            let name = "liar"
            func unwrap(_ stanzas: [Age.Stanza]) throws -> SecretBytes? { SecretBytes([UInt8](repeating: 7, count: 16)) }
        }
        do {
            _ = try MessageOpener(passwords: [], identities: [Liar()]).open(try Self.fixture("kinds/age-x25519.age"))
            Issue.record("opened")
        } catch let error as DecryptionFailure {
            #expect(error.code == .notAuthentic || error.code == .format, "\(error.code): \(error)")
        }
    }

    /// A recipient held elsewhere: it wraps through the library's recipient and counts.
    struct OwnRecipient: Recipient {
        let inner: Age.Recipient
        func wrap(_ fileKey: SecretBytes) throws -> [Age.Stanza] { try inner.wrap(fileKey) }
    }

    @Test("a program's own recipient wraps the file key for Age.encrypt; the library's identity opens it, and the age command too")
    func ownRecipient() throws {
        let (identity, secretKey, recipient) = Age.Identity.generate(name: "fresh")
        let file = try Age.encrypt(Array("to my recipient\n".utf8), to: [OwnRecipient(inner: recipient)])
        let opened = try MessageOpener(passwords: [], identities: [identity]).open(file)
        #expect(opened.plaintext == Array("to my recipient\n".utf8))
        #expect(opened.openedBy.name.description == "identity fresh")
        // The library's identity unwraps a stanza its recipient wrapped, through the protocol alone.
        let key = SecretBytes(Array(repeating: 9, count: 16))
        let stanzas = try recipient.wrap(key)
        #expect(stanzas.map(\.type) == ["X25519"])
        #expect(try identity.unwrap(stanzas)?.isEqual(to: key) == true)
        #expect(try Age.Identity.generate(name: "other").identity.unwrap(stanzas) == nil)
        // age opens it.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rws-cred-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let keyFile = dir.appendingPathComponent("key.txt")
        try Data(secretKey.withUnsafeBytes { Array($0) } + [0x0a]).write(to: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        let age = URL(fileURLWithPath: "/usr/bin/age")
        guard FileManager.default.isExecutableFile(atPath: age.path) else { return }
        let process = Process()
        process.executableURL = age
        process.arguments = ["-d", "-i", keyFile.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(file))
        try input.fileHandleForWriting.close()
        let plaintext = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(Array(plaintext) == Array("to my recipient\n".utf8))
    }

    @Test("a recipient that gives a stanza age's header cannot hold is refused, nothing written")
    func unwritableStanza() {
        struct Bad: Recipient {
            let stanzas: [Age.Stanza]
            func wrap(_ fileKey: SecretBytes) throws -> [Age.Stanza] { stanzas }
        }
        for stanzas in [[], [Age.Stanza(type: "has space", arguments: [], body: [1])], [Age.Stanza(type: "x", arguments: [""], body: [])],
                        [Age.Stanza(type: "x\n-> X25519", arguments: [], body: [])]] {
            do {
                _ = try Age.encrypt([1, 2, 3], to: [Bad(stanzas: stanzas)])
                Issue.record("written with \(stanzas)")
            } catch {
                #expect(error.code == .malformed)
            }
        }
    }

    @Test("credential names: a password by its chain name, an identity as identity NAME, the key as key-file")
    func names() throws {
        let keys = try MessageKeys(encryptionKey: SecretBytes(Array(repeating: 1, count: 32)), hmacKey: SecretBytes(Array(repeating: 2, count: 32)))
        let client = PasswordClient(runOnly: [ChainPassword(name: "app", secret: SecretBytes(utf8: "pw"))], keys: keys) { nil }
        let byPassword = try client.decrypt(RNCryptor.encrypt([1], password: SecretBytes(utf8: "pw")))
        #expect(byPassword.openedBy.name == CredentialName(kind: .password, label: "app") && "\(byPassword.openedBy.name)" == "app")
        let byKey = try client.decrypt(RNCryptor.encrypt([1], keys: keys))
        #expect(byKey.openedBy.name.kind == .key && "\(byKey.openedBy.name)" == "key-file")
    }
}
