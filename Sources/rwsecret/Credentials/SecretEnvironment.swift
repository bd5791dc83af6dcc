import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// The secrets the environment may carry (`RWSECRET_PASSWORD`,
/// `RWSECRET_VAULT_PASSPHRASE`), each read exactly once, at start-up.
///
/// `take()` copies each value from the environment block straight into
/// `SecretBytes` (never a Swift String or Array), overwrites the value in
/// the block with zero bytes and removes the variable, so no copy is left
/// in the process's memory (or in a child's environment) once the secret
/// has been used and released. The buffers themselves are kept by a static,
/// never released: `wipe()` overwrites them at exit (`ProcessHardening.exit`).
enum SecretEnvironment {
    static let passwordVariable = "RWSECRET_PASSWORD"
    static let vaultPassphraseVariable = "RWSECRET_VAULT_PASSPHRASE"

    nonisolated(unsafe) private static var taken: [String: SecretBytes] = [:]

    /// Moves both secrets out of the environment. Called once, first thing in `main`.
    static func take() {
        for name in [passwordVariable, vaultPassphraseVariable] {
            guard let value = getenv(name) else { continue }
            let length = strlen(value)
            taken[name] = SecretBytes(UnsafeRawBufferPointer(start: value, count: length))
            memset(value, 0, length)
            unsetenv(name)
        }
    }

    /// Overwrites both secrets' buffers (every holder of one shares it: `SecretBytes` is a
    /// reference) and forgets them. Called at exit, when nothing reads them any more.
    static func wipe() {
        for secret in taken.values { secret.cleanseNow() }
        taken = [:]
    }

    /// `RWSECRET_PASSWORD`, if it was set.
    static var password: SecretBytes? { taken[passwordVariable] }

    /// `RWSECRET_VAULT_PASSPHRASE`, if it was set.
    static var vaultPassphrase: SecretBytes? { taken[vaultPassphraseVariable] }
}
