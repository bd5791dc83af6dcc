import RWSecretKit
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
        if let raw = getenv(environmentVariable) {
            let value = String(cString: raw)
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

    /// Whether the run will have one job, as far as the raw arguments tell before they are
    /// parsed: the last `--jobs N` (or `--jobs=N`) before any `--`, else `RWSECRET_JOBS`, else
    /// an affinity mask of one CPU. A one-job run starts no thread at all (a cgroup quota of
    /// one CPU is not read here: it costs a few file reads at every start).
    static func isOneBeforeParsing(_ arguments: [String]) -> Bool {
        if let option = EarlyArguments.lastValues(of: ["--jobs"], in: arguments)["--jobs"].flatMap({ Int($0) }) { return option == 1 }
        if let raw = getenv(environmentVariable) { return Int(String(cString: raw)) == 1 }
        return affinityCount() == 1
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
    ///
    /// Reads `/proc/self/cgroup` for the process's cgroup paths and, under the usual mount
    /// points, each folder's quota from that cgroup up to the root, keeping the smallest
    /// (a container that sees its host's path, without a cgroup namespace, finds its own
    /// quota at its mount's root). Bytes, not Strings: this runs at every start, where Swift's
    /// first uses of generic String APIs cost most of a millisecond.
    static func cgroupQuota() -> Int? {
        guard let memberships = readBytes("/proc/self/cgroup") else { return nil }
        var best: Int?
        func consider(_ quota: Int?) {
            if let quota { best = min(best ?? quota, quota) }
        }
        if let path = cgroupPath(memberships: memberships, version2: true) {
            for root in ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"] {
                for folder in folders(root: root, path: path) { consider(readBytes(folder + "/cpu.max").flatMap(quota(cpuMax:))) }
            }
        }
        if let path = cgroupPath(memberships: memberships, version2: false) {
            for root in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"] {
                for folder in folders(root: root, path: path) {
                    consider(quota(cfsQuota: readBytes(folder + "/cpu.cfs_quota_us"), period: readBytes(folder + "/cpu.cfs_period_us")))
                }
            }
        }
        return best
    }

    /// `root` + `path`, then each of its parents up to `root`.
    static func folders(root: String, path: [UInt8]) -> [String] {
        var result: [String] = []
        var components = path.split(separator: UInt8(ascii: "/"))
        while true {
            var folder = root
            for component in components { folder += "/" + String(decoding: component, as: UTF8.self) }
            result.append(folder)
            if components.isEmpty { return result }
            components.removeLast()
        }
    }

    /// Whole CPUs (rounded up) in a cgroup v2 `cpu.max` (`QUOTA PERIOD`): `max 100000` is none, `150000 100000` is 2.
    static func quota(cpuMax: [UInt8]) -> Int? {
        let fields = cpuMax.split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") })
        guard let first = fields.first, let quota = number(first), quota > 0 else { return nil }
        let period = fields.count >= 2 ? number(fields[1]) : 100_000
        guard let period, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// Whole CPUs (rounded up) from cgroup v1 `cpu.cfs_quota_us` (-1 is none) and `cpu.cfs_period_us`.
    static func quota(cfsQuota: [UInt8]?, period: [UInt8]?) -> Int? {
        guard let cfsQuota, let period else { return nil }
        let quotaField = cfsQuota.split(separator: UInt8(ascii: "\n")).first ?? []
        return quota(cpuMax: Array(quotaField) + [UInt8(ascii: " ")] + period)
    }

    /// This process's cgroup path in the v2 hierarchy (`0::PATH`) or the v1 `cpu` one, from `/proc/self/cgroup`.
    static func cgroupPath(memberships: [UInt8], version2: Bool) -> [UInt8]? {
        for line in memberships.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let matches = version2
                ? fields[0].elementsEqual([UInt8(ascii: "0")]) && fields[1].isEmpty
                : fields[1].split(separator: UInt8(ascii: ",")).contains { $0.elementsEqual(Array("cpu".utf8)) }
            if matches { return Array(fields[2]) }
        }
        return nil
    }

    /// A non-negative decimal number, or nil.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for digit in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    /// A small file of the kernel's (at most 4 KiB read), or nil.
    private static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        guard let count = try? readUntilFull(fd, into: &bytes) else { return nil }
        return Array(bytes[0..<count])
    }
}
