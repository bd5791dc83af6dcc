import Foundation
import RWSecretKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Whether this kernel lets the test process join a private session keyring (containers
/// may forbid keyctl); the reason when it does not. Asked on a thread of its own.
enum SessionKeyringProbe {
    static let refusal: String? = SessionThread().refusal.map { "the kernel refuses a private session keyring here: \($0)" }
}

/// `rwsecret vault unlock|lock|passphrase`, `status` and the session keyring, run as the
/// built binary. Each test starts its children from a thread of its own that joined a new,
/// empty session keyring (`SessionThread`), so they share that session and nothing else does.
@Suite(.enabled(if: SessionKeyringProbe.refusal == nil, Comment(rawValue: SessionKeyringProbe.refusal ?? "")))
struct VaultCommandTests {
    let home = TemporaryFolder()
    let passphrase = "vault passphrase 1"

    var vaultPath: String { home.url.appendingPathComponent("data/rwsecret/vault").path }

    /// A new, empty session keyring for this test's children (each test gets its own instance).
    let session = SessionThread()

    func env(_ extra: [String: String?] = [:]) -> [String: String] {
        var environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase])
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    func rwsecret(_ arguments: [String], stdin: String = "", env extra: [String: String?] = [:]) throws -> RWSecretProcess.Result {
        let environment = env(extra)
        return try session.run { try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: environment) }
    }

    /// What this test's session holds for the vault, read in that session.
    func held() throws -> SessionKeyring.Held? {
        try session.run { try SessionKeyring.lookUp(forVault: vaultPath) }
    }

    let noPassphrase: [String: String?] = ["RWSECRET_VAULT_PASSPHRASE": nil]

    @Test func unlockKeepsThePassphraseForLaterCommandsUntilLock() throws {
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret").status == 0)
        #expect(try rwsecret(["password", "list"], env: noPassphrase).status == 69)

        let unlock = try rwsecret(["vault", "unlock", "--for", "10m"])
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(unlock.stderr.contains("kept in the session keyring until"))
        #expect(!unlock.stderr.contains(passphrase))

        let list = try rwsecret(["password", "list"], env: noPassphrase)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.outLines == ["work"])
        #expect(try rwsecret(["password", "add", "home"], stdin: "second secret", env: noPassphrase).status == 0)

        let status = try rwsecret(["status"], env: noPassphrase)
        #expect(status.outLines.last?.hasPrefix("passphrase cached: until 20") == true, "\(status.outLines)")
        let json = try rwsecret(["status", "--json"], env: noPassphrase)
        #expect(json.out.contains(#""passphrase_cached":true"#), "\(json.out)")
        #expect(json.out.contains(#""passwords":2"#))
        #expect(!json.out.contains(passphrase) && !status.out.contains(passphrase))

        // The key is what the spec says: type user, described by the vault's absolute path.
        let description = "rwsecret:vault:" + vaultPath
        #expect(try held()?.passphrase.decodedUTF8() == passphrase, "\(description)")

        let lock = try rwsecret(["vault", "lock"])
        #expect(lock.status == 0)
        #expect(lock.stderr.contains("forgotten"))
        #expect(try rwsecret(["password", "list"], env: noPassphrase).status == 69)
        #expect(try rwsecret(["status"], env: noPassphrase).outLines.last == "passphrase cached: no")
        #expect(try rwsecret(["vault", "lock"]).stderr.contains("no vault passphrase was held"))
    }

    @Test func unlockChecksThePassphraseFirstAndNeedsAVault() throws {
        let none = try rwsecret(["vault", "unlock"])
        #expect(none.status == 69)
        #expect(none.stderr.contains("there is no vault at"))
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret").status == 0)
        let wrong = try rwsecret(["vault", "unlock"], env: ["RWSECRET_VAULT_PASSPHRASE": "not the passphrase"])
        #expect(wrong.status == 69)
        #expect(wrong.stderr.contains("wrong passphrase"))
        #expect(try held() == nil, "nothing kept")
        #expect(try rwsecret(["vault", "unlock", "--store", "keyring"]).status == 64)
    }

    @Test(arguments: ["0", "-1", "5x", "m", "", "1h-2m", "99999999999"])
    func badDurationsAreBadUsage(_ duration: String) throws {
        #expect(try rwsecret(["vault", "unlock", "--for", duration]).status == 64, "--for \(duration)")
    }

    @Test func theKernelForgetsItWhenTheDurationEnds() throws {
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret").status == 0)
        #expect(try rwsecret(["vault", "unlock", "--for", "1s"]).status == 0)
        // At least the duration later, never a bound on how fast.
        sleep(3)
        #expect(try rwsecret(["password", "list"], env: noPassphrase).status == 69)
        #expect(try rwsecret(["status"], env: noPassphrase).outLines.last == "passphrase cached: no")
    }

    @Test func changingThePassphraseIsAllOrNothingAndUpdatesWhatIsHeld() throws {
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: vaultPath))
        let short = try rwsecret(["vault", "passphrase"], stdin: "short\n")
        #expect(short.status == 65)
        #expect(short.stderr.contains("vault passphrase: the password is shorter than 8 characters"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: vaultPath)) == before)

        #expect(try rwsecret(["vault", "unlock"]).status == 0)
        let changed = try rwsecret(["vault", "passphrase"], stdin: "a brand new passphrase\n")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(try rwsecret(["password", "list"]).status == 69, "the old passphrase no longer opens it")
        #expect(try rwsecret(["password", "list"], env: ["RWSECRET_VAULT_PASSPHRASE": "a brand new passphrase"]).outLines == ["work"])
        #expect(try rwsecret(["password", "list"], env: noPassphrase).outLines == ["work"], "what is held was updated")
        #expect(try rwsecret(["vault", "passphrase"], stdin: "x\n", env: ["RWSECRET_VAULT": home.url.path + "/none"]).status == 69)
    }

    @Test func aGroupWithoutACommandIsBadUsage() throws {
        let result = try rwsecret(["vault"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("unlock"))
    }

    @Test func renameKeepsThePlaceInTheChain() throws {
        for (label, secret) in [("a", "alpha secret"), ("b", "bravo secret"), ("c", "charlie secret")] {
            #expect(try rwsecret(["password", "add", label], stdin: secret).status == 0)
        }
        let renamed = try rwsecret(["password", "rename", "b", "bee"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(try rwsecret(["password", "list"]).outLines == ["a", "bee", "c"])
        #expect(try rwsecret(["password", "rename", "a", "c"]).status == 65)
        #expect(try rwsecret(["password", "rename", "nope", "x"]).status == 65)
        #expect(try rwsecret(["password", "rename", "a", String(repeating: "x", count: 65)]).status == 65)
        #expect(try rwsecret(["password", "rename", "a"]).status == 64)
        #expect(try rwsecret(["password", "list"]).outLines == ["a", "bee", "c"])
        // The renamed password still opens its messages, under its new name.
        let result = try rwsecret(["decrypt", "--json"], stdin: Messages.password("hi", "bravo secret") + "\n")
        #expect(result.out.contains(#""password":"bee""#), "\(result.out)")
    }
}

/// `password copy` between a vault and a real gnome-keyring on a private bus, and
/// `password rename` in the keyring.
@Suite(.enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
struct PasswordCopyTests {
    let home = TemporaryFolder()

    func run(_ keyring: PrivateKeyring, _ arguments: [String], stdin: String = "", vault: String? = nil) throws -> RWSecretProcess.Result {
        var environment = keyring.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "vault passphrase 1"
        if let vault { environment["RWSECRET_VAULT"] = vault }
        return try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: environment)
    }

    @Test func fromAVaultToTheKeyringAndBackAllOrNothing() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let vault = home.url.appendingPathComponent("headless.vault").path
        for (label, secret) in [("work", "work secret 1"), ("home", "home secret 2"), ("bank", "bank secret 3")] {
            #expect(try run(keyring, ["password", "add", label], stdin: secret, vault: vault).status == 0)
        }
        // A label that exists in the keyring refuses the whole copy.
        #expect(try run(keyring, ["password", "add", "--store", "keyring", "bank"], stdin: "other bank secret").status == 0)
        let refused = try run(keyring, ["password", "copy", "--to", "keyring"], vault: vault)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("'bank' already exists"), "\(refused.stderr)")
        #expect(try run(keyring, ["password", "list", "--store", "keyring"]).outLines == ["bank"])

        let copied = try run(keyring, ["password", "copy", "--to", "keyring", "work", "home"], vault: vault)
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(!copied.stderr.contains("secret") || !copied.stderr.contains("work secret"))
        #expect(try run(keyring, ["password", "list", "--store", "keyring"]).outLines == ["bank", "work", "home"])
        #expect(keyring.secretTool(["lookup", "label", "home"]) == "home secret 2")
        #expect(try run(keyring, ["password", "copy", "--to", "keyring", "nope"], vault: vault).status == 65)

        // And back, into a new vault: everything the keyring holds.
        let other = home.url.appendingPathComponent("other.vault").path
        let back = try run(keyring, ["password", "copy", "--to", "file"], vault: other)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try run(keyring, ["password", "list"], vault: other).outLines == ["bank", "work", "home"])
        // A secret already stored in the destination (under another label) refuses the copy.
        #expect(try run(keyring, ["password", "rename", "--store", "keyring", "bank", "bank-2"]).status == 0)
        let duplicate = try run(keyring, ["password", "copy", "--to", "file", "bank-2"], vault: other)
        #expect(duplicate.status == 65)
        #expect(duplicate.stderr.contains("already stored"))
        #expect(try run(keyring, ["password", "copy", "--to", "file", "--store", "file"], vault: other).status == 64)
        for result in [refused, copied, back, duplicate] {
            #expect(!result.stderr.contains("secret 1") && !result.stderr.contains("secret 2") && !result.out.contains("secret"))
        }
    }

    @Test func renameInTheKeyringKeepsItsPlace() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        for (label, secret) in [("a", "alpha secret"), ("b", "bravo secret"), ("c", "charlie secret")] {
            #expect(try run(keyring, ["password", "add", label], stdin: secret).status == 0)
        }
        #expect(try run(keyring, ["password", "rename", "b", "bee"]).status == 0)
        #expect(try run(keyring, ["password", "list"]).outLines == ["a", "bee", "c"])
        #expect(keyring.secretTool(["lookup", "label", "bee"]) == "bravo secret")
        #expect(keyring.secretTool(["lookup", "label", "b"]) == nil)
        #expect(try run(keyring, ["password", "rename", "a", "c"]).status == 65)
        #expect(try run(keyring, ["password", "list"]).outLines == ["a", "bee", "c"])
    }
}
