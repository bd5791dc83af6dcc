import Foundation
import Testing

/// Issue 35, item 5: "an OpenPGP parse error inside a verified message is called invalid
/// header". Fixtures/kinds/openpgp-inner/bad-inner-packet.gpg (its make.py) has a valid MDC
/// around a literal packet and a byte that is no packet header.
@Suite("decrypt: a bad packet inside a verified OpenPGP message")
struct OpenPGPPacketInsideCommandTests {
    let dir = TemporaryFolder()

    static let message = KindCommandTests.kinds.appendingPathComponent("openpgp-inner/bad-inner-packet.gpg").path
    static let reason = "OpenPGP message: bad packet inside the encrypted data: not an OpenPGP packet (byte 0x0)"

    func run(_ args: [String]) throws -> RWSecretProcess.Result {
        let list = dir.file("passwords", "not it\ninner packets\n")
        return try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", list] + args + [Self.message],
                                       environment: RWSecretProcess.environment(home: dir.url))
    }

    @Test("--binary, line mode, --json and --verbose name the bad inner packet, never 'invalid header'; nothing released, status 1",
          arguments: [["--binary"], [], ["--json"], ["--binary", "--verbose"]])
    func wording(_ options: [String]) throws {
        let result = try run(options)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("invalid header") && !result.out.contains("invalid header"), "\(result.stderr)\(result.out)")
        #expect(!result.out.contains("authentic, but malformed inside"), "nothing released")
        if options == ["--json"] {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
            #expect(record["error"] as? String == Self.reason, "\(record)")
            #expect(record["kind"] as? String == "openpgp")
        } else {
            // Line mode names the line ("FILE:1"); --verbose adds its own lines.
            let place = options.contains("--binary") ? Self.message : Self.message + ":1"
            #expect(result.errLines.filter { $0.contains("OpenPGP message") } == ["rwsecret: \(place): \(Self.reason)"], "\(result.stderr)")
        }
    }
}
