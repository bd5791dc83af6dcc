import Foundation
import Testing
import RWSecretKit

/// `decrypt --binary` and `encrypt`, end to end.
@Suite("binary mode and encrypt")
struct BinaryAndEncryptTests {
    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), password: String? = "pw") throws -> RWSecretProcess.Result {
        var extra: [String: String] = [:]
        if let password { extra["RWSECRET_PASSWORD"] = password }
        return try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    func randomBytes(_ count: Int) -> [UInt8] { Crypto.randomBytes(count: count) }

    @Test("--binary: file to OUT, file to stdout, stdin pipe to stdout", arguments: [0, 1, 16, 100_000, 3_000_001])
    func binaryRoundTrip(size: Int) throws {
        let plaintext = randomBytes(size)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let out = dir.url.appendingPathComponent("out.bin").path
        let toFile = try run(["decrypt", "--no-store", "--binary", message, "-o", out])
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(plaintext))
        let toStdout = try run(["decrypt", "--no-store", "--binary", message])
        #expect(toStdout.stdout == Data(plaintext))
        let fromPipe = try run(["decrypt", "--no-store", "--binary"], stdin: Data(Messages.raw(plaintext, "pw")))
        #expect(fromPipe.stdout == Data(plaintext))
        #expect(fromPipe.status == 0)
    }

    @Test("--binary with three candidates: one HMAC key each, one encryption key for the winner (--verbose counts keys)")
    func binaryKeyCount() throws {
        let plaintext = randomBytes(5000)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let passwords = dir.file("passwords", "wrong-1\nwrong-2\n")
        let result = try run(["decrypt", "--no-store", "--verbose", "--binary", "--password-file", passwords, message])
        #expect(result.stdout == Data(plaintext))
        #expect(result.errLines.contains("rwsecret: opened by: RWSECRET_PASSWORD"))
        #expect(result.errLines.contains("rwsecret: key derivations: 4"), "\(result.errLines)")
    }

    /// The spool of several candidates is deciphered in chunks, in place for -o (each chunk from
    /// the ciphertext block before it, read before the chunk before it is overwritten) or in order
    /// to stdout, on up to --jobs threads.
    @Test("three candidates, messages of several chunks: the exact plaintext at --jobs 1, 2, 3, -o and stdout, file and pipe",
          arguments: [(3 << 20) + 7, (5 << 20) - 1, 2 << 20])
    func binarySeveralChunksThroughTheSpool(size: Int) throws {
        let plaintext = randomBytes(size)
        let bytes = Messages.raw(plaintext, "pw")
        let message = dir.file("m.bin", bytes: bytes)
        let passwords = dir.file("passwords", "wrong-1\nwrong-2\n")
        let out = dir.url.appendingPathComponent("out.bin").path
        for jobs in ["1", "2", "3"] {
            let base = ["decrypt", "--no-store", "--jobs", jobs, "--binary", "--password-file", passwords]
            let toFile = try run(base + [message, "-o", out])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            #expect(FileManager.default.contents(atPath: out) == Data(plaintext), "-o at --jobs \(jobs)")
            let toStdout = try run(base + [message])
            #expect(toStdout.stdout == Data(plaintext), "stdout at --jobs \(jobs)")
            let fromPipe = try run(base + ["-o", out], stdin: Data(bytes))
            #expect(fromPipe.status == 0 && FileManager.default.contents(atPath: out) == Data(plaintext), "pipe -o at --jobs \(jobs)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains("rwsecret-") }.isEmpty, "no temporary file left")
    }

    @Test("a tampered --binary message leaves no OUT, keeps an existing OUT untouched, and prints nothing")
    func tampered() throws {
        var bytes = Messages.raw(randomBytes(200_000), "pw")
        bytes[100_000] ^= 0x01
        let message = dir.file("bad.bin", bytes: bytes)
        let out = dir.url.appendingPathComponent("out.bin").path
        let result = try run(["decrypt", "--no-store", "--binary", message, "-o", out])
        #expect(result.status == 1)
        #expect(result.errLines == ["rwsecret: \(message): no password opened it (tried 1)"])
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter { $0.contains("rwsecret-") }.isEmpty, "no temporary file left")
        let existing = dir.file("existing.bin", "keep me")
        _ = try run(["decrypt", "--no-store", "--binary", message, "-o", existing])
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me")
        let toStdout = try run(["decrypt", "--no-store", "--binary"], stdin: Data(bytes))
        #expect(toStdout.stdout.isEmpty)
        #expect(toStdout.errLines == ["rwsecret: -: no password opened it (tried 1)"])
    }

    /// Regression: `-o /dev/null` once renamed a regular file over /dev/null. An OUT that is
    /// not a regular file is written to, never replaced. A symlink to a file is refused (issue 32:
    /// its target, mode 0644, got the plaintext).
    @Test("-o to a FIFO writes into it; -o to a symlink is refused, its target untouched")
    func specialOutputs() throws {
        let plaintext = randomBytes(5000)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let fifo = dir.url.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        nonisolated(unsafe) var received = Data()
        let readerDone = DispatchSemaphore(value: 0)
        Thread {
            received = FileHandle(forReadingAtPath: fifo)!.readDataToEndOfFile()
            readerDone.signal()
        }.start()
        #expect(try run(["decrypt", "--no-store", "--binary", message, "-o", fifo]).status == 0)
        readerDone.wait()
        #expect(received == Data(plaintext))
        let attributes = try FileManager.default.attributesOfItem(atPath: fifo)
        #expect(attributes[.type] as? FileAttributeType != .typeRegular, "the FIFO is still a FIFO")

        let target = dir.file("target.bin", "old")
        let link = dir.url.appendingPathComponent("link.bin").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(try run(["decrypt", "--no-store", "--binary", message, "-o", link]).status == 73)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("old".utf8))
    }

    @Test("--binary errors: empty input is too short; missing file is 66; OUT in a missing folder is 73")
    func binaryErrors() throws {
        let empty = try run(["decrypt", "--no-store", "--binary"])
        #expect(empty.errLines == ["rwsecret: -: too short"])
        #expect(empty.status == 1)
        #expect(try run(["decrypt", "--no-store", "--binary", "absent.bin"]).status == 66)
        let message = dir.file("m.bin", bytes: Messages.raw([1, 2, 3], "pw"))
        let cannotCreate = try run(["decrypt", "--no-store", "--binary", message, "-o", "no/such/folder/out"])
        #expect(cannotCreate.status == 73)
    }

    @Test("encrypt: each line (blank ones included, CR dropped) becomes one base64 message that decrypts back")
    func encryptLines() throws {
        let input = "first line\n\nthird\r\nno final newline"
        let encrypted = try run(["encrypt"], stdin: Data(input.utf8))
        #expect(encrypted.status == 0)
        #expect(encrypted.outLines.count == 4)
        #expect(Set(encrypted.outLines).count == 4, "fresh salts and IV per message")
        for line in encrypted.outLines { #expect(Base64.decodeLenient(Array(line.utf8)).map { Base64.encode($0) } == line, "standard padded base64") }
        let decrypted = try run(["decrypt", "--no-store"], stdin: encrypted.stdout)
        #expect(decrypted.outLines == ["first line", "", "third", "no final newline"])
    }

    @Test("encrypt --binary streams the whole input into one raw message")
    func encryptBinary() throws {
        let plaintext = randomBytes(2_500_000)
        let source = dir.file("plain.bin", bytes: plaintext)
        let out = dir.url.appendingPathComponent("m.bin").path
        #expect(try run(["encrypt", "--binary", source, "-o", out]).status == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(try RNCryptor.decrypt(bytes, password: SecretBytes(utf8: "pw")) == plaintext)
    }

    @Test("encrypt with --key-file makes key-based messages")
    func encryptWithKey() throws {
        let key = dir.file("k", Messages.keyHex + "\n")
        let encrypted = try run(["encrypt", "--key-file", key], stdin: Data("by key\n".utf8), password: nil)
        #expect(encrypted.status == 0)
        let bytes = Base64.decodeLenient(Array(encrypted.outLines[0].utf8))!
        #expect(try RNCryptor.decrypt(bytes, keys: Messages.keys) == Array("by key".utf8))
    }

    @Test("encrypt password sources: exactly one; a password file holds exactly one password")
    func encryptPasswordSources() throws {
        let one = dir.file("one", "from-file\n")
        let two = dir.file("two", "a\nb\n")
        let fromFile = try run(["encrypt", "--password-file", one], stdin: Data("x\n".utf8), password: nil)
        #expect(fromFile.status == 0)
        let back = try RNCryptor.decrypt(Base64.decodeLenient(Array(fromFile.outLines[0].utf8))!, password: SecretBytes(utf8: "from-file"))
        #expect(back == Array("x".utf8))
        #expect(try run(["encrypt", "--password-file", two], stdin: Data("x\n".utf8)).status == 65)
        #expect(try run(["encrypt", "--password-file", one, "--password-file", one], stdin: Data("x\n".utf8)).status == 64)
        #expect(try run(["encrypt", "--password-file", one, "--ask-password"], stdin: Data("x\n".utf8)).status == 64)
        #expect(try run(["encrypt"], stdin: Data("x\n".utf8), password: nil).status == 64)
        #expect(try run(["encrypt", "-o", "x"], stdin: Data("x\n".utf8)).status == 64)
        let rejected = try run(["encrypt"], stdin: Data("x\n".utf8), password: "bad\u{7}bell")
        #expect(rejected.status == 65)
        #expect(rejected.out == "")
    }

    /// Runs where a Python with the PyPI `rncryptor` package is found: `make test` finds or
    /// installs one (scripts/pypi-python.sh, in a venv under .build/peers) and names it in
    /// RWSECRET_PYPI_PYTHON (`PeerPython`); else python3 with the package. Elsewhere skipped, saying so.
    @Test("encrypt output decrypts with the PyPI rncryptor package",
          .enabled(if: PyPI.available, "needs python3 with the PyPI rncryptor package: run `make test` (it provides one), or `pip install rncryptor`"))
    func pypiDecryptsOurOutput() throws {
        let plaintexts = ["hello", "", "unicode ☃ 中文", String(repeating: "long ", count: 500)]
        let encrypted = try run(["encrypt"], stdin: Data(plaintexts.joined(separator: "\n").utf8), password: "pypi-pw ✓")
        let file = dir.file("enc.txt", encrypted.out)
        let script = "import rncryptor,base64,sys\nfor l in open(sys.argv[1]):\n  print(rncryptor.decrypt(base64.b64decode(l), sys.argv[2]))\n"
        let output = try PyPI.run(["-c", script, file, "pypi-pw ✓"])
        #expect(output == plaintexts.joined(separator: "\n") + "\n")
    }
}

enum PyPI {
    static let available: Bool = (try? run(["-c", "import rncryptor"])) != nil

    static func run(_ args: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PeerPython.command[0])
        process.arguments = Array(PeerPython.command.dropFirst()) + args
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return String(decoding: data, as: UTF8.self)
    }
}
