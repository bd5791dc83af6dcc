import RWSecretKit
import CLinuxSyscalls
#if canImport(Glibc)
import Glibc
#endif

/// Rules for `-o OUT` that do not depend on what is written (decrypt and encrypt alike).
enum OutputPath {
    /// What is at OUT, as far as writing it goes.
    enum Kind {
        /// Nothing, or a regular file: a private file in OUT's folder is renamed over the name.
        case replaceable
        /// A symbolic link or a non-regular file (FIFO, device): opened for writing, by the kernel's rules.
        case openedThrough
        /// A folder: cannot be written.
        case directory
        /// A link planted by another user in a sticky world-writable folder: never followed.
        case plantedLink
        /// A FIFO or regular file planted by another user in a sticky world-writable
        /// folder: never written (the reader of a FIFO would get the plaintext).
        case plantedFile
    }

    /// What is at `path`, from `lstat` (no link is followed); throws when that cannot be told.
    static func kind(of path: String) throws(SystemError) -> Kind {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            if errno == ENOENT { return .replaceable }
            throw SystemError.current
        }
        switch link.st_mode & S_IFMT {
        case S_IFREG where isPlanted(path, link), S_IFIFO where isPlanted(path, link): return .plantedFile
        case S_IFREG: return .replaceable
        case S_IFDIR: return .directory
        case S_IFLNK where isPlanted(path, link): return .plantedLink
        default: return .openedThrough
        }
    }

    /// Whether `path` (a symbolic link, FIFO or regular file) is one that the
    /// kernel's `protected_symlinks`, `protected_fifos` and `protected_regular`
    /// rules keep a process from following or opening with `O_CREAT`: in a sticky
    /// world-writable folder (like /tmp), owned neither by this user nor by the
    /// folder's owner.
    ///
    /// rwsecret applies the rules itself, whatever `fs.protected_*` say, so that a
    /// link, FIFO or file planted in /tmp by another user can never make root (or
    /// anyone) write through it, or hand the planter the plaintext. `link` is
    /// `lstat(path)`.
    private static func isPlanted(_ path: String, _ link: stat) -> Bool {
        var parent = stat()
        guard stat(folder(of: path), &parent) == 0 else { return false }
        let sticky = parent.st_mode & S_ISVTX != 0
        let worldWritable = parent.st_mode & S_IWOTH != 0
        return sticky && worldWritable && link.st_uid != geteuid() && link.st_uid != parent.st_uid
    }
}

extension OutputPath {
    /// Why OUT cannot be created, in words: ENOENT from a folder that exists (`-o /proc/version`:
    /// procfs takes no new file) would read "No such file or directory" of a file that is there.
    /// Whether OUT's folder is on a pseudo filesystem that makes no files (proc, sysfs, cgroup):
    /// there a refused unnamed file (EOPNOTSUPP) means "no new files", not a FUSE-like filesystem.
    static func inPseudoFilesystem(_ path: String) -> Bool {
        let pseudo: Set<Int> = [0x9fa0, 0x6265_6572, 0x6462_6720, 0x0027_e0eb, 0x6367_7270]  // proc, sysfs, debugfs, cgroup, cgroup2
        return pseudo.contains(Int(rws_filesystem_type(folder(of: path))))
    }

    static func createFailure(_ path: String, _ error: SystemError) -> String {
        var info = stat()
        let parent = folder(of: path)
        if error.code == ENOENT, stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            return "cannot create: the folder \(Output.escaped(parent)) does not take new files (\(error))"
        }
        return "cannot create: \(error)"
    }
}
