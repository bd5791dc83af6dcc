import Foundation
import Testing
import RWSecretKit

/// `rwsecret encrypt --to / --to-file / --armor / --format age` and `decrypt --identity` with
/// SSH keys, end to end, against the peers `age`, `age-keygen` and `ssh-keygen` (fresh keys at
/// every run; `make test` installs the Debian packages age and openssh-client).
@Suite("encrypt to recipients: age files for others", .serialized)
struct EncryptAgeCommandTests {
    let dir = TemporaryFolder()

    func run(_ args: [String], stdin: Data = Data(), extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    /// A peer tool (`/usr/bin/NAME`) run with `args`.
    func tool(_ name: String, _ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        let path = "/usr/bin/" + name
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(name) is not installed: `make deps` installs it (Debian age, openssh-client)")
        return try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                       executable: URL(fileURLWithPath: path))
    }

    /// Fresh keys: an age identity file (0600), and unencrypted ssh-ed25519 and ssh-rsa keys.
    func keys() throws -> (identity: String, recipient: String, ed25519: String, rsa: String) {
        let identity = dir.url.appendingPathComponent("identity-\(UUID().uuidString).txt").path
        try #require(try tool("age-keygen", ["-o", identity]).status == 0)
        let recipient = try tool("age-keygen", ["-y", identity]).out.trimmingCharacters(in: .whitespacesAndNewlines)
        let ed = dir.url.appendingPathComponent("ed-\(UUID().uuidString)").path
        let rsa = dir.url.appendingPathComponent("rsa-\(UUID().uuidString)").path
        try #require(try tool("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "me", "-f", ed]).status == 0)
        try #require(try tool("ssh-keygen", ["-q", "-t", "rsa", "-b", "2048", "-N", "", "-C", "me", "-f", rsa]).status == 0)
        return (identity, recipient, ed, rsa)
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    @Test("--to (age1…, ssh-ed25519, ssh-rsa lines) and --to-file with comments, --armor to -o: age -d opens it with each key, and so does rwsecret")
    func severalRecipients() throws {
        let k = try keys()
        let plaintext = Crypto.randomBytes(count: 150_000)
        let input = dir.file("plain", bytes: plaintext)
        let list = dir.file("team.txt", "# the team\n\n  \(text(k.rsa + ".pub"))# rsa above\n")
        let out = dir.url.appendingPathComponent("for-team.age").path
        let made = try run(["encrypt", "--to", k.recipient, "--to", text(k.ed25519 + ".pub"), "--to-file", list, "--armor", "-o", out, input])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.isEmpty && made.stderr.isEmpty)
        #expect(text(out).hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----\n"))
        for identity in [k.identity, k.ed25519, k.rsa] {
            let opened = try tool("age", ["-d", "-i", identity, out])
            #expect(opened.status == 0, "age -d -i \(identity): \(opened.stderr)")
            #expect(opened.stdout == Data(plaintext))
            let ours = try run(["decrypt", "--no-store", "--verbose", "--binary", "--identity", identity, out])
            #expect(ours.status == 0, "\(ours.stderr)")
            #expect(ours.stdout == Data(plaintext))
            #expect(ours.errLines.contains("rwsecret: opened by: identity \(identity) (tried 1)"), "\(ours.errLines)")
            // No part of the secret key in what rwsecret says.
            let secret = text(identity).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") || (!$0.hasPrefix("-") && $0.count > 40) }.map(String.init) ?? "unreachable"
            #expect(!ours.stderr.contains(secret))
        }
    }

