// Shared by every fuzz target (compiled into each; see Fuzz/Makefile).
@_spi(Testing) import RWSecretKit

#if canImport(Glibc)
import Glibc
#endif

/// The PBKDF2 iteration count the targets use instead of RNCryptor's 10,000, so an input
/// costs microseconds, not milliseconds. Fuzz/make_seeds.py makes the seeds with it.
let fuzzIterations = 3

/// Passwords and keys the seeds are encrypted with (Fuzz/make_seeds.py uses the same).
enum FuzzSecrets {
    static let password = "fuzz"
    /// Seeds of the official vectors keep their own passwords (re-encrypted at `fuzzIterations`).
    static let vectorPasswords = ["a", "password", "thepassword", "中文密码",
                                  "It was the best of times, it was the worst of times; it was the age of wisdom, it was the age of foolishness;"]
    /// The key pair of key-based seeds: encryption key 00 01 … 1f, HMAC key 20 21 … 3f.
    static let keys = try! MessageKeys(encryptionKey: SecretBytes((0..<32).map { UInt8($0) }),
                                  hmacKey: SecretBytes((32..<64).map { UInt8($0) }))
}

/// Sets up a target once (libFuzzer calls `LLVMFuzzerInitialize` before the first input).
func fuzzInitialize() {
    KeyDerivation.overrideIterationsForTesting(fuzzIterations)
    if Outcomes.enabled { atexit { Outcomes.print() } }
}

/// With RWSECRET_FUZZ_STATS set, how the inputs ended, printed at exit: which layers the
/// inputs reach (replay a corpus with -runs=0 to see what it covers).
enum Outcomes {
    static let enabled = getenv("RWSECRET_FUZZ_STATS") != nil
    nonisolated(unsafe) private static var counts: [String: Int] = [:]
    static func record(_ outcome: @autoclosure () -> String) {
        if enabled { counts[outcome(), default: 0] += 1 }
    }
    static func print() {
        let text = "outcomes: " + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
}

/// An invariant: when it fails, the input is a finding (libFuzzer saves it as crash-…).
func require(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    guard !condition else { return }
    let text = "fuzz invariant broken at \(file):\(line): \(message())\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    abort()
}

/// What a decryption came to: the plaintext, or the typed error (`caseName`, `summary` in the library).
typealias Outcome = DecryptionOutcome

/// A password or a key pair: what opens a message.
///
/// Two optionals rather than an enum with two payload cases: Swift keeps such an enum's
/// case in the spare bits of the payload's pointer, where LeakSanitizer cannot recognise
/// the pointer, so a global table of them is reported as leaked.
struct Credential: Sendable {
    let password: SecretBytes?
    let keys: MessageKeys?

    static func password(_ password: SecretBytes) -> Credential { Credential(password: password, keys: nil) }
    static func keys(_ keys: MessageKeys) -> Credential { Credential(password: nil, keys: keys) }

    /// A decryptor for this credential.
    func decryptor() -> DecryptorEngine {
        if let password { DecryptorEngine(password: password) } else { DecryptorEngine(keys: keys!) }
    }
}

/// Splits a message into chunks of sizes drawn from the fuzz input: a tiny xorshift
/// generator seeded with input bytes, and a largest size picked from sizes around the
/// block (16), tag (32) and header (18, 34) boundaries.
struct ChunkPlan: Sendable {
    private var state: UInt64
    private let largest: Int

    init(seed: UInt8, mode: UInt8) {
        state = 0x9E37_79B9_7F4A_7C15 ^ (UInt64(seed) << 8 | UInt64(mode))
        let largest = [1, 2, 3, 7, 15, 16, 17, 18, 31, 32, 33, 34, 35, 48, 64, 100, 4096]
        self.largest = largest[Int(mode) % largest.count]
    }

    /// The size of the next chunk, 1…`largest`, at most `left`.
    mutating func next(left: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return min(left, 1 + Int(state % UInt64(largest)))
    }

    /// `bytes` cut into chunks.
    func chunks(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var plan = self
        var out: [ArraySlice<UInt8>] = []
        var offset = 0
        while offset < bytes.count {
            let n = plan.next(left: bytes.count - offset)
            out.append(bytes[offset..<offset + n])
            offset += n
        }
        return out
    }
}

/// The fuzz input as a buffer (libFuzzer passes a pointer and a size; the pointer may be nil when empty).
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}
