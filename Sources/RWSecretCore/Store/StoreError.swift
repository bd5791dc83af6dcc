public import SystemPackage

/// Why a store operation failed. Its ``description`` never contains a secret.
///
/// The one error of the stores: a ``code`` to act on, the ``labels`` and validation
/// ``failures`` it concerns, and a description for people. Not frozen: a struct, as
/// swift-system's `Errno`, so a later version adds codes without breaking a `switch`
/// (which needs a `default`).
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in kind. Not frozen: later versions may add codes.
    public struct Code: Hashable, Sendable {
        private let value: Int
        private init(_ value: Int) { self.value = value }

        /// The store cannot be reached or opened (no Secret Service, no D-Bus session).
        public static let unavailable = Code(1)
        /// The keyring collection is locked; unlock it with the keyring's own tools.
        public static let locked = Code(2)
        /// A label to add or rename to is already in use (``StoreError/labels`` names each).
        public static let labelExists = Code(3)
        /// A label given is not stored (``StoreError/labels`` names each).
        public static let unknownLabel = Code(4)
        /// A label breaks the label rules (1–64 characters, no control characters).
        public static let invalidLabel = Code(5)
        /// A password to add was rejected by validators (``StoreError/failures``; a rejected
        /// password's label in ``StoreError/labels`` when one was given).
        public static let rejected = Code(6)
        /// The vault's passphrase was wrong every time it was given; the vault is unchanged.
        public static let wrongPassphrase = Code(7)
        /// No passphrase could be had to open or create the vault (``StoreError/path`` names
        /// the vault, ``StoreError/detail`` says why).
        public static let noPassphrase = Code(8)
        /// The vault's file is not a vault: not a regular file, or too large to be one
        /// (``StoreError/path``).
        public static let vaultUnreadable = Code(9)
        /// Reading or writing the store's files failed.
        public static let system = Code(10)
        /// There is no vault file yet where one must exist (``StoreError/path``).
        public static let noVault = Code(11)
        /// The vault decrypted but its contents are malformed, or it is not a vault at all
        /// (``StoreError/path``, ``StoreError/detail``).
        public static let vaultDamaged = Code(12)
        /// A lock file that is not a regular file, or a symbolic link on the way to the vault that
        /// belongs to another user in a sticky world-writable folder (``StoreError/path``): it
        /// is not used or followed.
        public static let unsafePath = Code(13)
        /// The kernel's session keyring refused (``StoreError/errno``; `ENOSYS` or `EPERM`: it
        /// is not available to this process).
        public static let sessionKeyring = Code(14)
        /// A new vault passphrase was rejected by validators (``StoreError/failures``).
        public static let passphraseRejected = Code(15)
    }

    /// What went wrong, in full (package access: the tool words each case).
    package let reason: Reason

    package init(_ reason: Reason) { self.reason = reason }

    /// The error a custom ``PasswordStore`` throws: what went wrong in kind, in words for
    /// people (never a secret), and the labels it concerns. A client over the store reports
    /// it as a ``DecryptionFailure`` with code `store`.
    public init(code: Code, description: String, labels: [String] = []) {
        self.reason = .custom(code: code, description: description, labels: labels)
    }

    /// What went wrong, in kind.
    public var code: Code {
        switch reason {
        case .unavailable: .unavailable
        case .locked: .locked
        case .labelExists, .labelsExist: .labelExists
        case .unknownLabels: .unknownLabel
        case .invalidLabel: .invalidLabel
        case .passwordRejected: .rejected
        case .passphraseRejected: .passphraseRejected
        case .wrongPassphrase: .wrongPassphrase
        case .noPassphrase: .noPassphrase
        case .noVault: .noVault
        case .vaultNotARegularFile, .vaultTooLarge: .vaultUnreadable
        case .vaultDamaged: .vaultDamaged
        case .io: .system
        case .unsafeLockFile, .untrustedLink: .unsafePath
        case .sessionKeyring: .sessionKeyring
        case .custom(let code, _, _): code
        }
    }

    /// The labels the error concerns (`labelExists`, `unknownLabel`, `invalidLabel`, and a
    /// rejected password's label when one was given); empty for the others.
    public var labels: [String] {
        switch reason {
        case .labelExists(let label), .invalidLabel(let label, _), .passwordRejected(.some(let label), _): [label]
        case .labelsExist(let labels), .unknownLabels(let labels), .custom(_, _, let labels): labels
        default: []
        }
    }

    /// Why validators rejected a password or a new passphrase (`rejected`, `passphraseRejected`); empty for the others.
    public var failures: [ValidationFailure] {
        switch reason {
        case .passphraseRejected(let failures), .passwordRejected(_, let failures): failures
        default: []
        }
    }
    /// The file the error concerns: the vault (`wrongPassphrase`, `noPassphrase`, `noVault`,
    /// `vaultUnreadable`, `vaultDamaged`), or the lock file or link not used (`unsafePath`);
    /// nil for the others.
    public var path: String? {
        switch reason {
        case .wrongPassphrase(let path), .noPassphrase(let path, _), .noVault(let path),
             .vaultNotARegularFile(let path, _), .vaultTooLarge(let path, _, _), .vaultDamaged(let path, _),
             .unsafeLockFile(let path, _), .untrustedLink(let path, _): path
        default: nil
        }
    }

    /// Why, in words for people: the rule a label breaks (`invalidLabel`), why no passphrase
    /// could be had (`noPassphrase`), what is wrong in the vault (`vaultDamaged`); nil for the
    /// others. Never a secret.
    public var detail: String? {
        switch reason {
        case .invalidLabel(_, let reason), .noPassphrase(_, let reason): reason
        case .vaultDamaged(_, let detail): detail
        default: nil
        }
    }

    /// The error number the kernel gave (`sessionKeyring`); nil for the others.
    public var errno: Errno? {
        if case .sessionKeyring(_, let code) = reason { return Errno(rawValue: code) }
        return nil
    }
}

