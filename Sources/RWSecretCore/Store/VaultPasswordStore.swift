#if canImport(Glibc)
internal import Glibc
#endif
public import SystemPackage

/// Passwords in an encrypted vault file: one raw RNCryptor v3 message whose
/// plaintext lists label + secret pairs.
///
/// - A vault that does not exist is an empty store; reading it needs no passphrase.
///   The first `add` creates it, with a passphrase that passes
///   `PasswordValidator.newVaultPassphrase`.
/// - A vault path that is a symbolic link is followed: the target is the vault,
///   replaced in its own folder, and its lock is `TARGET.lock`.
/// - Every change is a read-modify-write under an exclusive `flock` on the lock
///   file, so concurrent writers (other processes too) lose nothing, and the checks
///   (label free, secret not already stored) see what is stored at that moment.
/// - Read and written as regular files of at most 16 MiB only,
///   replaced atomically (mode 0600, missing folders 0700), no temporary copy left
///   behind even when the process is killed.
/// - A wrong passphrase throws and the file is never rewritten; the passphrase
///   provider may be asked again, up to `maximumPassphraseTries` in all. The provider
///   (a Strategy: environment, session keyring, terminal…) is asked only when the store
///   is opened or a change needs it, and never while the lock is held.
/// - `Sendable`: each operation runs whole under the store's own lock (`serial`), so
///   the passphrase once learnt and the entries last read are never touched by two tasks
///   at once. That lock is why the class is `@unchecked Sendable`: the compiler cannot
///   see that `passphrase` and `lastSeen` are touched only while it is held. A provider
///   that asks a person holds up the store's other operations in this process meanwhile.
public final class VaultPasswordStore: ObservablePasswordStore, @unchecked Sendable {
    /// Why the store asks for the passphrase.
    public enum PassphraseRequest: Sendable, Equatable {
        /// To open an existing vault; `attempt` is 1 at first, and 2 or 3 after a wrong answer.
        case open(attempt: Int)
        /// To create a new vault: the answer must pass `PasswordValidator.newVaultPassphrase`.
        case create
    }

    /// Supplies the passphrase, only when it is needed; nil when it has no (other) answer to give.
    /// It may throw a ``StoreError`` of its own (a passphrase that could not be asked).
    public typealias PassphraseProvider = @Sendable (PassphraseRequest) throws(StoreError) -> SecretBytes?

    /// How often a wrong passphrase may be answered before the store gives up with a
    /// ``StoreError`` of code ``StoreError/Code/wrongPassphrase``: the provider is asked with
    /// ``PassphraseRequest/open(attempt:)`` up to this attempt.
    public static let maximumPassphraseTries = 3

    /// The vault file's path, as given.
    package let path: String
    private let provider: PassphraseProvider
    private let lockWaiting: @Sendable () -> Void
    /// Held for the whole of each operation (see the type's notes).
    private let serial = LockedState(())
    private var passphrase: SecretBytes?
    /// The entries last read or written, and the file they are in. Every write renames
    /// a new file into place, so a file with the same identity holds the same entries
    /// and is not decrypted again (each decryption costs two key derivations).
    private var lastSeen: (file: FileIdentity, entries: Contents)?
    private let observers = PasswordStoreObservers()

    /// Where it lives.
    public var location: String { path }

    /// - Parameters:
    ///   - path: the vault file (a symbolic link is followed).
    ///   - provider: asked for the passphrase when the vault must be opened or created.
    ///   - lockWaiting: called once when another process has held the lock for a second.
    public convenience init(path: FilePath, passphrase provider: @escaping @Sendable (PassphraseRequest) throws(StoreError) -> SecretBytes?,
                            lockWaiting: @escaping @Sendable () -> Void = {}) {
        self.init(path: path.string, passphrase: provider, lockWaiting: lockWaiting)
    }

    /// The vault at `path` (the tool's paths are strings).
    package init(path: String, passphrase provider: @escaping PassphraseProvider, lockWaiting: @escaping @Sendable () -> Void = {}) {
        self.path = path
        self.provider = provider
        self.lockWaiting = lockWaiting
    }

