import Foundation
import Testing

/// `rwsecret` is two programs (issue 36, row (a)): the front, Sources/RWSecretFront, runs
/// `decrypt` as most runs spell it without ArgumentParser, and replaces itself (`execv`) with
/// the whole tool, `rwsecret-commands`, for anything else. The tests run the front, as every
/// other suite does (`RWSecretProcess.executable`); these check what the split itself promises.
@Suite("the front: rwsecret runs decrypt itself and the whole tool for the rest")
struct FrontTests {
    let dir = TemporaryFolder()

    static let root: URL = DocumentationTests.root
    /// The whole tool, beside the front in the build products folder.
    static var wholeTool: URL { RWSecretProcess.executable.deletingLastPathComponent().appendingPathComponent("rwsecret-commands") }

    @Test("Sources/RWSecretFront/Shared holds only links to the whole tool's own files, at the same paths, none of them importing ArgumentParser")
    func sharedFilesAreLinks() throws {
        let shared = Self.root.appendingPathComponent("Sources/RWSecretFront/Shared")
        let tool = Self.root.appendingPathComponent("Sources/rwsecret").resolvingSymlinksInPath().path
        let files = try FileManager.default.subpathsOfDirectory(atPath: shared.path).filter { $0.hasSuffix(".swift") }.sorted()
        #expect(files.count >= 40, "\(files)")
        for file in files {
            let link = shared.appendingPathComponent(file)
            let destination = try FileManager.default.destinationOfSymbolicLink(atPath: link.path)
            #expect(!destination.hasPrefix("/"), "\(file): an absolute link (\(destination)) breaks in a clone elsewhere")
            let target = link.resolvingSymlinksInPath().path
            #expect(target == tool + "/" + file, "\(file) links to \(target), not to Sources/rwsecret/\(file)")
            let text = try String(contentsOfFile: target, encoding: .utf8)
            #expect(!text.contains("import ArgumentParser"), "\(file) imports ArgumentParser: the front must not link it")
        }
    }

    /// Modules the front must not link, as their names appear in mangled symbols: ArgumentParser
    /// and the FoundationEssentials it brings; the regex engine (`_StringProcessing`, which
    /// brings `_RegexParser`: 880 KB of code, a dozen relocated pages a run), which a
    /// `String.contains(String)`, `replacing` or `split(separator: String)` anywhere in the
    /// front's code or the library pulls in (`TextSearch`, `containsText` instead).
    static let notInTheFront = ["14ArgumentParser", "20FoundationEssentials", "17_StringProcessing", "12_RegexParser"]

    @Test("the front's build has no ArgumentParser, FoundationEssentials or regex engine code in it (nm)",
          .enabled(if: PrivateKeyring.executable("nm") != nil, "nm (binutils) is not installed"))
    func noArgumentParserInTheFront() throws {
        let nm = try RWSecretProcess.run([RWSecretProcess.executable.path], environment: RWSecretProcess.environment(home: dir.url),
                                         executable: URL(fileURLWithPath: PrivateKeyring.executable("nm")!), timeout: 120)
        #expect(nm.status == 0, "\(nm.stderr)")
        for module in Self.notInTheFront {
            let linked = nm.outLines.filter { $0.contains(module) }
            #expect(linked.isEmpty, "\(module): \(linked.count) symbols, such as \(linked.prefix(3))")
        }
        // And the whole tool does link them (else the check above proves nothing).
        let whole = try RWSecretProcess.run([Self.wholeTool.path], environment: RWSecretProcess.environment(home: dir.url),
                                            executable: URL(fileURLWithPath: PrivateKeyring.executable("nm")!), timeout: 120)
        #expect(whole.outLines.contains { $0.contains("14ArgumentParser") })
    }

    /// Argument vectors the front hands on, and one it runs itself (a bad-usage error found
    /// once parsed): each must print and end as the whole tool run directly does.
    static let vectors: [[String]] = [
        ["--version"], ["--help"], ["decrypt", "--help"], ["help", "decrypt"], ["status"], ["decrpyt"], [],
        ["decrypt", "--binary", "a", "b"], ["decrypt", "--no-store", "--store", "file", "msg"], ["decrypt", "--jobs", "0"],
        ["decrypt", "--quiet", "--verbose"], ["--quiet", "decrypt", "--verbose"], ["password", "list"],
        ["decrypt", "--no-such-option"], ["encrypt", "--to"], ["--generate-completion-script", "bash"],
    ]

    @Test("the front prints and ends as the whole tool does for what it hands on", arguments: vectors)
    func sameAsTheWholeTool(arguments: [String]) throws {
        let env = RWSecretProcess.environment(home: dir.url)
        let front = try RWSecretProcess.run(arguments, environment: env, directory: dir.url)
        let whole = try RWSecretProcess.run(arguments, environment: env, directory: dir.url, executable: Self.wholeTool)
        #expect(front.status == whole.status, "\(arguments): \(front.stderr) / \(whole.stderr)")
        #expect(front.out == whole.out, "\(arguments)")
        #expect(front.stderr == whole.stderr, "\(arguments)")
    }

    @Test("alone (no rwsecret-commands beside it, none in ../libexec/rwsecret): decrypts, and says what is missing for anything else (69)")
    func alone() throws {
        let folder = dir.url.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let copy = folder.appendingPathComponent("rwsecret")
        try FileManager.default.copyItem(at: RWSecretProcess.executable, to: copy)
        let env = RWSecretProcess.environment(home: dir.url)
        let pw = dir.file("pw", "right\n")
        let message = dir.file("msg", Messages.password("alone", "right") + "\n")
        let decrypted = try RWSecretProcess.run(["decrypt", "--no-store", "--password-file", pw, message], environment: env, executable: copy)
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(decrypted.out == "alone\n")
        let status = try RWSecretProcess.run(["status"], environment: env, executable: copy)
        #expect(status.status == 69)
        #expect(status.out.isEmpty)
        #expect(status.errLines == ["rwsecret: this command needs rwsecret-commands, which is not installed beside rwsecret (looked for \(folder.path)/rwsecret-commands and \(dir.url.path)/libexec/rwsecret/rwsecret-commands): reinstall with `make install`"])
    }

    @Test("installed: bin/rwsecret runs libexec/rwsecret/rwsecret-commands, found through a link to bin/rwsecret too")
    func installedLayout() throws {
        let prefix = dir.url.appendingPathComponent("prefix")
        let bin = prefix.appendingPathComponent("bin"), libexec = prefix.appendingPathComponent("libexec/rwsecret")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: RWSecretProcess.executable, to: bin.appendingPathComponent("rwsecret"))
        try FileManager.default.copyItem(at: Self.wholeTool, to: libexec.appendingPathComponent("rwsecret-commands"))
        // A link elsewhere (~/bin/rwsecret → PREFIX/bin/rwsecret): the front looks beside the file it is.
        let link = dir.url.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: bin.appendingPathComponent("rwsecret"))
        let env = RWSecretProcess.environment(home: dir.url)
        let version = try RWSecretProcess.run(["--version"], environment: env, executable: link)
        #expect(version.status == 0, "\(version.stderr)")
        let whole = try RWSecretProcess.run(["--version"], environment: env, executable: Self.wholeTool)
        #expect(version.out == whole.out && !whole.out.isEmpty)
    }
}
