import Foundation
import Testing
@_spi(Testing) import RWSecretKit

/// The portable and SHA-NI PBKDF2 paths against OpenSSL's own `PKCS5_PBKDF2_HMAC`
/// (`Crypto.opensslPBKDF2SHA1`). The official kdf vectors run through
/// `KeyDerivation.key` in VectorTests.
@Suite("KeyDerivation")
struct KeyDerivationTests {
    static let shaUnavailable = Comment(rawValue:
        "this CPU has no SHA extensions (cpuid leaf 7 EBX bit 29, SSE4.1, SSSE3) or the kernel failed its known-answer check")

    // MARK: portable

    @Test("portable: random passwords, salts, lengths and small iteration counts agree with OpenSSL")
    func portableRandom() { checkRandom(.portable, seed: 0x5EED_0001) }

    @Test("portable: full RNCryptor keys (10,000 iterations) agree with OpenSSL")
    func portableFull() { checkFullKeys(.portable, seed: 0x5EED_0002, count: 12) }

    @Test("portable: batches of 1…7 agree with OpenSSL")
    func portableBatches() { checkBatches(.portable, seed: 0x5EED_0003, fullKeysUpTo: 3) }

    // MARK: sha

    @Test("sha: random passwords, salts, lengths and small iteration counts agree with OpenSSL",
          .enabled(if: KeyDerivation.isAvailable(.sha), shaUnavailable))
    func shaRandom() { checkRandom(.sha, seed: 0x5EED_0011) }

    @Test("sha: full RNCryptor keys (10,000 iterations) agree with OpenSSL",
          .enabled(if: KeyDerivation.isAvailable(.sha), shaUnavailable))
    func shaFull() { checkFullKeys(.sha, seed: 0x5EED_0012, count: 24) }

    @Test("sha: batches of 1…7 (1-, 2-, 3-chain interleaving and remainders) agree with OpenSSL",
          .enabled(if: KeyDerivation.isAvailable(.sha), shaUnavailable))
    func shaBatches() { checkBatches(.sha, seed: 0x5EED_0013, fullKeysUpTo: 7) }

    @Test("on a CPU with the SHA extensions the kernel passes its known-answer check",
          .enabled(if: KeyDerivation.cpuHasSHAExtensions, Comment(rawValue: "this CPU has no SHA extensions")))
    func shaKnownAnswers() {
        #expect(KeyDerivation.isAvailable(.sha))
    }

    @Test("sha is the default when available")
    func activeChoice() {
        #expect(KeyDerivation.isAvailable(KeyDerivation.activeImplementation))
        if KeyDerivation.isAvailable(.sha) {
            #expect(KeyDerivation.activeImplementation == .sha)
        }
        let password = SecretBytes(utf8: "default path")
        let salt: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        #expect(hex(KeyDerivation.key(password: password, salt: salt)) == hex(reference(password, salt)))
    }

    @Test("openssl implementation is OpenSSL's PBKDF2")
    func opensslImplementation() {
        let password = SecretBytes(utf8: "openssl")
        let salt: [UInt8] = Array("saltsalt".utf8)
        #expect(hex(KeyDerivation.key(password: password, salt: salt, using: .openssl)) == hex(reference(password, salt)))
    }

    // MARK: - checks

    /// A few hundred derivations with 1–5 iterations (the loop, the setup and the
    /// output truncation are the same as with 10,000; this keeps the run short).
    private func checkRandom(_ implementation: KeyDerivation.Implementation, seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let lengths = [1, 19, 20, 21, 32, 40, 41, 60, 64]
        for index in 0..<300 {
            let password = SecretBytes(randomPassword(&rng, index: index))
            let salt = randomSalt(&rng, index: index)
            let iterations = 1 + Int(rng.next() % 5)
            let keyLength = lengths[Int(rng.next() % UInt64(lengths.count))]
            let ours = KeyDerivation.pbkdf2SHA1(password: password, salt: salt, iterations: iterations, keyLength: keyLength, using: implementation)
            let theirs = reference(password, salt, iterations: iterations, keyLength: keyLength)
            #expect(hex(ours) == hex(theirs), "case \(index): password \(password.count) bytes, salt \(salt.count) bytes, c = \(iterations), dkLen = \(keyLength)")
        }
    }

