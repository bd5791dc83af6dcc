import RWSecretKit
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Where `encrypt --binary` writes: a private file (no name) in OUT's folder,
/// renamed over OUT on `commit()` (with the permissions of the file it replaces) and
/// gone otherwise; or stdout.
///
/// OUT's folder is taken as given: no symbolic link is resolved here. An OUT
/// that is not a regular file (`/dev/null`, a FIFO) is opened for writing; one
/// that is a symbolic link to a file is refused (`OutputPath.symbolicLink`).
/// stdout that was closed at start (it holds /dev/null) fails every write (EBADF).
final class OutputFile {
    private enum Target { case descriptor(Int32, owned: Bool), privateFile(PrivateFile, path: String) }
    private let target: Target
    /// The permissions of the file OUT replaces, kept (a new OUT is private: 0600).
    private var keptMode: mode_t?

    /// stdout.
    init() { target = .descriptor(STDOUT_FILENO, owned: false) }

    /// A private file in `path`'s folder, or `path` itself when it is a link or not a regular file.
    init(replacing path: String) throws(Errno) {
        switch try OutputPath.kind(of: path) {
        case .replaceable:
            target = .privateFile(try PrivateFile(in: FilePath(folderPart(of: path)), needsName: true), path: path)
            var existing = stat()
            if lstat(path, &existing) == 0 { keptMode = existing.st_mode & 0o7777 }
        case .directory:
            throw Errno(rawValue: EISDIR)
        case .plantedLink, .plantedFile:
            throw Errno(rawValue: EACCES)
        case .symbolicLink:
            throw Errno(rawValue: ELOOP)
        case .openedThrough:
            // No O_CREAT: what is opened here exists (a FIFO, a device); a regular file put
            // there since (a link swapped in) is refused, as the link was.
            let fd = try retryingEINTR { open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                guard StandardStreams.namesStandardOutput(path) else {
                    close(fd)
                    throw Errno(rawValue: ELOOP)
                }
                _ = ftruncate(fd, 0)
            }
            target = .descriptor(fd, owned: true)
        }
    }

    deinit {
        if case .descriptor(let fd, owned: true) = target { close(fd) }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        switch target {
        case .descriptor(let fd, let owned):
            if !owned && fd == STDOUT_FILENO && StandardStreams.wasClosed(fd) { throw Errno(rawValue: EBADF) }
            try writeFully(fd, bytes)
        case .privateFile(let file, _): try file.write(bytes)
        }
    }

    /// Gives the private file OUT's name (not fsynced, as the spec says).
    func commit() throws(Errno) {
        if case .privateFile(let file, let path) = target {
            if let keptMode { _ = fchmod(file.descriptor.rawValue, keptMode) }
            try file.link(as: FilePath(path))
        }
    }
}
