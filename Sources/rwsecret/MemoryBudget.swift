import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `decrypt --memory SIZE`: the memory the tries of a costly key derivation (age's scrypt,
/// 256 MiB a try at its default work factor) may use at once. Default: half the memory
/// available now (`MemAvailable`, within this process's cgroup `memory.max`).
enum MemoryBudget {
    /// `512M`, `4G`, `1.5G`, `300MiB`, `65536K`, `2147483648` (bytes): binary units (K = 1024),
    /// an optional `B` or `iB`; nil for anything else, zero, or more than an exbibyte.
    static func parse(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1.0
        for suffix in ["iB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits = digits.dropLast(suffix.count)
            break
        }
        if let last = digits.last, let power = ["K": 1.0, "M": 2.0, "G": 3.0, "T": 4.0][String(last).uppercased()] {
            unit = pow(1024, power)
            digits = digits.dropLast()
        } else if text.hasSuffix("iB") {
            return nil  // "iB" needs a unit before it
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), digits.filter({ $0 == "." }).count <= 1,
              let value = Double(digits), value.isFinite else { return nil }
        let bytes = value * unit
        guard bytes >= 1, bytes < Double(1 << 60) else { return nil }
        return Int(bytes)
    }

    static let usage = "--memory must be a size such as 512M, 4G or 1.5G (K, M, G, T: powers of 1024), more than 0"

    /// The budget for this run: `--memory` when given, else half the memory available now;
    /// with why, for `--verbose`.
    static func resolve(option: String?) -> (bytes: Int, reason: String) {
        if let option, let bytes = parse(option) { return (bytes, "--memory") }
        return (available() / 2, "half the memory available")
    }

    /// `MemAvailable` of /proc/meminfo (else the free pages), capped by what this process's
    /// cgroup v2 `memory.max` leaves (`memory.current` used already).
    static func available() -> Int {
        var bytes = meminfoAvailable() ?? Int(sysconf(Int32(_SC_AVPHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        if let left = cgroupLeft() { bytes = min(bytes, left) }
        return max(0, bytes)
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
        var least: Int?
        for folder in JobCount.folders(root: "/sys/fs/cgroup", path: path) {
            guard let max = readText(folder + "/memory.max").flatMap({ Int($0.trimmingCharacters(in: "\n")) }),
                  let current = readText(folder + "/memory.current").flatMap({ Int($0.trimmingCharacters(in: "\n")) }) else { continue }
            least = min(least ?? Int.max, max - current)
        }
        return least
    }

    private static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16 << 10)
        guard let count = try? readFully(fd, into: &bytes) else { return nil }
        return String(decoding: bytes[0..<count], as: UTF8.self)
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}
