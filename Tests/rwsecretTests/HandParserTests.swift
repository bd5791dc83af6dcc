import ArgumentParser
import Testing
@testable import rwsecret

/// `decrypt`'s hand-written parser (DecryptArguments, the hot path) against ArgumentParser: the
/// same command for every vector it takes, nil (ArgumentParser parses) for every other.
@Suite("decrypt: the hand-written parser")
struct HandParserTests {
    /// Every property of a parsed `decrypt`, the root's options included, as one line.
    static func properties(_ run: DecryptRun) -> String {
        let g = run.global, r = run.rootGlobal
        return [
            "store=\(g.store ?? "nil") vault=\(g.vault ?? "nil") verbose=\(g.verbose) quiet=\(g.quiet)",
            "root: store=\(r.store ?? "nil") vault=\(r.vault ?? "nil") verbose=\(r.verbose) quiet=\(r.quiet)",
            "files=\(run.files) json=\(run.json) binary=\(run.binary) output=\(run.output ?? "nil")",
            "keyFile=\(run.keyFile ?? "nil") identity=\(run.identity) signerKey=\(run.signerKey) iterations=\(run.iterations)",
            "passwordFile=\(run.passwordFile) askPassword=\(run.askPassword) passwordLabel=\(run.passwordLabel)",
            "noStore=\(run.noStore) passwordFd=\(run.passwordFd) jobs=\(run.jobs.map(String.init) ?? "nil")",
            "memory=\(run.memory ?? "nil") maxKdfCost=\(run.maxKdfCost ?? "nil") allowLegacy=\(run.allowLegacy)",
            "idColumn=\(run.idColumn) inBand=\(run.inBand)",
        ].joined(separator: "; ")
    }

    /// The properties `properties` reads: an option added to `Decrypt` (or GlobalOptions) must be
    /// one of `DecryptRun` (or Globals) too, which the hand parser's memberwise call must then set.
    static let runProperties = ["global", "rootGlobal", "files", "json", "binary", "output", "keyFile", "identity", "signerKey", "iterations",
                                "passwordFile", "askPassword", "passwordLabel", "noStore", "passwordFd", "jobs", "memory",
                                "maxKdfCost", "allowLegacy", "idColumn", "inBand"]
    static let globalProperties = ["store", "vault", "verbose", "quiet"]

