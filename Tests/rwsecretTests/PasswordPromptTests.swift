import Foundation
import Testing

/// `password add` on a real pseudo-terminal (util-linux `script` provides one):
/// asked twice without echo, and a new vault's passphrase asked twice too.
@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux's script(1) for a pseudo-terminal"))
struct PasswordPromptTests {
    let home = TemporaryFolder()

    /// Runs `rwsecret ARGS` on a pseudo-terminal, answering each prompt in turn.
    func converse(_ arguments: [String], environment: [String: String], answers: [(prompt: String, reply: String)]) throws -> (status: Int32, screen: String) {
        let command = ([RWSecretProcess.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.environment = environment
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.runCheckingDescriptors()
        // A prompt that never comes (or input that is lost) must fail the test, not hang it.
        let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        var seen = Data()
        var consumed = 0
        for (prompt, reply) in answers {
            while true {
                let text = String(decoding: seen, as: UTF8.self)
                if let range = text.range(of: prompt, range: text.index(text.startIndex, offsetBy: consumed)..<text.endIndex) {
                    consumed = text.distance(from: text.startIndex, to: range.upperBound)
                    break
                }
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen.append(chunk)
            }
            input.fileHandleForWriting.writeToChild(Data((reply + "\n").utf8))
        }
        seen.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: seen, as: UTF8.self))
    }

    @Test func addAsksTwiceWithoutEchoAndCreatesTheVaultWithAPassphraseAskedTwice() throws {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
        let (status, screen) = try converse(["password", "add", "work"], environment: environment, answers: [
            ("Password to store: ", "Typed-Secret-42"), ("Again: ", "Typed-Secret-42"),
            ("New vault passphrase: ", "Vault-Passphrase-9"), ("Again: ", "Vault-Passphrase-9"),
        ])
        #expect(status == 0, "\(screen)")
        #expect(!screen.contains("Typed-Secret-42"), "the password is not echoed")
        #expect(!screen.contains("Vault-Passphrase-9"), "the passphrase is not echoed")

        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        #expect(try RWSecretProcess.run(["password", "list"], environment: environment).outLines == ["work"])
    }

    @Test func twoDifferentAnswersStoreNothing() throws {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        // A mismatch asks again, three tries in all (issue 27 item 13).
        let (status, screen) = try converse(["password", "add", "work"], environment: environment, answers: [
            ("Password to store: ", "first-answer"), ("Again: ", "second-answer"),
            ("Password to store: ", "first-answer"), ("Again: ", "second-answer"),
            ("Password to store: ", "first-answer"), ("Again: ", "second-answer"),
        ])
        #expect(status == 65, "\(screen)")
        #expect(screen.contains("rwsecret: the two passwords differ"))
        #expect(!FileManager.default.fileExists(atPath: home.url.appendingPathComponent("data/rwsecret/vault").path))
    }

    @Test func anExistingVaultAsksForItsPassphraseOnce() throws {
        var environment = RWSecretProcess.environment(home: home.url)
        environment["RWSECRET_VAULT_PASSPHRASE"] = "Vault-Passphrase-9"
        #expect(try RWSecretProcess.run(["password", "add", "first"], stdin: Data("first secret".utf8), environment: environment).status == 0)
        environment["RWSECRET_VAULT_PASSPHRASE"] = nil
        let (status, screen) = try converse(["password", "list"], environment: environment, answers: [
            ("Vault passphrase: ", "Vault-Passphrase-9"),
        ])
        #expect(status == 0, "\(screen)")
        #expect(screen.contains("first"))
        // Three tries in all on a terminal.
        let wrong = try converse(["password", "list"], environment: environment, answers: [
            ("Vault passphrase: ", "not it at all"), ("Vault passphrase: ", "still not it"), ("Vault passphrase: ", "never it"),
        ])
        #expect(wrong.status == 69)
        #expect(wrong.screen.contains("wrong passphrase"))
    }
}
