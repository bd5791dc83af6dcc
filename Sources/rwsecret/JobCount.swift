#if canImport(Glibc)
import Glibc
#endif

/// How many messages `decrypt` works on at once when `--jobs` is not given.
///
/// The CPUs this process may run on: its affinity mask (`taskset`, a container's
/// cpuset, a Spark or YARN executor pinned to its cores) and the CPU quota of its
/// cgroup (v2 `cpu.max`, v1 `cpu.cfs_quota_us`, the smallest along the path to
/// the root), rounded up; `RWSECRET_JOBS` overrides both. The number of online
/// CPUs is not used: a process pinned to one core of a 64-core machine that
/// started 64 jobs would only make them take turns.
struct JobCount {
    static let environmentVariable = "RWSECRET_JOBS"

    let jobs: Int
    /// Why, for `--verbose`.
    let reason: String

    /// `--jobs` when given, else `RWSECRET_JOBS`, else the CPU budget (64 for a bad `RWSECRET_JOBS`).
    static func resolve(option: Int?) throws -> JobCount {
        if let option { return JobCount(jobs: option, reason: "--jobs") }
        if let value = Environment[environmentVariable] {
            guard let jobs = Int(value), jobs >= 1 else {
                throw CommandFailure(.usage, "\(environmentVariable) must be a whole number of at least 1")
            }
            return JobCount(jobs: jobs, reason: environmentVariable)
        }
        let affinity = affinityCount()
        let quota = cgroupQuota()
        var jobs = affinity ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        if let quota { jobs = min(jobs, quota) }
        let affinityText = affinity.map { "affinity \($0) CPU\($0 == 1 ? "" : "s")" } ?? "affinity unknown"
        return JobCount(jobs: max(1, jobs), reason: "\(affinityText), cgroup quota \(quota.map(String.init) ?? "none")")
    }

    /// The CPUs in this process's affinity mask. The corresponding C function is `sched_getaffinity`.
    ///
    /// Glibc declares it only under `_GNU_SOURCE`, which Swift's Glibc module is not built
    /// with, so it is looked up by name (libc is always loaded).
    static func affinityCount() -> Int? {
        typealias GetAffinity = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(nil, "sched_getaffinity") else { return nil }
        let getAffinity = unsafeBitCast(symbol, to: GetAffinity.self)
        // 1,024 CPUs, as glibc's cpu_set_t; the kernel refuses a mask smaller than its own.
        var mask = [UInt64](repeating: 0, count: 16)
        let result = mask.withUnsafeMutableBytes { getAffinity(0, $0.count, $0.baseAddress!) }
        guard result == 0 else { return nil }
        let count = mask.reduce(0) { $0 + $1.nonzeroBitCount }
        return count > 0 ? count : nil
    }

    /// The CPU quota of this process's cgroups, in whole CPUs rounded up (nil when there is none).
    static func cgroupQuota() -> Int? {
        guard let memberships = readText("/proc/self/cgroup"), let mounts = readText("/proc/self/mountinfo") else { return nil }
        var best: Int?
        for mount in cgroupMounts(mountinfo: mounts) {
            guard let path = cgroupPath(memberships: memberships, version2: mount.version2) else { continue }
            // The cgroup's folder under the mount point (the mount may show a subtree only).
            var relative = path
            if mount.root != "/" {
                guard relative.hasPrefix(mount.root) else { continue }
                relative = String(relative.dropFirst(mount.root.count))
            }
            var components = relative.split(separator: "/").map(String.init)
            while true {
                let folder = ([mount.point] + components).joined(separator: "/")
                let quota = mount.version2
                    ? readText(folder + "/cpu.max").flatMap(Self.quota(cpuMax:))
                    : Self.quota(cfsQuota: readText(folder + "/cpu.cfs_quota_us"), period: readText(folder + "/cpu.cfs_period_us"))
                if let quota { best = min(best ?? quota, quota) }
                if components.isEmpty { break }
                components.removeLast()
            }
        }
        return best
    }

    /// Whole CPUs (rounded up) in a cgroup v2 `cpu.max`: `max 100000` is none, `150000 100000` is 2.
    static func quota(cpuMax: String) -> Int? {
        let fields = cpuMax.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 1, let quota = Int(fields[0]), quota > 0 else { return nil }
        let period = fields.count >= 2 ? Int(fields[1]) ?? 100_000 : 100_000
        guard period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// Whole CPUs (rounded up) from cgroup v1 `cpu.cfs_quota_us` (-1 is none) and `cpu.cfs_period_us`.
    static func quota(cfsQuota: String?, period: String?) -> Int? {
        guard let cfsQuota, let period else { return nil }
        return quota(cpuMax: cfsQuota.split(separator: "\n").first.map(String.init).map { "\($0) \(period)" } ?? "")
    }

    struct CgroupMount: Equatable {
        let point: String
        let root: String
        let version2: Bool
    }

    /// The cgroup2 mounts and the cgroup v1 mounts of the `cpu` controller, from `/proc/self/mountinfo`.
    static func cgroupMounts(mountinfo: String) -> [CgroupMount] {
        mountinfo.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard let dash = fields.firstIndex(of: "-"), dash >= 5, fields.count > dash + 3 else { return nil }
            let type = fields[dash + 1]
            let options = fields[dash + 3].split(separator: ",")
            guard type == "cgroup2" || (type == "cgroup" && options.contains("cpu")) else { return nil }
            return CgroupMount(point: unescape(fields[4]), root: unescape(fields[3]), version2: type == "cgroup2")
        }
    }

    /// This process's cgroup path in the v2 hierarchy (`0::PATH`) or the v1 `cpu` one, from `/proc/self/cgroup`.
    static func cgroupPath(memberships: String, version2: Bool) -> String? {
        for line in memberships.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if version2 ? fields[0] == "0" && fields[1].isEmpty : fields[1].split(separator: ",").contains("cpu") {
                return String(fields[2])
            }
        }
        return nil
    }

    /// mountinfo writes space, TAB, LF and backslash in paths as octal escapes (`\040`).
    private static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3, let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8) {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A small text file of the kernel's, or nil.
    private static func readText(_ path: String) -> String? {
        guard let bytes = try? readSmallFile(path, what: "file", limit: 1 << 20) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
