import Glibc
import RWSecretKit
import SystemPackage
import Testing

/// Issue 33 item 4: the reader of message rows the decrypt command reads text inputs with, through
/// the library's public API alone (`MessageRows`, `LineReader`, `NotAMessage`): rows of a file
/// descriptor as messages, skipped rows and failures with their hints, wrapped base64 joined,
/// and the look at an input's first bytes (a raw message, binary data, another kind).
@Suite("MessageRows: the rows of a text input, through the public API")
struct MessageRowsTests {
    /// The rows of `text`, read from a pipe.
    static func rows(_ text: String, idColumn: Bool = false, joinsWrapped: Bool = true) throws -> [MessageRows.Row] {
        try reading(Array(text.utf8), idColumn: idColumn, joinsWrapped: joinsWrapped) { rows in
            var all: [MessageRows.Row] = []
            while let row = try rows.next() { all.append(row) }
            return all
        }
    }

    /// `body` over the rows of `bytes` (up to 60,000), read from a pipe's reading end that is
    /// closed after: what a consumer holding a descriptor writes.
    static func reading<T>(_ bytes: [UInt8], idColumn: Bool = false, joinsWrapped: Bool = true,
                           _ body: (inout MessageRows) throws -> T) throws -> T {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        try #require(bytes.count < 60_000)
        let written = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        close(fds[1])
        let descriptor = FileDescriptor(rawValue: fds[0])
        defer { try? descriptor.close() }
        try #require(written == bytes.count)
        var rows = try MessageRows(descriptor, idColumn: idColumn, joinsWrapped: joinsWrapped)
        return try body(&rows)
    }

    static func kind(_ bytes: [UInt8]) throws -> MessageRows.InputKind { try reading(bytes) { $0.kind } }

    static let message = RNCryptor.Base64.encode(RNCryptor.encrypt(Array("a secret".utf8), password: SecretBytes(utf8: "pw")))

    @Test("a message, a blank and a comment row, an ID row, and failures that say why, as the tool words them")
    func rowsAndFailures() throws {
        let rows = try Self.rows("\(Self.message)\n\n# note\nnot base64 at all!\nU2FsdGVkX1+AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n")
        try #require(rows.count == 5)
        #expect(rows.map(\.line) == [1, 2, 3, 4, 5])
        guard case .message(let message) = rows[0].content else { Issue.record("row 1: \(rows[0].content)"); return }
        #expect(message.bytes == RNCryptor.Base64.decodeLenient(Array(Self.message.utf8)))
        #expect(message.version == 3 && message.isPasswordBased)
        #expect(try RNCryptor.decrypt(message.bytes, password: SecretBytes(utf8: "pw")) == Array("a secret".utf8))
        guard case .skipped = rows[1].content, case .skipped = rows[2].content else { Issue.record("rows 2 and 3 not skipped"); return }
        guard case .failure(let prose, let none) = rows[3].content else { Issue.record("row 4: \(rows[3].content)"); return }
        #expect(prose.code == .message && prose.decryptionFailure?.code == .badBase64 && none == nil)
        #expect(rows[3].notBase64)
        guard case .failure(let salted, let hint) = rows[4].content else { Issue.record("row 5: \(rows[4].content)"); return }
        #expect(hint == .openSSL)
        #expect(salted.decryptionFailure?.code == .format)
        #expect(!rows[4].notBase64)

        let ids = try Self.rows("one\t\(Self.message)\nno tab here\n", idColumn: true)
        #expect(ids[0].id == Array("one".utf8))
        guard case .failure(let missing, _) = ids[1].content else { Issue.record("no missing-ID failure"); return }
        #expect(missing.code == .missingID)
        #expect(missing.description == "no ID (expected ID<TAB>MESSAGE)")
    }

    @Test("wrapped base64 is joined into one message at its first row, its later rows continuations; not under joinsWrapped false")
    func wrappedRows() throws {
        let text = stride(from: 0, to: Self.message.count, by: 64).map { start -> String in
            let from = Self.message.index(Self.message.startIndex, offsetBy: start)
            return String(Self.message[from..<Self.message.index(from, offsetBy: min(64, Self.message.count - start))])
        }
        try #require(text.count >= 2)
        let rows = try Self.rows(text.joined(separator: "\n") + "\n")
        #expect(rows.count == text.count)
        guard case .message = rows[0].content else { Issue.record("not joined: \(rows[0].content)"); return }
        for row in rows.dropFirst() {
            guard case .continuation(of: 1) = row.content else { Issue.record("line \(row.line): \(row.content)"); return }
        }
        let alone = try Self.rows(text.joined(separator: "\n") + "\n", joinsWrapped: false)
        guard case .failure = alone[0].content else { Issue.record("joined under joinsWrapped false"); return }
    }

    @Test("the first bytes: text, a raw message, another format's raw message, binary data; another kind's prefix")
    func inputKinds() throws {
        #expect(try Self.kind(Array("\(Self.message)\n".utf8)) == .text)
        let raw = RNCryptor.encrypt(Array("x".utf8), password: SecretBytes(utf8: "pw"))
        #expect(try Self.kind(raw) == .rawMessage)
        #expect(try Self.kind(Array("Salted__12345678abcdefgh".utf8)) == .rawForeign(.openSSL))
        #expect(try Self.kind([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0]) == .binary)  // an ELF header
        #expect(MessageRows.kind(of: Array("hello\n".utf8)[...]) == .text)

        let armored = "\n-----BEGIN AGE ENCRYPTED FILE-----\nYWdl\n-----END AGE ENCRYPTED FILE-----\n"
        #expect(try Self.reading(Array(armored.utf8)) { try $0.otherKindPrefix() } == Array(armored.utf8))
        #expect(try Self.reading(Array("key: value\nother: 1\n".utf8)) { try $0.otherKindPrefix() } != nil)
        // Rows of messages are no other kind; the bytes looked at are read again by next().
        let rows = try Self.reading(Array("\(Self.message)\n".utf8)) { rows -> (MessageRows.Row?, [UInt8]?) in
            let prefix = try rows.otherKindPrefix()
            return (try rows.next(), prefix)
        }
        #expect(rows.1 == nil)
        guard case .message = rows.0?.content else { Issue.record("row after the look: \(String(describing: rows.0))"); return }
        #expect(NotAMessage.plainText.description == "not a secret message (plain text)")
        #expect(NotAMessage.yamlWithoutVault.description == "a YAML file with no `!vault` value")
    }

    @Test("a line over the limit is one failure with its hint, its bytes not held; a read closure is a source")
    func lineTooLong() throws {
        var reads = 0
        // 4 × 64 KiB of base64 characters and no LF, from a closure: over a 100-byte limit.
        var rows = try MessageRows(LineReader(maximumLength: 100) { buffer in
            reads += 1
            if reads > 4 { return 0 }
            buffer.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "A"))
            return buffer.count
        })
        let row = try #require(try rows.next())
        guard case .failure(let failure, let hint) = row.content else { Issue.record("\(row.content)"); return }
        #expect(failure.code == .lineTooLong && failure.description == "line too long" && hint == .lineTooLong)
        #expect(try rows.next() == nil)
    }
}
