public import SystemPackage

extension MessageOpener {
    /// `open(_:)` without holding a Swift concurrency thread: the key derivations (PBKDF2,
    /// scrypt, Argon2) run on a thread of their own while the task is suspended.
    public func open(_ message: some RandomAccessCollection<UInt8>) async throws(DecryptionFailure) -> Decrypted {
        let bytes = Array(message)
        return try await BlockingWork.run { () throws(DecryptionFailure) -> Decrypted in try self.open(bytes) }
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
