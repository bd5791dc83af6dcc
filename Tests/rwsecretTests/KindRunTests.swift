import Foundation
import Testing
import RWSecretKit
import Synchronization
@testable import rwsecret
#if canImport(Glibc)
import Glibc
#endif

/// What a run of another kind shares with an RNCryptor run (issue 24, what was left): the
/// memory budget of parallel scrypt tries (`--memory`), the progress line, line mode on pipes,
/// the empty-chain line and the input-changed check.
@Suite("decrypt: age and Ansible runs as RNCryptor runs")
struct KindRunTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    func fixture(_ file: String) -> String { KindCommandTests.kinds.appendingPathComponent(file).path }

    /// A password file: a wrong password, then the fixture's secret.
    func passwords(for file: String) -> String {
        dir.file("passwords", bytes: Array("not it\n".utf8) + KindCommandTests.row(file).secret + [0x0a])
    }

    // MARK: --memory

    @Test("--memory SIZE", arguments: [("512M", 512 << 20), ("4G", 4 << 30), ("1.5G", 3 << 29), ("300MiB", 300 << 20), ("64K", 64 << 10),
                                       ("2048", 2048), ("1t", 1 << 40), ("0", nil), ("", nil), ("12X", nil), ("M", nil), ("-1G", nil),
                                       ("1.2.3G", nil), ("5iB", nil), ("1e3M", nil), ("99999999999G", nil)] as [(String, Int?)])
    func memorySizes(_ text: String, _ expected: Int?) {
        #expect(MemoryBudget.parse(text) == expected, "\(text)")
    }

    @Test("the default budget is half the memory available, never more than the machine has")
    func defaultBudget() {
        let (bytes, reason) = MemoryBudget.resolve(option: nil)
        let physical = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        #expect(bytes > 0 && bytes <= physical / 2, "\(bytes) of \(physical)")
        #expect(reason.hasPrefix("half the memory available"), "\(reason)")
    }

    @Test("--memory bounds the age scrypt tries at once (one at a time below two tries' worth); --verbose says what the tries cost")
    func memoryBoundsScryptTries() throws {
        let file = "age-scrypt-unicode.age"
        let list = passwords(for: file)
        for (memory, atOnce, budget) in [("300M", 1, "300 MiB"), ("100M", 1, "100 MiB"), ("1G", 2, "1.0 GiB")] {
            let result = try run(["decrypt", "--no-store", "--verbose", "--jobs", "2", "--memory", memory, "--binary", "--password-file", list, fixture(file)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(sha256Hex(Array(result.stdout)) == KindCommandTests.row(file).sha256)
            let line = result.errLines.first { $0.hasPrefix("rwsecret: scrypt work factor 18: ") }
            #expect(line?.hasPrefix("rwsecret: scrypt work factor 18: 256 MiB per try, 2 tried, \(atOnce) at once (memory budget \(budget)), ") == true,
                    "\(memory): \(result.errLines)")
            #expect(line?.hasSuffix(" ms a try") == true, "\(result.errLines)")
        }
        let bad = try run(["decrypt", "--no-store", "--memory", "12X", "--binary", fixture(file)])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains(MemoryBudget.usage), "\(bad.stderr)")
    }

    // MARK: the progress line

    /// A 3 MB age file to the fixture identity, made by `rwsecret encrypt --to`, and a private copy of the identity.
    func bigAgeFile() throws -> (file: String, identity: String, plaintext: [UInt8]) {
        let plaintext = Crypto.randomBytes(count: 3_000_000)
        let source = dir.file("plain.bin", bytes: plaintext)
        let file = dir.url.appendingPathComponent("big.age").path
        let made = try run(["encrypt", "--to", "age1ddanaej365hd7sfkldfp28qgq3f0wrnplctukvd2wvdc5ndl3cyqnexc4s", "-o", file, source])
        #expect(made.status == 0, "\(made.stderr)")
        let identity = dir.file("identity", bytes: Array(try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-identity.txt"))))
        chmod(identity, 0o600)
        return (file, identity, plaintext)
    }

    @Test("--binary on a terminal: the progress line follows the age file to its end, and is erased",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func progressOfABinaryAgeFile() throws {
        let (file, identity, plaintext) = try bigAgeFile()
        let out = dir.url.appendingPathComponent("out.bin").path
        var environment = RWSecretProcess.environment(home: dir.url)
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --identity \(PseudoTerminal.quote(identity)) --binary "
                                             + "\(PseudoTerminal.quote(file)) -o \(PseudoTerminal.quote(out))", environment: environment)
        #expect(session.status == 0, "\(session.raw)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(plaintext))
        let drawn = session.raw.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("rwsecret: ") }
        #expect(drawn.contains { $0.hasPrefix("rwsecret: 2.9 MiB of 2.9 MiB (100%)") }, "\(drawn)")
        #expect(session.lines.isEmpty, "erased at the end: \(session.lines)")
    }

    @Test("line mode on a terminal: a whole Ansible Vault file after RNCryptor lines counts as read to its end",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func progressOfAWholeFileInLineMode() throws {
        let vault = "ansible-1.1.vault"
        let rn = dir.file("rn.txt", Messages.password("hello rn", "rn-pw") + "\n")
        let list = dir.file("list", bytes: KindCommandTests.row(vault).secret + Array("\nrn-pw\n".utf8))
        let out = dir.url.appendingPathComponent("out.txt").path
        var environment = RWSecretProcess.environment(home: dir.url)
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1 --password-file \(PseudoTerminal.quote(list)) "
                                             + "\(PseudoTerminal.quote(rn)) \(PseudoTerminal.quote(fixture(vault))) > \(PseudoTerminal.quote(out))",
                                             environment: environment)
        #expect(session.status == 0, "\(session.raw)")
        let drawn = session.raw.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("rwsecret: ") }
        let last = try #require(drawn.last, "\(session.raw)")
        #expect(last.hasPrefix("rwsecret: 2 messages, 100% of "), "\(drawn)")
        #expect(session.lines.isEmpty, "erased at the end: \(session.lines)")
    }

    // MARK: line mode on a pipe

    @Test("line mode finds a whole age or Ansible Vault file on a pipe, as in a regular file")
    func otherKindsOnAPipe() throws {
        let vault = "ansible-1.1.vault"
        let piped = try run(["decrypt", "--no-store", "--password-file", passwords(for: vault)], stdin: try Data(contentsOf: URL(fileURLWithPath: fixture(vault))))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(piped.out == "db_password: hunter2\n")
        let identity = dir.file("identity", bytes: Array(try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-identity.txt"))))
        chmod(identity, 0o600)
        for file in ["age-x25519-armored.age", "age-x25519.age"] {
            let result = try run(["decrypt", "--no-store", "--json", "--identity", identity], stdin: try Data(contentsOf: URL(fileURLWithPath: fixture(file))))
            #expect(result.status == 0, "\(file): \(result.stderr)")
            let record = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
            #expect(record?["kind"] as? String == "age" && record?["source"] as? String == "-" && record?["status"] as? String == "decrypted", "\(file): \(result.out)")
        }
        let scrypt = "age-scrypt-unicode.age"
        let result = try run(["decrypt", "--no-store", "--password-file", passwords(for: scrypt)], stdin: try Data(contentsOf: URL(fileURLWithPath: fixture(scrypt))))
        #expect(result.status == 0 && result.out == "a line of text\n", "\(result.stderr)")
    }

    @Test("on a pipe, lines that begin like another kind but are not one stay lines, each read once")
    func linesThatBeginLikeAnotherKind() throws {
        let text = "age-encryption.org is not a message\n" + Messages.password("after it", "rn-pw") + "\n-----BEGIN nothing\n$ANSIBLE\n"
        let list = dir.file("list", "rn-pw\n")
        let result = try run(["decrypt", "--no-store", "--password-file", list], stdin: Data(text.utf8))
        #expect(result.status == 1)
        #expect(result.out == "after it\n")
        #expect(result.errLines.count == 3 && result.errLines.first?.hasPrefix("rwsecret: -:1: ") == true, "\(result.errLines)")
    }

    /// The look at a pipe's first line goes no further than that line: a producer that writes
    /// one line beginning like another kind and waits gets that line's result at once.
    @Test("on a pipe that stays open, a first line beginning like another kind is answered without waiting for more", .timeLimit(.minutes(1)))
    func firstLineIsNotWaitedPast() throws {
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = ["decrypt", "--no-store", "--jobs", "1", "--password-file", dir.file("list", "rn-pw\n")]
        process.environment = RWSecretProcess.environment(home: dir.url)
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        ChildInput.catchBrokenPipes()
        try input.fileHandleForWriting.write(contentsOf: Data(("age-encryption.org, no\n" + Messages.password("answered", "rn-pw") + "\n").utf8))
        // A run that waits for more than the first line would never answer: after 30 s (the
        // answer takes milliseconds) the input is closed, so the test ends and says so.
        let state = Mutex((answered: false, waited: false))
        let writer = input.fileHandleForWriting
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            let close = state.withLock { state in
                guard !state.answered else { return false }
                state.waited = true
                return true
            }
            if close { try? writer.close() }
        }
        var out = Data()
        while !String(decoding: out, as: UTF8.self).contains("answered\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            out += chunk
        }
        let waited = state.withLock { state in
            state.answered = true
            return state.waited
        }
        if !waited { try writer.close() }
        out += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(!waited, "no answer until the input was closed: the run waited past the first line")
        #expect(String(decoding: out, as: UTF8.self) == "answered\n")
        #expect(process.terminationStatus == 1)
    }

    // MARK: the empty chain, a changed input

    @Test("an Ansible Vault or age -p file with no password to try: what came before, then the one empty-chain line, and the run stops")
    func emptyChainLine() throws {
        let identity = dir.file("identity", bytes: Array(try Data(contentsOf: KindCommandTests.kinds.appendingPathComponent("age-identity.txt"))))
        chmod(identity, 0o600)
        for file in ["ansible-1.1.vault", "age-scrypt-unicode.age"] {
            let result = try run(["decrypt", "--no-store", "--json", "--identity", identity, fixture("age-x25519-armored.age"), fixture(file), fixture("ansible-values.yml")])
            #expect(result.status == 1, "\(file): \(result.stderr)")
            #expect(result.errLines.count == 1 && result.errLines.first?.hasPrefix("rwsecret: no password to try: --no-store") == true, "\(file): \(result.errLines)")
            let records = try result.stdout.split(separator: 0x0a).map { try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any] }
            #expect(records.map { $0["status"] as? String } == ["decrypted"], "what came before is written, nothing after: \(result.out)")
        }
        // The store is the reason: 69, as for an RNCryptor message.
        let vault = try run(["decrypt", fixture("ansible-values.yml")])
        #expect(vault.status == 69, "\(vault.stderr)")
        #expect(vault.errLines.count == 1 && vault.errLines.first?.contains("rwsecret password add") == true, "\(vault.errLines)")
        // An age file for identities only is no password's: its own line, no empty-chain line.
        let noIdentity = try run(["decrypt", "--no-store", fixture("age-x25519.age")])
        #expect(noIdentity.errLines == ["rwsecret: \(fixture("age-x25519.age")):1: an age file for X25519 recipients: no identity given opens it (give --identity FILE, or store one: rwsecret identity import)"])
    }

    @Test("--binary: an age file whose header changes once it was read and verified releases nothing (74), as an RNCryptor message",
          arguments: [false, true])
    func inputChangedWhileRead(toFile: Bool) throws {
        let shim = try Shim.build(Shim.flipOnFirstWrite, named: "flip", in: dir.url)
        let (file, identity, _) = try bigAgeFile()
        let out = dir.url.appendingPathComponent("out.bin").path
        let result = try run(["decrypt", "--no-store", "--identity", identity, "--binary", file] + (toFile ? ["-o", out] : []),
                             extra: ["LD_PRELOAD": shim, "RWS_FLIP_FILE": file, "RWS_FLIP_OFFSET": "30"])
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.errLines == ["rwsecret: \(file): the input changed while it was read"])
        #expect(result.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    // MARK: hints (issue 24 item 6)

    /// An age file whose only recipient is a type rwsecret has no identity for (a plugin's).
    static let foreignAge: [UInt8] = Array("age-encryption.org/v1\n-> piv-p256 c29tZXRoaW5n\n\n--- \(String(repeating: "A", count: 42))Q\n".utf8) + [UInt8](repeating: 7, count: 80)

    @Test("what rwsecret cannot open is one line naming it, in line mode and with --binary, raw and base64",
          arguments: [("salted", "OpenSSL enc"), ("v4", "RNCryptor v4 draft"), ("age", "an age file for recipients that are not ours (piv-p256): nothing here can open it")])
    func hintsAreOneLine(_ name: String, _ phrase: String) throws {
        let raw: [UInt8] = switch name {
        case "salted": Array("Salted__".utf8) + (0..<56).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 200) }
        case "v4": Array("RNC".utf8) + [4] + (0..<70).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 129) }
        default: Self.foreignAge
        }
        let rawFile = dir.file("\(name).bin", bytes: raw)
        var runs: [[String]] = [["decrypt", "--no-store", rawFile], ["decrypt", "--no-store", "--binary", rawFile]]
        if name != "age" { runs.append(["decrypt", "--no-store", dir.file("\(name).txt", Base64.encode(raw) + "\n")]) }
        for arguments in runs {
            let result = try run(arguments, extra: ["RWSECRET_PASSWORD": "pw"])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            // Base64 lines: the hint once for the input (one line), then each line's own failure (LineSourceTests).
            let lines = arguments.last!.hasSuffix(".txt") ? 2 : 1
            #expect(result.errLines.count == lines && result.errLines[0].contains(phrase), "\(arguments): \(result.errLines)")
        }
    }

    // MARK: help and man page

    @Test("decrypt --help (the man page's source) names --memory SIZE and --identity FILE, and the man page's examples use them")
    func helpAndManPage() throws {
        let help = try run(["decrypt", "--help"]).out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("--memory <size> The memory that costly password tries running at once may use"), "--memory is not in the help")
        #expect(help.contains("recognised by its content"), "the discussion names the other kinds")
        #expect(help.contains("(default: half the memory available)"))
        #expect(help.contains("--identity <file>"))
        let examples = try String(contentsOf: DocumentationTests.root.appendingPathComponent("Documentation/man/examples/rwsecret.decrypt.mdoc"), encoding: .utf8)
        #expect(examples.contains("--memory 2G") && examples.contains("--identity "), "\(examples)")
    }
}
