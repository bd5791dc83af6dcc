import Foundation
import Testing
import RWSecretKit

/// What a new user tripped on in a second afternoon with the tool (issue 27), end to end:
/// on a real pseudo-terminal where a terminal is involved.
@Suite("the second afternoon")
struct AfternoonTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: home.url, extra: extra), directory: home.url)
    }

    // Item 3: `encrypt --ask-password` asked once; a typo made the message impossible to open.
    @Test("encrypt --ask-password asks twice; a mismatch asks again, and the message opens with the password typed",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func encryptAsksTwice() throws {
        let plain = home.file("plain.txt", "asked twice\n")
        let out = home.url.appendingPathComponent("out.txt").path
        let session = try PseudoTerminal.run(
            "\(PseudoTerminal.rwsecret) encrypt --ask-password \(PseudoTerminal.quote(plain)) > \(PseudoTerminal.quote(out))",
            environment: RWSecretProcess.environment(home: home.url),
            answers: [("Password: ", "first typing"), ("Again: ", "first typo"),
                      ("Password: ", "second typing"), ("Again: ", "second typing")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("rwsecret: the two passwords differ; try again."), "\(session.lines)")
        #expect(!session.raw.contains("typing"), "nothing typed is echoed")
        let opened = try run(["decrypt", "--no-store", out], extra: ["RWSECRET_PASSWORD": "second typing"])
        #expect(opened.out == "asked twice\n", "\(opened.stderr)")
    }

    // Item 10: `echo hi | rwsecret encrypt --binary` wrote raw ciphertext to the terminal.
    @Test("encrypt --binary to a terminal is refused (64), before the password is asked; -o - insists",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func encryptBinaryToTerminalRefused() throws {
        let session = try PseudoTerminal.run("echo hi | \(PseudoTerminal.rwsecret) encrypt --binary --ask-password",
                                             environment: RWSecretProcess.environment(home: home.url))
        #expect(session.status == 64, "\(session.raw)")
        #expect(session.lines == ["rwsecret: refusing to write raw ciphertext to a terminal: give -o FILE (or -o - to insist), or redirect stdout"], "\(session.lines)")
        let out = home.url.appendingPathComponent("m.bin").path
        let insisted = try PseudoTerminal.run("cd \(PseudoTerminal.quote(home.url.path)) && echo hi | \(PseudoTerminal.rwsecret) encrypt --binary -o - > \(PseudoTerminal.quote(out))",
                                              environment: RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_PASSWORD": "pw"]))
        #expect(insisted.status == 0, "\(insisted.raw)")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("-").path), "-o - is stdout, not a file named -")
        let opened = try run(["decrypt", "--no-store", "--binary", out], extra: ["RWSECRET_PASSWORD": "pw"])
        #expect(opened.out == "hi\n", "\(opened.stderr)")
    }

    // Item 11: options before the subcommand's name gave "unknown command '2'" and the like.
    @Test("an option of a subcommand given before its name is named with where it goes (64)",
          arguments: [
            (["--jobs", "2", "decrypt", "x"], "rwsecret: `--jobs` is an option of `decrypt`: `rwsecret decrypt --jobs 2 …`"),
            (["--password-file", "F", "decrypt", "x"], "rwsecret: `--password-file` is an option of `decrypt` and `encrypt`: `rwsecret decrypt --password-file F …`"),
            (["--password-file", "F", "encrypt"], "rwsecret: `--password-file` is an option of `decrypt` and `encrypt`: `rwsecret encrypt --password-file F …`"),
            (["--no-store", "decrypt"], "rwsecret: `--no-store` is an option of `decrypt`: `rwsecret decrypt --no-store …`"),
            (["--jobs=3", "decrypt"], "rwsecret: `--jobs` is an option of `decrypt`: `rwsecret decrypt --jobs=3 …`"),
            (["--stroe", "file", "status"], "rwsecret: unknown option '--stroe'; did you mean '--store'?"),
          ])
    func optionBeforeSubcommand(arguments: [String], expected: String) throws {
        let result = try run(arguments)
        #expect(result.status == 64)
        #expect(result.errLines.first == expected, "\(result.errLines)")
    }

    @Test("--jobs -1 is a bad number, not a missing value")
    func negativeJobs() throws {
        let result = try run(["decrypt", "--no-store", "--jobs", "-1"])
        #expect(result.status == 64)
        #expect(result.errLines.first == "rwsecret: --jobs must be at least 1", "\(result.errLines)")
    }

    @Test("global options before the subcommand still work")
    func globalOptionsBefore() throws {
        let result = try run(["--store", "file", "--quiet", "status"], extra: ["RWSECRET_VAULT_PASSPHRASE": "Vault-Passphrase-9"])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
