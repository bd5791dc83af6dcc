import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Rules for `-o OUT` that do not depend on what is written.
enum OutputPath {
    /// Whether `path` is a symbolic link that the kernel's `protected_symlinks`
    /// rule forbids following: in a sticky world-writable folder (like /tmp),
    /// owned neither by this user nor by the folder's owner.
    ///
    /// rwsecret applies the rule itself, whatever `fs.protected_symlinks` says,
    /// so that a link planted in /tmp by another user can never make root (or
    /// anyone) write through it. `link` is `lstat(path)`.
    static func isPlantedLink(_ path: String, _ link: stat) -> Bool {
        var parent = stat()
        guard stat(folder(of: path), &parent) == 0 else { return false }
        let sticky = parent.st_mode & S_ISVTX != 0
        let worldWritable = parent.st_mode & S_IWOTH != 0
        return sticky && worldWritable && link.st_uid != geteuid() && link.st_uid != parent.st_uid
    }
}
