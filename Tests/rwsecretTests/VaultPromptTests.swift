import Foundation
import RWSecretKit
import Testing

/// The vault's prompts on a real pseudo-terminal: a new vault's rules come before its
/// passphrase is asked, the passphrase is checked before the confirmation is asked and
/// asked again when rejected (the password typed before is kept), and a wrong passphrase
/// of an existing vault may be given again, three tries in all.
@Suite(.enabled(if: PseudoTerminal.isAvailable, "needs python3 for a pseudo-terminal (pty.fork)"))
struct VaultPromptTests {
    let home = TemporaryFolder()

    var environment: [String: String] {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        return environment
    }

    func list(passphrase: String) throws -> (status: Int32, labels: [String]) {
        var environment = self.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = passphrase
        let result = try RWSecretProcess.run(["password", "list"], environment: environment)
        return (result.status, result.outLines)
    }

    // Regression: a new vault asked the password twice, then the passphrase twice, and
    // only then said the passphrase was too short, keeping nothing.
    @Test func aNewVaultStatesItsRulesAndChecksThePassphraseBeforeTheConfirmation() throws {
        let (status, screen) = try PseudoTerminal.converse(["password", "add", "work"], environment: environment, answers: [
            ("Password to store: ", "Typed-Secret-42"), ("Again: ", "Typed-Secret-42"),
            ("New vault passphrase: ", "short"),
            // Asked again at once, not confirmed first; the password above is kept.
            ("New vault passphrase: ", "Vault-Passphrase-9"), ("Again: ", "Vault-Passphrase-9"),
        ])
        #expect(status == 0, "\(screen)")
        let rules = try #require(screen.range(of: "at least 8 characters"), "\(screen)")
        let firstAsk = try #require(screen.range(of: "New vault passphrase: "))
        #expect(rules.lowerBound < firstAsk.lowerBound, "the rules come before the passphrase is asked: \(screen)")
        let rejection = try #require(screen.range(of: "shorter than 8 characters"), "\(screen)")
        #expect(!screen[firstAsk.upperBound..<rejection.lowerBound].contains("Again"), "no confirmation of a rejected passphrase: \(screen)")
        #expect(!screen.contains("Typed-Secret-42") && !screen.contains("Vault-Passphrase-9"), "nothing echoed")
        #expect(try list(passphrase: "Vault-Passphrase-9") == (0, ["work"]))
    }

    @Test func twoDifferentPassphrasesAreAskedAgainAndThreeRejectionsStoreNothing() throws {
        let (status, screen) = try PseudoTerminal.converse(["password", "add", "work"], environment: environment, answers: [
            ("Password to store: ", "Typed-Secret-42"), ("Again: ", "Typed-Secret-42"),
            ("New vault passphrase: ", "Vault-Passphrase-9"), ("Again: ", "Vault-Passphrase-8"),
            ("New vault passphrase: ", "tiny"),
            ("New vault passphrase: ", "bad\u{1}passphrase"),
        ])
        #expect(status == 65, "\(screen)")
        #expect(screen.contains("the two passphrases differ"))
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("data/rwsecret/vault").path))
    }

    @Test func aWrongPassphraseMayBeGivenAgain() throws {
        var environment = self.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        #expect(try RWSecretProcess.run(["password", "add", "first"], stdin: Data("first secret".utf8), environment: environment).status == 0)
        let (status, screen) = try PseudoTerminal.converse(["password", "list"], environment: self.environment, answers: [
            ("Vault passphrase: ", "not it"), ("Vault passphrase: ", "not it either"), ("Vault passphrase: ", "Vault-Passphrase-9"),
        ])
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("wrong passphrase; try again (2 of 3)"))
        #expect(screen.contains("first"))
    }

    @Test func changingThePassphraseOnATerminal() throws {
        var environment = self.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        #expect(try RWSecretProcess.run(["password", "add", "first"], stdin: Data("first secret".utf8), environment: environment).status == 0)
        let (status, screen) = try PseudoTerminal.converse(["vault", "passphrase"], environment: self.environment, answers: [
            ("Current vault passphrase: ", "Vault-Passphrase-9"),
            ("New vault passphrase: ", "New-Passphrase-10"), ("Again: ", "New-Passphrase-10"),
        ])
        #expect(status == 0, "\(screen)")
        #expect(screen.range(of: "at least 8 characters")!.lowerBound < screen.range(of: "New vault passphrase: ")!.lowerBound)
        #expect(try list(passphrase: "New-Passphrase-10") == (0, ["first"]))
        #expect(try list(passphrase: "Vault-Passphrase-9").status == 69)
    }

    @Test(.enabled(if: SessionKeyringProbe.refusal == nil, Comment(rawValue: SessionKeyringProbe.refusal ?? "")))
    func unlockAsksOnTheTerminalAndLaterCommandsNeedNoPassphrase() throws {
        // A private session keyring for the children, on a thread of this test's own.
        let session = SessionThread()
        var environment = self.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        let added = try session.run {
            try RWSecretProcess.run(["password", "add", "first"], stdin: Data("first secret".utf8), environment: environment)
        }
        #expect(added.status == 0)
        let (status, screen) = try session.run {
            try PseudoTerminal.converse(["vault", "unlock", "--for", "5m"], environment: self.environment, answers: [
                ("Vault passphrase: ", "not it"), ("Vault passphrase: ", "Vault-Passphrase-9"),
            ])
        }
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("kept in the session keyring until"))
        // No variable, no terminal: the kept passphrase opens the vault, for decrypt too.
        let decrypted = try session.run {
            try RWSecretProcess.run(["decrypt"], stdin: Data((Messages.password("hello", "first secret") + "\n").utf8),
                                    environment: self.environment)
        }
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(decrypted.out == "hello\n")
    }
}
