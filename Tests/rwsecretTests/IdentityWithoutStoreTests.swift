import Foundation
import Testing
import RWSecretKit
#if canImport(Glibc)
import Glibc
#endif

/// Issue 35 item 4: `--identity FILE` needs no store. The store is opened only when what the run
/// was given (run-only passwords, `--identity` files) did not open a message: a locked vault
/// with no terminal to ask its passphrase on is no reason to fail a file that the key alone opens.
@Suite("decrypt --identity: the store only when the run's own credentials did not open it")
struct IdentityWithoutStoreTests {
    let dir = TemporaryFolder()
    static let passphrase = "a vault passphrase long enough"

    /// rwsecret with the vault store; its passphrase in the environment only when `unlocked`.
    func run(_ args: [String], unlocked: Bool) throws -> RWSecretProcess.Result {
        let extra = unlocked ? ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase] : [:]
        return try RWSecretProcess.run(args, environment: RWSecretProcess.environment(home: dir.url, extra: extra), directory: dir.url)
    }

    /// A locked vault holding one password, a key file and an age file to its recipient;
    /// another key file that does not open it.
    func setUp() throws -> (key: String, other: String, message: String) {
        let added = try RWSecretProcess.run(["--store", "file", "password", "add", "p"], stdin: Data("a stored password\n".utf8),
                                            environment: RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase]),
                                            directory: dir.url)
        try #require(added.status == 0, "\(added.stderr)")
        let key = dir.path + "/key.txt"
        let other = dir.path + "/other.txt"
        for path in [key, other] {
            let made = try RWSecretProcess.run(["-o", path], environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                               executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
            try #require(made.status == 0, "age-keygen (Debian age): \(made.stderr)")
        }
        let recipient = try RWSecretProcess.run(["-y", key], environment: RWSecretProcess.environment(home: dir.url), directory: dir.url,
                                                executable: URL(fileURLWithPath: "/usr/bin/age-keygen")).out.trimmingCharacters(in: .newlines)
        let sealed = try RWSecretProcess.run(["encrypt", "--to", recipient, "-o", dir.path + "/f.age"],
                                             stdin: Data("the key alone opens it\n".utf8),
                                             environment: RWSecretProcess.environment(home: dir.url), directory: dir.url)
        try #require(sealed.status == 0, "\(sealed.stderr)")
        return (key, other, dir.path + "/f.age")
    }

    @Test("a locked vault, no terminal: decrypt --identity KEY opens the age file (was 69), in line mode and with --binary")
    func keyAloneOpens() throws {
        let (key, _, message) = try setUp()
        for binary in [false, true] {
            let result = try run(["--store", "file", "decrypt", "--identity", key] + (binary ? ["--binary"] : []) + [message], unlocked: false)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.out == "the key alone opens it\n", "\(result.out)")
            #expect(!result.stderr.contains("passphrase"), "the vault was asked for: \(result.stderr)")
        }
    }

    @Test("a key that does not open it: the store is opened then; locked, its failure (69) names --no-store")
    func storeWhenTheKeyDoesNot() throws {
        let (_, other, message) = try setUp()
        let locked = try run(["--store", "file", "decrypt", "--identity", other, message], unlocked: false)
        #expect(locked.status == 69, "\(locked.stderr)")
        #expect(locked.stderr.contains("needs its passphrase") && locked.stderr.contains("--no-store"), "\(locked.stderr)")
        let noStore = try run(["decrypt", "--no-store", "--identity", other, message], unlocked: false)
        #expect(noStore.status == 1, "\(noStore.stderr)")
        // Unlocked: the store's password and identities are tried after the key (1 + 1 identities, 1 password).
        let unlocked = try run(["--store", "file", "decrypt", "--identity", other, message], unlocked: true)
        #expect(unlocked.status == 1, "\(unlocked.stderr)")
        #expect(unlocked.stderr.contains("recipients: none of the 1 identities opens it") || unlocked.stderr.contains("identities opens it"), "\(unlocked.stderr)")
    }

    @Test("a stored identity still opens what the run's key does not")
    func storedIdentityAfterTheRunsKey() throws {
        let (_, other, _) = try setUp()
        let environment = RWSecretProcess.environment(home: dir.url, extra: ["RWSECRET_VAULT_PASSPHRASE": Self.passphrase])
        let made = try RWSecretProcess.run(["--store", "file", "identity", "new", "me"], environment: environment, directory: dir.url)
        try #require(made.status == 0, "\(made.stderr)")
        let sealed = try RWSecretProcess.run(["--store", "file", "encrypt", "--to-self", "-o", dir.path + "/self.age"], stdin: Data("to me\n".utf8),
                                             environment: environment, directory: dir.url)
        try #require(sealed.status == 0, "\(sealed.stderr)")
        let result = try run(["--store", "file", "decrypt", "--verbose", "--identity", other, dir.path + "/self.age"], unlocked: true)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.out == "to me\n")
        #expect(result.stderr.contains("opened by identity me (tried 2)"), "\(result.stderr)")
    }
}
