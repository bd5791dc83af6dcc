import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Where `decrypt --binary` output and its temporary files go, round three of the
/// hardening issue (21): FIFOs and files planted by another user, the `rename` window,
/// filesystems without `O_TMPFILE`, `-o` onto a file the run uses, closed standard
/// descriptors and a full `$TMPDIR`. Each test failed on the code before the fix.
@Suite("hardening: output destinations and temporary files", .serialized)
struct OutputDestinationTests {
    let dir = TemporaryFolder()

    private func environment(_ extra: [String: String] = [:]) -> [String: String] {
        RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_PASSWORD": "pw"].merging(extra) { $1 })
    }

    private func folder(_ name: String) throws -> String {
        let path = dir.path + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    // MARK: 1. FIFOs and files planted by another user

    @Test("-o a FIFO or file another user planted in a sticky world-writable folder: refused (73), nothing written",
          .enabled(if: getuid() == 0, "needs root, to create a second user and plant as that user"))
    func plantedFifoAndFile() throws {
        let mallory = try SecondUser.name()
        let plaintext = Array("the plaintext mallory wants".utf8)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        chmod(dir.path, 0o755)
        let sticky = try folder("sticky")
        chmod(sticky, 0o1777)
        let fifo = sticky + "/out.fifo"
        #expect(try SecondUser.run(mallory, ["mkfifo", "-m", "666", fifo]) == 0)
        // Reading as the mallory would (a reader that never blocks, so the test cannot hang).
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        #expect(reader >= 0)
        defer { close(reader) }
        let toFifo = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", fifo], environment: environment())
        #expect(toFifo.status == 73, "\(toFifo.stderr)")
        #expect(toFifo.errLines == ["rwsecret: \(fifo): cannot create: a FIFO or file owned by another user in a sticky world-writable folder (not written)"])
        #expect(HardeningTests.drain(reader).isEmpty, "the planted FIFO received the plaintext")
        // encrypt -o applies the same rule.
        let encrypted = try RWSecretProcess.run(["encrypt", "--binary", dir.file("plain", "to encrypt"), "-o", fifo], environment: environment())
        #expect(encrypted.status == 73, "\(encrypted.stderr)")
        #expect(HardeningTests.drain(reader).isEmpty, "the planted FIFO received the message")

        let file = sticky + "/out.bin"
        #expect(try SecondUser.run(mallory, ["sh", "-c", "echo planted > \"$1\" && chmod 666 \"$1\"", "sh", file]) == 0)
        let toFile = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", file], environment: environment())
        #expect(toFile.status == 73, "\(toFile.stderr)")
        #expect(FileManager.default.contents(atPath: file) == Data("planted\n".utf8))
        var info = stat()
        #expect(stat(file, &info) == 0 && info.st_uid != 0, "the planted file was replaced")

        // One's own file in the same folder is written as usual.
        let own = sticky + "/own.bin"
        let mine = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", own], environment: environment())
        #expect(mine.status == 0, "\(mine.stderr)")
        #expect(FileManager.default.contents(atPath: own) == Data(plaintext))
        #expect(entries(sticky) == ["out.bin", "out.fifo", "own.bin"])
    }

    // MARK: 4. SIGKILL in the rename window

    @Test("SIGKILL at rename: with no OUT there is no rename (linked straight to OUT); replacing OUT, the next run sweeps the hidden name")
    func killAtRename() throws {
        let shim = try Shim.build(Self.killAtRename, named: "kill-at-rename", in: dir.url)
        let plaintext = Crypto.randomBytes(count: 300_000)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let outFolder = try folder("out")
        let out = outFolder + "/plain.bin"
        let killing = environment(["LD_PRELOAD": shim])

        // OUT does not exist: the unnamed file is linked as OUT itself; no other name, no rename.
        let fresh = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", out], environment: killing)
        #expect(entries(outFolder) == ["plain.bin"], "left beside OUT after a SIGKILL at rename (exit \(fresh.status))")
        #expect(fresh.status == 0, "\(fresh.stderr)")
        #expect(FileManager.default.contents(atPath: out) == Data(plaintext))

        // OUT exists: linkat cannot replace it, so the hidden name and the rename remain, and a
        // SIGKILL between them leaves the hidden name (the kernel cannot help).
        let old = Data("the old OUT".utf8)
        #expect(FileManager.default.createFile(atPath: out, contents: old))
        let killed = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", out], environment: killing)
        #expect(killed.status != 0)
        #expect(FileManager.default.contents(atPath: out) == old, "OUT is untouched until the rename")
        let left = entries(outFolder).filter { $0 != "plain.bin" }
        #expect(left.count == 1 && left.allSatisfy { $0.hasPrefix(".rwsecret-") }, "\(left)")
        // The next run into the folder (any OUT there) removes what the killed one left.
        let next = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", outFolder + "/other.bin"], environment: environment())
        #expect(next.status == 0, "\(next.stderr)")
        #expect(entries(outFolder) == ["other.bin", "plain.bin"], "the killed run's hidden plaintext is still there")
    }

    @Test("the sweep leaves alone the hidden name of a live run (its lock is held) and files that are not ours")
    func sweepSparesLiveRunsAndOthers() throws {
        let outFolder = try folder("sweep")
        // A live run's hidden name: its private file's lock is held (here, by this process).
        let live = outFolder + "/.rwsecret-CCCCCCCCCCCC"
        #expect(FileManager.default.createFile(atPath: live, contents: Data("live".utf8)))
        let liveFD = open(live, O_RDONLY | O_CLOEXEC)
        defer { close(liveFD) }
        #expect(flock(liveFD, LOCK_EX) == 0)
        // A stale one of ours (nobody holds its lock), and look-alikes that are not ours to remove.
        #expect(FileManager.default.createFile(atPath: outFolder + "/.rwsecret-AAAAAAAAAAAA", contents: Data("stale".utf8)))
        #expect(FileManager.default.createFile(atPath: outFolder + "/.rwsecret-notours.txt", contents: Data("keep".utf8)))
        let linked = outFolder + "/.rwsecret-BBBBBBBBBBBB"
        #expect(FileManager.default.createFile(atPath: linked, contents: Data("two links".utf8)))
        #expect(link(linked, outFolder + "/second-link") == 0)
        #expect(mkdir(outFolder + "/.rwsecret-DDDDDDDDDDDD", 0o700) == 0)
        let message = dir.file("m.bin", bytes: Messages.raw(Array("x".utf8), "pw"))
        let run = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message, "-o", outFolder + "/plain.bin"], environment: environment())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(entries(outFolder) == [".rwsecret-BBBBBBBBBBBB", ".rwsecret-CCCCCCCCCCCC", ".rwsecret-DDDDDDDDDDDD", ".rwsecret-notours.txt", "plain.bin", "second-link"])
    }

    // MARK: 5. filesystems without O_TMPFILE (FUSE)

    @Test("-o on a FUSE mount without O_TMPFILE (bindfs): refused before anything is written; a SIGKILL leaves no plaintext",
          .enabled(if: FuseMount.available, Comment(rawValue: FuseMount.skipReason)))
    func fuseWithoutTmpfile() throws {
        let backing = try folder("backing")
        let mount = try FuseMount(bindfs: backing, at: try folder("fuse"))
        defer { mount.unmount() }
        #expect(!PrivateFile.canBeUnnamed(in: mount.path), "bindfs now has O_TMPFILE: this test no longer tests the fallback")
        // Tampered, so that a run that wrote plaintext before the HMAC check would have
        // written all of it by the time it fails.
        var bytes = Messages.raw(Crypto.randomBytes(count: 24 << 20), "pw")
        bytes[bytes.count / 2] ^= 1
        let message = dir.file("big.bin", bytes: bytes)
        let out = mount.path + "/plain.bin"
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = ["decrypt", "--no-store", "--binary", message, "-o", out]
        process.environment = environment()
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.runCheckingDescriptors()
        // Killed as soon as anything shows in the folder (the fallback's named temporary did at once).
        while process.isRunning && entries(backing).isEmpty { usleep(1000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(entries(backing).isEmpty, "left on the FUSE mount: \(entries(backing))")
        #expect(process.terminationReason == .exit && process.terminationStatus == 73, "\(stderr)")
        #expect(stderr == "rwsecret: \(out): \(Self.noUnnamedFiles)\n")
        // stdout still works from there (its private file is in $TMPDIR).
        let good = dir.file("good.bin", bytes: Messages.raw(Array("fine".utf8), "pw"))
        let viaStdout = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", good], environment: environment())
        #expect(viaStdout.status == 0 && viaStdout.stdout == Data("fine".utf8))
    }

    static let noUnnamedFiles = "cannot create: its folder's filesystem cannot make unnamed files (O_TMPFILE), and a killed run would leave plaintext there under a temporary name; write OUT on another filesystem, or to stdout"

    // MARK: 8. -o onto a file the run uses

    @Test("-o that is the vault, its lock, the keyring's lock, the key file, a password file or a --password-fd file: refused (73), untouched")
    func outputThatTheRunUses() throws {
        let vault = dir.path + "/vault"
        var env = environment(["RWSECRET_VAULT": vault, "RWSECRET_VAULT_PASSPHRASE": "vault passphrase"])
        env["RWSECRET_PASSWORD"] = nil
        let added = try RWSecretProcess.run(["password", "add", "work"], stdin: Data("pw".utf8), environment: env)
        #expect(added.status == 0, "\(added.stderr)")
        let message = dir.file("m.bin", bytes: Messages.raw(Array("secret".utf8), "pw"))
        let keyed = dir.file("k.bin", bytes: RNCryptor.encrypt(Array("keyed".utf8), keys: Messages.keys))
        let keyFile = dir.file("key", Messages.keyHex + "\n")
        let passwords = dir.file("passwords", "pw\n")
        let keyringLock = dir.path + "/run/rwsecret.lock"
        #expect(FileManager.default.createFile(atPath: keyringLock, contents: Data()))
        let vaultLink = dir.path + "/vault-link"
        #expect(symlink(vault, vaultLink) == 0)
        let cases: [(out: String, what: String, arguments: [String])] = [
            (vault, "the vault", [message]),
            (vaultLink, "the vault", [message]),
            (vault + ".lock", "the vault's lock file", [message]),
            (keyringLock, "the keyring's lock file", [message]),
            (keyFile, "the key file", ["--key-file", keyFile, keyed]),
            (passwords, "a password file", ["--password-file", passwords, message]),
        ]
        for (out, what, arguments) in cases {
            #expect(FileManager.default.fileExists(atPath: out), "\(out)")
            let before = FileManager.default.contents(atPath: out)
            let result = try RWSecretProcess.run(["decrypt", "--binary", "-o", out] + arguments, environment: env)
            #expect(result.status == 73, "-o \(what): \(result.stderr)")
            #expect(result.errLines == ["rwsecret: \(out): cannot create: it is \(what)"])
            #expect(FileManager.default.contents(atPath: out) == before, "-o \(what) changed it")
        }
        // --password-fd: its file, opened by the shell.
        let script = "exec 3<\"$1\"; exec \"$0\" decrypt --no-store --binary --password-fd 3 -o \"$1\" \"$2\""
        let fd = try RWSecretProcess.run(["-c", script, RWSecretProcess.executable.path, passwords, message],
                                         environment: environment(), executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(fd.status == 73, "\(fd.stderr)")
        #expect(fd.errLines == ["rwsecret: \(passwords): cannot create: it is the file of --password-fd 3"])
        #expect(FileManager.default.contents(atPath: passwords) == Data("pw\n".utf8))
        // encrypt -o: never over its key or password file (nor the vault) either.
        let plain = dir.file("plain", "to encrypt")
        for (out, what, arguments) in [(keyFile, "the key file", ["--key-file", keyFile]), (passwords, "a password file", ["--password-file", passwords]),
                                       (vault, "the vault", ["--password-file", passwords])] {
            let before = FileManager.default.contents(atPath: out)
            let result = try RWSecretProcess.run(["encrypt", "--binary", plain, "-o", out] + arguments, environment: env)
            #expect(result.status == 73, "encrypt -o \(what): \(result.stderr)")
            #expect(result.errLines == ["rwsecret: \(out): cannot create: it is \(what)"])
            #expect(FileManager.default.contents(atPath: out) == before, "encrypt -o \(what) changed it")
        }
        // The vault still opens with its password.
        let stillThere = try RWSecretProcess.run(["password", "list"], environment: environment(["RWSECRET_VAULT": vault, "RWSECRET_VAULT_PASSPHRASE": "vault passphrase"]))
        #expect(stillThere.outLines == ["work"], "\(stillThere.stderr)")
    }

    // MARK: 9. closed standard descriptors

    @Test("stdout closed (>&-): --binary fails with 74 \"stdout is closed\" and writes nothing anywhere; line mode stays 74; closed stdin is EBADF")
    func closedDescriptors() throws {
        let plaintext = Crypto.randomBytes(count: 5000)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let sh = URL(fileURLWithPath: "/bin/sh")
        let binary = RWSecretProcess.executable.path
        func shell(_ script: String, _ arguments: String...) throws -> RWSecretProcess.Result {
            try RWSecretProcess.run(["-c", script, binary] + arguments, environment: environment(), directory: dir.url, executable: sh)
        }
        // The case: the message on stdin, stdout closed.
        let fromStdin = try shell("exec \"$0\" decrypt --no-store --binary < \"$1\" >&-", message)
        #expect(fromStdin.status == 74, "\(fromStdin.stderr)")
        #expect(fromStdin.errLines == ["rwsecret: -: stdout is closed"])
        // The input file would otherwise take fd 1.
        let fromFile = try shell("exec \"$0\" decrypt --no-store --binary \"$1\" >&-", message)
        #expect(fromFile.status == 74)
        #expect(fromFile.errLines == ["rwsecret: -: stdout is closed"])
        let devStdout = try shell("exec \"$0\" decrypt --no-store --binary \"$1\" -o /dev/stdout >&-", message)
        #expect(devStdout.status == 74)
        #expect(devStdout.errLines == ["rwsecret: -: stdout is closed"])
        // -o a file does not need stdout.
        let toFile = try shell("exec \"$0\" decrypt --no-store --binary \"$1\" -o out.bin >&-", message)
        #expect(toFile.status == 0, "\(toFile.stderr)")
        #expect(FileManager.default.contents(atPath: dir.path + "/out.bin") == Data(plaintext))
        // encrypt --binary alike.
        let encrypted = try shell("exec \"$0\" encrypt --binary \"$1\" >&-", message)
        #expect(encrypted.status == 74)
        #expect(encrypted.errLines == ["rwsecret: -: stdout is closed"])
        // Line mode: still 74.
        let text = dir.file("m.txt", Messages.password("hello", "pw") + "\n")
        let lines = try shell("exec \"$0\" decrypt --no-store \"$1\" >&-", text)
        #expect(lines.status == 74)
        #expect(lines.errLines == ["rwsecret: stdout: Bad file descriptor"])
        // Closed stdin: read as the closed descriptor it is, not as an empty /dev/null.
        let noStdin = try shell("exec \"$0\" decrypt --no-store --binary <&-")
        #expect(noStdin.status == 74)
        #expect(noStdin.errLines == ["rwsecret: -: Bad file descriptor"])
        #expect(noStdin.stdout.isEmpty)
        // Nothing left in TMPDIR by any of them.
        #expect(entries(dir.path + "/tmp").isEmpty)
    }

    // MARK: closing note: a full TMPDIR

    @Test("with TMPDIR full, the error names the temporary folder, not stdout",
          .enabled(if: getuid() == 0, "needs root, to mount a small tmpfs as TMPDIR"))
    func fullTemporaryFolder() throws {
        let small = try folder("small-tmp")
        let mounted = Process()
        mounted.executableURL = URL(fileURLWithPath: "/bin/mount")
        mounted.arguments = ["-t", "tmpfs", "-o", "size=1m", "tmpfs", small]
        try mounted.runCheckingDescriptors()
        mounted.waitUntilExit()
        try #require(mounted.terminationStatus == 0, "cannot mount a tmpfs here")
        defer { _ = umount(small) }
        let message = dir.file("m.bin", bytes: Messages.raw(Crypto.randomBytes(count: 4 << 20), "pw"))
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", message], environment: environment(["TMPDIR": small]))
        #expect(result.status == 74)
        #expect(result.errLines == ["rwsecret: \(small): the temporary file (TMPDIR) that holds the message until it is verified: No space left on device"])
        #expect(result.stdout.isEmpty)
    }

    // MARK: helpers

    /// Raises SIGKILL on entering rename(2) (any of its three calls): the moment between
    /// the hidden name's `linkat` and the `rename` over OUT.
    static let killAtRename = """
        #define _GNU_SOURCE
        #include <signal.h>
        #include <stdio.h>
        int rename(const char *from, const char *to) { (void)from; (void)to; raise(SIGKILL); return -1; }
        int renameat(int a, const char *from, int b, const char *to) { (void)a; (void)from; (void)b; (void)to; raise(SIGKILL); return -1; }
        int renameat2(int a, const char *from, int b, const char *to, unsigned flags) {
            (void)a; (void)from; (void)b; (void)to; (void)flags; raise(SIGKILL); return -1;
        }
        """
}

/// A second user for attacks that need one (made once with useradd, as root).
enum SecondUser {
    private static let user = "rwsecret-mallory"
    private static let lock = NSLock()

    /// The user's name; creates it when it does not exist yet.
    static func name() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if getpwnam(user) == nil {
            let status = try command("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user])
            guard status == 0 || getpwnam(user) != nil else { throw SecondUserError.cannotCreate }
        }
        return user
    }

    /// Runs `arguments` as `user` (runuser); returns the exit status.
    static func run(_ user: String, _ arguments: [String]) throws -> Int32 {
        try command("/usr/sbin/runuser", ["-u", user, "--"] + arguments)
    }

    private static func command(_ path: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        try process.runCheckingDescriptors()
        process.waitUntilExit()
        return process.terminationStatus
    }

    enum SecondUserError: Error { case cannotCreate }
}

/// A bindfs (FUSE) mount, whose filesystem has no `O_TMPFILE`.
///
/// bindfs runs in the foreground (`-f`), a child of the test until unmounted: a
/// daemonised one keeps Foundation's process-exit socket open, and waiting for it
/// never ends.
final class FuseMount {
    let path: String
    private let process = Process()

    /// Whether a FUSE mount can be made here: /dev/fuse, bindfs (TEST_APT_PACKAGES) and root.
    static var available: Bool {
        FileManager.default.fileExists(atPath: "/dev/fuse") && FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs") && getuid() == 0
    }

    static var skipReason: String {
        if !FileManager.default.fileExists(atPath: "/dev/fuse") { return "no /dev/fuse here (a container without FUSE): the FUSE test cannot run" }
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/bindfs") { return "bindfs is not installed (make test installs it)" }
        return "needs root to mount with bindfs"
    }

    /// Mounts `source` at `mountPoint`; returns once the mount is there.
    init(bindfs source: String, at mountPoint: String) throws {
        path = mountPoint
        process.executableURL = URL(fileURLWithPath: "/usr/bin/bindfs")
        process.arguments = ["-f", source, mountPoint]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        // Mounted when the mount point's device differs from its parent's (bounded: a
        // bindfs that never mounts fails the test, it does not hang it).
        for _ in 0..<3000 where process.isRunning {
            var point = stat(), parent = stat()
            if stat(mountPoint, &point) == 0, stat(mountPoint + "/..", &parent) == 0, point.st_dev != parent.st_dev { return }
            usleep(10_000)
        }
        unmount()
        throw MountError.failed
    }

    /// Unmounts (bindfs then exits) and waits for bindfs.
    func unmount() {
        _ = umount2(path, Int32(MNT_DETACH))
        if process.isRunning { process.waitUntilExit() }
    }

    enum MountError: Error { case failed }
}
