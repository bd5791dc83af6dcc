import Foundation
import Glibc
import RWSecretKit
import SystemPackage
import Testing

/// Issue 33 item 4: whole messages of other kinds (age, Ansible Vault, a YAML file's `!vault`
/// values) opened by a run's chain through the public API alone (`Decryption.WholeMessage`,
/// `Decryption.open`), with the facts the tool words its lines from: the kind, what opened it,
/// how many were tried, the recipients, what it was offered.
@Suite("Decryption.WholeMessage: whole messages of other kinds, through the public API")
struct WholeMessageTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/\(name)")))
    }

    static func run(_ passwords: [String], reporter: (any DecryptionReporter)? = nil) -> Decryption {
        let chain = passwords.enumerated().map { ChainPassword(name: "p\($0.offset)", secret: SecretBytes(utf8: $0.element)) }
        return Decryption(client: PasswordClient(runOnly: chain) { nil }, reporter: reporter)
    }

    /// A reporter that answers `answer` once.
    final class Answering: DecryptionReporter, @unchecked Sendable {
        let answer: String
        var asked: [String] = []
        init(_ answer: String) { self.answer = answer }
        func password(afterNoneOpened what: String) -> ChainPassword? {
            asked.append(what)
            return ChainPassword(name: "prompt", secret: SecretBytes(utf8: answer))
        }
    }

    @Test("an Ansible Vault opens with the chain's second password: its kind, opener, tries and plaintext; a wrong chain gives the facts")
    func ansibleVault() throws {
        let bytes = try Self.fixture("ansible-1.1.vault")
        let message = try #require(Decryption.WholeMessage(bytes: bytes))
        #expect(message.kind == .ansibleVault)
        #expect(message.canBeReadAgain)
        let opened = try Self.run(["wrong", "5m;UwAv]4|"]).open(message, identities: IdentityChain(files: []), memory: 64 << 20).get()
        #expect(opened.kind == .ansibleVault)
        #expect(opened.openedBy.passwordName == "p1")
        #expect(opened.tried == 2)
        #expect(String(decoding: opened.plaintext, as: UTF8.self) == "db_password: hunter2\n")
        #expect(opened.decrypted.plaintext == opened.plaintext)

        let failed = try Self.run(["wrong"]).open(message, identities: IdentityChain(files: []), memory: 64 << 20)
        guard case .failure(let notOpened) = failed else { Issue.record("opened with a wrong password"); return }
        #expect(notOpened.failure.code == .noCredentialOpened)
        #expect(notOpened.failure.kind == .ansibleVault)
        #expect(notOpened.failure.tried == 1)
        #expect(notOpened.passwordsOffered == 1)
        #expect(notOpened.isPasswordBased)
        #expect(!notOpened.chainWasEmpty)
    }

    @Test("an age file to an X25519 recipient and no identity: its recipient types, none offered, not a password's; an empty chain on an scrypt file says so")
    func ageRecipients() throws {
        let message = try #require(Decryption.WholeMessage(bytes: try Self.fixture("age-x25519.age")))
        #expect(message.kind == .age)
        let result = try Self.run([]).open(message, identities: IdentityChain(files: []), memory: 64 << 20)
        guard case .failure(let notOpened) = result else { Issue.record("opened with nothing"); return }
        #expect(Set(notOpened.failure.recipients) == ["X25519"])
        #expect(notOpened.identitiesOffered == 0)
        #expect(!notOpened.isPasswordBased)

        let scrypt = try #require(Decryption.WholeMessage(bytes: try Self.fixture("age-scrypt-ascii.age")))
        #expect(scrypt.memoryPerTry != nil)
        guard case .failure(let empty) = try Self.run([]).open(scrypt, identities: IdentityChain(files: []), memory: 64 << 20) else {
            Issue.record("opened with nothing"); return
        }
        #expect(empty.failure.recipients == ["scrypt"])
        #expect(empty.chainWasEmpty)
    }

    @Test("a regular file into a PrivateFile: none of the chain opens it, the reporter's password does (asked once, naming it)")
    func fileAskingAfter() throws {
        let path = Fixtures.directory.appendingPathComponent("kinds/ansible-1.1.vault").path
        let fd = try FileDescriptor.open(FilePath(path), .readOnly)
        defer { try? fd.close() }
        let message = try #require(Decryption.WholeMessage(file: fd, failsIfChanged: true))
        let reporter = Answering("5m;UwAv]4|")
        let file = try PrivateFile(in: FilePath(NSTemporaryDirectory()), needsName: false)
        let opened = try Self.run(["wrong"], reporter: reporter).open(message, identities: IdentityChain(files: []), memory: 64 << 20, to: file,
                                                                       askingAfter: "vault").get()
        #expect(reporter.asked == ["vault"])
        #expect(opened.openedBy.passwordName == "prompt")
        #expect(opened.plaintext.isEmpty)
        #expect(file.size == "db_password: hunter2\n".utf8.count)
    }

    @Test("a YAML file's !vault values: each with its line, its key and its Ansible Vault")
    func yamlValues() throws {
        let text = try Self.fixture("ansible-values.yml")
        #expect(Decryption.WholeMessage.mayBeYAML(text))
        #expect(Decryption.WholeMessage(bytes: text) == nil)
        let values = Decryption.WholeMessage.vaultValues(inYAML: text)
        #expect(values.map(\.key) == ["db_password", "api_token"])
        #expect(values.map(\.line) == [3, 10])
        #expect(values.allSatisfy { $0.message.kind == .ansibleVault && $0.size > 0 })
        #expect(Decryption.WholeMessage.vaultValues(inYAML: Array("a: 1\n".utf8)).isEmpty)
        #expect(Decryption.WholeMessage.mentionsVault(Array("a: !vault\n".utf8)))
    }

    @Test("a run's whole files at --jobs 2: the first alone, then on the pipeline with no memory share for a cheap kind; what the run was given; an empty chain")
    func placement() throws {
        let message = try #require(Decryption.WholeMessage(bytes: try Self.fixture("ansible-1.1.vault")))
        let given = Decryption(client: PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "a"))]) { nil },
                               options: Decryption.Options(jobs: 2))
        #expect(given.hasOwnCredentials(identities: IdentityChain(files: [])))
        #expect(try !given.chainHasNoPassword())
        #expect(try given.placement(of: message, identities: IdentityChain(files: []), memory: 1 << 30).alone)
        given.openedAlone(by: .password(ChainPassword(name: "a", secret: SecretBytes(utf8: "a"))))
        let second = try given.placement(of: message, identities: IdentityChain(files: []), memory: 1 << 30)
        #expect(!second.alone)
        #expect(second.memory == 0)

        let nothing = Decryption(client: PasswordClient(runOnly: []) { nil }, options: Decryption.Options(jobs: 2))
        #expect(!nothing.hasOwnCredentials(identities: IdentityChain(files: [])))
        #expect(try nothing.chainHasNoPassword())
        _ = try nothing.placement(of: message, identities: IdentityChain(files: []), memory: 1 << 30)
        #expect(try nothing.placement(of: message, identities: IdentityChain(files: []), memory: 1 << 30).alone)
    }
}
