import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built `rwsecret` started as a child that the test controls: stdin given at
/// once, stderr readable while it runs, killed by a watchdog instead of hanging the suite.
final class BoundedProcess: @unchecked Sendable {
    let process = Process()
    private let errorPipe = Pipe(), outputPipe = Pipe(), inputPipe = Pipe()
    private let lock = NSLock()
    private var errorData = Data(), outputData = Data()
    private let readers = DispatchGroup()
    private var watchdog: DispatchWorkItem?
    /// Set when the watchdog had to kill the process.
    private(set) var timedOut = false

    /// Starts `rwsecret ARGS`; a process still running after `limit` seconds is killed (SIGKILL).
    init(_ arguments: [String], stdin: Data = Data(), environment: [String: String], limit: Double = 60,
         executable: URL = RWSecretProcess.executable) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        process.standardError = errorPipe
        try process.runCheckingDescriptors()
        for (pipe, isError) in [(outputPipe, false), (errorPipe, true)] {
            readers.enter()
            Thread { [self] in
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    if isError { errorData.append(chunk) } else { outputData.append(chunk) }
                    lock.unlock()
                }
                readers.leave()
            }.start()
        }
        // Written from its own thread, after which stdin is closed; a child that exited
        // early gives EPIPE, which the test process ignores (see ignoreBrokenPipes).
        Self.ignoreBrokenPipes
        let input = inputPipe.fileHandleForWriting
        Thread {
            try? input.write(contentsOf: stdin)
            try? input.close()
        }.start()
        let pid = process.processIdentifier
        let item = DispatchWorkItem { [weak self] in
            guard let self, self.process.isRunning else { return }
            self.timedOut = true
            kill(pid, SIGKILL)
        }
        watchdog = item
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: item)
    }

    /// Writing to a child that already exited must not kill the test process.
    static let ignoreBrokenPipes: Void = ChildInput.catchBrokenPipes()

    var pid: pid_t { process.processIdentifier }

    /// What the child wrote on stderr so far.
    var standardError: String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: errorData, as: UTF8.self)
    }

    /// Waits for the end; its exit status (or 128 + signal), stdout and stderr.
    func wait() -> (status: Int32, stdout: String, stderr: String) {
        process.waitUntilExit()
        watchdog?.cancel()
        readers.wait()
        lock.lock(); defer { lock.unlock() }
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
    }

    /// Waits (sleeping, up to `limit` seconds) until stderr contains `text`; whether it did.
    func waitForStandardError(containing text: String, limit: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(limit)
        while Date() < deadline {
            if standardError.contains(text) { return true }
            if !process.isRunning { return standardError.contains(text) }
            usleep(50_000)
        }
        return false
    }

    /// Runs `rwsecret ARGS` to its end (killed after `limit` seconds).
    static func run(_ arguments: [String], stdin: String = "", environment: [String: String], limit: Double = 60)
        throws -> (status: Int32, stdout: String, stderr: String, timedOut: Bool) {
        let child = try BoundedProcess(arguments, stdin: Data(stdin.utf8), environment: environment, limit: limit)
        let (status, out, err) = child.wait()
        return (status, out, err, child.timedOut)
    }
}

// A failed expectation reflects the values it names; Foundation's Process and pipes do not
// survive reflection (the test process crashed), so show only what matters.
extension BoundedProcess: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: ["pid": pid, "timedOut": timedOut, "standardError": standardError])
    }
}
