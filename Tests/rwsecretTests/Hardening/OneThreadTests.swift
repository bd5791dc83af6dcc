import Foundation
import Testing
import RWSecretKit

/// `--jobs 1` is one thread: no Dispatch worker, no OpenSSL set-up thread, in every shape
/// of `decrypt --binary` and in line mode. Counted by an `LD_PRELOAD` shim on
/// `pthread_create` (Shim.countThreads), so the figure does not depend on timing.
@Suite("--jobs 1 is one thread", .serialized)
struct OneThreadTests {
    let dir = TemporaryFolder()

    /// Runs `arguments` (stdin from `stdin` when given) under the shim; returns the result
    /// and how many threads the process started.
    private func threads(_ arguments: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> (RWSecretProcess.Result, Int) {
        let shim = try Shim.build(Shim.countThreads, named: "threads", in: dir.url)
        let log = dir.url.appendingPathComponent("threads-\(UUID().uuidString).log").path
        let environment = RWSecretProcess.environment(home: dir.url, extra: [
            "RWSECRET_PASSWORD": "pw", "LD_PRELOAD": shim, "RWS_THREAD_LOG": log,
        ].merging(extra) { $1 })
        let result = try RWSecretProcess.run(arguments, stdin: stdin, environment: environment, directory: dir.url)
        let lines = (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
        return (result, lines)
    }

    @Test("decrypt --binary --jobs 1: no thread started, one or three candidates, file or pipe, -o FILE or stdout",
          arguments: [(candidates: 1, pipe: false, toFile: true), (candidates: 3, pipe: false, toFile: true),
                      (candidates: 1, pipe: true, toFile: false), (candidates: 3, pipe: true, toFile: false),
                      (candidates: 3, pipe: false, toFile: false), (candidates: 3, pipe: true, toFile: true)])
    func binaryJobsOne(candidates: Int, pipe: Bool, toFile: Bool) throws {
        let plaintext = Crypto.randomBytes(count: 3 << 20)
        let bytes = Messages.raw(plaintext, "pw")
        let message = dir.file("m.bin", bytes: bytes)
        let out = dir.url.appendingPathComponent("out.bin").path
        var arguments = ["decrypt", "--no-store", "--jobs", "1", "--binary"]
        if candidates > 1 { arguments += ["--password-file", dir.file("passwords", "wrong-1\nwrong-2\n")] }
        if !pipe { arguments.append(message) }
        if toFile { arguments += ["-o", out] }
        let (result, count) = try threads(arguments, stdin: pipe ? Data(bytes) : Data())
        #expect(result.status == 0, "\(result.stderr)")
        let released = toFile ? FileManager.default.contents(atPath: out) : result.stdout
        #expect(released == Data(plaintext))
        #expect(count == 0, "--jobs 1 started \(count) thread(s)")
    }

    @Test("RWSECRET_JOBS=1 is one thread too; --jobs 2 does start threads (the shim counts them)")
    func environmentAndControl() throws {
        let plaintext = Crypto.randomBytes(count: 3 << 20)
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "pw"))
        let passwords = dir.file("passwords", "wrong-1\nwrong-2\n")
        let base = ["decrypt", "--no-store", "--binary", "--password-file", passwords, message]
        let (one, oneCount) = try threads(base, extra: ["RWSECRET_JOBS": "1"])
        #expect(one.status == 0 && one.stdout == Data(plaintext), "\(one.stderr)")
        #expect(oneCount == 0, "RWSECRET_JOBS=1 started \(oneCount) thread(s)")
        let (two, twoCount) = try threads(["decrypt", "--no-store", "--jobs", "2", "--binary", "--password-file", passwords, message])
        #expect(two.status == 0 && two.stdout == Data(plaintext), "\(two.stderr)")
        #expect(twoCount >= 1, "the shim saw no thread at --jobs 2")
    }

    @Test("line mode --jobs 1: no thread started")
    func lineModeJobsOne() throws {
        let input = (0..<20).map { Messages.password("line \($0)", "pw") }.joined(separator: "\n") + "\n"
        let passwords = dir.file("passwords", "wrong-1\nwrong-2\n")
        let (result, count) = try threads(["decrypt", "--no-store", "--jobs", "1", "--password-file", passwords], stdin: Data(input.utf8))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.outLines.count == 20)
        #expect(count == 0, "line mode at --jobs 1 started \(count) thread(s)")
    }
}
