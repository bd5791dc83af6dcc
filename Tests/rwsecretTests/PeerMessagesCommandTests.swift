import Foundation
import Testing
import RWSecretKit

/// `rwsecret decrypt` on messages other RNCryptor implementations wrote (Fixtures/peers), and `--iterations`.
@Suite("decrypt: peer dialects, --iterations, key cost")
struct PeerMessagesCommandTests {
    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: String = "", extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        var env = RWSecretProcess.environment(home: dir.url)
        for (k, v) in extra { env[k] = v }
        return try RWSecretProcess.run(args, stdin: Data(stdin.utf8), environment: env, directory: dir.url)
    }

    /// Fixtures/peers/messages.tsv rows: peer, version, mode, iterations, secret, candidate, plaintext, message, note.
    static let rows: [[String]] = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/peers/messages.tsv").path) {
            folder.deleteLastPathComponent()
        }
        let text = (try? String(contentsOf: folder.appendingPathComponent("Fixtures/peers/messages.tsv"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    }()

    static func row(_ peer: String, _ version: String, _ note: String) -> [String]? {
        rows.first { $0[0] == peer && $0[1] == version && $0[8] == note && $0[6] == "48656c6c6f2066726f6d20612070656572" }
    }

    static func text(hex: String) -> String { String(decoding: Hex.decode(hex), as: UTF8.self) }

    @Test("messages from PHP (v0, v1, v2), Ruby v2, JSCryptor, PyPI and RNCryptor-C open with the passwords as typed")
    func peerDialects() throws {
        let picks = [("php", "0", "emoji"), ("php", "1", "cjk"), ("php", "2", "emoji"), ("ruby", "2", "emoji NFD"),
                     ("jscryptor", "3", "greek NFC"), ("pypi", "3", "latin1 NFD, opened with the other normalization form"),
                     ("rncryptor-c", "3", "ascii")]
        let rows = try picks.map { try #require(Self.row($0.0, $0.1, $0.2), "\($0)") }
        let messages = dir.file("peers.txt", rows.map { $0[7] }.joined(separator: "\n") + "\n")
        let passwords = dir.file("passwords", Set(rows.map { Self.text(hex: $0[5]) }).sorted().joined(separator: "\n") + "\n")
        let result = try run(["decrypt", "--no-store", "--allow-legacy", "--password-file", passwords, messages])
        #expect(result.outLines == Array(repeating: "Hello from a peer", count: picks.count), "\(result.errLines)")
        #expect(result.status == 0)
    }

    /// ASCII passwords have one form: a wrong one costs one key derivation, as before the dialects.
    @Test("ASCII candidates cost one key each on v3, v2, v1 and v0 messages", arguments: ["3", "2", "1", "0"])
    func asciiCost(version: String) throws {
        let row = try #require(Self.rows.first { $0[0] == "php" && $0[1] == version && $0[8] == "ascii" && $0[6] == "48656c6c6f2066726f6d20612070656572" })
        let passwords = dir.file("wrong-\(version)", "wrong-1\nwrong-2\nwrong-3\n")
        let result = try run(["decrypt", "--no-store", "--verbose", "--jobs", "1", "--password-file", passwords],
                             stdin: row[7] + "\n", extra: ["RWSECRET_PASSWORD": Self.text(hex: row[5]), "RWSECRET_ALLOW_LEGACY": "1"])
        #expect(result.outLines == ["Hello from a peer"])
        // Three wrong HMAC keys, the right one's HMAC key, its encryption key.
        #expect(result.errLines.contains("rwsecret: key derivations: 5"), "\(result.errLines)")
    }

    /// The head of the chain tries its reference form alone first: a right non-ASCII password
    /// in that form costs what an ASCII one does; only a miss pays for the other forms.
    @Test("a non-ASCII password in the reference form costs two keys; a wrong one costs one per form")
    func nonASCIICost() throws {
        let row = try #require(Self.rows.first { $0[0] == "pypi" && $0[8] == "latin1 NFC" })
        let password = Self.text(hex: row[5])
        let right = try run(["decrypt", "--no-store", "--verbose", "--jobs", "1"], stdin: row[7] + "\n", extra: ["RWSECRET_PASSWORD": password])
        #expect(right.outLines.count == 1)
        #expect(right.errLines.contains("rwsecret: key derivations: 2"), "\(right.errLines)")
        // Wrong: UTF-8, its low bytes, NFD, NFD's low bytes (v3): four keys, one password tried.
        let wrong = try run(["decrypt", "--no-store", "--verbose", "--jobs", "1"], stdin: row[7] + "\n", extra: ["RWSECRET_PASSWORD": password + "\u{E9}"])
        #expect(wrong.errLines.contains("rwsecret: -:1: no password opened it (tried 1)"), "\(wrong.errLines)")
        #expect(wrong.errLines.contains("rwsecret: key derivations: 4"), "\(wrong.errLines)")
    }

    /// PHP v2 cuts "🦄ab" to its code-point count: the second form. The first message pays for
    /// the reference form, then the second (2 HMAC keys + 1 encryption key; the forms after the
    /// one that matches are not derived); the chain then remembers the form, and the next
    /// message costs 2.
    @Test("the form that opened the last message is tried first")
    func rememberedForm() throws {
        let rows = Self.rows.filter { $0[0] == "php" && $0[1] == "2" && $0[8] == "emoji" }
        try #require(rows.count == 2)
        let result = try run(["decrypt", "--no-store", "--verbose", "--jobs", "1"], stdin: rows.map { $0[7] }.joined(separator: "\n") + "\n",
                             extra: ["RWSECRET_PASSWORD": Self.text(hex: rows[0][5])])
        #expect(result.outLines.count == 2)
        #expect(result.errLines.contains("rwsecret: key derivations: 5"), "\(result.errLines)")
    }

    @Test("--iterations opens messages made with another count; without it they do not open")
    func iterations() throws {
        let row = try #require(Self.rows.first { $0[0] == "rncryptor-c" && $0[3] == "1000" })
        let env = ["RWSECRET_PASSWORD": Self.text(hex: row[5])]
        let plain = try run(["decrypt", "--no-store"], stdin: row[7] + "\n", extra: env)
        #expect(plain.errLines == ["rwsecret: -:1: no password opened it (tried 1)"])
        let told = try run(["decrypt", "--no-store", "--iterations", "1000"], stdin: row[7] + "\n", extra: env)
        #expect(told.outLines == ["Hello from a peer"])
        #expect(try run(["decrypt", "--no-store", "--iterations", "0"], extra: env).status == 64)
    }

    @Test("encrypt --iterations warns once on stderr, and decrypt --iterations reads the result")
    func encryptIterations() throws {
        let env = ["RWSECRET_PASSWORD": "pw"]
        let made = try run(["encrypt", "--iterations", "2000"], stdin: "one\ntwo\n", extra: env)
        #expect(made.status == 0)
        #expect(made.errLines.count == 1 && made.errLines[0].hasPrefix("rwsecret: warning: --iterations 2000"), "\(made.errLines)")
        let back = try run(["decrypt", "--no-store", "--iterations", "2000"], stdin: made.out, extra: env)
        #expect(back.outLines == ["one", "two"])
        #expect(try run(["encrypt", "--iterations", "2000", "--quiet"], stdin: "x\n", extra: env).stderr == "")
    }

    @Test("--iterations where it cannot apply is bad usage, never silently ignored")
    func iterationsUsage() throws {
        let key = dir.file("key", String(repeating: "ab", count: 64) + "\n")
        #expect(try run(["encrypt", "--iterations", "2000", "--key-file", key], stdin: "x\n").status == 64)
        #expect(try run(["encrypt", "--iterations", "0"], stdin: "x\n", extra: ["RWSECRET_PASSWORD": "pw"]).status == 64)
    }
}
