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

    @Test("whole Ansible Vault files, several in one run at --jobs 2: the same lines in the same order and the same key derivations as --jobs 1 (the winner of each goes first for the next)")
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

    /// `count` copies of the fixture's whole Ansible Vault file, and a password file: a wrong
    /// password, then its own.
    func vaultFiles(_ count: Int) throws -> (files: [String], passwords: String) {
        let source = try Data(contentsOf: Self.kinds.appendingPathComponent("ansible-1.1.vault"))
        let files = (0..<count).map { dir.file(String(format: "whole-%02d.vault", $0), bytes: Array(source)) }
        return (files, dir.file("passwords", bytes: Array("not it\n".utf8) + Self.password("ansible-1.1.vault", key: "-") + [0x0a]))
    }

    // Before: whole files were opened one after another on the reading thread, whatever --jobs
    // said: 2 in flight 0% of the time (seen failing so: "2 derivations in flight 0% of the time").
    @Test("16 whole Ansible Vault files at --jobs 2: two derivations in flight a tenth of the time or more (never at --jobs 1), the same lines in the same order, the same key derivations")
    func wholeFilesUseEveryJob() throws {
        let (files, passwords) = try vaultFiles(16)
        var runs: [(out: [String], derivations: String?, inFlight: [Int])] = []
        for jobs in [1, 2] {
            let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--jobs", "\(jobs)", "--password-file", passwords] + files,
                                                 environment: RWSecretProcess.environment(home: dir.url, extra: ["RWS_TEST_KDF_DELAY_US": "\(Self.delay)"]),
                                                 directory: dir.url)
            #expect(result.status == 0, "\(result.stderr)")
            let profilePrefix = "rwsecret: test: milliseconds with 0, 1, 2, ... key derivations in flight: "
            let profile = try #require(result.errLines.first { $0.hasPrefix(profilePrefix) }, "no in-flight profile: \(result.errLines)")
            runs.append((result.outLines, result.errLines.first { $0.hasPrefix("rwsecret: key derivations:") },
                         profile.dropFirst(profilePrefix.count).split(separator: " ").compactMap { Int($0) }))
        }
        #expect(runs[0].out.count == 16 && runs[1].out == runs[0].out)
        #expect(share(atLeast: 2, runs[0].inFlight) == 0)
        let busy = share(atLeast: 2, runs[1].inFlight)
        #expect(busy >= 0.1, "2 derivations in flight \(Int(busy * 100))% of the time; ms with 0, 1, 2, ...: \(runs[1].inFlight)")
        // 2 for the first file, 1 for each after it, at both.
        #expect(runs.map(\.derivations) == ["rwsecret: key derivations: 17", "rwsecret: key derivations: 17"])
    }

    func shell(_ script: String, _ arguments: [String]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(["-c", script, "sh"] + arguments, environment: RWSecretProcess.environment(home: dir.url, extra: [:]),
                                directory: dir.url, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// An age file under `password` (scrypt, work factor 10), of `plaintext`.
    func ageFile(_ name: String, password: String, plaintext: String) -> String {
        let encryptor = AgeEncryptor(password: SecretBytes(utf8: password), workFactor: 10, armor: false)
        return dir.file(name, bytes: encryptor.update(Array(plaintext.utf8)) + encryptor.finalize())
    }

    /// A `gpg -c` message under `password` (iterated S2K, 65,536 bytes), of `plaintext`.
    func gpgFile(_ name: String, password: String, plaintext: String) throws -> String {
        let home = dir.url.appendingPathComponent("gnupg").path
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let passphrase = dir.file("passphrase-\(name)", password)
        let plain = dir.file("plain-\(name)", plaintext)
        let made = try shell("gpg --homedir \"$1\" --batch --yes --pinentry-mode loopback --passphrase-fd 3 --s2k-count 65536 --compress-algo none -o \"$4\" -c \"$2\" 3<\"$3\"; s=$?; gpgconf --homedir \"$1\" --kill gpg-agent; exit $s",
                             [home, plain, passphrase, name])
        try #require(made.status == 0, "\(made.stderr)")
        return dir.url.appendingPathComponent(name).path
    }

    /// Runs `files` at --jobs 1 and 2, plain and with --json: stdout of each, and the key derivations.
    func runBoth(_ files: [String], passwords: String) throws -> [(jobs: Int, out: String, json: String, derivations: Int)] {
        try [1, 2].map { jobs in
            var outs: [String] = []
            var derivations = -1
            for json in [false, true] {
                let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--jobs", "\(jobs)", "--password-file", passwords] + (json ? ["--json"] : []) + files,
                                                     environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
                #expect(result.status == 0, "\(result.stderr)")
                outs.append(result.out)
                let line = try #require(result.errLines.first { $0.hasPrefix("rwsecret: key derivations: ") })
                derivations = Int(line.dropFirst("rwsecret: key derivations: ".count)) ?? -1
            }
            return (jobs, outs[0], outs[1], derivations)
        }
    }

    @Test("age -p, gpg -c and Ansible Vault files, 12 under one password, at --jobs 2: stdout and --json byte for byte those of --jobs 1, and its key derivations")
    func mixedKindsAsAtOneJob() throws {
        let vault = try vaultFiles(4)
        let password = String(decoding: Self.password("ansible-1.1.vault", key: "-"), as: UTF8.self)
        var files: [String] = []
        for index in 0..<4 {
            files.append(ageFile("file-\(index)a.age", password: password, plaintext: "age file \(index)\n"))
            files.append(try gpgFile("file-\(index)b.gpg", password: password, plaintext: "gpg file \(index)\n"))
            files.append(vault.files[index])
        }
        let runs = try runBoth(files, passwords: vault.passwords)
        #expect(runs[0].out.split(separator: "\n").count == 12)
        #expect(runs[1].out == runs[0].out)
        #expect(runs[1].json == runs[0].json)
        // The first file: the wrong password, then the right one; each after it: the right one.
        #expect(runs.map(\.derivations) == [13, 13])
    }

    @Test("clustered: 4 files under one password, then 4 under another (age -p and gpg -c) at --jobs 2: the same stdout as --jobs 1, and one key derivation more at most")
    func clusteredPasswordChange() throws {
        var files: [String] = []
        for index in 0..<8 {
            let password = index < 4 ? "alpha password" : "beta password"
            files.append(index % 2 == 0 ? ageFile("c-\(index).age", password: password, plaintext: "file \(index)\n")
                                        : try gpgFile("c-\(index).gpg", password: password, plaintext: "file \(index)\n"))
        }
        let passwords = dir.file("passwords", "not it\nalpha password\nbeta password\n")
        let runs = try runBoth(files, passwords: passwords)
        #expect(runs[0].out.split(separator: "\n").count == 8)
        #expect(runs[1].out == runs[0].out)
        #expect(runs[1].json == runs[0].json)
        // --jobs 1: 2 for the first file, 1 each for the next three, 3 for the fifth (the old
        // password, the wrong one, the new one), 1 each for the last three.
        #expect(runs[0].derivations == 11)
        #expect(runs[1].derivations <= runs[0].derivations + 1, "\(runs[1].derivations) key derivations at --jobs 2 against \(runs[0].derivations)")
    }

    @Test("age -p files at --jobs 2 share --memory: the first file (alone) has all of it, each file in flight after it half; a try larger than half: every file alone, with all of it")
    func wholeFilesShareTheMemoryBudget() throws {
        let files = (0..<4).map { ageFile("m-\($0).age", password: "right", plaintext: "file \($0)\n") }
        let passwords = dir.file("passwords", "wrong 1\nwrong 2\nright\n")
        // Work factor 10: 1 MiB a try.
        for (memory, expected) in [("4M", ["4 MiB", "2 MiB", "2 MiB", "2 MiB"]), ("1536K", ["1 MiB", "1 MiB", "1 MiB", "1 MiB"])] {
            let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--jobs", "2", "--memory", memory, "--password-file", passwords] + files,
                                                 environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.outLines == (0..<4).map { "file \($0)" })
            // "FILE:1: scrypt work factor 10: 1 MiB per try, 3 tried, 1 at once (memory budget 2 MiB), ..."
            let budgets = result.errLines.filter { $0.contains("scrypt work factor 10") }.map { line in
                line.range(of: "(memory budget ").map { String(line[$0.upperBound...].prefix { $0 != ")" }) } ?? line
            }
            #expect(budgets == expected, "--memory \(memory): \(result.errLines)")
        }
    }
}
