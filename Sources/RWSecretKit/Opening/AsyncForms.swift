public import SystemPackage
#if canImport(Glibc)
internal import Glibc
#endif

/// Runs blocking work (key derivations, file I/O) on a thread of the library's scheduler
/// (`Scheduler.shared`, the pool that runs every other part of the work of trying credentials)
/// and resumes the awaiting task when it ends, so that no thread of Swift concurrency's
/// cooperative pool (one per core) waits through a derivation, and no third pool (Dispatch's)
/// exists beside those two. The first call lets the scheduler's pool grow to one thread per
/// online core (a wider `--jobs` keeps its width); more work than threads waits in the pool's
/// queue, in order. A derivation once started runs to its end: cancelling the task does not
/// stop it.
enum BlockingWork {
    /// The width the async forms ask of the pool: one thread per online core.
    private static let width: Int = {
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        Scheduler.shared.widen(to: cores)
        return cores
    }()

    static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
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
struct Handed<Value>: @unchecked Sendable {
    let value: Value
}

extension PasswordClient {
    /// `decrypt(_:)` without holding a Swift concurrency thread: the chain's key derivations
    /// (and the store's first read) run on a thread of their own while the task is suspended.
    public func decrypt(_ message: some RandomAccessCollection<UInt8>) async throws(DecryptionFailure) -> Decrypted {
        let bytes = Array(message)
        return try await BlockingWork.run { () throws(DecryptionFailure) -> Decrypted in try self.decrypt(bytes) }
    }
}

extension MessageOpener {
    /// `open(_:)` without holding a Swift concurrency thread: the key derivations (PBKDF2,
    /// scrypt, Argon2) run on a thread of their own while the task is suspended.
    public func open(_ message: some RandomAccessCollection<UInt8>) async throws(DecryptionFailure) -> Decrypted {
        let bytes = Array(message)
        return try await BlockingWork.run { () throws(DecryptionFailure) -> Decrypted in try self.open(bytes) }
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

extension Age {
    /// `encrypt(_:passphrase:workFactor:armor:)` without holding a Swift concurrency thread
    /// during scrypt.
    public static func encrypt(_ plaintext: some Collection<UInt8>, passphrase: SecretBytes, workFactor: Int = 18,
                               armor: Bool = false) async -> [UInt8] {
        let bytes = Array(plaintext)
        return await BlockingWork.run { () -> [UInt8] in encrypt(bytes, passphrase: passphrase, workFactor: workFactor, armor: armor) }
    }
}

extension Decryption {
    /// `attempt(_:)` without holding a Swift concurrency thread: the store's first opening (a
    /// keyring's D-Bus round trip, a vault's passphrase derivation) runs on a thread of its own.
    public func attempt(_ message: MessageRows.Message) async throws -> Attempt {
        try await BlockingWork.run { () throws -> Attempt in try self.attempt(message) }
    }
}

extension Decryption.Attempt {
    /// `open(threads:position:naming:)` without holding a Swift concurrency thread: the key
    /// derivations (and the reporter's ask) run on threads of their own while the task is suspended.
    public func open(threads: Int = 1, position: Int = 0, naming what: String) async -> Result<Decrypted, DecryptionFailure> {
        await BlockingWork.run { () -> Result<Decrypted, DecryptionFailure> in self.open(threads: threads, position: position, naming: what) }
    }
}

extension MessageRows {
    /// `next()` without holding a Swift concurrency thread: the reading (a pipe, a terminal,
    /// a socket may keep it waiting) runs on a thread of its own while the task is suspended.
    public mutating func next() async throws(Errno) -> Row? {
        let rows = Held(value: self)
        let row = try await BlockingWork.run { () throws(Errno) -> Row? in try rows.value.next() }
        self = rows.value
        return row
    }
}

/// A value the worker thread changes while the awaiting caller waits for it.
private final class Held<Value>: @unchecked Sendable {
    var value: Value
    init(value: Value) { self.value = value }
}
