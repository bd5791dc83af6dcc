@testable import RWSecretCore
import Foundation
@testable import RWSecretKit
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Temporaries left by older versions (`.vault.XXXXXX`) or by a kill in the instant between
/// naming and renaming (`.vault.rwsecret-…`) are removed under the lock at the next write;
/// nothing else in the folder is touched.
struct VaultFileSweepTests {
    let folder = TemporaryFolder()

    @Test func staleTemporariesAreSweptAtTheNextWrite() throws {
        let path = folder.path + "/vault"
        let vault = VaultPasswordStore(path: path) { _ throws(StoreError) in SecretBytes(utf8: "correct horse battery") }
        try vault.add(SecretBytes(utf8: "first"), label: "a")
        let stale = [".vault.Ab3dEf", ".vault.rwsecret-0123456789ab"]
        for name in stale { #expect(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data("old copy".utf8))) }
        // Not ours to remove: other names, and a link with a stale-looking name.
        let kept = ["notes.txt", ".vault.toolong-name", "vault.bak"]
        for name in kept { #expect(FileManager.default.createFile(atPath: folder.path + "/" + name, contents: Data())) }
        #expect(symlink("notes.txt", folder.path + "/.vault.Zz9yY8") == 0)

        try vault.add(SecretBytes(utf8: "second"), label: "b")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == (kept + [".vault.Zz9yY8", "vault", "vault.lock"]).sorted())
    }
}

extension VaultFileSweepTests {
    /// The named fallback for file systems without `O_TMPFILE`: same result, nothing left behind.
    @Test(arguments: [true, false])
    func replacingWritesTheBytesAtMode0600AndLeavesNothingElse(unnamed: Bool) throws {
        let path = folder.path + "/sub/vault"
        try VaultFile.replace(path, with: Array("first version".utf8), unnamed: unnamed)
        try VaultFile.replace(path, with: Array("second version".utf8), unnamed: unnamed)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second version")
        #expect(TemporaryFolder.mode(path) == 0o600)
        #expect(TemporaryFolder.mode(folder.path + "/sub") == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/sub") == ["vault"])
    }
}
