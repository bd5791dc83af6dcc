import Foundation
import Testing
import RWSecretKit
@testable import rwsecret
#if canImport(Glibc)
import Glibc
#endif

/// What a run of another kind shares with an RNCryptor run (issue 24, what was left): the
/// memory budget of parallel scrypt tries (`--memory`), the progress line, line mode on pipes,
/// the empty-chain line and the input-changed check.
@Suite("decrypt: age and Ansible runs as RNCryptor runs")
struct KindRunTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    func fixture(_ file: String) -> String { KindCommandTests.kinds.appendingPathComponent(file).path }

    /// A password file: a wrong password, then the fixture's secret.
    func passwords(for file: String) -> String {
        dir.file("passwords", bytes: Array("not it\n".utf8) + KindCommandTests.row(file).secret + [0x0a])
    }

    // MARK: --memory

    @Test("--memory SIZE", arguments: [("512M", 512 << 20), ("4G", 4 << 30), ("1.5G", 3 << 29), ("300MiB", 300 << 20), ("64K", 64 << 10),
                                       ("2048", 2048), ("1t", 1 << 40), ("0", nil), ("", nil), ("12X", nil), ("M", nil), ("-1G", nil),
                                       ("1.2.3G", nil), ("5iB", nil), ("1e3M", nil), ("99999999999G", nil)] as [(String, Int?)])
    func memorySizes(_ text: String, _ expected: Int?) {
        #expect(MemoryBudget.parse(text) == expected, "\(text)")
    }

    @Test("the default budget is half the memory available, never more than the machine has")
    func defaultBudget() {
        let (bytes, reason) = MemoryBudget.resolve(option: nil)
        let physical = Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE)))
        #expect(bytes > 0 && bytes <= physical / 2, "\(bytes) of \(physical)")
        #expect(reason == "half the memory available")
    }

    @Test("--memory bounds the age scrypt tries at once (one at a time below two tries' worth); --verbose says what the tries cost")
    func memoryBoundsScryptTries() throws {
        let file = "age-scrypt-unicode.age"
        let list = passwords(for: file)
        for (memory, atOnce, budget) in [("300M", 1, "300 MiB"), ("100M", 1, "100 MiB"), ("1G", 2, "1.0 GiB")] {
            let result = try run(["decrypt", "--no-store", "--verbose", "--jobs", "2", "--memory", memory, "--binary", "--password-file", list, fixture(file)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(sha256Hex(Array(result.stdout)) == KindCommandTests.row(file).sha256)
            let line = result.errLines.first { $0.hasPrefix("rwsecret: scrypt work factor 18: ") }
            #expect(line?.hasPrefix("rwsecret: scrypt work factor 18: 256 MiB per try, 2 tried, \(atOnce) at once (memory budget \(budget)), ") == true,
                    "\(memory): \(result.errLines)")
            #expect(line?.hasSuffix(" ms a try") == true, "\(result.errLines)")
        }
        let bad = try run(["decrypt", "--no-store", "--memory", "12X", "--binary", fixture(file)])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains(MemoryBudget.usage), "\(bad.stderr)")
    }
}
