import Testing
@_spi(Testing) import RWSecretKit

/// Wrong parameters and misuse throw a typed error instead of trapping (issue 23, item 5), as
/// swift-crypto's constructors do. Each case is checked twice: in a child process (an exit
/// test), which before the fix died of SIGILL (exit 132) where it now exits 0, and in process,
/// for the error's case.
@Suite("Misuse throws, never traps")
struct MisuseTests {
    static let password = SecretBytes(utf8: "misuse")
    static let key = SecretBytes([UInt8](repeating: 7, count: 32))

    @Test("a 3-byte key: invalidKeySize(3), in a child that exits normally")
    func shortKey() async throws {
        await #expect(processExitsWith: .success) {
            _ = try? MessageKeys(encryptionKey: SecretBytes([1, 2, 3]), hmacKey: SecretBytes([UInt8](repeating: 7, count: 32)))
        }
        #expect(throws: RNCryptorError.invalidKeySize(3)) { try MessageKeys(encryptionKey: SecretBytes([1, 2, 3]), hmacKey: Self.key) }
        #expect(throws: RNCryptorError.invalidKeySize(33)) { try MessageKeys(encryptionKey: Self.key, hmacKey: SecretBytes([UInt8](repeating: 1, count: 33))) }
    }

    @Test("a 1-byte IV: invalidIVSize(1), in a child that exits normally")
    func shortIV() async throws {
        await #expect(processExitsWith: .success) {
            let keys = try! MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 7, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 7, count: 32)))
            _ = try? Encryptor(keys: keys, iv: [3])
        }
        let keys = try MessageKeys(encryptionKey: Self.key, hmacKey: Self.key)
        #expect(throws: RNCryptorError.invalidIVSize(1)) { try Encryptor(keys: keys, iv: [3]) }
        #expect(throws: RNCryptorError.invalidIVSize(1)) {
            try Encryptor(password: Self.password, encryptionSalt: [UInt8](repeating: 0, count: 8), hmacSalt: [UInt8](repeating: 0, count: 8), iv: [3])
        }
        #expect(throws: RNCryptorError.invalidSaltSize(2)) {
            try Encryptor(password: Self.password, encryptionSalt: [1, 2], hmacSalt: [UInt8](repeating: 0, count: 8), iv: [UInt8](repeating: 0, count: 16))
        }
    }

    @Test("finalize() twice: alreadyFinalized, and update after it too, in a child that exits normally")
    func finalizeTwice() async throws {
        await #expect(processExitsWith: .success) {
            let keys = try! MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 7, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 7, count: 32)))
            let decryptor = Decryptor(keys: keys)
            try? decryptor.update(RNCryptor.encrypt(Array("twice".utf8), keys: keys))
            _ = try? decryptor.finalize()
            _ = try? decryptor.finalize()
        }
        let keys = try MessageKeys(encryptionKey: Self.key, hmacKey: Self.key)
        let decryptor = Decryptor(keys: keys)
        try await decryptor.update(RNCryptor.encrypt(Array("twice".utf8), keys: keys))
        #expect(try decryptor.finalize() == Array("twice".utf8))
        #expect(throws: RNCryptorError.alreadyFinalized) { try decryptor.finalize() }
        #expect(throws: RNCryptorError.alreadyFinalized) { try decryptor.update([1, 2, 3]) }
        // A failed finalize() ends the decryptor as well.
        let failed = Decryptor(keys: keys)
        #expect(throws: RNCryptorError.tooShort) { try failed.finalize() }
        #expect(throws: RNCryptorError.alreadyFinalized) { try failed.finalize() }
    }

    @Test("iterations 0: iterationsOutOfRange(0) from the client, the encryptor and the decryptor, in a child that exits normally")
    func zeroIterations() async throws {
        await #expect(processExitsWith: .success) {
            _ = try? PasswordClient(runOnly: [], iterations: 0) { nil }
        }
        #expect(throws: RNCryptorError.iterationsOutOfRange(0)) { try PasswordClient(runOnly: [], iterations: 0) { nil } }
        #expect(throws: RNCryptorError.iterationsOutOfRange(-1)) { try Encryptor(password: Self.password, iterations: -1) }
        #expect(throws: RNCryptorError.iterationsOutOfRange(0)) { try Decryptor(password: Self.password, iterations: 0) }
        let tooMany = KeyDerivation.maximumIterations + 1
        #expect(throws: RNCryptorError.iterationsOutOfRange(tooMany)) { try PasswordClient(runOnly: [], iterations: tooMany) { nil } }
        // In range: builds.
        _ = try PasswordClient(runOnly: [], iterations: 1) { nil }
    }

    @Test("Message.decrypt with iterations 0: iterationsOutOfRange(0), in a child that exits normally")
    func messageZeroIterations() async throws {
        await #expect(processExitsWith: .success) {
            let message = try! Message(RNCryptor.encrypt([1], password: SecretBytes(utf8: "misuse")))
            _ = try? message.decrypt(password: SecretBytes(utf8: "misuse"), iterations: 0)
        }
        let message = try Message(await RNCryptor.encrypt([1], password: Self.password))
        #expect(throws: RNCryptorError.iterationsOutOfRange(0)) { try message.decrypt(password: Self.password, iterations: 0) }
    }
}
