import Dispatch
import Foundation
import RWSecretKit
import Synchronization
import Testing

/// Issue 33: a program that depends on RWSecretKit opens every kind through the public API
/// (before, `PasswordClient.decrypt` on an age file said `format: unknown version 97`), its
/// errors are one struct with a code, and the `async` forms hold no concurrency thread.
@Suite("MessageOpener: every kind through the public API")
struct MessageOpenerTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
    }

    static func password(hex: String, name: String = "app") -> ChainPassword {
        ChainPassword(name: name, secret: SecretBytes(Hex.decode(hex)))
    }

    static func sha256(_ bytes: [UInt8]) -> String { sha256Hex(bytes) }

    @Test("the kind is detected from content alone, through the one registry")
    func detection() throws {
        #expect(MessageOpener.kind(of: try Self.fixture("kinds/age-x25519.age")) == .age)
        #expect(MessageOpener.kind(of: try Self.fixture("kinds/age-x25519-armored.age")) == .age)
        #expect(MessageOpener.kind(of: try Self.fixture("kinds/ansible-1.1.vault")) == .ansibleVault)
        #expect(MessageOpener.kind(of: try Self.fixture("kinds/openpgp/aes256-sha256-zlib.gpg")) == .openPGP)
        #expect(MessageOpener.kind(of: try Self.fixture("kinds/openpgp/aes128-sha1-zip.asc")) == .openPGP)
        #expect(MessageOpener.kind(of: RNCryptor.encrypt([1], password: SecretBytes(utf8: "pw"))) == .rncryptor)
        #expect(MessageOpener.kind(of: Array("plain text".utf8)) == nil)
    }

    @Test("RNCryptor, age (passphrase and X25519), gpg -c and Ansible Vault open with one call each")
    func everyKind() throws {
        let passwords = [
            Self.password(hex: "5af09f98807165cc81ed959c6be697a5e69cacc39f4f57e697a5d096", name: "age"),
            Self.password(hex: "33643364765e5d2d4426384059", name: "gpg"),
            Self.password(hex: "356d3b557741765d347c", name: "ansible"),
            ChainPassword(name: "rncryptor", secret: SecretBytes(utf8: "pw")),
        ]
        let identityText = String(decoding: try Self.fixture("kinds/age-identity.txt"), as: UTF8.self)
        let identities = try Age.Identity.parse(identityText, name: "age-identity.txt")
        let opener = MessageOpener(passwords: passwords, identities: identities)

        let age = try opener.open(try Self.fixture("kinds/age-scrypt-unicode.age"))
        #expect(age.kind == .age && age.openedBy.passwordName == "age")
        #expect(age.plaintext == Hex.decode("61206c696e65206f6620746578740a"))

        let x25519 = try opener.open(try Self.fixture("kinds/age-x25519.age"))
        #expect(x25519.kind == .age && x25519.openedBy.identityName == "age-identity.txt")
        #expect(Self.sha256(x25519.plaintext) == "71bc859958f0f01cf9cecee01f13a9b8de111200007a7c0d3dbaf0cf9847a889")

        let gpg = try opener.open(try Self.fixture("kinds/openpgp/aes256-sha256-zlib.gpg"))
        #expect(gpg.kind == .openPGP && gpg.openedBy.passwordName == "gpg")
        #expect(gpg.plaintext == Hex.decode("61206c696e65206f6620746578740a"))

        let ansible = try opener.open(try Self.fixture("kinds/ansible-1.1.vault"))
        #expect(ansible.kind == .ansibleVault && ansible.openedBy.passwordName == "ansible")
        #expect(ansible.plaintext == Array("db_password: hunter2\n".utf8))

        let rncryptor = try opener.open(RNCryptor.encrypt(Array("raw".utf8), password: SecretBytes(utf8: "pw")))
        #expect(rncryptor.kind == .rncryptor && rncryptor.openedBy.passwordName == "rncryptor" && rncryptor.plaintext == Array("raw".utf8))
    }

    /// The failure `body` throws; nil when it opened.
    static func failure(_ body: () throws(DecryptionFailure) -> Decrypted) -> DecryptionFailure? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test("a kind's failures are DecryptionFailure codes: no credential, not authentic, malformed")
    func failures() throws {
        let opener = MessageOpener(passwords: [ChainPassword(name: "wrong", secret: SecretBytes(utf8: "wrong"))])
        let vault = try Self.fixture("kinds/ansible-1.1.vault")
        let wrong = Self.failure { () throws(DecryptionFailure) in try opener.open(vault) }
        #expect(wrong?.code == .noCredentialOpened && wrong?.tried == 1 && wrong?.kind == .ansibleVault)
        #expect(wrong?.description == "no credential opened this Ansible Vault (tried 1)")
        // An age file for an identity, and none given.
        let forIdentity = try Self.fixture("kinds/age-x25519.age")
        let noIdentity = Self.failure { () throws(DecryptionFailure) in try opener.open(forIdentity) }
        #expect(noIdentity?.code == .noCredentialOpened && noIdentity?.kind == .age)
        // A changed byte in an authenticated age payload.
        let identity = try Age.Identity.parse(String(decoding: try Self.fixture("kinds/age-identity.txt"), as: UTF8.self), name: "id")
        var tampered = forIdentity
        tampered[tampered.count - 20] ^= 1
        let changed = Self.failure { () throws(DecryptionFailure) in try MessageOpener(passwords: [], identities: identity).open(tampered) }
        #expect(changed?.code == .notAuthentic, "\(String(describing: changed))")
        let none = Self.failure { () throws(DecryptionFailure) in try opener.open(Array("not a message at all".utf8)) }
        #expect(none?.code == .format && none?.formatError?.code == .unknownFormat)
    }

    @Test("age to recipients: an X25519 file the age command opens, and one rwsecret's opener opens")
    func ageRecipients() throws {
        let (identity, secretKey, recipient) = Age.Identity.generate(name: "fresh")
        let file = try Age.encrypt(Array("to a recipient\n".utf8), to: [recipient], armor: true)
        #expect(try MessageOpener(passwords: [], identities: [identity]).open(file).plaintext == Array("to a recipient\n".utf8))
        // The age command itself opens it with the secret key (an identity file, mode 0600).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rwsecret-opener-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keyFile = folder.appendingPathComponent("key.txt")
        FileManager.default.createFile(atPath: keyFile.path, contents: nil, attributes: [.posixPermissions: 0o600])
        try secretKey.withUnsafeBytes { try Data($0).write(to: keyFile) }
        let input = folder.appendingPathComponent("file.age")
        try Data(file).write(to: input)
        let age = Process()
        age.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        age.arguments = ["age", "--decrypt", "-i", keyFile.path, input.path]
        let out = Pipe()
        age.standardOutput = out
        try age.runCheckingDescriptors()
        let plaintext = out.fileHandleForReading.readDataToEndOfFile()
        age.waitUntilExit()
        #expect(age.terminationStatus == 0 && plaintext == Data("to a recipient\n".utf8))
        // A secret key is not a recipient.
        #expect(throws: Age.KeyError.self) { try Age.Recipient("AGE-SECRET-KEY-1QQQQ") }
        let secretText = String(decoding: secretKey.withUnsafeBytes { Array($0) }, as: UTF8.self)
        #expect(throws: Age.KeyError.self) { try Age.Recipient(secretText) }
        do { _ = try Age.Recipient(secretText) } catch { #expect(error.code == .secretKeyAsRecipient) }
    }

    /// A store whose every read fails with the consumer's own StoreError.
    final class FailingStore: PasswordStore {
        var location: String { "remote" }
        func open() throws(StoreError) { throw StoreError(code: .unavailable, description: "the password service is down") }
        func labels() throws(StoreError) -> [String] { throw StoreError(code: .unavailable, description: "the password service is down") }
        func passwords() throws(StoreError) -> [StoredPassword] { throw StoreError(code: .locked, description: "the password service is locked") }
        func add(_ passwords: [PasswordToAdd], check: (SecretBytes, [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] { [] }
        func remove(labels: [String]) throws(StoreError) {}
        func rename(_ label: String, to newLabel: String) throws(StoreError) {}
    }

    @Test("a custom store's StoreError reaches the caller as code store, for every kind")
    func customStoreThrows() throws {
        let client = PasswordClient(runOnly: []) { FailingStore() }
        let opener = MessageOpener(client: client)
        for message in [try Self.fixture("kinds/ansible-1.1.vault"), RNCryptor.encrypt([1], password: SecretBytes(utf8: "pw"))] {
            let error = Self.failure { () throws(DecryptionFailure) in try opener.open(message) }
            #expect(error?.code == .store && error?.storeError?.code == .locked)
            #expect(error?.description == "the password service is locked")
        }
    }

    /// A store whose first read waits until `gate` is signalled (at most 60 s, then it fails).
    final class GatedStore: PasswordStore {
        let gate: DispatchSemaphore
        init(gate: DispatchSemaphore) { self.gate = gate }
        var location: String { "gated" }
        func open() throws(StoreError) {}
        func labels() throws(StoreError) -> [String] { ["app"] }
        func passwords() throws(StoreError) -> [StoredPassword] {
            guard gate.wait(timeout: .now() + 60) == .success else { throw StoreError(code: .unavailable, description: "the gate never opened") }
            return [StoredPassword(label: "app", secret: SecretBytes(utf8: "pw"))]
        }
        func add(_ passwords: [PasswordToAdd], check: (SecretBytes, [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] { [] }
        func remove(labels: [String]) throws(StoreError) {}
        func rename(_ label: String, to newLabel: String) throws(StoreError) {}
    }

    @Test("the async forms hold no concurrency thread while they block: more waiting opens than cores, and the task that lets them go still runs")
    func asyncFormsFreeTheirThread() async throws {
        // Swift concurrency runs tasks on one thread per core. If the async forms blocked one,
        // the waiting opens would take them all and the last task, which opens the gate, would
        // never run: each open would fail after its 60 s wait.
        let waiting = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let gate = DispatchSemaphore(value: 0)
        let rncryptor = await RNCryptor.encrypt(Array("rn".utf8), password: SecretBytes(utf8: "pw"))
        let ansible = Ansible.vault
        let results = await withTaskGroup(of: String.self) { group in
            for index in 0..<waiting {
                group.addTask {
                    let opener = MessageOpener(client: PasswordClient(runOnly: []) { GatedStore(gate: gate) })
                    do { return String(decoding: try await opener.open(index % 2 == 0 ? rncryptor : ansible).plaintext, as: UTF8.self) } catch {
                        return "failed: \(error)"
                    }
                }
            }
            group.addTask {
                for _ in 0..<waiting { gate.signal() }
                return "gate"
            }
            var results: [String] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.filter { $0 == "rn" }.count == (waiting + 1) / 2, "\(results)")
        #expect(results.filter { $0 == "secret\n" }.count == waiting / 2, "\(results)")
    }

    /// A store that records, at each read, whether it was called on a thread of the library's
    /// scheduler pool.
    final class PoolCheckingStore: PasswordStore {
        let reads: Mutex<[Bool]>
        init() { reads = Mutex([]) }
        var location: String { "pool-checking" }
        func open() throws(StoreError) {}
        func labels() throws(StoreError) -> [String] { ["app"] }
        func passwords() throws(StoreError) -> [StoredPassword] {
            let onPool = Scheduler.shared.isPoolThread
            reads.withLock { $0.append(onPool) }
            return [StoredPassword(label: "app", secret: SecretBytes(utf8: "pw"))]
        }
        func add(_ passwords: [PasswordToAdd], check: (SecretBytes, [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] { [] }
        func remove(labels: [String]) throws(StoreError) {}
        func rename(_ label: String, to newLabel: String) throws(StoreError) {}
    }

    // Issue 33, item 6: one concurrency mechanism. Before, the async forms ran their blocking
    // work on Dispatch's global queue, a third pool beside the scheduler's and Swift's.
    @Test("the async forms run their blocking work (the store's read, the key derivations) on the library's scheduler pool")
    func asyncFormsRunOnTheScheduler() async throws {
        let message = await RNCryptor.encrypt(Array("pool".utf8), password: SecretBytes(utf8: "pw"))
        let store = PoolCheckingStore()
        let opener = MessageOpener(client: PasswordClient(runOnly: []) { store })
        #expect(try await opener.open(message).plaintext == Array("pool".utf8))
        let client = PasswordClient(runOnly: []) { store }
        #expect(try await client.decrypt(message).openedBy.passwordName == "app")
        #expect(store.reads.withLock { $0 } == [true, true])
        #expect(!Scheduler.shared.isPoolThread)
    }

    /// A password no other test derives from (`DerivationWitness` matches by bytes).
    static func unshared() -> SecretBytes { SecretBytes(utf8: "pool-\(UInt64.random(in: 0...UInt64.max))") }

    // Issue 33, item 6: every blocking call that derives a key has an async form. Before,
    // `Encryptor(password:)`, `Decryptor`'s first `update`, `Age.Writer(passphrase:)` and
    // `Age.EncryptedIdentityFile.open(passphrase:)` had none (this did not compile).
    @Test("the async forms of the calls that make a message or open an identity file derive their keys on the scheduler's pool")
    func derivingAsyncFormsRunOnTheScheduler() async throws {
        let plaintext = Array("derived on the pool".utf8)

        let password = Self.unshared()
        DerivationWitness.watch(password)
        let encryptor = await Encryptor(password: password)
        let message = encryptor.update(plaintext) + encryptor.finalize()
        #expect(DerivationWitness.seen(password) == [true, true])  // the encryption key, the HMAC key

        DerivationWitness.watch(password)
        let counted = try await Encryptor(password: password, iterations: 1000)
        let fewer = counted.update(plaintext) + counted.finalize()
        #expect(DerivationWitness.seen(password) == [true, true])

        DerivationWitness.watch(password)
        let decryptor = Decryptor(password: password)
        try await decryptor.update(message.prefix(40))  // past the 34-byte header: PBKDF2
        try await decryptor.update(message.dropFirst(40))
        #expect(try decryptor.finalize() == plaintext)
        #expect(DerivationWitness.seen(password) == [true, true])
        let counting = try Decryptor(password: password, iterations: 1000)
        try await counting.update(fewer)
        #expect(try counting.finalize() == plaintext)

        let passphrase = Self.unshared()
        DerivationWitness.watch(passphrase)
        let writer = await Age.Writer(passphrase: passphrase, workFactor: 10)
        let age = writer.update(plaintext) + writer.finalize()
        #expect(DerivationWitness.seen(passphrase) == [true])

        let file = try #require(try Age.EncryptedIdentityFile(age))
        DerivationWitness.watch(passphrase)
        #expect(try await file.open(passphrase: passphrase) == plaintext)
        #expect(DerivationWitness.seen(passphrase) == [true])
        #expect(!Scheduler.shared.isPoolThread)
    }

    @Test("the async forms give what the blocking ones give")
    func asyncForms() async throws {
        let message = await RNCryptor.encrypt(Array("async".utf8), password: SecretBytes(utf8: "pw"))
        #expect(try await RNCryptor.decrypt(message, password: SecretBytes(utf8: "pw")) == Array("async".utf8))
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "pw"))]) { nil }
        #expect(try await client.decrypt(message).openedBy.passwordName == "a")
        let age = await Age.encrypt(Array("age".utf8), passphrase: SecretBytes(utf8: "pw"), workFactor: 10)
        #expect(try await MessageOpener(client: client).open(age).plaintext == Array("age".utf8))
        await #expect(throws: DecryptionFailure.self) {
            _ = try await PasswordClient(runOnly: []) { nil }.decrypt(message)
        }
    }
}

/// An Ansible Vault of "secret\n" under "pw" (ansible-vault 2.14), for the gated test.
enum Ansible {
    static let vault = Array("""
        $ANSIBLE_VAULT;1.1;AES256
        62643539323230303035626533346664353032666433666634306163623730613464356234313962
        3664363139393564663034663935383061386335363839340a623164306633373066393631356466
        31643263343139383163633438326532303130653330393830333966663635626261393038343164
        3831326639623864320a333333313532346561313962613936363635303934313766663166303230
        3066

        """.utf8)
}
