import Foundation
import Testing
import RWSecretKit

/// Issue 35, item 6 and issue 33, item 1: an armored message inside other text (an email:
/// "Hi Bob, here it is:", the armor, "bye") gives the same result from a pipe in line mode as
/// from a regular file — OpenPGP opens, as gpg opens it; an age armor after text is refused in
/// one line, as age refuses it — never one error per line.
@Suite("armor inside other text, from a pipe as from a file")
struct ArmorInTextTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
    }

    /// `rwsecret ARGS` reading a pipe that `/bin/sh` fills in separate writes: `parts` in order,
    /// with a pause between them, so that its first read holds only the first part (the
    /// pause only provokes the old failure: nothing here passes or fails on timing).
    func runPiped(_ parts: [String], _ args: [String]) throws -> RWSecretProcess.Result {
        let files = parts.enumerated().map { dir.file("part\($0.offset)", bytes: Array($0.element.utf8)) }
        let producer = files.map { "/bin/cat '\($0)'" }.joined(separator: "; sleep 0.2; ")
        let command = "{ \(producer); } | '\(RWSecretProcess.executable.path)' " + args.map { "'\($0)'" }.joined(separator: " ")
        return try RWSecretProcess.run(["-c", command], environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                       executable: URL(fileURLWithPath: "/bin/sh"))
    }

    var openPGP: String { get throws { try String(contentsOf: OpenPGPCommandTests.folder.appendingPathComponent("aes128-sha1-zip.asc"), encoding: .utf8) } }

    var passwordList: String {
        let list = dir.file("passwords", bytes: OpenPGPCommandTests.secret("aes128-sha1-zip.asc") + [0x0a])
        chmod(list, 0o600)
        return list
    }

    @Test("an OpenPGP message between lines of text opens from a pipe (one write, or several) as from a file", arguments: [
        "Hi Bob, here it is:\n\n",  // a colon: it may be YAML, read on for `!vault` values
        "Hi Bob here it is\n\n",  // no colon
        "# notes\nHi Bob,\n> quoted\n\n",
    ])
    func openPGPInsideText(_ before: String) throws {
        let armor = try openPGP
        let text = before + armor + "\nbye\n"
        let list = passwordList
        let file = dir.file("mail.txt", text)
        for json in [false, true] {
            let options = ["decrypt", "--no-store", "--password-file", list] + (json ? ["--json"] : [])
            let fromFile = try run(options + [file])
            #expect(fromFile.status == 0, "\(fromFile.stderr)")
            #expect(fromFile.out.hasPrefix(json ? "{" : "une ligne de texte ✓"), "\(fromFile.out)")
            let fromPipe = try run(options, stdin: Data(text.utf8))
            let fromWrites = try runPiped([before, armor, "\nbye\n"], options)
            for piped in [fromPipe, fromWrites] {
                #expect(piped.status == 0, "\(piped.stderr)")
                #expect(piped.errLines.isEmpty, "\(piped.stderr)")
                #expect(piped.out == fromFile.out.replacingOccurrences(of: "\"source\":\"\(file)\"", with: "\"source\":\"-\""), "\(piped.out)")
            }
        }
    }

    @Test("an age armor after lines of text is one refusal (as age's armor_garbage_leading), from a pipe as from a file")
    func ageAfterText() throws {
        let armored = try String(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-x25519-armored.age"), encoding: .utf8)
        let identity = dir.file("id.txt", bytes: Array(try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-identity.txt"))))
        chmod(identity, 0o600)
        let before = "Hi Bob, here it is:\n\n"
        let text = before + armored + "\nbye\n"
        let file = dir.file("mail.txt", text)
        let options = ["decrypt", "--no-store", "--identity", identity]
        let fromFile = try run(options + [file])
        let fromPipe = try run(options, stdin: Data(text.utf8))
        let fromWrites = try runPiped([before, armored, "\nbye\n"], options)
        #expect(fromFile.status == 1)
        #expect(fromFile.errLines == ["rwsecret: \(file):1: age file: invalid armor: text before the BEGIN line (only whitespace may come before an age armor)"],
                "\(fromFile.stderr)")
        for piped in [fromPipe, fromWrites] {
            #expect(piped.status == 1)
            #expect(piped.errLines == fromFile.errLines.map { $0.replacingOccurrences(of: "\(file):1:", with: "-:1:") }, "\(piped.stderr)")
            #expect(piped.stdout.isEmpty)
        }
    }

    @Test("CCTV's armor_garbage_leading fails in one line, from a file and from a pipe; armor_whitespace_outside still opens piped")
    func cctvArmorVectors() throws {
        for name in ["armor_garbage_leading", "armor_whitespace_outside"] {
            let text = try Data(contentsOf: SameBytesTests.testkit.appendingPathComponent(name))
            let split = try #require(text.range(of: Data("\n\n".utf8)))
            let header = String(decoding: text[..<split.lowerBound], as: UTF8.self)
            let field = { (key: String) in String(header.split(separator: "\n").first { $0.hasPrefix(key + ": ") }!.dropFirst(key.count + 2)) }
            let identity = dir.file("\(name).id", field("identity") + "\n")
            chmod(identity, 0o600)
            let body = Data(text[split.upperBound...])
            let file = dir.file("\(name).age", bytes: Array(body))
            let fromFile = try run(["decrypt", "--no-store", "--identity", identity, file])
            let fromPipe = try run(["decrypt", "--no-store", "--identity", identity], stdin: body)
            if field("expect") == "success" {
                #expect(fromFile.status == 0 && fromPipe.status == 0, "\(fromFile.stderr)\(fromPipe.stderr)")
                #expect(fromPipe.stdout == fromFile.stdout)
            } else {
                #expect(fromFile.status == 1 && fromPipe.status == 1)
                #expect(fromFile.errLines.count == 1 && fromPipe.errLines.count == 1, "\(fromFile.stderr)\(fromPipe.stderr)")
                #expect(fromPipe.stderr.contains("invalid armor"), "\(fromPipe.stderr)")
            }
        }
    }

    @Test("a pipe of messages after a line of prose still reads as lines, each message opened")
    func proseThenMessages() throws {
        let rows = ["Dear reader, the messages:", "", Messages.password("one", "pw"), Messages.password("two", "pw")]
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"])
        let piped = try RWSecretProcess.run(["decrypt", "--no-store"], stdin: Data((rows.joined(separator: "\n") + "\n").utf8), environment: env)
        let file = dir.file("rows.txt", rows.joined(separator: "\n") + "\n")
        let fromFile = try RWSecretProcess.run(["decrypt", "--no-store", file], environment: env)
        #expect(piped.out == "one\ntwo\n", "\(piped.stderr)")
        #expect(piped.out == fromFile.out)
        #expect(piped.errLines == fromFile.errLines.map { $0.replacingOccurrences(of: file, with: "-") })
    }
}
