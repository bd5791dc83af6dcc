#if canImport(Glibc)
import Glibc
#endif

/// An errno value with the text people know from other tools ("No such file or directory").
struct SystemError: Error, CustomStringConvertible {
    let code: Int32

    static var current: SystemError { SystemError(code: errno) }

    var description: String { String(cString: strerror(code)) }

    /// The exit status for failing to read an input (66) or write one (74).
    var isMissingInput: Bool { [ENOENT, EACCES, EISDIR, ENOTDIR, ELOOP, ENAMETOOLONG].contains(code) }
}

/// Calls `body` until it does not fail with EINTR; -1 becomes a thrown `SystemError`.
@discardableResult
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        if errno != EINTR { throw SystemError.current }
    }
}
