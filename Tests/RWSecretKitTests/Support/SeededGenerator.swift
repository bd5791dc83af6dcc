import Foundation

/// A small deterministic generator (SplitMix64) so that a failing random test can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` pseudo-random bytes, eight per step (1 MiB stays quick in a debug build).
    mutating func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = next()
            for _ in 0..<min(8, count - index) {
                out[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return out
    }
}

/// Seeds for the randomised tests: fixed ones, plus `RWSECRET_TEST_SEED` (decimal) when set,
/// to replay a seed printed by a failing run.
enum TestSeeds {
    static func with(_ fixed: [UInt64]) -> [UInt64] {
        guard let text = ProcessInfo.processInfo.environment["RWSECRET_TEST_SEED"], let seed = UInt64(text) else { return fixed }
        return fixed.contains(seed) ? fixed : fixed + [seed]
    }

    /// Prints the seed so that a failure, even a crash, can be replayed.
    static func announce(_ seed: UInt64, _ test: String) {
        print("\(test): seed \(seed) (replay: RWSECRET_TEST_SEED=\(seed) swift test --filter ...)")
    }
}
