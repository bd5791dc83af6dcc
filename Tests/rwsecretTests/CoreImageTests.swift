import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a core image of rwsecret holds when it ends: gdb's `gcore` (as root: the process is
/// not dumpable) of a decrypt stopped in `_exit` by a shim, searched for the password and
/// the plaintext (issue 21, closing note). A line-mode plaintext was left in memory once per
/// message: `cleanse(&copy)` of the result's shared array wiped a copy made on write; `--json`
/// left more, in the Strings its object was built from.
@Suite(.enabled(if: geteuid() == 0 && PrivateKeyring.executable("gcore") != nil,
                "needs root and gdb's gcore (Debian package gdb; make test installs it)"))
struct CoreImageTests {
    /// LD_PRELOAD shim: `_exit` first creates the file RWS_PAUSED_FILE, then stops the
    /// process (SIGSTOP) until it is continued, then exits.
    static let pauseAtExit = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <signal.h>
        #include <stdlib.h>
        #include <unistd.h>
        void _exit(int status) {
            static void (*real)(int);
            if (!real) *(void **)&real = dlsym(RTLD_NEXT, "_exit");
            const char *flag = getenv("RWS_PAUSED_FILE");
            if (flag) { int fd = open(flag, O_WRONLY | O_CREAT | O_CLOEXEC, 0600); if (fd >= 0) close(fd); }
            raise(SIGSTOP);
            real(status);
            for (;;) {}
        }
        """

    /// Runs `rwsecret ARGS` stopped at its exit, takes its core image, and counts the copies
    /// of `password` and `plaintext` in it; the decrypt's exit status and stdout.
    func copies(_ arguments: [String], password: String, plaintext: String, in dir: TemporaryFolder,
                environment extra: [String: String] = [:], passwordBytes: [UInt8]? = nil) throws -> (password: Int, plaintext: Int, status: Int32, out: String) {
        let shim = try Shim.build(Self.pauseAtExit, named: "pause-at-exit", in: dir.url)
        // The secrets reach the script as files: in its environment they would be in the core image.
        _ = dir.file("needle-password", bytes: (passwordBytes ?? Array(password.utf8)) + [0x0a])
        _ = dir.file("needle-plaintext", plaintext + "\n")
        var environment = RWSecretProcess.environment(home: dir.url, extra: extra)
        environment["SHIM"] = shim
        environment["DIR"] = dir.path
        environment["RWSECRET"] = RWSecretProcess.executable.path
        let run = try RWSecretProcess.run(["-c", Self.pausedCoreScript(counting: ["password", "plaintext"]), "measure"] + arguments,
                                          environment: environment, mergingStandardError: true, executable: URL(fileURLWithPath: "/bin/bash"))
        let counts = Self.counts(run.outLines)
        guard let passwordCopies = counts["password"], let plaintextCopies = counts["plaintext"], let status = counts["status"] else {
            Issue.record("no measurement: \(run.out)")
            return (-1, -1, -1, "")
        }
        let out = (try? String(contentsOfFile: dir.path + "/out", encoding: .utf8)) ?? ""
        return (passwordCopies, plaintextCopies, Int32(status), out)
    }

    /// The bash script that runs `"$RWSECRET" "$@"` (out and err into $DIR) with the shim $SHIM
    /// preloaded, takes its core image once it is paused in `_exit`, lets it exit, and prints
    /// `status N` and, for each name, `NAME N`: the copies in the core of the bytes in
    /// $DIR/needle-NAME (one fixed string, no line end inside).
    static func pausedCoreScript(counting names: [String]) -> String {
        """
        set -u
        rm -f "$DIR/paused" "$DIR"/core.*
        LD_PRELOAD="$SHIM" RWS_PAUSED_FILE="$DIR/paused" "$RWSECRET" "$@" > "$DIR/out" 2> "$DIR/err" &
        pid=$!
        # A bound on a hang (and on typing a passphrase), not on speed: a run takes well under a second.
        for i in $(seq 1 1200); do [ -e "$DIR/paused" ] && break; sleep 0.05; done
        [ -e "$DIR/paused" ] || { kill -9 $pid; echo "never reached _exit: $(cat "$DIR/err")"; exit 1; }
        gcore -o "$DIR/core" $pid > "$DIR/gcore.log" 2>&1 || { kill -9 $pid; cat "$DIR/gcore.log"; exit 1; }
        kill -CONT $pid
        wait $pid
        echo "status $?"
        core=$(ls "$DIR"/core.* | head -n 1)

