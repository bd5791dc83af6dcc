#if canImport(Glibc)
internal import Glibc
#endif

/// An exclusive `flock` on a lock file, held until `unlock()` or release.
///
/// The lock file is separate from the data it protects: the vault is replaced
/// by `rename`, and a lock on the old inode would not exclude a writer that
/// opened the new one.
final class FileLock {
    private var fd: Int32

    /// Creates `path` (0600, and its missing folders 0700) when needed and waits for the lock.
    init(path: String) throws(StoreError) {
        try StoreFiles.createFolders(for: path)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io("cannot open the lock file \(path): \(StoreFiles.errnoText())") }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let text = StoreFiles.errnoText()
            close(fd)
            throw .io("cannot lock \(path): \(text)")
        }
        self.fd = fd
    }

    /// Releases the lock (closing the descriptor releases it).
    func unlock() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}

/// File-system helpers for the stores.
enum StoreFiles {
    /// The text of the current `errno`.
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// The folder part of `path` ("." when there is none).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates the missing folders above `path` with mode 0700; existing folders are left as they are.
    static func createFolders(for path: String) throws(StoreError) {
        let folder = folder(of: path)
        var isFolder = stat()
        if stat(folder, &isFolder) == 0 { return }
        try createFolders(for: folder)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .io("cannot create the folder \(folder): \(errnoText())")
        }
    }

    /// Whether something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