    @Test("decrypt and GlobalOptions have exactly the properties of the plain values the hand parser makes")
    func everyPropertySet() throws {
        func labels(_ value: Any) -> [String] { Mirror(reflecting: value).children.map { $0.label ?? "?" } }
        let run = try #require(DecryptArguments.parse(["decrypt"]))
        #expect(labels(run) == Self.runProperties, "a new decrypt option: add it here and to properties(_:)")
        // ArgumentParser's: the same, as property wrappers (`_name`), with the parent command for the root's options.
        #expect(labels(RWSecret.Decrypt()).map { $0 == "_root" ? "rootGlobal" : String($0.dropFirst()) } == Self.runProperties,
                "a new decrypt option: give DecryptRun the same property, set it in DecryptArguments.parse and Decrypt.values(root:)")
        #expect(labels(GlobalOptions()).map { String($0.dropFirst()) } == Self.globalProperties)
        #expect(labels(run.global) == Self.globalProperties)
        #expect(labels(RWSecret()) == ["_global"])
    }

    /// Vectors the hand parser takes: the command must be ArgumentParser's, property for property.
    static let taken: [[String]] = [
        ["decrypt"],
        ["decrypt", "msgs.txt"],
        ["decrypt", "-"],
        ["decrypt", "a", "b", "-", "c d"],
        ["decrypt", "--no-store", "--password-file", "pw", "msg"],
        ["decrypt", "--password-file=pw", "--password-file", "pw2", "--password-fd", "3", "--password-fd=4", "m"],
        ["decrypt", "--store", "file", "--vault", "/tmp/v", "--verbose", "f"],
        ["decrypt", "--store=keyring", "--quiet", "--password-label", "a", "--password-label=b"],
        ["decrypt", "--json", "--jobs", "4", "--iterations", "1000", "in.txt"],
        ["decrypt", "--jobs=1", "--iterations=10000"],
        ["decrypt", "--binary", "-o", "out.bin", "in.bin"],
        ["decrypt", "-o", "out", "file.age", "--identity", "id.txt", "--identity=id2.txt"],
        ["decrypt", "--signer-key", "alice.asc", "--identity", "me.asc", "--signer-key=bob.gpg", "m.gpg"],
        ["decrypt", "--key-file", "k", "--allow-legacy", "--ask-password"],
        ["decrypt", "--in-band", "--id-column", "--memory", "512M", "--max-kdf-cost=64G"],
        ["decrypt", "--key-file=k", "x", "--no-store", "y"],
        ["decrypt", "--iterations", "+5", "--jobs", "007"],
        ["decrypt", "--vault=v", "--store", "auto", "--verbose", "--in-band"],
    ]

    @Test("the hand parser makes ArgumentParser's command", arguments: taken)
    func sameAsArgumentParser(_ arguments: [String]) throws {
        let hand = try #require(DecryptArguments.parse(arguments), "the hand parser refused \(arguments)")
        let parsed = try RWSecret.parseAsRoot(arguments)
        let full = try #require(parsed as? RWSecret.Decrypt)
        #expect(Self.properties(hand) == Self.properties(full.values(root: full.root.global.plain)), "\(arguments)")
    }

    /// Vectors it leaves to ArgumentParser: help, completion, errors, spellings it does not read.
    static let left: [[String]] = [
        ["encrypt"], [], ["decrypt", "--help"], ["decrypt", "-h"], ["decrypt", "help"], ["decrypt", "--version"],
        ["decrypt", "--generate-completion-script", "bash"], ["decrypt", "--bogus"], ["decrypt", "-x"],
        ["decrypt", "--json", "--json"], ["decrypt", "--jobs", "1", "--jobs", "2"], ["decrypt", "--jobs", "-1"],
        ["decrypt", "--jobs", "0"], ["decrypt", "--jobs=x"], ["decrypt", "--iterations", "0"], ["decrypt", "--store", "bogus"],
        ["decrypt", "--json", "--binary"], ["decrypt", "--no-store", "--store", "file"], ["decrypt", "-o"],
        ["decrypt", "-o", "-"], ["decrypt", "-oout"], ["decrypt", "--", "-f"], ["decrypt", "--verbose=yes"],
        ["decrypt", "--store="], ["decrypt", "--password-fd", "1"], ["decrypt", "--password-fd", "x"],
        ["decrypt", "--memory", "lots"], ["decrypt", "--quiet", "--verbose"], ["decrypt", "-o", "o", "a", "b"],
        ["decrypt", "--password-file"], ["decrypt", "--password-file", "--json"],
    ]

    @Test("anything else is ArgumentParser's to parse", arguments: left)
    func leftToArgumentParser(_ arguments: [String]) {
        #expect(DecryptArguments.parse(arguments) == nil, "\(arguments)")
    }

    /// CommandWords.check lets a vector that names a leaf command first pass at once (the hot
    /// path's shortcut): that is only the loop's own answer when the name is a leaf.
    @Test("a leaf named first leaves the command words nothing to check")
    func leafNamedFirst() throws {
        for name in CommandWords.leafNamedFirst {
            let command = try #require(RWSecret.configuration.subcommands.first { $0._commandName == name }, "\(name)")
            #expect(command.configuration.subcommands.isEmpty, "\(name) has subcommands")
            #expect(CommandWords.check([name, "--jobs", "2", "FILE"]) == nil)
        }
        #expect(CommandWords.check(["decrpyt", "FILE"])?.message.contains("did you mean 'decrypt'") == true)
        #expect(CommandWords.check(["--jobs", "2", "decrypt"]) != nil)
    }
}
