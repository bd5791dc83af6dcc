import Foundation
import Testing
import RWSecretKit

/// `Base64.decodeLenient` takes base64 as a server receives it: a trailing `\n` or `\r\n`, and
/// lines wrapped by PEM (64 columns), MIME (76) or `base64` (76, LF). Before (issue 23, item 8),
/// each of these was nil, and the library snippet's `?? []` then reported "too short".
@Suite("Base64.decodeLenient: line breaks")
struct Base64Tests {
    /// `text` wrapped every `width` characters with `newline` between lines.
    static func wrap(_ text: String, every width: Int, with newline: String) -> String {
        let characters = Array(text)
        return stride(from: 0, to: characters.count, by: width)
            .map { String(characters[$0..<min($0 + width, characters.count)]) }
            .joined(separator: newline)
    }

    @Test("a trailing \\n or \\r\\n, and lines wrapped at 64 or 76 with \\n or \\r\\n, decode to the same bytes",
          arguments: [0, 1, 2, 3, 47, 48, 49, 57, 58, 100, 300])
    func lineBreaks(length: Int) throws {
        var rng = SeededGenerator(seed: UInt64(length) + 1)
        let bytes = rng.bytes(length)
        let text = Base64.encode(bytes)
        let unpadded = String(text.prefix { $0 != "=" })
        for plain in [text, unpadded] {
            for newline in ["\n", "\r\n"] {
                for form in [plain + newline,
                             Self.wrap(plain, every: 64, with: newline),
                             Self.wrap(plain, every: 64, with: newline) + newline,
                             Self.wrap(plain, every: 76, with: newline) + newline,
                             Self.wrap(plain, every: 4, with: newline)] {
                    #expect(Base64.decodeLenient(Array(form.utf8)) == bytes, "\(form.debugDescription)")
                }
            }
        }
    }

    @Test("still nil: a space or tab, a lone \\r, padding before more lines, and lengths base64 cannot have",
          arguments: ["QUJD\r", "QUJD\rRA==", "QU JD", "QUJD\t", "QUJD\n\r", "QQ==\nQQ==", "QQ=\n=QQ", "QUJDR\n", "QUJD===\n", "Q\nU\nJ\nD\nR\n", "QUJD\n!"])
    func refused(text: String) {
        #expect(Base64.decodeLenient(Array(text.utf8)) == nil, "\(text.debugDescription)")
    }

    @Test("without a line break, what decodes is unchanged (the tool's lines never hold one)")
    func unchangedWithoutLineBreaks() {
        #expect(Base64.decodeLenient(Array("QUJD".utf8)) == Array("ABC".utf8))
        #expect(Base64.decodeLenient(Array("QUI=".utf8)) == Array("AB".utf8))
        #expect(Base64.decodeLenient(Array("QUI".utf8)) == Array("AB".utf8))
        #expect(Base64.decodeLenient(Array("-_-_".utf8)) == [0xfb, 0xff, 0xbf])
        #expect(Base64.decodeLenient(Array("".utf8)) == [])
        #expect(Base64.decodeLenient(Array("Q".utf8)) == nil)
    }

    /// docs/library.md's loop over request bodies, run: a body with a trailing newline decrypts,
    /// and a body that is not base64 is rejected as `bad base64`, not `too short`.
    @Test("the library snippet: a body ending in a newline decrypts; one that is not base64 is bad base64")
    func librarySnippet() throws {
        let password = SecretBytes(utf8: "app-v2 password")
        let plaintext = Array("from the app".utf8)
        let body = Base64.encode(RNCryptor.encrypt(plaintext, password: password)) + "\r\n"
        var handled: [[UInt8]] = [], rejected: [String] = []
        func reject(_ why: DecryptionFailure) { rejected.append(why.description) }

        for body in [body, "not base64!\n"] {
            // The lines of docs/library.md:
            guard let bytes = RNCryptor.Base64.decodeLenient(Array(body.utf8)) else { reject(.badBase64); continue }
            handled.append(try RNCryptor.decrypt(bytes, password: password))
        }
        #expect(handled == [plaintext])
        #expect(rejected == ["bad base64"])

        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let library = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        #expect(library.contains("    guard let bytes = RNCryptor.Base64.decodeLenient(Array(body.utf8)) else { reject(DecryptionFailure.badBase64); continue }"))
        #expect(library.contains("        let opened = try client.decrypt(bytes)"))
        #expect(!library.contains("?? []"), "a snippet that turns bad base64 into an empty message reports it as too short")
        #expect(!library.contains("decodeLenient(Array(body.utf8))!"), "a snippet that traps on bad base64")
        #expect(library.contains("guard let message = RNCryptor.Base64.decodeLenient(Array(body.utf8)) else { throw DecryptionFailure.badBase64 }"))
    }
}
