import Foundation
import Testing
import RWSecretKit

/// What `rwsecret decrypt` makes of its input lines: wrapped base64, raw messages
/// given without `--binary`, and the run-level hints for formats that are not RNCryptor.
@Suite("decrypt: line source")
struct LineSourceTests {
    let dir = TemporaryFolder()
    var env: [String: String] { RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"]) }

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: env, directory: dir.url)
    }

    /// `text` cut into rows of `width` characters (the last one shorter or full).
    static func wrap(_ text: String, at width: Int) -> [String] {
        var rows: [String] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            rows.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        return rows
    }

    static func json(_ result: RWSecretProcess.Result) throws -> [[String: Any]] {
        try result.outLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    // Before: every wrapped row was its own message (`too short`, `bad base64`).
    @Test("base64 wrapped at 64 and 76 columns is joined, in a file and on stdin, and reported at its first line",
          arguments: [64, 76])
    func wrapped(width: Int) throws {
        let long = Messages.password(String(repeating: "long plaintext ", count: 10), "pw")
        let short = Messages.password("short", "pw")
        #expect(long.count > 3 * width && short.count > width && short.count < 2 * width)
        let lines = ["# wrapped below"] + Self.wrap(long, at: width) + [short] + Self.wrap(short, at: width) + ["", "not base64!"]
        let text = lines.joined(separator: "\n") + "\n"
        let file = dir.file("wrapped.txt", text)
        for input in [file, "-"] {
            let result = try run(["decrypt", "--no-store", input], stdin: Data(text.utf8))
            #expect(result.outLines == [String(repeating: "long plaintext ", count: 10), "short", "short"], "\(input)")
            let badLine = lines.count
            #expect(result.errLines == ["rwsecret: \(input):\(badLine): bad base64"], "\(input)")
            #expect(result.status == 1)

            let json = try Self.json(try run(["decrypt", "--no-store", "--json", input], stdin: Data(text.utf8)))
            let longRows = Self.wrap(long, at: width).count
            #expect(json.map { $0["line"] as? Int } == [2, 2 + longRows, 3 + longRows, badLine], "\(input)")
            #expect(json.map { $0["status"] as? String } == ["decrypted", "decrypted", "decrypted", "failed"])
        }
    }

    @Test("a wrapped message whose last row is full width ends at a blank line or at the end")
    func fullWidthLastRow() throws {
        // 40 bytes of plaintext: 34 + 48 + 32 = 114 bytes = exactly two rows of 76 characters.
        let plaintext = String(repeating: "x", count: 40)
        let message = Messages.password(plaintext, "pw")
        #expect(message.count == 152 && !message.hasSuffix("="))
        let rows = Self.wrap(message, at: 76)
        let atEnd = try run(["decrypt", "--no-store"], stdin: Data((rows.joined(separator: "\n") + "\n").utf8))
        #expect(atEnd.outLines == [plaintext])
        #expect(atEnd.status == 0)
        let noFinalNewline = try run(["decrypt", "--no-store"], stdin: Data(rows.joined(separator: "\n").utf8))
        #expect(noFinalNewline.outLines == [plaintext])
        let thenAnother = (rows + ["", Messages.password("next", "pw")]).joined(separator: "\n") + "\n"
        let result = try run(["decrypt", "--no-store"], stdin: Data(thenAnother.utf8))
        #expect(result.outLines == [plaintext, "next"])
        #expect(result.status == 0)
    }

    @Test("a line that is a whole message is never joined; a wrapped row that breaks the pattern ends the message")
    func notJoined() throws {
        let whole = Messages.password("whole", "pw")
        let rows = Self.wrap(Messages.password("wrapped", "pw"), at: 64)
        // A whole message followed by a short base64 line: two results. A 64-column row followed by
        // a longer line: the longer line is its own message.
        let lines = [whole, "AwE=", rows[0], whole]
        let result = try run(["decrypt", "--no-store"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8))
        #expect(result.outLines == ["whole", "whole"])
        #expect(result.errLines == ["rwsecret: -:2: too short", "rwsecret: -:3: too short"])
        #expect(result.status == 1)
    }

    @Test("endless 64-column rows are one message, cut at 1 MiB as 'line too long', in bounded memory")
    func endlessWrap() throws {
        // The first row is a v3 header and zeros (too short alone): it starts a wrapped message.
        let row = String(repeating: "A", count: 64)
        var text = "AwE" + row.dropFirst(3) + "\n" + String(repeating: row + "\n", count: (1 << 21) / 65 - 1)
        text += "\n" + Messages.password("after", "pw") + "\n"
        // --json: under --in-band no row is joined (each is decided at its own line end).
        let result = try run(["decrypt", "--no-store", "--json"], stdin: Data(text.utf8))
        let records = try Self.json(result)
        #expect(records.count == 2)
        #expect(records.first?["error"] as? String == "line too long")
        #expect(records.last?["plaintext"] as? String == "after")
        #expect(result.status == 1)
    }

    // Before: one error per line (`bad base64`, `unknown version 3`, …) for a raw message file.
    @Test("a raw RNCryptor message given without --binary: one line saying so, exit 1")
    func rawMessage() throws {
        let raw = Messages.raw(Array("raw plaintext with\nnewlines and more to make several lines\n\n".utf8), "pw")
        let file = dir.file("message.bin", bytes: raw)
        let other = dir.file("other.txt", Messages.password("still read", "pw") + "\n")
        let result = try run(["decrypt", "--no-store", file, other])
        #expect(result.errLines == ["rwsecret: \(file): a raw message, not base64 lines; use --binary"])
        #expect(result.out == "still read\n")
        #expect(result.status == 1)
        let stdin = try run(["decrypt", "--no-store", "--in-band"], stdin: Data(raw))
        #expect(stdin.errLines == ["rwsecret: -: a raw message, not base64 lines; use --binary"])
        #expect(stdin.out == "")
        #expect(stdin.status == 1)
    }

    // Before: `unknown version 83` per line and no word of OpenSSL.
    @Test("OpenSSL enc and RNCryptor v4 draft messages: one hint per input, then the usual failures")
    func hints() throws {
        let salted = Base64.encode(Array("Salted__".utf8) + [UInt8](repeating: 7, count: 41))
        let v4 = Base64.encode(Array("RNC".utf8) + [4] + [UInt8](repeating: 9, count: 100))
        let good = Messages.password("good", "pw")
        let first = dir.file("first.txt", [salted, salted, v4, good, v4].joined(separator: "\n") + "\n")
        let second = dir.file("second.txt", [salted].joined(separator: "\n") + "\n")
        let result = try run(["decrypt", "--no-store", first, second])
        #expect(result.out == "good\n")
        let hints = result.errLines.filter { $0.contains("hint:") }
        #expect(hints.count == 3, "\(result.errLines)")
        #expect(hints.filter { $0.contains("OpenSSL") && $0.hasPrefix("rwsecret: \(first): ") }.count == 1)
        #expect(hints.filter { $0.contains("v4") && $0.hasPrefix("rwsecret: \(first): ") }.count == 1)
        #expect(hints.filter { $0.contains("OpenSSL") && $0.hasPrefix("rwsecret: \(second): ") }.count == 1)
        #expect(result.errLines.filter { !$0.contains("hint:") } == [
            "rwsecret: \(first):1: unknown version 83",
            "rwsecret: \(first):2: unknown version 83",
            "rwsecret: \(first):3: unknown version 82",
            "rwsecret: \(first):5: unknown version 82",
            "rwsecret: \(second):1: unknown version 83",
        ])
        #expect(result.status == 1)
        // JSON: the failures are in the stream, the hints (run-level) on stderr.
        let json = try run(["decrypt", "--no-store", "--json", first])
        #expect(json.errLines.count == 2 && json.errLines.allSatisfy { $0.contains("hint:") })
        #expect(json.outLines.count == 5)
    }
}