    /// `$XDG_DATA_HOME/rwsecret/vault`, or `$HOME/.local/share/rwsecret/vault` (the tool's
    /// default vault), given `environment` (without `HOME`: the user's home folder).
    public static func defaultPath(_ environment: [String: String]) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/rwsecret/vault" }
        return home(environment) + "/.local/share/rwsecret/vault"
    }

    private static func home(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// Whether the vault file exists yet.
    public var exists: Bool { StoreFiles.exists(path) }

    /// Opens the vault now (asks for the passphrase if it exists), so errors surface early.
    public func open() throws(StoreError) {
        _ = try serially { () throws(StoreError) in try read(path) }
    }

    /// Runs `body` holding the store's own lock (see the type's notes).
    private func serially<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try serial.withLock { (_: inout Void) throws(StoreError) -> T in try body() }
    }

    /// The labels in stored order, without reading any secret.
    public func labels() throws(StoreError) -> [String] { try serially { () throws(StoreError) in try read(path) }.passwords.map(\.label) }

    /// Every password in stored order.
    public func passwords() throws(StoreError) -> [StoredPassword] { try serially { () throws(StoreError) in try read(path) }.passwords }

    /// Adds `passwords` all or nothing, each checked by `check` against what is stored (see `PasswordStore`).
    @discardableResult
    public func add(_ passwords: [PasswordToAdd], check: (_ secret: SecretBytes, _ stored: [SecretBytes]) -> [ValidationFailure]) throws(StoreError) -> [String] {
        let labels = try serially { () throws(StoreError) -> [String] in
            try modify(creating: true) { (contents: inout Contents) throws(StoreError) -> [String] in
                let labels = try Self.plan(passwords, taken: contents.passwords.map(\.label), stored: contents.passwords.map(\.secret), check: check)
                for (password, label) in zip(passwords, labels) { contents.passwords.append(StoredPassword(label: label, secret: password.secret)) }
                return labels
            }
        }
        for label in labels { observers.notify(self, .added(label: label)) }
        return labels
    }

    /// Removes the passwords with `labels`, all or nothing (unknown labels: `unknownLabels`).
    public func remove(labels: [String]) throws(StoreError) {
        try serially { () throws(StoreError) in
            try modify { (contents: inout Contents) throws(StoreError) in
                try Self.requireKnown(labels, in: contents.passwords.map(\.label))
                contents.passwords.removeAll { labels.contains($0.label) }
            }
        }
        observers.notify(self, .removed(labels: labels))
    }

    /// Gives the password labelled `label` the label `newLabel`.
    public func rename(_ label: String, to newLabel: String) throws(StoreError) {
        try serially { () throws(StoreError) in
            try modify { (contents: inout Contents) throws(StoreError) in
                try Self.checkRename(label, to: newLabel, in: contents.passwords.map(\.label))
                if let index = contents.passwords.firstIndex(where: { $0.label == label }) {
                    contents.passwords[index] = StoredPassword(label: newLabel, secret: contents.passwords[index].secret)
                }
            }
        }
        observers.notify(self, .renamed(from: label, to: newLabel))
    }

    /// Re-encrypts the vault with `newPassphrase` (all or nothing): the current passphrase
    /// is needed to read it; `newPassphrase` must pass `PasswordValidator.newVaultPassphrase`.
    public func changePassphrase(to newPassphrase: SecretBytes) throws(StoreError) {
        try serially { () throws(StoreError) in try changePassphraseNow(to: newPassphrase) }
    }

    private func changePassphraseNow(to newPassphrase: SecretBytes) throws(StoreError) {
        let failures = PasswordValidator.newVaultPassphrase.validate(newPassphrase)
        guard failures.isEmpty else { throw .passphraseRejected(failures) }
        let target = try StoreFiles.resolvingLinks(path)
        guard StoreFiles.exists(target) else { throw .noVault(path: path) }
        if passphrase == nil { _ = try read(target) }  // asked before the lock, never under it
        let lock = try FileLock(path: target + ".lock", waiting: lockWaiting)
        defer { lock.unlock() }
        guard StoreFiles.exists(target) else { throw .noVault(path: path) }
        let entries = try read(target, mayAsk: false)
        try write(entries, to: target, passphrase: newPassphrase)
        passphrase = newPassphrase
    }

    /// Whether `candidate` opens the vault (two key derivations); the vault must exist.
    package func opens(with candidate: SecretBytes) throws(StoreError) -> Bool {
        guard let fd = try VaultFile.openForReading(path) else { throw .noVault(path: path) }
        defer { close(fd) }
        let message = try VaultFile.readAll(fd, path: path)
        do {
            var plaintext = try RNCryptor.decrypt(message, password: candidate)
            Crypto.cleanse(&plaintext)
            return true
        } catch .hmacMismatch {
            return false
        } catch {
            throw .vaultDamaged(path: path, detail: "\(error)")
        }
    }

    /// Starts telling `observer` about changes made through this store.
    public func addObserver(_ observer: any PasswordStoreObserver) { observers.add(observer) }
    /// Stops telling `observer` about changes.
    public func removeObserver(_ observer: any PasswordStoreObserver) { observers.remove(observer) }

    // MARK: - Read-modify-write

    /// Runs `body` on the entries now on disk, under the lock, then writes them back.
    /// - Parameter creating: whether this change may create the vault (an add): only then is
    ///   a new vault's passphrase asked. An absent vault left empty is not created.
    ///
    /// The passphrase provider is never called under the lock, so that other writers do
    /// not wait on a person typing: an existing vault's passphrase is learnt by reading it
    /// before the lock is taken, a new vault's is asked then too; under the lock, a
    /// passphrase that no longer opens the vault (changed meanwhile) is `wrongPassphrase`.
    private func modify<T>(creating: Bool = false, _ body: (inout Contents) throws(StoreError) -> T) throws(StoreError) -> T {
        let target = try StoreFiles.resolvingLinks(path)
        if passphrase == nil {
            if StoreFiles.exists(target) {
                _ = try read(target)
            } else if creating {
                passphrase = try newPassphrase()
            }
        }
        let lock = try FileLock(path: target + ".lock", waiting: lockWaiting)
        defer { lock.unlock() }
        let existed = StoreFiles.exists(target)
        var entries = try read(target, mayAsk: false)
        let result = try body(&entries)
        if !existed && entries.isEmpty { return result }
        // A vault created by another process meanwhile was read above with a known passphrase.
        guard let key = passphrase else { throw .noPassphrase(path: path, reason: "none was given") }
        try write(entries, to: target, passphrase: key)
        return result
    }

    // MARK: - Reading

    /// The entries now on disk at `file`; an absent vault is empty. With `mayAsk` false
    /// (under the lock) the provider is not called: the passphrase must be known.
    private func read(_ file: String, mayAsk: Bool = true) throws(StoreError) -> Contents {
        guard let fd = try VaultFile.openForReading(file) else {
            lastSeen = nil
            return Contents()
        }
        defer { close(fd) }
        guard let identity = FileIdentity(fd) else { throw .io("cannot read the vault \(path): \(StoreFiles.errnoText())") }
        if let lastSeen, lastSeen.file == identity { return lastSeen.entries }
        let message = try VaultFile.readAll(fd, path: path)
        var plaintext = try decrypt(message, mayAsk: mayAsk)
        let secretPlaintext = SecretBytes(plaintext)
        Crypto.cleanse(&plaintext)
        guard let decoded = VaultContents.decodeAll(secretPlaintext) else {
            throw .vaultDamaged(path: path, detail: "its contents are malformed")
        }
        let entries = Contents(passwords: decoded.passwords, identities: decoded.identities)
        lastSeen = (identity, entries)
        return entries
    }

    /// The vault's plaintext, asking for the passphrase (again after a wrong one) as needed.
    private func decrypt(_ message: [UInt8], mayAsk: Bool) throws(StoreError) -> [UInt8] {
        var attempt = 1
        while true {
            let candidate: SecretBytes
            if let passphrase {
                candidate = passphrase
            } else {
                guard mayAsk else { throw attempt == 1 ? .noPassphrase(path: path, reason: "none was given") : .wrongPassphrase(path: path) }
                guard let given = try provider(.open(attempt: attempt)) else {
                    if attempt == 1 { throw .noPassphrase(path: path, reason: "none was given") }
                    throw .wrongPassphrase(path: path)
                }
                candidate = given
            }
            do {
                let plaintext = try RNCryptor.decrypt(message, password: candidate)
                passphrase = candidate
                return plaintext
            } catch .hmacMismatch {
                // Wrong: forget it, never write with it.
                passphrase = nil
                attempt += 1
                if attempt > Self.maximumPassphraseTries { throw .wrongPassphrase(path: path) }
            } catch {
                throw .vaultDamaged(path: path, detail: "\(error)")
            }
        }
    }

    /// A new vault's passphrase, checked by the validators.
    private func newPassphrase() throws(StoreError) -> SecretBytes {
        guard let given = try provider(.create) else { throw .noPassphrase(path: path, reason: "none was given") }
        let failures = PasswordValidator.newVaultPassphrase.validate(given)
        guard failures.isEmpty else { throw .passphraseRejected(failures) }
        return given
    }

    // MARK: - Writing

    /// Replaces the vault at `file` (links resolved) with `entries`, atomically.
    private func write(_ entries: Contents, to file: String, passphrase: SecretBytes) throws(StoreError) {
        let plaintext = VaultContents.encode(entries.passwords, identities: entries.identities)
        let message = RNCryptor.encrypt(plaintext, password: passphrase)
        try VaultFile.replace(file, with: message)
        // Under the lock no other writer can have replaced it since.
        lastSeen = FileIdentity(path: file).map { ($0, entries) }
    }
}

