import Foundation
import RWSecretKit
import Testing

/// Issue 33, item 4, for `encrypt --to-key`: writing an OpenPGP message to public keys is
/// public API (`OpenPGP.Certificate`, `OpenPGP.Recipient`, `OpenPGP.Writer`), streamed as
/// `Age.Writer` is. The calls are `ConsumerKeyWriter`'s, which typechecks as a consumer's file;
/// before, the writer and its recipients were `package` (`OpenPGPMessageWriter`,
/// `OpenPGPRecipient`) and the file did not typecheck.
@Suite("OpenPGP: messages to public keys on public API", .serialized)
struct OpenPGPWriterPublicTests {
    static let rfc9580 = Fixtures.directory.appendingPathComponent("kinds/openpgp-rfc9580")

    @Test("ConsumerKeyWriter.swift typechecks as a consumer's file: certificates, recipients and the writer are public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerKeyWriter.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test("a message written in pieces to gpg's public key (exported alone) opens with gpg -d, armored and not", arguments: [false, true])
    func gpgOpens(armor: Bool) throws {
        let peer = OpenPGPKeyPeerTests()
        defer { peer.stopAgent() }
        let fingerprint = try peer.makeKey("Erin", primary: "ed25519", subkey: "cv25519")
        let exported = try peer.gpg(["--export", fingerprint])
        try #require(exported.status == 0)
        let plaintext = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let now = UInt64(Date().timeIntervalSince1970)
        let written = try ConsumerKeyWriter.encrypt(plaintext, chunk: 4_099, to: [exported.stdout], armor: armor, now: now)
        #expect(written.keys.count == 1)
        #expect(written.keys[0].hasPrefix("\(fingerprint) Erin <erin@example.org> v4: "))
        #expect(written.keys[0].hasSuffix(" v4"))
        if armor { #expect(String(decoding: written.message.prefix(27), as: UTF8.self) == "-----BEGIN PGP MESSAGE-----") }
        let opened = try peer.gpg(["--decrypt"], stdin: written.message)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == plaintext)
    }

    @Test("a v6 key (RFC 9580 A.4) gets SEIPD v2, which its secret key opens through MessageOpener; bad keys are refused by code")
    func v6AndRefusals() throws {
        let secret = Array(try Data(contentsOf: Self.rfc9580.appendingPathComponent("a4-v6-secret-key.asc")))
        let now = UInt64(Date().timeIntervalSince1970)
        let plaintext = Array("to a v6 key\n".utf8)
        let written = try ConsumerKeyWriter.encrypt(plaintext, chunk: 5, to: [secret], armor: false, now: now)
        #expect(written.keys.count == 1 && written.keys[0].hasSuffix(" v6"))
        let identity = try OpenPGP.Identity(secret, name: "a4")
        let opened = try MessageOpener(passwords: [], identities: [identity]).open(written.message)
        #expect(opened.plaintext == plaintext)

        let peer = OpenPGPKeyPeerTests()
        defer { peer.stopAgent() }
        let v4 = try peer.makeKey("Finn", primary: "ed25519", subkey: "cv25519")
        let v4File = try peer.gpg(["--export", v4]).stdout
        #expect(ConsumerKeyWriter.refusal([v4File, secret], now: now) == .mixedVersions)
        #expect(ConsumerKeyWriter.refusal([], now: now) == .empty)
        #expect(ConsumerKeyWriter.refusal([Array("not a key".utf8)], now: now) == .malformed)
        let signing = try peer.gpg(["--quick-gen-key", "Gail <gail@example.org>", "ed25519", "sign", "never"])
        try #require(signing.status == 0)
        #expect(ConsumerKeyWriter.refusal([try peer.gpg(["--export", "gail@example.org"]).stdout], now: now) == .noEncryptionKey)
        // A key made to expire in a day: refused three days on, taken now.
        let brief = try peer.gpg(["--quick-gen-key", "Hana <hana@example.org>", "default", "default", "1d"])
        try #require(brief.status == 0)
        #expect(ConsumerKeyWriter.refusal([try peer.gpg(["--export", "hana@example.org"]).stdout], now: now + 3 * 86_400) == .expired)
        #expect(ConsumerKeyWriter.refusal([try peer.gpg(["--export", "hana@example.org"]).stdout], now: now) == nil)
    }
}
