import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The files a run uses besides its input — the vault and its lock, the keyring's
/// lock, a key file, password files and descriptors — by device and inode, so that
/// `-o` can refuse to replace one of them with its output (as it refuses the input).
struct RunFiles {
    private var files: [(what: String, device: UInt, inode: UInt)] = []

    /// Adds the file at `path` (a link is followed; one that does not exist is no conflict).
    mutating func add(_ what: String, path: String?) {
        guard let path else { return }
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        files.append((what, UInt(info.st_dev), UInt(info.st_ino)))
    }

    /// Adds the file open on `fd` (call before the run reads and closes it).
    mutating func add(_ what: String, descriptor fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return }
        files.append((what, UInt(info.st_dev), UInt(info.st_ino)))
    }

    /// What `output` is when it is the same file as one of these ("the vault"), else nil.
    func conflict(with output: String) -> String? {
        var target = stat()
        guard stat(output, &target) == 0 else { return nil }
        return files.first { $0.device == UInt(target.st_dev) && $0.inode == UInt(target.st_ino) }?.what
    }

    /// The files of a run with these store options, key file, password files and
    /// password descriptors. The vault these options name and the two locks count
    /// even when the run does not open the store (`--no-store`, a key-based message,
    /// the keyring chosen): plaintext over them is never what was meant.
    static func of(global: some GlobalSettings, keyFile: String?, passwordFiles: [String], passwordDescriptors: [Int32] = []) -> RunFiles {
        var files = RunFiles()
        let selector = global.storeSelector
        let vault = selector.vaultPath().path
        files.add("the vault", path: vault)
        files.add("the vault's lock file", path: vault + ".lock")
        files.add("the keyring's lock file", path: selector.keyringLockPath())
        files.add("the key file", path: keyFile)
        for path in passwordFiles { files.add("a password file", path: path) }
        for fd in passwordDescriptors { files.add("the file of --password-fd \(fd)", descriptor: fd) }
        return files
    }
}
