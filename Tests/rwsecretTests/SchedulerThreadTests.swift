import Foundation
import Testing
import RWSecretKit

/// Issue 33 item 3: PBKDF2 walks, scrypt tries, the pipeline's items and a stream's chunk ring
/// run on one pool of `--jobs` threads (`Scheduler`). Counted from the kernel's side: the
/// threads a real `decrypt` creates, read from `strace -f`'s clone calls. Nothing is timed.
@Suite("one scheduler: a run creates at most --jobs threads beside its main thread (strace)")
struct SchedulerThreadTests {
    let dir = TemporaryFolder()

    static var strace: String? { PrivateKeyring.executable("strace") }

    /// Runs `rwsecret ARGS` under `strace -f`: the result, and how many threads it created
    /// (successful clone/clone3 calls with CLONE_THREAD; none of them a process).
    func threadsCreated(_ arguments: [String]) throws -> (result: RWSecretProcess.Result, threads: Int) {
        let log = dir.url.appendingPathComponent("strace-\(UUID().uuidString).log").path
        let result = try RWSecretProcess.run(["-f", "-qq", "-e", "trace=clone,clone3", "-e", "signal=none", "-o", log, RWSecretProcess.executable.path] + arguments,
                                             environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                             executable: URL(fileURLWithPath: Self.strace!))
        let text = try String(contentsOf: URL(fileURLWithPath: log), encoding: .utf8)
        // "PID clone3({flags=…|CLONE_THREAD|…}, 88) = TID", or split into "PID clone3({flags=…} <unfinished ...>"
        // and "PID <... clone3 resumed> …) = TID".
        var threadFlag: [Substring: Bool] = [:]
        var threads = 0
        var processes = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, fields[1].contains("clone") else { continue }
            let pid = fields[0]
            let isThread: Bool
            if fields[1].hasPrefix("<...") {
                isThread = threadFlag[pid] ?? false
            } else {
                isThread = fields[1].contains("CLONE_THREAD")
                threadFlag[pid] = isThread
            }
            guard let equals = line.range(of: " = ", options: .backwards), Int(line[equals.upperBound...].prefix { $0.isNumber }) ?? 0 > 0 else { continue }
            if isThread { threads += 1 } else { processes += 1 }
        }
        #expect(processes == 0, "the run started processes: \(text)")
        return (result, threads)
    }

    // Before: each mechanism had threads of its own: the pipeline's `--jobs` workers, and
    // Dispatch's for the PBKDF2 batches and the scrypt tries (concurrentPerform) and the chunk
    // ring (DispatchQueue.global): 7 threads at --jobs 4 on 2 cores, more on more.
    @Test("decrypt --jobs 4 over 24 lines, an age -p file and a 40-password walk, then --binary over a 3 MiB message: at most 5 threads each (4 of the pool, OpenSSL's start-up one)",
          .enabled(if: strace != nil, "strace is not installed (make test installs it)"))
    func oneThreadPool() throws {
        let jobs = 4
        // 40 passwords, the right one of the lines last: a walk alone at the end derives its keys in batches.
        let names = (1...39).map { "wrong \($0)" } + ["right"]
        let passwords = dir.file("passwords", names.joined(separator: "\n") + "\n")
        let lines = (0..<24).map { Messages.password("line \($0)", $0 % 2 == 0 ? "right" : "wrong \($0 % 5 + 1)") }
        let linesFile = dir.file("lines.txt", lines.joined(separator: "\n") + "\n")
        let encryptor = AgeEncryptor(password: SecretBytes(utf8: "wrong 7"), workFactor: 10, armor: false)
        let ageFile = dir.file("file.age", bytes: encryptor.update(Array("age file\n".utf8)) + encryptor.finalize())
        let last = dir.file("last.txt", Messages.password("the last line", "right") + "\n")
        let run = try threadsCreated(["decrypt", "--no-store", "--jobs", "\(jobs)", "--password-file", passwords, linesFile, ageFile, last])
        #expect(run.result.status == 0, "\(run.result.stderr)")
        #expect(run.result.outLines == (0..<24).map { "line \($0)" } + ["age file", "the last line"])
        #expect(run.threads <= jobs + 1, "\(run.threads) threads created at --jobs \(jobs)")

        // Several passwords: the ring runs an HMAC lane for each, and the decipher, on the pool.
        let plaintext = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let message = dir.file("m.bin", bytes: Messages.raw(plaintext, "wrong 3"))
        let out = dir.url.appendingPathComponent("out.bin").path
        let binary = try threadsCreated(["decrypt", "--no-store", "--binary", "--jobs", "\(jobs)", "--password-file", passwords, message, "-o", out])
        #expect(binary.result.status == 0, "\(binary.result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(plaintext))
        #expect(binary.threads <= jobs + 1, "\(binary.threads) threads created by --binary at --jobs \(jobs)")
    }
}
