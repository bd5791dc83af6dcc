import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Hardening, round four (issue 32): a row under `--in-band` never waits for the next one,
/// `-o` never writes through a symbolic link nor over a file the run reads, every command
/// that writes to stdout fails (74) when that write fails, the sweep runs for every `-o`,
/// a crash is a plain signal death, and `--allow-legacy` holds with `--key-file`. Each test
/// failed on the code before the fix.
@Suite("hardening: round four (issue 32)", .serialized)
struct RoundFourTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase for round four"

    private func environment(_ extra: [String: String] = [:]) -> [String: String] {
        RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw", "RWSECRET_VAULT_PASSPHRASE": Self.passphrase].merging(extra) { $1 })
    }

    private func run(_ arguments: [String], stdin: Data = Data(), _ extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(arguments, stdin: stdin, environment: environment(extra), directory: dir.url)
    }

    /// `sh -c SCRIPT rwsecret ARGS...`: for redirections (`>&-`, `>/dev/full`).
    private func shell(_ script: String, _ arguments: String...) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(["-c", script, RWSecretProcess.executable.path] + arguments, environment: environment(), directory: dir.url,
                                executable: URL(fileURLWithPath: "/bin/sh"))
    }

    private func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    private func folder(_ name: String) throws -> String {
        let path = dir.path + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// An X25519 identity file made by age-keygen, and its recipient.
    private func ageIdentity(_ name: String) throws -> (file: String, recipient: String) {
        let file = dir.path + "/" + name
        let keygen = try RWSecretProcess.run(["-o", file], environment: environment(), executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
        try #require(keygen.status == 0, "\(keygen.stderr)")
        let recipient = try RWSecretProcess.run(["-y", file], environment: environment(), executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
        return (file, recipient.out.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: 1. --in-band decides each row at its own line end

    // Before: the record of a 64-column row (a wrapped message's first line, or any base64 row
    // of 16 characters or more) was held until the next line came: `make test-spark` hung.
    @Test("--in-band: a row that could start a wrapped message gets its record before the next line is written",
          arguments: [["--in-band", "--id-column"], ["--in-band"]])
    func inBandRowNeverWaits(flags: [String]) throws {
        let whole = Messages.password("first", "pw")
        let cut = String(Messages.password("a wrapped message of some length, cut at 64 columns", "pw").prefix(64))
        let id = flags.contains("--id-column")
        let child = try StreamingChild(["decrypt", "--no-store", "--quiet"] + flags, environment: environment())
        child.write((id ? "a\t" : "") + whole + "\n" + (id ? "b\t" : "") + cut + "\n")
        let first = try #require(child.readLine(timeout: 60), "no record for row 1")
        let second = try #require(child.readLine(timeout: 60), "no record for row 2 while stdin stays open: it waits for the next line")
        #expect(first.contains("\"plaintext\":\"first\""), "\(first)")
        #expect(second.contains("\"line\":2") && second.contains("\"status\":\"failed\""), "\(second)")
        child.closeInput()
        #expect(child.readLine(timeout: 60) == nil)
        #expect(child.exit(timeout: 60)?.status == 0)
    }

    // MARK: 2. -o a symbolic link

    // Before: rc 0, and the link's target (mode 0644) held the plaintext.
    @Test("-o a symbolic link: refused (73, one line) for decrypt, encrypt and identity export; the target untouched")
    func symbolicLinkRefused() throws {
        let plaintext = Array("the plaintext behind a link".utf8)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let (identityFile, recipient) = try ageIdentity("id.txt")
        let sealed = dir.path + "/m.age"
        #expect(try run(["encrypt", "--to", recipient, "-o", sealed], stdin: Data(plaintext)).status == 0)
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        let target = dir.file("target", "target\n")
        chmod(target, 0o644)
        let link = dir.path + "/link"
        #expect(symlink(target, link) == 0)
        let dangling = dir.path + "/dangling"
        #expect(symlink(dir.path + "/nowhere", dangling) == 0)
        let runs: [[String]] = [
            ["decrypt", "--no-store", "--binary", message, "-o"],
            ["decrypt", "--no-store", "--identity", identityFile, "--binary", sealed, "-o"],
            ["encrypt", "--binary", message, "-o"],
            ["encrypt", "--to", recipient, message, "-o"],
            ["--store", "file", "identity", "export", "me", "-o"],
        ]
        for arguments in runs {
            for out in [link, dangling] {
                let result = try run(arguments + [out])
                #expect(result.status == 73, "\(arguments): \(result.stderr)")
                #expect(result.errLines == ["rwsecret: \(out): cannot create: a symbolic link (not followed: give the file it points to)"], "\(arguments)")
                #expect(try String(contentsOfFile: target, encoding: .utf8) == "target\n", "\(arguments)")
                #expect(TemporaryFolder.mode(target) == 0o644)
                #expect(!FileManager.default.fileExists(atPath: dir.path + "/nowhere"), "\(arguments)")
            }
        }
        // -o /dev/stdout (a link to the pipe that is stdout) still writes to stdout.
        let toStdout = try run(["decrypt", "--no-store", "--binary", message, "-o", "/dev/stdout"])
        #expect(toStdout.status == 0, "\(toStdout.stderr)")
        #expect(toStdout.stdout == Data(plaintext))
    }

    // MARK: 3. -o a file the run reads

    // Before: `decrypt --identity id.txt --binary -o id.txt m.age` exited 0 and id.txt held the plaintext.
    @Test("-o the --identity file, the input, a --to-file: refused (73), untouched; identity export -o an existing file: refused")
    func outputThatTheRunReads() throws {
        let (identityFile, recipient) = try ageIdentity("id.txt")
        let key = try String(contentsOfFile: identityFile, encoding: .utf8)
        let sealed = dir.path + "/m.age"
        #expect(try run(["encrypt", "--to", recipient, "-o", sealed], stdin: Data("age plaintext".utf8)).status == 0)
        let idLink = dir.path + "/id-hardlink.txt"
        #expect(link(identityFile, idLink) == 0, "another name for the same file")
        for out in [identityFile, idLink] {
            let result = try run(["decrypt", "--no-store", "--identity", identityFile, "--binary", sealed, "-o", out])
            #expect(result.status == 73, "\(out): \(result.stderr)")
            #expect(result.errLines == ["rwsecret: \(out): cannot create: it is an identity file"])
            #expect(try String(contentsOfFile: identityFile, encoding: .utf8) == key)
        }
        let recipients = dir.file("recipients.txt", recipient + "\n")
        let input = dir.file("input.txt", "plaintext\n")
        for (out, what) in [(recipients, "a --to-file"), (input, "the input file")] {
            let result = try run(["encrypt", "--to-file", recipients, input, "-o", out])
            #expect(result.status == 73, "\(what): \(result.stderr)")
            #expect(result.errLines == ["rwsecret: \(out): cannot create: it is \(what)"])
        }
        #expect(try String(contentsOfFile: recipients, encoding: .utf8) == recipient + "\n")
        #expect(try String(contentsOfFile: input, encoding: .utf8) == "plaintext\n")
        // identity export, as age-keygen -o: never over an existing file.
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        let existing = dir.file("existing.txt", "keep\n")
        let export = try run(["--store", "file", "identity", "export", "me", "-o", existing])
        #expect(export.status == 73, "\(export.stderr)")
        #expect(export.errLines == ["rwsecret: \(existing): cannot create: it exists (identity export never replaces a file)"])
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep\n")
    }

    // MARK: 6. stdout that fails

    // Before: each of these exited 0 (the age file went to the /dev/null that held fd 1; the
    // recipient of a stored identity was never shown).
    @Test("every command that writes to stdout fails with 74 when stdout is closed or full")
    func standardOutputFailures() throws {
        let (_, recipient) = try ageIdentity("id.txt")
        let input = dir.file("input.txt", "plaintext\n")
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        #expect(try run(["--store", "file", "password", "add", "work"], stdin: Data("secret".utf8)).status == 0)
        let commands: [String] = [
            "\"$0\" encrypt --to \(recipient) \"$1\"",
            "\"$0\" encrypt --to \(recipient) --armor \"$1\"",
            "\"$0\" encrypt \"$1\"",
            "\"$0\" --store file identity recipient me",
            "\"$0\" --store file identity list",
            "\"$0\" --store file identity list --json",
            "\"$0\" --store file password list",
            "\"$0\" --store file status",
        ]
        for command in commands {
            for redirect in [">&-", ">/dev/full"] {
                let result = try shell("exec \(command) \(redirect)", input)
                #expect(result.status == 74, "\(command) \(redirect): \(result.stderr)")
                #expect(result.errLines.count == 1 && result.errLines.first?.hasPrefix("rwsecret: stdout: ") == true, "\(command) \(redirect): \(result.errLines)")
            }
        }
        // identity new: with stdout closed, nothing is stored (the recipient could not be shown).
        let closed = try shell("exec \"$0\" --store file identity new lost >&-")
        #expect(closed.status == 74, "\(closed.stderr)")
        #expect(closed.errLines == ["rwsecret: stdout: Bad file descriptor (stdout is closed): no identity made"])
        #expect(!(try run(["--store", "file", "identity", "list"])).out.contains("lost"))
        // On a full stdout it is stored, and the line says so and how to see the recipient.
        let full = try shell("exec \"$0\" --store file identity new kept >/dev/full")
        #expect(full.status == 74, "\(full.stderr)")
        #expect(full.errLines.last == "rwsecret: stdout: No space left on device: identity 'kept' was stored, but its recipient was not shown (rwsecret identity recipient kept)")
        #expect(try run(["--store", "file", "identity", "list"]).out.contains("kept\t"))
    }

    // MARK: 7. SIGKILL between link and rename, for every -o

    @Test("SIGKILL at rename for encrypt -o (both formats) and an age decrypt -o: the next -o into the folder (any command) sweeps the hidden name; identity export never renames")
    func killAtRenameEveryCommand() throws {
        let shim = try Shim.build(OutputDestinationTests.killAtRename, named: "kill-at-rename", in: dir.url)
        let (identityFile, recipient) = try ageIdentity("id.txt")
        let plaintext = Crypto.randomBytes(count: 100_000)
        let input = dir.file("input.bin", bytes: plaintext)
        let sealed = dir.path + "/m.age"
        #expect(try run(["encrypt", "--to", recipient, input, "-o", sealed]).status == 0)
        let outFolder = try folder("out")
        let out = outFolder + "/out.bin"
        let killing = ["LD_PRELOAD": shim]
        let killedRuns: [[String]] = [
            ["encrypt", "--binary", input, "-o", out],
            ["encrypt", "--to", recipient, input, "-o", out],
            ["decrypt", "--no-store", "--identity", identityFile, "--binary", sealed, "-o", out],
        ]
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        let sweepers: [[String]] = [
            ["encrypt", "--binary", input, "-o", outFolder + "/other"],
            ["encrypt", "--to", recipient, input, "-o", outFolder + "/other"],
            ["decrypt", "--no-store", "--identity", identityFile, "--binary", sealed, "-o", outFolder + "/other"],
            ["--store", "file", "identity", "export", "me", "-o", outFolder + "/other"],
        ]
        for killed in killedRuns {
            for sweeper in sweepers {
                #expect(FileManager.default.createFile(atPath: out, contents: Data("old".utf8)))
                let result = try run(killed, killing)
                #expect(result.status != 0, "\(killed): killed at rename")
                let left = entries(outFolder).filter { $0.hasPrefix(".rwsecret-") }
                #expect(left.count == 1, "\(killed): \(left)")
                let next = try run(sweeper)
                #expect(next.status == 0, "\(sweeper): \(next.stderr)")
                #expect(entries(outFolder) == ["other", "out.bin"], "\(killed), then \(sweeper): the hidden name is still there")
                try FileManager.default.removeItem(atPath: outFolder + "/other")
            }
        }
        // identity export writes only a new file: no rename, so no window.
        let exported = try run(["--store", "file", "identity", "export", "me", "-o", outFolder + "/key.txt"], killing)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(entries(outFolder) == ["key.txt", "out.bin"])
    }

    // MARK: 9. no crash handler that prints memory

    // Before (debug build): SIGABRT printed the Swift runtime's backtrace (registers, and the
    // memory at each) to stderr, and the process lived on while it was made.
    @Test("SIGABRT to decrypt waiting on stdin: a plain signal death, nothing printed")
    func crashIsPlainSignalDeath() throws {
        let child = try StreamingChild(["decrypt", "--no-store", "--verbose"], environment: environment(["SWIFT_BACKTRACE": "enable=yes"]))
        // The verbose lines come before stdin is read: then it waits there.
        let before = child.standardError(atLeast: 1, timeout: 60)
        try #require(!before.isEmpty, "no verbose line")
        usleep(200_000)
        kill(child.pid, SIGABRT)
        let exit = try #require(child.exit(timeout: 20), "still alive 20 s after SIGABRT")
        #expect(exit.signaled && exit.status == SIGABRT, "\(exit)")
        let after = child.restOfStandardError(timeout: 5)
        #expect(after == before, "printed after SIGABRT: \(after.dropFirst(before.count).prefix(400))")
    }

    // MARK: 10. --allow-legacy with --key-file

    /// A v1 key-based message (RNCryptor's `encryptWithArbitraryKeys`, version 1): header
    /// `01 00` and the IV, AES-256-CBC, and an HMAC over the ciphertext only.
    static func v1KeyBased(_ plaintext: String) -> String {
        var bytes = RNCryptor.encrypt(Array(plaintext.utf8), keys: Messages.keys)
        bytes[0] = 1
        let ciphertext = Array(bytes[18..<(bytes.count - 32)])
        bytes.replaceSubrange((bytes.count - 32)..., with: KindPrimitives.hmacSHA256(key: Messages.hmacKey, data: ciphertext))
        return Base64.encode(bytes)
    }

    // Before: "give --allow-legacy to open it anyway" with --allow-legacy given.
    @Test("a v1 key-based message opens with --key-file and --allow-legacy, in line mode and with --binary; refused without")
    func legacyKeyBased() throws {
        let message = Self.v1KeyBased("a v1 key-based plaintext")
        let keyFile = dir.file("key", Messages.keyHex + "\n")
        let text = dir.file("m.txt", message + "\n")
        let raw = dir.file("m.bin", bytes: try #require(Base64.decodeLenient(Array(message.utf8))))
        let refused = try run(["decrypt", "--no-store", "--key-file", keyFile, text])
        #expect(refused.status == 1)
        #expect(refused.errLines == ["rwsecret: \(text):1: " + LegacyCommandTests.refusal])
        let opened = try run(["decrypt", "--no-store", "--allow-legacy", "--key-file", keyFile, text])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.out == "a v1 key-based plaintext\n")
        let binary = try run(["decrypt", "--no-store", "--allow-legacy", "--key-file", keyFile, "--binary", raw])
        #expect(binary.status == 0, "\(binary.stderr)")
        #expect(binary.out == "a v1 key-based plaintext")
    }
}
