import Foundation
import Testing
@testable import rwsecret

/// The default `--jobs`: the affinity mask and the cgroup CPU quota.
@Suite("decrypt: default job count")
struct JobCountTests {
    @Test("cgroup v2 cpu.max: max is no quota; a fraction of a CPU rounds up", arguments: [
        ("max 100000\n", nil), ("100000 100000\n", 1), ("150000 100000", 2), ("50000 100000", 1), ("400000 100000\n", 4),
        ("", nil), ("garbage", nil), ("0 100000", nil), ("100000 0", nil), ("-1 100000", nil),
    ] as [(String, Int?)])
    func cpuMax(_ text: String, _ expected: Int?) {
        #expect(JobCount.quota(cpuMax: Array(text.utf8)) == expected, "\(text.debugDescription)")
    }

    @Test("cgroup v1 cfs quota: -1 is no quota")
    func cfsQuota() {
        #expect(JobCount.quota(cfsQuota: Array("-1\n".utf8), period: Array("100000\n".utf8)) == nil)
        #expect(JobCount.quota(cfsQuota: Array("200000\n".utf8), period: Array("100000\n".utf8)) == 2)
        #expect(JobCount.quota(cfsQuota: nil, period: Array("100000\n".utf8)) == nil)
    }

    @Test("/proc/self/cgroup: the v2 path and the v1 cpu controller's; the folders up to the mount's root")
    func paths() {
        let memberships = Array("4:memory:/x\n2:cpu,cpuacct:/spark/executor-1\n3:cpuset:/\n0::/docker/abc/worker\n".utf8)
        #expect(JobCount.cgroupPath(memberships: memberships, version2: false) == Array("/spark/executor-1".utf8))
        #expect(JobCount.cgroupPath(memberships: memberships, version2: true) == Array("/docker/abc/worker".utf8))
        #expect(JobCount.cgroupPath(memberships: Array("1:cpuset:/a\n".utf8), version2: false) == nil)
        #expect(JobCount.folders(root: "/sys/fs/cgroup", path: Array("/docker/abc".utf8))
                == ["/sys/fs/cgroup/docker/abc", "/sys/fs/cgroup/docker", "/sys/fs/cgroup"])
    }

    /// A cgroup folder this test may create with a CPU quota (v1 `cpu` hierarchy), or nil.
    static let cgroupParent: String? = {
        let parent = "/sys/fs/cgroup/cpu"
        let probe = parent + "/rwsecret-probe-\(getpid())"
        guard mkdir(probe, 0o755) == 0 else { return nil }
        rmdir(probe)
        return FileManager.default.fileExists(atPath: parent + "/cpu.cfs_quota_us") ? parent : nil
    }()

    @Test("a process in a cgroup with a quota of one CPU (or 1.5) runs one job (or two)",
          .enabled(if: JobCountTests.cgroupParent != nil, "needs a writable cgroup v1 cpu hierarchy (root)"),
          arguments: [(100_000, 1), (150_000, 2)])
    func realCgroup(quota: Int, expected: Int) throws {
        let dir = TemporaryFolder()
        let group = Self.cgroupParent! + "/rwsecret-test-\(UUID().uuidString)"
        #expect(mkdir(group, 0o755) == 0)
        defer { rmdir(group) }
        try "100000\n".write(toFile: group + "/cpu.cfs_period_us", atomically: false, encoding: .utf8)
        try "\(quota)\n".write(toFile: group + "/cpu.cfs_quota_us", atomically: false, encoding: .utf8)
        let result = try RWSecretProcess.run(
            ["-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$2\" decrypt --no-store --verbose", "sh", group, RWSecretProcess.executable.path],
            environment: RWSecretProcess.environment(home: dir.url), executable: URL(fileURLWithPath: "/bin/sh"))
        let line = result.errLines.first(where: { $0.hasPrefix("rwsecret: jobs: ") }) ?? ""
        #expect(line.hasPrefix("rwsecret: jobs: \(expected) ("), "\(result.errLines)")
        #expect(line.hasSuffix("cgroup quota \(expected))"), "\(result.errLines)")
    }
}
