import Foundation
@testable import RWSecretKit
import Testing

/// Issue 33, item 1: one registry says what an input is, and every kind — RNCryptor included —
/// is a `MessageKind` that states what it needs and whether one try is costly.
@Suite("one detection registry for every kind")
struct KindRegistryTests {
    static func fixture(_ name: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: Fixtures.directory.appendingPathComponent("kinds/" + name).path) ?? Data())
    }

    static func detect(_ bytes: [UInt8], final: Bool = true) -> KindRegistry.Answer {
        KindRegistry.detect(bytes[...], final: final)
    }

    @Test("each kind's message is told by the registry, binary and armored, after whitespace and after text")
    func kinds() throws {
        let rncryptor = RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(Array("pw".utf8)))
        #expect(Self.detect(rncryptor) == .rncryptorRaw)
        #expect(Self.detect(Array(RNCryptor.Base64.encode(rncryptor).utf8) + [0x0a]) == .text)
        #expect(Self.detect(Self.fixture("age-x25519.age")) == .message(AgeKind.self))
        #expect(Self.detect(Self.fixture("age-x25519-armored.age")) == .message(AgeKind.self))
        #expect(Self.detect(Array(" \n\t\n".utf8) + Self.fixture("age-x25519-armored.age")) == .message(AgeKind.self))
        #expect(Self.detect(Self.fixture("ansible-1.1.vault")) == .message(AnsibleVaultKind.self))
        let asc = Self.fixture("openpgp/aes128-sha1-zip.asc")
        #expect(Self.detect(asc) == .message(OpenPGPKind.self))
        #expect(Self.detect(Array("Hi Bob, here it is:\n\n".utf8) + asc + Array("\nbye\n".utf8)) == .message(OpenPGPKind.self))
        // An age armor after text is age's (which refuses it in one line, as age does).
        #expect(Self.detect(Array("Hi Bob, here it is:\n\n".utf8) + Self.fixture("age-x25519-armored.age")) == .message(AgeKind.self))
        #expect(Self.detect(Array("Salted__12345678".utf8) + [UInt8](repeating: 7, count: 32)) == .foreign(.openSSLEnc))
        #expect(Self.detect(Array("RNC".utf8) + [4, 1, 2, 3, 4]) == .foreign(.rncryptorV4Draft))
        #expect(Self.detect([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]) == .notMessage(.binaryData))
        #expect(Self.detect(Array("just some words\nand more\n".utf8)) == .text)
        #expect(KindRegistry.mayBeYAML(Array("db_password: !vault |\n".utf8)))
        #expect(!KindRegistry.mayBeYAML(Array(RNCryptor.Base64.encode(rncryptor).utf8)))
    }

    @Test("too few bytes to tell asks for more, unless the input ended")
    func needMore() {
        #expect(Self.detect([3], final: false) == .needMore(2))
        #expect(Self.detect(Array("Sal".utf8), final: false) == .needMore(8))
        #expect(Self.detect(Array("Sal\n".utf8), final: false) == .text)
        #expect(Self.detect([], final: false) == .needMore(1))
        #expect(Self.detect([3], final: true) == .rncryptorRaw)
    }

    @Test("the reasons for what is no message are worded once, in the registry")
    func notMessages() {
        #expect(KindRegistry.NotAMessage.plainText.words == "not a secret message (plain text)")
        #expect(KindRegistry.NotAMessage.binaryData.words == "not a secret message (binary data)")
        #expect(KindRegistry.NotAMessage.yamlWithoutVault.words == "a YAML file with no `!vault` value")
        #expect(KindRegistry.mentionsVault(Array("a: !vault |\n$ANSIBLE_VAULT;1.1;AES256\n".utf8)))
        #expect(!KindRegistry.mentionsVault(Array("a: b\n".utf8)))
    }

    @Test("every kind states what it needs and whether one try is costly; RNCryptor is one of them")
    func needs() throws {
        #expect(KindRegistry.kinds.map { $0.name } == [.rncryptor, .age, .ansibleVault, .openpgp])
        #expect(KindRegistry.wholeInputKinds.map { $0.name } == [.age, .ansibleVault, .openpgp])
        #expect(RNCryptorKind.needs == CredentialNeeds(passwords: true, keyFile: true))
        #expect(AgeKind.needs.identities == [.ageX25519, .ageSSH, .ageOwn])
        #expect(OpenPGPKind.needs.identities == [.openPGPKey])
        #expect(AnsibleVaultKind.needs == CredentialNeeds(passwords: true))
        let scrypt = try AgeKind.parseHeader(KindInput(bytes: Self.fixture("age-scrypt-ascii.age")))
        let x25519 = try AgeKind.parseHeader(KindInput(bytes: Self.fixture("age-x25519.age")))
        #expect(AgeKind.oneTryIsCostly(scrypt))
        #expect(!AgeKind.oneTryIsCostly(x25519))
        let message = RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(Array("pw".utf8)))
        #expect(!RNCryptorKind.oneTryIsCostly(try RNCryptorKind.parseHeader(KindInput(bytes: message))))
    }

    @Test("the memory of one costly try is the kind's to say: age's scrypt, OpenPGP's Argon2; none for a cheap one or a bad header")
    func memoryPerTry() throws {
        let scrypt = Self.fixture("age-scrypt-ascii.age")
        let logN = try #require(try AgeKind.parseHeader(KindInput(bytes: scrypt)).scrypt?.logN)
        #expect(MessageKinds.memoryPerTry(AgeKind.self, input: KindInput(bytes: scrypt)) == AgeScryptBatch.memoryPerTry(logN: logN))
        #expect(MessageKinds.memoryPerTry(AgeKind.self, input: KindInput(bytes: Self.fixture("age-x25519.age"))) == nil)
        let argon2 = OpenPGPRFC9580Tests.bytes("a12.1-v4skesk-argon2-aes128.asc")
        #expect(MessageKinds.memoryPerTry(OpenPGPKind.self, input: KindInput(bytes: argon2)) == 2 << 30)
        #expect(MessageKinds.memoryPerTry(OpenPGPKind.self, input: KindInput(bytes: Self.fixture("openpgp/aes128-sha1-zip.asc"))) == nil)
        #expect(MessageKinds.memoryPerTry(AnsibleVaultKind.self, input: KindInput(bytes: Self.fixture("ansible-1.1.vault"))) == nil)
        let message = RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(Array("pw".utf8)))
        #expect(MessageKinds.memoryPerTry(RNCryptorKind.self, input: KindInput(bytes: message)) == nil)
        #expect(MessageKinds.memoryPerTry(AgeKind.self, input: KindInput(bytes: Array("age-encryption.org/v1\n-> scrypt\n".utf8))) == nil)
    }

    @Test("an RNCryptor message opens through MessageKind's steps as the other kinds do; a wrong password is one try")
    func rncryptorKind() throws {
        let message = RNCryptor.encrypt(Array("the plaintext".utf8), password: SecretBytes(Array("right".utf8)))
        let sink = MemoryPlaintext()
        let opened = try MessageKinds.open(RNCryptorKind.self, input: KindInput(bytes: message),
                                           passwords: [ChainPassword(name: "a", secret: SecretBytes(Array("wrong".utf8))),
                                                       ChainPassword(name: "b", secret: SecretBytes(Array("right".utf8)))],
                                           identities: [], into: sink)
        #expect(sink.bytes == Array("the plaintext".utf8))
        #expect(opened.tried == 2)
        #expect(opened.kind == .rncryptor)
        var tampered = message
        tampered[tampered.count - 1] ^= 1
        #expect(throws: KindFailure.self) {
            try MessageKinds.open(RNCryptorKind.self, input: KindInput(bytes: tampered),
                                  passwords: [ChainPassword(name: "b", secret: SecretBytes(Array("right".utf8)))], identities: [], into: MemoryPlaintext())
        }
    }

    /// The registry's promise, checked as the issue's checker does: no file outside the
    /// registry and the kinds' own folders tests a kind's magic bytes or header lines.
    @Test("no file outside KindRegistry.swift and Kinds/<kind>/ tests magic bytes")
    func noMagicElsewhere() throws {
        let sources = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("Sources")
        let magic = ["age-encryption.org", "encryption.org/", "\"age-\"", "-----BEGIN", "ANSIBLE_VAULT", "!vault", "Salted__", "U2FsdGVk", "Uk5D", "\"RNC\""]
        let tests = ["starts(with", "hasPrefix", "contains(", "elementsEqual", "firstRange", "range(of", "== Array(", "let tag = Array("]
        var found: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        #expect(files.count > 50)
        for file in files {
            if file == "RWSecretKit/Kinds/KindRegistry.swift" { continue }
            if ["Age", "OpenPGP", "Ansible", "RNCryptor"].contains(where: { file.hasPrefix("RWSecretKit/Kinds/\($0)/") }) { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }
                if magic.contains(where: { code.contains($0) }) && tests.contains(where: { code.contains($0) }) {
                    found.append("\(file):\(number + 1): \(code)")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }
}
