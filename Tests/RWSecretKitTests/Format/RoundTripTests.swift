import Testing
import RWSecretKit

/// Encrypt → decrypt at the sizes around block boundaries, one-shot and incremental.
@Suite("Round trips")
struct RoundTripTests {
    static let sizes = [0, 1, 15, 16, 17, 4095, 1 << 20]
    let password = SecretBytes(utf8: "round trip ✓")
    let keys = MessageKeys(encryptionKey: SecretBytes(Crypto.randomBytes(count: 32)), hmacKey: SecretBytes(Crypto.randomBytes(count: 32)))

    @Test("password-based, one-shot", arguments: sizes)
    func passwordOneShot(size: Int) throws {
        let plaintext = Crypto.randomBytes(count: size)
        let message = RNCryptor.encrypt(plaintext, password: password)
        #expect(message.count == 34 + (size / 16 + 1) * 16 + 32, "size \(size)")
        #expect(try RNCryptor.decrypt(message, password: password) == plaintext, "size \(size)")
    }

    @Test("key-based, one-shot", arguments: sizes)
    func keyOneShot(size: Int) throws {
        let plaintext = Crypto.randomBytes(count: size)
        let message = RNCryptor.encrypt(plaintext, keys: keys)
        #expect(message[0] == 3 && message[1] == 0)
        #expect(try RNCryptor.decrypt(message, keys: keys) == plaintext, "size \(size)")
    }

    @Test("incremental encryptor in chunks, incremental decryptor in other chunks", arguments: sizes)
    func incremental(size: Int) throws {
        var rng = SeededGenerator(seed: UInt64(size) &* 7919 &+ 1)
        let plaintext = rng.bytes(min(size, 1 << 16)) + Crypto.randomBytes(count: max(0, size - (1 << 16)))
        let encryptor = Encryptor(password: password)
        var message: [UInt8] = []
        var offset = 0
        while offset < plaintext.count {
            let n = min(Int.random(in: 1...5000, using: &rng), plaintext.count - offset)
            message += encryptor.update(plaintext[offset..<offset + n])
            offset += n
        }
        message += encryptor.finalize()
        #expect(try RNCryptor.decrypt(message, password: password) == plaintext, "size \(size)")
        let decryptor = Decryptor(password: password)
        var out: [UInt8] = []
        offset = 0
        while offset < message.count {
            let n = min(Int.random(in: 1...7000, using: &rng), message.count - offset)
            out += try decryptor.update(message[offset..<offset + n])
            offset += n
        }
        out += try decryptor.finalize()
        #expect(out == plaintext, "size \(size)")
    }

    @Test("salts and IV are fresh for every message")
    func freshRandomness() {
        let a = RNCryptor.encrypt([1, 2, 3], password: password)
        let b = RNCryptor.encrypt([1, 2, 3], password: password)
        #expect(a[2..<34] != b[2..<34])
    }
}

/// The incremental decryptor fed in random chunk sizes equals one-shot decryption.
@Suite("Incremental decryption")
struct IncrementalDecryptionTests {
    static let seeds: [UInt64] = [1, 2, 3, 42, 1234, 99_991]

    @Test("random chunk sizes from 1 byte upward give the one-shot plaintext", arguments: seeds)
    func randomChunks(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let keys = MessageKeys(encryptionKey: SecretBytes(rng.bytes(32)), hmacKey: SecretBytes(rng.bytes(32)))
        let plaintext = rng.bytes(Int.random(in: 0...3000, using: &rng))
        let message = RNCryptor.encrypt(plaintext, keys: keys)
        let decryptor = Decryptor(keys: keys)
        var out: [UInt8] = []
        var offset = 0
        var maxChunk = 1
        while offset < message.count {
            let n = min(Int.random(in: 1...maxChunk, using: &rng), message.count - offset)
            out += try decryptor.update(message[offset..<offset + n])
            offset += n
            maxChunk = min(maxChunk * 2, 512)
        }
        out += try decryptor.finalize()
        #expect(out == (try RNCryptor.decrypt(message, keys: keys)), "seed \(seed)")
        #expect(out == plaintext, "seed \(seed)")
    }

    @Test("one byte at a time, password-based")
    func oneByteAtATime() throws {
        let password = SecretBytes(utf8: "byte by byte")
        let plaintext = Array("Sixty-four bytes of text, give or take a few, for byte feeding.".utf8)
        let message = RNCryptor.encrypt(plaintext, password: password)
        let decryptor = Decryptor(password: password)
        var out: [UInt8] = []
        for byte in message { out += try decryptor.update([byte]) }
        out += try decryptor.finalize()
        #expect(out == plaintext)
    }
}
