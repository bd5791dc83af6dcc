import Foundation
import Testing
import RWSecretKit

/// `decrypt --binary` to stdout (issue 36): verified plaintext waits in a private file, and is then
/// moved to stdout by the kernel (`copy_file_range` to a regular file, `splice` to a pipe,
/// `sendfile` elsewhere), never through a buffer of this process, and never before it verifies.
@Suite("decrypt --binary to stdout: moved by the kernel once verified")
struct StdoutMoveTests {
    let dir = TemporaryFolder()
    static let size = 8 << 20

    static var strace: String? { PrivateKeyring.executable("strace") }

    /// Random plaintext of `size` bytes.
    func plaintext() -> String { dir.file("plain", bytes: Crypto.randomBytes(count: Self.size)) }

    /// Runs `script` under /bin/sh with `arguments` as $1…, in the test folder.
    func shell(_ script: String, _ arguments: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(["-c", script, "sh"] + arguments, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: [:]),
                                directory: dir.url, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// The three kinds that spool their plaintext: an RNCryptor message (one password), an age file
    /// (an X25519 identity), a `gpg -c` message. Returns the message and the options that open it.
    func message(_ kind: String, plain: String) throws -> (file: String, options: [String]) {
        switch kind {
        case "rncryptor":
            let bytes = RNCryptor.encrypt(Array(try Data(contentsOf: URL(fileURLWithPath: plain))), password: SecretBytes(utf8: "pw"))
            return (dir.file("m.rncryptor", bytes: bytes), ["--password-file", dir.file("passwords", "pw\n")])
        case "age":
            try #require(PrivateKeyring.executable("age") != nil, "age is not installed (make test installs it)")
            let made = try shell("age-keygen -o key.txt 2>/dev/null && age -r \"$(age-keygen -y key.txt)\" -o m.age \"$1\"", [plain])
            try #require(made.status == 0, "\(made.stderr)")
            chmod(dir.url.appendingPathComponent("key.txt").path, 0o600)
            return (dir.url.appendingPathComponent("m.age").path, ["--identity", dir.url.appendingPathComponent("key.txt").path])
        default:
            let passphrase = dir.file("passphrase", "pass ✓")
            chmod(passphrase, 0o600)
            let home = dir.url.appendingPathComponent("gnupg").path
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let made = try shell("gpg --homedir \"$1\" --batch --yes --pinentry-mode loopback --passphrase-fd 3 --s2k-count 65536 --compress-algo none -o m.gpg -c \"$2\" 3<\"$3\"; s=$?; gpgconf --homedir \"$1\" --kill gpg-agent; exit $s",
                                 [home, plain, passphrase])
            try #require(made.status == 0, "\(made.stderr)")
            return (dir.url.appendingPathComponent("m.gpg").path, ["--password-file", dir.file("passwords", "pass ✓\n")])
        }
    }

    /// From an strace log: the bytes the kernel moved to fd 1 (copy_file_range, splice, sendfile)
    /// and those written to fd 1 from a buffer (write and its kin), by system call.
    static func tally(_ trace: String) -> (moved: [String: Int], written: Int) {
        var moved: [String: Int] = [:], written = 0
        for line in trace.split(separator: "\n") {
            // "PID NAME(ARGS) = RESULT"
            let call = line.drop { $0.isNumber || $0 == " " }
            guard let open = call.firstIndex(of: "("), let equals = call.range(of: " = ", options: .backwards) else { continue }
            let name = String(call[..<open])
            let result = max(0, Int(call[equals.upperBound...].prefix { $0.isNumber || $0 == "-" }) ?? 0)
            let arguments = call[call.index(after: open)...].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // The descriptor written to: copy_file_range's and splice's third argument, the others' first.
            let target = ["copy_file_range", "splice"].contains(name) ? (arguments.count > 2 ? arguments[2] : "") : (arguments.first ?? "")
            guard target == "1" else { continue }
            if ["copy_file_range", "splice", "sendfile"].contains(name) { moved[name, default: 0] += result }
            if ["write", "writev", "pwrite64", "pwritev", "pwritev2"].contains(name) { written += result }
        }
        return (moved, written)
    }

    @Test("to a regular file (> OUT) the plaintext goes by copy_file_range, to a pipe by splice; nothing larger than 64 KiB is written from a buffer (strace)",
          .enabled(if: strace != nil, "strace is not installed (make test installs it)"),
          arguments: ["rncryptor", "age", "openpgp"])
    func movedByTheKernel(_ kind: String) throws {
        let plain = plaintext()
        let (file, options) = try message(kind, plain: plain)
        let expected = try Data(contentsOf: URL(fileURLWithPath: plain))
        let arguments = [Self.strace!, RWSecretProcess.executable.path, file] + options
        // $1 strace, $2 rwsecret, $3 the message, $4… the options.
        let toFile = try shell("s=$1 r=$2 m=$3; shift 3; exec \"$s\" -f -o trace-file -e trace=write,writev,pwrite64,pwritev,pwritev2,sendfile,copy_file_range,splice \"$r\" decrypt --no-store --binary \"$@\" \"$m\" > out",
                               arguments)
        #expect(toFile.status == 0, "\(toFile.stderr)")
        let same = try Data(contentsOf: dir.url.appendingPathComponent("out")) == expected  // a Bool: a diff of 8 MiB would take hours
        #expect(same, "the output differs from the plaintext")
        let file1 = Self.tally(try String(contentsOfFile: dir.url.appendingPathComponent("trace-file").path, encoding: .utf8))
        #expect(file1.moved["copy_file_range"] == Self.size, "\(file1)")
        #expect(file1.written < 1 << 16, "\(file1)")

        let toPipe = try shell("s=$1 r=$2 m=$3; shift 3; exec \"$s\" -f -o trace-pipe -e trace=write,writev,pwrite64,pwritev,pwritev2,sendfile,copy_file_range,splice \"$r\" decrypt --no-store --binary \"$@\" \"$m\"",
                               arguments)
        #expect(toPipe.status == 0, "\(toPipe.stderr)")
        let samePiped = toPipe.stdout == expected
        #expect(samePiped, "stdout (\(toPipe.stdout.count) bytes) differs from the plaintext")
        let pipe = Self.tally(try String(contentsOfFile: dir.url.appendingPathComponent("trace-pipe").path, encoding: .utf8))
        #expect(pipe.moved["splice"] == Self.size, "\(pipe)")
        #expect(pipe.written < 1 << 16, "\(pipe)")
    }

    @Test("stdout opened for appending (>> OUT), which copy_file_range and sendfile refuse: the plaintext follows what was there (read and write)",
          arguments: ["rncryptor", "age"])
    func appended(_ kind: String) throws {
        let plain = plaintext()
        let (file, options) = try message(kind, plain: plain)
        let out = dir.file("out", "before\n")
        let result = try shell("r=$1 m=$2 o=$3; shift 3; exec \"$r\" decrypt --no-store --binary \"$@\" \"$m\" >> \"$o\"",
                               [RWSecretProcess.executable.path, file, out] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let same = try Data(contentsOf: URL(fileURLWithPath: out)) == Data("before\n".utf8) + (try Data(contentsOf: URL(fileURLWithPath: plain)))
        #expect(same, "OUT is not what was there followed by the plaintext")
    }

    @Test("a byte changed in the last MiB: nothing reaches stdout, a file or a pipe; one line, status 1",
          arguments: ["rncryptor", "age", "openpgp"])
    func tamperedReleasesNothing(_ kind: String) throws {
        let plain = plaintext()
        let (file, options) = try message(kind, plain: plain)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        bytes[bytes.count - 5000] ^= 0x08
        let tampered = dir.file("tampered", bytes: bytes)
        let toFile = try shell("r=$1 m=$2; shift 2; exec \"$r\" decrypt --no-store --binary \"$@\" \"$m\" > out-tampered",
                               [RWSecretProcess.executable.path, tampered] + options)
        #expect(toFile.status == 1, "\(toFile.stderr)")
        #expect(toFile.errLines.count == 1, "\(toFile.errLines)")
        let empty = try Data(contentsOf: dir.url.appendingPathComponent("out-tampered")).isEmpty
        #expect(empty, "something reached stdout")
        let toPipe = try shell("r=$1 m=$2; shift 2; exec \"$r\" decrypt --no-store --binary \"$@\" \"$m\"", [RWSecretProcess.executable.path, tampered] + options)
        let nothing = toPipe.stdout.isEmpty
        #expect(toPipe.status == 1 && nothing, "\(toPipe.stdout.count) bytes on stdout: \(toPipe.stderr)")
    }
}
