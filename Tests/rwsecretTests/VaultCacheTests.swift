import Foundation
import RWSecretKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's keyrings as keyctl(1) (Debian package keyutils) sees them, and a second user.
enum KeyringTools {
    static let keyctl = PrivateKeyring.executable("keyctl")
    static let runuser = PrivateKeyring.executable("runuser")

    static let missing = "keyctl is not installed: install the Debian package keyutils (make test does)"

    /// Runs `program ARGS` from the calling thread (so with its session keyring); status and stdout+stderr.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin:/usr/sbin:/sbin"]
        let result = try RWSecretProcess.run(arguments, environment: environment, mergingStandardError: true,
                                             executable: URL(fileURLWithPath: program))
        return (result.status, result.out)
    }

    /// `keyctl ARGS` from the calling thread.
    static func keyctl(_ arguments: [String]) throws -> (status: Int32, out: String) {
        try run(keyctl ?? "/usr/bin/keyctl", arguments)
    }

    /// The session keyring's description as a child of the calling thread sees it
    /// (`keyring;UID;GID;PERM;NAME`): `_uid_ses.UID` when it has none of its own.
    static func sessionKeyringName() throws -> String {
        let described = try keyctl(["rdescribe", "@s"])
        return described.out.split(separator: ";").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    /// Whether the children of this process's test threads have no session keyring of their
    /// own, as under cron or CI (no test joins one on a shared thread: see `SessionThread`);
    /// a test process started from a login session has one, and cannot lose it.
    static let noSessionKeyringHere: Bool = {
        guard keyctl != nil else { return false }
        return (try? sessionKeyringName()) == "_uid_ses.\(geteuid())"
    }()

    /// A second user for the tests, created as root when missing (useradd); nil when it cannot be.
    static let otherUser: String? = {
        guard geteuid() == 0, runuser != nil, let useradd = PrivateKeyring.executable("useradd") else { return nil }
        let name = "rwsecret-other"
        if getpwnam(name) != nil { return name }
        // Another test process may hold /etc/passwd's lock for a moment: a few tries.
        for _ in 0..<5 {
            _ = try? run(useradd, ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
            if getpwnam(name) != nil { return name }
            usleep(200_000)
        }
        return nil
    }()
}

/// `vault unlock` where a process has no session keyring of its own (cron, a tmux started
/// from a non-login shell, CI), and who can read what it keeps (issue 21 items 6 and 7,
/// issue 27 item 1).
@Suite(.enabled(if: SessionKeyringProbe.refusal == nil, Comment(rawValue: SessionKeyringProbe.refusal ?? "")),
       .enabled(if: KeyringTools.keyctl != nil, Comment(rawValue: KeyringTools.missing)))
struct VaultCacheTests {
    let home = TemporaryFolder()
    let passphrase = "vault passphrase \(UInt32.random(in: 0...UInt32.max))"

    var vaultPath: String { home.url.appendingPathComponent("data/rwsecret/vault").path }
    var keyDescription: String { "rwsecret:vault:" + vaultPath }

    func env(_ extra: [String: String?] = [:]) -> [String: String] {
        var environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_VAULT_PASSPHRASE": passphrase])
        for (name, value) in extra { environment[name] = value }
        return environment
    }

    let noPassphrase: [String: String?] = ["RWSECRET_VAULT_PASSPHRASE": nil]

    /// `rwsecret ARGS` from `session`'s thread, or from a thread with no session keyring of its own.
    func rwsecret(_ arguments: [String], stdin: String = "", env extra: [String: String?] = [:],
                  in session: SessionThread?) throws -> RWSecretProcess.Result {
        let environment = env(extra)
        let run = { try RWSecretProcess.run(arguments, stdin: Data(stdin.utf8), environment: environment) }
        return try session.map { try $0.run(run) } ?? run()
    }

    func keyctl(_ arguments: [String], in session: SessionThread?) throws -> (status: Int32, out: String) {
        try session.map { try $0.run { try KeyringTools.keyctl(arguments) } } ?? KeyringTools.keyctl(arguments)
    }

    /// Unlocks in `session` (nil: none of its own); then a second process, started the same
    /// way, finds the passphrase: `status` says until when and `password list` needs no passphrase.
    func unlockThenAnotherProcessFindsIt(in session: SessionThread?) throws -> String {
        #expect(try rwsecret(["password", "add", "work"], stdin: "first secret", in: session).status == 0)
        let unlock = try rwsecret(["vault", "unlock", "--for", "10m"], in: session)
        #expect(unlock.status == 0, "\(unlock.stderr)")
        #expect(!unlock.stderr.contains(passphrase))
        let status = try rwsecret(["status"], env: noPassphrase, in: session)
        #expect(status.outLines.last?.hasPrefix("passphrase cached: until 20") == true, "\(status.outLines); unlock said: \(unlock.stderr)")
        let list = try rwsecret(["password", "list"], env: noPassphrase, in: session)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.outLines == ["work"])
        return unlock.stderr
    }

    func lockForgetsIt(in session: SessionThread?) throws {
        let lock = try rwsecret(["vault", "lock"], in: session)
        #expect(lock.stderr.contains("was forgotten"), "\(lock.stderr)")
        #expect(try rwsecret(["status"], env: noPassphrase, in: session).outLines.last == "passphrase cached: no")
        #expect(try rwsecret(["password", "list"], env: noPassphrase, in: session).status == 69)
    }

    @Test(.enabled(if: KeyringTools.noSessionKeyringHere,
                   "this test process runs in a login session keyring, which its children cannot leave (run it from cron, CI or `setsid` under init)"))
    func withoutASessionKeyringUnlockKeepsItInTheUserKeyringAndSaysSo() throws {
        // The children really have none of their own (a thread that joined one would leak it into later tests).
        try #require(try KeyringTools.sessionKeyringName() == "_uid_ses.\(geteuid())")
        let said = try unlockThenAnotherProcessFindsIt(in: nil)
        #expect(said.contains("no login session keyring") && said.contains("kept in the user keyring until"), "\(said)")
        #expect(try keyctl(["search", "@u", "user", keyDescription], in: nil).status == 0, "the key is in @u")
        try lockForgetsIt(in: nil)
        #expect(try keyctl(["search", "@u", "user", keyDescription], in: nil).status != 0, "the key is gone from @u")
    }

    @Test func afterTheSessionKeyringWasRevokedUnlockKeepsItInTheUserKeyring() throws {
        // pam_keyinit's `revoke` at logout leaves the session's tmux with a revoked session keyring.
        let session = SessionThread()
        let revoked = try keyctl(["revoke", "@s"], in: session)
        try #require(revoked.status == 0, "\(revoked.out)")
        let said = try unlockThenAnotherProcessFindsIt(in: session)
        #expect(said.contains("kept in the user keyring until"), "\(said)")
        try lockForgetsIt(in: session)
    }

    @Test func inALoginSessionUnlockKeepsItInTheSessionKeyring() throws {
        let session = SessionThread()
        let said = try unlockThenAnotherProcessFindsIt(in: session)
        #expect(said.contains("kept in the session keyring until"), "\(said)")
        #expect(try keyctl(["search", "@s", "user", keyDescription], in: session).status == 0)
        // Not in the user keyring: other sessions of the user do not find it.
        #expect(try keyctl(["search", "@u", "user", keyDescription], in: session).status != 0)
        try lockForgetsIt(in: session)
    }

    @Test(.enabled(if: KeyringTools.otherUser != nil, "needs root, runuser and useradd to make a second user"),
          arguments: [true, false])
    func anotherUserCannotReadTheKeptPassphrase(inALoginSession: Bool) throws {
        let other = try #require(KeyringTools.otherUser)
        if !inALoginSession {
            try #require(KeyringTools.noSessionKeyringHere, "this test process runs in a login session keyring")
        }
        let session = inALoginSession ? SessionThread() : nil
        _ = try unlockThenAnotherProcessFindsIt(in: session)
        defer { _ = try? rwsecret(["vault", "lock"], in: session) }
        // Found from here (the session, or the user keyring linked from `_uid_ses`).
        let search = try keyctl(["search", inALoginSession ? "@s" : "@u", "user", keyDescription], in: session)
        try #require(search.status == 0, "\(search.out)")
        let id = search.out.trimmingCharacters(in: .whitespacesAndNewlines)
        // Its owner reads it: the test can tell a read from a refusal.
        let own = try keyctl(["pipe", id], in: session)
        #expect(own.status == 0 && own.out.contains(passphrase), "the owner cannot read key \(id): \(own.out)")
        // Every right is its owner UID's; none for possessors, group or others.
        let described = try keyctl(["rdescribe", id], in: session)
        #expect(described.out.split(separator: ";").dropFirst(3).first == "003f0000", "\(described.out)")
        // Another user who inherits this session (runuser as root does, setsid or not) cannot read or find it.
        let runuser = try #require(KeyringTools.runuser)
        let keyctlPath = try #require(KeyringTools.keyctl)
        for attempt in [[keyctlPath, "pipe", id], ["/usr/bin/setsid", keyctlPath, "pipe", id],
                        [keyctlPath, "print", id], [keyctlPath, "request", "user", keyDescription]] {
            let command = { try KeyringTools.run(runuser, ["-u", other, "--"] + attempt) }
            let read = try session.map { try $0.run(command) } ?? command()
            #expect(read.status != 0, "user \(other) ran \(attempt.joined(separator: " ")): \(read.out)")
            #expect(!read.out.contains(passphrase), "user \(other) read the passphrase")
        }
    }
}
