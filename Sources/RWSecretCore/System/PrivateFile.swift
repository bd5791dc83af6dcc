#if canImport(Glibc)
internal import Glibc
#endif
internal import CLinuxSyscalls
public import SystemPackage

/// A file with no name: speculative plaintext and spooled ciphertext live here
/// until they may be released.
///
/// Made with `O_TMPFILE` (mode 0600), so it has no name in any folder and the
/// kernel frees it when the process ends, however it ends — SIGKILL included.
/// Only this process holds a descriptor, and the tool's process is not dumpable, so
/// no other process of the user can open it through `/proc/PID/fd` (a program that wants
/// the same calls `prctl(PR_SET_DUMPABLE, 0)`). `link`
/// gives it a name only once it is complete.
///
/// On a filesystem without `O_TMPFILE` the file gets a random hidden name and
/// is unlinked at once when it never needs a name; otherwise the name is
/// removed when the file is released and on SIGINT, SIGTERM and SIGHUP
/// (`PendingNames`), which SIGKILL cannot honour — the one case the kernel
/// cannot help with. A file that will hold plaintext refuses that fallback
/// (`namedFallback: false`): there, no plaintext may have a name a SIGKILL
/// would leave behind.
///
/// Every private file holds an exclusive `flock` for as long as this process
/// lives, so that `sweep(folder:)` can tell a name a killed process left
/// behind (no lock: the kernel drops it with the process) from one a live
/// process is about to rename. Every file made to get a name (`needsName`: every
/// `-o`, whatever the command) sweeps its folder first.
///
/// A program writes a plaintext file with it as the tool does: made in the destination's
/// folder (``init(in:needsName:namedFallback:)``), written, then given its name only once
/// complete (``link(as:replacing:)``); if the program fails or is killed before that, no
/// file with a name holds a part of it.
///
/// ```swift
/// let file = try PrivateFile(in: "/home/me/out", needsName: true, namedFallback: false)
/// try file.write(plaintext)
/// try file.link(as: "/home/me/out/secret.txt")
/// ```
///
/// Not `Sendable`: one thread writes a file at a time.
public final class PrivateFile {
    /// The open descriptor (read and write).
    package let fd: Int32
    /// The open descriptor (read and write; mode 0600), closed when the file is released.
    public var descriptor: FileDescriptor { FileDescriptor(rawValue: fd) }
    /// The folder the file was made in (it can be linked only there).
    package let folder: String
    /// The hidden name of a fallback file that must keep a name until `link`; nil otherwise.
    private var fallbackName: String?
    /// Bytes written so far.
    public private(set) var size = 0
    /// How the names this file ever has in `folder` begin (hidden, so that a sweep can find leftovers).
    private let prefix: String

    /// A new empty file in `folder`. `needsName`: whether `link` will be called
    /// (a fallback file that will never be linked is unlinked at once).
    /// `prefix` begins every name it is given; `unnamed: false` forces the named
    /// fallback (for tests of filesystems without `O_TMPFILE`).
    /// `namedFallback: false`: where the folder's filesystem has no `O_TMPFILE`,
    /// throw EOPNOTSUPP instead of making a named file (see `isUnsupported`).
    package convenience init(in folder: String, needsName: Bool, prefix: String = ".rwsecret-", unnamed: Bool = true,
                 namedFallback: Bool = true) throws(SystemError) {
        try self.init(folder: folder, needsName: needsName, prefix: prefix, unnamed: unnamed, namedFallback: namedFallback)
    }

