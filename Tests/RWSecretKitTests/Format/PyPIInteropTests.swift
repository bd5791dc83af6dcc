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
        let plaintext = try RNCryptor.decrypt(bytes, password: SecretBytes(record.password))
        #expect(plaintext == record.plaintext, "\(record.testDescription)")
    }
}
