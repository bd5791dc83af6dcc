public import SystemPackage
#if canImport(Glibc)
internal import Glibc
#endif

// The async forms of RWSecretCore's blocking calls: each runs the blocking work (key
// derivations, file I/O) through `BlockingWork`, on a thread of the library's scheduler, while
// the awaiting task is suspended. RWSecretKit's async forms of the other kinds use it too.

/// Runs blocking work (key derivations, file I/O) on a thread of the library's scheduler
/// (`Scheduler.shared`, the pool that runs every other part of the work of trying credentials)
/// and resumes the awaiting task when it ends, so that no thread of Swift concurrency's
/// cooperative pool (one per core) waits through a derivation, and no third pool (Dispatch's)
/// exists beside those two. The first call lets the scheduler's pool grow to one thread per
/// online core (a wider `--jobs` keeps its width); more work than threads waits in the pool's
/// queue, in order. A derivation once started runs to its end: cancelling the task does not
/// stop it.
package enum BlockingWork {
    /// The width the async forms ask of the pool: one thread per online core.
    private static let width: Int = {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        Scheduler.shared.widen(to: cores)
        return cores
    }()

    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        _ = width
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let outcome = Outcome<T, E>()
            // Resumed in `then`: once the work and everything it captured (secrets) are released.
            Scheduler.shared.run({ outcome.result = Result { () throws(E) -> T in try body() } },
                                 then: { continuation.resume(returning: outcome.result!) })
        }
        return try result.get()
    }

    /// The work's result, handed from the work to its `then` (one after the other, on one thread).
    private final class Outcome<T, E: Error>: @unchecked Sendable {
        var result: Result<T, E>?
    }
}

/// A value handed to (or from) the worker thread that the other side no longer touches.
package struct Handed<Value>: @unchecked Sendable {
    package let value: Value

    package init(value: Value) { self.value = value }
}

extension PasswordClient {
    /// `decrypt(_:)` without holding a Swift concurrency thread: the chain's key derivations
    /// (and the store's first read) run on a thread of their own while the task is suspended.
    public func decrypt(_ message: some RandomAccessCollection<UInt8>) async throws(DecryptionFailure) -> Decrypted {
        let bytes = Array(message)
        return try await BlockingWork.run { () throws(DecryptionFailure) -> Decrypted in try self.decrypt(bytes) }
    }
}

extension VerifiedStream {
    /// `decrypt(input:client:to:)` without holding a Swift concurrency thread: the reading,
    /// the key derivations and the writing run on threads of their own while the task is
    /// suspended (`progress`, if set, is called on them).
    public func decrypt(input: FileDescriptor, client: PasswordClient, to destination: Destination) async throws(DecryptionFailure) -> Decrypted {
        let stream = Handed(value: self)
        return try await BlockingWork.run { () throws(DecryptionFailure) -> Decrypted in
            try stream.value.decrypt(input: input, client: client, to: destination)
        }
    }
}

extension RNCryptor {
    /// `encrypt(_:password:)` without holding a Swift concurrency thread during its key derivations.
    public static func encrypt(_ plaintext: some RandomAccessCollection<UInt8>, password: SecretBytes) async -> [UInt8] {
        let bytes = Array(plaintext)
        return await BlockingWork.run { () -> [UInt8] in encrypt(bytes, password: password) }
    }

    /// `decrypt(_:password:legacyFormats:)` without holding a Swift concurrency thread during its key derivation.
    public static func decrypt(_ message: some RandomAccessCollection<UInt8>, password: SecretBytes,
                               legacyFormats: LegacyFormats = .refused) async throws(RNCryptorError) -> [UInt8] {
        let bytes = Array(message)
        return try await BlockingWork.run { () throws(RNCryptorError) -> [UInt8] in
            try decrypt(bytes, password: password, legacyFormats: legacyFormats)
        }
    }
}

extension Encryptor {
    /// `init(password:)` without holding a Swift concurrency thread during its key
    /// derivation (PBKDF2, twice).
    public convenience init(password: SecretBytes) async {
        try! await self.init(password: password, iterations: KeyDerivation.iterations)  // 10,000 is in range
    }

    /// `init(password:iterations:)` without holding a Swift concurrency thread during its key
    /// derivation (PBKDF2, twice).
    ///
    /// - Throws: `RNCryptorError.iterationsOutOfRange` unless `iterations` is in
    ///   1...``maximumIterations``.
    public convenience init(password: SecretBytes, iterations: Int) async throws(RNCryptorError) {
        try RNCryptorError.check(iterations: iterations)
        let salts = (encryption: Crypto.randomBytes(count: MessageHeader.saltSize), hmac: Crypto.randomBytes(count: MessageHeader.saltSize))
        let iv = Crypto.randomBytes(count: Crypto.blockSize)
        let derived = await BlockingWork.run { () -> [SecretBytes] in
            KeyDerivation.keys([(password, salts.encryption), (password, salts.hmac)], iterations: iterations)
        }
        self.init(salts: salts, iv: iv, derived: derived)
    }
}

extension Decryptor {
    /// `update(_:)` without holding a Swift concurrency thread: until the header is read (the
    /// piece that completes a password-based message's header derives its keys, PBKDF2), the
    /// update runs on a thread of the library's pool while the task is suspended; after it,
    /// where nothing is derived any more, on the caller's thread at once.
    public func update(_ data: some RandomAccessCollection<UInt8>) async throws(RNCryptorError) {
        // The blocking form, named from a closure that is not async (here the async one would be).
        if isPastHeader { return try { () throws(RNCryptorError) in try self.update(data) }() }
        let piece = Array(data)
        try await BlockingWork.run { () throws(RNCryptorError) in try self.update(piece) }
    }
}
