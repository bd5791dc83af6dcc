import Foundation
import Testing
import RWSecretKit

/// `rwsecret decrypt` end to end: the built binary, its stdout, stderr and exit status.
@Suite("decrypt command")
struct DecryptCommandTests {
    let dir = TemporaryFolder()
    var env: [String: String] { RWSecretProcess.environment(home: dir.url) }

    func run(_ args: [String], stdin: String = "", extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        var env = self.env
        for (k, v) in extra { env[k] = v }
        return try RWSecretProcess.run(args, stdin: Data(stdin.utf8), environment: env, directory: dir.url)
    }

    @Test("each password opens its own messages; output in input order; failures on stderr as FILE:LINE: REASON")
    func chainOfPasswords() throws {
        let file = dir.file("messages.txt", [
            Messages.password("one", "password"),
            "# a comment",
            "",
            "  " + Messages.password("two", "ray") + " \t\r",
            Messages.password("three", "raywender"),
            Messages.password("lost", "nobody"),
            Messages.password("four", "ray"),
        ].joined(separator: "\n") + "\n")
        let passwords = dir.file("passwords", "password\nray\r\n\nraywender\n")
        let result = try run(["decrypt", "--no-store", "--password-file", passwords, file])
        #expect(result.outLines == ["one", "two", "three", "four"])
        #expect(result.errLines == ["rwsecret: \(file):6: no password opened it (tried 3)"])
        #expect(result.status == 1)
    }

    @Test("all decrypted exits 0; RWSECRET_PASSWORD is a run-only password")
    func environmentPassword() throws {
        let result = try run(["decrypt", "--no-store"], stdin: Messages.password("hello", "s3cret") + "\n", extra: ["RWSECRET_PASSWORD": "s3cret"])
        #expect(result.out == "hello\n")
        #expect(result.stderr == "")
        #expect(result.status == 0)
    }

    @Test("an input with no message exits 0")
    func emptyInput() throws {
        let result = try run(["decrypt", "--no-store"], stdin: "\n# nothing\n   \n")
        #expect(result.out == "")
        #expect(result.status == 0)
    }

