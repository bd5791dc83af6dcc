import Foundation
import Testing

/// docs/library.md's Swift snippets typecheck against the modules just built, as a consumer
/// sees them (issue 23, item 8: its `?? []` snippet turned bad base64 into "too short"; the
/// DocC articles' snippets are checked by `PublicAPITests`).
@Suite("docs/library.md: the snippets typecheck")
struct LibraryDocSnippetsTests {
    /// What the RWSecretKit snippets take as given (their inputs), declared for the typecheck.
    static let kitPrelude = """
        import RWSecretKit
        let body = "", sharedPassword = "", v1 = "", v2 = "", requests: [String] = []
        let encryptionKey = [UInt8](repeating: 1, count: 32), hmacKey = [UInt8](repeating: 2, count: 32)
        let keyFileBytes: [UInt8] = [], keyPassphrase = ""
        func handle(_ plaintext: [UInt8], from: String) {}
        func reject(_ why: DecryptionFailure) {}
        """

    /// The same for the RNCryptorCompat snippet (a module of its own: both products in one file
    /// would make `RNCryptor` ambiguous).
    static let compatPrelude = """
        import Foundation
        import RNCryptorCompat
        let data = Data(), password = "", message = Data(), encKey = Data(), hmacKey = Data()
        """

    @Test("every Swift snippet of docs/library.md typechecks against the built modules")
    func snippetsTypecheck() throws {
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let text = try String(contentsOf: root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        var kit: [String] = [], compat: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = [] }
            else if let code = current, line == "```" {
                let body = code.filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
                if code.contains(where: { $0.hasPrefix("import RNCryptorCompat") }) { compat.append(body) }
                else if !code.contains(where: { $0.hasPrefix(".package(") }) { kit.append(body) }  // Package.swift's lines
                current = nil
            } else if current != nil { current!.append(line) }
        }
        #expect(kit.count >= 2 && compat.count >= 1, "only \(kit.count) + \(compat.count) Swift snippets in docs/library.md")
        for (prelude, blocks) in [(Self.kitPrelude, kit), (Self.compatPrelude, compat)] {
            // Each snippet in a scope of its own (they reuse names), inside a throwing function.
            let source = prelude + "\n" + blocks.enumerated().map { "func snippet\($0.offset)() throws {\n\($0.element)\n}" }.joined(separator: "\n")
            let errors = try PublicAPITests.typecheck(source)
            #expect(errors.isEmpty, "\(errors)\n\(source)")
        }
    }
}
