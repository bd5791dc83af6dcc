#if canImport(Glibc)
import Glibc
#endif

/// Where `--binary` writes: a temporary file beside OUT renamed into place on
/// `commit()`, removed otherwise; or stdout.
///
/// An OUT that exists and is not a regular file (`/dev/null`, a FIFO, a
/// terminal) is written to directly, never replaced; a symbolic link is
/// followed, so the file it points to is replaced, not the link. Either way
/// nothing is written before the caller has authenticated the message.
final class OutputFile {
    let fd: Int32
    private let destination: String?
    private var temporaryPath: String?

    /// stdout.
    init() {
        fd = STDOUT_FILENO
        destination = nil
    }

    /// A temporary file (mode 0600) in `path`'s folder; throws when it cannot be created.
    init(replacing path: String) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG {
            if (info.st_mode & S_IFMT) == S_IFDIR { throw SystemError(code: EISDIR) }
            fd = try retryingOnInterrupt { open(path, O_WRONLY | O_CLOEXEC) }
            destination = nil
            return
        }
        var path = path
        if let resolved = realpath(path, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        destination = path
        var template = Array((path + ".rwsecret-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError.current }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        self.fd = fd
        temporaryPath = cString(template)
    }

    /// Removes the temporary file unless it was committed.
    deinit {
        if let temporaryPath {
            close(fd)
            unlink(temporaryPath)
        } else if destination == nil && fd != STDOUT_FILENO {
            close(fd)
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = try retryingOnInterrupt { Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset) }
            offset += n
        }
    }

    /// Renames the temporary file into place (not fsynced, as the spec says).
    func commit() throws(SystemError) {
        guard let temporaryPath, let destination else { return }
        guard close(fd) == 0 else { throw SystemError.current }
        guard rename(temporaryPath, destination) == 0 else {
            let error = SystemError.current
            unlink(temporaryPath)
            self.temporaryPath = nil
            throw error
        }
        self.temporaryPath = nil
    }
}

/// A scratch file under `$TMPDIR` (unlinked at once) for spooling a pipe's ciphertext.
func makeSpoolFile() throws(SystemError) -> Int32 {
    let directory = Environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    var template = Array((directory + "/rwsecret-spool-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw SystemError.current }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    unlink(cString(template))
    return fd
}

/// The String of a NUL-terminated C character array.
private func cString(_ chars: [CChar]) -> String {
    String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
