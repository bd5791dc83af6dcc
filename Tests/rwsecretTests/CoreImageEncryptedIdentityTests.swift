import Foundation
import Testing

extension CoreImageTests {
    /// Issue 35: an age identity file encrypted with a passphrase (made here by rwsecret's own
    /// scrypt writer, as `age -p` makes one) and imported with `--passphrase-file`: at exit, the
    /// core image holds neither the identity's secret key text (its last 40 characters) nor the
    /// passphrase.
    @Test
    func anEncryptedIdentityFileLeavesNeitherKeyNorPassphrase() throws {
        let dir = TemporaryFolder()
        let extra = ["RWSECRET_VAULT_PASSPHRASE": "a vault passphrase for the core test"]
        let environment = RWSecretProcess.environment(home: dir.url, extra: extra)
        let keys = try RWSecretProcess.run([], environment: environment, executable: URL(fileURLWithPath: "/usr/bin/age-keygen"))
        try #require(keys.status == 0)
        let secret = try #require(keys.out.split(separator: "\n").first { $0.hasPrefix("AGE-SECRET-KEY-1") })
        let passphrase = "core-passphrase-\(UInt64.random(in: 0...UInt64.max))"
        let passphraseFile = dir.file("passphrase", passphrase + "\n")
        let key = dir.path + "/key.age"
        let sealed = try RWSecretProcess.run(["encrypt", "--format", "age", "--password-file", passphraseFile, "-o", key],
                                             stdin: keys.stdout, environment: environment)
        try #require(sealed.status == 0, "\(sealed.stderr)")
        let found = try copies(["--store", "file", "identity", "import", "inside", "--passphrase-file", passphraseFile, "--file", key],
                               password: String(secret.suffix(40)), plaintext: passphrase, in: dir, environment: extra)
        #expect(found.status == 0)
        #expect(found.out.hasPrefix("age1"), "\(found.out)")
        #expect(found.password == 0, "\(found.password) copies of the identity's secret key in the core image")
        #expect(found.plaintext == 0, "\(found.plaintext) copies of the passphrase in the core image")
    }
}
