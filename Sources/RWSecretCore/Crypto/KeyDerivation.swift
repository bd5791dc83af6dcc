#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import Synchronization

/// RNCryptor's key derivation: PBKDF2-HMAC-SHA1, 10,000 iterations (by default), 32-byte keys.
///
/// Inside, three interchangeable implementations compute the same function:
/// OpenSSL's `PKCS5_PBKDF2_HMAC` (the reference; slow in OpenSSL 3); HMAC inner and
/// outer SHA-1 states precomputed once per password, then two SHA-1 compressions per
/// iteration; and the same precomputation with the iterations in a C kernel on the
/// x86 SHA extensions, interleaving two or three independent chains. The last is used
/// when the CPU has the SHA extensions and the kernel passes a known-answer check.
///
/// Not public API: the tool's measurement and test hooks (`RWSECRET_KDF`, the scale model)
/// and `--verbose` counts are SPI (`@_spi(Testing) import RWSecretKit`), which a consumer's
/// plain import does not see; the rest is `package`. A program uses `Encryptor`'s iteration counts.
@_spi(Testing) public enum KeyDerivation {
    /// The iteration count every RNCryptor version specifies (RNCryptor-C, PHP and
    /// Java let a caller choose another one; the message does not record it).
    @_spi(Testing) public static let iterations = 10_000

    /// Test-only hook: makes `key(password:salt:)`, `keys(_:)` and their `using:` forms run
    /// `count` iterations wherever they were asked for RNCryptor's 10,000 (0 restores them), so a fuzz target (Fuzz/)
    /// can afford key derivations on every input. Process-wide: never call it from the
    /// parallel test suite. `package`, so only this package's fuzzers can reach it; the
    /// product never calls it. The one place the iteration count is overridden.
    package static func overrideIterationsForTesting(_ count: Int) {
        precondition(count >= 0)
        forcedIterations.store(count, ordering: .relaxed)
    }
    private static let forcedIterations = Atomic<Int>(0)
    private static func effective(_ requested: Int) -> Int {
        let forced = forcedIterations.load(ordering: .relaxed)
        return forced > 0 && requested == iterations ? forced : requested
    }

    /// An implementation of PBKDF2-HMAC-SHA1.
    @_spi(Testing) public enum Implementation: String, Sendable, CaseIterable, CustomStringConvertible {
        /// OpenSSL's `PKCS5_PBKDF2_HMAC`.
        case openssl
        /// Precomputed HMAC states and OpenSSL's `SHA1_Transform`.
        case portable
        /// Precomputed HMAC states and the interleaved SHA-NI kernel.
        case sha

        /// A short English description, without secrets.
        @_spi(Testing) public var description: String { rawValue }
    }

    /// The implementation `key(password:salt:)` and `keys(_:)` use.
    package static var activeImplementation: Implementation { active }

    /// Whether `implementation` runs as itself here. `sha` needs the SHA extensions
    /// (SHA, SSE4.1, SSSE3) and a passed known-answer check; when it is unavailable,
    /// asking for it computes with `portable` instead.
    package static func isAvailable(_ implementation: Implementation) -> Bool {
        implementation != .sha || shaKernelVerified
    }

    /// Whether this CPU has the instructions the `sha` kernel needs (SHA, SSE4.1, SSSE3),
    /// whatever the known-answer check said.
    package static var cpuHasSHAExtensions: Bool { Crypto.sha1KernelSupported }

    /// How many keys `key(password:salt:)` and `keys(_:)` have derived in this process
    /// (what a chain's order costs or saves; `--verbose` reports it).
    @_spi(Testing) public static var derivationCount: Int { derived.load(ordering: .relaxed) }
    private static let derived = Atomic<Int>(0)

    /// Derives one 32-byte key from `password` and `salt` with `iterations` rounds (≥ 1).
    package static func key(password: SecretBytes, salt: some ContiguousByteStorage, iterations: Int = iterations) -> SecretBytes {
        derived.add(1, ordering: .relaxed)
        DerivationWitness.deriving(from: password)
        defer { ScaleModel.derive(count: 1) }
        return key(password: password, salt: salt, iterations: iterations, using: active)
    }

