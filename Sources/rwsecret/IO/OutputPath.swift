import RWSecretKit
import SystemPackage
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
        /// A FIFO, a device or a socket (or a link to one, such as `/dev/stdout` on a pipe): opened for writing.
        case openedThrough
        /// A symbolic link to a regular file, to nothing, or to what cannot be told: never
        /// followed, so a plaintext never lands in the target's mode (0644) or beyond OUT's folder.
        case symbolicLink
        /// A folder: cannot be written.
        case directory
        /// A link planted by another user in a sticky world-writable folder: never followed.
        case plantedLink
        /// A FIFO or regular file planted by another user in a sticky world-writable
        /// folder: never written (the reader of a FIFO would get the plaintext).
        case plantedFile
    }

    /// What is at `path`, from `lstat` (no link is followed); throws when that cannot be told.
    static func kind(of path: String) throws(Errno) -> Kind {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            if errno == ENOENT { return .replaceable }
            throw Errno.now
        }
        switch link.st_mode & S_IFMT {
        case S_IFREG where isPlanted(path, link), S_IFIFO where isPlanted(path, link): return .plantedFile
        case S_IFREG: return .replaceable
        case S_IFDIR: return .directory
        case S_IFLNK where isPlanted(path, link): return .plantedLink
        case S_IFLNK: return linkKind(path)
        default: return .openedThrough
        }
    }

    /// A link of one's own: written through only to what is no file (a FIFO, a device, the
    /// pipe behind `/dev/stdout`), or when it names this process's own stdout.
    private static func linkKind(_ path: String) -> Kind {
        var target = stat()
        guard stat(path, &target) == 0 else { return .symbolicLink }
        switch target.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return StandardStreams.namesStandardOutput(path) ? .openedThrough : .symbolicLink
        default: return .openedThrough
        }
    }

    /// Why an OUT that is a symbolic link is refused (73): after `cannot create: `.
    static let symbolicLinkRefusal = "a symbolic link (not followed: give the file it points to)"

    /// Throws the one-line refusal (73) of an OUT that may not be written (a folder, a
    /// symbolic link, what another user planted); a `kind` that cannot be told is left to the
    /// attempt to create it.
    static func checkWritable(_ output: String) throws {
        guard let found = try? kind(of: output), let reason = refusal(found) else { return }
        throw CommandFailure(.cannotCreate, "\(Output.escaped(output)): \(reason)")
    }

    /// The one-line reason (after `OUT: `) an OUT of this kind is refused; nil when it may be written.
    static func refusal(_ kind: Kind) -> String? {
        switch kind {
        case .replaceable, .openedThrough: nil
        case .directory: "cannot create: \(Errno(rawValue: EISDIR))"
        case .symbolicLink: "cannot create: " + symbolicLinkRefusal
        case .plantedLink: "cannot create: a symbolic link owned by another user in a sticky world-writable folder (not followed)"
        case .plantedFile: "cannot create: a FIFO or file owned by another user in a sticky world-writable folder (not written)"
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
        guard stat(folderPart(of: path), &parent) == 0 else { return false }
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
        return pseudo.contains(Int(rws_filesystem_type(folderPart(of: path))))
    }

    static func createFailure(_ path: String, _ error: Errno) -> String {
        var info = stat()
        let parent = folderPart(of: path)
        if error.rawValue == ENOENT, stat(parent, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            return "cannot create: the folder \(Output.escaped(parent)) does not take new files (\(error))"
        }
        return "cannot create: \(error)"
    }
}
