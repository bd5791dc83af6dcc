import RWSecretKit

// Interim: the keyring and vault adapters (issue 3) replace this file with the real
// store selection. Until then only --no-store runs work, and a store reports 69.
extension GlobalOptions {
    /// Opens the password store these options select.
    func openStore() throws -> any PasswordStore {
        throw CommandFailure(.unavailable, "no password store is available in this build yet; use --no-store with --password-file or RWSECRET_PASSWORD")
    }
}
