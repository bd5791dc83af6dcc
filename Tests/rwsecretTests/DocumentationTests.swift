import Foundation
import Testing

/// Every `RWSECRET_*` variable the tool reads is documented: in the man pages' ENVIRONMENT
/// section (Documentation/man/environment.mdoc) and in the README (issue 12, item 9).
@Suite("documentation")
struct DocumentationTests {
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { dir.deleteLastPathComponent() }
        return dir
    }()

    /// The variables read under Sources/ (the tool and the library; not the bench, not C header guards).
    static func variablesRead() throws -> Set<String> {
        var names: Set<String> = []
        let regex = try NSRegularExpression(pattern: "RWSECRET_[A-Z_]+")
        for folder in ["Sources/rwsecret", "Sources/RWSecretKit"] {
            let enumerator = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                guard url.pathExtension == "swift" else { continue }
                let text = try String(contentsOf: url, encoding: .utf8)
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    names.insert(String(text[Range(match.range, in: text)!]))
                }
            }
        }
        return names.filter { !$0.hasSuffix("_H") }
    }

    @Test("every RWSECRET_* variable is in the man pages' ENVIRONMENT section and in the README")
    func everyVariableDocumented() throws {
        let read = try Self.variablesRead()
        #expect(read.contains("RWSECRET_VAULT_PASSPHRASE"), "the scan found \(read.sorted())")
        let man = try String(contentsOf: Self.root.appendingPathComponent("Documentation/man/environment.mdoc"), encoding: .utf8)
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        for name in read.sorted() {
            #expect(man.contains(".It Ev \(name)"), "\(name) is not in Documentation/man/environment.mdoc")
            #expect(readme.contains(name), "\(name) is not in README.md")
        }
    }

    @Test("--help names the variables options fall back to")
    func helpNamesVariables() throws {
        let home = TemporaryFolder()
        let environment = RWSecretProcess.environment(home: home.url)
        // Joined into one line: the help wraps at 80 columns.
        let decrypt = try RWSecretProcess.run(["decrypt", "--help"], environment: environment).out
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for name in ["RWSECRET_STORE", "RWSECRET_VAULT", "RWSECRET_VAULT_PASSPHRASE", "RWSECRET_PASSWORD", "RWSECRET_PROGRESS_DELAY"] {
            #expect(decrypt.contains(name), "decrypt --help does not name \(name)")
        }
        for phrase in ["plaintext_base64", "writes no stdout line", "prints as two lines"] { #expect(decrypt.contains(phrase), "\(decrypt)") }
        let encrypt = try RWSecretProcess.run(["encrypt", "--help"], environment: environment).out
        #expect(encrypt.contains("RWSECRET_PASSWORD"))
    }

    // Issue 27 item 14: mdoc warned "Empty input line", rwsecret.help(1) was empty, rwsecret(1)
    // said "see rwsecret(1)", and password copy's NAME lost its "↔".
    @Test("man-sections.sh: blank lines become paragraphs, no empty help page, rwsecret(1) does not point at itself")
    func manSections() throws {
        let pages = TemporaryFolder()
        _ = pages.file("rwsecret.1", """
            .Sh NAME
            .Nm rwsecret
            .Sh DESCRIPTION
            Environment: RWSECRET_STORE (see the man page rwsecret(1), or `rwsecret help decrypt`).

            A second paragraph.
            .Sh "EXIT STATUS"
            exits 0 on success
            .Sh AUTHORS

            """)
        _ = pages.file("rwsecret.help.1", ".Sh NAME\n.Nm \"rwsecret help\"\n")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [Self.root.appendingPathComponent("scripts/man-sections.sh").path, pages.url.path,
                             Self.root.appendingPathComponent("Documentation/man").path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: pages.url.appendingPathComponent("rwsecret.help.1").path))
        let page = try String(contentsOf: pages.url.appendingPathComponent("rwsecret.1"), encoding: .utf8)
        #expect(!page.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains(""), "no empty input line: \(page)")
        #expect(page.contains("(see ENVIRONMENT below, or `rwsecret help decrypt`)"))
        #expect(!page.contains("rwsecret(1)"))
        #expect(page.contains(".Sh ENVIRONMENT") && page.contains(".Sh FILES") && page.contains("SIGPIPE"))
    }

    @Test("every command's abstract is ASCII (the man page generator drops other characters from NAME), and --help says each default once")
    func abstractsAndDefaults() throws {
        let home = TemporaryFolder()
        let environment = RWSecretProcess.environment(home: home.url)
        for path in [["decrypt"], ["encrypt"], ["password", "add"], ["password", "copy"], ["password", "list"], ["password", "remove"],
                     ["password", "rename"], ["vault", "unlock"], ["vault", "lock"], ["vault", "passphrase"], ["status"]] {
            let help = try RWSecretProcess.run(path + ["--help"], environment: environment).out
            let overview = help.split(separator: "\n").first { $0.hasPrefix("OVERVIEW:") } ?? ""
            #expect(!overview.isEmpty && overview.allSatisfy(\.isASCII), "\(path): \(overview)")
            #expect(!help.contains("(default 10,000). (default"), "\(path): a default said twice")
        }
    }
}
