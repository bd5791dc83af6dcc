import Testing
import RWSecretKit

/// The forms of one password that the chain tries (SPEC "Format"), and what they cost.
@Suite("Password dialects and normalization")
struct PasswordDialectTests {
    static func forms(_ text: String, version: UInt8) -> [[UInt8]] {
        PasswordDialects.kdfPasswords(SecretBytes(utf8: text), version: version).map { $0.withUnsafeBytes { Array($0) } }
    }

    @Test("an ASCII password has exactly one form at every version (it costs what it cost before)", arguments: [UInt8(0), 1, 2, 3])
    func asciiIsOneForm(version: UInt8) {
        #expect(Self.forms("correct horse battery", version: version) == [Array("correct horse battery".utf8)])
    }

    @Test("v2 and v0: cut to UTF-16 length (the original), cut to code points (PHP, Ruby), not cut (Ruby's v2)", arguments: [UInt8(0), 2])
    func v2Forms(version: UInt8) {
        let full = Array("🦄ab".utf8)  // 6 bytes, 3 code points, 4 UTF-16 units
        #expect(Self.forms("🦄ab", version: version) == [Array(full[0..<4]), Array(full[0..<3]), full])
        // Without characters outside the BMP the two cuts are one byte string, tried once.
        let cjk = Array("中文".utf8)
        #expect(Self.forms("中文", version: version) == [Array(cjk[0..<2]), cjk])
    }

    @Test("v1: the reference form (not cut) first, then the cuts")
    func v1Forms() {
        let full = Array("🦄ab".utf8)
        #expect(Self.forms("🦄ab", version: 1) == [full, Array(full[0..<4]), Array(full[0..<3])])
    }

    @Test("v3: UTF-8, then JSCryptor's low byte of each UTF-16 unit")
    func v3Forms() {
        #expect(Self.forms("🦄ab", version: 3) == [Array("🦄ab".utf8), [0x3E, 0x84, 0x61, 0x62]])
        #expect(Self.forms("p\u{E4}ssw\u{F6}rd", version: 3).prefix(2) == [Array("p\u{E4}ssw\u{F6}rd".utf8), [0x70, 0xE4, 0x73, 0x73, 0x77, 0xF6, 0x72, 0x64]])
    }

    @Test("the other normalization form follows every form of the password as given")
    func normalization() {
        let nfc = "\u{E9}t\u{E9}"  // été, precomposed
        let nfd = "e\u{301}te\u{301}"
        #expect(Self.forms(nfc, version: 3).prefix(2) == [Array(nfc.utf8), [0xE9, 0x74, 0xE9]])
        #expect(Self.forms(nfc, version: 3).contains(Array(nfd.utf8)))
        #expect(Self.forms(nfd, version: 3).first == Array(nfd.utf8))
        #expect(Self.forms(nfd, version: 3).contains(Array(nfc.utf8)))
        // Nothing to normalize: no second form.
        #expect(Self.forms("中文", version: 3).count == 2)
        // Every form is distinct.
        for version in [UInt8(0), 1, 2, 3] {
            let all = Self.forms(nfd + " 🦄", version: version)
            #expect(Set(all).count == all.count)
        }
    }

    @Test("a password that is not UTF-8 has one form, as before")
    func invalidUTF8() {
        let bytes: [UInt8] = [0x61, 0xFF, 0x62]
        #expect(PasswordDialects.kdfPasswords(SecretBytes(bytes), version: 3).count == 1)
    }

    @Test("the chain's candidates: one per ASCII password, every form of a non-ASCII one, in chain order")
    func candidates() throws {
        let message = try Message(RNCryptor.encrypt([1, 2, 3], password: SecretBytes(utf8: "x")))
        let client = PasswordClient(runOnly: [ChainPassword(name: "a", secret: SecretBytes(utf8: "ascii")),
                                              ChainPassword(name: "u", secret: SecretBytes(utf8: "\u{E9}"))]) { nil }
        let head = try #require(try client.chainHead())
        let names = head.chainCandidates(for: message.header).compactMap(\.opener.passwordName)
        #expect(names == ["a", "u", "u", "u", "u"])  // é: UTF-8, its low byte, NFD, NFD's low bytes
    }

    @Test("a message made with another iteration count opens only with that count")
    func iterations() throws {
        let password = SecretBytes(utf8: "fewer rounds")
        let encryptor = try Encryptor(password: password, iterations: 1_000)
        let message = try Message(encryptor.update(Array("hello".utf8)) + encryptor.finalize())
        let candidate = ChainPassword(name: "p", secret: password)
        let right = try PasswordClient(runOnly: [candidate], iterations: 1_000) { nil }.decrypt(message)
        #expect((try? right.get())?.plaintext == Array("hello".utf8))
        let wrong = try PasswordClient(runOnly: [candidate]) { nil }.decrypt(message)
        #expect(wrong.failureValue == .noPasswordOpened(tried: 1))
        // The incremental decryptor takes the count too.
        let decryptor = DecryptorEngine(password: password, iterations: 1_000)
        let bytes = message.bytes
        #expect(try decryptor.update(bytes) + decryptor.finalize() == Array("hello".utf8))
    }
}
