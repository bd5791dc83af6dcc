import Foundation
@testable import RWSecretKit
import Testing

/// What a signed message may make rwsecret spend: each one-pass signature packet hashes the
/// whole literal data again, before the message has verified, so only the first
/// `OpenPGPSignature.maxSignatures` are hashed and kept.
@Suite("OpenPGP: signatures inside the encrypted data")
struct OpenPGPSignatureTests {
    /// A v3 one-pass signature packet: binary, SHA-256, EdDSA, key ID `id`, last.
    static func onePass(_ id: UInt8) -> [UInt8] {
        OpenPGPBuilder.packet(tag: 4, [3, 0, 8, 22] + [UInt8](repeating: id, count: 8) + [1])
    }

    @Test("1,000 one-pass signature packets before the data: 16 are hashed and said (not checked: no signature packet follows), the data released once")
    func manyOnePassPackets() throws {
        let data = [UInt8](repeating: 0x61, count: 100_000)
        let packets = (0..<1000).flatMap { Self.onePass(UInt8(truncatingIfNeeded: $0)) } + OpenPGPBoundsTests.literal(data)
        let message = try OpenPGPBuilder.message(password: OpenPGPBoundsTests.password, packets: packets)
        let input = KindInput(bytes: message)
        let header = try OpenPGPKind.parseHeader(input)
        let (key, _, _) = try #require(try OpenPGPKind.firstUnlock(header, credentials: [.password(SecretBytes(OpenPGPBoundsTests.password))]))
        let sink = CountingSink()
        try OpenPGPKind.decryptBody(header, key: key, from: input, into: sink)
        #expect(sink.bytes == data)
        let signatures = try #require(header.literal?.signatures)
        #expect(signatures.count == OpenPGPSignature.maxSignatures)
        #expect(signatures.allSatisfy { $0.outcome == .unchecked("no signature packet after the data, not checked") })
        #expect(signatures[0].issuer == "0000000000000000" && signatures[1].issuer == "0101010101010101")
    }
}