    /// Derives one key for each (password, salt) pair, in order, with `iterations` rounds (≥ 1).
    ///
    /// Independent derivations may be computed together; the result is the same as
    /// calling `key(password:salt:iterations:)` for each pair.
    package static func keys(_ requests: [(password: SecretBytes, salt: [UInt8])], iterations: Int = iterations) -> [SecretBytes] {
        derived.add(requests.count, ordering: .relaxed)
        for request in requests { DerivationWitness.deriving(from: request.password) }
        defer { ScaleModel.derive(count: requests.count) }
        return keys(requests, iterations: iterations, using: active)
    }

    /// Derives one 32-byte key with a chosen implementation.
    package static func key(password: SecretBytes, salt: some ContiguousByteStorage, iterations: Int = iterations, using implementation: Implementation) -> SecretBytes {
        pbkdf2SHA1(password: password, salt: salt, iterations: effective(iterations), keyLength: Crypto.keySize, using: implementation)
    }

    /// Derives one 32-byte key per (password, salt) pair with a chosen implementation.
    package static func keys(_ requests: [(password: SecretBytes, salt: [UInt8])], iterations: Int = iterations, using implementation: Implementation) -> [SecretBytes] {
        pbkdf2SHA1(requests, iterations: effective(iterations), keyLength: Crypto.keySize, using: implementation)
    }

    /// Test-only hook, the scale model of a many-core machine: from now on every key that
    /// `key(password:salt:)` and `keys(_:)` derive also takes `microseconds` (a call for k keys
    /// sleeps k times that, on its thread), and the time spent with each number of threads
    /// inside such a call is recorded (`derivationsInFlightForTesting`). A sleeping thread
    /// uses no core, so two cores can show whether `--jobs 8` keeps eight derivations going.
    /// SPI: the tool honours it only in debug builds (`RWS_TEST_KDF_DELAY_US`).
    @_spi(Testing) public static func delayForTesting(microseconds: Int) {
        precondition(microseconds >= 0)
        ScaleModel.delay.store(microseconds, ordering: .relaxed)
    }

    /// The scale model's delay for `keys` keys another kind derived on this thread (none
    /// unless `delayForTesting` was called).
    package static func scaleModelDelay(keys: Int) { ScaleModel.derive(count: keys) }

    /// Seconds spent with 0, 1, 2, … threads inside a key derivation, from the first
    /// derivation's start to the latest one's end; empty unless `delayForTesting` was called.
    @_spi(Testing) public static var derivationsInFlightForTesting: [Double] { ScaleModel.profile.withLock { $0.seconds } }

    /// The largest iteration count accepted (OpenSSL takes a C int).
    @_spi(Testing) public static let maximumIterations = Int(Int32.max)

    /// PBKDF2-HMAC-SHA1 with any iteration count (≥ 1) and key length (≥ 1), for tests
    /// and measurements; RNCryptor itself uses `key(password:salt:)`.
    package static func pbkdf2SHA1(password: SecretBytes, salt: some ContiguousByteStorage, iterations: Int, keyLength: Int, using implementation: Implementation) -> SecretBytes {
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        return pbkdf2SHA1([(password, saltBytes)], iterations: iterations, keyLength: keyLength, using: implementation)[0]
    }

    /// PBKDF2-HMAC-SHA1 of several (password, salt) pairs, computed together where the
    /// implementation can (`sha` interleaves their chains).
    package static func pbkdf2SHA1(_ requests: [(password: SecretBytes, salt: [UInt8])], iterations: Int, keyLength: Int, using implementation: Implementation) -> [SecretBytes] {
        switch implementation {
        case .openssl:
            return requests.map { request in
                request.password.withUnsafeBytes { p in
                    request.salt.withUnsafeBytes { s in
                        Crypto.opensslPBKDF2SHA1(password: p, salt: s, iterations: iterations, keyLength: keyLength)
                    }
                }
            }
        case .portable:
            return Crypto.pbkdf2SHA1(requests, iterations: iterations, keyLength: keyLength, loop: .portable)
        case .sha:
            return Crypto.pbkdf2SHA1(requests, iterations: iterations, keyLength: keyLength, loop: shaKernelVerified ? .sha : .portable)
        }
    }

    // MARK: - Choosing the implementation

