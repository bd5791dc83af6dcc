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

    /// The variables read under Sources/ (the tool and both library modules; not the bench, not C header guards).
    static func variablesRead() throws -> Set<String> {
        var names: Set<String> = []
        let regex = try NSRegularExpression(pattern: "RWSECRET_[A-Z_]+")
        for folder in ["Sources/rwsecret", "Sources/RWSecretKit", "Sources/RWSecretCore"] {
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
            // So is all of the help: the generator drops "–" from "1–64" ("164 characters").
            let nonASCII = String(String.UnicodeScalarView(help.unicodeScalars.filter { !$0.isASCII }))
            #expect(nonASCII.isEmpty, "\(path): \(nonASCII)")
            #expect(!help.contains("(default 10,000). (default"), "\(path): a default said twice")
        }
    }

}

/// The README is for users, and every claim in it is checked (issue 27): here, or by `make demo`
/// (the tour's decrypt of Fixtures/messages.txt).
@Suite("the README")
struct ReadmeTests {
    static let readme: String = (try? String(contentsOf: DocumentationTests.root.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""
    static var lines: [String] { readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// GitHub's anchor for a heading: lower case, spaces to `-`, punctuation dropped.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().compactMap { c -> Character? in
            c == " " ? "-" : (c.isLetter || c.isNumber || c == "-" || c == "_") ? c : nil
        })
    }

