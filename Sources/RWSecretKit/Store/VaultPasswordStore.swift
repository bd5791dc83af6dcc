#if canImport(Glibc)
internal import Glibc
#endif

/// Passwords in an encrypted vault file: one raw RNCryptor v3 message whose
/// plaintext lists label + secret pairs (`VaultContents`).
///
/// - A vault that does not exist is an empty store; reading it needs no passphrase.
///   The first `add` creates it, with a passphrase that passes
///   `CompositeValidator.newVaultPassphrase`.
/// - Every change is a read-modify-write under an exclusive `flock` on
///   `PATH.lock`, so concurrent writers (other processes too) lose nothing.
/// - Written atomically: a temporary file in the same folder, fsync, rename,
///   then the folder is fsynced. Mode 0600; missing folders are created 0700.
/// - A wrong passphrase throws and the file is never rewritten.
public final class VaultPasswordStore: PasswordStore {
    /// Why the store asks for the passphrase.
    public enum PassphraseRequest: Sendable {
        /// To open an existing vault.
        case open
        /// To create a new vault (a prompt should ask twice).
        case create
    }

    /// Supplies the passphrase; called at most once per store, and only when it is needed.
    public typealias PassphraseProvider = (PassphraseRequest) throws(StoreError) -> SecretBytes

    public let path: String
    private let lockPath: String
    private let provider: PassphraseProvider
    private var passphrase: SecretBytes?
    /// The entries last read or written, and the file they are in. Every write renames
    /// a new file into place, so a file with the same identity holds the same entries
    /// and is not decrypted again (each decryption costs two key derivations).
    private var lastSeen: (file: FileIdentity, entries: [StoredPassword])?
    private let observers = PasswordStoreObservers()

    public var kind: StoreKind { .file }
    public var location: String { path }

    public init(path: String, passphrase provider: @escaping PassphraseProvider) {
        self.path = path
        self.lockPath = path + ".lock"
        self.provider = provider
    }

    /// Whether the vault file exists yet.
    public var exists: Bool { StoreFiles.exists(path) }

    /// Opens the vault now (asks for the passphrase if it exists), so errors surface early.
    public func unlock() throws(StoreError) {
        _ = try read()
    }

    public func labels() throws(StoreError) -> [String] { try read().map(\.label) }

    public func passwords() throws(StoreError) -> [StoredPassword] { try read() }

    @discardableResult
    public func add(_ secret: SecretBytes, label: String?) throws(StoreError) -> String {
        let lock = try FileLock(path: lockPath)
        defer { lock.unlock() }
        var entries = try read()
        let label = try Self.labelToAdd(label, taken: entries.map(\.label))
        entries.append(StoredPassword(label: label, secret: secret))
        try write(entries)
        lock.unlock()
        observers.notify(self, .added(label: label))
        return label
    }

    public func remove(labels: [String]) throws(StoreError) {
        let lock = try FileLock(path: lockPath)
        defer { lock.unlock() }
        var entries = try read()
        try Self.requireKnown(labels, in: entries.map(\.label))
        entries.removeAll { labels.contains($0.label) }
        try write(entries)
        lock.unlock()
        observers.notify(self, .removed(labels: labels))
    }

    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }

    // MARK: - Reading

    /// The entries now on disk; an absent vault is empty.
    private func read() throws(StoreError) -> [StoredPassword] {
        guard let fd = try openFile() else {
            lastSeen = nil
            return []
        }
        defer { close(fd) }
        guard let file = FileIdentity(fd) else { throw .io("cannot read the vault \(path): \(StoreFiles.errnoText())") }
        if let lastSeen, lastSeen.file == file { return lastSeen.entries }
        let message = try readAll(fd)
        let passphrase = try passphrase(for: .open)
        var plaintext: [UInt8]
        do {
            plaintext = try RNCryptor.decrypt(message, password: passphrase)
        } catch .hmacMismatch {
            // The cached passphrase is wrong: forget it, never write with it.
            self.passphrase = nil
            throw .unavailable(
                reason: "wrong passphrase for the vault \(path)",
                advice: "give the right one in RWSECRET_VAULT_PASSPHRASE or at the prompt (the vault was not changed)")
        } catch {
            throw .unavailable(reason: "the vault \(path) is damaged (\(error))",
                               advice: "restore it from a backup, or point --vault elsewhere")
        }
        let secretPlaintext = SecretBytes(plaintext)
        Crypto.cleanse(&plaintext)
        guard let entries = VaultContents.decode(secretPlaintext) else {
            throw .unavailable(reason: "the vault \(path) is damaged (its contents are malformed)",
                               advice: "restore it from a backup, or point --vault elsewhere")
        }
        lastSeen = (file, entries)
        return entries
    }

    /// The vault file opened for reading, or nil when it does not exist.
    private func openFile() throws(StoreError) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw .unavailable(reason: "cannot read the vault \(path): \(StoreFiles.errnoText())",
                               advice: "check its permissions, or point --vault elsewhere")
        }
        return fd
    }

    /// The bytes of the open vault file `fd`.
    private func readAll(_ fd: Int32) throws(StoreError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io("cannot read the vault \(path): \(StoreFiles.errnoText())")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    private func passphrase(for request: PassphraseRequest) throws(StoreError) -> SecretBytes {
        if let passphrase { return passphrase }
        let given = try provider(request)
        if request == .create {
            let failures = CompositeValidator.newVaultPassphrase.validate(given)
            guard failures.isEmpty else { throw .passphraseRejected(failures) }
        }
        passphrase = given
        return given
    }

    // MARK: - Writing

    /// Replaces the vault with `entries`, atomically.
    private func write(_ entries: [StoredPassword]) throws(StoreError) {
        let passphrase = try passphrase(for: exists ? .open : .create)
        let plaintext = VaultContents.encode(entries)
        let message = RNCryptor.encrypt(plaintext, password: passphrase)
        try StoreFiles.createFolders(for: path)

        let folder = StoreFiles.folder(of: path)
        var template = Array((folder + "/.vault.XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .io("cannot create a temporary file in \(folder): \(StoreFiles.errnoText())") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            if !renamed { unlink(temporary) }
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else { throw StoreError.io("cannot set the mode of \(temporary): \(StoreFiles.errnoText())") }
            var offset = 0
            while offset < message.count {
                let n = message.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StoreError.io("cannot write the vault \(temporary): \(StoreFiles.errnoText())")
                }
                offset += n
            }
            guard fsync(fd) == 0 else { throw StoreError.io("cannot sync the vault \(temporary): \(StoreFiles.errnoText())") }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .io("\(error)")
        }
        guard rename(temporary, path) == 0 else {
            throw .io("cannot replace the vault \(path): \(StoreFiles.errnoText())")
        }
        renamed = true
        // Under the lock no other writer can have replaced it since.
        lastSeen = FileIdentity(path: path).map { ($0, entries) }
        // Make the rename itself durable.
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 { _ = fsync(folderFD); close(folderFD) }
    }
}

