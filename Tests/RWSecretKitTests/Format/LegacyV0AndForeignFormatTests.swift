import Testing
import RWSecretKit

/// Version 0 (the first iOS format) and the inputs that are other formats altogether.
@Suite("v0 messages and foreign formats")
struct LegacyV0AndForeignFormatTests {
    /// Messages made on iOS, from RNCryptor-php's tests (tests/RNCryptor/DecryptorTest.php), password `mypassword123$!`.
    static let iOSSamples: [(plaintext: String, message: String)] = [
        ("Monkey", "AACoGb/5NAItZ9gY0YkCXK0Q7d+1p2mNyFFKIDldCA5QRqX5i9MNpezRS7CDX8jUDKGtIlZU6d8CZQeJAAAAAAAAAAAAAAAA"),
        ("O happy day now.", "AADsM/JbTInOMSm0epc/7MqQ1Ol2Fu/ySnQ0FknhJeTD6GpZo+SF8JDloHN82yZIHrOcJ3vZuXmrCUt3AysLYg6Vpu4KDwAAAAAAAAAAAAAA" + "AA=="),
        ("Earth is round, sun is round too", "AAApp4OoYpg4Fz+WSZDbcf5KPJasOkhdCnptrmwVkt58BZi/lnTWoIOf2IhIZhHsvTKYYEJsds6bFL/nZC/GtENusHWFyEw1IdtQ7KFSp8XZ" + "EhiAT88AAAAAAAAAAAAAAAA="),
        ("Lorem ipsum dolor sit amet, consectetur adipisicing elit, sed do...", "AADu55As8qH9KsSR17p1akydMUlbHrsHudMOr/yTj4olfQedJPTZg8hK4ua99zNkj3Nw7Hle1f1onHclWIYoLkWtMVk4Cp96CcxRhaWbBZqA" + "VvTabtVruxcAi+GEB2K4rrmyARxB2QJH9tfz2yTFoFNMln+xOCUm0wAAAAAAAAAAAAAAAA=="),
    ]
    static let iOSPassword = SecretBytes(utf8: "mypassword123$!")

    static func bytes(_ base64: String) -> [UInt8] { Base64.decodeLenient(Array(base64.utf8))! }

    @Test("iOS v0 samples decrypt one-shot, through the chain, and incrementally", arguments: 0..<4)
    func iOSSamples(index: Int) throws {
        let sample = Self.iOSSamples[index]
        let bytes = Self.bytes(sample.message)
        #expect(try RNCryptor.decrypt(bytes, password: Self.iOSPassword, legacyFormats: .allowed) == Array(sample.plaintext.utf8))
        let client = PasswordClient(runOnly: [ChainPassword(name: "ios", secret: Self.iOSPassword)], legacyFormats: .allowed) { nil }
        #expect((try? client.decrypt(try Message(bytes)).get())?.plaintext == Array(sample.plaintext.utf8))
        for chunk in [1, 5, 16, 33, 1000] {
            let decryptor = DecryptorEngine(password: Self.iOSPassword, legacyFormats: .allowed)
            var out: [UInt8] = []
            for start in stride(from: 0, to: bytes.count, by: chunk) {
                out += try decryptor.update(Array(bytes[start..<min(start + chunk, bytes.count)]))
            }
            out += try decryptor.finalize()
            #expect(out == Array(sample.plaintext.utf8), "chunk \(chunk)")
        }
    }

    @Test("v0 structure: header and HMAC only, no block alignment, options byte 0 only")
    func structure() throws {
        let monkey = Self.bytes(Self.iOSSamples[0].message)
        #expect(monkey.count == 34 + 6 + 32, "shorter than any v3 password message")
        var empty = Array(monkey[0..<34]) + [UInt8](repeating: 0, count: 32)
        #expect(throws: RNCryptorError.hmacMismatch) { try RNCryptor.decrypt(empty, password: Self.iOSPassword, legacyFormats: .allowed) }
        empty.removeLast()
        #expect(throws: RNCryptorError.tooShort) { try Message(empty) }
        var options = monkey
        options[1] = 1
        #expect(throws: RNCryptorError.unknownOptions(1)) { try Message(options) }
    }

