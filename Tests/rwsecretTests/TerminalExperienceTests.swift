import Foundation
import Testing

/// What a person at a terminal meets (issue 12, items 2 and 4), on a real pseudo-terminal.
@Suite("on a terminal", .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
struct TerminalExperienceTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()

    /// A vault holding `password`, made with the passphrase in the environment.
    func makeVault(_ passwords: [String]) throws -> [String: String] {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        for password in passwords {
            let added = try RWSecretProcess.run(["password", "add"], stdin: Data((password + "\n").utf8), environment: environment)
            #expect(added.status == 0, "\(added.stderr)")
        }
        environment["RWSECRET_VAULT_PASSPHRASE"] = nil
        return environment
    }

    // Regression (item 2): `cat msgs.txt | rwsecret decrypt` with the vault said "no terminal
    // to ask it on" (69): the passphrase must be asked on /dev/tty even when stdin is a pipe.
    @Test("the vault passphrase is asked on /dev/tty when stdin is a pipe")
    func passphraseAskedOnTheTerminalWhenStdinIsAPipe() throws {
        let environment = try makeVault(["piped secret"])
        let messages = home.file("msgs.txt", Messages.password("opened from a pipe", "piped secret") + "\n")
        let session = try PseudoTerminal.run("cat \(PseudoTerminal.quote(messages)) | \(PseudoTerminal.rwsecret) decrypt",
                                             environment: environment, answers: [("Vault passphrase: ", "Vault-Passphrase-9")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("opened from a pipe"), "\(session.lines)")
        #expect(!session.raw.contains("Vault-Passphrase-9"), "the passphrase is not echoed")
    }

    @Test("stdin a pipe and stdout a file: the passphrase is still asked on the terminal, results go to the file")
    func passphraseAskedWithStdoutRedirected() throws {
        let environment = try makeVault(["piped secret"])
        let messages = home.file("msgs.txt", Messages.password("to the file", "piped secret") + "\n")
        let out = home.url.appendingPathComponent("out.txt").path
        let session = try PseudoTerminal.run(
            "cat \(PseudoTerminal.quote(messages)) | \(PseudoTerminal.rwsecret) decrypt > \(PseudoTerminal.quote(out))",
            environment: environment, answers: [("Vault passphrase: ", "Vault-Passphrase-9")])
        #expect(session.status == 0, "\(session.raw)")
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "to the file\n")
    }

    // Regression (item 4): with stdout on the same terminal, results were written after the
    // progress line ("rwsecret: 3025 messages, 15 smsg for correct horse #757").
    @Test("the progress line never corrupts results written to the same terminal")
    func progressNeverCorruptsResults() throws {
        var lines: [String] = []
        var expected: [String] = []
        let messages = home.url.appendingPathComponent("msgs.txt").path
        for i in 1...60 {
            if i % 20 == 0 {
                lines.append("not base64 \(i)!")
                expected.append("rwsecret: \(messages):\(i): bad base64")
            } else {
                lines.append(Messages.password("message number \(i)", "run secret"))
                expected.append("message number \(i)")
            }
        }
        _ = home.file("msgs.txt", lines.joined(separator: "\n") + "\n")
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_PASSWORD"] = "run secret"
        environment["RWSECRET_PROGRESS_DELAY"] = "0"  // draw from the first message on
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1 \(PseudoTerminal.quote(messages))",
                                             environment: environment)
        #expect(session.status == 1, "\(session.raw)")
        #expect(session.raw.contains("\r\u{1B}[Krwsecret: "), "the progress line was drawn (else this test proves nothing)")
        // Every line on the screen is a whole result or a whole error line, in order; the
        // progress line is gone at the end.
        #expect(session.lines == expected, "\(session.lines)")
    }

    @Test("the progress line shows done, of how much, rate and time left")
    func progressContents() throws {
        // Long comment lines make the input larger than the reader's buffer, so "how much
        // of the input is read" moves through several values.
        let filler = "# " + String(repeating: "x", count: 8000)
        let messages = home.file("msgs.txt", (1...30).map { Messages.password("m\($0)", "run secret") + "\n" + filler }.joined(separator: "\n") + "\n")
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_PASSWORD"] = "run secret"
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let out = home.url.appendingPathComponent("out.txt").path
        let session = try PseudoTerminal.run(
            "\(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1 \(PseudoTerminal.quote(messages)) > \(PseudoTerminal.quote(out))",
            environment: environment)
        #expect(session.status == 0, "\(session.raw)")
        let drawn = session.raw.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("rwsecret: ") }
        let last = try #require(drawn.last, "\(session.raw)")
        #expect(last.hasPrefix("rwsecret: 30 messages, 100% of "), "\(last)")
        #expect(drawn.contains { $0.contains("/s") && $0.contains(" left") }, "\(drawn)")
        #expect(session.lines.isEmpty, "erased at the end: \(session.lines)")
    }

    // Regression (item 4): the progress line was drawn while the tool waited for the
    // vault passphrase, so the prompt appeared after it on the same line.
    @Test("the progress line is not drawn while a passphrase is asked")
    func noProgressWhilePrompting() throws {
        let environment0 = try makeVault(["vault secret"])
        var environment = environment0
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let lines = (1...5).map { "bad line \($0)!" } + [Messages.password("after the prompt", "vault secret")]
        let messages = home.file("msgs.txt", lines.joined(separator: "\n") + "\n")
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --jobs 1 \(PseudoTerminal.quote(messages))",
                                             environment: environment, answers: [("Vault passphrase: ", "Vault-Passphrase-9")])
        #expect(session.status == 1, "\(session.raw)")
        #expect(session.lines.contains("Vault passphrase: "), "the prompt has a line of its own: \(session.lines)")
        #expect(session.lines.contains("after the prompt"), "\(session.lines)")
    }
}

