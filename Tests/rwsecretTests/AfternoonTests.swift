import Foundation
import Testing
import RWSecretKit

/// What a new user tripped on in a second afternoon with the tool (issue 27), end to end:
/// on a real pseudo-terminal where a terminal is involved.
@Suite("the second afternoon")
struct AfternoonTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: home.url, extra: extra), directory: home.url)
    }

    // Item 3: `encrypt --ask-password` asked once; a typo made the message impossible to open.
    @Test("encrypt --ask-password asks twice; a mismatch asks again, and the message opens with the password typed",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func encryptAsksTwice() throws {
        let plain = home.file("plain.txt", "asked twice\n")
        let out = home.url.appendingPathComponent("out.txt").path
        let session = try PseudoTerminal.run(
            "\(PseudoTerminal.rwsecret) encrypt --ask-password \(PseudoTerminal.quote(plain)) > \(PseudoTerminal.quote(out))",
            environment: RWSecretProcess.environment(home: home.url),
            answers: [("Password: ", "first typing"), ("Again: ", "first typo"),
                      ("Password: ", "second typing"), ("Again: ", "second typing")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("rwsecret: the two passwords differ; try again."), "\(session.lines)")
        #expect(!session.raw.contains("typing"), "nothing typed is echoed")
        let opened = try run(["decrypt", "--no-store", out], extra: ["RWSECRET_PASSWORD": "second typing"])
        #expect(opened.out == "asked twice\n", "\(opened.stderr)")
    }

    // Item 10: `echo hi | rwsecret encrypt --binary` wrote raw ciphertext to the terminal.
    @Test("encrypt --binary to a terminal is refused (64), before the password is asked; -o - insists",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func encryptBinaryToTerminalRefused() throws {
        let session = try PseudoTerminal.run("echo hi | \(PseudoTerminal.rwsecret) encrypt --binary --ask-password",
                                             environment: RWSecretProcess.environment(home: home.url))
        #expect(session.status == 64, "\(session.raw)")
        #expect(session.lines == ["rwsecret: refusing to write raw ciphertext to a terminal: give -o FILE (or -o - to insist), or redirect stdout"], "\(session.lines)")
        let out = home.url.appendingPathComponent("m.bin").path
        let insisted = try PseudoTerminal.run("cd \(PseudoTerminal.quote(home.url.path)) && echo hi | \(PseudoTerminal.rwsecret) encrypt --binary -o - > \(PseudoTerminal.quote(out))",
                                              environment: RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw"]))
        #expect(insisted.status == 0, "\(insisted.raw)")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("-").path), "-o - is stdout, not a file named -")
        let opened = try run(["decrypt", "--no-store", "--binary", out], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(opened.out == "hi\n", "\(opened.stderr)")
    }

    // Item 11: options before the subcommand's name gave "unknown command '2'" and the like.
    @Test("an option of a subcommand given before its name is named with where it goes (64)",
          arguments: [
            (["--jobs", "2", "decrypt", "x"], "rwsecret: `--jobs` is an option of `decrypt` and `encrypt`: `rwsecret decrypt --jobs 2 …`"),
            (["--password-file", "F", "decrypt", "x"], "rwsecret: `--password-file` is an option of `decrypt` and `encrypt`: `rwsecret decrypt --password-file F …`"),
            (["--password-file", "F", "encrypt"], "rwsecret: `--password-file` is an option of `decrypt` and `encrypt`: `rwsecret encrypt --password-file F …`"),
            (["--no-store", "decrypt"], "rwsecret: `--no-store` is an option of `decrypt`: `rwsecret decrypt --no-store …`"),
            (["--jobs=3", "decrypt"], "rwsecret: `--jobs` is an option of `decrypt` and `encrypt`: `rwsecret decrypt --jobs=3 …`"),
            (["--stroe", "file", "status"], "rwsecret: unknown option '--stroe'; did you mean '--store'?"),
          ])
    func optionBeforeSubcommand(arguments: [String], expected: String) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        #expect(result.errLines.first == expected, "\(result.errLines)")
    }

    @Test("--jobs -1 is a bad number, not a missing value")
    func negativeJobs() throws {
        let result = try run(["decrypt", "--no-store", "--jobs", "-1"])
        #expect(result.status == 64)
        #expect(result.errLines.first == "rwsecret: --jobs must be at least 1", "\(result.errLines)")
    }

    @Test("global options before the subcommand still work")
    func globalOptionsBefore() throws {
        let result = try run(["--store", "file", "--quiet", "status"], extra: ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    // Item 2: after Ctrl-Z and `fg` at a prompt, the typed password showed.
    @Test("Ctrl-Z at a prompt and fg: echo is off again, the prompt is printed again, and the password never shows",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func suspendAndResumeAtPrompt() throws {
        let environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"])
        // A shell with job control, as a person has: the command is a foreground job of its own;
        // when it stops, the shell (as bash does for itself) turns echo on, then `fg`.
        let script = home.file("suspend.sh", """
            set -m
            sh -c 'echo "pid $$"; exec "$0" password add --store file suspended' \(PseudoTerminal.rwsecret)
            stty echo
            echo "stopped, echo on"
            fg >/dev/null
            """)
        let session = try SuspendingTerminal("bash \(PseudoTerminal.quote(script))", environment: environment)
        _ = try session.pid()
        try session.waitFor("Password to store: ")
        session.type("\u{1A}")  // Ctrl-Z
        try session.waitFor("stopped, echo on")
        try session.waitFor("Password to store: ")
        session.type("suspended secret\n")
        try session.waitFor("Again: ")
        session.type("suspended secret\n")
        let (status, raw) = session.finish()
        #expect(status == 0, "\(raw)")
        #expect(!raw.contains("suspended secret"), "the password is never echoed: \(raw)")
        let listed = try run(["password", "list", "--store", "file"], extra: ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"])
        #expect(listed.outLines == ["suspended"], "\(listed.stderr)")
    }
}

extension AfternoonTests {
    // Item 4: a 1 MB plaintext line encrypted to a line decrypt refused, with no word of the limit.
    @Test("encrypt: the longest line decrypt reads is encrypted and opens; one byte more is refused with the limit and --binary (1)")
    func encryptLineLimit() throws {
        // 34-byte header, 49,147 blocks, 32-byte HMAC: 786,418 bytes, 1,048,560 base64 characters;
        // one byte more needs one more block: 1,048,580, over 1 MiB.
        let longest = 786_351
        let fits = String(repeating: "a", count: longest)
        let input = home.file("fits.txt", "first\n" + fits + "\r\n")
        let encrypted = try run(["encrypt", input], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")
        let messages = home.file("m.txt", encrypted.out)
        let opened = try run(["decrypt", "--no-store", messages], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(opened.outLines == ["first", fits], "\(opened.stderr)")

        let tooLong = home.file("long.txt", "first\n" + fits + "b\nlast\n")
        let refused = try run(["encrypt", tooLong], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(refused.status == 1)
        #expect(refused.outLines.count == 1, "only the line before it is encrypted")
        #expect(refused.errLines.count == 1, "\(refused.stderr)")
        let line = try #require(refused.errLines.first)
        #expect(line.hasPrefix("rwsecret: \(tooLong):2: line too long: its message would be over decrypt's line limit (1 MiB of base64, a plaintext line of at most \(longest) bytes)"), "\(line)")
        #expect(line.contains("--binary"))
    }

    @Test("decrypt: a line over the limit is `line too long`, with one hint per input naming the limit and --binary")
    func decryptLineLimitHint() throws {
        let long = String(repeating: "A", count: (1 << 20) + 1)
        let input = home.file("long.txt", long + "\n" + long + "\n")
        let result = try run(["decrypt", "--no-store", input], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.status == 1)
        #expect(result.errLines == [
            "rwsecret: \(input): hint: a line over 1 MiB (1,048,576 bytes) is not read as a message; a message that large is made with `encrypt --binary` and opened with `decrypt --binary`",
            "rwsecret: \(input):1: line too long",
            "rwsecret: \(input):2: line too long",
        ], "\(result.errLines)")
    }
}

extension AfternoonTests {
    // Item 12: `status` said "passwords: 0, locked: no" for a vault that does not exist, and
    // exited 0 for a vault that is a folder, damaged, or behind a wrong passphrase.
    @Test("status: a vault that does not exist yet is not an empty one, in text and JSON")
    func statusMissingVault() throws {
        let missing = home.url.appendingPathComponent("doesnotexist").path
        let text = try run(["--vault", missing, "status"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.outLines.contains("vault: none yet at \(missing) (the first `rwsecret password add` creates it)"), "\(text.outLines)")
        let json = try run(["--vault", missing, "status", "--json"])
        #expect(json.out.contains("\"vault_exists\":false"), "\(json.out)")
        #expect(json.out.contains("\"problem\":null"), "\(json.out)")

        let vault = home.url.appendingPathComponent("vault").path
        let passphrase = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        #expect(try run(["password", "add", "--vault", vault], stdin: Data("s1\n".utf8), extra: passphrase).status == 0)
        let present = try run(["--vault", vault, "status", "--json"], extra: passphrase)
        #expect(present.status == 0)
        #expect(present.out.contains("\"vault_exists\":true") && present.out.contains("\"passwords\":1"), "\(present.out)")
        #expect(!(try run(["--vault", vault, "status"], extra: passphrase)).out.contains("none yet"))
    }

    @Test("status: a vault that is a folder, damaged, or behind a wrong passphrase is a problem with its exit status (69)",
          arguments: ["folder", "damaged", "wrong passphrase"])
    func statusProblems(kind: String) throws {
        let vault = home.url.appendingPathComponent("vault").path
        var passphrase = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        switch kind {
        case "folder":
            try FileManager.default.createDirectory(atPath: vault, withIntermediateDirectories: true)
        case "damaged":
            #expect(try run(["password", "add", "--vault", vault], stdin: Data("s1\n".utf8), extra: passphrase).status == 0)
            var bytes = try #require(FileManager.default.contents(atPath: vault))
            bytes[bytes.count / 2] ^= 0x55
            try bytes.write(to: URL(fileURLWithPath: vault))
        default:
            #expect(try run(["password", "add", "--vault", vault], stdin: Data("s1\n".utf8), extra: passphrase).status == 0)
            passphrase["RWSECRET_VAULT_PASSPHRASE"] = "Another-Passphrase-9"
        }
        let text = try run(["--vault", vault, "status"], extra: passphrase)
        #expect(text.status == 69, "\(kind): \(text.out) \(text.stderr)")
        #expect(text.outLines.contains { $0.hasPrefix("problem: ") }, "\(kind): \(text.outLines)")
        #expect(text.outLines.contains("passwords: unknown"))
        #expect(text.errLines.count == 1, "\(text.stderr)")
        let json = try run(["--vault", vault, "status", "--json"], extra: passphrase)
        #expect(json.status == 69)
        #expect(json.out.contains("\"problem\":\"") && json.out.contains("\"passwords\":null"), "\(json.out)")
    }
}

extension AfternoonTests {
    var vaultPassphrase: [String: String] { ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"] }

    func vaultWith(_ secrets: [(label: String, secret: String)]) throws {
        for (label, secret) in secrets {
            let added = try run(["password", "add", "--store", "file", label], stdin: Data((secret + "\n").utf8), extra: vaultPassphrase)
            #expect(added.status == 0, "\(added.stderr)")
        }
    }

    // Item 13: `vault passphrase` took the first of two lines quietly, and took the same passphrase again.
    @Test("vault passphrase from stdin: two lines, or the current passphrase again, are refused (65) and nothing changes")
    func vaultPassphraseStdin() throws {
        try vaultWith([("work", "s1")])
        let twoLines = try run(["vault", "passphrase"], stdin: Data("New-Passphrase-1\nNew-Passphrase-2\n".utf8), extra: vaultPassphrase)
        #expect(twoLines.status == 65, "\(twoLines.stderr)")
        #expect(twoLines.errLines == ["rwsecret: stdin holds more than one line; give the new vault passphrase alone on one line (nothing was changed)"], "\(twoLines.errLines)")
        let same = try run(["vault", "passphrase"], stdin: Data("Vault-Passphrase-9\n".utf8), extra: vaultPassphrase)
        #expect(same.status == 65, "\(same.stderr)")
        #expect(same.errLines == ["rwsecret: the new vault passphrase is the current one; choose a new one (nothing was changed)"], "\(same.errLines)")
        #expect(try run(["password", "list", "--store", "file"], extra: vaultPassphrase).outLines == ["work"], "the old passphrase still opens it")
    }

    @Test("vault passphrase on a terminal: 'Current vault passphrase:', the current one again is asked anew",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func vaultPassphraseTerminal() throws {
        try vaultWith([("work", "s1")])
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) vault passphrase",
                                             environment: RWSecretProcess.environment(home: home.url),
                                             answers: [("Current vault passphrase: ", "Vault-Passphrase-9"),
                                                       ("New vault passphrase: ", "Vault-Passphrase-9"),
                                                       ("New vault passphrase: ", "Changed-Passphrase-7"),
                                                       ("Again: ", "Changed-Passphrase-7")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("rwsecret: vault passphrase: it is the current passphrase (choose a new one)"), "\(session.lines)")
        let listed = try run(["password", "list", "--store", "file"], extra: ["RWSECRET_VAULT_PASSPHRASE": "Changed-Passphrase-7"])
        #expect(listed.outLines == ["work"], "\(listed.stderr)")
    }

    @Test("password add on a terminal: a mismatch asks again, as a new vault passphrase does",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func passwordAddMismatchAsksAgain() throws {
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) password add --store file work",
                                             environment: RWSecretProcess.environment(home: home.url, extra: vaultPassphrase),
                                             answers: [("Password to store: ", "first typing"), ("Again: ", "first typo"),
                                                       ("Password to store: ", "second typing"), ("Again: ", "second typing")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("rwsecret: the two passwords differ; try again."), "\(session.lines)")
        let opened = try run(["decrypt", "--store", "file", home.file("m.txt", Messages.password("stored right", "second typing") + "\n")],
                             extra: vaultPassphrase)
        #expect(opened.out == "stored right\n", "\(opened.stderr)")
    }

    @Test("'already stored' names the label it is stored under")
    func alreadyStoredNamesTheLabel() throws {
        try vaultWith([("work", "s1")])
        let again = try run(["password", "add", "--store", "file", "other"], stdin: Data("s1\n".utf8), extra: vaultPassphrase)
        #expect(again.status == 65)
        #expect(again.errLines == ["rwsecret: this password is already stored, labelled 'work' (each password is stored once)"], "\(again.errLines)")
    }
}

extension AfternoonTests {
    /// `sh -c LINE` with the test's environment: its status and stderr.
    func shell(_ line: String, extra: [String: String] = [:]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", line]
        process.environment = RWSecretProcess.environment(home: home.url, extra: extra)
        process.currentDirectoryURL = home.url
        let error = Pipe()
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    // Item 16: `--binary … > /dev/full` named stdout `-` (which names stdin).
    @Test("--binary writing to a full stdout names it stdout (74), decrypt and encrypt")
    func fullStdoutIsNamedStdout() throws {
        let message = home.file("m.bin", bytes: Messages.raw(Array("plaintext".utf8), "pw"))
        let plain = home.file("p.txt", "plaintext\n")
        for line in ["\(PseudoTerminal.rwsecret) decrypt --no-store --binary \(PseudoTerminal.quote(message)) > /dev/full",
                     "\(PseudoTerminal.rwsecret) encrypt --binary \(PseudoTerminal.quote(plain)) > /dev/full"] {
            let result = try shell(line, extra: ["RWSECRET_PASSWORD": "pw"])
            #expect(result.status == 74, "\(line): \(result.stderr)")
            #expect(result.stderr == "rwsecret: stdout: No space left on device\n", "\(line): \(result.stderr)")
        }
    }

    @Test("encrypt --binary -o OUT keeps the mode of the file it replaces; a new OUT is 0600")
    func encryptKeepsTheMode() throws {
        let plain = home.file("p.txt", "plaintext\n")
        let existing = home.file("existing.bin", "old")
        #expect(chmod(existing, 0o644) == 0)
        #expect(try run(["encrypt", "--binary", plain, "-o", existing], extra: ["RWSECRET_PASSWORD": "pw"]).status == 0)
        var info = stat()
        #expect(stat(existing, &info) == 0 && info.st_mode & 0o777 == 0o644, "mode \(String(info.st_mode & 0o777, radix: 8))")
        let new = home.url.appendingPathComponent("new.bin").path
        #expect(try run(["encrypt", "--binary", plain, "-o", new], extra: ["RWSECRET_PASSWORD": "pw"]).status == 0)
        #expect(stat(new, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let opened = try run(["decrypt", "--no-store", "--binary", existing], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(opened.out == "plaintext\n")
    }

    @Test("decrypt --binary -o OUT over a file of another mode makes it 0600 and says so; a failed run leaves it and says nothing")
    func decryptSaysTheModeChanged() throws {
        let message = home.file("m.bin", bytes: Messages.raw(Array("secret\n".utf8), "pw"))
        let existing = home.file("existing.txt", "old")
        #expect(chmod(existing, 0o644) == 0)
        let wrong = try run(["decrypt", "--no-store", "--binary", message, "-o", existing], extra: ["RWSECRET_PASSWORD": "other"])
        #expect(wrong.status == 1)
        #expect(!wrong.stderr.contains("now mode"), "\(wrong.stderr)")
        var info = stat()
        #expect(stat(existing, &info) == 0 && info.st_mode & 0o777 == 0o644)
        let result = try run(["decrypt", "--no-store", "--binary", message, "-o", existing], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.errLines == ["rwsecret: \(existing): now mode 0600, as every plaintext rwsecret writes (it was 0644)"])
        #expect(stat(existing, &info) == 0 && info.st_mode & 0o777 == 0o600)
        // Already 0600: nothing to say.
        let again = try run(["decrypt", "--no-store", "--binary", message, "-o", existing], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
    }

    @Test("encrypt --binary FILE -o FILE is refused (73), as decrypt refuses it, and FILE is untouched")
    func encryptRefusesItsInputAsOutput() throws {
        let plain = home.file("self.txt", "keep me\n")
        let result = try run(["encrypt", "--binary", plain, "-o", plain], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.status == 73)
        #expect(result.errLines == ["rwsecret: \(plain): cannot create: it is the input file"], "\(result.errLines)")
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == "keep me\n")
    }
}

extension AfternoonTests {
    // Item 17: labels with U+202E or zero-width characters printed as they are; a rejected
    // label was not named; plaintexts with ESC sequences went raw to a terminal.
    @Test("labels are printed with bidirectional-override and zero-width characters escaped; a rejected label is named, escaped")
    func labelsEscaped() throws {
        try vaultWith([("known", "s1"), ("ab\u{202E}cd", "s2"), ("zero\u{200B}width", "s3")])
        let listed = try run(["password", "list", "--store", "file"], extra: vaultPassphrase)
        #expect(listed.outLines == ["known", "ab\\x{202e}cd", "zero\\x{200b}width"], "\(listed.outLines)")
        let removed = try run(["password", "remove", "--store", "file", "known", "lab\u{1B}[2J\nel"], extra: vaultPassphrase)
        #expect(removed.status == 65)
        #expect(removed.errLines == ["rwsecret: bad label 'lab\\x1b[2J\\nel': a label cannot contain control characters"], "\(removed.errLines)")
    }

    @Test("a plaintext's control characters are escaped when stdout is a terminal (said once), and written as they are in a pipe",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func plaintextEscapedOnATerminal() throws {
        let plaintext = "red \u{1B}[31mtext\u{1B}[0m\r\u{7F}tab\there \u{9B}c1 é"
        let messages = home.file("m.txt", Messages.password(plaintext, "pw") + "\n" + Messages.password(plaintext, "pw") + "\n")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store \(PseudoTerminal.quote(messages))",
                                             environment: RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw"]))
        #expect(session.status == 0, "\(session.raw)")
        let shown = "red \\x1b[31mtext\\x1b[0m\\x0d\\x7ftab\there \\x9bc1 é"
        #expect(session.raw.components(separatedBy: shown).count == 3, "both plaintexts escaped: \(session.raw.debugDescription)")
        #expect(!session.raw.contains("\u{1B}[31m"), "no escape sequence reaches the terminal")
        #expect(session.raw.components(separatedBy: "rwsecret: note: control characters in plaintexts are shown escaped").count == 2, "said once")
        let piped = try run(["decrypt", "--no-store", messages], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(piped.out == plaintext + "\n" + plaintext + "\n", "a pipe gets the exact bytes")
        #expect(piped.stderr.isEmpty)
    }
}

extension AfternoonTests {
    /// Runs rwsecret with a stdout whose reader is already gone: every write fails (EPIPE).
    func runWithClosedStdout(_ arguments: [String], stdin: Data = Data(), extra: [String: String]) throws
        -> (reason: Process.TerminationReason, status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = arguments
        process.environment = RWSecretProcess.environment(home: home.url, extra: extra)
        let output = Pipe(), error = Pipe(), input = Pipe()
        try output.fileHandleForReading.close()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = input
        try process.run()
        try output.fileHandleForWriting.close()
        input.fileHandleForWriting.writeToChild(stdin)
        try? input.fileHandleForWriting.close()
        let text = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus, text)
    }

    // Item 18: `| head -1` exited 0 although most output was never written. Decided: as
    // `git log | head` and `cat` do, the run ends killed by SIGPIPE (141 in a shell), quietly.
    @Test("a reader that closes stdout early: the run ends by SIGPIPE, quietly (decrypt, --json, --binary, encrypt)")
    func readerGoneEndsBySIGPIPE() throws {
        let messages = home.file("m.txt", (1...5).map { Messages.password("m\($0)", "pw") }.joined(separator: "\n") + "\n")
        let raw = home.file("m.bin", bytes: Messages.raw(Array(repeating: 7, count: 100_000), "pw"))
        for arguments in [["decrypt", "--no-store", messages], ["decrypt", "--no-store", "--json", messages],
                          ["decrypt", "--no-store", "--binary", raw], ["encrypt", messages], ["encrypt", "--binary", messages]] {
            let result = try runWithClosedStdout(arguments, extra: ["RWSECRET_PASSWORD": "pw"])
            #expect(result.reason == .uncaughtSignal && result.status == SIGPIPE, "\(arguments): \(result.reason) \(result.status)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
        }
    }
}

extension AfternoonTests {
    // Item 9: encrypt used one core and showed nothing on the terminal.
    @Test("encrypt --jobs N: the output keeps the input's order, and --verbose says the jobs", arguments: ["1", "3"])
    func encryptJobsKeepOrder(jobs: String) throws {
        let plaintexts = (1...40).map { "line \($0)" } + ["", "last"]
        let input = home.file("p.txt", plaintexts.joined(separator: "\n") + "\n")
        let encrypted = try run(["encrypt", "--verbose", "--jobs", jobs, input], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(encrypted.status == 0, "\(encrypted.stderr)")
        #expect(encrypted.errLines.contains("rwsecret: jobs: \(jobs) (--jobs)"), "\(encrypted.errLines)")
        #expect(encrypted.outLines.count == plaintexts.count)
        let opened = try run(["decrypt", "--no-store", "--json", home.file("m.txt", encrypted.out)], extra: ["RWSECRET_PASSWORD": "pw"])
        let lines = opened.outLines.map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["plaintext"] as? String
        }
        #expect(lines == plaintexts.map(Optional.some), "\(opened.out)")
    }

    @Test("encrypt shows the progress line on a terminal: messages, and bytes for --binary",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func encryptProgress() throws {
        let input = home.file("p.txt", (1...30).map { "line \($0)" }.joined(separator: "\n") + "\n")
        let big = home.file("big.bin", bytes: [UInt8](repeating: 1, count: 3 << 20))
        let out = home.url.appendingPathComponent("out").path
        let environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw", "RWSECRET_PROGRESS_DELAY": "0"])
        let lines = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) encrypt \(PseudoTerminal.quote(input)) > \(PseudoTerminal.quote(out))",
                                           environment: environment)
        #expect(lines.status == 0, "\(lines.raw)")
        #expect(lines.raw.contains(" messages, "), "\(lines.raw.debugDescription)")
        #expect(lines.lines.isEmpty, "erased at the end: \(lines.lines)")
        let binary = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) encrypt --binary \(PseudoTerminal.quote(big)) -o \(PseudoTerminal.quote(out))",
                                            environment: environment)
        #expect(binary.status == 0, "\(binary.raw)")
        #expect(binary.raw.contains("rwsecret: 1.0 MiB of 3.0 MiB (33%)"), "\(binary.raw.debugDescription)")
    }
}

extension AfternoonTests {
    @Test("progress of a small file counts messages done, not bytes read ahead: it does not start at 100%",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func progressCountsWorkDone() throws {
        let messages = home.file("m.txt", (1...30).map { Messages.password("m\($0)", "pw") }.joined(separator: "\n") + "\n")
        let environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw", "RWSECRET_PROGRESS_DELAY": "0"])
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1 \(PseudoTerminal.quote(messages)) > /dev/null",
                                             environment: environment)
        #expect(session.status == 0, "\(session.raw)")
        let regex = try NSRegularExpression(pattern: #"(\d+)% of"#)
        let raw = session.raw
        let shares = regex.matches(in: raw, range: NSRange(raw.startIndex..., in: raw)).map { Int(raw[Range($0.range(at: 1), in: raw)!])! }
        #expect(shares.count >= 2, "\(raw.debugDescription)")
        #expect((shares.first ?? 100) < 50, "the first line: \(shares)")
        #expect(shares == shares.sorted(), "never goes back: \(shares)")
    }

    @Test("an input that sends nothing: the line says 'waiting for input' instead of freezing at its last rate",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func progressWaitingForInput() throws {
        let fifo = home.url.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw", "RWSECRET_PROGRESS_DELAY": "0"])
        let session = try SuspendingTerminal("\(PseudoTerminal.rwsecret) decrypt --no-store \(PseudoTerminal.quote(fifo)) > /dev/null; echo \"exit $?\"",
                                             environment: environment)
        // Read-write: opening never blocks, even if the tool failed before opening its end.
        let writer = try #require(FileHandle(forUpdatingAtPath: fifo))
        writer.writeToChild(Data((Messages.password("first", "pw") + "\n").utf8))
        try session.waitFor("1 message")
        try session.waitFor("waiting for input")  // nothing more comes: no timer in the test, the tool says so
        writer.writeToChild(Data((Messages.password("second", "pw") + "\n").utf8))
        try session.waitFor("2 messages")
        try writer.close()
        try session.waitFor("exit 0")
        _ = session.finish()
    }
}

extension AfternoonTests {
    @Test("-o in a folder that takes no new file (/proc) says so, not 'No such file or directory' (73), encrypt and decrypt",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/version")))
    func outputInProc() throws {
        let plain = home.file("p.txt", "hi\n")
        let message = home.file("m.bin", bytes: Messages.raw(Array("hi\n".utf8), "pw"))
        for arguments in [["encrypt", "--binary", plain, "-o", "/proc/version"], ["decrypt", "--no-store", "--binary", message, "-o", "/proc/version"]] {
            let result = try run(arguments, extra: ["RWSECRET_PASSWORD": "pw"])
            #expect(result.status == 73, "\(arguments): \(result.stderr)")
            #expect(result.errLines == ["rwsecret: /proc/version: cannot create: the folder /proc does not take new files (No such file or directory)"],
                    "\(arguments): \(result.errLines)")
        }
    }
}

/// A command line on a pseudo-terminal (util-linux `script`) that a test drives step by step:
/// waits for text, sends signals, types.
final class SuspendingTerminal {
    let process = Process()
    let input = Pipe(), output = Pipe()
    var seen = Data()
    var consumed = 0

    init(_ commandLine: String, environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: PseudoTerminal.script)
        process.arguments = ["-qec", commandLine, "/dev/null"]
        var environment = environment
        environment["TERM"] = "dumb"
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        try process.runCheckingDescriptors()
        // Text that never comes fails the test (the output ends) instead of hanging it.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
    }

    private lazy var watchdog = DispatchWorkItem { [process, weak self] in
        if let child = self?.child { kill(child, SIGKILL) }
        if process.isRunning { process.terminate() }
    }
    private var child: pid_t?

    deinit {
        watchdog.cancel()
        if let child { kill(child, SIGKILL) }
    }

    struct Missing: Error, CustomStringConvertible { let description: String }

    /// Waits until `text` appears after what was already waited for (fails when the output ends first).
    func waitFor(_ text: String) throws {
        while true {
            let all = String(decoding: seen, as: UTF8.self)
            let start = all.index(all.startIndex, offsetBy: min(consumed, all.count))
            if let range = all.range(of: text, range: start..<all.endIndex) {
                consumed = all.distance(from: all.startIndex, to: range.upperBound)
                return
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw Missing(description: "'\(text)' never came: \(all)") }
            seen.append(chunk)
        }
    }

    /// The number the command line printed as `pid N`.
    func pid() throws -> pid_t {
        try waitFor("pid ")
        while true {
            let all = String(decoding: seen, as: UTF8.self)
            let rest = all.dropFirst(consumed)
            if let end = rest.firstIndex(where: { !$0.isNumber }), let pid = pid_t(rest[..<end]) { child = pid; return pid }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw Missing(description: "no pid: \(all)") }
            seen.append(chunk)
        }
    }

    /// Waits until `pid` is stopped (state T in /proc), however long that takes.
    func waitUntilStopped(_ pid: pid_t) throws {
        while true {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { throw Missing(description: "process \(pid) is gone") }
            if let close = stat.lastIndex(of: ")"), stat[stat.index(close, offsetBy: 2)] == "T" { return }
            usleep(10_000)
        }
    }

    /// Echo on or off on the terminal `pid` has as stdin.
    func setEcho(_ on: Bool, of pid: pid_t) throws {
        let fd = open("/proc/\(pid)/fd/0", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw Missing(description: "cannot open the terminal of \(pid)") }
        defer { close(fd) }
        var settings = termios()
        tcgetattr(fd, &settings)
        if on { settings.c_lflag |= tcflag_t(ECHO) } else { settings.c_lflag &= ~tcflag_t(ECHO) }
        tcsetattr(fd, TCSANOW, &settings)
    }

    func type(_ text: String) { input.fileHandleForWriting.writeToChild(Data(text.utf8)) }

    /// Waits for the end: the exit status and everything the terminal received.
    func finish() -> (Int32, String) {
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: seen, as: UTF8.self))
    }
}
