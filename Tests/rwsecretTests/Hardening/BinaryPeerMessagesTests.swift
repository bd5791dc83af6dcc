import Foundation
import Testing
import RWSecretKit

/// `--binary` opens every message the peer implementations made (Fixtures/peers):
/// the verified stream uses the same password forms, iteration counts and v0
/// engine as the line mode.
@Suite("binary mode opens every peer message")
struct BinaryPeerMessagesTests {
    struct Record {
        let peer: String, version: String, mode: String, iterations: String
        let candidate: [UInt8], plaintext: [UInt8], message: [UInt8]
    }

    static func records() throws -> [Record] {
        var folder = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Fixtures/peers/messages.tsv").path) { folder.deleteLastPathComponent() }
        let text = try String(contentsOf: folder.appendingPathComponent("Fixtures/peers/messages.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Record(peer: f[0], version: f[1], mode: f[2], iterations: f[3], candidate: hex(f[5]), plaintext: hex(f[6]),
                          message: Base64.decodeLenient(Array(f[7].utf8)) ?? [])
        }
    }

    static func hex(_ text: String) -> [UInt8] { Hex.decode(text) }

    @Test("every peer record through decrypt --binary, with the candidate as a password file line or a key file")
    func everyRecord() throws {
        let dir = TemporaryFolder()
        let records = try Self.records()
        #expect(records.count > 150)
        for (index, record) in records.enumerated() {
            let message = dir.file("m\(index).bin", bytes: record.message)
            var arguments = ["decrypt", "--no-store", "--binary", message, "--iterations", record.iterations]
            if record.version < "2" { arguments.append("--allow-legacy") }  // v0 and v1: ciphertext-only authentication
            if record.mode == "key" {
                arguments += ["--key-file", dir.file("k\(index)", bytes: record.candidate)]
            } else {
                arguments += ["--password-file", dir.file("p\(index)", bytes: record.candidate + [0x0A])]
            }
            let result = try RWSecretProcess.run(arguments, environment: RWSecretProcess.environment(home: dir.url))
            #expect(result.status == 0 && result.stdout == Data(record.plaintext),
                    "\(record.peer) v\(record.version) \(record.mode) #\(index): \(result.stderr)")
        }
    }

    @Test("every password record with a wrong password first: several candidates, the spool deciphered in place (-o) or to stdout")
    func everyRecordThroughTheSpool() throws {
        let dir = TemporaryFolder()
        let records = try Self.records().filter { $0.mode != "key" }
        #expect(records.count > 100)
        for (index, record) in records.enumerated() {
            let message = dir.file("m\(index).bin", bytes: record.message)
            let out = dir.url.appendingPathComponent("out\(index).bin").path
            let passwords = dir.file("p\(index)", bytes: Array("wrong-first\n".utf8) + record.candidate + [0x0A])
            var arguments = ["decrypt", "--no-store", "--binary", message, "--iterations", record.iterations, "--password-file", passwords]
            if record.version < "2" { arguments.append("--allow-legacy") }  // v0 and v1: ciphertext-only authentication
            if index % 2 == 0 { arguments += ["-o", out] }
            let result = try RWSecretProcess.run(arguments, environment: RWSecretProcess.environment(home: dir.url))
            let released = index % 2 == 0 ? (FileManager.default.contents(atPath: out) ?? Data()) : result.stdout
            #expect(result.status == 0 && released == Data(record.plaintext),
                    "\(record.peer) v\(record.version) \(record.mode) #\(index): \(result.stderr)")
        }
    }
}