    private func checkFullKeys(_ implementation: KeyDerivation.Implementation, seed: UInt64, count: Int) {
        var rng = SeededGenerator(seed: seed)
        for index in 0..<count {
            let password = SecretBytes(randomPassword(&rng, index: index))
            let salt = randomSalt(&rng, index: index)
            let ours = KeyDerivation.key(password: password, salt: salt, using: implementation)
            #expect(hex(ours) == hex(reference(password, salt)), "case \(index): password \(password.count) bytes, salt \(salt.count) bytes")
        }
    }

    /// Batches of 1…7 keys: 32-byte keys (2 chains each) and 20-byte keys (1 chain
    /// each, so odd chain counts) with few iterations, and full RNCryptor keys for
    /// batch sizes up to `fullKeysUpTo`.
    private func checkBatches(_ implementation: KeyDerivation.Implementation, seed: UInt64, fullKeysUpTo: Int) {
        var rng = SeededGenerator(seed: seed)
        for size in 1...7 {
            let requests = (0..<size).map { index in
                (password: SecretBytes(randomPassword(&rng, index: index + size)), salt: randomSalt(&rng, index: index + 3 * size))
            }
            for keyLength in [20, 32, 50] {
                let ours = KeyDerivation.pbkdf2SHA1(requests, iterations: 7, keyLength: keyLength, using: implementation)
                #expect(ours.count == size)
                for (index, request) in requests.enumerated() {
                    #expect(hex(ours[index]) == hex(reference(request.password, request.salt, iterations: 7, keyLength: keyLength)),
                            "batch of \(size), key \(index), dkLen = \(keyLength)")
                }
            }
            if size <= fullKeysUpTo {
                let ours = KeyDerivation.keys(requests, using: implementation)
                #expect(ours.count == size)
                for (index, request) in requests.enumerated() {
                    #expect(hex(ours[index]) == hex(reference(request.password, request.salt)), "full batch of \(size), key \(index)")
                }
            }
        }
        #expect(KeyDerivation.keys([], using: implementation).isEmpty)
    }

    // MARK: - inputs

    /// Passwords: 1 byte, around the 64-byte HMAC block (63/64/65), long (hashed HMAC
    /// key), ASCII and multi-byte UTF-8.
    private func randomPassword(_ rng: inout SeededGenerator, index: Int) -> [UInt8] {
        let special = [1, 63, 64, 65, 200]
        let length = index < special.count ? special[index] : 1 + Int(rng.next() % 130)
        if index % 3 == 2 {
            let pool = ["a", "Z", "7", " ", "ä", "é", "ß", "Ω", "ж", "密", "码", "🔑", "👩‍💻", "\u{301}"]
            var text = ""
            while text.utf8.count < length { text += pool[Int(rng.next() % UInt64(pool.count))] }
            return Array(text.utf8)
        }
        return (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next() % 255 + 1) }
    }

    /// Salts: empty, 1 byte, RNCryptor's 8 bytes, and random lengths up to 100.
    private func randomSalt(_ rng: inout SeededGenerator, index: Int) -> [UInt8] {
        let lengths = [0, 1, 8, 8, 55, 56, 64]
        let length = index % 2 == 0 ? lengths[(index / 2) % lengths.count] : Int(rng.next() % 101)
        return (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    private func reference(_ password: SecretBytes, _ salt: [UInt8], iterations: Int = KeyDerivation.iterations, keyLength: Int = Crypto.keySize) -> SecretBytes {
        password.withUnsafeBytes { p in
            salt.withUnsafeBytes { s in Crypto.opensslPBKDF2SHA1(password: p, salt: s, iterations: iterations, keyLength: keyLength) }
        }
    }

    private func hex(_ bytes: SecretBytes) -> String {
        bytes.withUnsafeBytes { Hex.encode($0) }
    }
}

