import Foundation
import Testing
import RWSecretKit

/// `decrypt --allow-legacy` (issue 21, item 2): v0 and v1 messages, whose HMAC does not
/// cover the header, open only when asked; the JSON says what was authenticated.
@Suite("decrypt: legacy v0 and v1 need --allow-legacy")
struct LegacyCommandTests {
    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: String = "", extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "correct horse battery"].merging(extra) { $1 })
        return try RWSecretProcess.run(args, stdin: Data(stdin.utf8), environment: env, directory: dir.url)
    }

    static func fixture(version: String) throws -> String {
        try #require(PeerMessagesCommandTests.rows.first {
            $0[1] == version && $0[2] == "password" && $0[4] == "636f727265637420686f7273652062617474657279"
                && $0[6] == "48656c6c6f2066726f6d20612070656572"
        })[7]
    }

    /// The v1 fixture with its IV XORed so that its first block reads "PAY 9999 to Eve!".
    static func tamperedV1() throws -> String {
        var bytes = try #require(Base64.decodeLenient(Array(try fixture(version: "1").utf8)))
        let was = Array("Hello from a pee".utf8), wanted = Array("PAY 9999 to Eve!".utf8)
        for i in 0..<16 { bytes[18 + i] ^= was[i] ^ wanted[i] }
        return Base64.encode(bytes)
    }

    static let refusal = "version 1 message: its HMAC does not cover the header, so its plaintext cannot be fully authenticated (give --allow-legacy to open it anyway)"

    // Before: exit 0 and "PAY 9999 to Eve!r" on stdout.
    @Test("a v1 message with a tampered IV fails without the flag, with one reason naming it")
    func tamperedV1Refused() throws {
        let result = try run(["decrypt", "--no-store"], stdin: try Self.tamperedV1() + "\n")
        #expect(result.out == "")
        #expect(result.errLines == ["rwsecret: -:1: " + Self.refusal])
        #expect(result.status == 1)
        // With it, the attack shows: the plaintext depends on bytes no HMAC covers.
        let allowed = try run(["decrypt", "--no-store", "--allow-legacy"], stdin: try Self.tamperedV1() + "\n")
        #expect(allowed.outLines == ["PAY 9999 to Eve!r"])
    }

    @Test("v0 and v1 open with --allow-legacy or RWSECRET_ALLOW_LEGACY=1, and JSON says \"ciphertext-only\"", arguments: ["0", "1"])
    func allowed(version: String) throws {
        let message = try Self.fixture(version: version) + "\n"
        let refused = try run(["decrypt", "--no-store", "--json"], stdin: message)
        let failure = try #require(try LineSourceTests.json(refused).first)
        #expect(failure["status"] as? String == "failed")
        #expect((failure["error"] as? String)?.contains("--allow-legacy") == true)
        for (flags, extra) in [(["--allow-legacy"], [String: String]()), ([], ["RWSECRET_ALLOW_LEGACY": "1"])] {
            let result = try run(["decrypt", "--no-store", "--json"] + flags, stdin: message, extra: extra)
            let record = try #require(try LineSourceTests.json(result).first)
            #expect(record["plaintext"] as? String == "Hello from a peer")
            #expect(record["authenticated"] as? String == "ciphertext-only")
            #expect(result.status == 0)
        }
        #expect(try run(["decrypt", "--no-store"], stdin: message, extra: ["RWSECRET_ALLOW_LEGACY": "0"]).status == 1)
        #expect(try run(["decrypt", "--no-store"], stdin: message, extra: ["RWSECRET_ALLOW_LEGACY": "yes"]).status == 64)
    }

    @Test("v2 and v3 are unchanged: no flag needed, no \"authenticated\" member", arguments: ["2", "3"])
    func modernVersions(version: String) throws {
        let result = try run(["decrypt", "--no-store", "--json"], stdin: try Self.fixture(version: version) + "\n")
        let record = try #require(try LineSourceTests.json(result).first)
        #expect(record["plaintext"] as? String == "Hello from a peer")
        #expect(record["authenticated"] == nil)
    }

    @Test("--binary refuses a tampered v1 without the flag and writes nothing")
    func binary() throws {
        let input = dir.file("m.bin", bytes: try #require(Base64.decodeLenient(Array(try Self.tamperedV1().utf8))))
        let out = dir.url.appendingPathComponent("out").path
        let result = try run(["decrypt", "--no-store", "--binary", input, "-o", out])
        #expect(result.errLines == ["rwsecret: \(input): " + Self.refusal])
        #expect(result.status == 1)
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try run(["decrypt", "--no-store", "--binary", "--allow-legacy", input, "-o", out]).status == 0)
        #expect(FileManager.default.contents(atPath: out) == Data("PAY 9999 to Eve!r".utf8))
    }
}
