import Testing
@_spi(Testing) import RWSecretKit

/// One message written by another RNCryptor implementation itself (Fixtures/peers/generate_peer_fixtures.py).
struct PeerRecord: CustomTestStringConvertible, Sendable {
    let line: Int
    let peer: String
    let version: UInt8
    let isKeyBased: Bool
    let iterations: Int
    let secret: [UInt8]
    /// What rwsecret is given: the password as the peer got it, or its other normalization form.
    let candidate: [UInt8]
    let plaintext: [UInt8]
    let message: String
    let note: String

    var testDescription: String { "peers/messages.tsv:\(line) \(peer) v\(version) \(note)" }

    static let all: [PeerRecord] = {
        var records: [PeerRecord] = []
        for (index, line) in Fixtures.text("peers/messages.tsv").split(separator: "\n").enumerated() where !line.hasPrefix("#") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            records.append(PeerRecord(line: index + 1, peer: f[0], version: UInt8(f[1])!, isKeyBased: f[2] == "key",
                                      iterations: Int(f[3])!, secret: Hex.decode(f[4]), candidate: Hex.decode(f[5]),
                                      plaintext: Hex.decode(f[6]), message: f[7], note: f[8]))
        }
        return records
    }()
}

@Suite("Interop with messages made by other RNCryptor implementations")
struct PeerInteropTests {
    @Test("the fixture file covers every peer, version, dialect and mode it promises")
    func coverage() {
        let records = PeerRecord.all
        #expect(records.count >= 150)
        #expect(Set(records.map(\.peer)) == ["php", "ruby", "jscryptor", "rncryptor-c", "pypi"])
        #expect(Set(records.map(\.version)) == [0, 1, 2, 3])
        #expect(records.contains { $0.isKeyBased })
        #expect(records.contains { $0.iterations != KeyDerivation.iterations })
        #expect(records.contains { $0.candidate != $0.secret }, "a password opened in its other normalization form")
        #expect(records.contains { String(decoding: $0.secret, as: UTF8.self).unicodeScalars.contains { $0.value > 0xFFFF } }, "an emoji password")
        #expect(records.contains { $0.version == 0 && $0.plaintext.count > 256 * 16 }, "a v0 message whose counter wraps")
    }

    /// Through the chain, as the tool decrypts: one candidate, the record's iteration count.
    @Test("every peer message opens through the chain with its password, as one password tried", arguments: PeerRecord.all.filter { !$0.isKeyBased })
    func opensThroughChain(_ record: PeerRecord) throws {
        let bytes = try #require(Base64.decodeLenient(Array(record.message.utf8)), "\(record.testDescription)")
        let message = try Message(bytes)
        let wrong = ChainPassword(name: "wrong", secret: SecretBytes(utf8: "not it"))
        let right = ChainPassword(name: "right", secret: SecretBytes(record.candidate))
        let client = try PasswordClient(runOnly: [wrong, right], iterations: record.iterations, legacyFormats: .allowed) { nil }
        let result = try client.decrypt(message)
        guard case .success(let decrypted) = result else {
            Issue.record("\(record.testDescription): \(result)")
            return
        }
        #expect(decrypted.plaintext == record.plaintext, "\(record.testDescription)")
        #expect(decrypted.openedBy.passwordName == "right", "\(record.testDescription)")
        // The one-shot API tries the same forms.
        #expect(try message.decrypt(password: SecretBytes(record.candidate), iterations: record.iterations, legacyFormats: .allowed) == record.plaintext, "\(record.testDescription)")
    }

    @Test("every key-based peer message opens with its keys", arguments: PeerRecord.all.filter(\.isKeyBased))
    func opensWithKeys(_ record: PeerRecord) throws {
        let bytes = try #require(Base64.decodeLenient(Array(record.message.utf8)))
        let keys = try #require(MessageKeys(concatenated: SecretBytes(record.secret)))
        #expect(try RNCryptor.decrypt(bytes, keys: keys, legacyFormats: .allowed) == record.plaintext, "\(record.testDescription)")
    }

    /// The whole chain fails for a wrong password, and says it tried one password, whatever the forms.
    @Test("a wrong non-ASCII password is one password tried", arguments: [UInt8(0), 1, 2, 3])
    func wrongPasswordCountsOnce(version: UInt8) throws {
        let record = try #require(PeerRecord.all.first { $0.version == version && !$0.isKeyBased && $0.iterations == KeyDerivation.iterations })
        let message = try Message(try #require(Base64.decodeLenient(Array(record.message.utf8))))
        let client = PasswordClient(runOnly: [ChainPassword(name: "w", secret: SecretBytes(utf8: "e\u{301}te\u{301} 🦄 wrong"))], legacyFormats: .allowed) { nil }
        let result = try client.decrypt(message)
        #expect(result.failureValue == .noPasswordOpened(tried: 1))
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let f) = self { f } else { nil } }
}
