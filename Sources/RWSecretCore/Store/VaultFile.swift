internal import CLinuxSyscalls
#if canImport(Glibc)
internal import Glibc
#endif

/// The vault's file on disk: read with a size limit, replaced atomically, with no
/// temporary copy that can outlive the process.
///
/// Why each rule:
/// - Opened with `O_NONBLOCK | O_NOCTTY` and checked with `fstat` on the open
///   descriptor: a FIFO cannot hang the open and nothing can be swapped in between
///   the check and the read; a device or folder is refused, not read.
/// - At most `maximumSize + 1` bytes are read: `/dev/zero`-like files cannot
///   exhaust memory, and a file that grew past the limit is refused.
/// - The new vault is written to an unnamed `O_TMPFILE` in the vault's own folder,
///   synced, and only then given a name and renamed over the vault: a process killed
///   at any point leaves no copy behind, except in the few microseconds between
///   naming and renaming; `sweep` removes such leftovers (and the named temporaries
///   of older versions) under the lock before the next write.
enum VaultFile {
    /// The largest vault that is read: far above any real list of passwords.
    static let maximumSize = 16 << 20

    /// The prefix of this vault's temporaries in its folder: `.NAME.rwsecret-`.
    static func temporaryPrefix(for path: String) -> String { "." + StoreFiles.name(of: path) + ".rwsecret-" }

    // MARK: - Reading

    /// The vault opened for reading (a regular file, at most `maximumSize` bytes), or nil when absent.
    static func openForReading(_ path: String) throws(StoreError) -> Int32? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .unavailable(reason: "cannot read the vault \(path): \(StoreFiles.errnoText())",
                               advice: "check its permissions")
        }
        let info = try StoreFiles.regularFileStatus(fd, failing: "cannot read the vault \(path)") { .vaultNotARegularFile(path: path, kind: $0) }
        guard info.st_size <= maximumSize else {
            close(fd)
            throw .vaultTooLarge(path: path, size: Int64(info.st_size), limit: maximumSize)
        }
        return fd
    }

    /// The bytes of the open vault `fd`: at most `maximumSize`, else `vaultTooLarge`.
    /// The buffer starts at the size `fstat` gave and grows only if the file did.
    static func readAll(_ fd: Int32, path: String) throws(StoreError) -> [UInt8] {
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? min(Int(info.st_size), maximumSize) : 0
        var bytes = [UInt8](repeating: 0, count: expected + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard bytes.count <= maximumSize else { break }
                bytes.append(contentsOf: repeatElement(0, count: min(max(bytes.count, 1 << 16), maximumSize + 1 - bytes.count)))
            }
            let n: Int
            do { n = try bytes.withUnsafeMutableBytes { raw throws(SystemError) in try retryingOnInterrupt { Glibc.read(fd, raw.baseAddress! + count, raw.count - count) } } } catch {
                throw .io("cannot read the vault \(path): \(error)")
            }
            if n == 0 { break }
            count += n
        }
        guard count <= maximumSize else { throw .vaultTooLarge(path: path, size: Int64(count), limit: maximumSize) }
        bytes.removeSubrange(count...)
        return bytes
    }

    // MARK: - Writing

    /// Replaces the file at `path` (no symbolic link: resolve it first) with `bytes`,
    /// atomically, mode 0600. Call with the vault's lock held.
    /// - Parameter unnamed: false skips `O_TMPFILE` and uses the named fallback (for tests).
    static func replace(_ path: String, with bytes: [UInt8], unnamed: Bool = true) throws(StoreError) {
        try StoreFiles.createFolders(for: path)
        let folder = RWSecretCore.folder(of: path)
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folderFD >= 0 else { throw .io("cannot open the folder \(folder): \(StoreFiles.errnoText())") }
        defer { close(folderFD) }
        sweep(folderFD, prefix: temporaryPrefix(for: path))
        // Unnamed until complete (PrivateFile); a named temporary only where O_TMPFILE is not supported.
        do {
            let file = try PrivateFile(in: folder, needsName: true, prefix: temporaryPrefix(for: path), unnamed: unnamed)
            try file.write(bytes)
            try file.sync()
            try file.link(as: path)
        } catch {
            throw .io("cannot write the new vault in \(folder): \(error)")
        }
        // Make the rename itself durable.
        _ = fsync(folderFD)
    }

    /// Removes this vault's leftover temporaries, and those of older versions
    /// (`.vault.XXXXXX`), when they are regular files of ours. Called with the lock
    /// held, so no writer of this vault is using them.
    static func sweep(_ folderFD: Int32, prefix: String) {
        let copy = dup(folderFD)
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return
        }
        defer { closedir(dir) }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            let legacy = name.hasPrefix(".vault.") && name.utf8.count == ".vault.".utf8.count + 6
            guard name.hasPrefix(prefix) || legacy else { continue }
            var info = stat()
            guard fstatat(folderFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0,
                  info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { continue }
            stale.append(name)
        }
        for name in stale { unlinkat(folderFD, name, 0) }
    }
}
