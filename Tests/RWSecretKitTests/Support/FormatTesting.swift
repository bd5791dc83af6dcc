import RWSecretKit

/// What a decryption came to: the plaintext, or the typed error (`caseName`, `summary` in the library).
typealias Outcome = DecryptionOutcome

/// A password or a pair of keys: what a message needs to be opened.
enum Credential: Sendable {
    case password(SecretBytes)
    case keys(MessageKeys)

    var isPassword: Bool { if case .password = self { true } else { false } }

    /// `RNCryptor.decrypt` with this credential.
    func oneShot(_ message: [UInt8]) -> Outcome {
        Result { () throws(RNCryptorError) -> [UInt8] in
            switch self {
            case .password(let password): try RNCryptor.decrypt(message, password: password, legacyFormats: .allowed)
            case .keys(let keys): try RNCryptor.decrypt(message, keys: keys, legacyFormats: .allowed)
            }
        }
    }

    func decryptor() -> DecryptorEngine {
        switch self {
        case .password(let password): DecryptorEngine(password: password)
        case .keys(let keys): DecryptorEngine(keys: keys)
        }
    }

    /// The incremental engine (`DecryptorEngine`, under `Decryptor`) fed `message` in pieces of the sizes `nextSize` picks (given the bytes left),
    /// then finalized. `streamed` counts the (unverified) bytes `update` handed out before `finalize`.
    func incremental(_ message: [UInt8], streamed: inout Int, nextSize: (Int) -> Int) -> Outcome {
        let decryptor = decryptor()
        var plaintext: [UInt8] = []
        var offset = 0
        streamed = 0
        do throws(RNCryptorError) {
            while offset < message.count {
                let n = min(max(1, nextSize(message.count - offset)), message.count - offset)
                plaintext += try decryptor.update(message[offset..<offset + n])
                offset += n
            }
            streamed = plaintext.count
            plaintext += try decryptor.finalize()
            return .success(plaintext)
        } catch {
            return .failure(error)
        }
    }

    func incremental(_ message: [UInt8], nextSize: (Int) -> Int) -> Outcome {
        var streamed = 0
        return incremental(message, streamed: &streamed, nextSize: nextSize)
    }

    /// The incremental decryptor fed in random pieces of 1 to `maxChunk` bytes.
    func incremental(_ message: [UInt8], rng: inout SeededGenerator, maxChunk: Int = 64) -> Outcome {
        incremental(message) { _ in Int.random(in: 1...maxChunk, using: &rng) }
    }
}

/// The format's rules, written out independently of the engine: what must come of a message.
enum Expected {
    /// The error a structurally whole message of `count` bytes gets when its options byte reads `options`
    /// (0 or 1) and the credential is `credential`: the header length follows the options byte.
    static func afterOptions(_ options: UInt8, count: Int, credential: Credential) -> RNCryptorError {
        let headerLength = options == 1 ? 34 : 18
        if let structural = structural(count: count, headerLength: headerLength) { return structural }
        return options == 1 ? (credential.isPassword ? .hmacMismatch : .passwordBasedMessage)
                            : (credential.isPassword ? .keyBasedMessage : .hmacMismatch)
    }

    /// `tooShort` / `badLength` for a message of `count` bytes with a header of `headerLength`, or nil.
    static func structural(count: Int, headerLength: Int) -> RNCryptorError? {
        if count < headerLength + 16 + 32 { return .tooShort }
        if (count - headerLength - 32) % 16 != 0 { return .badLength }
        return nil
    }

    /// A v2/v3 message (or a v1 message outside its unauthenticated header fields) with one bit flipped.
    static func afterFlip(_ flipped: [UInt8], byte: Int, credential: Credential) -> RNCryptorError {
        switch byte {
        case 0:
            // Another known version still parses; its HMAC (or v1's HMAC region) then cannot match.
            // Version 0 (password-based, options 0 only) rejects any other options byte.
            if flipped[0] == 0 { return flipped[1] == 0 ? .hmacMismatch : .unknownOptions(flipped[1]) }
            return (1...3).contains(flipped[0]) ? .hmacMismatch : .unknownVersion(flipped[0])
        case 1:
            return flipped[1] <= 1 ? afterOptions(flipped[1], count: flipped.count, credential: credential) : .unknownOptions(flipped[1])
        default:
            return .hmacMismatch
        }
    }

    /// A prefix of `length` bytes of a message whose header is `headerLength` bytes.
    static func afterTruncation(to length: Int, headerLength: Int) -> RNCryptorError {
        structural(count: length, headerLength: headerLength) ?? .hmacMismatch
    }

    /// One-shot and incremental decryption must agree (`DecryptionOutcome.agrees(withIncremental:)`).
    static func agree(_ oneShot: Outcome, _ incremental: Outcome) -> Bool { oneShot.agrees(withIncremental: incremental) }
}
