import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The built `rwsecret` as a child whose stdin stays open: the test writes rows and reads
/// what comes back while it runs. Every read has a deadline (`poll`), so a child that holds
/// its output back fails the test instead of hanging it; the child is killed when the
/// value goes.
final class StreamingChild {
    let process = Process()
    private let input = Pipe(), output = Pipe(), error = Pipe()
    private var pending: [UInt8] = []
    private var errorBytes: [UInt8] = []
    private let exited = DispatchSemaphore(value: 0)
    private var hasExited = false

    init(_ arguments: [String], environment: [String: String], executable: URL = RWSecretProcess.executable) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        process.terminationHandler = { [exited] _ in exited.signal() }
        ChildInput.catchBrokenPipes()
        try process.runCheckingDescriptors()
    }

    deinit {
        if !hasExited {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        try? input.fileHandleForWriting.close()
        try? output.fileHandleForReading.close()
        try? error.fileHandleForReading.close()
    }

    var pid: Int32 { process.processIdentifier }

    /// Writes `text` to the child's stdin (which stays open).
    func write(_ text: String) {
        input.fileHandleForWriting.writeToChild(Data(text.utf8))
    }

    /// Closes the child's stdin.
    func closeInput() { try? input.fileHandleForWriting.close() }

    /// The next line of stdout (without its LF), or nil when none came within `timeout`
    /// seconds or stdout ended first.
    func readLine(timeout: Double) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = pending.firstIndex(of: 0x0a) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            guard let chunk = Self.read(output.fileHandleForReading.fileDescriptor, until: deadline), !chunk.isEmpty else { return nil }
            pending += chunk
        }
    }

    /// stderr so far: what has come within `timeout` seconds once at least `atLeast` bytes came
    /// (or the deadline passed, or stderr ended).
    func standardError(atLeast count: Int, timeout: Double) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while errorBytes.count < count, let chunk = Self.read(error.fileHandleForReading.fileDescriptor, until: deadline), !chunk.isEmpty {
            errorBytes += chunk
        }
        return String(decoding: errorBytes, as: UTF8.self)
    }

    /// Everything left on stderr until it ends, or until `timeout` seconds passed.
    func restOfStandardError(timeout: Double) -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while let chunk = Self.read(error.fileHandleForReading.fileDescriptor, until: deadline), !chunk.isEmpty { errorBytes += chunk }
        return String(decoding: errorBytes, as: UTF8.self)
    }

    /// The exit: (status, killed by a signal), or nil when the child still ran after `timeout` seconds.
    func exit(timeout: Double) -> (status: Int32, signaled: Bool)? {
        if !hasExited {
            guard exited.wait(timeout: .now() + timeout) == .success else { return nil }
            hasExited = true
        }
        return (process.terminationStatus, process.terminationReason == .uncaughtSignal)
    }

    /// One read of what `fd` holds, waiting at most until `deadline`; nil at the deadline, [] at the end.
    private static func read(_ fd: Int32, until deadline: Date) -> [UInt8]? {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return nil }
            let ready = poll(&entry, 1, Int32(min(left, 3600) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return ready == 0 ? nil : [] }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            return n <= 0 ? [] : Array(buffer[0..<n])
        }
    }
}
