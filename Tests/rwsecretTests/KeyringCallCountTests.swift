import Foundation
import Testing

/// One keyring decrypt against `secret-tool lookup` of the same item (issue 36 item 4: the
/// keyring ratio), counted in D-Bus method calls on the test's private bus, not in time.
@Suite(.enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
struct KeyringCallCountTests {
    /// `rwsecret decrypt MSG` (the password in the keyring, `--store auto`) sends every call
    /// `secret-tool lookup` sends, and beyond them only the four it needs that the lookup does
    /// not: `NameHasOwner` (auto asks the bus whether a Secret Service runs, activating none),
    /// `ReadAlias` and the collection's `Locked` (opening the store: where the default
    /// collection is, and a locked one stops the run before it starts), and each item's
    /// `Attributes` (its label and order: the chain's names and order).
    ///
    /// It sent 20 to the lookup's 11: libsecret's item proxy for the password found (two
    /// `AddMatch`, `StartServiceByName` and `GetNameOwner` with the bus, `GetAll` with the daemon,
    /// one after the other before the secret was asked for), and a `GetNameOwner` for the watch
    /// libsecret keeps on the service's name when `secret_service_get_sync` caches it.
    @Test(.enabled(if: PrivateKeyring.executable("secret-tool") != nil, "secret-tool is not installed (Debian package libsecret-tools)"))
    func decryptSendsTheLookupsCallsAndOnlyTheFourItNeeds() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let add = try RWSecretProcess.run(["password", "add", "work"], stdin: Data("keyring secret\n".utf8), environment: keyring.environment)
        #expect(add.status == 0, "\(add.stderr)")
        let dir = TemporaryFolder()
        let message = dir.file("m.txt", Messages.password("from the keyring", "keyring secret") + "\n")

        var decrypt: RWSecretProcess.Result?
        let ours = try keyring.methodCallsOfOneClient {
            decrypt = try RWSecretProcess.run(["decrypt", message], environment: keyring.environment)
        }
        #expect(decrypt?.outLines == ["from the keyring"], "\(decrypt?.stderr ?? "")")
        var looked: String?
        let theirs = try keyring.methodCallsOfOneClient { looked = keyring.secretTool(["lookup", "label", "work"]) }
        #expect(looked == "keyring secret")
        #expect(theirs.contains("GetSecrets /org/freedesktop/secrets"), "secret-tool: \(theirs)")

        // Ours less the lookup's, call by call (a multiset difference); none of theirs missing.
        var extra = ours
        var missing: [String] = []
        for call in theirs {
            if let index = extra.firstIndex(of: call) { extra.remove(at: index) } else { missing.append(call) }
        }
        let collection = keyring.collectionPath
        func needed(_ call: String) -> Bool {
            let parts = call.split(separator: " ")
            guard parts.count == 2 else { return false }
            switch parts[0] {
            case "NameHasOwner": return parts[1] == "/org/freedesktop/DBus"
            case "ReadAlias": return parts[1] == "/org/freedesktop/secrets"
            // The collection's Locked, and an item's Attributes (one level below the collection).
            case "Get": return parts[1] == collection || (parts[1].hasPrefix(collection + "/") && !parts[1].dropFirst(collection.count + 1).contains("/"))
            default: return false
            }
        }
        #expect(missing.isEmpty, "secret-tool's calls that rwsecret does not make: \(missing)")
        #expect(extra.allSatisfy(needed), "rwsecret's calls beyond secret-tool's: \(extra.filter { !needed($0) }); rwsecret: \(ours); secret-tool: \(theirs)")
        #expect(ours.count <= theirs.count + 4, "rwsecret \(ours.count) calls, secret-tool \(theirs.count): \(ours) against \(theirs)")
    }
}
