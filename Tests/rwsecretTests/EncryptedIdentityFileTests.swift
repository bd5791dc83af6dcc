import Foundation
import Testing

/// Issue 35, item 2: "a passphrase-encrypted age identity file (age -p of a key file) is asked
/// for its passphrase, as age does". With the real age, on a real pseudo-terminal.
@Suite("an age -p identity file")
struct EncryptedIdentityFileTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: dir.url) }
    static let available = ["/usr/bin/age", "/usr/bin/age-keygen"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    static let prompt = "Enter passphrase for identity file"

    /// An identity (age-keygen), `key.age` (age -p of it, made on a pseudo-terminal with
    /// `passphrase`) and `m.age`, a file age encrypted to the identity's recipient.
    func keyAndMessage(passphrase: String) throws -> (key: String, message: String) {
        let keys = try RWSecretProcess.run([], environment: environment, executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
        try #require(keys.status == 0)
        let identity = dir.file("k.txt", bytes: Array(keys.stdout))
        let recipient = try #require(keys.out.split(separator: "\n").first { $0.hasPrefix("# public key: ") }).dropFirst("# public key: ".count)
        let message = dir.url.appendingPathComponent("m.age").path
        let made = try RWSecretProcess.run(["-r", String(recipient), "-o", message], stdin: Data("opened with the identity inside\n".utf8),
                                           environment: environment, executable: URL(fileURLWithPath: "/usr/bin/age"))
        try #require(made.status == 0, "\(made.stderr)")
        let key = dir.url.appendingPathComponent("key.age").path
        let session = try PseudoTerminal.run("/usr/bin/age -p -o '\(key)' '\(identity)'", environment: environment,
                                             answers: [("passphrase", passphrase), ("onfirm", passphrase)])
        try #require(!session.timedOut && session.status == 0, "\(session.raw)")
        try #require(try Data(contentsOf: URL(fileURLWithPath: key)).starts(with: Data("age-encryption.org/v1\n-> scrypt ".utf8)))
        chmod(key, 0o600)
        return (key, message)
    }

    @Test("decrypt --identity key.age: asked for its passphrase (no echo) and the file opens; a wrong one three times is 65 (before: 'not an identity file')",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func decryptAsked() throws {
        let (key, message) = try keyAndMessage(passphrase: "id phrase 1")
        let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --verbose --identity '\(key)' '\(message)'"
        let session = try PseudoTerminal.run(line, environment: environment, answers: [(Self.prompt, "id phrase 1")])
        #expect(!session.timedOut && session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("opened with the identity inside"), "\(session.lines)")
        #expect(session.raw.contains("age, opened by identity \(key) (tried 1)"), "--verbose names the file: \(session.raw)")
        #expect(!session.raw.contains("id phrase 1"), "no echo")
        let wrong = try PseudoTerminal.run(line, environment: environment, answers: [(Self.prompt, "no"), (Self.prompt, "no"), (Self.prompt, "no")])
        #expect(!wrong.timedOut && wrong.status == 65, "\(wrong.raw)")
        #expect(wrong.lines.filter { $0.hasSuffix("\(key): the passphrase does not open this identity file") }.count == 4, "\(wrong.lines)")
        #expect(!wrong.raw.contains("opened with the identity inside"))
    }

    @Test("no terminal: one line that says to run on a terminal (65); --json the same, no record written before",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func decryptNoTerminal() throws {
        let (key, message) = try keyAndMessage(passphrase: "id phrase 2")
        for json in [[], ["--json"]] {
            let script = try RWSecretProcess.run(["decrypt", "--no-store"] + json + ["--identity", key, message], environment: environment)
            #expect(script.status == 65)
            #expect(script.errLines == ["rwsecret: \(key): an age identity file encrypted with a passphrase: run rwsecret on a terminal to be asked for it"], "\(script.stderr)")
        }
    }

    @Test("identity import key.age --passphrase-file: the identity inside is stored; a wrong passphrase is one line (65); no file and no terminal says what to give",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func importFile() throws {
        let (key, message) = try keyAndMessage(passphrase: "id phrase 3")
        let env = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"])
        let wrongFile = dir.file("wrong", "not it\n")
        let wrong = try RWSecretProcess.run(["--store", "file", "identity", "import", "--passphrase-file", wrongFile, "--file", key], environment: env)
        #expect(wrong.status == 65)
        #expect(wrong.errLines == ["rwsecret: \(key): the passphrase does not open this identity file"], "\(wrong.stderr)")
        let none = try RWSecretProcess.run(["--store", "file", "identity", "import", "--file", key], environment: env)
        #expect(none.status == 65)
        #expect(none.errLines == ["rwsecret: \(key): an age identity file encrypted with a passphrase: give --passphrase-file FILE, or run where the terminal can ask"], "\(none.stderr)")
        let right = dir.file("right", "id phrase 3\n")
        let imported = try RWSecretProcess.run(["--store", "file", "identity", "import", "inside", "--passphrase-file", right, "--file", key], environment: env)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.out.hasPrefix("age1"), "its recipient: \(imported.out)")
        #expect(!imported.stderr.contains("id phrase 3") && !imported.out.contains("AGE-SECRET-KEY"))
        // The stored identity opens the file.
        let opened = try RWSecretProcess.run(["--store", "file", "decrypt", "--binary", message], environment: env)
        #expect(opened.status == 0 && opened.out == "opened with the identity inside\n", "\(opened.stderr)")
    }

    @Test("an age file made to a recipient, not with a passphrase, given as --identity: one line saying so (65), no prompt",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func notPassphrase() throws {
        let (_, message) = try keyAndMessage(passphrase: "id phrase 4")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(message)' '\(message)'", environment: environment,
                                             answers: [(Self.prompt, "x")], timeout: 20)
        #expect(session.status == 65 && !session.raw.contains(Self.prompt), "\(session.raw)")
        #expect(session.raw.contains("an age file encrypted to recipients (X25519), not with a passphrase: not an identity file (age -p makes one)"), "\(session.raw)")
    }
}
