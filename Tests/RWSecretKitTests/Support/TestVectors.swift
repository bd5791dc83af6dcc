import RWSecretKit
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
    /// `Fixtures/rncryptor-spec-vectors` of this project, found by walking up from this
    /// file to the folder that holds `Package.swift`: the vectors ship with the project,
    /// so a clone tests them with nothing beside it.
    static let directory: URL? = {
        guard let root = projectRoot else { return nil }
        let candidate = root.appendingPathComponent("Fixtures/rncryptor-spec-vectors")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("v3/password").path) ? candidate : nil
    }()

    /// The folder holding `Package.swift`, walking up from this file.
    static let projectRoot: URL? = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        return nil
    }()

    /// `../shared/rncryptor-spec-vectors` beside the project, when there is one: the
    /// copy the shipped files were taken from (a test checks they still agree).
    static let sharedDirectory: URL? = {
        guard let candidate = projectRoot?.deletingLastPathComponent().appendingPathComponent("shared/rncryptor-spec-vectors"),
              FileManager.default.fileExists(atPath: candidate.appendingPathComponent("v3/password").path) else { return nil }
        return candidate
    }()

    /// The vector files, relative to the vectors folder.
    static let files = ["v1/kdf", "v1/password", "v2/kdf", "v2/password", "v3/kdf", "v3/key", "v3/password"]

    static var missingReason: String {
        "the official RNCryptor vectors were not found (expected Fixtures/rncryptor-spec-vectors in the project)"
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

