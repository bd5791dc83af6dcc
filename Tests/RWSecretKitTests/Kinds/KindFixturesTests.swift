import Foundation
@testable import RWSecretKit
import Testing

/// One message of Fixtures/kinds (scripts/generate-kind-fixtures.py): made once by age and
/// ansible-vault, committed, so that these messages open on a machine without the peers too.
struct KindFixture: CustomTestStringConvertible, Sendable {
    let file: String
    let kind: String
    let credential: String
    let secret: [UInt8]
    let key: String?
    let line: Int?
    let sha256: String
    let plaintext: [UInt8]?

    var testDescription: String { "kinds/\(file)" + (key.map { " \($0)" } ?? "") }

    static let directory = Fixtures.directory.appendingPathComponent("kinds")

    static let all: [KindFixture] = Fixtures.text("kinds/manifest.tsv").split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        return KindFixture(file: f[0], kind: f[1], credential: f[2], secret: Hex.decode(f[3]), key: f[4] == "-" ? nil : f[4],
                           line: Int(f[5]), sha256: f[6], plaintext: f[7] == "-" ? nil : Hex.decode(f[7]))
    }

    func bytes(_ name: String) -> [UInt8] { Array(FileManager.default.contents(atPath: Self.directory.appendingPathComponent(name).path) ?? Data()) }
}

@Suite("Committed age and Ansible Vault messages (Fixtures/kinds)")
struct KindFixturesTests {
    @Test("the fixtures cover age scrypt and X25519, armored and binary, Ansible 1.1, 1.2 and YAML values")
    func coverage() {
        let all = KindFixture.all
        #expect(all.count == 10)
        #expect(Set(all.map(\.kind)) == ["age", "ansible-vault"])
        #expect(all.contains { $0.credential == "identity" })
        #expect(all.contains { $0.key != nil })
        #expect(all.contains { $0.plaintext == [] })
    }

    @Test("each opens with its password or identity, to the plaintext the manifest names", arguments: KindFixture.all)
    func opens(_ fixture: KindFixture) throws {
        var message = fixture.bytes(fixture.file)
        var credentials: [RWSecretKit.Credential]
        if fixture.credential == "identity" {
            let text = String(decoding: fixture.bytes(String(decoding: fixture.secret, as: UTF8.self)), as: UTF8.self)
            credentials = try AgeX25519Identity.parseFile(text).map { .ageX25519($0) }
        } else {
            credentials = [.password(SecretBytes(fixture.secret))]
        }
        let prefix = ArraySlice(message.prefix(detectionLength))
        let result: Result<(plaintext: [UInt8], index: Int, tried: Int), KindError>
        switch fixture.kind {
        case "age":
            #expect(AgeKind.detect(prefix))
            result = Peers.open(AgeKind.self, message, credentials)
        default:
            if let key = fixture.key {
                let value = try #require(AnsibleVaultKind.vaultValues(inYAML: message).first { $0.key == key })
                #expect(value.line == fixture.line)
                message = value.text
            } else {
                #expect(AnsibleVaultKind.detect(prefix))
            }
            // A wrong password first: PBKDF2 is cheap here.
            credentials.insert(.password(SecretBytes(utf8: "not the password")), at: 0)
            result = Peers.open(AnsibleVaultKind.self, message, credentials)
        }
        switch result {
        case .success(let opened):
            #expect(sha256Hex(opened.plaintext) == fixture.sha256)
            if let plaintext = fixture.plaintext { #expect(opened.plaintext == plaintext) }
        case .failure(let error):
            Issue.record("\(fixture.testDescription): \(error)")
        }
    }

    @Test("an age file to a recipient that is not ours is no match, naming the recipient's type")
    func foreignRecipient() throws {
        let message = Array(FileManager.default.contents(atPath: KindFixture.directory.appendingPathComponent("age-foreign-recipient.age").path) ?? Data())
        let ours = try AgeX25519Identity.parseFile(Fixtures.text("kinds/age-identity.txt"))
        let result = Peers.open(AgeKind.self, message, ours.map { .ageX25519($0) } + [.password(SecretBytes(utf8: "pw"))])
        #expect(result.failure == .noMatch(["X25519"]))
        #expect(result.failure?.description == "no credential opens it (recipients: X25519)")
    }
}
