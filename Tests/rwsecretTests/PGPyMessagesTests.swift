import Foundation
import Testing

/// Issue 34's "checked by" names PGPy among the peers: Fixtures/kinds/openpgp-pgpy holds a
/// key PGPy 0.6 made (RSA 2048; Ed25519 with a cv25519 subkey; P-256 with ECDH) and messages
/// PGPy encrypted to each, plain and signed (its make.py).
@Suite("decrypt: PGPy's messages to its own keys")
struct PGPyMessagesTests {
    let dir = TemporaryFolder()

    static let folder = KindCommandTests.kinds.appendingPathComponent("openpgp-pgpy")

    @Test("each PGPy message opens with --identity KEY; a signed one says signed by its fingerprint, verified",
          arguments: ["rsa", "cv25519", "p256"])
    func opens(_ name: String) throws {
        // A secret key file others can read gets a warning: a private copy.
        let key = dir.file("\(name).key.asc", bytes: Array(try Data(contentsOf: Self.folder.appendingPathComponent("pgpy-\(name).key.asc"))))
        chmod(key, 0o600)
        for message in ["pgpy-\(name).asc", "pgpy-\(name)-signed.asc"] {
            let path = Self.folder.appendingPathComponent(message).path
            let result = try RWSecretProcess.run(["decrypt", "--no-store", "--verbose", "--identity", key, path],
                                                 environment: RWSecretProcess.environment(home: dir.url))
            #expect(result.status == 0, "\(message): \(result.stderr)")
            #expect(result.out == "a secret from PGPy\n", "\(message)")
            let opened = result.errLines.first { $0.contains("openpgp, opened by identity") } ?? "(none in \(result.errLines))"
            #expect(opened.hasSuffix(", verified") == message.hasSuffix("-signed.asc"), "\(message): \(opened)")
        }
        // Without the key: one line naming the key the message is for, nothing released.
        let none = try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", dir.file("pw", "not it\n"),
                                            Self.folder.appendingPathComponent("pgpy-\(name).asc").path],
                                           environment: RWSecretProcess.environment(home: dir.url))
        #expect(none.status == 1 && none.out.isEmpty, "\(none.stderr)")
    }
}
