import Testing
import RWSecretKit

/// One message written by the PyPI `rncryptor` package (Fixtures/generate_pypi_fixtures.py).
struct PyPIRecord: CustomTestStringConvertible, Sendable {
    let line: Int
    let password: [UInt8]
    let plaintext: [UInt8]
    let message: String

    var testDescription: String {
        "pypi/messages.tsv:\(line) (password \(String(decoding: password, as: UTF8.self).prefix(20)), \(plaintext.count) bytes)"
    }

    static let all: [PyPIRecord] = {
        var records: [PyPIRecord] = []
        for (index, line) in Fixtures.text("pypi/messages.tsv").split(separator: "\n").enumerated() where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            records.append(PyPIRecord(line: index + 1, password: Hex.decode(fields[0]), plaintext: Hex.decode(fields[1]), message: fields[2]))
        }
        return records
    }()
}

@Suite("Interop with PyPI rncryptor")
struct PyPIInteropTests {
    @Test("the fixture file has records")
    func hasRecords() {
        #expect(PyPIRecord.all.count >= 20)
    }

    @Test("every PyPI message decrypts to its plaintext", arguments: PyPIRecord.all)
    func decrypts(_ record: PyPIRecord) throws {
        let bytes = try #require(Base64.decodeLenient(Array(record.message.utf8)), "\(record.testDescription)")
        #expect(Array(bytes.prefix(2)) == [3, 1], "\(record.testDescription): PyPI writes v3 password-based messages")
        let password = SecretBytes(record.password)
        let plaintext = try RNCryptor.decrypt(bytes, password: password)
        #expect(plaintext == record.plaintext, "\(record.testDescription)")
        // The incremental decryptor agrees, fed in 7-byte pieces.
        let decryptor = DecryptorEngine(password: password)
        var incremental: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 7) {
            incremental += try decryptor.update(Array(bytes[start..<min(start + 7, bytes.count)]))
        }
        incremental += try decryptor.finalize()
        #expect(incremental == record.plaintext, "\(record.testDescription): incremental")
    }

    @Test("the records cover what the generator promises")
    func coverage() {
        let passwords = Set(PyPIRecord.all.map { String(decoding: $0.password, as: UTF8.self) })
        #expect(passwords.contains("中文密码"))
        #expect(passwords.contains { $0.count >= 200 })
        let sizes = Set(PyPIRecord.all.map(\.plaintext.count))
        #expect(sizes.isSuperset(of: [0, 15, 16, 17]))
        #expect(sizes.contains { $0 >= 10_000 })
        #expect(PyPIRecord.all.contains { String(validating: $0.plaintext, as: UTF8.self) == nil }, "a plaintext that is not UTF-8")
    }
}
