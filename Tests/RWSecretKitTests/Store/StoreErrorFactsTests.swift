import Foundation
import RWSecretKit
import SystemPackage
import Testing

/// A store error's code and facts as a consumer reads them (issue 33, item 7): real vault files,
/// the public API only. Before, a missing vault read as `noPassphrase`, a rejected new passphrase
/// as a rejected password, and neither the vault's path nor why was public, so the tool matched
/// the package's cases to word them.
struct StoreErrorFactsTests {
    let folder = TemporaryFolder()

    func vault(_ path: String, _ passphrase: String) -> VaultPasswordStore {
        VaultPasswordStore(path: FilePath(path)) { _ throws(StoreError) in SecretBytes(utf8: passphrase) }
    }

    func caught(_ body: () throws -> Void) -> StoreError? {
        do { try body(); return nil } catch { return error as? StoreError }
    }

    @Test func aMissingVaultIsNoVaultWithItsPath() {
        let path = folder.path + "/none"
        let error = caught { try vault(path, "correct horse battery").changePassphrase(to: SecretBytes(utf8: "a new passphrase")) }
        #expect(error?.code == .noVault && error?.path == path, "\(String(describing: error))")
    }

    @Test func aRejectedNewPassphraseIsNotARejectedPassword() {
        let error = caught { try vault(folder.path + "/vault", "short").add(SecretBytes(utf8: "s"), label: "l") }
        #expect(error?.code == .passphraseRejected && error?.failures.isEmpty == false, "\(String(describing: error))")
    }

    @Test func aWrongPassphraseAndAFolderNameTheVault() throws {
        let path = folder.path + "/vault"
        try vault(path, "correct horse battery").add(SecretBytes(utf8: "s"), label: "l")
        let wrong = caught { _ = try vault(path, "another passphrase").labels() }
        #expect(wrong?.code == .wrongPassphrase && wrong?.path == path)
        let dir = folder.path + "/dir"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let notAFile = caught { _ = try vault(dir, "correct horse battery").labels() }
        #expect(notAFile?.code == .vaultUnreadable && notAFile?.path == dir, "\(String(describing: notAFile))")
    }

    @Test func aProviderThrowsNoPassphraseAsTheStoresDo() throws {
        let path = folder.path + "/vault"
        try vault(path, "correct horse battery").add(SecretBytes(utf8: "s"), label: "l")
        let store = VaultPasswordStore(path: FilePath(path)) { _ throws(StoreError) in
            throw .noPassphrase(path: path, reason: "there is no terminal")
        }
        let error = caught { _ = try store.labels() }
        #expect(error?.code == .noPassphrase && error?.path == path && error?.detail == "there is no terminal")
        #expect(error?.description == "the vault \(path) needs its passphrase: there is no terminal")
    }

    @Test func theLabelsAndTheRuleOfALabelError() {
        let unknown = StoreError.unknownLabels(["a", "b"])
        #expect(unknown.code == .unknownLabel && unknown.labels == ["a", "b"])
        let bad = StoreError.invalidLabel("x\u{7}", reason: "it holds a control character")
        #expect(bad.code == .invalidLabel && bad.labels == ["x\u{7}"] && bad.detail == "it holds a control character")
    }
}
