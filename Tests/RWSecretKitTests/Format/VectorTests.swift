import Testing
@_spi(Testing) import RWSecretKit

/// Every record of every official vector file, each its own test case.
@Suite("Official RNCryptor vectors")
struct VectorTests {
    @Test("kdf", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: TestVectors.load("v3/kdf") + TestVectors.load("v2/kdf") + TestVectors.load("v1/kdf"))
    func kdf(_ vector: TestVector) {
        let header = MessageHeader(version: UInt8(vector.int("version")), salts: ([UInt8](repeating: 0, count: 8), [UInt8](repeating: 0, count: 8)), iv: [UInt8](repeating: 0, count: 16))
        let password = header.kdfPassword(SecretBytes(utf8: vector.string("password")))
        let key = KeyDerivation.key(password: password, salt: vector.hex("salt_hex"))
        #expect(key.withUnsafeBytes { Array($0) } == vector.hex("key_hex"), "\(vector.testDescription)")
    }

    @Test("password decrypt", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: TestVectors.load("v3/password") + TestVectors.load("v2/password") + TestVectors.load("v1/password"))
    func passwordDecrypt(_ vector: TestVector) throws {
        let password = SecretBytes(utf8: vector.string("password"))
        let plaintext = try RNCryptor.decrypt(vector.hex("ciphertext_hex"), password: password, legacyFormats: .allowed)
        #expect(plaintext == vector.hex("plaintext_hex"), "\(vector.testDescription)")
        // The incremental decryptor agrees.
        let decryptor = DecryptorEngine(password: password)
        let incremental = try decryptor.update(vector.hex("ciphertext_hex")) + decryptor.finalize()
        #expect(incremental == vector.hex("plaintext_hex"), "\(vector.testDescription)")
    }

    @Test("v3 password encrypt", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: TestVectors.load("v3/password"))
    func passwordEncrypt(_ vector: TestVector) throws {
        let encryptor = try Encryptor(password: SecretBytes(utf8: vector.string("password")),
                                  encryptionSalt: vector.hex("enc_salt_hex"), hmacSalt: vector.hex("hmac_salt_hex"), iv: vector.hex("iv_hex"))
        let message = encryptor.update(vector.hex("plaintext_hex")) + encryptor.finalize()
        #expect(message == vector.hex("ciphertext_hex"), "\(vector.testDescription)")
    }

    @Test("v3 key encrypt and decrypt", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: TestVectors.load("v3/key"))
    func key(_ vector: TestVector) throws {
        let keys = try MessageKeys(encryptionKey: SecretBytes(vector.hex("enc_key_hex")), hmacKey: SecretBytes(vector.hex("hmac_key_hex")))
        let encryptor = try Encryptor(keys: keys, iv: vector.hex("iv_hex"))
        let message = encryptor.update(vector.hex("plaintext_hex")) + encryptor.finalize()
        #expect(message == vector.hex("ciphertext_hex"), "\(vector.testDescription)")
        #expect(try RNCryptor.decrypt(vector.hex("ciphertext_hex"), keys: keys, legacyFormats: .allowed) == vector.hex("plaintext_hex"), "\(vector.testDescription)")
    }

    @Test("every vector file has records", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: ["v3/kdf", "v3/password", "v3/key", "v2/kdf", "v2/password", "v1/kdf", "v1/password"])
    func filesHaveRecords(_ name: String) {
        #expect(!TestVectors.load(name).isEmpty, "\(name) has no records")
    }
}
