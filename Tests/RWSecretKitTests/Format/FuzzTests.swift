import Testing
import RWSecretKit

/// Garbage and mutated messages never crash the parser or the decryptors: every
/// input ends in a typed error (or, for an intact message, its plaintext).
@Suite("Fuzzing the parser and decryptors")
struct FuzzTests {
    static let keys = MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 9, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 8, count: 32)))

    /// Mutations of a real message: bit flips, byte overwrites, insertions, deletions, truncations, splices.
    static func mutate(_ message: [UInt8], using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = message
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &rng)] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
            case 1 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            case 2: bytes.insert(contentsOf: rng.bytes(Int.random(in: 1...40, using: &rng)), at: Int.random(in: 0...bytes.count, using: &rng))
            case 3 where !bytes.isEmpty:
                let start = Int.random(in: 0..<bytes.count, using: &rng)
                bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...40, using: &rng)))
            case 4: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            default: bytes += rng.bytes(Int.random(in: 0...64, using: &rng))
            }
        }
        return bytes
    }

    @Test("mutated key-based messages", arguments: [UInt64(1), 2, 3, 4])
    func mutatedMessages(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let original = RNCryptor.encrypt(rng.bytes(100), keys: Self.keys)
        for round in 0..<1000 {
            let input = Self.mutate(original, using: &rng)
            do {
                let plaintext = try RNCryptor.decrypt(input, keys: Self.keys)
                #expect(input == original, "seed \(seed) round \(round): a mutated message decrypted to \(plaintext.count) bytes")
            } catch {}
            let decryptor = Decryptor(keys: Self.keys)
            var offset = 0
            do {
                while offset < input.count {
                    let n = min(Int.random(in: 1...64, using: &rng), input.count - offset)
                    _ = try decryptor.update(input[offset..<offset + n])
                    offset += n
                }
                _ = try decryptor.finalize()
                #expect(input == original, "seed \(seed) round \(round): incremental accepted a mutated message")
            } catch {}
        }
    }

    @Test("random garbage of every small length", arguments: [UInt64(11), 12])
    func garbage(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        for length in 0..<400 {
            var input = rng.bytes(length)
            // Steer half of them past the version check, so the deeper parsing is exercised too.
            if length >= 2 && length % 2 == 0 { input[0] = UInt8.random(in: 1...3, using: &rng); input[1] = UInt8.random(in: 0...1, using: &rng) }
            if let message = try? Message(input) {
                if message.header.isPasswordBased {
                    // One in a few password attempts (each costs a key derivation).
                    if length % 16 == 2 { #expect(throws: RNCryptorError.self) { try message.decrypt(password: SecretBytes(utf8: "fuzz")) } }
                } else {
                    #expect(throws: RNCryptorError.self) { try message.decrypt(keys: Self.keys) }
                }
            }
        }
    }

    @Test("base64 reader: random text never crashes, and what it accepts re-encodes to the same bytes")
    func base64() {
        var rng = SeededGenerator(seed: 77)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_= \t!é".utf8)
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            if let decoded = Base64.decodeLenient(text) {
                let again = Base64.encode(decoded)
                #expect(Base64.decodeLenient(Array(again.utf8)) == decoded)
            }
        }
        for length in 0..<64 {
            let bytes = rng.bytes(length)
            #expect(Base64.decodeLenient(Array(Base64.encode(bytes).utf8)) == bytes)
        }
    }
}
