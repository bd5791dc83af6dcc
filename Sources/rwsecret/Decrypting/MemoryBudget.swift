import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `decrypt --memory SIZE`: the memory the tries of a costly key derivation (age's scrypt,
/// 256 MiB a try at its default work factor) may use at once. Default: half the memory
/// available now: `MemAvailable`, within what this process's limits leave — its address space
/// (`RLIMIT_AS`, `ulimit -v`, `prlimit --as`) less what it maps already, and its cgroup's
/// (v2 `memory.max`, v1 `memory.limit_in_bytes`) less what the cgroup uses.
enum MemoryBudget {
    /// `512M`, `4G`, `1.5G`, `300MiB`, `65536K`, `2147483648` (bytes): binary units (K = 1024),
    /// an optional `B` or `iB`; nil for anything else, zero, or more than an exbibyte
    /// (the library's `ProcessMemory.parseSize`).
    static func parse(_ text: String) -> Int? { ProcessMemory.parseSize(text) }

    static let usage = "--memory must be a size such as 512M, 4G or 1.5G (K, M, G, T: powers of 1024), more than 0"

    /// The budget for this run: `--memory` when given, else half the memory available now;
    /// with why, for `--verbose`.
    /// It is also the process's (`ProcessMemory.limit`): the run's tries and chunk ring together.
    static func resolve(option: String?) -> (bytes: Int, reason: String) {
        let resolved: (bytes: Int, reason: String)
        if let option, let bytes = parse(option) {
            resolved = (bytes, "--memory")
        } else {
            let (bytes, limit) = availableWithLimit()
            resolved = (bytes / 2, "half the memory available" + (limit.map { " (\($0))" } ?? ""))
        }
        ProcessMemory.limit(to: resolved.bytes)
        return resolved
    }

    /// `MemAvailable` of /proc/meminfo (else the free pages), capped by what this process's
    /// address-space limit and cgroups leave.
    static func available() -> Int { availableWithLimit().bytes }

    /// As `available()`, with the limit that set it (nil: `MemAvailable` itself).
    static func availableWithLimit() -> (bytes: Int, limit: String?) {
        var bytes = meminfoAvailable() ?? Int(sysconf(Int32(_SC_AVPHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        var limit: String?
        for (left, name) in [(addressSpaceLeft(), "RLIMIT_AS"), (cgroupLeft(), "cgroup memory.max"), (cgroupV1Left(), "cgroup memory.limit_in_bytes")] {
            if let left, left < bytes { bytes = left; limit = name }
        }
        return (max(0, bytes), limit)
    }

    /// What `RLIMIT_AS` leaves of the address space: the soft limit less `VmSize` (the process's
    /// mappings now: libraries, thread stacks, malloc's arenas); nil without a limit.
    static func addressSpaceLeft() -> Int? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }  // RLIM_INFINITY
        let size = readText("/proc/self/status").flatMap { statusKiB($0, field: "VmSize:") } ?? 0
        return Int(clamping: limit.rlim_cur) - size
    }

    /// A `NAME:   123 kB` field of /proc/self/status, in bytes.
    static func statusKiB(_ text: String, field: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(field) {
            let fields = line.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" })
            return fields.first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    private static func meminfoAvailable() -> Int? {
        guard let text = readText("/proc/meminfo") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
            return kib * 1024
        }
        return nil
    }

    /// The least that `memory.max - memory.current` leaves along this process's cgroup v2 path.
    private static func cgroupLeft() -> Int? {
        guard let memberships = readText("/proc/self/cgroup"),
              let path = JobCount.cgroupPath(memberships: Array(memberships.utf8), version2: true) else { return nil }
        return least(roots: ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"], path: path, limit: "memory.max", usage: "memory.current")
    }

    /// The least that `memory.limit_in_bytes - memory.usage_in_bytes` leaves along this
    /// process's cgroup v1 path of the memory controller (no limit reads as about 2^63).
    private static func cgroupV1Left() -> Int? {
        guard let memberships = readText("/proc/self/cgroup"), let path = v1MemoryPath(memberships: memberships) else { return nil }
        return least(roots: ["/sys/fs/cgroup/memory"], path: Array(path.utf8), limit: "memory.limit_in_bytes", usage: "memory.usage_in_bytes")
    }

    /// The path of the v1 line whose controllers include `memory` (`4:memory:/user.slice`).
    static func v1MemoryPath(memberships: String) -> String? {
        for line in memberships.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].split(separator: ",").contains("memory") else { continue }
            return String(fields[2])
        }
        return nil
    }

    /// The least that `limit - usage` leaves along `path` and its parents under each of `roots`
    /// (a container that sees its host's path finds its own limit at its mount's root).
    private static func least(roots: [String], path: [UInt8], limit: String, usage: String) -> Int? {
        var least: Int?
        for root in roots {
            for folder in JobCount.folders(root: root, path: path) {
                guard let max = readText(folder + "/" + limit).flatMap({ Int($0.trimmingCharacters(in: "\n")) }),
                      let current = readText(folder + "/" + usage).flatMap({ Int($0.trimmingCharacters(in: "\n")) }) else { continue }
                least = min(least ?? Int.max, max - current)
            }
        }
        return least
    }

    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16 << 10)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { return nil }
            if n == 0 { break }
            count += n
        }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