extension StoreError {
/// What went wrong, in full: facts, for the tool to word.
package enum Reason: Sendable, Equatable {
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
    /// What a custom store threw (`StoreError(code:description:labels:)`).
    case custom(code: Code, description: String, labels: [String])
}
}

/// The errors a store or a passphrase provider throws, as the package's own stores throw them
/// (the same ``StoreError/code``, facts and ``StoreError/description``): a custom
/// ``PasswordStore`` throws `.unknownLabels(["mail"])` as ``MemoryPasswordStore`` does.
extension StoreError {
    /// A label to add or rename to is already in use (`labelExists`).
    public static func labelExists(_ label: String) -> StoreError { StoreError(.labelExists(label)) }
    /// These labels are already in use; none was added (`labelExists`).
    public static func labelsExist(_ labels: [String]) -> StoreError { StoreError(.labelsExist(labels)) }
    /// These labels are not stored (`unknownLabel`).
    public static func unknownLabels(_ labels: [String]) -> StoreError { StoreError(.unknownLabels(labels)) }
    /// The label breaks a rule, said in `reason` (`invalidLabel`).
    public static func invalidLabel(_ label: String, reason: String) -> StoreError { StoreError(.invalidLabel(label, reason: reason)) }
    /// Validators rejected a password to add, named by `label` when one was given (`rejected`).
    public static func passwordRejected(label: String?, _ failures: [ValidationFailure]) -> StoreError {
        StoreError(.passwordRejected(label: label, failures))
    }
    /// No passphrase could be had for the vault at `path`; `reason` says why (`noPassphrase`).
    /// What a ``VaultPasswordStore``'s passphrase provider throws when it cannot give one.
    public static func noPassphrase(path: String, reason: String) -> StoreError { StoreError(.noPassphrase(path: path, reason: reason)) }
    /// There is no vault at `path` yet (`noVault`).
    public static func noVault(path: String) -> StoreError { StoreError(.noVault(path: path)) }
    /// The store cannot be reached or opened: `reason`, then what to do, `advice` (`unavailable`).
    public static func unavailable(reason: String, advice: String) -> StoreError { StoreError(.unavailable(reason: reason, advice: advice)) }
    /// Validators rejected a new vault passphrase (`passphraseRejected`): what a passphrase
    /// provider throws for a ``VaultPasswordStore/PassphraseRequest/create`` it checked itself.
    public static func passphraseRejected(_ failures: [ValidationFailure]) -> StoreError { StoreError(.passphraseRejected(failures)) }
}

/// The cases only the package's stores throw.
extension StoreError {
    package static func locked(advice: String) -> StoreError { StoreError(.locked(advice: advice)) }
    package static func io(_ p0: String) -> StoreError { StoreError(.io(p0)) }
    package static func wrongPassphrase(path: String) -> StoreError { StoreError(.wrongPassphrase(path: path)) }
    package static func vaultNotARegularFile(path: String, kind: FileKind) -> StoreError { StoreError(.vaultNotARegularFile(path: path, kind: kind)) }
    package static func vaultTooLarge(path: String, size: Int64, limit: Int) -> StoreError { StoreError(.vaultTooLarge(path: path, size: size, limit: limit)) }
    package static func vaultDamaged(path: String, detail: String) -> StoreError { StoreError(.vaultDamaged(path: path, detail: detail)) }
    package static func unsafeLockFile(path: String, kind: FileKind) -> StoreError { StoreError(.unsafeLockFile(path: path, kind: kind)) }
    package static func untrustedLink(path: String, owner: UInt32) -> StoreError { StoreError(.untrustedLink(path: path, owner: owner)) }
    package static func sessionKeyring(operation: String, errno: Int32) -> StoreError { StoreError(.sessionKeyring(operation: operation, errno: errno)) }
}

/// The name the package's code uses for `StoreError.FileKind` (package access: the tool's
/// words for a file that is not what it should be).
package typealias FileKind = StoreError.FileKind

extension StoreError {
/// What a path names, for messages about files that are not what they should be.
package enum FileKind: String, Sendable, Equatable {
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
    /// How an `unavailable` or `locked` keyring error's ``description`` ends when the vault
    /// is the other store to use: a caller that can choose the store adds how (the tool adds
    /// `: --store file`).
    public static let vaultAlternative = "or keep passwords in the encrypted vault instead"
}

extension StoreError {
    /// A short English description, without secrets.
    public var description: String {
        switch reason {
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
        case .custom(_, let description, _): description
        }
    }
}
