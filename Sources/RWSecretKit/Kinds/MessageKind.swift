/// The kinds of message rwsecret knows, named as JSON records and `--verbose` name them.
package enum MessageKindName: String, Sendable, CaseIterable {
    case rncryptor
    case age
    case openpgp
    case ansibleVault = "ansible-vault"
}

/// A secret offered to a kind of message to unlock it.
package enum Credential: Sendable {
    /// A password (its bytes as given: UTF-8 for typed text).
    case password(SecretBytes)
    /// An age X25519 identity (`AGE-SECRET-KEY-1…`).
    case ageX25519(AgeX25519Identity)
    /// An unencrypted OpenSSH private key (`ssh-ed25519`, `ssh-rsa`) as an age identity.
    case ageSSH(AgeSSHIdentity)
    /// An OpenPGP secret key (its encryption keys' secrets read), for PKESK packets.
    case openPGPKey(OpenPGPTransferableKey)
    /// A consumer's own ``Identity``, for age stanzas (called through `unwrap`).
    case identity(any Identity)
}

/// What offering one credential to a message gave.
package enum Unlock<Key> {
    /// The credential opened the message's key (its cheap check passed).
    case unlocked(Key)
    /// The credential is of the right type but does not open this message (one try spent).
    case wrongCredential
    /// The message has no place for a credential of this type (nothing was tried).
    case notApplicable
}

/// One kind of encrypted message: detect, parse the header, unlock with a credential
/// (the cheap check first), then stream the verified body.
///
/// Implementation requirements:
/// - `detect` looks at content only, never at a file name, and reads no more than it is given.
/// - `unlock` spends at most one key derivation per credential, and returns `.wrongCredential`
///   (never throws) when the credential simply does not fit; it throws only for a message that
///   no credential can open (a malformed stanza, a tampered header).
/// - `decryptBody` throws when anything that authenticates the whole plaintext fails (a missing
///   final chunk, trailing data): the caller releases what the sink holds only when
///   `decryptBody` returns. A kind that writes bytes to `sink` before all that authenticates
///   them is checked (OpenPGP: the MDC comes at the end of the message) calls `sink.discard()`
///   before it throws, so that a sink never holds unverified bytes after an error.
package protocol MessageKind: SendableMetatype {
    /// What `parseHeader` learns before any credential is tried.
    associatedtype Header
    /// What a credential unlocks: the key of the body.
    associatedtype Key

    /// The kind's name in records.
    static var name: MessageKindName { get }

    /// Whether the input, of which `prefix` holds the first bytes (up to `detectionLength`), is of this kind.
    static func detect(_ prefix: ArraySlice<UInt8>) -> Bool

    /// Reads and checks the header from `input`, which is left at the start of the body.
    static func parseHeader(_ input: KindInput) throws(KindError) -> Header

    /// Tries one credential.
    static func unlock(_ header: Header, with credential: Credential) throws(KindError) -> Unlock<Key>

    /// Decrypts and authenticates the body that follows the header in `input` into `sink`.
    static func decryptBody(_ header: Header, key: Key, from input: KindInput, into sink: some PlaintextSink) throws(KindError)

    /// What a `.noMatch` error says about a message no credential opened (age: its stanza types).
    static func describeNoMatch(_ header: Header) -> [String]

    /// The file name and date the message carries (OpenPGP's literal data packet), once its body
    /// is decrypted: shown, never used as a path.
    static func literal(_ header: Header) -> LiteralData?

    /// What opens a message of this kind: passwords, a key file, identities of these types.
    static var needs: CredentialNeeds { get }

    /// Whether one try of a credential on this message is costly (a memory-hard or long key
    /// derivation: age's scrypt, OpenPGP's Argon2 or a high iterated count), so that tries run
    /// several at once within the memory budget, and a typed password goes first.
    static func oneTryIsCostly(_ header: Header) -> Bool

    /// Refuses, before any password is tried, a message whose derivations would cost more than
    /// `budget` allows (OpenPGP's S2K). Default: nothing to refuse.
    static func checkCost(_ header: Header, budget: TryBudget) throws(KindError)

    /// A costly try's memory and threads, and its words for the verbose line, when several
    /// credentials are worth trying at once (age's scrypt, OpenPGP's S2K); nil otherwise (the
    /// default). `MessageKinds.memoryPerTry` asks it for the memory of one try.
    static func costlyTry(_ header: Header) -> CostlyTry?

    /// Tries `passwords` several at once within `budget` when this message is opened by
    /// passwords alone (age's scrypt stanza): the first in order that opens it, and what the
    /// tries cost; nil when the kind does not (the default: offers one at a time).
    static func unlockAtOnce(_ header: Header, passwords: [SecretBytes], budget: TryBudget) throws(KindError) -> AtOnceUnlock<Key>?
}

/// What opens a message of a kind.
package struct CredentialNeeds: Sendable, Equatable {
    /// Passwords (the chain's, typed, from files).
    package var passwords: Bool
    /// A key file's keys (RNCryptor's `--key-file`).
    package var keyFile: Bool
    /// The identity types it has a place for.
    package var identities: [IdentityType]

    package init(passwords: Bool, keyFile: Bool = false, identities: [IdentityType] = []) {
        self.passwords = passwords
        self.keyFile = keyFile
        self.identities = identities
    }
}

/// A type of identity (a secret key that unwraps a file key).
package enum IdentityType: Sendable, Equatable {
    /// An age X25519 identity (`AGE-SECRET-KEY-1…`).
    case ageX25519
    /// An OpenSSH private key as an age identity.
    case ageSSH
    /// An OpenPGP secret key.
    case openPGPKey
    /// A consumer's own ``Identity``: it unwraps age stanzas.
    case ageOwn
}

