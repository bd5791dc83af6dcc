@_spi(Testing) internal import RWSecretCore
internal import Synchronization

extension Decryption {
    /// Key derivations made in this process so far: every PBKDF2 key of RNCryptor messages
    /// (whoever opened them), and the password tries of other kinds' messages (age scrypt,
    /// OpenPGP S2K, Ansible Vault's PBKDF2) that a run counted (`rwsecret decrypt --verbose`'s
    /// "key derivations"): what a chain's order costs or saves. Any thread.
    public static var keyDerivations: Int {
        KeyDerivation.derivationCount + kindDerivations.load(ordering: .relaxed)
    }

    private static let kindDerivations = Atomic<Int>(0)

    /// Counts `n` key derivations made outside a message's walk (an `age -p` identity file's scrypt).
    package static func countKeyDerivations(_ n: Int) { kindDerivations.add(n, ordering: .relaxed) }

    /// Counts the password tries of one `MessageKinds.open` of `kind` as key derivations: those
    /// of an opened message when a password opened it; of one that failed, the passwords that
    /// fitted a message whose body then failed, else every password tried (not for an age
    /// file with no scrypt stanza: no password was tried on it).
    package static func count<K: MessageKind>(_ kind: K.Type, _ result: Result<MessageKinds.Decrypted, KindFailure>) {
        switch result {
        case .success(let opened):
            if case .password = opened.openedBy { kindDerivations.add(opened.tried, ordering: .relaxed) }
        case .failure(let error):
            // A password that fitted a message whose body then failed derived its key too.
            if let passwords = error.passwordsTried { kindDerivations.add(passwords, ordering: .relaxed) }
            else if case .noMatch(let types) = error.error, K.name != .age || types.contains("scrypt") { kindDerivations.add(error.tried, ordering: .relaxed) }
        }
    }
}
