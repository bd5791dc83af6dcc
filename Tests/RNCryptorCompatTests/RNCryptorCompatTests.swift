// The shape of RNCryptor Swift's own test cases (one-shot, incremental, key-based,
// errors, the KDF), written for this module: only the import differs.
import Foundation
import XCTest
import RNCryptorCompat

private func hex(_ text: String) -> Data {
    let digits = Array(text.filter { $0.isHexDigit })
    return Data(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! })
}

private func someData() -> Data { RNCryptor.randomData(ofLength: Int.random(in: 1...1024)) }

final class RNCryptorCompatTests: XCTestCase {
    func testRandomData() {
        let a = RNCryptor.randomData(ofLength: 1024), b = RNCryptor.randomData(ofLength: 1024)
        XCTAssertEqual(a.count, 1024)
        XCTAssertNotEqual(a, b)
    }

    func testKDF() {
        let key = RNCryptor.FormatV3.makeKey(forPassword: "a", withSalt: hex("0102030405060708"))
        XCTAssertEqual(key, hex("fc632b0c a6b23eff 9a9dc3e0 e585167f 5a328916 ed19f835 58be3ba9 828797cd"))
        XCTAssertEqual(RNCryptor.FormatV3.keySize, 32)
        XCTAssertEqual(RNCryptor.FormatV3.saltSize, 8)
    }

    private let oneByteKeyMessage = hex("03000203 04050607 08090a0b 0c0d0e0f 0001981b 22e7a644 8118d695 bd654f72 e9d6ed75 ec14ae2a a067eed2 a98a56e0 993dfe22 ab5887b3 f6e3cdd4 0767f519 5eb5")
    private let encryptionKey = hex("000102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f")
    private let hmacKey = hex("0102030405060708090a0b0c0d0e0f000102030405060708090a0b0c0d0e0f00")
    private let oneBytePasswordMessage = hex("03010001 02030405 06070102 03040506 07080203 04050607 08090a0b 0c0d0e0f 0001a1f8 730e0bf4 80eb7b70 f690abf2 1e029514 164ad3c4 74a51b30 c7eaa1ca 545b7de3 de5b010a cbad0a9a 13857df6 96a8")

    func testKeyEncryptorVector() {
        let encryptor = RNCryptor.EncryptorV3(encryptionKey: encryptionKey, hmacKey: hmacKey, iv: hex("02030405060708090a0b0c0d0e0f0001"))
        XCTAssertEqual(encryptor.encrypt(data: hex("01")), oneByteKeyMessage)
    }

    func testKeyDecryptorVector() throws {
        let decryptor = RNCryptor.DecryptorV3(encryptionKey: encryptionKey, hmacKey: hmacKey)
        XCTAssertEqual(try decryptor.decrypt(data: oneByteKeyMessage), hex("01"))
    }

    func testPasswordEncryptorVector() {
        let encryptor = RNCryptor.EncryptorV3(password: "thepassword", encryptionSalt: hex("0001020304050607"),
                                              hmacSalt: hex("0102030405060708"), iv: hex("02030405060708090a0b0c0d0e0f0001"))
        XCTAssertEqual(encryptor.encrypt(data: hex("01")), oneBytePasswordMessage)
    }

    func testPasswordDecryptorVector() throws {
        XCTAssertEqual(try RNCryptor.Decryptor(password: "thepassword").decrypt(data: oneBytePasswordMessage), hex("01"))
    }

    func testOneShotKey() throws {
        let eKey = RNCryptor.randomData(ofLength: RNCryptor.FormatV3.keySize)
        let hKey = RNCryptor.randomData(ofLength: RNCryptor.FormatV3.keySize)
        let data = someData()
        let message = RNCryptor.EncryptorV3(encryptionKey: eKey, hmacKey: hKey).encrypt(data: data)
        XCTAssertEqual(try RNCryptor.DecryptorV3(encryptionKey: eKey, hmacKey: hKey).decrypt(data: message), data)
    }

    func testOneShotPassword() throws {
        let data = someData()
        let message = RNCryptor.Encryptor(password: "thepassword").encrypt(data: data)
        XCTAssertEqual(try RNCryptor.Decryptor(password: "thepassword").decrypt(data: message), data)
        XCTAssertEqual(try RNCryptor.DecryptorV3(password: "thepassword").decrypt(data: message), data)
    }

    func testOneShot() throws {
        let data = someData()
        let message = RNCryptor.encrypt(data: data, withPassword: "thepassword")
        XCTAssertEqual(try RNCryptor.decrypt(data: message, withPassword: "thepassword"), data)
    }

