/// The handler of key-based messages (RNCryptor's options byte 0): opens them with
/// its two keys, and passes password-based messages on.
///
/// A key-based message the key does not open fails here (`keyDidNotOpen`): no
/// password can open a key-based message, so the rest of the chain is not walked.
package final class KeyHandler: DecryptionHandler {
    private let keys: MessageKeys
    /// The next handler, or nil at the end of the chain.
    package let next: (any DecryptionHandler)?

    /// A handler for `keys`, followed by `next`.
    package init(keys: MessageKeys, next: (any DecryptionHandler)?) {
        self.keys = keys
        self.next = next
    }

    /// Opens a key-based message (HMAC first, in constant time), or passes a password-based one on.
    package func handle(_ message: Message, walk: ChainWalk) -> Result<Decrypted, DecryptionFailure> {
        guard !message.header.isPasswordBased else { return passOn(message, walk: walk) }
        do throws(RNCryptorError) {
            // Whether a legacy version may be opened is decided before the chain (the client's
            // `refusal(of:)`, `VerifiedStream`); the chain opens what reaches it, as `PasswordHandler` does.
            return .success(Decrypted(plaintext: try message.decrypt(keys: keys, legacyFormats: .allowed), openedBy: .key))
        } catch .hmacMismatch {
            return .failure(.keyDidNotOpen)
        } catch .badPadding {
            return .failure(.badPadding)
        } catch {
            return .failure(.format(error))
        }
    }

    /// The key, for a key-based message; nothing for a password-based one.
    package func candidates(for header: MessageHeader) -> [ChainCandidate] {
        header.isPasswordBased ? [] : [ChainCandidate(opener: .key, keying: .keys(keys))]
    }
}