    @Test("v0: every bit flip of the ciphertext, the HMAC or its zero padding is rejected before release")
    func tampering() throws {
        let monkey = Self.bytes(Self.iOSSamples[0].message)
        let message = try Message(monkey)
        let key = message.hmacKey(for: Self.iOSPassword)
        for byte in 34..<monkey.count {
            for bit in 0..<8 {
                var flipped = monkey
                flipped[byte] ^= 1 << bit
                #expect(!(try Message(flipped)).isAuthentic(hmacKey: key), "byte \(byte) bit \(bit)")
            }
        }
        // The HMAC salt is the one header field v0 binds (through the key); the IV is not covered.
        var iv = monkey
        iv[18] ^= 1
        #expect(try RNCryptor.decrypt(iv, password: Self.iOSPassword, legacyFormats: .allowed) != Array("Monkey".utf8), "a changed IV garbles the plaintext undetected")
    }

    /// The counter's keystream must carry over between updates that end mid-block, and the
    /// counter's first byte wraps after 256 blocks (PHP's 301-block message, Fixtures/peers).
    @Test("a long v0 message from PHP, incrementally in awkward chunk sizes", arguments: [1, 7, 15, 17, 4097])
    func longV0Incremental(chunk: Int) throws {
        let record = try #require(PeerRecord.all.first { $0.version == 0 && $0.plaintext.count > 4096 })
        let bytes = Self.bytes(record.message)
        let decryptor = DecryptorEngine(password: SecretBytes(record.candidate))
        var out: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            out += try decryptor.update(Array(bytes[start..<min(start + chunk, bytes.count)]))
        }
        out += try decryptor.finalize()
        #expect(out == record.plaintext)
    }

    /// Random v0-shaped inputs through the structural checks and the incremental body decryptor
    /// with fixed keys (no key derivation): typed errors, never a crash, and both paths agree.
    @Test("random v0-shaped input: typed errors, one-shot and incremental agree")
    func randomV0() throws {
        var random = SeededGenerator(seed: 0x7630)
        let keys = try MessageKeys(encryptionKey: SecretBytes([UInt8](repeating: 1, count: 32)), hmacKey: SecretBytes([UInt8](repeating: 2, count: 32)))
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...200, using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            if length > 0 { bytes[0] = 0 }
            if length > 1 && Bool.random(using: &random) { bytes[1] = 0 }
            let oneShot: RNCryptorError?
            do {
                let message = try Message(bytes)
                oneShot = message.isAuthentic(hmacKey: keys.hmacKey) ? nil : .hmacMismatch
            } catch { oneShot = error }
            var incremental: RNCryptorError? = nil
            do {
                let header = try MessageHeader(parsing: bytes)
                let body = try BodyEngine(header: header, keys: keys)
                var start = header.length
                while start < bytes.count {
                    let end = min(bytes.count, start + Int.random(in: 1...40, using: &random))
                    _ = body.update(Array(bytes[start..<end]))
                    start = end
                }
                _ = try body.finalize()
            } catch { incremental = error }
            #expect(oneShot != nil && oneShot == incremental, "\(length) bytes: \(String(describing: oneShot)) vs \(String(describing: incremental))")
        }
    }

    @Test("OpenSSL enc and the RNCryptor v4 draft are named, not unknown versions")
    func foreignFormats() throws {
        let salted = Array("Salted__".utf8) + [UInt8](repeating: 7, count: 8 + 32)
        #expect(throws: RNCryptorError.openSSLEnc) { try Message(salted) }
        let v4 = Array("RNC".utf8) + [4] + [UInt8](repeating: 0, count: 80)
        #expect(throws: RNCryptorError.rncryptorV4Draft) { try Message(v4) }
        #expect(throws: RNCryptorError.unknownVersion(UInt8(ascii: "R"))) { try Message(Array("RNC".utf8) + [5] + [UInt8](repeating: 0, count: 80)) }
        #expect(throws: RNCryptorError.unknownVersion(UInt8(ascii: "S"))) { try Message(Array("Sal".utf8)) }
        // Fed a byte at a time, the incremental decryptor waits for the whole magic.
        let decryptor = DecryptorEngine(password: SecretBytes(utf8: "x"))
        #expect(throws: RNCryptorError.openSSLEnc) {
            for byte in salted { _ = try decryptor.update([byte]) }
        }
    }
}