        """ + names.map { "echo \"\($0) $(LC_ALL=C grep -a -o -F -f \"$DIR/needle-\($0)\" \"$core\" | wc -l)\"\n" }.joined()
            + "rm -f \"$core\"\n"
    }

    /// The `NAME N` lines of a measuring script's output, by name.
    static func counts(_ lines: [String]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in lines {
            let words = line.split(separator: " ")
            if words.count == 2, let value = Int(words[1]) { counts[String(words[0])] = value }
        }
        return counts
    }

    @Test(arguments: [1, 30], [false, true])
    func aLineModeDecryptLeavesNoPlaintextAndNoPasswordFromAFile(messages: Int, json: Bool) throws {
        let dir = TemporaryFolder()
        let password = "core-password-\(UInt64.random(in: 0...UInt64.max))"
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let passwordFile = dir.file("password", password + "\n")
        let input = dir.file("m.txt", (0..<messages).map { _ in Messages.password(plaintext, password) + "\n" }.joined())
        let found = try copies(["decrypt", "--no-store", "--password-file", passwordFile, input] + (json ? ["--json"] : []),
                               password: password, plaintext: plaintext, in: dir)
        #expect(found.status == 0)
        #expect(found.out.components(separatedBy: plaintext).count - 1 == messages, "\(found.out)")
        #expect(found.plaintext == 0, "\(found.plaintext) copies of the plaintext in the core image")
        #expect(found.password == 0, "\(found.password) copies of the password in the core image")
    }

    /// Issue 26: a stored identity (the vault's) that opens an age file, in line mode and with
    /// --binary: its secret key text is not left in the core image at exit (searched for by its
    /// last 40 characters: malloc overwrites the first bytes of a freed copy, not the rest).
    @Test(arguments: [false, true])
    func aStoredIdentityIsNotLeftBehind(binary: Bool) throws {
        let dir = TemporaryFolder()
        let extra = ["RWSECRET_VAULT_PASSPHRASE": "a vault passphrase for the core test"]
        let environment = RWSecretProcess.environment(home: dir.url, extra: extra)
        let made = try RWSecretProcess.run(["--store", "file", "identity", "new", "me"], environment: environment)
        try #require(made.status == 0, "\(made.stderr)")
        let key = dir.path + "/key.txt"
        try #require(try RWSecretProcess.run(["--store", "file", "identity", "export", "me", "-o", key], environment: environment).status == 0)
        let secret = try #require(try String(contentsOfFile: key, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        try FileManager.default.removeItem(atPath: key)
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let message = dir.path + "/m.age"
        let sealed = try RWSecretProcess.run(["--store", "file", "encrypt", "--to-self", "-o", message], stdin: Data(plaintext.utf8), environment: environment)
        try #require(sealed.status == 0, "\(sealed.stderr)")
        let found = try copies(["--store", "file", "decrypt"] + (binary ? ["--binary"] : []) + [message],
                               password: String(secret.suffix(40)), plaintext: plaintext, in: dir, environment: extra)
        #expect(found.status == 0)
        #expect(found.out.contains(plaintext), "\(found.out)")
        #expect(found.password == 0, "\(found.password) copies of the stored identity's secret key in the core image")
    }

    // MARK: Issue 32 item 8: secrets from the environment

    /// `RWSECRET_PASSWORD` opens line-mode messages: at exit, no copy of it is left (the
    /// environment block's copy was overwritten at start; the chain's buffer is wiped).
    @Test(arguments: [false, true])
    func thePasswordFromTheEnvironmentIsNotLeftAtExit(json: Bool) throws {
        let dir = TemporaryFolder()
        let password = "core-env-password-\(UInt64.random(in: 0...UInt64.max))"
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let input = dir.file("m.txt", (0..<3).map { _ in Messages.password(plaintext, password) + "\n" }.joined())
        let found = try copies(["decrypt", "--no-store", input] + (json ? ["--json"] : []), password: password, plaintext: plaintext,
                               in: dir, environment: ["RWSECRET_PASSWORD": password])
        #expect(found.status == 0)
        #expect(found.out.components(separatedBy: plaintext).count - 1 == 3, "\(found.out)")
        #expect(found.password == 0, "\(found.password) copies of RWSECRET_PASSWORD's value in the core image at exit")
    }

    /// `RWSECRET_VAULT_PASSPHRASE` opens the vault whose stored password opens the message: at
    /// exit, no copy of the passphrase is left.
    @Test
    func theVaultPassphraseFromTheEnvironmentIsNotLeftAtExit() throws {
        let dir = TemporaryFolder()
        let passphrase = "core-env-vault-passphrase-\(UInt64.random(in: 0...UInt64.max))"
        let password = "core-stored-password-\(UInt64.random(in: 0...UInt64.max))"
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase])
        let added = try RWSecretProcess.run(["--store", "file", "password", "add", "p"], stdin: Data((password + "\n").utf8), environment: environment)
        try #require(added.status == 0, "\(added.stderr)")
        let input = dir.file("m.txt", Messages.password(plaintext, password) + "\n")
        let found = try copies(["--store", "file", "decrypt", input], password: passphrase, plaintext: plaintext, in: dir,
                               environment: ["RWSECRET_VAULT_PASSPHRASE": passphrase])
        #expect(found.status == 0)
        #expect(found.out.contains(plaintext), "\(found.out)")
        #expect(found.password == 0, "\(found.password) copies of RWSECRET_VAULT_PASSPHRASE's value in the core image at exit")
    }

    /// Mid-run (a decrypt reading a pipe that stays open, after its first record): at most the
    /// one buffer in use holds each secret; the environment block's copy is gone.
    @Test
    func secretsFromTheEnvironmentHaveOneCopyMidRun() throws {
        let dir = TemporaryFolder()
        let passphrase = "core-env-vault-passphrase-\(UInt64.random(in: 0...UInt64.max))"
        let stored = "core-stored-password-\(UInt64.random(in: 0...UInt64.max))"
        let password = "core-env-password-\(UInt64.random(in: 0...UInt64.max))"
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase])
        let added = try RWSecretProcess.run(["--store", "file", "password", "add", "p"], stdin: Data((stored + "\n").utf8), environment: environment)
        try #require(added.status == 0, "\(added.stderr)")
        _ = dir.file("line", Messages.password(plaintext, password) + "\n")
        _ = dir.file("needles", passphrase + "\n" + password + "\n")
        let script = """
            set -u
            rm -f "$DIR/in" "$DIR"/core.*; mkfifo "$DIR/in"
            "$RWSECRET" --store file decrypt < "$DIR/in" > "$DIR/out" 2> "$DIR/err" &
            pid=$!
            exec 3> "$DIR/in"
            cat "$DIR/line" >&3
            # A bound on a hang, not on speed: the record comes well under a second after its line.
            for i in $(seq 1 1200); do [ -s "$DIR/out" ] && break; sleep 0.05; done
            [ -s "$DIR/out" ] || { kill -9 $pid; echo "no record: $(cat "$DIR/err")"; exit 1; }
            gcore -o "$DIR/core" $pid > "$DIR/gcore.log" 2>&1 || { kill -9 $pid; cat "$DIR/gcore.log"; exit 1; }
            exec 3>&-
            wait $pid
            echo "status $?"
            core=$(ls "$DIR"/core.* | head -n 1)
            echo "passphrase $(grep -a -o -F -e "$(sed -n 1p "$DIR/needles")" "$core" | wc -l)"
            echo "password $(grep -a -o -F -e "$(sed -n 2p "$DIR/needles")" "$core" | wc -l)"
            rm -f "$core"
            """
        var scriptEnvironment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase, "RWSECRET_PASSWORD": password])
        scriptEnvironment["DIR"] = dir.path
        scriptEnvironment["RWSECRET"] = RWSecretProcess.executable.path
        let run = try RWSecretProcess.run(["-c", script], environment: scriptEnvironment, mergingStandardError: true,
                                          executable: URL(fileURLWithPath: "/bin/bash"))
        func value(_ name: String) -> Int? {
            run.outLines.first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        let out = (try? String(contentsOfFile: dir.path + "/out", encoding: .utf8)) ?? ""
        #expect(value("status") == 0, "\(run.out)")
        #expect(out.contains(plaintext), "\(out)")
        #expect((value("passphrase") ?? 99) <= 1, "\(run.out): copies of RWSECRET_VAULT_PASSPHRASE's value mid-run")
        #expect((value("password") ?? 99) <= 1, "\(run.out): copies of RWSECRET_PASSWORD's value mid-run")
    }

    /// Issue 34: a stored OpenPGP secret key (cv25519, the vault's) that opens a gpg -e message:
    /// its secret scalar is not left in the core image at exit (searched for by 16 of its bytes
    /// with no line feed or NUL, as grep -F takes them).
    @Test(arguments: [false, true])
    func aStoredOpenPGPKeyIsNotLeftBehind(binary: Bool) throws {
        let dir = TemporaryFolder()
        let extra = ["RWSECRET_VAULT_PASSPHRASE": "a vault passphrase for the core test"]
        let environment = RWSecretProcess.environment(home: dir.url, extra: extra)
        let gnupg = PrivateGnuPG(in: dir)
        func gpgRun(_ args: [String], stdin: Data = Data()) throws -> RWSecretProcess.Result { try gnupg.run(args, stdin: stdin) }
        defer { gnupg.stopAgent() }
        // A fresh key until its scalar has such a window: a random scalar has none about once in a
        // hundred keys (a NUL or line feed in every 16 of its bytes), and the search needs one.
        var chosen: (uid: String, keyFile: String, window: [UInt8])?
        for attempt in 0..<4 where chosen == nil {
            let uid = "core\(attempt)@example.org"
            try #require(try gpgRun(["--quick-gen-key", "Core <\(uid)>", "future-default", "default", "never"]).status == 0)
            let keyFile = dir.path + "/key\(attempt).gpg"
            try #require(try gpgRun(["-o", keyFile, "--export-secret-keys", uid]).status == 0)
            chmod(keyFile, 0o600)
            let scalar = try Self.cv25519Scalar(Array(try Data(contentsOf: URL(fileURLWithPath: keyFile))))
            if let window = (0...16).map({ Array(scalar[$0..<($0 + 16)]) }).first(where: { !$0.contains(0x0a) && !$0.contains(0) }) {
                chosen = (uid, keyFile, window)
            }
        }
        let (uid, keyFile, window) = try #require(chosen, "four keys in a row with a NUL or line feed in every 16 bytes of the scalar")
        let imported = try RWSecretProcess.run(["--store", "file", "identity", "import", "core", "--file", keyFile], environment: environment)
        try #require(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.removeItem(atPath: keyFile)
        let plaintext = "core-plaintext-\(UInt64.random(in: 0...UInt64.max))"
        let message = dir.path + "/m.gpg"
        try #require(try gpgRun(["-r", uid, "-o", message, "--encrypt"], stdin: Data(plaintext.utf8)).status == 0)
        let found = try copies(["--store", "file", "decrypt"] + (binary ? ["--binary"] : []) + [message],
                               password: "", plaintext: plaintext, in: dir, environment: extra, passwordBytes: window)
        #expect(found.status == 0)
        #expect(found.out.contains(plaintext), "\(found.out)")
        #expect(found.password == 0, "\(found.password) copies of the stored OpenPGP key's secret in the core image")
    }

    /// The cv25519 subkey's secret of an exported secret key: the 32-byte MPI before the
    /// checksum at the end of the last secret subkey packet (tag 7, unprotected).
    static func cv25519Scalar(_ bytes: [UInt8]) throws -> [UInt8] {
        var i = 0
        var scalar: [UInt8] = []
        while i + 2 < bytes.count {
            var tag = bytes[i] & 0x3f
            var length = Int(bytes[i + 1])
            var header = 2
            if bytes[i] & 0x40 == 0 {
                // Old format: the tag in bits 5-2, a length of 1, 2 or 4 bytes.
                tag = (bytes[i] >> 2) & 0x0f
                let size = [1, 2, 4, 1][Int(bytes[i] & 3)]
                length = bytes[(i + 1)...(i + size)].reduce(0) { $0 << 8 | Int($1) }
                header = 1 + size
            } else if length >= 192 && length < 224 {
                length = (length - 192) << 8 + Int(bytes[i + 2]) + 192
                header = 3
            }
            if tag == 7 && i + header + length <= bytes.count { scalar = Array(bytes[(i + header + length - 34)..<(i + header + length - 2)]) }
            i += header + length
        }
        try #require(scalar.count == 32)
        return scalar
    }
}
