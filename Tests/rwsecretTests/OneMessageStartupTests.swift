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

    /// The system calls of `rwsecret decrypt OPTIONS --password-file PW MSG` (all threads) that
    /// start a thread or a process, and its stdout.
    func threadsStarted(_ options: [String]) throws -> (calls: [String], out: String) {
        let pw = dir.file("pw", "right\n")
        let env = RWSecretProcess.environment(home: dir.url)
        let message = try RWSecretProcess.run(["encrypt", "--password-file", pw], stdin: Data("a small secret\n".utf8), environment: env)
        #expect(message.status == 0, "\(message.stderr)")
        let file = dir.file("msg", bytes: Array(message.stdout))
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
}