    static func headings(_ text: String, level: String = "## ") -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix(level) }.map { String($0.dropFirst(level.count)) }
    }

    @Test("at most 300 lines, and the contents list names every section")
    func lengthAndContents() throws {
        #expect(Self.lines.count <= 300, "\(Self.lines.count) lines")
        let contents = try #require(Self.lines.first { $0.hasPrefix("Contents:") }.map { start -> String in
            let index = Self.lines.firstIndex(of: start)!
            return Self.lines[index...].prefix { !$0.isEmpty }.joined(separator: " ")
        })
        for heading in Self.headings(Self.readme) {
            #expect(contents.contains("(#\(Self.anchor(heading)))"), "the contents list leaves out '\(heading)'")
        }
        for section in ["Set-up", "A tour", "Stores", "Kinds of message", "Pipelines", "Exit status", "Troubleshooting", "Performance", "Library"] {
            #expect(Self.headings(Self.readme).contains(section), "no section '\(section)'")
        }
    }

    @Test("every link goes somewhere: an anchor of the README, or a file (and its anchor) in the repository")
    func links() throws {
        let regex = try NSRegularExpression(pattern: #"\]\(([^)]+)\)"#)
        let text = Self.readme
        let anchors = Set(Self.headings(text).map(Self.anchor) + Self.headings(text, level: "# ").map(Self.anchor))
        for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let target = String(text[Range(match.range(at: 1), in: text)!])
            if target.hasPrefix("http") { continue }
            let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            if parts[0].isEmpty {
                #expect(anchors.contains(parts[1]), "no section for \(target)")
                continue
            }
            let url = DocumentationTests.root.appendingPathComponent(parts[0])
            #expect(FileManager.default.fileExists(atPath: url.path), "\(target) does not exist")
            if parts.count == 2, let other = try? String(contentsOf: url, encoding: .utf8) {
                let theirs = Self.headings(other).map(Self.anchor) + Self.headings(other, level: "### ").map(Self.anchor)
                #expect(theirs.contains(parts[1]), "no section \(parts[1]) in \(parts[0])")
            }
        }
    }

    @Test("the tour uses the release build")
    func releaseBuild() {
        #expect(Self.readme.contains("make release") && Self.readme.contains("export PATH=\"$PWD/.build/dist:$PATH\""))
    }

    /// Each `<!-- transcript -->` block: `$ rwsecret ARGS` lines, each followed by what it prints
    /// (stdout and stderr as a terminal shows them); `…` alone skips lines, `…` at the end of a
    /// line stands for the rest of it. Run in the repository with the demo's three passwords in a vault.
    @Test("the transcripts are what the tool prints")
    func transcripts() throws {
        let home = TemporaryFolder()
        let vault = home.url.appendingPathComponent("vault").path
        let environment = RWSecretProcess.environment(home: home.url, extra: ["RWSECRET_VAULT": vault, "RWSECRET_VAULT_PASSPHRASE": "demo vault passphrase"])
        for password in ["password", "ray", "raywender"] {
            #expect(try RWSecretProcess.run(["password", "add", "--store", "file"], stdin: Data((password + "\n").utf8), environment: environment).status == 0)
        }
        var blocks: [[String]] = []
        var index = 0
        let lines = Self.lines
        while index < lines.count {
            if lines[index] == "<!-- transcript -->" {
                let start = index + 2
                let end = lines[start...].firstIndex(of: "```")!
                blocks.append(Array(lines[start..<end]))
                index = end
            }
            index += 1
        }
        #expect(blocks.count >= 3)
        for block in blocks {
            var commands: [(arguments: [String], expected: [String])] = []
            for line in block {
                if line.hasPrefix("$ rwsecret ") {
                    commands.append((line.dropFirst(11).split(separator: " ").map(String.init), []))
                } else {
                    commands[commands.count - 1].expected.append(line)
                }
            }
            for (arguments, expected) in commands {
                let result = try RWSecretProcess.run(arguments, environment: environment, directory: DocumentationTests.root, mergingStandardError: true)
                #expect(Self.matches(result.outLines, expected), "rwsecret \(arguments.joined(separator: " ")) printed \(result.outLines)")
            }
        }
    }

    static func matches(_ actual: [String], _ expected: [String]) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        if first == "…" {
            return (0...actual.count).contains { matches(Array(actual[$0...]), Array(expected.dropFirst())) }
        }
        guard let line = actual.first else { return false }
        let fits = first.hasSuffix("…") ? line.hasPrefix(first.dropLast()) : line == first
        return fits && matches(Array(actual.dropFirst()), Array(expected.dropFirst()))
    }

    /// The messages the troubleshooting table quotes are the tool's: each piece between
    /// placeholders (FILE, LINE, N, …) is in the sources.
    @Test("the troubleshooting table quotes the tool's own messages")
    func troubleshootingMessages() throws {
        var sources = ""
        for folder in ["Sources/rwsecret", "Sources/RWSecretKit", "Sources/RWSecretCore"] {
            let enumerator = FileManager.default.enumerator(at: DocumentationTests.root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.pathExtension == "swift" { sources += try String(contentsOf: url, encoding: .utf8) }
            }
        }
        let start = try #require(Self.lines.firstIndex(of: "## Troubleshooting"))
        let rows = Self.lines[start...].dropFirst().prefix { !$0.hasPrefix("## ") }.filter { $0.hasPrefix("| `") || $0.hasPrefix("| ``") }
        #expect(rows.count >= 10)
        for row in rows {
            var quoted = String(row.dropFirst(2).prefix { $0 != "|" }).trimmingCharacters(in: .whitespaces)
            quoted = quoted.components(separatedBy: " (6")[0].trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            quoted = quoted.replacingOccurrences(of: "rwsecret: ", with: "")
            let pieces = quoted.components(separatedBy: CharacterSet(charactersIn: "…`"))
                .flatMap { $0.components(separatedBy: "FILE:LINE: ") }
                // Where the tool joins parts (an interpolated reason, an advice after "; ").
                .flatMap { $0.components(separatedBy: " (") }
                .flatMap { $0.components(separatedBy: "; ") }
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .map { $0.replacingOccurrences(of: "tried N)", with: "tried") }
                .filter { $0.count >= 6 }
            #expect(!pieces.isEmpty, "\(row)")
            for piece in pieces {
                #expect(sources.contains(piece), "'\(piece)' (troubleshooting) is not in the sources")
            }
        }
    }

    @Test("the exit status table has every status the tool uses, and 141 for a reader gone")
    func exitStatuses() throws {
        let source = try String(contentsOf: DocumentationTests.root.appendingPathComponent("Sources/rwsecret/Output/ExitStatus.swift"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"case \w+ = (\d+)"#)
        let codes = regex.matches(in: source, range: NSRange(source.startIndex..., in: source)).map { String(source[Range($0.range(at: 1), in: source)!]) }
        #expect(codes.count >= 8)
        for code in codes + ["141"] {
            #expect(Self.readme.contains("\n| \(code) | "), "exit status \(code) is not in the README's table")
        }
    }

    @Test("every figure of the performance summary is in docs/performance.md, with how it is measured")
    func performanceFigures() throws {
        let details = try String(contentsOf: DocumentationTests.root.appendingPathComponent("docs/performance.md"), encoding: .utf8)
        let start = try #require(Self.lines.firstIndex(of: "## Performance"))
        let rows = Self.lines[start...].dropFirst().prefix { !$0.hasPrefix("## ") }.filter { $0.hasPrefix("| ") && !$0.hasPrefix("| what") && !$0.hasPrefix("|---") }
        #expect(rows.count >= 4)
        let regex = try NSRegularExpression(pattern: #"\d[\d.,–]*\s?(ms|s|MiB)\b"#)
        for row in rows {
            let figure = String(row.split(separator: "|").last!)
            for match in regex.matches(in: figure, range: NSRange(figure.startIndex..., in: figure)) {
                let number = String(figure[Range(match.range, in: figure)!])
                #expect(details.contains(number), "\(number) is not in docs/performance.md")
            }
        }
        #expect(details.contains("make bench") && details.contains("make bench-peers"))
    }

    @Test("kinds of message: what opens today, and what does not")
    func kinds() throws {
        let start = try #require(Self.lines.firstIndex(of: "## Kinds of message"))
        let section = Self.lines[start...].dropFirst().prefix { !$0.hasPrefix("## ") }.joined(separator: "\n")
        for kind in ["RNCryptor v3 and v2", "RNCryptor v0 and v1", "--allow-legacy", "age", "OpenPGP", "Ansible Vault", "OpenSSL `enc`", "SEIPD v2", "| yes |", "| no: "] {
            #expect(section.contains(kind), "\(kind)")
        }
    }
}
