@testable import RWSecretKit
import Testing

/// Issue 35, item 5: a parse error inside verified encrypted data (its MDC checked) is not the
/// outer packets' "invalid header": it says what it is. The outer packets keep their wording.
@Suite("OpenPGP: a bad packet inside verified encrypted data")
struct OpenPGPPacketInsideTests {
    static let literal = OpenPGPBoundsTests.literal(Array("authentic".utf8))

    @Test("a byte that is not a packet header after the literal, directly or inside compressed data: 'bad packet inside the encrypted data' (before: 'invalid header')",
          arguments: [false, true])
    func notAPacket(compressed: Bool) throws {
        let packets = compressed ? OpenPGPBoundsTests.compressed(Self.literal + [0x00]) : Self.literal + [0x00]
        let message = try OpenPGPBuilder.message(password: OpenPGPBoundsTests.password, packets: packets)
        let (error, sink) = try OpenPGPBoundsTests.open(message)
        #expect(error == .packetInside("not an OpenPGP packet (byte 0x0)"), "\(String(describing: error))")
        #expect(error?.description == "bad packet inside the encrypted data: not an OpenPGP packet (byte 0x0)")
        #expect(sink.bytes.isEmpty, "nothing released")
        #expect(DecryptionFailure(.kind(.openpgp, error!, tried: 1)).code == .format)
    }

    @Test("a packet length cut short inside: the same wording; the MDC changed: still the MDC failure")
    func cutShort() throws {
        let message = try OpenPGPBuilder.message(password: OpenPGPBoundsTests.password, packets: Self.literal + [0xCB, 0xFF, 0x00])
        let (error, _) = try OpenPGPBoundsTests.open(message)
        #expect(error == .packetInside("packet length cut short"), "\(String(describing: error))")
        var changed = message
        changed[changed.count - 1] ^= 1
        let (failed, _) = try OpenPGPBoundsTests.open(changed)
        guard case .payload(let why) = failed else { Issue.record("\(String(describing: failed))"); return }
        #expect(why.contains("modification detection code"))
    }

    @Test("a parse error of the outer packets, before any decryption, keeps 'invalid header'")
    func outer() throws {
        let message = try OpenPGPBuilder.message(password: OpenPGPBoundsTests.password, plaintext: Array("x".utf8))
        #expect(throws: KindError.header("not an OpenPGP packet (byte 0x0)")) {
            try OpenPGPKind.parseHeader(KindInput(bytes: Array(message.prefix(15)) + [0x00] + message.dropFirst(15)))
        }
    }
}
