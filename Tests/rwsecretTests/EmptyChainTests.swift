import Foundation
import Testing

/// A run with no password to try says why in one line and stops there (issue 12, item 3;
/// issue 27, item 5: 69 when the store is the reason, else 1), and a locked or unreachable store names --no-store when
/// passwords were given for the run (item 8).
@Suite("no password to try")
struct EmptyChainTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: home.url) }

    func messages(_ count: Int = 3) -> String {
        home.file("m.txt", (1...count).map { Messages.password("m\($0)", "the secret") }.joined(separator: "\n") + "\n")
    }

    @Test("--no-store with no password says so once and stops (1), in text and JSON")
    func noStoreNoPassword() throws {
        let file = messages(200)
        for json in [[], ["--json"]] {
            let result = try RWSecretProcess.run(["decrypt", "--no-store"] + json + [file], environment: environment)
            #expect(result.status == 1)
            #expect(result.errLines.count == 1, "\(result.stderr)")
            #expect(result.errLines.first?.hasPrefix("rwsecret: no password to try: --no-store") == true, "\(result.stderr)")
            #expect(result.errLines.first?.contains("RWSECRET_PASSWORD") == true)
            #expect(result.stdout.isEmpty)
        }
    }

    @Test("what comes before the first password-based message is still reported, then the one line; nothing after it")
    func failureBeforeTheStop() throws {
        let file = home.file("mixed.txt", Messages.keyBased("needs the key") + "\n" + Messages.password("m", "the secret") + "\n"
                             + Messages.keyBased("never reached") + "\n")
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--jobs", "2", file], environment: environment)
        #expect(result.status == 1)
        #expect(result.errLines.count == 2, "\(result.stderr)")
        #expect(result.errLines.first == "rwsecret: \(file):1: key-based message needs --key-file", "\(result.stderr)")
        #expect(result.errLines.last?.hasPrefix("rwsecret: no password to try: --no-store") == true, "\(result.stderr)")
    }

    @Test("a mistyped --vault names the vault that does not exist")
    func typoVault() throws {
        let file = messages()
        let typo = home.url.appendingPathComponent("vautl").path
        let result = try RWSecretProcess.run(["decrypt", "--vault", typo, file], environment: environment)
        #expect(result.status == 69)
        let first = try #require(result.errLines.first)
        #expect(first.hasPrefix("rwsecret: no password to try: the vault \(typo) does not exist"), "\(first)")
        #expect(first.contains("rwsecret password add"), "\(first)")
        #expect(result.errLines.count == 1)
    }

    @Test("an empty default vault says how to add a password")
    func emptyDefaultVault() throws {
        let result = try RWSecretProcess.run(["decrypt", messages(1)], environment: environment)
        #expect(result.status == 69)
        #expect(result.errLines.count == 1, "\(result.stderr)")
        #expect(result.errLines.first?.contains("holds no password") == true || result.errLines.first?.contains("does not exist") == true, "\(result.stderr)")
        #expect(result.errLines.first?.contains("rwsecret password add") == true, "\(result.stderr)")
    }

    @Test("a locked keyring names --no-store when passwords were given for the run; not otherwise",
          .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
    func lockedKeyringNamesNoStore() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        #expect(try RWSecretProcess.run(["password", "add", "work"], stdin: Data("keyring secret\n".utf8), environment: keyring.environment).status == 0)
        try keyring.lock()
        let file = messages(1)
        let passwordFile = home.file("pw", "the secret\n")
        var withPassword = keyring.environment
        withPassword["RWSECRET_PASSWORD"] = "the secret"
        for (arguments, environment) in [(["decrypt", file], withPassword),
                                          (["decrypt", "--password-file", passwordFile, file], keyring.environment)] {
            let result = try RWSecretProcess.run(arguments, environment: environment)
            #expect(result.status == 69, "\(arguments)")
            #expect(result.stderr.contains("locked"), "\(result.stderr)")
            #expect(result.stderr.contains("--no-store"), "\(arguments): \(result.stderr)")
        }
        let without = try RWSecretProcess.run(["decrypt", file], environment: keyring.environment)
        #expect(without.status == 69)
        #expect(!without.stderr.contains("--no-store"), "\(without.stderr)")
    }

    @Test("no session bus under --store keyring names --no-store when a password file was given")
    func unreachableKeyringNamesNoStore() throws {
        let file = messages(1)
        let passwordFile = home.file("pw", "the secret\n")
        let result = try RWSecretProcess.run(["decrypt", "--store", "keyring", "--password-file", passwordFile, file], environment: environment)
        #expect(result.status == 69)
        #expect(result.stderr.contains("--no-store"), "\(result.stderr)")
    }

    @Test("a dead keyring daemon: the vault is used, and the line says why it holds nothing",
          .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
    func deadKeyringDaemon() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        try keyring.stopKeyringDaemon()
        let result = try RWSecretProcess.run(["decrypt", messages(2)], environment: keyring.environment)
        #expect(result.status == 69)
        let first = try #require(result.errLines.first)
        #expect(first.hasPrefix("rwsecret: no password to try: "), "\(first)")
        #expect(first.contains("no Secret Service"), "\(first)")
        #expect(result.errLines.count == 1)
    }

    @Test("an empty keyring beside a vault that holds passwords says so",
          .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
    func emptyKeyringBesideAVault() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        var environment = keyring.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        #expect(try RWSecretProcess.run(["password", "add", "--store", "file", "old"], stdin: Data("the secret\n".utf8), environment: environment).status == 0)
        environment["RWSECRET_VAULT_PASSPHRASE"] = nil
        let result = try RWSecretProcess.run(["decrypt", messages(2)], environment: environment)
        #expect(result.status == 69)
        let first = try #require(result.errLines.first)
        #expect(first.hasPrefix("rwsecret: no password to try: the keyring holds no password"), "\(first)")
        #expect(first.contains("a vault exists at \(keyring.root)/data/rwsecret/vault"), "\(first)")
        #expect(first.contains("--store file"), "\(first)")
        #expect(result.errLines.count == 1)
    }

    @Test("the reverse: an empty vault chosen with --store file while the keyring holds passwords",
          .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
    func emptyVaultBesideAKeyring() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        #expect(try RWSecretProcess.run(["password", "add", "work"], stdin: Data("keyring secret\n".utf8), environment: keyring.environment).status == 0)
        let result = try RWSecretProcess.run(["decrypt", "--store", "file", messages(1)], environment: keyring.environment)
        #expect(result.status == 69)
        #expect(result.errLines.count == 1, "\(result.stderr)")
        let first = try #require(result.errLines.first)
        #expect(first.contains("the keyring holds 1 password"), "\(first)")
        #expect(first.contains("--store keyring"), "\(first)")
    }
}
