import Foundation
import RWSecretKit
import Testing

/// Adding several passwords, and renaming, in the real keyring (the serialized suite's
/// private gnome-keyring).
extension KeyringPasswordStoreTests {
    @Test func addingSeveralIsAllOrNothing() throws {
        try store.add(SecretBytes(utf8: "taken secret"), label: "taken")
        // A clash names every existing label and adds nothing.
        #expect(throws: StoreError.labelsExist(["taken"])) {
            try store.add([PasswordToAdd(label: "new", secret: SecretBytes(utf8: "n")), PasswordToAdd(label: "taken", secret: SecretBytes(utf8: "t"))]) { _, _ in [] }
        }
        #expect(try store.labels() == ["taken"])
        // The keyring cannot hold a NUL byte: the second fails, and the first is taken back.
        #expect(throws: StoreError.self) {
            try store.add([PasswordToAdd(label: "fine", secret: SecretBytes(utf8: "fine secret")),
                           PasswordToAdd(label: "nul", secret: SecretBytes(utf8: "with\u{0}nul"))]) { _, _ in [] }
        }
        #expect(try store.labels() == ["taken"])
        #expect(keyring.secretTool(["lookup", "label", "fine"]) == nil)
        #expect(try store.add([PasswordToAdd(label: "x", secret: SecretBytes(utf8: "x secret")),
                               PasswordToAdd(label: nil, secret: SecretBytes(utf8: "y secret"))]) { _, _ in [] } == ["x", "password-1"])
        #expect(try store.labels() == ["taken", "x", "password-1"])
    }

    @Test func renameKeepsTheOrderAndTheSecret() throws {
        let observer = RecordingObserver()
        store.addObserver(observer)
        for label in ["one", "two", "three"] { try store.add(SecretBytes(utf8: "\(label) secret"), label: label) }
        try store.rename("two", to: "deux")
        #expect(try store.labels() == ["one", "deux", "three"])
        #expect(try store.passwords().map(\.secret.testString) == ["one secret", "two secret", "three secret"])
        #expect(throws: StoreError.labelExists("one")) { try store.rename("deux", to: "one") }
        #expect(throws: StoreError.unknownLabels(["two"])) { try store.rename("two", to: "zwei") }
        #expect(observer.changes.last == .renamed(from: "two", to: "deux"))
    }
}
