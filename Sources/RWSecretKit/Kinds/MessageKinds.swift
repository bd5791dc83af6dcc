/// Opening a message of a whole-input kind (age, Ansible Vault, OpenPGP) with a chain's
/// passwords and identities. What a message is, `KindRegistry` tells.
package enum MessageKinds {
    /// The whole-input kinds, in the order their `detect` is asked (`KindRegistry.wholeInputKinds`).
    package static var registered: [any MessageKind.Type] { KindRegistry.wholeInputKinds }

    /// The whole-input kind whose content `prefix` (the first `detectionLength` bytes of an
    /// input) begins: `KindRegistry.wholeInputKind`.
    package static func detect(_ prefix: ArraySlice<UInt8>) -> (any MessageKind.Type)? {
        KindRegistry.wholeInputKind(prefix)
    }
}

/// An identity of the library's own (an age X25519 identity, an OpenSSH key, an OpenPGP
/// secret key), with the name it is reported by: where it came from (`FILE`, `FILE#N`, a
/// store's label).
package struct NamedIdentity: KnownIdentity {
    package let name: String
    /// An age X25519 identity, an OpenSSH key or an OpenPGP secret key (`.ageX25519`, `.ageSSH`, `.openPGPKey`).
    package let credential: Credential

    package init(name: String, identity: AgeX25519Identity) {
        self.name = name
        self.credential = .ageX25519(identity)
    }

    package init(name: String, ssh: AgeSSHIdentity) {
        self.name = name
        self.credential = .ageSSH(ssh)
    }

    package init(name: String, openPGP key: OpenPGPTransferableKey) {
        self.name = name
        self.credential = .openPGPKey(key)
    }

    /// The file key one of the age `stanzas` wraps for this identity (nil for an OpenPGP key).
    package func unwrap(_ stanzas: [Age.Stanza]) throws(KindError) -> SecretBytes? {
        switch credential {
        case .ageX25519(let identity): try identity.unwrap(stanzas)
        case .ageSSH(let identity): try identity.unwrap(stanzas)
        default: nil
        }
    }
}

extension MessageKinds {
    /// What opening a message of another kind gave (its plaintext is in the sink): the
    /// kind's form of the public `Decrypted`, as `VerifiedStream.Decrypted` is a stream's.
    package struct Decrypted {
        package let kind: MessageKindName
        package let openedBy: Opener
        /// Passwords and identities tried (an identity with no stanza of its type, or a password
        /// for a file to recipients, is not counted).
        package let tried: Int
        /// What the tries of a costly KDF cost (age scrypt), for the verbose line.
        package var cost: AgeScryptBatch.Cost? = nil
        /// The file name and date the message carries (OpenPGP).
        package var literal: LiteralData? = nil
    }
}

extension MessageKinds {
    /// Opens the message `input` holds, of `kind`, with the chain's passwords in chain order and
    /// then the identities in the order given (the caller's: the store's and the run's, the
    /// last winner first): the first that fits wins. The plaintext goes to `sink`, which
    /// the caller releases only when this returns.
    /// A costly KDF (age's scrypt) tries several passwords at once, within `budget`.
    ///
    /// `more`, when given, is asked only when none of `passwords` and `identities` opened the
    /// message (`.noMatch`): the credentials to try next (the store's, opened only then), or
    /// nil for none. The header is parsed once; `tried` counts both rounds.
    package static func open<K: MessageKind>(_ kind: K.Type, input: KindInput, passwords: [ChainPassword], identities: [any Identity],
                                             budget: TryBudget = .oneAtATime,
                                             more: (() -> (passwords: [ChainPassword], identities: [any Identity])?)? = nil,
                                             into sink: some PlaintextSink) throws(KindFailure) -> MessageKinds.Decrypted {
        let header: K.Header
        do { header = try K.parseHeader(input) } catch { throw KindFailure(kind: K.name, error: error, tried: 0) }
        do {
            return try open(kind, header: header, input: input, passwords: passwords, identities: identities, budget: budget, into: sink)
        } catch {
            guard case .noMatch = error.error, let more, let next = more() else { throw error }
            let first = error.tried, firstPasswords = error.passwordsTried
            do {
                let opened = try open(kind, header: header, input: input, passwords: next.passwords, identities: next.identities, budget: budget, into: sink)
                return MessageKinds.Decrypted(kind: opened.kind, openedBy: opened.openedBy, tried: first + opened.tried, cost: opened.cost, literal: opened.literal)
            } catch {
                throw KindFailure(kind: error.kind, error: error.error, tried: first + error.tried,
                                  passwordsTried: error.passwordsTried.map { $0 + (firstPasswords ?? 0) })
            }
        }
    }

