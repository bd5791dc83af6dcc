extension MessageOpener {
    /// A kind of encrypted message the library opens: what ``MessageOpener/kind(of:)`` detects
    /// and what ``RWSecretCore/Decrypted/kind`` reports. Not frozen: later versions add kinds.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        package let name: MessageKindName

        package init(_ name: MessageKindName) { self.name = name }

        /// RNCryptor's data format (versions 2 and 3; 0 and 1 when legacy formats are allowed).
        public static let rncryptor = Kind(.rncryptor)
        /// An age v1 file (binary or armored), to a passphrase (scrypt) or to recipients.
        public static let age = Kind(.age)
        /// An OpenPGP message encrypted to a password (`gpg -c`) or to secret keys (``OpenPGP/Identity``), binary or armored.
        public static let openPGP = Kind(.openpgp)
        /// An Ansible Vault (`$ANSIBLE_VAULT;1.1;AES256` or `1.2` with a vault id).
        public static let ansibleVault = Kind(.ansibleVault)

        /// The kind's name as the tool's records write it: `rncryptor`, `age`, `openpgp`, `ansible-vault`.
        public var description: String { name.rawValue }

        /// What a message of this kind is called in a sentence.
        package var words: String {
            switch name {
            case .rncryptor: "RNCryptor message"
            case .age: "age file"
            case .openpgp: "OpenPGP message"
            case .ansibleVault: "Ansible Vault"
            }
        }
    }
}
