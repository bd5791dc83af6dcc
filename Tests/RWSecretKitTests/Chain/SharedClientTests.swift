import RWSecretKit
import Testing

/// One client shared by the tasks of a task group and handed to an actor (issue 23, item 2):
/// before, neither compiled under Swift 6 (`PasswordClient` was not `Sendable`), and the
/// workaround (`chainHead()!.handle(m)`) lost last-winner-first.
@Suite("A client shared between tasks")
struct SharedClientTests {
    actor Service {
        let client: PasswordClient
        init(client: PasswordClient) { self.client = client }
        func open(_ message: [UInt8]) throws -> String? { try client.decrypt(message).openedBy.passwordName }
    }

    static func firstName(_ client: PasswordClient) throws -> String? {
        (try client.chainHead() as? PasswordHandler)?.password.name
    }

    @Test("messages decrypted from a task group and an actor put the last winner first")
    func lastWinnerFirst() async throws {
        let store = MemoryPasswordStore(["a", "b", "c"].map { StoredPassword(label: $0, secret: SecretBytes(utf8: "pw-" + $0)) })
        let client = PasswordClient(runOnly: []) { store }
        let byC = await RNCryptor.encrypt(Array("for c".utf8), password: SecretBytes(utf8: "pw-c"))
        let names = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<4 { group.addTask { try? client.decrypt(byC).openedBy.passwordName } }
            var names: [String?] = []
            for await name in group { names.append(name) }
            return names
        }
        #expect(names == Array(repeating: "c", count: 4))
        #expect(try Self.firstName(client) == "c")
        let service = Service(client: client)
        let byB = await RNCryptor.encrypt(Array("for b".utf8), password: SecretBytes(utf8: "pw-b"))
        #expect(try await service.open(byB) == "b")
        #expect(try Self.firstName(client) == "b")
        // A message no password opens: one typed error, no Result inside.
        let stranger = await RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(utf8: "nobody"))
        await #expect(throws: DecryptionFailure.noPasswordOpened(tried: 3)) { try await service.open(stranger) }
    }
}
