import Glibc
import Testing
@_spi(Testing) import RWSecretKit
import SystemPackage

/// Versions 0 and 1 authenticate the ciphertext only: every public entry point refuses
/// them unless told `.allowed` (issue 21, item 2; issue 23, item 3). Before, XORing the
/// IV of the project's own v1 fixture made every entry point release attacker-chosen text.
@Suite("Legacy versions 0 and 1 are refused by default")
struct LegacyFormatsTests {
    static let password = SecretBytes(utf8: "correct horse battery")

    /// The v1 fixture ("Hello from a peer") with its IV XORed so that the first block reads "PAY 9999 to Eve!".
    static func tamperedV1() throws -> (original: [UInt8], tampered: [UInt8]) {
        let record = try #require(PeerRecord.all.first {
            $0.version == 1 && !$0.isKeyBased && $0.secret == Array("correct horse battery".utf8) && $0.plaintext == Array("Hello from a peer".utf8)
        })
        let original = try #require(Base64.decodeLenient(Array(record.message.utf8)))
        var tampered = original
        let wanted = Array("PAY 9999 to Eve!".utf8)
        for i in 0..<16 { tampered[18 + i] ^= record.plaintext[i] ^ wanted[i] }
        return (original, tampered)
    }

    @Test("the tampered v1 fixture still verifies when legacy formats are allowed (why they are refused)")
    func theAttackWorksWhenAllowed() throws {
        let (_, tampered) = try Self.tamperedV1()
        #expect(try RNCryptor.decrypt(tampered, password: Self.password, legacyFormats: .allowed) == Array("PAY 9999 to Eve!r".utf8))
    }

    @Test("RNCryptor.decrypt, Message.decrypt, Decryptor, PasswordClient and VerifiedStream refuse v1 by default")
    func everyEntryPointRefusesByDefault() throws {
        let (original, tampered) = try Self.tamperedV1()
        for bytes in [original, tampered] {
            #expect(throws: RNCryptorError.legacyVersion(1)) { try RNCryptor.decrypt(bytes, password: Self.password) }
            #expect(throws: RNCryptorError.legacyVersion(1)) { try Message(bytes).decrypt(password: Self.password) }
            let decryptor = Decryptor(password: Self.password)
            #expect(throws: RNCryptorError.legacyVersion(1)) { try decryptor.update(bytes) }
            let opened = LockedState(0)
            let client = PasswordClient(runOnly: [ChainPassword(name: "p", secret: Self.password)]) { opened.withLock { $0 += 1 }; return nil }
            #expect(try client.decrypt(try Message(bytes)).failureValue == .format(.legacyVersion(1)))
            #expect(throws: DecryptionFailure.format(.legacyVersion(1))) { try client.decrypt(bytes) }
            #expect(opened.withLock { $0 } == 0, "the store was opened for a refused message")
            #expect(throws: VerifiedStream.Failure.self) { try Self.stream(bytes, client: client) }
        }
        // Allowed: the original opens everywhere.
        #expect(try Message(original).decrypt(password: Self.password, legacyFormats: .allowed) == Array("Hello from a peer".utf8))
        let decryptor = Decryptor(password: Self.password, legacyFormats: .allowed)
        try decryptor.update(original)
        #expect(try decryptor.finalize() == Array("Hello from a peer".utf8))
        let client = PasswordClient(runOnly: [ChainPassword(name: "p", secret: Self.password)], legacyFormats: .allowed) { nil }
        #expect(try client.decrypt(try Message(original)).get().plaintext == Array("Hello from a peer".utf8))
        #expect(try Self.stream(original, client: client) == Array("Hello from a peer".utf8))
    }

    @Test("v0 and key-based v1 are refused by default; v2 and v3 open as before", arguments: [UInt8(0), 1, 2, 3])
    func versions(version: UInt8) throws {
        for record in PeerRecord.all where record.version == version && record.iterations == KeyDerivation.iterations {
            let bytes = try #require(Base64.decodeLenient(Array(record.message.utf8)))
            let outcome: Result<[UInt8], RNCryptorError>
            if record.isKeyBased {
                let keys = try #require(MessageKeys(concatenated: SecretBytes(record.secret)))
                outcome = Result { () throws(RNCryptorError) in try RNCryptor.decrypt(bytes, keys: keys) }
            } else {
                outcome = Result { () throws(RNCryptorError) in try RNCryptor.decrypt(bytes, password: SecretBytes(record.candidate)) }
            }
            if version < 2 {
                #expect(outcome == .failure(.legacyVersion(version)), "\(record.testDescription)")
            } else {
                #expect(outcome == .success(record.plaintext), "\(record.testDescription)")
            }
        }
    }

    /// `VerifiedStream` through a client, to a file; returns what the file holds.
    static func stream(_ message: [UInt8], client: PasswordClient) throws -> [UInt8] {
        let folder = TemporaryFolder()
        let input = "\(folder.path)/in", output = "\(folder.path)/out"
        let fd = open(input, O_WRONLY | O_CREAT, 0o600)
        _ = message.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let reading = open(input, O_RDONLY)
        defer { close(reading) }
        let outcome = Result { () throws(VerifiedStream.Failure) in try VerifiedStream().decrypt(input: reading, client: client, to: .file(FilePath(output))) }
        if case .failure(let failure) = outcome {
            #expect(access(output, F_OK) != 0, "a refused message left \(output)")
            throw failure
        }
        let check = open(output, O_RDONLY)
        defer { close(check) }
        var back = [UInt8](repeating: 0, count: message.count)
        let n = back.withUnsafeMutableBytes { read(check, $0.baseAddress, $0.count) }
        return Array(back[0..<max(0, n)])
    }
}
