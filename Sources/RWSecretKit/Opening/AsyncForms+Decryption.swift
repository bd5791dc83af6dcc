/// The async forms of a run's whole-message and raw-input opens (issue 33, item 6): each runs
/// the blocking form on a thread of the library's scheduler (`BlockingWork`), so no Swift
/// concurrency thread waits through a key derivation (PBKDF2, scrypt, Argon2), the store's
/// first opening or the reporter's ask.
extension Decryption {
    /// ``open(_:identities:memory:threads:position:plaintextLimit:askingAfter:)`` without
    /// holding a Swift concurrency thread: its reads, key derivations (and the store's first
    /// opening, the reporter's ask) run on a thread of their own while the task is suspended.
    public func open(_ message: WholeMessage, identities: IdentityChain, memory: Int, threads: Int = 1, position: Int? = nil,
                     plaintextLimit: Int = 64 << 20, askingAfter what: String? = nil) async throws -> Result<Opened, NotOpened> {
        try await BlockingWork.run { () throws -> Result<Opened, NotOpened> in
            try self.open(message, identities: identities, memory: memory, threads: threads, position: position, plaintextLimit: plaintextLimit,
                          askingAfter: what)
        }
    }

    /// ``open(_:identities:memory:to:askingAfter:)`` (into a private file) without holding a
    /// Swift concurrency thread; `file` is not to be used until it returns.
    public func open(_ message: WholeMessage, identities: IdentityChain, memory: Int, to file: PrivateFile,
                     askingAfter what: String? = nil) async throws -> Result<Opened, NotOpened> {
        let file = Handed(value: file)
        return try await BlockingWork.run { () throws -> Result<Opened, NotOpened> in
            try self.open(message, identities: identities, memory: memory, to: file.value, askingAfter: what)
        }
    }

    /// ``open(_:threads:to:askingAfter:)`` (a raw input) without holding a Swift concurrency
    /// thread: the reading, the key derivations and the writing run on threads of their own
    /// while the task is suspended (the input's `progress`, if set, is called on them).
    public func open(_ input: RawInput, threads: Int? = nil, to destination: VerifiedStream.Destination,
                     askingAfter what: String? = nil) async throws -> Result<VerifiedStream.Decrypted, RawNotOpened> {
        try await BlockingWork.run { () throws -> Result<VerifiedStream.Decrypted, RawNotOpened> in
            try self.open(input, threads: threads, to: destination, askingAfter: what)
        }
    }
}
