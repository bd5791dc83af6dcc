/// The kinds of message besides RNCryptor (which keeps its own, faster path), in the order
/// their `detect` is asked. Adding a kind: its folder, and one line here.
package enum MessageKinds {
    package static let registered: [any MessageKind.Type] = [
        AgeKind.self,
        AnsibleVaultKind.self,
        OpenPGPKind.self,
    ]

    /// The kind whose content `prefix` (the first `detectionLength` bytes of an input) begins.
    package static func detect(_ prefix: ArraySlice<UInt8>) -> (any MessageKind.Type)? {
        registered.first { $0.detect(prefix) }
    }

    /// Whether `prefix` begins an OpenPGP message (armored, or a key packet that starts an
    /// encrypted one): a kind not opened here yet, recognised to say so.
    package static func isOpenPGP(_ prefix: ArraySlice<UInt8>) -> Bool {
        let text = prefix.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0a || $0 == 0x0d }
        if text.starts(with: "-----BEGIN PGP MESSAGE-----".utf8) { return true }
        guard let first = prefix.first, first & 0x80 != 0 else { return false }
        let tag = first & 0x40 != 0 ? first & 0x3f : (first >> 2) & 0x0f
        return tag == 1 || tag == 3  // a public-key or a symmetric-key encrypted session key
    }

    /// Whether the first byte can begin another kind's message (an RNCryptor message, raw or
    /// base64, never begins so): a reader of lines need look further only then.
    package static func mayBegin(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "a") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "$")
    }
}

/// What opened a message of another kind.
package enum KindOpener: Sendable {
    /// A password of the chain.
    case password(ChainPassword)
    /// An age identity, named by where it came from (`FILE:LINE`).
    case identity(String)
}

/// An age identity given for one run, with the name it is reported by.
package struct NamedIdentity: Sendable {
    package let name: String
    package let identity: AgeX25519Identity

    package init(name: String, identity: AgeX25519Identity) {
        self.name = name
        self.identity = identity
    }
}

/// The outcome of opening a message of another kind.
package struct KindOpened {
    package let kind: MessageKindName
    package let openedBy: KindOpener
    /// Passwords tried (identities are not counted).
    package let tried: Int
    /// The file name and date the message carries (OpenPGP).
    package var literal: LiteralData? = nil
}

extension MessageKinds {
    /// Opens the message `input` holds, of `kind`, with the chain's passwords in chain order and
    /// then the run's identities: the first that fits wins. The plaintext goes to `sink`, which
    /// the caller releases only when this returns.
    package static func open<K: MessageKind>(_ kind: K.Type, input: KindInput, passwords: [ChainPassword], identities: [NamedIdentity],
                                             into sink: some PlaintextSink) throws(KindFailure) -> KindOpened {
        let credentials: [Credential] = passwords.map { .password($0.secret) } + identities.map { .ageX25519($0.identity) }
        let header: K.Header
        do { header = try K.parseHeader(input) } catch { throw KindFailure(kind: K.name, error: error, tried: 0) }
        var triedPasswords = 0
        for (index, credential) in credentials.enumerated() {
            let unlocked: Unlock<K.Key>
            do { unlocked = try K.unlock(header, with: credential) } catch { throw KindFailure(kind: K.name, error: error, tried: triedPasswords + (index < passwords.count ? 1 : 0)) }
            switch unlocked {
            case .notApplicable: continue
            case .wrongCredential: if index < passwords.count { triedPasswords += 1 }
            case .unlocked(let key):
                if index < passwords.count { triedPasswords += 1 }
                do { try K.decryptBody(header, key: key, from: input, into: sink) } catch { throw KindFailure(kind: K.name, error: error, tried: triedPasswords) }
                let opener: KindOpener = index < passwords.count ? .password(passwords[index]) : .identity(identities[index - passwords.count].name)
                return KindOpened(kind: K.name, openedBy: opener, tried: triedPasswords, literal: K.literal(header))
            }
        }
        throw KindFailure(kind: K.name, error: .noMatch(K.describeNoMatch(header)), tried: triedPasswords)
    }
}

/// Why a message of another kind did not open, with how many passwords were tried.
package struct KindFailure: Error {
    package let kind: MessageKindName
    package let error: KindError
    package let tried: Int
}

/// The bytes already read from an input, then the rest of it.
package final class PrefixedSource: ByteSource {
    private var prefix: [UInt8]
    private var offset = 0
    private let rest: ByteSource

    package init(prefix: [UInt8], rest: ByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    deinit { Crypto.cleanse(&prefix) }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(KindError) -> Int {
        if offset < prefix.count {
            let n = min(buffer.count, prefix.count - offset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
            offset += n
            return n
        }
        return try rest.read(into: buffer)
    }
}
