import Foundation
import Testing

/// One record of an RNCryptor-Spec vector file: `name: value` lines.
struct TestVector: CustomTestStringConvertible, Sendable {
    let file: String
    let fields: [String: String]

    var title: String { fields["title"] ?? "?" }
    var testDescription: String { "\(file): \(title)" }

    func string(_ key: String) -> String {
        guard let value = fields[key] else { fatalError("vector '\(title)' in \(file) has no \(key)") }
        return value
    }

    func hex(_ key: String) -> [UInt8] { Hex.decode(string(key)) }
    func int(_ key: String) -> Int { Int(string(key))! }
}

/// Reads the official vectors; does exactly enough for their format.
enum TestVectors {
    /// `../shared/rncryptor-spec-vectors`, found by walking up from this file.
    static let directory: URL? = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("shared/rncryptor-spec-vectors")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("v3/password").path) {
                return candidate
            }
            dir.deleteLastPathComponent()
        }
        return nil
    }()

    static var missingReason: String {
        "the official RNCryptor vectors were not found (expected ../shared/rncryptor-spec-vectors beside the project)"
    }

    /// Every record of `name` (e.g. "v3/password"); empty when the folder is absent.
    static func load(_ name: String) -> [TestVector] {
        guard let directory else { return [] }
        let text = (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return parse(text, file: name)
    }

    static func parse(_ text: String, file: String) -> [TestVector] {
        var records: [TestVector] = []
        var fields: [String: String] = [:]
        func flush() {
            if !fields.isEmpty { records.append(TestVector(file: file, fields: fields)) }
            fields = [:]
        }
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { flush(); continue }
            if line.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[key] = value
        }
        flush()
        return records
    }
}

enum Hex {
    static func decode(_ string: String) -> [UInt8] {
        let digits = string.filter { !$0.isWhitespace }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
