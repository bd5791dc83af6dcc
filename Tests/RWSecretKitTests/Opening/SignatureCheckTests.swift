import Foundation
import RWSecretKit
import Testing

/// Issue 33, item 4: a program checks the signatures of a signed OpenPGP message through the
/// public API, as `rwsecret decrypt --signer-key` does. Before, `OpenPGPSignature.checked(with:)`
/// took the package's key type: a consumer read `signatures` but could never check one (this
/// did not compile).
@Suite("OpenPGPSignature: checked with public certificates")
struct SignatureCheckTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/openpgp-rfc9580/\(name)")))
    }

    @Test("a message signed by RFC 9580's A.4 key: unknownKey as opened, verified with the key's certificate, unknownKey with another key's")
    func checkedWithCertificates() throws {
        let identity = try OpenPGP.Identity(try Self.fixture("a4-v6-secret-key.asc"), name: "a4")
        let opened = try MessageOpener(passwords: [], identities: [identity]).open(try Self.fixture("a4-signed-encrypted.asc"))
        #expect(opened.plaintext == Array("signed by the RFC key\n".utf8))
        let signatures = try #require(opened.literal?.signatures)
        #expect(signatures.count == 1)
        #expect(signatures.map(\.outcome) == [.unknownKey])
        #expect(signatures[0].issuer == identity.fingerprint)
        // The identity's public parts check it; a certificate read from the same key file too.
        #expect(signatures[0].checked(with: [identity.certificate]).outcome == .verified)
        let certificates = try OpenPGP.Certificate.parse(try Self.fixture("a4-v6-secret-key.asc"))
        #expect(signatures[0].checked(with: certificates).outcome == .verified)
        #expect(certificates.map(\.fingerprint) == [identity.certificate.fingerprint])
        // Another signer's key: not the issuer's, so not verified (never "bad").
        let other = try OpenPGP.Certificate.parse(Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent("kinds/openpgp-librepgp-keys/rsa.sec.asc"))))
        #expect(signatures[0].checked(with: other).outcome == .unknownKey)
        #expect(signatures[0].checked(with: []).outcome == .unknownKey)
    }
}
