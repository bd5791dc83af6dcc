import Foundation
import Testing

/// What a one-message decrypt does at start (issue 36, item 4: "nothing a one-message RNCryptor
/// run does not need"), counted with strace, not timed. A run that opens no store starts no
/// thread: OpenSSL's set-up happens on first use, on the main thread. It was started on a
/// thread of its own while the arguments were parsed (clone3, a stack and a malloc arena, about
/// 20 page faults) to overlap 0.2 M instructions. A run that may open the keyring keeps that
/// thread beside its warm-up (KeyringWarmUp), where the main thread waits for the bus anyway.
@Suite("decrypt: a one-message run's start-up", .enabled(if: StdoutMoveTests.strace != nil, "strace is not installed (make test installs it)"))
struct OneMessageStartupTests {
    let dir = TemporaryFolder()

    /// A password file, a one-line message `rwsecret encrypt` made with it, and the environment.
    func smallMessage() throws -> (pw: String, file: String, env: [String: String]) {
        let pw = dir.file("pw", "right\n")
        let env = RWSecretProcess.environment(home: dir.url)
        let message = try RWSecretProcess.run(["encrypt", "--password-file", pw], stdin: Data("a small secret\n".utf8), environment: env)
        #expect(message.status == 0, "\(message.stderr)")
        return (pw, dir.file("msg", bytes: Array(message.stdout)), env)
    }

    /// The system calls of `rwsecret decrypt OPTIONS --password-file PW MSG` (all threads) that
    /// start a thread or a process, and its stdout.
    func threadsStarted(_ options: [String]) throws -> (calls: [String], out: String) {
        let (pw, file, env) = try smallMessage()
        let trace = dir.url.appendingPathComponent("trace").path
        let result = try RWSecretProcess.run(["-f", "-o", trace, "-e", "trace=clone,clone3,fork,vfork", RWSecretProcess.executable.path, "decrypt"]
                                             + options + ["--password-file", pw, file],
                                             environment: env, directory: dir.url, executable: URL(fileURLWithPath: StdoutMoveTests.strace!))
        #expect(result.status == 0, "\(result.stderr)")
        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            .filter { line in ["clone(", "clone3(", "fork(", "vfork("].contains { line.contains($0) } }.map(String.init)
        return (calls, result.out)
    }

    @Test("--no-store, --jobs 2: one message opens on the main thread alone (no clone3)")
    func noThreadAtJobsTwo() throws {
        let (calls, out) = try threadsStarted(["--no-store", "--jobs", "2"])
        #expect(out == "a small secret\n")
        #expect(calls.isEmpty, "\(calls)")
    }

    @Test("--no-store, the default --jobs (this machine's CPUs): no thread either")
    func noThreadAtDefaultJobs() throws {
        let (calls, out) = try threadsStarted(["--no-store"])
        #expect(out == "a small secret\n")
        #expect(calls.isEmpty, "\(calls)")
    }

    // Not strace's: an LD_PRELOAD shim (Tests/release/big-allocations.c) records each large
    // allocation. A Swift [UInt8] of 64 KiB is 65,568 bytes (its 32-byte header included).
    @Test("a one-message decrypt makes two 64 KiB buffers, the line reader's and stdout's (before: four; a zeroed chunk read the password file, and the reader's buffer was copied on its first read)",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "no C compiler for the shim"))
    func largeBuffers() throws {
        let shim = try Shim.buildRelease("big-allocations", in: dir.url)
        let (pw, file, env) = try smallMessage()
        let log = dir.url.appendingPathComponent("allocations").path
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", pw, file],
                                             environment: env.merging(["LD_PRELOAD": shim, "RWS_BIG_ALLOCATIONS": log]) { $1 }, directory: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "a small secret\n")
        let sizes = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
        let buffers = sizes.filter { (65_536...65_600).contains($0) }
        #expect(buffers.count == 2, "\(sizes)")
    }
}

