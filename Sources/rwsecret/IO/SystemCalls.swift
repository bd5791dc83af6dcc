#if canImport(Glibc)
import Glibc
#endif
import SystemPackage

// The tool's own system-call helpers (the library keeps its own copies out of its public API):
// `errno` as swift-system's `Errno`, EINTR retried, short reads and writes finished.

extension Errno {
    /// The calling thread's current `errno`.
    static var now: Errno { Errno(rawValue: Glibc.errno) }

    /// Whether the error means the file is missing or cannot be opened for reading (66),
    /// rather than an I/O error (74).
    var meansMissingInput: Bool { [Glibc.ENOENT, Glibc.EACCES, Glibc.EISDIR, Glibc.ENOTDIR, Glibc.ELOOP, Glibc.ENAMETOOLONG].contains(rawValue) }
}

/// Calls `body` until it does not fail with EINTR; -1 becomes a thrown `Errno`.
@discardableResult
func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) throws(Errno) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno != EINTR { throw Errno.now }
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
func writeFully(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
    var offset = 0
    while offset < bytes.count {
        offset += try retryingEINTR { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    }
}

/// Writes all of `bytes` to `fd` (`writeFully` on the array's storage).
func writeFully(_ fd: Int32, _ bytes: [UInt8]) throws(Errno) {
    var failure: Errno?
    bytes.withUnsafeBytes { raw in
        do throws(Errno) { try writeFully(fd, raw) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// Reads from `fd` until `bytes` is full or the end of the input; returns how many bytes were read.
func readUntilFull(_ fd: Int32, into bytes: inout [UInt8]) throws(Errno) -> Int {
    var failure: Errno?
    let count = bytes.withUnsafeMutableBytes { raw in
        var done = 0
        do throws(Errno) {
            while done < raw.count {
                let n = try retryingEINTR { read(fd, raw.baseAddress! + done, raw.count - done) }
                if n == 0 { break }
                done += n
            }
        } catch { failure = error }
        return done
    }
    if let failure { throw failure }
    return count
}

/// The folder part of `path` as given (no symbolic link resolved): `.` for a bare name.
func folderPart(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    if slash == path.utf8.startIndex { return "/" }
    return String(path[..<slash])
}
