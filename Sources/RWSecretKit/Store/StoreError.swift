/// Why a store operation failed: facts, for the tool to word. Descriptions never contain a secret.
///
/// The one error of the stores. Not frozen: a later version may add cases, so a `switch`
/// over it needs a `default`.
public enum StoreError: Error, Sendable, Equatable {
    /// The store cannot be reached or opened; `advice` says what to do.
    case unavailable(reason: String, advice: String)
    /// The keyring collection or the vault is locked.
    case locked(advice: String)
    /// The label is already in use.
    case labelExists(String)
    /// These labels are already in use in the destination (all or nothing: none was added).
    case labelsExist([String])
    /// These labels are not stored.
    case unknownLabels([String])
    /// The label breaks the label rules.
    case invalidLabel(String, reason: String)
    /// Reading or writing the store's files failed.
    case io(String)
    /// A new vault's passphrase was rejected by these validators.
    case passphraseRejected([ValidationFailure])
    /// A password to add was rejected, under the store's lock, by these validators
    /// (for example "already stored"); `label` names it when one was given.
    case passwordRejected(label: String?, [ValidationFailure])
    /// The vault's passphrase was wrong every time it was given; the vault is unchanged.
    case wrongPassphrase(path: String)
    /// No passphrase could be had to open or create the vault (`reason` says why).
    case noPassphrase(path: String, reason: String)
    /// There is no vault file at `path` yet.
    case noVault(path: String)
    /// The vault's file is not a regular file (it is `kind`), so it is not read.
    case vaultNotARegularFile(path: String, kind: FileKind)
    /// The vault's file is larger than `limit` bytes, so it is not read.
    case vaultTooLarge(path: String, size: Int64, limit: Int)
    /// The vault decrypted but its contents are malformed, or it is not a vault at all.
    case vaultDamaged(path: String, detail: String)
    /// The lock file is not a regular file (a symbolic link is never followed).
    case unsafeLockFile(path: String, kind: FileKind)
    /// A symbolic link on the way to the vault belongs to another user (`owner`) and sits in a
    /// sticky world-writable folder, so it is not followed (the protected-symlinks rule).
    case untrustedLink(path: String, owner: UInt32)
    /// The kernel's session keyring refused `operation` with `errno`.
    case sessionKeyring(operation: String, errno: Int32)
}

/// The name the package's code uses for `StoreError.FileKind` (not public: a top-level
/// `FileKind` is too generic a name for a library's users).
package typealias FileKind = StoreError.FileKind

extension StoreError {
/// What a path names, for messages about files that are not what they should be.
public enum FileKind: String, Sendable, Equatable {
    /// A regular file.
    case regularFile = "regular file"
    /// A folder.
    case directory
    /// A named pipe.
    case fifo = "FIFO"
    /// A character device.
    case characterDevice = "character device"
    /// A block device.
    case blockDevice = "block device"
    /// A Unix socket.
    case socket
    /// A symbolic link (never followed where this is reported).
    case symbolicLink = "symbolic link"
    /// Anything else.
    case unknown = "special file"

    /// `a FIFO`, `a directory`…
    package var withArticle: String {
        switch self {
        case .fifo: "a FIFO"
        default: "a \(rawValue)"
        }
    }
}
}

extension StoreError {
    /// The end of a keyring error's advice: the vault is the other store (a caller names
    /// how to choose it; the tool adds `--store file`).
    package static let vaultAlternative = "or keep passwords in the encrypted vault instead"
}

extension StoreError: CustomStringConvertible {
    /// A short English description, without secrets.
    public var description: String {
        switch self {
        case .unavailable(let reason, let advice): advice.isEmpty ? reason : "\(reason); \(advice)"
        case .locked(let advice): "the password store is locked; \(advice)"
        case .labelExists(let label): "a password labelled '\(label)' already exists"
        case .labelsExist(let labels):
            (labels.count == 1 ? "a password labelled " : "passwords labelled ")
                + labels.map { "'\($0)'" }.joined(separator: ", ") + (labels.count == 1 ? " already exists" : " already exist")
        case .unknownLabels(let labels): "no password labelled " + labels.map { "'\($0)'" }.joined(separator: ", ")
        case .invalidLabel(_, let reason): "bad label: \(reason)"
        case .io(let what): what
        case .passphraseRejected(let failures):
            failures.map { "vault passphrase: \($0)" }.joined(separator: "\n")
        case .passwordRejected(let label, let failures):
            failures.map { (label.map { "'\($0)': " } ?? "") + "\($0)" }.joined(separator: "\n")
        case .wrongPassphrase(let path): "wrong passphrase for the vault \(path) (the vault was not changed)"
        case .noPassphrase(let path, let reason): "the vault \(path) needs its passphrase: \(reason)"
        case .noVault(let path): "there is no vault at \(path) yet"
        case .vaultNotARegularFile(let path, let kind): "the vault \(path) is not a regular file (it is \(kind.withArticle)); it was not read"
        case .vaultTooLarge(let path, let size, let limit):
            "the vault \(path) is larger than \(limit >> 20) MiB (\(size) bytes), so it is not a vault; it was not read"
        case .vaultDamaged(let path, let detail): "the vault \(path) is damaged (\(detail))"
        case .unsafeLockFile(let path, let kind): "the lock file \(path) is \(kind.withArticle), not a regular file; it is not used"
        case .untrustedLink(let path, let owner):
            "the symbolic link \(path) belongs to another user (uid \(owner)) in a sticky world-writable folder; it was not followed"
        case .sessionKeyring(let operation, let code): "the kernel's session keyring cannot \(operation): \(SessionKeyring.describe(errno: code))"
        }
    }
}