    /// A new empty file in `folder`, with no name (`O_TMPFILE`, mode 0600).
    ///
    /// - Parameters:
    ///   - folder: the folder the file may later be linked into (``link(as:replacing:)``
    ///     names a path in this folder only).
    ///   - needsName: whether ``link(as:replacing:)`` will be called. A file that will get a
    ///     name first removes from `folder` the hidden names a killed run left there.
    ///   - namedFallback: where `folder`'s filesystem has no `O_TMPFILE`, `true` makes a file
    ///     with a random hidden name instead (removed when the file is released, or on SIGINT,
    ///     SIGTERM and SIGHUP; a SIGKILL leaves it), `false` throws `EOPNOTSUPP`: for plaintext,
    ///     which must have no name until complete. ``canBeUnnamed(in:)`` asks beforehand.
    /// - Throws: the `Errno` of the failed call (`EACCES`, `ENOENT`, `ENOSPC`, `EOPNOTSUPP`…).
    public convenience init(in folder: FilePath, needsName: Bool, namedFallback: Bool = true) throws(Errno) {
        try self.init(folder: folder.string, needsName: needsName, prefix: ".rwsecret-", unnamed: true, namedFallback: namedFallback)
    }

    private init(folder: String, needsName: Bool, prefix: String, unnamed: Bool, namedFallback: Bool) throws(SystemError) {
        self.folder = folder
        self.prefix = prefix
        // What a run killed between `link`'s two calls left here goes before this file is made.
        if needsName { Self.sweep(folder: folder, prefix: prefix) }
        let tmpfile = unnamed ? rws_o_tmpfile() : 0
        let fd = tmpfile == 0 ? -1 : open(folder, tmpfile | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 {
            self.fd = fd
            _ = flock(fd, LOCK_EX | LOCK_NB)
            return
        }
        // EISDIR or EOPNOTSUPP: the kernel or filesystem has no O_TMPFILE.
        guard tmpfile == 0 || errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else { throw SystemError.current }
        guard namedFallback else { throw SystemError(code: EOPNOTSUPP) }
        var template = Array((folder + "/" + prefix + "XXXXXX").utf8CString)
        let named = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard named >= 0 else { throw SystemError.current }
        _ = fcntl(named, F_SETFD, FD_CLOEXEC)
        _ = flock(named, LOCK_EX | LOCK_NB)
        self.fd = named
        let name = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if needsName {
            fallbackName = name
            PendingNames.shared.add(name)
        } else {
            unlink(name)
        }
    }

    deinit {
        close(fd)
        if let fallbackName {
            unlink(fallbackName)
            PendingNames.shared.remove(fallbackName)
        }
    }

    /// Appends all of `bytes`.
    ///
    /// - Throws: the `Errno` of the failed `write` (`ENOSPC`, `EIO`…).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        try writeAll(fd, bytes)
        size += bytes.count
    }

