import Foundation
import RWSecretKit
import Testing

/// The keyring adapter against a real gnome-keyring-daemon on a private bus.
///
/// One serialized suite: GDBus keeps the first session bus this process
/// connects to, so every in-process keyring test shares one private daemon.
@Suite(.serialized, .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
final class KeyringPasswordStoreTests {
    let keyring: PrivateKeyring
    let store: KeyringPasswordStore

    init() throws {
        keyring = try PrivateKeyring.forThisProcess()
        store = try KeyringPasswordStore(lockPath: keyring.root + "/run/rwsecret.lock")
        // Start every test from an empty store.
        let existing = try store.labels()
        if !existing.isEmpty { try store.remove(labels: existing) }
        let identities = try store.identityLabels()
        if !identities.isEmpty { try store.removeIdentities(labels: identities) }
    }

    @Test func secretServiceIsSeenOnTheBus() throws {
        #expect(try KeyringPasswordStore.secretServiceIsRunning())
        #expect(store.location == keyring.collectionPath)
        #expect(store.isLocked == false)
    }

    @Test func addListsInOrderAndSecretToolFindsTheItems() throws {
        #expect(try store.add(SecretBytes(utf8: "correct horse"), label: "work") == "work")
        #expect(try store.add(SecretBytes(utf8: "battery staple"), label: "home") == "home")
        #expect(try store.add(SecretBytes(utf8: "third one"), label: nil) == "password-1")
        #expect(try store.labels() == ["work", "home", "password-1"])

        let passwords = try store.passwords()
        #expect(passwords.map(\.label) == ["work", "home", "password-1"])
        #expect(passwords.map(\.secret.testString) == ["correct horse", "battery staple", "third one"])

        // From outside: found by its `label` attribute, with our schema and item label.
        let found = try #require(keyring.secretTool(["search", "--all", "label", "home"]))
        #expect(found.contains("label = rwsecret: home"))
        #expect(found.contains("schema = org.rwsecret.Password"))
        #expect(!found.contains("rwsecret: work"))
        #expect(keyring.secretTool(["lookup", "label", "work"]) == "correct horse")
    }

    @Test func manyPasswordsReadBackInOrderWithTheirSecrets() throws {
        for index in 1...25 { try store.add(SecretBytes(utf8: "secret number \(index)"), label: "item-\(index)") }
        var passwords: [StoredPassword] = []
        let calls = try keyring.secretServiceCalls { passwords = try store.passwords() }
        #expect(passwords.map(\.label) == (1...25).map { "item-\($0)" })
        #expect(passwords.map(\.secret.testString) == (1...25).map { "secret number \($0)" })
        // One search with the secrets loaded in a batch, not one round trip per item.
        #expect(calls.filter { $0.hasPrefix("GetSecrets ") }.count == 1, "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("GetSecret ") }, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("SearchItems ") }.count == 1, "\(calls)")
    }

    @Test func orderSurvivesRemovalAndTheLowestFreeLabelIsReused() throws {
        try store.add(SecretBytes(utf8: "one"), label: nil)
        try store.add(SecretBytes(utf8: "two"), label: nil)
        try store.add(SecretBytes(utf8: "three"), label: nil)
        try store.remove(labels: ["password-1"])
        #expect(try store.add(SecretBytes(utf8: "four"), label: nil) == "password-1")
        // The order added, not the label order.
        #expect(try store.labels() == ["password-2", "password-3", "password-1"])
    }

    @Test func duplicateLabelIsRefusedAndNothingChanges() throws {
        try store.add(SecretBytes(utf8: "first"), label: "work")
        #expect(throws: StoreError.labelExists("work")) {
            try self.store.add(SecretBytes(utf8: "second"), label: "work")
        }
        #expect(try store.passwords().map(\.secret.testString) == ["first"])
    }

    @Test func badLabelsAreRefused() throws {
        #expect(throws: StoreError.self) { try self.store.add(SecretBytes(utf8: "x"), label: "") }
        #expect(throws: StoreError.self) { try self.store.add(SecretBytes(utf8: "x"), label: "tab\there") }
        #expect(throws: StoreError.self) { try self.store.add(SecretBytes(utf8: "x"), label: String(repeating: "a", count: 65)) }
        #expect(try store.labels().isEmpty)
    }

    @Test func removeIsAllOrNothing() throws {
        try store.add(SecretBytes(utf8: "a-secret"), label: "a")
        try store.add(SecretBytes(utf8: "b-secret"), label: "b")
        #expect(throws: StoreError.unknownLabels(["nope"])) { try self.store.remove(labels: ["a", "nope"]) }
        #expect(try store.labels() == ["a", "b"])
        try store.remove(labels: ["a", "b"])
        #expect(try store.labels().isEmpty)
        #expect(keyring.secretTool(["search", "--all", "label", "a"])?.contains("rwsecret: a") != true)
    }

    @Test func observersHearAddsAndRemovalsMadeThroughTheStore() throws {
        let observer = RecordingObserver()
        store.addObserver(observer)
        try store.add(SecretBytes(utf8: "s1"), label: "x")
        try store.add(SecretBytes(utf8: "s2"), label: nil)
        try store.remove(labels: ["x"])
        #expect(throws: StoreError.self) { try self.store.remove(labels: ["x"]) }
        store.removeObserver(observer)
        try store.add(SecretBytes(utf8: "s3"), label: "y")
        #expect(observer.changes == [.added(label: "x"), .added(label: "password-1"), .removed(labels: ["x"])])
    }

    @Test func itemsOfOtherSchemasAreIgnored() throws {
        // secret-tool stores without our schema; the store must not list it.
        let stored = PrivateKeyring.run(
            [try #require(PrivateKeyring.executable("secret-tool")), "store", "--label", "foreign", "label", "foreign"],
            environment: keyring.environment, stdin: Array("foreign-secret".utf8))
        #expect(stored != nil)
        #expect(try store.labels().isEmpty)
    }

    @Test func concurrentAddsFromSeveralStoresTakeDistinctLabels() async throws {
        let lockPath = keyring.root + "/run/rwsecret.lock"
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<6 {
                group.addTask {
                    let store = try KeyringPasswordStore(lockPath: lockPath)
                    return try store.add(SecretBytes(utf8: "concurrent-\(index)"), label: nil)
                }
            }
            var labels: [String] = []
            for try await label in group { labels.append(label) }
            #expect(Set(labels).count == 6)
        }
        #expect(Set(try store.labels()) == Set((1...6).map { "password-\($0)" }))
    }

    // MARK: - Identities (issue 26)

    @Test("an identity is an item of org.rwsecret.Identity with kind age-x25519: never a password, nor a password an identity")
    func identitiesAreTypedItemsOfTheirOwn() throws {
        let identity = AgeX25519Identity.generate()
        try store.add(SecretBytes(utf8: "a password"), label: "work")
        #expect(try store.addIdentities([IdentityToAdd(label: "work", secret: identity.secretKeyText)]) == ["work"])
        #expect(try store.addIdentities([IdentityToAdd(label: nil, secret: AgeX25519Identity.generate().secretKeyText)]) == ["identity-1"])
        // The passwords' side sees only the password, with or without secrets.
        #expect(try store.labels() == ["work"])
        #expect(try store.passwords().map(\.secret.testString) == ["a password"])
        let identities = try store.identities()
        #expect(identities.map(\.label) == ["work", "identity-1"])
        #expect(identities.map(\.kind) == [.ageX25519, .ageX25519])
        #expect(identities.first?.ageIdentity?.recipient == identity.recipient)
        // From outside: found by the kind attribute, with the identity schema and item label.
        let found = try #require(keyring.secretTool(["search", "--all", "kind", "age-x25519"]))
        #expect(found.contains("schema = org.rwsecret.Identity"), "\(found)")
        #expect(found.contains("label = rwsecret identity: work") && found.contains("label = rwsecret identity: identity-1"), "\(found)")
        #expect(!found.contains("org.rwsecret.Password"), "\(found)")
        // A stored secret is refused a second time; renames and removals are per side.
        #expect(throws: StoreError.self) { try self.store.addIdentities([IdentityToAdd(label: "again", secret: identity.secretKeyText)]) }
        try store.renameIdentity("work", to: "mine")
        #expect(try store.identityLabels() == ["mine", "identity-1"])
        #expect(try store.labels() == ["work"])
        #expect(throws: StoreError.unknownLabels(["work"])) { try self.store.removeIdentities(labels: ["work"]) }
        try store.removeIdentities(labels: ["mine", "identity-1"])
        #expect(try store.identityLabels().isEmpty)
        #expect(try store.passwords().map(\.secret.testString) == ["a password"])
    }

    @Test("an item of the password schema with a kind attribute is no password (older items, with none, still are)")
    func passwordItemWithAKindIsSkipped() throws {
        let tool = try #require(PrivateKeyring.executable("secret-tool"))
        let typed = PrivateKeyring.run([tool, "store", "--label", "typed", "xdg:schema", "org.rwsecret.Password", "label", "typed", "order", "1", "kind", "age-x25519"],
                                       environment: keyring.environment, stdin: Array("AGE-SECRET-KEY-1XXXX".utf8))
        let old = PrivateKeyring.run([tool, "store", "--label", "old", "xdg:schema", "org.rwsecret.Password", "label", "old", "order", "2"],
                                     environment: keyring.environment, stdin: Array("old secret".utf8))
        #expect(typed != nil && old != nil)
        #expect(try store.labels() == ["old"])
        #expect(try store.passwords().map(\.secret.testString) == ["old secret"])
        #expect(try store.identities().isEmpty)
        _ = PrivateKeyring.run([tool, "clear", "label", "typed"], environment: keyring.environment)
    }
}
