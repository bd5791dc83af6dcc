import Foundation
@testable import RWSecretKit
import Testing

/// Identities in the vault (issue 26): a typed section after the passwords, written only when
/// the vault holds an identity, kept by every change of either side.
struct VaultIdentityTests {
    let folder = TemporaryFolder()

    func vault(_ path: String) -> VaultPasswordStore {
        VaultPasswordStore(path: path) { _ throws(StoreError) in SecretBytes(utf8: "correct horse battery") }
    }

    @Test("identities are stored apart from the passwords, and survive every change of either side")
    func storedApart() throws {
        let path = folder.path + "/vault"
        let store = vault(path)
        let identity = AgeX25519Identity.generate()
        #expect(try store.addIdentities([IdentityToAdd(label: nil, secret: identity.secretKeyText)]) == ["identity-1"])
        try store.add(SecretBytes(utf8: "a password"), label: "work")
        try store.add(SecretBytes(utf8: "another"), label: "home")
        try store.rename("home", to: "house")
        try store.remove(labels: ["house"])
        try store.changePassphrase(to: SecretBytes(utf8: "a new long passphrase"))
        let reopened = VaultPasswordStore(path: path) { _ throws(StoreError) in SecretBytes(utf8: "a new long passphrase") }
        #expect(try reopened.labels() == ["work"])
        #expect(try reopened.passwords().map(\.secret.testString) == ["a password"])
        let identities = try reopened.identities()
        #expect(identities.map(\.label) == ["identity-1"])
        #expect(identities.first?.ageIdentity?.recipient == identity.recipient)
        try reopened.renameIdentity("identity-1", to: "me")
        #expect(throws: StoreError.labelExists("me")) {
            try reopened.addIdentities([IdentityToAdd(label: "me", secret: AgeX25519Identity.generate().secretKeyText)])
        }
        #expect(throws: StoreError.self) { try reopened.addIdentities([IdentityToAdd(label: "twice", secret: identity.secretKeyText)]) }
        try reopened.removeIdentities(labels: ["me"])
        #expect(try reopened.identities().isEmpty && (try reopened.labels()) == ["work"])
    }

    @Test("a vault without identities is written as before (RWV1 alone); the section is canonical")
    func formatIsCompatible() throws {
        let passwords = [StoredPassword(label: "a", secret: SecretBytes(utf8: "s"))]
        let plain = VaultContents.encode(passwords, identities: [])
        #expect(plain.withUnsafeBytes { Array($0) } == VaultContents.encode(passwords).withUnsafeBytes { Array($0) })
        #expect(VaultContents.decode(plain)?.count == 1)
        let identity = StoredIdentity(label: "me", kind: .ageX25519, secret: AgeX25519Identity.generate().secretKeyText)
        let typed = VaultContents.encode(passwords, identities: [identity])
        let decoded = try #require(VaultContents.decodeAll(typed))
        #expect(decoded.passwords.map(\.label) == ["a"] && decoded.identities.map(\.label) == ["me"])
        #expect(decoded.identities[0].secret.isEqual(to: identity.secret))
        // The passwords-only decoder (and so older versions) refuse it rather than drop it.
        #expect(VaultContents.decode(typed) == nil)
        // An empty section is never written, so never read; nor an unknown kind.
        var bytes = plain.withUnsafeBytes { Array($0) } + Array("RWI1".utf8) + [0, 0, 0, 0]
        #expect(VaultContents.decodeAll(SecretBytes(bytes)) == nil)
        bytes = typed.withUnsafeBytes { Array($0) }
        let kindAt = try #require(bytes.indices.first { bytes[$0...].starts(with: Array("age-x25519".utf8)) })
        bytes[kindAt] = UInt8(ascii: "b")
        #expect(VaultContents.decodeAll(SecretBytes(bytes)) == nil)
    }
}