    /// Appends all of `bytes`.
    ///
    /// - Throws: the `Errno` of the failed `write` (`ENOSPC`, `EIO`…).
    public func write(_ bytes: [UInt8]) throws(Errno) {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try write(raw) } }
        try result.get()
    }

    /// Overwrites `bytes` at `offset` (within what was written: the size is unchanged).
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemError) {
        precondition(offset + bytes.count <= size)
        var done = 0
        while done < bytes.count {
            done += try retryingOnInterrupt { pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
        }
    }

    /// Cuts the file to its first `length` bytes.
    package func truncate(to length: Int) throws(SystemError) {
        precondition(length <= size)
        guard ftruncate(fd, off_t(length)) == 0 else { throw SystemError.current }
        size = length
    }

    /// Makes the contents durable (`fsync`).
    ///
    /// - Throws: the `Errno` of the failed `fsync`.
    public func sync() throws(Errno) {
        guard fsync(fd) == 0 else { throw SystemError.current }
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer at the end.
    package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = try retryingOnInterrupt { pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done)) }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// How `move(to:)` handed the bytes over.
    package enum MoveMethod: String, Sendable {
        /// `copy_file_range`: to a regular file (a reflink where the filesystem shares blocks, btrfs and XFS).
        case copyFileRange = "copy_file_range"
        /// `splice`: to a pipe.
        case splice
        /// `sendfile`: to anything else the kernel takes (a socket), or where the others were refused.
        case sendfile
        /// `pread` and `write` through a buffer: where the kernel refused all three (an `O_APPEND` file, a terminal).
        case readWrite = "read/write"
    }

    /// The stretch `move(to:)` hands over in one call, then frees here.
    package static let moveStretch = 64 << 20

    /// Moves the whole file to `output` in the kernel, never through this process's memory:
    /// `copy_file_range` to a regular file, `splice` to a pipe, `sendfile` to a socket or where
    /// those are refused, and `pread`/`write` only where the kernel refuses all three. Each
    /// stretch copied into a regular file is then punched out of this file (`FALLOC_FL_PUNCH_HOLE`),
    /// so the plaintext is not held twice in the page cache: the file is spent afterwards (its
    /// size stays, those bytes read as zeros). A pipe's stretches are not punched: `splice` lends
    /// the pipe this file's pages, which the reader copies later. Bytes go out at `output`'s own
    /// offset, as `write` would.
    /// Returns the last method used.
    @discardableResult
    package func move(to output: Int32) throws(SystemError) -> MoveMethod {
        var info = stat()
        let type = fstat(output, &info) == 0 ? info.st_mode & S_IFMT : 0
        var methods: [MoveMethod] = type == S_IFREG ? [.copyFileRange, .sendfile] : type == S_IFIFO ? [.splice, .sendfile] : [.sendfile]
        var offset = Int64(0)
        while Int(offset) < size {
            guard let method = methods.first else {
                try copyByReading(to: output, from: Int(offset), punching: type == S_IFREG)
                return .readWrite
            }
            let start = offset
            let length = min(Self.moveStretch, size - Int(offset))
            let n: Int
            switch method {
            case .copyFileRange: n = rws_copy_file_range(fd, &offset, output, length)
            case .splice: n = rws_splice_to_pipe(fd, &offset, output, length)
            default:
                var position = off_t(offset)
                n = sendfile(output, fd, &position, length)
                if n > 0 { offset = Int64(position) }
            }
            if n > 0 {
                // Into a regular file the bytes were copied before the call returned; a pipe (and a
                // socket) may still refer to this file's pages, which a hole would change under it.
                if type == S_IFREG { _ = rws_punch_hole(fd, start, offset - start) }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            // Refused (or nothing moved): the next method, from where this one stopped.
            // (EBADF: copy_file_range to an O_APPEND file; a descriptor really bad fails the write too.)
            if n == 0 || [EINVAL, ENOSYS, EXDEV, EOPNOTSUPP, EBADF, ESPIPE, ETXTBSY, EISDIR, EOVERFLOW].contains(errno) {
                methods.removeFirst()
                continue
            }
            throw SystemError.current
        }
        return methods.first ?? .readWrite
    }

    /// `move(to:)` (the plaintext is spent afterwards).
    package func copy(to output: Int32) throws(SystemError) {
        try move(to: output)
    }

    /// Moves the whole file to `output`, at `output`'s own offset, in the kernel
    /// (`copy_file_range`, `splice`, `sendfile`), never through this process's memory. Each
    /// stretch copied into a regular file is then freed here, so the file is spent afterwards:
    /// its size stays, its bytes read as zeros. Call it once the contents may be released.
    ///
    /// - Throws: the `Errno` of the failed call (`EPIPE`, `ENOSPC`, `EIO`…).
    public func move(to output: FileDescriptor) throws(Errno) {
        try move(to: output.rawValue)
    }

    /// `punching`: each MiB written (to a regular file, which copied it) is punched out here, as `move` does.
    private func copyByReading(to output: Int32, from start: Int, punching: Bool = false) throws(SystemError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { Crypto.cleanse(buffer); buffer.deallocate() }
        var offset = start
        while offset < size {
            let n = try read(at: offset, into: buffer)
            if n == 0 { throw SystemError(code: EIO) }
            try writeAll(output, UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            if punching { _ = rws_punch_hole(fd, Int64(offset), Int64(n)) }
            offset += n
        }
    }

    /// Gives the complete file the name `path` (in `folder`), replacing what is there.
    ///
    /// The name appears complete or not at all. When nothing is at `path`, the
    /// unnamed file is linked there directly: it never has another name, so no
    /// moment exists in which a SIGKILL could leave it under one. When something
    /// is (a file to replace, a link planted meanwhile), `linkat` cannot replace
    /// it: the file is linked under a random hidden name and renamed over `path`
    /// at once. `rename` replaces a symbolic link at `path` itself, never the
    /// file it points to. A SIGKILL between those two calls leaves the hidden
    /// name behind, locked by nobody: the next `sweep(folder:)` of the folder
    /// removes it. `replacing: false`: something at `path` fails with EEXIST
    /// (no hidden name, no rename).
    package func link(as path: String, replacing: Bool = true) throws(SystemError) {
        try link(path, replacing: replacing)
    }

    /// Gives the complete file the name `path`, in the folder it was made in, replacing what is
    /// there (a file, or a symbolic link itself, never the file it points to).
    ///
    /// The name appears with the whole contents or not at all: with nothing at `path`, the
    /// file is linked there directly; otherwise it is linked under a random hidden name and
    /// renamed over `path` at once (a SIGKILL between the two leaves the hidden name, which the
    /// next file made in the folder with `needsName` removes). Not `fsync`ed: call ``sync()``
    /// first for durability. Keep the permissions of a file it replaces with `fchmod` on
    /// ``descriptor`` first; a new file has mode 0600.
    ///
    /// - Parameters:
    ///   - path: the name, in the folder the file was made in.
    ///   - replacing: `false` fails with `EEXIST` when something is at `path`.
    /// - Throws: the `Errno` of the failed `linkat` or `rename` (`EEXIST`, `EXDEV`, `EACCES`…).
    public func link(as path: FilePath, replacing: Bool = true) throws(Errno) {
        try link(path.string, replacing: replacing)
    }

    private func link(_ path: String, replacing: Bool) throws(SystemError) {
        if let fallbackName {
            guard rename(fallbackName, path) == 0 else { throw SystemError.current }
            PendingNames.shared.remove(fallbackName)
            self.fallbackName = nil
            return
        }
        // linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; /proc/self/fd works for anyone.
        let source = "/proc/self/fd/\(fd)"
        if linkat(fd, "", AT_FDCWD, path, rws_at_empty_path()) == 0 { return }
        if errno != EEXIST {
            if linkat(AT_FDCWD, source, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 { return }
            guard errno == EEXIST else { throw SystemError.current }
        }
        guard replacing else { throw SystemError(code: EEXIST) }
        // Something is at `path`: link under a fresh hidden name, then rename over it.
        for _ in 0..<16 {
            let name = folder + "/" + prefix + Self.randomSuffix()
            PendingNames.shared.add(name)
            defer { PendingNames.shared.remove(name) }
            if linkat(fd, "", AT_FDCWD, name, rws_at_empty_path()) != 0 {
                if errno == EEXIST { continue }
                guard linkat(AT_FDCWD, source, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 else {
                    if errno == EEXIST { continue }
                    throw SystemError.current
                }
            }
            guard rename(name, path) == 0 else {
                let error = SystemError.current
                unlink(name)
                throw error
            }
            return
        }
        throw SystemError(code: EEXIST)
    }

    /// Whether `folder`'s filesystem can make unnamed files (`O_TMPFILE`): false only
    /// when it says it cannot; another failure (a missing folder) is left for the real
    /// attempt to report.
    package static func canBeUnnamed(in folder: String) -> Bool {
        canBeUnnamed(folder)
    }

    /// Whether `folder`'s filesystem makes files with no name (`O_TMPFILE`): `false` only when
    /// it says it cannot (then ``init(in:needsName:namedFallback:)`` with `namedFallback: false`
    /// throws `EOPNOTSUPP`); another failure (a missing folder) is left for the real attempt.
    public static func canBeUnnamed(in folder: FilePath) -> Bool {
        canBeUnnamed(folder.string)
    }

    private static func canBeUnnamed(_ folder: String) -> Bool {
        let fd = open(folder, rws_o_tmpfile() | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return true
        }
        return !(errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
    }

    /// The length of the random part of a hidden name (`prefix` + this many letters and digits).
    private static let suffixLength = 12

    /// Removes the hidden names (`prefix` + 12 letters and digits) that a process
    /// killed between `link`'s two calls left in `folder`: regular files of this
    /// user with one link whose lock is free. A live process holds its private
    /// file's lock until it exits, so its names are never touched; the kernel
    /// drops a killed process's lock. Errors are ignored (a sweep is a courtesy).
    package static func sweep(folder: String, prefix: String = ".rwsecret-") {
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { return }
        guard let dir = fdopendir(folderFD) else {
            close(folderFD)
            return
        }
        defer { closedir(dir) }
        let alphanumeric = { (byte: UInt8) in (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) }
        let length = prefix.utf8.count + suffixLength
        var stale: [String] = []
        // Names compared in place with strncmp: a folder of many files costs no String per entry.
        while let entry = readdir(dir) {
            let match = prefix.withCString { head in
                withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    let name = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                    return strncmp(name, head, strlen(head)) == 0 && strnlen(name, raw.count) == length
                }
            }
            guard match else { continue }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(length), as: UTF8.self) }
            if name.utf8.dropFirst(prefix.utf8.count).allSatisfy(alphanumeric) { stale.append(name) }
        }
        for name in stale {
            var named = stat()
            guard fstatat(folderFD, name, &named, AT_SYMLINK_NOFOLLOW) == 0, (named.st_mode & S_IFMT) == S_IFREG,
                  named.st_uid == geteuid(), named.st_nlink == 1 else { continue }
            let fd = openat(folderFD, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var opened = stat()
            guard fstat(fd, &opened) == 0, opened.st_dev == named.st_dev, opened.st_ino == named.st_ino,
                  flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            // Still the same file under that name (nobody's process can link it again).
            var now = stat()
            guard fstatat(folderFD, name, &now, AT_SYMLINK_NOFOLLOW) == 0, now.st_dev == opened.st_dev, now.st_ino == opened.st_ino else { continue }
            unlinkat(folderFD, name, 0)
        }
    }

    private static func randomSuffix() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        return String(decoding: Crypto.randomBytes(count: suffixLength).map { alphabet[Int($0) % alphabet.count] }, as: UTF8.self)
    }
}

/// Names of temporary files that exist only for a moment, removed if SIGINT,
/// SIGTERM or SIGHUP ends the process in that moment.
///
/// The signal handler may only call async-signal-safe functions: the names are
/// kept as C strings in a fixed table, and the handler calls `unlink` on each,
/// restores the default action and raises the signal again.
package final class PendingNames: @unchecked Sendable {
    package static let shared = PendingNames()
    private static let capacity = 16
    private let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private var lock = pthread_mutex_t()

    private init() {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: nil, count: Self.capacity)
        pthread_mutex_init(&lock, nil)
        pendingSlots = slots
    }

    private var handlersInstalled = false

    /// Installs the clean-up handler for SIGINT, SIGTERM and SIGHUP (on the first name held).
    private static func installSignalHandlers() {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                if let slots = pendingSlots {
                    for index in 0..<16 { if let name = slots[index] { unlink(name) } }
                }
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    func add(_ name: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        if !handlersInstalled {
            handlersInstalled = true
            Self.installSignalHandlers()
        }
        for index in 0..<Self.capacity where slots[index] == nil {
            slots[index] = strdup(name)
            return
        }
    }

    func remove(_ name: String) {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        for index in 0..<Self.capacity {
            if let slot = slots[index], String(cString: slot) == name {
                slots[index] = nil
                free(slot)
                return
            }
        }
    }
}

nonisolated(unsafe) private var pendingSlots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
