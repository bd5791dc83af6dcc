import Foundation
import Testing

/// Issue 35, item 1, for `decrypt --binary FILE` of a raw RNCryptor message: on a terminal,
/// when no password opens it, the person is asked once (no echo, on /dev/tty), the typed
/// password is tried on the file read again, and it is never stored. Scripts are not asked.
/// On a real pseudo-terminal.
@Suite("when nothing opens a --binary RNCryptor message, ask")
struct AskBinaryTests {
    init() { brokenPipesIgnored }

    let home = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: home.url) }
    static let plaintext = Array("raw bytes \u{0} and more\n".utf8) + (0..<200).map { UInt8($0) }

    @Test("asked once after the chain fails; the typed password opens the file into -o (before: 'no password opened it', never asked)",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func askedAndOpened() throws {
        let file = home.file("m.bin", bytes: Messages.raw(Self.plaintext, "typed secret"))
        let wrong = home.file("wrong", "not it\n")
        let out = home.url.appendingPathComponent("out").path
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --verbose --binary -o '\(out)' --password-file '\(wrong)' '\(file)'",
                                             environment: environment, answers: [(AskWhenNothingOpensTests.prompt, "typed secret")])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 0, "\(session.raw)")
        #expect(session.raw.components(separatedBy: AskWhenNothingOpensTests.prompt).count == 2, "asked once: \(session.raw)")
        #expect(session.raw.contains("no password opened \(file); try another"), "\(session.raw)")
        #expect(session.raw.contains("opened by: prompt\n") || session.raw.contains("opened by: prompt\r\n"), "--verbose tells: \(session.raw)")
        #expect(FileManager.default.contents(atPath: out).map(Array.init) == Self.plaintext)
        #expect(!session.raw.contains("typed secret"), "no echo, never in output")
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("data/rwsecret").path), "nothing stored")
    }

    @Test("a wrong answer: the chain's failure line as before (1), asked once, nothing at -o",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable), arguments: ["still wrong", ""])
    func wrongAnswer(_ answer: String) throws {
        let file = home.file("m.bin", bytes: Messages.raw(Self.plaintext, "typed secret"))
        let wrong = home.file("wrong", "not it\n")
        let out = home.url.appendingPathComponent("out").path
        let session = try PseudoTerminal.run("\(PseudoTerminal.rwsecret) decrypt --no-store --binary -o '\(out)' --password-file '\(wrong)' '\(file)'",
                                             environment: environment, answers: [(AskWhenNothingOpensTests.prompt, answer)])
        #expect(!session.timedOut, "\(session.raw)")
        #expect(session.status == 1, "\(session.raw)")
        #expect(session.raw.components(separatedBy: AskWhenNothingOpensTests.prompt).count == 2, "\(session.raw)")
        #expect(session.lines.contains("rwsecret: \(file): no password opened it (tried 1)"), "\(session.lines)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("no terminal: no prompt, the run is what it was (1)")
    func noTerminal() throws {
        let file = home.file("m.bin", bytes: Messages.raw(Self.plaintext, "typed secret"))
        let wrong = home.file("wrong", "not it\n")
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--binary", "--password-file", wrong, file], environment: environment)
        #expect(result.status == 1)
        #expect(result.errLines == ["rwsecret: \(file): no password opened it (tried 1)"], "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
