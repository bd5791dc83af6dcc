import Foundation
import Testing

/// `rwsecret password add/remove/list` and `status`, run as the built binary
/// with their own environment (the vault store unless a test starts a keyring).
struct PasswordCommandTests {
    let home = TemporaryFolder()
    let passphrase = "vault passphrase 1"

    var vaultPath: String { home.url.appendingPathComponent("data/rwsecret/vault").path }

    func env(_ extra: [String: String] = [:]) -> [String: String] {
        RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase].merging(extra) { $1 })
    }

    func rwsecret(_ arguments: [String], stdin: String = "", env extra: [String: String] = [:]) throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: env(extra))
    }

    @Test func addListRemoveRoundTripInTheVault() throws {
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret\n").status == 0)
        // CRLF: the CR is dropped too; no label: the lowest free password-N.
        #expect(try rwsecret(["password", "add"], stdin: "second secret\r\n").status == 0)
        #expect(try rwsecret(["password", "add", "home"], stdin: "third secret").status == 0)

        let list = try rwsecret(["password", "list"])
        #expect(list.status == 0)
        #expect(list.outLines == ["work", "password-1", "home"])
        let json = try rwsecret(["password", "list", "--json"])
        #expect(json.out == #"[{"label":"work","position":1},{"label":"password-1","position":2},{"label":"home","position":3}]"# + "\n")

        // All or nothing: one unknown label removes none.
        let bad = try rwsecret(["password", "remove", "work", "nope"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("rwsecret: no password labelled 'nope'"))
        #expect(try rwsecret(["password", "list"]).outLines == ["work", "password-1", "home"])

        #expect(try rwsecret(["password", "remove", "work", "home"]).status == 0)
        #expect(try rwsecret(["password", "list"]).outLines == ["password-1"])
        #expect(try rwsecret(["password", "add"], stdin: "fourth secret").status == 0)
        #expect(try rwsecret(["password", "list"]).outLines == ["password-1", "password-2"])
    }

    @Test func jsonListEscapesLabels() throws {
        #expect(try rwsecret(["password", "add", #"say "hi" \ ünï"#], stdin: "escaped secret").status == 0)
        #expect(try rwsecret(["password", "list", "--json"]).out == #"[{"label":"say \"hi\" \\ ünï","position":1}]"# + "\n")
        #expect(try rwsecret(["password", "list"]).outLines == [#"say "hi" \ ünï"#])
    }

    @Test("a run reads the vault once, however often the first password changes (--verbose counts keys)")
    func vaultReadOncePerRun() throws {
        #expect(try rwsecret(["password", "add", "a"], stdin: "alpha secret").status == 0)
        #expect(try rwsecret(["password", "add", "b"], stdin: "bravo secret").status == 0)
        let input = ["alpha secret", "bravo secret", "alpha secret", "bravo secret"].enumerated()
            .map { Messages.password("m\($0.offset)", $0.element) }.joined(separator: "\n") + "\n"
        let result = try rwsecret(["decrypt", "--verbose", "--jobs", "1"], stdin: input)
        #expect(result.outLines == ["m0", "m1", "m2", "m3"])
        // Opening the vault: 2 keys. m0: 2 (its HMAC key, then its encryption key);
        // m1, m2, m3: 3 each (the other password's HMAC key first). Reading the vault
        // again whenever the first password changed would add 2 keys each time.
        #expect(result.errLines.contains("rwsecret: key derivations: 13"), "\(result.errLines)")
    }

    @Test func storedPasswordsOpenMessagesAndNoSecretIsPrinted() throws {
        let added = try rwsecret(["password", "add", "work", "--verbose"], stdin: "Sup3r-S3cret-Phrase\n")
        #expect(added.status == 0)
        let encrypted = try RWSecretProcess.run(["encrypt"], stdin: Data("hello\n".utf8),
                                                environment: env(["RWSECRET_PASSWORD": "Sup3r-S3cret-Phrase"]))
        #expect(encrypted.status == 0)
        let decrypted = try rwsecret(["decrypt", "--verbose"], stdin: encrypted.out)
        #expect(decrypted.status == 0)
        #expect(decrypted.out == "hello\n")
        for result in [added, decrypted, try rwsecret(["password", "list", "--json"]), try rwsecret(["status", "--verbose"])] {
            #expect(!result.out.contains("Sup3r") && !result.stderr.contains("Sup3r"))
            #expect(!result.stderr.contains(passphrase))
        }
        let vault = try Data(contentsOf: URL(fileURLWithPath: vaultPath))
        #expect(vault.range(of: Data("Sup3r-S3cret-Phrase".utf8)) == nil)
    }

    @Test func everyValidatorFailureIsItsOwnLineAndNothingIsStored() throws {
        let result = try rwsecret(["password", "add", "--min-length", "12", "--require", "numeric"], stdin: "ab\tc\n")
        #expect(result.status == 65)
        #expect(result.errLines == [
            "rwsecret: the password contains a control character or line break (TAB, line breaks and other control characters are not allowed)",
            "rwsecret: the password is shorter than 12 characters (at least 12 characters are required)",
            "rwsecret: the password has characters other than digits 0–9 (--require numeric allows only digits 0–9)",
        ])
        #expect(!FileManager.default.fileExists(atPath: vaultPath))

        let empty = try rwsecret(["password", "add"], stdin: "")
        #expect(empty.status == 65)
        #expect(empty.errLines == ["rwsecret: the password is empty (RNCryptor needs a non-empty password)"])

        #expect(try rwsecret(["password", "add", "a"], stdin: "same secret").status == 0)
        let duplicate = try rwsecret(["password", "add", "b"], stdin: "same secret")
        #expect(duplicate.status == 65)
        #expect(duplicate.errLines == ["rwsecret: this password is already stored, labelled 'a' (each password is stored once)"])
        let existing = try rwsecret(["password", "add", "a"], stdin: "other secret")
        #expect(existing.status == 65)
        #expect(existing.errLines == ["rwsecret: a password labelled 'a' already exists"])
        #expect(try rwsecret(["password", "add", String(repeating: "x", count: 65)], stdin: "x secret").status == 65)
        #expect(try rwsecret(["password", "list"]).outLines == ["a"])
    }

    @Test func usageErrors() throws {
        #expect(try rwsecret(["password", "add", "--require", "alpha", "--require", "numeric"], stdin: "abc").status == 64)
        #expect(try rwsecret(["password", "add", "--require", "hex"], stdin: "abc").status == 64)
        #expect(try rwsecret(["password", "remove"]).status == 64)
        let conflict = try rwsecret(["status", "--store", "keyring", "--vault", "x"])
        #expect(conflict.status == 64)
        #expect(conflict.stderr.hasPrefix("rwsecret: "))
        #expect(try rwsecret(["password", "list", "--store", "keyring", "--vault", "x"]).status == 64)
        #expect(try rwsecret(["status"], env: ["RWSECRET_STORE": "cloud"]).status == 64)
        #expect(try rwsecret(["status", "--quiet", "--verbose"]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: vaultPath))
    }

    @Test func newVaultPassphraseIsValidatedAndNeededWithoutATerminal() throws {
        let short = try rwsecret(["password", "add", "w"], stdin: "secret", env: ["RWSECRET_VAULT_PASSPHRASE": "short"])
        #expect(short.status == 65)
        #expect(short.errLines == ["rwsecret: vault passphrase: the password is shorter than 8 characters (at least 8 characters are required)"])
        #expect(!FileManager.default.fileExists(atPath: vaultPath))

        var noPassphrase = env()
        noPassphrase["RWSECRET_VAULT_PASSPHRASE"] = nil
        let missing = try RWSecretProcess.run(["password", "add", "w"], stdin: Data("secret".utf8), environment: noPassphrase)
        #expect(missing.status == 69)
        #expect(missing.stderr.contains("RWSECRET_VAULT_PASSPHRASE"))
        // An absent vault is an empty store: listing it needs no passphrase.
        let list = try RWSecretProcess.run(["password", "list"], environment: noPassphrase)
        #expect(list.status == 0 && list.out.isEmpty)
    }

    @Test func wrongPassphraseIs69AndLeavesTheVaultByteIdentical() throws {
        #expect(try rwsecret(["password", "add", "w"], stdin: "secret").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: vaultPath))
        for arguments in [["password", "add", "x"], ["password", "remove", "w"], ["password", "list"]] {
            let result = try rwsecret(arguments, stdin: "other", env: ["RWSECRET_VAULT_PASSPHRASE": "not the passphrase"])
            #expect(result.status == 69, "\(arguments)")
            #expect(result.stderr.contains("wrong passphrase"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: vaultPath)) == before)
    }

    @Test func sixteenConcurrentAddsLoseNothing() throws {
        let results = try (0..<16).map { index -> Process in
            let process = Process()
            process.executableURL = RWSecretProcess.executable
            process.arguments = ["password", "add"]
            process.environment = env()
            let input = Pipe()
            process.standardInput = input
            process.standardError = FileHandle.nullDevice
            try process.runCheckingDescriptors()
            input.fileHandleForWriting.writeToChild(Data("concurrent secret \(index)\n".utf8))
            try input.fileHandleForWriting.close()
            return process
        }
        for process in results { process.waitUntilExit() }
        #expect(results.allSatisfy { $0.terminationStatus == 0 })
        let labels = try rwsecret(["password", "list"]).outLines
        #expect(labels.count == 16)
        #expect(Set(labels) == Set((1...16).map { "password-\($0)" }))
    }

    @Test func globalOptionsBeforeOrAfterTheSubcommand() throws {
        let custom = home.url.appendingPathComponent("elsewhere/my.vault").path
        #expect(try rwsecret(["--vault", custom, "password", "add", "a"], stdin: "secret a").status == 0)
        #expect(try rwsecret(["password", "--vault", custom, "add", "b"], stdin: "secret b").status == 0)
        #expect(try rwsecret(["password", "add", "c", "--vault", custom], stdin: "secret c").status == 0)
        #expect(try rwsecret(["password", "list"], env: ["RWSECRET_VAULT": custom]).outLines == ["a", "b", "c"])
        #expect(!FileManager.default.fileExists(atPath: vaultPath))
        var info = stat()
        #expect(stat(custom, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(home.url.appendingPathComponent("elsewhere").path, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test func statusOfTheVault() throws {
        let empty = try rwsecret(["status"])
        #expect(empty.status == 0)
        #expect(empty.outLines.count == 8)
        #expect(empty.outLines[0] == "store: file")
        #expect(empty.outLines[1] == "location: \(vaultPath)")
        #expect(empty.outLines[2].hasPrefix("reason: auto: "))
        #expect(empty.outLines[3...] == ["passwords: 0", "identities: 0", "locked: no", "passphrase cached: no",
                                         "vault: none yet at \(vaultPath) (the first `rwsecret password add` creates it)"])

        #expect(try rwsecret(["password", "add"], stdin: "one secret").status == 0)
        #expect(try rwsecret(["status", "--store", "file"]).outLines[3...] == ["passwords: 1", "identities: 0", "locked: no", "passphrase cached: no"])
        let wrong = try rwsecret(["status"], env: ["RWSECRET_VAULT_PASSPHRASE": "wrong wrong"])
        #expect(wrong.status == 69, "a wrong passphrase is a problem, not a state (issue 27 item 12)")
        #expect(wrong.outLines[3..<7] == ["passwords: unknown", "identities: unknown", "locked: yes", "passphrase cached: no"])
        #expect(wrong.outLines.last?.hasPrefix("problem: wrong passphrase") == true)
    }

    @Test func keyringWithoutABusIs69WithAdvice() throws {
        var noBus = env()
        noBus["DBUS_SESSION_BUS_ADDRESS"] = nil
        for arguments in [["status", "--store", "keyring"], ["password", "list", "--store", "keyring"]] {
            let result = try RWSecretProcess.run(arguments, environment: noBus)
            #expect(result.status == 69)
            #expect(result.stderr.contains("no D-Bus session bus"))
            #expect(result.stderr.contains("--store file"))
        }
        // A stale bus address: also 69, saying so.
        let stale = try rwsecret(["status", "--store", "keyring"])
        #expect(stale.status == 69)
        #expect(stale.stderr.contains("cannot connect to the D-Bus session bus"))
        // auto without a bus falls back to the vault, and says why.
        let auto = try RWSecretProcess.run(["status"], environment: noBus)
        #expect(auto.status == 0)
        #expect(auto.outLines.contains("reason: auto: there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set), so the vault is used"))
    }
}