/// Which file, in which state: device, inode, size, modification and change times.
struct FileIdentity: Equatable {
    let device: UInt64, inode: UInt64, size: Int64
    let modified: timespec, changed: timespec

    init?(_ fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        self.init(info)
    }

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self.init(info)
    }

    private init(_ info: stat) {
        (device, inode, size) = (UInt64(info.st_dev), UInt64(info.st_ino), Int64(info.st_size))
        (modified, changed) = (info.st_mtim, info.st_ctim)
    }

    static func == (a: Self, b: Self) -> Bool {
        (a.device, a.inode, a.size) == (b.device, b.inode, b.size)
            && (a.modified.tv_sec, a.modified.tv_nsec, a.changed.tv_sec, a.changed.tv_nsec)
            == (b.modified.tv_sec, b.modified.tv_nsec, b.changed.tv_sec, b.changed.tv_nsec)
    }
}

/// The vault's plaintext: `RWV1`, a big-endian UInt32 count, then per entry a
/// UInt32 label length, the label's UTF-8, a UInt32 secret length and the
/// secret. Length-prefixed, so any byte may appear in a secret.
/// `package` so the vault fuzz target (Fuzz/) can reach the parser.
package enum VaultContents {
    static let magic: [UInt8] = Array("RWV1".utf8)

    package static func encode(_ entries: [StoredPassword]) -> SecretBytes {
        let size = magic.count + 4 + entries.reduce(0) { $0 + 8 + $1.label.utf8.count + $1.secret.count }
        return SecretBytes(count: size) { out in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: out[offset..<offset + bytes.count]).copyMemory(from: bytes)
                offset += bytes.count
            }
            func put(_ value: Int) {
                withUnsafeBytes(of: UInt32(value).bigEndian) { put($0) }
            }
            magic.withUnsafeBytes { put($0) }
            put(entries.count)
            for entry in entries {
                let label = Array(entry.label.utf8)
                put(label.count)
                label.withUnsafeBytes { put($0) }
                put(entry.secret.count)
                entry.secret.withUnsafeBytes { put($0) }
            }
        }
    }

    /// The entries, or nil when `plaintext` is not a well-formed list.
    package static func decode(_ plaintext: SecretBytes) -> [StoredPassword]? {
        plaintext.withUnsafeBytes { raw -> [StoredPassword]? in
            var offset = 0
            func take(_ count: Int) -> UnsafeRawBufferPointer? {
                guard count >= 0, raw.count - offset >= count else { return nil }
                defer { offset += count }
                return UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count])
            }
            func number() -> Int? {
                guard let bytes = take(4) else { return nil }
                return bytes.reduce(0) { $0 << 8 | Int($1) }
            }
            guard let head = take(magic.count), head.elementsEqual(magic), let count = number() else { return nil }
            var entries: [StoredPassword] = []
            for _ in 0..<count {
                guard let labelLength = number(), let labelBytes = take(labelLength),
                      let label = String(validating: labelBytes, as: UTF8.self),
                      let secretLength = number(), let secret = take(secretLength) else { return nil }
                entries.append(StoredPassword(label: label, secret: SecretBytes(secret)))
            }
            return offset == raw.count ? entries : nil
        }
    }
}
