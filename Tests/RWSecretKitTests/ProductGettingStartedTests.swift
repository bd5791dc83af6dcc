import Foundation
import Testing

/// Issue 33, item 5: each library product has a getting-started article whose first snippet
/// opens its kinds in ten lines or fewer, and that snippet is real code: typechecked by
/// `swiftc` against the modules just built, importing its own product only (RWSecretCore's
/// sees none of RWSecretKit's symbols). Before, RWSecretCore and RNCryptorCompat had no catalog.
@Suite("Each product's getting-started article opens its kinds in ten lines or fewer")
struct ProductGettingStartedTests {
    /// The products, their article and what their first snippet takes as given.
    static let products: [(module: String, article: String, prelude: String)] = [
        ("RWSecretCore", "Sources/RWSecretCore/RWSecretCore.docc/GettingStarted.md", "let message: [UInt8] = []"),
        ("RWSecretKit", "Sources/RWSecretKit/RWSecretKit.docc/GettingStartedWithKinds.md", ""),
        ("RNCryptorCompat", "Sources/RNCryptorCompat/RNCryptorCompat.docc/GettingStarted.md", ""),
    ]

    /// The first Swift block of the article at `path` (under the package's root), its lines as written.
    static func firstSnippet(_ path: String) throws -> [String] {
        var root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) { root.deleteLastPathComponent() }
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "```swift"), let end = lines[(start + 1)...].firstIndex(of: "```") else { return [] }
        return Array(lines[(start + 1)..<end])
    }

    @Test("the first snippet: ten lines or fewer, importing its product alone, and it typechecks",
          arguments: products.map(\.module))
    func firstSnippet(module: String) throws {
        let product = try #require(Self.products.first { $0.module == module })
        let code = try Self.firstSnippet(product.article)
        let lines = code.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(!lines.isEmpty && lines.count <= 10, "\(lines.count) lines in \(product.article)'s first snippet")
        let imports = lines.filter { $0.hasPrefix("import ") }
        #expect(imports.contains("import \(module)"), "\(imports)")
        // No other product's module: the snippet is this product's alone.
        let others = Self.products.map(\.module).filter { $0 != module }
        #expect(!imports.contains { line in others.contains { line == "import \($0)" } }, "\(imports)")
        // The snippet's own imports, its inputs, then its body in a throwing function.
        let body = code.filter { !$0.hasPrefix("import ") }.joined(separator: "\n")
        let source = imports.joined(separator: "\n") + "\n" + product.prelude + "\nfunc snippet() throws {\n" + body + "\n}\n"
        let errors = try PublicAPITests.typecheck(source)
        #expect(errors.isEmpty, "\(errors)\n\(source)")
    }
}
