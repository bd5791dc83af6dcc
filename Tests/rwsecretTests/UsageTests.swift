import Foundation
import Testing

/// Small surprises a new user met (issue 12, item 12): each is bad usage or a clear error.
@Suite("usage and small surprises")
struct UsageTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: home.url) }

    func run(_ arguments: [String], stdin: String = "", extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        var environment = self.environment
        for (k, v) in extra { environment[k] = v }
        return try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: environment, directory: home.url)
    }

    @Test("a mistyped command gets a suggestion", arguments: [
        (["decrpyt", "x.txt"], "decrypt"), (["pasword", "list"], "password"), (["password", "lsit"], "list"),
        (["--store", "file", "stauts"], "status"), (["encrypt-it"], "encrypt"),
    ])
    func didYouMean(_ arguments: [String], _ suggestion: String) throws {
        let result = try run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("did you mean '\(suggestion)'?"), "\(result.stderr)")
        #expect(result.out == "")
    }

    @Test("a command group alone is bad usage: usage on stderr, 64, like bare rwsecret",
          arguments: [[], ["password"], ["--quiet", "password"]])
    func groupAlone(_ arguments: [String]) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        #expect(result.out == "")
        #expect(result.stderr.contains("USAGE:"), "\(result.stderr)")
    }

    @Test("help of an unknown command is bad usage")
    func helpUnknown() throws {
        let result = try run(["help", "nosuch"])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("rwsecret: unknown command 'nosuch'"), "\(result.stderr)")
        #expect(try run(["help", "password", "nosuch"]).status == 64)
        let known = try run(["help", "password", "add"])
        #expect(known.status == 0)
        #expect(known.out.contains("--min-length"))
    }

    @Test("--min-length with a negative number says what is wrong")
    func negativeMinimumLength() throws {
        let result = try run(["password", "add", "--min-length", "-3", "work"], stdin: "secret\n")
        #expect(result.status == 64)
        #expect(result.stderr.contains("--min-length must be at least 1"), "\(result.stderr)")
        #expect(!result.stderr.contains("Missing value"))
    }

    @Test("--require and --password-label are not shown as repeatable, and a repeat is bad usage")
    func notRepeatable() throws {
        let help = try run(["password", "add", "--help"])
        #expect(help.out.contains("--require <class>"))
        #expect(!help.out.contains("--require <class> ..."), "\(help.out)")
        let twice = try run(["password", "add", "--require", "alpha", "--require=numeric", "work"], stdin: "abc\n")
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("--require can be given only once"), "\(twice.stderr)")

        let encryptHelp = try run(["encrypt", "--help"])
        #expect(!encryptHelp.out.contains("--password-label <label> ..."), "\(encryptHelp.out)")
        #expect(!encryptHelp.out.contains("--password-file <file> ..."), "\(encryptHelp.out)")
        let labelTwice = try run(["encrypt", "--password-label", "a", "--password-label", "b"])
        #expect(labelTwice.status == 64)
        #expect(labelTwice.stderr.contains("--password-label can be given only once"), "\(labelTwice.stderr)")
    }

    @Test("an unknown option is reported before a FILE-count error")
    func unknownOptionFirst() throws {
        let result = try run(["decrypt", "--binary", "--output", "out.bin", "a.rnc", "b.rnc"])
        #expect(result.status == 64)
        #expect(result.errLines.first?.contains("--output") == true, "\(result.stderr)")
    }

    @Test("writing to a full disk says why", .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func fullDisk() throws {
        let messages = home.file("m.txt", Messages.password("to a full disk", "pw") + "\n")
        for arguments in [["decrypt", "--no-store", messages], ["encrypt", messages]] {
            let (status, stderr) = try runToFullDisk(arguments)
            #expect(status == 74, "\(arguments)")
            #expect(stderr == "rwsecret: stdout: No space left on device\n", "\(arguments): \(stderr)")
        }
    }

    /// Runs rwsecret with stdout on /dev/full and RWSECRET_PASSWORD=pw: its status and stderr.
    private func runToFullDisk(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = arguments
        var environment = self.environment
        environment["RWSECRET_PASSWORD"] = "pw"
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let error = Pipe()
        process.standardError = error
        try process.runCheckingDescriptors()
        let stderr = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    // Before: the result writer called exit() from the pipeline's delivery callback, so the
    // run never reached its end (no `--verbose` summary). Now a failed stdout stops the run:
    // nothing more is read, what is in flight is dropped, the status is 74, said once.
    @Test("a failed stdout stops the run through its normal end: nothing more is read or derived", .enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func fullDiskStopsTheRun() throws {
        let messages = home.file("many.txt", (0..<200).map { Messages.password("line \($0)", "pw") }.joined(separator: "\n") + "\n")
        let (status, stderr) = try runToFullDisk(["decrypt", "--no-store", "--verbose", "--jobs", "2", messages])
        #expect(status == 74)
        let lines = stderr.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("rwsecret: stdout:") } == ["rwsecret: stdout: No space left on device"], "\(stderr)")
        let derived = lines.first { $0.hasPrefix("rwsecret: key derivations: ") }.flatMap { Int($0.dropFirst("rwsecret: key derivations: ".count)) }
        // The first message, and at most what the pipeline holds in flight and in its window (4 × jobs).
        #expect(derived.map { $0 <= 2 * (1 + 2 + 8) } == true, "\(stderr)")
    }

    // Chosen: a second line is an error (65), nothing stored. `password add` stores one
    // password; a file of several piped in by mistake would otherwise store its first
    // line and silently drop the rest.
    @Test("a second stdin line to password add is refused and nothing is stored")
    func secondLine() throws {
        let extra = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        let result = try run(["password", "add", "work"], stdin: "first secret\nsecond secret\n", extra: extra)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("more than one line"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("data/rwsecret/vault").path))
        // One line, with or without its newline (and a CRLF), is fine.
        #expect(try run(["password", "add", "one"], stdin: "only secret\r\n", extra: extra).status == 0)
        #expect(try run(["password", "add", "two"], stdin: "other secret", extra: extra).status == 0)
    }
}