    /// The implementation in use: the one forced by `use(_:)`, else the best verified one.
    private static var active: Implementation {
        let index = forcedImplementation.load(ordering: .relaxed)
        if index >= 0 {
            let forced = Implementation.allCases[index]
            return forced == .sha && !shaKernelVerified ? .portable : forced
        }
        return shaKernelVerified ? .sha : .portable
    }
    private static let forcedImplementation = Atomic<Int>(-1)

    /// Forces `implementation` (nil: the default) for every key derived from now on
    /// (`sha` where unavailable computes with `portable`). For measurements: the tool
    /// calls it for `RWSECRET_KDF` at start, the bench for its sections.
    @_spi(Testing) public static func use(_ implementation: Implementation?) {
        forcedImplementation.store(implementation.flatMap { Implementation.allCases.firstIndex(of: $0) } ?? -1, ordering: .relaxed)
    }

    /// The CPU has the SHA extensions and the kernel reproduces known answers
    /// (through its one-, two- and three-chain paths). Checked once, before first use.
    private static let shaKernelVerified: Bool = Crypto.sha1KernelSupported && shaKernelPassesKnownAnswers()

    private static func shaKernelPassesKnownAnswers() -> Bool {
        // RFC 6070 (c = 2, one chain) and two vectors of our own, computed with
        // Python's hashlib.pbkdf2_hmac: 32 bytes = two chains, 60 bytes with a
        // 70-byte password (hashed HMAC key) = three chains, and both together =
        // five chains (three + two).
        let rfc = SecretBytes(utf8: "password")
        let two = SecretBytes(utf8: "rwsecret known answer")
        let three = SecretBytes([UInt8](repeating: UInt8(ascii: "x"), count: 70))
        let twoSalt: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7]
        let threeSalt = Array("kat".utf8)
        let expectedRFC = Hex.decode("ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957")
        let expectedTwo = Hex.decode("3cef53176c8591f5834109ea1b675447bddfafa6f064f2da4fa6ae23840987f9")
        let expectedThree = Hex.decode("ae5983fb29e0b7e3ffbcc2c787d69ce2568d59adcd3e958554748a0c30889955a6ef9aedac3a9cf80895e9a685bf4fffbcf0e46f0e7c7199f7f8ec18")

        func matches(_ key: SecretBytes, _ expected: [UInt8]) -> Bool {
            key.withUnsafeBytes { Array($0) == expected }
        }
        let one = Crypto.pbkdf2SHA1([(rfc, Array("salt".utf8))], iterations: 2, keyLength: 20, loop: .sha)
        let pair = Crypto.pbkdf2SHA1([(two, twoSalt)], iterations: 3, keyLength: 32, loop: .sha)
        let triple = Crypto.pbkdf2SHA1([(three, threeSalt)], iterations: 3, keyLength: 60, loop: .sha)
        let five = Crypto.pbkdf2SHA1([(two, twoSalt), (three, threeSalt)], iterations: 3, keyLength: 60, loop: .sha)
        return matches(one[0], expectedRFC)
            && matches(pair[0], expectedTwo)
            && matches(triple[0], expectedThree)
            && matches(five[0].slice(0..<32), expectedTwo)
            && matches(five[1], expectedThree)
    }
}

/// The state of `KeyDerivation.delayForTesting(microseconds:)` (the scale model).
private enum ScaleModel {
    static let delay = Atomic<Int>(0)
    static let profile = LockedState(Profile())

    struct Profile {
        var inFlight = 0
        var since: Double?
        var seconds: [Double] = []

        /// Counts the time at the current level, then moves to `inFlight + change`.
        mutating func step(_ change: Int) {
            let now = ScaleModel.now()
            if let since {
                while seconds.count <= inFlight { seconds.append(0) }
                seconds[inFlight] += now - since
            }
            since = now
            inFlight += change
        }
    }

    /// The delay of `count` keys just derived on this thread, counted as one thread in flight
    /// (called after the real derivation, so its keys are real).
    static func derive(count: Int) {
        let microseconds = delay.load(ordering: .relaxed)
        guard microseconds > 0, count > 0 else { return }
        profile.withLock { $0.step(1) }
        var request = timespec(tv_sec: microseconds * count / 1_000_000, tv_nsec: (microseconds * count % 1_000_000) * 1000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
        profile.withLock { $0.step(-1) }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
