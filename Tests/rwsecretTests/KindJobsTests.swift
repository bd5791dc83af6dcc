import Foundation
import Testing
import RWSecretKit

/// Issue 36: the `!vault` values of a YAML file, and whole files of other kinds, run on up to
/// --jobs threads, as RNCryptor lines do, with the same records in the same order. Measured in
/// the scale model (debug builds: every key also sleeps `RWS_TEST_KDF_DELAY_US`, Ansible
/// Vault's PBKDF2-SHA256 included), so two cores show what --jobs does without timing anything.
@Suite("other kinds on --jobs threads (scale model)")
struct KindJobsTests {
    let dir = TemporaryFolder()

    static let kinds: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/kinds/manifest.tsv").path) { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/kinds")
    }()

    /// The password of `file`'s manifest row for `key` (hex in the manifest).
    static func password(_ file: String, key: String) -> [UInt8] {
        let text = (try? String(contentsOf: kinds.appendingPathComponent("manifest.tsv"), encoding: .utf8)) ?? ""
        let fields = text.split(separator: "\n").first { $0.hasPrefix(file + "\t") && $0.contains("\t\(key)\t") }!.split(separator: "\t", omittingEmptySubsequences: false)
        return Hex.decode(String(fields[3]))
    }

    /// A YAML file of `count` `!vault` values: the fixture's first value (one password), or with
    /// `mixed` its two values (two passwords) in runs of 1 to 9.
    func yaml(count: Int, mixed: Bool = false) throws -> String {
        let lines = try String(contentsOf: Self.kinds.appendingPathComponent("ansible-values.yml"), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let start = { (key: String) in lines.firstIndex { $0.hasPrefix(key + ":") }! }
        let blocks = ["db_password", "api_token"].map { key in
            let first = start(key)
            let end = lines[(first + 1)...].firstIndex { !$0.hasPrefix(" ") }!
            return lines[(first + 1)..<end].joined(separator: "\n")
        }
        var generator = SeededLCG(seed: 36)
        var text = "# made by KindJobsTests\n"
        var index = 0
        while index < count {
            let block = mixed ? Int(generator.next() % 2) : 0
            for _ in 0..<(1 + Int(generator.next() % 9)) where index < count {
                text += "value_\(index): !vault |\n" + blocks[block] + "\n"
                index += 1
            }
        }
        return dir.file("values.yml", text)
    }

    func run(jobs: Int, files: [String]) throws -> (out: [String], tried: Int, inFlight: [Int]) {
        let passwords = dir.file("passwords", bytes: Array("not it\n".utf8) + Self.password("ansible-values.yml", key: "db_password") + [0x0a]
                                 + Self.password("ansible-values.yml", key: "api_token") + [0x0a])
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWS_TEST_KDF_DELAY_US": "\(Self.delay)"])
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--jobs", "\(jobs)", "--password-file", passwords] + files,
                                             environment: environment, directory: dir.url)
        #expect(result.status == 0, "\(result.stderr)")
        // "FILE:LINE: ansible-vault, opened by NAME (tried N)"
        let tried = result.errLines.compactMap { line -> Int? in
            guard let range = line.range(of: "(tried ", options: .backwards) else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.reduce(0, +)
        let profilePrefix = "rwsecret: test: milliseconds with 0, 1, 2, ... key derivations in flight: "
        let profile = result.errLines.first { $0.hasPrefix(profilePrefix) }.map {
            $0.dropFirst(profilePrefix.count).split(separator: " ").compactMap { Int($0) }
        }
        return (result.outLines, tried, try #require(profile, "no in-flight profile: \(result.errLines)"))
    }

    /// Per key: long beside the real PBKDF2-SHA256 of a debug build on a loaded machine (~15 ms).
    static let delay = 40_000

    /// The share of the time with at least `level` derivations in flight.
    func share(atLeast level: Int, _ profile: [Int]) -> Double {
        let total = profile.reduce(0, +)
        return total == 0 ? 0 : Double(profile.dropFirst(level).reduce(0, +)) / Double(total)
    }

    // Before: the values were opened one after another on the main thread, whatever --jobs
    // said: 2 in flight 0% of the time.
    @Test("150 !vault values at --jobs 2: two derivations in flight a fifth of the time or more (never at --jobs 1), the same lines in the same order, the same tries")
    func vaultValuesUseEveryJob() throws {
        let file = try yaml(count: 150)
        let serial = try run(jobs: 1, files: [file])
        let parallel = try run(jobs: 2, files: [file])
        #expect(serial.out.count == 150)
        #expect(parallel.out == serial.out)
        #expect(share(atLeast: 2, serial.inFlight) == 0)
        let busy = share(atLeast: 2, parallel.inFlight)
        // 0 before (and at --jobs 1, checked above): any share well above it says the values overlap.
        #expect(busy >= 0.2, "2 derivations in flight \(Int(busy * 100))% of the time; ms with 0, 1, 2, ...: \(parallel.inFlight)")
        // One password for all: only the values in flight before the first one opened try the wrong one first.
        #expect(parallel.tried <= serial.tried + 2, "tried \(parallel.tried) at --jobs 2 against \(serial.tried)")
    }

    @Test("whole Ansible Vault files, several in one run at --jobs 2: one at a time, so the same lines in the same order and the same key derivations as --jobs 1 (the winner of each goes first for the next)")
    func wholeFilesKeepTheWinnerOrder() throws {
        let source = try Data(contentsOf: Self.kinds.appendingPathComponent("ansible-1.1.vault"))
        let password = (try String(contentsOf: Self.kinds.appendingPathComponent("manifest.tsv"), encoding: .utf8)).split(separator: "\n")
            .first { $0.hasPrefix("ansible-1.1.vault\t") }!.split(separator: "\t")[3]
        let files = (0..<8).map { dir.file("whole-\($0).vault", bytes: Array(source)) }
        let passwords = dir.file("passwords", bytes: Array("not it\n".utf8) + Hex.decode(String(password)) + [0x0a])
        var outs: [[String]] = []
        var derivations: [String] = []
        for jobs in [1, 2] {
            let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--jobs", "\(jobs)", "--password-file", passwords] + files,
                                                 environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
            #expect(result.status == 0, "\(result.stderr)")
            outs.append(result.outLines)
            derivations.append(try #require(result.errLines.first { $0.hasPrefix("rwsecret: key derivations:") }))
        }
        #expect(outs[0].count >= 8 && outs[1] == outs[0])
        // 2 for the first file (the wrong password, then the right one), 1 for each after it.
        #expect(derivations == ["rwsecret: key derivations: 9", "rwsecret: key derivations: 9"], "\(derivations)")
    }
}