extension VaultPasswordStore {
    /// What the vault holds: the passwords, then the identities (`IdentityStore`).
    struct Contents {
        var passwords: [StoredPassword] = []
        var identities: [StoredIdentity] = []
        var isEmpty: Bool { passwords.isEmpty && identities.isEmpty }
    }
}

extension VaultPasswordStore: IdentityStore {
    /// Every identity in stored order.
    public func identities() throws(StoreError) -> [StoredIdentity] { try serially { () throws(StoreError) in try read(path) }.identities }

    /// Adds `identities` all or nothing (a new vault is created as by `add`).
    @discardableResult
    public func addIdentities(_ identities: [IdentityToAdd]) throws(StoreError) -> [String] {
        try serially { () throws(StoreError) -> [String] in try modify(creating: true) { (contents: inout Contents) throws(StoreError) -> [String] in
            let labels = try Self.planIdentities(identities, stored: contents.identities)
            for (identity, label) in zip(identities, labels) {
                contents.identities.append(StoredIdentity(label: label, kind: identity.kind, secret: identity.secret))
            }
            return labels
        } }
    }

    /// Removes the identities with `labels`, all or nothing.
    public func removeIdentities(labels: [String]) throws(StoreError) {
        try serially { () throws(StoreError) in try modify { (contents: inout Contents) throws(StoreError) in
            try Self.requireKnown(labels, in: contents.identities.map(\.label))
            contents.identities.removeAll { labels.contains($0.label) }
        } }
    }

