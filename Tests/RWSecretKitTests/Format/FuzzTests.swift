import Testing
import RWSecretKit

/// Garbage and mutated messages never crash the parser or the decryptors: every
/// input ends in a typed error (or, for an intact message, its plaintext).
@Suite("Fuzzing the parser and decryptors")
struct FuzzTests {
    static let keys = try! MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 9, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 8, count: 32)))

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
            let decryptor = DecryptorEngine(keys: Self.keys)
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

    /// Mutations that keep more of a message's structure than `mutate`: whole blocks moved,
    /// the version and options bytes set to neighbouring values, lengths nudged to block boundaries.
    static func mutateStructurally(_ message: [UInt8], using rng: inout SeededGenerator) -> [UInt8] {
        var bytes = message
        switch Int.random(in: 0..<6, using: &rng) {
        case 0: bytes[0] = UInt8.random(in: 0...4, using: &rng)
        case 1: bytes[1] = UInt8.random(in: 0...2, using: &rng)
        case 2 where bytes.count >= 34 + 32 + 32:  // duplicate a ciphertext block
            let start = 34 + 16 * Int.random(in: 0..<(bytes.count - 34 - 32) / 16, using: &rng)
            bytes.insert(contentsOf: bytes[start..<start + 16], at: start)
        case 3 where bytes.count >= 16: bytes.removeLast(16 * Int.random(in: 1...(bytes.count / 16), using: &rng))
        case 4: bytes += rng.bytes(16 * Int.random(in: 1...3, using: &rng))
        default: bytes = mutate(bytes, using: &rng)
        }
        return bytes
    }

    /// Thousands of garbage and mutated inputs through every entry point: `Message(_:)`,
    /// `RNCryptor.decrypt` and `Decryptor` in random pieces, each with a password and with keys.
    /// Nothing may crash; a changed message must never decrypt; one-shot and incremental must agree.
    /// Password attempts that reach the key derivation (~5 ms each in debug) are budgeted.
    @Test("garbage and mutations through every entry point: no crash, typed errors, one-shot and incremental agree",
          arguments: TestSeeds.with([101, 202, 303]))
    func everyEntryPoint(seed: UInt64) {
        TestSeeds.announce(seed, "fuzz every entry point")
        var rng = SeededGenerator(seed: seed)
        let password = SecretBytes(utf8: "fuzz")
        let credentials: [Credential] = [.keys(Self.keys), .password(password)]
        var originals: [[UInt8]] = (0..<6).map { RNCryptor.encrypt(rng.bytes([0, 1, 16, 40, 100, 300][$0]), keys: Self.keys) }
        originals.append(RNCryptor.encrypt(rng.bytes(20), password: password))
        originals.append(HandMadeMessage.passwordBased(version: 2, password: "fuzz", blocks: rng.bytes(31) + [1]))
        originals.append(HandMadeMessage.passwordBased(version: 1, password: "fuzz", blocks: rng.bytes(47) + [1]))
        var kdfBudget = 25
        var outcomes: [String: Int] = [:]
        for round in 0..<1500 {
            let input: [UInt8]
            switch round % 4 {
            case 0:  // garbage, half of it steered past the version and options checks
                var bytes = rng.bytes(Int.random(in: 0...160, using: &rng))
                if bytes.count >= 2 && Bool.random(using: &rng) { bytes[0] = UInt8.random(in: 1...3, using: &rng); bytes[1] = UInt8.random(in: 0...1, using: &rng) }
                input = bytes
            case 1: input = Self.mutate(originals.randomElement(using: &rng)!, using: &rng)
            default: input = Self.mutateStructurally(originals.randomElement(using: &rng)!, using: &rng)
            }
            let label = "seed \(seed) round \(round) (\(input.count) bytes, starts \(Hex.encode(input.prefix(2))))"
            // The parser alone.
            let parsed = Result { () throws(RNCryptorError) in try Message(input) }
            for credential in credentials {
                // Would this attempt pay for a key derivation? (A complete password-based header.)
                let header = try? MessageHeader(parsing: input)
                if credential.isPassword, header?.isPasswordBased == true {
                    guard kdfBudget > 0 else { continue }
                    kdfBudget -= 1
                }
                let oneShot = credential.oneShot(input)
                let incremental = credential.incremental(input, rng: &rng, maxChunk: Bool.random(using: &rng) ? 3 : 64)
                outcomes[oneShot.caseName, default: 0] += 1
                #expect(Expected.agree(oneShot, incremental), "\(label): one-shot \(oneShot.summary), incremental \(incremental.summary)")
                if case .failure(let error) = parsed {
                    #expect(oneShot == .failure(error), "\(label): Message(_:) threw \(error) but decrypt gave \(oneShot.summary)")
                }
                if case .success = oneShot {
                    #expect(originals.contains(input), "\(label): a changed message decrypted")
                }
            }
        }
        print("fuzz seed \(seed): \(outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
        // The inputs reached every layer, not just the first byte check.
        for reason in ["tooShort", "badLength", "unknownVersion", "unknownOptions", "keyBasedMessage", "passwordBasedMessage", "hmacMismatch", "decrypted"] {
            #expect(outcomes[reason, default: 0] > 0, "seed \(seed): no input ended in \(reason)")
        }
        #expect(kdfBudget == 0, "seed \(seed): the password-based attempts never reached the key derivation")
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
