import Foundation
import Testing

/// Runs the built `rwsecret` binary as a subprocess: stdin in; stdout, stderr and exit status out.
struct RWSecretProcess {
    struct Result {
        let status: Int32
        let stdout: Data
        let stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var outLines: [String] { out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        var errLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// The binary beside the test bundle in the build products folder.
    static let executable: URL = {
        var dir = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("rwsecret")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir.deleteLastPathComponent()
        }
        fatalError("rwsecret binary not found near \(Bundle.main.bundleURL.path)")
    }()

    static let detach = "/usr/bin/setsid"

    /// A clean environment: no keyring, a private vault folder, no passwords.
    static func environment(home: URL, extra: [String: String] = [:]) -> [String: String] {
        var env: [String: String] = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": home.path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
            "XDG_RUNTIME_DIR": home.appendingPathComponent("run").path,
            "TMPDIR": home.appendingPathComponent("tmp").path,
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(home.path)/no-such-bus",
        ]
        try? FileManager.default.createDirectory(at: home.appendingPathComponent("run"), withIntermediateDirectories: true)
        try? FileManager.default.createDirectory(at: home.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        env.merge(SanitizerOptions.environment) { $1 }
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Runs `rwsecret ARGS` with `stdin`, in `directory` (or `executable ARGS`, for a wrapper such as taskset).
    ///
    /// With `mergingStandardError`, stderr goes into the same pipe as stdout (as with `2>&1`),
    /// so `stdout` holds both in the order they were written. A child that exits without
    /// reading all of `stdin` is normal (see `ChildInput`). Every wait blocks; nothing polls.
    /// A run still going after `timeout` seconds is killed (the child and what it started),
    /// and the test fails: a hang fails CI instead of holding it for ever.
    static func run(_ arguments: [String], stdin: Data = Data(), environment: [String: String], directory: URL? = nil,
                    mergingStandardError: Bool = false, executable: URL? = nil, timeout: Double = 600) throws -> Result {
        let process = Process()
        // In a session of its own (util-linux setsid), so the child has no controlling
        // terminal even when the tests run from one: rwsecret asks on /dev/tty whenever it
        // can open it, and a test must never stop at a prompt on the developer's terminal.
        let program = executable ?? Self.executable
        if FileManager.default.isExecutableFile(atPath: detach) {
            process.executableURL = URL(fileURLWithPath: detach)
            process.arguments = ["--wait", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let input = Pipe(), output = Pipe(), error = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = mergingStandardError ? output : error
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        ChildInput.catchBrokenPipes()
        try process.runCheckingDescriptors()
        if mergingStandardError { try? error.fileHandleForWriting.close() }
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            Issue.record("killed after \(Int(timeout)) s: \(arguments.prefix(6).joined(separator: " "))")
            killTree(pid)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        // Write stdin and read stderr on their own threads, stdout here, so no pipe fills up.
        let helpers = DispatchGroup()
        helpers.enter()
        Thread {
            input.fileHandleForWriting.writeToChild(stdin)
            try? input.fileHandleForWriting.close()
            helpers.leave()
        }.start()
        nonisolated(unsafe) var errData = Data()
        helpers.enter()
        Thread {
            errData = error.fileHandleForReading.readDataToEndOfFile()
            helpers.leave()
        }.start()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        exited.wait()
        helpers.wait()
        // Closed here, not left to the pipes' deinit, which never came: two descriptors
        // leaked per run, and Foundation's Process.run over-reads the /proc/self/fd listing
        // once it fills its 32 KiB buffer (swift-corelibs-foundation #5472; see
        // `Process.runCheckingDescriptors`).
        try? output.fileHandleForReading.close()
        try? error.fileHandleForReading.close()
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// SIGKILL to `root` and every process under it (from /proc/PID/task/*/children), children first.
    static func killTree(_ root: Int32) {
        var tree: [Int32] = []
        var todo = [root]
        while let pid = todo.popLast() {
            tree.append(pid)
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            for task in tasks {
                let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
                todo += children.split(separator: " ").compactMap { Int32($0) }
            }
        }
        for pid in tree.reversed() { kill(pid, SIGKILL) }
    }
}
