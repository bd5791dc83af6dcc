#if canImport(Glibc)
internal import Glibc
#endif
package import SystemPackage

/// An `errno` value from a failed system call, with the text people know from
/// other tools ("No such file or directory"): swift-system's `Errno`.
///
/// The one error type of the syscall layer (`System/`), shared by the library
/// and the tool; the public API shows it as `Errno`.
package typealias SystemError = Errno

extension Errno {
    /// The `errno` value.
    package var code: Int32 { rawValue }

    /// An error for `code`.
    package init(code: Int32) { self.init(rawValue: code) }

    /// The calling thread's current `errno`.
    package static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// Whether the error means the file is missing or cannot be opened for reading (66),
    /// rather than an I/O error (74).
    package var isMissingInput: Bool { [Glibc.ENOENT, Glibc.EACCES, Glibc.EISDIR, Glibc.ENOTDIR, Glibc.ELOOP, Glibc.ENAMETOOLONG].contains(code) }

    /// Whether a reader went away (EPIPE).
    package var isBrokenPipe: Bool { code == Glibc.EPIPE }
}

/// Calls `body` until it does not fail with EINTR; -1 becomes a thrown `SystemError`.
@discardableResult
package func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno != EINTR { throw SystemError.current }
    }
}

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    var offset = 0
    while offset < bytes.count {
        offset += try retryingOnInterrupt { write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
    }
}

/// Writes all of `bytes` to `fd` (`writeAll` on the array's storage).
package func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
    var failure: SystemError?
    bytes.withUnsafeBytes { raw in
        do throws(SystemError) { try writeAll(fd, raw) } catch { failure = error }
    }
    if let failure { throw failure }
}

/// Reads from `fd` until `bytes` is full or the end of the input (`readFully` on the
/// array's storage); returns how many bytes were read.
package func readFully(_ fd: Int32, into bytes: inout [UInt8]) throws(SystemError) -> Int {
    var failure: SystemError?
    let count = bytes.withUnsafeMutableBytes { raw in
        do throws(SystemError) { return try readFully(fd, into: raw) } catch { failure = error; return 0 }
    }
    if let failure { throw failure }
    return count
}

/// Reads from `fd` until `buffer` is full or the end of the input; returns how many bytes were read.
package func readFully(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
    var done = 0
    while done < buffer.count {
        let n = try retryingOnInterrupt { read(fd, buffer.baseAddress! + done, buffer.count - done) }
        if n == 0 { break }
        done += n
    }
    return done
}

/// `fstat(fd)`.
func fileStatus(_ fd: Int32) throws(SystemError) -> stat {
    var info = stat()
    guard fstat(fd, &info) == 0 else { throw SystemError.current }
    return info
}

/// The folder part of `path` as given (no symbolic link resolved): `.` for a bare name.
package func folder(of path: String) -> String {
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
    if slash == path.utf8.startIndex { return "/" }
    return String(path[..<slash])
}

/// The temporary folder: `$TMPDIR` when set and not empty, else `/tmp`.
package var temporaryFolder: String {
    if let value = getenv("TMPDIR"), value.pointee != 0 { return String(cString: value) }
    return "/tmp"
}
