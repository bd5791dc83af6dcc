import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// `rwsecret identity new|list|import|recipient|remove|rename|copy|export`, `encrypt --to-self`
/// and stored identities in the chain of age messages (issue 26), end to end: the vault, and a
/// real gnome-keyring on a private bus; Debian's `age` and `age-keygen` on the other side.
@Suite("identities in the store: new, list, import, export, --to-self, the chain", .serialized)
struct IdentityCommandTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase long enough"

    /// rwsecret with the vault store (no keyring on this bus).
    func run(_ args: [String], stdin: Data = Data(), environment: [String: String]? = nil) throws -> RWSecretProcess.Result {
        let env = environment ?? RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        return try RWSecretProcess.run(args, stdin: stdin, environment: env, directory: dir.url)
    }

    /// A peer tool (`/usr/bin/NAME`) run with `args`.
    func tool(_ name: String, _ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        let path = "/usr/bin/" + name
        try #require(FileManager.default.isExecutableFile(atPath: path), "\(name) is not installed: `make deps` installs it (Debian age)")
        return try RWSecretProcess.run(args, stdin: stdin, environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                       executable: URL(fileURLWithPath: path))
    }

    func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// The `AGE-SECRET-KEY-1…` line of an identity file.
    func secretLine(_ path: String) -> String {
        text(path).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") }.map(String.init) ?? "unreachable"
    }

    /// No part of `secret` (its whole, or its data part in lower case) in what a run said.
    func expectNoSecret(_ result: RWSecretProcess.Result, _ secret: String, _ what: String) {
        let tail = String(secret.dropFirst("AGE-SECRET-KEY-1".count).prefix(20))
        for haystack in [result.out, result.stderr] {
            #expect(!haystack.contains(secret) && !haystack.uppercased().contains(tail), "\(what) said the secret key")
        }
    }

    @Test("vault: identity new prints the recipient; age -r encrypts to it; decrypt opens it with no --identity; export opens age's own -d -i")
    func vaultRoundTrip() throws {
        let made = try run(["--store", "file", "identity", "new", "me"])
        #expect(made.status == 0, "\(made.stderr)")
        let recipient = made.out.trimmingCharacters(in: .newlines)
        #expect(recipient.hasPrefix("age1") && made.outLines.count == 1, "\(made.out)")
        #expect(try run(["--store", "file", "identity", "recipient", "me"]).out == recipient + "\n")
        let listed = try run(["--store", "file", "identity", "list"])
        #expect(listed.status == 0 && listed.out == "me\t\(recipient)\n", "\(listed.out) \(listed.stderr)")
        let json = try run(["--store", "file", "identity", "list", "--json"])
        #expect(json.out == #"[{"label":"me","kind":"age-x25519","recipient":"\#(recipient)","position":1}]"# + "\n", "\(json.out)")
        // Not a password: the password side does not see it.
        #expect(try run(["--store", "file", "password", "list"]).out.isEmpty)
        // status counts it apart from the passwords, in text and JSON.
        let status = try run(["--store", "file", "status"])
        #expect(status.outLines.contains("passwords: 0") && status.outLines.contains("identities: 1"), "\(status.out)")
        let statusJSON = try run(["--store", "file", "status", "--json"])
        #expect(statusJSON.out.contains(#""passwords":0,"identities":1,"#), "\(statusJSON.out)")

        // age encrypts to the printed recipient; rwsecret opens it from the store alone.
        let plaintext = Crypto.randomBytes(count: 100_000)
        let input = dir.file("plain", bytes: plaintext)
        let message = dir.url.appendingPathComponent("to-me.age").path
        #expect(try tool("age", ["-r", recipient, "-o", message, input]).status == 0)
        let opened = try run(["--store", "file", "decrypt", "--verbose", "--binary", message])
        #expect(opened.status == 0 && opened.stdout == Data(plaintext), "\(opened.stderr)")
        #expect(opened.errLines.contains("rwsecret: opened by: identity me (tried 1)"), "\(opened.errLines)")

        // export: an age identity file, 0600, that age itself opens rwsecret's --to-self file with.
        let key = dir.url.appendingPathComponent("me.txt").path
        let exported = try run(["--store", "file", "identity", "export", "me", "-o", key])
        #expect(exported.status == 0 && exported.out.isEmpty, "\(exported.stderr)")
        #expect(TemporaryFolder.mode(key) == 0o600)
        #expect(text(key).contains("# public key: \(recipient)\n"))
        let secret = secretLine(key)
        let toSelf = dir.url.appendingPathComponent("self.age").path
        let sealed = try run(["--store", "file", "encrypt", "--to-self", "--armor", "-o", toSelf, input])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let peer = try tool("age", ["-d", "-i", key, toSelf])
        #expect(peer.status == 0 && peer.stdout == Data(plaintext), "\(peer.stderr)")
        #expect(try tool("age-keygen", ["-y", key]).out == recipient + "\n")
        for result in [made, listed, json, opened, exported, sealed] { expectNoSecret(result, secret, "a run") }
    }

    @Test("import: age-keygen's file (and stdin), each identity stored; age -R to them opens; a bad line names its line, never its text")
    func importFromAgeKeygen() throws {
        let keys = dir.url.appendingPathComponent("keys.txt").path
        #expect(try tool("age-keygen", ["-o", keys]).status == 0)
        let second = try tool("age-keygen", [])
        let recipient = try tool("age-keygen", ["-y", keys]).out.trimmingCharacters(in: .newlines)
        let imported = try run(["--store", "file", "identity", "import", "work", "--file", keys])
        #expect(imported.status == 0 && imported.out == recipient + "\n", "\(imported.stderr)")
        let piped = try run(["--store", "file", "identity", "import"], stdin: second.stdout)
        #expect(piped.status == 0, "\(piped.stderr)")
        let list = try run(["--store", "file", "identity", "list"])
        #expect(list.outLines.map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["work", "identity-1"], "\(list.out)")
        // Again: already stored, refused (65), nothing added.
        let again = try run(["--store", "file", "identity", "import", "--file", keys])
        #expect(again.status == 65, "\(again.stderr)")
        // Issue 35 item 3: it names the label the identity is stored under.
        #expect(again.errLines == ["rwsecret: this identity is already stored, labelled 'work'"], "\(again.errLines)")
        #expect(try run(["--store", "file", "identity", "list"]).outLines.count == 2)
        let bad = "AGE-SECRET-KEY-1NOTAKEYATALLBUTLONGENOUGHTOLOOKLIKEONEQQQQQQQQQQQQQQQQQQ"
        let refused = try run(["--store", "file", "identity", "import", "x"], stdin: Data("# c\n\(bad)\n".utf8))
        #expect(refused.status == 65 && refused.stderr.contains("line 2"), "\(refused.stderr)")
        #expect(!refused.stderr.contains(bad))
        let plaintext = Array("for the second key".utf8)
        let message = dir.url.appendingPathComponent("second.age").path
        let recipients = dir.file("recipients", text(keys).split(separator: "\n").filter { $0.hasPrefix("# public key: ") }
            .map { String($0.dropFirst("# public key: ".count)) }.joined(separator: "\n") + "\n")
        #expect(try tool("age", ["-R", recipients, "-o", message, dir.file("p", bytes: plaintext)]).status == 0)
        let opened = try run(["--store", "file", "decrypt", "--binary", message])
        #expect(opened.status == 0 && opened.stdout == Data(plaintext), "\(opened.stderr)")
        expectNoSecret(imported, secretLine(keys), "import")
    }

    @Test("passwords and identities apart: list, remove, rename and errors of each side; the chain's order: last winner first, tried counts identities")
    func apartAndTheChainOrder() throws {
        #expect(try run(["--store", "file", "password", "add", "work"], stdin: Data("a password here\n".utf8)).status == 0)
        let a = try run(["--store", "file", "identity", "new", "a"]).out.trimmingCharacters(in: .newlines)
        let b = try run(["--store", "file", "identity", "new", "work"]).out.trimmingCharacters(in: .newlines)
        #expect(try run(["--store", "file", "password", "list"]).out == "work\n")
        let unknown = try run(["--store", "file", "identity", "remove", "nope"])
        #expect(unknown.status == 65 && unknown.stderr == "rwsecret: no identity labelled 'nope'\n", "\(unknown.stderr)")
        let clash = try run(["--store", "file", "identity", "rename", "a", "work"])
        #expect(clash.status == 65 && clash.stderr == "rwsecret: an identity labelled 'work' already exists\n", "\(clash.stderr)")
        #expect(try run(["--store", "file", "identity", "rename", "work", "b"]).status == 0)
        #expect(try run(["--store", "file", "password", "list"]).out == "work\n")
        // Two files to b, one to a: b opens after a was tried, then goes first.
        let input = dir.file("p", "hello\n")
        var files: [String] = []
        for (index, recipient) in [b, b, a].enumerated() {
            let path = dir.url.appendingPathComponent("m\(index).age").path
            #expect(try tool("age", ["-r", recipient, "-o", path, input]).status == 0)
            files.append(path)
        }
        let opened = try run(["--store", "file", "decrypt", "--verbose"] + files)
        #expect(opened.status == 0 && opened.out == "hello\nhello\nhello\n", "\(opened.stderr)")
        #expect(opened.errLines.contains("rwsecret: \(files[0]):1: age, opened by identity b (tried 2)"), "\(opened.errLines)")
        #expect(opened.errLines.contains("rwsecret: \(files[1]):1: age, opened by identity b (tried 1)"), "\(opened.errLines)")
        #expect(opened.errLines.contains("rwsecret: \(files[2]):1: age, opened by identity a (tried 2)"), "\(opened.errLines)")
        let json = try run(["--store", "file", "decrypt", "--json", files[2]])
        #expect(json.out.contains(#""password":"identity a""#), "\(json.out)")
        // Removed: the chain no longer has it.
        #expect(try run(["--store", "file", "identity", "remove", "--yes", "a"]).status == 0)
        let gone = try run(["--store", "file", "decrypt", "--binary", files[2]])
        #expect(gone.status == 1 && gone.stderr.contains("none of the 1 identities opens it"), "\(gone.stderr)")
    }

    @Test("encrypt --to-self: refused (65) with no stored identity, nothing written; with --format rncryptor, bad usage (64)")
    func toSelfNeedsAnIdentity() throws {
        let out = dir.url.appendingPathComponent("self.age").path
        let none = try run(["--store", "file", "encrypt", "--to-self", "-o", out, dir.file("p", "x\n")])
        #expect(none.status == 65 && none.stderr == "rwsecret: --to-self: the store holds no identity (make one: rwsecret identity new)\n", "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let mixed = try run(["--store", "file", "encrypt", "--to-self", "--format", "rncryptor", "-o", out, dir.path + "/p"])
        #expect(mixed.status == 64 && !FileManager.default.fileExists(atPath: out), "\(mixed.stderr)")
    }

    @Test("export -o: the same safety as decrypt -o (folder, the vault, stdout refused); an existing file refused, as age-keygen -o")
    func exportSafety() throws {
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        for target in [dir.path, "-"] {
            let refused = try run(["--store", "file", "identity", "export", "me", "-o", target])
            #expect(refused.status != 0 && refused.out.isEmpty, "\(target): \(refused.stderr)")
        }
        let vault = dir.url.appendingPathComponent("data/rwsecret/vault").path
        try #require(FileManager.default.fileExists(atPath: vault))
        let overVault = try run(["--store", "file", "identity", "export", "me", "-o", vault])
        #expect(overVault.status == 73 && overVault.stderr.contains("the vault"), "\(overVault.stderr)")
        #expect(try run(["--store", "file", "identity", "list"]).outLines.count == 1, "the vault is intact")
        let loose = dir.file("loose.txt", "old\n")
        chmod(loose, 0o644)
        // Issue 32: an existing file is never replaced (it was, at 0600).
        let refused = try run(["--store", "file", "identity", "export", "me", "-o", loose])
        #expect(refused.status == 73, "\(refused.stderr)")
        #expect(TemporaryFolder.mode(loose) == 0o644 && text(loose) == "old\n")
        #expect(try run(["--store", "file", "identity", "export", "nope", "-o", dir.path + "/n.txt"]).status == 65)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/n.txt"))
    }

    @Test("keyring: an identity stored in a real gnome-keyring opens age's file; copy --to file moves it into the vault",
          .enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
    func keyringRoundTrip() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        var env = keyring.environment
        env["RWSECRET_VAULT_PASSPHRASE"] = Self.passphrase
        let vault = dir.path + "/copied.vault"
        #expect(try run(["password", "add", "pw"], stdin: Data("keyring password\n".utf8), environment: env).status == 0)
        let made = try run(["identity", "new", "desk"], environment: env)
        #expect(made.status == 0, "\(made.stderr)")
        let recipient = made.out.trimmingCharacters(in: .newlines)
        // Found from outside by its kind attribute, an item of the identity schema.
        let found = keyring.secretTool(["search", "--all", "kind", "age-x25519"]) ?? ""
        #expect(found.contains("schema = org.rwsecret.Identity") && found.contains("label = rwsecret identity: desk"), "\(found)")
        let passwords = try run(["password", "list"], environment: env)
        #expect(passwords.out == "pw\n", "\(passwords.stderr)")
        let plaintext = Crypto.randomBytes(count: 5000)
        let message = dir.url.appendingPathComponent("desk.age").path
        #expect(try tool("age", ["-r", recipient, "-o", message, dir.file("p", bytes: plaintext)]).status == 0)
        let opened = try run(["decrypt", "--verbose", "--binary", message], environment: env)
        #expect(opened.status == 0 && opened.stdout == Data(plaintext), "\(opened.stderr)")
        #expect(opened.errLines.contains("rwsecret: opened by: identity desk (tried 1)"), "\(opened.errLines)")
        let copied = try run(["identity", "copy", "--to", "file", "--vault", vault], environment: env)
        #expect(copied.status == 0, "\(copied.stderr)")
        let inVault = try run(["--vault", vault, "identity", "list"], environment: env)
        #expect(inVault.out == "desk\t\(recipient)\n", "\(inVault.stderr)")
        let vaultPasswords = try run(["--vault", vault, "password", "list"], environment: env)
        #expect(vaultPasswords.out.isEmpty, "identities copied, not passwords: \(vaultPasswords.out) \(vaultPasswords.stderr)")
        let secret = keyring.secretTool(["lookup", "label", "desk"]) ?? "unreachable"
        #expect(secret.hasPrefix("AGE-SECRET-KEY-1"))
        for result in [made, opened, copied, inVault] { expectNoSecret(result, secret, "a keyring run") }
    }

    @Test("a running decrypt that has read the vault with an identity: the secret key is not in its argv or environment")
    func notInArgvOrEnvironment() throws {
        #expect(try run(["--store", "file", "password", "add", "pw"], stdin: Data("the password\n".utf8)).status == 0)
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        let key = dir.url.appendingPathComponent("me.txt").path
        #expect(try run(["--store", "file", "identity", "export", "me", "-o", key]).status == 0)
        let secret = secretLine(key)
        let process = Process()
        process.executableURL = RWSecretProcess.executable
        process.arguments = ["--store", "file", "decrypt", "--verbose", "-"]
        process.environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.runCheckingDescriptors()
        defer { try? input.fileHandleForWriting.close(); process.waitUntilExit() }
        // One message in, its plaintext out: the vault (passwords and identity) has been read.
        input.fileHandleForWriting.write(Data((Messages.password("ready", "the password") + "\n").utf8))
        var got = Data()
        while !got.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            got.append(chunk)
        }
        #expect(String(decoding: got, as: UTF8.self) == "ready\n")
        let proc = "/proc/\(process.processIdentifier)"
        for file in ["environ", "cmdline"] {
            let bytes = FileManager.default.contents(atPath: "\(proc)/\(file)") ?? Data()
            #expect(!bytes.isEmpty, "\(file) could not be read")
            #expect(bytes.range(of: Data(secret.utf8)) == nil && bytes.range(of: Data(secret.lowercased().utf8)) == nil, "the secret key is in \(file)")
        }
    }

    // MARK: Issue 35 item 3: identity remove asks, as gpg does before deleting a secret key

    @Test("identity remove with no terminal: --yes removes; without it nothing is removed (64), as gpg --batch needs --yes")
    func removeNeedsYesWithoutATerminal() throws {
        #expect(try run(["--store", "file", "identity", "new", "me"]).status == 0)
        let refused = try run(["--store", "file", "identity", "remove", "me"])
        #expect(refused.status == 64, "\(refused.stderr)")
        #expect(refused.errLines == ["rwsecret: identity remove asks for confirmation on a terminal, and there is none: give --yes to remove without asking (nothing was removed)"],
                "\(refused.errLines)")
        #expect(try run(["--store", "file", "identity", "list"]).outLines.count == 1)
        let removed = try run(["--store", "file", "identity", "remove", "--yes", "me"])
        #expect(removed.status == 0 && removed.errLines == ["rwsecret: removed identity 'me'"], "\(removed.errLines)")
        #expect(try run(["--store", "file", "identity", "list"]).out.isEmpty)
    }

    @Test("identity remove on a terminal asks, naming the label and recipient: n keeps it (1), y removes it",
          .enabled(if: PseudoTerminal.isAvailable, PseudoTerminal.unavailable))
    func removeAsksOnATerminal() throws {
        let made = try run(["--store", "file", "identity", "new", "me"])
        #expect(made.status == 0)
        let recipient = made.out.trimmingCharacters(in: .newlines)
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        let no = try PseudoTerminal.converse(["--store", "file", "identity", "remove", "me"], environment: environment, answers: [("[y/N] ", "n")])
        #expect(no.status == 1, "\(no.screen)")
        #expect(no.screen.contains("Remove identity 'me' (\(recipient))?") && no.screen.contains("nothing removed"), "\(no.screen)")
        #expect(try run(["--store", "file", "identity", "list"]).outLines.count == 1)
        let yes = try PseudoTerminal.converse(["--store", "file", "identity", "remove", "me"], environment: environment, answers: [("[y/N] ", "y")])
        #expect(yes.status == 0, "\(yes.screen)")
        #expect(try run(["--store", "file", "identity", "list"]).out.isEmpty)
    }
}