    @Test("binary from stdin to stdout (not a terminal); age's own file to an ssh-ed25519 key opens with --identity id_ed25519")
    func pipes() throws {
        let k = try keys()
        let plaintext = Crypto.randomBytes(count: 70_000)
        let made = try run(["encrypt", "--to", k.recipient], stdin: Data(plaintext))
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.starts(with: Data("age-encryption.org/v1\n-> X25519 ".utf8)))
        let message = dir.file("m.age", bytes: Array(made.stdout))
        let opened = try run(["decrypt", "--no-store", "--binary", "--identity", k.identity, message])
        #expect(opened.status == 0 && opened.stdout == Data(plaintext), "\(opened.stderr)")
        #expect(opened.stderr.isEmpty, "a 0600 identity file gets no warning: \(opened.errLines)")
        let fromAge = dir.url.appendingPathComponent("from-age.age").path
        try #require(try tool("age", ["-R", k.ed25519 + ".pub", "-o", fromAge, message]).status == 0)
        let chained = try run(["decrypt", "--no-store", "--binary", "--identity", k.ed25519, fromAge])
        #expect(chained.status == 0 && chained.stdout == made.stdout, "\(chained.stderr)")
    }

    @Test("bad usage and bad recipients: one line, nothing written, a secret key never echoed")
    func refusals() throws {
        let k = try keys()
        let input = dir.file("plain", "hello\n")
        let secret = text(k.identity).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }.map(String.init) ?? ""
        let cases: [([String], Int32, String)] = [
            (["encrypt", "--armor", input], 64, "--armor is for age files"),
            (["encrypt", "--to", k.recipient, "--password-file", input, input], 64, "not both"),
            (["encrypt", "--format", "rncryptor", "--to", k.recipient, input], 64, "--format rncryptor"),
            (["encrypt", "--to", k.recipient, input, input], 64, "at most one FILE"),
            (["encrypt", "--format", "age", "--format", "rncryptor", input], 64, "--format can be given only once"),
            (["encrypt", "--format", "age", "--key-file", input, input], 64, "--key-file makes RNCryptor messages"),
            (["encrypt", "--to", k.recipient, "--iterations", "5", input], 64, "--iterations is for RNCryptor"),
            (["encrypt", "--to", secret, input], 65, "is not a recipient"),
            (["encrypt", "--to", "bob", input], 65, "not a recipient"),
            (["encrypt", "--to-file", dir.file("bad-list", "# x\n\(k.recipient)\nnope\n"), input], 65, "line 3"),
            (["encrypt", "--to-file", dir.file("empty-list", "# nobody\n"), input], 65, "no recipient found"),
            (["encrypt", "--to-file", dir.url.appendingPathComponent("missing").path, input], 66, "missing"),
        ]
        for (args, status, words) in cases {
            let result = try run(args)
            #expect(result.status == status, "\(args): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.errLines.count <= 3 && result.stderr.contains(words), "\(args): \(result.stderr)")
            #expect(!result.stderr.contains(secret) || secret.isEmpty)
        }
    }

    @Test("--format age with a password writes an scrypt age file that rwsecret and age open; RNCryptor stays the default")
    func scrypt() throws {
        let plaintext = Array("a secret for a file\n".utf8)
        let input = dir.file("plain", bytes: plaintext)
        let made = try run(["encrypt", "--format", "age", "--armor", input], extra: ["RWSECRET_PASSWORD": "correct horse battery"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.out.hasPrefix("-----BEGIN AGE ENCRYPTED FILE-----\n"))
        let message = dir.file("p.age", bytes: Array(made.stdout))
        let opened = try run(["decrypt", "--no-store", "--binary", message], extra: ["RWSECRET_PASSWORD": "correct horse battery"])
        #expect(opened.status == 0 && opened.stdout == Data(plaintext), "\(opened.stderr)")
        let classic = try run(["encrypt", input], extra: ["RWSECRET_PASSWORD": "correct horse battery"])
        #expect(classic.status == 0 && !classic.out.hasPrefix("age") && !classic.out.hasPrefix("-----"))
    }

    @Test("--format age --ask-password asks twice on the terminal; two different answers write nothing (65)",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func askTwice() throws {
        let input = dir.file("plain", "typed\n")
        let out = dir.url.appendingPathComponent("typed.age").path
        let environment = RWSecretProcess.environment(home: dir.url)
        let (status, screen) = try PseudoTerminal.converse(["encrypt", "--format", "age", "--ask-password", "-o", out, input], environment: environment,
                                                           answers: [("Password: ", "a long passphrase"), ("Again: ", "a long passphrase")])
        #expect(status == 0, "\(screen)")
        #expect(!screen.contains("a long passphrase"))
        let opened = try run(["decrypt", "--no-store", "--binary", out], extra: ["RWSECRET_PASSWORD": "a long passphrase"])
        #expect(opened.status == 0 && opened.out == "typed\n", "\(opened.stderr)")
        let out2 = dir.url.appendingPathComponent("typed2.age").path
        let (differ, screen2) = try PseudoTerminal.converse(["encrypt", "--format", "age", "--ask-password", "-o", out2, input], environment: environment,
                                                            answers: [("Password: ", "a long passphrase"), ("Again: ", "another passphrase")])
        #expect(differ == 65, "\(screen2)")
        #expect(screen2.contains("the two passwords differ"))
        #expect(!FileManager.default.fileExists(atPath: out2))
    }

    @Test("a binary age file is not written to a terminal (64); --armor is", .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func terminal() throws {
        let input = dir.file("plain", "x\n")
        let recipient = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"
        let environment = RWSecretProcess.environment(home: dir.url)
        let (refused, screen) = try PseudoTerminal.converse(["encrypt", "--to", recipient, input], environment: environment, answers: [])
        #expect(refused == 64, "\(screen)")
        #expect(screen.contains("refusing to write a binary age file to a terminal"))
        #expect(!screen.contains("age-encryption.org"))
        let (armored, screen2) = try PseudoTerminal.converse(["encrypt", "--to", recipient, "--armor", input], environment: environment, answers: [])
        #expect(armored == 0 && screen2.contains("-----END AGE ENCRYPTED FILE-----"), "\(screen2)")
    }

    @Test("an identity file or SSH key others can read gets a warning and is used; a passphrase-protected key is refused (65)")
    func loosePermissions() throws {
        let k = try keys()
        let message = dir.file("m.age", bytes: Array(try run(["encrypt", "--to", k.recipient, "--to", text(k.ed25519 + ".pub")], stdin: Data("x".utf8)).stdout))
        for path in [k.identity, k.ed25519] {
            chmod(path, 0o644)
            let result = try run(["decrypt", "--no-store", "--binary", "--identity", path, message])
            #expect(result.status == 0 && result.out == "x")
            #expect(result.errLines == ["rwsecret: warning: \(path): identity file with mode 0644 that others can access: chmod 600 it"])
        }
        let locked = dir.url.appendingPathComponent("locked").path
        try #require(try tool("ssh-keygen", ["-q", "-t", "ed25519", "-N", "a passphrase", "-f", locked]).status == 0)
        let refused = try run(["decrypt", "--no-store", "--binary", "--identity", locked, message])
        #expect(refused.status == 65)
        #expect(refused.errLines.count == 1 && refused.stderr.contains("protected by a passphrase"), "\(refused.errLines)")
    }
}

extension CompletionTests {
    @Test("encrypt --to-file and decrypt --identity complete file names; --format its values")
    func ageOptions() throws {
        _ = home.file("team.txt", "")
        _ = home.file("id_ed25519", "")
        #expect(try complete("rwsecret encrypt --to-file te") == ["team.txt"])
        #expect(try complete("rwsecret decrypt --identity id_") == ["id_ed25519"])
        #expect(try complete("rwsecret encrypt --format ") == ["age", "rncryptor"])
    }
}
