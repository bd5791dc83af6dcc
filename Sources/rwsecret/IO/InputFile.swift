import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// A file (or stdin) opened for reading, closed when released.
final class InputFile {
    /// The name as the user gave it (`-` for stdin).
    let name: String
    let fd: Int32
    private let owned: Bool

    /// Opens `name` (`-` is stdin). A directory is refused with EISDIR.
    init(_ name: String) throws(Errno) {
        self.name = name
        if name == "-" {
            // A stdin closed at start holds /dev/null: it reads as the closed descriptor it was.
            if StandardStreams.wasClosed(STDIN_FILENO) { throw Errno(rawValue: EBADF) }
            fd = STDIN_FILENO
            owned = false
            return
        }
        fd = try retryingEINTR { open(name, O_RDONLY | O_CLOEXEC) }
        owned = true
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw Errno(rawValue: EISDIR)
        }
    }

    deinit { if owned { close(fd) } }

    /// Bytes read from a stream and handed back (`unread`): read again before the descriptor.
    private var pending: [UInt8] = []
    private var pendingStart = 0

    /// Reads up to `count` bytes into `buffer`; 0 at end of file.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(Errno) -> Int {
        if pendingStart < pending.count {
            let n = min(count, pending.count - pendingStart)
            pending.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + pendingStart, byteCount: n) }
            pendingStart += n
            if pendingStart == pending.count { pending = []; pendingStart = 0 }
            return n
        }
        return try retryingEINTR { Glibc.read(fd, buffer, count) }
    }

    /// Hands `bytes`, read from this stream, back: the next reads give them first (a stream
    /// looked at for YAML that holds lines instead is read by the line reader from its start).
    func unread(_ bytes: [UInt8]) {
        pending = bytes + pending[pendingStart...]
        pendingStart = 0
    }

    /// Whether the input is a regular file (so it can be read twice).
    var isRegularFile: Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// `fstat` of the open file.
    func status() throws(Errno) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Errno(rawValue: errno) }
        return info
    }
}