    func testMultipleUpdate() throws {
        let pieces = (0..<10).map { _ in someData() }
        let encryptor = RNCryptor.Encryptor(password: "thepassword")
        var message = Data()
        for piece in pieces { message.append(encryptor.update(withData: piece)) }
        message.append(encryptor.finalData())
        XCTAssertEqual(try RNCryptor.Decryptor(password: "thepassword").decrypt(data: message), Data(pieces.joined()))
    }

    /// Incremental decryption in uneven chunks. The difference from RNCryptor Swift:
    /// `update(withData:)` returns nothing, `finalData()` the whole verified plaintext.
    func testIncrementalDecryptionHoldsPlaintextUntilVerified() throws {
        let data = RNCryptor.randomData(ofLength: 5000)
        let message = RNCryptor.encrypt(data: data, withPassword: "thepassword")
        let decryptor = RNCryptor.Decryptor(password: "thepassword")
        var released = Data()
        var offset = 0, size = 1
        while offset < message.count {
            let end = min(message.count, offset + size)
            released.append(try decryptor.update(withData: message.subdata(in: offset..<end)))
            offset = end; size = size * 3 + 1
        }
        XCTAssertEqual(released, Data())
        XCTAssertEqual(try decryptor.finalData(), data)
    }

    func testIncrementalDecryptionOfATamperedMessageReleasesNothing() {
        var message = RNCryptor.encrypt(data: RNCryptor.randomData(ofLength: 300), withPassword: "thepassword")
        message[100] ^= 1
        let decryptor = RNCryptor.Decryptor(password: "thepassword")
        XCTAssertEqual(try decryptor.update(withData: message), Data())
        assertThrows(.hmacMismatch) { try decryptor.finalData() }
    }

    func testBadFormat() {
        let zeros = Data(count: Int.random(in: 1...1024))
        assertThrows(.unknownHeader) { try RNCryptor.Decryptor(password: "password").decrypt(data: zeros) }
        assertThrows(.unknownHeader) { try RNCryptor.DecryptorV3(password: "password").decrypt(data: zeros) }
    }

