import Testing
import RWSecretKit

/// Every single-bit flip and every truncation is rejected with a typed error.
@Suite("Tampering and truncation")
struct TamperTests {
    static let keys = MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 1, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 2, count: 32)))
    /// A small v3 key-based message (key-based so thousands of checks need no KDF).
    static let v3 = RNCryptor.encrypt(Array("tamper with me: 33 bytes of text.".utf8), keys: keys)

    /// The error a flip at `byte` must give: the version and options bytes are checked
    /// structurally; every other byte is covered by the HMAC (v2 and v3).
    static func expectedError(byte: Int, flipped: [UInt8]) -> RNCryptorError {
        // Another known version (1 or 2) parses, and then its HMAC cannot match.
        if byte == 0 { return (1...3).contains(flipped[0]) ? .hmacMismatch : .unknownVersion(flipped[0]) }
        if byte == 1 { return flipped[1] == 1 ? .passwordBasedMessage : .unknownOptions(flipped[1]) }
        return .hmacMismatch
    }

    @Test("every bit flip of a v3 message is rejected", arguments: 0..<v3.count)
    func v3BitFlips(byte: Int) {
        for bit in 0..<8 {
            var flipped = Self.v3
            flipped[byte] ^= 1 << bit
            let expected = Self.expectedError(byte: byte, flipped: flipped)
            #expect(throws: expected, "byte \(byte) bit \(bit)") { try RNCryptor.decrypt(flipped, keys: Self.keys) }
            let decryptor = Decryptor(keys: Self.keys)
            #expect(throws: expected, "incremental: byte \(byte) bit \(bit)") { _ = try decryptor.update(flipped); _ = try decryptor.finalize() }
        }
    }

    @Test("every bit flip of the official v2 vector message is rejected",
          .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)))
    func v2BitFlips() throws {
        let vector = try #require(TestVectors.load("v2/password").first)
        let original = vector.hex("ciphertext_hex")
        let password = SecretBytes(utf8: vector.string("password"))
        // HMAC keys per salt pair, so each flip costs one HMAC rather than a KDF.
        let message = try Message(original)
        let hmacKey = message.hmacKey(for: password)
        for byte in 0..<original.count {
            for bit in 0..<8 {
                var flipped = original
                flipped[byte] ^= 1 << bit
                if byte < 18 {
                    // Version, options and salts change how the keys are derived: go through the whole decryption.
                    #expect(throws: RNCryptorError.self, "byte \(byte) bit \(bit)") { try RNCryptor.decrypt(flipped, password: password) }
                } else {
                    // IV, ciphertext and HMAC: the same HMAC key must no longer authenticate the message.
                    #expect(!(try Message(flipped)).isAuthentic(hmacKey: hmacKey), "byte \(byte) bit \(bit)")
                }
            }
        }
    }

    /// v1 authenticates the ciphertext only: flips in its header are not detected by
    /// design, so only flips in the ciphertext and the HMAC are required to fail.
    @Test("v1: every bit flip in the ciphertext or HMAC is rejected",
          .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)))
    func v1BitFlips() throws {
        let vector = try #require(TestVectors.load("v1/password").first)
        let original = vector.hex("ciphertext_hex")
        let message = try Message(original)
        let hmacKey = message.hmacKey(for: SecretBytes(utf8: vector.string("password")))
        #expect(message.isAuthentic(hmacKey: hmacKey))
        for byte in message.header.length..<original.count {
            for bit in 0..<8 {
                var flipped = original
                flipped[byte] ^= 1 << bit
                #expect(!(try Message(flipped)).isAuthentic(hmacKey: hmacKey), "byte \(byte) bit \(bit)")
            }
        }
    }

    @Test("truncation at every length is rejected with a typed error")
    func truncation() throws {
        let message = Self.v3
        for length in 0..<message.count {
            let truncated = Array(message[0..<length])
            let expected: RNCryptorError
            if length < 2 { expected = .tooShort }
            else if length < 18 + 16 + 32 { expected = .tooShort }
            else if (length - 18 - 32) % 16 != 0 { expected = .badLength }
            else { expected = .hmacMismatch }
            #expect(throws: expected, "length \(length)") { try RNCryptor.decrypt(truncated, keys: Self.keys) }
            let decryptor = Decryptor(keys: Self.keys)
            #expect(throws: expected, "incremental, length \(length)") { _ = try decryptor.update(truncated); _ = try decryptor.finalize() }
        }
    }

    @Test("wrong password, wrong credential kind, bad padding")
    func typedErrors() throws {
        let password = SecretBytes(utf8: "right")
        let message = RNCryptor.encrypt([1, 2, 3], password: password)
        #expect(throws: RNCryptorError.hmacMismatch) { try RNCryptor.decrypt(message, password: SecretBytes(utf8: "wrong")) }
        #expect(throws: RNCryptorError.passwordBasedMessage) { try RNCryptor.decrypt(message, keys: Self.keys) }
        #expect(throws: RNCryptorError.keyBasedMessage) { try RNCryptor.decrypt(Self.v3, password: password) }
        #expect(throws: RNCryptorError.badPadding) { try RNCryptor.decrypt(BadPadding.message(keys: Self.keys), keys: Self.keys) }
        let decryptor = Decryptor(keys: Self.keys)
        #expect(throws: RNCryptorError.badPadding) { _ = try decryptor.update(BadPadding.message(keys: Self.keys)); _ = try decryptor.finalize() }
    }
}
