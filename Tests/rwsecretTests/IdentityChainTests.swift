import Foundation
import Testing
import RWSecretKit
@testable import rwsecret

/// The order in which age files are offered identities (issue 26): the last winner first, then
/// X25519 identities (the store's, then --identity files'), then SSH keys; the store read once.
struct IdentityChainTests {
    @Test("stored X25519 first, then file X25519, then SSH keys; the winner moves to the front; the store is read once")
    func order() throws {
        let dir = TemporaryFolder()
        let key = dir.path + "/id"
        let keygen = try RWSecretProcess.run(["-q", "-t", "ed25519", "-N", "", "-C", "t", "-f", key],
                                             environment: RWSecretProcess.environment(home: dir.url),
                                             executable: URL(fileURLWithPath: "/usr/bin/ssh-keygen"))
        try #require(keygen.status == 0, "ssh-keygen (Debian openssh-client, make deps): \(keygen.stderr)")
        let ssh = try AgeSSHIdentity(openSSH: String(contentsOfFile: key, encoding: .utf8))
        let files = [NamedIdentity(name: key, ssh: ssh), NamedIdentity(name: "key.txt", identity: AgeX25519Identity.generate())]
        nonisolated(unsafe) var reads = 0
        let chain = IdentityChain(files: files) {
            reads += 1
            return [NamedIdentity(name: "a", identity: AgeX25519Identity.generate()), NamedIdentity(name: "b", identity: AgeX25519Identity.generate())]
        }
        #expect(try chain.identities().map(\.name) == ["a", "b", "key.txt", key])
        chain.finished(openedBy: key)
        #expect(try chain.identities().map(\.name) == [key, "a", "b", "key.txt"])
        chain.finished(openedBy: "b")
        #expect(try chain.identities().map(\.name) == ["b", "a", "key.txt", key])
        #expect(reads == 1)
    }
}
