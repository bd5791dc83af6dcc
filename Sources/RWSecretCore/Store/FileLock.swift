#if canImport(Glibc)
internal import Glibc
#endif

/// An exclusive `flock` on a lock file, held until `unlock()` or release.
///
/// The lock file is separate from the data it protects: the vault is replaced
/// by `rename`, and a lock on the old inode would not exclude a writer that
/// opened the new one.
///
/// Why `O_NOFOLLOW` and the regular-file check: the lock file lives in folders
/// other users may write to (a shared `XDG_RUNTIME_DIR` fallback, a vault beside
/// other files); a planted symbolic link must never make us create or truncate
/// the file it points at, and a FIFO or device must never block the open.
final class FileLock {
    private var fd: Int32

    /// How long the lock is tried quietly before `waiting` is called.
    static let quietWait: Duration = .seconds(1)

    /// Creates `path` (0600, and its missing folders 0700) when needed and waits for the lock.
    /// - Parameter waiting: called once when another process still holds the lock after `quietWait`.
    init(path: String, waiting: () -> Void = {}) throws(StoreError) {
        try StoreFiles.createFolders(for: path)
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw .unsafeLockFile(path: path, kind: .symbolicLink) }
            if errno == EISDIR { throw .unsafeLockFile(path: path, kind: .directory) }
            throw .io("cannot open the lock file \(path): \(StoreFiles.errnoText())")
        }
        _ = try StoreFiles.regularFileStatus(fd, failing: "cannot open the lock file \(path)") { .unsafeLockFile(path: path, kind: $0) }
        do throws(StoreError) {
            try Self.lock(fd, path: path, waiting: waiting)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
    }

    /// Tries without blocking for `quietWait`, then says so and blocks.
    private static func lock(_ fd: Int32, path: String, waiting: () -> Void) throws(StoreError) {
        let clock = ContinuousClock()
        let deadline = clock.now + quietWait
        var said = false
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return }
            if errno == EINTR { continue }
            guard errno == EWOULDBLOCK else { throw .io("cannot lock \(path): \(StoreFiles.errnoText())") }
            if clock.now < deadline {
                usleep(20_000)
                continue
            }
            if !said { waiting(); said = true }
            // Now block: the holder's release wakes us.
            while flock(fd, LOCK_EX) != 0 {
                if errno == EINTR { continue }
                throw .io("cannot lock \(path): \(StoreFiles.errnoText())")
            }
            return
        }
    }

    /// Releases the lock (closing the descriptor releases it).
    func unlock() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}

extension FileKind {
    /// The kind of file `mode` (from `stat`) describes.
    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regularFile
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symbolicLink
        default: self = .unknown
        }
    }
}

/// File-system helpers for the stores (and the tool's store choice).
package enum StoreFiles {
    /// The text of the current `errno`.
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// The status of `fd`, an opened store file that must be a regular file; otherwise
    /// `fd` is closed and `notRegular` (given what it is) or an I/O error (`failing: why`) is thrown.
    static func regularFileStatus(_ fd: Int32, failing: @autoclosure () -> String,
                                  notRegular: (FileKind) -> StoreError) throws(StoreError) -> stat {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let text = errnoText()
            close(fd)
            throw .io("\(failing()): \(text)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw notRegular(FileKind(mode: info.st_mode))
        }
        return info
    }

    /// The last component of `path`.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Creates the missing folders above `path` with mode 0700; existing folders are left as they are.
    static func createFolders(for path: String) throws(StoreError) {
        let folder = RWSecretCore.folder(of: path)
        var isFolder = stat()
        if stat(folder, &isFolder) == 0 { return }
        try createFolders(for: folder)
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw .io("cannot create the folder \(folder): \(errnoText())")
        }
    }

    /// Whether something exists at `path` (following symbolic links).
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// `path` with every symbolic link of its last component followed (a dangling link
    /// gives the path it points at, so a new file is created there), at most 40 links deep.
    ///
    /// Why the ownership rule: the links are followed here, not by the kernel, so the
    /// kernel's protected-symlinks rule cannot apply; the same rule is applied instead —
    /// a link in a sticky world-writable folder (such as /tmp) is followed only when it
    /// belongs to this user or to the folder's owner, so another user cannot aim a write
    /// at a file of their choosing.
    static func resolvingLinks(_ path: String) throws(StoreError) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
            var folderInfo = stat()
            if stat(folder(of: current), &folderInfo) == 0,
               folderInfo.st_mode & S_ISVTX != 0, folderInfo.st_mode & S_IWOTH != 0,
               info.st_uid != geteuid(), info.st_uid != folderInfo.st_uid {
                throw .untrustedLink(path: current, owner: info.st_uid)
            }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { throw .io("cannot read the symbolic link \(current): \(errnoText())") }
            let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = target.hasPrefix("/") ? target : folder(of: current) + "/" + target
        }
        throw .io("too many levels of symbolic links at \(path)")
    }
}
