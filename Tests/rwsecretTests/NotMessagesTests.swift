import Foundation
import Testing

/// Issue 35, item 5: what is not a message is said once, as what it is.
@Suite("saying what a non-message is")
struct NotMessagesTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"]),
                                directory: dir.url)
    }

    @Test("plain text, random bytes and YAML with no !vault value: one line each, from a file and from a pipe (before: one error per line)")
    func oneLineEach() throws {
        let plain = "Hello world, this is a note.\nAnother line of text here.\nAnd a third.\n"
        let yaml = "app: demo\nport: 80\nlist:\n  - a\n  - b\n"
        var random = [UInt8](repeating: 0, count: 3000)
        for i in random.indices { random[i] = UInt8((i * 7919 + 13) % 251) | 0x80 }
        let cases: [(String, [UInt8], String)] = [
            ("notes.txt", Array(plain.utf8), "not a secret message (plain text)"),
            ("vars.yml", Array(yaml.utf8), "a YAML file with no `!vault` value"),
            ("random.bin", random, "not a secret message (binary data)"),
        ]
        for (name, bytes, words) in cases {
            let file = dir.file(name, bytes: bytes)
            let fromFile = try run(["decrypt", "--no-store", file])
            #expect(fromFile.status == 1)
            #expect(fromFile.errLines == ["rwsecret: \(file): \(words)"], "\(fromFile.stderr)")
            let piped = try run(["decrypt", "--no-store"], stdin: Data(bytes))
            #expect(piped.errLines == ["rwsecret: -: \(words)"], "\(piped.stderr)")
        }
    }

    @Test("a file with a message among text lines still reports each text line, in order; a lone damaged base64 line keeps its reason")
    func messagesKeepTheirLines() throws {
        let file = dir.file("mixed.txt", "a note, not base64\n" + Messages.password("opened", "pw") + "\nanother note!\n")
        let result = try run(["decrypt", "--no-store", file])
        #expect(result.out == "opened\n")
        #expect(result.errLines == ["rwsecret: \(file):1: bad base64", "rwsecret: \(file):3: bad base64"], "\(result.stderr)")
        let damaged = dir.file("damaged.txt", String(Messages.password("x", "pw").dropLast(7)) + "\n")
        let one = try run(["decrypt", "--no-store", damaged])
        #expect(one.errLines.count == 1 && one.errLines[0].hasPrefix("rwsecret: \(damaged):1: ") && !one.errLines[0].contains("not a secret message"), "\(one.stderr)")
    }

    @Test("wrapped base64 junk over 1 MiB: one line too long, with the hint a single long line gets (before: no hint)")
    func wrappedJunkHinted() throws {
        var rows: [String] = []
        var state: UInt32 = 12345
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        for _ in 0..<(3 << 20) / 76 {
            var row = ""
            for _ in 0..<76 { state = state &* 1_103_515_245 &+ 12345; row.append(alphabet[Int(state >> 16) % 64]) }
            rows.append(row)
        }
        let file = dir.file("junk.txt", rows.joined(separator: "\n") + "\n")
        let result = try run(["decrypt", "--no-store", file])
        #expect(result.status == 1)
        #expect(result.errLines.contains("rwsecret: \(file):1: line too long"), "\(result.errLines.prefix(3))")
        #expect(result.errLines.contains { $0.hasPrefix("rwsecret: \(file): hint: a line over 1 MiB") }, "\(result.errLines.prefix(3))")
        #expect(result.errLines.count == 2, "\(result.errLines.prefix(5))")
    }
}

extension NotMessagesTests {
    @Test("--binary on YAML and on text says what the file is (before: unknown version 97 / 72)")
    func binaryOnText() throws {
        let yaml = KindCommandTests.kinds.appendingPathComponent("ansible-values.yml").path
        let vaulted = try run(["decrypt", "--no-store", "--binary", yaml])
        #expect(vaulted.errLines == ["rwsecret: \(yaml): a YAML file with `!vault` values: they open without --binary, one record each"], "\(vaulted.stderr)")
        let notes = dir.file("notes.txt", "Hello, a note.\n")
        let text = try run(["decrypt", "--no-store", "--binary", notes])
        #expect(text.errLines.first?.hasPrefix("rwsecret: \(notes): text, not a raw message") == true, "\(text.stderr)")
    }

    @Test("--verbose counts an age file's scrypt tries as key derivations (before: key derivations: 0)")
    func verboseCountsScrypt() throws {
        let list = dir.file("passwords", bytes: Array("not it\n".utf8) + KindCommandTests.row("age-scrypt-unicode.age").secret + [0x0a])
        let result = try run(["decrypt", "--no-store", "--verbose", "--password-file", list, KindCommandTests.kinds.appendingPathComponent("age-scrypt-unicode.age").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errLines.contains("rwsecret: key derivations: 2"), "\(result.errLines)")
    }

    @Test("--verbose counts the scrypt of a password that fitted an age file whose body then failed (before: key derivations: 0)")
    func verboseCountsAFittedPassword() throws {
        var age = try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-scrypt-binary-4k.age"))
        age[age.endIndex - 1] ^= 0x01  // the last chunk's tag: the header opens, the payload does not
        let changed = dir.file("changed.age", bytes: Array(age))
        let list = dir.file("passwords", bytes: Array("not it\n".utf8) + KindCommandTests.row("age-scrypt-binary-4k.age").secret + [0x0a])
        for mode in [[], ["--binary"]] {
            let result = try run(["decrypt", "--no-store", "--verbose"] + mode + ["--password-file", list, changed])
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.errLines.contains("rwsecret: key derivations: 2"), "\(mode): \(result.errLines)")
        }
    }
}

extension NotMessagesTests {
    @Test("a !vault value with no indentation, and an age file with a damaged first line under --binary, are named (before: several bad base64, unknown version 96)")
    func damagedKinds() throws {
        let yaml = dir.file("bad.yml", "db_password: !vault |\n$ANSIBLE_VAULT;1.1;AES256\n61626364\n")
        let unindented = try run(["decrypt", "--no-store", yaml])
        #expect(unindented.errLines == ["rwsecret: \(yaml): a YAML file whose `!vault` values cannot be read: each value's lines must be indented with spaces, below its key"], "\(unindented.stderr)")
        var age = try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-x25519.age"))
        age[age.startIndex] = UInt8(ascii: "`")
        let damaged = dir.file("damaged.age", bytes: Array(age))
        let binary = try run(["decrypt", "--no-store", "--binary", damaged])
        #expect(binary.errLines == ["rwsecret: \(damaged): an age file whose first line is damaged (age-encryption.org/v1 expected)"], "\(binary.stderr)")
    }
}