    @Test("every reason, each on its own line")
    func reasons() throws {
        let good = RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(utf8: "pw"))
        var badLength = good; badLength.insert(0, at: 40)
        var version = good; version[0] = 9
        var options = good; options[1] = 7
        let lines = [
            "not base64!",
            "AwE=",
            Base64.encode(badLength),
            Base64.encode(version),
            Base64.encode(options),
            Messages.keyBased("needs key"),
            Base64.encode(good),
        ]
        let file = dir.file("reasons.txt", lines.joined(separator: "\n"))  // no final LF: last line still counts
        let result = try run(["decrypt", "--no-store", file], extra: ["RWSECRET_PASSWORD": "wrong"])
        #expect(result.errLines == [
            "rwsecret: \(file):1: bad base64",
            "rwsecret: \(file):2: too short",
            "rwsecret: \(file):3: bad length",
            "rwsecret: \(file):4: unknown version 9",
            "rwsecret: \(file):5: unknown options 7",
            "rwsecret: \(file):6: key-based message needs --key-file",
            "rwsecret: \(file):7: no password opened it (tried 1)",
        ])
        #expect(result.out == "")
        #expect(result.status == 1)
    }

    @Test("no password at all: one run-level line, and the run stops (SPEC \"Nothing to try\")")
    func noPasswords() throws {
        let result = try run(["decrypt", "--no-store"], stdin: Messages.password("x", "pw") + "\n")
        // The run-level line only (EmptyChainTests), never a `tried 0` per message.
        #expect(result.errLines.count == 1)
        #expect(result.errLines.last?.hasPrefix("rwsecret: no password to try: --no-store") == true)
        #expect(result.status == 1)
    }

    @Test("URL-safe base64 and missing padding are read")
    func lenientBase64() throws {
        // Find a message whose base64 has both URL-unsafe characters and padding.
        var text = ""
        for i in 0..<200 {
            text = Messages.password("lenient \(i)", "pw")
            if text.contains("+") || text.contains("/"), text.hasSuffix("=") { break }
        }
        let urlSafe = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let result = try run(["decrypt", "--no-store"], stdin: urlSafe + "\n", extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.outLines.count == 1 && result.outLines[0].hasPrefix("lenient "))
        #expect(result.status == 0)
    }

    @Test("a line over 1 MiB is 'line too long' and the next line is still read")
    func lineTooLong() throws {
        let long = String(repeating: "A", count: (1 << 20) + 1)
        let result = try run(["decrypt", "--no-store"], stdin: long + "\n" + Messages.password("after", "pw") + "\n",
                             extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.errLines.last == "rwsecret: -:1: line too long")
        #expect(result.errLines.count == 2, "the line, and one hint naming the limit (AfternoonTests)")
        #expect(result.out == "after\n")
        #expect(result.status == 1)
    }

    @Test("JSON: one object per message, label or source of the password, base64 for non-UTF-8")
    func json() throws {
        let binary = Base64.encode(RNCryptor.encrypt([0xff, 0xfe, 0x00], password: SecretBytes(utf8: "pw")))
        let passwords = dir.file("pw", "other\npw\n")
        let input = [Messages.password("hé \"quoted\"\n", "pw"), binary, "junk!"].joined(separator: "\n") + "\n"
        let result = try run(["decrypt", "--json", "--no-store", "--password-file", passwords], stdin: input)
        let objects = try result.outLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.count == 3)
        #expect(objects[0]["plaintext"] as? String == "hé \"quoted\"\n")
        #expect(objects[0]["password"] as? String == "\(passwords):2")
        #expect(objects[0]["source"] as? String == "-")
        #expect(objects[0]["line"] as? Int == 1)
        #expect(objects[0]["status"] as? String == "decrypted")
        #expect(objects[1]["plaintext_base64"] as? String == "//4A")
        #expect(objects[1]["plaintext"] == nil)
        #expect(objects[2]["status"] as? String == "failed")
        #expect(objects[2]["error"] as? String == "bad base64")
        #expect(result.stderr == "", "message failures go in the JSON stream")
        #expect(result.status == 1)
    }

    @Test("a missing input file is 66 and the other files are still read")
    func missingFile() throws {
        let good = dir.file("good", Messages.password("still read", "pw") + "\n")
        let result = try run(["decrypt", "--no-store", "missing.txt", good, dir.url.path], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.out == "still read\n")
        #expect(result.errLines.count == 2)
        #expect(result.errLines[0].hasPrefix("rwsecret: missing.txt: "))
        #expect(result.errLines[1].hasPrefix("rwsecret: \(dir.url.path): "))
        #expect(result.status == 66)
    }

    @Test("an unreadable input's error comes in input order with the results around it (2>&1)")
    func unreadableInputInOrder() throws {
        let first = dir.file("first", Messages.password("first", "pw") + "\nnot base64!\n" + Messages.password("second", "pw") + "\n")
        let last = dir.file("last", Messages.password("last", "pw") + "\n")
        for jobs in ["1", "2", "4"] {
            let result = try RWSecretProcess.run(["decrypt", "--no-store", "--jobs", jobs, first, "missing.txt", last],
                                                 environment: env.merging(["RWSECRET_PASSWORD": "pw"]) { $1 },
                                                 directory: dir.url, mergingStandardError: true)
            #expect(result.outLines == [
                "first", "rwsecret: \(first):2: bad base64", "second",
                "rwsecret: missing.txt: No such file or directory", "last",
            ], "--jobs \(jobs)")
            #expect(result.status == 66)
        }
    }

    @Test("a run-only password equal to an earlier one is dropped")
    func duplicatePasswordsDropped() throws {
        let passwords = dir.file("pw", "a-password\na-password\nanother\n")
        let result = try run(["decrypt", "--no-store", "--password-file", passwords], stdin: Messages.password("x", "nope") + "\n",
                             extra: ["RWSECRET_PASSWORD": "another"])
        #expect(result.errLines == ["rwsecret: -:1: no password opened it (tried 2)"])
    }

    @Test("run-only passwords are validated before anything is decrypted (65); a missing password file is 66")
    func runPasswordChecks() throws {
        // (A TAB no longer works here: `LABEL<TAB>SECRET` is a labelled password line.)
        let bad = dir.file("bad", "good one\nhas\u{1b}escape\n")
        let rejected = try run(["decrypt", "--no-store", "--password-file", bad], stdin: Messages.password("x", "good one") + "\n")
        #expect(rejected.status == 65)
        #expect(rejected.out == "")
        #expect(rejected.errLines.count == 1 && rejected.errLines[0].hasPrefix("rwsecret: \(bad):2: "))
        #expect(!rejected.stderr.contains("escape"), "the secret is never printed")
        let missing = try run(["decrypt", "--no-store", "--password-file", "nope"], stdin: Messages.password("x", "y") + "\n")
        #expect(missing.status == 66)
        #expect(missing.out == "")
    }

    @Test("key files: raw, hex in any case with LF or CRLF; malformed is 65; missing is 66; wrong key")
    func keyFiles() throws {
        let input = Messages.keyBased("by key") + "\n"
        let raw = dir.file("raw.key", bytes: Messages.encryptionKey + Messages.hmacKey)
        let lower = dir.file("lower.key", Messages.keyHex + "\n")
        let upper = dir.file("upper.key", Messages.keyHex.uppercased() + "\r\n")
        for key in [raw, lower, upper] {
            let result = try run(["decrypt", "--no-store", "--key-file", key], stdin: input)
            #expect(result.out == "by key\n", "\(key)")
            #expect(result.status == 0)
        }
        let json = try run(["decrypt", "--json", "--no-store", "--key-file", raw], stdin: input)
        #expect(json.out.contains("\"password\":\"key-file\""))
        let malformed = dir.file("bad.key", Messages.keyHex + "\n\n")
        #expect(try run(["decrypt", "--no-store", "--key-file", malformed], stdin: input).status == 65)
        #expect(try run(["decrypt", "--no-store", "--key-file", "absent.key"], stdin: input).status == 66)
        let wrong = dir.file("wrong.key", String(repeating: "ab", count: 64))
        let result = try run(["decrypt", "--no-store", "--key-file", wrong], stdin: input)
        #expect(result.errLines == ["rwsecret: -:1: the key did not open it"])
        #expect(result.status == 1)
    }

    @Test("bad usage is 64 and does nothing", arguments: [
        ["decrypt", "--jobs", "0"],
        ["decrypt", "--no-store", "--store", "file"],
        ["decrypt", "--no-store", "--vault", "v"],
        ["decrypt", "--json", "--binary"],
        ["decrypt", "-o", "out"],
        ["decrypt", "--binary", "a", "b"],
        ["decrypt", "--quiet", "--verbose"],
        ["decrypt", "--password", "x"],
        ["decrypt", "--store", "nowhere"],
        [],
    ])
    func badUsage(_ args: [String]) throws {
        let result = try run(args, stdin: Messages.password("x", "pw") + "\n", extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.status == 64, "\(args)")
        #expect(result.out == "", "\(args)")
        #expect(result.stderr.hasPrefix("rwsecret: ") || args.isEmpty, "\(args): \(result.stderr)")
    }

    @Test("--jobs 2 gives the same output, in the same order, as --jobs 1")
    func parallelOrder() throws {
        var lines: [String] = []
        for i in 0..<40 { lines.append(i % 7 == 3 ? "garbage!" : Messages.password("message \(i)", ["a1", "b2", "c3"][i % 3])) }
        let file = dir.file("many", lines.joined(separator: "\n") + "\n")
        let passwords = dir.file("pw", "a1\nb2\nc3\n")
        let one = try run(["decrypt", "--no-store", "--password-file", passwords, "--jobs", "1", file])
        let two = try run(["decrypt", "--no-store", "--password-file", passwords, "--jobs", "2", file])
        #expect(one.outLines.count == 34)
        #expect(one.out == two.out)
        #expect(one.stderr == two.stderr)
        #expect(one.status == 1 && two.status == 1)
    }

    @Test("the password that opened the latest message goes first; a wrong password costs one key (--verbose counts keys)")
    func latestPasswordFirst() throws {
        // Chain [a1, b2]. Opened by the head: 2 keys (HMAC, then encryption). Opened by b2
        // after a1 failed: 3. Opened by nobody: 2 (one HMAC key each, no encryption key).
        // a1 a1 a1 → 2+2+2; b2 → 3; b2 b2 → 2+2 (b2 now leads); lost → 2: 15 keys.
        let lines = [("1", "a1"), ("2", "a1"), ("3", "a1"), ("4", "b2"), ("5", "b2"), ("6", "b2"), ("lost", "c3")]
            .map { Messages.password($0.0, $0.1) }.joined(separator: "\n") + "\n"
        let file = dir.file("runs", lines)
        let passwords = dir.file("pw", "a1\nb2\n")
        for input in [file, "-"] {
            let result = try run(["decrypt", "--verbose", "--no-store", "--password-file", passwords, "--jobs", "1", input], stdin: lines)
            #expect(result.outLines == ["1", "2", "3", "4", "5", "6"])
            #expect(result.errLines.contains("rwsecret: key derivations: 15"), "\(input): \(result.errLines)")
            #expect(result.status == 1)
        }
    }

    @Test("stdin streams: a result is written before stdin closes", .timeLimit(.minutes(1)))
    func streaming() throws {
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = ["decrypt", "--no-store"]
        var env = self.env
        env["RWSECRET_PASSWORD"] = "pw"
        process.environment = env
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        defer { if process.isRunning { process.terminate() } }
        input.fileHandleForWriting.writeToChild(Data((Messages.password("first", "pw") + "\n").utf8))
        // Read the first result while stdin is still open.
        var received = Data()
        while !received.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received.append(chunk)
        }
        #expect(String(decoding: received, as: UTF8.self) == "first\n")
        #expect(process.isRunning, "the run is still waiting for more input")
        input.fileHandleForWriting.writeToChild(Data((Messages.password("second", "pw") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(String(decoding: rest, as: UTF8.self) == "second\n")
        #expect(process.terminationStatus == 0)
    }
}

/// The demo fixture (made by PyPI rncryptor) gives exactly what `make demo` promises.
@Suite("demo fixture")
struct DemoFixtureTests {
    @Test("Fixtures/messages.txt: the three passwords open every good line; the bad lines fail as listed")
    func demo() throws {
        let dir = TemporaryFolder()
        var fixtures = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("Fixtures/messages.txt").path) { fixtures.deleteLastPathComponent() }
        fixtures.appendPathComponent("Fixtures")
        let passwords = dir.file("pw", "password\nray\nraywender\n")
        let messages = fixtures.appendingPathComponent("messages.txt").path
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", passwords, messages],
                                             environment: RWSecretProcess.environment(home: dir.url))
        let expected = try String(contentsOf: fixtures.appendingPathComponent("messages.expected"), encoding: .utf8)
        let bad = try String(contentsOf: fixtures.appendingPathComponent("messages.bad"), encoding: .utf8)
        #expect(result.out == expected)
        #expect(result.errLines == bad.split(separator: "\n").map { "rwsecret: \(messages):\($0)" })
        #expect(result.status == 1)
    }
}
