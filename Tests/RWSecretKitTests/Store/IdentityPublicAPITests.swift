import Foundation
import RWSecretKit
import Testing

/// Issue 33, item 4, for identities: the identity store is public API, so a program keeps,
/// lists, exports and uses age and OpenPGP identities as `rwsecret identity …` does. The calls
/// are `ConsumerIdentities`', which typechecks as a consumer's file. Before, `IdentityStore`,
/// `StoredIdentity`, `IdentityToAdd` and `IdentityKind` were `package`: the file did not
/// typecheck (the tool, built as a consumer by `make thin-check`, did not either).
@Suite("Identities: the identity store on public API", .serialized)
struct IdentityPublicAPITests {
    static func fixture(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Fixtures.directory.appendingPathComponent(name)))
    }

    @Test("ConsumerIdentities.swift typechecks as a consumer's file: the identity store is public API")
    func consumerFileIsPublic() throws {
        let errors = try PublicAPITests.typecheckFile("ConsumerIdentities.swift", besideTest: #filePath)
        #expect(errors.isEmpty, "\(errors)")
    }

    @Test("age-keygen's identity and gpg's protected key, kept in a store, list as age and gpg say, and open what age -r and gpg -e wrote")
    func keepListOpen() throws {
        let keys = try PeerKeys()
        let peer = OpenPGPKeyPeerTests()
        defer { peer.stopAgent() }
        let fingerprint = try peer.makeKey("Dana", primary: "ed25519", subkey: "cv25519", passphrase: "dana's passphrase")
        let keyFile = try peer.exportSecret(fingerprint, armor: true, passphrase: "dana's passphrase")
        let store = MemoryPasswordStore()
        let labels = try ConsumerIdentities.importFiles(ageFile: keys.text(keys.identityFile), openPGPFile: keyFile,
                                                        passphrase: "dana's passphrase", into: store)
        #expect(labels == ["identity-1", "gpg-\(fingerprint.suffix(8))"])
        let made = try ConsumerIdentities.make(in: store, label: "fresh")
        #expect(try ConsumerIdentities.list(store) == [
            "identity-1 age-x25519 \(keys.recipient)",
            "gpg-\(fingerprint.suffix(8)) openpgp \(fingerprint) Dana <dana@example.org>",
            "fresh age-x25519 \(made)",
        ])
        // A secret already kept is refused, whatever its label.
        #expect(throws: StoreError.self) { try ConsumerIdentities.importFiles(ageFile: keys.text(keys.identityFile), openPGPFile: keyFile, passphrase: "dana's passphrase", into: MemoryPasswordStore([]), twice: true) }

        let plaintext = Array("kept in a store\n".utf8)
        let toAge = try Age.encrypt(plaintext, to: [try Age.Recipient(keys.recipient)])
        #expect(try ConsumerIdentities.open(toAge, with: store) == (plaintext, "identity identity-1"))
        let toFresh = try Age.encrypt(plaintext, to: [try Age.Recipient(made)], armor: true)
        #expect(try ConsumerIdentities.open(toFresh, with: store) == (plaintext, "identity fresh"))
        let toKey = try peer.encrypt(to: [fingerprint], plaintext)
        #expect(try ConsumerIdentities.open(toKey, with: store) == (plaintext, "identity gpg-\(fingerprint.suffix(8))"))

        // The export is unprotected and armored: it reads without a passphrase, as the same key.
        let exported = try #require(try ConsumerIdentities.export("gpg-\(fingerprint.suffix(8))", from: store))
        #expect(String(decoding: exported.prefix(37), as: UTF8.self) == "-----BEGIN PGP PRIVATE KEY BLOCK-----")
        #expect(try OpenPGP.Identity(exported, name: "again").fingerprint == fingerprint)
        #expect(try ConsumerIdentities.export("identity-1", from: store) == nil)
    }

    @Test("kinds are named as stores keep them; an unknown name is none")
    func kinds() {
        #expect(ConsumerIdentities.kind(named: "age-x25519") == .ageX25519)
        #expect(ConsumerIdentities.kind(named: "openpgp") == .openPGP)
        #expect(ConsumerIdentities.kind(named: "age-mlkem") == nil)
        #expect(IdentityKind.openPGP.description == "openpgp")
    }
}

extension ConsumerIdentities {
    /// `importFiles` twice into one store: the second is refused (the same secrets).
    static func importFiles(ageFile: String, openPGPFile: [UInt8], passphrase: String?, into store: any IdentityStore, twice: Bool) throws {
        _ = try importFiles(ageFile: ageFile, openPGPFile: openPGPFile, passphrase: passphrase, into: store)
        _ = try store.addIdentities([IdentityToAdd(label: "again", secret: try store.identities()[0].secret)])
    }
}
