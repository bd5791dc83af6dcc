import Foundation
import Testing
import RWSecretKit

/// Issue 35, item 6: the same bytes open the same way whatever way they arrive. A whole-file
/// kind after blank lines (CCTV's armor_whitespace_outside), or YAML with `!vault` values, opens
/// from a pipe in line mode as from a regular file; `-o` takes a whole-file kind without --binary.
@Suite("the same bytes from a pipe and from a file")
struct SameBytesTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
    }

    static let testkit = KindCommandTests.kinds.deletingLastPathComponent().appendingPathComponent("age-testkit")

    /// CCTV's armor_whitespace_outside: its armored body (blank lines with spaces and a TAB
    /// around it), its identity file (private), and its payload's SHA-256.
    func cctvVector() throws -> (body: Data, identity: String, sha256: String) {
        let text = try Data(contentsOf: Self.testkit.appendingPathComponent("armor_whitespace_outside"))
        let split = try #require(text.range(of: Data("\n\n".utf8)))
        let header = String(decoding: text[..<split.lowerBound], as: UTF8.self)
        let field = { (name: String) in header.split(separator: "\n").first { $0.hasPrefix(name + ": ") }!.dropFirst(name.count + 2) }
        let identity = dir.file("id.txt", String(field("identity")) + "\n")
        chmod(identity, 0o600)
        return (text[split.upperBound...], identity, String(field("payload")))
    }

    @Test("an armored age file after blank lines opens from a pipe in line mode as from a file (one record, not one error per line)")
    func armoredAgeAfterBlankLines() throws {
        let (body, identity, sha256) = try cctvVector()
        #expect(body.first == 0x0a || body.first == 0x20, "the vector starts with blank lines")
        let file = dir.file("outside.age", bytes: Array(body))
        let fromFile = try run(["decrypt", "--no-store", "--identity", identity, file])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        let fromPipe = try run(["decrypt", "--no-store", "--identity", identity], stdin: body)
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(fromPipe.errLines.isEmpty, "\(fromPipe.stderr)")
        #expect(sha256Hex(Array(fromPipe.stdout)) == sha256Hex(Array(fromFile.stdout)))
        // Line mode adds the newline a record ends with: the payload is the output less it.
        #expect(sha256Hex(Array(fromPipe.stdout.dropLast())) == sha256 || sha256Hex(Array(fromPipe.stdout)) == sha256)
    }

    @Test("an armored OpenPGP message after blank lines opens from a pipe in line mode")
    func armoredOpenPGPAfterBlankLines() throws {
        let message = try Data(contentsOf: OpenPGPCommandTests.folder.appendingPathComponent("aes128-sha1-zip.asc"))
        let list = dir.file("passwords", bytes: OpenPGPCommandTests.secret("aes128-sha1-zip.asc") + [0x0a])
        let piped = try run(["decrypt", "--no-store", "--password-file", list], stdin: Data("\n  \t\n\r\n".utf8) + message)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.out == "une ligne de texte ✓\n\n" || piped.out.hasPrefix("une ligne de texte ✓"), "\(piped.out)")
    }

    @Test("YAML with !vault values opens from a pipe as from a file; a pipe of lines that only looks like YAML at first is still lines")
    func yamlFromPipe() throws {
        let yaml = KindCommandTests.kinds.appendingPathComponent("ansible-values.yml")
        let rows = try String(contentsOf: KindCommandTests.kinds.appendingPathComponent("manifest.tsv"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("ansible-values.yml\t") }
        let secrets = rows.map { Hex.decode(String($0.split(separator: "\t")[3])) }
        let list = dir.file("passwords", bytes: secrets.flatMap { $0 + [0x0a] })
        let fromFile = try run(["decrypt", "--no-store", "--password-file", list, yaml.path])
        let fromPipe = try run(["decrypt", "--no-store", "--password-file", list], stdin: try Data(contentsOf: yaml))
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromPipe.status == 0, "\(fromPipe.stderr)")
        #expect(fromPipe.out == fromFile.out, "\(fromPipe.out)")
        #expect(fromPipe.outLines.count == 2)
        // An email's header line first, then a message: still read as lines.
        let email = "From: someone\n\n" + Messages.password("in the body", "pw") + "\n"
        let mail = try RWSecretProcess.run(["decrypt", "--no-store"], stdin: Data(email.utf8),
                                           environment: RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"]))
        #expect(mail.out == "in the body\n", "\(mail.stderr)")
    }

    @Test("-o takes a whole-file kind without --binary (as age -o does); a file of lines is bad usage (64), nothing written")
    func outputInLineMode() throws {
        let (body, identity, sha256) = try cctvVector()
        let file = dir.file("notes.age", bytes: Array(body))
        let out = dir.url.appendingPathComponent("out.txt").path
        let opened = try run(["decrypt", "--no-store", "-o", out, "--identity", identity, file])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: out)))) == sha256)
        let lines = dir.file("m.txt", Messages.password("x", "pw") + "\n")
        let out2 = dir.url.appendingPathComponent("out2.txt").path
        for input in [[lines], []] {
            let refused = try run(["decrypt", "--no-store", "-o", out2] + input, stdin: Data((Messages.password("x", "pw") + "\n").utf8))
            #expect(refused.status == 64, "\(refused.stderr)")
            #expect(refused.stderr.contains("holds lines"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out2))
        }
    }
}
