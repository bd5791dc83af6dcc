import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The attacks of the hardening issue, repeated against the built binary: no
/// unverified byte released, no crash at exit, nothing left behind, no secret
/// in a dumpable process, no link followed on another user's behalf, no
/// forged output lines. Each test failed on the code before the fix.
@Suite("hardening: attacks and faults", .serialized)
struct HardeningTests {
    let dir = TemporaryFolder()

    private func environment(_ extra: [String: String] = [:]) -> [String: String] {
        RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"].merging(extra) { $1 })
    }

    private func tamperedMessage(size: Int) -> (plaintext: [UInt8], tampered: [UInt8]) {
        let plaintext = Crypto.randomBytes(count: size)
        var bytes = Messages.raw(plaintext, "pw")
        bytes[bytes.count / 2] ^= 0x01
        return (plaintext, bytes)
    }

    // MARK: 1. unverified plaintext into a FIFO or /dev/stdout

    @Test("one candidate, tampered message, -o a FIFO: the FIFO receives nothing (a valid one: the plaintext)")
    func fifoGetsNothingUnverified() throws {
        let (plaintext, tampered) = tamperedMessage(size: 20_000)
        let bad = dir.file("bad.bin", bytes: tampered)
        let good = dir.file("good.bin", bytes: Messages.raw(plaintext, "pw"))
        let fifo = dir.url.appendingPathComponent("out.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // A reader that never blocks: what arrives stays in the pipe until read below.
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let failed = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", bad, "-o", fifo], environment: environment())
        #expect(failed.status == 1)
        #expect(Self.drain(reader).isEmpty, "unverified plaintext reached the FIFO")
        let opened = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", good, "-o", fifo], environment: environment())
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(Self.drain(reader) == plaintext)
    }

    @Test("one candidate, tampered message, -o /dev/stdout: stdout receives nothing")
    func devStdoutGetsNothingUnverified() throws {
        let (plaintext, tampered) = tamperedMessage(size: 20_000)
        let bad = dir.file("bad.bin", bytes: tampered)
        let failed = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", bad, "-o", "/dev/stdout"], environment: environment())
        #expect(failed.status == 1)
        #expect(failed.stdout.isEmpty, "\(failed.stdout.count) unverified bytes reached stdout")
        let good = dir.file("good.bin", bytes: Messages.raw(plaintext, "pw"))
        let opened = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", good, "-o", "/dev/stdout"], environment: environment())
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == Data(plaintext))
    }

    // MARK: 2. the input changed while it was read

