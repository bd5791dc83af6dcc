import RWSecretKit

/// Which kind of store: the tool's words for it (`--store`, `--to`, JSON `store`, the
/// messages); a library user has the type.
enum StoreKind: String, Sendable {
    /// The Secret Service keyring (`KeyringPasswordStore`).
    case keyring
    /// The encrypted vault file (`VaultPasswordStore`).
    case file
    /// Passwords in memory only (`MemoryPasswordStore`).
    case memory
}

extension PasswordStore {
    /// The kind of store, in the tool's words.
    var kind: StoreKind {
        switch self {
        case is KeyringPasswordStore: .keyring
        case is VaultPasswordStore: .file
        default: .memory
        }
    }

    /// Whether the store was found locked (a locked keyring collection); its operations then throw `locked`.
    var isLocked: Bool { (self as? KeyringPasswordStore)?.isLocked ?? false }
}
