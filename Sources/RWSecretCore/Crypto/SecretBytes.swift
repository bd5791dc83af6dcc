/// A byte buffer for keys and passwords that is wiped when it is released.
///
/// Swift's `[UInt8]` and `String` may be copied freely by the runtime and are
/// never wiped; secrets that this package owns live here instead, in one
/// heap allocation that is cleansed (`OPENSSL_cleanse`) in `deinit`.
public final class SecretBytes: @unchecked Sendable {
    // Immutable after init, so sharing across threads is safe.
    private let storage: UnsafeMutableRawBufferPointer

    /// Copies `bytes` into a new wiped-on-release buffer.
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        storage = .allocate(byteCount: Swift.max(bytes.count, 1), alignment: 16)
        _ = UnsafeMutableRawBufferPointer(rebasing: storage[0..<bytes.count]).initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// The UTF-8 bytes of `string`.
    public convenience init(utf8 string: String) {
        var copy = string
        let bytes = copy.withUTF8 { Array($0) }
        self.init(bytes)
    }

    /// Fills a new buffer of `count` bytes through `body`.
    public init(count: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        storage = .allocate(byteCount: Swift.max(count, 1), alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        self.count = count
        do {
            try body(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
        } catch {
            Crypto.cleanse(storage)
            storage.deallocate()
            throw error
        }
    }

    /// The number of bytes.
    public let count: Int

    deinit {
        Crypto.cleanse(storage)
        storage.deallocate()
    }

    /// Overwrites the bytes with zeros now (`OPENSSL_cleanse`), for a buffer kept until the
    /// process ends (a static's, which is never released): only once nothing reads it any more.
    public func cleanseNow() {
        Crypto.cleanse(storage)
    }

    /// Gives `body` read access to the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A new buffer holding bytes `range` of this one.
    package func slice(_ range: Range<Int>) -> SecretBytes {
        withUnsafeBytes { SecretBytes($0[range]) }
    }

    /// Compares two secrets in constant time (for a given length).
    public func isEqual(to other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { a in other.withUnsafeBytes { b in Crypto.constantTimeEqual(a, b) } }
    }

    /// The bytes as a String when they are valid UTF-8 (for validators that count characters).
    /// The returned String is an unwiped copy: keep its lifetime short.
    package func decodedUTF8() -> String? {
        withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return String(validating: bytes, as: UTF8.self)
        }
    }
}

extension SecretBytes {
    /// Overwrites `buffer` with zeros in a way the compiler cannot optimise away
    /// (`OPENSSL_cleanse`): for a secret a caller holds outside a `SecretBytes` for a moment
    /// (a line read from a terminal, a plaintext on its way to a file).
    public static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        Crypto.cleanse(buffer)
    }

    /// Overwrites an array's bytes with zeros in place (`cleanse(_:)` on its storage). Its
    /// storage must not be shared with another copy: a shared array is copied before it is
    /// written (copy-on-write), and the copy is wiped, not the original (see `cleanseShared(_:)`).
    public static func cleanse(_ bytes: inout [UInt8]) {
        Crypto.cleanse(&bytes)
    }

    /// Overwrites the storage of an array no holder will read again with zeros, also when
    /// other copies of the array share it (no copy-on-write): for a plaintext that was
    /// handed from thread to thread, once it has been written.
    public static func cleanseShared(_ bytes: [UInt8]) {
        Crypto.cleanseShared(bytes)
    }
}