    @Test("an input changed while plaintext is being released never yields a byte the HMAC did not cover",
          arguments: [(candidates: 1, toFile: false), (candidates: 3, toFile: false), (candidates: 3, toFile: true), (candidates: 1, toFile: true)])
    func inputChangedUnderTheRun(candidates: Int, toFile: Bool) throws {
        let shim = try Shim.build(Shim.flipOnFirstWrite, named: "flip", in: dir.url)
        let plaintext = Crypto.randomBytes(count: 8 << 20)
        let bytes = Messages.raw(plaintext, "pw")
        let message = dir.file("big.bin", bytes: bytes)
        let passwords = dir.file("passwords", "wrong-1\nwrong-2\n")
        let out = dir.url.appendingPathComponent("out.bin").path
        var arguments = ["decrypt", "--no-store", "--binary", message]
        if candidates > 1 { arguments += ["--password-file", passwords] }
        if toFile { arguments += ["-o", out] }
        // Inside the ciphertext, well before the padding and the tag.
        let offset = bytes.count - 32 - 16 * 1000
        let result = try RWSecretProcess.run(arguments, environment: environment([
            "LD_PRELOAD": shim, "RWS_FLIP_FILE": message, "RWS_FLIP_OFFSET": String(offset),
        ]))
        let released = toFile ? (FileManager.default.contents(atPath: out) ?? Data()) : result.stdout
        #expect(released.isEmpty || released == Data(plaintext), "released bytes that differ from what the HMAC covered (exit \(result.status))")
        if result.status == 0 { #expect(released == Data(plaintext)) }
        if result.status != 0 {
            #expect(result.status == 74 || result.status == 1, "\(result.stderr)")
            #expect(released.isEmpty)
        }
        if result.status == 74 { #expect(result.errLines == ["rwsecret: \(message): the input changed while it was read"]) }
    }

    // MARK: 3. crash at exit: Tests/release/exit-race.sh (the race shows in the static release binary only)

    // MARK: 4. nothing left behind when killed

    @Test("SIGKILL, SIGINT, SIGTERM, SIGHUP at random points of a one-candidate -o run leave no temporary file",
          arguments: [SIGKILL, SIGINT, SIGTERM, SIGHUP])
    func killedRunsLeaveNothing(signal: Int32) throws {
        let plaintext = Crypto.randomBytes(count: 48 << 20)
        let folder = dir.url.appendingPathComponent("out-\(signal)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let message = dir.file("big-\(signal).bin", bytes: Messages.raw(plaintext, "pw"))
        let out = folder.appendingPathComponent("plain.bin").path
        var generator = SystemRandomNumberGenerator()
        for round in 0..<12 {
            let process = Process()
            process.executableURL = RWSecretProcess.executable
            process.arguments = ["decrypt", "--no-store", "--binary", message, "-o", out]
            process.environment = environment()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.runCheckingDescriptors()
            usleep(UInt32.random(in: 0...(round < 6 ? 60_000 : 250_000), using: &generator))
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(left.allSatisfy { $0 == "plain.bin" }, "left behind after signal \(signal): \(left)")
            if left.contains("plain.bin") {
                #expect(FileManager.default.contents(atPath: out) == Data(plaintext), "OUT is complete or absent")
                try FileManager.default.removeItem(atPath: out)
            }
        }
        // The temporary folder holds no spool or plaintext either.
        let tmp = try FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("tmp").path)
        #expect(tmp.isEmpty, "left in TMPDIR: \(tmp)")
    }

    // MARK: 5. not dumpable; environment secrets wiped

    @Test("the process is not dumpable, has RLIMIT_CORE 0, and RWSECRET_PASSWORD is gone from its environment")
    func noSecretInADumpableProcess() throws {
        guard getuid() == 0 else { return }  // needs to run the binary as another user (setpriv)
        let secret = "s3cret-\(UInt32.random(in: 0...UInt32.max))"
        // The binary must be reachable by `nobody`: copy it to a world-readable place.
        let copy = dir.url.appendingPathComponent("rwsecret").path
        try FileManager.default.copyItem(atPath: RWSecretProcess.executable.path, toPath: copy)
        chmod(dir.url.path, 0o755)
        chmod(copy, 0o755)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", copy, "decrypt", "--no-store"]
        process.environment = environment(["RWSECRET_PASSWORD": secret, "TMPDIR": "/tmp"])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        defer { try? input.fileHandleForWriting.close(); process.waitUntilExit() }
        // One message in; its plaintext out proves start-up is over. stdin stays open.
        input.fileHandleForWriting.write(Data((Messages.password("ready", secret) + "\n").utf8))
        var got = Data()
        while !got.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            got.append(chunk)
        }
        #expect(String(decoding: got, as: UTF8.self) == "ready\n")
        let pid = process.processIdentifier
        let proc = "/proc/\(pid)"
        let limits = (try? String(contentsOfFile: "\(proc)/limits", encoding: .utf8)) ?? ""
        let core = limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") }.map(String.init) ?? ""
        #expect(core.split(separator: " ", omittingEmptySubsequences: true).dropFirst(4).prefix(2).elementsEqual(["0", "0"]), "\(core)")
        // A non-dumpable process's /proc files belong to root, not to the user it runs as.
        var info = stat()
        #expect(stat("\(proc)/environ", &info) == 0)
        #expect(info.st_uid == 0, "/proc/PID/environ owned by \(info.st_uid): the process is dumpable")
        let environ = FileManager.default.contents(atPath: "\(proc)/environ") ?? Data()
        #expect(!environ.isEmpty)
        #expect(environ.range(of: Data(secret.utf8)) == nil, "RWSECRET_PASSWORD is still in the process's environment block")
    }

    // MARK: 6. -o and symbolic links

    @Test("-o a link planted by another user in a sticky world-writable folder: refused, the target untouched")
    func plantedLinkIsNotFollowed() throws {
        guard getuid() == 0 else { return }  // planting as another user needs root
        let message = dir.file("m.bin", bytes: Messages.raw(Array("secret plaintext".utf8), "pw"))
        let protected = dir.url.appendingPathComponent("etc")
        try FileManager.default.createDirectory(at: protected, withIntermediateDirectories: true)
        let important = protected.appendingPathComponent("important.conf").path
        _ = FileManager.default.createFile(atPath: important, contents: Data("keep\n".utf8), attributes: [.posixPermissions: 0o644])
        let shared = dir.url.appendingPathComponent("shared-tmp")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o1777)
        let link = shared.appendingPathComponent("out").path
        #expect(symlink(important, link) == 0)
        #expect(lchown(link, 65534, 65534) == 0)
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", link], environment: environment())
        #expect(result.status == 73, "\(result.stderr)")
        #expect(try String(contentsOfFile: important, encoding: .utf8) == "keep\n")
        var info = stat()
        stat(important, &info)
        #expect(info.st_mode & 0o777 == 0o644)
        var linkInfo = stat()
        #expect(lstat(link, &linkInfo) == 0 && (linkInfo.st_mode & S_IFMT) == S_IFLNK, "the link itself is left alone")
        #expect(try FileManager.default.contentsOfDirectory(atPath: protected.path) == ["important.conf"], "nothing written beside the target")
    }