    /// `open` of a parsed header with one set of credentials.
    private static func open<K: MessageKind>(_ kind: K.Type, header: K.Header, input: KindInput, passwords: [ChainPassword], identities: [any Identity],
                                             budget: TryBudget, into sink: some PlaintextSink) throws(KindFailure) -> MessageKinds.Decrypted {
        if !passwords.isEmpty {
            do { try K.checkCost(header, budget: budget) } catch { throw KindFailure(kind: K.name, error: error, tried: 0) }
        }
        // A message only passwords open, tried several at once (age's scrypt stanza).
        let atOnce: AtOnceUnlock<K.Key>?
        do { atOnce = try K.unlockAtOnce(header, passwords: passwords.map(\.secret), budget: budget) } catch {
            throw KindFailure(kind: K.name, error: error, tried: passwords.count)
        }
        if let atOnce {
            guard let found = atOnce.found else {
                throw KindFailure(kind: K.name, error: .noMatch(K.describeNoMatch(header)), tried: passwords.count, passwordsTried: passwords.count)
            }
            do { try K.decryptBody(header, key: found.key, from: input, into: sink) } catch {
                sink.discard()  // what verified before the failure (age's earlier chunks) goes too
                throw KindFailure(kind: K.name, error: error, tried: found.index + 1, passwordsTried: found.index + 1)
            }
            return MessageKinds.Decrypted(kind: K.name, openedBy: .password(passwords[found.index]), tried: found.index + 1, cost: atOnce.cost, literal: K.literal(header))
        }
        // Each password as given, then its other Unicode normalization form when that differs
        // (NFC and NFD: input methods differ); both are one password for `tried`.
        var offers: [(credential: Credential, password: Int?, identity: Int?)] = []
        for (index, password) in passwords.enumerated() {
            offers.append((.password(password.secret), index, nil))
            let isASCII = password.secret.withUnsafeBytes { raw in raw.allSatisfy { $0 < 0x80 } }
            if !isASCII, let text = password.secret.decodedUTF8(), let other = PasswordDialects.otherNormalizationForm(of: text) {
                offers.append((.password(SecretBytes(other)), index, nil))
            }
        }
        offers += identities.indices.map { (identities[$0].asCredential, nil, $0) }
        // What `tried` counts: each password once (both its forms), each identity offered a stanza.
        var triedPasswords = Set<Int>()
        var triedIdentities = 0
        func count(_ offer: (credential: Credential, password: Int?, identity: Int?)) {
            if let index = offer.password { triedPasswords.insert(index) } else { triedIdentities += 1 }
        }
        // A costly OpenPGP S2K (Argon2, a high iterated count): several offers at once, as
        // age's scrypt, decided in order all the same.
        let costly = K.costlyTry(header)
        var width = costly.map { budget.atOnce(count: offers.count, perTry: $0.memory, threads: $0.threads) } ?? 1
        var narrowedFrom = 0
        let clock = ContinuousClock()
        let started = clock.now
        var start = 0
        while start < offers.count {
            let batch = Array(offers[start..<min(start + width, offers.count)])
            start += batch.count
            let slots = ResultSlots<Result<Unlock<K.Key>, KindError>>(count: batch.count)
            let unlock: (K.Header, Credential) throws(KindError) -> Unlock<K.Key> = { header, credential throws(KindError) in
                try K.unlock(header, with: credential)
            }
            let shared = UncheckedBox((header, batch, unlock))
            let attempt: @Sendable (Int) -> Void = { index in
                let (header, batch, unlock) = shared.value
                do throws(KindError) { slots[index] = .success(try unlock(header, batch[index].credential)) } catch { slots[index] = .failure(error) }
            }
            // A costly batch's memory comes from the run's one budget, as age's scrypt's does.
            let memory = Scheduler.shared.reserve(costly.map { batch.count * $0.memory } ?? 0, within: budget.memory)
            Scheduler.shared.forEach(batch.count, width: batch.count, attempt)
            memory.release()
            tries: for (index, offer) in batch.enumerated() {
                let unlocked: Unlock<K.Key>
                switch slots[index]! {
                case .success(let value): unlocked = value
                case .failure(.outOfMemory) where batch.count > 1:
                    // Too many at once for the process's memory: this one and the rest, one at a time.
                    narrowedFrom = width
                    width = 1
                    start = start - batch.count + index
                    break tries
                case .failure(let error):
                    count(offer)
                    throw KindFailure(kind: K.name, error: error, tried: triedPasswords.count + triedIdentities, passwordsTried: triedPasswords.count)
                }
                switch unlocked {
                case .notApplicable: continue
                case .wrongCredential: count(offer)
                case .unlocked(let key):
                    count(offer)
                    do { try K.decryptBody(header, key: key, from: input, into: sink) } catch {
                        sink.discard()  // what verified before the failure (age's earlier chunks) goes too
                        throw KindFailure(kind: K.name, error: error, tried: triedPasswords.count + triedIdentities, passwordsTried: triedPasswords.count)
                    }
                    let opener: Opener = offer.password.map { .password(passwords[$0]) } ?? .identity(identities[offer.identity!].name)
                    var cost: AgeScryptBatch.Cost? = nil
                    if let costly {
                        let elapsed = clock.now - started
                        let ms = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
                        cost = AgeScryptBatch.Cost(logN: 0, atOnce: width, tries: start - batch.count + index + 1, milliseconds: ms,
                                                   budget: budget.memory, kdf: costly.words, memoryPerTry: costly.memory, narrowedFrom: narrowedFrom)
                    }
                    return MessageKinds.Decrypted(kind: K.name, openedBy: opener, tried: triedPasswords.count + triedIdentities, cost: cost, literal: K.literal(header))
                }
            }
        }
        throw KindFailure(kind: K.name, error: .noMatch(K.describeNoMatch(header)), tried: triedPasswords.count + triedIdentities,
                          passwordsTried: triedPasswords.count)
    }
}

/// A value handed to concurrent tries that only read it.
private struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Why a message of another kind did not open, with how many passwords were tried.
package struct KindFailure: Error {
    package let kind: MessageKindName
    package let error: KindError
    package let tried: Int
    /// The passwords among `tried` (each one key derivation: `--verbose`'s count), where the
    /// tries got that far; nil where only `tried` is known.
    package var passwordsTried: Int? = nil
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
