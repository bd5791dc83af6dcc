import Foundation
@testable import RWSecretKit
import Testing

/// What gpg's reader tolerates and rwsecret now does too (issue 34, item 4).
@Suite("OpenPGP: gpg's reader tolerances")
struct OpenPGPToleranceTests {
    @Test("an armored block inside other text (an e-mail): detected, and the text before BEGIN and after END is ignored")
    func armorInsideText() throws {
        let fixture = try #require(OpenPGPFixture.all.first { $0.file.hasSuffix(".asc") && $0.refusal == nil })
        let armored = String(decoding: fixture.bytes, as: UTF8.self)
        for (before, after) in [("Hi Bob,\r\n\r\nhere it is:\r\n\r\n", "\r\n-- \r\nAlice\r\n"), ("Subject: the key\n\n> quoted -----BEGIN PGP MESSAGE----- not at a line start\n", "\nPS: -----END PGP MESSAGE-----\n")] {
            let message = Array((before + armored + after).utf8)
            #expect(OpenPGPKind.detect(ArraySlice(message.prefix(detectionLength))))
            #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
            let opened = try openPGP(message, [Array("wrong".utf8), try #require(fixture.secret)]).result.get()
            #expect(opened.plaintext == fixture.plaintext || fixture.plaintext == nil)
        }
        // Text with no block at all is not OpenPGP; a clear-signed message first is still refused as one.
        #expect(!OpenPGPKind.detect(ArraySlice(Array("Hi Bob,\nno message here\n".utf8))))
    }

    @Test("sq encrypt's messages (--compression pad, its default: padding after the deflate stream, inside the MDC) open byte for byte",
          arguments: ["sq-pad-1.pgp", "sq-pad-500.pgp"])
    func sqPadding(_ file: String) throws {
        let folder = Fixtures.directory.appendingPathComponent("kinds/openpgp-sq")
        let message = Array(try Data(contentsOf: folder.appendingPathComponent(file)))
        let plain = Array(try Data(contentsOf: folder.appendingPathComponent(file.replacingOccurrences(of: ".pgp", with: ".txt"))))
        let opened = try openPGP(message, [Array("sq pad ✓".utf8)]).result.get()
        #expect(opened.plaintext == plain)
    }

    @Test("every byte of an sq padded message changed: an error (or a wrong password), nothing released")
    func sqPaddingTampered() throws {
        let message = Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/openpgp-sq/sq-pad-1.pgp")))
        for index in message.indices {
            var copy = message
            copy[index] ^= 0x02
            let (result, sunk) = openPGP(copy, [Array("sq pad ✓".utf8)])
            #expect(!result.isSuccess && sunk == 0, "byte \(index): \(result)")
        }
    }
}
