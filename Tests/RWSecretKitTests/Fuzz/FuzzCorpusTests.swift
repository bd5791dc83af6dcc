import Foundation
import Testing
@_spi(Testing) import RWSecretKit

/// The fuzz targets' committed seeds (Fuzz/corpus, written by Fuzz/make_seeds.py) are what
/// the targets expect: messages that open at the targets' PBKDF2 iteration count with their
/// credentials, so the fuzzer starts past the HMAC check; vault plaintexts the decoder reads.
/// Keys are derived here with an explicit count: the process-wide override the fuzzers use
/// would slow every other test down to nothing (and race with them).
@Suite("Fuzz seed corpus")
struct FuzzCorpusTests {
    /// Fuzz/Sources/FuzzSupport.swift: fuzzIterations, FuzzSecrets.
    static let iterations = 3
    static let passwords = ["fuzz", "a", "password", "thepassword", "中文密码",
                            "It was the best of times, it was the worst of times; it was the age of wisdom, it was the age of foolishness;"]
    static let keys = try! MessageKeys(encryptionKey: SecretBytes((0..<32).map { UInt8($0) }), hmacKey: SecretBytes((32..<64).map { UInt8($0) }))
    /// fuzz-stream's credential table (byte 0 of an input): "fuzz", the key pair, the vectors' passwords.
    static let streamPasswords: [Int: String] = [0: "fuzz", 2: "a", 3: "password", 4: "thepassword", 5: "中文密码",
                                                 6: "It was the best of times, it was the worst of times; it was the age of wisdom, it was the age of foolishness;"]

    static let corpus: URL = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static func seeds(_ target: String) -> [(name: String, bytes: [UInt8])] {
        let folder = corpus.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { ($0, Array(FileManager.default.contents(atPath: folder.appendingPathComponent($0).path) ?? Data())) }
    }

    /// Opens `message` with `password` at the fuzz iteration count: HMAC first, as the engine does.
    static func open(_ message: Message, password: String) -> Result<[UInt8], RNCryptorError>? {
        guard let salts = message.header.salts else { return nil }
        let secret = message.header.kdfPassword(SecretBytes(utf8: password))
        func key(_ salt: [UInt8]) -> SecretBytes {
            KeyDerivation.pbkdf2SHA1(password: secret, salt: salt, iterations: iterations, keyLength: 32, using: .portable)
        }
        guard message.isAuthentic(hmacKey: key(salts.hmac)) else { return nil }
        return Result { () throws(RNCryptorError) in try message.decipher(encryptionKey: key(salts.encryption)) }
    }

    @Test("line seeds: every message line opens with a chain password at the fuzz count (or the key pair)")
    func lineSeeds() throws {
        let seeds = Self.seeds("line")
        #expect(seeds.count >= 30, "Fuzz/corpus/line has \(seeds.count) seeds")
        var opened = 0
        for seed in seeds where !seed.name.contains("-published") && !seed.name.contains("bad-base64") {
            for line in seed.bytes.split(separator: UInt8(ascii: "\n")) {
                let text = line.filter { ![UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")].contains($0) }
                if text.isEmpty || text.first == UInt8(ascii: "#") { continue }
                let raw = try #require(Base64.decodeLenient(text), "\(seed.name): not base64")
                let message = try Message(raw)
                let outcome: Result<[UInt8], RNCryptorError>?
                if message.header.isPasswordBased {
                    outcome = Self.passwords.lazy.compactMap { Self.open(message, password: $0) }.first
                } else {
                    outcome = Result { () throws(RNCryptorError) in try message.decrypt(keys: Self.keys, legacyFormats: .allowed) }
                }
                if seed.name.hasPrefix("bad-padding") {
                    #expect(outcome == .failure(.badPadding), "\(seed.name)")
                } else {
                    #expect(outcome.map { (try? $0.get()) != nil } == true, "\(seed.name): \(String(describing: outcome))")
                }
                opened += 1
            }
        }
        #expect(opened >= 30)
    }

    @Test("stream seeds: byte 0 names the credential that opens the message (published password vectors excepted)")
    func streamSeeds() throws {
        let seeds = Self.seeds("stream")
        #expect(seeds.count >= 50, "Fuzz/corpus/stream has \(seeds.count) seeds")
        for seed in seeds {
            let selector = Int(seed.bytes[0]), message = try Message(Array(seed.bytes[3...]))
            let outcome: Result<[UInt8], RNCryptorError>?
            if let password = Self.streamPasswords[selector] {
                if seed.name.contains("-published") { continue }  // made with 10,000 iterations
                outcome = Self.open(message, password: password)
            } else if selector == 1 {
                outcome = Result { () throws(RNCryptorError) in try message.decrypt(keys: Self.keys, legacyFormats: .allowed) }
            } else {
                continue  // an official key vector's own key pair: VectorTests covers those
            }
            if seed.name.hasPrefix("bad-padding") {
                #expect(outcome == .failure(.badPadding), "\(seed.name)")
            } else {
                #expect(outcome.map { (try? $0.get()) != nil } == true, "\(seed.name): \(String(describing: outcome))")
            }
        }
    }

    @Test("vault seeds: the well-formed ones decode, the malformed ones are refused")
    func vaultSeeds() {
        let expected: [String: Int?] = [
            "empty.bin": 0, "one.bin": 1, "several.bin": 4,
            "count-too-big.bin": nil, "trailing-byte.bin": nil, "bad-utf8-label.bin": nil,
            "huge-count.bin": nil, "huge-length.bin": nil, "bad-magic.bin": nil,
            // Passwords alone refuse an identity section; decodeAll reads a well-formed one.
            "identities.bin": nil, "identities-empty-section.bin": nil, "identities-unknown-kind.bin": nil,
        ]
        let seeds = Self.seeds("vault")
        #expect(Set(seeds.map(\.name)) == Set(expected.keys))
        for seed in seeds {
            #expect(VaultContents.decode(SecretBytes(seed.bytes))?.count == expected[seed.name] ?? nil, "\(seed.name)")
            let all = VaultContents.decodeAll(SecretBytes(seed.bytes))
            #expect(all?.identities.count == (seed.name == "identities.bin" ? 1 : all == nil ? nil : 0), "\(seed.name)")
        }
    }
}