    /// Gives the identity labelled `label` the label `newLabel`.
    public func renameIdentity(_ label: String, to newLabel: String) throws(StoreError) {
        try serially { () throws(StoreError) in try modify { (contents: inout Contents) throws(StoreError) in
            try Self.checkRename(label, to: newLabel, in: contents.identities.map(\.label))
            if let index = contents.identities.firstIndex(where: { $0.label == label }) {
                let old = contents.identities[index]
                contents.identities[index] = StoredIdentity(label: newLabel, kind: old.kind, secret: old.secret)
            }
        } }
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
///
/// Identities follow as a typed section, written only when there is one (a vault without
/// identities is byte for byte what versions before them wrote, and they refuse a vault
/// with one as malformed rather than take an identity for a password): `RWI1`, a UInt32
/// count, then per identity the label, the kind (`age-x25519`) and the secret, each
/// length-prefixed as above.
/// `package` so the vault fuzz target (Fuzz/) can reach the parser.
package enum VaultContents {
    static let magic: [UInt8] = Array("RWV1".utf8)
    static let identityMagic: [UInt8] = Array("RWI1".utf8)

    package static func encode(_ entries: [StoredPassword]) -> SecretBytes {
        encode(entries, identities: [])
    }

    /// The plaintext of `entries` and then `identities` (no section when there is none).
    package static func encode(_ entries: [StoredPassword], identities: [StoredIdentity]) -> SecretBytes {
        var size = magic.count + 4 + entries.reduce(0) { $0 + 8 + $1.label.utf8.count + $1.secret.count }
        if !identities.isEmpty {
            size += identityMagic.count + 4 + identities.reduce(0) { $0 + 12 + $1.label.utf8.count + $1.kind.rawValue.utf8.count + $1.secret.count }
        }
        return SecretBytes(count: size) { out in
            var offset = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: out[offset..<offset + bytes.count]).copyMemory(from: bytes)
                offset += bytes.count
            }
            func put(_ value: Int) {
                withUnsafeBytes(of: UInt32(value).bigEndian) { put($0) }
            }
            func put(text: String) {
                let bytes = Array(text.utf8)
                put(bytes.count)
                bytes.withUnsafeBytes { put($0) }
            }
            magic.withUnsafeBytes { put($0) }
            put(entries.count)
            for entry in entries {
                put(text: entry.label)
                put(entry.secret.count)
                entry.secret.withUnsafeBytes { put($0) }
            }
            guard !identities.isEmpty else { return }
            identityMagic.withUnsafeBytes { put($0) }
            put(identities.count)
            for identity in identities {
                put(text: identity.label)
                put(text: identity.kind.rawValue)
                put(identity.secret.count)
                identity.secret.withUnsafeBytes { put($0) }
            }
        }
    }

