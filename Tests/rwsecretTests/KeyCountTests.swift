import Foundation
import Testing
import RWSecretKit

/// Every key counts: `--jobs 1` derives exactly the keys the chain order needs, and
/// `--jobs 2` at most 2% more (the `--verbose` key count shows it).
@Suite("key counts at --jobs 1 and 2")
struct KeyCountTests {
    let dir = TemporaryFolder()

    private func keyCount(_ arguments: [String], stdin: String) throws -> (count: Int, result: RWSecretProcess.Result) {
        let result = try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: RWSecretProcess.environment(home: dir.url))
        let line = result.errLines.first { $0.hasPrefix("rwsecret: key derivations: ") } ?? ""
        return (Int(line.dropFirst("rwsecret: key derivations: ".count)) ?? -1, result)
    }

    // Before: --jobs 1 derived the next candidates' keys in batches of three (2 wasted
    // whenever the first of a batch matched).
    @Test("--jobs 1 derives no key the chain order does not need (random draws from three passwords)")
    func serialDerivesOnlyWhatTheOrderNeeds() throws {
        let passwords = ["alpha-1", "bravo-2", "charlie-3"]
        let file = dir.file("passwords", passwords.joined(separator: "\n") + "\n")
        var generator = SeededLCG(seed: 7)
        var lines: [String] = []
        var expected = 0
        var latest: String?
        for _ in 0..<60 {
            let password = passwords[Int(generator.next() % 3)]
            lines.append(Messages.password("m", password))
            // The chain: the given order, but the password that opened the latest message first.
            var order = passwords
            if let latest { order.removeAll { $0 == latest }; order.insert(latest, at: 0) }
            expected += order.firstIndex(of: password)! + 2   // the passwords before it, itself, the encryption key
            latest = password
        }
        let (count, result) = try keyCount(["decrypt", "--no-store", "--verbose", "--jobs", "1", "--password-file", file], stdin: lines.joined(separator: "\n") + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(count == expected)
    }

    // Before: 20 messages, 64 passwords, the right one last: --jobs 2 derived 292 keys, --jobs 1 103.
    @Test("a 64-password chain with the right one last: --jobs 2 derives at most 2% more keys than --jobs 1")
    func longChainWastesNothing() throws {
        let wrong = (1...63).map { "wrong-password-\($0)" }
        let file = dir.file("passwords", (wrong + ["the-right-one"]).joined(separator: "\n") + "\n")
        let input = (0..<20).map { _ in Messages.password("hello", "the-right-one") }.joined(separator: "\n") + "\n"
        let serial = try keyCount(["decrypt", "--no-store", "--verbose", "--jobs", "1", "--password-file", file], stdin: input)
        let parallel = try keyCount(["decrypt", "--no-store", "--verbose", "--jobs", "2", "--password-file", file], stdin: input)
        #expect(serial.count == 64 + 1 + 19 * 2)
        #expect(parallel.result.outLines == Array(repeating: "hello", count: 20))
        #expect(Double(parallel.count) <= Double(serial.count) * 1.02, "--jobs 2 derived \(parallel.count) keys, --jobs 1 \(serial.count)")
    }
}

/// A small deterministic generator (the draws must be the same in every run).
struct SeededLCG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state >> 33
    }
}
