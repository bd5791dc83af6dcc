/// Whether a decryption opens the legacy RNCryptor versions 0 and 1.
///
/// Versions 0 and 1 authenticate the ciphertext only: their HMAC does not cover
/// the header, so a changed IV (or, in v0, a changed salt) changes the plaintext
/// without detection — XORing the IV of a v1 message rewrites its first block at
/// will. Like gpg with messages that have no MDC, RWSecretKit refuses them unless
/// told otherwise: every decrypting entry point (`RNCryptor.decrypt`,
/// `Message.decrypt`, `Decryptor`, `PasswordClient`, `VerifiedStream`) takes a
/// `LegacyFormats` that defaults to `.refused`, and throws
/// `RNCryptorError.legacyVersion` for a v0 or v1 message before any key is derived.
/// Versions 2 and 3 authenticate the header and the ciphertext and are always read.
///
/// Within the chain, the client checks it before any password is tried.
public enum LegacyFormats: Sendable, Equatable {
    /// Versions 0 and 1 fail with `RNCryptorError.legacyVersion` (the default).
    case refused
    /// Versions 0 and 1 are opened; their plaintext depends on bytes no HMAC covers.
    case allowed

    /// Throws `legacyVersion` for a v0 or v1 header unless legacy formats are allowed.
    package func check(_ header: MessageHeader) throws(RNCryptorError) {
        if self == .refused && !header.hmacCoversHeader { throw .legacyVersion(header.version) }
    }
}