extension Credential {
    /// The type of identity this credential is; nil for a password.
    package var identityType: IdentityType? {
        switch self {
        case .password: nil
        case .ageX25519: .ageX25519
        case .ageSSH: .ageSSH
        case .openPGPKey: .openPGPKey
        case .identity: .ageOwn
        }
    }
}

/// A costly try's memory and threads, and its words for the verbose line.
package struct CostlyTry: Sendable {
    package let memory: Int
    package let threads: Int
    package let words: String

    package init(memory: Int, threads: Int, words: String) {
        self.memory = memory
        self.threads = threads
        self.words = words
    }
}

/// What trying passwords several at once gave: the first in order that opened the message
/// (its index and key), and what the tries cost.
package struct AtOnceUnlock<Key> {
    package let found: (index: Int, key: Key)?
    package let cost: AgeScryptBatch.Cost?

    package init(found: (index: Int, key: Key)?, cost: AgeScryptBatch.Cost?) {
        self.found = found
        self.cost = cost
    }
}

/// The file name, date and format an OpenPGP message's literal data packet carries (RFC 9580
/// 5.9), and the signatures of a signed message: what describes an opened OpenPGP message
/// beside its plaintext.
///
/// The name is what the sender wrote, any bytes: never use it as a path.
public struct LiteralData: Sendable, Equatable {
    /// The file name as the sender wrote it (any bytes; often empty).
    public let name: [UInt8]
    /// The date, in seconds since 1970 (0: none).
    public let date: UInt32
    /// The format octet: `b` (binary), `t` (text) or `u` (UTF-8 text), as an ASCII byte.
    public let format: UInt8
    /// A signed message's signatures (``OpenPGPSignature``), in the message's order, their
    /// hashes finished; each is checked once the message has verified, with the keys the
    /// caller knows (``OpenPGPSignature/outcome`` says what was found).
    public var signatures: [OpenPGPSignature] = []
    /// Who the signatures say signed the message: each one's ``OpenPGPSignature/issuer``, in order.
    public var signers: [String] { signatures.map(\.issuer) }

    package init(name: [UInt8], date: UInt32, format: UInt8 = UInt8(ascii: "b")) {
        self.name = name
        self.date = date
        self.format = format
    }
}

/// How many leading bytes `detect` is given (an armored file may begin with some whitespace).
package let detectionLength = 1024

/// Where a kind writes verified plaintext. Nothing written here is released before
/// `decryptBody` returns: the caller decides then (a private file, a bounded buffer).
package protocol PlaintextSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws(KindError)
    /// Drops (and wipes where it can) everything written so far: the message did not verify.
    func discard()
    /// Room for bytes kept aside until the message verifies (`PlaintextSpool`; default: memory).
    func makeSpool() throws(KindError) -> any PlaintextSpool
}

/// Verified plaintext kept in memory, up to a limit (for small messages and tests).
package final class MemoryPlaintext: PlaintextSink {
    package private(set) var bytes: [UInt8] = []
    private let limit: Int

    package init(limit: Int = 64 << 20) { self.limit = limit }

    deinit { Crypto.cleanse(&bytes) }

    package func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
        guard bytes.count + chunk.count <= limit else { throw .tooLarge(limit: limit) }
        bytes.append(contentsOf: chunk)
    }

    package func discard() {
        Crypto.cleanse(&bytes)
        bytes = []
    }
}

/// Verified plaintext spooled to an unnamed private file (`PrivateFile`), for any size in bounded memory.
package final class PrivateFilePlaintext: PlaintextSink {
    package let file: PrivateFile

    package init(file: PrivateFile) { self.file = file }

    package func write(_ chunk: UnsafeRawBufferPointer) throws(KindError) {
        do { try file.write(chunk) } catch { throw .io(error) }
    }

    /// Cuts the unnamed file to nothing (its blocks go back to the filesystem now, not when it is closed).
    package func discard() { try? file.truncate(to: 0) }
}

extension MessageKind {
    package static func literal(_ header: Header) -> LiteralData? { nil }
    package static func checkCost(_ header: Header, budget: TryBudget) throws(KindError) {}
    package static func costlyTry(_ header: Header) -> CostlyTry? { nil }
    package static func unlockAtOnce(_ header: Header, passwords: [SecretBytes], budget: TryBudget) throws(KindError) -> AtOnceUnlock<Key>? { nil }

    /// Offers `credentials` in order until one unlocks the message: the first in order wins.
    /// Returns the key, the index of the credential that opened it, and how many credentials
    /// were tried (those for which the message had a place).
    package static func firstUnlock(_ header: Header, credentials: [Credential]) throws(KindError) -> (key: Key, index: Int, tried: Int)? {
        var tried = 0
        for (index, credential) in credentials.enumerated() {
            switch try unlock(header, with: credential) {
            case .unlocked(let key): return (key, index, tried + 1)
            case .wrongCredential: tried += 1
            case .notApplicable: continue
            }
        }
        return nil
    }

    /// Detects, parses, unlocks with the first fitting credential and decrypts into `sink`,
    /// in one call. Throws `.noMatch` when no credential fits.
    package static func decrypt(_ input: KindInput, credentials: [Credential], into sink: some PlaintextSink) throws(KindError) -> (index: Int, tried: Int) {
        let header = try parseHeader(input)
        guard let (key, index, tried) = try firstUnlock(header, credentials: credentials) else {
            throw .noMatch(Self.describeNoMatch(header))
        }
        try decryptBody(header, key: key, from: input, into: sink)
        return (index, tried)
    }
}