    /// The entries, or nil when `plaintext` is not a well-formed list of passwords alone.
    package static func decode(_ plaintext: SecretBytes) -> [StoredPassword]? {
        guard let all = decodeAll(plaintext), all.identities.isEmpty else { return nil }
        return all.passwords
    }

    /// The passwords and identities, or nil when `plaintext` is not well formed (an empty
    /// identity section, which `encode` never writes, included).
    package static func decodeAll(_ plaintext: SecretBytes) -> (passwords: [StoredPassword], identities: [StoredIdentity])? {
        plaintext.withUnsafeBytes { raw -> (passwords: [StoredPassword], identities: [StoredIdentity])? in
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
            func text() -> String? {
                guard let length = number(), let bytes = take(length) else { return nil }
                return String(validating: bytes, as: UTF8.self)
            }
            guard let head = take(magic.count), head.elementsEqual(magic), let count = number() else { return nil }
            var entries: [StoredPassword] = []
            for _ in 0..<count {
                guard let label = text(), let secretLength = number(), let secret = take(secretLength) else { return nil }
                entries.append(StoredPassword(label: label, secret: SecretBytes(secret)))
            }
            var identities: [StoredIdentity] = []
            if offset < raw.count {
                guard let head = take(identityMagic.count), head.elementsEqual(identityMagic),
                      let count = number(), count > 0 else { return nil }
                for _ in 0..<count {
                    guard let label = text(), let kindName = text(), let kind = IdentityKind(rawValue: kindName),
                          let secretLength = number(), let secret = take(secretLength) else { return nil }
                    identities.append(StoredIdentity(label: label, kind: kind, secret: SecretBytes(secret)))
                }
            }
            return offset == raw.count ? (entries, identities) : nil
        }
    }
}