extension TerminalExperienceTests {
    // Regression: with stderr redirected, `password add` on a terminal read stdin as a
    // plain line, so the password was echoed as it was typed.
    @Test("password add with stderr redirected still asks without echo")
    func addWithStderrRedirected() throws {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        let log = home.url.appendingPathComponent("err.log").path
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) password add work 2>\(PseudoTerminal.quote(log))",
                                             environment: environment,
                                             answers: [("Password to store: ", "Typed-Secret-42"), ("Again: ", "Typed-Secret-42")],
                                             timeout: 20)
        #expect(!session.timedOut, "the prompt never came: \(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(!session.raw.contains("Typed-Secret-42"), "not echoed: \(session.raw)")
        #expect(try RWSecretProcess.run(["password", "list"], environment: environment).outLines == ["work"])
    }
}

extension TerminalExperienceTests {
    @Test("on a narrow terminal the progress line is cut to fit (a wrapped line could not be erased)")
    func narrowTerminal() throws {
        let messages = home.file("msgs.txt", (1...5).map { Messages.password("m\($0)", "run secret") }.joined(separator: "\n") + "\n")
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_PASSWORD"] = "run secret"
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let out = home.url.appendingPathComponent("out.txt").path
        let session = try PseudoTerminal.run(
            "stty cols 30; \(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1 \(PseudoTerminal.quote(messages)) > \(PseudoTerminal.quote(out))",
            environment: environment)
        #expect(session.status == 0, "\(session.raw)")
        let drawn = session.raw.components(separatedBy: "\r\u{1B}[K").filter { $0.hasPrefix("rwsecret: ") }
        #expect(!drawn.isEmpty)
        #expect(drawn.allSatisfy { $0.count <= 29 }, "\(drawn)")
    }
}

extension TerminalExperienceTests {
    @Test("messages typed at the terminal: no progress line is drawn over the typing")
    func noProgressOverTypedInput() throws {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_PASSWORD"] = "run secret"
        environment["RWSECRET_PROGRESS_DELAY"] = "0"
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --jobs 1", environment: environment, answers: [
            ("", Messages.password("typed in first", "run secret")),
            ("typed in first\r\n", Messages.password("typed in second", "run secret")),
            ("typed in second\r\n", "\u{4}"),
        ], timeout: 20)
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("typed in second"), "\(session.lines)")
        #expect(!session.raw.contains("\u{1B}[Krwsecret: "), "no progress line: \(session.raw)")
    }
}
