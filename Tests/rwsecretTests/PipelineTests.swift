import Foundation
import Testing
import RWSecretKit

/// `rwsecret decrypt` as the worker stage of an engine (Spark, GNU parallel): ids, one
/// record per row, passwords over an inherited descriptor, and the default job count.
@Suite("decrypt: pipelines")
struct PipelineTests {
    let dir = TemporaryFolder()
    var env: [String: String] { RWSecretProcess.environment(home: dir.url) }

    func run(_ args: [String], stdin: String = "", extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: Data(stdin.utf8), environment: env.merging(extra) { $1 }, directory: dir.url)
    }

    static func json(_ result: RWSecretProcess.Result) throws -> [[String: Any]] {
        try result.outLines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    /// Rows with ids: a wrapped message, blank rows and a comment among them, failures.
    static let rows: [String] = {
        let wrapped = LineSourceTests.wrap(Messages.password("three rows", "pw"), at: 64)
        #expect(wrapped.count == 2)
        return [
            "a1\t" + Messages.password("first", "pw"),
            "",
            "a2\t" + wrapped[0],
            wrapped[1],
            "# a comment",
            "a3\tnot base64!",
            "a4\t",
            "   ",
            "a5\t" + Messages.password("lost", "nobody"),
            "a 6\t  " + Messages.password("tab\tand\nnewline", "pw") + " \r",
            "no id here",
        ]
    }()

    // Before: `--id-column` and `--in-band` were unknown options (64).
    @Test("--in-band: one record per input row, each decided alone, ids in every record, failures as records, exit 0")
    func inBand() throws {
        let input = Self.rows.joined(separator: "\n") + "\n"
        let result = try run(["decrypt", "--no-store", "--in-band", "--id-column"], stdin: input, extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(result.stderr == "")
        #expect(result.status == 0, "per-message failures do not fail the run")
        let records = try Self.json(result)
        try #require(records.count == Self.rows.count, "\(result.out)")
        // Issue 32: under --in-band each row is decided at its own line end, never joined with
        // the next (the wrapped message's first row waited for it: a producer that waits for
        // each record hung), so a wrapped message is two failed rows here.
        #expect(records.map { $0["status"] as? String } == [
            "decrypted", "skipped", "failed", "failed", "skipped", "failed", "skipped", "skipped", "failed", "decrypted", "failed",
        ])
        #expect(records.map { $0["line"] as? Int } == Array(1...Self.rows.count))
        #expect(records.allSatisfy { $0.keys.contains("id") }, "\"id\" is in every object")
        #expect(records.map { $0["id"] as? String } == ["a1", nil, "a2", nil, nil, "a3", "a4", nil, "a5", "a 6", nil])
        #expect(records[0]["plaintext"] as? String == "first")
        #expect(records[3]["error"] as? String == "no ID (expected ID<TAB>MESSAGE)")
        #expect(records[5]["error"] as? String == "bad base64")
        #expect(records[8]["error"] as? String == "no password opened it (tried 1)")
        #expect(records[9]["plaintext"] as? String == "tab\tand\nnewline")
        #expect(records[10]["error"] as? String == "no ID (expected ID<TAB>MESSAGE)")
    }

    @Test("--id-column alone: text output puts the ID before a TAB; --json adds \"id\" but no skipped records")
    func idColumn() throws {
        let input = Self.rows.joined(separator: "\n") + "\n"
        let text = try run(["decrypt", "--no-store", "--id-column"], stdin: input, extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(text.out == "a1\tfirst\na2\tthree rows\na 6\ttab\tand\nnewline\n")
        #expect(text.errLines == [
            "rwsecret: -:6: bad base64",
            "rwsecret: -:9: no password opened it (tried 1)",
            "rwsecret: -:11: no ID (expected ID<TAB>MESSAGE)",
        ])
        #expect(text.status == 1)
        let json = try run(["decrypt", "--no-store", "--id-column", "--json"], stdin: input, extra: ["RWSECRET_PASSWORD": "pw"])
        let records = try Self.json(json)
        #expect(records.map { $0["id"] as? String } == ["a1", "a2", "a3", "a5", "a 6", nil])
        #expect(records.map { $0["line"] as? Int } == [1, 3, 6, 9, 10, 11])
        #expect(json.status == 1, "plain --json keeps the exit table")
    }

    @Test("a row over 1 MiB keeps its ID in its record; the next row is still read")
    func tooLongKeepsID() throws {
        let input = "big\t" + String(repeating: "A", count: 1 << 20) + "\n" + "next\t" + Messages.password("after", "pw") + "\n"
        let result = try run(["decrypt", "--no-store", "--in-band", "--id-column"], stdin: input, extra: ["RWSECRET_PASSWORD": "pw"])
        let records = try Self.json(result)
        #expect(records.map { $0["id"] as? String } == ["big", "next"])
        #expect(records.first?["error"] as? String == "line too long")
        #expect(records.last?["plaintext"] as? String == "after")
        #expect(result.status == 0)
    }

    @Test("an ID that is not UTF-8 comes back as id_base64")
    func binaryID() throws {
        var input = Data([0xff, 0x01, UInt8(ascii: "\t")])
        input.append(Data((Messages.password("x", "pw") + "\n").utf8))
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--in-band", "--id-column"], stdin: input,
                                             environment: env.merging(["RWSECRET_PASSWORD": "pw"]) { $1 }, directory: dir.url)
        let records = try Self.json(result)
        #expect(records.count == 1)
        #expect(records.first?["id_base64"] as? String == "/wE=")
        #expect(records.first?["plaintext"] as? String == "x")
    }

    @Test("--in-band and --id-column inputs are rows: NUL and control bytes in the first row give that row a failed record, never 'binary data' for the whole input")
    func binaryLookingRows() throws {
        let input = Data(("r1\tgarbage\u{0}\u{1}\u{2}\u{3}\n" + "r2\t" + Messages.password("x", "pw") + "\n").utf8)
        for args in [["decrypt", "--no-store", "--in-band", "--id-column"], ["decrypt", "--no-store", "--in-band"]] {
            let result = try RWSecretProcess.run(args, stdin: input, environment: env.merging(["RWSECRET_PASSWORD": "pw"]) { $1 }, directory: dir.url)
            #expect(result.status == 0, "\(args): \(result.stderr)")
            #expect(!result.stderr.contains("binary data"), "\(args): \(result.stderr)")
            let records = try Self.json(result)
            #expect(records.count == 2, "\(args)")
            #expect(records.first?["status"] as? String == "failed", "\(args)")
        }
        let idColumn = try RWSecretProcess.run(["decrypt", "--no-store", "--in-band", "--id-column"], stdin: input,
                                               environment: env.merging(["RWSECRET_PASSWORD": "pw"]) { $1 }, directory: dir.url)
        #expect(try Self.json(idColumn).last?["plaintext"] as? String == "x")
    }

    // Before: exit 66 for a missing password file was hidden by engines that ignore the code, and an
    // empty chain gave one `tried 0` per row and exit 1.
    @Test("--in-band fatal problems are decided before input is read: non-zero, one stderr line, no records")
    func inBandFatal() throws {
        let input = Self.rows.joined(separator: "\n") + "\n"
        let missing = try run(["decrypt", "--no-store", "--in-band", "--id-column", "--password-file", "absent"], stdin: input)
        #expect(missing.status == 66)
        #expect(missing.out == "")
        #expect(missing.errLines.count == 1 && missing.errLines[0].hasPrefix("rwsecret: absent: "))

        let empty = try run(["decrypt", "--no-store", "--in-band"], stdin: input)
        #expect(empty.status == 69)
        #expect(empty.out == "")
        #expect(empty.errLines == ["rwsecret: nothing to try: --no-store, no password given for the run and no --key-file "
                                   + "(give --password-file, --password-fd, --ask-password, RWSECRET_PASSWORD or --key-file)"])

        // The default store here is an empty vault (no keyring on this bus).
        let emptyStore = try run(["decrypt", "--in-band"], stdin: input)
        #expect(emptyStore.status == 69)
        #expect(emptyStore.out == "")
        #expect(emptyStore.errLines.count == 1 && emptyStore.errLines[0].contains("holds no password"), "\(emptyStore.errLines)")

        let unavailable = try run(["decrypt", "--in-band", "--store", "keyring"], stdin: input, extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(unavailable.status == 69)
        #expect(unavailable.out == "")
        #expect(unavailable.errLines.count == 1)

        // A key alone is something to try: key-based rows decrypt, password-based ones fail as records.
        let key = dir.file("k.key", Messages.keyHex + "\n")
        let keyOnly = try run(["decrypt", "--no-store", "--in-band", "--key-file", key],
                              stdin: Messages.keyBased("by key") + "\n" + Messages.password("x", "pw") + "\n")
        #expect(keyOnly.status == 0)
        #expect(try Self.json(keyOnly).map { $0["status"] as? String } == ["decrypted", "failed"])
    }

    @Test("--in-band with nothing to try stops before reading stdin (a stdin that never ends)", .timeLimit(.minutes(1)))
    func inBandFatalBeforeInput() throws {
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = ["decrypt", "--no-store", "--in-band"]
        process.environment = env
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        defer { try? input.fileHandleForWriting.close() }
        ChildInput.catchBrokenPipes()
        try? input.fileHandleForWriting.write(contentsOf: Data((Messages.password("x", "pw") + "\n").utf8))
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(out.isEmpty)
        #expect(process.terminationStatus == 69)
    }

    @Test("password-file lines LABEL<TAB>SECRET: JSON names the label; unlabelled lines keep FILE:LINE")
    func labelledPasswords() throws {
        let passwords = dir.file("pw", "work\tw0rk-S3KR1T\r\nplain-S3KR1T\n\nhome\th0me-S3KR1T\n")
        let input = [Messages.password("w", "w0rk-S3KR1T"), Messages.password("p", "plain-S3KR1T"), Messages.password("h", "h0me-S3KR1T")]
            .joined(separator: "\n") + "\n"
        let result = try run(["decrypt", "--no-store", "--json", "--password-file", passwords], stdin: input)
        let records = try Self.json(result)
        #expect(records.map { $0["password"] as? String } == ["work", "\(passwords):2", "home"])
        #expect(result.status == 0)
        #expect(!result.out.contains("S3KR1T"), "never a secret in the output")
    }

    @Test("a bad label, a bad secret or a label given twice is 65 before anything is read; the secret is not printed",
          arguments: [
              "\tS3KR1T-without-label\n",
              String(repeating: "l", count: 65) + "\tS3KR1T-1\n",
              "one\tS3KR1T-a\none\tS3KR1T-b\n",
              "ok\tS3KR1T\twith tab\n",
          ])
    func badLabelledLines(_ contents: String) throws {
        let file = dir.file("pw", contents)
        let result = try run(["decrypt", "--no-store", "--in-band", "--password-file", file], stdin: Messages.password("x", "S3KR1T-1") + "\n")
        #expect(result.status == 65, "\(contents.debugDescription): \(result.stderr)")
        #expect(result.out == "")
        #expect(!result.stderr.contains("S3KR1T"), "the secret is never printed")
        #expect(result.errLines.allSatisfy { $0.hasPrefix("rwsecret: \(file):") })
    }

    /// Runs rwsecret with `passwords` written into a pipe on descriptor 3 by a shell (as a driver would).
    func runWithPasswordPipe(_ args: [String], passwords: String, stdin: String) throws -> RWSecretProcess.Result {
        let input = dir.file("input-\(UUID().uuidString)", stdin)
        let script = "printf '%s' \"$PW\" | \"$BIN\" \"$@\" 3<&0 0<\"$IN\""
        return try RWSecretProcess.run(
            ["-c", script, "sh"] + args, environment: env.merging(["PW": passwords, "BIN": RWSecretProcess.executable.path, "IN": input]) { $1 },
            directory: dir.url, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    // Before: `--password-fd` was an unknown option (64).
    @Test("--password-fd N: run-only passwords (labelled or not) from an inherited pipe")
    func passwordFD() throws {
        let input = [Messages.password("a", "first-pw"), Messages.password("b", "second-pw")].joined(separator: "\n") + "\n"
        let result = try runWithPasswordPipe(["decrypt", "--no-store", "--in-band", "--password-fd", "3"],
                                             passwords: "label-a\tfirst-pw\nsecond-pw\n", stdin: input)
        let records = try Self.json(result)
        #expect(records.map { $0["plaintext"] as? String } == ["a", "b"])
        #expect(records.map { $0["password"] as? String } == ["label-a", "fd:3:2"])
        #expect(result.status == 0)
        #expect(!result.stderr.contains("pw"))

        let closed = try run(["decrypt", "--no-store", "--in-band", "--password-fd", "7"], stdin: input)
        #expect(closed.status == 66)
        #expect(closed.out == "")
        #expect(closed.errLines.count == 1 && closed.errLines[0].hasPrefix("rwsecret: --password-fd 7: "), "\(closed.errLines)")

        let rejected = try runWithPasswordPipe(["decrypt", "--no-store", "--password-fd", "3"], passwords: "bad\tsecret\twith tab\n", stdin: input)
        #expect(rejected.status == 65)
        #expect(rejected.errLines.allSatisfy { $0.hasPrefix("rwsecret: fd:3:1: ") }, "\(rejected.errLines)")
    }

    @Test("--password-fd 1 or 2 is bad usage, and so is 0 while stdin holds the messages", arguments: [
        ["--password-fd", "1"], ["--password-fd", "2"], ["--password-fd", "0"], ["--password-fd", "0", "-"], ["--password-fd", "-4"],
    ])
    func passwordFDUsage(_ args: [String]) throws {
        let result = try run(["decrypt", "--no-store"] + args, stdin: "")
        #expect(result.status == 64, "\(args): \(result.stderr)")
    }

    @Test("--jobs default: the affinity mask (taskset -c 0 gives one job), else RWSECRET_JOBS; --jobs wins",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset"), "needs util-linux's taskset"))
    func jobsDefault() throws {
        let pinned = try RWSecretProcess.run(["-c", "0", RWSecretProcess.executable.path, "decrypt", "--no-store", "--verbose"],
                                             environment: env, directory: dir.url, executable: URL(fileURLWithPath: "/usr/bin/taskset"))
        #expect(pinned.errLines.contains { $0.hasPrefix("rwsecret: jobs: 1 (") }, "\(pinned.errLines)")
        let fromEnvironment = try run(["decrypt", "--no-store", "--verbose"], extra: ["RWSECRET_JOBS": "3"])
        #expect(fromEnvironment.errLines.contains("rwsecret: jobs: 3 (RWSECRET_JOBS)"), "\(fromEnvironment.errLines)")
        let option = try run(["decrypt", "--no-store", "--verbose", "--jobs", "2"], extra: ["RWSECRET_JOBS": "3"])
        #expect(option.errLines.contains("rwsecret: jobs: 2 (--jobs)"), "\(option.errLines)")
        for bad in ["0", "two", "-1", ""] {
            let result = try run(["decrypt", "--no-store"], extra: ["RWSECRET_JOBS": bad])
            #expect(result.status == 64, "RWSECRET_JOBS=\(bad)")
            #expect(result.errLines.count == 1 && result.errLines[0].contains("RWSECRET_JOBS"))
        }
        // Usage comes before what was given for the run (a missing password file is 66).
        #expect(try run(["decrypt", "--no-store", "--password-file", "absent"], extra: ["RWSECRET_JOBS": "0"]).status == 64)
    }
}
