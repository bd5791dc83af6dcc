import Foundation
import Testing
@testable import rwsecret
#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 item 5: the memory budget of costly password tries reads the process's limits
/// (`RLIMIT_AS`, cgroup v1 `memory.limit_in_bytes`, v2 `memory.max`), a failed allocation
/// falls back to one try at a time, and memory that runs out even then is said as such, never
/// as a damaged file. Real limits: `prlimit --as` and a cgroup v1 memory controller.
@Suite("decrypt: memory limits")
struct MemoryLimitTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()
    static let scryptFile = "age-scrypt-unicode.age"

    func fixture(_ file: String) -> String { KindCommandTests.kinds.appendingPathComponent(file).path }

    /// Two wrong passwords, then the fixture's: three tries, which a budget of ten would run at once.
    func passwords() -> String {
        dir.file("passwords", bytes: Array("not it\nnor this\n".utf8) + KindCommandTests.row(Self.scryptFile).secret + [0x0a])
    }

    /// `rwsecret ARGS` under `prlimit --as=BYTES`.
    func underAddressLimit(_ bytes: Int, _ args: [String]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(["--as=\(bytes)", "--", RWSecretProcess.executable.path] + args,
                                environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                executable: URL(fileURLWithPath: "/usr/bin/prlimit"))
    }

    func scryptLine(_ result: RWSecretProcess.Result) -> String {
        result.errLines.first { $0.hasPrefix("rwsecret: scrypt work factor 18: ") } ?? "(none in \(result.errLines))"
    }

    /// The budget in MiB that the verbose line names (`memory budget 247 MiB`).
    func budgetMiB(_ line: String) -> Int? {
        guard let range = line.range(of: "(memory budget ") else { return nil }
        let rest = line[range.upperBound...]
        guard rest.contains(" MiB)") else { return nil }  // "x.y GiB": far more than a limit of 600 MiB leaves
        return Int(rest.prefix { $0.isNumber })
    }

    @Test("under prlimit --as=600M the default budget runs one scrypt at a time and the file opens (was: 'invalid header: scrypt refused work factor 18')")
    func addressSpaceLimitSetsTheBudget() throws {
        let result = try underAddressLimit(600 << 20, ["decrypt", "--no-store", "--verbose", "--jobs", "4", "--binary",
                                                        "--password-file", passwords(), fixture(Self.scryptFile)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sha256Hex(Array(result.stdout)) == KindCommandTests.row(Self.scryptFile).sha256)
        let line = scryptLine(result)
        #expect(line.contains("3 tried, 1 at once"), "\(line)")
        // Read from RLIMIT_AS less what the process maps: below 300 MiB, not half of MemAvailable.
        #expect((budgetMiB(line) ?? Int.max) < 300, "\(line)")
        #expect(!line.contains("memory ran out"), "the budget itself should have been right: \(line)")
    }

    @Test("a budget too large for the process's limit (--memory 4G under prlimit --as=600M): the failed allocation falls back to one at a time")
    func failedAllocationFallsBackToOneAtATime() throws {
        let result = try underAddressLimit(600 << 20, ["decrypt", "--no-store", "--verbose", "--jobs", "4", "--memory", "4G", "--binary",
                                                        "--password-file", passwords(), fixture(Self.scryptFile)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sha256Hex(Array(result.stdout)) == KindCommandTests.row(Self.scryptFile).sha256)
        let line = scryptLine(result)
        #expect(line.contains("(memory ran out for 3 at once: then one at a time)"), "\(line)")
        #expect(!result.stderr.contains("invalid header"), "\(result.stderr)")
    }

    // 256M, not more: under 300M the one try's 256 MiB fitted in 1 run of 9 (the process's own
    // address space varies with the threads and malloc arenas it has made by then).
    @Test("when even one scrypt cannot get its 256 MiB (prlimit --as=256M): 'memory ran out', status 1, never 'invalid header'")
    func oneTryTooManyIsMemoryRunningOut() throws {
        let result = try underAddressLimit(256 << 20, ["decrypt", "--no-store", "--jobs", "4", "--binary",
                                                        "--password-file", passwords(), fixture(Self.scryptFile)])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.errLines == ["rwsecret: \(fixture(Self.scryptFile)): age file: memory ran out: scrypt work factor 18 needs 256 MiB for one try, more than this process may allocate"],
                "\(result.errLines)")
    }

    @Test("an Argon2 S2K (2 GiB a try) under prlimit --as=1G: 'memory ran out', not 'Argon2 S2K failed'")
    func argon2AllocationFailureIsMemoryRunningOut() throws {
        let message = KindCommandTests.kinds.appendingPathComponent("openpgp-rfc9580/a12.1-v4skesk-argon2-aes128.asc").path
        let list = dir.file("argon2-password", "password\n")
        let result = try underAddressLimit(1 << 30, ["decrypt", "--no-store", "--jobs", "4", "--password-file", list, message])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("OpenPGP message: memory ran out: OpenPGP Argon2 S2K (t=1, p=4, m=2^21 KiB) needs 2048 MiB for one try"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("Argon2 S2K failed"), "\(result.stderr)")
    }

    @Test("in a cgroup v1 memory controller limited to 600 MiB, the budget reads memory.limit_in_bytes and the file opens",
          .enabled(if: geteuid() == 0 && FileManager.default.fileExists(atPath: "/sys/fs/cgroup/memory/memory.limit_in_bytes"),
                   "needs root and a cgroup v1 memory controller"))
    func cgroupV1LimitSetsTheBudget() throws {
        let group = "/sys/fs/cgroup/memory/rwsecret-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard mkdir(group, 0o755) == 0 else { return }  // a read-only controller: nothing to measure
        defer { rmdir(group) }
        try "\(600 << 20)\n".write(toFile: group + "/memory.limit_in_bytes", atomically: false, encoding: .utf8)
        let script = "echo $$ > \"$GROUP/cgroup.procs\" && exec \"$RWSECRET\" \"$@\""
        var environment = RWSecretProcess.environment(home: dir.url)
        environment["GROUP"] = group
        environment["RWSECRET"] = RWSecretProcess.executable.path
        let result = try RWSecretProcess.run(["-c", script, "in-group", "decrypt", "--no-store", "--verbose", "--jobs", "4", "--binary",
                                              "--password-file", passwords(), fixture(Self.scryptFile)],
                                             environment: environment, directory: dir.url, executable: URL(fileURLWithPath: "/bin/sh"))
        // Without the limit read, three 256 MiB tries at once meet the cgroup's OOM killer.
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sha256Hex(Array(result.stdout)) == KindCommandTests.row(Self.scryptFile).sha256)
        let line = scryptLine(result)
        #expect((budgetMiB(line) ?? Int.max) < 300, "\(line)")
    }

    @Test("the v1 memory controller's path and /proc/self/status sizes are read as the kernel writes them")
    func parsing() {
        #expect(MemoryBudget.v1MemoryPath(memberships: "5:devices:/\n4:memory:/user.slice/a\n0::/\n") == "/user.slice/a")
        #expect(MemoryBudget.v1MemoryPath(memberships: "3:cpu,cpuacct:/x\n6:memory,hugetlb:/y\n") == "/y")
        #expect(MemoryBudget.v1MemoryPath(memberships: "0::/only-v2\n") == nil)
        #expect(MemoryBudget.statusKiB("Name:\trwsecret\nVmPeak:\t  200 kB\nVmSize:\t  123456 kB\n", field: "VmSize:") == 123456 * 1024)
        #expect(MemoryBudget.statusKiB("Name:\trwsecret\n", field: "VmSize:") == nil)
    }
}
