import Foundation
import Testing

/// Issue 35, item 1: on a terminal, when the chain fails on a password-based message, the
/// person is asked once (no echo, on /dev/tty) and the typed password goes first for the rest
/// of the run; scripts (no terminal) are not asked. `--password-label` tries only the stored
/// passwords it names. On a real pseudo-terminal.
@Suite("when nothing opens, ask")
struct AskWhenNothingOpensTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: home.url) }
    static let prompt = "try another (Enter: none): "

    static let kinds: URL = {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/kinds/manifest.tsv").path) { folder.deleteLastPathComponent() }
        return folder.appendingPathComponent("Fixtures/kinds")
    }()

    @Test("RNCryptor lines: asked once after the first failure; the typed password opens it and the later messages without asking again",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func rncryptorLines() throws {
        let file = home.file("m.txt", (1...3).map { Messages.password("message \($0)", "typed secret") }.joined(separator: "\n") + "\n")
        let wrong = home.file("wrong", "not it\n")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --verbose --password-file '\(wrong)' '\(file)'",
                                             environment: environment, answers: [(Self.prompt, "typed secret")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.raw.components(separatedBy: "no password opened").count == 2, "asked once: \(session.raw)")
        #expect(session.raw.contains("no password opened \(file):"), "\(session.raw)")  // whichever message fails first (--jobs)
        for n in 1...3 { #expect(session.lines.contains("message \(n)"), "\(session.lines)") }
        #expect(!session.raw.contains("typed secret"), "no echo, never in output")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("data/rwsecret").path), "nothing stored")
    }

    @Test("Enter at the prompt: the message fails as before (1), asked once only",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func enterSkips() throws {
        let file = home.file("m.txt", (1...2).map { Messages.password("message \($0)", "typed secret") }.joined(separator: "\n") + "\n")
        let wrong = home.file("wrong", "not it\n")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --password-file '\(wrong)' '\(file)'",
                                             environment: environment, answers: [(Self.prompt, "")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 1, "\(session.raw)")
        #expect(session.raw.components(separatedBy: Self.prompt).count == 2, "\(session.raw)")
        #expect(session.lines.contains { $0.hasSuffix("\(file):2: no password opened it (tried 1)") || $0.contains("\(file):2: ") }, "\(session.lines)")
    }

    @Test("an age -p file: asked after the stored tries fail, opened by the typed password, from a file (line mode and --binary)",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable), arguments: [false, true])
    func agePassword(binary: Bool) throws {
        let file = Self.kinds.appendingPathComponent("age-scrypt-ascii.age").path
        let wrong = home.file("wrong", "not it\n")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --verbose \(binary ? "--binary -o '\(home.url.path)/out'" : "") --password-file '\(wrong)' '\(file)'",
                                             environment: environment, answers: [(Self.prompt, "EB|D/MMTL-3|7aA?=)4")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.raw.contains("opened by prompt (tried 1)") || session.raw.contains("opened by: prompt (tried 1)"), "\(session.raw)")
    }

    @Test("no terminal: no prompt, the run is what it was (1)")
    func noTerminal() throws {
        let file = home.file("m.txt", Messages.password("message", "typed secret") + "\n")
        let wrong = home.file("wrong", "not it\n")
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", wrong, file], environment: environment)
        #expect(result.status == 1)
        #expect(result.errLines == ["rwsecret: \(file):1: no password opened it (tried 1)"], "\(result.stderr)")
    }

    @Test("--password-label tries only the stored passwords it names; an unknown label is refused")
    func passwordLabel() throws {
        let passphrase = ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"]
        let env = RWSecretProcess.environment(home: home.url, extra: passphrase)
        for (label, secret) in [("work", "s-work"), ("home", "s-home"), ("old", "s-old")] {
            let added = try RWSecretProcess.run(["password", "add", "--store", "file", label], stdin: Data((secret + "\n").utf8), environment: env)
            #expect(added.status == 0, "\(added.stderr)")
        }
        let file = home.file("m.txt", Messages.password("for home", "s-home") + "\n")
        let only = try RWSecretProcess.run(["decrypt", "--store", "file", "--json", "--password-label", "old", "--password-label", "home", file], environment: env)
        #expect(only.status == 0, "\(only.stderr)")
        #expect(only.out.contains("\"password\":\"home\""), "\(only.out)")
        let notIt = try RWSecretProcess.run(["decrypt", "--store", "file", "--password-label", "work", file], environment: env)
        #expect(notIt.status == 1)
        #expect(notIt.errLines == ["rwsecret: \(file):1: no password opened it (tried 1)"], "only `work` was tried: \(notIt.stderr)")
        let unknown = try RWSecretProcess.run(["decrypt", "--store", "file", "--password-label", "nope", file], environment: env)
        #expect(unknown.status != 0 && unknown.status != 1, "\(unknown.stderr)")
        #expect(unknown.stderr.contains("nope"), "\(unknown.stderr)")
        let noStore = try RWSecretProcess.run(["decrypt", "--no-store", "--password-label", "work", file], environment: env)
        #expect(noStore.status == 64, "\(noStore.stderr)")
    }
}

extension AskWhenNothingOpensTests {
    @Test("an age -p file on a pipe: asked, and the typed password opens it (the pipe's file is held to be read again)",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func agePiped() throws {
        let file = Self.kinds.appendingPathComponent("age-scrypt-ascii.age").path
        let wrong = home.file("wrong", "not it\n")
        let session = try PseudoTerminal.run("cat '\(file)' | \(PseudoTerminal.rwsecret) decrypt --no-store --verbose --password-file '\(wrong)'",
                                             environment: environment, answers: [(Self.prompt, "EB|D/MMTL-3|7aA?=)4")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.raw.contains("opened by prompt (tried 1)"), "\(session.raw)")
    }
}
