import Foundation
import Testing

/// Issue 35, item 2: SSH keys as people have them. A passphrase-protected OpenSSH key is asked
/// for its passphrase (libssh reads ed25519, Botan's bcrypt-pbkdf and OpenSSL RSA), a PEM RSA key is read (OpenSSL), a GitHub .keys list's
/// ecdsa and sk lines are skipped with a warning, an identity file's post-quantum line is
/// skipped with a warning, and a plugin recipient is named as one. With the real ssh-keygen and age.
@Suite("SSH keys and age identities as people have them")
struct SSHKeyTests {
    init() { brokenPipesIgnored }

    let dir = TemporaryFolder()
    var environment: [String: String] { RWSecretProcess.environment(home: dir.url) }
    static let available = ["/usr/bin/ssh-keygen", "/usr/bin/age", "/usr/bin/age-keygen"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    func tool(_ path: String, _ arguments: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(arguments, stdin: stdin, environment: environment, executable: URL(fileURLWithPath: path))
    }

    /// A key made by ssh-keygen (`options`, e.g. `-t ed25519 -N PASS`) and a file age encrypted to it.
    func keyAndMessage(_ name: String, _ options: [String]) throws -> (key: String, message: String) {
        let key = dir.url.appendingPathComponent(name).path
        try #require(try tool("/usr/bin/ssh-keygen", ["-q", "-f", key] + options).status == 0)
        let message = key + ".age"
        try #require(try tool("/usr/bin/age", ["-R", key + ".pub", "-o", message], stdin: Data("opened \(name)\n".utf8)).status == 0)
        return (key, message)
    }

    // A passphrase-protected OpenSSH *RSA* key (ssh-keygen's default format and cipher,
    // aes256-ctr with bcrypt-pbkdf): libssh 0.10 with OpenSSL 3 decrypts it but keeps only n, e
    // and d, so rwsecret opens it itself with Botan's bcrypt-pbkdf and OpenSSL's AES-256-CTR.
    @Test("a passphrase-protected OpenSSH RSA key is asked for its passphrase and opens the file; wrong three times: 65; no terminal: one line (before: refused with 'ssh-keygen -p -m PKCS8')",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func passphraseRSAKey() throws {
        let (key, message) = try keyAndMessage("id_rsa", ["-t", "rsa", "-b", "2048", "-N", "rsa phrase 1"])
        #expect(try String(contentsOfFile: key, encoding: .utf8).hasPrefix("-----BEGIN OPENSSH PRIVATE KEY-----"))
        let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(key)' '\(message)'"
        let session = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for \(key)", "rsa phrase 1")], timeout: 30)
        #expect(!session.timedOut && session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("opened id_rsa"), "\(session.lines)")
        #expect(!session.raw.contains("rsa phrase 1"), "no echo")
        // A wrong passphrase three times: 65, a line for each (the third the error's), nothing opened.
        let wrong = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", "no"), ("Enter passphrase for", "no"), ("Enter passphrase for", "no")], timeout: 30)
        #expect(!wrong.timedOut && wrong.status == 65, "\(wrong.raw)")
        #expect(!wrong.raw.contains("opened id_rsa"))
        #expect(wrong.lines.filter { $0.contains("the passphrase does not open this key") }.count == 3, "\(wrong.lines)")
        // No terminal: one line that says how to be asked, as for an ed25519 key.
        let script = try RWSecretProcess.run(["decrypt", "--no-store", "--identity", key, message], environment: environment)
        #expect(script.status == 65)
        #expect(script.errLines == ["rwsecret: \(key): a private key protected by a passphrase: run rwsecret on a terminal to be asked for it"], "\(script.stderr)")
    }

    // ssh-keygen -Z aes256-gcm@openssh.com: the section is opened with OpenSSL's AES-256-GCM,
    // its tag telling a wrong passphrase.
    @Test("a passphrase-protected OpenSSH RSA key encrypted with aes256-gcm@openssh.com opens; a wrong passphrase is said (before: refused)",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func passphraseRSAKeyGCM() throws {
        let (key, message) = try keyAndMessage("id_rsa", ["-t", "rsa", "-b", "2048", "-N", "gcm phrase", "-Z", "aes256-gcm@openssh.com"])
        let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(key)' '\(message)'"
        let session = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", "not it"), ("Enter passphrase for", "gcm phrase")], timeout: 30)
        #expect(!session.timedOut && session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("opened id_rsa"), "\(session.lines)")
        #expect(session.lines.filter { $0.contains("the passphrase does not open this key") }.count == 1, "\(session.lines)")
    }

    // Without Botan (its dlopen refused by a shim), the one line names the package and the
    // ssh-keygen -p -m PKCS8 conversion, before any passphrase is asked.
    @Test("a passphrase-protected OpenSSH RSA key without libbotan: one line naming libbotan-2-19 and ssh-keygen -p -m PKCS8, no prompt",
          .enabled(if: available && PseudoTerminal.isAvailable))
    func passphraseRSAKeyWithoutBotan() throws {
        let (key, message) = try keyAndMessage("id_rsa", ["-t", "rsa", "-b", "2048", "-N", "rsa phrase 1"])
        let shim = try Shim.build("""
            #define _GNU_SOURCE
            #include <dlfcn.h>
            #include <string.h>
            void *dlopen(const char *file, int mode) {
                static void *(*real)(const char *, int);
                if (!real) *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
                if (file && strstr(file, "libbotan")) return NULL;
                return real(file, mode);
            }
            """, named: "no-botan", in: dir.url)
        var environment = environment
        environment["LD_PRELOAD"] = shim
        let advice = "ssh-keygen -p -m PKCS8 -f \(key) rewrites it as a PKCS#8 key with a passphrase, which rwsecret and ssh read"
        let expected = "rwsecret: \(key): a passphrase-protected RSA key in OpenSSH format needs Botan, which is missing "
            + "(libbotan-2.so.19: apt install libbotan-2-19): \(advice)"
        let script = try RWSecretProcess.run(["decrypt", "--no-store", "--identity", key, message], environment: environment)
        #expect(script.status == 65)
        #expect(script.errLines == [expected], "\(script.stderr)")
        let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(key)' '\(message)'"
        let session = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", "rsa phrase 1")], timeout: 20)
        #expect(!session.raw.contains("Enter passphrase for"), "not asked for a passphrase it cannot use: \(session.raw)")
        #expect(session.status == 65, "\(session.raw)")
        #expect(session.lines.filter { !$0.isEmpty } == [expected], "\(session.lines)")
    }

    @Test("a passphrase-protected id_ed25519 is asked for its passphrase on the terminal and opens the file (before: refused)",
          .enabled(if: available && PseudoTerminal.isAvailable), arguments: [["-t", "ed25519"]])
    func passphraseKey(_ type: [String]) throws {
        let (key, message) = try keyAndMessage("id_\(type[1])", type + ["-N", "key phrase 1"])
        let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(key)' '\(message)'"
        let session = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", "key phrase 1")])
        #expect(!session.timedOut && session.status == 0, "\(session.raw)")
        #expect(session.lines.contains("opened id_\(type[1])"), "\(session.lines)")
        #expect(!session.raw.contains("key phrase 1"), "no echo")
        // A wrong passphrase three times: 65, nothing opened.
        let wrong = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", "no"), ("Enter passphrase for", "no"), ("Enter passphrase for", "no")])
        #expect(!wrong.timedOut && wrong.status == 65, "\(wrong.raw)")
        #expect(wrong.lines.filter { $0.contains("the passphrase does not open this key") }.count == 3, "\(wrong.lines)")
        // No terminal: an error that says how to be asked.
        let script = try RWSecretProcess.run(["decrypt", "--no-store", "--identity", key, message], environment: environment)
        #expect(script.status == 65)
        #expect(script.stderr.contains("protected by a passphrase"), "\(script.stderr)")
    }

    @Test("a PEM RSA key (ssh-keygen -m PEM) opens an age file to its public key (before: not an OpenSSH key)",
          .enabled(if: available))
    func pemRSA() throws {
        let (key, message) = try keyAndMessage("id_rsa", ["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", ""])
        #expect(try String(contentsOfFile: key, encoding: .utf8).hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--identity", key, message], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "opened id_rsa\n\n" || result.out == "opened id_rsa\n", "\(result.out)")
    }

    // A PEM key protected by a passphrase names its cipher on a DEK-Info line, which OpenSSL's
    // PEM reader looks up in the legacy name table; the tool starts OpenSSL without that table
    // (OpenSSLStart.withoutLegacyNames), so the library adds those names before reading one.
    @Test("a passphrase-protected PEM RSA key opens the file, whichever cipher its DEK-Info line names, and PKCS#8 too (before, with no legacy name table: 'the passphrase does not open this key')",
          .enabled(if: available && PseudoTerminal.isAvailable && FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")))
    func pemRSAWithPassphrase() throws {
        let phrase = "pem phrase 1"
        let (key, message) = try keyAndMessage("id_rsa", ["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", phrase])
        #expect(try String(contentsOfFile: key, encoding: .utf8).contains("DEK-Info: AES-128-CBC,"))
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        var keys = [("AES-128-CBC", key)]
        for cipher in ["aes256", "des3", "camellia256", "aria192"] {
            let converted = key + "." + cipher
            let made = try RWSecretProcess.run(["rsa", "-in", key, "-passin", "pass:" + phrase, "-traditional", "-" + cipher, "-passout", "pass:" + phrase, "-out", converted],
                                               environment: environment, executable: openssl)
            try #require(made.status == 0, "\(made.stderr)")
            let line = try #require(try String(contentsOfFile: converted, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("DEK-Info: ") })
            keys.append((String(line.dropFirst("DEK-Info: ".count).prefix { $0 != "," }), converted))
        }
        let pkcs8 = key + ".p8"
        let made = try RWSecretProcess.run(["pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", key, "-passin", "pass:" + phrase, "-passout", "pass:" + phrase, "-out", pkcs8],
                                           environment: environment, executable: openssl)
        try #require(made.status == 0, "\(made.stderr)")
        keys.append(("PKCS#8", pkcs8))
        #expect(keys.map(\.0) == ["AES-128-CBC", "AES-256-CBC", "DES-EDE3-CBC", "CAMELLIA-256-CBC", "ARIA-192-CBC", "PKCS#8"])
        for (cipher, file) in keys {
            let line = "\(PseudoTerminal.rwsecret) decrypt --no-store --identity '\(file)' '\(message)'"
            let session = try PseudoTerminal.run(line, environment: environment, answers: [("Enter passphrase for", phrase)], timeout: 30)
            #expect(!session.timedOut && session.status == 0, "\(cipher): \(session.raw)")
            #expect(session.lines.contains("opened id_rsa"), "\(cipher): \(session.lines)")
        }
    }

    @Test("--to-file with a GitHub .keys list: ecdsa and sk lines are skipped with a warning, the others used (before: the run failed)",
          .enabled(if: available))
    func githubKeys() throws {
        let ecdsa = dir.url.appendingPathComponent("ecdsa").path
        try #require(try tool("/usr/bin/ssh-keygen", ["-q", "-t", "ecdsa", "-N", "", "-f", ecdsa]).status == 0)
        let (key, _) = try keyAndMessage("id_ed25519", ["-t", "ed25519", "-N", ""])
        let list = dir.file("NAME.keys", try String(contentsOfFile: ecdsa + ".pub", encoding: .utf8)
                            + "sk-ssh-ed25519@openssh.com AAAAGnNrLXNzaC1lZDI1NTE5QG9wZW5zc2guY29tAAAAIEX/dQ0v4127bEo8eeG1EV0ApO2lWbSqNOIyt4P8BUmqAAAABHNzaDo=\n"
                            + (try String(contentsOfFile: key + ".pub", encoding: .utf8)))
        let out = dir.url.appendingPathComponent("to.age").path
        let made = try RWSecretProcess.run(["encrypt", "--to-file", list, "-o", out], stdin: Data("for the list\n".utf8), environment: environment)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.errLines.count == 2, "\(made.stderr)")
        #expect(made.errLines.first?.contains("\(list):1: ecdsa-sha2-nistp256 keys are not age recipients: skipped") == true, "\(made.stderr)")
        #expect(made.errLines.last?.contains("\(list):2: sk-ssh-ed25519@openssh.com keys") == true, "\(made.stderr)")
        let opened = try tool("/usr/bin/age", ["-d", "-i", key, out])
        #expect(opened.out == "for the list\n", "\(opened.stderr)")
    }

    @Test("an identity file with a post-quantum line still uses its X25519 lines, with a warning (before: refused)", .enabled(if: available))
    func postQuantumLine() throws {
        let keys = try tool("/usr/bin/age-keygen", [])
        let secret = try #require(keys.outLines.first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        let file = dir.file("identities.txt", "AGE-SECRET-KEY-PQ-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ\n" + secret + "\n")
        chmod(file, 0o600)
        let recipient = try tool("/usr/bin/age-keygen", ["-y", file.replacingOccurrences(of: "identities.txt", with: "")], stdin: Data())
        _ = recipient
        let publicKey = try #require(keys.errLines.first { $0.contains("age1") }.map { String($0[$0.range(of: "age1")!.lowerBound...]) } ?? keys.outLines.first { $0.contains("public key: ") }.map { String($0.split(separator: " ").last!) })
        let message = dir.url.appendingPathComponent("x.age").path
        try #require(try tool("/usr/bin/age", ["-r", publicKey, "-o", message], stdin: Data("pq file\n".utf8)).status == 0)
        let result = try RWSecretProcess.run(["decrypt", "--no-store", "--identity", file, message], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out.hasPrefix("pq file"))
        #expect(result.errLines.count == 1 && result.errLines[0].contains("post-quantum") && result.errLines[0].hasPrefix("rwsecret: warning: "), "\(result.stderr)")
    }

    @Test("a plugin recipient is named as one (before: not a valid age1… recipient)")
    func pluginRecipient() throws {
        let result = try RWSecretProcess.run(["encrypt", "--to", "age1yubikey1qwt50d05nh5vutpdzmlg5wn80xq5negm4uj9ghv0snvdd3yysf5yw3rhl3t"],
                                             stdin: Data("x\n".utf8), environment: environment)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("a plugin recipient (age-plugin-yubikey)"), "\(result.stderr)")
    }
}