    // Issue 32: it was written through, and the target kept its mode (0644) with the plaintext in it.
    @Test("-o a link of one's own: refused (73), nothing written to the target or beside it")
    func ownLinkIsRefused() throws {
        let plaintext = Array("through the link".utf8)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let elsewhere = dir.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let target = elsewhere.appendingPathComponent("target.bin").path
        _ = FileManager.default.createFile(atPath: target, contents: Data("old".utf8))
        let link = dir.url.appendingPathComponent("link.bin").path
        #expect(symlink(target, link) == 0)
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", link], environment: environment())
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.errLines == ["rwsecret: \(link): cannot create: a symbolic link (not followed: give the file it points to)"])
        #expect(FileManager.default.contents(atPath: target) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["target.bin"])
    }

    // MARK: 8. names cannot forge lines

    @Test("file names with a newline and ESC are escaped in error lines")
    func namesAreEscaped() throws {
        let name = "evil\nrwsecret: forged.txt:1: no password opened it (tried 0)\u{1B}[2J"
        let result = try RWSecretProcess.run(["decrypt", "--no-store", name], environment: environment(), directory: dir.url)
        #expect(result.status == 66)
        #expect(result.errLines.count == 1, "\(result.errLines)")
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(result.errLines.first?.hasPrefix("rwsecret: evil\\nrwsecret: forged.txt:1:") == true, "\(result.errLines)")
    }

    // MARK: --binary destinations

    @Test("-o that is the input file is refused (73) and the input is untouched; -o - writes stdout")
    func outputThatIsTheInput() throws {
        let plaintext = Array("same file".utf8)
        let bytes = Messages.raw(plaintext, "pw")
        let message = dir.file("m.bin", bytes: bytes)
        let same = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", message], environment: environment())
        #expect(same.status == 73)
        #expect(same.errLines == ["rwsecret: \(message): cannot create: it is the input file"])
        #expect(FileManager.default.contents(atPath: message) == Data(bytes))
        let dash = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", "-"], environment: environment(), directory: dir.url)
        #expect(dash.status == 0)
        #expect(dash.stdout == Data(plaintext))
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("-").path), "-o - created a file named -")
    }

    @Test("--binary on base64 text says so")
    func base64TextInBinaryMode() throws {
        let message = dir.file("m.txt", Messages.password("hello", "pw") + "\n")
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message], environment: environment())
        #expect(result.status == 1)
        #expect(result.errLines == ["rwsecret: \(message): base64 text, not a raw message (drop --binary)"])
    }

    @Test("--binary with no -o refuses a terminal stdout (64); -o - insists")
    func binaryRefusesATerminal() throws {
        let message = dir.file("m.bin", bytes: Messages.raw(Array("raw bytes".utf8), "pw"))
        let refused = try PseudoTerminal.converse(["decrypt", "--no-store", "--binary", message], environment: environment(), answers: [])
        #expect(refused.status == 64, "\(refused.screen)")
        #expect(refused.screen.contains("refusing to write raw plaintext to a terminal"))
        #expect(!refused.screen.contains("raw bytes"))
        let insisted = try PseudoTerminal.converse(["decrypt", "--no-store", "--binary", message, "-o", "-"], environment: environment(), answers: [])
        #expect(insisted.status == 0)
        #expect(insisted.screen.contains("raw bytes"))
    }

    // MARK: helpers

    /// Everything readable now from a non-blocking descriptor.
    static func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            all += buffer[0..<n]
        }
        return all
    }
}