/// The same commands against a real gnome-keyring on a private bus, one per test
/// (subprocesses, so each can have its own bus and keyring).
@Suite(.enabled(if: PrivateKeyring.isInstalled, Comment(rawValue: PrivateKeyring.skipMessage)))
struct KeyringCommandTests {
    func run(_ keyring: PrivateKeyring, _ arguments: [String], stdin: String = "") throws -> RWSecretProcess.Result {
        try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: keyring.environment)
    }

    @Test func addToTheKeyringIsFoundBySecretTool() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        #expect(try run(keyring, ["password", "add", "--store", "keyring", "work"], stdin: "keyring secret 1\n").status == 0)
        // auto picks the running keyring.
        #expect(try run(keyring, ["password", "add"], stdin: "keyring secret 2\n").status == 0)

        let found = try #require(keyring.secretTool(["search", "--all", "label", "work"]))
        #expect(found.contains("label = rwsecret: work"))
        #expect(keyring.secretTool(["lookup", "label", "password-1"]) == "keyring secret 2")

        #expect(try run(keyring, ["password", "list"]).outLines == ["work", "password-1"])
        let status = try run(keyring, ["status"])
        #expect(status.status == 0)
        #expect(status.outLines == [
            "store: keyring", "location: \(keyring.collectionPath)",
            "reason: auto: a Secret Service owns org.freedesktop.secrets on the session bus",
            "passwords: 2", "identities: 0", "locked: no",
        ])
        #expect(try run(keyring, ["password", "remove", "work"]).status == 0)
        #expect(keyring.secretTool(["search", "--all", "label", "work"])?.contains("rwsecret: work") != true)
        #expect(try run(keyring, ["password", "list", "--json"]).out == #"[{"label":"password-1","position":1}]"# + "\n")
    }

    /// Stores a password in `keyring` and returns a decrypt of one message it opens, run under
    /// `strace -f -e trace=SYSCALLS` with `options`: its stdout lines and the trace's lines.
    func tracedDecrypts(_ keyring: PrivateKeyring, syscalls: String) throws -> (_ options: [String]) throws -> (out: [String], trace: [Substring]) {
        #expect(try run(keyring, ["password", "add", "work"], stdin: "keyring secret\n").status == 0)
        return { options in try self.tracedDecrypt(keyring, syscalls: syscalls, options: options) }
    }

    private func tracedDecrypt(_ keyring: PrivateKeyring, syscalls: String, options: [String]) throws -> (out: [String], trace: [Substring]) {
        let dir = TemporaryFolder()
        let message = dir.file("m.txt", Messages.password("from the keyring", "keyring secret") + "\n")
        let trace = dir.path + "/trace"
        let strace = URL(fileURLWithPath: try #require(PrivateKeyring.executable("strace")))
        let result = try RWSecretProcess.run(["-f", "-e", "trace=\(syscalls)", "-o", trace, RWSecretProcess.executable.path, "decrypt"] + options + [message],
                                             environment: keyring.environment, executable: strace)
        #expect(result.status == 0, "\(options): \(result.stderr)")
        return (result.outLines, try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n"))
    }

    /// One decrypt, its password in the keyring, connects to the session bus once. It
    /// connected twice: the Secret Service check (NameHasOwner) dropped GLib's shared
    /// connection with its last reference, and libsecret then connected and authenticated
    /// again (strace counted two connects to the bus socket).
    @Test(.enabled(if: PrivateKeyring.executable("strace") != nil, "strace is not installed (make test installs it)"))
    func decryptConnectsToTheBusOnce() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let run = try tracedDecrypts(keyring, syscalls: "connect")([])
        #expect(run.out == ["from the keyring"])
        let connects = run.trace.filter { $0.contains("connect(") && $0.contains("\"\(keyring.root)/bus\"") }
        #expect(connects.count == 1, "\(connects)")
    }

    /// One decrypt, its password in the keyring, builds libsecret's service proxy once and
    /// reads its secret in one call: it built the proxy twice (the collection look-up let go
    /// of the service and the search built another: `GetAll /org/freedesktop/secrets` twice,
    /// three round trips each) and asked for the secret twice (`GetSecrets`, then the item's
    /// `GetSecret`), as dbus-monitor counted.
    @Test func decryptAsksTheSecretServiceNoMoreThanNeeded() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let calls = try secretServiceCallsOfOneDecrypt(keyring)
        #expect(calls.filter { $0 == "GetAll /org/freedesktop/secrets" }.count == 1, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("GetSecrets ") }.count == 1, "\(calls)")
        #expect(!calls.contains { $0.hasPrefix("GetSecret ") }, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("OpenSession ") }.count == 1, "\(calls)")
    }

    /// Opening the store reads the default collection's path and its `Locked` property with
    /// two calls (`ReadAlias`, `Properties.Get`) instead of building libsecret's collection
    /// proxy, which asked for all its properties (`GetAll` on the collection) after two round
    /// trips with the bus that dbus-monitor's filter here does not show (issue 36: the keyring
    /// decrypt against `secret-tool lookup`, which builds no collection proxy).
    @Test func decryptReadsTheCollectionWithoutItsProxy() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let calls = try secretServiceCallsOfOneDecrypt(keyring)
        // A collection's object path is one level below /org/freedesktop/secrets/collection.
        func onTheCollection(_ call: String) -> Bool {
            call.split(separator: " ").last.map { $0.hasPrefix("/org/freedesktop/secrets/collection/") && $0.split(separator: "/").count == 5 } ?? false
        }
        #expect(!calls.contains { $0.hasPrefix("GetAll ") && onTheCollection($0) }, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("Get ") && onTheCollection($0) }.count == 1, "\(calls)")
        #expect(calls.filter { $0.hasPrefix("ReadAlias ") }.count == 1, "\(calls)")
    }

    /// Reading the passwords opens the Diffie-Hellman session while the search runs, not after
    /// it: the search, then libsecret's proxy for each item found (three round trips), then the
    /// session (the slowest round trip: the daemon's half of the key exchange), then the
    /// secrets, one after the other, as dbus-monitor saw them. Now `OpenSession` is sent before
    /// any item's attributes are asked for (once the search has answered, with the secrets:
    /// no item proxy is built).
    @Test func decryptOpensTheSessionWhileItSearches() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let calls = try secretServiceCallsOfOneDecrypt(keyring)
        // An item's object path is one level below its collection's.
        let itemProperties = calls.firstIndex { $0.hasPrefix("Get /org/freedesktop/secrets/collection/") && $0.split(separator: "/").count == 7 }
        let search = calls.firstIndex { $0.hasPrefix("SearchItems ") }
        let session = calls.firstIndex { $0.hasPrefix("OpenSession ") }
        let secrets = calls.firstIndex { $0.hasPrefix("GetSecrets ") }
        guard let itemProperties, let search, let session, let secrets else {
            Issue.record("a call is missing: \(calls)")
            return
        }
        #expect(search < session && session < itemProperties && session < secrets, "\(calls)")
    }

    /// Stores one password in `keyring`, decrypts a message with it (checking the plaintext),
    /// and returns the Secret Service calls dbus-monitor saw during the decrypt, in order.
    private func secretServiceCallsOfOneDecrypt(_ keyring: PrivateKeyring) throws -> [String] {
        #expect(try run(keyring, ["password", "add", "work"], stdin: "keyring secret\n").status == 0)
        let dir = TemporaryFolder()
        let message = dir.file("m.txt", Messages.password("from the keyring", "keyring secret") + "\n")
        var result: RWSecretProcess.Result?
        let calls = try keyring.secretServiceCalls {
            result = try RWSecretProcess.run(["decrypt", message], environment: keyring.environment)
        }
        #expect(result?.outLines == ["from the keyring"], "\(result?.stderr ?? "")")
        return calls
    }

    /// libsecret (and GLib) are loaded, and the bus asked whether a Secret Service runs, on a
    /// thread of their own while the arguments are parsed: the main thread loaded them when
    /// the first message needed a password (strace: libsecret opened by the process's main
    /// thread). Never under `--jobs 1` (one thread).
    @Test(.enabled(if: PrivateKeyring.executable("strace") != nil, "strace is not installed (make test installs it)"))
    func libsecretIsLoadedOnAThreadOfItsOwn() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        let decrypt = try tracedDecrypts(keyring, syscalls: "openat,execve")
        // Which thread (the pid in strace's first column) opened libsecret, and the main thread.
        func loader(_ options: [String]) throws -> (opener: Substring?, main: Substring?, out: [String]) {
            let run = try decrypt(options)
            let main = run.trace.first { $0.contains("execve(") }?.split(separator: " ").first
            let opener = run.trace.first { $0.contains("libsecret-1.so") && !$0.contains("ENOENT") }?.split(separator: " ").first
            return (opener, main, run.out)
        }
        let warm = try loader([])
        #expect(warm.out == ["from the keyring"])
        #expect(warm.opener != nil && warm.main != nil && warm.opener != warm.main, "libsecret opened by \(warm.opener ?? "nobody"), main thread \(warm.main ?? "?")")
        let one = try loader(["--jobs", "1"])
        #expect(one.out == ["from the keyring"])
        #expect(one.opener != nil && one.opener == one.main, "--jobs 1: libsecret opened by \(one.opener ?? "nobody"), main thread \(one.main ?? "?")")
    }

    @Test func lockedKeyringIsReportedByStatusAndIs69Elsewhere() throws {
        let keyring = try PrivateKeyring.start()
        defer { keyring.stop() }
        #expect(try run(keyring, ["password", "add", "work"], stdin: "keyring secret\n").status == 0)
        try keyring.lock()

        let status = try run(keyring, ["status"])
        #expect(status.status == 0)
        #expect(status.outLines == [
            "store: keyring", "location: \(keyring.collectionPath)",
            "reason: auto: a Secret Service owns org.freedesktop.secrets on the session bus",
            "passwords: unknown", "identities: unknown", "locked: yes",
        ])
        for arguments in [["password", "list"], ["password", "add", "other"], ["password", "remove", "work"]] {
            let result = try run(keyring, arguments, stdin: "another secret")
            #expect(result.status == 69, "\(arguments)")
            #expect(result.stderr.contains("locked"))
            #expect(result.stderr.contains("--store file"))
        }
        // Never a silent switch to the vault.
        #expect(!FileManager.default.fileExists(atPath: keyring.root + "/data/rwsecret/vault"))
    }

    @Test func busWithoutASecretServiceUsesTheVaultUnderAutoAnd69UnderKeyring() throws {
        let keyring = try PrivateKeyring.start()
        // Stop only the keyring daemon: keep a bus that nobody serves secrets on.
        defer { keyring.stop() }
        try keyring.stopKeyringDaemon()
        var environment = keyring.environment
        environment["RWSECRET_VAULT_PASSPHRASE"] = "vault passphrase 1"
        let auto = try RWSecretProcess.run(["status"], environment: environment)
        #expect(auto.status == 0)
        #expect(auto.outLines.first == "store: file")
        #expect(auto.outLines.contains("reason: auto: no Secret Service owns org.freedesktop.secrets on the session bus, so the vault is used"))
        let explicit = try RWSecretProcess.run(["password", "list", "--store", "keyring"], environment: environment)
        #expect(explicit.status == 69)
        #expect(explicit.stderr.contains("no Secret Service is running on the session bus"))
    }
}