    /// The one difference from RNCryptor Swift (the test above) stays documented where a user
    /// meets it: on each decryptor's `update(withData:)` and `finalData()`, on the module, and in
    /// docs/library.md.
    func testTheOneDifferenceIsDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
        let source = try String(contentsOf: root.appendingPathComponent("Sources/RNCryptorCompat/RNCryptor.swift"), encoding: .utf8)
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        /// The `///` lines just above line `index`.
        func docComment(above index: Int) -> String {
            lines[..<index].reversed().prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }.reversed().joined(separator: " ")
        }
        let updates = lines.indices.filter { lines[$0].contains("public func update(withData data: Data) throws -> Data") }
        let finals = lines.indices.filter { lines[$0].contains("public func finalData() throws -> Data") }
        XCTAssertEqual(updates.count, 2, "Decryptor and DecryptorV3")
        XCTAssertEqual(finals.count, 2, "Decryptor and DecryptorV3")
        for index in updates { XCTAssert(docComment(above: index).contains("returns **empty data** (unlike RNCryptor Swift"), lines[index]) }
        for index in finals { XCTAssert(docComment(above: index).contains("returns the **whole** plaintext"), lines[index]) }
        XCTAssert(source.hasPrefix("// RNCryptor Swift's public API"))
        XCTAssert(source.contains("// One deliberate difference: decryptors never hand out plaintext before the\n// HMAC has been verified."))
        let library = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        XCTAssert(library.contains("**One deliberate difference.** RNCryptor Swift's `Decryptor.update(withData:)` returns\nplaintext before the HMAC"))
    }

    /// RNCryptor Swift reads v3 only, and so does this module: a v1 message (Fixtures/peers,
    /// whose HMAC does not cover its IV) is an unknown header, whatever RWSecretKit's
    /// `LegacyFormats` (RWSecretKit refuses it by default too).
    func testLegacyV1IsAnUnknownHeader() {
        let v1 = Data(base64Encoded: "AQHUb3pG3mYIRZyx7pu2LF86wjOlstCgUci6NfPeJV4yUcsdtc2JqzPC0P6nHdl+E++7nADexdTBmYyd1ZmUEDjNBJjwGGO4BchY9LzobmcotFlIatC0H2RFPajthpji1WA=")!
        assertThrows(.unknownHeader) { try RNCryptor.Decryptor(password: "correct horse battery").decrypt(data: v1) }
        assertThrows(.unknownHeader) { try RNCryptor.decrypt(data: v1, withPassword: "correct horse battery") }
    }

    func testBadPassword() {
        let message = RNCryptor.Encryptor(password: "thepassword").encrypt(data: someData())
        assertThrows(.hmacMismatch) { try RNCryptor.Decryptor(password: "wrongpassword").decrypt(data: message) }
    }

    func testWrongKey() {
        var otherKey = hmacKey
        otherKey[0] ^= 1
        assertThrows(.hmacMismatch) {
            try RNCryptor.DecryptorV3(encryptionKey: self.encryptionKey, hmacKey: otherKey).decrypt(data: self.oneByteKeyMessage)
        }
    }

    func testInvalidCredentialType() {
        assertThrows(.invalidCredentialType) { try RNCryptor.Decryptor(password: "thepassword").decrypt(data: self.oneByteKeyMessage) }
        assertThrows(.invalidCredentialType) {
            try RNCryptor.DecryptorV3(encryptionKey: self.encryptionKey, hmacKey: self.hmacKey).decrypt(data: self.oneBytePasswordMessage)
        }
    }

    func testMessageTooShort() {
        assertThrows(.messageTooShort) { try RNCryptor.DecryptorV3(password: "thepassword").decrypt(data: Data()) }
        assertThrows(.unknownHeader) { try RNCryptor.Decryptor(password: "thepassword").decrypt(data: Data()) }
        assertThrows(.messageTooShort) {
            try RNCryptor.Decryptor(password: "thepassword").decrypt(data: self.oneBytePasswordMessage.prefix(40))
        }
    }

    /// Every v3 vector of the RNCryptor spec (Fixtures/rncryptor-spec-vectors/v3), both ways.
    func testSpecVectors() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/rncryptor-spec-vectors/v3").standardized
        var count = 0
        for vector in try vectors(folder.appendingPathComponent("kdf")) {
            XCTAssertEqual(RNCryptor.FormatV3.makeKey(forPassword: vector["password"]!, withSalt: hex(vector["salt_hex"]!)),
                           hex(vector["key_hex"]!), vector["title"]!)
            count += 1
        }
        for vector in try vectors(folder.appendingPathComponent("key")) {
            let (eKey, hKey) = (hex(vector["enc_key_hex"]!), hex(vector["hmac_key_hex"]!))
            let message = hex(vector["ciphertext_hex"]!), plaintext = hex(vector["plaintext_hex"] ?? "")
            XCTAssertEqual(RNCryptor.EncryptorV3(encryptionKey: eKey, hmacKey: hKey, iv: hex(vector["iv_hex"]!)).encrypt(data: plaintext),
                           message, vector["title"]!)
            XCTAssertEqual(try RNCryptor.DecryptorV3(encryptionKey: eKey, hmacKey: hKey).decrypt(data: message), plaintext, vector["title"]!)
            count += 1
        }
        for vector in try vectors(folder.appendingPathComponent("password")) {
            let password = vector["password"]!
            let message = hex(vector["ciphertext_hex"]!), plaintext = hex(vector["plaintext_hex"] ?? "")
            let encryptor = RNCryptor.EncryptorV3(password: password, encryptionSalt: hex(vector["enc_salt_hex"]!),
                                                  hmacSalt: hex(vector["hmac_salt_hex"]!), iv: hex(vector["iv_hex"]!))
            XCTAssertEqual(encryptor.encrypt(data: plaintext), message, vector["title"]!)
            XCTAssertEqual(try RNCryptor.decrypt(data: message, withPassword: password), plaintext, vector["title"]!)
            count += 1
        }
        XCTAssertGreaterThan(count, 10)
    }

    private func vectors(_ file: URL) throws -> [[String: String]] {
        var result: [[String: String]] = [], current: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                if !current.isEmpty { result.append(current); current = [:] }
                continue
            }
            let key = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            if key == "title", !current.isEmpty { result.append(current); current = [:] }
            current[key] = value
        }
        if !current.isEmpty { result.append(current) }
        return result.filter { $0["version"] == "3" }
    }

    private func assertThrows(_ expected: RNCryptor.Error, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Data) {
        do {
            _ = try body()
            XCTFail("should have thrown \(expected)", file: file, line: line)
        } catch let error as RNCryptor.Error {
            XCTAssertEqual(error, expected, file: file, line: line)
        } catch {
            XCTFail("threw \(error), not RNCryptor.Error", file: file, line: line)
        }
    }
}
