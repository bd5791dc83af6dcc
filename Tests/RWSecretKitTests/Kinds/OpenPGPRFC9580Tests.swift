import Foundation
@testable import RWSecretKit
import Testing

/// RFC 9580's own sample messages (appendix A.9 to A.12, Fixtures/kinds/openpgp-rfc9580): v6
/// SKESK with SEIPD v2 in EAX, OCB and GCM, and v4 SKESK with SEIPD v1 under the Argon2 S2K.
/// Each opens with the RFC's password "password" and holds "Hello, world!".
@Suite("RFC 9580 appendix A sample messages (Fixtures/kinds/openpgp-rfc9580)")
struct OpenPGPRFC9580Tests {
    static let directory = Fixtures.directory.appendingPathComponent("kinds/openpgp-rfc9580")
    static let aead = ["a9-v6skesk-aes128-eax.asc", "a10-v6skesk-aes128-ocb.asc", "a11-v6skesk-aes128-gcm.asc"]
    static let argon2 = ["a12.1-v4skesk-argon2-aes128.asc", "a12.2-v4skesk-argon2-aes192.asc", "a12.3-v4skesk-argon2-aes256.asc"]
    static let password = Array("password".utf8)
    static let plaintext = Array("Hello, world!".utf8)

    static func bytes(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: directory.appendingPathComponent(file).path) ?? Data())
    }

    @Test("each AEAD sample opens with \"password\" (second in the chain: tried 2) and holds \"Hello, world!\"", arguments: aead)
    func opens(_ file: String) throws {
        let message = Self.bytes(file)
        #expect(message.count > 100, "fixture \(file) missing")
        #expect(MessageKinds.detect(ArraySlice(message.prefix(detectionLength))) == OpenPGPKind.self)
        let opened = try openPGP(message, [Array("Password".utf8), Self.password]).result.get()
        #expect(opened.plaintext == Self.plaintext)
        #expect(opened.index == 1 && opened.tried == 2)
    }

    /// The Argon2 samples ask for 2 GiB per derivation (m = 2^21 KiB): one at a time, one password each.
    @Test("each Argon2 sample (t=1, p=4, m=2 GiB) opens with \"password\" and holds \"Hello, world!\"", .serialized, arguments: argon2)
    func opensArgon2(_ file: String) throws {
        let message = Self.bytes(file)
        #expect(message.count > 100, "fixture \(file) missing")
        let opened = try openPGP(message, [Self.password]).result.get()
        #expect(opened.plaintext == Self.plaintext)
    }

    @Test("the AEAD samples' session key is the RFC's (A.9.3: 3881bafe985412459b86c36f98cb9a5e for EAX)")
    func eaxSessionKey() throws {
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: Self.bytes("a9-v6skesk-aes128-eax.asc")))
        guard case .unlocked(let session) = try OpenPGPKind.unlock(header, with: .password(SecretBytes(Self.password))) else {
            Issue.record("not unlocked"); return
        }
        #expect(session.key.withUnsafeBytes { Array($0) } == Hex.decode("3881bafe985412459b86c36f98cb9a5e"))
    }

    @Test("a wrong password fails the SKESK's AEAD tag: no match, nothing released", arguments: aead)
    func wrongPassword(_ file: String) throws {
        let (result, sunk) = openPGP(Self.bytes(file), [Array("passwore".utf8)])
        #expect(result.failure == .noMatch([]))
        #expect(sunk == 0)
    }

    @Test("every changed byte of an AEAD sample's encrypted data, and of its sealed session key, is refused with nothing released", arguments: aead)
    func tampered(_ file: String) throws {
        let text = String(decoding: Self.bytes(file), as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        let binary = try #require(Data(base64Encoded: body).map { Array($0) })
        let header = try OpenPGPKind.parseHeader(KindInput(bytes: binary))
        guard case .unlocked(let session) = try OpenPGPKind.unlock(header, with: .password(SecretBytes(Self.password))) else {
            Issue.record("not unlocked"); return
        }
        // The SEIPD packet (each of its bytes, with the session key known: one S2K in all).
        let seipd = Int(binary[1]) + 2
        for position in seipd..<binary.count {
            var copy = binary
            copy[position] ^= 0x10
            let sink = MemoryPlaintext()
            let input = KindInput(bytes: copy)
            var opened = false
            if let changed = try? OpenPGPKind.parseHeader(input) {
                opened = (try? OpenPGPKind.decryptBody(changed, key: session, from: input, into: sink)) != nil
            }
            #expect(!opened, "byte \(position) of \(binary.count) changed, still opened")
            #expect(sink.bytes.isEmpty, "byte \(position): \(sink.bytes.count) bytes reached the sink")
        }
        // The sealed session key: its nonce's first byte, its first byte, its tag's last byte.
        for position in [seipd - 49, seipd - 32, seipd - 1] {
            var copy = binary
            copy[position] ^= 0x10
            let (result, sunk) = openPGP(copy, [Self.password])
            #expect(result.failure == .noMatch([]), "byte \(position)")
            #expect(sunk == 0)
        }
    }

    @Test("an AEAD message cut short (the final tag or a whole chunk gone) releases nothing", arguments: aead)
    func truncated(_ file: String) throws {
        let text = String(decoding: Self.bytes(file), as: UTF8.self)
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") && !$0.isEmpty && !$0.hasPrefix("=") }.joined()
        let binary = try #require(Data(base64Encoded: body).map { Array($0) })
        // The SEIPD packet is the second one, with a one-byte length: shorten it and its length.
        let seipd = Int(binary[1]) + 2
        #expect(binary[seipd] == 0xD2)
        for cut in [16, 32, 1] {
            var copy = Array(binary.dropLast(cut))
            copy[seipd + 1] -= UInt8(cut)
            let (result, sunk) = openPGP(copy, [Self.password])
            if case .success = result { Issue.record("cut by \(cut): still opened") }
            #expect(sunk == 0)
        }
    }
}
