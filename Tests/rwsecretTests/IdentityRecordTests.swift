import Foundation
import Testing
import RWSecretKit
@testable import rwsecret

/// Issue 33, item 2: what opened a message is a credential's name, and there are no fake
/// passwords. Before, a record of an age file that an identity opened said it was opened by
/// `.password(ChainPassword(name: "identity FILE", secret: []))`, an empty-secret password
/// made up so that `--json` and `--verbose` could print its name; the text was right and the
/// record a lie (a password with no secret, that no chain holds).
struct IdentityRecordTests {
    @Test("a record opened by an identity names the identity, carries no password, and the identity goes first from now on")
    func recordNamesTheIdentity() throws {
        let kinds = KindCommandTests.kinds
        let identityFile = kinds.appendingPathComponent("age-identity.txt").path
        let file = kinds.appendingPathComponent("age-x25519.age").path
        let stranger = NamedIdentity(name: "stranger", identity: AgeX25519Identity.generate())
        let identities = IdentityChain(files: [stranger] + (try KindDecryption.loadIdentities([identityFile])))
        let client = PasswordClient(runOnly: [ChainPassword(name: "unrelated", secret: SecretBytes(utf8: "pw"))]) { nil }
        let session = DecryptSession(client: client, json: true, global: Globals(), jobs: 1)
        let decryption = KindDecryption(session: session, identities: identities)
        let input = try InputFile(file)
        var rows = try MessageRows(input, idColumn: false)
        let records = try #require(try decryption.records(of: input, index: 0, rows: &rows))
        try #require(records.count == 1)
        let decrypted = try records[0].result.get()
        #expect(decrypted.openedBy.passwordName == nil, "an identity recorded as a password: \(decrypted.openedBy)")
        #expect(decrypted.openedBy.identityName == identityFile)
        #expect(decrypted.openedBy.name == CredentialName(kind: .identity, label: identityFile))
        // What --json's password member and --verbose write, byte for byte as before.
        #expect(decrypted.openedBy.words == "identity \(identityFile)")
        #expect(decrypted.kind == .age)
        #expect(records[0].winner == nil, "an identity is not a password the chain puts first")
        // The last winner first: the identity that opened it is offered first now.
        #expect(identities.fileIdentities().first?.name == identityFile)
    }
}
