import Testing
import RWSecretKit

/// How a message is made or read: in one call, or fed in pieces.
enum Mode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case oneShot = "one-shot"
    case incremental = "incremental"
    var testDescription: String { rawValue }
}

enum CredentialKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case password, keys
    var testDescription: String { rawValue }
}

/// Encrypt → decrypt at the sizes around block boundaries and at 1 MiB, password- and key-based,
/// every pairing of one-shot and incremental encryption with one-shot and incremental decryption.
@Suite("Round trips")
struct RoundTripTests {
    static let sizes = [0, 1, 15, 16, 17, 4095, 1 << 20]
    static let password = SecretBytes(utf8: "round trip ✓ пароль")
    static let keys = try! MessageKeys(encryptionKey: SecretBytes(Crypto.randomBytes(count: 32)), hmacKey: SecretBytes(Crypto.randomBytes(count: 32)))

    static func encrypt(_ plaintext: [UInt8], _ kind: CredentialKind, _ mode: Mode, rng: inout SeededGenerator) -> [UInt8] {
        switch (kind, mode) {
        case (.password, .oneShot): return RNCryptor.encrypt(plaintext, password: password)
        case (.keys, .oneShot): return RNCryptor.encrypt(plaintext, keys: keys)
        case (_, .incremental):
            let encryptor = kind == .password ? Encryptor(password: password) : Encryptor(keys: keys)
            var message: [UInt8] = []
            var offset = 0
            // Pieces from 1 byte to a few blocks, and now and then an empty update.
            while offset < plaintext.count {
                let n = min(Int.random(in: 0...(Bool.random(using: &rng) ? 40 : 9000), using: &rng), plaintext.count - offset)
                message += encryptor.update(plaintext[offset..<offset + n])
                offset += n
            }
            return message + encryptor.finalize()
        }
    }

    @Test("round trip", arguments: sizes, CredentialKind.allCases)
    func roundTrip(size: Int, kind: CredentialKind) throws {
        let seed = UInt64(size) &* 7919 &+ (kind == .password ? 1 : 2)
        var rng = SeededGenerator(seed: seed)
        let plaintext = rng.bytes(size)
        let credential: Credential = kind == .password ? .password(Self.password) : .keys(Self.keys)
        for encryption in Mode.allCases {
            let label = "\(kind), size \(size), \(encryption) encryption, seed \(seed)"
            let message = Self.encrypt(plaintext, kind, encryption, rng: &rng)
            let headerLength = kind == .password ? 34 : 18
            #expect(message.count == headerLength + (size / 16 + 1) * 16 + 32, "\(label): length")
            #expect(Array(message.prefix(2)) == [3, kind == .password ? 1 : 0], "\(label): header")
            #expect(try Message(message).header.isPasswordBased == (kind == .password), "\(label)")

            #expect(credential.oneShot(message) == .success(plaintext), "\(label), one-shot decryption")
            var streamed = 0
            let incremental = credential.incremental(message, streamed: &streamed) { _ in Int.random(in: 1...(Bool.random(using: &rng) ? 17 : 10_000), using: &rng) }
            #expect(incremental == .success(plaintext), "\(label), incremental decryption")
            // Bounded memory: all but the last block came out of update() before finalize().
            #expect(streamed >= size - 16, "\(label): only \(streamed) of \(size) bytes streamed before finalize()")
        }
    }

    @Test("salts and IV are fresh for every message")
    func freshRandomness() {
        let a = RNCryptor.encrypt([1, 2, 3], password: Self.password)
        let b = RNCryptor.encrypt([1, 2, 3], password: Self.password)
        #expect(a[2..<10] != b[2..<10], "encryption salt")
        #expect(a[10..<18] != b[10..<18], "HMAC salt")
        #expect(a[18..<34] != b[18..<34], "IV")
        let c = RNCryptor.encrypt([1, 2, 3], keys: Self.keys)
        let d = RNCryptor.encrypt([1, 2, 3], keys: Self.keys)
        #expect(c[2..<18] != d[2..<18], "key-based IV")
    }
}

/// The incremental decryptor fed in random chunk sizes equals one-shot decryption.
@Suite("Incremental decryption")
struct IncrementalDecryptionTests {
    static let seeds = TestSeeds.with([1, 2, 3, 42, 1234, 99_991])
    static let password = SecretBytes(utf8: "chunky")
    static let keys = try! MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 0x11, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 0x22, count: 32)))

    @Test("random chunk sizes from 1 byte upward give the one-shot plaintext", arguments: seeds)
    func randomChunks(seed: UInt64) {
        TestSeeds.announce(seed, "incremental random chunks")
        var rng = SeededGenerator(seed: seed)
        for round in 0..<40 {
            // Mostly key-based (cheap); every tenth round password-based (a key derivation each way).
            let credential: Credential = round % 10 == 0 ? .password(Self.password) : .keys(Self.keys)
            let size = [0, 1, 15, 16, 17, 31, 32, 33, 47, 48, 100, 4095, 20_000].randomElement(using: &rng)!
            let plaintext = rng.bytes(size)
            let message: [UInt8]
            switch credential {
            case .password(let password): message = RNCryptor.encrypt(plaintext, password: password)
            case .keys(let keys): message = RNCryptor.encrypt(plaintext, keys: keys)
            }
            let label = "seed \(seed) round \(round): \(credential.isPassword ? "password" : "keys"), \(size) bytes"
            let oneShot = credential.oneShot(message)
            #expect(oneShot == .success(plaintext), "\(label): one-shot")
            // Chunk sizes: 1 byte upward, each piece from one of a few ranges, so sizes around
            // the 32-byte tag and the 16-byte block and much larger pieces all occur.
            let incremental = credential.incremental(message) { _ in
                let limit = [1, 2, 16, 33, 64, 1000, 70_000].randomElement(using: &rng)!
                return Int.random(in: 1...limit, using: &rng)
            }
            #expect(incremental == oneShot, "\(label): incremental \(incremental.summary), one-shot \(oneShot.summary)")
        }
    }

    @Test("the official v2 and v1 messages in random chunks", .enabled(if: TestVectors.directory != nil, Comment(rawValue: TestVectors.missingReason)),
          arguments: TestVectors.load("v2/password") + TestVectors.load("v1/password"))
    func vectorsInRandomChunks(_ vector: TestVector) {
        let message = vector.hex("ciphertext_hex")
        let credential = Credential.password(SecretBytes(utf8: vector.string("password")))
        for seed in Self.seeds.prefix(3) {
            var rng = SeededGenerator(seed: seed)
            #expect(credential.incremental(message, rng: &rng, maxChunk: 40) == .success(vector.hex("plaintext_hex")), "\(vector.testDescription), seed \(seed)")
        }
    }

    @Test("one byte at a time", arguments: [(CredentialKind.password, 64), (.keys, 0), (.keys, 16), (.keys, 4095)])
    func oneByteAtATime(kind: CredentialKind, size: Int) {
        var rng = SeededGenerator(seed: UInt64(size))
        let plaintext = rng.bytes(size)
        let credential: Credential = kind == .password ? .password(Self.password) : .keys(Self.keys)
        let message = kind == .password ? RNCryptor.encrypt(plaintext, password: Self.password) : RNCryptor.encrypt(plaintext, keys: Self.keys)
        var streamed = 0
        #expect(credential.incremental(message, streamed: &streamed) { _ in 1 } == .success(plaintext), "\(kind), \(size) bytes, 1-byte feed")
        #expect(streamed >= size - 16, "\(kind), \(size) bytes: only \(streamed) streamed before finalize()")
    }
}
