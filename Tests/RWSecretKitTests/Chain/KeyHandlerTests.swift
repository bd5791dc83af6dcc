import Glibc
import Testing
import RWSecretKit
import SystemPackage

/// The key is a handler of the same chain: key-based and password-based messages go
/// through one client call, in one-shot and in streaming decryption. (Before: the tool
/// decrypted key-based messages beside the chain, under a fake `ChainPassword.keyFile`,
/// and the stream took the key as a separate argument; none of this compiled.)
@Suite("Key handler in the chain")
struct KeyHandlerTests {
    let keys = try! MessageKeys(encryptionKey: SecretBytes(Array(repeating: 1, count: 32)), hmacKey: SecretBytes(Array(repeating: 2, count: 32)))
    let otherKeys = try! MessageKeys(encryptionKey: SecretBytes(Array(repeating: 3, count: 32)), hmacKey: SecretBytes(Array(repeating: 4, count: 32)))

    /// A client whose store records whether it was opened.
    final class Opened: @unchecked Sendable { var count = 0 }

    func client(keys: MessageKeys?, passwords: [String] = ["alpha"], opened: Opened = Opened()) -> PasswordClient {
        let store = MemoryPasswordStore(passwords.enumerated().map { StoredPassword(label: "p\($0.offset)", secret: SecretBytes(utf8: $0.element)) })
        return PasswordClient(runOnly: [], keys: keys) { opened.count += 1; return store }
    }

    @Test("one client call opens a key-based and a password-based message; the key-based one never opens the store")
    func oneCallForBoth() throws {
        let opened = Opened()
        let client = client(keys: keys, opened: opened)
        let keyed = try Message(RNCryptor.encrypt(Array("by key".utf8), keys: keys))
        let result = try client.decrypt(keyed).get()
        #expect(result.plaintext == Array("by key".utf8))
        guard case .key = result.openedBy else { Issue.record("opened by \(result.openedBy)"); return }
        #expect(opened.count == 0, "a key-based message opened the store")
        let passworded = try Message(RNCryptor.encrypt(Array("by password".utf8), password: SecretBytes(utf8: "alpha")))
        #expect(try client.decrypt(passworded).get().openedBy.passwordName == "p0")
        #expect(opened.count == 1)
    }

    @Test("the end of the chain: a key-based message with no key needs one; a wrong key did not open it")
    func keyFailures() throws {
        let keyed = try Message(RNCryptor.encrypt(Array("x".utf8), keys: keys))
        #expect(try client(keys: nil).decrypt(keyed).failure == .needsKey)
        #expect(try client(keys: otherKeys).decrypt(keyed).failure == .keyDidNotOpen)
        // A key does not open password-based messages: they go on down the chain.
        let passworded = try Message(RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(utf8: "nobody")))
        #expect(try client(keys: keys).decrypt(passworded).failure == .noPasswordOpened(tried: 1))
    }

    @Test("the handlers are one protocol: the chain is the key, then each password")
    func chainShape() throws {
        let head = try #require(try client(keys: keys, passwords: ["a", "b"]).chainHead())
        #expect(head is KeyHandler)
        #expect(head.next is PasswordHandler)
        #expect(head.chainPasswords().map(\.name) == ["p0", "p1"])
    }

    @Test("streaming: the client's chain opens a key-based and a password-based message", arguments: [true, false])
    func streaming(keyBased: Bool) throws {
        let plaintext = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let message = keyBased ? RNCryptor.encrypt(plaintext, keys: keys) : RNCryptor.encrypt(plaintext, password: SecretBytes(utf8: "alpha"))
        let folder = TemporaryFolder()
        let input = "\(folder.path)/in", output = "\(folder.path)/out"
        let fd = open(input, O_WRONLY | O_CREAT, 0o600)
        _ = message.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let reading = open(input, O_RDONLY)
        defer { close(reading) }
        let opened = Opened()
        let result = try VerifiedStream().decrypt(input: reading, client: client(keys: keys, opened: opened), to: .file(FilePath(output)))
        #expect(result.openedBy.passwordName == (keyBased ? nil : "p0"))
        #expect(opened.count == (keyBased ? 0 : 1))
        let check = open(output, O_RDONLY)
        defer { close(check) }
        var back = [UInt8](repeating: 0, count: plaintext.count + 16)
        let n = back.withUnsafeMutableBytes { read(check, $0.baseAddress, $0.count) }
        #expect(Array(back[0..<max(0, n)]) == plaintext)
    }
}
